#!/usr/bin/env bash
# Downloads PyFR 3.1 and every package it needs at import and run time (CUDA
# and OpenMP backends) as CPython 3.12 manylinux x86-64 wheels, one pinned
# version each, for the GPU machine (no registry there; tools/compare_pyfr.sh
# installs them with pip --no-index --target). Run it here, in the repo root
# of a worktree; .gitignore ignores .whl/ and .whl-extra/ (and .cmp/, the
# meshes of tools/compare_pyfr.sh prepare), so they travel to the GPU machine
# only when a call carries them.
#
#   .whl/        what the device run carries and installs (README line:
#                pip install --no-index --no-deps --target /tmp/site .whl/*.whl)
#   .whl/mpi/    the MPICH library as a wheel (libmpi.so.12; pip --target
#                drops its data files, so compare_pyfr.sh unpacks it and points
#                mpi4py at it with MPI4PY_LIBMPI): PyFR imports mpi4py, and
#                mpi4py >= 4 loads an MPI library at run time
#   .whl-extra/  numpy, not carried: the GPU machine's python3 has numpy 2.5.2
#                (PyFR 3.1 needs >= 2.4.2) and the carry limit is 64 MiB; a
#                local --target install needs it (see --check)
#
# usage: tools/pyfr_wheels.sh [--check]
#   --check  also install everything into a clean --target dir with Python
#            3.12 (python3.12, or pyenv's 3.12.x) and import pyfr and mpi4py's
#            MPI (with the MPICH of .whl/mpi)
# Total: about 37 MB (numpy 16 of them).
set -euo pipefail
cd "$(dirname "$0")/.."

pins=(
  pyfr==3.1
  gimmik==4.0
  h5py==3.16.0
  mako==1.4.3
  markupsafe==3.0.4
  mpi4py==4.1.2
  platformdirs==4.14.8
  pytools==2026.1.1
  rtree==1.4.1
  siphash24==1.9
  typing-extensions==4.16.0
)
mpi_pin=mpich==5.0.2
numpy_pin=numpy==2.5.5

dl() {
  local dir=$1
  shift
  python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    --platform manylinux1_x86_64 -d "$dir" "$@"
}
mkdir -p .whl/mpi .whl-extra
dl .whl "${pins[@]}"
dl .whl/mpi "$mpi_pin"
dl .whl-extra "$numpy_pin"
du -sh .whl .whl-extra

if [[ ${1:-} == --check ]]; then
  py=$(command -v python3.12 2>/dev/null || true)
  if [[ -z $py ]] || ! "$py" --version >/dev/null 2>&1; then
    py=$(ls -d "$HOME"/.pyenv/versions/3.12.*/bin/python3 2>/dev/null | tail -n 1)
  fi
  [[ -n $py ]] || { echo "pyfr_wheels.sh: no Python 3.12 here for --check" >&2; exit 1; }
  site=$(mktemp -d /tmp/pyfr-site.XXXXXX)
  mpi=$(mktemp -d /tmp/pyfr-mpi.XXXXXX)
  "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$site" .whl/*.whl .whl-extra/*.whl
  "$py" -m zipfile -e .whl/mpi/mpich-*.whl "$mpi"
  (cd /tmp && MPI4PY_LIBMPI=$(ls "$mpi"/mpich-*.data/data/lib/libmpi.so.12) PYTHONPATH=$site "$py" -c '
import sys, pyfr, numpy, h5py
from mpi4py import MPI
print("python", sys.version.split()[0], "pyfr", pyfr.__version__, "numpy", numpy.__version__,
      "h5py", h5py.__version__, "MPI:", MPI.Get_library_version().split(chr(10))[0])')
  rm -rf "$site" "$mpi"
fi
