/* Partitioning the element dual graph with METIS (partition.h). */
#include "mesh/partition.h"

#include <stdlib.h>
#include <string.h>

#include "element/basis.h"
#include "element/quadrature.h"
#include "mesh/geometry.h"

#ifdef COLORDG_HAVE_MPI
#include <metis.h>
#endif

int partition_available(void) {
#ifdef COLORDG_HAVE_MPI
  return 1;
#else
  return 0;
#endif
}

dg_status partition_shape_costs(const dg_mesh *mesh, int p, dg_quad_family family,
                                double cost[DG_NUM_SHAPES]) {
  DG_CHECK(mesh && cost, DG_ERR_ARG, "partition_shape_costs: NULL argument");
  DG_CHECK(p >= 0 && p <= DG_MAX_P, DG_ERR_ARG, "degree p = %d is outside 0..%d", p, DG_MAX_P);
  const int q = mesh->geom_order > 0 ? mesh->geom_order : 1;
  /* the rule degrees of `colordg run` by default (face_rule = reduced,
   * curved_rule = reduced) */
  const int vol_degree = geometry_mesh_volume_degree(mesh, p, 1);
  const int face_degree = geometry_face_degree(p, mesh->dim, q, 1);
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    cost[s] = 0.0;
    if (s == DG_LINE || !shape_supported((dg_shape)s) || shape_dim((dg_shape)s) != mesh->dim)
      continue;
    dg_quadrature vol = {0}, face = {0};
    DG_CALL(quadrature_rule_family((dg_shape)s, vol_degree, family, &vol));
    const dg_status st =
        quadrature_rule_family(shape_face_shape((dg_shape)s, 0), face_degree, family, &face);
    const int nq = vol.n_points, nqf = face.n_points;
    quadrature_free(&vol);
    quadrature_free(&face);
    DG_CALL(st);
    cost[s] = (double)basis_count((dg_shape)s, p) *
              ((double)nq + (double)shape_n_faces((dg_shape)s) * (double)nqf);
  }
  return DG_SUCCESS;
}

static dg_status partition_check_topology(const dg_mesh *mesh, const dg_topology *topo) {
  DG_CHECK(mesh && topo, DG_ERR_ARG, "partition: NULL mesh or topology");
  DG_CHECK(topo->n_elems == mesh->n_elems && (mesh->n_elems == 0 || topo->elem_neighbor),
           DG_ERR_ARG, "partition: the topology (%lld elements) is not that of mesh %s (%lld)",
           (long long)topo->n_elems, mesh->source, (long long)mesh->n_elems);
  return DG_SUCCESS;
}

#ifdef COLORDG_HAVE_MPI
/* The dual graph in METIS' CSR form with merged edges (weight = shared
 * faces) and integer vertex weights, ncon per vertex: the modelled cost,
 * and with a viscous-row mask a second constraint (1 for a viscous row, 0
 * otherwise). */
typedef struct {
  idx_t *xadj, *adjncy, *adjwgt, *vwgt;
  idx_t ncon;
} partition_graph;

static void partition_graph_free(partition_graph *g) {
  free(g->xadj);
  free(g->adjncy);
  free(g->adjwgt);
  free(g->vwgt);
  memset(g, 0, sizeof *g);
}

static dg_status partition_graph_build(const dg_mesh *mesh, const dg_topology *topo, int p,
                                       dg_quad_family family, const uint8_t *viscous,
                                       partition_graph *g) {
  const int64_t ne = mesh->n_elems;
  double cost[DG_NUM_SHAPES];
  DG_CALL(partition_shape_costs(mesh, p, family, cost));
  double cost_max = 0.0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    if (cost[s] > cost_max) cost_max = cost[s];
  /* heaviest shape at most 1000, total below 2^30 (METIS sums in idx_t) */
  double cap = 1000.0;
  if (cap * (double)ne > (double)(1 << 30)) cap = (double)(1 << 30) / (double)ne;
  if (cap < 1.0) cap = 1.0;
  memset(g, 0, sizeof *g);
  int64_t n_viscous = 0;
  for (int64_t e = 0; viscous && e < ne; ++e) n_viscous += viscous[e] != 0;
  g->ncon = n_viscous > 0 ? 2 : 1;
  g->xadj = malloc((size_t)(ne + 1) * sizeof *g->xadj);
  g->adjncy = malloc((size_t)(ne * DG_MAX_FACES + 1) * sizeof *g->adjncy);
  g->adjwgt = malloc((size_t)(ne * DG_MAX_FACES + 1) * sizeof *g->adjwgt);
  g->vwgt = malloc((size_t)(ne * g->ncon + 1) * sizeof *g->vwgt);
  if (!g->xadj || !g->adjncy || !g->adjwgt || !g->vwgt) {
    partition_graph_free(g);
    DG_ERROR(DG_ERR_MEMORY, "partition: out of memory for the dual graph of %lld elements",
             (long long)ne);
  }
  idx_t n_adj = 0;
  g->xadj[0] = 0;
  for (int64_t e = 0; e < ne; ++e) {
    const int s = mesh->elem_shape[e];
    const double w = cost_max > 0.0 ? cost[s] / cost_max * cap + 0.5 : 1.0;
    g->vwgt[e * g->ncon] = w < 1.0 ? 1 : (idx_t)w;
    if (g->ncon > 1) g->vwgt[e * g->ncon + 1] = viscous[e] != 0;
    const idx_t first = n_adj;
    for (int f = 0; f < DG_MAX_FACES; ++f) {
      const int64_t nb = topo->elem_neighbor[e * DG_MAX_FACES + f];
      if (nb < 0 || nb == e) continue;
      idx_t k = first;
      while (k < n_adj && g->adjncy[k] != (idx_t)nb) ++k;
      if (k < n_adj) {
        ++g->adjwgt[k];
      } else {
        g->adjncy[n_adj] = (idx_t)nb;
        g->adjwgt[n_adj++] = 1;
      }
    }
    g->xadj[e + 1] = n_adj;
  }
  return DG_SUCCESS;
}

static const char *partition_metis_error(int rc) {
  switch (rc) {
  case METIS_ERROR_INPUT: return "METIS_ERROR_INPUT (bad input)";
  case METIS_ERROR_MEMORY: return "METIS_ERROR_MEMORY (out of memory)";
  case METIS_ERROR: return "METIS_ERROR";
  default: return "unknown METIS return code";
  }
}
#endif

dg_status partition_elements(const dg_mesh *mesh, const dg_topology *topo, int p,
                             dg_quad_family family, int n_parts, int32_t *part) {
  return partition_elements_viscous(mesh, topo, p, family, NULL, n_parts, part);
}

dg_status partition_elements_viscous(const dg_mesh *mesh, const dg_topology *topo, int p,
                                     dg_quad_family family, const uint8_t *viscous, int n_parts,
                                     int32_t *part) {
  DG_CALL(partition_check_topology(mesh, topo));
  DG_CHECK(part || mesh->n_elems == 0, DG_ERR_ARG, "partition_elements: NULL part array");
  DG_CHECK(n_parts >= 1, DG_ERR_ARG, "%s: %d partitions requested; the count must be at least 1",
           mesh->source, n_parts);
  DG_CHECK(n_parts <= mesh->n_elems, DG_ERR_ARG,
           "%s: %d partitions requested for %lld elements; at most one partition per element",
           mesh->source, n_parts, (long long)mesh->n_elems);
  DG_CHECK(p >= 0 && p <= DG_MAX_P, DG_ERR_ARG, "degree p = %d is outside 0..%d", p, DG_MAX_P);
  const int64_t ne = mesh->n_elems;
  if (n_parts == 1) {
    memset(part, 0, (size_t)ne * sizeof *part);
    return DG_SUCCESS;
  }
#ifdef COLORDG_HAVE_MPI
  DG_CHECK(ne * DG_MAX_FACES < (int64_t)1 << 31, DG_ERR_UNSUPPORTED,
           "%s: %lld elements are beyond METIS' 32-bit indices", mesh->source, (long long)ne);
  partition_graph g;
  DG_CALL(partition_graph_build(mesh, topo, p, family, viscous, &g));
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = 1;
  options[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_CUT;
  const int recursive = n_parts <= 8;
  options[METIS_OPTION_UFACTOR] = recursive ? 1 : 30;
  idx_t nvtxs = (idx_t)ne, ncon = g.ncon, nparts = (idx_t)n_parts, objval = 0;
  /* with the viscous rows: each constraint balanced on its own, the cost
   * to METIS' tolerance above, the viscous rows to 5 % */
  real_t ubvec[2] = {(real_t)(1.0 + options[METIS_OPTION_UFACTOR] / 1000.0), (real_t)1.05};
  idx_t *where = malloc((size_t)ne * sizeof *where);
  if (!where) {
    partition_graph_free(&g);
    DG_ERROR(DG_ERR_MEMORY, "partition: out of memory for %lld elements", (long long)ne);
  }
  const int rc =
      recursive
          ? METIS_PartGraphRecursive(&nvtxs, &ncon, g.xadj, g.adjncy, g.vwgt, NULL, g.adjwgt,
                                     &nparts, NULL, ncon > 1 ? ubvec : NULL, options, &objval,
                                     where)
          : METIS_PartGraphKway(&nvtxs, &ncon, g.xadj, g.adjncy, g.vwgt, NULL, g.adjwgt, &nparts,
                                NULL, ncon > 1 ? ubvec : NULL, options, &objval, where);
  if (rc != METIS_OK) {
    free(where);
    partition_graph_free(&g);
    DG_ERROR(DG_ERR_INTERNAL, "%s: METIS_PartGraph%s into %d parts failed with code %d: %s",
             mesh->source, recursive ? "Recursive" : "Kway", n_parts, rc,
             partition_metis_error(rc));
  }
  int64_t *count = calloc((size_t)n_parts, sizeof *count);
  double *weight = calloc((size_t)n_parts, sizeof *weight);
  if (!count || !weight) {
    free(count);
    free(weight);
    free(where);
    partition_graph_free(&g);
    DG_ERROR(DG_ERR_MEMORY, "partition: out of memory for %d parts", n_parts);
  }
  dg_status status = DG_SUCCESS;
  for (int64_t e = 0; e < ne; ++e) {
    if (where[e] < 0 || where[e] >= nparts) {
      status = dg_error_set(DG_ERR_INTERNAL, __FILE__, __LINE__, __func__,
                            "%s: METIS put element %lld (tag %lld) in part %d of %d", mesh->source,
                            (long long)e, (long long)mesh->elem_tag[e], (int)where[e], n_parts);
      break;
    }
    part[e] = (int32_t)where[e];
    ++count[part[e]];
    weight[part[e]] += (double)g.vwgt[e * g.ncon];
  }
  /* an empty part takes the highest-numbered element of the heaviest part
   * that has more than one element (deterministic; n_parts <= n_elems) */
  for (int k = 0; k < n_parts && status == DG_SUCCESS; ++k) {
    if (count[k] > 0) continue;
    int from = -1;
    for (int j = 0; j < n_parts; ++j)
      if (count[j] > 1 && (from < 0 || weight[j] > weight[from])) from = j;
    int64_t e = ne - 1;
    while (e >= 0 && part[e] != from) --e;
    if (from < 0 || e < 0) {
      status =
          dg_error_set(DG_ERR_INTERNAL, __FILE__, __LINE__, __func__,
                       "%s: part %d is empty and no part can give it an element", mesh->source, k);
      break;
    }
    part[e] = (int32_t)k;
    --count[from];
    ++count[k];
    weight[from] -= (double)g.vwgt[e * g.ncon];
    weight[k] += (double)g.vwgt[e * g.ncon];
  }
  free(count);
  free(weight);
  free(where);
  partition_graph_free(&g);
  return status;
#else
  (void)family;
  (void)viscous;
  DG_ERROR(DG_ERR_UNSUPPORTED,
           "%s: %d partitions requested, but this ColorDG was built without MPI/METIS "
           "(install libopenmpi-dev and libmetis-dev and rebuild: tools/setup.sh)",
           mesh->source, n_parts);
#endif
}

int64_t partition_viscous_rows(const dg_mesh *mesh, const dg_topology *topo, const double *hold,
                               uint8_t *viscous) {
  int64_t n = 0;
  for (int64_t e = 0; e < mesh->n_elems; ++e) {
    int v = hold[e] > 0.0;
    for (int f = 0; f < DG_MAX_FACES && !v; ++f) {
      const int64_t nb = topo->elem_neighbor[e * DG_MAX_FACES + f];
      v = nb >= 0 && hold[nb] > 0.0;
    }
    viscous[e] = (uint8_t)v;
    n += v;
  }
  return n;
}

double partition_viscous_balance(const uint8_t *viscous, int64_t n, const int32_t *part,
                                 int n_parts) {
  if (n_parts <= 1 || n <= 0) return 1.0;
  int64_t *count = calloc((size_t)n_parts, sizeof *count);
  if (!count) return -1.0;
  int64_t total = 0;
  for (int64_t e = 0; e < n; ++e)
    if (viscous[e]) {
      ++count[part[e]];
      ++total;
    }
  int64_t max = 0;
  for (int k = 0; k < n_parts; ++k)
    if (count[k] > max) max = count[k];
  free(count);
  return total > 0 ? (double)max * n_parts / (double)total : 1.0;
}

void partition_stats_free(dg_partition_stats *st) {
  if (!st) return;
  free(st->elems);
  free(st->weight);
  free(st->ghosts);
  free(st->vertex_ghosts);
  free(st->ghost_dofs);
  free(st->neighbors);
  memset(st, 0, sizeof *st);
}

static int64_t partition_find_root(int64_t *parent, int64_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

/* Vertex -> elements incidence (CSR over canonical vertex ids: periodic
 * images joined, as disc_build numbers the continuous viscosity's vertices). */
typedef struct {
  int64_t *canon; /* [n_nodes] canonical node of each node */
  int64_t *start; /* [n_nodes + 1] offsets into elems, by canonical node */
  int64_t *elems; /* element of each (vertex, element) incidence */
} partition_vertex_map;

static void partition_vertex_map_free(partition_vertex_map *vm) {
  free(vm->canon);
  free(vm->start);
  free(vm->elems);
  memset(vm, 0, sizeof *vm);
}

static dg_status partition_vertex_map_build(const dg_mesh *mesh, partition_vertex_map *vm) {
  const int64_t nn = mesh->n_nodes, ne = mesh->n_elems;
  memset(vm, 0, sizeof *vm);
  vm->canon = malloc((size_t)(nn + 1) * sizeof *vm->canon);
  vm->start = calloc((size_t)(nn + 2), sizeof *vm->start);
  vm->elems = malloc((size_t)(ne * DG_MAX_VERTS + 1) * sizeof *vm->elems);
  if (!vm->canon || !vm->start || !vm->elems) {
    partition_vertex_map_free(vm);
    DG_ERROR(DG_ERR_MEMORY, "partition: out of memory for the vertex map of %lld nodes",
             (long long)nn);
  }
  for (int64_t i = 0; i < nn; ++i) vm->canon[i] = i;
  for (int64_t l = 0; l < mesh->n_periodic; ++l) {
    const int64_t a = partition_find_root(vm->canon, mesh->periodic_slave[l]);
    const int64_t b = partition_find_root(vm->canon, mesh->periodic_master[l]);
    if (a < b)
      vm->canon[b] = a;
    else
      vm->canon[a] = b;
  }
  for (int64_t i = 0; i < nn; ++i) vm->canon[i] = partition_find_root(vm->canon, i);
  for (int64_t e = 0; e < ne; ++e) {
    const int nv = shape_n_verts((dg_shape)mesh->elem_shape[e]);
    for (int i = 0; i < nv; ++i)
      ++vm->start[vm->canon[mesh->elem_nodes[mesh->elem_node_start[e] + i]] + 1];
  }
  for (int64_t i = 0; i < nn; ++i) vm->start[i + 1] += vm->start[i];
  int64_t *fill = malloc((size_t)(nn + 1) * sizeof *fill);
  if (!fill) {
    partition_vertex_map_free(vm);
    DG_ERROR(DG_ERR_MEMORY, "partition: out of memory for the vertex map of %lld nodes",
             (long long)nn);
  }
  memcpy(fill, vm->start, (size_t)nn * sizeof *fill);
  for (int64_t e = 0; e < ne; ++e) {
    const int nv = shape_n_verts((dg_shape)mesh->elem_shape[e]);
    for (int i = 0; i < nv; ++i) {
      const int64_t v = vm->canon[mesh->elem_nodes[mesh->elem_node_start[e] + i]];
      /* an element that touches a canonical vertex twice (periodic) once */
      if (fill[v] > vm->start[v] && vm->elems[fill[v] - 1] == e) continue;
      vm->elems[fill[v]++] = e;
    }
  }
  /* close the gaps left by skipped duplicates: mark them -1 */
  for (int64_t v = 0; v < nn; ++v)
    for (int64_t k = fill[v]; k < vm->start[v + 1]; ++k) vm->elems[k] = -1;
  free(fill);
  return DG_SUCCESS;
}

dg_status partition_stats(const dg_mesh *mesh, const dg_topology *topo, int p,
                          dg_quad_family family, int n_parts, const int32_t *part,
                          dg_partition_stats *st) {
  DG_CALL(partition_check_topology(mesh, topo));
  DG_CHECK(st && n_parts >= 1 && (part || mesh->n_elems == 0), DG_ERR_ARG,
           "partition_stats: bad arguments (%d parts)", n_parts);
  memset(st, 0, sizeof *st);
  const int64_t ne = mesh->n_elems;
  for (int64_t e = 0; e < ne; ++e)
    DG_CHECK(part[e] >= 0 && part[e] < n_parts, DG_ERR_ARG,
             "%s: element %lld (tag %lld) is in part %d, outside 0..%d", mesh->source, (long long)e,
             (long long)mesh->elem_tag[e], (int)part[e], n_parts - 1);
  double cost[DG_NUM_SHAPES];
  DG_CALL(partition_shape_costs(mesh, p, family, cost));
  const size_t np = (size_t)n_parts;
  st->n_parts = n_parts;
  st->p = p;
  st->elems = calloc(np, sizeof *st->elems);
  st->weight = calloc(np, sizeof *st->weight);
  st->ghosts = calloc(np, sizeof *st->ghosts);
  st->vertex_ghosts = calloc(np, sizeof *st->vertex_ghosts);
  st->ghost_dofs = calloc(np, sizeof *st->ghost_dofs);
  st->neighbors = calloc(np, sizeof *st->neighbors);
  /* elements grouped by part (counting sort), and stamps that count each
   * ghost element and neighbour part once per part */
  int64_t *order = malloc((size_t)(ne + 1) * sizeof *order);
  int64_t *offset = calloc(np + 1, sizeof *offset);
  int32_t *elem_stamp = malloc((size_t)(ne + 1) * sizeof *elem_stamp);
  int32_t *vert_stamp = malloc((size_t)(ne + 1) * sizeof *vert_stamp);
  int32_t *part_stamp = malloc(np * sizeof *part_stamp);
  partition_vertex_map vm = {0};
  dg_status status = DG_SUCCESS;
  if (!st->elems || !st->weight || !st->ghosts || !st->vertex_ghosts || !st->ghost_dofs ||
      !st->neighbors || !order || !offset || !elem_stamp || !vert_stamp || !part_stamp) {
    status = dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                          "partition_stats: out of memory for %d parts of %lld elements", n_parts,
                          (long long)ne);
    goto done;
  }
  DG_CALL_GOTO(status, done, partition_vertex_map_build(mesh, &vm));
  for (int64_t e = 0; e < ne; ++e) {
    ++st->elems[part[e]];
    st->weight[part[e]] += cost[mesh->elem_shape[e]];
    ++offset[part[e] + 1];
  }
  for (size_t k = 0; k < np; ++k) offset[k + 1] += offset[k];
  for (int64_t e = 0; e < ne; ++e) order[offset[part[e]]++] = e;
  for (size_t k = np; k > 0; --k) offset[k] = offset[k - 1];
  offset[0] = 0;
  for (int64_t e = 0; e < ne; ++e) elem_stamp[e] = vert_stamp[e] = -1;
  for (size_t k = 0; k < np; ++k) part_stamp[k] = -1;
  for (int k = 0; k < n_parts; ++k) {
    for (int64_t i = offset[k]; i < offset[k + 1]; ++i) {
      const int64_t e = order[i];
      for (int f = 0; f < DG_MAX_FACES; ++f) {
        const int64_t nb = topo->elem_neighbor[e * DG_MAX_FACES + f];
        if (nb < 0 || part[nb] == k) continue;
        if (elem_stamp[nb] != k) {
          elem_stamp[nb] = k;
          ++st->ghosts[k];
          st->ghost_dofs[k] += basis_count((dg_shape)mesh->elem_shape[nb], p);
        }
        if (part_stamp[part[nb]] != k) {
          part_stamp[part[nb]] = k;
          ++st->neighbors[k];
        }
      }
      const int nv = shape_n_verts((dg_shape)mesh->elem_shape[e]);
      for (int j = 0; j < nv; ++j) {
        const int64_t v = vm.canon[mesh->elem_nodes[mesh->elem_node_start[e] + j]];
        for (int64_t a = vm.start[v]; a < vm.start[v + 1]; ++a) {
          const int64_t o = vm.elems[a];
          if (o < 0 || part[o] == k || vert_stamp[o] == k) continue;
          vert_stamp[o] = k;
          ++st->vertex_ghosts[k];
        }
      }
    }
  }
  for (int64_t f = 0; f < topo->n_interior; ++f) {
    const int64_t a = topo->face_elem[2 * f], b = topo->face_elem[2 * f + 1];
    if (b >= 0 && part[a] != part[b]) ++st->cut_faces;
  }
  double w_max = 0.0;
  for (int k = 0; k < n_parts; ++k) {
    st->weight_total += st->weight[k];
    if (st->weight[k] > w_max) w_max = st->weight[k];
    if (st->neighbors[k] > st->max_neighbors) st->max_neighbors = st->neighbors[k];
    st->halo_elems += st->ghosts[k];
    st->halo_dofs += st->ghost_dofs[k];
    st->vertex_halo_elems += st->vertex_ghosts[k];
  }
  st->imbalance = st->weight_total > 0.0 ? w_max * n_parts / st->weight_total : 1.0;
done:
  free(order);
  free(offset);
  free(elem_stamp);
  free(vert_stamp);
  free(part_stamp);
  partition_vertex_map_free(&vm);
  if (status != DG_SUCCESS) partition_stats_free(st);
  return status;
}

double partition_colour_balance(const int32_t *color, int n_colors, int64_t n, const int32_t *part,
                                int n_parts) {
  if (n_parts <= 1 || n <= 0 || n_colors <= 0) return 1.0;
  int64_t *count = calloc((size_t)n_colors * (size_t)n_parts, sizeof *count);
  if (!count) return -1.0;
  for (int64_t e = 0; e < n; ++e) ++count[(int64_t)color[e] * n_parts + part[e]];
  double sum_mean = 0.0, sum_max = 0.0;
  for (int c = 0; c < n_colors; ++c) {
    int64_t most = 0, total = 0;
    for (int k = 0; k < n_parts; ++k) {
      const int64_t m = count[(int64_t)c * n_parts + k];
      total += m;
      if (m > most) most = m;
    }
    sum_mean += (double)total / n_parts;
    sum_max += (double)most;
  }
  free(count);
  return sum_max > 0.0 ? sum_mean / sum_max : 1.0;
}
