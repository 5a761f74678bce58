/* Positivity guard on the CUDA backend against the CPU backend (one source,
 * src/dg/limiter.h):
 *   - `limit` on a rough state (negative point density and pressure, one
 *     element with a negative mean) on a curved 2D mixed mesh, p = 2 and 3:
 *     the GPU result equals the CPU one to 1e-14 (max |diff| / max |U|) and
 *     the counts are identical (1 per limited element, −1 for the bad
 *     mean); a smooth state is untouched bit for bit;
 *   - 100 SSP-RK3 steps of the blast of test_limiter (p = 2, quads) with
 *     positivity on agree CPU vs GPU to 1e-10 (max |diff| / max |U|), and
 *     both count corrections.
 * Exits 77 (skipped) without a CUDA device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_select.h"
#include "dg/backend.h"
#include "dg/explicit.h"
#include "dg/limiter.h"
#include "limiter_problem.h"
#include "test_util.h"

#define GPU_RK_STEPS 100

/* max |a - b| / max |b| over n entries. */
static double rel_diff(const double *a, const double *b, int64_t n) {
  double dmax = 0.0, bmax = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    dmax = fmax(dmax, fabs(a[i] - b[i]));
    bmax = fmax(bmax, fabs(b[i]));
    if (!(a[i] == a[i]) || !(b[i] == b[i])) return INFINITY;
  }
  return bmax > 0.0 ? dmax / bmax : dmax;
}

/* U (host, in/out) limited on backend be; count (host, [n_elems]) written. */
static void limit_on(const dg_backend *be, const lp_problem *pb, double *U, double *count) {
  dg_backend_ctx *ctx = NULL;
  dg_vec dU = {0}, dcount = {0};
  TEST_OK(dg_backend_create(be, &pb->disc, &ctx));
  TEST_OK(dg_vec_create(be, ctx, DG_VEC_STATE, &dU));
  TEST_OK(dg_vec_create(be, ctx, DG_VEC_ELEM, &dcount));
  TEST_OK(dg_vec_upload(U, &dU));
  TEST_OK(dg_backend_limit(be, ctx, &dU, &dcount));
  TEST_OK(dg_vec_download(&dU, U));
  TEST_OK(dg_vec_download(&dcount, count));
  dg_vec_destroy(&dU);
  dg_vec_destroy(&dcount);
  dg_backend_destroy(be, ctx);
}

static void check_limit(int p, int rough) {
  lp_problem pb;
  TEST_OK(lp_build(MESH_STRUCTURED_MIXED, 6, 2, 0.04, p, LP_SMOOTH, &pb));
  if (rough) lp_roughen(&pb);
  const int64_t nc = pb.disc.view.n_coefs, ne = pb.disc.view.n_elems;
  double *Uc = malloc((size_t)nc * sizeof *Uc), *Ug = malloc((size_t)nc * sizeof *Ug);
  double *cc = calloc((size_t)ne, sizeof *cc), *cg = calloc((size_t)ne, sizeof *cg);
  memcpy(Uc, pb.U, (size_t)nc * sizeof *Uc);
  memcpy(Ug, pb.U, (size_t)nc * sizeof *Ug);
  limit_on(backend_cpu(), &pb, Uc, cc);
  limit_on(backend_cuda(), &pb, Ug, cg);
  const double diff = rel_diff(Ug, Uc, nc);
  int64_t count_diff = 0, n_limited = 0, n_bad = 0;
  for (int64_t e = 0; e < ne; ++e) {
    if (cg[e] != cc[e]) ++count_diff;
    n_limited += cc[e] == 1.0;
    n_bad += cc[e] == -1.0;
  }
  TEST_CHECK(diff <= 1e-14, "limit p=%d %s: GPU vs CPU %.3g", p, rough ? "rough" : "smooth", diff);
  TEST_CHECK(count_diff == 0, "limit p=%d: %lld counts differ", p, (long long)count_diff);
  if (rough)
    TEST_CHECK(n_limited > 0 && n_bad == 1, "limit p=%d: %lld limited, %lld bad means", p,
               (long long)n_limited, (long long)n_bad);
  else
    TEST_CHECK(memcmp(Ug, pb.U, (size_t)nc * sizeof *Ug) == 0 && n_limited == 0,
               "limit p=%d: the GPU guard changed a smooth state", p);
  printf("limit p=%d %-6s: %lld/%lld elements limited, GPU vs CPU max |diff|/max |U| = %.2e, "
         "identical counts %s\n",
         p, rough ? "rough" : "smooth", (long long)n_limited, (long long)ne, diff,
         count_diff ? "no" : "yes");
  free(Uc);
  free(Ug);
  free(cc);
  free(cg);
  lp_free(&pb);
}

/* GPU_RK_STEPS guarded steps of the blast on backend be from the guarded
 * initial state; U (host) written, *n_fix the corrections counted. */
static void blast_on(const dg_backend *be, const lp_problem *pb, double *U, double *n_fix) {
  dg_backend_ctx *ctx = NULL;
  dg_vec dU = {0};
  explicit_rk3 rk;
  memset(&rk, 0, sizeof rk);
  TEST_OK(dg_backend_create(be, &pb->disc, &ctx));
  TEST_OK(dg_vec_create(be, ctx, DG_VEC_STATE, &dU));
  TEST_OK(explicit_rk3_create(be, ctx, &pb->disc, &rk));
  TEST_OK(dg_vec_upload(pb->U, &dU));
  TEST_OK(dg_backend_limit(be, ctx, &dU, NULL));
  const explicit_rk3_opts ro = {.cfl = 0.2, .positivity = 1};
  double t = 0.0;
  for (int n = 0; n < GPU_RK_STEPS; ++n) {
    explicit_rk3_info info;
    const dg_status st = explicit_rk3_step(&rk, &dU, t, &ro, &info);
    TEST_OK(st);
    if (st != DG_SUCCESS) break;
    t += info.dt;
  }
  TEST_OK(dg_vec_download(&dU, U));
  TEST_OK(explicit_rk3_limit_count(&rk, n_fix, NULL));
  explicit_rk3_destroy(&rk);
  dg_vec_destroy(&dU);
  dg_backend_destroy(be, ctx);
}

static void check_blast(void) {
  lp_problem pb;
  TEST_OK(lp_build(MESH_STRUCTURED_QUAD, 12, 1, 0.0, 2, LP_BLAST, &pb));
  const int64_t nc = pb.disc.view.n_coefs;
  double *Uc = malloc((size_t)nc * sizeof *Uc), *Ug = malloc((size_t)nc * sizeof *Ug);
  double fix_c = 0.0, fix_g = 0.0;
  blast_on(backend_cpu(), &pb, Uc, &fix_c);
  blast_on(backend_cuda(), &pb, Ug, &fix_g);
  const double diff = rel_diff(Ug, Uc, nc);
  TEST_CHECK(diff <= 1e-10, "blast: %d guarded RK3 steps GPU vs CPU %.3g", GPU_RK_STEPS, diff);
  TEST_CHECK(fix_c > 0.0 && fix_g > 0.0, "blast: corrections CPU %g GPU %g", fix_c, fix_g);
  printf("blast p=2, %d guarded RK3 steps: GPU vs CPU max |diff|/max |U| = %.2e; corrections CPU "
         "%.0f, GPU %.0f\n",
         GPU_RK_STEPS, diff, fix_c, fix_g);
  free(Uc);
  free(Ug);
  lp_free(&pb);
}

int main(void) {
  if (!backend_cuda_available()) {
    printf("test_limiter_gpu: no CUDA device, skipped\n");
    return TEST_SKIP;
  }
  for (int p = 2; p <= 3; ++p) {
    check_limit(p, 1);
    check_limit(p, 0);
  }
  check_blast();
  return test_finish("test_limiter_gpu");
}
