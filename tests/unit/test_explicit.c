/* Explicit SSP-RK3 (src/dg/explicit.c) on a backend: one source,
 * `--backend cpu|cuda` (tests/solver.cmake registers test_explicit_cpu,
 * test_explicit_order_cpu and their _cuda twins, label gpu).
 *
 *   test_explicit            free-stream preservation (curved mixed 2D, curved
 *                            tets), conservation on a periodic box, third
 *                            order in time, step options and divergence
 *   test_explicit --order    order of accuracy: the isentropic vortex on the
 *                            periodic square [0,10]², tri and quad, p = 1..3,
 *                            three meshes; the slope of the density L2 error
 *                            on the finest pair must be >= p + 0.8
 *   --quadrature symmetric   (after the above) the same checks and targets
 *                            with the symmetric rules on triangles and
 *                            tetrahedra (src/element/quadrature.h); the order
 *                            study then skips quads, whose rules are the
 *                            same in both families. Default collapsed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_select.h"
#include "dg/disc.h"
#include "dg/explicit.h"
#include "element/basis.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "test_util.h"

#define GAMMA 1.4
#define VORTEX_BOX 10.0

/* rule family of every geometry built here (--quadrature) */
static dg_quad_family test_family = DG_QUAD_COLLAPSED;

typedef struct {
  dg_mesh mesh;
  dg_topology topo;
  dg_geometry geom;
  dg_disc disc;
  dg_backend_ctx *ctx;
  explicit_rk3 rk;
  dg_vec U;  /* backend state */
  double *h; /* [n_coefs] host copy of U (solver_host) */
} solver;

static void solver_free(solver *sv) {
  const dg_backend *b = test_backend;
  free(sv->h);
  explicit_rk3_destroy(&sv->rk);
  dg_vec_destroy(&sv->U);
  if (sv->ctx) dg_backend_destroy(b, sv->ctx);
  disc_free(&sv->disc);
  geometry_free(&sv->geom);
  topology_free(&sv->topo);
  mesh_free(&sv->mesh);
  memset(sv, 0, sizeof *sv);
}

/* Builds everything and projects the exact state at t = 0. vortex = 0: the
 * freestream M 0.5 at 30° (3D: 30°, 10°) with far-field boundaries;
 * vortex = 1: the isentropic vortex (β = 5) in the centre of a periodic box.
 * vol_degree 0 means 2p+1. */
static int solver_build(solver *sv, const dg_mesh_structured_opts *mo, int dim, int p, int vortex,
                        int vol_degree) {
  memset(sv, 0, sizeof *sv);
  const dg_backend *b = test_backend;
  dg_status st = dim == 2 ? mesh_structured_2d(mo, &sv->mesh) : mesh_structured_3d(mo, &sv->mesh);
  if (st == DG_SUCCESS) st = topology_build(&sv->mesh, &sv->topo);
  if (st == DG_SUCCESS)
    st = geometry_build_family(&sv->mesh, &sv->topo, vol_degree ? vol_degree : 2 * p + 1, 2 * p + 1,
                               test_family, &sv->geom);
  int32_t bc[8];
  physics_bc_data data[8];
  dg_disc_opts o = {0};
  o.p = p;
  o.gamma = GAMMA;
  o.flux = DG_FACE_FLUX_ROE;
  o.exact_kind = vortex;
  o.n_groups = sv->mesh.n_groups;
  o.group_bc = bc;
  o.group_data = data;
  if (vortex) {
    o.vortex.velocity[0] = 0.5;
    o.vortex.velocity[1] = 0.25;
    o.vortex.center[0] = 0.5 * (mo->lo[0] + mo->hi[0]);
    o.vortex.center[1] = 0.5 * (mo->lo[1] + mo->hi[1]);
    o.vortex.strength = 5.0;
    o.vortex.period[0] = mo->periodic[0] ? mo->hi[0] - mo->lo[0] : 0.0;
    o.vortex.period[1] = mo->periodic[1] ? mo->hi[1] - mo->lo[1] : 0.0;
    o.vortex.images = 2;
    const double W[4] = {1.0, 0.5, 0.25, 1.0 / GAMMA};
    physics_primitive_to_conservative(2, GAMMA, W, o.freestream);
  } else {
    physics_freestream_state(dim, GAMMA, 0.5, 30.0, dim == 3 ? 10.0 : 0.0, o.freestream);
  }
  for (int g = 0; g < sv->mesh.n_groups && g < 8; ++g) {
    bc[g] = PHYSICS_BC_FARFIELD;
    memset(&data[g], 0, sizeof data[g]);
    memcpy(data[g].state, o.freestream, sizeof o.freestream);
  }
  if (st == DG_SUCCESS) st = disc_build(&sv->mesh, &sv->topo, &sv->geom, &o, &sv->disc);
  if (st == DG_SUCCESS) st = dg_backend_create(b, &sv->disc, &sv->ctx);
  if (st == DG_SUCCESS) st = dg_vec_create(b, sv->ctx, DG_VEC_STATE, &sv->U);
  if (st == DG_SUCCESS) st = DG_CALLOC(sv->h, sv->disc.view.n_coefs);
  if (st == DG_SUCCESS) st = disc_project(&sv->disc, 0.0, sv->h);
  if (st == DG_SUCCESS) st = dg_vec_upload(sv->h, &sv->U);
  if (st == DG_SUCCESS) st = explicit_rk3_create(b, sv->ctx, &sv->disc, &sv->rk);
  TEST_OK(st);
  return st == DG_SUCCESS;
}

/* sv->h, downloaded from sv->U. */
static double *solver_host(solver *sv) {
  TEST_OK(dg_vec_download(&sv->U, sv->h));
  return sv->h;
}

/* n fixed steps of size dt from t = 0. */
static int solver_march(solver *sv, int64_t n, double dt) {
  const explicit_rk3_opts ro = {.cfl = 1.0, .dt_fixed = dt};
  for (int64_t k = 0; k < n; ++k) {
    const dg_status st = explicit_rk3_step(&sv->rk, &sv->U, (double)k * dt, &ro, NULL);
    TEST_OK(st);
    if (st != DG_SUCCESS) return 0;
  }
  return 1;
}

/* ---------------------------------------------------------- free stream */

static void check_freestream(const char *what, const dg_mesh_structured_opts *mo, int dim, int p,
                             int local_dt) {
  solver sv;
  if (!solver_build(&sv, mo, dim, p, 0, 0)) return;
  const int64_t n = sv.disc.view.n_coefs;
  double *U0 = malloc((size_t)n * sizeof *U0);
  memcpy(U0, sv.h, (size_t)n * sizeof *U0);
  const explicit_rk3_opts ro = {.cfl = 0.5, .local_dt = local_dt, .compute_norms = 1};
  explicit_rk3_info info = {0};
  double t = 0.0, res = 0.0;
  for (int k = 0; k < 100; ++k) {
    TEST_OK(explicit_rk3_step(&sv.rk, &sv.U, t, &ro, &info));
    t += info.dt;
    for (int v = 0; v < sv.disc.view.nvar; ++v) res = fmax(res, info.res_norm[v]);
  }
  double dev = 0.0;
  const double *U = solver_host(&sv);
  for (int64_t i = 0; i < n; ++i) dev = fmax(dev, fabs(U[i] - U0[i]));
  TEST_CHECK(dev <= 1e-12, "%s p=%d%s: free stream drifts by %.3g after 100 steps", what, p,
             local_dt ? " (local dt)" : "", dev);
  TEST_CHECK(res <= 1e-12, "%s p=%d: residual norm of the free stream %.3g", what, p, res);
  TEST_CHECK(info.dt > 0.0 && info.finite == 1, "%s p=%d: step info dt %g finite %d", what, p,
             info.dt, info.finite);
  printf("free stream %-22s p=%d%s: max |U - U_inf| = %.2e after 100 steps (t = %.3f)\n", what, p,
         local_dt ? " local dt" : "", dev, t);
  free(U0);
  solver_free(&sv);
}

static void test_freestream(void) {
  for (int order = 2; order <= 3; ++order)
    for (int p = 1; p <= DG_MAX_P; ++p) {
      dg_mesh_structured_opts mo = mesh_structured_defaults(2);
      mo.kind = MESH_STRUCTURED_MIXED;
      mo.order = order;
      mo.n[0] = 5;
      mo.n[1] = 4;
      mo.deform = 0.05;
      mo.alternate_diagonals = 1;
      check_freestream(order == 2 ? "curved mixed order 2" : "curved mixed order 3", &mo, 2, p,
                       p == 2);
    }
  for (int p = 1; p <= DG_MAX_P; ++p) {
    dg_mesh_structured_opts mo = mesh_structured_defaults(3);
    mo.order = 2;
    mo.n[0] = mo.n[1] = mo.n[2] = 2;
    mo.deform = 0.04;
    check_freestream("curved tet order 2", &mo, 3, p, 0);
  }
}

/* --------------------------------------------------------- conservation */

static void test_conservation(void) {
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = MESH_STRUCTURED_MIXED;
  mo.order = 2;
  mo.n[0] = mo.n[1] = 6;
  mo.hi[0] = mo.hi[1] = VORTEX_BOX;
  mo.periodic[0] = mo.periodic[1] = 1;
  mo.deform = 0.04;
  solver sv;
  if (!solver_build(&sv, &mo, 2, 2, 1, 0)) return;
  double before[DG_MAX_NVAR], after[DG_MAX_NVAR];
  TEST_OK(disc_integral(&sv.disc, sv.h, before));
  double dt = 0.0;
  TEST_OK(explicit_rk3_global_step(&sv.rk, &sv.U, 0.8, &dt));
  solver_march(&sv, 50, dt);
  TEST_OK(disc_integral(&sv.disc, solver_host(&sv), after));
  double moved = 0.0;
  for (int v = 0; v < 4; ++v) {
    const double rel = fabs(after[v] - before[v]) / fabs(before[v]);
    TEST_CHECK(rel <= 1e-13, "conservation: variable %d changes by %.3g (relative) in 50 steps", v,
               rel);
    printf("conservation: variable %d total %.15g -> %.15g (relative change %.2e)\n", v, before[v],
           after[v], rel);
  }
  /* the solution did move: the vortex was advected, not frozen */
  double err[DG_MAX_NVAR];
  TEST_OK(disc_error_l2(&sv.disc, sv.h, 0.0, err));
  moved = err[0];
  TEST_CHECK(moved > 1e-3, "conservation: the state hardly changed (%.3g)", moved);
  solver_free(&sv);
}

/* -------------------------------------------------- third order in time */

/* On a fixed coarse mesh, the difference to a 16x finer step falls by ~8
 * per halving of the step: SSP-RK3 is third order. */
static void test_time_order(void) {
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = MESH_STRUCTURED_QUAD;
  mo.n[0] = mo.n[1] = 6;
  mo.hi[0] = mo.hi[1] = VORTEX_BOX;
  mo.periodic[0] = mo.periodic[1] = 1;
  const double t_end = 1.0;
  const int64_t base = 20; /* t_end / base is near the CFL 1 step of this mesh at p = 2 */
  const int64_t mult[4] = {1, 2, 4, 16};
  double *U[4] = {NULL, NULL, NULL, NULL};
  int64_t n = 0;
  for (int k = 0; k < 4; ++k) {
    solver sv;
    if (!solver_build(&sv, &mo, 2, 2, 1, 0)) return;
    if (k == 0) {
      double dt_cfl = 0.0;
      TEST_OK(explicit_rk3_global_step(&sv.rk, &sv.U, 1.0, &dt_cfl));
      TEST_CHECK(t_end / base <= dt_cfl * 1.5 && t_end / base >= dt_cfl * 0.5,
                 "time order: step %g is far from the CFL 1 step %g", t_end / base, dt_cfl);
    }
    n = sv.disc.view.n_coefs;
    solver_march(&sv, base * mult[k], t_end / (double)(base * mult[k]));
    U[k] = malloc((size_t)n * sizeof(double));
    memcpy(U[k], solver_host(&sv), (size_t)n * sizeof(double));
    solver_free(&sv);
  }
  double diff[3];
  for (int k = 0; k < 3; ++k) {
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) sum += (U[k][i] - U[3][i]) * (U[k][i] - U[3][i]);
    diff[k] = sqrt(sum);
  }
  /* Richardson: the reference has its own error ~ (1/16)³ of the coarsest */
  const double order1 = log2(diff[0] / diff[1]), order2 = log2(diff[1] / diff[2]);
  printf("time order: |U_dt - U_dt/16| = %.3e, %.3e, %.3e; observed orders %.2f, %.2f\n", diff[0],
         diff[1], diff[2], order1, order2);
  TEST_CHECK(order1 >= 2.8 && order2 >= 2.8, "SSP-RK3 observed temporal orders %.2f, %.2f < 2.8",
             order1, order2);
  for (int k = 0; k < 4; ++k) free(U[k]);
}

/* ------------------------------------------------- options and failures */

static void test_step_failures(void) {
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = MESH_STRUCTURED_QUAD;
  solver sv;
  if (!solver_build(&sv, &mo, 2, 1, 0, 0)) return;
  explicit_rk3_opts ro = {.cfl = 0.0};
  TEST_FAILS(explicit_rk3_step(&sv.rk, &sv.U, 0.0, &ro, NULL), DG_ERR_ARG, "CFL 0 must be > 0");
  ro.cfl = 0.5;
  ro.compute_norms = 1;
  sv.h[disc_coef_index(&sv.disc.view, 3, 0, 0)] = -1.0; /* negative density */
  TEST_OK(dg_vec_upload(sv.h, &sv.U));
  /* the CPU backend names the element whose time step is not positive;
   * another backend must fail as diverged, whatever it says */
  TEST_FAILS(explicit_rk3_step(&sv.rk, &sv.U, 0.0, &ro, NULL), DG_ERR_DIVERGED,
             test_backend_is_cpu() ? "time step" : NULL);
  ro.dt_fixed = 1e-3;
  sv.h[disc_coef_index(&sv.disc.view, 3, 0, 0)] = NAN;
  TEST_OK(dg_vec_upload(sv.h, &sv.U));
  TEST_FAILS(explicit_rk3_step(&sv.rk, &sv.U, 0.0, &ro, NULL), DG_ERR_DIVERGED, "not finite");
  solver_free(&sv);
}

/* --------------------------------------------------- order of accuracy */

static double vortex_error(dg_mesh_structured_kind kind, int p, int64_t cells, double t_end,
                           double cfl, int64_t *n_steps) {
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = kind;
  mo.n[0] = mo.n[1] = cells;
  mo.hi[0] = mo.hi[1] = VORTEX_BOX;
  mo.periodic[0] = mo.periodic[1] = 1;
  solver sv;
  /* error quadrature of degree 2p+2 (the volume rule) */
  if (!solver_build(&sv, &mo, 2, p, 1, 2 * p + 2)) return NAN;
  double dt_cfl = 0.0;
  TEST_OK(explicit_rk3_global_step(&sv.rk, &sv.U, cfl, &dt_cfl));
  int64_t n = (int64_t)ceil(t_end / dt_cfl);
  *n_steps = n;
  double err[DG_MAX_NVAR] = {NAN};
  if (solver_march(&sv, n, t_end / (double)n))
    TEST_OK(disc_error_l2(&sv.disc, solver_host(&sv), t_end, err));
  solver_free(&sv);
  return err[0];
}

static void test_order_of_accuracy(void) {
  const int64_t cells[3] = {16, 24, 32};
  const double t_end = 0.5, cfl = 1.0;
  const dg_mesh_structured_kind kinds[2] = {MESH_STRUCTURED_TRI, MESH_STRUCTURED_QUAD};
  const char *names[2] = {"tri", "quad"};
  printf("isentropic vortex, periodic [0,10]^2, t = %g, CFL %g, %s rules: L2 error of density\n",
         t_end, cfl, quadrature_family_name(test_family));
  printf("shape  p    n   steps        error   slope\n");
  for (int k = 0; k < (test_family == DG_QUAD_SYMMETRIC ? 1 : 2); ++k)
    for (int p = 1; p <= DG_MAX_P; ++p) {
      double err[3], slope = NAN;
      for (int i = 0; i < 3; ++i) {
        int64_t steps = 0;
        err[i] = vortex_error(kinds[k], p, cells[i], t_end, cfl, &steps);
        slope =
            i > 0 ? log(err[i - 1] / err[i]) / log((double)cells[i] / (double)cells[i - 1]) : NAN;
        printf("%-5s %2d %4lld %7lld %12.4e %7.2f\n", names[k], p, (long long)cells[i],
               (long long)steps, err[i], slope);
      }
      TEST_CHECK(slope >= p + 0.8, "%s p=%d: observed order %.2f on the finest pair < %.1f",
                 names[k], p, slope, p + 0.8);
    }
}

int main(int argc, char **argv) {
  const int rc = test_backend_args(&argc, argv);
  if (rc) return rc;
  printf("backend %s\n", test_backend_name);
  const int order = argc > 1 && !strcmp(argv[1], "--order");
  for (int i = 1 + order; i < argc; ++i) {
    if (!strcmp(argv[i], "--quadrature") && i + 1 < argc &&
        (!strcmp(argv[i + 1], "collapsed") || !strcmp(argv[i + 1], "symmetric"))) {
      test_family = !strcmp(argv[++i], "symmetric") ? DG_QUAD_SYMMETRIC : DG_QUAD_COLLAPSED;
    } else {
      fprintf(stderr, "usage: test_explicit [--backend B] [--order] [--quadrature "
                      "collapsed|symmetric]\n");
      return 2;
    }
  }
  printf("rules: %s\n", quadrature_family_name(test_family));
  if (order) {
    test_order_of_accuracy();
    return test_finish("test_explicit --order");
  }
  test_freestream();
  test_conservation();
  test_time_order();
  test_step_failures();
  return test_finish("test_explicit");
}
