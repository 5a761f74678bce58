# The CUDA backend (src/kernels/backend_cuda.cu) against the CPU backend:
# residual, time steps, norms, forces and 100 SSP-RK3 steps on curved 2D
# mixed, curved 3D tetrahedral and periodic meshes, p = 0..3 (exit 77
# without a GPU).
colordg_add_test(NAME test_backend_gpu SOURCES unit/test_backend_gpu.c LABELS gpu CUDA)
colordg_use_bench_cuda(test_backend_gpu)

# BLAS-1 of the CUDA backend (axpby, scale, set, dot, norm2, max_abs) against
# the CPU backend on state- and element-sized vectors, the determinism of
# the GPU reductions and the global time step through the reduction point
# (exit 77 without a GPU).
colordg_add_test(NAME test_backend_vec_gpu SOURCES unit/test_backend_vec_gpu.c LABELS gpu CUDA)

# Residual benchmark (not a test): ns per unknown, GB/s and GFLOP/s of the
# CUDA and CPU backends; see docs/PERFORMANCE.md.
add_executable(bench_residual ${PROJECT_SOURCE_DIR}/tools/bench_residual.c)
target_compile_options(bench_residual PRIVATE ${COLORDG_C_WARNINGS})
target_link_libraries(bench_residual PRIVATE colordg_problems colordg_lib)
colordg_use_bench_cuda(bench_residual)
# --cdgm (the PyFR comparison, tools/compare_pyfr.sh): a mesh file with its
# wall and far-field groups, Rusanov flux, a timed residual and SSP-RK3 step
# on the CPU backend; fails on an error or a time that is not a number.
add_test(NAME bench_residual_cdgm
         COMMAND bench_residual --csv ${CMAKE_CURRENT_BINARY_DIR}/bench_residual_cdgm.csv
                 --cdgm ${COLORDG_TEST_DATA}/mesh_naca0012_tri_0_q2.cdgm --p 2 --flux rusanov
                 --rk-steps 2)
set_tests_properties(bench_residual_cdgm PROPERTIES LABELS "bench"
  PASS_REGULAR_EXPRESSION "colordg mesh_naca0012_tri_0_q2 p=2 rusanov +elems=[1-9][0-9]* dofs=[1-9][0-9]* [|].* [|] cpu [0-9]+ thr [0-9.]+ us .*RK3 step [0-9.]+ us"
  FAIL_REGULAR_EXPRESSION "error:")
# tools/compare_pyfr_table.py joins the two sides of tools/compare_pyfr.sh:
# a ColorDG row and a PyFR row of the same (mesh, p, flux), the ratio of the
# back-to-back GPU times (100 / 200 us), the fixed-step step where the CSV has
# it (p = 1: 330 us, its CFL step 400 in the last column but one) and the CFL
# step where it does not (p = 2: 500 us), and the note on unequal DOF counts.
add_test(NAME compare_pyfr_table
         COMMAND python3 ${PROJECT_SOURCE_DIR}/tools/compare_pyfr_table.py --mode gpu
                 --colordg ${COLORDG_TEST_DATA}/compare_pyfr/colordg.csv
                 --pyfr ${COLORDG_TEST_DATA}/compare_pyfr/pyfr.log
                 --csv ${CMAKE_CURRENT_BINARY_DIR}/compare_pyfr_table.csv
                 --md ${CMAKE_CURRENT_BINARY_DIR}/compare_pyfr_table.md --title fixture)
set_tests_properties(compare_pyfr_table PROPERTIES LABELS "unit"
  PASS_REGULAR_EXPRESSION "[|] naca0012_tri_1_q2 [|] 1 [|] roe [|] 9004 [|] 27012 [|] 100.0 [|] 200.0 [|] 0.50 [|] 3.702 [|] 7.404 [|] 330.0 [|] 800.0 [|] 0.41 [|] 3.30 [|] 4.00 [|] 400.0 [|] 100.000 [|].*[|] naca0012_tri_1_q2 [|] 2 [|] roe [|][^\n]*[|] 500.0 [|] 1000.0 [|] 0.50 [|][^\n]*[|] 500.0 [|] 100.000 [|].*DOF counts differ on: naca0012_tri_1_q2 p=2")

# Artificial viscosity (src/dg/av_ops.h) on the CUDA backend against the CPU
# backend: residual, time steps, element ε and 20 SSP-RK3 steps with a sharp
# front on curved 2D mixed and 3D tet meshes, p = 1..3, element and
# continuous ε (exit 77 without a GPU). `test_av_gpu --bench` times AV
# residuals on larger meshes.
colordg_add_test(NAME test_av_gpu SOURCES unit/test_av_gpu.c LABELS gpu CUDA)
colordg_use_bench_cuda(test_av_gpu)

# LU-SGS on the GPU (src/kernels/lusgs_cuda.cu) against the CPU: team
# arithmetic (host, also without a GPU), face Jacobians, blocks of every
# assembly x factorisation variant, sweeps and relaxation, 20 iterations on
# curved 2D mixed and 3D tet meshes, p = 0..3 (exit 77 without a GPU).
colordg_add_test(NAME test_lusgs_gpu SOURCES unit/test_lusgs_gpu.c support/lusgs_cuda_check.cu
                 LABELS gpu CUDA)

# LU-SGS benchmark (not a test): per-phase cost of one iteration on the
# NACA 0012 meshes, GPU vs CPU, factorisation variants, threads per block,
# CUDA Graph of the sweeps; see tools/bench_lusgs.c.
add_executable(bench_lusgs ${PROJECT_SOURCE_DIR}/tools/bench_lusgs.c)
target_compile_options(bench_lusgs PRIVATE ${COLORDG_C_WARNINGS})
target_compile_definitions(bench_lusgs PRIVATE COLORDG_TEST_DATA="${COLORDG_TEST_DATA}")
target_link_libraries(bench_lusgs PRIVATE colordg_problems colordg_lib)
colordg_use_bench_cuda(bench_lusgs)

# Positivity guard (src/dg/limiter.h) on the CUDA backend against the CPU
# backend: `limit` on rough and smooth states (curved 2D mixed, p = 2, 3) and
# 100 guarded SSP-RK3 steps of a blast (exit 77 without a GPU).
colordg_add_test(NAME test_limiter_gpu SOURCES unit/test_limiter_gpu.c LABELS gpu CUDA)
