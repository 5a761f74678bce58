#!/usr/bin/env bash
# The tuned element kernel with 1, 2 and 3 modes per thread in its phase 2
# (backend_cuda_set_team_modes) on the GPU machine in one call, after
# tools/device_build.sh BUILD_DIR: its bits (test_backend_gpu) and its speed
# (tools/device_kernel_variants.sh: structured meshes of >= 1 M unknowns,
# and a mesh file when given).
#   tools/device_team_modes.sh BUILD_DIR OUT_DIR [MESH.cdgm]
exec "$(dirname "$0")/device_kernel_variants.sh" "$1" "$2" --team-modes "1 2 3" ${3:+"$3"}
