#pragma once
/* Tuned CUDA kernels of the artificial-viscosity residual (included by
 * backend_cuda.cu only; the TUNED variant of backend_cuda_set_variant). They
 * compute the BR2 terms of src/dg/av_ops.h, which stay the reference (the
 * PORTABLE variant runs av_residual_face / av_residual_element one thread
 * per face / element); tests/unit/test_av_gpu.c compares both with the CPU.
 *
 * For a given ε the BR2 operator is linear and acts on each variable (and,
 * up to the last sums, each gradient component) alone, so the viscous
 * passes run one thread per (item, variable[, component or part]) with the
 * number of modes and the dimension as template constants: the per-thread
 * arrays are small (tet p = 3: at most 40 doubles; only the volume-term
 * kernel spills, ~0.5 kB at tet p = 3), where the portable kernels keep
 * 300-800 doubles per thread in local memory, one thread per face or
 * element. Elements with ε ≡ 0 (av_element_inviscid)
 * and their face sides skip every viscous pass, so the viscous cost scales
 * with the elements the sensor flags. Passes of one residual, in order:
 *   1. av_gradient_var_kernel, per shape, one thread per (element,
 *      variable, component): G of the viscous elements,
 *      av_element_gradient's arithmetic;
 *   2. av_face_point_kernel, one thread per face point: av_face_point_terms
 *      (convective flux and jump, the same DG_HD code as the CPU);
 *   3. av_face_viscous_kernel, a block per few faces: one thread per (face,
 *      side, component, variable) lifts the jump and evaluates
 *      ε wsJ n_c (∇U + η r)_c at the face points into shared memory, then
 *      one thread per (face point, variable) subtracts them from face_flux;
 *   4. av_lift_var_kernel, per shape, one thread per (element, variable,
 *      component): L = Σ_f r_f,e (scratch [dim * n_coefs], G's layout);
 *   5. the inviscid team kernel of residual_team.cuh writes R (convective
 *      volume term and face gather of the complete face_flux);
 *   6. av_element_viscous_kernel, per shape, a block per few elements: one
 *      thread per (element, variable, quarter of the volume points) into
 *      shared memory, then one thread per coefficient adds the parts to R.
 * Passes 1, 2 and 4 have av_ops.h's order of operations; 3 and 6 split its
 * sums (by side and component, by parts of the points) and 5 sums in
 * another order (as the inviscid tuned residual does), so R agrees with the
 * CPU to rounding. No atomics, every value has one writer and every sum a
 * fixed order: runs are bitwise reproducible.
 *
 * The per-thread bodies are __host__ __device__ templates so they can also
 * be run on the host. */
#include <cuda_runtime.h>

#include "dg/av_ops.h"

/* Loop unrolling in the device pass of the __host__ __device__ bodies (the
 * host compiler rejects the pragma under -Werror). */
#ifdef __CUDA_ARCH__
#define AV_UNROLL _Pragma("unroll")
#else
#define AV_UNROLL
#endif

/* Threads per block of the AV team kernels (a multiple of 32). */
#define AV_TEAM_BLOCK 128

/* b[m] (in place) = M_e⁻¹ b for one component of one variable
 * (residual_apply_minv's arithmetic); nb ≤ NBMAX modes are used. */
template <int NBMAX>
__host__ __device__ inline void av_team_minv(const dg_disc_view *d, int64_t e, int nb,
                                             double (&b)[NBMAX]) {
  if (d->elem_affine[e]) {
    const double inv = 1.0 / d->metric_detJ[d->metric_offset[e]];
    AV_UNROLL
    for (int m = 0; m < NBMAX; ++m) b[m] = inv * b[m];
    return;
  }
  const double *Mi = d->minv + d->minv_offset[e];
  double r[NBMAX];
  AV_UNROLL
  for (int i = 0; i < NBMAX; ++i) {
    double sum = 0.0;
    if (i < nb) {
      AV_UNROLL
      for (int j = 0; j < NBMAX; ++j)
        if (j < nb) sum += Mi[i * nb + j] * b[j];
    }
    r[i] = sum;
  }
  AV_UNROLL
  for (int i = 0; i < NBMAX; ++i) b[i] = r[i];
}

/* G (written) for component c of the gradient of variable v of element el
 * (local to shape s): av_element_gradient of one (variable, component);
 * nothing when ε ≡ 0 on the element (only the face pass reads G, on
 * viscous sides). eps_c, U read. */
template <int DIM, int NB>
__host__ __device__ inline void av_team_gradient_var(const dg_disc_view *d, int s, int64_t el,
                                                     int v, int c, const double *eps_c,
                                                     const double *U, double *G) {
  const int64_t n_shape = d->n_shape[s], e = d->elem_start[s] + el;
  if (av_element_inviscid(d, e, eps_c)) return; /* G is only read on viscous elements */
  const int64_t off = d->coef_start[s] + (int64_t)v * NB * n_shape + el;
  double u[NB], b[NB];
  AV_UNROLL
  for (int m = 0; m < NB; ++m) {
    u[m] = U[off + (int64_t)m * n_shape];
    b[m] = 0.0;
  }
  int64_t vt, vp; /* the element's rule (affine_rule = reduced: a lower one on affine elements) */
  const int nq = disc_elem_rule(d, e, &vt, &vp);
  const double *vphi = d->vol_phi + vt;
  const double *vdphi = d->vol_dphi + vt * DIM;
  const double *vw = d->vol_w + vp;
  const int affine = d->elem_affine[e];
  const int64_t m0 = d->metric_offset[e];
  for (int q = 0; q < nq; ++q) {
    const double *phi = vphi + (int64_t)q * NB;
    const double *dphi = vdphi + (int64_t)q * NB * DIM;
    const int64_t mk = affine ? m0 : m0 + q;
    const double wdetJ = vw[q] * d->metric_detJ[mk];
    const double *invJ = d->metric_invJ + mk * DIM * DIM;
    double gref[DIM];
    AV_UNROLL
    for (int i = 0; i < DIM; ++i) gref[i] = 0.0;
    AV_UNROLL
    for (int m = 0; m < NB; ++m) {
      AV_UNROLL
      for (int i = 0; i < DIM; ++i) gref[i] += dphi[m * DIM + i] * u[m];
    }
    double sum = 0.0;
    AV_UNROLL
    for (int i = 0; i < DIM; ++i) sum += gref[i] * invJ[i * DIM + c];
    const double w = wdetJ * sum;
    AV_UNROLL
    for (int m = 0; m < NB; ++m) b[m] += w * phi[m];
  }
  av_team_minv<NB>(d, e, NB, b);
  AV_UNROLL
  for (int m = 0; m < NB; ++m) G[c * d->n_coefs + off + (int64_t)m * n_shape] = b[m];
}

/* L (written) for component c of variable v of element el (local to shape
 * s): the coefficients of Σ_f r_f,e, M_e⁻¹ times the lifting right-hand
 * sides of the element's faces summed in face order (av_lifting_rhs_add,
 * av_apply_minv_dim); nothing when ε ≡ 0 on the element. face_jump, eps_c
 * read. */
template <int DIM, int NB>
__host__ __device__ inline void av_team_lift_var(const dg_disc_view *d, int s, int64_t el, int v,
                                                 int c, const double *eps_c,
                                                 const double *face_jump, double *L) {
  const int64_t n_shape = d->n_shape[s], e = d->elem_start[s] + el;
  if (av_element_inviscid(d, e, eps_c)) return;
  const int nv = DIM + 2, nqf = d->nqf, nf = shape_n_faces((dg_shape)s);
  double b[NB];
  AV_UNROLL
  for (int m = 0; m < NB; ++m) b[m] = 0.0;
  for (int lf = 0; lf < nf; ++lf) {
    const int64_t f = d->elem_face[e * DG_MAX_FACES + lf];
    const int side = (d->face_elem[2 * f] == e && d->face_local[2 * f] == lf) ? 0 : 1;
    const int o = side ? d->face_orient[f] : 0;
    const double *fphi = d->face_phi + d->face_table[s][lf][o];
    for (int q = 0; q < nqf; ++q) {
      const int64_t k = f * nqf + q;
      const double *phi = fphi + (int64_t)q * NB;
      const double w = -0.5 * face_jump[k * nv + v] * d->face_normal[k * DIM + c];
      AV_UNROLL
      for (int m = 0; m < NB; ++m) b[m] += w * phi[m];
    }
  }
  av_team_minv<NB>(d, e, NB, b);
  const int64_t off = d->coef_start[s] + (int64_t)v * NB * n_shape + el;
  AV_UNROLL
  for (int m = 0; m < NB; ++m) L[c * d->n_coefs + off + (int64_t)m * n_shape] = b[m];
}

/* Side `side`, component c, variable v of face f: Sf[((side*DIM + c)*NV +
 * v)*nqf + q] (written) = weight ε wsJ n_c (∇U_K + η r_K)_c,v at face point
 * q (av_residual_face_terms' ĥ·n wsJ split by side and component); nothing
 * when the side is missing (boundary) or ε ≡ 0 on its element. NBMAX ≥ the
 * modes of the side's shape. G, eps_c, face_jump read. */
template <int DIM, int NBMAX>
__host__ __device__ inline void
av_team_face_side_var(const dg_disc_view *d, int64_t f, int side, int c, int v, const double *G,
                      const double *eps_c, const double *face_jump, double *Sf) {
  const int nv = DIM + 2, nqf = d->nqf;
  const int64_t e1 = d->face_elem[2 * f + 1];
  if (side == 1 && e1 < 0) return;
  if (!av_face_viscous(d, f)) return; /* slip wall or symmetry plane: no viscous flux */
  const double weight = e1 >= 0 ? 0.5 : 1.0;
  const int64_t K = d->face_elem[2 * f + side];
  if (av_element_inviscid(d, K, eps_c)) return;
  const int s = d->elem_shape[K], nb = d->nb[s];
  const int lf = d->face_local[2 * f + side], o = side ? d->face_orient[f] : 0;
  const double eta = d->br2_eta > 0.0 ? d->br2_eta : shape_n_faces((dg_shape)s) + 1.0;
  const double *fphi = d->face_phi + d->face_table[s][lf][o];
  /* lifting right-hand side of component c, r_c = M⁻¹ b, T = G_c + η r_c */
  double T[NBMAX];
  AV_UNROLL
  for (int m = 0; m < NBMAX; ++m) T[m] = 0.0;
  for (int q = 0; q < nqf; ++q) {
    const int64_t k = f * nqf + q;
    const double *phi = fphi + (int64_t)q * nb;
    const double w = -0.5 * face_jump[k * nv + v] * d->face_normal[k * DIM + c];
    AV_UNROLL
    for (int m = 0; m < NBMAX; ++m)
      if (m < nb) T[m] += w * phi[m];
  }
  av_team_minv<NBMAX>(d, K, nb, T);
  const int64_t n_shape = d->n_shape[s];
  const double *GK =
      G + c * d->n_coefs + d->coef_start[s] + (int64_t)v * nb * n_shape + (K - d->elem_start[s]);
  AV_UNROLL
  for (int m = 0; m < NBMAX; ++m)
    if (m < nb) T[m] = GK[(int64_t)m * n_shape] + eta * T[m];
  double *out = Sf + ((side * DIM + c) * nv + v) * nqf;
  for (int q = 0; q < nqf; ++q) {
    const int64_t k = f * nqf + q;
    const double *phi = fphi + (int64_t)q * nb;
    const double scale = weight * av_eps_at(d, K, eps_c, phi) * d->face_wsJ[k];
    double sum = 0.0;
    AV_UNROLL
    for (int m = 0; m < NBMAX; ++m)
      if (m < nb) sum += phi[m] * T[m];
    out[q] = scale * (d->face_normal[k * DIM + c] * sum);
  }
}

/* face_flux[k*nvar + v] (read and written) −= the viscous terms Sf of
 * av_team_face_side_var at point q of face f (k = f*nqf + q), the viscous
 * sides in order, components in order. eps_c, Sf read. */
template <int DIM>
__host__ __device__ inline void av_team_face_combine(const dg_disc_view *d, int64_t f, int q, int v,
                                                     const double *eps_c, const double *Sf,
                                                     double *face_flux) {
  const int nv = DIM + 2, nqf = d->nqf;
  if (!av_face_viscous(d, f)) return; /* Sf was not written (av_team_face_side_var) */
  const int n_sides = d->face_elem[2 * f + 1] >= 0 ? 2 : 1;
  const int64_t k = f * nqf + q;
  double acc = face_flux[k * nv + v];
  for (int side = 0; side < n_sides; ++side) {
    if (av_element_inviscid(d, d->face_elem[2 * f + side], eps_c)) continue;
    AV_UNROLL
    for (int c = 0; c < DIM; ++c) acc -= Sf[((side * DIM + c) * nv + v) * nqf + q];
  }
  face_flux[k * nv + v] = acc;
}

/* P[m] (written, m < NB) = −Σ_q ∫ ε (∇U + Σ_f r_f,e)·∇φ_m over the volume
 * points q = part, part + n_parts, ... of element el (local to shape s),
 * variable v: one part of the viscous volume term of
 * av_residual_element_terms, with Σ_f r_f,e from L (av_team_lift_var);
 * nothing when ε ≡ 0 on the element. U, eps_c, L read. */
template <int DIM, int NB>
__host__ __device__ inline void
av_team_element_viscous_part(const dg_disc_view *d, int s, int64_t el, int v, int part, int n_parts,
                             const double *U, const double *eps_c, const double *L, double *P) {
  const int64_t n_shape = d->n_shape[s], e = d->elem_start[s] + el;
  if (av_element_inviscid(d, e, eps_c)) return;
  const int64_t off = d->coef_start[s] + (int64_t)v * NB * n_shape + el;
  double u[NB], Rv[NB];
  AV_UNROLL
  for (int m = 0; m < NB; ++m) {
    u[m] = U[off + (int64_t)m * n_shape];
    Rv[m] = 0.0;
  }
  int64_t vt, vp; /* the element's rule (affine_rule = reduced: a lower one on affine elements) */
  const int nq = disc_elem_rule(d, e, &vt, &vp);
  const double *vphi = d->vol_phi + vt;
  const double *vdphi = d->vol_dphi + vt * DIM;
  const double *vw = d->vol_w + vp;
  const int affine = d->elem_affine[e];
  const int64_t m0 = d->metric_offset[e];
  for (int q = part; q < nq; q += n_parts) {
    const double *phi = vphi + (int64_t)q * NB;
    const double *dphi = vdphi + (int64_t)q * NB * DIM;
    const int64_t mk = affine ? m0 : m0 + q;
    const double wdetJ = vw[q] * d->metric_detJ[mk];
    const double *invJ = d->metric_invJ + mk * DIM * DIM;
    const double scale = wdetJ * av_eps_at(d, e, eps_c, phi);
    /* ∇U (av_volume_gradient for variable v), then + Σ r at the point */
    double gref[DIM], gU[DIM];
    AV_UNROLL
    for (int i = 0; i < DIM; ++i) gref[i] = 0.0;
    AV_UNROLL
    for (int m = 0; m < NB; ++m) {
      AV_UNROLL
      for (int i = 0; i < DIM; ++i) gref[i] += dphi[m * DIM + i] * u[m];
    }
    AV_UNROLL
    for (int k = 0; k < DIM; ++k) {
      double sum = 0.0;
      AV_UNROLL
      for (int i = 0; i < DIM; ++i) sum += gref[i] * invJ[i * DIM + k];
      gU[k] = sum;
    }
    AV_UNROLL
    for (int c = 0; c < DIM; ++c) {
      const double *Lc = L + c * d->n_coefs + off;
      double rl = 0.0;
      AV_UNROLL
      for (int m = 0; m < NB; ++m) rl += phi[m] * Lc[(int64_t)m * n_shape];
      gU[c] += rl;
    }
    double Fr[DIM];
    AV_UNROLL
    for (int i = 0; i < DIM; ++i) {
      double sum = 0.0;
      AV_UNROLL
      for (int j = 0; j < DIM; ++j) sum += invJ[i * DIM + j] * gU[j];
      Fr[i] = scale * sum;
    }
    AV_UNROLL
    for (int m = 0; m < NB; ++m) {
      double sum = 0.0;
      AV_UNROLL
      for (int i = 0; i < DIM; ++i) sum += dphi[m * DIM + i] * Fr[i];
      Rv[m] -= sum;
    }
  }
  AV_UNROLL
  for (int m = 0; m < NB; ++m) P[m] = Rv[m];
}

/* R (read and incremented) at mode m of variable v of element el (local to
 * shape s) += the n_parts parts P[part*NB + m] of
 * av_team_element_viscous_part, in part order; nothing when ε ≡ 0 on the
 * element. eps_c, P read. */
template <int NB>
__host__ __device__ inline void
av_team_element_combine(const dg_disc_view *d, int s, int64_t el, int v, int m, int n_parts,
                        const double *eps_c, const double *P, double *R) {
  const int64_t n_shape = d->n_shape[s], e = d->elem_start[s] + el;
  if (av_element_inviscid(d, e, eps_c)) return;
  double sum = P[m];
  for (int part = 1; part < n_parts; ++part) sum += P[part * NB + m];
  R[d->coef_start[s] + ((int64_t)v * NB + m) * n_shape + el] += sum;
}

/* ------------------------------------------------------------ kernels */

/* Faces per block of av_face_viscous_kernel: one thread per (face, side,
 * component, variable). */
__host__ __device__ constexpr int av_team_faces_per_block(int dim) {
  return AV_TEAM_BLOCK / (2 * dim * (dim + 2));
}
/* Parts of the volume points and elements per block of
 * av_element_viscous_kernel: one thread per (element, variable, part). */
#define AV_TEAM_QPARTS 4
__host__ __device__ constexpr int av_team_elems_per_block(int dim) {
  return AV_TEAM_BLOCK / ((dim + 2) * AV_TEAM_QPARTS);
}

/* G (written) of the viscous elements of shape s; eps_c, U read. One thread
 * per (element, variable, component), element fastest (coalesced
 * coefficient loads and stores). */
template <int DIM, int NB>
static __global__ void __launch_bounds__(AV_TEAM_BLOCK)
    av_gradient_var_kernel(const __grid_constant__ dg_disc_view view, int s,
                           const double *__restrict__ eps_c, const double *__restrict__ U,
                           double *__restrict__ G) {
  const int64_t n_shape = view.n_shape[s];
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_shape * (DIM + 2) * DIM) return;
  const int vc = (int)(i / n_shape);
  av_team_gradient_var<DIM, NB>(&view, s, i % n_shape, vc % (DIM + 2), vc / (DIM + 2), eps_c, U, G);
}

/* face_flux, face_jump (written) at every face point: av_face_point_terms
 * with the convective flux and the run-time state st; U read. One thread
 * per face point. */
static __global__ void __launch_bounds__(AV_TEAM_BLOCK)
    av_face_point_kernel(const __grid_constant__ dg_disc_view view,
                         const __grid_constant__ dg_disc_state st, const double *__restrict__ U,
                         double t, double *__restrict__ face_flux, double *__restrict__ face_jump) {
  const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= view.n_faces * view.nqf) return;
  const int64_t f = k / view.nqf;
  av_face_point_terms(&view, &st, f, (int)(k - f * view.nqf), U, t, 1, face_flux, face_jump);
}

/* face_flux (read and written) −= ĥ·n wsJ at every face point; G, eps_c,
 * face_jump read. A block per av_team_faces_per_block(DIM) faces: one
 * thread per (face, side, component, variable) into shared memory
 * ([face][side][component][variable][point], dynamic: that many doubles),
 * then one thread per (face, point, variable) subtracts its entries. */
template <int DIM, int NBMAX>
static __global__ void __launch_bounds__(AV_TEAM_BLOCK)
    av_face_viscous_kernel(const __grid_constant__ dg_disc_view view, const double *__restrict__ G,
                           const double *__restrict__ eps_c, const double *__restrict__ face_jump,
                           double *__restrict__ face_flux) {
  constexpr int NV = DIM + 2, PER = 2 * DIM * NV, FPB = av_team_faces_per_block(DIM);
  extern __shared__ double av_face_shared[];
  const int nqf = view.nqf, t = threadIdx.x;
  const int64_t f0 = (int64_t)blockIdx.x * FPB;
  if (t < FPB * PER) {
    const int fl = t / PER, r = t % PER, v = r % NV, sc = r / NV;
    if (f0 + fl < view.n_faces)
      av_team_face_side_var<DIM, NBMAX>(&view, f0 + fl, sc / DIM, sc % DIM, v, G, eps_c, face_jump,
                                        av_face_shared + fl * PER * nqf);
  }
  __syncthreads();
  for (int i = t; i < FPB * nqf * NV; i += blockDim.x) {
    const int fl = i / (nqf * NV), r = i % (nqf * NV);
    if (f0 + fl < view.n_faces)
      av_team_face_combine<DIM>(&view, f0 + fl, r / NV, r % NV, eps_c,
                                av_face_shared + fl * PER * nqf, face_flux);
  }
}

/* L (written) = Σ_f r_f,e of the owned viscous elements of shape s; eps_c,
 * face_jump read. One thread per (element, variable, component), element
 * fastest. */
template <int DIM, int NB>
static __global__ void __launch_bounds__(AV_TEAM_BLOCK)
    av_lift_var_kernel(const __grid_constant__ dg_disc_view view, int s,
                       const double *__restrict__ eps_c, const double *__restrict__ face_jump,
                       double *__restrict__ L) {
  const int64_t n_run = view.n_owned[s]; /* the owned elements (the residual's) */
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_run * (DIM + 2) * DIM) return;
  const int vc = (int)(i / n_run);
  av_team_lift_var<DIM, NB>(&view, s, i % n_run, vc % (DIM + 2), vc / (DIM + 2), eps_c, face_jump,
                            L);
}

/* R (read and incremented) += the viscous volume term of the owned
 * elements of shape s; U, eps_c, L read. A block per av_team_elems_per_block(DIM)
 * elements: one thread per (element, variable, part of the volume points)
 * into shared memory, then one thread per (element, variable, mode) adds
 * the parts to R. */
template <int DIM, int NB>
static __global__ void __launch_bounds__(AV_TEAM_BLOCK)
    av_element_viscous_kernel(const __grid_constant__ dg_disc_view view, int s,
                              const double *__restrict__ U, const double *__restrict__ eps_c,
                              const double *__restrict__ L, double *__restrict__ R) {
  constexpr int NV = DIM + 2, EPB = av_team_elems_per_block(DIM);
  __shared__ double parts[EPB * NV * AV_TEAM_QPARTS * NB]; /* [el][v][part][m] */
  const int64_t n_run = view.n_owned[s], el0 = (int64_t)blockIdx.x * EPB;
  const int t = threadIdx.x;
  if (t < EPB * NV * AV_TEAM_QPARTS) {
    const int el = t % EPB, r = t / EPB, v = r % NV, part = r / NV;
    if (el0 + el < n_run)
      av_team_element_viscous_part<DIM, NB>(&view, s, el0 + el, v, part, AV_TEAM_QPARTS, U, eps_c,
                                            L,
                                            parts + ((el * NV + v) * AV_TEAM_QPARTS + part) * NB);
  }
  __syncthreads();
  for (int i = t; i < EPB * NV * NB; i += blockDim.x) {
    const int el = i % EPB, vm = i / EPB, v = vm / NB;
    if (el0 + el < n_run)
      av_team_element_combine<NB>(&view, s, el0 + el, v, vm % NB, AV_TEAM_QPARTS, eps_c,
                                  parts + (el * NV + v) * AV_TEAM_QPARTS * NB, R);
  }
}

/* ------------------------------------------------------------ dispatch */

/* Kernels of one shape, instantiated for (dim, nb). */
typedef void (*av_gradient_fn)(const dg_disc_view, int, const double *, const double *, double *);
typedef void (*av_element_fn)(const dg_disc_view, int, const double *, const double *,
                              const double *, double *);
typedef void (*av_face_fn)(const dg_disc_view, const double *, const double *, const double *,
                           double *);

typedef void (*av_lift_fn)(const dg_disc_view, int, const double *, const double *, double *);

typedef struct {
  av_gradient_fn gradient;
  av_lift_fn lift;
  av_element_fn element;
} av_team_shape_kernels;

/* The per-shape kernels for dimension dim and nb modes (NULLs when none are
 * instantiated). */
static av_team_shape_kernels av_team_shape_kernels_for(int dim, int nb) {
  av_team_shape_kernels k = {NULL, NULL, NULL};
#define AV_TEAM_CASE(D, N)                                                                         \
  if (dim == D && nb == N) {                                                                       \
    k.gradient = av_gradient_var_kernel<D, N>;                                                     \
    k.lift = av_lift_var_kernel<D, N>;                                                             \
    k.element = av_element_viscous_kernel<D, N>;                                                   \
  }
  AV_TEAM_CASE(2, 3)
  AV_TEAM_CASE(2, 4)
  AV_TEAM_CASE(2, 6)
  AV_TEAM_CASE(2, 9)
  AV_TEAM_CASE(2, 10)
  AV_TEAM_CASE(2, 16)
  AV_TEAM_CASE(3, 4)
  AV_TEAM_CASE(3, 10)
  AV_TEAM_CASE(3, 20)
#undef AV_TEAM_CASE
  return k;
}

/* The face kernel for dimension dim and at most nb_max modes per side
 * (NULL when none is instantiated). */
static av_face_fn av_team_face_kernel_for(int dim, int nb_max) {
#define AV_TEAM_FACE_CASE(D, N)                                                                    \
  if (dim == D && nb_max == N) return av_face_viscous_kernel<D, N>;
  AV_TEAM_FACE_CASE(2, 3)
  AV_TEAM_FACE_CASE(2, 4)
  AV_TEAM_FACE_CASE(2, 6)
  AV_TEAM_FACE_CASE(2, 9)
  AV_TEAM_FACE_CASE(2, 10)
  AV_TEAM_FACE_CASE(2, 16)
  AV_TEAM_FACE_CASE(3, 4)
  AV_TEAM_FACE_CASE(3, 10)
  AV_TEAM_FACE_CASE(3, 20)
#undef AV_TEAM_FACE_CASE
  return NULL;
}
