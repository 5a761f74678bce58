#!/usr/bin/env bash
# The tuned element kernel with 1, 2 and 3 modes per thread in its phase 2
# (backend_cuda_set_team_modes) on the GPU machine in one call, after
# tools/device_build.sh BUILD_DIR: its bits (test_backend_gpu) and its speed
# on the structured meshes of >= 1 M unknowns (tetrahedra, triangles and
# quadrilaterals, p = 0-3) and on a mesh file when given (reduced rule on
# affine elements).
#   tools/device_team_modes.sh BUILD_DIR OUT_DIR [MESH.cdgm]
set -uo pipefail
cd "$(dirname "$0")/.."
build=$1 out=$2 cdgm=${3:-}
mkdir -p "$out"
"$build/tests/test_backend_gpu" > "$out/test_backend_gpu.log" 2>&1
echo "test_backend_gpu rc $? ($(grep -c 'FAIL' "$out/test_backend_gpu.log") FAIL lines)"
for mb in 1 2 3; do
  for m in tet tri quad; do
    "$build/tests/bench_residual" --csv "$out/${m}_m$mb.csv" --no-cpu --mesh $m --min-unknowns 1000000 \
      --quadrature symmetric --team-modes $mb > "$out/${m}_m$mb.log" 2>&1
    echo "$m modes $mb: rc $?"
    grep -E "tuned face" "$out/${m}_m$mb.log" | cut -c1-64
  done
  if [ -n "$cdgm" ]; then
    "$build/tests/bench_residual" --cdgm "$cdgm" --csv "$out/cdgm_m$mb.csv" --no-cpu \
      --quadrature symmetric --affine-rule reduced --team-modes $mb > "$out/cdgm_m$mb.log" 2>&1
    echo "cdgm modes $mb: rc $?"
    grep -E "p=" "$out/cdgm_m$mb.log" | cut -c1-110
  fi
done
