#pragma once
/* DG_HD marks per-point / per-element arithmetic that both backends call
 * (docs/ARCHITECTURE.md §3): compiled for host and device under nvcc, plain static
 * inline in C. Headers using it include nothing host-only. */
#ifdef __CUDACC__
#define DG_HD __host__ __device__ static inline
#else
#define DG_HD static inline
#endif
