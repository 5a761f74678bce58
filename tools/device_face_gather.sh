#!/usr/bin/env bash
# The gathering face kernel (residual_face_gather_kernel) on the GPU
# machine in one call, after tools/device_build.sh BUILD_DIR: its bits
# (test_backend_gpu) and its speed (--face-gather 1) against the face kernel
# whose points gather their own coefficients (--face-gather 0)
# (tools/device_kernel_variants.sh: structured meshes of >= 1 M unknowns,
# and a mesh file when given).
#   tools/device_face_gather.sh BUILD_DIR OUT_DIR [MESH.cdgm]
exec "$(dirname "$0")/device_kernel_variants.sh" "$1" "$2" --face-gather "0 1" ${3:+"$3"}
