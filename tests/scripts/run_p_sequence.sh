#!/usr/bin/env bash
# run_p_sequence: built-in p-sequencing ([discretization] p_sequence) of a
# steady case through the command line.
#   run_p_sequence.sh COLORDG CASE.ini OUTDIR MESH [BACKEND] [stage_cfl]
# The case (p = 1 in its file) runs at order = 2 with p_sequence = yes, 4
# sweeps and p_sequence_max_iters = 3, 6 iterations in all: p = 1 for
# iterations 1-3, then p = 2. Checks: the hand-over line is printed,
# history.csv ends with the order column (1 up to iteration 3, 2 after), the
# final solution.cdgs is at p = 2, and the residual columns of the first row
# are 0 (the reference of a run from the free stream is its own residual).
# BACKEND cuda (label gpu): the same run on the GPU, whose history must match
# a CPU run's to round-off (every number to 1e-8 relative; the p = 2 stage
# starts from the GPU's own p = 1 state); exit 77 (skipped) without a device.
# stage_cfl: also [solver] cfl_max = 100, cfl_ramp_iters = 4,
# p_sequence_cfl = 40 and jacobian_interval = 2, 10 iterations: p = 1 at
# CFL 10, 17.8, 31.6; the p = 2 stage starts at CFL 40, its ramp 2
# iterations long (the first stage's rate), at cfl_max from its third
# iteration, and keeps its blocks at its fifth and seventh (iterations 8
# and 10); the summary lines say so.
set -u
colordg=$1 case_in=$2 out=$3 mesh=$4 backend=${5:-cpu} variant=${6:-plain}
fail() { echo "run_p_sequence: FAIL: $*"; tail -20 "$out/log.txt" 2>/dev/null; exit 1; }
rm -rf "$out" && mkdir -p "$out"
case=$out/../p_sequence.ini
sed -e 's/^order = 1$/order = 2\np_sequence = yes\np_sequence_start = 1/' \
    -e 's/^sweeps = .*/sweeps = 4/' \
    -e 's/^max_iters = .*/max_iters = 2000\np_sequence_max_iters = 3/' "$case_in" > "$case"
grep -q '^p_sequence_max_iters = 3' "$case" && grep -q '^p_sequence = yes' "$case" ||
  fail "could not set the p-sequencing keys in $case_in"
iters=6 rows="1:1 3:1 4:2 6:2 "
if [ "$variant" = stage_cfl ]; then
  sed -i -e 's/^cfl_max = .*/cfl_max = 100/' \
    -e 's/^cfl_ramp_iters = .*/cfl_ramp_iters = 4\np_sequence_cfl = 40\njacobian_interval = 2/' "$case"
  grep -q '^jacobian_interval = 2' "$case" && grep -q '^cfl_max = 100$' "$case" ||
    fail "could not set the stage CFL keys in $case_in"
  iters=10 rows="1:1 3:1 4:2 10:2 "
fi
"$colordg" run "$case" --backend "$backend" --mesh "$mesh" --max-iters $iters --output "$out" \
  > "$out/log.txt" 2>&1 || {
  rc=$?
  if [ "$backend" = cuda ] && grep -q "no CUDA device found\|built without CUDA" "$out/log.txt"; then
    echo "run_p_sequence: no CUDA device, skipped"; exit 77
  fi
  fail "colordg run exited with $rc"
}
grep -q '^p-sequencing: p = 1 -> 2' "$out/log.txt" || fail "no p-sequencing summary line"
grep -Eq '^p-sequencing: p = 1 reached -?[0-9.]+ orders at iteration 3 \([0-9.]+ s\), its iteration limit; continuing at p = 2$' \
  "$out/log.txt" || fail "no hand-over line"
grep -q "iteration limit reached after $iters iterations" "$out/log.txt" || fail "not $iters iterations"
head -1 "$out/history.csv" | grep -q ',cfl,time,order$' || fail "history.csv has no order column"
orders=$(tail -n +2 "$out/history.csv" | awk -F, '{ printf "%s:%s ", $1, $NF }')
[ "$orders" = "$rows" ] || fail "iteration:order of the rows: $orders"
if [ "$variant" = stage_cfl ]; then
  grep -q '^p-sequencing: p = 1 -> 2; .*, the next starting at CFL 40$' "$out/log.txt" ||
    fail "no stage CFL in the p-sequencing line"
  grep -q '^LU-SGS, .*, the blocks rebuilt every 2 iterations at CFL 100;' "$out/log.txt" ||
    fail "no jacobian_interval in the LU-SGS line"
  grep -q '^  stage CFL       the stages above p = 1 start at CFL 40$' "$out/log.txt" &&
    grep -q '^  jacobians       rebuilt every 2 iterations at cfl_max$' "$out/log.txt" ||
    fail "no stage CFL or jacobians line in the case summary"
  cfl=$(awk -F, 'NR > 1 { printf "%s:%s ", $1, $(NF - 2) }' "$out/history.csv")
  [ "$cfl" = "1:1.000000000000e+01 3:3.162277660168e+01 4:4.000000000000e+01 10:1.000000000000e+02 " ] ||
    fail "iteration:CFL of the rows: $cfl"
fi
first=$(sed -n 2p "$out/history.csv" | cut -d, -f3-6)
[ "$first" = "0.000000000000e+00,0.000000000000e+00,0.000000000000e+00,0.000000000000e+00" ] ||
  fail "first row residuals $first"
p=$(od -An -tu4 -j20 -N4 "$out/solution.cdgs" | tr -d ' ')
[ "$p" = 2 ] || fail "solution.cdgs is at p = $p"
if [ "$backend" = cuda ]; then
  "$colordg" run "$case" --backend cpu --mesh "$mesh" --max-iters $iters --output "$out/cpu" \
    > "$out/log_cpu.txt" 2>&1 || fail "CPU run exited with $?"
  # every column but the wall-clock ones
  cols=$(head -1 "$out/history.csv" | tr , '\n' | grep -vn '^time$\|^wall_s$' | cut -d: -f1 | paste -sd,)
  paste -d'|' <(tail -n +2 "$out/history.csv" | cut -d, -f"$cols") \
    <(tail -n +2 "$out/cpu/history.csv" | cut -d, -f"$cols") |
    awk -F'|' '{ n = split($1, g, ","); split($2, c, ",");
      for (i = 1; i <= n; ++i) { d = g[i] - c[i]; if (d < 0) d = -d; s = c[i] < 0 ? -c[i] : c[i];
        if (d > 1e-8 * s + 1e-300) { print "row " NR " column " i ": GPU " g[i] " CPU " c[i]; bad = 1 } }
      } END { exit bad }' || fail "GPU and CPU histories differ"
  echo "run_p_sequence: GPU history matches the CPU's"
fi
echo "run_p_sequence: ok"
