# Basis functions and quadrature rules (src/element/basis.h, src/element/quadrature.c).
colordg_add_test(NAME test_quadrature SOURCES unit/test_quadrature.c LABELS unit)
colordg_add_test(NAME test_basis SOURCES unit/test_basis.c LABELS unit)
# The DG_HD basis maths run on the GPU against the host (exit 77 without a GPU).
# tests/support/basis_check.cu: the device side of the comparison (test only).
colordg_add_test(NAME test_basis_gpu SOURCES unit/test_basis_gpu.c support/basis_check.cu
                 LABELS gpu CUDA)
