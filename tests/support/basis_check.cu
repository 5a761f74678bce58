#include "support/basis_check.h"

#include <cuda_runtime.h>

#include "element/basis.h"

/* Records a CUDA runtime failure with the call's text and CUDA's message. */
#define BASIS_CHECK_CUDA_GOTO(status_var, label, expr)                                             \
  do {                                                                                             \
    cudaError_t basis_check_error_ = (expr);                                                       \
    if (basis_check_error_ != cudaSuccess) {                                                       \
      (status_var) = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "%s: %s (%s)", #expr, \
                                  cudaGetErrorString(basis_check_error_),                          \
                                  cudaGetErrorName(basis_check_error_));                           \
      goto label;                                                                                  \
    }                                                                                              \
  } while (0)

/* One thread per point: reads xi[i][3], writes phi, phi_grad, dphi rows i. */
static __global__ void basis_check_eval_kernel(dg_shape s, int p, int n_points,
                                               const double *__restrict__ xi,
                                               double *__restrict__ phi,
                                               double *__restrict__ phi_grad,
                                               double *__restrict__ dphi) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_points) return;
  const int n_modes = basis_count(s, p);
  const double point[3] = {xi[3 * i], xi[3 * i + 1], xi[3 * i + 2]};
  basis_eval(s, p, point, phi + (size_t)i * n_modes);
  basis_eval_grad(s, p, point, phi_grad + (size_t)i * n_modes, dphi + (size_t)i * n_modes * 3);
}

extern "C" dg_status basis_check_eval_cuda(dg_shape s, int p, int n_points, const double *h_xi,
                                           double *h_phi, double *h_phi_grad, double *h_dphi) {
  DG_CHECK(shape_supported(s) && p >= 0 && p <= DG_BASIS_EVAL_MAX_P, DG_ERR_ARG,
           "basis check: no basis for shape %d at degree %d (degrees 0..%d)", (int)s, p,
           DG_BASIS_EVAL_MAX_P);
  DG_CHECK(n_points >= 1 && h_xi && h_phi && h_phi_grad && h_dphi, DG_ERR_ARG,
           "basis check: needs n_points >= 1 (got %d) and non-NULL host arrays", n_points);
  int n_devices = 0;
  const cudaError_t count_error = cudaGetDeviceCount(&n_devices);
  if (count_error != cudaSuccess) cudaGetLastError(); /* leave no stale error behind */
  DG_CHECK(count_error != cudaErrorNoDevice && count_error != cudaErrorInsufficientDriver &&
               !(count_error == cudaSuccess && n_devices == 0),
           DG_ERR_UNSUPPORTED, "no CUDA device available (%s)",
           count_error == cudaSuccess ? "0 devices" : cudaGetErrorString(count_error));
  DG_CHECK(count_error == cudaSuccess, DG_ERR_CUDA, "cudaGetDeviceCount failed: %s (%s)",
           cudaGetErrorString(count_error), cudaGetErrorName(count_error));

  const size_t n_modes = (size_t)basis_count(s, p);
  const size_t xi_bytes = (size_t)n_points * 3 * sizeof(double);
  const size_t phi_bytes = (size_t)n_points * n_modes * sizeof(double);
  const int block = 128;
  const int grid = (n_points + block - 1) / block;
  double *d_xi = NULL, *d_phi = NULL, *d_phi_grad = NULL, *d_dphi = NULL;
  dg_status status = DG_SUCCESS;
  BASIS_CHECK_CUDA_GOTO(status, done, cudaMalloc((void **)&d_xi, xi_bytes));
  BASIS_CHECK_CUDA_GOTO(status, done, cudaMalloc((void **)&d_phi, phi_bytes));
  BASIS_CHECK_CUDA_GOTO(status, done, cudaMalloc((void **)&d_phi_grad, phi_bytes));
  BASIS_CHECK_CUDA_GOTO(status, done, cudaMalloc((void **)&d_dphi, 3 * phi_bytes));
  BASIS_CHECK_CUDA_GOTO(status, done, cudaMemcpy(d_xi, h_xi, xi_bytes, cudaMemcpyHostToDevice));
  /* all-ones bytes are a NaN double: unwritten outputs cannot pass */
  BASIS_CHECK_CUDA_GOTO(status, done, cudaMemset(d_phi, 0xff, phi_bytes));
  BASIS_CHECK_CUDA_GOTO(status, done, cudaMemset(d_phi_grad, 0xff, phi_bytes));
  BASIS_CHECK_CUDA_GOTO(status, done, cudaMemset(d_dphi, 0xff, 3 * phi_bytes));
  basis_check_eval_kernel<<<grid, block>>>(s, p, n_points, d_xi, d_phi, d_phi_grad, d_dphi);
  BASIS_CHECK_CUDA_GOTO(status, done, cudaGetLastError());
  BASIS_CHECK_CUDA_GOTO(status, done, cudaDeviceSynchronize());
  BASIS_CHECK_CUDA_GOTO(status, done, cudaMemcpy(h_phi, d_phi, phi_bytes, cudaMemcpyDeviceToHost));
  BASIS_CHECK_CUDA_GOTO(status, done,
                        cudaMemcpy(h_phi_grad, d_phi_grad, phi_bytes, cudaMemcpyDeviceToHost));
  BASIS_CHECK_CUDA_GOTO(status, done,
                        cudaMemcpy(h_dphi, d_dphi, 3 * phi_bytes, cudaMemcpyDeviceToHost));
done:
  cudaFree(d_xi);
  cudaFree(d_phi);
  cudaFree(d_phi_grad);
  cudaFree(d_dphi);
  return status;
}
