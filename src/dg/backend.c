/* The checked entry points of the backend layer (src/dg/backend.h): every
 * call from outside the backends goes through here. Each entry point checks
 * its arguments once (the implementations behind the table trust them),
 * reports an operation the table lacks as DG_ERR_UNSUPPORTED, and calls the
 * table. */
#include "dg/backend.h"

#include <math.h>
#include <string.h>

const char *dg_backend_name(const dg_backend *b) { return b && b->name ? b->name : "?"; }

/* The table member op of b, or DG_ERR_UNSUPPORTED naming the operation. */
#define BACKEND_NEED(b, member, what)                                                              \
  DG_CHECK((b)->member, DG_ERR_UNSUPPORTED, "%s (backend %s): this backend has no %s operation",   \
           what, dg_backend_name(b), #member)

/* ------------------------------------------------ the reduction point */

/* THE place where the backends' local results become global: every norm,
 * dot product, force sum and the time-step minimum of the backend layer
 * passes through here (values[0..n) in place, each combined over the
 * processes of the context's communicator, the table's comm operation; one
 * process, or a backend without it, has nothing to combine). local is the
 * status of this process's part: a failure on one rank becomes an error on
 * every rank instead of leaving the others waiting in the collective
 * (dg_comm_allreduce_checked). Sums are added in rank order, so they have
 * the same bits on every rank and in every run with the same partition. */
static dg_status backend_reduce(const dg_backend *b, const dg_backend_ctx *ctx, dg_status local,
                                dg_comm_op op, double *values, int n) {
  const dg_comm *comm = b->comm ? b->comm(ctx) : NULL;
  if (!comm || dg_comm_size(comm) == 1) return local;
  return dg_comm_allreduce_checked(comm, local, op, values, n);
}

/* b and ctx given. */
#define BACKEND_ENTER(b, ctx, what)                                                                \
  do {                                                                                             \
    DG_CHECK((b), DG_ERR_ARG, "%s: NULL backend", what);                                           \
    DG_CHECK((ctx), DG_ERR_ARG, "%s (backend %s): NULL context", what, dg_backend_name(b));        \
  } while (0)

static const char *vec_kind_name(dg_vec_kind kind) {
  return kind == DG_VEC_STATE ? "state-sized" : kind == DG_VEC_ELEM ? "element-sized" : "unknown";
}

/* v (named name) is a live vector of (b, ctx) of the given kind. */
static dg_status check_vec(const char *what, const dg_backend *b, const dg_backend_ctx *ctx,
                           const dg_vec *v, const char *name, dg_vec_kind kind) {
  DG_CHECK(v, DG_ERR_ARG, "%s (backend %s): vector %s is NULL", what, dg_backend_name(b), name);
  DG_CHECK(v->backend && (v->data || v->n == 0), DG_ERR_ARG,
           "%s (backend %s): vector %s was not made by dg_vec_create (or was destroyed)", what,
           dg_backend_name(b), name);
  DG_CHECK(v->backend == b && v->ctx == ctx, DG_ERR_ARG,
           "%s (backend %s): vector %s belongs to another backend context (backend %s)", what,
           dg_backend_name(b), name, dg_backend_name(v->backend));
  DG_CHECK(v->kind == kind, DG_ERR_ARG, "%s (backend %s): vector %s is %s; expected %s", what,
           dg_backend_name(b), name, vec_kind_name(v->kind), vec_kind_name(kind));
  const int64_t n = b->vec_length ? b->vec_length(ctx, kind) : v->n;
  DG_CHECK(v->n == n, DG_ERR_ARG,
           "%s (backend %s): vector %s has length %lld; a %s vector of this context has %lld", what,
           dg_backend_name(b), name, (long long)v->n, vec_kind_name(kind), (long long)n);
  return DG_SUCCESS;
}

dg_status dg_vec_check(const char *what, const dg_backend *b, const dg_backend_ctx *ctx,
                       const dg_vec *v, const char *name, dg_vec_kind kind) {
  what = what ? what : "?";
  BACKEND_ENTER(b, ctx, what);
  return check_vec(what, b, ctx, v, name ? name : "?", kind);
}

/* Two vectors given as distinct handles must not share memory either. */
static dg_status check_distinct(const char *what, const dg_backend *b, const dg_vec *x,
                                const char *xn, const dg_vec *y, const char *yn) {
  DG_CHECK(x->data != y->data || x->n == 0, DG_ERR_ARG,
           "%s (backend %s): %s and %s are the same vector", what, dg_backend_name(b), xn, yn);
  return DG_SUCCESS;
}

dg_status dg_backend_create(const dg_backend *b, const dg_disc *disc, dg_backend_ctx **ctx) {
  const char *what = "dg_backend_create";
  DG_CHECK(b, DG_ERR_ARG, "%s: NULL backend", what);
  DG_CHECK(disc && ctx, DG_ERR_ARG, "%s (backend %s): NULL discretisation or output", what,
           dg_backend_name(b));
  *ctx = NULL;
  BACKEND_NEED(b, create, what);
  return b->create(disc, ctx);
}

void dg_backend_destroy(const dg_backend *b, dg_backend_ctx *ctx) {
  if (b && ctx && b->destroy) b->destroy(ctx);
}

dg_status dg_vec_create(const dg_backend *b, dg_backend_ctx *ctx, dg_vec_kind kind, dg_vec *v) {
  const char *what = "dg_vec_create";
  DG_CHECK(v, DG_ERR_ARG, "%s: NULL output vector", what);
  memset(v, 0, sizeof *v);
  BACKEND_ENTER(b, ctx, what);
  DG_CHECK(kind == DG_VEC_STATE || kind == DG_VEC_ELEM, DG_ERR_ARG,
           "%s (backend %s): unknown vector kind %d (DG_VEC_STATE or DG_VEC_ELEM)", what,
           dg_backend_name(b), (int)kind);
  BACKEND_NEED(b, vec_alloc, what);
  BACKEND_NEED(b, vec_length, what);
  double *data = NULL;
  DG_CALL(b->vec_alloc(ctx, kind, &data));
  const int64_t n = b->vec_length(ctx, kind);
  DG_CHECK(data || n == 0, DG_ERR_INTERNAL, "%s (backend %s): vec_alloc returned no memory", what,
           dg_backend_name(b));
  v->data = data;
  v->n = n;
  v->kind = kind;
  v->backend = b;
  v->ctx = ctx;
  return DG_SUCCESS;
}

void dg_vec_destroy(dg_vec *v) {
  if (!v) return;
  if (v->data && v->backend && v->backend->vec_free) v->backend->vec_free(v->ctx, v->data);
  memset(v, 0, sizeof *v);
}

/* v made by dg_vec_create (any kind). */
static dg_status check_live(const char *what, const dg_vec *v, const char *name) {
  DG_CHECK(v, DG_ERR_ARG, "%s: vector %s is NULL", what, name);
  DG_CHECK(v->backend && v->ctx && (v->data || v->n == 0), DG_ERR_ARG,
           "%s: vector %s was not made by dg_vec_create (or was destroyed)", what, name);
  return check_vec(what, v->backend, v->ctx, v, name, v->kind);
}

dg_status dg_vec_upload(const double *h_src, dg_vec *v) {
  const char *what = "dg_vec_upload";
  DG_CALL(check_live(what, v, "v"));
  DG_CHECK(h_src, DG_ERR_ARG, "%s (backend %s): NULL host array", what,
           dg_backend_name(v->backend));
  BACKEND_NEED(v->backend, upload, what);
  return v->backend->upload(v->ctx, v->kind, h_src, v->data);
}

dg_status dg_vec_download(const dg_vec *v, double *h_dst) {
  const char *what = "dg_vec_download";
  DG_CALL(check_live(what, v, "v"));
  DG_CHECK(h_dst, DG_ERR_ARG, "%s (backend %s): NULL host array", what,
           dg_backend_name(v->backend));
  BACKEND_NEED(v->backend, download, what);
  return v->backend->download(v->ctx, v->kind, v->data, h_dst);
}

dg_status dg_vec_copy(const dg_vec *src, dg_vec *dst) {
  const char *what = "dg_vec_copy";
  DG_CALL(check_live(what, src, "src"));
  DG_CALL(check_vec(what, src->backend, src->ctx, dst, "dst", src->kind));
  DG_CHECK(src->n == dst->n, DG_ERR_ARG, "%s (backend %s): lengths differ (%lld and %lld)", what,
           dg_backend_name(src->backend), (long long)src->n, (long long)dst->n);
  if (src->data == dst->data) return DG_SUCCESS;
  BACKEND_NEED(src->backend, copy, what);
  return src->backend->copy(src->ctx, src->kind, src->data, dst->data);
}

dg_status dg_backend_residual(const dg_backend *b, dg_backend_ctx *ctx, const dg_vec *U, double t,
                              dg_vec *R) {
  const char *what = "dg_backend_residual";
  BACKEND_ENTER(b, ctx, what);
  DG_CALL(check_vec(what, b, ctx, U, "U", DG_VEC_STATE));
  DG_CALL(check_vec(what, b, ctx, R, "R", DG_VEC_STATE));
  DG_CALL(check_distinct(what, b, U, "U", R, "R"));
  DG_CHECK(isfinite(t), DG_ERR_ARG, "%s (backend %s): time %g is not finite", what,
           dg_backend_name(b), t);
  BACKEND_NEED(b, residual, what);
  return b->residual(ctx, U->data, t, R->data);
}

dg_status dg_backend_timestep(const dg_backend *b, dg_backend_ctx *ctx, const dg_vec *U, double cfl,
                              int global, dg_vec *dt, double *dt_min) {
  const char *what = "dg_backend_timestep";
  BACKEND_ENTER(b, ctx, what);
  DG_CALL(check_vec(what, b, ctx, U, "U", DG_VEC_STATE));
  DG_CALL(check_vec(what, b, ctx, dt, "dt", DG_VEC_ELEM));
  DG_CHECK(dt_min || !global, DG_ERR_ARG, "%s (backend %s): NULL dt_min for a global step", what,
           dg_backend_name(b));
  DG_CHECK(cfl > 0.0 && isfinite(cfl), DG_ERR_ARG,
           "%s (backend %s): CFL %g must be a positive number", what, dg_backend_name(b), cfl);
  BACKEND_NEED(b, timestep, what);
  if (global) BACKEND_NEED(b, set, what);
  const dg_comm *comm = b->comm ? b->comm(ctx) : NULL;
  if (!dt_min && (!comm || dg_comm_size(comm) == 1)) /* local steps, no minimum wanted */
    return b->timestep(ctx, U->data, cfl, dt->data, NULL);
  double smallest = INFINITY;
  DG_CALL(backend_reduce(b, ctx, b->timestep(ctx, U->data, cfl, dt->data, &smallest), DG_COMM_MIN,
                         &smallest, 1));
  if (global) DG_CALL(b->set(ctx, dt->n, smallest, dt->data));
  if (dt_min) *dt_min = smallest;
  return DG_SUCCESS;
}

/* The arguments of an RK update (dg_backend_rk_update, _residual_rk): the
 * coefficients finite, the vectors of (b, ctx) of their kinds (U0 only
 * when read), R not Uout. */
static dg_status check_rk_args(const char *what, const dg_backend *b, const dg_backend_ctx *ctx,
                               double a, const dg_vec *U0, double bcoef, const dg_vec *U,
                               const dg_vec *dt, const dg_vec *R, const dg_vec *Uout) {
  DG_CHECK(isfinite(a) && isfinite(bcoef), DG_ERR_ARG,
           "%s (backend %s): coefficients %g, %g are not finite", what, dg_backend_name(b), a,
           bcoef);
  if (U0 || a != 0.0) DG_CALL(check_vec(what, b, ctx, U0, "U0", DG_VEC_STATE));
  DG_CALL(check_vec(what, b, ctx, U, "U", DG_VEC_STATE));
  DG_CALL(check_vec(what, b, ctx, dt, "dt", DG_VEC_ELEM));
  DG_CALL(check_vec(what, b, ctx, R, "R", DG_VEC_STATE));
  DG_CALL(check_vec(what, b, ctx, Uout, "Uout", DG_VEC_STATE));
  DG_CALL(check_distinct(what, b, R, "R", Uout, "Uout"));
  return DG_SUCCESS;
}

dg_status dg_backend_rk_update(const dg_backend *b, dg_backend_ctx *ctx, double a, const dg_vec *U0,
                               double bcoef, const dg_vec *U, const dg_vec *dt, const dg_vec *R,
                               dg_vec *Uout) {
  const char *what = "dg_backend_rk_update";
  BACKEND_ENTER(b, ctx, what);
  DG_CALL(check_rk_args(what, b, ctx, a, U0, bcoef, U, dt, R, Uout));
  BACKEND_NEED(b, rk_update, what);
  return b->rk_update(ctx, a, U0 ? U0->data : NULL, bcoef, U->data, dt->data, R->data, Uout->data);
}

dg_status dg_backend_residual_rk(const dg_backend *b, dg_backend_ctx *ctx, const dg_vec *U,
                                 double t, double a, const dg_vec *U0, double bcoef,
                                 const dg_vec *dt, dg_vec *R, int keep_R, dg_vec *Uout) {
  const char *what = "dg_backend_residual_rk";
  BACKEND_ENTER(b, ctx, what);
  if (!b->residual_rk) {
    DG_CALL(dg_backend_residual(b, ctx, U, t, R));
    return dg_backend_rk_update(b, ctx, a, U0, bcoef, U, dt, R, Uout);
  }
  DG_CHECK(isfinite(t), DG_ERR_ARG, "%s (backend %s): time %g is not finite", what,
           dg_backend_name(b), t);
  DG_CALL(check_rk_args(what, b, ctx, a, U0, bcoef, U, dt, R, Uout));
  DG_CALL(check_distinct(what, b, U, "U", R, "R"));
  return b->residual_rk(ctx, U->data, t, a, U0 ? U0->data : NULL, bcoef, dt->data, R->data, keep_R,
                        Uout->data);
}

dg_status dg_backend_norms(const dg_backend *b, dg_backend_ctx *ctx, const dg_vec *R, double *norms,
                           int *finite) {
  const char *what = "dg_backend_norms";
  BACKEND_ENTER(b, ctx, what);
  DG_CALL(check_vec(what, b, ctx, R, "R", DG_VEC_STATE));
  DG_CHECK(norms, DG_ERR_ARG, "%s (backend %s): NULL output", what, dg_backend_name(b));
  BACKEND_NEED(b, norms, what);
  /* the sums of squares and a "finite" flag, combined, then the roots */
  double local[DG_MAX_NVAR + 1];
  for (int v = 0; v <= DG_MAX_NVAR; ++v) local[v] = 0.0;
  int ok = 1;
  const dg_status status = b->norms(ctx, R->data, local, &ok);
  /* the flag rides with the sums: not finite anywhere makes a sum NaN */
  local[DG_MAX_NVAR] = ok ? 0.0 : NAN;
  DG_CALL(backend_reduce(b, ctx, status, DG_COMM_SUM, local, DG_MAX_NVAR + 1));
  ok = local[DG_MAX_NVAR] == 0.0;
  for (int v = 0; v < DG_MAX_NVAR; ++v) norms[v] = sqrt(local[v]);
  if (finite) *finite = ok;
  return DG_SUCCESS;
}

dg_status dg_backend_forces(const dg_backend *b, dg_backend_ctx *ctx, const dg_vec *U,
                            const uint8_t *group_mask, const double x_ref[3], double out[6]) {
  const char *what = "dg_backend_forces";
  BACKEND_ENTER(b, ctx, what);
  DG_CALL(check_vec(what, b, ctx, U, "U", DG_VEC_STATE));
  DG_CHECK(group_mask && x_ref && out, DG_ERR_ARG,
           "%s (backend %s): NULL group mask, reference point or output", what, dg_backend_name(b));
  BACKEND_NEED(b, forces, what);
  DG_CALL(
      backend_reduce(b, ctx, b->forces(ctx, U->data, group_mask, x_ref, out), DG_COMM_SUM, out, 6));
  return DG_SUCCESS;
}

dg_status dg_backend_limit(const dg_backend *b, dg_backend_ctx *ctx, dg_vec *U, dg_vec *count) {
  const char *what = "dg_backend_limit";
  BACKEND_ENTER(b, ctx, what);
  DG_CALL(check_vec(what, b, ctx, U, "U", DG_VEC_STATE));
  if (count) DG_CALL(check_vec(what, b, ctx, count, "count", DG_VEC_ELEM));
  BACKEND_NEED(b, limit, what);
  return b->limit(ctx, U->data, count ? count->data : NULL);
}

dg_status dg_backend_av_eps(const dg_backend *b, dg_backend_ctx *ctx, const dg_vec *U,
                            dg_vec *eps) {
  const char *what = "dg_backend_av_eps";
  BACKEND_ENTER(b, ctx, what);
  DG_CALL(check_vec(what, b, ctx, U, "U", DG_VEC_STATE));
  DG_CALL(check_vec(what, b, ctx, eps, "eps", DG_VEC_ELEM));
  BACKEND_NEED(b, av_eps, what);
  return b->av_eps(ctx, U->data, eps->data);
}

dg_status dg_backend_halo(const dg_backend *b, dg_backend_ctx *ctx, dg_vec *x) {
  const char *what = "dg_backend_halo";
  BACKEND_ENTER(b, ctx, what);
  DG_CALL(check_vec(what, b, ctx, x, "x", DG_VEC_STATE));
  if (!b->halo) return DG_SUCCESS; /* a backend of one process */
  return b->halo(ctx, x->data);
}

dg_status dg_backend_memory_check(const dg_backend *b, dg_backend_ctx *ctx, int64_t bytes,
                                  const char *what) {
  BACKEND_ENTER(b, ctx, "dg_backend_memory_check");
  DG_CHECK(bytes >= 0 && what, DG_ERR_ARG, "dg_backend_memory_check: %lld bytes for %s",
           (long long)bytes, what ? what : "(NULL)");
  if (!b->memory_check) return DG_SUCCESS;
  return b->memory_check(ctx, bytes, what);
}

dg_status dg_backend_av_hold(const dg_backend *b, dg_backend_ctx *ctx, const dg_vec *U,
                             double omega) {
  const char *what = "dg_backend_av_hold";
  BACKEND_ENTER(b, ctx, what);
  if (U) {
    DG_CALL(check_vec(what, b, ctx, U, "U", DG_VEC_STATE));
    DG_CHECK(omega > 0.0 && omega <= 1.0, DG_ERR_ARG,
             "%s (backend %s): relaxation %g outside (0, 1]", what, dg_backend_name(b), omega);
  }
  BACKEND_NEED(b, av_hold, what);
  return b->av_hold(ctx, U ? U->data : NULL, omega);
}

dg_status dg_backend_set_circulation(const dg_backend *b, dg_backend_ctx *ctx, double circulation) {
  const char *what = "dg_backend_set_circulation";
  BACKEND_ENTER(b, ctx, what);
  DG_CHECK(isfinite(circulation), DG_ERR_ARG, "%s (backend %s): circulation %g is not finite", what,
           dg_backend_name(b), circulation);
  BACKEND_NEED(b, set_circulation, what);
  return b->set_circulation(ctx, circulation);
}

dg_status dg_backend_av_hold_get(const dg_backend *b, dg_backend_ctx *ctx, double *h_hold) {
  const char *what = "dg_backend_av_hold_get";
  BACKEND_ENTER(b, ctx, what);
  DG_CHECK(h_hold, DG_ERR_ARG, "%s (backend %s): NULL host array", what, dg_backend_name(b));
  BACKEND_NEED(b, av_hold_get, what);
  return b->av_hold_get(ctx, h_hold);
}

dg_status dg_backend_av_hold_set(const dg_backend *b, dg_backend_ctx *ctx, const double *h_hold) {
  const char *what = "dg_backend_av_hold_set";
  BACKEND_ENTER(b, ctx, what);
  DG_CHECK(h_hold, DG_ERR_ARG, "%s (backend %s): NULL host array", what, dg_backend_name(b));
  BACKEND_NEED(b, av_hold_set, what);
  return b->av_hold_set(ctx, h_hold);
}

/* ------------------------------------------------ BLAS-1 */

/* x and y live vectors of one context, same kind and length. */
static dg_status check_pair(const char *what, const dg_vec *x, const char *xn, const dg_vec *y,
                            const char *yn) {
  DG_CALL(check_live(what, x, xn));
  DG_CALL(check_vec(what, x->backend, x->ctx, y, yn, x->kind));
  DG_CHECK(x->n == y->n, DG_ERR_ARG, "%s (backend %s): lengths differ (%lld and %lld)", what,
           dg_backend_name(x->backend), (long long)x->n, (long long)y->n);
  return DG_SUCCESS;
}

dg_status dg_vec_axpby(double a, const dg_vec *x, double b, dg_vec *y) {
  const char *what = "dg_vec_axpby";
  DG_CALL(check_pair(what, x, "x", y, "y"));
  DG_CHECK(isfinite(a) && isfinite(b), DG_ERR_ARG,
           "%s (backend %s): coefficients %g, %g are not finite", what, dg_backend_name(x->backend),
           a, b);
  BACKEND_NEED(x->backend, axpby, what);
  return x->backend->axpby(x->ctx, x->n, a, x->data, b, y->data);
}

dg_status dg_vec_scale(double a, dg_vec *x) {
  const char *what = "dg_vec_scale";
  DG_CALL(check_live(what, x, "x"));
  DG_CHECK(isfinite(a), DG_ERR_ARG, "%s (backend %s): factor %g is not finite", what,
           dg_backend_name(x->backend), a);
  BACKEND_NEED(x->backend, scale, what);
  return x->backend->scale(x->ctx, x->n, a, x->data);
}

dg_status dg_vec_set(double value, dg_vec *x) {
  const char *what = "dg_vec_set";
  DG_CALL(check_live(what, x, "x"));
  BACKEND_NEED(x->backend, set, what);
  return x->backend->set(x->ctx, x->n, value, x->data);
}

dg_status dg_vec_dot(const dg_vec *x, const dg_vec *y, double *result) {
  const char *what = "dg_vec_dot";
  DG_CALL(check_pair(what, x, "x", y, "y"));
  DG_CHECK(result, DG_ERR_ARG, "%s (backend %s): NULL result", what, dg_backend_name(x->backend));
  BACKEND_NEED(x->backend, dot, what);
  double local = 0.0;
  DG_CALL(backend_reduce(x->backend, x->ctx,
                         x->backend->dot(x->ctx, x->n, x->data, y->data, &local), DG_COMM_SUM,
                         &local, 1));
  *result = local;
  return DG_SUCCESS;
}

/* k in [1, DG_VEC_BATCH_MAX], every x[c] paired with y; the data pointers
 * of x into ptr. */
static dg_status check_batch(const char *what, int k, const dg_vec *x, const dg_vec *y,
                             const double **ptr) {
  DG_CHECK(x && y, DG_ERR_ARG, "%s: NULL vectors", what);
  DG_CHECK(k >= 1 && k <= DG_VEC_BATCH_MAX, DG_ERR_ARG, "%s: %d vectors; expected 1 to %d", what, k,
           DG_VEC_BATCH_MAX);
  for (int c = 0; c < k; ++c) {
    DG_CALL(check_pair(what, &x[c], "x[c]", y, "y"));
    ptr[c] = x[c].data;
  }
  return DG_SUCCESS;
}

dg_status dg_vec_mdot(int k, const dg_vec *x, const dg_vec *y, double *result) {
  const char *what = "dg_vec_mdot";
  const double *ptr[DG_VEC_BATCH_MAX];
  DG_CALL(check_batch(what, k, x, y, ptr));
  DG_CHECK(result, DG_ERR_ARG, "%s (backend %s): NULL result", what, dg_backend_name(y->backend));
  const dg_backend *b = y->backend;
  dg_status status = DG_SUCCESS;
  if (b->mdot) {
    status = b->mdot(y->ctx, y->n, k, ptr, y->data, result);
  } else {
    BACKEND_NEED(b, dot, what);
    for (int c = 0; c < k && status == DG_SUCCESS; ++c)
      status = b->dot(y->ctx, y->n, ptr[c], y->data, &result[c]);
  }
  return backend_reduce(b, y->ctx, status, DG_COMM_SUM, result, k);
}

dg_status dg_vec_maxpy(int k, const double *a, const dg_vec *x, dg_vec *y) {
  const char *what = "dg_vec_maxpy";
  const double *ptr[DG_VEC_BATCH_MAX];
  DG_CALL(check_batch(what, k, x, y, ptr));
  DG_CHECK(a, DG_ERR_ARG, "%s (backend %s): NULL coefficients", what, dg_backend_name(y->backend));
  for (int c = 0; c < k; ++c)
    DG_CHECK(isfinite(a[c]), DG_ERR_ARG, "%s (backend %s): coefficient %d (%g) is not finite", what,
             dg_backend_name(y->backend), c, a[c]);
  const dg_backend *b = y->backend;
  if (b->maxpy) return b->maxpy(y->ctx, y->n, k, a, ptr, y->data);
  BACKEND_NEED(b, axpby, what);
  for (int c = 0; c < k; ++c) DG_CALL(b->axpby(y->ctx, y->n, a[c], ptr[c], 1.0, y->data));
  return DG_SUCCESS;
}

dg_status dg_vec_norm2(const dg_vec *x, double *result) {
  const char *what = "dg_vec_norm2";
  DG_CALL(check_live(what, x, "x"));
  DG_CHECK(result, DG_ERR_ARG, "%s (backend %s): NULL result", what, dg_backend_name(x->backend));
  BACKEND_NEED(x->backend, sum_squares, what);
  double local = 0.0;
  DG_CALL(backend_reduce(x->backend, x->ctx, x->backend->sum_squares(x->ctx, x->n, x->data, &local),
                         DG_COMM_SUM, &local, 1));
  *result = sqrt(local);
  return DG_SUCCESS;
}

dg_status dg_vec_max_abs(const dg_vec *x, double *result) {
  const char *what = "dg_vec_max_abs";
  DG_CALL(check_live(what, x, "x"));
  DG_CHECK(result, DG_ERR_ARG, "%s (backend %s): NULL result", what, dg_backend_name(x->backend));
  BACKEND_NEED(x->backend, max_abs, what);
  double local = 0.0;
  DG_CALL(backend_reduce(x->backend, x->ctx, x->backend->max_abs(x->ctx, x->n, x->data, &local),
                         DG_COMM_MAX, &local, 1));
  *result = local;
  return DG_SUCCESS;
}
