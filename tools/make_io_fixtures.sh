#!/bin/sh
# Regenerates the committed mesh I/O fixtures in tests/data (io_*.cdgm) with
# the test executable that checks them, so the files are reproducible:
#   tools/make_io_fixtures.sh [build-dir]
# The fixtures are little-endian .cdgm files (docs/FORMATS.md); run this only
# when the format version changes.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build"}
cmake --build "$build" --target test_mesh_io
exe=$(find "$build" -name test_mesh_io -type f -perm -u+x | head -n 1)
[ -n "$exe" ] || { echo "test_mesh_io not found under $build" >&2; exit 1; }
"$exe" --write-fixtures "$root/tests/data"
