#!/usr/bin/env bash
# run_signal_term: SIGTERM to a running `colordg run` (issue 12, items 8, 9).
#   run_signal_term.sh COLORDG CASE.ini OUTDIR MESH
# The case runs on MESH with its residual target moved out of reach
# (residual_drop = 30): a steady case that sits at round-off runs on until
# the signal comes, however fast the machine (a short or unstable case could
# end on its own first and make the test depend on timing).
# A stale temporary file of a dead writer is planted first (it must be
# removed at the start); SIGTERM must end the run with exit code 3 after the
# iteration in progress, with a valid checkpoint.cdgs that a restart
# continues from.
set -u
colordg=$1 case_in=$2 out=$3 mesh=$4
fail() { echo "run_signal_term: FAIL: $*"; cat "$out/log.txt" 2>/dev/null | tail -20; exit 1; }
rm -rf "$out" && mkdir -p "$out"
case=$out/../signal_term.ini
sed -e 's/^residual_drop = .*/residual_drop = 30/' "$case_in" > "$case"
grep -q '^residual_drop = 30' "$case" || fail "no residual_drop line in $case_in"
sh -c 'exit 0' & dead=$!
wait $dead
: > "$out/checkpoint.cdgs.tmp.$dead"
"$colordg" run "$case" --backend cpu --mesh "$mesh" --max-iters 1000000 --output "$out" \
  > "$out/log.txt" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  [ -f "$out/history.csv" ] && [ "$(wc -l < "$out/history.csv")" -ge 4 ] && break
  sleep 0.1
done
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 3 ] || fail "exit code $rc, expected 3"
grep -q "stopped by a signal after [0-9]* iterations" "$out/log.txt" || fail "no stop line"
grep -q "continue with: colordg run .* --restart .*checkpoint.cdgs" "$out/log.txt" || fail "no hint"
[ ! -e "$out/checkpoint.cdgs.tmp.$dead" ] || fail "stale temporary of process $dead kept"
grep -q "removed .*checkpoint.cdgs.tmp.$dead" "$out/log.txt" || fail "removal not reported"
n=$(sed -n 's/.*stopped by a signal after \([0-9]*\) iterations.*/\1/p' "$out/log.txt")
[ -n "$n" ] && [ "$n" -ge 1 ] || fail "iteration count '$n'"
"$colordg" run "$case" --backend cpu --mesh "$mesh" --quiet --max-iters $((n + 2)) \
  --restart "$out/checkpoint.cdgs" \
  --output "$out" > "$out/restart.txt" 2>&1 || { cat "$out/restart.txt"; fail "restart from the checkpoint failed"; }
grep -q "restart from .* at iteration $n" "$out/restart.txt" || { cat "$out/restart.txt"; fail "restart iteration"; }
grep -q "iteration limit reached after $((n + 2)) iterations" "$out/restart.txt" || fail "restart end"
echo "run_signal_term: stopped at iteration $n with exit code 3; restart continued to $((n + 2))"
