#!/usr/bin/env bash
# Installs what ColorDG needs (Debian packages) when missing, then configures
# and builds it. Used by tools/quickstart.sh and tools/test.sh.
#   tools/setup.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
shift || true

packages=(build-essential cmake pkg-config libgmsh-dev gmsh libinih-dev python3 python3-matplotlib python3-numpy python3-meshio python3-vtk9 libopenmpi-dev openmpi-bin libmetis-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cuda_args=()
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  cuda_args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi

cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}" "$@" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
echo "setup: built $build_dir/colordg"
