#include "support/physics_check.h"

#include <cuda_runtime.h>

/* Records a CUDA runtime failure with the call's text and CUDA's message. */
#define PHYSICS_CHECK_CUDA_GOTO(status_var, label, expr)                                           \
  do {                                                                                             \
    cudaError_t physics_check_error_ = (expr);                                                     \
    if (physics_check_error_ != cudaSuccess) {                                                     \
      (status_var) = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "%s: %s (%s)", #expr, \
                                  cudaGetErrorString(physics_check_error_),                        \
                                  cudaGetErrorName(physics_check_error_));                         \
      goto label;                                                                                  \
    }                                                                                              \
  } while (0)

/* One thread per state: reads left/right [i][DG_MAX_NVAR], normal/point
 * [i][3]; writes record [i][PHYSICS_CHECK_RECORD_SIZE]. */
static __global__ void
physics_check_kernel(int dim, double gamma, physics_bc_data bc, physics_vortex vortex, double t,
                     int n_states, const double *__restrict__ left,
                     const double *__restrict__ right, const double *__restrict__ normal,
                     const double *__restrict__ point, double *__restrict__ record) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_states) return;
  physics_check_record(dim, gamma, &bc, &vortex, t, left + (size_t)i * DG_MAX_NVAR,
                       right + (size_t)i * DG_MAX_NVAR, normal + (size_t)i * 3,
                       point + (size_t)i * 3, record + (size_t)i * PHYSICS_CHECK_RECORD_SIZE);
}

extern "C" dg_status physics_check_evaluate_cuda(int dim, double gamma, const physics_bc_data *bc,
                                                 const physics_vortex *vortex, double t,
                                                 int n_states, const double *h_left,
                                                 const double *h_right, const double *h_normal,
                                                 const double *h_point, double *h_record) {
  DG_CHECK(dim == 2 || dim == 3, DG_ERR_ARG, "physics check: dim must be 2 or 3 (got %d)", dim);
  DG_CHECK(gamma > 1.0, DG_ERR_ARG, "physics check: gamma must exceed 1 (got %g)", gamma);
  DG_CHECK(n_states >= 1 && bc && vortex && h_left && h_right && h_normal && h_point && h_record,
           DG_ERR_ARG, "physics check: needs n_states >= 1 (got %d) and non-NULL host arrays",
           n_states);
  int n_devices = 0;
  const cudaError_t count_error = cudaGetDeviceCount(&n_devices);
  if (count_error != cudaSuccess) cudaGetLastError(); /* leave no stale error behind */
  DG_CHECK(count_error != cudaErrorNoDevice && count_error != cudaErrorInsufficientDriver &&
               !(count_error == cudaSuccess && n_devices == 0),
           DG_ERR_UNSUPPORTED, "no CUDA device available (%s)",
           count_error == cudaSuccess ? "0 devices" : cudaGetErrorString(count_error));
  DG_CHECK(count_error == cudaSuccess, DG_ERR_CUDA, "cudaGetDeviceCount failed: %s (%s)",
           cudaGetErrorString(count_error), cudaGetErrorName(count_error));

  const size_t state_bytes = (size_t)n_states * DG_MAX_NVAR * sizeof(double);
  const size_t vector_bytes = (size_t)n_states * 3 * sizeof(double);
  const size_t record_bytes = (size_t)n_states * PHYSICS_CHECK_RECORD_SIZE * sizeof(double);
  const int block = 128;
  const int grid = (n_states + block - 1) / block;
  double *d_left = NULL, *d_right = NULL, *d_normal = NULL, *d_point = NULL, *d_record = NULL;
  dg_status status = DG_SUCCESS;
  PHYSICS_CHECK_CUDA_GOTO(status, done, cudaMalloc((void **)&d_left, state_bytes));
  PHYSICS_CHECK_CUDA_GOTO(status, done, cudaMalloc((void **)&d_right, state_bytes));
  PHYSICS_CHECK_CUDA_GOTO(status, done, cudaMalloc((void **)&d_normal, vector_bytes));
  PHYSICS_CHECK_CUDA_GOTO(status, done, cudaMalloc((void **)&d_point, vector_bytes));
  PHYSICS_CHECK_CUDA_GOTO(status, done, cudaMalloc((void **)&d_record, record_bytes));
  PHYSICS_CHECK_CUDA_GOTO(status, done,
                          cudaMemcpy(d_left, h_left, state_bytes, cudaMemcpyHostToDevice));
  PHYSICS_CHECK_CUDA_GOTO(status, done,
                          cudaMemcpy(d_right, h_right, state_bytes, cudaMemcpyHostToDevice));
  PHYSICS_CHECK_CUDA_GOTO(status, done,
                          cudaMemcpy(d_normal, h_normal, vector_bytes, cudaMemcpyHostToDevice));
  PHYSICS_CHECK_CUDA_GOTO(status, done,
                          cudaMemcpy(d_point, h_point, vector_bytes, cudaMemcpyHostToDevice));
  /* all-ones bytes are a NaN double: unwritten records cannot pass */
  PHYSICS_CHECK_CUDA_GOTO(status, done, cudaMemset(d_record, 0xff, record_bytes));
  physics_check_kernel<<<grid, block>>>(dim, gamma, *bc, *vortex, t, n_states, d_left, d_right,
                                        d_normal, d_point, d_record);
  PHYSICS_CHECK_CUDA_GOTO(status, done, cudaGetLastError());
  PHYSICS_CHECK_CUDA_GOTO(status, done, cudaDeviceSynchronize());
  PHYSICS_CHECK_CUDA_GOTO(status, done,
                          cudaMemcpy(h_record, d_record, record_bytes, cudaMemcpyDeviceToHost));
done:
  cudaFree(d_left);
  cudaFree(d_right);
  cudaFree(d_normal);
  cudaFree(d_point);
  cudaFree(d_record);
  return status;
}
