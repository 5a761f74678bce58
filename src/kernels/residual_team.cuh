#pragma once
/* Tuned CUDA kernels of the residual and the RK update (included by
 * backend_cuda.cu only). They compute the same weak form as the portable
 * DG_HD functions of src/dg/residual_ops.h, which stay the reference: the
 * test tests/unit/test_backend_gpu.c compares both variants with the CPU.
 *
 * Element kernel ("team" kernel): one block handles E consecutive elements
 * of one shape, with the number of modes NB and the dimension DIM as
 * template constants so the mode and variable loops unroll. Four phases,
 * separated by barriers, all data of the block in shared memory with the
 * element index fastest (conflict-free, coalesced global loads/stores in the
 * element-minor coefficient layout):
 *   0. load the E elements' coefficients Us[v*NB+m][el] (and, unless
 *      shared, their signed face fluxes, see 3);
 *   1. one thread per (element, volume point): U at the point, and
 *      G = w detJ J⁻¹ F (team_reference_flux) into Gs[(q*DIM+i)*NV+v][el];
 *   2. one thread per (element, mode): R_m,v = Σ_q Σ_i ∂φ_m/∂ξ_i G_q,i,v;
 *   3. (shared: load the signed face fluxes Hs[(lf*nqf+q)*NV+v][el] and
 *      the face orientation codes over Gs) one thread per (element, mode)
 *      adds Σ_faces Σ_q φ_m(face point) (±H_q,v) and writes R.
 * Phases 1 and 2 run over the volume points in chunks of qc points
 * (residual_team_args.qc), Gs holding one chunk: the shared memory of an
 * element then grows with qc instead of the rule's points (46 on curved
 * tetrahedra at p = 2), so more blocks fit a multiprocessor; phase 2 sums
 * the points in the same order whatever qc is (the same bits). With
 * residual_team_args.face_share the face fluxes reuse the chunk's storage
 * (residual_team_doubles_per_elem: the larger of the two, not their sum),
 * so they cost no occupancy, but their loads no longer overlap the volume
 * part; else Hs follows Gs. The sums are the same either way.
 * No atomics; every sum has a fixed order, so runs are bitwise reproducible.
 * Sums are ordered differently from residual_element (the volume sum is
 * per mode over all points), so results agree with it to rounding.
 *
 * Thread kernel (residual_element_thread_kernel, at the end): one thread per
 * element, its sums in registers, its coefficients in registers or in its
 * own column of shared memory; the team kernel's operations in the same
 * order (the same bits), no barriers. The default on shapes of at least
 * 128 elements per multiprocessor (backend_cuda.cu, elem_thread_kind).
 *
 * Face kernels: one thread per face point. residual_face_team_kernel (every
 * element of one shape): traces unrolled over NB and the variables, boundary
 * states out of line; residual_face_point_kernel (mixed meshes): the
 * portable residual_point_flux. The trace path (tetrahedra at p = 3 by
 * default): residual_trace_kernel forms every element's traces at its faces'
 * points once, residual_face_trace_kernel the fluxes from them.
 * RK update: one thread per coefficient, or fused into the element
 * kernel (RK = 1) as a fifth phase.
 * Parameters: small by-value structs (residual_team_args, rk_coef_args,
 * residual_face_args) and a device copy of the view, not the ~3 KB view by
 * value (docs/PERFORMANCE.md, "Tuned kernels, second round"). */
#include <cuda_runtime.h>

#include "dg/residual_ops.h"
#include "kernels/team_trace.cuh"

/* Threads per block of the team kernels (a multiple of 32). */
#ifndef BACKEND_CUDA_TEAM
#define BACKEND_CUDA_TEAM 128
#endif
/* Most dynamic shared memory a team block asks for (bytes). */
#define RESIDUAL_TEAM_MAX_SMEM (96 * 1024)

/* Doubles per element of a team block's Gs (a chunk of nq points) and Hs
 * (the face fluxes): the larger of the two when they share their storage
 * (share), else their sum. */
static inline __host__ __device__ int64_t residual_team_gh_doubles(int dim, int nq, int nf, int nqf,
                                                                   int share) {
  const int64_t nv = dim + 2, g = (int64_t)nq * dim * nv, h = (int64_t)nf * nqf * nv;
  return share ? (g > h ? g : h) : g + h;
}
/* Doubles of shared memory per element of a team block: Us, Gs and Hs
 * (residual_team_gh_doubles) and the orientation codes (counted as
 * doubles). */
static inline int64_t residual_team_doubles_per_elem(int dim, int nb, int nq, int nf, int nqf,
                                                     int share) {
  const int nv = dim + 2;
  return (int64_t)nv * nb + residual_team_gh_doubles(dim, nq, nf, nqf, share) + nf;
}

/* Small by-value parameters of the tuned kernels. The full dg_disc_view is
 * ~3 KB; passed by value to every launch it made each launch copy that
 * block (see docs/PERFORMANCE.md, "Launch floor"). The element and RK
 * kernels get what they read of one shape in these structs (built once by
 * team_setup); the face kernel reads the view from a device-resident copy. */
typedef struct {
  const double *vphi, *vw, *vdphi, *face_phi; /* tables of the shape (offsets applied) */
  /* the affine elements' volume rule (disc_elem_rule; the shape's own
   * unless dg_disc_opts.affine_degree made a lower one) */
  const double *vphi_aff, *vw_aff, *vdphi_aff;
  const uint8_t *elem_affine;
  const int64_t *metric_offset;
  const double *metric_detJ, *metric_invJ;
  const int64_t *elem_face, *face_elem;
  const int8_t *face_local, *face_orient;
  int64_t n_shape, e_first, coef_start; /* elements, first element, first coefficient */
  int64_t n_run; /* elements the element kernel covers, [e_first, e_first + n_run): the owned
                    ones (n_shape in one process; ghosts are their owners' business) */
  double gamma;
  int nq, nqf, E; /* volume points (the shape's rule), points per face, elements per block */
  int nq_aff;     /* volume points of the affine elements' rule */
  int nq_max;     /* the larger of nq and nq_aff */
  int qc;         /* volume points per chunk of phases 1 and 2 (Gs holds qc points) */
  int face_share; /* 1: the face fluxes Hs reuse Gs's storage, loaded after the volume part */
  int face_table[DG_MAX_FACES][DG_MAX_FACE_ORIENT]; /* view.face_table[s], into face_phi */
} residual_team_args;

/* Fills the team kernel's parameters for shape s of view d (device
 * pointers) with E elements per block; 0 when a face-table offset does not
 * fit an int (the caller reports it), 1 otherwise. */
static inline int residual_team_args_fill(const dg_disc_view *d, int s, int E, int qc,
                                          int face_share, residual_team_args *a) {
  a->vphi = d->vol_phi + d->vol_table[s];
  a->vw = d->vol_w + d->vol_point[s];
  a->vdphi = d->vol_dphi + d->vol_table[s] * d->dim;
  a->vphi_aff = d->vol_phi + d->vol_table_affine[s];
  a->vw_aff = d->vol_w + d->vol_point_affine[s];
  a->vdphi_aff = d->vol_dphi + d->vol_table_affine[s] * d->dim;
  a->face_phi = d->face_phi;
  a->elem_affine = d->elem_affine;
  a->metric_offset = d->metric_offset;
  a->metric_detJ = d->metric_detJ;
  a->metric_invJ = d->metric_invJ;
  a->elem_face = d->elem_face;
  a->face_elem = d->face_elem;
  a->face_local = d->face_local;
  a->face_orient = d->face_orient;
  a->n_shape = d->n_shape[s];
  a->n_run = d->n_owned[s];
  a->e_first = d->elem_start[s];
  a->coef_start = d->coef_start[s];
  a->gamma = d->gamma;
  a->nq = d->nq[s];
  a->nq_aff = d->nq_affine[s];
  a->nq_max = disc_shape_max_points(d, s);
  a->nqf = d->nqf;
  a->E = E;
  a->qc = qc;
  a->face_share = face_share;
  for (int lf = 0; lf < DG_MAX_FACES; ++lf)
    for (int o = 0; o < DG_MAX_FACE_ORIENT; ++o) {
      const int64_t offset = d->face_table[s][lf][o];
      if (offset < 0 || offset > INT32_MAX) return 0;
      a->face_table[lf][o] = (int)offset;
    }
  return 1;
}

typedef struct {
  const uint8_t *elem_affine;
  const int64_t *metric_offset, *minv_offset;
  const double *metric_detJ, *minv;
  int64_t n_shape, e_first, coef_start;
  int nb, nvar;
} rk_coef_args;

/* The RK stage an element kernel finishes (RK = 1): Uout (written; may
 * alias U0 or the residual's U) = alpha U0 + b (U + dt M⁻¹ R) of the
 * elements it computes R of; the inverse mass matrices of the shape in mass
 * (rk_coef_args). */
typedef struct {
  rk_coef_args mass;
  double alpha, b;
  const double *U0, *dt;
  double *Uout;
} rk_stage_args;

/* Coefficient (v, m) of element e's RK stage, one rounding sequence for the
 * update kernel and the fused element kernel (the same bits): dU = M⁻¹ R
 * (row m of the stored inverse against R_v,0..nb-1, read through Rv with
 * stride rs; affine elements: R / detJ), stage = U + dt dU, out = alpha U0 +
 * b stage (alpha = 0: U0 not read). */
static __device__ __forceinline__ double rk_coef_finish(double dt, double dU, double U,
                                                        double alpha, double U0v, double b) {
  const double stage = __fma_rn(dt, dU, U);
  return alpha != 0.0 ? __fma_rn(alpha, U0v, __dmul_rn(b, stage)) : __dmul_rn(b, stage);
}

static __device__ __forceinline__ double rk_coef_value(const rk_coef_args *a, int64_t e, int m,
                                                       const double *Rv, int64_t rs, double U,
                                                       double dt, double alpha, double U0v,
                                                       double b) {
  double dU;
  if (a->elem_affine[e]) {
    const double inv = 1.0 / a->metric_detJ[a->metric_offset[e]];
    dU = __dmul_rn(inv, Rv[(int64_t)m * rs]);
  } else {
    const double *Mi = a->minv + a->minv_offset[e] + (int64_t)m * a->nb;
    double sum = 0.0;
    for (int j = 0; j < a->nb; ++j) sum = __fma_rn(Mi[j], Rv[(int64_t)j * rs], sum);
    dU = sum;
  }
  return rk_coef_finish(dt, dU, U, alpha, U0v, b);
}

/* face_flux (written) at the face points k = f*nqf + q in [k_first,
 * n_points): H·n wsJ; U read. One thread per face point. view: a device copy of the view, which
 * each block first copies to shared memory (one coalesced 3 KB read per
 * block instead of a chain of dependent global loads per field); state: the
 * device copy of the run-time state (read by boundary faces only). */
static __global__ void __launch_bounds__(BACKEND_CUDA_TEAM)
    residual_face_point_kernel(const dg_disc_view *__restrict__ view,
                               const dg_disc_state *__restrict__ state, int64_t k_first,
                               int64_t n_points, const double *__restrict__ U, double t,
                               double *__restrict__ face_flux) {
  static_assert(sizeof(dg_disc_view) % sizeof(uint64_t) == 0, "view copied as 8-byte words");
  __shared__ dg_disc_view sview;
  {
    const uint64_t *src = (const uint64_t *)view;
    uint64_t *dst = (uint64_t *)&sview;
    for (int i = threadIdx.x; i < (int)(sizeof(dg_disc_view) / sizeof(uint64_t)); i += blockDim.x)
      dst[i] = __ldg(src + i);
  }
  __syncthreads();
  const int64_t k = k_first + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n_points) return;
  const int64_t f = k / sview.nqf;
  const int q = (int)(k - f * sview.nqf);
  double H[DG_MAX_NVAR];
  residual_point_flux(&sview, state, f, q, U, t, H);
  const double wsJ = sview.face_wsJ[k];
  for (int v = 0; v < sview.nvar; ++v) face_flux[k * sview.nvar + v] = H[v] * wsJ;
}

/* Parameters of the single-shape face kernel (every element of the mesh
 * has shape s; see residual_face_team_kernel). */
typedef struct {
  const double *face_phi, *face_normal, *face_wsJ;
  const int64_t *face_elem;
  const int8_t *face_local, *face_orient;
  const dg_disc_state *state; /* device copy of the run-time state (boundary faces) */
  int64_t k_first, n_points;  /* the face points [k_first, n_points) of one launch */
  int64_t n_shape, e_first, coef_start;
  double gamma;
  int nqf, flux;
  int face_table[DG_MAX_FACES][DG_MAX_FACE_ORIENT]; /* view.face_table[s], into face_phi */
} residual_face_args;

/* The ghost state of a boundary face point (residual_outer_state), kept out
 * of line: boundary faces are few, and inlining the boundary conditions
 * (and the exact vortex) into the face kernel made its code and register
 * count larger for every face. */
typedef struct {
  double v[DG_MAX_NVAR];
} team_state; /* by value, so that the caller's states can stay in registers */

static __device__ __noinline__ team_state team_outer_state(const dg_disc_view *view,
                                                           const dg_disc_state *state,
                                                           const double *U, int64_t f, int q,
                                                           const team_state UL, double t) {
  team_state UR;
  residual_outer_state(view, state, U, f, q, UL.v, t, UR.v);
  return UR;
}

/* face_flux (written) at face point k from the traces L and R: the
 * numerical flux H(L, R, n) times wsJ (the tail of the single-shape face
 * kernels). */
template <int DIM>
static __device__ __forceinline__ void
team_face_flux_store(const residual_face_args &a, int64_t k, const team_state &L,
                     const team_state &R, double *__restrict__ face_flux) {
  constexpr int NV = DIM + 2;
  double n[DIM];
#pragma unroll
  for (int i = 0; i < DIM; ++i) n[i] = __ldg(a.face_normal + k * DIM + i);
  double H[DG_MAX_NVAR];
  if (a.flux == DG_FACE_FLUX_RUSANOV)
    physics_rusanov_flux(DIM, a.gamma, L.v, R.v, n, H);
  else
    physics_roe_flux(DIM, a.gamma, L.v, R.v, n, PHYSICS_ROE_ENTROPY_FIX, H);
  const double wsJ = __ldg(a.face_wsJ + k);
#pragma unroll
  for (int v = 0; v < NV; ++v) face_flux[k * NV + v] = H[v] * wsJ;
}

/* face_flux (written) at the face points k = f*nqf + q in [a.k_first,
 * a.n_points) of a mesh whose elements all have one shape with NB modes: H·n wsJ; U read.
 * One thread per face point, as residual_face_point_kernel, with the
 * traces unrolled (team_trace) and the boundary states out of line; view
 * (device copy) is read by the boundary faces only. */
template <int DIM, int NB>
static __global__ void __launch_bounds__(BACKEND_CUDA_TEAM)
    residual_face_team_kernel(const residual_face_args a, const dg_disc_view *__restrict__ view,
                              const double *__restrict__ U, double t,
                              double *__restrict__ face_flux) {
  constexpr int NV = DIM + 2;
  const int64_t k = a.k_first + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= a.n_points) return;
  const int64_t f = k / a.nqf;
  const int q = (int)(k - f * a.nqf);
  const double *Ushape = U + a.coef_start;
  const int64_t e0 = a.face_elem[2 * f], e1 = a.face_elem[2 * f + 1];
  team_state L = {{0}}, R = {{0}};
  team_trace<NB, NV>(Ushape, a.n_shape, e0 - a.e_first,
                     a.face_phi + a.face_table[a.face_local[2 * f]][0] + q * NB, L.v);
  if (e1 >= 0)
    team_trace<NB, NV>(
        Ushape, a.n_shape, e1 - a.e_first,
        a.face_phi + a.face_table[a.face_local[2 * f + 1]][a.face_orient[f]] + q * NB, R.v);
  else
    R = team_outer_state(view, a.state, U, f, q, L, t);
  team_face_flux_store<DIM>(a, k, L, R, face_flux);
}

/* ---- the face traces, formed once per element side (the trace path) ----
 *
 * residual_trace_kernel forms, for every element of one shape and each of
 * its faces, the element's state at the face's points in the face's own
 * order (side 0's points; on side 1 through the face's orientation, the
 * table the face kernel uses), and writes it to trace[(side NV + v) n +
 * k], k = f nqf + q, n the face points: the traces of residual_face_team_kernel
 * (team_trace_load: the same terms in the same order, the same bits),
 * computed once per element from its coefficients in shared memory instead
 * of once per face point from scattered loads. residual_face_trace_kernel
 * then reads both sides' traces, coalesced, and forms the flux as
 * residual_face_team_kernel does: the same bits. */

/* Elements per block of residual_trace_kernel: about two (face, point)
 * tasks per thread, at most 32. */
static inline __host__ __device__ int residual_trace_elems(int nf, int nqf) {
  const int per = nf * nqf, E = 2 * BACKEND_CUDA_TEAM / (per > 0 ? per : 1);
  return E < 1 ? 1 : (E > 32 ? 32 : E);
}

/* Dynamic shared bytes of residual_trace_kernel: the coefficients of its E
 * elements (an odd pitch of doubles per element, so that lanes reading
 * different elements fall in different banks). */
static inline size_t residual_trace_smem(int dim, int nb, int E) {
  return (size_t)E * (size_t)(((dim + 2) * nb) | 1) * sizeof(double);
}

/* trace (written) of the elements [blockIdx.x E, +E) of one shape (local
 * indices, within a.n_shape): for each element, local face lf and face
 * point q, the element's state at that point in its face's order,
 * trace[(side NV + v) n_points + f nqf + q]. A thread takes one (element,
 * face, point) at a time, the point fastest, so that its lanes read
 * neighbouring entries of the transposed table phiT (face_phi with each
 * face table's point index fastest: phiT[table + m nqf + q]) and write
 * neighbouring trace entries; the element's coefficients come from shared
 * memory (Us, loaded coalesced). U read. */
template <int DIM, int NB>
static __global__ void __launch_bounds__(BACKEND_CUDA_TEAM)
    residual_trace_kernel(const residual_team_args a, int nf, const double *__restrict__ phiT,
                          int64_t n_points, const double *__restrict__ U,
                          double *__restrict__ trace) {
  constexpr int NV = DIM + 2;
  constexpr int NC = NV * NB;
  constexpr int PITCH = NC | 1;
  extern __shared__ double trace_shared[];
  double *Us = trace_shared; /* [E][PITCH] */
  const int E = a.E, nqf = a.nqf;
  const int64_t el0 = (int64_t)blockIdx.x * E;
  const int n_here = (int)(a.n_shape - el0 < E ? a.n_shape - el0 : E);
  const double *Ushape = U + a.coef_start + el0;
  for (int i = threadIdx.x; i < NC * E; i += blockDim.x) {
    const int el = i % E, c = i / E;
    if (el < n_here) Us[el * PITCH + c] = Ushape[(int64_t)c * a.n_shape + el];
  }
  __syncthreads();
  const int per_elem = nf * nqf;
  for (int i = threadIdx.x; i < per_elem * n_here; i += blockDim.x) {
    const int el = i / per_elem, j = i - el * per_elem;
    const int lf = j / nqf, q = j - lf * nqf;
    const int64_t e = a.e_first + el0 + el;
    const int64_t f = a.elem_face[e * DG_MAX_FACES + lf];
    const int side = (a.face_elem[2 * f] == e && a.face_local[2 * f] == lf) ? 0 : 1;
    const int o = side ? a.face_orient[f] : 0;
    const double *pt = phiT + a.face_table[lf][o] + q;
    const double *Ue = Us + el * PITCH;
    double ph[NB];
#pragma unroll
    for (int m = 0; m < NB; ++m) ph[m] = __ldg(pt + m * nqf);
    const int64_t k = f * nqf + q;
#pragma unroll
    for (int v = 0; v < NV; ++v) {
      double sum = 0.0;
#pragma unroll
      for (int m = 0; m < NB; ++m) sum += ph[m] * Ue[v * NB + m];
      trace[(int64_t)(side * NV + v) * n_points + k] = sum;
    }
  }
}

/* The trace path's face kernel's least blocks per multiprocessor
 * (__launch_bounds__): 6, so at most 80 registers (24-72 bytes of spills,
 * ptxas -v sm_90) where ptxas took 96 (5 blocks). H200, µs of the face
 * pass with 5 / 6 / 8 (64 registers, 120-176 bytes of spills): straight
 * tetrahedra at p = 3 89.0-91.6 / 87.6-88.6 / 96.6-96.8, ONERA M6 level 0
 * at p = 3 108.7-110.3 / 104.1 / 115.9-117.9 (docs/PERFORMANCE.md). */
#ifndef RESIDUAL_FACE_TRACE_MIN_BLOCKS
#define RESIDUAL_FACE_TRACE_MIN_BLOCKS 6
#endif
/* residual_face_team_kernel's face_flux from the traces of
 * residual_trace_kernel (trace[(side NV + v) n_trace + k]): one thread
 * per face point of [a.k_first, a.n_points); on a boundary face the outer
 * state from side 0's trace. The same bits. */
template <int DIM>
static __global__ void __launch_bounds__(BACKEND_CUDA_TEAM, RESIDUAL_FACE_TRACE_MIN_BLOCKS)
    residual_face_trace_kernel(const residual_face_args a, const dg_disc_view *__restrict__ view,
                               const double *__restrict__ U, double t,
                               const double *__restrict__ trace, int64_t n_trace,
                               double *__restrict__ face_flux) {
  constexpr int NV = DIM + 2;
  const int64_t k = a.k_first + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= a.n_points) return;
  const int64_t f = k / a.nqf;
  const int q = (int)(k - f * a.nqf);
  team_state L = {{0}}, R = {{0}};
#pragma unroll
  for (int v = 0; v < NV; ++v) L.v[v] = __ldg(trace + (int64_t)v * n_trace + k);
  if (a.face_elem[2 * f + 1] >= 0) {
#pragma unroll
    for (int v = 0; v < NV; ++v) R.v[v] = __ldg(trace + (int64_t)(NV + v) * n_trace + k);
  } else {
    R = team_outer_state(view, a.state, U, f, q, L, t);
  }
  team_face_flux_store<DIM>(a, k, L, R, face_flux);
}

/* term (written) [2 k + side] = residual_timestep_term of face point k in
 * [a.k_first, a.n_points) for each side of its face that has an element
 * (timestep_term_kernel's terms), on a mesh whose elements all have one
 * shape with NB modes: the traces by team_trace (residual_trace's sums in
 * its order) as residual_face_team_kernel forms them, so the same bits as
 * the portable kernel (the element-minor coefficients read with NB and NV
 * unrolled, no loads of the view; 2x faster at NACA level 4, p = 2,
 * docs/PERFORMANCE.md). */
template <int DIM, int NB>
static __global__ void __launch_bounds__(BACKEND_CUDA_TEAM)
    timestep_term_team_kernel(const residual_face_args a, const double *__restrict__ U,
                              double *__restrict__ term) {
  constexpr int NV = DIM + 2;
  const int64_t k = a.k_first + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= a.n_points) return;
  const int64_t f = k / a.nqf;
  const int q = (int)(k - f * a.nqf);
  const double *Ushape = U + a.coef_start;
  const int64_t e0 = a.face_elem[2 * f], e1 = a.face_elem[2 * f + 1];
  double n[DIM];
#pragma unroll
  for (int i = 0; i < DIM; ++i) n[i] = __ldg(a.face_normal + k * DIM + i);
  const double wsJ = __ldg(a.face_wsJ + k);
  double Uq[NV];
  team_trace<NB, NV>(Ushape, a.n_shape, e0 - a.e_first,
                     a.face_phi + a.face_table[a.face_local[2 * f]][0] + q * NB, Uq);
  term[2 * k] = wsJ * physics_max_wave_speed(DIM, a.gamma, Uq, n);
  if (e1 >= 0) {
    team_trace<NB, NV>(
        Ushape, a.n_shape, e1 - a.e_first,
        a.face_phi + a.face_table[a.face_local[2 * f + 1]][a.face_orient[f]] + q * NB, Uq);
    term[2 * k + 1] = wsJ * physics_max_wave_speed(DIM, a.gamma, Uq, n);
  }
}

/* Faces per block of residual_face_gather_kernel: as many whole faces
 * (nqf points each) as BACKEND_CUDA_TEAM threads cover, at least one. */
static inline __host__ __device__ int residual_face_gather_faces(int nqf) {
  return nqf >= BACKEND_CUDA_TEAM ? 1 : BACKEND_CUDA_TEAM / nqf;
}

/* Doubles per element in residual_face_gather_kernel's shared memory. */
static inline __host__ __device__ int residual_face_gather_pitch(int nc) { return nc | 1; }

/* Dynamic shared bytes of residual_face_gather_kernel: the coefficients of
 * both elements of F faces (an odd pitch of doubles per element, so that
 * neighbouring elements fall in different banks), and the two element
 * indices of each. */
static inline size_t residual_face_gather_smem(int dim, int nb, int nqf) {
  const size_t F = (size_t)residual_face_gather_faces(nqf);
  const size_t pitch = (size_t)residual_face_gather_pitch((dim + 2) * nb);
  return F * 2 * pitch * sizeof(double) + F * 2 * sizeof(int64_t);
}

/* residual_face_team_kernel's face_flux, with the traces' coefficients
 * gathered once per face instead of once per face point: a block takes F =
 * residual_face_gather_faces(nqf) whole faces of [a.k_first / nqf,
 * a.n_points / nqf) (the launch's point range starts and ends on faces),
 * its threads load the NV·NB coefficients of both elements of every face
 * into shared memory (independent loads, F·2·NV·NB per block), then one
 * thread per face point forms the traces from shared memory, in
 * team_trace's order and with its operations (the same bits), and the
 * flux as residual_face_team_kernel does. At p = 3 on tetrahedra this is
 * 2·100 coefficient loads per face instead of 15·2·100. Dynamic shared
 * memory: residual_face_gather_smem(DIM, NB, a.nqf) bytes. TS = 1: the
 * time-step terms of timestep_term_team_kernel instead of the flux, into
 * face_flux[2 k + side] (view and t unused), with the same bits. */
template <int DIM, int NB, int TS = 0>
static __global__ void __launch_bounds__(BACKEND_CUDA_TEAM)
    residual_face_gather_kernel(const residual_face_args a, const dg_disc_view *__restrict__ view,
                                const double *__restrict__ U, double t,
                                double *__restrict__ face_flux) {
  constexpr int NV = DIM + 2;
  constexpr int NC = NV * NB; /* coefficients of one element */
  extern __shared__ double gather_shared[];
  const int nqf = a.nqf;
  const int F = residual_face_gather_faces(nqf);
  constexpr int PITCH = NC | 1;                           /* residual_face_gather_pitch(NC) */
  double *Us = gather_shared;                             /* [F][2][PITCH] */
  int64_t *Es = (int64_t *)(Us + (int64_t)F * 2 * PITCH); /* [F][2]: element, local to the shape */
  const int64_t f_begin = a.k_first / nqf, f_end = a.n_points / nqf;
  const int64_t f0 = f_begin + (int64_t)blockIdx.x * F;
  const int n_here = (int)(f_end - f0 < F ? f_end - f0 : F);
  const double *Ushape = U + a.coef_start;
  for (int i = threadIdx.x; i < 2 * F; i += blockDim.x) {
    const int64_t e = i < 2 * n_here ? a.face_elem[2 * f0 + i] : -1;
    Es[i] = e >= 0 ? e - a.e_first : -1;
  }
  __syncthreads();
  /* Thread t loads the coefficients c0, c0 + cstep, ... of the element
   * side s = t % S (S = 2F element slots): its element index stays in a
   * register and its loads are independent of each other, so they are in
   * flight together. */
  {
    const int S = 2 * F;
    const int cstep = S >= (int)blockDim.x ? 1 : (int)blockDim.x / S;
    for (int t = threadIdx.x; t < S * cstep; t += blockDim.x) {
      const int s = t % S, c0 = t / S;
      const int64_t el = Es[s];
      if (el < 0) continue;
      const double *__restrict__ src = Ushape + el;
      double *dst = Us + s * PITCH;
#pragma unroll 4
      for (int c = c0; c < NC; c += cstep) dst[c] = __ldg(src + (int64_t)c * a.n_shape);
    }
  }
  __syncthreads();
  const int j = threadIdx.x / nqf, q = threadIdx.x - j * nqf;
  if (j >= n_here) return;
  const int64_t f = f0 + j;
  const int64_t k = f * nqf + q;
  team_state L = {{0}}, R = {{0}};
  const double *UL = Us + (j * 2) * PITCH, *UR = UL + PITCH;
  team_trace_load<NB, NV>(
      a.face_phi + a.face_table[a.face_local[2 * f]][0] + q * NB, [&](int c) { return UL[c]; },
      L.v);
  if constexpr (TS) { /* residual_timestep_term of each side that has an element */
    double n[DIM];
#pragma unroll
    for (int i = 0; i < DIM; ++i) n[i] = __ldg(a.face_normal + k * DIM + i);
    const double wsJ = __ldg(a.face_wsJ + k);
    face_flux[2 * k] = wsJ * physics_max_wave_speed(DIM, a.gamma, L.v, n);
    if (Es[2 * j + 1] >= 0) {
      team_trace_load<NB, NV>(
          a.face_phi + a.face_table[a.face_local[2 * f + 1]][a.face_orient[f]] + q * NB,
          [&](int c) { return UR[c]; }, R.v);
      face_flux[2 * k + 1] = wsJ * physics_max_wave_speed(DIM, a.gamma, R.v, n);
    }
    return;
  }
  if (Es[2 * j + 1] >= 0) {
    team_trace_load<NB, NV>(
        a.face_phi + a.face_table[a.face_local[2 * f + 1]][a.face_orient[f]] + q * NB,
        [&](int c) { return UR[c]; }, R.v);
  } else {
    R = team_outer_state(view, a.state, U, f, q, L, t);
  }
  team_face_flux_store<DIM>(a, k, L, R, face_flux);
}

/* The flux of state U along the reference directions, times w detJ
 * (phase 1 of the element kernel): G[(a NV + v) stride] = F(U)·n_a, n_a =
 * wdetJ (row a of J⁻¹, invJ), for a < DIM. Each row is the physical flux
 * along a vector (physics_flux_normal's form: ρ u_n, ρ u u_n + p n,
 * (ρE + p) u_n), with the velocity and the pressure formed once, so one
 * division per point instead of the Cartesian tensor's DIM + 1 and its
 * DIM² NV products. Equal to wdetJ J⁻¹ F to rounding, not bitwise. */
template <int DIM>
static __device__ __forceinline__ void
team_reference_flux(double gamma, const double *U, double wdetJ, const double *__restrict__ invJ,
                    double *G, int stride) {
  constexpr int NV = DIM + 2;
  const double rinv = 1.0 / U[0];
  double u[DIM], mu = 0.0;
#pragma unroll
  for (int d = 0; d < DIM; ++d) {
    u[d] = U[1 + d] * rinv;
    mu += U[1 + d] * u[d];
  }
  const double p = (gamma - 1.0) * (U[DIM + 1] - 0.5 * mu), Ep = U[DIM + 1] + p;
#pragma unroll
  for (int a = 0; a < DIM; ++a) {
    double n[DIM], un = 0.0;
#pragma unroll
    for (int j = 0; j < DIM; ++j) {
      n[j] = wdetJ * invJ[a * DIM + j];
      un += u[j] * n[j];
    }
    double *Ga = G + (int64_t)a * NV * stride;
    Ga[0] = U[0] * un;
#pragma unroll
    for (int d = 0; d < DIM; ++d) Ga[(1 + d) * stride] = U[1 + d] * un + p * n[d];
    Ga[(DIM + 1) * stride] = Ep * un;
  }
}

/* The element kernel's least blocks per multiprocessor for ptxas
 * (__launch_bounds__): none (0) in 2D; in 3D RESIDUAL_TEAM_MIN_BLOCKS_3D
 * (6 by default: at most 85 registers, so 80), and 4 for the fused RK stage
 * with 2 modes per thread (its 119-126 registers). Left to itself, ptxas
 * gave the 3D kernels either 96 registers or 115-127 depending on small
 * changes of the code (sharing the face fluxes' storage: 115, 119, 127 at
 * p = 1, 2, 3), one block fewer per multiprocessor: ONERA M6 level 0 at
 * p = 2 took 241 instead of 213 µs per residual (H200). With phase 1's
 * flux along the reference directions (team_reference_flux) the 3D kernels
 * fit 80 registers without spills (ptxas -v, sm_90; 72, 7 blocks, spills
 * 28 bytes); ONERA M6 level 0, µs per back-to-back residual with 5 -> 6:
 * p = 1 94.7 -> 73.7, p = 2 194.1 -> 200.3, p = 3 385.0 -> 374.1 (H200,
 * the most elements per block; docs/PERFORMANCE.md). */
#ifndef RESIDUAL_TEAM_MIN_BLOCKS_3D
#define RESIDUAL_TEAM_MIN_BLOCKS_3D 6
#endif
static constexpr __host__ __device__ int residual_team_min_blocks(int dim, int rk, int mb) {
  return dim == 3 ? (rk && mb == 2 ? 4 : RESIDUAL_TEAM_MIN_BLOCKS_3D) : 0;
}

/* R (written) of the elements [a.e_first + blockIdx.x*E, +E) of one shape
 * (within the first a.n_run) with nf faces; U and face_flux (complete) read. Dynamic shared memory:
 * E * residual_team_doubles_per_elem(dim, nb, a.qc, nf, nqf, a.face_share) doubles.
 * RK = 1 (the fused RK stage, cuda_residual_rk): R written only when not
 * NULL, and then the stage rk of these elements (rk_stage_args): phase 3's
 * sums (MB modes of one element per thread) go to shared memory over Gs,
 * and phase 4, each thread over (element, mode m) pairs, writes rk.Uout of
 * the NV variables with U from Us, reading row m of the inverse mass
 * matrix once (rk_coef_value's
 * operations in its order: the bits of rk_update_coef_kernel). A block
 * reads U and writes Uout of its own elements only, and the face fluxes are
 * complete before the launch, so Uout may alias U (hence U is not
 * __restrict__). */
template <int DIM, int NB, int RK, int MB>
static __global__ void __launch_bounds__(BACKEND_CUDA_TEAM, residual_team_min_blocks(DIM, RK, MB))
    residual_element_team_kernel(const residual_team_args a, int nf, const double *U,
                                 const double *__restrict__ face_flux, double *R,
                                 const rk_stage_args rk) {
  static_assert(NB % MB == 0, "the modes per thread of phase 2 divide the modes");
  constexpr int NV = DIM + 2;
  extern __shared__ double team_shared[];
  const int nq = a.nq_max, qc = a.qc, nqf = a.nqf, E = a.E;
  const int64_t n_shape = a.n_shape;
  const int64_t el0 = (int64_t)blockIdx.x * E; /* first element, local to the shape */
  const int n_here = (int)(a.n_run - el0 < E ? a.n_run - el0 : E);
  const int64_t e_first = a.e_first + el0;
  const double *Ushape = U + a.coef_start + el0;
  double *Rshape = R ? R + a.coef_start + el0 : NULL;

  const int share = a.face_share;
  double *Us = team_shared;                                  /* [NV*NB][E] */
  double *Gs = Us + NV * NB * E;                             /* [qc*DIM*NV][E]: one chunk */
  double *Hs = share ? Gs : Gs + (int64_t)qc * DIM * NV * E; /* [nf*nqf*NV][E] */
  int *Os = (int *)(Gs + residual_team_gh_doubles(DIM, qc, nf, nqf, share) * E); /* [nf][E] */
  /* signed face fluxes: point-variable fastest (coalesced per face) */
  const int per_face = nqf * NV;
  auto load_face_fluxes = [&]() {
    for (int i = threadIdx.x; i < nf * per_face * E; i += blockDim.x) {
      const int r = i % per_face, t = i / per_face;
      const int lf = t % nf, el = t / nf;
      if (el >= n_here) continue;
      const int64_t e = e_first + el;
      const int64_t f = a.elem_face[e * DG_MAX_FACES + lf];
      const int side = (a.face_elem[2 * f] == e && a.face_local[2 * f] == lf) ? 0 : 1;
      const double h = face_flux[f * per_face + r];
      Hs[(lf * per_face + r) * E + el] = side ? h : -h;
      if (r == 0) Os[lf * E + el] = side ? a.face_orient[f] : 0;
    }
  };

  /* phase 0: coefficients (coalesced: element fastest) */
  for (int i = threadIdx.x; i < NV * NB * E; i += blockDim.x) {
    const int el = i % E, vm = i / E;
    if (el < n_here) Us[i] = Ushape[(int64_t)vm * n_shape + el];
  }
  if (!share) load_face_fluxes();
  __syncthreads();

  /* phase 2's task of this thread: (element, MB modes m0 .. m0 + MB − 1),
   * at most one ((NB / MB) E <= blockDim.x, as team_setup sizes E); its sums stay
   * in acc across the chunks. Each value read from shared memory serves
   * the MB modes; every sum has the same terms in the same order whatever
   * MB is (the same bits). */
  const int el2 = threadIdx.x % E, m0 = (threadIdx.x / E) * MB;
  const int active = threadIdx.x < (NB / MB) * E && el2 < n_here;
  const int aff2 = active ? a.elem_affine[e_first + el2] : 0;
  const double *vdphi = aff2 ? a.vdphi_aff : a.vdphi;
  const int nq_e = active ? (aff2 ? a.nq_aff : a.nq) : 0;
  double acc[MB][NV];
#pragma unroll
  for (int i = 0; i < MB; ++i)
#pragma unroll
    for (int v = 0; v < NV; ++v) acc[i][v] = 0.0;
  for (int q0 = 0; q0 < nq; q0 += qc) {
    /* phase 1: flux in reference directions at every (element, volume
     * point q0 .. q0 + qc − 1 of its rule: disc_elem_rule, the affine
     * elements' or the shape's) */
    const int nqc = nq - q0 < qc ? nq - q0 : qc;
    for (int i = threadIdx.x; i < nqc * E; i += blockDim.x) {
      const int el = i % E, qq = i / E, q = q0 + qq;
      if (el >= n_here) continue;
      const int64_t e = e_first + el;
      const int aff = a.elem_affine[e];
      if (q >= (aff ? a.nq_aff : a.nq)) continue;
      const double *vphi = aff ? a.vphi_aff : a.vphi;
      const double *vw = aff ? a.vw_aff : a.vw;
      double Uq[NV];
#pragma unroll
      for (int v = 0; v < NV; ++v) Uq[v] = 0.0;
      const double *phi = vphi + q * NB;
#pragma unroll
      for (int k = 0; k < NB; ++k) {
        const double ph = __ldg(phi + k);
#pragma unroll
        for (int v = 0; v < NV; ++v) Uq[v] += ph * Us[(v * NB + k) * E + el];
      }
      const int64_t mk = aff ? a.metric_offset[e] : a.metric_offset[e] + q;
      const double wdetJ = __ldg(vw + q) * a.metric_detJ[mk];
      team_reference_flux<DIM>(a.gamma, Uq, wdetJ, a.metric_invJ + mk * DIM * DIM,
                               Gs + (qq * DIM * NV) * E + el, E);
    }
    __syncthreads();
    /* phase 2, volume part: this chunk's points, in order */
    const int q_end = nq_e < q0 + qc ? nq_e : q0 + qc;
    for (int q = q0; q < q_end; ++q) {
#pragma unroll
      for (int a = 0; a < DIM; ++a) {
        double dp[MB];
#pragma unroll
        for (int i = 0; i < MB; ++i) dp[i] = __ldg(vdphi + (q * NB + m0 + i) * DIM + a);
        const double *G = Gs + (((q - q0) * DIM + a) * NV) * E + el2;
#pragma unroll
        for (int v = 0; v < NV; ++v) {
          const double g = G[v * E];
#pragma unroll
          for (int i = 0; i < MB; ++i) acc[i][v] += dp[i] * g;
        }
      }
    }
    __syncthreads(); /* Gs is the next chunk's, or Hs */
  }

  /* phase 3: (shared) the face fluxes over Gs, then the face gather */
  if (share) {
    load_face_fluxes();
    __syncthreads();
  }
  if (active) {
    const int el = el2;
    for (int lf = 0; lf < nf; ++lf) {
      const double *fphi = a.face_phi + a.face_table[lf][Os[lf * E + el]];
      for (int q = 0; q < nqf; ++q) {
        double ph[MB];
#pragma unroll
        for (int i = 0; i < MB; ++i) ph[i] = __ldg(fphi + q * NB + m0 + i);
        const double *H = Hs + (lf * per_face + q * NV) * E + el;
#pragma unroll
        for (int v = 0; v < NV; ++v) {
          const double h = H[v * E];
#pragma unroll
          for (int i = 0; i < MB; ++i) acc[i][v] += ph[i] * h;
        }
      }
    }
    if (!RK || Rshape) {
#pragma unroll
      for (int i = 0; i < MB; ++i)
#pragma unroll
        for (int v = 0; v < NV; ++v) Rshape[(int64_t)(v * NB + m0 + i) * n_shape + el] = acc[i][v];
    }
  }
  if (!RK) return;

  /* phase 4 (RK): the stage of every coefficient of the block's elements */
  __syncthreads(); /* Hs read by every thread */
  double *Rs = Gs; /* [NV*NB][E] */
  if (active) {
#pragma unroll
    for (int i = 0; i < MB; ++i)
#pragma unroll
      for (int v = 0; v < NV; ++v) Rs[(v * NB + m0 + i) * E + el2] = acc[i][v];
  }
  __syncthreads();
  /* (element, mode m) pairs, one coefficient row each, over the threads
   * (NB E may exceed blockDim.x): row m of the inverse mass matrix read
   * once for the NV variables (rk_coef_value's operations, in its order) */
  const int64_t n_shape_rk = rk.mass.n_shape;
  for (int t = threadIdx.x; t < NB * E; t += blockDim.x) {
    const int el = t % E, m = t / E;
    if (el >= n_here) continue;
    const int64_t e = e_first + el;
    const double h = rk.dt[e];
    double dU[NV];
    if (rk.mass.elem_affine[e]) {
      const double inv = 1.0 / rk.mass.metric_detJ[rk.mass.metric_offset[e]];
#pragma unroll
      for (int v = 0; v < NV; ++v) dU[v] = __dmul_rn(inv, Rs[(v * NB + m) * E + el]);
    } else {
      const double *Mi = rk.mass.minv + rk.mass.minv_offset[e] + (int64_t)m * NB;
      double row[NB];
#pragma unroll
      for (int j = 0; j < NB; ++j) row[j] = Mi[j];
#pragma unroll
      for (int v = 0; v < NV; ++v) {
        double sum = 0.0;
#pragma unroll
        for (int j = 0; j < NB; ++j) sum = __fma_rn(row[j], Rs[(v * NB + j) * E + el], sum);
        dU[v] = sum;
      }
    }
#pragma unroll
    for (int v = 0; v < NV; ++v) {
      const int64_t idx = a.coef_start + (int64_t)(v * NB + m) * n_shape_rk + el0 + el;
      const double U0v = rk.alpha != 0.0 ? rk.U0[idx] : 0.0;
      rk.Uout[idx] = rk_coef_finish(h, dU[v], Us[(v * NB + m) * E + el], rk.alpha, U0v, rk.b);
    }
  }
}

/* Uout (written; may alias U0 or U) = alpha U0 + b (U + dt M⁻¹ R) for the
 * coefficients of one shape, one thread per coefficient (index local to the
 * shape's block, which is (v*nb + m)*n_shape + el). */
static __global__ void __launch_bounds__(BACKEND_CUDA_TEAM)
    rk_update_coef_kernel(const rk_coef_args a, double alpha, const double *U0, double b,
                          const double *U, const double *dt, const double *R, double *Uout) {
  const int64_t n_shape = a.n_shape;
  const int nb = a.nb;
  const int64_t local = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (local >= n_shape * nb * a.nvar) return;
  const int64_t el = local % n_shape;
  const int vm = (int)(local / n_shape), v = vm / nb, m = vm - v * nb;
  const int64_t e = a.e_first + el, i = a.coef_start + local;
  const double *Rv = R + a.coef_start + (int64_t)v * nb * n_shape + el;
  Uout[i] = rk_coef_value(&a, e, m, Rv, n_shape, U[i], dt[e], alpha, alpha != 0.0 ? U0[i] : 0.0, b);
}

/* The element kernel with one thread per element ("thread" kernel): the
 * element's coefficients and its NV NB sums stay in registers, so nothing
 * goes through shared memory and no barrier is needed; the tables (the
 * same for every element of a warp of one rule) are broadcast loads. A
 * block takes a.E consecutive elements of one shape (a.E threads, at most
 * BACKEND_CUDA_TEAM); the same arguments, sums and order of operations as
 * residual_element_team_kernel<DIM, NB, RK, MB>: phase 1 (U at volume
 * point q, G = team_reference_flux), phase 2 (R_m += ∂φ_m/∂ξ_a G_q,a over
 * the points in order, a inner), phase 3 (R_m += φ_m(face point) (±H)
 * over the faces and their points in order), phase 4 with RK = 1
 * (rk_coef_value's operations), so R and the stage are bit for bit the
 * team kernel's. For NV NB small enough that the NV NB sums fit the
 * registers: with USH = 0 the coefficients too (2D nb <= 10, 3D nb <= 4);
 * with USH = 1 the coefficients in shared memory instead, each thread its
 * own column (element fastest: no bank conflicts, no barrier needed;
 * dynamic shared memory NV NB a.E doubles; 2D nb = 10 and 16, 3D nb =
 * 10). */
template <int DIM, int NB, int RK, int USH>
static __global__ void __launch_bounds__(BACKEND_CUDA_TEAM)
    residual_element_thread_kernel(const residual_team_args a, int nf, const double *U,
                                   const double *__restrict__ face_flux, double *R,
                                   const rk_stage_args rk) {
  constexpr int NV = DIM + 2;
  extern __shared__ double thread_shared[];
  const int64_t el = (int64_t)blockIdx.x * a.E + threadIdx.x; /* local to the shape */
  if ((int)threadIdx.x >= a.E || el >= a.n_run) return;
  const int64_t n_shape = a.n_shape, e = a.e_first + el;
  const double *Ue = U + a.coef_start + el;
  /* the coefficients: Ureg (USH = 0) or the thread's column of thread_shared */
  double Ureg[USH ? 1 : NV * NB];
  double *Ush = thread_shared + threadIdx.x;
  const int T = a.E;
#pragma unroll
  for (int v = 0; v < NV; ++v)
#pragma unroll
    for (int k = 0; k < NB; ++k) {
      const double u = Ue[(int64_t)(v * NB + k) * n_shape];
      if constexpr (USH)
        Ush[(v * NB + k) * T] = u;
      else
        Ureg[v * NB + k] = u;
    }
  auto Uc = [&](int v, int k) -> double {
    if constexpr (USH)
      return Ush[(v * NB + k) * T];
    else
      return Ureg[v * NB + k];
  };
  double acc[NB][NV];
#pragma unroll
  for (int m = 0; m < NB; ++m)
#pragma unroll
    for (int v = 0; v < NV; ++v) acc[m][v] = 0.0;

  /* phases 1 and 2: the volume points of the element's rule, in order */
  const int aff = a.elem_affine[e];
  const double *vphi = aff ? a.vphi_aff : a.vphi, *vw = aff ? a.vw_aff : a.vw;
  const double *vdphi = aff ? a.vdphi_aff : a.vdphi;
  const int nq_e = aff ? a.nq_aff : a.nq;
  const int64_t mo = a.metric_offset[e];
  for (int q = 0; q < nq_e; ++q) {
    double Uq[NV];
#pragma unroll
    for (int v = 0; v < NV; ++v) Uq[v] = 0.0;
    const double *phi = vphi + q * NB;
#pragma unroll
    for (int k = 0; k < NB; ++k) {
      const double ph = __ldg(phi + k);
#pragma unroll
      for (int v = 0; v < NV; ++v) Uq[v] += ph * Uc(v, k);
    }
    const int64_t mk = aff ? mo : mo + q;
    const double wdetJ = __ldg(vw + q) * a.metric_detJ[mk];
    double G[DIM * NV];
    team_reference_flux<DIM>(a.gamma, Uq, wdetJ, a.metric_invJ + mk * DIM * DIM, G, 1);
#pragma unroll
    for (int d = 0; d < DIM; ++d)
#pragma unroll
      for (int m = 0; m < NB; ++m) {
        const double dp = __ldg(vdphi + (q * NB + m) * DIM + d);
#pragma unroll
        for (int v = 0; v < NV; ++v) acc[m][v] += dp * G[d * NV + v];
      }
  }

  /* phase 3: the signed face fluxes, face by face, point by point */
  const int per_face = a.nqf * NV;
  for (int lf = 0; lf < nf; ++lf) {
    const int64_t f = a.elem_face[e * DG_MAX_FACES + lf];
    const int side = (a.face_elem[2 * f] == e && a.face_local[2 * f] == lf) ? 0 : 1;
    const double *fphi = a.face_phi + a.face_table[lf][side ? a.face_orient[f] : 0];
    const double *Hf = face_flux + f * per_face;
    for (int q = 0; q < a.nqf; ++q) {
      double h[NV];
#pragma unroll
      for (int v = 0; v < NV; ++v) {
        const double hv = __ldg(Hf + q * NV + v);
        h[v] = side ? hv : -hv;
      }
#pragma unroll
      for (int m = 0; m < NB; ++m) {
        const double ph = __ldg(fphi + q * NB + m);
#pragma unroll
        for (int v = 0; v < NV; ++v) acc[m][v] += ph * h[v];
      }
    }
  }
  if (!RK || R) {
    double *Re = R + a.coef_start + el;
#pragma unroll
    for (int m = 0; m < NB; ++m)
#pragma unroll
      for (int v = 0; v < NV; ++v) Re[(int64_t)(v * NB + m) * n_shape] = acc[m][v];
  }
  if (!RK) return;

  /* phase 4 (RK): the stage of the element's coefficients */
  const int64_t n_shape_rk = rk.mass.n_shape;
  const double h = rk.dt[e];
  double dU[NB][NV];
  if (rk.mass.elem_affine[e]) {
    const double inv = 1.0 / rk.mass.metric_detJ[rk.mass.metric_offset[e]];
#pragma unroll
    for (int m = 0; m < NB; ++m)
#pragma unroll
      for (int v = 0; v < NV; ++v) dU[m][v] = __dmul_rn(inv, acc[m][v]);
  } else {
    const double *Mi = rk.mass.minv + rk.mass.minv_offset[e];
#pragma unroll
    for (int m = 0; m < NB; ++m) {
      double row[NB];
#pragma unroll
      for (int j = 0; j < NB; ++j) row[j] = Mi[m * NB + j];
#pragma unroll
      for (int v = 0; v < NV; ++v) {
        double sum = 0.0;
#pragma unroll
        for (int j = 0; j < NB; ++j) sum = __fma_rn(row[j], acc[j][v], sum);
        dU[m][v] = sum;
      }
    }
  }
#pragma unroll
  for (int m = 0; m < NB; ++m)
#pragma unroll
    for (int v = 0; v < NV; ++v) {
      const int64_t idx = a.coef_start + (int64_t)(v * NB + m) * n_shape_rk + el;
      const double U0v = rk.alpha != 0.0 ? rk.U0[idx] : 0.0;
      rk.Uout[idx] = rk_coef_finish(h, dU[m][v], Uc(v, m), rk.alpha, U0v, rk.b);
    }
}
