#include "lusgs/lusgs.h"
#include "dg/explicit.h"
#include "lusgs/lusgs_ops.h"

#include <math.h>
#include <string.h>

const lusgs_backend *lusgs_backend_for(const dg_backend *backend) {
  return backend ? (const lusgs_backend *)backend->implicit_ops : NULL;
}

/* Colours in range and different across every interior face. */
static dg_status lusgs_check_colors(const dg_disc_view *d, const int32_t *color, int n_colors) {
  for (int64_t e = 0; e < d->n_elems; ++e)
    DG_CHECK(color[e] >= 0 && color[e] < n_colors, DG_ERR_ARG,
             "lusgs: element %lld has colour %d, outside [0, %d)", (long long)e, (int)color[e],
             n_colors);
  for (int64_t f = 0; f < d->n_faces; ++f) {
    const int64_t e0 = d->face_elem[2 * f], e1 = d->face_elem[2 * f + 1];
    DG_CHECK(e1 < 0 || e0 == e1 || color[e0] != color[e1], DG_ERR_ARG,
             "lusgs: elements %lld and %lld share face %lld and colour %d: not a valid colouring",
             (long long)e0, (long long)e1, (long long)f, (int)color[e0]);
  }
  return DG_SUCCESS;
}

dg_status lusgs_create(const dg_backend *backend, dg_backend_ctx *ctx, const dg_disc *disc,
                       const int32_t *color, int n_colors, lusgs_marcher *marcher) {
  DG_CHECK(backend && ctx && disc && color && marcher, DG_ERR_ARG,
           "lusgs_create: NULL backend, context, discretisation, colours or output");
  DG_CHECK(n_colors >= 1, DG_ERR_ARG, "lusgs_create: %d colours; expected at least 1", n_colors);
  memset(marcher, 0, sizeof *marcher);
  const lusgs_backend *ops = lusgs_backend_for(backend);
  DG_CHECK(ops, DG_ERR_UNSUPPORTED,
           "lusgs: backend %s has no LU-SGS operations (this build has no CUDA?); use --backend "
           "cpu or scheme = explicit_rk3",
           backend->name ? backend->name : "?");
  DG_CALL(lusgs_check_colors(&disc->view, color, n_colors));
  marcher->backend = backend;
  marcher->ctx = ctx;
  marcher->ops = ops;
  marcher->n_colors = n_colors;
  marcher->nvar = disc->view.nvar;
  marcher->n_elems = disc->view.n_elems;
  dg_status status = backend->vec_alloc(ctx, DG_VEC_STATE, &marcher->R);
  if (status == DG_SUCCESS) status = backend->vec_alloc(ctx, DG_VEC_STATE, &marcher->dU);
  if (status == DG_SUCCESS) status = backend->vec_alloc(ctx, DG_VEC_ELEM, &marcher->dt);
  marcher->av = disc->view.av != DG_AV_OFF;
  if (status == DG_SUCCESS && marcher->av) {
    if (!ops->av_offdiag)
      status = dg_error_set(DG_ERR_UNSUPPORTED, __FILE__, __LINE__, __func__,
                            "lusgs: backend %s has no artificial-viscosity LU-SGS operations",
                            backend->name);
    else
      status = backend->vec_alloc(ctx, DG_VEC_STATE, &marcher->R_av);
    if (status == DG_SUCCESS) status = backend->vec_alloc(ctx, DG_VEC_ELEM, &marcher->limit_count);
  }
  if (status == DG_SUCCESS) status = ops->create(ctx, disc, color, n_colors, &marcher->lctx);
  if (status != DG_SUCCESS) {
    lusgs_destroy(marcher);
    DG_CALL(status);
  }
  return DG_SUCCESS;
}

void lusgs_destroy(lusgs_marcher *marcher) {
  if (!marcher || !marcher->backend) return;
  const dg_backend *b = marcher->backend;
  if (marcher->lctx) marcher->ops->destroy(marcher->lctx);
  if (marcher->R) b->vec_free(marcher->ctx, marcher->R);
  if (marcher->dU) b->vec_free(marcher->ctx, marcher->dU);
  if (marcher->dt) b->vec_free(marcher->ctx, marcher->dt);
  if (marcher->R_av) b->vec_free(marcher->ctx, marcher->R_av);
  if (marcher->limit_count) b->vec_free(marcher->ctx, marcher->limit_count);
  memset(marcher, 0, sizeof *marcher);
}

double lusgs_cfl(const lusgs_opts *opts, int iteration, double res0, double res) {
  const double lo = opts->cfl_min, hi = opts->cfl_max;
  if (opts->cfl_law == LUSGS_CFL_SER) {
    if (!(res0 > 0.0 && res0 < INFINITY && res > 0.0 && res < INFINITY)) return lo;
    const double cfl = lo * res0 / res;
    return cfl < lo ? lo : (cfl > hi ? hi : cfl);
  }
  const int ns = opts->cfl_ramp_iters > 0 ? opts->cfl_ramp_iters : 1;
  double x = (double)(iteration - 1) / (double)ns;
  x = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
  return lo * pow(hi / lo, x);
}

void lusgs_set_reference(lusgs_marcher *marcher, double res0) { marcher->res0 = res0; }

double lusgs_reference(const lusgs_marcher *marcher) { return marcher ? marcher->res0 : 0.0; }

dg_status lusgs_limit_count(lusgs_marcher *marcher, double *total, int64_t *n_bad) {
  DG_CHECK(marcher && marcher->backend && marcher->limit_count && total, DG_ERR_ARG,
           "lusgs_limit_count: NULL marcher or total, or a marcher without artificial viscosity");
  return limiter_count_download(marcher->backend, marcher->ctx, marcher->limit_count,
                                marcher->n_elems, total, n_bad);
}

dg_status lusgs_step(lusgs_marcher *marcher, double *U, double t, int iteration,
                     const lusgs_opts *opts, lusgs_info *info) {
  DG_CHECK(marcher && marcher->backend && U && opts, DG_ERR_ARG,
           "lusgs_step: NULL marcher, state or options");
  DG_CHECK(opts->cfl_min > 0.0 && opts->cfl_max >= opts->cfl_min, DG_ERR_ARG,
           "lusgs_step: CFL range [%g, %g] is not positive and ordered", opts->cfl_min,
           opts->cfl_max);
  DG_CHECK(opts->n_sweeps >= 0 && opts->n_sweeps <= LUSGS_MAX_SWEEPS, DG_ERR_ARG,
           "lusgs_step: %d symmetric sweeps per iteration; expected 1 to %d (0 means 1)",
           opts->n_sweeps, LUSGS_MAX_SWEEPS);
  const dg_backend *b = marcher->backend;
  dg_backend_ctx *ctx = marcher->ctx;
  const lusgs_backend *ops = marcher->ops;
  lusgs_info local;
  lusgs_info *out = info ? info : &local;
  memset(out, 0, sizeof *out);

  if (marcher->av) {
    /* ε of this iteration, held for the residual, the blocks and the sweeps */
    const double omega = opts->av_relax > 0.0 ? opts->av_relax : 1.0;
    DG_CHECK(omega <= 1.0, DG_ERR_ARG, "lusgs_step: viscosity relaxation %g outside (0, 1]", omega);
    DG_CALL(b->av_hold(ctx, U, omega));
  }
  DG_CALL(b->residual(ctx, U, t, marcher->R));
  int finite = 1;
  DG_CALL(b->norms(ctx, marcher->R, out->res_norm, &finite));
  out->finite = finite;
  DG_CHECK(finite, DG_ERR_DIVERGED, "lusgs: the residual of iteration %d is not finite", iteration);
  double total = 0.0;
  for (int v = 0; v < marcher->nvar; ++v) total += out->res_norm[v] * out->res_norm[v];
  out->res_total = sqrt(total);
  if (!(marcher->res0 > 0.0)) marcher->res0 = out->res_total;

  out->cfl = lusgs_cfl(opts, iteration, marcher->res0, out->res_total);
  DG_CALL(b->timestep(ctx, U, out->cfl, 0, marcher->dt, &out->dt_min));
  DG_CALL(ops->assemble(marcher->lctx, U, t, marcher->dt));
  if (marcher->av) {
    /* viscous coupling (lusgs_av.h): each colour relaxes against R minus the
     * viscous products of its neighbours' current ΔU; the backward pass is a
     * downward relaxation (equal to sweep_backward after a forward pass) */
    double *Rv = marcher->R_av;
    for (int sweep = 0; sweep < (opts->n_sweeps > 1 ? opts->n_sweeps : 1); ++sweep) {
      for (int c = 0; c < marcher->n_colors; ++c) {
        DG_CALL(ops->av_offdiag(marcher->lctx, c, sweep ? LUSGS_ALL : LUSGS_LOWER, marcher->R,
                                marcher->dU, Rv));
        if (sweep)
          DG_CALL(ops->relax(marcher->lctx, c, U, Rv, marcher->dU));
        else
          DG_CALL(ops->sweep_forward(marcher->lctx, c, U, Rv, marcher->dU));
      }
      for (int c = marcher->n_colors - 1; c >= 0; --c) {
        DG_CALL(ops->av_offdiag(marcher->lctx, c, LUSGS_ALL, marcher->R, marcher->dU, Rv));
        DG_CALL(ops->relax(marcher->lctx, c, U, Rv, marcher->dU));
      }
    }
    DG_CALL(ops->update(marcher->lctx, U, marcher->dU, opts->max_change));
    /* the positivity guard of the explicit path (limiter.h) on the new state */
    DG_CALL(b->limit(ctx, U, marcher->limit_count));
    return DG_SUCCESS;
  }
  for (int c = 0; c < marcher->n_colors; ++c)
    DG_CALL(ops->sweep_forward(marcher->lctx, c, U, marcher->R, marcher->dU));
  for (int c = marcher->n_colors - 1; c >= 0; --c)
    DG_CALL(ops->sweep_backward(marcher->lctx, c, U, marcher->dU));
  /* extra symmetric block Gauss–Seidel sweeps on (D + L + U) ΔU = R */
  for (int sweep = 1; sweep < opts->n_sweeps; ++sweep) {
    for (int c = 0; c < marcher->n_colors; ++c)
      DG_CALL(ops->relax(marcher->lctx, c, U, marcher->R, marcher->dU));
    for (int c = marcher->n_colors - 1; c >= 0; --c)
      DG_CALL(ops->relax(marcher->lctx, c, U, marcher->R, marcher->dU));
  }
  DG_CALL(ops->update(marcher->lctx, U, marcher->dU, opts->max_change));
  return DG_SUCCESS;
}
