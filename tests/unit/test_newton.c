/* Newton-Krylov (src/newton/, docs/NEWTON_KRYLOV.md) and the LU-SGS
 * matrix-vector product it rests on (lusgs_matvec, src/lusgs/lusgs_ops.h):
 *  (1) matvec: y = (D + L + U) x from the stored factors and face Jacobians
 *      against the finite-difference product M/Δt x − (R(U+hx) − R(U−hx))/2h
 *      on a curved mixed 2D mesh (wall + far field), inviscid and with
 *      artificial viscosity held (frozen ε), p = 1, 2; and
 *      lusgs_apply(matvec(x)) with many sweeps recovers x, and
 *      lusgs_apply with 1-4 sweeps equals the sweeps rebuilt from the colour
 *      operations with every colour update in (it leaves out the repeated
 *      ones at the turns);
 *  (2) FGMRES alone reduces the true linear residual |b − A x| to η |b|
 *      (preconditioned and not, with restarts), and the Eisenstat-Walker
 *      forcing term and its safeguards;
 *  (3) a setting that cannot converge (CFL 1e8 from the free stream, no
 *      residual growth allowed) stops with DG_ERR_DIVERGED and U untouched;
 *  (4) --naca p max_iters lusgs_iters: NACA 0012 M 0.5 alpha 2 on the
 *      committed level-0 mesh from the free stream: Newton-Krylov reaches 10
 *      orders (every equation against its first residual) within max_iters
 *      iterations, and LU-SGS with the same sweeps has not reached them after
 *      lusgs_iters iterations.
 * Usage: test_newton (unit checks), test_newton --naca P MAX_ITERS LUSGS_ITERS. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_select.h"
#include "coloring/coloring.h"
#include "dg/av_ops.h"
#include "dg/backend.h"
#include "dg/disc.h"
#include "lusgs/lusgs.h"
#include "lusgs/lusgs_ops.h"
#include "mesh/geometry.h"
#include "mesh/mesh.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "newton/newton.h"
#include "test_util.h"

#define GAMMA 1.4

#include "newton_problem.h"
}

/* ------------------------------------------------ (1) matvec */

/* lusgs_apply(n_sweeps) leaves out a colour's update that would repeat
 * the one just before it (src/lusgs/lusgs.c, `repeat`). Here the sweeps
 * are rebuilt from the colour operations with every update in (forward and
 * backward pass over all colours, each pass): the result must be the same
 * values (IEEE equality: a zero's sign may differ). */
static void check_apply_turns(lusgs_marcher *lm, const dg_vec *U, const dg_vec *rhs, int av,
                              int p) {
  const dg_backend *b = lm->backend;
  dg_vec ref = {0}, out = {0}, Rv = {0};
  dg_vec *vs[] = {&ref, &out, &Rv};
  for (int i = 0; i < 3; ++i) TEST_OK(dg_vec_create(b, lm->ctx, DG_VEC_STATE, vs[i]));
  const int nc = lm->n_colors;
  for (int k = 1; k <= 4; ++k) {
    TEST_OK(dg_vec_set(0.0, &ref));
    for (int s = 0; s < k; ++s) {
      for (int c = 0; c < nc; ++c) {
        if (av) {
          TEST_OK(lusgs_backend_av_offdiag(lm, c, s ? LUSGS_ALL : LUSGS_LOWER, rhs, &ref, &Rv));
          if (s)
            TEST_OK(lusgs_backend_relax(lm, c, U, &Rv, &ref));
          else
            TEST_OK(lusgs_backend_sweep_forward(lm, c, U, &Rv, &ref));
        } else if (s) {
          TEST_OK(lusgs_backend_relax(lm, c, U, rhs, &ref));
        } else {
          TEST_OK(lusgs_backend_sweep_forward(lm, c, U, rhs, &ref));
        }
      }
      for (int c = nc - 1; c >= 0; --c) {
        if (av) {
          TEST_OK(lusgs_backend_av_offdiag(lm, c, LUSGS_ALL, rhs, &ref, &Rv));
          TEST_OK(lusgs_backend_relax(lm, c, U, &Rv, &ref));
        } else if (s) {
          TEST_OK(lusgs_backend_relax(lm, c, U, rhs, &ref));
        } else {
          TEST_OK(lusgs_backend_sweep_backward(lm, c, U, &ref));
        }
      }
    }
    TEST_OK(lusgs_apply(lm, U, rhs, k, &out));
    int64_t differ = 0;
    double scale = 0.0;
    for (int64_t i = 0; i < ref.n; ++i) {
      differ += ref.data[i] != out.data[i];
      scale = fmax(scale, fabs(ref.data[i]));
    }
    TEST_CHECK(differ == 0 && scale > 0.0,
               "lusgs_apply(%d sweeps, p = %d, av = %d): %lld of %lld values differ from the "
               "sweeps with every colour update (|dU| %.3g)",
               k, p, av, (long long)differ, (long long)ref.n, scale);
  }
  printf("  lusgs_apply(1-4 sweeps) = the sweeps with every colour update (%d colours)\n", nc);
  for (int i = 0; i < 3; ++i) dg_vec_destroy(vs[i]);
}

static void test_matvec_on(int p, int av) {
  problem pb;
  if (!problem_build(&pb, backend_cpu(), p, av)) return;
  const dg_backend *b = pb.b;
  const dg_disc_view *d = &pb.disc.view;
  const int64_t n = d->n_coefs;
  lusgs_marcher lm;
  TEST_OK(lusgs_create(b, pb.ctx, &pb.disc, &pb.col, &lm));
  TEST_OK(lusgs_keep_factors(&lm)); /* lusgs_matvec reads the LU factors */
  /* ε held at U (frozen): the residuals below and the blocks see the same ε */
  if (av != DG_AV_OFF) TEST_OK(dg_backend_av_hold(b, pb.ctx, &pb.U, 1.0));
  dg_vec dt = {0}, x = {0}, y = {0}, m = {0}, Up = {0}, Rp = {0}, Rm = {0}, z = {0};
  TEST_OK(dg_vec_create(b, pb.ctx, DG_VEC_ELEM, &dt));
  dg_vec *vs[] = {&x, &y, &m, &Up, &Rp, &Rm, &z};
  for (int i = 0; i < 7; ++i) TEST_OK(dg_vec_create(b, pb.ctx, DG_VEC_STATE, vs[i]));
  double dt_min = 0.0;
  TEST_OK(dg_backend_timestep(b, pb.ctx, &pb.U, 10.0, 0, &dt, &dt_min));
  TEST_OK(lusgs_assemble(&lm, &pb.U, 0.0, &dt));
  /* a smooth direction of unit size */
  for (int64_t i = 0; i < n; ++i) x.data[i] = sin(3.1 * (double)i + 0.3);
  TEST_OK(lusgs_matvec(&lm, &pb.U, &x, &y));
  TEST_OK(lusgs_mass(&lm, &dt, &x, &m));
  /* central differences of the residual with ε held */
  double unorm = 0.0, xnorm = 0.0;
  TEST_OK(dg_vec_norm2(&pb.U, &unorm));
  TEST_OK(dg_vec_norm2(&x, &xnorm));
  const double h = 1e-5 * unorm / xnorm;
  TEST_OK(dg_vec_copy(&pb.U, &Up));
  TEST_OK(dg_vec_axpby(h, &x, 1.0, &Up));
  TEST_OK(dg_backend_residual(b, pb.ctx, &Up, 0.0, &Rp));
  TEST_OK(dg_vec_copy(&pb.U, &Up));
  TEST_OK(dg_vec_axpby(-h, &x, 1.0, &Up));
  TEST_OK(dg_backend_residual(b, pb.ctx, &Up, 0.0, &Rm));
  /* z = m − (Rp − Rm)/2h */
  TEST_OK(dg_vec_axpby(-1.0, &Rm, 1.0, &Rp));
  TEST_OK(dg_vec_copy(&m, &z));
  TEST_OK(dg_vec_axpby(-0.5 / h, &Rp, 1.0, &z));
  double jnorm = 0.0, mnorm = 0.0;
  TEST_OK(dg_vec_norm2(&Rp, &jnorm));
  jnorm *= 0.5 / h;
  TEST_OK(dg_vec_norm2(&m, &mnorm));
  TEST_OK(dg_vec_axpby(-1.0, &y, 1.0, &z));
  double err = 0.0, ynorm = 0.0;
  TEST_OK(dg_vec_norm2(&z, &err));
  TEST_OK(dg_vec_norm2(&y, &ynorm));
  const double rel = err / ynorm;
  printf("matvec p = %d av = %d: |y| %.4g (|M/dt x| %.3g, |J x| %.3g), |y - FD| / |y| = %.3g\n", p,
         av, ynorm, mnorm, jnorm, rel);
  TEST_CHECK(jnorm > 0.1 * mnorm, "the Jacobian part is not negligible (%g vs %g)", jnorm, mnorm);
  TEST_CHECK(rel < 1e-6, "matvec vs finite differences: relative error %g (p = %d, av = %d)", rel,
             p, av);
  /* consistency: the sweeps invert the operator the matvec applies */
  TEST_OK(lusgs_apply(&lm, &pb.U, &y, 60, &z));
  TEST_OK(dg_vec_axpby(-1.0, &x, 1.0, &z));
  TEST_OK(dg_vec_norm2(&z, &err));
  printf("  |lusgs_apply(matvec(x), 60 sweeps) - x| / |x| = %.3g\n", err / xnorm);
  TEST_CHECK(err / xnorm < 1e-8, "lusgs_apply(matvec(x)) - x: relative %g (p = %d, av = %d)",
             err / xnorm, p, av);
  check_apply_turns(&lm, &pb.U, &y, av != DG_AV_OFF, p);
  /* the mass op is M/dt: affine elements of the structured mesh exist, and
   * a unit dt makes m = M x; M is SPD so x·Mx > 0 */
  double xm = 0.0;
  TEST_OK(dg_vec_dot(&x, &m, &xm));
  TEST_CHECK(xm > 0.0, "x . M/dt x = %g is not positive", xm);
  for (int i = 0; i < 7; ++i) dg_vec_destroy(vs[i]);
  dg_vec_destroy(&dt);
  lusgs_destroy(&lm);
  problem_free(&pb);
}

static void test_matvec(void) {
  for (int p = 1; p <= 2; ++p) {
    test_matvec_on(p, DG_AV_OFF);
    test_matvec_on(p, DG_AV_ELEMENT);
  }
}

/* ------------------------------------------------ (2) FGMRES */

typedef struct {
  lusgs_marcher *lm;
  const dg_vec *U;
  int sweeps;
} op_data;

static dg_status op_matvec(void *user, const dg_vec *x, dg_vec *y) {
  op_data *o = user;
  return lusgs_matvec(o->lm, o->U, x, y);
}

static dg_status op_precond(void *user, const dg_vec *x, dg_vec *y) {
  op_data *o = user;
  return lusgs_apply(o->lm, o->U, x, o->sweeps, y);
}

static void test_gmres(void) {
  problem pb;
  if (!problem_build(&pb, backend_cpu(), 2, DG_AV_OFF)) return;
  const dg_backend *b = pb.b;
  lusgs_marcher lm;
  TEST_OK(lusgs_create(b, pb.ctx, &pb.disc, &pb.col, &lm));
  TEST_OK(lusgs_keep_factors(&lm)); /* lusgs_matvec reads the LU factors */
  dg_vec dt = {0}, rhs = {0}, x = {0}, r = {0};
  TEST_OK(dg_vec_create(b, pb.ctx, DG_VEC_ELEM, &dt));
  TEST_OK(dg_vec_create(b, pb.ctx, DG_VEC_STATE, &rhs));
  TEST_OK(dg_vec_create(b, pb.ctx, DG_VEC_STATE, &x));
  TEST_OK(dg_vec_create(b, pb.ctx, DG_VEC_STATE, &r));
  double dt_min = 0.0;
  /* a large CFL: the block Gauss-Seidel sweeps alone converge slowly */
  TEST_OK(dg_backend_timestep(b, pb.ctx, &pb.U, 1e6, 0, &dt, &dt_min));
  TEST_OK(lusgs_assemble(&lm, &pb.U, 0.0, &dt));
  TEST_OK(dg_backend_residual(b, pb.ctx, &pb.U, 0.0, &rhs));
  double bnorm = 0.0;
  TEST_OK(dg_vec_norm2(&rhs, &bnorm));
  op_data od = {&lm, &pb.U, 2};
  const struct {
    int m, restarts, precond;
    double eta;
  } cases[] = {{30, 4, 1, 1e-8}, {10, 200, 0, 1e-3}, {20, 3, 1, 0.1}};
  for (int c = 0; c < 3; ++c) {
    newton_krylov k;
    TEST_OK(newton_krylov_create(b, pb.ctx, cases[c].m, &k));
    newton_krylov_result res;
    TEST_OK(newton_fgmres(&k, op_matvec, &od, cases[c].precond ? op_precond : NULL, &od, &rhs, &x,
                          cases[c].restarts, cases[c].eta, &res));
    /* the true residual */
    TEST_OK(lusgs_matvec(&lm, &pb.U, &x, &r));
    TEST_OK(dg_vec_axpby(1.0, &rhs, -1.0, &r));
    double rn = 0.0;
    TEST_OK(dg_vec_norm2(&r, &rn));
    printf("fgmres(m = %d, %d restarts, %s): eta %g, %d iterations in %d cycles, estimate %.3g, "
           "true %.3g\n",
           cases[c].m, cases[c].restarts,
           cases[c].precond ? "2 LU-SGS sweeps" : "no preconditioner", cases[c].eta, res.iterations,
           res.cycles, res.rel_residual, rn / bnorm);
    TEST_CHECK(res.converged, "fgmres case %d did not converge (%.3g)", c, res.rel_residual);
    TEST_CHECK(rn <= 1.01 * cases[c].eta * bnorm,
               "fgmres case %d: true relative residual %.3g above eta %g", c, rn / bnorm,
               cases[c].eta);
    TEST_CHECK(res.iterations >= 2, "fgmres case %d: %d iterations (the test is too easy)", c,
               res.iterations);
    newton_krylov_destroy(&k);
  }
  /* b = 0 gives x = 0 without an operator application */
  newton_krylov k;
  TEST_OK(newton_krylov_create(b, pb.ctx, 3, &k));
  TEST_OK(dg_vec_set(0.0, &rhs));
  TEST_OK(dg_vec_set(1.0, &x));
  newton_krylov_result res;
  TEST_OK(newton_fgmres(&k, op_matvec, &od, NULL, NULL, &rhs, &x, 0, 0.1, &res));
  double xn = 1.0;
  TEST_OK(dg_vec_norm2(&x, &xn));
  TEST_CHECK(xn == 0.0 && res.iterations == 0 && res.converged, "b = 0: |x| %g, %d iterations", xn,
             res.iterations);
  TEST_FAILS(newton_fgmres(&k, op_matvec, &od, NULL, NULL, &rhs, &x, 0, 1.5, &res), DG_ERR_ARG,
             "tolerance");
  newton_krylov_destroy(&k);
  dg_vec_destroy(&dt);
  dg_vec_destroy(&rhs);
  dg_vec_destroy(&x);
  dg_vec_destroy(&r);
  lusgs_destroy(&lm);
  problem_free(&pb);
}

static void test_forcing(void) {
  /* first step: eta_max */
  TEST_CLOSE(newton_ew_forcing(1.0, 0.0, 0.0, 1e-4, 0.5), 0.5, 0.0, "EW first step");
  /* 0.9 (0.1)^2 = 0.009, the safeguard 0.9 · 0.01² is below 0.1: no effect */
  TEST_CLOSE(newton_ew_forcing(0.1, 1.0, 0.01, 1e-4, 0.5), 0.009, 1e-15, "EW choice 2");
  /* safeguard: 0.9 · 0.4² = 0.144 > 0.1 keeps eta from falling to 0.009 */
  TEST_CLOSE(newton_ew_forcing(0.1, 1.0, 0.4, 1e-4, 0.5), 0.144, 1e-15, "EW safeguard");
  /* clipped */
  TEST_CLOSE(newton_ew_forcing(1e-6, 1.0, 0.01, 1e-4, 0.5), 1e-4, 0.0, "EW lower bound");
  TEST_CLOSE(newton_ew_forcing(2.0, 1.0, 0.01, 1e-4, 0.5), 0.5, 0.0, "EW upper bound");
}

/* ------------------------------------------------ the NACA problem */

static int naca_build(problem *pb, int p) {
  memset(pb, 0, sizeof *pb);
  pb->b = backend_cpu();
  dg_status st = mesh_read(COLORDG_TEST_DATA "/mesh_naca0012_tri_0_q2.cdgm", 0, &pb->mesh);
  if (st == DG_SUCCESS) st = topology_build(&pb->mesh, &pb->topo);
  const int q = pb->mesh.geom_order > 0 ? pb->mesh.geom_order : 1;
  if (st == DG_SUCCESS)
    st = geometry_build(&pb->mesh, &pb->topo, 2 * p + 1 + 2 * (q - 1), 2 * p + 1 + (q - 1),
                        &pb->geom);
  int32_t bc[16];
  physics_bc_data data[16];
  dg_disc_opts o;
  memset(&o, 0, sizeof o);
  o.p = p;
  o.gamma = GAMMA;
  o.flux = DG_FACE_FLUX_ROE;
  o.n_groups = pb->mesh.n_groups;
  o.group_bc = bc;
  o.group_data = data;
  physics_freestream_state(2, GAMMA, 0.5, 2.0, 0.0, o.freestream);
  for (int g = 0; g < pb->mesh.n_groups && g < 16; ++g) {
    bc[g] = strcmp(pb->mesh.groups[g].name, "wall") ? PHYSICS_BC_FARFIELD : PHYSICS_BC_WALL;
    memset(&data[g], 0, sizeof data[g]);
    memcpy(data[g].state, o.freestream, sizeof o.freestream);
  }
  if (st == DG_SUCCESS) st = disc_build(&pb->mesh, &pb->topo, &pb->geom, &o, &pb->disc);
  if (st == DG_SUCCESS)
    st = coloring_build(&pb->mesh, &pb->topo, DG_COLORING_BFS_WALL, "wall", &pb->col);
  if (st == DG_SUCCESS) st = dg_backend_create(pb->b, &pb->disc, &pb->ctx);
  if (st == DG_SUCCESS) st = dg_vec_create(pb->b, pb->ctx, DG_VEC_STATE, &pb->U);
  if (st == DG_SUCCESS) st = disc_project(&pb->disc, 0.0, pb->U.data);
  TEST_OK(st);
  return st == DG_SUCCESS;
}

/* The settings of the NACA runs: CFL 10 -> 1e8 (Newton) or 1e3 (LU-SGS) in
 * 20 iterations, 16 sweeps. */
static dg_marcher_settings naca_settings(const problem *pb, int newton) {
  dg_marcher_settings s;
  memset(&s, 0, sizeof s);
  s.cfl_law = LUSGS_CFL_EXPONENTIAL;
  s.cfl_min = 10.0;
  s.cfl_max = newton ? 1e8 : 1e3;
  s.cfl_ramp_iters = 20;
  s.n_sweeps = 16;
  s.max_change = 0.2;
  s.coloring = &pb->col;
  s.krylov_size = 30;
  s.krylov_restarts = 1;
  s.newton_forcing = 0.0;
  s.newton_jacobian = NEWTON_JACOBIAN_ANALYTIC;
  s.newton_max_growth = 10.0;
  s.newton_linear_stall = 0.9;
  s.newton_cfl_cut = 0.25;
  s.newton_max_cuts = 10;
  s.newton_reuse_residual = 1;
  return s;
}

/* Marches until every equation dropped `target` orders below its first
 * residual or max_iters; returns the iterations, *drop the smallest drop. */
static int march(problem *pb, const dg_marcher_ops *ops, const dg_marcher_settings *s,
                 int max_iters, double target, double *drop, int64_t *linear, int64_t *residuals) {
  dg_marcher m;
  TEST_OK(dg_marcher_create(ops, pb->b, pb->ctx, &pb->disc, s, &m));
  double first[DG_MAX_NVAR] = {0};
  *drop = 0.0;
  int n = 0;
  for (n = 1; n <= max_iters; ++n) {
    dg_marcher_step_opts so;
    memset(&so, 0, sizeof so);
    so.iteration = n;
    so.compute_norms = 1;
    dg_marcher_info info;
    const dg_status st = dg_marcher_step(&m, &pb->U, &so, &info);
    TEST_OK(st);
    if (st != DG_SUCCESS) break;
    double worst = INFINITY;
    for (int v = 0; v < pb->disc.view.nvar; ++v) {
      if (n == 1) first[v] = info.res_norm[v];
      const double d = log10(first[v] / info.res_norm[v]);
      worst = d < worst ? d : worst;
    }
    *drop = n == 1 ? 0.0 : worst;
    if (*drop >= target) break;
  }
  dg_marcher_stats stats;
  TEST_OK(m.ops->stats(&m, 0, &stats));
  if (linear) *linear = stats.linear_iterations;
  if (residuals) *residuals = stats.residuals;
  dg_marcher_destroy(&m);
  return n > max_iters ? max_iters : n;
}

/* ------------------------------------------------ (3) divergence */

static void test_diverged(void) {
  problem pb;
  if (!naca_build(&pb, 1)) return;
  dg_marcher_settings s = naca_settings(&pb, 1);
  s.cfl_min = s.cfl_max = 1e8; /* a full Newton step from the free stream */
  s.max_change = 0.0;
  s.newton_max_growth = 1.0001;
  s.newton_max_cuts = 2;
  s.newton_cfl_cut = 0.5;
  s.n_sweeps = 1; /* cheap tries: the test is about the rejections */
  s.krylov_size = 5;
  s.krylov_restarts = 0;
  const int64_t n = pb.disc.view.n_coefs;
  double *before = malloc((size_t)n * sizeof *before);
  memcpy(before, pb.U.data, (size_t)n * sizeof *before);
  dg_marcher m;
  TEST_OK(dg_marcher_create(newton_marcher_ops(), pb.b, pb.ctx, &pb.disc, &s, &m));
  dg_marcher_step_opts so;
  memset(&so, 0, sizeof so);
  so.iteration = 1;
  dg_marcher_info info;
  TEST_FAILS(dg_marcher_step(&m, &pb.U, &so, &info), DG_ERR_DIVERGED, "rejected 3 times in a row");
  TEST_CHECK(info.diverged && info.rejections == 3 && info.finite,
             "diverged %d, rejections %d, finite %d", info.diverged, info.rejections, info.finite);
  TEST_CHECK(!memcmp(before, pb.U.data, (size_t)n * sizeof *before),
             "the state changed in a step that failed");
  dg_marcher_stats stats;
  TEST_OK(m.ops->stats(&m, 0, &stats));
  /* R(Uⁿ) and one trial residual per try */
  TEST_CHECK(stats.rejections == 3 && stats.residuals == 4,
             "stats: %lld rejections, %lld residuals", (long long)stats.rejections,
             (long long)stats.residuals);
  dg_marcher_destroy(&m);
  free(before);
  problem_free(&pb);
}

/* A linear solve that ends above newton_linear_stall rejects the try (the
 * CFL is cut and the step redone), like a growing residual: here any
 * relative linear residual above 1e-12 counts as a stall, the residual may
 * grow freely, so every try is rejected for its linear solve alone. */
static void test_linear_stall(void) {
  problem pb;
  if (!naca_build(&pb, 1)) return;
  dg_marcher_settings s = naca_settings(&pb, 1);
  s.newton_max_growth = 1e30;
  s.newton_linear_stall = 1e-12;
  s.newton_max_cuts = 1;
  s.n_sweeps = 1;
  s.krylov_size = 5;
  s.krylov_restarts = 0;
  const int64_t n = pb.disc.view.n_coefs;
  double *before = malloc((size_t)n * sizeof *before);
  memcpy(before, pb.U.data, (size_t)n * sizeof *before);
  dg_marcher m;
  TEST_OK(dg_marcher_create(newton_marcher_ops(), pb.b, pb.ctx, &pb.disc, &s, &m));
  dg_marcher_step_opts so;
  memset(&so, 0, sizeof so);
  so.iteration = 1;
  dg_marcher_info info;
  TEST_FAILS(dg_marcher_step(&m, &pb.U, &so, &info), DG_ERR_DIVERGED, "the linear solve stalled");
  TEST_CHECK(info.diverged && info.rejections == 2, "diverged %d, rejections %d", info.diverged,
             info.rejections);
  TEST_CHECK(!memcmp(before, pb.U.data, (size_t)n * sizeof *before),
             "the state changed in a step that failed");
  dg_marcher_destroy(&m);
  /* the same settings with the default limit (0.9) accept the first try */
  s.newton_linear_stall = 0.9;
  TEST_OK(dg_marcher_create(newton_marcher_ops(), pb.b, pb.ctx, &pb.disc, &s, &m));
  TEST_OK(dg_marcher_step(&m, &pb.U, &so, &info));
  TEST_CHECK(info.rejections == 0, "%d rejections with the default stall limit", info.rejections);
  dg_marcher_destroy(&m);
  /* a limit outside (0, 1] is refused when the marcher is made */
  s.newton_linear_stall = 0.0;
  TEST_FAILS(dg_marcher_create(newton_marcher_ops(), pb.b, pb.ctx, &pb.disc, &s, &m), DG_ERR_ARG,
             "linear stall limit");
  free(before);
  problem_free(&pb);
}

/* A backend whose device memory_check refuses more than `limit` bytes (and
 * records the largest request), to see Newton-Krylov ask before it
 * allocates (the CPU backend has no check; CUDA asks cudaMemGetInfo). */
static int64_t check_limit, check_largest;
static char check_what[256];
static dg_status limited_memory_check(dg_backend_ctx *ctx, int64_t bytes, const char *what) {
  (void)ctx;
  if (bytes > check_largest) {
    check_largest = bytes;
    snprintf(check_what, sizeof check_what, "%s", what);
  }
  DG_CHECK(bytes <= check_limit, DG_ERR_MEMORY, "%s needs %lld bytes, %lld free", what,
           (long long)bytes, (long long)check_limit);
  return DG_SUCCESS;
}

/* The Krylov basis, the Newton vectors and the preconditioner's staging
 * vectors are checked against the device's free memory before any of them
 * is allocated: with room for them the marcher is made (and asked for
 * exactly newton_vector_bytes + 2 state vectors); with one byte less it is
 * refused with DG_ERR_MEMORY naming them, and nothing leaks (ASan). */
static void test_memory_check(void) {
  problem pb;
  if (!naca_build(&pb, 1)) return;
  dg_marcher_settings s = naca_settings(&pb, 1);
  s.krylov_size = 12;
  dg_backend limited = *pb.b;
  limited.memory_check = limited_memory_check;
  const int64_t n = pb.disc.view.n_coefs;
  const int64_t need = newton_vector_bytes(n, pb.disc.view.n_elems, 12, 0) +
                       LUSGS_STAGING_VECTORS * n * (int64_t)sizeof(double);
  check_limit = need;
  check_largest = 0;
  dg_marcher m;
  TEST_OK(dg_marcher_create(newton_marcher_ops(), &limited, pb.ctx, &pb.disc, &s, &m));
  TEST_CHECK(check_largest == need && strstr(check_what, "FGMRES(12)"),
             "asked for %lld bytes (%s); expected %lld", (long long)check_largest, check_what,
             (long long)need);
  dg_marcher_destroy(&m);
  check_limit = need - 1;
  TEST_FAILS(dg_marcher_create(newton_marcher_ops(), &limited, pb.ctx, &pb.disc, &s, &m),
             DG_ERR_MEMORY, "Newton-Krylov's vectors");
  dg_error_clear();
  problem_free(&pb);
}

/* ------------------------------------------------ (4) NACA 0012 */

static void test_naca(int p, int max_iters, int lusgs_iters) {
  problem pb;
  if (!naca_build(&pb, p)) return;
  dg_marcher_settings s = naca_settings(&pb, 1);
  double drop = 0.0;
  int64_t linear = 0, residuals = 0;
  const int n = march(&pb, newton_marcher_ops(), &s, max_iters, 10.0, &drop, &linear, &residuals);
  printf("NACA0012 M0.5 a2 p=%d Newton-Krylov: %.2f orders in %d iterations (%lld linear "
         "iterations, %lld residuals)\n",
         p, drop, n, (long long)linear, (long long)residuals);
  TEST_CHECK(drop >= 10.0, "Newton-Krylov p = %d: %.2f orders after %d iterations (limit %d)", p,
             drop, n, max_iters);
  /* LU-SGS, same sweeps, from the free stream again */
  TEST_OK(disc_project(&pb.disc, 0.0, pb.U.data));
  dg_marcher_settings sl = naca_settings(&pb, 0);
  double drop_l = 0.0;
  const int nl = march(&pb, lusgs_marcher_ops(), &sl, lusgs_iters, 10.0, &drop_l, NULL, NULL);
  printf("NACA0012 M0.5 a2 p=%d LU-SGS: %.2f orders in %d iterations\n", p, drop_l, nl);
  TEST_CHECK(drop_l < 10.0, "LU-SGS p = %d reached %.2f orders in %d iterations: not slower", p,
             drop_l, nl);
  problem_free(&pb);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--naca")) {
    test_naca(argc > 2 ? atoi(argv[2]) : 1, argc > 3 ? atoi(argv[3]) : 30,
              argc > 4 ? atoi(argv[4]) : 60);
    return test_finish("test_newton --naca");
  }
  test_matvec();
  test_gmres();
  test_forcing();
  test_diverged();
  test_linear_stall();
  test_memory_check();
  return test_finish("test_newton");
}
