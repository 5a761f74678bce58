# Artificial-viscosity (BR2, ε frozen) part of the LU-SGS blocks
# (src/lusgs/lusgs_av.h, docs/LUSGS_AV.md): the AV block and the AV
# off-diagonal products (LOWER/UPPER/ALL) against central finite differences
# of the viscous residual; curved mixed 2D and curved tets, p = 1..3,
# element and continuous ε, wall + far-field boundaries.
colordg_add_test(NAME test_lusgs_av SOURCES unit/test_lusgs_av.c LABELS unit)
