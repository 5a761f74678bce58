/* Order of accuracy in 3D: the isentropic vortex (β = 5) extruded along z
 * (w = 0) on the fully periodic box [0,10]² x [0,3h] (n x n x 3 cubic cells
 * of side h = 10/n, six Kuhn tetrahedra each), advected by (0.5, 0.25) with
 * SSP-RK3 (CPU backend, or CUDA with --gpu); the L2 error of the density
 * per unit depth at the end time is measured on three meshes and the
 * observed order on the finest pair is checked. Two mesh variants: affine
 * tets, and curved tets (geometric order 2, every node moved by the
 * z-independent periodic map of tools/study_order_driver.c, amplitude
 * 0.02). The full study, n = 16..64, is tools/study_order.py
 * (docs/ORDER_OF_ACCURACY.md).
 *
 *   test_order_3d --full   n = 16, 24, 32, T = 0.25, CFL 2 (label slow:
 *                          ~10 minutes on 2 cores). Affine tets, p = 1..3:
 *                          the claim, slope >= p + 0.8 (observed 1.84,
 *                          2.85, 3.80). Curved tets reach only 1.79, 2.82,
 *                          3.72 on these meshes (pre-asymptotic): --gpu
 *                          checks them on finer ones.
 *   test_order_3d --gpu    label gpu (exit 77 without a GPU): curved tets,
 *                          p = 1..3, n = 24, 32, 48, T = 0.25, CFL 2 on the
 *                          CUDA backend, slope >= p + 0.8 on the finest
 *                          pair (the study's runs of these meshes took 21 s
 *                          in all on an H100). The study saw 1.94, 3.00,
 *                          3.85 there (and 1.97, 2.98, 3.92 for n = 48 ->
 *                          64); CPU and CUDA give the same errors to 1e-10.
 *   test_order_3d          CI size (~15 s): n = 8, 12, 16, T = 0.1, CFL 2,
 *                          affine p = 1..3 and curved p = 1, 2. Meshes this
 *                          coarse (h = 1.25..0.625 for a vortex of radius
 *                          ~1) are not yet asymptotic on tets (observed
 *                          orders 1.80, 2.64, 4.02 affine; 1.73, 2.84 curved),
 *                          so this run is a regression guard that asserts
 *                          slope >= p + 0.5; it does not claim design
 *                          order, which --full checks.
 *   --quadrature symmetric with any of the above: the same checks and
 *                          targets with the symmetric rules on the
 *                          tetrahedra and their faces (src/element/
 *                          quadrature.h); default collapsed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_select.h"
#include "dg/backend_cpu.h"
#include "dg/disc.h"
#include "dg/explicit.h"
#include "element/basis.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "test_util.h"

#define VORTEX_BOX 10.0

/* rule family of every geometry built here (--quadrature) */
static dg_quad_family order_family = DG_QUAD_COLLAPSED;
#define CURVED_AMPLITUDE 0.02 /* deformation amplitude relative to the box */

/* Checks a dg_status call and leaves through `done` when it failed. */
#define ORDER_CALL(expr)                                                                           \
  do {                                                                                             \
    const dg_status order_st_ = (expr);                                                            \
    TEST_OK(order_st_);                                                                            \
    if (order_st_ != DG_SUCCESS) goto done;                                                        \
  } while (0)

/* One order check: p on three meshes of n cells per side, end time t_end,
 * CFL, and the smallest accepted slope on the finest pair. */
typedef struct {
  int curved; /* 0 affine tets, 1 curved order-2 tets */
  int p;
  int64_t cells[3];
  double t_end, cfl, min_slope;
} order_case;

/* L2 error of the density per unit depth at t_end for n cells per side;
 * NAN (with a recorded failure) when a step fails. *steps: steps taken. */
static double vortex_error_3d(const dg_backend *b, int curved, int p, int64_t n, double t_end,
                              double cfl, int64_t *steps) {
  dg_mesh mesh = {0};
  dg_topology topo = {0};
  dg_geometry geom = {0};
  dg_disc disc = {0};
  dg_backend_ctx *ctx = NULL;
  explicit_rk3 rk = {0};
  double *h_U = NULL;
  dg_vec U = {0};
  double result = NAN;

  dg_mesh_structured_opts mo = mesh_structured_defaults(3);
  mo.kind = MESH_STRUCTURED_TET;
  mo.order = curved ? 2 : 1;
  mo.n[0] = mo.n[1] = n;
  mo.n[2] = 3;
  mo.hi[0] = mo.hi[1] = VORTEX_BOX;
  mo.hi[2] = 3.0 * VORTEX_BOX / (double)n;
  mo.periodic[0] = mo.periodic[1] = mo.periodic[2] = 1;
  ORDER_CALL(mesh_structured_3d(&mo, &mesh));
  if (curved) mesh_structured_deform_xy(&mesh, VORTEX_BOX, CURVED_AMPLITUDE);
  /* volume rule of degree 2p+2: also the error quadrature */
  ORDER_CALL(topology_build(&mesh, &topo));
  ORDER_CALL(geometry_build_family(&mesh, &topo, 2 * p + 2, 2 * p + 1, order_family, &geom));

  dg_disc_opts dopts;
  disc_opts_periodic_vortex(3, p, VORTEX_BOX, &dopts);
  ORDER_CALL(disc_build(&mesh, &topo, &geom, &dopts, &disc));
  ORDER_CALL(DG_CALLOC(h_U, disc.view.n_coefs));
  ORDER_CALL(disc_project(&disc, 0.0, h_U));
  ORDER_CALL(dg_backend_create(b, &disc, &ctx));
  ORDER_CALL(dg_vec_create(b, ctx, DG_VEC_STATE, &U));
  ORDER_CALL(dg_vec_upload(h_U, &U));
  ORDER_CALL(explicit_rk3_create(b, ctx, &disc, &rk));

  double dt_cfl = 0.0;
  ORDER_CALL(explicit_rk3_global_step(&rk, &U, cfl, &dt_cfl));
  const int64_t n_steps = (int64_t)ceil(t_end / dt_cfl);
  const double dt = t_end / (double)n_steps;
  const explicit_rk3_opts ro = {.cfl = cfl, .dt_fixed = dt};
  for (int64_t k = 0; k < n_steps; ++k)
    ORDER_CALL(explicit_rk3_step(&rk, &U, (double)k * dt, &ro, NULL));
  double err[DG_MAX_NVAR];
  ORDER_CALL(dg_vec_download(&U, h_U));
  ORDER_CALL(disc_error_l2(&disc, h_U, t_end, err));
  *steps = n_steps;
  result = err[0] / sqrt(mo.hi[2]); /* per unit depth */
done:
  explicit_rk3_destroy(&rk);
  if (U.data) dg_vec_destroy(&U);
  if (ctx) dg_backend_destroy(b, ctx);
  free(h_U);
  disc_free(&disc);
  geometry_free(&geom);
  topology_free(&topo);
  mesh_free(&mesh);
  return result;
}

static void run_cases(const dg_backend *b, const order_case *cases, int n_cases) {
  printf("backend %s, %s rules: isentropic vortex extruded along z, periodic [0,10]^2 x [0,3h] "
         "tets: L2 error of density per unit depth\n",
         b->name, quadrature_family_name(order_family));
  printf("variant     p    n   steps    T   CFL        error   slope\n");
  for (int c = 0; c < n_cases; ++c) {
    const order_case *k = &cases[c];
    const char *name = k->curved ? "tet-curved" : "tet";
    double err[3], slope = NAN;
    for (int i = 0; i < 3; ++i) {
      int64_t steps = 0;
      err[i] = vortex_error_3d(b, k->curved, k->p, k->cells[i], k->t_end, k->cfl, &steps);
      slope = i > 0 ? log(err[i - 1] / err[i]) / log((double)k->cells[i] / (double)k->cells[i - 1])
                    : NAN;
      printf("%-10s %2d %4lld %7lld %4g %4g %12.4e %7.2f\n", name, k->p, (long long)k->cells[i],
             (long long)steps, k->t_end, k->cfl, err[i], slope);
      fflush(stdout);
    }
    TEST_CHECK(slope >= k->min_slope, "%s p=%d: observed order %.2f on the finest pair < %.2f",
               name, k->p, slope, k->min_slope);
  }
}

int main(int argc, char **argv) {
  int full = 0, gpu = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--full")) {
      full = 1;
    } else if (!strcmp(argv[i], "--gpu")) {
      gpu = 1;
    } else if (!strcmp(argv[i], "--quadrature") && i + 1 < argc &&
               (!strcmp(argv[i + 1], "collapsed") || !strcmp(argv[i + 1], "symmetric"))) {
      order_family = !strcmp(argv[++i], "symmetric") ? DG_QUAD_SYMMETRIC : DG_QUAD_COLLAPSED;
    } else {
      fprintf(stderr, "usage: test_order_3d [--full | --gpu] [--quadrature collapsed|symmetric]\n");
      return 2;
    }
  }
  if (gpu) {
    if (!backend_cuda_available()) {
      printf("test_order_3d --gpu: no CUDA backend or device, skipped\n");
      return TEST_SKIP;
    }
    order_case cases[3];
    for (int c = 0; c < 3; ++c)
      cases[c] = (order_case){.curved = 1,
                              .p = 1 + c,
                              .cells = {24, 32, 48},
                              .t_end = 0.25,
                              .cfl = 2.0,
                              .min_slope = 1 + c + 0.8};
    run_cases(backend_cuda(), cases, 3);
    return test_finish("test_order_3d --gpu");
  }
  if (full) {
    order_case cases[3];
    for (int c = 0; c < 3; ++c)
      cases[c] = (order_case){.curved = 0,
                              .p = 1 + c,
                              .cells = {16, 24, 32},
                              .t_end = 0.25,
                              .cfl = 2.0,
                              .min_slope = 1 + c + 0.8};
    run_cases(backend_cpu(), cases, 3);
    return test_finish("test_order_3d --full");
  }
  const order_case order_ci[] = {
      {.curved = 0, .p = 1, .cells = {8, 12, 16}, .t_end = 0.1, .cfl = 2.0, .min_slope = 1.5},
      {.curved = 0, .p = 2, .cells = {8, 12, 16}, .t_end = 0.1, .cfl = 2.0, .min_slope = 2.5},
      {.curved = 0, .p = 3, .cells = {8, 12, 16}, .t_end = 0.1, .cfl = 2.0, .min_slope = 3.5},
      {.curved = 1, .p = 1, .cells = {8, 12, 16}, .t_end = 0.1, .cfl = 2.0, .min_slope = 1.5},
      {.curved = 1, .p = 2, .cells = {8, 12, 16}, .t_end = 0.1, .cfl = 2.0, .min_slope = 2.5},
  };
  run_cases(backend_cpu(), order_ci, (int)(sizeof order_ci / sizeof order_ci[0]));
  return test_finish("test_order_3d");
}
