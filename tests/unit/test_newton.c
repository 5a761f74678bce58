/* Newton-Krylov (src/newton/, docs/NEWTON_KRYLOV.md) and the LU-SGS
 * matrix-vector product it rests on (lusgs_matvec, src/lusgs/lusgs_ops.h):
 *  (1) matvec: y = (D + L + U) x from the stored factors and face Jacobians
 *      against the finite-difference product M/Δt x − (R(U+hx) − R(U−hx))/2h
 *      on a curved mixed 2D mesh (wall + far field), inviscid and with
 *      artificial viscosity held (frozen ε), p = 1, 2; and
 *      lusgs_apply(matvec(x)) with many sweeps recovers x.
 * Usage: test_newton (unit checks). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_select.h"
#include "coloring/coloring.h"
#include "dg/av_ops.h"
#include "dg/backend.h"
#include "dg/disc.h"
#include "lusgs/lusgs.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "test_util.h"

#define GAMMA 1.4

typedef struct {
  dg_mesh mesh;
  dg_topology topo;
  dg_geometry geom;
  dg_disc disc;
  dg_coloring col;
  const dg_backend *b;
  dg_backend_ctx *ctx;
  dg_vec U;
} problem;

static void problem_free(problem *pb) {
  dg_vec_destroy(&pb->U);
  if (pb->ctx) dg_backend_destroy(pb->b, pb->ctx);
  coloring_free(&pb->col);
  disc_free(&pb->disc);
  geometry_free(&pb->geom);
  topology_free(&pb->topo);
  mesh_free(&pb->mesh);
  memset(pb, 0, sizeof *pb);
}

static int compare_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Curved mixed 2D mesh (4x3, order 2), wall at ymin, far field elsewhere,
 * M 0.5 alpha 10, a perturbed free stream; av: DG_AV_OFF or ELEMENT with the
 * sensor threshold at the median so that some elements are viscous. */
static int problem_build(problem *pb, int p, int av) {
  memset(pb, 0, sizeof *pb);
  pb->b = backend_cpu();
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = MESH_STRUCTURED_MIXED;
  mo.order = 2;
  mo.n[0] = 4;
  mo.n[1] = 3;
  mo.deform = 0.04;
  dg_status st = mesh_structured_2d(&mo, &pb->mesh);
  if (st == DG_SUCCESS) st = topology_build(&pb->mesh, &pb->topo);
  if (st == DG_SUCCESS) st = geometry_build(&pb->mesh, &pb->topo, 2 * p + 3, 2 * p + 2, &pb->geom);
  int32_t bc[8];
  physics_bc_data data[8];
  dg_disc_opts o;
  memset(&o, 0, sizeof o);
  o.p = p;
  o.gamma = GAMMA;
  o.flux = DG_FACE_FLUX_ROE;
  physics_freestream_state(2, GAMMA, 0.5, 10.0, 0.0, o.freestream);
  o.n_groups = pb->mesh.n_groups;
  o.group_bc = bc;
  o.group_data = data;
  for (int g = 0; g < pb->mesh.n_groups && g < 8; ++g) {
    bc[g] = strcmp(pb->mesh.groups[g].name, "ymin") ? PHYSICS_BC_FARFIELD : PHYSICS_BC_WALL;
    memset(&data[g], 0, sizeof data[g]);
    memcpy(data[g].state, o.freestream, sizeof o.freestream);
  }
  o.av = av;
  o.av_sensor_var = 0;
  o.av_kappa = 1.0;
  o.av_c = 1.0;
  if (st == DG_SUCCESS) st = disc_build(&pb->mesh, &pb->topo, &pb->geom, &o, &pb->disc);
  TEST_OK(st);
  if (st != DG_SUCCESS) return 0;
  const dg_disc_view *d = &pb->disc.view;
  double *h = calloc((size_t)d->n_coefs, sizeof(double));
  TEST_OK(disc_project(&pb->disc, 0.0, h));
  for (int64_t i = 0; i < d->n_coefs; ++i) h[i] += 0.02 * sin(12.9898 * (double)i + 0.7);
  if (av != DG_AV_OFF) {
    for (int64_t e = 0; e < d->n_elems; ++e) {
      const int s = d->elem_shape[e];
      const double factor = e % 3 == 0 ? 0.1 : (e % 3 == 1 ? 0.5 : 1.0);
      for (int v = 0; v < d->nvar; ++v)
        for (int m = d->nb_low[s]; m < d->nb[s]; ++m) h[disc_coef_index(d, e, v, m)] *= factor;
    }
    double sensor[256];
    const int64_t ne = d->n_elems < 256 ? d->n_elems : 256;
    for (int64_t e = 0; e < ne; ++e) sensor[e] = av_sensor(d, e, h);
    qsort(sensor, (size_t)ne, sizeof(double), compare_double);
    pb->disc.view.av_s0 = sensor[ne / 2];
    pb->disc.view.av_kappa = 0.5;
  }
  st = coloring_build(&pb->mesh, &pb->topo, DG_COLORING_BFS_WALL, "ymin", &pb->col);
  if (st == DG_SUCCESS) st = dg_backend_create(pb->b, &pb->disc, &pb->ctx);
  if (st == DG_SUCCESS) st = dg_vec_create(pb->b, pb->ctx, DG_VEC_STATE, &pb->U);
  if (st == DG_SUCCESS) st = dg_vec_upload(h, &pb->U);
  free(h);
  TEST_OK(st);
  return st == DG_SUCCESS;
}

/* ------------------------------------------------ (1) matvec */

static void test_matvec_on(int p, int av) {
  problem pb;
  if (!problem_build(&pb, p, av)) return;
  const dg_backend *b = pb.b;
  const dg_disc_view *d = &pb.disc.view;
  const int64_t n = d->n_coefs;
  lusgs_marcher lm;
  TEST_OK(lusgs_create(b, pb.ctx, &pb.disc, &pb.col, &lm));
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

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  test_matvec();
  return test_finish("test_newton");
}
