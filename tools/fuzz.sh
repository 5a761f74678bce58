#!/usr/bin/env bash
# Longer mutation fuzzing of ColorDG's input readers (case files, .msh,
# .cdgm) than the CI test errors_fuzz_inputs: several rounds with other
# seeds, best on the sanitizer build. Failing mutants are kept with their
# output under OUT/failures/.
#   tools/fuzz.sh [BUILD_DIR] [MUTANTS_PER_ROUND] [ROUNDS] [FIRST_SEED]
# defaults: build-asan if it exists (else build), 2000, 5, the current time.
set -euo pipefail
cd "$(dirname "$0")/.."
default_build=build
[ -x build-asan/colordg ] && default_build=build-asan
build_dir=${1:-$default_build}
mutants=${2:-2000}
rounds=${3:-5}
seed=${4:-$(date +%s)}
if [ ! -x "$build_dir/colordg" ] || [ ! -x "$build_dir/tests/fuzz_inputs" ]; then
  echo "fuzz: $build_dir/colordg or $build_dir/tests/fuzz_inputs is missing; build first" \
       "(tools/setup.sh $build_dir; build-asan: tools/setup.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DCOLORDG_SANITIZE=ON -DCOLORDG_WITH_CUDA=OFF)" >&2
  exit 2
fi
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizer/lsan.supp"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
out="$build_dir/fuzz_long"
mkdir -p "$out"
status=0
for ((r = 0; r < rounds; ++r)); do
  s=$((seed + r))
  echo "fuzz: round $((r + 1))/$rounds, seed $s, $mutants mutants -> $out/$s"
  "$build_dir/tests/fuzz_inputs" "$build_dir/colordg" "$out/$s" "$mutants" "$s" 60 || status=1
done
[ $status -eq 0 ] && echo "fuzz: no failures" || echo "fuzz: failures kept under $out/*/failures/" >&2
exit $status
