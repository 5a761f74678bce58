#!/usr/bin/env bash
# Runs on the GPU machine: configure and build with the CUDA backend for
# sm_90 using the libraries unpacked by tools/device_deps.sh.
#   tools/device_build.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build-gpu}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCOLORDG_DEPS_PREFIX="$PWD/.deps/root" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
