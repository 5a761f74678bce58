# Implicit LU-SGS (src/lusgs/): diagonal blocks against finite differences,
# coloured sweeps against a serial symmetric Gauss-Seidel step, convergence of
# a perturbed free stream, implicit vs explicit steady state, CFL laws.
colordg_add_test(NAME test_lusgs SOURCES unit/test_lusgs.c LABELS unit verification)
# NACA 0012, M 0.5, alpha 2 deg, p = 1 on the committed level-0 mesh: 10
# orders of residual drop with the CFL ramp.
add_test(NAME test_lusgs_naca COMMAND test_lusgs --naca 1)
set_tests_properties(test_lusgs_naca PROPERTIES LABELS verification TIMEOUT 600)
colordg_test_environment(test_lusgs_naca)
