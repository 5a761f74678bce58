# The Euler DG solver on the CPU backend: discretisation (src/dg/disc.c),
# residual (face-flux gather against the atomic reference), explicit SSP-RK3
# (src/dg/explicit.c), free-stream preservation, conservation, order of
# accuracy.
# One source per backend: test_residual_cpu and test_residual_cuda (label
# gpu, exit 77 without a GPU; there the uniform-state residual, norms and
# forces run on the CUDA backend).
colordg_add_backend_test(NAME test_residual SOURCES unit/test_residual.c LABELS unit)
# The backend contract (src/dg/backend.c): BLAS-1 on the CPU backend against
# host loops (bitwise, thread-count independent), the global time step
# through the reduction point, and the entry points' checks and messages
# (wrong kind or length, NULL, aliasing, missing optional operations).
# One source per backend: test_backend_vec_cpu and test_backend_vec_cuda
# (label gpu, exit 77 without a GPU; the CPU-only checks of the chunk order
# and thread counts are skipped there).
colordg_add_backend_test(NAME test_backend_vec SOURCES unit/test_backend_vec.c LABELS unit)
# Explicit SSP-RK3 (src/dg/explicit.c): free-stream preservation,
# conservation, third order in time, step failures. One source per backend:
# test_explicit_cpu and test_explicit_cuda (label gpu, exit 77 without a GPU).
colordg_add_backend_test(NAME test_explicit SOURCES unit/test_explicit.c LABELS verification)
# Isentropic vortex order of accuracy, tri and quad, p = 1..3 (CI-sized:
# ~30 s in Release on 2 cores; the full study is tools/study_order.py):
# test_explicit_order_cpu and test_explicit_order_cuda. Labelled slow: the
# Release suite runs it, the sanitizer run does not (341 s there on 2
# cores, for the residual, RK3 and error code that test_explicit_cpu
# already runs under the sanitizers).
colordg_add_backend_run(NAME test_explicit_order TARGET test_explicit ARGS --order
                        LABELS "verification;slow")
# The same checks and targets with the symmetric quadrature rules on
# triangles and tetrahedra (free stream on curved tets and curved mixed
# meshes, conservation, ...; the order study on triangles). The order study
# is labelled slow: it runs in the Release suite only (under the sanitizers
# it took 263 s on 2 cores and runs no code that test_explicit_symmetric
# does not).
colordg_add_backend_run(NAME test_explicit_symmetric TARGET test_explicit
                        ARGS --quadrature symmetric LABELS verification)
colordg_add_backend_run(NAME test_explicit_order_symmetric TARGET test_explicit
                        ARGS --order --quadrature symmetric LABELS "verification;slow")

# Order-of-accuracy study driver (run by tools/study_order.py; not a test).
add_executable(colordg_study_order ${PROJECT_SOURCE_DIR}/tools/study_order_driver.c)
target_compile_options(colordg_study_order PRIVATE ${COLORDG_C_WARNINGS})
target_link_libraries(colordg_study_order PRIVATE colordg_problems colordg_lib)
# The residual plan, the run-time state split from the view, owned / ghost
# element ranges (src/dg/residual_plan.h, docs/ARCHITECTURE.md §3-4).
colordg_add_test(NAME test_residual_plan SOURCES unit/test_residual_plan.c LABELS unit)
