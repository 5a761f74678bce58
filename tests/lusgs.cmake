# Implicit LU-SGS (src/lusgs/): diagonal and off-diagonal blocks against
# finite differences of the residual, coloured sweeps and the relax op
# against a serial symmetric Gauss-Seidel step, the explicit-Euler and Newton
# limits, convergence of a perturbed free stream, implicit vs explicit steady
# state, CFL laws. One source per backend: test_lusgs_cpu and
# test_lusgs_cuda (label gpu, exit 77 without a GPU; there only the marcher's
# convergence and steady-state checks run, the others check CPU code).
colordg_add_backend_test(NAME test_lusgs SOURCES unit/test_lusgs.c LABELS unit verification)
# The checked entry points of the LU-SGS table (src/lusgs/lusgs.c): every
# refused argument (marcher, vector kind/length/context, colour, aliasing,
# scalars, missing operation) with its message naming the backend, on every
# backend (the table implementations trust their arguments):
# test_lusgs_entry_cpu and test_lusgs_entry_cuda (label gpu, exit 77 without
# a GPU).
colordg_add_backend_test(NAME test_lusgs_entry SOURCES unit/test_lusgs_entry.c LABELS unit)
# NACA 0012, M 0.5, alpha 2 deg on the committed level-0 mesh, CFL 10 -> 1e3
# in 20 iterations (docs/LUSGS.md, "Measured"): 10 orders at p = 0 with 16
# symmetric sweeps per iteration (measured: 115 iterations; allowed 160) and
# at p = 1 with 32 (measured: 90; allowed 130). Labelled slow: 1-2 min each
# under ASan (Debug), a few seconds in Release.
# test_lusgs_naca_cpu / _cuda and test_lusgs_naca_p1_cpu / _cuda.
colordg_add_backend_run(NAME test_lusgs_naca TARGET test_lusgs
                        ARGS --naca 0 10 1e3 20 160 10 16 LABELS "verification;slow")
colordg_add_backend_run(NAME test_lusgs_naca_p1 TARGET test_lusgs
                        ARGS --naca 1 10 1e3 20 130 10 32 LABELS "verification;slow")
