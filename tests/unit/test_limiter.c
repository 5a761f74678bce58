/* Positivity guard (src/dg/limiter.h, the CPU backend's `limit`, the
 * explicit marcher's `positivity` option):
 *   1. a state with negative point density and pressure in some elements
 *      (affine and curved 2D mixed meshes, p = 2, 3) is limited so that every
 *      volume and face point has ρ ≥ δ_ρ and p ≥ δ_p to round-off (checked:
 *      ≥ δ/2; the pressure of a point the guard puts on δ_p comes out within
 *      ~1e-4 δ_p, its round-off being ~1e-16 ρE against δ_p = 1e-10 p̄),
 *      exactly the elements that had a point below the thresholds are
 *      limited and counted, the others are unchanged bit for bit, mode 0 is
 *      unchanged everywhere, the cell averages of affine elements are
 *      unchanged, and an element with a non-physical mean is left alone and
 *      marked in the count (−1, limiter_positivity_count);
 *   2. a smooth positive state is untouched bit for bit (nothing counted);
 *   3. a blast (pressure ratio 1e5, periodic affine quad mesh, p = 2,
 *      global CFL 0.2): without the guard the SSP-RK3 run goes negative (a
 *      point with ρ < 0 or p < 0, or the marcher's divergence error) within
 *      the step budget; with it, the same run completes every step with
 *      positive ρ and p at every point, conserves mass and energy, and
 *      counts its corrections.
 * One source for every backend (`--backend cpu|cuda`, tests/limiter.cmake):
 * test_limiter_cpu and test_limiter_cuda (label gpu). On cuda the guarded
 * state must equal the host's direct DG_HD call to 1e-14 (max |diff| /
 * max |U|) instead of bit for bit (device FMA contraction); the CPU-vs-GPU
 * comparison itself is test_limiter_gpu. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dg/explicit.h"
#include "dg/limiter.h"
#include "limiter_problem.h"
#include "test_util.h"

#define BLAST_STEPS 300

/* Σ over element e's volume points of wdetJ U: ∫_e U dx per variable. */
static void element_integral(const lp_problem *pb, int64_t e, const double *U, double *out) {
  const dg_disc_view *d = &pb->disc.view;
  const dg_geometry *g = &pb->geom;
  const int s = d->elem_shape[e], nb = d->nb[s];
  for (int v = 0; v < d->nvar; ++v) out[v] = 0.0;
  for (int64_t k = g->vol_offset[e]; k < g->vol_offset[e + 1]; ++k) {
    const double *phi = d->vol_phi + d->vol_table[s] + (k - g->vol_offset[e]) * nb;
    for (int v = 0; v < d->nvar; ++v) {
      double sum = 0.0;
      for (int m = 0; m < nb; ++m) sum += phi[m] * U[disc_coef_index(d, e, v, m)];
      out[v] += g->vol_wdetJ[k] * sum;
    }
  }
}

/* ------------------------------------------------------------ 1. limiting */

static void check_rough(const char *what, int order, double deform, int p) {
  lp_problem pb;
  TEST_OK(lp_build(MESH_STRUCTURED_MIXED, 6, order, deform, p, LP_SMOOTH, &pb));
  const dg_disc_view *d = &pb.disc.view;
  const int64_t ne = d->n_elems, nc = d->n_coefs;
  lp_roughen(&pb);

  int64_t n_neg_rho = 0, n_neg_p_only = 0;
  int *expect = calloc((size_t)(ne > 0 ? ne : 1), sizeof *expect);
  for (int64_t e = 0; e < ne; ++e) {
    double rho_bar, p_bar, rmin, pmin;
    lp_mean(d, e, pb.U, &rho_bar, &p_bar);
    lp_point_min(d, e, pb.U, &rmin, &pmin);
    if (!(rho_bar > 0.0 && p_bar > 0.0))
      expect[e] = -1;
    else
      expect[e] = rmin < LIMITER_DELTA_REL * rho_bar || pmin < LIMITER_DELTA_REL * p_bar;
    if (expect[e] == 1 && rmin < 0.0) ++n_neg_rho;
    if (expect[e] == 1 && rmin > 0.0 && pmin < 0.0) ++n_neg_p_only;
  }
  TEST_CHECK(n_neg_rho > 0 && n_neg_p_only > 0,
             "%s p=%d: the test state must have elements with negative point density (%lld) and "
             "with negative pressure only (%lld)",
             what, p, (long long)n_neg_rho, (long long)n_neg_p_only);

  /* the backend op, with a count vector */
  const dg_backend *b = test_backend;
  dg_backend_ctx *ctx = NULL;
  dg_vec count = {0}, dU = {0};
  TEST_OK(dg_backend_create(b, &pb.disc, &ctx));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_ELEM, &count));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &dU));
  double *U = malloc((size_t)nc * sizeof *U), *U_direct = malloc((size_t)nc * sizeof *U);
  double *cnt = malloc((size_t)ne * sizeof *cnt);
  memcpy(U_direct, pb.U, (size_t)nc * sizeof *U);
  TEST_OK(dg_vec_upload(pb.U, &dU));
  TEST_OK(dg_backend_limit(b, ctx, &dU, &count));
  TEST_OK(dg_vec_download(&dU, U));
  TEST_OK(dg_vec_download(&count, cnt));
  /* the direct DG_HD call: bit for bit on the CPU, to round-off on a device */
  double u_max = 0.0;
  for (int64_t i = 0; i < nc; ++i) u_max = fmax(u_max, fabs(pb.U[i]));
  const double direct_tol = test_backend_is_cpu() ? 0.0 : 1e-14 * u_max;

  int64_t n_limited = 0, wrong_flag = 0, changed_unlimited = 0, mode0_changed = 0, bad_points = 0;
  double worst_rho = INFINITY, worst_p = INFINITY, avg_dev = 0.0, curved_dev = 0.0;
  for (int64_t e = 0; e < ne; ++e) {
    const int nb = d->nb[d->elem_shape[e]];
    const int r = limiter_positivity(d, e, U_direct);
    if (r != expect[e]) ++wrong_flag;
    const double want_count = expect[e] == 1 ? 1.0 : expect[e] == 0 ? 0.0 : -1.0;
    if (cnt[e] != want_count) ++wrong_flag;
    for (int v = 0; v < d->nvar; ++v) {
      if (U[disc_coef_index(d, e, v, 0)] != pb.U[disc_coef_index(d, e, v, 0)]) ++mode0_changed;
      for (int m = 0; m < nb; ++m) {
        const int64_t i = disc_coef_index(d, e, v, m);
        if (expect[e] != 1 && memcmp(&U[i], &pb.U[i], sizeof(double)) != 0) ++changed_unlimited;
        if (direct_tol == 0.0 ? memcmp(&U[i], &U_direct[i], sizeof(double)) != 0
                              : !(fabs(U[i] - U_direct[i]) <= direct_tol))
          ++wrong_flag;
      }
    }
    if (expect[e] != 1) continue;
    ++n_limited;
    double rho_bar, p_bar, rmin, pmin;
    lp_mean(d, e, U, &rho_bar, &p_bar);
    lp_point_min(d, e, U, &rmin, &pmin);
    const double rel_rho = rmin / (LIMITER_DELTA_REL * rho_bar);
    const double rel_p = pmin / (LIMITER_DELTA_REL * p_bar);
    worst_rho = fmin(worst_rho, rel_rho);
    worst_p = fmin(worst_p, rel_p);
    if (!(rel_rho >= 0.5 && rel_p >= 0.5)) ++bad_points;
    double before[DG_MAX_NVAR], after[DG_MAX_NVAR];
    element_integral(&pb, e, pb.U, before);
    element_integral(&pb, e, U, after);
    for (int v = 0; v < d->nvar; ++v) {
      const double dev = fabs(after[v] - before[v]) / (fabs(before[v]) + d->elem_volume[e]);
      if (d->elem_affine[e])
        avg_dev = fmax(avg_dev, dev);
      else
        curved_dev = fmax(curved_dev, dev);
    }
  }
  TEST_CHECK(n_limited > 0, "%s p=%d: no element limited", what, p);
  TEST_CHECK(wrong_flag == 0,
             "%s p=%d: %lld disagreements between the expected limited set, the return codes, "
             "the counts and the direct DG_HD call",
             what, p, (long long)wrong_flag);
  TEST_CHECK(changed_unlimited == 0, "%s p=%d: %lld coefficients of unlimited elements changed",
             what, p, (long long)changed_unlimited);
  TEST_CHECK(mode0_changed == 0, "%s p=%d: %lld mode-0 coefficients changed", what, p,
             (long long)mode0_changed);
  TEST_CHECK(bad_points == 0,
             "%s p=%d: %lld limited elements have a point below half the thresholds (min "
             "ρ/δ_ρ %.9g, p/δ_p %.9g)",
             what, p, (long long)bad_points, worst_rho, worst_p);
  TEST_CHECK(avg_dev <= 1e-14, "%s p=%d: affine cell averages moved by %.3g (relative)", what, p,
             avg_dev);
  printf("%-14s p=%d: %lld/%lld elements limited (%lld negative ρ, %lld negative p only); min "
         "point ρ/δ_ρ %.9f, p/δ_p %.9f; cell-average change affine %.2e, curved %.2e\n",
         what, p, (long long)n_limited, (long long)ne, (long long)n_neg_rho,
         (long long)n_neg_p_only, worst_rho, worst_p, avg_dev, curved_dev);
  free(U);
  free(U_direct);
  free(cnt);
  free(expect);
  dg_vec_destroy(&dU);
  dg_vec_destroy(&count);
  dg_backend_destroy(b, ctx);
  lp_free(&pb);
}

/* ------------------------------------------------------------ 2. smooth */

static void check_smooth(int p) {
  lp_problem pb;
  TEST_OK(lp_build(MESH_STRUCTURED_MIXED, 6, 2, 0.04, p, LP_SMOOTH, &pb));
  const dg_backend *b = test_backend;
  dg_backend_ctx *ctx = NULL;
  dg_vec count = {0}, dU = {0};
  TEST_OK(dg_backend_create(b, &pb.disc, &ctx));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_ELEM, &count));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &dU));
  const int64_t nc = pb.disc.view.n_coefs, ne = pb.disc.view.n_elems;
  double *U = malloc((size_t)nc * sizeof *U), *cnt = malloc((size_t)ne * sizeof *cnt);
  TEST_OK(dg_vec_upload(pb.U, &dU));
  TEST_OK(dg_backend_limit(b, ctx, &dU, &count));
  TEST_OK(dg_backend_limit(b, ctx, &dU, NULL));
  TEST_OK(dg_vec_download(&dU, U));
  TEST_OK(dg_vec_download(&count, cnt));
  TEST_CHECK(memcmp(U, pb.U, (size_t)nc * sizeof *U) == 0,
             "smooth p=%d: the guard changed a positive state", p);
  double total = 0.0;
  for (int64_t e = 0; e < ne; ++e) total += fabs(cnt[e]);
  TEST_CHECK(total == 0.0, "smooth p=%d: %g corrections counted on a positive state", p, total);
  TEST_FAILS(dg_backend_limit(b, ctx, NULL, &count), DG_ERR_ARG, "limit");
  free(U);
  free(cnt);
  dg_vec_destroy(&dU);
  dg_vec_destroy(&count);
  dg_backend_destroy(b, ctx);
  lp_free(&pb);
}

/* ------------------------------------------------------------ 3. blast */

/* Smallest point ρ and p over all elements (host state). */
static void state_min(const dg_disc_view *d, const double *U, double *rho, double *p) {
  *rho = *p = INFINITY;
  for (int64_t e = 0; e < d->n_elems; ++e) {
    double r, q;
    lp_point_min(d, e, U, &r, &q);
    *rho = r < *rho ? r : *rho;
    *p = q < *p ? q : *p;
    if (!(r == r) || !(q == q)) *rho = *p = NAN;
  }
}

/* Runs BLAST_STEPS steps (or until failure). Returns the step at which the
 * state first went negative (or the marcher failed), 0 when it never did. */
static int run_blast(lp_problem *pb, int positivity, double *n_fix, double mass[2],
                     double energy[2]) {
  const dg_backend *b = test_backend;
  const dg_disc_view *d = &pb->disc.view;
  double *h_U = malloc((size_t)d->n_coefs * sizeof *h_U);
  dg_backend_ctx *ctx = NULL;
  explicit_rk3 rk;
  memset(&rk, 0, sizeof rk);
  dg_vec U = {0};
  TEST_OK(dg_backend_create(b, &pb->disc, &ctx));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &U));
  TEST_OK(explicit_rk3_create(b, ctx, &pb->disc, &rk));
  TEST_OK(dg_vec_upload(pb->U, &U));
  /* the projection of the jump over/undershoots: guard the initial state
   * once (both runs start from the same state) */
  TEST_OK(dg_backend_limit(b, ctx, &U, NULL));
  TEST_OK(dg_vec_download(&U, h_U));
  double total[DG_MAX_NVAR];
  TEST_OK(disc_integral(&pb->disc, h_U, total));
  mass[0] = total[0];
  energy[0] = total[3];
  const explicit_rk3_opts ro = {.cfl = 0.2, .positivity = positivity};
  int failed_at = 0;
  double t = 0.0;
  for (int n = 1; n <= BLAST_STEPS && !failed_at; ++n) {
    explicit_rk3_info info;
    const dg_status st = explicit_rk3_step(&rk, &U, t, &ro, &info);
    if (st != DG_SUCCESS) {
      dg_error_clear();
      failed_at = n;
      break;
    }
    t += info.dt;
    double rmin, pmin;
    TEST_OK(dg_vec_download(&U, h_U));
    state_min(d, h_U, &rmin, &pmin);
    if (!(rmin > 0.0 && pmin > 0.0)) failed_at = n;
  }
  TEST_OK(dg_vec_download(&U, h_U));
  TEST_OK(disc_integral(&pb->disc, h_U, total));
  mass[1] = total[0];
  energy[1] = total[3];
  TEST_OK(explicit_rk3_limit_count(&rk, n_fix, NULL));
  explicit_rk3_destroy(&rk);
  dg_vec_destroy(&U);
  dg_backend_destroy(b, ctx);
  free(h_U);
  return failed_at;
}

static void check_blast(void) {
  lp_problem pb;
  TEST_OK(lp_build(MESH_STRUCTURED_QUAD, 12, 1, 0.0, 2, LP_BLAST, &pb));
  double fix_off = 0.0, fix_on = 0.0, mass[2], energy[2];
  const int fail_off = run_blast(&pb, 0, &fix_off, mass, energy);
  TEST_CHECK(fail_off > 0,
             "blast: the unguarded run stayed positive for %d steps (not a hard case)",
             BLAST_STEPS);
  TEST_CHECK(fix_off == 0.0, "blast: %g corrections counted with the guard off", fix_off);
  const int fail_on = run_blast(&pb, 1, &fix_on, mass, energy);
  TEST_CHECK(fail_on == 0, "blast: the guarded run went negative or failed at step %d", fail_on);
  TEST_CHECK(fix_on > 0.0, "blast: the guard never fired");
  TEST_CLOSE(mass[1], mass[0], 1e-12 * fabs(mass[0]), "blast: total mass with the guard");
  TEST_CLOSE(energy[1], energy[0], 1e-12 * fabs(energy[0]), "blast: total energy with the guard");
  printf("blast p=2 (quads 12x12, CFL 0.2): unguarded run negative at step %d; guarded run %d "
         "steps positive, %.0f element corrections, mass drift %.2e, energy drift %.2e\n",
         fail_off, BLAST_STEPS, fix_on, fabs(mass[1] - mass[0]) / fabs(mass[0]),
         fabs(energy[1] - energy[0]) / fabs(energy[0]));
  lp_free(&pb);
}

/* The count encoding of limiter_positivity_count / limiter_count_split. */
static void check_count_encoding(void) {
  const double in[4] = {0.0, 3.0, -1.0, -3.0}, fixes[4] = {0.0, 3.0, 0.0, 2.0};
  const int bads[4] = {0, 0, 1, 1};
  for (int i = 0; i < 4; ++i) {
    int bad = -1;
    const double n = limiter_count_split(in[i], &bad);
    TEST_CHECK(n == fixes[i] && bad == bads[i], "count %g decodes to %g corrections, bad %d", in[i],
               n, bad);
  }
}

int main(int argc, char **argv) {
  const int rc = test_backend_args(&argc, argv);
  if (rc) return rc;
  printf("backend %s\n", test_backend_name);
  check_count_encoding();
  for (int p = 2; p <= 3; ++p) {
    check_rough("mixed affine", 1, 0.0, p);
    check_rough("mixed curved", 2, 0.04, p);
    check_smooth(p);
  }
  check_blast();
  return test_finish("test_limiter");
}
