# GPU memory plan and tally (src/kernels/gpu_memory.h): `colordg info`'s
# sizes against the discretisation's, the plan by hand, the refusal
# message and the tally (CPU only).
colordg_add_test(NAME test_gpu_memory SOURCES unit/test_gpu_memory.c LABELS unit app)

# The CUDA backend's tally after a few explicit and LU-SGS iterations
# (AV off and on) against the plan (exit 77 without a GPU).
colordg_add_test(NAME test_gpu_memory_gpu SOURCES unit/test_gpu_memory_gpu.c LABELS gpu CUDA)
