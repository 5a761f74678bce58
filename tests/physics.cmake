# Pointwise Euler physics (src/dg/physics.h): fluxes, Roe, boundary states,
# Jacobians, freestream, isentropic vortex.
colordg_add_test(NAME test_physics SOURCES unit/test_physics.c LABELS unit)
# The same DG_HD physics on the GPU against the host (exit 77 without a GPU).
# tests/support/physics_check.cu: the device side of the comparison (test only).
colordg_add_test(NAME test_physics_gpu SOURCES unit/test_physics_gpu.c support/physics_check.cu
                 LABELS gpu CUDA)
