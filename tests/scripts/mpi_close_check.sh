#!/bin/sh
# A distributed run against one process, to round-off (tests/distributed.cmake:
# Newton-Krylov, and LU-SGS with rank_coupling = pass):
#   mpi_close_check.sh COLORDG MPIEXEC CASE WORK ITERS [BACKEND]
# BACKEND: cpu (default) or cuda (exit 77, skipped, without a CUDA device).
# Krylov dot products add the ranks' parts in rank order, not in one
# process's order, so the runs agree to round-off, not to the bit: the
# last history row's CL, CD and CM must agree to 1e-8 (relative to 1).
set -u
colordg=$1 mpiexec=$2 case=$3 work=$4 iters=$5 backend=${6:-cpu}
rm -rf "$work" && mkdir -p "$work" || exit 1
export OMP_NUM_THREADS=1
if ! "$colordg" run "$case" --backend "$backend" --max-iters "$iters" --output "$work/one" --quiet > "$work/one.log" 2>&1; then
  cat "$work/one.log"
  grep -q "no CUDA device found\|built without CUDA" "$work/one.log" && exit 77
  exit 1
fi
"$mpiexec" -n 2 --oversubscribe "$colordg" run "$case" --backend "$backend" --max-iters "$iters" --output "$work/two" --quiet > "$work/two.log" 2>&1 || { cat "$work/two.log"; exit 1; }
tail -1 "$work/one/history.csv" > "$work/a.txt"
tail -1 "$work/two/history.csv" > "$work/b.txt"
head -1 "$work/one/history.csv" > "$work/h.txt"
awk -F, 'NR == FNR { for (i = 1; i <= NF; ++i) h[i] = $i; next }
         FILENAME ~ /a.txt$/ { for (i = 1; i <= NF; ++i) a[i] = $i; next }
         { bad = 0
           for (i = 1; i <= NF; ++i)
             if (h[i] == "cl" || h[i] == "cd" || h[i] == "cm") {
               d = a[i] - $i; if (d < 0) d = -d
               printf "%s: 1 rank %s, 2 ranks %s, |diff| %g\n", h[i], a[i], $i, d
               if (d > 1e-8) bad = 1
             }
           exit bad }' "$work/h.txt" "$work/a.txt" "$work/b.txt"
