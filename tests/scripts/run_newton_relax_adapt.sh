#!/usr/bin/env bash
# run_newton_relax_adapt: [artificial_viscosity] relaxation_adapt in a
# Newton-Krylov run (NACA 0012 M 0.8, hybrid mesh, p = 1, 12 steps, CPU):
# the omega each step logs (COLORDG_NEWTON_LOG: the relaxation of the next
# hold) follows the rule from the residuals at the steps' starts — x1.5 (at
# most 1) after |R| fell below 0.8 of the previous step's, x0.5 (at least
# the case's relaxation) after it rose, unchanged otherwise — and it moves.
#   run_newton_relax_adapt.sh COLORDG CASE.ini MESH OUTDIR
set -u
colordg=$1 case_in=$2 mesh=$3 out=$4
fail() { echo "run_newton_relax_adapt: FAIL: $*"; tail -20 "$out/log.txt" 2>/dev/null; exit 1; }
rm -rf "$out" && mkdir -p "$out"
case=$out/case.ini
. "$(dirname "$0")/newton_transonic_case.sh"
newton_p1_case "$case_in" "$case" 12 || fail "could not set the scheme in $case_in"
sed -i 's/^relaxation = \(.*\)/relaxation = \1\nrelaxation_adapt = yes\ncoupled_after = 0/' "$case"
grep -q '^relaxation_adapt = yes' "$case" || fail "could not set relaxation_adapt in $case_in"
omega0=$(sed -n 's/^relaxation = //p' "$case")
COLORDG_NEWTON_LOG=1 OMP_NUM_THREADS=2 "$colordg" run "$case" --backend cpu --mesh "$mesh" \
  --output "$out/run" > "$out/log.txt" 2>&1 || fail "colordg run exited with $?"
grep -q "relaxation $omega0 (adaptive)" "$out/log.txt" || fail "the case summary does not say adaptive"
# accepted tries: the start-of-step |R| and the omega logged
grep 'newton_krylov: iteration' "$out/log.txt" | grep -v rejected |
  sed -n 's/.*omega \([^,]*\),.*|R| \([^ ]*\) -> .*/\1 \2/p' > "$out/omega.txt"
[ "$(wc -l < "$out/omega.txt")" -ge 10 ] || fail "fewer than 10 accepted steps logged"
awk -v w0="$omega0" 'NR == 1 { if ($1 != w0) { print "step 1: omega " $1 ", expected " w0; bad = 1 }
    w = $1; r = $2; next }
  { want = w;
    if ($2 <= 0.8 * r) { want = 1.5 * w; if (want > 1) want = 1 }
    else if ($2 > r) { want = 0.5 * w; if (want < w0) want = w0 }
    if ($1 < want * (1 - 1e-2) || $1 > want * (1 + 1e-2)) {
      print "step " NR ": omega " $1 ", expected " want " (|R| " r " -> " $2 ")"; bad = 1 }
    if ($1 != w) moved = 1; w = $1; r = $2 }
  END { if (!moved) { print "omega never moved"; bad = 1 } exit bad }' "$out/omega.txt" ||
  fail "omega does not follow the rule"
echo "run_newton_relax_adapt: ok ($(wc -l < "$out/omega.txt") steps, omega $(cut -d' ' -f1 "$out/omega.txt" | paste -sd' '))"
