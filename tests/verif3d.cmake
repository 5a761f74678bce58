# 3D order of accuracy (tests/unit/test_order_3d.c): the isentropic vortex
# extruded along z on periodic affine and curved tetrahedra. test_order_3d
# is CI-sized (label verification; coarse meshes, slope >= p + 0.5);
# test_order_3d_full (labels slow and long, 6-10 min on 2 cores: run with
# COLORDG_LONG_TESTS=1 tools/test.sh or ctest -L long) runs n = 16, 24, 32 at
# T = 0.25 and asserts slope >= p + 0.8 on affine tets (curved tets are not
# yet asymptotic on these meshes); test_order_3d_gpu (label gpu, exit 77
# without a GPU) runs curved tets on n = 24, 32, 48 on the CUDA backend and
# asserts slope >= p + 0.8. The full study, n = 16..64, is
# tools/study_order.py --backend cuda (docs/ORDER_OF_ACCURACY.md).
# Labelled slow like its variants: the Release suite runs it, the sanitizer
# run does not (317 s there on 2 cores; the curved-tet residual and RK3 run
# under the sanitizers in test_explicit_cpu's free-stream checks on curved
# tetrahedra).
colordg_add_test(NAME test_order_3d SOURCES unit/test_order_3d.c LABELS "verification;slow")
# The CI-size checks, same targets, with the symmetric quadrature rules
# (label slow: Release suite only; 346 s under the sanitizers on 2 cores).
add_test(NAME test_order_3d_symmetric COMMAND test_order_3d --quadrature symmetric)
set_tests_properties(test_order_3d_symmetric PROPERTIES LABELS "verification;slow" TIMEOUT 600)
colordg_test_environment(test_order_3d_symmetric)
add_test(NAME test_order_3d_full COMMAND test_order_3d --full)
set_tests_properties(test_order_3d_full PROPERTIES LABELS "slow;long" TIMEOUT 3600)
colordg_test_environment(test_order_3d_full)
add_test(NAME test_order_3d_gpu COMMAND test_order_3d --gpu)
set_tests_properties(test_order_3d_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)
colordg_test_environment(test_order_3d_gpu)
