# Face-accumulation study (tools/face_accum.h): gather, atomic and
# face-colour residuals against the CPU backend to 1e-12 relative on small
# curved 2D mixed, 3D tet and NACA 0012 meshes, p = 1..3, with and without
# colour-major renumbering and face reordering (exit 77 without a GPU).
# The study kernels live in tools/ (not in the library); the test and the
# benchmark compile them from there.
colordg_add_test(NAME test_face_accum_gpu
                 SOURCES unit/test_face_accum_gpu.c ${PROJECT_SOURCE_DIR}/tools/face_accum.cu
                 LABELS gpu CUDA)
if(TARGET test_face_accum_gpu)
  target_include_directories(test_face_accum_gpu PRIVATE ${PROJECT_SOURCE_DIR}/tools)
endif()

# Face-accumulation benchmark (not a test): µs per residual of each variant
# and ordering; see docs/PERFORMANCE.md "Face accumulation".
if(COLORDG_HAVE_CUDA)
  add_executable(bench_face_accum ${PROJECT_SOURCE_DIR}/tools/bench_face_accum.c
                                  ${PROJECT_SOURCE_DIR}/tools/face_accum.cu)
  target_include_directories(bench_face_accum PRIVATE ${PROJECT_SOURCE_DIR}/tools)
  target_compile_options(bench_face_accum PRIVATE $<$<COMPILE_LANGUAGE:C>:${COLORDG_C_WARNINGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:${COLORDG_CUDA_WARNINGS}>)
  target_compile_definitions(bench_face_accum PRIVATE COLORDG_TEST_DATA="${COLORDG_TEST_DATA}")
  target_link_libraries(bench_face_accum PRIVATE colordg_problems colordg_lib)
  colordg_use_bench_cuda(bench_face_accum)
endif()
