#pragma once
/* The one way the CUDA modules allocate device memory: cudaMalloc / cudaFree
 * recorded in the tally of gpu_memory.h (current and peak bytes by
 * category), and the check of a planned allocation against the free memory. */
#include <cuda_runtime.h>

#include "core/dg_error.h"
#include "kernels/gpu_memory.h"

/* cudaMalloc of `bytes` into *ptr, recorded under category c. */
static inline cudaError_t gpu_malloc(void **ptr, size_t bytes, gpu_mem_category c) {
  const cudaError_t error = cudaMalloc(ptr, bytes);
  if (error == cudaSuccess) gpu_mem_record_alloc(*ptr, bytes, c);
  return error;
}

/* cudaFree of a gpu_malloc pointer (NULL: nothing). */
static inline cudaError_t gpu_free(void *ptr) {
  if (!ptr) return cudaSuccess;
  gpu_mem_record_free(ptr);
  return cudaFree(ptr);
}

/* cudaMemGetInfo and the stack reservation for gpu_mem_set_query. */
static inline int gpu_mem_query_cuda(size_t *free_bytes, size_t *total_bytes, size_t *stack_bytes) {
  *stack_bytes = 0;
  if (cudaMemGetInfo(free_bytes, total_bytes) != cudaSuccess) return 1;
  int device = 0, threads = 0, sms = 0;
  size_t stack = 0;
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetLimit(&stack, cudaLimitStackSize) == cudaSuccess &&
      cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device) ==
          cudaSuccess &&
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess)
    *stack_bytes = stack * (size_t)threads * (size_t)sms;
  return 0;
}

/* Refuses (DG_ERR_MEMORY, the need and what is free) when `need` bytes for
 * `what` exceed the device's free memory; registers the tally's query. */
static inline dg_status gpu_mem_check_free(const char *what, size_t need) {
  gpu_mem_set_query(gpu_mem_query_cuda);
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return DG_SUCCESS; /* cannot tell: the allocations report their own failure */
  }
  if (need <= free_bytes) return DG_SUCCESS;
  char msg[320];
  gpu_mem_refusal_message(what, need, free_bytes, total_bytes, msg, sizeof msg);
  return dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__, "%s", msg);
}
