#include "dg/explicit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dg/limiter.h"

dg_status explicit_rk3_create(const dg_backend *backend, dg_backend_ctx *ctx, const dg_disc *disc,
                              explicit_rk3 *rk) {
  DG_CHECK(backend && ctx && disc && rk, DG_ERR_ARG,
           "explicit_rk3_create: NULL backend, context, discretisation or output");
  memset(rk, 0, sizeof *rk);
  rk->backend = backend;
  rk->ctx = ctx;
  rk->n_elems = disc->view.n_elems;
  dg_status status = dg_vec_create(backend, ctx, DG_VEC_STATE, &rk->U1);
  if (status == DG_SUCCESS) status = dg_vec_create(backend, ctx, DG_VEC_STATE, &rk->R);
  if (status == DG_SUCCESS) status = dg_vec_create(backend, ctx, DG_VEC_ELEM, &rk->dt);
  if (status == DG_SUCCESS) status = dg_vec_create(backend, ctx, DG_VEC_ELEM, &rk->limit_count);
  if (status != DG_SUCCESS) {
    explicit_rk3_destroy(rk);
    DG_CALL(status);
  }
  return DG_SUCCESS;
}

void explicit_rk3_destroy(explicit_rk3 *rk) {
  if (!rk || !rk->backend) return;
  dg_vec_destroy(&rk->U1);
  dg_vec_destroy(&rk->R);
  dg_vec_destroy(&rk->dt);
  dg_vec_destroy(&rk->limit_count);
  memset(rk, 0, sizeof *rk);
}

/* Fills rk->dt with the fixed global step h, uploading only when h changes
 * (a fixed-step run uploads once). */
static dg_status explicit_rk3_fill_dt(explicit_rk3 *rk, double h) {
  if (rk->dt_uploaded == h) return DG_SUCCESS;
  double *host = NULL;
  DG_CALL(DG_CALLOC(host, rk->n_elems > 0 ? rk->n_elems : 1));
  for (int64_t e = 0; e < rk->n_elems; ++e) host[e] = h;
  const dg_status status = dg_vec_upload(host, &rk->dt);
  free(host);
  DG_CALL(status);
  rk->dt_uploaded = h;
  return DG_SUCCESS;
}

dg_status explicit_rk3_global_step(explicit_rk3 *rk, const dg_vec *U, double cfl, double *dt) {
  DG_CHECK(rk && rk->backend && U && dt, DG_ERR_ARG, "explicit_rk3_global_step: NULL argument");
  DG_CHECK(cfl > 0.0, DG_ERR_ARG, "explicit_rk3_global_step: CFL %g must be > 0", cfl);
  rk->dt_uploaded = 0.0;
  DG_CALL(dg_backend_timestep(rk->backend, rk->ctx, U, cfl, 1, &rk->dt, dt));
  rk->dt_uploaded =
      *dt; /* rk->dt holds it everywhere: a step with dt_fixed = *dt uploads nothing */
  return DG_SUCCESS;
}

dg_status explicit_rk3_step(explicit_rk3 *rk, dg_vec *U, double t, const explicit_rk3_opts *opts,
                            explicit_rk3_info *info) {
  DG_CHECK(rk && rk->backend && U && opts, DG_ERR_ARG,
           "explicit_rk3_step: NULL marcher, state or options");
  const dg_backend *b = rk->backend;
  dg_backend_ctx *ctx = rk->ctx;
  double h = opts->dt_fixed;
  if (h > 0.0) {
    DG_CHECK(isfinite(h), DG_ERR_ARG, "explicit_rk3_step: fixed time step %g is not finite", h);
    DG_CALL(explicit_rk3_fill_dt(rk, h));
  } else {
    DG_CHECK(opts->cfl > 0.0, DG_ERR_ARG, "explicit_rk3_step: CFL %g must be > 0", opts->cfl);
    /* local steps: the smallest is only reported, on the steps with norms */
    const int want_min = !opts->local_dt || opts->compute_norms;
    h = 0.0;
    DG_CALL(
        dg_backend_timestep(b, ctx, U, opts->cfl, !opts->local_dt, &rk->dt, want_min ? &h : NULL));
    rk->dt_uploaded = 0.0;
  }
  const int global = opts->dt_fixed > 0.0 || !opts->local_dt;
  const double t2 = global ? t + h : t, t3 = global ? t + 0.5 * h : t;

  /* each stage: the residual and the update in one backend call
   * (dg_backend_residual_rk: one pass over the elements, same bits); R is
   * kept only where the norms read it */
  DG_CALL(dg_backend_residual_rk(b, ctx, U, t, 0.0, U, 1.0, &rk->dt, &rk->R, opts->compute_norms,
                                 &rk->U1));
  if (info) {
    memset(info, 0, sizeof *info);
    info->dt = h;
    info->finite = 1;
  }
  if (opts->compute_norms) {
    double norms[DG_MAX_NVAR] = {0};
    int finite = 1;
    DG_CALL(dg_backend_norms(b, ctx, &rk->R, norms, &finite));
    if (info) {
      memcpy(info->res_norm, norms, sizeof norms);
      info->finite = finite;
    }
    DG_CHECK(finite, DG_ERR_DIVERGED, "explicit_rk3_step: the residual at t = %g is not finite", t);
  }
  const int guard = opts->positivity != 0;
  if (guard) DG_CALL(dg_backend_limit(b, ctx, &rk->U1, &rk->limit_count));
  DG_CALL(dg_backend_residual_rk(b, ctx, &rk->U1, t2, 0.75, U, 0.25, &rk->dt, &rk->R, 0, &rk->U1));
  if (guard) DG_CALL(dg_backend_limit(b, ctx, &rk->U1, &rk->limit_count));
  DG_CALL(
      dg_backend_residual_rk(b, ctx, &rk->U1, t3, 1.0 / 3.0, U, 2.0 / 3.0, &rk->dt, &rk->R, 0, U));
  if (guard) DG_CALL(dg_backend_limit(b, ctx, U, &rk->limit_count));
  return DG_SUCCESS;
}

dg_status explicit_rk3_limit_count(explicit_rk3 *rk, double *total, int64_t *n_bad) {
  DG_CHECK(rk && rk->backend && rk->limit_count.data && total, DG_ERR_ARG,
           "explicit_rk3_limit_count: NULL or destroyed marcher, or NULL total");
  return limiter_count_download(&rk->limit_count, total, n_bad);
}

dg_status limiter_count_download(const dg_vec *count, double *total, int64_t *n_bad) {
  DG_CHECK(count && count->kind == DG_VEC_ELEM && total, DG_ERR_ARG,
           "limiter_count_download: NULL or not element-sized count vector, or NULL total");
  const int64_t n_elems = count->n;
  double *host = NULL;
  DG_CALL(DG_CALLOC(host, n_elems > 0 ? n_elems : 1));
  const dg_status status = dg_vec_download(count, host);
  double sum = 0.0;
  int64_t bad = 0;
  for (int64_t e = 0; e < n_elems && status == DG_SUCCESS; ++e) {
    int is_bad = 0;
    sum += limiter_count_split(host[e], &is_bad);
    bad += is_bad;
  }
  free(host);
  DG_CALL(status);
  *total = sum;
  if (n_bad) *n_bad = bad;
  return DG_SUCCESS;
}

/* ------------------------------------------------- marcher interface */

/* The SSP-RK3 marcher behind dg_marcher (src/dg/marcher.h). */
typedef struct explicit_rk3_marcher {
  explicit_rk3 rk;
  explicit_rk3_opts opts; /* from the settings; dt_fixed, compute_norms per step */
  int64_t steps, residuals;
} explicit_rk3_marcher;

static void explicit_rk3_marcher_destroy(dg_marcher *m) {
  if (!m || !m->impl) return;
  explicit_rk3_marcher *x = m->impl;
  explicit_rk3_destroy(&x->rk);
  free(x);
  m->impl = NULL;
  m->ops = NULL;
}

static dg_status explicit_rk3_marcher_create(const dg_backend *backend, dg_backend_ctx *ctx,
                                             const dg_disc *disc,
                                             const dg_marcher_settings *settings, dg_marcher *m) {
  DG_CHECK(settings && m, DG_ERR_ARG, "explicit_rk3: NULL settings or output");
  m->ops = NULL;
  m->impl = NULL;
  explicit_rk3_marcher *x = NULL;
  DG_CALL(DG_CALLOC(x, 1));
  const dg_status status = explicit_rk3_create(backend, ctx, disc, &x->rk);
  if (status != DG_SUCCESS) {
    free(x);
    DG_CALL(status);
  }
  x->opts.cfl = settings->cfl;
  x->opts.local_dt = settings->local_dt;
  x->opts.positivity = settings->positivity;
  m->ops = explicit_rk3_marcher_ops();
  m->impl = x;
  return DG_SUCCESS;
}

static dg_status explicit_rk3_marcher_step(dg_marcher *m, dg_vec *U,
                                           const dg_marcher_step_opts *opts,
                                           dg_marcher_info *info) {
  DG_CHECK(m && m->impl && opts && info, DG_ERR_ARG, "explicit_rk3: NULL marcher, options or info");
  explicit_rk3_marcher *x = m->impl;
  memset(info, 0, sizeof *info);
  info->iteration = opts->iteration;
  info->cfl = x->opts.cfl;
  info->finite = 1;
  info->bad_equation = -1;
  x->opts.dt_fixed = opts->dt_fixed;
  x->opts.compute_norms = opts->compute_norms;
  explicit_rk3_info ri;
  memset(&ri, 0, sizeof ri);
  ri.finite = 1;
  ++x->steps;
  const dg_status status = explicit_rk3_step(&x->rk, U, opts->t, &x->opts, &ri);
  const int global = opts->dt_fixed > 0.0 || !x->opts.local_dt;
  info->dt = global ? ri.dt : 0.0;
  info->dt_min = ri.dt;
  info->finite = ri.finite;
  if (opts->compute_norms) {
    info->has_norms = 1;
    double total = 0.0;
    for (int v = 0; v < DG_MAX_NVAR; ++v) {
      info->res_norm[v] = ri.res_norm[v];
      total += ri.res_norm[v] * ri.res_norm[v];
      if (info->bad_equation < 0 && !isfinite(ri.res_norm[v])) info->bad_equation = v;
    }
    info->res_total = sqrt(total);
  }
  info->diverged = status == DG_ERR_DIVERGED;
  if (status == DG_SUCCESS) x->residuals += 3;
  return status;
}

static dg_status explicit_rk3_marcher_stable_step(dg_marcher *m, const dg_vec *U, double *dt) {
  DG_CHECK(m && m->impl, DG_ERR_ARG, "explicit_rk3: NULL marcher");
  explicit_rk3_marcher *x = m->impl;
  return explicit_rk3_global_step(&x->rk, U, x->opts.cfl, dt);
}

static dg_status explicit_rk3_marcher_stats(dg_marcher *m, int with_limiter,
                                            dg_marcher_stats *stats) {
  DG_CHECK(m && m->impl && stats, DG_ERR_ARG, "explicit_rk3: NULL marcher or output");
  explicit_rk3_marcher *x = m->impl;
  memset(stats, 0, sizeof *stats);
  stats->steps = x->steps;
  stats->residuals = x->residuals;
  stats->has_limiter = x->opts.positivity != 0;
  if (with_limiter && stats->has_limiter)
    DG_CALL(explicit_rk3_limit_count(&x->rk, &stats->limit_total, &stats->limit_bad));
  return DG_SUCCESS;
}

const dg_marcher_ops *explicit_rk3_marcher_ops(void) {
  static const dg_marcher_ops ops = {
      .name = "explicit_rk3",
      .cfl_key = "cfl",
      .time_accurate = 1,
      .holds_av = 0,
      .create = explicit_rk3_marcher_create,
      .step = explicit_rk3_marcher_step,
      .stable_step = explicit_rk3_marcher_stable_step,
      .stats = explicit_rk3_marcher_stats,
      .destroy = explicit_rk3_marcher_destroy,
  };
  return &ops;
}
