#!/usr/bin/env bash
# run_newton_stop: a Newton-Krylov run tests its residual drop after every
# step (dg_marcher_ops.stop_any_step), not only at the monitor rows: with
# monitor_every = 10 and residual_drop = 2 the run must stop at the first
# step whose drop reaches 2 orders, record it as the last history row, and
# that row must be the only one at or past the drop.
#   run_newton_stop.sh COLORDG CASE.ini OUTDIR
set -u
colordg=$1 case_in=$2 out=$3
fail() { echo "run_newton_stop: FAIL: $*"; tail -20 "$out/log.txt" 2>/dev/null; exit 1; }
rm -rf "$out" && mkdir -p "$out"
case=$out/case.ini
sed -e 's/^residual_drop = .*/residual_drop = 2/' -e 's/^monitor_every = .*/monitor_every = 10/' \
    -e 's/^checkpoint_every = .*/checkpoint_every = 0/' \
    -e "s|^file = mesh_|file = $(cd "$(dirname "$case_in")" && pwd)/mesh_|" "$case_in" > "$case"
grep -q '^scheme = newton_krylov' "$case" || fail "$case_in is not a Newton-Krylov case"
OMP_NUM_THREADS=2 "$colordg" run "$case" --backend cpu --output "$out" > "$out/log.txt" 2>&1 ||
  fail "colordg run exited with $?"
grep -q "residual drop reached after" "$out/log.txt" || fail "the run did not stop at its drop"
last=$(tail -1 "$out/history.csv" | cut -d, -f1)
[ $((last % 10)) -ne 0 ] || fail "the run stopped at iteration $last, a monitor row"
# the worst equation's log10 drop (columns 3-6) of each row
awk -F, -v last="$last" 'NR > 1 { w = $3; for (i = 4; i <= 6; ++i) if ($i > w) w = $i;
    if ($1 == last && w > -2) { print "last row " $1 ": drop " -w; bad = 1 }
    if ($1 != last && w <= -2) { print "row " $1 " reached the drop already: " -w; bad = 1 } }
    END { exit bad }' "$out/history.csv" || fail "the rows do not match the stop"
grep -q "after $last iterations" "$out/log.txt" || fail "the summary names another iteration"
echo "run_newton_stop: ok (stopped at iteration $last)"
