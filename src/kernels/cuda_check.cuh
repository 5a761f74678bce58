#pragma once
/* Error checks of CUDA runtime calls and kernel launches, shared by the
 * CUDA modules of src/kernels. Both return DG_ERR_CUDA from the
 * enclosing dg_status function with CUDA's message recorded. */
#include <cuda_runtime.h>

#include "core/dg_error.h"

/* Records a failed CUDA runtime call (its text, CUDA's message) and returns
 * DG_ERR_CUDA from the enclosing function. */
#define DG_CALL_CUDA(expr)                                                                         \
  do {                                                                                             \
    const cudaError_t dg_cuda_error_ = (expr);                                                     \
    if (dg_cuda_error_ != cudaSuccess)                                                             \
      return dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "%s: %s (%s)", #expr,         \
                          cudaGetErrorString(dg_cuda_error_), cudaGetErrorName(dg_cuda_error_));   \
  } while (0)

/* Checks the launch just issued (configuration errors, sticky faults). */
#define DG_CHECK_LAUNCH(kernel_name)                                                               \
  do {                                                                                             \
    const cudaError_t dg_cuda_error_ = cudaGetLastError();                                         \
    if (dg_cuda_error_ != cudaSuccess)                                                             \
      return dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "launch of %s: %s (%s)",      \
                          kernel_name, cudaGetErrorString(dg_cuda_error_),                         \
                          cudaGetErrorName(dg_cuda_error_));                                       \
  } while (0)
