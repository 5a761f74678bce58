# Positivity guard (src/dg/limiter.h, docs/NUMERICS-av.md "Positivity
# guard"): limiting of states with negative point density and pressure,
# untouched positive states, and a blast that goes negative without the
# guard and stays positive with it (explicit SSP-RK3, CPU backend).
colordg_add_test(NAME test_limiter SOURCES unit/test_limiter.c LABELS unit)
