/* The tally of the CUDA backend (src/kernels/gpu_alloc.cuh) against the plan
 * (backend_cuda_plan_bytes, what `colordg info` prints): the allocations of
 * `colordg run` (backend context, the run's vectors, the explicit marcher,
 * LU-SGS) on a curved 3D tet mesh, p = 1 and 2, explicit and LU-SGS, AV off
 * and continuous, a few iterations each. Without AV the peak must equal the
 * plan within 1% (it is exact by construction); with AV the LU-SGS
 * couplings grow with the viscous rows, so the peak lies between the plan
 * with none and the plan with every element viscous. After the destroys
 * nothing is left. Exits 77 without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/info.h"
#include "backends/backend_select.h"
#include "coloring/coloring.h"
#include "dg/backend.h"
#include "dg/disc.h"
#include "dg/explicit.h"
#include "kernels/gpu_memory.h"
#include "lusgs/lusgs.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "test_util.h"

static dg_status run_one(const dg_mesh *mesh, const dg_topology *topo, const dg_geometry *geom,
                         const dg_coloring *col, int p, int av, int lusgs) {
  const dg_backend *b = backend_cuda();
  int32_t bc[16];
  physics_bc_data data[16];
  dg_disc_opts o = {0};
  o.p = p;
  o.gamma = 1.4;
  o.flux = DG_FACE_FLUX_ROE;
  physics_freestream_state(mesh->dim, 1.4, 0.5, 2.0, 1.0, o.freestream);
  o.n_groups = mesh->n_groups;
  for (int g = 0; g < mesh->n_groups && g < 16; ++g) {
    bc[g] = PHYSICS_BC_FARFIELD;
    memset(&data[g], 0, sizeof data[g]);
    for (int v = 0; v < DG_MAX_NVAR; ++v) data[g].state[v] = o.freestream[v];
  }
  o.group_bc = bc;
  o.group_data = data;
  o.av = av;
  o.av_sensor_var = 0;
  o.av_kappa = 1.0;
  o.av_c = 1.0;
  dg_disc disc = {0};
  dg_backend_ctx *ctx = NULL;
  dg_vec U = {0}, U_good = {0}, U_cand = {0}, eps = {0};
  double *h_U = NULL;
  explicit_rk3 rk;
  lusgs_marcher lm;
  memset(&rk, 0, sizeof rk);
  memset(&lm, 0, sizeof lm);
  dg_status st = DG_SUCCESS;
  gpu_mem_reset_tally();
  DG_CALL_GOTO(st, done, disc_build(mesh, topo, geom, &o, &disc));
  DG_CALL_GOTO(st, done, DG_CALLOC(h_U, disc.view.n_coefs));
  DG_CALL_GOTO(st, done, disc_project(&disc, 0.0, h_U));
  /* as src/app/run.c: the context, U, U_good, U_candidate (+ eps), the RK3
   * marcher; LU-SGS on top */
  DG_CALL_GOTO(st, done, dg_backend_create(b, &disc, &ctx));
  DG_CALL_GOTO(st, done, dg_vec_create(b, ctx, DG_VEC_STATE, &U));
  DG_CALL_GOTO(st, done, dg_vec_create(b, ctx, DG_VEC_STATE, &U_good));
  DG_CALL_GOTO(st, done, dg_vec_create(b, ctx, DG_VEC_STATE, &U_cand));
  if (disc.view.av != DG_AV_OFF) DG_CALL_GOTO(st, done, dg_vec_create(b, ctx, DG_VEC_ELEM, &eps));
  DG_CALL_GOTO(st, done, dg_vec_upload(h_U, &U));
  DG_CALL_GOTO(st, done, explicit_rk3_create(b, ctx, &disc, &rk));
  if (lusgs) {
    DG_CALL_GOTO(st, done, lusgs_create(b, ctx, &disc, col, &lm));
    lusgs_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.cfl_law = LUSGS_CFL_EXPONENTIAL;
    lo.cfl_min = 5.0;
    lo.cfl_max = 50.0;
    lo.cfl_ramp_iters = 3;
    lo.n_sweeps = 1;
    lo.max_change = av != DG_AV_OFF ? 0.2 : 0.0;
    for (int it = 1; it <= 3; ++it) {
      lusgs_info info;
      DG_CALL_GOTO(st, done, lusgs_step(&lm, &U, 0.0, it, &lo, &info));
    }
  } else {
    explicit_rk3_opts ro = {0.3, 1, 0.0, 1, 0};
    for (int it = 0; it < 3; ++it) {
      explicit_rk3_info info;
      DG_CALL_GOTO(st, done, explicit_rk3_step(&rk, &U, 0.0, &ro, &info));
    }
  }
  gpu_mem_tally t;
  gpu_mem_get_tally(&t);
  gpu_plan_sizes sizes;
  gpu_plan_sizes_from_disc(&disc, &sizes);
  gpu_mem_plan worst, none;
  const gpu_plan_opts ow = {lusgs, 0, -1, 0}, on = {lusgs, 0, 0, 0};
  backend_cuda_plan_bytes(&sizes, &ow, &worst);
  backend_cuda_plan_bytes(&sizes, &on, &none);
  printf("p = %d, AV %d, %s: peak %zu bytes, plan %zu (no AV couplings %zu)\n", p, disc.view.av,
         lusgs ? "LU-SGS" : "RK3", t.peak, worst.total, none.total);
  for (int c = 0; c < GPU_MEM_N; ++c)
    printf("  %-15s tally %10zu  plan %10zu\n", gpu_mem_category_name((gpu_mem_category)c),
           t.peak_bytes[c], worst.bytes[c]);
  if (disc.view.av == DG_AV_OFF || !lusgs) {
    const double diff = (double)t.peak - (double)worst.total;
    TEST_CHECK(diff <= 0.01 * (double)worst.total && -diff <= 0.01 * (double)worst.total,
               "p = %d av %d lusgs %d: peak %zu, plan %zu", p, av, lusgs, t.peak, worst.total);
  } else {
    TEST_CHECK(t.peak >= none.total && t.peak <= worst.total,
               "p = %d av %d LU-SGS: peak %zu outside [%zu, %zu]", p, av, t.peak, none.total,
               worst.total);
  }
done:
  lusgs_destroy(&lm);
  explicit_rk3_destroy(&rk);
  if (ctx) {
    dg_vec_destroy(&U);
    dg_vec_destroy(&U_good);
    dg_vec_destroy(&U_cand);
    dg_vec_destroy(&eps);
    dg_backend_destroy(b, ctx);
  }
  if (st == DG_SUCCESS) {
    gpu_mem_tally t;
    gpu_mem_get_tally(&t);
    TEST_CHECK(t.current == 0, "p = %d av %d lusgs %d: %zu bytes left after the destroys", p, av,
               lusgs, t.current);
  }
  free(h_U);
  disc_free(&disc);
  return st;
}

int main(void) {
  if (!backend_cuda_available()) {
    printf("test_gpu_memory_gpu: no CUDA device, skipped\n");
    return 77;
  }
  dg_mesh_structured_opts mo = mesh_structured_defaults(3);
  mo.kind = MESH_STRUCTURED_TET;
  mo.n[0] = mo.n[1] = mo.n[2] = 3;
  mo.order = 2;
  mo.deform = 0.05;
  dg_mesh mesh = {0};
  dg_topology topo = {0};
  dg_coloring col = {0};
  TEST_OK(mesh_structured_3d(&mo, &mesh));
  TEST_OK(topology_build(&mesh, &topo));
  TEST_OK(coloring_build(&mesh, &topo, DG_COLORING_LARGEST_FIRST, "wall", &col));
  for (int p = 1; p <= 2 && test_failures == 0; ++p) {
    int vd = 0, fd = 0;
    info_run_degrees(&mesh, p, INFO_RULES_DEFAULT, &vd, &fd);
    dg_geometry geom = {0};
    TEST_OK(geometry_build(&mesh, &topo, vd, fd, &geom));
    for (int av = DG_AV_OFF; av <= DG_AV_CONTINUOUS; av += DG_AV_CONTINUOUS)
      for (int lusgs = 0; lusgs < 2; ++lusgs)
        if (test_failures == 0) TEST_OK(run_one(&mesh, &topo, &geom, &col, p, av, lusgs));
    geometry_free(&geom);
  }
  coloring_free(&col);
  topology_free(&topo);
  mesh_free(&mesh);
  return test_finish("test_gpu_memory_gpu");
}
