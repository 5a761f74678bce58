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
  dg_status status = backend->vec_alloc(ctx, DG_VEC_STATE, &rk->U1);
  if (status == DG_SUCCESS) status = backend->vec_alloc(ctx, DG_VEC_STATE, &rk->R);
  if (status == DG_SUCCESS) status = backend->vec_alloc(ctx, DG_VEC_ELEM, &rk->dt);
  if (status == DG_SUCCESS) status = backend->vec_alloc(ctx, DG_VEC_ELEM, &rk->limit_count);
  if (status != DG_SUCCESS) {
    explicit_rk3_destroy(rk);
    DG_CALL(status);
  }
  return DG_SUCCESS;
}

void explicit_rk3_destroy(explicit_rk3 *rk) {
  if (!rk || !rk->backend) return;
  if (rk->U1) rk->backend->vec_free(rk->ctx, rk->U1);
  if (rk->R) rk->backend->vec_free(rk->ctx, rk->R);
  if (rk->dt) rk->backend->vec_free(rk->ctx, rk->dt);
  if (rk->limit_count) rk->backend->vec_free(rk->ctx, rk->limit_count);
  memset(rk, 0, sizeof *rk);
}

/* Fills rk->dt with the fixed global step h, uploading only when h changes
 * (a fixed-step run uploads once). */
static dg_status explicit_rk3_fill_dt(explicit_rk3 *rk, double h) {
  if (rk->dt_uploaded == h) return DG_SUCCESS;
  double *host = NULL;
  DG_CALL(DG_CALLOC(host, rk->n_elems > 0 ? rk->n_elems : 1));
  for (int64_t e = 0; e < rk->n_elems; ++e) host[e] = h;
  const dg_status status = rk->backend->upload(rk->ctx, DG_VEC_ELEM, host, rk->dt);
  free(host);
  DG_CALL(status);
  rk->dt_uploaded = h;
  return DG_SUCCESS;
}

dg_status explicit_rk3_global_step(explicit_rk3 *rk, const double *U, double cfl, double *dt) {
  DG_CHECK(rk && rk->backend && U && dt, DG_ERR_ARG, "explicit_rk3_global_step: NULL argument");
  DG_CHECK(cfl > 0.0, DG_ERR_ARG, "explicit_rk3_global_step: CFL %g must be > 0", cfl);
  rk->dt_uploaded = 0.0;
  DG_CALL(rk->backend->timestep(rk->ctx, U, cfl, 1, rk->dt, dt));
  return DG_SUCCESS;
}

dg_status explicit_rk3_step(explicit_rk3 *rk, double *U, double t, const explicit_rk3_opts *opts,
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
    DG_CALL(b->timestep(ctx, U, opts->cfl, !opts->local_dt, rk->dt, &h));
    rk->dt_uploaded = 0.0;
  }
  const int global = opts->dt_fixed > 0.0 || !opts->local_dt;
  const double t2 = global ? t + h : t, t3 = global ? t + 0.5 * h : t;

  DG_CALL(b->residual(ctx, U, t, rk->R));
  if (info) {
    memset(info, 0, sizeof *info);
    info->dt = h;
    info->finite = 1;
  }
  if (opts->compute_norms) {
    double norms[DG_MAX_NVAR] = {0};
    int finite = 1;
    DG_CALL(b->norms(ctx, rk->R, norms, &finite));
    if (info) {
      memcpy(info->res_norm, norms, sizeof norms);
      info->finite = finite;
    }
    DG_CHECK(finite, DG_ERR_DIVERGED, "explicit_rk3_step: the residual at t = %g is not finite", t);
  }
  const int guard = opts->positivity != 0;
  if (guard)
    DG_CHECK(b->limit, DG_ERR_UNSUPPORTED,
             "explicit_rk3_step: backend %s has no positivity limiter", b->name);
  DG_CALL(b->rk_update(ctx, 0.0, U, 1.0, U, rk->dt, rk->R, rk->U1));
  if (guard) DG_CALL(b->limit(ctx, rk->U1, rk->limit_count));
  DG_CALL(b->residual(ctx, rk->U1, t2, rk->R));
  DG_CALL(b->rk_update(ctx, 0.75, U, 0.25, rk->U1, rk->dt, rk->R, rk->U1));
  if (guard) DG_CALL(b->limit(ctx, rk->U1, rk->limit_count));
  DG_CALL(b->residual(ctx, rk->U1, t3, rk->R));
  DG_CALL(b->rk_update(ctx, 1.0 / 3.0, U, 2.0 / 3.0, rk->U1, rk->dt, rk->R, U));
  if (guard) DG_CALL(b->limit(ctx, U, rk->limit_count));
  return DG_SUCCESS;
}

dg_status explicit_rk3_limit_count(explicit_rk3 *rk, double *total, int64_t *n_bad) {
  DG_CHECK(rk && rk->backend && rk->limit_count && total, DG_ERR_ARG,
           "explicit_rk3_limit_count: NULL or destroyed marcher, or NULL total");
  return limiter_count_download(rk->backend, rk->ctx, rk->limit_count, rk->n_elems, total, n_bad);
}

dg_status limiter_count_download(const dg_backend *backend, dg_backend_ctx *ctx,
                                 const double *count, int64_t n_elems, double *total,
                                 int64_t *n_bad) {
  DG_CHECK(backend && ctx && count && total, DG_ERR_ARG,
           "limiter_count_download: NULL backend, context, count vector or total");
  double *host = NULL;
  DG_CALL(DG_CALLOC(host, n_elems > 0 ? n_elems : 1));
  const dg_status status = backend->download(ctx, DG_VEC_ELEM, count, host);
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
