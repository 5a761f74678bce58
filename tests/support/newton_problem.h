#pragma once
/* The Newton-Krylov tests' problem (test_newton.c, test_newton_gpu.c): a
 * curved mixed 2D mesh on one backend, with a perturbed free stream and,
 * with artificial viscosity, a sensor threshold at the median so that some
 * elements are viscous. Header-only (static functions), as
 * limiter_problem.h; the including test defines GAMMA and includes
 * test_util.h and the solver headers it needs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coloring/coloring.h"
#include "dg/av_ops.h"
#include "dg/backend.h"
#include "dg/disc.h"
#include "mesh/geometry.h"
#include "mesh/mesh.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "test_util.h"

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
static int problem_build(problem *pb, const dg_backend *backend, int p, int av) {
  memset(pb, 0, sizeof *pb);
  pb->b = backend;
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
