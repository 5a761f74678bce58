#pragma once
/* The trace of one element's state at one face point with the number of
 * modes and variables as template constants (included by the CUDA
 * translation units: the residual's face kernel, residual_team.cuh, and the
 * LU-SGS face Jacobians, lusgs_cuda.cu). */
#include <cuda_runtime.h>
#include <stdint.h>

/* Uq[v] = Σ_m phi[m] c(v·NB + m), the coefficients read by load(c): the
 * sum of residual_trace in the same order, with NB and NV known so that the
 * NV·NB loads are independent and unrolled. */
template <int NB, int NV, class Load>
static __device__ __forceinline__ void team_trace_load(const double *__restrict__ phi, Load load,
                                                       double *Uq) {
  double ph[NB];
#pragma unroll
  for (int m = 0; m < NB; ++m) ph[m] = __ldg(phi + m);
#pragma unroll
  for (int v = 0; v < NV; ++v) {
    double sum = 0.0;
#pragma unroll
    for (int m = 0; m < NB; ++m) sum += ph[m] * load(v * NB + m);
    Uq[v] = sum;
  }
}

/* team_trace_load of element el (index local to the shape) of a
 * single-shape mesh, its coefficients read from the element-minor U. */
template <int NB, int NV>
static __device__ __forceinline__ void team_trace(const double *__restrict__ Ushape,
                                                  int64_t n_shape, int64_t el,
                                                  const double *__restrict__ phi, double *Uq) {
  team_trace_load<NB, NV>(
      phi, [&](int c) { return __ldg(Ushape + (int64_t)c * n_shape + el); }, Uq);
}
