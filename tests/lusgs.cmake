# Implicit LU-SGS (src/lusgs/): diagonal and off-diagonal blocks against
# finite differences of the residual, coloured sweeps and the relax op
# against a serial symmetric Gauss-Seidel step, the explicit-Euler and Newton
# limits, convergence of a perturbed free stream, implicit vs explicit steady
# state, CFL laws.
colordg_add_test(NAME test_lusgs SOURCES unit/test_lusgs.c LABELS unit verification)
# The checked entry points of the LU-SGS table (src/lusgs/lusgs.c): every
# refused argument (marcher, vector kind/length/context, colour, aliasing,
# scalars, missing operation) with its message, on the CPU backend.
colordg_add_test(NAME test_lusgs_entry SOURCES unit/test_lusgs_entry.c LABELS unit)
# NACA 0012, M 0.5, alpha 2 deg on the committed level-0 mesh, CFL 10 -> 1e3
# in 20 iterations (docs/LUSGS.md, "Measured"): 10 orders at p = 0 with 16
# symmetric sweeps per iteration (measured: 115 iterations; allowed 160) and
# at p = 1 with 32 (measured: 90; allowed 130). Labelled slow: 1-2 min each
# under ASan (Debug), a few seconds in Release.
add_test(NAME test_lusgs_naca COMMAND test_lusgs --naca 0 10 1e3 20 160 10 16)
add_test(NAME test_lusgs_naca_p1 COMMAND test_lusgs --naca 1 10 1e3 20 130 10 32)
set_tests_properties(test_lusgs_naca test_lusgs_naca_p1 PROPERTIES LABELS "verification;slow"
                     TIMEOUT 600)
colordg_test_environment(test_lusgs_naca)
colordg_test_environment(test_lusgs_naca_p1)
