/* The CPU backend: OpenMP loops over faces and elements that call the DG_HD
 * operations of src/dg/residual_ops.h. Vectors are plain host arrays. */
#include "dg/backend_cpu.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dg/av_ops.h"
#include "dg/limiter.h"
#include "dg/residual_ops.h"
#include "dg/residual_plan.h"

#ifdef COLORDG_HAVE_OPENMP
#define BACKEND_CPU_PARALLEL_FOR _Pragma("omp parallel for schedule(static)")
#else
#define BACKEND_CPU_PARALLEL_FOR
#endif

/* The BLAS-1 reductions sum fixed chunks of BACKEND_CPU_CHUNK entries in
 * index order, then the chunk sums in chunk order: the same bits for any
 * thread count. */
#define BACKEND_CPU_CHUNK 1024
#define BACKEND_CPU_CHUNKS(n) (((n) + BACKEND_CPU_CHUNK - 1) / BACKEND_CPU_CHUNK)

struct dg_backend_ctx {
  dg_disc_view view;     /* host arrays of the dg_disc given to create (not owned) */
  dg_disc_state state;   /* run-time state: circulation (set_circulation), held ε (eps_hold) */
  dg_residual_plan plan; /* the residual's passes (src/dg/residual_plan.h) */
  double *face_flux;     /* [n_faces * nqf * nvar] H·n wsJ per face point */
  double *zero_flux;     /* same size, all zero: volume-only residual_element (atomic reference) */
  double *partial;       /* per-element / per-face partial sums (norms, forces) */
  double *chunk_sum; /* [BACKEND_CPU_CHUNKS(n_coefs)] per-chunk results of the BLAS-1 reductions */
  int64_t n_face_flux;
  /* artificial viscosity scratch (src/dg/av_ops.h), allocated when view.av is on */
  double *eps_elem;  /* [n_elems] ε_e of the sensor */
  double *eps_hold;  /* [n_elems] held ε (state.av_eps_hold), -1 = not held */
  double *eps_vert;  /* [n_verts] vertex means (continuous ε) */
  double *eps_c;     /* [n_elems * DG_AV_NLIN] ε coefficients */
  double *G;         /* [dim * n_coefs] projected gradient */
  double *face_jump; /* [n_faces * nqf * nvar] δU wsJ */
  /* partitions: the halo of the discretisation and its two exchanges, the
   * ghosts' state coefficients (HALO_START/FINISH) and their ε coefficients
   * (HALO_EPS); NULL exchanges: one process */
  const dg_halo *halo;
  /* with ghosts, the reductions cover owned entries only: the chunks
   * (start, length) of the owned entries of a state / element vector, in
   * index order (n_*_chunks = 0 without ghosts: the plain chunks of the
   * whole vector) */
  int64_t n_state_chunks, n_elem_chunks;
  int64_t *state_chunk, *elem_chunk; /* [2 * n] start, length */
  dg_exchange *ex_U, *ex_eps;
  double *send_U, *recv_U, *send_eps, *recv_eps;
};

static int64_t backend_cpu_vec_size(const dg_backend_ctx *ctx, dg_vec_kind kind) {
  return kind == DG_VEC_STATE ? ctx->view.n_coefs : ctx->view.n_elems;
}

static void backend_cpu_destroy(dg_backend_ctx *ctx) {
  if (!ctx) return;
  free(ctx->face_flux);
  free(ctx->zero_flux);
  free(ctx->partial);
  free(ctx->chunk_sum);
  free(ctx->eps_elem);
  free(ctx->eps_hold);
  free(ctx->eps_vert);
  free(ctx->eps_c);
  free(ctx->G);
  free(ctx->face_jump);
  free(ctx->state_chunk);
  free(ctx->elem_chunk);
  dg_exchange_destroy(ctx->ex_U);
  dg_exchange_destroy(ctx->ex_eps);
  free(ctx->send_U);
  free(ctx->recv_U);
  free(ctx->send_eps);
  free(ctx->recv_eps);
  free(ctx);
}

/* The chunks of the owned entries (see the struct) of a state
 * (state = 1) or element vector; count only when chunk is NULL. */
static int64_t backend_cpu_owned_chunks(const dg_disc_view *d, int state, int64_t *chunk) {
  int64_t n = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int64_t rows = state ? (int64_t)d->nvar * d->nb[s] : 1;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t start = state ? d->coef_start[s] + r * d->n_shape[s] : d->elem_start[s];
      for (int64_t o = 0; o < d->n_owned[s]; o += BACKEND_CPU_CHUNK) {
        if (chunk) {
          chunk[2 * n] = start + o;
          chunk[2 * n + 1] =
              d->n_owned[s] - o < BACKEND_CPU_CHUNK ? d->n_owned[s] - o : BACKEND_CPU_CHUNK;
        }
        ++n;
      }
    }
  }
  return n;
}

/* Doubles of element e's state coefficients (nvar x nb). */
static int64_t backend_cpu_elem_doubles(const dg_disc_view *d, int64_t e) {
  return (int64_t)d->nvar * d->nb[d->elem_shape[e]];
}

/* The exchanges of a partitioned discretisation (nothing for one process):
 * per neighbour, the state coefficients of the listed elements, and their
 * DG_AV_NLIN ε coefficients. */
static dg_status backend_cpu_halo_create(dg_backend_ctx *ctx, const dg_halo *h) {
  ctx->halo = h;
  const dg_disc_view *dv = &ctx->view;
  int ghosts = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) ghosts |= dv->n_owned[s] < dv->n_shape[s];
  if (ghosts) {
    ctx->n_state_chunks = backend_cpu_owned_chunks(dv, 1, NULL);
    ctx->n_elem_chunks = backend_cpu_owned_chunks(dv, 0, NULL);
    DG_CALL(DG_CALLOC(ctx->state_chunk, 2 * ctx->n_state_chunks + 2));
    DG_CALL(DG_CALLOC(ctx->elem_chunk, 2 * ctx->n_elem_chunks + 2));
    backend_cpu_owned_chunks(dv, 1, ctx->state_chunk);
    backend_cpu_owned_chunks(dv, 0, ctx->elem_chunk);
    const int64_t most =
        ctx->n_state_chunks > ctx->n_elem_chunks ? ctx->n_state_chunks : ctx->n_elem_chunks;
    free(ctx->chunk_sum);
    ctx->chunk_sum = NULL;
    DG_CALL(DG_CALLOC(ctx->chunk_sum, most + 1));
  }
  if (!h || !h->comm || dg_comm_size(h->comm) == 1) return DG_SUCCESS;
  const dg_disc_view *d = &ctx->view;
  const int n = h->n_neighbors;
  int64_t *counts = NULL;
  DG_CALL(DG_CALLOC(counts, 4 * (n > 0 ? n : 1)));
  int64_t *send_u = counts, *recv_u = counts + n, *send_e = counts + 2 * n,
          *recv_e = counts + 3 * n;
  for (int i = 0; i < n; ++i) {
    for (int64_t k = h->send_offset[i]; k < h->send_offset[i + 1]; ++k)
      send_u[i] += backend_cpu_elem_doubles(d, h->send_elem[k]);
    for (int64_t k = h->recv_offset[i]; k < h->recv_offset[i + 1]; ++k)
      recv_u[i] += backend_cpu_elem_doubles(d, h->recv_elem[k]);
    send_e[i] = DG_AV_NLIN * (h->send_offset[i + 1] - h->send_offset[i]);
    recv_e[i] = DG_AV_NLIN * (h->recv_offset[i + 1] - h->recv_offset[i]);
  }
  dg_status status = dg_exchange_create(h->comm, n, h->neighbor, send_u, recv_u, 101, &ctx->ex_U);
  if (status == DG_SUCCESS && d->av != DG_AV_OFF)
    status = dg_exchange_create(h->comm, n, h->neighbor, send_e, recv_e, 102, &ctx->ex_eps);
  free(counts);
  DG_CALL(status);
  const int64_t su = dg_exchange_send_total(ctx->ex_U), ru = dg_exchange_recv_total(ctx->ex_U);
  DG_CALL(DG_CALLOC(ctx->send_U, su > 0 ? su : 1));
  DG_CALL(DG_CALLOC(ctx->recv_U, ru > 0 ? ru : 1));
  if (ctx->ex_eps) {
    const int64_t se = dg_exchange_send_total(ctx->ex_eps),
                  re = dg_exchange_recv_total(ctx->ex_eps);
    DG_CALL(DG_CALLOC(ctx->send_eps, se > 0 ? se : 1));
    DG_CALL(DG_CALLOC(ctx->recv_eps, re > 0 ? re : 1));
  }
  return DG_SUCCESS;
}

/* Packs the sent elements' coefficients of U and starts the exchange. */
static dg_status backend_cpu_halo_start(dg_backend_ctx *ctx, const double *U) {
  if (!ctx->ex_U) return DG_SUCCESS;
  const dg_disc_view *d = &ctx->view;
  const dg_halo *h = ctx->halo;
  int64_t k = 0;
  for (int64_t i = 0; i < h->send_offset[h->n_neighbors]; ++i) {
    const int64_t e = h->send_elem[i];
    const int nb = d->nb[d->elem_shape[e]];
    for (int v = 0; v < d->nvar; ++v)
      for (int m = 0; m < nb; ++m) ctx->send_U[k++] = U[disc_coef_index(d, e, v, m)];
  }
  DG_CALL(dg_exchange_start(ctx->ex_U, ctx->send_U, ctx->recv_U));
  return DG_SUCCESS;
}

/* Waits for the exchange and writes the ghosts' coefficients into U. The
 * ghost entries of a state vector are a copy of their owners' (refreshed by
 * every residual), which is why a const state is written here. */
static dg_status backend_cpu_halo_finish(dg_backend_ctx *ctx, const double *U_const) {
  if (!ctx->ex_U) return DG_SUCCESS;
  DG_CALL(dg_exchange_finish(ctx->ex_U));
  double *U = (double *)(uintptr_t)U_const;
  const dg_disc_view *d = &ctx->view;
  const dg_halo *h = ctx->halo;
  int64_t k = 0;
  for (int64_t i = 0; i < h->recv_offset[h->n_neighbors]; ++i) {
    const int64_t e = h->recv_elem[i];
    const int nb = d->nb[d->elem_shape[e]];
    for (int v = 0; v < d->nvar; ++v)
      for (int m = 0; m < nb; ++m) U[disc_coef_index(d, e, v, m)] = ctx->recv_U[k++];
  }
  return DG_SUCCESS;
}

/* The ghosts' ε coefficients from their owners (blocking). */
static dg_status backend_cpu_halo_eps(dg_backend_ctx *ctx) {
  if (!ctx->ex_eps) return DG_SUCCESS;
  const dg_halo *h = ctx->halo;
  for (int64_t i = 0; i < h->send_offset[h->n_neighbors]; ++i)
    for (int j = 0; j < DG_AV_NLIN; ++j)
      ctx->send_eps[i * DG_AV_NLIN + j] = ctx->eps_c[h->send_elem[i] * DG_AV_NLIN + j];
  DG_CALL(dg_exchange_start(ctx->ex_eps, ctx->send_eps, ctx->recv_eps));
  DG_CALL(dg_exchange_finish(ctx->ex_eps));
  for (int64_t i = 0; i < h->recv_offset[h->n_neighbors]; ++i)
    for (int j = 0; j < DG_AV_NLIN; ++j)
      ctx->eps_c[h->recv_elem[i] * DG_AV_NLIN + j] = ctx->recv_eps[i * DG_AV_NLIN + j];
  return DG_SUCCESS;
}

static dg_status backend_cpu_halo(dg_backend_ctx *ctx, double *x) {
  DG_CALL(backend_cpu_halo_start(ctx, x));
  DG_CALL(backend_cpu_halo_finish(ctx, x));
  return DG_SUCCESS;
}

static const dg_comm *backend_cpu_comm(const dg_backend_ctx *ctx) {
  return ctx->halo ? ctx->halo->comm : NULL;
}

static dg_status backend_cpu_create(const dg_disc *disc, dg_backend_ctx **out) {
  DG_CHECK(disc && out, DG_ERR_ARG, "backend cpu: create needs a discretisation and an output");
  dg_backend_ctx *ctx = NULL;
  DG_CALL(DG_CALLOC(ctx, 1));
  ctx->view = disc->view;
  const dg_disc_view *v = &ctx->view;
  ctx->n_face_flux = v->n_faces * v->nqf * v->nvar;
  const int64_t n_partial_elem = v->n_elems * v->nvar;
  const int64_t n_partial_face = 6 * (v->n_faces - v->n_interior);
  const int64_t n_partial = n_partial_elem > n_partial_face ? n_partial_elem : n_partial_face;
  dg_status status = residual_plan_build(v, &ctx->plan);
  if (status == DG_SUCCESS)
    status = DG_CALLOC(ctx->face_flux, ctx->n_face_flux > 0 ? ctx->n_face_flux : 1);
  if (status == DG_SUCCESS) status = DG_CALLOC(ctx->partial, n_partial > 0 ? n_partial : 1);
  const int64_t n_long = v->n_coefs > v->n_elems ? v->n_coefs : v->n_elems;
  if (status == DG_SUCCESS)
    status = DG_CALLOC(ctx->chunk_sum, n_long > 0 ? BACKEND_CPU_CHUNKS(n_long) : 1);
  if (status == DG_SUCCESS && v->av != DG_AV_OFF) {
    const int64_t n_g = v->dim * v->n_coefs;
    status = DG_CALLOC(ctx->eps_elem, v->n_elems > 0 ? v->n_elems : 1);
    if (status == DG_SUCCESS) status = DG_CALLOC(ctx->eps_hold, v->n_elems > 0 ? v->n_elems : 1);
    if (status == DG_SUCCESS) {
      for (int64_t e = 0; e < v->n_elems; ++e) ctx->eps_hold[e] = -1.0;
      ctx->state.av_eps_hold = ctx->eps_hold;
    }
    if (status == DG_SUCCESS) status = DG_CALLOC(ctx->eps_vert, v->n_verts > 0 ? v->n_verts : 1);
    if (status == DG_SUCCESS)
      status = DG_CALLOC(ctx->eps_c, v->n_elems > 0 ? v->n_elems * DG_AV_NLIN : 1);
    if (status == DG_SUCCESS) status = DG_CALLOC(ctx->G, n_g > 0 ? n_g : 1);
    if (status == DG_SUCCESS)
      status = DG_CALLOC(ctx->face_jump, ctx->n_face_flux > 0 ? ctx->n_face_flux : 1);
  }
  if (status == DG_SUCCESS) status = backend_cpu_halo_create(ctx, disc->halo);
  if (status != DG_SUCCESS) {
    backend_cpu_destroy(ctx);
    DG_CALL(status);
  }
  *out = ctx;
  return DG_SUCCESS;
}

/* The implementations trust their arguments: the entry points of
 * src/dg/backend.c check them. */

static int64_t backend_cpu_vec_length(const dg_backend_ctx *ctx, dg_vec_kind kind) {
  return backend_cpu_vec_size(ctx, kind);
}

static dg_status backend_cpu_vec_alloc(dg_backend_ctx *ctx, dg_vec_kind kind, double **vec) {
  const int64_t n = backend_cpu_vec_size(ctx, kind);
  DG_CALL(DG_CALLOC(*vec, n > 0 ? n : 1));
  return DG_SUCCESS;
}

static void backend_cpu_vec_free(dg_backend_ctx *ctx, double *vec) {
  (void)ctx;
  free(vec);
}

static dg_status backend_cpu_copy(dg_backend_ctx *ctx, dg_vec_kind kind, const double *src,
                                  double *dst) {
  if (src != dst) memcpy(dst, src, (size_t)backend_cpu_vec_size(ctx, kind) * sizeof(double));
  return DG_SUCCESS;
}

/* Pass p of the residual plan (src/dg/residual_plan.h) as one OpenMP loop
 * over its range: the CPU kernel of every pass kind. U read; R and the
 * context's scratch (ε fields, G, face_flux, face_jump) written for the
 * pass's range only. */
static dg_status backend_cpu_pass(dg_backend_ctx *ctx, const dg_pass *p, const double *U, double t,
                                  double *R) {
  const dg_disc_view *d = &ctx->view;
  const dg_disc_state *st = &ctx->state;
  const int64_t b = p->begin, n = p->end;
  double *eps_elem = ctx->eps_elem, *eps_vert = ctx->eps_vert, *eps_c = ctx->eps_c, *G = ctx->G;
  double *face_flux = ctx->face_flux, *face_jump = ctx->face_jump;
  switch (p->kind) {
  case DG_PASS_HALO_START: return backend_cpu_halo_start(ctx, U);
  case DG_PASS_HALO_FINISH: return backend_cpu_halo_finish(ctx, U);
  case DG_PASS_HALO_EPS: return backend_cpu_halo_eps(ctx);
  case DG_PASS_AV_EPS: {
    BACKEND_CPU_PARALLEL_FOR
    for (int64_t e = b; e < n; ++e) eps_elem[e] = av_element_eps(d, st, e, U);
  } break;
  case DG_PASS_AV_VERTEX_EPS: {
    BACKEND_CPU_PARALLEL_FOR
    for (int64_t i = b; i < n; ++i) eps_vert[i] = av_vertex_eps(d, i, eps_elem);
  } break;
  case DG_PASS_AV_COEFS: {
    BACKEND_CPU_PARALLEL_FOR
    for (int64_t e = b; e < n; ++e) av_element_coefs(d, e, eps_elem, eps_vert, eps_c);
  } break;
  case DG_PASS_AV_GRADIENT: {
    BACKEND_CPU_PARALLEL_FOR
    for (int64_t e = b; e < n; ++e) av_element_gradient(d, e, U, G);
  } break;
  case DG_PASS_FACES_INTERIOR:
  case DG_PASS_FACES_BOUNDARY:
    if (d->av != DG_AV_OFF) {
      BACKEND_CPU_PARALLEL_FOR
      for (int64_t f = b; f < n; ++f)
        av_residual_face(d, st, f, U, G, eps_c, t, face_flux, face_jump);
    } else {
      BACKEND_CPU_PARALLEL_FOR
      for (int64_t f = b; f < n; ++f) residual_face(d, st, f, U, t, face_flux);
    }
    break;
  case DG_PASS_ELEMENTS:
    if (d->av != DG_AV_OFF) {
      BACKEND_CPU_PARALLEL_FOR
      for (int64_t e = b; e < n; ++e) av_residual_element(d, e, U, eps_c, face_flux, face_jump, R);
    } else {
      BACKEND_CPU_PARALLEL_FOR
      for (int64_t e = b; e < n; ++e) residual_element(d, e, U, face_flux, R);
    }
    break;
  default: break;
  }
  return DG_SUCCESS;
}

/* ε of U: the ε passes of the plan (AV_EPS, AV_VERTEX_EPS, AV_COEFS), after
 * the ghosts' U (the owned elements' vertex means read the ghosts' ε). */
static dg_status backend_cpu_av_fields(dg_backend_ctx *ctx, const double *U) {
  for (int i = 0; i < ctx->plan.n_passes; ++i) {
    const dg_pass *p = &ctx->plan.pass[i];
    if (p->kind == DG_PASS_HALO_START || p->kind == DG_PASS_HALO_FINISH ||
        p->kind == DG_PASS_AV_EPS || p->kind == DG_PASS_AV_VERTEX_EPS ||
        p->kind == DG_PASS_AV_COEFS)
      DG_CALL(backend_cpu_pass(ctx, p, U, 0.0, NULL));
  }
  return DG_SUCCESS;
}

/* The residual: every pass of the plan, in order. */
static dg_status backend_cpu_residual(dg_backend_ctx *ctx, const double *U, double t, double *R) {
  for (int i = 0; i < ctx->plan.n_passes; ++i)
    DG_CALL(backend_cpu_pass(ctx, &ctx->plan.pass[i], U, t, R));
  return DG_SUCCESS;
}

/* The residual and an RK stage from it (table residual_rk): the passes of
 * the plan, with each owned element's update right after its residual in
 * the ELEMENTS pass (residual_element, residual_rk_update: the bits of
 * residual then rk_update, one pass over the elements fewer). Uout may
 * alias U0 or U: an element's residual reads its own U only, and the face
 * passes are done. R is written (keep_R or not). */
static dg_status backend_cpu_residual_rk(dg_backend_ctx *ctx, const double *U, double t, double a,
                                         const double *U0, double b, const double *dt, double *R,
                                         int keep_R, double *Uout) {
  (void)keep_R;
  const dg_disc_view *d = &ctx->view;
  for (int i = 0; i < ctx->plan.n_passes; ++i) {
    const dg_pass *p = &ctx->plan.pass[i];
    if (p->kind != DG_PASS_ELEMENTS) {
      DG_CALL(backend_cpu_pass(ctx, p, U, t, R));
      continue;
    }
    const int64_t e0 = p->begin, e1 = p->end;
    const double *eps_c = ctx->eps_c, *face_flux = ctx->face_flux, *face_jump = ctx->face_jump;
    if (d->av != DG_AV_OFF) {
      BACKEND_CPU_PARALLEL_FOR
      for (int64_t e = e0; e < e1; ++e) {
        av_residual_element(d, e, U, eps_c, face_flux, face_jump, R);
        residual_rk_update(d, e, a, U0, b, U, dt, R, Uout);
      }
    } else {
      BACKEND_CPU_PARALLEL_FOR
      for (int64_t e = e0; e < e1; ++e) {
        residual_element(d, e, U, face_flux, R);
        residual_rk_update(d, e, a, U0, b, U, dt, R, Uout);
      }
    }
  }
  return DG_SUCCESS;
}

dg_status backend_cpu_residual_atomic(dg_backend_ctx *ctx, const double *U, double t, double *R) {
  DG_CHECK(ctx && U && R, DG_ERR_ARG, "backend cpu: atomic residual called with NULL");
  const dg_disc_view *d = &ctx->view;
  DG_CHECK(d->av == DG_AV_OFF, DG_ERR_UNSUPPORTED,
           "backend cpu: the atomic reference residual has no artificial viscosity terms; use "
           "it on a discretisation built with av off");
  if (!ctx->zero_flux)
    DG_CALL(DG_CALLOC(ctx->zero_flux, ctx->n_face_flux > 0 ? ctx->n_face_flux : 1));
  const double *zero_flux = ctx->zero_flux;
  /* volume terms only: the gather of an all-zero face flux adds nothing */
  BACKEND_CPU_PARALLEL_FOR
  for (int64_t e = 0; e < d->n_elems; ++e) residual_element(d, e, U, zero_flux, R);

  const int nv = d->nvar;
  BACKEND_CPU_PARALLEL_FOR
  for (int64_t f = 0; f < d->n_faces; ++f) {
    const int64_t e0 = d->face_elem[2 * f], e1 = d->face_elem[2 * f + 1];
    const int lf0 = d->face_local[2 * f], lf1 = d->face_local[2 * f + 1];
    const int s0 = d->elem_shape[e0], nb0 = d->nb[s0];
    for (int q = 0; q < d->nqf; ++q) {
      const int64_t k = f * d->nqf + q;
      double H[DG_MAX_NVAR];
      residual_point_flux(d, &ctx->state, f, q, U, t, H);
      const double wsJ = d->face_wsJ[k];
      const double *phi0 = d->face_phi + d->face_table[s0][lf0][0] + (int64_t)q * nb0;
      for (int v = 0; v < nv; ++v)
        for (int m = 0; m < nb0; ++m) {
          const double c = -H[v] * wsJ * phi0[m];
          double *target = R + disc_coef_index(d, e0, v, m);
#ifdef COLORDG_HAVE_OPENMP
#pragma omp atomic
#endif
          *target += c;
        }
      if (e1 < 0) continue;
      const int s1 = d->elem_shape[e1], nb1 = d->nb[s1];
      const double *phi1 =
          d->face_phi + d->face_table[s1][lf1][d->face_orient[f]] + (int64_t)q * nb1;
      for (int v = 0; v < nv; ++v)
        for (int m = 0; m < nb1; ++m) {
          const double c = H[v] * wsJ * phi1[m];
          double *target = R + disc_coef_index(d, e1, v, m);
#ifdef COLORDG_HAVE_OPENMP
#pragma omp atomic
#endif
          *target += c;
        }
    }
  }
  return DG_SUCCESS;
}

static dg_status backend_cpu_timestep(dg_backend_ctx *ctx, const double *U, double cfl, double *dt,
                                      double *dt_min) {
  const dg_disc_view *d = &ctx->view;
  double smallest = INFINITY;
  int64_t first_bad = d->n_elems;
  if (d->av != DG_AV_OFF) DG_CALL(backend_cpu_av_fields(ctx, U));
  const double *eps_c = ctx->eps_c;
  /* owned elements of each shape (docs/ARCHITECTURE.md §4) */
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int64_t e0 = d->elem_start[s], e1 = e0 + d->n_owned[s];
#ifdef COLORDG_HAVE_OPENMP
#pragma omp parallel for schedule(static) reduction(min : smallest, first_bad)
#endif
    for (int64_t e = e0; e < e1; ++e) {
      dt[e] = d->av != DG_AV_OFF ? av_element_timestep(d, e, U, eps_c, cfl)
                                 : residual_element_timestep(d, e, U, cfl);
      if (!(dt[e] > 0.0 && dt[e] < INFINITY) && e < first_bad) first_bad = e;
      if (dt[e] < smallest) smallest = dt[e];
    }
  }
  DG_CHECK(first_bad == d->n_elems, DG_ERR_DIVERGED,
           "backend cpu: the time step of element %lld is %g, not a positive number (non-physical "
           "state: negative density or pressure, NaN?)",
           (long long)first_bad, first_bad < d->n_elems ? dt[first_bad] : 0.0);
  if (dt_min) *dt_min = smallest;
  return DG_SUCCESS;
}

static dg_status backend_cpu_set_circulation(dg_backend_ctx *ctx, double circulation) {
  ctx->state.farfield_circulation = circulation;
  return DG_SUCCESS;
}

static dg_status backend_cpu_av_hold(dg_backend_ctx *ctx, const double *U, double omega) {
  const dg_disc_view *d = &ctx->view;
  if (d->av == DG_AV_OFF) return DG_SUCCESS;
  /* a ghost's hold follows its owner's: both from the same U */
  if (U) DG_CALL(backend_cpu_halo(ctx, (double *)(uintptr_t)U));
  double *hold = ctx->eps_hold;
  BACKEND_CPU_PARALLEL_FOR
  for (int64_t e = 0; e < d->n_elems; ++e)
    hold[e] = U ? av_hold_update(d, e, U, hold[e], omega) : -1.0;
  return DG_SUCCESS;
}

static dg_status backend_cpu_av_hold_get(dg_backend_ctx *ctx, double *h_hold) {
  const dg_disc_view *d = &ctx->view;
  for (int64_t e = 0; e < d->n_elems; ++e) h_hold[e] = d->av == DG_AV_OFF ? -1.0 : ctx->eps_hold[e];
  return DG_SUCCESS;
}

static dg_status backend_cpu_av_hold_set(dg_backend_ctx *ctx, const double *h_hold) {
  const dg_disc_view *d = &ctx->view;
  if (d->av == DG_AV_OFF) return DG_SUCCESS;
  memcpy(ctx->eps_hold, h_hold, (size_t)d->n_elems * sizeof(double));
  return DG_SUCCESS;
}

static dg_status backend_cpu_av_eps(dg_backend_ctx *ctx, const double *U, double *eps) {
  const dg_disc_view *d = &ctx->view;
  if (d->av == DG_AV_OFF) {
    memset(eps, 0, (size_t)d->n_elems * sizeof(double));
    return DG_SUCCESS;
  }
  DG_CALL(backend_cpu_av_fields(ctx, U));
  const double *eps_c = ctx->eps_c;
  BACKEND_CPU_PARALLEL_FOR
  for (int64_t e = 0; e < d->n_elems; ++e) eps[e] = av_element_mean_eps(d, e, eps_c);
  return DG_SUCCESS;
}

static dg_status backend_cpu_rk_update(dg_backend_ctx *ctx, double a, const double *U0, double b,
                                       const double *U, const double *dt, const double *R,
                                       double *Uout) {
  const dg_disc_view *d = &ctx->view;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) { /* owned elements */
    const int64_t e0 = d->elem_start[s], e1 = e0 + d->n_owned[s];
    BACKEND_CPU_PARALLEL_FOR
    for (int64_t e = e0; e < e1; ++e) residual_rk_update(d, e, a, U0, b, U, dt, R, Uout);
  }
  return DG_SUCCESS;
}

static dg_status backend_cpu_norms(dg_backend_ctx *ctx, const double *R, double *sumsq,
                                   int *finite) {
  const dg_disc_view *d = &ctx->view;
  const int nv = d->nvar;
  double *partial = ctx->partial;
  int all_finite = 1;
  /* per-element sums over the owned elements, then a serial sum in element
   * order: the same bits for any thread count */
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int64_t e0 = d->elem_start[s], e1 = e0 + d->n_owned[s];
    const int nb = d->nb[s];
#ifdef COLORDG_HAVE_OPENMP
#pragma omp parallel for schedule(static) reduction(&& : all_finite)
#endif
    for (int64_t e = e0; e < e1; ++e) {
      for (int v = 0; v < nv; ++v) {
        double sum = 0.0;
        for (int m = 0; m < nb; ++m) {
          const double r = R[disc_coef_index(d, e, v, m)];
          if (!isfinite(r)) all_finite = 0;
          sum += r * r;
        }
        partial[e * nv + v] = sum;
      }
    }
  }
  for (int v = 0; v < nv; ++v) sumsq[v] = 0.0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int64_t e0 = d->elem_start[s], e1 = e0 + d->n_owned[s];
    for (int64_t e = e0; e < e1; ++e)
      for (int v = 0; v < nv; ++v) sumsq[v] += partial[e * nv + v];
  }
  *finite = all_finite;
  return DG_SUCCESS;
}

static dg_status backend_cpu_forces(dg_backend_ctx *ctx, const double *U, const uint8_t *group_mask,
                                    const double x_ref[3], double out[6]) {
  const dg_disc_view *d = &ctx->view;
  const int64_t n0 = d->n_interior, nbf = d->n_faces - d->n_interior;
  double *partial = ctx->partial;
  BACKEND_CPU_PARALLEL_FOR
  for (int64_t i = 0; i < nbf; ++i) {
    const int64_t f = n0 + i, e0 = d->face_elem[2 * f];
    const int g = d->face_group[f], s = d->elem_shape[e0];
    /* the faces of owned elements (a ghost's boundary face is its owner's) */
    if (g >= 0 && group_mask[g] && e0 - d->elem_start[s] < d->n_owned[s])
      residual_face_force(d, f, U, x_ref, partial + 6 * i);
    else
      for (int c = 0; c < 6; ++c) partial[6 * i + c] = 0.0;
  }
  for (int c = 0; c < 6; ++c) out[c] = 0.0;
  for (int64_t i = 0; i < nbf; ++i)
    for (int c = 0; c < 6; ++c) out[c] += partial[6 * i + c];
  return DG_SUCCESS;
}

static dg_status backend_cpu_limit(dg_backend_ctx *ctx, double *U, double *count) {
  const dg_disc_view *d = &ctx->view;
  BACKEND_CPU_PARALLEL_FOR
  for (int64_t e = 0; e < d->n_elems; ++e) limiter_positivity_count(d, e, U, count);
  return DG_SUCCESS;
}

/* ------------------------------------------------ BLAS-1 */

static dg_status backend_cpu_axpby(dg_backend_ctx *ctx, int64_t n, double a, const double *x,
                                   double b, double *y) {
  (void)ctx;
  if (b == 0.0) {
    BACKEND_CPU_PARALLEL_FOR
    for (int64_t i = 0; i < n; ++i) y[i] = a * x[i];
  } else {
    BACKEND_CPU_PARALLEL_FOR
    for (int64_t i = 0; i < n; ++i) y[i] = a * x[i] + b * y[i];
  }
  return DG_SUCCESS;
}

static dg_status backend_cpu_scale(dg_backend_ctx *ctx, int64_t n, double a, double *x) {
  (void)ctx;
  BACKEND_CPU_PARALLEL_FOR
  for (int64_t i = 0; i < n; ++i) x[i] *= a;
  return DG_SUCCESS;
}

static dg_status backend_cpu_set(dg_backend_ctx *ctx, int64_t n, double value, double *x) {
  (void)ctx;
  BACKEND_CPU_PARALLEL_FOR
  for (int64_t i = 0; i < n; ++i) x[i] = value;
  return DG_SUCCESS;
}

/* The larger of m and |v|, NaN once either is NaN (so NaN propagates
 * whatever the order). */
static double backend_cpu_max_abs_combine(double m, double v) {
  const double a = fabs(v);
  return (a > m || a != a) ? a : m;
}

typedef enum { CPU_RED_DOT, CPU_RED_SUMSQ, CPU_RED_MAXABS } backend_cpu_red;

/* The reduction `kind` of x (and y) over n entries: each chunk in index
 * order (in parallel), then the chunks in order. */
static double backend_cpu_reduce(dg_backend_ctx *ctx, backend_cpu_red kind, int64_t n,
                                 const double *x, const double *y) {
  /* a partition: the owned entries only (ghosts are their owners' copies) */
  const int64_t *owned = n == ctx->view.n_coefs   ? ctx->state_chunk
                         : n == ctx->view.n_elems ? ctx->elem_chunk
                                                  : NULL;
  const int64_t n_chunks = !owned                   ? BACKEND_CPU_CHUNKS(n)
                           : n == ctx->view.n_coefs ? ctx->n_state_chunks
                                                    : ctx->n_elem_chunks;
  double *chunk = ctx->chunk_sum;
  BACKEND_CPU_PARALLEL_FOR
  for (int64_t c = 0; c < n_chunks; ++c) {
    const int64_t i0 = owned ? owned[2 * c] : c * BACKEND_CPU_CHUNK;
    const int64_t i1 = owned                        ? i0 + owned[2 * c + 1]
                       : i0 + BACKEND_CPU_CHUNK < n ? i0 + BACKEND_CPU_CHUNK
                                                    : n;
    double acc = 0.0;
    if (kind == CPU_RED_DOT)
      for (int64_t i = i0; i < i1; ++i) acc += x[i] * y[i];
    else if (kind == CPU_RED_SUMSQ)
      for (int64_t i = i0; i < i1; ++i) acc += x[i] * x[i];
    else
      for (int64_t i = i0; i < i1; ++i) acc = backend_cpu_max_abs_combine(acc, x[i]);
    chunk[c] = acc;
  }
  double total = 0.0;
  for (int64_t c = 0; c < n_chunks; ++c)
    total = kind == CPU_RED_MAXABS ? (chunk[c] > total || chunk[c] != chunk[c] ? chunk[c] : total)
                                   : total + chunk[c];
  return total;
}

static dg_status backend_cpu_dot(dg_backend_ctx *ctx, int64_t n, const double *x, const double *y,
                                 double *local) {
  *local = backend_cpu_reduce(ctx, CPU_RED_DOT, n, x, y);
  return DG_SUCCESS;
}

static dg_status backend_cpu_sum_squares(dg_backend_ctx *ctx, int64_t n, const double *x,
                                         double *local) {
  *local = backend_cpu_reduce(ctx, CPU_RED_SUMSQ, n, x, NULL);
  return DG_SUCCESS;
}

static dg_status backend_cpu_max_abs(dg_backend_ctx *ctx, int64_t n, const double *x,
                                     double *local) {
  *local = backend_cpu_reduce(ctx, CPU_RED_MAXABS, n, x, NULL);
  return DG_SUCCESS;
}

static dg_status backend_cpu_upload(dg_backend_ctx *ctx, dg_vec_kind kind, const double *h_src,
                                    double *vec) {
  return backend_cpu_copy(ctx, kind, h_src, vec);
}

static dg_status backend_cpu_download(dg_backend_ctx *ctx, dg_vec_kind kind, const double *vec,
                                      double *h_dst) {
  return backend_cpu_copy(ctx, kind, vec, h_dst);
}

const dg_disc_view *backend_cpu_view(const dg_backend_ctx *ctx) { return &ctx->view; }

dg_vec backend_cpu_vec_wrap(const dg_backend *b, dg_backend_ctx *ctx, dg_vec_kind kind,
                            double *host) {
  dg_vec v;
  memset(&v, 0, sizeof v);
  v.data = host;
  v.n = ctx ? backend_cpu_vec_size(ctx, kind) : 0;
  v.kind = kind;
  v.backend = b;
  v.ctx = ctx;
  return v;
}

const dg_disc_state *backend_cpu_state(const dg_backend_ctx *ctx) { return &ctx->state; }

const dg_backend *backend_cpu_table(void) {
  static const dg_backend table = {
      .name = "cpu",
      .create = backend_cpu_create,
      .destroy = backend_cpu_destroy,
      .vec_alloc = backend_cpu_vec_alloc,
      .vec_free = backend_cpu_vec_free,
      .vec_length = backend_cpu_vec_length,
      .upload = backend_cpu_upload,
      .download = backend_cpu_download,
      .copy = backend_cpu_copy,
      .residual = backend_cpu_residual,
      .av_eps = backend_cpu_av_eps,
      .av_hold = backend_cpu_av_hold,
      .set_circulation = backend_cpu_set_circulation,
      .timestep = backend_cpu_timestep,
      .rk_update = backend_cpu_rk_update,
      .residual_rk = backend_cpu_residual_rk,
      .norms = backend_cpu_norms,
      .forces = backend_cpu_forces,
      .limit = backend_cpu_limit,
      .av_hold_get = backend_cpu_av_hold_get,
      .av_hold_set = backend_cpu_av_hold_set,
      .axpby = backend_cpu_axpby,
      .scale = backend_cpu_scale,
      .set = backend_cpu_set,
      .dot = backend_cpu_dot,
      .sum_squares = backend_cpu_sum_squares,
      .max_abs = backend_cpu_max_abs,
      .comm = backend_cpu_comm,
      .halo = backend_cpu_halo,
  };
  return &table;
}
