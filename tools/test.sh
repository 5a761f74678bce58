#!/usr/bin/env bash
# README command (2): install what is missing, build, run the whole test
# suite through CTest; then the CPU tests again under ASan/UBSan.
# On a machine without a GPU the tests labelled `gpu` report "skipped".
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# ctest runs tests side by side (-j): OpenMP threads that spin at their
# barriers while another test's threads hold the cores slowed such pairs
# down 6-40x (four OpenMP tests on 2 cores: 36-248 s spinning against 6 s
# with passive waiting); passive threads sleep at a barrier instead. The
# results do not depend on it.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
tools/setup.sh build
# With -j, ctest starts the longest tests first when it knows their times
# (Testing/Temporary/CTestCostData.txt, which every ctest run rewrites). A
# fresh build has none: tests then start in the order they are declared and
# a long one declared late runs alone at the end (a 374 s test left one of 2
# cores idle for 5 minutes). tests/ctest_costs/ seeds a build that has no
# times yet with those of a 2-core run of each suite; only their order
# matters, and a test not listed there just starts last.
seed_costs() {
  local dir=$1/Testing/Temporary
  [ -f "$dir/CTestCostData.txt" ] && return
  mkdir -p "$dir" && cp "tests/ctest_costs/$2.txt" "$dir/CTestCostData.txt"
}
seed_costs build main
# tests labelled `long` (minutes each: the p = 2 default-settings runs, the
# full 3D and viscous order-of-accuracy checks, Newton-Krylov against
# LU-SGS at p = 2) only
# with COLORDG_LONG_TESTS=1
exclude=()
[ "${COLORDG_LONG_TESTS:-0}" = 1 ] || exclude=(-LE long)
(cd build && ctest --output-on-failure -j"$jobs" "${exclude[@]}")
if [ "${COLORDG_SKIP_SANITIZE:-0}" != 1 ]; then
  # -O1: the sanitizers' usual level; the suite ran 1.5-2x slower at -O0
  # (run_newton_coupled 363 s against 188 s, test_geometry 73 s against 35 s)
  tools/setup.sh build-asan -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1" \
    -DCOLORDG_SANITIZE=ON -DCOLORDG_WITH_CUDA=OFF
  seed_costs build-asan asan
  (cd build-asan && ctest --output-on-failure -j"$jobs" -LE "gpu|slow")
fi
