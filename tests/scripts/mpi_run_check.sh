#!/bin/sh
# A distributed `colordg run` against one process (tests/distributed.cmake):
#   mpi_run_check.sh COLORDG MPIEXEC CASE WORK [BACKEND]
# BACKEND: cpu (default) or cuda (every rank on the host's GPU of its node
# rank; exit 77, skipped, when there is no CUDA device). Environment
# MPI_CHECK_ITERS="N M" (default "60 40"): the iterations of the runs below
# (M must be a checkpoint iteration of the case).
# 1. one process, 60 iterations;
# 2. two ranks, 40 iterations (checkpoint; the volume output in pieces,
#    solution.pvtu, as [output] vtu_pieces = auto does with several ranks),
#    then three ranks restarted from that checkpoint to 60 with
#    vtu_pieces = no: the final solution.vtu, gathered on rank 0, must equal
#    the one-process one byte for byte (the residual of owned elements has
#    the same operands in the same order), the stale solution.pvtu of the
#    two-rank run must be gone, and history.csv must have one header and 60
#    rows.
set -u
colordg=$1 mpiexec=$2 case=$3 work=$4 backend=${5:-cpu}
set -- ${MPI_CHECK_ITERS:-60 40}
n_all=$1 n_two=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
export OMP_NUM_THREADS=1
if ! "$colordg" run "$case" --backend "$backend" --max-iters "$n_all" --output "$work/one" --quiet > "$work/one.log" 2>&1; then
  cat "$work/one.log"
  grep -q "no CUDA device found\|built without CUDA" "$work/one.log" && exit 77
  exit 1
fi
"$mpiexec" -n 2 --oversubscribe "$colordg" run "$case" --backend "$backend" --max-iters "$n_two" --output "$work/two" --quiet > "$work/two.log" 2>&1 || { cat "$work/two.log"; exit 1; }
grep -q "distributed: 2 MPI ranks" "$work/two.log" || { echo "no distributed line"; cat "$work/two.log"; exit 1; }
for f in solution.pvtu solution/rank_0000.vtu solution/rank_0001.vtu; do
  [ -s "$work/two/$f" ] || { echo "two ranks wrote no $f"; ls -R "$work/two"; exit 1; }
done
[ ! -e "$work/two/solution.vtu" ] || { echo "two ranks (vtu_pieces = auto) wrote solution.vtu too"; exit 1; }
# the restart writes one gathered solution.vtu
casedir=$(cd "$(dirname "$case")" && pwd)
sed -e 's/^\[output\]/[output]\nvtu_pieces = no/' -e "s|^file = |file = $casedir/|" "$case" > "$work/case_single.ini"
if [ "$backend" = cuda ]; then
  grep -q "backend cuda" "$work/two.log" && grep -q "GPUs: rank 0 on device" "$work/two.log" || { echo "not on the GPU"; cat "$work/two.log"; exit 1; }
fi
"$mpiexec" -n 3 --oversubscribe "$colordg" run "$work/case_single.ini" --backend "$backend" --max-iters "$n_all" --output "$work/two" --restart "$work/two/checkpoint.cdgs" --quiet > "$work/three.log" 2>&1 || { cat "$work/three.log"; exit 1; }
cmp "$work/one/solution.vtu" "$work/two/solution.vtu" || { echo "solution.vtu differs between 1 rank and 2 + 3 ranks"; exit 1; }
cmp "$work/one/surface_cp.csv" "$work/two/surface_cp.csv" || { echo "surface_cp.csv differs"; exit 1; }
[ ! -e "$work/two/solution.pvtu" ] || { echo "the stale solution.pvtu of the two-rank run is still there"; exit 1; }
rows=$(wc -l < "$work/two/history.csv")
[ "$rows" -eq "$(wc -l < "$work/one/history.csv")" ] || { echo "history.csv: $rows lines"; exit 1; }
echo "mpi_run_check ($backend): 1 rank and 2 + 3 ranks (restart) give the same solution.vtu and surface_cp.csv"
