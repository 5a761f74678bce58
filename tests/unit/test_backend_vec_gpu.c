/* BLAS-1 of the CUDA backend against the CPU backend (src/dg/backend.h):
 * on state- and element-sized vectors of two problems (a few hundred to a
 * few hundred thousand entries, so that the reductions use one and many
 * blocks):
 *   - axpby agrees entry by entry to the rounding of a x + b y (the GPU may
 *     fuse it into one FMA); with b = 0 y is not read (NaN in y) and the
 *     result is 2 x exactly; scale and set are exact;
 *   - dot and norm2 agree to 1e-13 relative (different fixed orders), max |x|
 *     exactly, and a NaN makes max |x| NaN on both;
 *   - the GPU reductions give the same bits twice (fixed order);
 *   - a global time step fills every dt[e] with the returned minimum on the
 *     GPU too (set through the reduction point);
 *   - the batched dg_vec_mdot and dg_vec_maxpy give the bits of single
 *     dots and axpby calls on each backend (23 vectors: three launches of
 *     at most 10 on the GPU), and refuse k = 0 and a non-finite
 *     coefficient.
 * Exits 77 (skipped) without a CUDA device. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_select.h"
#include "dg/backend.h"
#include "limiter_problem.h"
#include "test_util.h"

static void fill(double *x, int64_t n, double phase) {
  for (int64_t i = 0; i < n; ++i) x[i] = sin(0.37 * (double)i + phase) * (1.0 + 1e-3 * (double)i);
}

/* Both backends' contexts of one problem and a pair of vectors on each. */
typedef struct {
  const dg_backend *b[2]; /* cpu, cuda */
  dg_backend_ctx *ctx[2];
  dg_vec x[2], y[2];
} pair;

static void pair_free(pair *p) {
  for (int k = 0; k < 2; ++k) {
    dg_vec_destroy(&p->x[k]);
    dg_vec_destroy(&p->y[k]);
    dg_backend_destroy(p->b[k], p->ctx[k]);
  }
  memset(p, 0, sizeof *p);
}

static int pair_build(const lp_problem *pb, dg_vec_kind kind, pair *p) {
  memset(p, 0, sizeof *p);
  p->b[0] = backend_cpu();
  p->b[1] = backend_cuda();
  dg_status st = DG_SUCCESS;
  for (int k = 0; k < 2 && st == DG_SUCCESS; ++k) {
    st = dg_backend_create(p->b[k], &pb->disc, &p->ctx[k]);
    if (st == DG_SUCCESS) st = dg_vec_create(p->b[k], p->ctx[k], kind, &p->x[k]);
    if (st == DG_SUCCESS) st = dg_vec_create(p->b[k], p->ctx[k], kind, &p->y[k]);
  }
  TEST_OK(st);
  return st == DG_SUCCESS;
}

/* Uploads hx, hy to both backends. */
static void upload_both(pair *p, const double *hx, const double *hy) {
  for (int k = 0; k < 2; ++k) {
    TEST_OK(dg_vec_upload(hx, &p->x[k]));
    TEST_OK(dg_vec_upload(hy, &p->y[k]));
  }
}

static void check_blas(const char *what, const lp_problem *pb, dg_vec_kind kind) {
  pair p;
  if (!pair_build(pb, kind, &p)) {
    pair_free(&p);
    return;
  }
  const int64_t n = p.x[0].n;
  TEST_CHECK(p.x[1].n == n, "%s: lengths %lld (cpu) and %lld (cuda)", what, (long long)n,
             (long long)p.x[1].n);
  double *hx = malloc((size_t)n * sizeof *hx), *hy = malloc((size_t)n * sizeof *hy);
  double *out[2] = {malloc((size_t)n * sizeof(double)), malloc((size_t)n * sizeof(double))};
  fill(hx, n, 0.1);
  fill(hy, n, 1.3);

  /* axpby: to the rounding of a x + b y */
  const double a = 0.75, bb = -1.25;
  upload_both(&p, hx, hy);
  for (int k = 0; k < 2; ++k) {
    TEST_OK(dg_vec_axpby(a, &p.x[k], bb, &p.y[k]));
    TEST_OK(dg_vec_download(&p.y[k], out[k]));
  }
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    bad +=
        !(fabs(out[1][i] - out[0][i]) <= 2.0 * DBL_EPSILON * (fabs(a * hx[i]) + fabs(bb * hy[i])));
  TEST_CHECK(bad == 0, "%s: axpby differs beyond rounding at %lld of %lld entries", what,
             (long long)bad, (long long)n);
  /* b = 0: y not read */
  double *nan_y = malloc((size_t)n * sizeof *nan_y);
  for (int64_t i = 0; i < n; ++i) nan_y[i] = NAN;
  upload_both(&p, hx, nan_y);
  for (int k = 0; k < 2; ++k) {
    TEST_OK(dg_vec_axpby(2.0, &p.x[k], 0.0, &p.y[k]));
    TEST_OK(dg_vec_download(&p.y[k], out[k]));
  }
  bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += out[1][i] != 2.0 * hx[i] || out[0][i] != 2.0 * hx[i];
  TEST_CHECK(bad == 0, "%s: axpby with b = 0 is not 2 x at %lld entries", what, (long long)bad);
  /* scale, set: exact */
  for (int k = 0; k < 2; ++k) {
    TEST_OK(dg_vec_scale(-0.3, &p.x[k]));
    TEST_OK(dg_vec_download(&p.x[k], out[k]));
  }
  TEST_CHECK(memcmp(out[0], out[1], (size_t)n * sizeof(double)) == 0, "%s: scale differs", what);
  for (int k = 0; k < 2; ++k) {
    TEST_OK(dg_vec_set(-2.5, &p.y[k]));
    TEST_OK(dg_vec_download(&p.y[k], out[k]));
  }
  bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += out[0][i] != -2.5 || out[1][i] != -2.5;
  TEST_CHECK(bad == 0, "%s: set left %lld entries", what, (long long)bad);

  /* reductions */
  upload_both(&p, hx, hy);
  double dot[2], nrm[2], mx[2];
  for (int k = 0; k < 2; ++k) {
    TEST_OK(dg_vec_dot(&p.x[k], &p.y[k], &dot[k]));
    TEST_OK(dg_vec_norm2(&p.x[k], &nrm[k]));
    TEST_OK(dg_vec_max_abs(&p.x[k], &mx[k]));
  }
  double abs_dot = 0.0;
  for (int64_t i = 0; i < n; ++i) abs_dot += fabs(hx[i] * hy[i]);
  TEST_CHECK(fabs(dot[1] - dot[0]) <= 1e-13 * abs_dot,
             "%s: dot %.17g (cuda) vs %.17g (cpu), sum |x y| %.3g", what, dot[1], dot[0], abs_dot);
  TEST_CHECK(fabs(nrm[1] - nrm[0]) <= 1e-13 * nrm[0], "%s: norm2 %.17g (cuda) vs %.17g (cpu)", what,
             nrm[1], nrm[0]);
  TEST_CHECK(mx[1] == mx[0] && mx[0] > 0.0, "%s: max_abs %.17g (cuda) vs %.17g (cpu)", what, mx[1],
             mx[0]);
  double dot2 = 0.0, nrm2 = 0.0;
  TEST_OK(dg_vec_dot(&p.x[1], &p.y[1], &dot2));
  TEST_OK(dg_vec_norm2(&p.x[1], &nrm2));
  TEST_CHECK(dot2 == dot[1] && nrm2 == nrm[1], "%s: the CUDA reductions changed between two calls",
             what);
  hx[n / 2] = NAN;
  for (int k = 0; k < 2; ++k) {
    TEST_OK(dg_vec_upload(hx, &p.x[k]));
    TEST_OK(dg_vec_max_abs(&p.x[k], &mx[k]));
  }
  TEST_CHECK(isnan(mx[0]) && isnan(mx[1]), "%s: max_abs with a NaN: %g (cpu), %g (cuda)", what,
             mx[0], mx[1]);
  printf("%s: n = %lld, dot %.17g / %.17g, norm2 %.17g / %.17g (cpu / cuda)\n", what, (long long)n,
         dot[0], dot[1], nrm[0], nrm[1]);
  free(hx);
  free(hy);
  free(nan_y);
  free(out[0]);
  free(out[1]);
  pair_free(&p);
}

/* dg_vec_mdot / dg_vec_maxpy against single dots / axpby on both backends. */
static void check_batched(const char *what, const lp_problem *pb, dg_vec_kind kind) {
  enum { K = 23 };
  for (int k = 0; k < 2; ++k) {
    const dg_backend *b = k ? backend_cuda() : backend_cpu();
    dg_backend_ctx *ctx = NULL;
    TEST_OK(dg_backend_create(b, &pb->disc, &ctx));
    if (!ctx) return;
    dg_vec V[K], y = {0}, z = {0};
    memset(V, 0, sizeof V);
    TEST_OK(dg_vec_create(b, ctx, kind, &y));
    TEST_OK(dg_vec_create(b, ctx, kind, &z));
    const int64_t n = y.n;
    double *h = malloc((size_t)n * sizeof *h), *hz = malloc((size_t)n * sizeof *hz);
    double *hs = malloc((size_t)n * sizeof *hs);
    double a[K], one[K], batched[K];
    for (int c = 0; c < K; ++c) {
      TEST_OK(dg_vec_create(b, ctx, kind, &V[c]));
      fill(h, n, 0.3 * c);
      TEST_OK(dg_vec_upload(h, &V[c]));
      a[c] = 0.5 - 0.07 * c;
    }
    fill(h, n, 2.1);
    TEST_OK(dg_vec_upload(h, &y));
    TEST_OK(dg_vec_mdot(K, V, &y, batched));
    for (int c = 0; c < K; ++c) TEST_OK(dg_vec_dot(&V[c], &y, &one[c]));
    TEST_CHECK(memcmp(batched, one, sizeof one) == 0, "%s (%s): mdot differs from single dots",
               what, b->name);
    /* maxpy into y, axpby sequence into z */
    TEST_OK(dg_vec_copy(&y, &z));
    TEST_OK(dg_vec_maxpy(K, a, V, &y));
    for (int c = 0; c < K; ++c) TEST_OK(dg_vec_axpby(a[c], &V[c], 1.0, &z));
    TEST_OK(dg_vec_download(&y, hs));
    TEST_OK(dg_vec_download(&z, hz));
    int64_t differ = 0;
    for (int64_t i = 0; i < n; ++i) differ += hs[i] != hz[i];
    TEST_CHECK(differ == 0, "%s (%s): maxpy differs from axpby calls at %lld of %lld entries", what,
               b->name, (long long)differ, (long long)n);
    printf("%s (%s): mdot = dots and maxpy = axpby calls bitwise (%lld entries)\n", what, b->name,
           (long long)n);
    TEST_FAILS(dg_vec_mdot(0, V, &y, batched), DG_ERR_ARG, "expected 1 to");
    a[3] = NAN;
    TEST_FAILS(dg_vec_maxpy(K, a, V, &y), DG_ERR_ARG, "coefficient 3");
    for (int c = 0; c < K; ++c) dg_vec_destroy(&V[c]);
    dg_vec_destroy(&y);
    dg_vec_destroy(&z);
    dg_backend_destroy(b, ctx);
    free(h);
    free(hz);
    free(hs);
  }
}

/* A global step on the GPU: every dt[e] equals the minimum returned. */
static void check_global_step(const lp_problem *pb) {
  const dg_backend *b = backend_cuda();
  dg_backend_ctx *ctx = NULL;
  dg_vec U = {0}, dt = {0};
  TEST_OK(dg_backend_create(b, &pb->disc, &ctx));
  if (!ctx) return;
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &U));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_ELEM, &dt));
  TEST_OK(dg_vec_upload(pb->U, &U));
  const int64_t ne = pb->disc.view.n_elems;
  double *h = malloc((size_t)ne * sizeof *h), m_local = 0.0, m_global = 0.0;
  TEST_OK(dg_backend_timestep(b, ctx, &U, 0.5, 0, &dt, &m_local));
  TEST_OK(dg_vec_download(&dt, h));
  double smallest = INFINITY;
  for (int64_t e = 0; e < ne; ++e) smallest = fmin(smallest, h[e]);
  TEST_OK(dg_backend_timestep(b, ctx, &U, 0.5, 1, &dt, &m_global));
  TEST_OK(dg_vec_download(&dt, h));
  int64_t off = 0;
  for (int64_t e = 0; e < ne; ++e) off += h[e] != m_global;
  TEST_CHECK(m_local == smallest && m_global == smallest && off == 0,
             "cuda global step: minimum %.17g / %.17g (expected %.17g), %lld entries differ",
             m_local, m_global, smallest, (long long)off);
  free(h);
  dg_vec_destroy(&U);
  dg_vec_destroy(&dt);
  dg_backend_destroy(b, ctx);
}

int main(void) {
  if (!backend_cuda_available()) {
    printf("test_backend_vec_gpu: no CUDA device, skipped\n");
    return TEST_SKIP;
  }
  const int sizes[2] = {8, 64};
  for (int k = 0; k < 2; ++k) {
    lp_problem pb;
    TEST_OK(lp_build(MESH_STRUCTURED_MIXED, sizes[k], 1, 0.0, 3, LP_SMOOTH, &pb));
    char what[64];
    snprintf(what, sizeof what, "%dx%d state", sizes[k], sizes[k]);
    check_blas(what, &pb, DG_VEC_STATE);
    check_batched(what, &pb, DG_VEC_STATE);
    snprintf(what, sizeof what, "%dx%d element", sizes[k], sizes[k]);
    check_blas(what, &pb, DG_VEC_ELEM);
    if (k == 0) check_global_step(&pb);
    lp_free(&pb);
  }
  return test_finish("test_backend_vec_gpu");
}
