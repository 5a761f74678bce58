#!/usr/bin/env bash
# run_newton_gpu: a Newton-Krylov run ([solver] scheme = newton_krylov) of
# a case on the GPU against the same run on the CPU: ITERS iterations
# (default 12), a monitor row every iteration; every history column but the
# wall-clock ones must agree to 1e-8 relative (the Krylov dot products sum in
# different fixed orders on the two backends); the environment variables
# NEWTON_GPU_TOL and NEWTON_GPU_RES_TOL (residual columns) replace 1e-8. KEY=VALUE arguments replace
# the case's `KEY = ...` lines (each must exist).
#   run_newton_gpu.sh COLORDG CASE.ini OUTDIR MESH [ITERS [KEY=VALUE...]]
# Exit 77 (skipped) without a CUDA device.
set -u
colordg=$1 case_in=$2 out=$3 mesh=$4 iters=${5:-12}
tol=${NEWTON_GPU_TOL:-1e-8} tol_res=${NEWTON_GPU_RES_TOL:-${NEWTON_GPU_TOL:-1e-8}}
shift $(($# < 5 ? $# : 5))
fail() { echo "run_newton_gpu: FAIL: $*"; tail -20 "$out/log.txt" 2>/dev/null; exit 1; }
rm -rf "$out" && mkdir -p "$out"
case=$out/../newton_gpu.ini
sed -e 's/^scheme = lusgs$/scheme = newton_krylov/' -e '/^cfl_max = /d' \
    -e 's/^monitor_every = .*/monitor_every = 1/' "$case_in" > "$case"
grep -q '^scheme = newton_krylov' "$case" || fail "could not set the scheme in $case_in"
for kv in "$@"; do
  k=${kv%%=*} v=${kv#*=}
  grep -q "^$k = " "$case" || fail "no key $k in $case_in"
  sed -i "s/^$k = .*/$k = $v/" "$case"
done
"$colordg" run "$case" --backend cuda --mesh "$mesh" --max-iters "$iters" --output "$out" \
  > "$out/log.txt" 2>&1 || {
  rc=$?
  if grep -q "no CUDA device found\|built without CUDA" "$out/log.txt"; then
    echo "run_newton_gpu: no CUDA device, skipped"; exit 77
  fi
  fail "colordg run exited with $rc"
}
"$colordg" run "$case" --backend cpu --mesh "$mesh" --max-iters "$iters" --output "$out/cpu" \
  > "$out/log_cpu.txt" 2>&1 || fail "CPU run exited with $?"
rows=$(tail -n +2 "$out/history.csv" | wc -l)
[ "$rows" -ge "$iters" ] || fail "$rows history rows"
cols=$(head -1 "$out/history.csv" | tr , '\n' | grep -vn '^time$\|^wall_s$' | cut -d: -f1 | paste -sd,)
names=$(head -1 "$out/history.csv" | cut -d, -f"$cols")
paste -d'|' <(tail -n +2 "$out/history.csv" | cut -d, -f"$cols") \
  <(tail -n +2 "$out/cpu/history.csv" | cut -d, -f"$cols") |
  awk -v tol="$tol" -v tol_res="$tol_res" -v names="$names" -F'|' '
    BEGIN { split(names, name, ",") }
    { n = split($1, g, ","); split($2, c, ",");
    for (i = 1; i <= n; ++i) { d = g[i] - c[i]; if (d < 0) d = -d; s = c[i] < 0 ? -c[i] : c[i];
      t = name[i] ~ /^res_/ ? tol_res : tol
      if (d > t * s + 1e-300) { print "row " NR " " name[i] ": GPU " g[i] " CPU " c[i]; bad = 1 } }
    } END { exit bad }' || fail "GPU and CPU histories differ"
echo "run_newton_gpu: ok (relative tolerance $tol, residual columns $tol_res)"
