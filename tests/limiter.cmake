# Positivity guard (src/dg/limiter.h, docs/NUMERICS-av.md "Positivity
# guard"): limiting of states with negative point density and pressure,
# untouched positive states, and a blast that goes negative without the
# guard and stays positive with it (explicit SSP-RK3). One source per
# backend: test_limiter_cpu and test_limiter_cuda (label gpu, exit 77
# without a GPU).
colordg_add_backend_test(NAME test_limiter SOURCES unit/test_limiter.c LABELS unit)
