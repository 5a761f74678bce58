#!/usr/bin/env bash
# One setting of the tuned kernels at several values on the GPU machine in
# one call, after tools/device_build.sh BUILD_DIR: test_backend_gpu (the
# bits of every setting), then bench_residual with FLAG VALUE for each value
# on the structured meshes of >= 1 M unknowns (tetrahedra, triangles and
# quadrilaterals, p = 0-3) and on a mesh file when given (reduced rule on
# affine elements). Writes OUT_DIR/<mesh>_<value>.csv and .log.
#   tools/device_kernel_variants.sh BUILD_DIR OUT_DIR FLAG "V1 V2 ..." [MESH.cdgm]
# e.g. tools/device_kernel_variants.sh build-gpu /tmp/v --team-points "1 2"
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 4 ] || { sed -n '2,10p' "$0"; exit 2; }
build=$1 out=$2 flag=$3 values=$4 cdgm=${5:-}
mkdir -p "$out"
"$build/tests/test_backend_gpu" > "$out/test_backend_gpu.log" 2>&1
echo "test_backend_gpu rc $? ($(grep -c 'FAIL' "$out/test_backend_gpu.log") FAIL lines)"
for value in $values; do
  for m in tet tri quad; do
    "$build/tests/bench_residual" --csv "$out/${m}_$value.csv" --no-cpu --mesh $m --min-unknowns 1000000 \
      --quadrature symmetric "$flag" "$value" > "$out/${m}_$value.log" 2>&1
    echo "$m $flag $value: rc $?"
    grep -E "tuned face" "$out/${m}_$value.log" | cut -c1-64
  done
  if [ -n "$cdgm" ]; then
    "$build/tests/bench_residual" --cdgm "$cdgm" --csv "$out/cdgm_$value.csv" --no-cpu \
      --quadrature symmetric --affine-rule reduced "$flag" "$value" > "$out/cdgm_$value.log" 2>&1
    echo "cdgm $flag $value: rc $?"
    grep -E "p=" "$out/cdgm_$value.log" | cut -c1-110
  fi
done
