#pragma once
/* Tuned CUDA kernels of the residual and the RK update (included by
 * backend_cuda.cu only). They compute the same weak form as the portable
 * DG_HD functions of src/dg/residual_ops.h, which stay the reference: the
 * test tests/unit/test_backend_gpu.c compares both variants with the CPU.
 *
 * Element kernel ("team" kernel): one block handles E consecutive elements
 * of one shape, with the number of modes NB and the dimension DIM as
 * template constants so the mode and variable loops unroll. Three phases,
 * separated by barriers, all data of the block in shared memory with the
 * element index fastest (conflict-free, coalesced global loads/stores in the
 * element-minor coefficient layout):
 *   0. load the E elements' coefficients Us[v*NB+m][el] and their signed
 *      face fluxes Hs[(lf*nqf+q)*NV+v][el] (and face orientation codes);
 *   1. one thread per (element, volume point): U at the point, flux, and
 *      G = w detJ J⁻¹ F into Gs[(q*DIM+i)*NV+v][el];
 *   2. one thread per (element, mode): R_m,v = Σ_q Σ_i ∂φ_m/∂ξ_i G_q,i,v
 *      + Σ_faces Σ_q φ_m(face point) (±H_q,v), written straight to R.
 * No atomics; every sum has a fixed order, so runs are bitwise reproducible.
 * Sums are ordered differently from residual_element (the volume sum is
 * per mode over all points), so results agree with it to rounding.
 *
 * Face kernel: one thread per face point, calling residual_point_flux.
 * RK update: one thread per coefficient. */
#include <cuda_runtime.h>

#include "dg/residual_ops.h"

/* Threads per block of the team kernels (a multiple of 32). */
#ifndef BACKEND_CUDA_TEAM
#define BACKEND_CUDA_TEAM 128
#endif
/* Most dynamic shared memory a team block asks for (bytes). */
#define RESIDUAL_TEAM_MAX_SMEM (96 * 1024)

/* Doubles of shared memory per element of a team block (Us, Gs, Hs) plus
 * the orientation codes (counted as doubles). */
static inline int64_t residual_team_doubles_per_elem(int dim, int nb, int nq, int nf, int nqf) {
  const int nv = dim + 2;
  return (int64_t)nv * nb + (int64_t)nq * dim * nv + (int64_t)nf * nqf * nv + nf;
}

/* face_flux (written) at every face point k = f*nqf + q: H·n wsJ; U read.
 * One thread per face point. */
static __global__ void __launch_bounds__(BACKEND_CUDA_TEAM)
    residual_face_point_kernel(const __grid_constant__ dg_disc_view view, const double *U, double t,
                               double *face_flux) {
  const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= view.n_faces * view.nqf) return;
  const int64_t f = k / view.nqf;
  const int q = (int)(k - f * view.nqf);
  double H[DG_MAX_NVAR];
  residual_point_flux(&view, f, q, U, t, H);
  const double wsJ = view.face_wsJ[k];
  for (int v = 0; v < view.nvar; ++v) face_flux[k * view.nvar + v] = H[v] * wsJ;
}

/* R (written) of the elements [elem_start[s] + blockIdx.x*E, +E) of shape s;
 * U and face_flux (complete) read. Dynamic shared memory:
 * E * residual_team_doubles_per_elem(...) doubles. */
template <int DIM, int NB>
static __global__ void __launch_bounds__(BACKEND_CUDA_TEAM)
    residual_element_team_kernel(const __grid_constant__ dg_disc_view view, int s, int E,
                                 const double *__restrict__ U, const double *__restrict__ face_flux,
                                 double *__restrict__ R) {
  constexpr int NV = DIM + 2;
  extern __shared__ double team_shared[];
  const int nq = view.nq[s], nqf = view.nqf, nf = shape_n_faces((dg_shape)s);
  const int64_t n_shape = view.n_shape[s];
  const int64_t el0 = (int64_t)blockIdx.x * E; /* first element, local to the shape */
  const int n_here = (int)(n_shape - el0 < E ? n_shape - el0 : E);
  const int64_t e_first = view.elem_start[s] + el0;
  const double *Ushape = U + view.coef_start[s] + el0;
  double *Rshape = R + view.coef_start[s] + el0;

  double *Us = team_shared;                           /* [NV*NB][E] */
  double *Gs = Us + NV * NB * E;                      /* [nq*DIM*NV][E] */
  double *Hs = Gs + (int64_t)nq * DIM * NV * E;       /* [nf*nqf*NV][E] */
  int *Os = (int *)(Hs + (int64_t)nf * nqf * NV * E); /* [nf][E] */

  /* phase 0: coefficients (coalesced: element fastest) */
  for (int i = threadIdx.x; i < NV * NB * E; i += blockDim.x) {
    const int el = i % E, vm = i / E;
    if (el < n_here) Us[i] = Ushape[(int64_t)vm * n_shape + el];
  }
  /* signed face fluxes: point-variable fastest (coalesced per face) */
  const int per_face = nqf * NV;
  for (int i = threadIdx.x; i < nf * per_face * E; i += blockDim.x) {
    const int r = i % per_face, t = i / per_face;
    const int lf = t % nf, el = t / nf;
    if (el >= n_here) continue;
    const int64_t e = e_first + el;
    const int64_t f = view.elem_face[e * DG_MAX_FACES + lf];
    const int side = (view.face_elem[2 * f] == e && view.face_local[2 * f] == lf) ? 0 : 1;
    const double h = face_flux[f * per_face + r];
    Hs[(lf * per_face + r) * E + el] = side ? h : -h;
    if (r == 0) Os[lf * E + el] = side ? view.face_orient[f] : 0;
  }
  __syncthreads();

  /* phase 1: flux in reference directions at every (element, volume point) */
  const double *vphi = view.vol_phi + view.vol_table[s];
  const double *vw = view.vol_w + view.vol_point[s];
  for (int i = threadIdx.x; i < nq * E; i += blockDim.x) {
    const int el = i % E, q = i / E;
    if (el >= n_here) continue;
    const int64_t e = e_first + el;
    double Uq[NV];
#pragma unroll
    for (int v = 0; v < NV; ++v) Uq[v] = 0.0;
    const double *phi = vphi + q * NB;
#pragma unroll
    for (int m = 0; m < NB; ++m) {
      const double ph = __ldg(phi + m);
#pragma unroll
      for (int v = 0; v < NV; ++v) Uq[v] += ph * Us[(v * NB + m) * E + el];
    }
    double F[DIM * NV];
    physics_flux(DIM, view.gamma, Uq, F);
    const int64_t mk = view.elem_affine[e] ? view.metric_offset[e] : view.metric_offset[e] + q;
    const double wdetJ = __ldg(vw + q) * view.metric_detJ[mk];
    double invJ[DIM * DIM];
#pragma unroll
    for (int j = 0; j < DIM * DIM; ++j) invJ[j] = view.metric_invJ[mk * DIM * DIM + j];
#pragma unroll
    for (int a = 0; a < DIM; ++a)
#pragma unroll
      for (int v = 0; v < NV; ++v) {
        double sum = 0.0;
#pragma unroll
        for (int j = 0; j < DIM; ++j) sum += invJ[a * DIM + j] * F[j * NV + v];
        Gs[((q * DIM + a) * NV + v) * E + el] = wdetJ * sum;
      }
  }
  __syncthreads();

  /* phase 2: mode-parallel projection and face gather */
  const double *vdphi = view.vol_dphi + view.vol_table[s] * DIM;
  for (int i = threadIdx.x; i < NB * E; i += blockDim.x) {
    const int el = i % E, m = i / E;
    if (el >= n_here) continue;
    double acc[NV];
#pragma unroll
    for (int v = 0; v < NV; ++v) acc[v] = 0.0;
    for (int q = 0; q < nq; ++q) {
#pragma unroll
      for (int a = 0; a < DIM; ++a) {
        const double dp = __ldg(vdphi + (q * NB + m) * DIM + a);
        const double *G = Gs + ((q * DIM + a) * NV) * E + el;
#pragma unroll
        for (int v = 0; v < NV; ++v) acc[v] += dp * G[v * E];
      }
    }
    for (int lf = 0; lf < nf; ++lf) {
      const double *fphi = view.face_phi + view.face_table[s][lf][Os[lf * E + el]];
      for (int q = 0; q < nqf; ++q) {
        const double ph = __ldg(fphi + q * NB + m);
        const double *H = Hs + (lf * per_face + q * NV) * E + el;
#pragma unroll
        for (int v = 0; v < NV; ++v) acc[v] += ph * H[v * E];
      }
    }
#pragma unroll
    for (int v = 0; v < NV; ++v) Rshape[(int64_t)(v * NB + m) * n_shape + el] = acc[v];
  }
}

/* Uout (written; may alias U0 or U) = a U0 + b (U + dt M⁻¹ R) for the
 * coefficients of shape s, one thread per coefficient (index local to the
 * shape's block, which is (v*nb + m)*n_shape + el). */
static __global__ void __launch_bounds__(BACKEND_CUDA_TEAM)
    rk_update_coef_kernel(const __grid_constant__ dg_disc_view view, int s, double a,
                          const double *U0, double b, const double *U, const double *dt,
                          const double *R, double *Uout) {
  const int64_t n_shape = view.n_shape[s];
  const int nb = view.nb[s];
  const int64_t local = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (local >= n_shape * nb * view.nvar) return;
  const int64_t el = local % n_shape;
  const int vm = (int)(local / n_shape), v = vm / nb, m = vm - v * nb;
  const int64_t e = view.elem_start[s] + el, i = view.coef_start[s] + local;
  double dU;
  if (view.elem_affine[e]) {
    const double inv = 1.0 / view.metric_detJ[view.metric_offset[e]];
    dU = inv * R[i];
  } else {
    const double *Mi = view.minv + view.minv_offset[e] + (int64_t)m * nb;
    const double *Rv = R + view.coef_start[s] + (int64_t)v * nb * n_shape + el;
    double sum = 0.0;
    for (int j = 0; j < nb; ++j) sum += Mi[j] * Rv[(int64_t)j * n_shape];
    dU = sum;
  }
  const double stage = U[i] + dt[e] * dU;
  Uout[i] = a != 0.0 ? a * U0[i] + b * stage : b * stage;
}
