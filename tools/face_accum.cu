/* Face-accumulation study: gather vs atomics vs face colouring (face_accum.h,
 * docs/PERFORMANCE.md "Face accumulation"). GATHER runs the backend's own
 * tuned kernels (residual_team.cuh, same launch shapes as backend_cuda.cu);
 * ATOMIC and COLOR share one volume kernel (the team element kernel without
 * its face gather) and one face kernel (template flag: atomicAdd or plain
 * +=), so they differ only in how the face terms reach R. */
#include "face_accum.h"

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "dg/residual_ops.h"
#include "kernels/cuda_check.cuh"
#include "kernels/gpu_alloc.cuh"
#include "kernels/residual_team.cuh"

/* Threads per block of the study's face kernel (a multiple of 32). */
#define FACE_ACCUM_BLOCK 128
/* Device time of back-to-back residuals before timing (clocks leave idle). */
#define FACE_ACCUM_WARMUP_MS 100.0f

/* ------------------------------------------------------------ kernels */

/* R (written) = volume terms of the elements [elem_start[s] + blockIdx.x*E,
 * +E) of shape s; U read. The team element kernel of residual_team.cuh
 * without the face gather (phases 0-2, same data layout and sum order).
 * Dynamic shared memory: E * volume_doubles_per_elem(...) doubles. */
template <int DIM, int NB>
static __global__ void __launch_bounds__(BACKEND_CUDA_TEAM)
    face_accum_volume_kernel(const __grid_constant__ dg_disc_view view, int s, int E,
                             const double *__restrict__ U, double *__restrict__ R) {
  constexpr int NV = DIM + 2;
  extern __shared__ double volume_shared[];
  const int nq = view.nq[s];
  const int64_t n_shape = view.n_shape[s];
  const int64_t el0 = (int64_t)blockIdx.x * E;
  const int n_here = (int)(n_shape - el0 < E ? n_shape - el0 : E);
  const int64_t e_first = view.elem_start[s] + el0;
  const double *Ushape = U + view.coef_start[s] + el0;
  double *Rshape = R + view.coef_start[s] + el0;
  double *Us = volume_shared;    /* [NV*NB][E] */
  double *Gs = Us + NV * NB * E; /* [nq*DIM*NV][E] */

  for (int i = threadIdx.x; i < NV * NB * E; i += blockDim.x) {
    const int el = i % E, vm = i / E;
    if (el < n_here) Us[i] = Ushape[(int64_t)vm * n_shape + el];
  }
  __syncthreads();

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
#pragma unroll
    for (int v = 0; v < NV; ++v) Rshape[(int64_t)(v * NB + m) * n_shape + el] = acc[v];
  }
}

/* R (incremented) += face terms of n faces: face list[i] (list NULL: face
 * i), i in [blockIdx.x*F, +F). U read. Phase 1, one thread per face point:
 * H·n wsJ (residual_point_flux, as the backend's face kernel) into shared
 * memory. Phase 2, one thread per (face, side, mode), face fastest: the nvar
 * sums Σ_q φ_m(q) H_q,v, subtracted from side 0's element and added to side
 * 1's, with atomicAdd (ATOMIC) or plain += (the caller guarantees that no
 * two faces of the launch share an element). */
template <int DIM, bool ATOMIC>
static __global__ void __launch_bounds__(FACE_ACCUM_BLOCK)
    face_accum_face_kernel(const __grid_constant__ dg_disc_view view,
                           const int64_t *__restrict__ list, int64_t n, int F, int nb_max,
                           const double *U, double t, double *R) {
  constexpr int NV = DIM + 2;
  __shared__ double Hs[FACE_ACCUM_BLOCK * NV]; /* [face][q][v] */
  const int nqf = view.nqf;
  const int64_t i0 = (int64_t)blockIdx.x * F;
  const int n_here = (int)(n - i0 < F ? n - i0 : F);
  for (int k = threadIdx.x; k < n_here * nqf; k += blockDim.x) {
    const int fl = k / nqf, q = k - fl * nqf;
    const int64_t f = list ? list[i0 + fl] : i0 + fl;
    double H[DG_MAX_NVAR];
    residual_point_flux(&view, NULL, f, q, U, t, H);
    const double wsJ = view.face_wsJ[f * nqf + q];
#pragma unroll
    for (int v = 0; v < NV; ++v) Hs[k * NV + v] = H[v] * wsJ;
  }
  __syncthreads();
  for (int k = threadIdx.x; k < n_here * 2 * nb_max; k += blockDim.x) {
    const int fl = k % n_here, rest = k / n_here, side = rest & 1, m = rest >> 1;
    const int64_t f = list ? list[i0 + fl] : i0 + fl;
    const int64_t e = view.face_elem[2 * f + side];
    if (e < 0) continue;
    const int s = view.elem_shape[e], nb = view.nb[s];
    if (m >= nb) continue;
    const int lf = view.face_local[2 * f + side], o = side ? view.face_orient[f] : 0;
    const double *phi = view.face_phi + view.face_table[s][lf][o] + m;
    double acc[NV];
#pragma unroll
    for (int v = 0; v < NV; ++v) acc[v] = 0.0;
    for (int q = 0; q < nqf; ++q) {
      const double ph = __ldg(phi + q * nb);
      const double *H = Hs + (fl * nqf + q) * NV;
#pragma unroll
      for (int v = 0; v < NV; ++v) acc[v] += ph * H[v];
    }
    const double sign = side ? 1.0 : -1.0;
    const int64_t base = disc_coef_index(&view, e, 0, m), stride = (int64_t)nb * view.n_shape[s];
#pragma unroll
    for (int v = 0; v < NV; ++v) {
      if (ATOMIC)
        atomicAdd(R + base + v * stride, sign * acc[v]);
      else
        R[base + v * stride] += sign * acc[v];
    }
  }
}

/* ------------------------------------------------------------ set-up */

typedef void (*team_fn)(const residual_team_args, int, const double *, const double *, double *,
                        const rk_stage_args);
typedef void (*volume_fn)(const dg_disc_view, int, int, const double *, double *);
typedef void (*face_fn)(const dg_disc_view, const int64_t *, int64_t, int, int, const double *,
                        double, double *);

/* The team and volume kernels for (dim, nb); both NULL when not instantiated. */
static void kernels_for(int dim, int nb, team_fn *team, volume_fn *volume) {
  *team = NULL;
  *volume = NULL;
#define FACE_ACCUM_CASE(DIM, NB)                                                                   \
  if (dim == DIM && nb == NB) {                                                                    \
    *team = residual_element_team_kernel<DIM, NB, 0, 1>;                                           \
    *volume = face_accum_volume_kernel<DIM, NB>;                                                   \
  }
  if (dim == 2) {
    FACE_ACCUM_CASE(2, 1)
    FACE_ACCUM_CASE(2, 3)
    FACE_ACCUM_CASE(2, 4)
    FACE_ACCUM_CASE(2, 6)
    FACE_ACCUM_CASE(2, 9)
    FACE_ACCUM_CASE(2, 10)
    FACE_ACCUM_CASE(2, 16)
  } else if (dim == 3) {
    FACE_ACCUM_CASE(3, 1)
    FACE_ACCUM_CASE(3, 4)
    FACE_ACCUM_CASE(3, 10)
    FACE_ACCUM_CASE(3, 20)
  }
#undef FACE_ACCUM_CASE
}

struct face_accum_ctx {
  dg_disc_view view; /* device pointers (the backend context's) */
  double *d_face_flux;
  int64_t *d_color_faces; /* faces of colour c: [color_offset[c], color_offset[c+1]) */
  int64_t *color_offset;  /* host, [n_colors + 1] */
  int n_colors, nb_max, faces_per_block;
  team_fn team[DG_NUM_SHAPES];
  volume_fn volume[DG_NUM_SHAPES];
  int team_elems[DG_NUM_SHAPES], volume_elems[DG_NUM_SHAPES];
  size_t team_smem[DG_NUM_SHAPES], volume_smem[DG_NUM_SHAPES];
  residual_team_args team_args[DG_NUM_SHAPES]; /* the backend's team kernel parameters */
  dg_disc_view *d_view;                        /* device copy of view (the face point kernel) */
  face_fn face_atomic, face_plain;
};

extern "C" const char *face_accum_variant_name(face_accum_variant variant) {
  switch (variant) {
  case FACE_ACCUM_GATHER: return "gather";
  case FACE_ACCUM_ATOMIC: return "atomic";
  case FACE_ACCUM_COLOR: return "color";
  case FACE_ACCUM_COLOR_ATOMIC: return "c-atomic";
  case FACE_ACCUM_VOLUME: return "volume";
  case FACE_ACCUM_GATHER_FACES: return "g-faces";
  case FACE_ACCUM_ATOMIC_FACES: return "a-faces";
  default: return "?";
  }
}

extern "C" dg_status face_accum_color_faces(int64_t n_elems, int64_t n_faces,
                                            const int64_t *face_elem, int32_t *face_color,
                                            int *n_colors) {
  DG_CHECK(face_elem && face_color && n_colors && n_elems >= 0 && n_faces >= 0, DG_ERR_ARG,
           "face colouring: NULL argument or negative size");
  uint32_t *used = NULL;
  DG_CALL(DG_CALLOC(used, n_elems > 0 ? n_elems : 1));
  int colors = 0;
  dg_status status = DG_SUCCESS;
  for (int64_t f = 0; f < n_faces; ++f) {
    const int64_t e0 = face_elem[2 * f], e1 = face_elem[2 * f + 1];
    if (e0 < 0 || e0 >= n_elems || e1 >= n_elems) {
      status = dg_error_set(DG_ERR_MESH, __FILE__, __LINE__, __func__,
                            "face colouring: face %lld joins elements %lld and %lld, outside "
                            "0..%lld",
                            (long long)f, (long long)e0, (long long)e1, (long long)n_elems - 1);
      break;
    }
    const uint32_t busy = used[e0] | (e1 >= 0 ? used[e1] : 0u);
    int c = 0;
    while (c < 32 && (busy >> c) & 1u) ++c;
    if (c >= 32) {
      status = dg_error_set(DG_ERR_INTERNAL, __FILE__, __LINE__, __func__,
                            "face colouring: face %lld needs more than 32 colours", (long long)f);
      break;
    }
    face_color[f] = c;
    used[e0] |= 1u << c;
    if (e1 >= 0) used[e1] |= 1u << c;
    if (c + 1 > colors) colors = c + 1;
  }
  free(used);
  *n_colors = colors;
  return status;
}

extern "C" dg_status face_accum_face_perm_by_color(const dg_topology *topo, int64_t *perm) {
  DG_CHECK(topo && perm, DG_ERR_ARG, "face_accum_face_perm_by_color: NULL argument");
  const int64_t nf = topo->n_faces;
  int32_t *color = NULL;
  int n_colors = 0;
  dg_status st = DG_SUCCESS;
  DG_CALL_GOTO(st, done, DG_CALLOC(color, nf > 0 ? nf : 1));
  DG_CALL_GOTO(st, done,
               face_accum_color_faces(topo->n_elems, nf, topo->face_elem, color, &n_colors));
  for (int g = -1; g < topo->n_groups; ++g) {
    const int64_t lo = g < 0 ? 0 : topo->group_face_offset[g];
    const int64_t hi = g < 0 ? topo->n_interior : topo->group_face_offset[g + 1];
    int64_t next = lo;
    for (int c = 0; c < n_colors; ++c)
      for (int64_t f = lo; f < hi; ++f)
        if (color[f] == c) perm[next++] = f;
  }
done:
  free(color);
  return st;
}

extern "C" dg_status face_accum_face_perm_old_order(const dg_topology *old_topo,
                                                    const dg_topology *new_topo,
                                                    const int64_t *elem_perm, int64_t *perm) {
  DG_CHECK(old_topo && new_topo && elem_perm && perm, DG_ERR_ARG,
           "face_accum_face_perm_old_order: NULL argument");
  DG_CHECK(old_topo->n_faces == new_topo->n_faces && old_topo->n_elems == new_topo->n_elems,
           DG_ERR_ARG, "face_accum_face_perm_old_order: the topologies differ (%lld / %lld faces)",
           (long long)old_topo->n_faces, (long long)new_topo->n_faces);
  const int64_t nf = new_topo->n_faces;
  for (int64_t i = 0; i < nf; ++i) perm[i] = -1;
  for (int64_t f = 0; f < nf; ++f) {
    const int64_t e = elem_perm[new_topo->face_elem[2 * f]];
    const int lf = new_topo->face_local[2 * f];
    const int64_t g = old_topo->elem_face[e * DG_MAX_FACES + lf];
    DG_CHECK(g >= 0 && g < nf && perm[g] < 0, DG_ERR_INTERNAL,
             "face_accum_face_perm_old_order: face %lld has no single old face (%lld)",
             (long long)f, (long long)g);
    perm[g] = f;
  }
  return DG_SUCCESS;
}

extern "C" void face_accum_destroy(face_accum_ctx *ctx) {
  if (!ctx) return;
  gpu_free(ctx->d_face_flux);
  gpu_free(ctx->d_view);
  gpu_free(ctx->d_color_faces);
  free(ctx->color_offset);
  free(ctx);
}

extern "C" int face_accum_n_colors(const face_accum_ctx *ctx) { return ctx ? ctx->n_colors : 0; }

/* Elements per block (BACKEND_CUDA_TEAM / nb, reduced until the block's
 * shared memory fits) and bytes, as backend_cuda.cu's team_setup does. */
static int team_elems_for(int nb, int64_t per_elem, size_t *bytes) {
  int elems = BACKEND_CUDA_TEAM / nb;
  if (elems < 1) elems = 1;
  while (elems > 1 && (int64_t)elems * per_elem * 8 > RESIDUAL_TEAM_MAX_SMEM) --elems;
  *bytes = (size_t)elems * (size_t)per_elem * sizeof(double);
  return elems;
}

/* Face colours of the disc's faces and their per-colour lists (ascending
 * face index), uploaded to the device. */
static dg_status setup_colors(const dg_disc *host, face_accum_ctx *ctx) {
  const dg_disc_view *h = &host->view;
  const int64_t nf = h->n_faces;
  int32_t *color = NULL;
  int64_t *list = NULL, *fill = NULL;
  dg_status st = DG_SUCCESS;
  DG_CALL_GOTO(st, done, DG_CALLOC(color, nf > 0 ? nf : 1));
  DG_CALL_GOTO(st, done,
               face_accum_color_faces(h->n_elems, nf, h->face_elem, color, &ctx->n_colors));
  DG_CALL_GOTO(st, done, DG_CALLOC(ctx->color_offset, ctx->n_colors + 1));
  DG_CALL_GOTO(st, done, DG_CALLOC(fill, ctx->n_colors + 1));
  DG_CALL_GOTO(st, done, DG_CALLOC(list, nf > 0 ? nf : 1));
  for (int64_t f = 0; f < nf; ++f) ctx->color_offset[color[f] + 1]++;
  for (int c = 0; c < ctx->n_colors; ++c) ctx->color_offset[c + 1] += ctx->color_offset[c];
  for (int c = 0; c < ctx->n_colors; ++c) fill[c] = ctx->color_offset[c];
  for (int64_t f = 0; f < nf; ++f) list[fill[color[f]]++] = f;
  if (gpu_malloc((void **)&ctx->d_color_faces, (size_t)(nf > 0 ? nf : 1) * sizeof(int64_t),
                 GPU_MEM_WORK) != cudaSuccess ||
      cudaMemcpy(ctx->d_color_faces, list, (size_t)nf * sizeof(int64_t), cudaMemcpyHostToDevice) !=
          cudaSuccess)
    st = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__,
                      "face colour lists (%lld faces): %s", (long long)nf,
                      cudaGetErrorString(cudaGetLastError()));
done:
  free(color);
  free(list);
  free(fill);
  return st;
}

static dg_status setup_kernels(face_accum_ctx *ctx) {
  const dg_disc_view *d = &ctx->view;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (d->n_shape[s] <= 0) continue;
    const int nf = shape_n_faces((dg_shape)s), nv = d->nvar;
    kernels_for(d->dim, d->nb[s], &ctx->team[s], &ctx->volume[s]);
    DG_CHECK(ctx->team[s] && ctx->volume[s], DG_ERR_UNSUPPORTED,
             "face-accumulation study: no team kernel for dim %d, %d modes (shape %d)", d->dim,
             d->nb[s], s);
    const int64_t team_per =
        residual_team_doubles_per_elem(d->dim, d->nb[s], d->nq[s], nf, d->nqf, 0);
    const int64_t volume_per = (int64_t)nv * d->nb[s] + (int64_t)d->nq[s] * d->dim * nv;
    ctx->team_elems[s] = team_elems_for(d->nb[s], team_per, &ctx->team_smem[s]);
    ctx->volume_elems[s] = team_elems_for(d->nb[s], volume_per, &ctx->volume_smem[s]);
    DG_CHECK(ctx->team_smem[s] <= RESIDUAL_TEAM_MAX_SMEM, DG_ERR_UNSUPPORTED,
             "face-accumulation study: a team block of shape %d needs %zu bytes of shared memory "
             "(at most %d)",
             s, ctx->team_smem[s], RESIDUAL_TEAM_MAX_SMEM);
    DG_CHECK(residual_team_args_fill(d, s, ctx->team_elems[s], d->nq[s], 0, &ctx->team_args[s]),
             DG_ERR_INTERNAL,
             "face-accumulation study: a face table offset of shape %d does not "
             "fit an int",
             s);
    if (ctx->team_smem[s] > 48 * 1024)
      DG_CALL_CUDA(cudaFuncSetAttribute((const void *)ctx->team[s],
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)ctx->team_smem[s]));
    if (ctx->volume_smem[s] > 48 * 1024)
      DG_CALL_CUDA(cudaFuncSetAttribute((const void *)ctx->volume[s],
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)ctx->volume_smem[s]));
    if (d->nb[s] > ctx->nb_max) ctx->nb_max = d->nb[s];
  }
  DG_CALL_CUDA(gpu_malloc((void **)&ctx->d_view, sizeof(dg_disc_view), GPU_MEM_GEOMETRY));
  DG_CALL_CUDA(cudaMemcpy(ctx->d_view, d, sizeof(dg_disc_view), cudaMemcpyHostToDevice));
  ctx->faces_per_block = FACE_ACCUM_BLOCK / d->nqf > 0 ? FACE_ACCUM_BLOCK / d->nqf : 1;
  DG_CHECK(d->nqf <= FACE_ACCUM_BLOCK, DG_ERR_UNSUPPORTED,
           "face-accumulation study: %d points per face (at most %d)", d->nqf, FACE_ACCUM_BLOCK);
  if (d->dim == 2) {
    ctx->face_atomic = face_accum_face_kernel<2, true>;
    ctx->face_plain = face_accum_face_kernel<2, false>;
  } else {
    ctx->face_atomic = face_accum_face_kernel<3, true>;
    ctx->face_plain = face_accum_face_kernel<3, false>;
  }
  return DG_SUCCESS;
}

extern "C" dg_status face_accum_create(const dg_disc *host, const dg_disc_view *device,
                                       face_accum_ctx **out) {
  DG_CHECK(host && device && out, DG_ERR_ARG, "face_accum_create: NULL argument");
  *out = NULL;
  DG_CHECK(device->av == DG_AV_OFF, DG_ERR_UNSUPPORTED,
           "face-accumulation study: artificial viscosity is on (the study has no viscous terms)");
  DG_CHECK(host->view.n_faces == device->n_faces && host->view.n_elems == device->n_elems,
           DG_ERR_ARG, "face_accum_create: host and device views differ in size");
  face_accum_ctx *ctx = (face_accum_ctx *)calloc(1, sizeof *ctx);
  DG_CHECK(ctx != NULL, DG_ERR_MEMORY, "face_accum_create: out of host memory");
  ctx->view = *device;
  const size_t flux_bytes = (size_t)(device->n_faces * device->nqf * device->nvar) * sizeof(double);
  dg_status st = DG_SUCCESS;
  if (gpu_malloc((void **)&ctx->d_face_flux, flux_bytes > 0 ? flux_bytes : 8, GPU_MEM_WORK) !=
      cudaSuccess)
    st = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "face flux (%zu bytes): %s",
                      flux_bytes, cudaGetErrorString(cudaGetLastError()));
  if (st == DG_SUCCESS) st = setup_colors(host, ctx);
  if (st == DG_SUCCESS) st = setup_kernels(ctx);
  if (st != DG_SUCCESS) {
    dg_error_trace(__FILE__, __LINE__, __func__);
    face_accum_destroy(ctx);
    return st;
  }
  *out = ctx;
  return DG_SUCCESS;
}

/* ------------------------------------------------------------ residuals */

static dg_status launch_volume(face_accum_ctx *ctx, const double *U, double *R) {
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (!ctx->volume[s]) continue;
    const int E = ctx->volume_elems[s];
    const int64_t blocks = (ctx->view.n_shape[s] + E - 1) / E;
    ctx->volume[s]<<<(unsigned)blocks, BACKEND_CUDA_TEAM, ctx->volume_smem[s]>>>(ctx->view, s, E, U,
                                                                                 R);
    DG_CHECK_LAUNCH("face_accum_volume_kernel");
  }
  return DG_SUCCESS;
}

static dg_status launch_faces(face_accum_ctx *ctx, face_fn kernel, const int64_t *list, int64_t n,
                              const double *U, double t, double *R) {
  if (n <= 0) return DG_SUCCESS;
  const int F = ctx->faces_per_block;
  const int64_t blocks = (n + F - 1) / F;
  kernel<<<(unsigned)blocks, FACE_ACCUM_BLOCK>>>(ctx->view, list, n, F, ctx->nb_max, U, t, R);
  DG_CHECK_LAUNCH("face_accum_face_kernel");
  return DG_SUCCESS;
}

extern "C" dg_status face_accum_residual(face_accum_ctx *ctx, face_accum_variant variant,
                                         const double *U, double t, double *R) {
  DG_CHECK(ctx && U && R, DG_ERR_ARG, "face_accum_residual: NULL argument");
  switch (variant) {
  case FACE_ACCUM_GATHER:
  case FACE_ACCUM_GATHER_FACES: {
    const int64_t n_points = ctx->view.n_faces * ctx->view.nqf;
    if (n_points > 0) {
      const int64_t blocks = (n_points + BACKEND_CUDA_TEAM - 1) / BACKEND_CUDA_TEAM;
      /* state NULL: Γ = 0, nothing held (the study's discretisations) */
      residual_face_point_kernel<<<(unsigned)blocks, BACKEND_CUDA_TEAM>>>(
          ctx->d_view, NULL, 0, n_points, U, t, ctx->d_face_flux);
      DG_CHECK_LAUNCH("residual_face_point_kernel");
    }
    if (variant == FACE_ACCUM_GATHER_FACES) return DG_SUCCESS;
    for (int s = 0; s < DG_NUM_SHAPES; ++s) {
      if (!ctx->team[s]) continue;
      const int E = ctx->team_elems[s];
      const int64_t blocks = (ctx->view.n_shape[s] + E - 1) / E;
      ctx->team[s]<<<(unsigned)blocks, BACKEND_CUDA_TEAM, ctx->team_smem[s]>>>(
          ctx->team_args[s], shape_n_faces((dg_shape)s), U, ctx->d_face_flux, R, rk_stage_args{});
      DG_CHECK_LAUNCH("residual_element_team_kernel");
    }
    return DG_SUCCESS;
  }
  case FACE_ACCUM_ATOMIC:
    DG_CALL(launch_volume(ctx, U, R));
    DG_CALL(launch_faces(ctx, ctx->face_atomic, NULL, ctx->view.n_faces, U, t, R));
    return DG_SUCCESS;
  case FACE_ACCUM_COLOR:
  case FACE_ACCUM_COLOR_ATOMIC:
    DG_CALL(launch_volume(ctx, U, R));
    for (int c = 0; c < ctx->n_colors; ++c)
      DG_CALL(launch_faces(ctx, variant == FACE_ACCUM_COLOR ? ctx->face_plain : ctx->face_atomic,
                           ctx->d_color_faces + ctx->color_offset[c],
                           ctx->color_offset[c + 1] - ctx->color_offset[c], U, t, R));
    return DG_SUCCESS;
  case FACE_ACCUM_VOLUME: DG_CALL(launch_volume(ctx, U, R)); return DG_SUCCESS;
  case FACE_ACCUM_ATOMIC_FACES:
    DG_CALL(launch_faces(ctx, ctx->face_atomic, NULL, ctx->view.n_faces, U, t, R));
    return DG_SUCCESS;
  default: DG_CHECK(0, DG_ERR_ARG, "face_accum_residual: unknown variant %d", (int)variant);
  }
  return DG_SUCCESS;
}

extern "C" dg_status face_accum_time(face_accum_ctx *ctx, face_accum_variant variant,
                                     const double *U, double t, double *R, int n_timed,
                                     double *us) {
  DG_CHECK(ctx && U && R && us && n_timed >= 1, DG_ERR_ARG,
           "face_accum_time: NULL argument or n_timed < 1 (got %d)", n_timed);
  cudaEvent_t events[2] = {NULL, NULL};
  dg_status st = DG_SUCCESS;
  for (int k = 0; k < 2 && st == DG_SUCCESS; ++k)
    if (cudaEventCreate(&events[k]) != cudaSuccess)
      st = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "cudaEventCreate: %s",
                        cudaGetErrorString(cudaGetLastError()));
  float busy_ms = 0.0f;
  for (int batch = 0; batch < 1000 && st == DG_SUCCESS && busy_ms < FACE_ACCUM_WARMUP_MS; ++batch) {
    float ms = 0.0f;
    cudaError_t error = cudaEventRecord(events[0], 0);
    for (int i = 0; i < 16 && st == DG_SUCCESS; ++i)
      st = face_accum_residual(ctx, variant, U, t, R);
    if (error == cudaSuccess) error = cudaEventRecord(events[1], 0);
    if (error == cudaSuccess) error = cudaEventSynchronize(events[1]);
    if (error == cudaSuccess) error = cudaEventElapsedTime(&ms, events[0], events[1]);
    if (st == DG_SUCCESS && error != cudaSuccess)
      st = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "warm-up timing: %s",
                        cudaGetErrorString(error));
    busy_ms += ms;
  }
  for (int i = 0; i < n_timed && st == DG_SUCCESS; ++i) {
    float ms = 0.0f;
    cudaError_t error = cudaEventRecord(events[0], 0);
    st = face_accum_residual(ctx, variant, U, t, R);
    if (error == cudaSuccess) error = cudaEventRecord(events[1], 0);
    if (error == cudaSuccess) error = cudaEventSynchronize(events[1]);
    if (error == cudaSuccess) error = cudaEventElapsedTime(&ms, events[0], events[1]);
    if (st == DG_SUCCESS && error != cudaSuccess)
      st = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "event timing: %s",
                        cudaGetErrorString(error));
    us[i] = 1e3 * (double)ms;
  }
  for (int k = 0; k < 2; ++k)
    if (events[k]) cudaEventDestroy(events[k]);
  return st;
}
