/* Order-of-accuracy driver: advects the isentropic vortex (β = 5) on the
 * periodic square [0,10]² (2D: tri, quad or mixed) or on the fully periodic
 * box [0,10]² x [0,Lz] (3D: Kuhn tetrahedra, the vortex extruded along z,
 * w = 0) with SSP-RK3 and prints, per mesh, the L2 error of the density
 * against the exact solution at the end time (volume rule of degree 2p+2).
 * tools/study_order.py runs it and writes docs/ORDER_OF_ACCURACY.md.
 *
 *   colordg_study_order --shape tri|quad|mixed|tet --p P --n N1,N2,...
 *       [--t-end T] [--cfl C] [--dt-scale S] [--order Q] [--deform A]
 *       [--depth LZ] [--backend cpu|cuda|auto] [--header]
 *
 * --backend picks the backend of the time loop (default cpu; cuda needs a
 * build with CUDA and a device; auto is cuda when one is there, else cpu).
 * The mesh, geometry, projection and error are computed on the host either
 * way, so both backends give the same errors up to round-off.
 *
 * n is the number of cells along x and y (h = 10/n). 3D: the box depth is
 * LZ with n·LZ/10 cells along z (a whole number >= 3, so the cells are
 * cubes); the default LZ = 0 means a column of 3 cells, LZ = 3h. The exact
 * solution does not depend on z, so on an affine mesh (invariant under a
 * shift by h along z) the error per unit depth does not depend on LZ.
 * --order Q gives elements of geometric order Q. --deform A curves them:
 * in 2D with the generator's deformation (mesh_structured.h); in 3D every
 * node (x, y, z) is moved by the z-independent smooth map
 *   (x, y, z) += 10 A (sin X cos Y, cos X sin Y, sin X sin Y),
 *   X = 2π x/10, Y = 2π y/10,
 * periodic along x and y and the same for every z, so periodic sides stay
 * translates of one another and the fixed depth of the generator's map
 * (which would vary on the mesh scale when LZ = 3h) is not needed.
 * The step is the CFL step of the initial state times S, rounded down so
 * that a whole number of steps reaches T. Output: one CSV row per mesh,
 *   shape,p,n,h,elements,dofs,dt,steps,t_end,l2_rho,seconds
 * with dofs = elements x modes; in 3D l2_rho is the L2 error over the box
 * divided by sqrt(LZ) (the error per unit depth, comparable to a 2D one);
 * seconds is the wall time of the whole run (mesh to error). The backend
 * used is printed to stderr. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/backend_select.h"
#include "dg/backend_cpu.h"
#include "dg/disc.h"
#include "dg/explicit.h"
#include "element/basis.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "problems.h"

#define STUDY_BOX 10.0

typedef struct {
  dg_mesh_structured_kind kind;
  int p, order;
  double t_end, cfl, dt_scale, deform;
  double depth;              /* 3D box length along z; 0 = 3 cells (3h) */
  int vol_degree;            /* volume rule degree (residual, projection, error); 0 = 2p+2 */
  const dg_backend *backend; /* the time loop's backend */
} study_opts;

typedef struct {
  double h, dt, l2_rho, seconds;
  int64_t elements, dofs, steps;
} study_result;

static double study_now(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Cells along z for n cells along x and y and box depth `depth` (0: 3
 * cells): the cells are cubes, so n·depth/10 must be a whole number; 0 when
 * it is not or when it is below 3 (a periodic axis needs 3 cells). */
static int64_t study_cells_z(int64_t n, double depth) {
  if (depth == 0.0) return 3;
  const double nz = (double)n * depth / STUDY_BOX;
  const int64_t rounded = (int64_t)floor(nz + 0.5);
  if (fabs(nz - (double)rounded) > 1e-9 * nz || rounded < 3) return 0;
  return rounded;
}

static dg_status study_run(const study_opts *o, int64_t n, study_result *res) {
  dg_mesh mesh = {0};
  dg_topology topo = {0};
  dg_geometry geom = {0};
  dg_disc disc = {0};
  dg_backend_ctx *ctx = NULL;
  explicit_rk3 rk = {0};
  double *h_U = NULL;
  dg_vec U = {0};
  const dg_backend *b = o->backend;
  dg_status st = DG_SUCCESS;
  const double t0 = study_now();

  const int dim = o->kind == MESH_STRUCTURED_TET ? 3 : 2;
  const int64_t nz = dim == 3 ? study_cells_z(n, o->depth) : 0;
  const double depth = (double)nz * STUDY_BOX / (double)n; /* 3D: the box's depth */
  DG_CALL_GOTO(st, done,
               problem_mesh_vortex_box(o->kind, o->order, n, nz, STUDY_BOX, o->deform, &mesh));
  DG_CALL_GOTO(st, done, topology_build(&mesh, &topo));
  DG_CALL_GOTO(st, done,
               geometry_build(&mesh, &topo, o->vol_degree ? o->vol_degree : 2 * o->p + 2,
                              2 * o->p + 1, &geom));

  dg_disc_opts dopts;
  disc_opts_periodic_vortex(dim, o->p, STUDY_BOX, &dopts);
  DG_CALL_GOTO(st, done, disc_build(&mesh, &topo, &geom, &dopts, &disc));

  DG_CALL_GOTO(st, done, DG_CALLOC(h_U, disc.view.n_coefs));
  DG_CALL_GOTO(st, done, disc_project(&disc, 0.0, h_U));
  DG_CALL_GOTO(st, done, dg_backend_create(b, &disc, &ctx));
  DG_CALL_GOTO(st, done, dg_vec_create(b, ctx, DG_VEC_STATE, &U));
  DG_CALL_GOTO(st, done, dg_vec_upload(h_U, &U));
  DG_CALL_GOTO(st, done, explicit_rk3_create(b, ctx, &disc, &rk));

  double dt_cfl = 0.0;
  DG_CALL_GOTO(st, done, explicit_rk3_global_step(&rk, &U, o->cfl, &dt_cfl));
  const double dt_target = dt_cfl * o->dt_scale;
  int64_t steps = (int64_t)(o->t_end / dt_target);
  if ((double)steps * dt_target < o->t_end) ++steps;
  const double dt = o->t_end / (double)steps;
  const explicit_rk3_opts ro = {.cfl = o->cfl, .dt_fixed = dt};
  for (int64_t k = 0; k < steps; ++k)
    DG_CALL_GOTO(st, done, explicit_rk3_step(&rk, &U, (double)k * dt, &ro, NULL));
  DG_CALL_GOTO(st, done, dg_vec_download(&U, h_U));
  double err[DG_MAX_NVAR];
  DG_CALL_GOTO(st, done, disc_error_l2(&disc, h_U, o->t_end, err));

  res->h = STUDY_BOX / (double)n;
  res->dt = dt;
  res->steps = steps;
  /* 3D: per unit depth (the exact solution is independent of z) */
  res->l2_rho = dim == 3 ? err[0] / sqrt(depth) : err[0];
  res->elements = mesh.n_elems;
  res->dofs = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) res->dofs += disc.view.n_shape[s] * disc.view.nb[s];
  res->seconds = study_now() - t0;
done:
  explicit_rk3_destroy(&rk);
  if (U.data) dg_vec_destroy(&U);
  if (ctx) dg_backend_destroy(b, ctx);
  free(h_U);
  disc_free(&disc);
  geometry_free(&geom);
  topology_free(&topo);
  mesh_free(&mesh);
  return st;
}

static int study_usage(const char *msg) {
  fprintf(stderr,
          "error: %s\nusage: colordg_study_order --shape tri|quad|mixed|tet --p P --n N1,N2,... "
          "[--t-end T] [--cfl C] [--dt-scale S] [--order Q] [--deform A] [--depth LZ] "
          "[--backend cpu|cuda|auto] [--header]\n",
          msg);
  return 2;
}

/* The backend named by --backend; NULL (with a message) when it cannot be
 * had. */
static const dg_backend *study_backend(const char *name) {
  if (!strcmp(name, "cpu")) return backend_cpu();
  if (!strcmp(name, "auto")) return backend_cuda_available() ? backend_cuda() : backend_cpu();
  if (strcmp(name, "cuda") != 0) {
    fprintf(stderr, "error: --backend must be cpu, cuda or auto, not '%s'\n", name);
    return NULL;
  }
  if (!backend_cuda()) {
    fprintf(stderr, "error: --backend cuda: this build has no CUDA; use --backend cpu\n");
    return NULL;
  }
  if (!backend_cuda_available()) {
    fprintf(stderr, "error: --backend cuda: no CUDA device found; use --backend cpu\n");
    return NULL;
  }
  return backend_cuda();
}

int main(int argc, char **argv) {
  study_opts o = {.kind = MESH_STRUCTURED_QUAD,
                  .p = 1,
                  .order = 1,
                  .t_end = 1.0,
                  .cfl = 0.5,
                  .dt_scale = 1.0,
                  .deform = 0.0,
                  .depth = 0.0};
  const char *shape = "quad", *n_list = NULL, *backend = "cpu";
  int header = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--header")) {
      header = 1;
      continue;
    }
    if (!val) return study_usage("an option is missing its value");
    ++i;
    if (!strcmp(a, "--shape"))
      shape = val;
    else if (!strcmp(a, "--p"))
      o.p = atoi(val);
    else if (!strcmp(a, "--n"))
      n_list = val;
    else if (!strcmp(a, "--t-end"))
      o.t_end = atof(val);
    else if (!strcmp(a, "--cfl"))
      o.cfl = atof(val);
    else if (!strcmp(a, "--dt-scale"))
      o.dt_scale = atof(val);
    else if (!strcmp(a, "--order"))
      o.order = atoi(val);
    else if (!strcmp(a, "--deform"))
      o.deform = atof(val);
    else if (!strcmp(a, "--vol-degree"))
      o.vol_degree = atoi(val);
    else if (!strcmp(a, "--depth"))
      o.depth = atof(val);
    else if (!strcmp(a, "--backend"))
      backend = val;
    else
      return study_usage("unknown option");
  }
  if (!strcmp(shape, "tri"))
    o.kind = MESH_STRUCTURED_TRI;
  else if (!strcmp(shape, "quad"))
    o.kind = MESH_STRUCTURED_QUAD;
  else if (!strcmp(shape, "mixed"))
    o.kind = MESH_STRUCTURED_MIXED;
  else if (!strcmp(shape, "tet"))
    o.kind = MESH_STRUCTURED_TET;
  else
    return study_usage("--shape must be tri, quad, mixed or tet");
  if (!n_list) return study_usage("--n is required");
  if (o.p < 0 || o.p > DG_MAX_P) return study_usage("--p must be 0..3");
  if (!(o.t_end > 0.0) || !(o.cfl > 0.0) || !(o.dt_scale > 0.0))
    return study_usage("--t-end, --cfl and --dt-scale must be > 0");
  o.backend = study_backend(backend);
  if (!o.backend) return 2;
  fprintf(stderr, "colordg_study_order: backend %s\n", o.backend->name);

  if (header) printf("shape,p,n,h,elements,dofs,dt,steps,t_end,l2_rho,seconds\n");
  char list[256];
  snprintf(list, sizeof list, "%s", n_list);
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    const long long n = atoll(tok);
    if (n < 3) return study_usage("every mesh needs n >= 3 cells per side (periodic)");
    if (o.kind == MESH_STRUCTURED_TET && study_cells_z(n, o.depth) == 0)
      return study_usage("tet: n * depth / 10 must be a whole number >= 3 (cubic cells along z)");
    study_result r;
    if (study_run(&o, n, &r) != DG_SUCCESS) {
      dg_error_print(stderr, 1);
      return 1;
    }
    printf("%s,%d,%lld,%.10g,%lld,%lld,%.10g,%lld,%.10g,%.10e,%.3f\n", shape, o.p, n, r.h,
           (long long)r.elements, (long long)r.dofs, r.dt, (long long)r.steps, o.t_end, r.l2_rho,
           r.seconds);
    fflush(stdout);
  }
  return 0;
}
