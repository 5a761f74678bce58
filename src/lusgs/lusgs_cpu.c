/* The CPU LU-SGS operations: OpenMP loops over faces, elements and the
 * elements of one colour that call the DG_HD arithmetic of lusgs_ops.h. The
 * vectors are the host arrays of backend_cpu_table(). The arguments were
 * checked by the entry points of src/lusgs/lusgs.c (lusgs_backend_*). */
#include <stdlib.h>
#include <string.h>

#include "coloring/coloring_list.h"
#include "dg/backend_cpu.h"
#include "lusgs/lusgs.h"
#include "lusgs/lusgs_av.h"
#include "lusgs/lusgs_ops.h"

#ifdef COLORDG_HAVE_OPENMP
#define LUSGS_CPU_PARALLEL_FOR _Pragma("omp parallel for schedule(static)")
/* The per-colour loops over n elements: small colours (few elements, or one
 * element per colour) run serially rather than paying a fork/join each,
 * which dominates with many sweeps on small meshes or busy cores. */
#define LUSGS_CPU_PARALLEL_FOR_N _Pragma("omp parallel for schedule(static) if (n >= 64)")
#else
#define LUSGS_CPU_PARALLEL_FOR
#define LUSGS_CPU_PARALLEL_FOR_N
#endif

struct lusgs_ctx {
  const dg_disc_view *view;    /* the CPU backend's host view */
  const dg_disc_state *state;  /* the CPU backend's run-time state (circulation, held ε) */
  const dg_coloring *coloring; /* the sweeps' colour lists (not owned) */
  int n_colors;
  int64_t *block_offset; /* [n_elems + 1] into blocks (n_e² doubles each) */
  int64_t *pivot_offset; /* [n_elems + 1] into pivots (n_e each) */
  double *blocks;        /* LU factors of D_e, row-major */
  int32_t *pivots;
  int single;      /* assemble fills inv32 (lusgs_cpu_set_inverse_single) */
  int jac_forward; /* forward-difference face Jacobians (lusgs_cpu_set_face_jacobian_forward) */
  int use32;       /* the last assemble filled it: the sweeps multiply by it */
  float *inv32; /* [block_offset[n_elems]]: D_e⁻¹ in single precision, column-major (single) */
  double *face_jac; /* [n_faces * nqf * 2 * nvar²] face flux Jacobians (lusgs_face_jacobians) */
  /* artificial viscosity frozen at the last assemble (view.av on; else NULL) */
  double *eps_elem, *eps_vert, *eps_c;
  const dg_halo *halo; /* a partition's halo (NULL: one process): the ghosts' ε */
};

static void lusgs_cpu_destroy(lusgs_ctx *ctx) {
  if (!ctx) return;
  free(ctx->block_offset);
  free(ctx->pivot_offset);
  free(ctx->blocks);
  free(ctx->pivots);
  free(ctx->inv32);
  free(ctx->face_jac);
  free(ctx->eps_elem);
  free(ctx->eps_vert);
  free(ctx->eps_c);
  free(ctx);
}

static dg_status lusgs_cpu_alloc(lusgs_ctx *x, const dg_disc_view *d) {
  const int64_t ne = d->n_elems, nfq = d->n_faces * d->nqf;
  DG_CALL(DG_CALLOC(x->block_offset, ne + 1));
  DG_CALL(DG_CALLOC(x->pivot_offset, ne + 1));
  DG_CALL(DG_CALLOC(x->face_jac, nfq > 0 ? nfq * 2 * d->nvar * d->nvar : 1));
  for (int64_t e = 0; e < ne; ++e) {
    const int64_t n = lusgs_block_size(d, e);
    x->block_offset[e + 1] = x->block_offset[e] + n * n;
    x->pivot_offset[e + 1] = x->pivot_offset[e] + n;
  }
  DG_CALL(DG_CALLOC(x->blocks, x->block_offset[ne] > 0 ? x->block_offset[ne] : 1));
  DG_CALL(DG_CALLOC(x->pivots, x->pivot_offset[ne] > 0 ? x->pivot_offset[ne] : 1));
  if (d->av != DG_AV_OFF) {
    DG_CALL(DG_CALLOC(x->eps_elem, ne > 0 ? ne : 1));
    DG_CALL(DG_CALLOC(x->eps_vert, d->n_verts > 0 ? d->n_verts : 1));
    DG_CALL(DG_CALLOC(x->eps_c, ne > 0 ? ne * DG_AV_NLIN : 1));
  }
  return DG_SUCCESS;
}

static dg_status lusgs_cpu_create(dg_backend_ctx *bctx, const dg_disc *disc,
                                  const dg_coloring *coloring, lusgs_ctx **out) {
  (void)disc; /* the arguments were checked by lusgs_create; the view is the context's */
  const dg_disc_view *d = backend_cpu_view(bctx);
  lusgs_ctx *x = NULL;
  DG_CALL(DG_CALLOC(x, 1));
  x->view = d;
  x->state = backend_cpu_state(bctx);
  x->coloring = coloring;
  x->n_colors = coloring->n_colors;
  x->halo = disc->halo;
  const dg_status status = lusgs_cpu_alloc(x, d);
  if (status != DG_SUCCESS) {
    lusgs_cpu_destroy(x);
    DG_CALL(status);
  }
  *out = x;
  return DG_SUCCESS;
}

static dg_status lusgs_cpu_assemble(lusgs_ctx *x, const double *U, double t, const double *dt) {
  const dg_disc_view *d = x->view;
  double *face_jac = x->face_jac;
  const int forward = x->jac_forward;
  LUSGS_CPU_PARALLEL_FOR
  for (int64_t f = 0; f < d->n_faces; ++f)
    lusgs_face_jacobians(d, x->state, f, U, t, forward, face_jac);
  const double *eps_c = NULL;
  if (d->av != DG_AV_OFF) {
    /* ε of Uⁿ, frozen for this iteration's blocks and sweeps (lusgs_av.h) */
    double *eps_elem = x->eps_elem, *eps_vert = x->eps_vert, *ec = x->eps_c;
    LUSGS_CPU_PARALLEL_FOR
    for (int64_t e = 0; e < d->n_elems; ++e) eps_elem[e] = av_element_eps(d, x->state, e, U);
    if (d->av == DG_AV_CONTINUOUS) {
      LUSGS_CPU_PARALLEL_FOR
      for (int64_t i = 0; i < d->n_verts; ++i) eps_vert[i] = av_vertex_eps(d, i, eps_elem);
    }
    LUSGS_CPU_PARALLEL_FOR
    for (int64_t e = 0; e < d->n_elems; ++e) av_element_coefs(d, e, eps_elem, eps_vert, ec);
    /* a ghost's vertex means miss elements beyond the halo: its owner's ε */
    if (d->av == DG_AV_CONTINUOUS && x->halo) DG_CALL(halo_exchange(x->halo, ec, DG_AV_NLIN, 103));
    eps_c = ec;
  }
  int64_t first_bad = d->n_elems;
  int bad_step = -1;
  /* the blocks of owned elements (ghosts are swept by their owners) */
#ifdef COLORDG_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 16) reduction(min : first_bad)
#endif
  for (int64_t e = 0; e < d->n_elems; ++e) {
    const int s = d->elem_shape[e];
    if (e - d->elem_start[s] >= d->n_owned[s]) continue;
    double *K = x->blocks + x->block_offset[e];
    lusgs_block_assemble_jac(d, e, U, face_jac, dt[e], K);
    if (eps_c) lusgs_av_block_add(d, x->state, e, U, eps_c, t, K);
    const int n = lusgs_block_size(d, e);
    const int step = lusgs_lu_factor(n, K, x->pivots + x->pivot_offset[e]);
    if (step >= 0 && e < first_bad) first_bad = e;
    if (step < 0 && x->single)
      lusgs_inverse_single(n, K, x->pivots + x->pivot_offset[e], x->inv32 + x->block_offset[e]);
  }
  if (first_bad < d->n_elems) {
    /* redo the bad element serially for the message */
    double *K = x->blocks + x->block_offset[first_bad];
    lusgs_block_assemble_jac(d, first_bad, U, face_jac, dt[first_bad], K);
    if (eps_c) lusgs_av_block_add(d, x->state, first_bad, U, eps_c, t, K);
    bad_step =
        lusgs_lu_factor(lusgs_block_size(d, first_bad), K, x->pivots + x->pivot_offset[first_bad]);
  }
  x->use32 = x->single;
  DG_CHECK(first_bad == d->n_elems, DG_ERR_DIVERGED,
           "lusgs cpu: the implicit block of element %lld is singular or not finite (pivot %d; "
           "time step %g)",
           (long long)first_bad, bad_step, first_bad < d->n_elems ? dt[first_bad] : 0.0);
  return DG_SUCCESS;
}

static dg_status lusgs_cpu_sweep_forward(lusgs_ctx *x, int c, const double *U, const double *R,
                                         double *dU) {
  (void)U; /* the CPU sweeps read only R, dU and the stored blocks */
  const dg_disc_view *d = x->view;
  const dg_coloring *col = x->coloring;
  const int64_t a = col->color_start[c], n = col->color_start[c + 1] - a,
                first = col->color_first[c];
  const int64_t *list = col->color_elems + a;
  LUSGS_CPU_PARALLEL_FOR_N
  for (int64_t i = 0; i < n; ++i) {
    const int64_t e = coloring_list_element(first, list, i);
    if (x->use32)
      lusgs_update_element_single(d, e, R, dU, x->face_jac, col->color, LUSGS_LOWER,
                                  x->inv32 + x->block_offset[e]);
    else
      lusgs_sweep_forward_element_jac(d, e, R, dU, x->face_jac, col->color,
                                      x->blocks + x->block_offset[e],
                                      x->pivots + x->pivot_offset[e]);
  }
  return DG_SUCCESS;
}

static dg_status lusgs_cpu_sweep_backward(lusgs_ctx *x, int c, const double *U, double *dU) {
  (void)U; /* the CPU sweeps read only R, dU and the stored blocks */
  const dg_disc_view *d = x->view;
  const dg_coloring *col = x->coloring;
  const int64_t a = col->color_start[c], n = col->color_start[c + 1] - a,
                first = col->color_first[c];
  const int64_t *list = col->color_elems + a;
  LUSGS_CPU_PARALLEL_FOR_N
  for (int64_t i = 0; i < n; ++i) {
    const int64_t e = coloring_list_element(first, list, i);
    if (x->use32)
      lusgs_sweep_backward_element_single(d, e, dU, x->face_jac, col->color,
                                          x->inv32 + x->block_offset[e]);
    else
      lusgs_sweep_backward_element_jac(d, e, dU, x->face_jac, col->color,
                                       x->blocks + x->block_offset[e],
                                       x->pivots + x->pivot_offset[e]);
  }
  return DG_SUCCESS;
}

static dg_status lusgs_cpu_relax(lusgs_ctx *x, int c, const double *U, const double *R,
                                 double *dU) {
  (void)U; /* the CPU sweeps read only R, dU and the stored blocks */
  const dg_disc_view *d = x->view;
  const dg_coloring *col = x->coloring;
  const int64_t a = col->color_start[c], n = col->color_start[c + 1] - a,
                first = col->color_first[c];
  const int64_t *list = col->color_elems + a;
  LUSGS_CPU_PARALLEL_FOR_N
  for (int64_t i = 0; i < n; ++i) {
    const int64_t e = coloring_list_element(first, list, i);
    if (x->use32)
      lusgs_update_element_single(d, e, R, dU, x->face_jac, col->color, LUSGS_ALL,
                                  x->inv32 + x->block_offset[e]);
    else
      lusgs_relax_element_jac(d, e, R, dU, x->face_jac, col->color, x->blocks + x->block_offset[e],
                              x->pivots + x->pivot_offset[e]);
  }
  return DG_SUCCESS;
}

static dg_status lusgs_cpu_update(lusgs_ctx *x, double *U, const double *dU, double max_change) {
  const dg_disc_view *d = x->view;
  if (!(max_change > 0.0)) {
    const int64_t n = d->n_coefs;
    LUSGS_CPU_PARALLEL_FOR
    for (int64_t i = 0; i < n; ++i) U[i] += dU[i];
    return DG_SUCCESS;
  }
  LUSGS_CPU_PARALLEL_FOR
  for (int64_t e = 0; e < d->n_elems; ++e) lusgs_update_element(d, e, U, dU, max_change);
  return DG_SUCCESS;
}

static dg_status lusgs_cpu_av_offdiag(lusgs_ctx *x, int c, int which, const double *R,
                                      const double *dU, double *R_out) {
  const dg_disc_view *d = x->view;
  const dg_coloring *col = x->coloring;
  const int64_t a = col->color_start[c], n = col->color_start[c + 1] - a,
                first = col->color_first[c];
  const int64_t *list = col->color_elems + a;
  const double *eps_c = x->eps_c;
  const int32_t *color = col->color;
  LUSGS_CPU_PARALLEL_FOR_N
  for (int64_t i = 0; i < n; ++i) {
    const int64_t e = coloring_list_element(first, list, i);
    const int ne = lusgs_block_size(d, e);
    double acc[LUSGS_MAX_BLOCK];
    for (int k = 0; k < ne; ++k) acc[k] = 0.0;
    lusgs_av_offdiag_add(d, e, dU, eps_c, color, which, acc);
    const int nb = d->nb[d->elem_shape[e]];
    for (int v = 0; v < d->nvar; ++v)
      for (int m = 0; m < nb; ++m) {
        const int64_t k = disc_coef_index(d, e, v, m);
        R_out[k] = R[k] - acc[v * nb + m];
      }
  }
  return DG_SUCCESS;
}

static dg_status lusgs_cpu_matvec(lusgs_ctx *x, const double *U, const double *xv, double *y) {
  (void)U; /* the product reads only the stored factors and face Jacobians */
  const dg_disc_view *d = x->view;
  const int32_t *color = x->coloring->color;
  const double *eps_c = d->av != DG_AV_OFF ? x->eps_c : NULL;
  LUSGS_CPU_PARALLEL_FOR
  for (int64_t e = 0; e < d->n_elems; ++e) {
    const int s = d->elem_shape[e];
    if (e - d->elem_start[s] >= d->n_owned[s]) continue; /* a ghost: its owner's row */
    lusgs_matvec_element_jac(d, e, xv, x->face_jac, color, x->blocks + x->block_offset[e],
                             x->pivots + x->pivot_offset[e], y);
    if (eps_c) lusgs_av_matvec_element_add(d, e, xv, eps_c, color, y);
  }
  return DG_SUCCESS;
}

static dg_status lusgs_cpu_mass(lusgs_ctx *x, const double *dt, const double *xv, double *y) {
  const dg_disc_view *d = x->view;
  LUSGS_CPU_PARALLEL_FOR
  for (int64_t e = 0; e < d->n_elems; ++e) {
    const int s = d->elem_shape[e];
    if (e - d->elem_start[s] < d->n_owned[s]) lusgs_mass_element(d, e, dt, xv, y);
  }
  return DG_SUCCESS;
}

/* The single-precision inverses: n_e² floats per element beside the LU
 * factors (which the matvec keeps reading), allocated on first use. */
static dg_status lusgs_cpu_set_face_jacobian_forward(lusgs_ctx *x, int forward) {
  x->jac_forward = forward;
  return DG_SUCCESS;
}

static dg_status lusgs_cpu_set_inverse_single(lusgs_ctx *x, int single) {
  if (single && !x->inv32) {
    const int64_t n = x->block_offset[x->view->n_elems];
    DG_CALL(DG_CALLOC(x->inv32, n > 0 ? n : 1));
  }
  x->single = single;
  return DG_SUCCESS;
}

const lusgs_backend *lusgs_backend_cpu(void) {
  static const lusgs_backend table = {
      .name = "cpu",
      .create = lusgs_cpu_create,
      .destroy = lusgs_cpu_destroy,
      .assemble = lusgs_cpu_assemble,
      .sweep_forward = lusgs_cpu_sweep_forward,
      .sweep_backward = lusgs_cpu_sweep_backward,
      .update = lusgs_cpu_update,
      .relax = lusgs_cpu_relax,
      .av_offdiag = lusgs_cpu_av_offdiag,
      .matvec = lusgs_cpu_matvec,
      .mass = lusgs_cpu_mass,
      .set_inverse_single = lusgs_cpu_set_inverse_single,
      .set_face_jacobian_forward = lusgs_cpu_set_face_jacobian_forward,
  };
  return &table;
}
