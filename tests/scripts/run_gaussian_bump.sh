#!/usr/bin/env bash
# run_gaussian_bump: the HiOCFD C1.1 case (cases/gaussian_bump) as it is, at
# p = 1 on the committed level-0 and level-1 meshes (12 x 4 and 24 x 8
# quadrilaterals of order 3):
#   run_gaussian_bump.sh COLORDG CASE.ini OUTDIR MESH0 MESH1
# Each run must converge 10 orders from the uniform start, print
# "L2 entropy error: E" with E finite and positive, and write the same E to
# errors.csv; the error must fall by more than 3x from level 0 to level 1
# (h halves; slope > 1.58 against the design order 2: measured 4.8x).
set -u
# one thread: the meshes are tiny, and OpenMP threads on a loaded machine
# only wait for each other
export OMP_NUM_THREADS=1
colordg=$1 case=$2 out=$3
shift 3
fail() { echo "run_gaussian_bump: FAIL: $*"; exit 1; }
rm -rf "$out" && mkdir -p "$out"
errs=()
level=0
for mesh in "$@"; do
  dir=$out/level$level
  "$colordg" run "$case" --backend cpu --mesh "$mesh" --quiet --output "$dir" > "$dir.log" 2>&1 ||
    { tail -20 "$dir.log"; fail "level $level: colordg run failed"; }
  grep -q '^residual drop reached after' "$dir.log" ||
    { tail -5 "$dir.log"; fail "level $level: the run did not reach its residual drop"; }
  e=$(sed -n 's/^L2 entropy error: \([^ ]*\) .*/\1/p' "$dir.log")
  [ -n "$e" ] || { tail -5 "$dir.log"; fail "level $level: no 'L2 entropy error:' line"; }
  awk -v e="$e" 'BEGIN { exit !(e + 0 > 0 && e + 0 < 1 && e == e + 0) }' ||
    fail "level $level: entropy error '$e' is not a finite positive number"
  csv=$(awk -F, 'NR == 2 { print $5 }' "$dir/errors.csv" 2>/dev/null)
  awk -v a="$e" -v b="$csv" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b != "" && d <= 1e-6 * a) }' ||
    fail "level $level: errors.csv holds '$csv', the run printed $e"
  echo "level $level: L2 entropy error $e"
  errs+=("$e")
  level=$((level + 1))
done
awk -v a="${errs[0]}" -v b="${errs[1]}" 'BEGIN { exit !(b < a / 3) }' ||
  fail "the entropy error falls from ${errs[0]} (level 0) only to ${errs[1]} (level 1)"
echo "run_gaussian_bump: ok (ratio $(awk -v a="${errs[0]}" -v b="${errs[1]}" 'BEGIN { printf "%.2f", a / b }'))"
