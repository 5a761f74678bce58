/* The backend contract on a backend (src/dg/backend.h, backend.c); one
 * source, `--backend cpu|cuda` (test_backend_vec_cpu, test_backend_vec_cuda
 * with label gpu). On the CPU backend:
 *  - BLAS-1 (dg_vec_axpby, _scale, _set, _dot, _norm2, _max_abs) against
 *    host loops: the element-wise operations bit for bit, the reductions
 *    bit for bit against the documented order (1024-entry chunks in index
 *    order, then the chunks in order) and the same bits for 1 and 2
 *    threads; max |x| propagates NaN; axpby with b = 0 does not read y;
 *  - the global time step goes through the reduction point: every dt[e]
 *    equals the returned minimum, which is the minimum of the local steps;
 *    local steps without the minimum are the same steps;
 *  - dg_backend_residual_rk gives the bits of residual + rk_update for the
 *    SSP-RK3 stages' aliasing, through the table's operation and through
 *    the entry point's fallback;
 *  - the checks of the entry points: wrong vector kind, wrong length,
 *    vectors of another context, NULL arguments, aliasing, non-finite
 *    scalars and a table without an optional operation, each with the
 *    operation and the backend named in the message.
 * On another backend (cuda) the same checks, except that axpby agrees with
 * a x + b y to its rounding (a device may fuse it into one FMA) and the
 * reductions are not compared with the CPU's chunk order or thread counts
 * (test_backend_vec_gpu compares them with the CPU backend's and checks
 * that they repeat bit for bit). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef COLORDG_HAVE_OPENMP
#include <omp.h>
#endif

#include "dg/backend.h"
#include "limiter_problem.h"
#include "test_util.h"

#define CHUNK 1024 /* BACKEND_CPU_CHUNK of src/dg/backend_cpu.c */

typedef enum { RED_DOT, RED_SUMSQ, RED_MAXABS } red_kind;

/* The reduction in the CPU backend's documented order. */
static double chunked(red_kind kind, int64_t n, const double *x, const double *y) {
  double total = 0.0;
  for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
    const int64_t i1 = i0 + CHUNK < n ? i0 + CHUNK : n;
    double acc = 0.0;
    for (int64_t i = i0; i < i1; ++i) {
      if (kind == RED_DOT)
        acc += x[i] * y[i];
      else if (kind == RED_SUMSQ)
        acc += x[i] * x[i];
      else if (fabs(x[i]) > acc || isnan(x[i]))
        acc = fabs(x[i]);
    }
    if (kind == RED_MAXABS)
      total = acc > total || isnan(acc) ? acc : total;
    else
      total += acc;
  }
  return total;
}

static void set_threads(int n) {
#ifdef COLORDG_HAVE_OPENMP
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

static void fill(double *x, int64_t n, double phase) {
  for (int64_t i = 0; i < n; ++i) x[i] = sin(0.37 * (double)i + phase) * (1.0 + 1e-3 * (double)i);
}

static void check_blas(const dg_backend *b, dg_backend_ctx *ctx, const lp_problem *pb) {
  const int64_t n = pb->disc.view.n_coefs;
  TEST_CHECK(n > 4 * CHUNK, "the problem has %lld coefficients: too few chunks", (long long)n);
  dg_vec x = {0}, y = {0};
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &x));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &y));
  TEST_CHECK(x.n == n && x.kind == DG_VEC_STATE && x.backend == b && x.ctx == ctx,
             "dg_vec_create: n %lld (expected %lld), kind %d", (long long)x.n, (long long)n,
             (int)x.kind);
  double *hx = malloc((size_t)n * sizeof *hx), *hy = malloc((size_t)n * sizeof *hy);
  double *want = malloc((size_t)n * sizeof *want), *got = malloc((size_t)n * sizeof *got);
  fill(hx, n, 0.1);
  fill(hy, n, 1.3);
  TEST_OK(dg_vec_upload(hx, &x));
  TEST_OK(dg_vec_upload(hy, &y));

  /* y = a x + b y */
  const double a = 0.75, bb = -1.25;
  for (int64_t i = 0; i < n; ++i) want[i] = a * hx[i] + bb * hy[i];
  TEST_OK(dg_vec_axpby(a, &x, bb, &y));
  TEST_OK(dg_vec_download(&y, got));
  if (test_backend_is_cpu()) {
    TEST_CHECK(memcmp(got, want, (size_t)n * sizeof *got) == 0, "axpby differs from a x + b y");
  } else {
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i)
      bad += !(fabs(got[i] - want[i]) <= 2.0 * DBL_EPSILON * (fabs(a * hx[i]) + fabs(bb * hy[i])));
    TEST_CHECK(bad == 0, "axpby differs from a x + b y beyond rounding at %lld entries",
               (long long)bad);
  }
  /* b = 0: y is not read (NaN in y must not survive) */
  for (int64_t i = 0; i < n; ++i) hy[i] = NAN;
  TEST_OK(dg_vec_upload(hy, &y));
  TEST_OK(dg_vec_axpby(2.0, &x, 0.0, &y));
  TEST_OK(dg_vec_download(&y, got));
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) off += got[i] != 2.0 * hx[i];
  TEST_CHECK(off == 0, "axpby with b = 0: %lld entries differ from 2 x (y read?)", (long long)off);
  /* scale, set */
  TEST_OK(dg_vec_scale(-0.5, &y));
  TEST_OK(dg_vec_download(&y, got));
  off = 0;
  for (int64_t i = 0; i < n; ++i) off += got[i] != -0.5 * (2.0 * hx[i]);
  TEST_CHECK(off == 0, "scale: %lld entries differ", (long long)off);
  TEST_OK(dg_vec_set(3.25, &y));
  TEST_OK(dg_vec_download(&y, got));
  off = 0;
  for (int64_t i = 0; i < n; ++i) off += got[i] != 3.25;
  TEST_CHECK(off == 0, "set: %lld entries differ from 3.25", (long long)off);

  /* reductions: the documented order, the same bits for 1 and 2 threads,
   * close to a long double sum */
  fill(hy, n, 1.3);
  TEST_OK(dg_vec_upload(hy, &y));
  long double dot_ref = 0.0L, sq_ref = 0.0L, abs_ref = 0.0L;
  for (int64_t i = 0; i < n; ++i) {
    dot_ref += (long double)hx[i] * hy[i];
    sq_ref += (long double)hx[i] * hx[i];
    abs_ref += fabsl((long double)hx[i] * hy[i]);
  }
  double dot[2], nrm[2], mx[2];
  for (int t = 0; t < 2; ++t) {
    set_threads(t + 1);
    TEST_OK(dg_vec_dot(&x, &y, &dot[t]));
    TEST_OK(dg_vec_norm2(&x, &nrm[t]));
    TEST_OK(dg_vec_max_abs(&x, &mx[t]));
  }
  set_threads(2);
  TEST_CHECK(dot[0] == dot[1] && nrm[0] == nrm[1] && mx[0] == mx[1],
             "reductions depend on the thread count (or repeat): dot %.17g / %.17g, norm2 %.17g "
             "/ %.17g",
             dot[0], dot[1], nrm[0], nrm[1]);
  if (test_backend_is_cpu()) { /* the CPU backend's documented order */
    TEST_CHECK(dot[0] == chunked(RED_DOT, n, hx, hy), "dot %.17g is not the chunked sum %.17g",
               dot[0], chunked(RED_DOT, n, hx, hy));
    TEST_CHECK(nrm[0] == sqrt(chunked(RED_SUMSQ, n, hx, NULL)),
               "norm2 %.17g is not sqrt of the chunked sum of squares", nrm[0]);
    TEST_CHECK(mx[0] == chunked(RED_MAXABS, n, hx, NULL), "max_abs %.17g", mx[0]);
  }
  TEST_CLOSE(dot[0], (double)dot_ref, 1e-13 * (double)abs_ref, "dot vs long double");
  TEST_CLOSE(nrm[0], sqrt((double)sq_ref), 1e-13 * sqrt((double)sq_ref), "norm2 vs long double");
  double xmax = 0.0;
  for (int64_t i = 0; i < n; ++i) xmax = fmax(xmax, fabs(hx[i]));
  TEST_CHECK(mx[0] == xmax, "max_abs %.17g, expected %.17g", mx[0], xmax);
  /* a NaN anywhere makes max |x| NaN */
  hx[n / 2 + 7] = NAN;
  TEST_OK(dg_vec_upload(hx, &x));
  double m = 0.0;
  TEST_OK(dg_vec_max_abs(&x, &m));
  TEST_CHECK(isnan(m), "max_abs of a vector with a NaN is %g", m);

  /* batched forms: the same bits as single dots and axpby calls */
  {
    enum { K = 5 };
    dg_vec V[K];
    double a[K], md[K], sd[K];
    for (int c = 0; c < K; ++c) {
      memset(&V[c], 0, sizeof V[c]);
      TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &V[c]));
      fill(want, n, 0.4 * c);
      TEST_OK(dg_vec_upload(want, &V[c]));
      a[c] = 1.0 / (c + 3.0);
    }
    TEST_OK(dg_vec_upload(hy, &y));
    TEST_OK(dg_vec_mdot(K, V, &y, md));
    for (int c = 0; c < K; ++c) TEST_OK(dg_vec_dot(&V[c], &y, &sd[c]));
    TEST_CHECK(memcmp(md, sd, sizeof md) == 0, "mdot differs from single dots");
    TEST_OK(dg_vec_maxpy(K, a, V, &y));
    TEST_OK(dg_vec_download(&y, got));
    TEST_OK(dg_vec_upload(hy, &y));
    for (int c = 0; c < K; ++c) TEST_OK(dg_vec_axpby(a[c], &V[c], 1.0, &y));
    TEST_OK(dg_vec_download(&y, want));
    int64_t differ = 0;
    for (int64_t i = 0; i < n; ++i) differ += got[i] != want[i];
    TEST_CHECK(differ == 0, "maxpy differs from axpby calls at %lld entries", (long long)differ);
    TEST_FAILS(dg_vec_mdot(DG_VEC_BATCH_MAX + 1, V, &y, md), DG_ERR_ARG, "expected 1 to");
    a[1] = INFINITY;
    TEST_FAILS(dg_vec_maxpy(K, a, V, &y), DG_ERR_ARG, "coefficient 1");
    for (int c = 0; c < K; ++c) dg_vec_destroy(&V[c]);
  }

  free(hx);
  free(hy);
  free(want);
  free(got);
  dg_vec_destroy(&x);
  dg_vec_destroy(&y);
  TEST_CHECK(x.data == NULL && x.backend == NULL, "dg_vec_destroy did not zero the vector");
  dg_vec_destroy(&x); /* a no-op on a zeroed vector */
}

/* dg_backend_timestep with a global step: every dt[e] is the returned
 * minimum, the minimum of the local steps. */
static void check_timestep(const dg_backend *b, dg_backend_ctx *ctx, const lp_problem *pb) {
  const int64_t ne = pb->disc.view.n_elems;
  dg_vec U = {0}, dt = {0};
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &U));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_ELEM, &dt));
  TEST_OK(dg_vec_upload(pb->U, &U));
  double *local = malloc((size_t)ne * sizeof *local), *global = malloc((size_t)ne * sizeof *global);
  double m_local = 0.0, m_global = 0.0;
  TEST_OK(dg_backend_timestep(b, ctx, &U, 0.5, 0, &dt, &m_local));
  TEST_OK(dg_vec_download(&dt, local));
  TEST_OK(dg_backend_timestep(b, ctx, &U, 0.5, 1, &dt, &m_global));
  TEST_OK(dg_vec_download(&dt, global));
  double smallest = INFINITY;
  int64_t not_min = 0, varied = 0;
  for (int64_t e = 0; e < ne; ++e) {
    smallest = fmin(smallest, local[e]);
    not_min += global[e] != m_global;
    varied += local[e] != local[0];
  }
  TEST_CHECK(m_local == smallest && m_global == smallest,
             "time-step minimum %.17g / %.17g, expected %.17g", m_local, m_global, smallest);
  TEST_CHECK(not_min == 0 && varied > 0,
             "global step: %lld elements differ from the minimum (local steps vary at %lld)",
             (long long)not_min, (long long)varied);
  free(local);
  free(global);
  dg_vec_destroy(&U);
  dg_vec_destroy(&dt);
}

/* n doubles of a and b bit for bit equal. */
static int same_bits(const double *a, const double *b, int64_t n) {
  return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* One SSP-RK3 stage from the host states h0 (U0) and h1 (U) with the local
 * steps of h1 on (b, ctx): out (stage: 0 a new vector, 1 U, 2 U0) and R to
 * the host; through dg_backend_residual_rk (fused) or dg_backend_residual +
 * dg_backend_rk_update. */
static void rk_stage(const dg_backend *b, dg_backend_ctx *ctx, const double *h0, const double *h1,
                     double a, double bc, int which, int fused, double *out_h, double *R_h) {
  dg_vec U0 = {0}, U = {0}, R = {0}, dt = {0}, W = {0};
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &U0));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &U));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &R));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &W));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_ELEM, &dt));
  TEST_OK(dg_vec_upload(h0, &U0));
  TEST_OK(dg_vec_upload(h1, &U));
  TEST_OK(dg_vec_upload(h1, &W));
  TEST_OK(dg_backend_timestep(b, ctx, &U, 0.4, 0, &dt, NULL));
  dg_vec *out = which == 0 ? &W : which == 1 ? &U : &U0;
  if (fused) {
    TEST_OK(dg_backend_residual_rk(b, ctx, &U, 0.0, a, &U0, bc, &dt, &R, 1, out));
  } else {
    TEST_OK(dg_backend_residual(b, ctx, &U, 0.0, &R));
    TEST_OK(dg_backend_rk_update(b, ctx, a, &U0, bc, &U, &dt, &R, out));
  }
  TEST_OK(dg_vec_download(out, out_h));
  TEST_OK(dg_vec_download(&R, R_h));
  dg_vec_destroy(&U0);
  dg_vec_destroy(&U);
  dg_vec_destroy(&R);
  dg_vec_destroy(&W);
  dg_vec_destroy(&dt);
}

/* dg_backend_residual_rk against dg_backend_residual + dg_backend_rk_update
 * (the table's residual_rk where it has one, and a table without it, which
 * takes the entry point's two calls), bit for bit, for the three SSP-RK3
 * stages' aliasing: Uout a new vector (a = 0), Uout = U (the residual's
 * input), Uout = U0; with keep_R, R is the residual. dg_backend_timestep
 * without a minimum (local steps) gives the steps it gives with one; a
 * global step needs the minimum. */
static void check_residual_rk(const dg_backend *b, dg_backend_ctx *ctx, const lp_problem *pb) {
  const int64_t nc = pb->disc.view.n_coefs, ne = pb->disc.view.n_elems;
  double *h0 = malloc((size_t)nc * sizeof *h0), *h1 = malloc((size_t)nc * sizeof *h1);
  double *ref = malloc((size_t)nc * sizeof *ref), *got = malloc((size_t)nc * sizeof *got);
  double *ref_R = malloc((size_t)nc * sizeof *ref_R), *got_R = malloc((size_t)nc * sizeof *got_R);
  double *d1 = malloc((size_t)ne * sizeof *d1), *d2 = malloc((size_t)ne * sizeof *d2);
  for (int64_t i = 0; i < nc; ++i) {
    h0[i] = pb->U[i];
    h1[i] = pb->U[i] * (1.0 + 1e-3 * sin(0.37 * (double)i)); /* a second state near the first */
  }
  /* local steps: with and without the minimum */
  dg_vec U = {0}, dt = {0};
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &U));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_ELEM, &dt));
  double m = 0.0;
  TEST_OK(dg_vec_upload(h1, &U));
  TEST_OK(dg_backend_timestep(b, ctx, &U, 0.4, 0, &dt, &m));
  TEST_OK(dg_vec_download(&dt, d1));
  TEST_OK(dg_vec_set(-1.0, &dt));
  TEST_OK(dg_backend_timestep(b, ctx, &U, 0.4, 0, &dt, NULL));
  TEST_OK(dg_vec_download(&dt, d2));
  TEST_CHECK(m > 0.0 && same_bits(d1, d2, ne),
             "local time steps without their minimum differ from those with it");
  TEST_FAILS(dg_backend_timestep(b, ctx, &U, 0.4, 1, &dt, NULL), DG_ERR_ARG,
             "NULL dt_min for a global step");
  dg_vec W = {0};
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &W));
  TEST_FAILS(dg_backend_residual_rk(b, ctx, &U, 0.0, 0.0, NULL, 1.0, &dt, &U, 0, &W), DG_ERR_ARG,
             "U and R are the same vector");
  TEST_FAILS(dg_backend_residual_rk(b, ctx, &U, 0.0, 0.0, NULL, 1.0, &dt, &W, 0, &W), DG_ERR_ARG,
             "R and Uout are the same vector");
  dg_vec_destroy(&W);
  dg_vec_destroy(&U);
  dg_vec_destroy(&dt);
  /* a table without residual_rk: the entry point's two calls */
  dg_backend bare = *b;
  bare.name = "bare";
  bare.residual_rk = NULL;
  dg_backend_ctx *bctx = NULL;
  TEST_OK(dg_backend_create(&bare, &pb->disc, &bctx));
  const double coef[3][2] = {{0.0, 1.0}, {0.75, 0.25}, {1.0 / 3.0, 2.0 / 3.0}};
  for (int k = 0; k < 3 && bctx; ++k) {
    rk_stage(b, ctx, h0, h1, coef[k][0], coef[k][1], k, 0, ref, ref_R);
    for (int table = 0; table < 2; ++table) {
      rk_stage(table ? &bare : b, table ? bctx : ctx, h0, h1, coef[k][0], coef[k][1], k, 1, got,
               got_R);
      TEST_CHECK(same_bits(ref, got, nc) && same_bits(ref_R, got_R, nc),
                 "residual_rk (%s table), stage %d: the update (or R) differs from residual + "
                 "rk_update",
                 table ? "bare" : "full", k + 1);
    }
  }
  dg_backend_destroy(&bare, bctx);
  free(h0);
  free(h1);
  free(ref);
  free(got);
  free(ref_R);
  free(got_R);
  free(d1);
  free(d2);
}

/* msg(fmt): fmt with the tested backend's name for its %s (rotating buffers,
 * so that a few may be alive at once). */
static const char *msg(const char *fmt) {
  static char buf[4][256];
  static int next = 0;
  char *out = buf[next++ % 4];
  snprintf(out, sizeof buf[0], fmt, dg_backend_name(test_backend));
  return out;
}

/* The entry points' checks and their messages. */
static void check_errors(const dg_backend *b, dg_backend_ctx *ctx, const lp_problem *pb) {
  dg_vec U = {0}, R = {0}, E = {0}, U2 = {0};
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &U));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &R));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_ELEM, &E));
  TEST_OK(dg_vec_upload(pb->U, &U));
  /* wrong kind */
  TEST_FAILS(
      dg_backend_residual(b, ctx, &U, 0.0, &E), DG_ERR_ARG,
      msg("dg_backend_residual (backend %s): vector R is element-sized; expected state-sized"));
  TEST_FAILS(
      dg_backend_limit(b, ctx, &U, &R), DG_ERR_ARG,
      msg("dg_backend_limit (backend %s): vector count is state-sized; expected element-sized"));
  TEST_FAILS(dg_vec_copy(&U, &E), DG_ERR_ARG, "vector dst is element-sized");
  TEST_FAILS(dg_vec_axpby(1.0, &U, 1.0, &E), DG_ERR_ARG,
             msg("dg_vec_axpby (backend %s): vector y is element-sized"));
  TEST_FAILS(dg_vec_create(b, ctx, (dg_vec_kind)7, &U2), DG_ERR_ARG, "unknown vector kind 7");
  /* wrong length (a handle whose n was damaged) */
  dg_vec short_R = R;
  short_R.n -= 1;
  TEST_FAILS(dg_vec_dot(&U, &short_R, &(double){0.0}), DG_ERR_ARG,
             msg("dg_vec_dot (backend %s): vector y has length"));
  TEST_FAILS(dg_vec_copy(&short_R, &U), DG_ERR_ARG, "vector src has length");
  TEST_FAILS(dg_backend_residual(b, ctx, &U, 0.0, &short_R), DG_ERR_ARG,
             msg("dg_backend_residual (backend %s): vector R has length"));
  /* NULL */
  TEST_FAILS(dg_backend_residual(b, ctx, NULL, 0.0, &R), DG_ERR_ARG,
             msg("dg_backend_residual (backend %s): vector U is NULL"));
  TEST_FAILS(dg_backend_residual(NULL, ctx, &U, 0.0, &R), DG_ERR_ARG, "NULL backend");
  TEST_FAILS(dg_backend_residual(b, NULL, &U, 0.0, &R), DG_ERR_ARG, "NULL context");
  TEST_FAILS(dg_vec_norm2(&U, NULL), DG_ERR_ARG, msg("dg_vec_norm2 (backend %s): NULL result"));
  TEST_FAILS(dg_vec_upload(NULL, &U), DG_ERR_ARG, "NULL host array");
  TEST_FAILS(dg_backend_norms(b, ctx, &U2, (double[DG_MAX_NVAR]){0}, NULL), DG_ERR_ARG,
             "vector R was not made by dg_vec_create");
  /* another context */
  dg_backend_ctx *other = NULL;
  TEST_OK(dg_backend_create(b, &pb->disc, &other));
  TEST_OK(dg_vec_create(b, other, DG_VEC_STATE, &U2));
  TEST_FAILS(dg_backend_residual(b, ctx, &U2, 0.0, &R), DG_ERR_ARG,
             "vector U belongs to another backend context");
  /* aliasing, non-finite scalars, bad ranges */
  TEST_FAILS(dg_backend_residual(b, ctx, &U, 0.0, &U), DG_ERR_ARG,
             msg("dg_backend_residual (backend %s): U and R are the same vector"));
  TEST_FAILS(dg_backend_rk_update(b, ctx, 0.0, NULL, 1.0, &U, &E, &R, &R), DG_ERR_ARG,
             "R and Uout are the same vector");
  TEST_FAILS(dg_backend_residual(b, ctx, &U, NAN, &R), DG_ERR_ARG, "time nan is not finite");
  TEST_FAILS(dg_backend_set_circulation(b, ctx, INFINITY), DG_ERR_ARG,
             msg("dg_backend_set_circulation (backend %s): circulation inf is not finite"));
  TEST_FAILS(dg_backend_timestep(b, ctx, &U, 0.0, 0, &E, &(double){0.0}), DG_ERR_ARG,
             "CFL 0 must be a positive number");
  TEST_FAILS(dg_backend_av_hold(b, ctx, &U, 1.5), DG_ERR_ARG, "relaxation 1.5 outside (0, 1]");
  TEST_FAILS(dg_vec_scale(NAN, &U), DG_ERR_ARG, msg("dg_vec_scale (backend %s): factor nan"));
  /* a table without optional operations: DG_ERR_UNSUPPORTED, named */
  dg_backend bare = *b;
  bare.name = "bare";
  bare.limit = NULL;
  bare.axpby = NULL;
  bare.forces = NULL;
  dg_backend_ctx *bctx = NULL;
  dg_vec bU = {0}, bR = {0};
  TEST_OK(dg_backend_create(&bare, &pb->disc, &bctx));
  TEST_OK(dg_vec_create(&bare, bctx, DG_VEC_STATE, &bU));
  TEST_OK(dg_vec_create(&bare, bctx, DG_VEC_STATE, &bR));
  TEST_FAILS(dg_backend_limit(&bare, bctx, &bU, NULL), DG_ERR_UNSUPPORTED,
             "dg_backend_limit (backend bare): this backend has no limit operation");
  TEST_FAILS(dg_vec_axpby(1.0, &bU, 1.0, &bR), DG_ERR_UNSUPPORTED,
             "dg_vec_axpby (backend bare): this backend has no axpby operation");
  const uint8_t mask[1] = {1};
  const double x_ref[3] = {0.0, 0.0, 0.0};
  double out[6];
  TEST_FAILS(dg_backend_forces(&bare, bctx, &bU, mask, x_ref, out), DG_ERR_UNSUPPORTED,
             "no forces operation");
  TEST_OK(dg_vec_scale(2.0, &bU)); /* the operations it has still work */
  dg_vec_destroy(&bU);
  dg_vec_destroy(&bR);
  dg_backend_destroy(&bare, bctx);
  dg_vec_destroy(&U2);
  dg_backend_destroy(b, other);
  dg_vec_destroy(&U);
  dg_vec_destroy(&R);
  dg_vec_destroy(&E);
}

int main(int argc, char **argv) {
  const int rc = test_backend_args(&argc, argv);
  if (rc) return rc;
  printf("backend %s\n", test_backend_name);
  lp_problem pb;
  TEST_OK(lp_build(MESH_STRUCTURED_MIXED, 16, 1, 0.0, 3, LP_SMOOTH, &pb));
  const dg_backend *b = test_backend;
  dg_backend_ctx *ctx = NULL;
  TEST_OK(dg_backend_create(b, &pb.disc, &ctx));
  if (ctx) {
    check_blas(b, ctx, &pb);
    check_timestep(b, ctx, &pb);
    check_residual_rk(b, ctx, &pb);
    check_errors(b, ctx, &pb);
    dg_backend_destroy(b, ctx);
  }
  lp_free(&pb);
  return test_finish("test_backend_vec");
}
