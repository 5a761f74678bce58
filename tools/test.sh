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
# tests labelled `long` (minutes each: the p = 2 default-settings runs) only
# with COLORDG_LONG_TESTS=1
exclude=()
[ "${COLORDG_LONG_TESTS:-0}" = 1 ] || exclude=(-LE long)
(cd build && ctest --output-on-failure -j"$jobs" "${exclude[@]}")
if [ "${COLORDG_SKIP_SANITIZE:-0}" != 1 ]; then
  tools/setup.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DCOLORDG_SANITIZE=ON -DCOLORDG_WITH_CUDA=OFF
  (cd build-asan && ctest --output-on-failure -j"$jobs" -LE "gpu|slow")
fi
