#include "lusgs/lusgs.h"
#include "dg/explicit.h"
#include "lusgs/lusgs_ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const lusgs_backend *lusgs_backend_for(const dg_backend *backend) {
  return backend ? (const lusgs_backend *)backend->implicit_ops : NULL;
}

dg_status lusgs_create(const dg_backend *backend, dg_backend_ctx *ctx, const dg_disc *disc,
                       const dg_coloring *coloring, lusgs_marcher *marcher) {
  DG_CHECK(backend && ctx && disc && coloring && marcher, DG_ERR_ARG,
           "lusgs_create: NULL backend, context, discretisation, colouring or output");
  /* the colouring was checked where it was made (src/coloring); only that it
   * is one of this discretisation */
  DG_CHECK(coloring->n_colors >= 1 && coloring->color && coloring->color_start &&
               coloring->color_elems && coloring->color_first,
           DG_ERR_ARG,
           "lusgs_create: a colouring with %d colours and no element lists; expected one made by "
           "coloring_build or coloring_from_colors",
           coloring->n_colors);
  DG_CHECK(coloring->n_elems == disc->view.n_elems, DG_ERR_ARG,
           "lusgs_create: the colouring has %lld elements, the discretisation %lld",
           (long long)coloring->n_elems, (long long)disc->view.n_elems);
  memset(marcher, 0, sizeof *marcher);
  const lusgs_backend *ops = lusgs_backend_for(backend);
  DG_CHECK(ops, DG_ERR_UNSUPPORTED,
           "lusgs: backend %s has no LU-SGS operations (this build has no CUDA?); use --backend "
           "cpu or scheme = explicit_rk3",
           backend->name ? backend->name : "?");
  marcher->backend = backend;
  marcher->ctx = ctx;
  marcher->ops = ops;
  marcher->coloring = coloring;
  marcher->n_colors = coloring->n_colors;
  marcher->nvar = disc->view.nvar;
  marcher->n_elems = disc->view.n_elems;
  dg_status status = dg_vec_create(backend, ctx, DG_VEC_STATE, &marcher->R);
  if (status == DG_SUCCESS) status = dg_vec_create(backend, ctx, DG_VEC_STATE, &marcher->dU);
  if (status == DG_SUCCESS) status = dg_vec_create(backend, ctx, DG_VEC_ELEM, &marcher->dt);
  marcher->av = disc->view.av != DG_AV_OFF;
  if (status == DG_SUCCESS && marcher->av) {
    if (!ops->av_offdiag)
      status = dg_error_set(DG_ERR_UNSUPPORTED, __FILE__, __LINE__, __func__,
                            "lusgs: backend %s has no artificial-viscosity LU-SGS operations",
                            backend->name);
    else
      status = dg_vec_create(backend, ctx, DG_VEC_STATE, &marcher->R_av);
    if (status == DG_SUCCESS)
      status = dg_vec_create(backend, ctx, DG_VEC_ELEM, &marcher->limit_count);
  }
  if (status == DG_SUCCESS) status = ops->create(ctx, disc, coloring, &marcher->lctx);
  if (status != DG_SUCCESS) {
    lusgs_destroy(marcher);
    DG_CALL(status);
  }
  return DG_SUCCESS;
}

void lusgs_destroy(lusgs_marcher *marcher) {
  if (!marcher || !marcher->backend) return;
  if (marcher->lctx) marcher->ops->destroy(marcher->lctx);
  dg_vec_destroy(&marcher->R);
  dg_vec_destroy(&marcher->dU);
  dg_vec_destroy(&marcher->dt);
  dg_vec_destroy(&marcher->R_av);
  dg_vec_destroy(&marcher->limit_count);
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
  DG_CHECK(marcher && marcher->backend && marcher->limit_count.data && total, DG_ERR_ARG,
           "lusgs_limit_count: NULL marcher or total, or a marcher without artificial viscosity");
  return limiter_count_download(&marcher->limit_count, total, n_bad);
}

const char *lusgs_phase_name(lusgs_phase phase) {
  static const char *names[LUSGS_N_PHASES + 1] = {"av_hold",  "residual", "norms",       "timestep",
                                                  "face_jac", "assembly", "av_assembly", "factor",
                                                  "forward",  "backward", "update",      "end"};
  return phase >= 0 && phase <= LUSGS_N_PHASES ? names[phase] : "?";
}

void lusgs_set_phase_hook(lusgs_marcher *marcher, const lusgs_phase_hook *hook) {
  if (!marcher) return;
  memset(&marcher->hook, 0, sizeof marcher->hook);
  if (hook && hook->mark) marcher->hook = *hook;
  if (marcher->ops && marcher->ops->set_phase_hook && marcher->lctx)
    marcher->ops->set_phase_hook(marcher->lctx, marcher->hook.mark ? &marcher->hook : NULL);
}

/* Tells the profile hook (if any) that phase begins. */
static dg_status lusgs_mark(const lusgs_marcher *marcher, lusgs_phase phase) {
  return marcher->hook.mark ? marcher->hook.mark(marcher->hook.user, phase) : DG_SUCCESS;
}

dg_status lusgs_apply(lusgs_marcher *marcher, const dg_vec *U_vec, const dg_vec *rhs_vec,
                      int n_sweeps, dg_vec *dU_vec) {
  DG_CHECK(marcher && marcher->backend && U_vec && rhs_vec && dU_vec, DG_ERR_ARG,
           "lusgs_apply: NULL marcher, state, right-hand side or output");
  DG_CHECK(U_vec->data && U_vec->kind == DG_VEC_STATE && rhs_vec->data &&
               rhs_vec->kind == DG_VEC_STATE && dU_vec->data && dU_vec->kind == DG_VEC_STATE,
           DG_ERR_ARG, "lusgs_apply: U, rhs and dU must be live state-sized vectors");
  const double *U = U_vec->data, *rhs = rhs_vec->data;
  double *dU = dU_vec->data;
  DG_CHECK(n_sweeps >= 0 && n_sweeps <= LUSGS_MAX_SWEEPS, DG_ERR_ARG,
           "lusgs_apply: %d symmetric sweeps; expected 1 to %d (0 means 1)", n_sweeps,
           LUSGS_MAX_SWEEPS);
  DG_CHECK(dU != rhs && dU != U &&
               (!marcher->R_av.data || (dU != marcher->R_av.data && rhs != marcher->R_av.data)),
           DG_ERR_ARG, "lusgs_apply: dU aliases the right-hand side, the state or the scratch");
  const lusgs_backend *ops = marcher->ops;
  lusgs_ctx *x = marcher->lctx;
  const int n_colors = marcher->n_colors;
  const int passes = n_sweeps > 1 ? n_sweeps : 1;
  if (marcher->av) {
    /* viscous coupling (lusgs_av.h): each colour relaxes against rhs minus
     * the viscous products of its neighbours' current dU; the backward pass
     * is a downward relaxation (equal to sweep_backward after a forward
     * pass) */
    double *Rv = marcher->R_av.data;
    for (int sweep = 0; sweep < passes; ++sweep) {
      DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_FORWARD));
      for (int c = 0; c < n_colors; ++c) {
        DG_CALL(ops->av_offdiag(x, c, sweep ? LUSGS_ALL : LUSGS_LOWER, rhs, dU, Rv));
        if (sweep)
          DG_CALL(ops->relax(x, c, U, Rv, dU));
        else
          DG_CALL(ops->sweep_forward(x, c, U, Rv, dU));
      }
      DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_BACKWARD));
      for (int c = n_colors - 1; c >= 0; --c) {
        DG_CALL(ops->av_offdiag(x, c, LUSGS_ALL, rhs, dU, Rv));
        DG_CALL(ops->relax(x, c, U, Rv, dU));
      }
    }
    return DG_SUCCESS;
  }
  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_FORWARD));
  for (int c = 0; c < n_colors; ++c) DG_CALL(ops->sweep_forward(x, c, U, rhs, dU));
  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_BACKWARD));
  for (int c = n_colors - 1; c >= 0; --c) DG_CALL(ops->sweep_backward(x, c, U, dU));
  /* extra symmetric block Gauss–Seidel sweeps on (D + L + U) dU = rhs */
  for (int sweep = 1; sweep < passes; ++sweep) {
    DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_FORWARD));
    for (int c = 0; c < n_colors; ++c) DG_CALL(ops->relax(x, c, U, rhs, dU));
    DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_BACKWARD));
    for (int c = n_colors - 1; c >= 0; --c) DG_CALL(ops->relax(x, c, U, rhs, dU));
  }
  return DG_SUCCESS;
}

dg_status lusgs_matvec(lusgs_marcher *marcher, const dg_vec *U, const dg_vec *x, dg_vec *y) {
  DG_CHECK(marcher && marcher->backend && U && x && y, DG_ERR_ARG,
           "lusgs_matvec: NULL marcher, state or vector");
  DG_CHECK(U->data && U->kind == DG_VEC_STATE && x->data && x->kind == DG_VEC_STATE && y->data &&
               y->kind == DG_VEC_STATE && U->ctx == marcher->ctx && x->ctx == marcher->ctx &&
               y->ctx == marcher->ctx,
           DG_ERR_ARG,
           "lusgs_matvec: U, x and y must be live state-sized vectors of the marcher's "
           "backend context");
  DG_CHECK(y->data != x->data && y->data != U->data, DG_ERR_ARG,
           "lusgs_matvec: y aliases x or the state");
  DG_CHECK(marcher->ops->matvec, DG_ERR_UNSUPPORTED,
           "lusgs_matvec: the %s LU-SGS backend has no matrix-vector product",
           marcher->ops->name ? marcher->ops->name : "?");
  DG_CALL(marcher->ops->matvec(marcher->lctx, U->data, x->data, y->data));
  return DG_SUCCESS;
}

dg_status lusgs_mass(lusgs_marcher *marcher, const dg_vec *dt, const dg_vec *x, dg_vec *y) {
  DG_CHECK(marcher && marcher->backend && dt && x && y, DG_ERR_ARG,
           "lusgs_mass: NULL marcher, time steps or vector");
  DG_CHECK(dt->data && dt->kind == DG_VEC_ELEM && x->data && x->kind == DG_VEC_STATE && y->data &&
               y->kind == DG_VEC_STATE && dt->ctx == marcher->ctx && x->ctx == marcher->ctx &&
               y->ctx == marcher->ctx && y->data != x->data,
           DG_ERR_ARG,
           "lusgs_mass: dt (element-sized), x and y (state-sized, distinct) must be live vectors "
           "of the marcher's backend context");
  DG_CHECK(marcher->ops->mass, DG_ERR_UNSUPPORTED,
           "lusgs_mass: the %s LU-SGS backend has no mass op",
           marcher->ops->name ? marcher->ops->name : "?");
  DG_CALL(marcher->ops->mass(marcher->lctx, dt->data, x->data, y->data));
  return DG_SUCCESS;
}

dg_status lusgs_update(lusgs_marcher *marcher, dg_vec *U, const dg_vec *dU, double max_change) {
  DG_CHECK(marcher && marcher->backend && U && dU, DG_ERR_ARG,
           "lusgs_update: NULL marcher, state or update");
  DG_CHECK(U->data && U->kind == DG_VEC_STATE && dU->data && dU->kind == DG_VEC_STATE &&
               U->ctx == marcher->ctx && dU->ctx == marcher->ctx && U->data != dU->data,
           DG_ERR_ARG,
           "lusgs_update: U and dU must be distinct live state-sized vectors of the marcher's "
           "backend context");
  DG_CALL(marcher->ops->update(marcher->lctx, U->data, dU->data, max_change));
  return DG_SUCCESS;
}

dg_status lusgs_assemble(lusgs_marcher *marcher, const dg_vec *U, double t, const dg_vec *dt) {
  DG_CHECK(marcher && marcher->backend && U && dt, DG_ERR_ARG,
           "lusgs_assemble: NULL marcher, state or time steps");
  DG_CHECK(U->data && U->kind == DG_VEC_STATE && dt->data && dt->kind == DG_VEC_ELEM &&
               U->ctx == marcher->ctx && dt->ctx == marcher->ctx,
           DG_ERR_ARG,
           "lusgs_assemble: U (state-sized) and dt (element-sized) must be live vectors of the "
           "marcher's backend context");
  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_FACE_JAC));
  DG_CALL(marcher->ops->assemble(marcher->lctx, U->data, t, dt->data));
  return DG_SUCCESS;
}

dg_status lusgs_step(lusgs_marcher *marcher, dg_vec *U, double t, int iteration,
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

  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_AV_HOLD));
  if (marcher->av) {
    /* ε of this iteration, held for the residual, the blocks and the sweeps */
    const double omega = opts->av_relax > 0.0 ? opts->av_relax : 1.0;
    DG_CHECK(omega <= 1.0, DG_ERR_ARG, "lusgs_step: viscosity relaxation %g outside (0, 1]", omega);
    DG_CALL(dg_backend_av_hold(b, ctx, U, omega));
  }
  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_RESIDUAL));
  DG_CALL(dg_backend_residual(b, ctx, U, t, &marcher->R));
  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_NORMS));
  int finite = 1;
  DG_CALL(dg_backend_norms(b, ctx, &marcher->R, out->res_norm, &finite));
  out->finite = finite;
  DG_CHECK(finite, DG_ERR_DIVERGED, "lusgs: the residual of iteration %d is not finite", iteration);
  double total = 0.0;
  for (int v = 0; v < marcher->nvar; ++v) total += out->res_norm[v] * out->res_norm[v];
  out->res_total = sqrt(total);
  if (!(marcher->res0 > 0.0)) marcher->res0 = out->res_total;

  out->cfl = lusgs_cfl(opts, iteration, marcher->res0, out->res_total);
  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_TIMESTEP));
  DG_CALL(dg_backend_timestep(b, ctx, U, out->cfl, 0, &marcher->dt, &out->dt_min));
  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_FACE_JAC));
  DG_CALL(ops->assemble(marcher->lctx, U->data, t, marcher->dt.data));
  DG_CALL(lusgs_apply(marcher, U, &marcher->R, opts->n_sweeps, &marcher->dU));
  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_UPDATE));
  DG_CALL(ops->update(marcher->lctx, U->data, marcher->dU.data, opts->max_change));
  /* the positivity guard of the explicit path (limiter.h) on the new state */
  if (marcher->av) DG_CALL(dg_backend_limit(b, ctx, U, &marcher->limit_count));
  DG_CALL(lusgs_mark(marcher, LUSGS_N_PHASES));
  return DG_SUCCESS;
}

/* ------------------------------------------------- marcher interface */

/* The LU-SGS marcher behind dg_marcher (src/dg/marcher.h). */
typedef struct lusgs_marcher_impl {
  lusgs_marcher lusgs;
  lusgs_opts opts;
  int64_t steps, residuals;
} lusgs_marcher_impl;

static void lusgs_marcher_if_destroy(dg_marcher *m) {
  if (!m || !m->impl) return;
  lusgs_marcher_impl *x = m->impl;
  lusgs_destroy(&x->lusgs);
  free(x);
  m->impl = NULL;
  m->ops = NULL;
}

static dg_status lusgs_marcher_if_create(const dg_backend *backend, dg_backend_ctx *ctx,
                                         const dg_disc *disc, const dg_marcher_settings *settings,
                                         dg_marcher *m) {
  DG_CHECK(settings && m, DG_ERR_ARG, "lusgs: NULL settings or output");
  m->ops = NULL;
  m->impl = NULL;
  lusgs_marcher_impl *x = NULL;
  DG_CALL(DG_CALLOC(x, 1));
  const dg_status status = lusgs_create(backend, ctx, disc, settings->coloring, &x->lusgs);
  if (status != DG_SUCCESS) {
    free(x);
    DG_CALL(status);
  }
  const lusgs_opts opts = {settings->cfl_law,        settings->cfl_min,  settings->cfl_max,
                           settings->cfl_ramp_iters, settings->n_sweeps, settings->av_relax,
                           settings->max_change};
  x->opts = opts;
  lusgs_set_reference(&x->lusgs, settings->res_reference);
  m->ops = lusgs_marcher_ops();
  m->impl = x;
  return DG_SUCCESS;
}

static dg_status lusgs_marcher_if_step(dg_marcher *m, dg_vec *U, const dg_marcher_step_opts *opts,
                                       dg_marcher_info *info) {
  DG_CHECK(m && m->impl && opts && info, DG_ERR_ARG, "lusgs: NULL marcher, options or info");
  lusgs_marcher_impl *x = m->impl;
  memset(info, 0, sizeof *info);
  info->iteration = opts->iteration;
  info->bad_equation = -1;
  lusgs_info li;
  ++x->steps;
  const dg_status status = lusgs_step(&x->lusgs, U, opts->t, opts->iteration, &x->opts, &li);
  /* steady: the time stays; norms every iteration */
  info->dt = 0.0;
  info->dt_min = li.dt_min;
  info->cfl = li.cfl;
  info->has_norms = 1;
  info->finite = li.finite;
  for (int v = 0; v < x->lusgs.nvar; ++v) {
    info->res_norm[v] = li.res_norm[v];
    if (info->bad_equation < 0 && !isfinite(li.res_norm[v])) info->bad_equation = v;
  }
  info->res_total = li.res_total;
  info->diverged = status == DG_ERR_DIVERGED;
  if (status == DG_SUCCESS) ++x->residuals;
  return status;
}

static dg_status lusgs_marcher_if_stats(dg_marcher *m, int with_limiter, dg_marcher_stats *stats) {
  DG_CHECK(m && m->impl && stats, DG_ERR_ARG, "lusgs: NULL marcher or output");
  lusgs_marcher_impl *x = m->impl;
  memset(stats, 0, sizeof *stats);
  stats->steps = x->steps;
  stats->residuals = x->residuals;
  stats->res_reference = lusgs_reference(&x->lusgs);
  stats->has_limiter = x->lusgs.av;
  if (with_limiter && stats->has_limiter)
    DG_CALL(lusgs_limit_count(&x->lusgs, &stats->limit_total, &stats->limit_bad));
  return DG_SUCCESS;
}

const dg_marcher_ops *lusgs_marcher_ops(void) {
  static const dg_marcher_ops ops = {
      .name = "lusgs",
      .cfl_key = "cfl_max",
      .time_accurate = 0,
      .holds_av = 1,
      .create = lusgs_marcher_if_create,
      .step = lusgs_marcher_if_step,
      .stable_step = NULL,
      .stats = lusgs_marcher_if_stats,
      .destroy = lusgs_marcher_if_destroy,
  };
  return &ops;
}

lusgs_marcher *lusgs_marcher_of(dg_marcher *m) {
  return m && m->ops == lusgs_marcher_ops() && m->impl ? &((lusgs_marcher_impl *)m->impl)->lusgs
                                                       : NULL;
}
