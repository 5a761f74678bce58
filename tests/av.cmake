# Artificial viscosity (src/dg/av_ops.h, docs/NUMERICS-av.md): sensor, linear
# ε, BR2 liftings, consistency, free stream with ε > 0, CPU backend, option
# errors (test_av); convergence of the BR2 diffusion operator at p + 1,
# CI-sized (test_av_order) and the full study (test_av_order_full, labels
# slow and long: 2.5 min on 2 cores, run with COLORDG_LONG_TESTS=1).
# One source per backend: test_av_cpu and test_av_cuda (label gpu, exit 77
# without a GPU; there the free stream with ε > 0 runs on the CUDA backend).
colordg_add_backend_test(NAME test_av SOURCES unit/test_av.c LABELS unit verification)
# test_av_order: ~8 s in Release on one core, ~2.5 min in the Debug sanitizer
# build, hence `slow` (tools/test.sh skips slow tests under the sanitizers).
add_test(NAME test_av_order COMMAND test_av --order)
set_tests_properties(test_av_order PROPERTIES LABELS "verification;slow" TIMEOUT 600)
colordg_test_environment(test_av_order)
add_test(NAME test_av_order_full COMMAND test_av --order-full)
set_tests_properties(test_av_order_full PROPERTIES LABELS "verification;slow;long" TIMEOUT 1200)
colordg_test_environment(test_av_order_full)
