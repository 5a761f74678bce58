#!/usr/bin/env bash
# run_newton_coupled: [artificial_viscosity] coupled_after in a Newton-Krylov
# run (NACA 0012 M 0.8, hybrid mesh, p = 1, CPU, cfl_min 10, the case's
# relaxation 0.1). Held and relaxed throughout (coupled_after = 0) the run
# needs 194 steps to 10 orders (measured on 2026-11-27); with the default,
# 2, the viscosity follows the state after 2 orders (logged at step 16) and
# the run reaches 10 orders in 25 steps. Checked: the switch is logged once,
# after the residual fell 2 orders below the first step's; 10 orders within
# 40 steps; the converged forces are those of the relaxed iteration's fixed
# point (LU-SGS: CL 0.351862, CD 0.026005 with the reduced face rule, the
# default since 2026-11-29; docs/LUSGS.md: 0.351687, 0.025997 with the
# face rule of then).
# With a fifth argument D the case sets coupled_after = D: coupled that early
# (D = 0.6: at step 4, with the shock still forming) a coupled step is
# rejected (residual growth) four times, each time at a CFL cut by 4, and
# the marcher then holds the viscosity again for the rest of that step;
# checked: at least one such fallback, each right after the fourth rejected
# try of its step, the next coupling only once |R| is below 0.1 of the |R|
# of the failed step, 10 orders within 60 steps, the same forces.
# With a sixth argument N as well the run stops after N steps, short of 10
# orders (the sanitizer suite's cheap pass through the coupled path):
# checked: the run ends normally at step N, the switch is logged once, at
# the first step that starts D orders below the first step's |R|, at least
# one coupled step follows it, and history.csv's linear_iterations column
# adds up to the linear iterations of the log's tries.
#   run_newton_coupled.sh COLORDG CASE.ini MESH OUTDIR [D [N]]
set -u
colordg=$1 case_in=$2 mesh=$3 out=$4 drop=${5:-} short=${6:-}
max_steps=40
[ -n "$drop" ] && max_steps=60
[ -n "$short" ] && max_steps=$short
fail() { echo "run_newton_coupled: FAIL: $*"; tail -20 "$out/log.txt" 2>/dev/null; exit 1; }
rm -rf "$out" && mkdir -p "$out"
case=$out/case.ini
. "$(dirname "$0")/newton_transonic_case.sh"
newton_p1_case "$case_in" "$case" "$max_steps" || fail "could not set the scheme in $case_in"
sed -i 's/^monitor_every = .*/monitor_every = 1/' "$case"
grep -q '^coupled_after' "$case" && fail "$case_in sets coupled_after; the test checks the default"
if [ -n "$drop" ]; then
  sed -i "s/^\[artificial_viscosity\]/[artificial_viscosity]\ncoupled_after = $drop/" "$case"
  grep -q "^coupled_after = $drop" "$case" || fail "could not set coupled_after"
fi
COLORDG_NEWTON_LOG=1 OMP_NUM_THREADS=2 "$colordg" run "$case" --backend cpu --mesh "$mesh" \
  --output "$out/run" > "$out/log.txt" 2>&1 || fail "colordg run exited with $?"
if [ -n "$short" ]; then
  grep -q 'residual drop reached after' "$out/log.txt" && fail "10 orders in $short steps: not the short run"
  grep -q "newton_krylov: iteration $short try" "$out/log.txt" || fail "the run did not reach step $short"
  grep -q "held until the residual dropped $drop orders" "$out/log.txt" ||
    fail "the case summary does not state coupled_after = $drop"
  [ "$(grep -c 'viscosity coupled' "$out/log.txt")" = 1 ] || fail "the switch is not logged once"
  step=$(sed -n 's/^newton_krylov: iteration \([0-9]*\): viscosity coupled/\1/p' "$out/log.txt")
  [ "$step" -lt "$short" ] || fail "coupled at step $step: no coupled step follows"
  # each accepted step: |R| at its start and its end; the switch comes at the
  # step after the first that ended $drop orders below the first's start
  grep 'try' "$out/log.txt" | grep -v rejected | sed -n \
    's/^newton_krylov: iteration \([0-9]*\) try.*|R| \([^ ]*\) -> \([^,]*\),.*/\1 \2 \3/p' |
    awk -v d="$drop" -v s="$step" 'NR == 1 { r0 = $2 }
      !first && $3 <= r0 * 10 ^ (-d) * (1 + 1e-12) { first = $1 + 1 }
      END { if (first != s) { print "expected the switch at step " first ", logged at " s; exit 1 } }' ||
    fail "the switch is not at the first step $drop orders down"
  # history.csv's linear_iterations (monitor_every = 1: each step's, every
  # try) add up to the linear iterations the log reports
  hist=$out/run/history.csv
  col=$(head -1 "$hist" | tr , '\n' | grep -n '^linear_iterations$' | cut -d: -f1)
  [ -n "$col" ] || fail "history.csv has no linear_iterations column"
  sum_h=$(tail -n +2 "$hist" | cut -d, -f"$col" | awk '{s += $1} END {print s + 0}')
  sum_l=$(grep -o '[0-9]* linear iterations' "$out/log.txt" | awk '{s += $1} END {print s + 0}')
  [ "$sum_h" -gt 0 ] && [ "$sum_h" = "$sum_l" ] ||
    fail "linear_iterations in history.csv add up to $sum_h, the log reports $sum_l"
  echo "run_newton_coupled: ok (coupled_after $drop, $short steps: coupled at step $step; $sum_h linear iterations)"
  exit 0
fi
line=$(grep 'residual drop reached after' "$out/log.txt") ||
  fail "10 orders not reached in $max_steps steps"
echo "$line" | grep -q 'CL 0.35186[1-3], CD 0.02600[4-6]' || fail "forces differ: $line"
if [ -n "$drop" ]; then
  grep -q "held until the residual dropped $drop orders" "$out/log.txt" ||
    fail "the case summary does not state coupled_after = $drop"
  n=$(grep -c 'viscosity held again' "$out/log.txt")
  [ "$n" -ge 1 ] || fail "no coupled step was rejected and held again"
  # the log in order: each fallback follows the fourth rejected (coupled) try
  # of its iteration; a later coupling needs |R| (end of the step before)
  # < 0.1 |R| of the failed step
  grep -E 'viscosity (coupled|held again)|try [0-9]+:' "$out/log.txt" | awk '
    /viscosity coupled/ { if (floor > 0 && last >= 0.1 * floor) {
        print "coupled again with |R| " last " >= 0.1 * " floor; bad = 1 }
      coupled = 1; next }
    /held again/ { if (!coupled || run != 4) {
        print "held again after " run " rejected coupled tries (expected 4)"; bad = 1 }
      floor = start; coupled = 0; next }
    { match($0, /iteration [0-9]+ try/); it = substr($0, RSTART + 10, RLENGTH - 14) + 0
      if (it != cur) { cur = it; run = 0 }
      rej = ($0 ~ /rejected/); if (rej) ++run
      match($0, /\|R\| [^ ]* -> [^,]*/); split(substr($0, RSTART, RLENGTH), a, " ");
      start = a[2] + 0; if (!rej) last = a[4] + 0 }
    END { exit bad }' || fail "the fallback does not follow the rule"
  echo "run_newton_coupled: ok (coupled_after $drop: $n fallback(s); $line)"
  exit 0
fi
grep -q "held until the residual dropped 2 orders" "$out/log.txt" ||
  fail "the case summary does not state the default coupled_after = 2"
[ "$(grep -c 'viscosity coupled' "$out/log.txt")" = 1 ] || fail "the switch is not logged once"
step=$(sed -n 's/^newton_krylov: iteration \([0-9]*\): viscosity coupled/\1/p' "$out/log.txt")
# |R| at the start of the first step and at the start of the step before the switch
r0=$(grep -m1 'iteration 1 try 1:' "$out/log.txt" | sed -n 's/.*|R| \([^ ]*\) -> .*/\1/p')
rs=$(grep 'try' "$out/log.txt" | grep -v rejected | grep "iteration $((step - 1)) try" |
  sed -n 's/.*|R| [^ ]* -> \([^,]*\),.*/\1/p')
awk -v a="$r0" -v b="$rs" 'BEGIN { exit !(b <= a * 1e-2 * (1 + 1e-12)) }' ||
  fail "coupled at step $step while |R| $rs > 1e-2 * $r0"
echo "run_newton_coupled: ok (coupled at step $step; $line)"
