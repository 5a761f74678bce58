#!/usr/bin/env bash
# run_newton_gpu: a Newton-Krylov run ([solver] scheme = newton_krylov) of
# the NACA 0012 subsonic case at p = 1 on the GPU against the same run on the
# CPU: 12 iterations, a monitor row every iteration; every history column
# but the wall-clock ones must agree to 1e-8 relative (the Krylov dot
# products sum in different fixed orders on the two backends).
#   run_newton_gpu.sh COLORDG CASE.ini OUTDIR MESH
# Exit 77 (skipped) without a CUDA device.
set -u
colordg=$1 case_in=$2 out=$3 mesh=$4
fail() { echo "run_newton_gpu: FAIL: $*"; tail -20 "$out/log.txt" 2>/dev/null; exit 1; }
rm -rf "$out" && mkdir -p "$out"
case=$out/../newton_gpu.ini
sed -e 's/^scheme = lusgs$/scheme = newton_krylov/' -e '/^cfl_max = /d' \
    -e 's/^monitor_every = .*/monitor_every = 1/' "$case_in" > "$case"
grep -q '^scheme = newton_krylov' "$case" || fail "could not set the scheme in $case_in"
"$colordg" run "$case" --backend cuda --mesh "$mesh" --max-iters 12 --output "$out" \
  > "$out/log.txt" 2>&1 || {
  rc=$?
  if grep -q "no CUDA device found\|built without CUDA" "$out/log.txt"; then
    echo "run_newton_gpu: no CUDA device, skipped"; exit 77
  fi
  fail "colordg run exited with $rc"
}
"$colordg" run "$case" --backend cpu --mesh "$mesh" --max-iters 12 --output "$out/cpu" \
  > "$out/log_cpu.txt" 2>&1 || fail "CPU run exited with $?"
rows=$(tail -n +2 "$out/history.csv" | wc -l)
[ "$rows" -ge 12 ] || fail "$rows history rows"
cols=$(head -1 "$out/history.csv" | tr , '\n' | grep -vn '^time$\|^wall_s$' | cut -d: -f1 | paste -sd,)
paste -d'|' <(tail -n +2 "$out/history.csv" | cut -d, -f"$cols") \
  <(tail -n +2 "$out/cpu/history.csv" | cut -d, -f"$cols") |
  awk -F'|' '{ n = split($1, g, ","); split($2, c, ",");
    for (i = 1; i <= n; ++i) { d = g[i] - c[i]; if (d < 0) d = -d; s = c[i] < 0 ? -c[i] : c[i];
      if (d > 1e-8 * s + 1e-300) { print "row " NR " column " i ": GPU " g[i] " CPU " c[i]; bad = 1 } }
    } END { exit bad }' || fail "GPU and CPU histories differ"
echo "run_newton_gpu: ok"
