#!/usr/bin/env bash
# The gathering face kernel (residual_face_gather_kernel) on the GPU
# machine in one call, after tools/device_build.sh BUILD_DIR: its bits
# (test_backend_gpu) and its speed (--face-gather 1) against the face kernel
# whose points gather their own coefficients (--face-gather 0) on the
# structured meshes of >= 1 M unknowns (tetrahedra and triangles, p = 0-3)
# and on a mesh file when given (reduced rule on affine elements).
#   tools/device_face_gather.sh BUILD_DIR OUT_DIR [MESH.cdgm]
set -uo pipefail
cd "$(dirname "$0")/.."
build=$1 out=$2 cdgm=${3:-}
mkdir -p "$out"
"$build/tests/test_backend_gpu" > "$out/test_backend_gpu.log" 2>&1
echo "test_backend_gpu rc $? ($(grep -c 'FAIL' "$out/test_backend_gpu.log") FAIL lines)"
for g in 0 1; do
  for m in tet tri; do
    "$build/tests/bench_residual" --csv "$out/${m}_g$g.csv" --no-cpu --mesh $m --min-unknowns 1000000 \
      --quadrature symmetric --face-gather $g > "$out/${m}_g$g.log" 2>&1
    echo "$m face-gather $g: rc $?"
    grep -E "tuned face" "$out/${m}_g$g.log" | cut -c1-60
  done
  [ -n "$cdgm" ] && "$build/tests/bench_residual" --cdgm "$cdgm" --csv "$out/cdgm_g$g.csv" --no-cpu \
    --quadrature symmetric --affine-rule reduced --face-gather $g > "$out/cdgm_g$g.log" 2>&1
done
