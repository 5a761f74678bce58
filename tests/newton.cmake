# Newton-Krylov (src/newton/, docs/NEWTON_KRYLOV.md) and the LU-SGS
# matrix-vector product (lusgs_matvec): matvec against central finite
# differences of the residual (inviscid and with AV held, curved mixed 2D,
# p = 1, 2) and lusgs_apply(matvec(x)) = x with many sweeps.
colordg_add_test(NAME test_newton SOURCES unit/test_newton.c LABELS unit)
