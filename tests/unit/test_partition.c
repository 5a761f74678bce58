/* Partitioning (src/mesh/partition.h) on 2D and 3D data meshes, mixed
 * shapes and periodic faces: every element in a part, no empty part, the
 * imbalance within METIS' tolerance plus one element, the same parts on two
 * calls, statistics equal to counts made here from the topology, errors.
 * The viscous rows as a second constraint (check_viscous). A build without
 * METIS checks one part and the refusal of more. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "element/basis.h"
#include "mesh/mesh.h"
#include "mesh/partition.h"
#include "mesh/topology.h"
#include "test_util.h"

typedef struct {
  dg_mesh mesh;
  dg_topology topo;
} test_mesh;

static int load(const char *name, test_mesh *m) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", COLORDG_TEST_DATA, name);
  memset(m, 0, sizeof *m);
  if (mesh_read_cdgm(path, &m->mesh) != DG_SUCCESS || topology_build(&m->mesh, &m->topo)) {
    dg_error_print(stderr, 1);
    TEST_CHECK(0, "cannot read %s", path);
    return 0;
  }
  return 1;
}

static void unload(test_mesh *m) {
  topology_free(&m->topo);
  mesh_free(&m->mesh);
}

/* Counts made here without partition_stats: cut faces from the element
 * neighbour table (each cut face seen from both sides), face ghosts and
 * neighbour parts from the face list. */
static void check_stats(const test_mesh *m, int p, int n, const int32_t *part,
                        const dg_partition_stats *st, const char *what) {
  const dg_mesh *mesh = &m->mesh;
  const dg_topology *topo = &m->topo;
  const int64_t ne = mesh->n_elems;
  double cost[DG_NUM_SHAPES];
  TEST_OK(partition_shape_costs(mesh, p, DG_QUAD_COLLAPSED, cost));
  int64_t sum = 0, halo = 0, halo_dofs = 0;
  double weight = 0.0, w_max = 0.0;
  for (int k = 0; k < n; ++k) {
    sum += st->elems[k];
    weight += st->weight[k];
    if (st->weight[k] > w_max) w_max = st->weight[k];
  }
  TEST_CHECK(sum == ne, "%s: parts hold %lld elements, mesh %lld", what, (long long)sum,
             (long long)ne);
  double total = 0.0;
  for (int64_t e = 0; e < ne; ++e) total += cost[mesh->elem_shape[e]];
  TEST_CLOSE(weight, total, 1e-9 * total, "sum of part weights");
  TEST_CLOSE(st->weight_total, total, 1e-9 * total, "weight_total");
  TEST_CLOSE(st->imbalance, w_max * n / total, 1e-12, "imbalance = max / mean");

  int64_t twice_cut = 0;
  for (int64_t e = 0; e < ne; ++e)
    for (int f = 0; f < shape_n_faces((dg_shape)mesh->elem_shape[e]); ++f) {
      const int64_t nb = topo->elem_neighbor[e * DG_MAX_FACES + f];
      if (nb >= 0 && part[nb] != part[e]) ++twice_cut;
    }
  TEST_CHECK(twice_cut % 2 == 0, "%s: cut face sides %lld are odd", what, (long long)twice_cut);
  TEST_CHECK(st->cut_faces == twice_cut / 2, "%s: cut faces %lld, counted %lld", what,
             (long long)st->cut_faces, (long long)twice_cut / 2);
  if (n == 1) TEST_CHECK(st->cut_faces == 0 && st->halo_elems == 0, "%s: one part cut", what);

  /* ghost[k * ne + e]: element e (not in k) shares a face with part k */
  char *ghost = calloc((size_t)(n * ne), 1);
  char *adj = calloc((size_t)(n * n), 1);
  for (int64_t f = 0; f < topo->n_interior; ++f) {
    const int64_t a = topo->face_elem[2 * f], b = topo->face_elem[2 * f + 1];
    if (part[a] == part[b]) continue;
    ghost[(int64_t)part[a] * ne + b] = ghost[(int64_t)part[b] * ne + a] = 1;
    adj[part[a] * n + part[b]] = adj[part[b] * n + part[a]] = 1;
  }
  int max_nb = 0;
  for (int k = 0; k < n; ++k) {
    int64_t g = 0, gd = 0;
    int nb = 0;
    for (int64_t e = 0; e < ne; ++e)
      if (ghost[(int64_t)k * ne + e]) {
        ++g;
        gd += basis_count((dg_shape)mesh->elem_shape[e], p);
      }
    for (int j = 0; j < n; ++j) nb += adj[k * n + j];
    TEST_CHECK(st->ghosts[k] == g, "%s: part %d has %lld face ghosts, counted %lld", what, k,
               (long long)st->ghosts[k], (long long)g);
    TEST_CHECK(st->ghost_dofs[k] == gd, "%s: part %d ghost dofs %lld, counted %lld", what, k,
               (long long)st->ghost_dofs[k], (long long)gd);
    TEST_CHECK(st->neighbors[k] == nb, "%s: part %d has %d neighbours, counted %d", what, k,
               st->neighbors[k], nb);
    TEST_CHECK(st->vertex_ghosts[k] >= st->ghosts[k], "%s: part %d: %lld vertex ghosts < %lld",
               what, k, (long long)st->vertex_ghosts[k], (long long)st->ghosts[k]);
    TEST_CHECK(n == 1 || st->elems[k] == ne || st->ghosts[k] > 0,
               "%s: part %d has no ghost (disconnected mesh?)", what, k);
    halo += g;
    halo_dofs += gd;
    if (nb > max_nb) max_nb = nb;
  }
  TEST_CHECK(st->halo_elems == halo && st->halo_dofs == halo_dofs && st->max_neighbors == max_nb,
             "%s: totals %lld/%lld/%d, counted %lld/%lld/%d", what, (long long)st->halo_elems,
             (long long)st->halo_dofs, st->max_neighbors, (long long)halo, (long long)halo_dofs,
             max_nb);
  free(ghost);
  free(adj);
}

static void check_mesh(const char *name, int p) {
  test_mesh m;
  if (!load(name, &m)) return;
  const int64_t ne = m.mesh.n_elems;
  int32_t *part = malloc((size_t)ne * sizeof *part);
  int32_t *again = malloc((size_t)ne * sizeof *again);
  double cost[DG_NUM_SHAPES], c_max = 0.0;
  TEST_OK(partition_shape_costs(&m.mesh, p, DG_QUAD_COLLAPSED, cost));
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    if (cost[s] > c_max) c_max = cost[s];
  printf("%s p=%d: element costs tri %g, quad %g, tet %g\n", name, p, cost[DG_TRI], cost[DG_QUAD],
         cost[DG_TET]);
  static const int counts[] = {1, 2, 3, 4, 7, 9};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
    const int n = counts[i];
    char what[128];
    snprintf(what, sizeof what, "%s p=%d N=%d", name, p, n);
    if (n > 1 && !partition_available()) {
      TEST_FAILS(partition_elements(&m.mesh, &m.topo, p, DG_QUAD_COLLAPSED, n, part),
                 DG_ERR_UNSUPPORTED, "built without MPI/METIS");
      continue;
    }
    for (int64_t e = 0; e < ne; ++e) part[e] = again[e] = -7;
    TEST_OK(partition_elements(&m.mesh, &m.topo, p, DG_QUAD_COLLAPSED, n, part));
    TEST_OK(partition_elements(&m.mesh, &m.topo, p, DG_QUAD_COLLAPSED, n, again));
    TEST_CHECK(!memcmp(part, again, (size_t)ne * sizeof *part), "%s: two calls differ", what);
    int in_range = 1;
    for (int64_t e = 0; e < ne; ++e) in_range &= part[e] >= 0 && part[e] < n;
    TEST_CHECK(in_range, "%s: a part index is outside 0..%d", what, n - 1);
    if (!in_range) continue;
    dg_partition_stats st;
    TEST_OK(partition_stats(&m.mesh, &m.topo, p, DG_QUAD_COLLAPSED, n, part, &st));
    if (st.n_parts != n) continue;
    for (int k = 0; k < n; ++k) TEST_CHECK(st.elems[k] > 0, "%s: part %d is empty", what, k);
    /* METIS' tolerance (ufactor: 1.001 per bisection, compounding over the
     * ceil(log2 N) levels, for N <= 8; 1.03 for k-way) plus the granularity
     * of whole elements: a bisection cannot split an element, so each level
     * may miss its target by one element of the heaviest shape (k-way: one
     * element in all). */
    int levels = 0;
    while ((1 << levels) < n) ++levels;
    double tol = 1.03;
    int grains = 1;
    if (n <= 8) {
      tol = 1.0;
      for (int l = 0; l < levels; ++l) tol *= 1.001;
      grains = levels > 1 ? levels : 1;
    }
    const double bound = tol + grains * c_max * n / st.weight_total;
    TEST_CHECK(st.imbalance <= bound, "%s: imbalance %.4f above %.4f", what, st.imbalance, bound);
    printf("%-32s imbalance %.4f (bound %.4f), cut faces %lld, halo %lld (vertex %lld), max "
           "neighbours %d\n",
           what, st.imbalance, bound, (long long)st.cut_faces, (long long)st.halo_elems,
           (long long)st.vertex_halo_elems, st.max_neighbors);
    check_stats(&m, p, n, part, &st, what);
    partition_stats_free(&st);
  }
  free(part);
  free(again);
  unload(&m);
}

/* The viscous rows as a second constraint (partition_elements_viscous):
 * a held viscosity on the elements of a slab at one end of the mesh (the
 * first node's x within the lowest fifth of the extent: concentrated, as a
 * shock is); the rows it marks (partition_viscous_rows: the element or a
 * face neighbour holds ε > 0), their balance over 2 and 4 parts with and
 * without the constraint, the cost imbalance kept, the same parts on two
 * calls, and an all-zero mask giving partition_elements' parts. */
static void check_viscous(const char *name, int p) {
  test_mesh m;
  if (!load(name, &m)) return;
  const int64_t ne = m.mesh.n_elems;
  double *hold = malloc((size_t)ne * sizeof *hold);
  uint8_t *visc = malloc((size_t)ne), *none = calloc((size_t)ne, 1);
  int32_t *part = malloc((size_t)ne * sizeof *part), *again = malloc((size_t)ne * sizeof *again);
  double lo = 1e300, hi = -1e300;
  for (int64_t e = 0; e < ne; ++e) {
    const double x = m.mesh.x[3 * m.mesh.elem_nodes[m.mesh.elem_node_start[e]]];
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
  }
  int64_t held = 0;
  for (int64_t e = 0; e < ne; ++e) {
    const double x = m.mesh.x[3 * m.mesh.elem_nodes[m.mesh.elem_node_start[e]]];
    hold[e] = x < lo + 0.2 * (hi - lo) ? 0.01 : (e % 2 ? 0.0 : -1.0); /* -1: not held yet */
    held += hold[e] > 0.0;
  }
  const int64_t rows = partition_viscous_rows(&m.mesh, &m.topo, hold, visc);
  int64_t counted = 0, bad = 0;
  for (int64_t e = 0; e < ne; ++e) {
    int near = hold[e] > 0.0;
    for (int f = 0; f < DG_MAX_FACES; ++f) {
      const int64_t nb = m.topo.elem_neighbor[e * DG_MAX_FACES + f];
      near |= nb >= 0 && hold[nb] > 0.0;
    }
    counted += visc[e];
    bad += visc[e] != near;
  }
  TEST_CHECK(bad == 0 && counted == rows && rows > held && held > 0,
             "%s: %lld viscous rows (%lld counted, %lld wrong) from %lld held elements", name,
             (long long)rows, (long long)counted, (long long)bad, (long long)held);
  for (int n = 2; n <= 4 && partition_available(); n += 2) {
    TEST_OK(partition_elements(&m.mesh, &m.topo, p, DG_QUAD_COLLAPSED, n, part));
    const double plain = partition_viscous_balance(visc, ne, part, n);
    TEST_OK(partition_elements_viscous(&m.mesh, &m.topo, p, DG_QUAD_COLLAPSED, none, n, again));
    TEST_CHECK(!memcmp(part, again, (size_t)ne * sizeof *part),
               "%s, %d parts: an all-zero mask changed the parts", name, n);
    TEST_OK(partition_elements_viscous(&m.mesh, &m.topo, p, DG_QUAD_COLLAPSED, visc, n, part));
    TEST_OK(partition_elements_viscous(&m.mesh, &m.topo, p, DG_QUAD_COLLAPSED, visc, n, again));
    TEST_CHECK(!memcmp(part, again, (size_t)ne * sizeof *part), "%s, %d parts: two calls differ",
               name, n);
    const double weighted = partition_viscous_balance(visc, ne, part, n);
    dg_partition_stats st;
    memset(&st, 0, sizeof st);
    TEST_OK(partition_stats(&m.mesh, &m.topo, p, DG_QUAD_COLLAPSED, n, part, &st));
    for (int k = 0; k < n; ++k) TEST_CHECK(st.elems[k] > 0, "%s: part %d is empty", name, k);
    printf("%s, %d parts: %lld viscous rows; largest part / mean %.3f without the constraint, "
           "%.3f with it (cost imbalance %.4f)\n",
           name, n, (long long)rows, plain, weighted, st.imbalance);
    TEST_CHECK(weighted <= 1.06 && weighted < plain,
               "%s, %d parts: viscous balance %.3f with the constraint (%.3f without)", name, n,
               weighted, plain);
    TEST_CHECK(st.imbalance <= 1.06, "%s, %d parts: cost imbalance %.4f with the viscous rows",
               name, n, st.imbalance);
    partition_stats_free(&st);
  }
  free(hold);
  free(visc);
  free(none);
  free(part);
  free(again);
  unload(&m);
}

/* Bad counts and arguments. */
static void check_errors(void) {
  test_mesh m;
  if (!load("mesh_square_mixed_8.cdgm", &m)) return;
  const int64_t ne = m.mesh.n_elems;
  int32_t *part = malloc((size_t)(ne + 1) * sizeof *part);
  TEST_FAILS(partition_elements(&m.mesh, &m.topo, 1, DG_QUAD_COLLAPSED, 0, part), DG_ERR_ARG,
             "0 partitions requested; the count must be at least 1");
  TEST_FAILS(partition_elements(&m.mesh, &m.topo, 1, DG_QUAD_COLLAPSED, -3, part), DG_ERR_ARG,
             "at least 1");
  TEST_FAILS(partition_elements(&m.mesh, &m.topo, 1, DG_QUAD_COLLAPSED, 97, part), DG_ERR_ARG,
             "97 partitions requested for 96 elements");
  TEST_FAILS(partition_elements(&m.mesh, &m.topo, 7, DG_QUAD_COLLAPSED, 2, part), DG_ERR_ARG,
             "p = 7");
  /* one part: zeros, with or without METIS */
  for (int64_t e = 0; e < ne; ++e) part[e] = 5;
  TEST_OK(partition_elements(&m.mesh, &m.topo, 1, DG_QUAD_COLLAPSED, 1, part));
  int zeros = 1;
  for (int64_t e = 0; e < ne; ++e) zeros &= part[e] == 0;
  TEST_CHECK(zeros, "one part: not all zeros");
  dg_partition_stats st;
  part[5] = 2;
  TEST_FAILS(partition_stats(&m.mesh, &m.topo, 1, DG_QUAD_COLLAPSED, 2, part, &st), DG_ERR_ARG,
             "element 5 (tag");
  if (partition_available()) {
    /* as many parts as elements: every part one element (empty METIS parts
     * are refilled) */
    TEST_OK(partition_elements(&m.mesh, &m.topo, 1, DG_QUAD_COLLAPSED, (int)ne, part));
    TEST_OK(partition_stats(&m.mesh, &m.topo, 1, DG_QUAD_COLLAPSED, (int)ne, part, &st));
    int ones = st.n_parts == ne;
    for (int k = 0; k < st.n_parts; ++k) ones &= st.elems[k] == 1;
    TEST_CHECK(ones, "%lld parts of %lld elements: not one element each", (long long)ne,
               (long long)ne);
    partition_stats_free(&st);
  }
  free(part);
  unload(&m);
}

int main(void) {
  check_errors();
  check_mesh("mesh_square_mixed_8.cdgm", 2);     /* 2D tri + quad, periodic */
  check_mesh("mesh_naca0012_hybrid_q1.cdgm", 1); /* 2D tri + quad */
  check_mesh("mesh_naca0012_hybrid_q1.cdgm", 3);
  check_mesh("mesh_box_tet_periodic_4.cdgm", 2); /* 3D, periodic */
  check_mesh("mesh_onera_m6_0_q2.cdgm", 2);      /* 3D, curved */
  check_viscous("mesh_naca0012_hybrid_q1.cdgm", 2);
  check_viscous("mesh_onera_m6_0_q2.cdgm", 2);
  return test_finish("test_partition");
}
