/* GPU memory plan (src/kernels/gpu_memory.h), on the CPU:
 *   sizes     info_plan_sizes (mesh only, what `colordg info` uses) equals
 *             gpu_plan_sizes_from_disc of the discretisation `colordg run`
 *             builds (same rules), p = 0..3, AV off / element / continuous,
 *             curved 2D mixed (periodic) and curved 3D tet meshes
 *   plan      backend_cuda_plan_bytes: categories add up, LU-SGS and AV
 *             parts by hand, cuBLAS copy, couplings bounded by the rows
 *   estimate  info_memory_estimate totals are the plan's
 *   message   the refusal names the need, the free and the total memory
 *   tally     record / free / peak by category
 * The device side (the tally of a run equals the plan) is test_gpu_memory_gpu. */
#include <stdlib.h>
#include <string.h>

#include "app/info.h"
#include "dg/disc.h"
#include "kernels/gpu_memory.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "problems.h"
#include "test_util.h"

/* The free stream of tests/support/problems.h (M 0.5, α 2°, far field on
 * the structured meshes' sides) with artificial viscosity `av`. */
static int build_disc(const dg_mesh *mesh, const dg_topology *topo, const dg_geometry *geom, int p,
                      int av, dg_disc *disc) {
  dg_disc_opts o;
  problem_bcs bcs;
  dg_status st = problem_freestream_opts(mesh, p, 0.5, 2.0, &o, &bcs);
  o.av = av;
  o.av_sensor_var = 0;
  o.av_kappa = 1.0;
  o.av_c = 1.0;
  if (st == DG_SUCCESS) st = disc_build(mesh, topo, geom, &o, disc);
  TEST_OK(st);
  return st == DG_SUCCESS;
}

#define SAME(field)                                                                                \
  TEST_CHECK(a.field == b.field, "%s p = %d av %d: " #field " %lld (info) != %lld (disc)", what,   \
             p, av, (long long)a.field, (long long)b.field)

static void check_sizes(const dg_mesh_structured_opts *mo, int dim, const char *what) {
  dg_mesh mesh = {0};
  dg_topology topo = {0};
  TEST_OK(dim == 2 ? mesh_structured_2d(mo, &mesh) : mesh_structured_3d(mo, &mesh));
  TEST_OK(topology_build(&mesh, &topo));
  /* every rule choice (INFO_FACE_REDUCED, INFO_CURVED_REDUCED) */
  for (int k = 0; k < 16 && test_failures == 0; ++k) {
    const int p = k % 4, fr = k / 4;
    int vd = 0, fd = 0;
    info_run_degrees(&mesh, p, fr, &vd, &fd);
    dg_geometry geom = {0};
    TEST_OK(geometry_build(&mesh, &topo, vd, fd, &geom));
    int64_t affine = 0;
    for (int64_t e = 0; e < mesh.n_elems; ++e) affine += geom.elem_affine[e];
    TEST_CHECK(affine < mesh.n_elems, "%s: every element affine (the test wants curved ones)",
               what);
    for (int av = DG_AV_OFF; av <= DG_AV_CONTINUOUS && test_failures == 0; ++av) {
      dg_disc disc = {0};
      if (!build_disc(&mesh, &topo, &geom, p, av, &disc)) break;
      gpu_plan_sizes a, b;
      TEST_OK(info_plan_sizes(&mesh, &topo, &geom, p, av, fr, &a));
      gpu_plan_sizes_from_disc(&disc, &b);
      SAME(dim);
      SAME(nvar);
      SAME(av);
      SAME(n_groups);
      SAME(n_elems);
      SAME(n_faces);
      SAME(n_coefs);
      SAME(n_face_points);
      SAME(nqf);
      SAME(n_metric);
      SAME(n_minv);
      SAME(n_vol_table);
      SAME(n_vol_points);
      SAME(n_face_table);
      SAME(n_block_doubles);
      SAME(n_pivots);
      SAME(av_nf);
      SAME(av_nb);
      if (av != DG_AV_OFF && p > 0) {
        SAME(n_lin_table);
        SAME(n_verts);
        SAME(n_vert_elem);
      }
      /* and so the plans agree byte for byte */
      for (int lusgs = 0; lusgs < 2; ++lusgs) {
        const gpu_plan_opts o = {lusgs, 0, -1, 0};
        gpu_mem_plan pa, pb;
        backend_cuda_plan_bytes(&a, &o, &pa);
        backend_cuda_plan_bytes(&b, &o, &pb);
        TEST_CHECK(pa.total == pb.total, "%s p = %d av %d lusgs %d: plan %zu (info) != %zu (disc)",
                   what, p, av, lusgs, pa.total, pb.total);
      }
      disc_free(&disc);
    }
    if (test_failures == 0) {
      info_memory m;
      TEST_OK(info_memory_estimate(&mesh, &topo, &geom, p, fr, &m));
      gpu_plan_sizes s;
      TEST_OK(info_plan_sizes(&mesh, &topo, &geom, p, DG_AV_OFF, fr, &s));
      gpu_mem_plan plan;
      const gpu_plan_opts o = {1, 0, -1, 0};
      backend_cuda_plan_bytes(&s, &o, &plan);
      TEST_CHECK(m.lusgs.total == plan.total, "%s p = %d: estimate %zu, plan %zu", what, p,
                 m.lusgs.total, plan.total);
      TEST_CLOSE(m.total, plan.total / 1048576.0, 1e-12, "estimate in MiB");
      TEST_CLOSE((m.elem_solution + m.elem_geometry + m.elem_lusgs_blocks + m.elem_work) *
                     (double)mesh.n_elems,
                 (double)plan.total, 1e-9 * (double)plan.total, "bytes per element add up");
      TEST_CHECK(m.explicit_rk3.total < m.lusgs.total && m.lusgs.total <= m.lusgs_av.total,
                 "%s p = %d: explicit %zu, LU-SGS %zu, LU-SGS + AV %zu", what, p,
                 m.explicit_rk3.total, m.lusgs.total, m.lusgs_av.total);
      TEST_CHECK(m.n_dofs * (mesh.dim + 2) == s.n_coefs, "dofs");
    }
    geometry_free(&geom);
  }
  topology_free(&topo);
  mesh_free(&mesh);
}

static void test_sizes(void) {
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = MESH_STRUCTURED_MIXED;
  mo.n[0] = 4, mo.n[1] = 3;
  mo.order = 2;
  mo.deform = 0.05;
  mo.periodic[0] = 1;
  check_sizes(&mo, 2, "curved periodic 2D mixed");
  mo = mesh_structured_defaults(3);
  mo.kind = MESH_STRUCTURED_TET;
  mo.n[0] = mo.n[1] = mo.n[2] = 2;
  mo.order = 2;
  mo.deform = 0.05;
  check_sizes(&mo, 3, "curved 3D tet");
}

static void test_plan(void) {
  gpu_plan_sizes s = {0};
  s.dim = 3, s.nvar = 5, s.av = DG_AV_OFF, s.n_groups = 2;
  s.n_elems = 100, s.n_faces = 230, s.nqf = 6, s.n_face_points = 230 * 6;
  s.n_coefs = 100 * 4 * 5, s.n_metric = 100, s.n_vol_table = 11 * 4, s.n_vol_points = 11;
  s.n_face_table = 4 * 6 * 6 * 4, s.n_block_doubles = 100 * 400, s.n_pivots = 100 * 20;
  s.av_nf = 4, s.av_nb = 4;
  gpu_mem_plan ex, lu, cu;
  const gpu_plan_opts oe = {0, 0, -1, 0}, ol = {1, 0, -1, 0}, oc = {1, 1, -1, 0};
  backend_cuda_plan_bytes(&s, &oe, &ex);
  backend_cuda_plan_bytes(&s, &ol, &lu);
  backend_cuda_plan_bytes(&s, &oc, &cu);
  size_t sum = 0;
  for (int c = 0; c < GPU_MEM_N; ++c) sum += lu.bytes[c];
  TEST_CHECK(sum == lu.total && lu.total == lu.backend + lu.vectors + lu.lusgs,
             "categories %zu, owners %zu, total %zu", sum, lu.backend + lu.vectors + lu.lusgs,
             lu.total);
  TEST_CHECK(ex.lusgs == 0 && ex.bytes[GPU_MEM_LUSGS_BLOCKS] == 0 && ex.bytes[GPU_MEM_AV] == 0,
             "explicit run: no LU-SGS or AV bytes");
  /* 7 state and 2 element vectors explicit (run + RK3), + R, dU, dt LU-SGS */
  TEST_CHECK(ex.vectors == 8 * (5 * 2000 + 2 * 100), "explicit vectors %zu", ex.vectors);
  TEST_CHECK(lu.vectors == 8 * (7 * 2000 + 3 * 100), "LU-SGS vectors %zu", lu.vectors);
  TEST_CHECK(lu.bytes[GPU_MEM_LUSGS_BLOCKS] == 8 * 40000 + 4 * 2000 + 2 * 8 * 101, "blocks %zu",
             lu.bytes[GPU_MEM_LUSGS_BLOCKS]);
  TEST_CHECK(lu.bytes[GPU_MEM_FACE_JAC] == 8u * 230 * 6 * 2 * 25, "face Jacobians %zu",
             lu.bytes[GPU_MEM_FACE_JAC]);
  TEST_CHECK(cu.bytes[GPU_MEM_LUSGS_BLOCKS] - lu.bytes[GPU_MEM_LUSGS_BLOCKS] ==
                 8 * 40000 + 2 * sizeof(double *) * 100 + 4 * 200,
             "cuBLAS copy %zu", cu.bytes[GPU_MEM_LUSGS_BLOCKS] - lu.bytes[GPU_MEM_LUSGS_BLOCKS]);
  /* AV: the couplings grow with the viscous rows, at most one per element */
  s.av = DG_AV_CONTINUOUS, s.n_lin_table = 16, s.n_verts = 60, s.n_vert_elem = 400;
  gpu_mem_plan worst, none, ten;
  const gpu_plan_opts ow = {1, 0, -1, 0}, on = {1, 0, 0, 0}, ot = {1, 0, 10, 0},
                      oo = {1, 0, 1000, 0};
  backend_cuda_plan_bytes(&s, &ow, &worst);
  backend_cuda_plan_bytes(&s, &on, &none);
  backend_cuda_plan_bytes(&s, &ot, &ten);
  TEST_CHECK(ten.total - none.total == 8 * 10 * 4 * 16, "10 coupling rows: %zu",
             ten.total - none.total);
  TEST_CHECK(worst.total - none.total == 8 * 100 * 4 * 16, "100 coupling rows: %zu",
             worst.total - none.total);
  backend_cuda_plan_bytes(&s, &oo, &ten);
  TEST_CHECK(ten.total == worst.total, "rows capped at the elements");
  TEST_CHECK(worst.bytes[GPU_MEM_AV] > 0 && worst.vectors == lu.vectors + 8 * (2000 + 2 * 100),
             "AV vectors: eps, R_av, limit_count (%zu)", worst.vectors);
}

static void test_message(void) {
  char msg[400];
  gpu_mem_refusal_message("LU-SGS on the GPU", (size_t)3 << 30, (size_t)1 << 29, (size_t)80 << 30,
                          msg, sizeof msg);
  TEST_CHECK(strstr(msg, "LU-SGS on the GPU needs 3072.0 MiB") != NULL, "%s", msg);
  TEST_CHECK(strstr(msg, "only 512.0 MiB of the device's 81920.0 MiB are free") != NULL, "%s", msg);
}

static void test_tally(void) {
  gpu_mem_reset_tally();
  static char a[1], b[1], c[1];
  gpu_mem_record_alloc(a, 1000, GPU_MEM_GEOMETRY);
  gpu_mem_record_alloc(b, 500, GPU_MEM_VECTORS);
  gpu_mem_record_free(a);
  gpu_mem_record_alloc(c, 200, GPU_MEM_AV);
  gpu_mem_record_free(NULL);
  gpu_mem_record_free(&test_failures); /* unknown: ignored */
  gpu_mem_tally t;
  gpu_mem_get_tally(&t);
  TEST_CHECK(t.current == 700 && t.peak == 1500, "current %zu, peak %zu", t.current, t.peak);
  TEST_CHECK(t.bytes[GPU_MEM_VECTORS] == 500 && t.bytes[GPU_MEM_GEOMETRY] == 0 &&
                 t.bytes[GPU_MEM_AV] == 200,
             "current by category");
  TEST_CHECK(t.peak_bytes[GPU_MEM_GEOMETRY] == 1000 && t.peak_bytes[GPU_MEM_VECTORS] == 500,
             "categories at the peak");
  TEST_CHECK(t.n_allocs == 3, "%lld allocations", (long long)t.n_allocs);
  gpu_mem_reset_tally();
  gpu_mem_get_tally(&t);
  TEST_CHECK(t.current == 0 && t.peak == 0 && t.n_allocs == 0, "reset");
  TEST_CHECK(strcmp(gpu_mem_category_name(GPU_MEM_FACE_JAC), "face Jacobians") == 0, "name");
}

int main(void) {
  test_sizes();
  test_plan();
  test_message();
  test_tally();
  return test_finish("test_gpu_memory");
}
