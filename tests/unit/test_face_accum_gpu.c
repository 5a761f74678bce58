/* The face-accumulation study kernels (tools/face_accum.h) against
 * the CPU backend: every variant's residual (gather, atomic, color,
 * c-atomic; R filled with NaN first) agrees with the CPU residual to 1e-12 relative
 * (max |Rg - Rc| / max |Rc|) on
 *   - a curved 2D mixed (quad + triangle) mesh, p = 0..3, elements as
 *     generated and shuffled, under every ordering of the study (elements as
 *     numbered or colour-major; faces by element, by face colour, or kept in
 *     the order of the numbering before the colour-major renumbering),
 *   - a curved 3D tetrahedral mesh, p = 1..3,
 *   - the curved NACA 0012 triangle and hybrid meshes of tests/data (Gmsh
 *     numbering, wall and far field), p = 1 and 3;
 * the face colouring is valid (no element has two faces of one colour), the
 * by-colour face orders are sorted by colour inside every face range, the
 * "old order" keeps every face where the numbering before the renumbering
 * had it, and gather and color give the same bits on a second run. Exits 77
 * (skipped) when no CUDA device is present. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_select.h"
#include "coloring/coloring.h"
#include "dg/backend.h"
#include "dg/disc.h"
#include "face_accum.h"
#include "kernels/backend_cuda.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "problems.h"
#include "test_util.h"

static const double gamma_air = 1.4;

typedef enum {
  ORD_MESH_ELEM = 0,
  ORD_MESH_COLOR,
  ORD_CM_OLD,
  ORD_CM_ELEM,
  ORD_CM_COLOR,
  N_ORD
} ordering;
static const char *ordering_label[N_ORD] = {"mesh/elem", "mesh/color", "cm/old", "cm/elem",
                                            "cm/color"};

typedef enum { SRC_MIXED = 0, SRC_MIXED_SHUFFLED, SRC_TET, SRC_NACA_TRI, SRC_NACA_HYBRID } source;
static const char *source_label[5] = {"2D mixed curved", "2D mixed curved shuffled",
                                      "3D tets curved", "NACA tri q2", "NACA hybrid q2"};

/* Reverses the elements of each shape, then swaps neighbours pairwise: a
 * fixed scramble of the generator's numbering. */
static dg_status scramble_elements(dg_mesh *mesh) {
  int64_t *perm = NULL;
  DG_CALL(DG_CALLOC(perm, mesh->n_elems));
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int64_t lo = mesh->shape_offset[s], hi = mesh->shape_offset[s + 1];
    for (int64_t i = lo; i < hi; ++i) perm[i] = hi - 1 - (i - lo);
    for (int64_t i = lo; i + 1 < hi; i += 3) {
      const int64_t t = perm[i];
      perm[i] = perm[i + 1];
      perm[i + 1] = t;
    }
  }
  const dg_status st = mesh_renumber_elements(mesh, perm);
  free(perm);
  return st;
}

static dg_status make_mesh(source src, dg_mesh *mesh) {
  if (src == SRC_NACA_TRI)
    return mesh_read(COLORDG_TEST_DATA "/mesh_naca0012_tri_0_q2.cdgm", 0, mesh);
  if (src == SRC_NACA_HYBRID)
    return mesh_read(COLORDG_TEST_DATA "/mesh_naca0012_hybrid_q2.cdgm", 0, mesh);
  const int dim = src == SRC_TET ? 3 : 2;
  dg_mesh_structured_opts mo = mesh_structured_defaults(dim);
  mo.kind = src == SRC_TET ? MESH_STRUCTURED_TET : MESH_STRUCTURED_MIXED;
  mo.order = 2;
  mo.deform = 0.03;
  for (int d = 0; d < 3; ++d) mo.n[d] = dim == 3 ? 3 : 6;
  if (dim == 2) mo.n[2] = 1;
  DG_CALL(problem_mesh_structured(&mo, mesh));
  if (src == SRC_MIXED_SHUFFLED) DG_CALL(scramble_elements(mesh));
  return DG_SUCCESS;
}

/* Checks that new_topo (faces in the old order) has face i between the
 * images of old_topo's face i's elements. */
static void check_old_order(const dg_topology *old_topo, const dg_topology *topo,
                            const int64_t *elem_perm) {
  int64_t bad = 0;
  for (int64_t f = 0; f < topo->n_faces; ++f) {
    const int64_t a0 = elem_perm[topo->face_elem[2 * f]];
    const int64_t a1 = topo->face_elem[2 * f + 1] >= 0 ? elem_perm[topo->face_elem[2 * f + 1]] : -1;
    const int64_t b0 = old_topo->face_elem[2 * f], b1 = old_topo->face_elem[2 * f + 1];
    if (!((a0 == b0 && a1 == b1) || (a0 == b1 && a1 == b0))) ++bad;
  }
  TEST_CHECK(bad == 0, "old face order: %lld faces moved", (long long)bad);
}

/* Mesh, ordering, topology, geometry, disc and a smooth state with small
 * higher modes. BCs: "wall" and ymin are slip walls, the rest far field. */
static dg_status problem_build(source src, int p, ordering ord, problem *pb) {
  memset(pb, 0, sizeof *pb);
  DG_CALL(make_mesh(src, &pb->mesh));
  DG_CALL(topology_build(&pb->mesh, &pb->topo));
  int64_t *perm = NULL;
  DG_CALL(DG_CALLOC(perm, pb->topo.n_faces));
  dg_status st = DG_SUCCESS;
  if (ord == ORD_CM_OLD || ord == ORD_CM_ELEM || ord == ORD_CM_COLOR) {
    DG_CALL_GOTO(st, done,
                 coloring_build(&pb->mesh, &pb->topo, DG_COLORING_BFS_WALL, "wall", &pb->col));
    DG_CALL_GOTO(st, done, coloring_apply(&pb->col, &pb->mesh));
    dg_topology old = pb->topo;
    memset(&pb->topo, 0, sizeof pb->topo);
    st = topology_build(&pb->mesh, &pb->topo);
    if (st == DG_SUCCESS && ord == ORD_CM_OLD)
      st = face_accum_face_perm_old_order(&old, &pb->topo, pb->col.perm, perm);
    if (st == DG_SUCCESS && ord == ORD_CM_OLD) st = topology_renumber_faces(&pb->topo, perm);
    if (st == DG_SUCCESS && ord == ORD_CM_OLD) check_old_order(&old, &pb->topo, pb->col.perm);
    topology_free(&old);
    if (st != DG_SUCCESS) goto done;
  }
  if (ord == ORD_MESH_COLOR || ord == ORD_CM_COLOR) {
    DG_CALL_GOTO(st, done, face_accum_face_perm_by_color(&pb->topo, perm));
    DG_CALL_GOTO(st, done, topology_renumber_faces(&pb->topo, perm));
  }
  const int dim = pb->mesh.dim;
  /* degrees 2p + 1 + dim (q − 1) and 2p + 1 + (dim − 1)(q − 1) */
  DG_CALL_GOTO(
      st, done,
      problem_geometry(pb, problem_vol_degree(&pb->mesh, p), problem_face_degree(&pb->mesh, p)));
  dg_disc_opts o;
  memset(&o, 0, sizeof o);
  o.p = p;
  o.gamma = gamma_air;
  o.flux = DG_FACE_FLUX_ROE;
  physics_freestream_state(dim, gamma_air, 0.5, 2.0, 1.0, o.freestream);
  int32_t bc[16];
  physics_bc_data data[16];
  if (pb->mesh.n_groups > 16) {
    st = dg_error_set(DG_ERR_ARG, __FILE__, __LINE__, __func__, "%d groups", pb->mesh.n_groups);
    goto done;
  }
  for (int g = 0; g < pb->mesh.n_groups; ++g) {
    const char *name = pb->mesh.groups[g].name;
    bc[g] = !strcmp(name, "wall") || !strcmp(name, "ymin") ? PHYSICS_BC_WALL : PHYSICS_BC_FARFIELD;
    memset(&data[g], 0, sizeof data[g]);
    memcpy(data[g].state, o.freestream, sizeof o.freestream);
  }
  o.n_groups = pb->mesh.n_groups;
  o.group_bc = bc;
  o.group_data = data;
  DG_CALL_GOTO(st, done, disc_build(&pb->mesh, &pb->topo, &pb->geom, &o, &pb->disc));
  DG_CALL_GOTO(st, done, DG_CALLOC(pb->U, pb->disc.view.n_coefs));
  problem_smooth_state(&pb->disc, 2e-3, pb->U);
done:
  free(perm);
  return st;
}

/* Face colours valid (no element with two faces of one colour); with a
 * by-colour ordering, colours ascend inside every face range. */
static void check_colors(const problem *pb, ordering ord) {
  const dg_topology *t = &pb->topo;
  int32_t *color = NULL;
  int n_colors = 0;
  TEST_OK(DG_CALLOC(color, t->n_faces));
  TEST_OK(face_accum_color_faces(t->n_elems, t->n_faces, t->face_elem, color, &n_colors));
  TEST_CHECK(n_colors >= 1 && n_colors <= 2 * DG_MAX_FACES - 1, "%d face colours", n_colors);
  int64_t clashes = 0, unsorted = 0;
  for (int64_t e = 0; e < t->n_elems; ++e)
    for (int a = 0; a < DG_MAX_FACES; ++a)
      for (int b = a + 1; b < DG_MAX_FACES; ++b) {
        const int64_t fa = t->elem_face[e * DG_MAX_FACES + a],
                      fb = t->elem_face[e * DG_MAX_FACES + b];
        if (fa >= 0 && fb >= 0 && color[fa] == color[fb]) ++clashes;
      }
  if (ord == ORD_MESH_COLOR || ord == ORD_CM_COLOR)
    for (int64_t f = 1; f < t->n_faces; ++f) {
      const int same_range =
          t->face_group[f] == t->face_group[f - 1]; /* interior: -1; groups are contiguous */
      if (same_range && color[f] < color[f - 1]) ++unsorted;
    }
  TEST_CHECK(clashes == 0, "face colouring: %lld pairs of faces of one element share a colour",
             (long long)clashes);
  TEST_CHECK(unsorted == 0, "by-colour face order: %lld faces out of colour order",
             (long long)unsorted);
  free(color);
}

static double rel_diff(const double *a, const double *b, int64_t n) {
  double num = 0.0, den = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = fabs(a[i] - b[i]);
    if (!(d <= num)) num = isnan(d) ? INFINITY : d;
    if (fabs(b[i]) > den) den = fabs(b[i]);
  }
  return den > 0.0 ? num / den : num;
}

static void run_case(source src, int p, ordering ord) {
  problem pb;
  dg_status st = problem_build(src, p, ord, &pb);
  TEST_OK(st);
  if (st != DG_SUCCESS) {
    problem_free(&pb);
    return;
  }
  check_colors(&pb, ord);
  const dg_disc_view *d = &pb.disc.view;
  const int64_t n = d->n_coefs;
  const dg_backend *cpu = backend_cpu(), *gpu = backend_cuda();
  dg_backend_ctx *cctx = NULL, *gctx = NULL;
  face_accum_ctx *fa = NULL;
  dg_vec cU = {0}, cR = {0}, gU = {0}, gR = {0};
  double *Rc = calloc((size_t)n, sizeof *Rc), *Rg = calloc((size_t)n, sizeof *Rg);
  double *Rg2 = calloc((size_t)n, sizeof *Rg2), *h_nan = calloc((size_t)n, sizeof *h_nan);
  TEST_CHECK(Rc && Rg && Rg2 && h_nan, "out of memory");
  if (Rc && Rg && Rg2 && h_nan) {
    for (int64_t i = 0; i < n; ++i) h_nan[i] = NAN;
    TEST_OK(dg_backend_create(cpu, &pb.disc, &cctx));
    TEST_OK(dg_vec_create(cpu, cctx, DG_VEC_STATE, &cU));
    TEST_OK(dg_vec_create(cpu, cctx, DG_VEC_STATE, &cR));
    TEST_OK(dg_vec_upload(pb.U, &cU));
    TEST_OK(dg_backend_residual(cpu, cctx, &cU, 0.0, &cR));
    TEST_OK(dg_vec_download(&cR, Rc));
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) bad += !isfinite(Rc[i]);
    TEST_CHECK(bad == 0, "%s p=%d: the CPU residual has %lld non-finite entries", source_label[src],
               p, (long long)bad);
    TEST_OK(dg_backend_create(gpu, &pb.disc, &gctx));
    TEST_OK(dg_vec_create(gpu, gctx, DG_VEC_STATE, &gU));
    TEST_OK(dg_vec_create(gpu, gctx, DG_VEC_STATE, &gR));
    TEST_OK(dg_vec_upload(pb.U, &gU));
    TEST_OK(face_accum_create(&pb.disc, backend_cuda_view(gctx), &fa));
  }
  if (fa) {
    for (int k = FACE_ACCUM_GATHER; k < FACE_ACCUM_VOLUME; ++k) {
      const face_accum_variant var = (face_accum_variant)k;
      TEST_OK(dg_vec_upload(h_nan, &gR));
      TEST_OK(face_accum_residual(fa, var, gU.data, 0.0, gR.data));
      TEST_OK(dg_vec_download(&gR, Rg));
      const double rel = rel_diff(Rg, Rc, n);
      TEST_CHECK(rel <= 1e-12, "%s p=%d %s, %s: residual differs from the CPU by %.3g (relative)",
                 source_label[src], p, ordering_label[ord], face_accum_variant_name(var), rel);
      if (var == FACE_ACCUM_GATHER || var == FACE_ACCUM_COLOR) {
        TEST_OK(face_accum_residual(fa, var, gU.data, 0.0, gR.data));
        TEST_OK(dg_vec_download(&gR, Rg2));
        TEST_CHECK(memcmp(Rg, Rg2, (size_t)n * sizeof *Rg) == 0,
                   "%s p=%d %s, %s: two runs differ in their bits", source_label[src], p,
                   ordering_label[ord], face_accum_variant_name(var));
      }
    }
    printf("  %-26s p=%d %-10s %6lld elements, %d face colours: ok\n", source_label[src], p,
           ordering_label[ord], (long long)d->n_elems, face_accum_n_colors(fa));
  }
  face_accum_destroy(fa);
  if (gctx) {
    dg_vec_destroy(&gU);
    dg_vec_destroy(&gR);
    dg_backend_destroy(gpu, gctx);
  }
  if (cctx) {
    dg_vec_destroy(&cU);
    dg_vec_destroy(&cR);
    dg_backend_destroy(cpu, cctx);
  }
  free(Rc);
  free(Rg);
  free(Rg2);
  free(h_nan);
  problem_free(&pb);
}

int main(void) {
  if (!backend_cuda_available()) {
    printf("test_face_accum_gpu: no CUDA device, skipped\n");
    return TEST_SKIP;
  }
  for (int src = SRC_MIXED; src <= SRC_MIXED_SHUFFLED; ++src)
    for (int p = 0; p <= 3; ++p)
      for (int ord = 0; ord < N_ORD; ++ord) run_case((source)src, p, (ordering)ord);
  for (int p = 1; p <= 3; ++p) {
    run_case(SRC_TET, p, ORD_MESH_ELEM);
    run_case(SRC_TET, p, ORD_CM_COLOR);
  }
  for (int src = SRC_NACA_TRI; src <= SRC_NACA_HYBRID; ++src)
    for (int p = 1; p <= 3; p += 2) {
      run_case((source)src, p, ORD_MESH_ELEM);
      run_case((source)src, p, ORD_CM_OLD);
      run_case((source)src, p, ORD_CM_COLOR);
    }
  return test_finish("test_face_accum_gpu");
}
