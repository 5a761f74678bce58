# Positivity guard (src/dg/limiter.h, docs/NUMERICS-av.md "Positivity
# guard"): limiting of states with negative point density and pressure,
# untouched positive states, and a blast that goes negative without the
# guard and stays positive with it (explicit SSP-RK3). One source per
# backend: test_limiter_cpu and test_limiter_cuda (label gpu, exit 77
# without a GPU).
colordg_add_backend_test(NAME test_limiter SOURCES unit/test_limiter.c LABELS unit)
# --backend (tests/test_util.c, test_backend_args): an unknown backend is an
# error (exit 2) that names it; in a build without CUDA, --backend cuda
# reports skipped (exit 77) instead of running the CPU checks.
colordg_add_cli_test(NAME test_backend_args_unknown LABELS unit COMMAND ${CMAKE_COMMAND}
  -DCHECK_RC=2 "-DCHECK_REGEX=--backend expects cpu or cuda, got 'gpu'"
  "-DCHECK_ARGS=$<TARGET_FILE:test_limiter>|--backend|gpu"
  -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/cli_check.cmake)
if(NOT COLORDG_HAVE_CUDA)
  colordg_add_cli_test(NAME test_backend_args_no_cuda LABELS unit COMMAND ${CMAKE_COMMAND}
    -DCHECK_RC=77 "-DCHECK_REGEX=--backend cuda: no CUDA backend or device, skipped"
    "-DCHECK_ARGS=$<TARGET_FILE:test_limiter>|--backend|cuda"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/cli_check.cmake)
endif()
