/* One rank's part of a partitioned mesh (distribute.h). */
#include "mesh/distribute.h"

#include <stdlib.h>
#include <string.h>

/* Canonical node under the periodic links (union-find root, path halving). */
static int64_t dist_root(int64_t *parent, int64_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* Element lists around canonical vertices (CSR over node ids): the elements
 * that share a vertex, periodic images joined. */
typedef struct {
  int64_t *canon; /* [n_nodes] */
  int64_t *start; /* [n_nodes + 1] */
  int64_t *elem;
} dist_vertex_map;

static void dist_vertex_map_free(dist_vertex_map *m) {
  free(m->canon);
  free(m->start);
  free(m->elem);
  memset(m, 0, sizeof *m);
}

static dg_status dist_vertex_map_build(const dg_mesh *g, dist_vertex_map *m) {
  memset(m, 0, sizeof *m);
  DG_CALL(DG_CALLOC(m->canon, g->n_nodes > 0 ? g->n_nodes : 1));
  DG_CALL(DG_CALLOC(m->start, g->n_nodes + 1));
  for (int64_t i = 0; i < g->n_nodes; ++i) m->canon[i] = i;
  for (int64_t l = 0; l < g->n_periodic; ++l) {
    const int64_t a = dist_root(m->canon, g->periodic_slave[l]);
    const int64_t b = dist_root(m->canon, g->periodic_master[l]);
    if (a != b) m->canon[a > b ? a : b] = a < b ? a : b;
  }
  for (int64_t i = 0; i < g->n_nodes; ++i) m->canon[i] = dist_root(m->canon, i);
  for (int64_t e = 0; e < g->n_elems; ++e) {
    const int nv = shape_n_verts((dg_shape)g->elem_shape[e]);
    for (int i = 0; i < nv; ++i) ++m->start[m->canon[g->elem_nodes[g->elem_node_start[e] + i]] + 1];
  }
  for (int64_t i = 0; i < g->n_nodes; ++i) m->start[i + 1] += m->start[i];
  DG_CALL(DG_CALLOC(m->elem, m->start[g->n_nodes] > 0 ? m->start[g->n_nodes] : 1));
  int64_t *fill = NULL;
  DG_CALL(DG_CALLOC(fill, g->n_nodes > 0 ? g->n_nodes : 1));
  for (int64_t e = 0; e < g->n_elems; ++e) {
    const int nv = shape_n_verts((dg_shape)g->elem_shape[e]);
    for (int i = 0; i < nv; ++i) {
      const int64_t v = m->canon[g->elem_nodes[g->elem_node_start[e] + i]];
      m->elem[m->start[v] + fill[v]++] = e;
    }
  }
  free(fill);
  return DG_SUCCESS;
}

/* The elements adjacent to global element e into *buf (grown as needed;
 * *cap its capacity): face neighbours and, with a vertex map, every element
 * sharing a vertex (duplicates and e itself possible). Returns the count,
 * or -1 when out of memory. */
static int64_t dist_adjacent(const dg_mesh *g, const dg_topology *t, const dist_vertex_map *vm,
                             int64_t e, int64_t **buf, int64_t *cap) {
  int64_t need = DG_MAX_FACES;
  const int nv = shape_n_verts((dg_shape)g->elem_shape[e]);
  if (vm)
    for (int i = 0; i < nv; ++i) {
      const int64_t v = vm->canon[g->elem_nodes[g->elem_node_start[e] + i]];
      need += vm->start[v + 1] - vm->start[v];
    }
  if (need > *cap) {
    int64_t *b2 = realloc(*buf, (size_t)need * sizeof *b2);
    if (!b2) return -1;
    *buf = b2;
    *cap = need;
  }
  int64_t n = 0;
  for (int f = 0; f < DG_MAX_FACES; ++f) {
    const int64_t o = t->elem_neighbor[e * (int64_t)DG_MAX_FACES + f];
    if (o >= 0) (*buf)[n++] = o;
  }
  if (vm)
    for (int i = 0; i < nv; ++i) {
      const int64_t v = vm->canon[g->elem_nodes[g->elem_node_start[e] + i]];
      for (int64_t k = vm->start[v]; k < vm->start[v + 1]; ++k) (*buf)[n++] = vm->elem[k];
    }
  return n;
}

typedef struct {
  int64_t rank, elem;
} dist_pair;

static int dist_pair_cmp(const void *pa, const void *pb) {
  const dist_pair *a = pa, *b = pb;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return a->elem < b->elem ? -1 : a->elem > b->elem;
}

/* Sorts and removes duplicates; returns the new count. */
static int64_t dist_pairs_unique(dist_pair *p, int64_t n) {
  if (n == 0) return 0;
  qsort(p, (size_t)n, sizeof *p, dist_pair_cmp);
  int64_t m = 1;
  for (int64_t i = 1; i < n; ++i)
    if (dist_pair_cmp(&p[i], &p[m - 1]) != 0) p[m++] = p[i];
  return m;
}

void mesh_part_free(dg_mesh_part *p) {
  if (!p) return;
  mesh_free(&p->mesh);
  topology_free(&p->topo);
  free(p->global_elem);
  free(p->global_face);
  halo_free(&p->halo);
  memset(p, 0, sizeof *p);
}

/* The halo lists (pairs: (rank, global element), unique and sorted). */
static dg_status dist_build_halo(dg_mesh_part *out, const dist_pair *send, int64_t n_send,
                                 const dist_pair *recv, int64_t n_recv, const int64_t *local_of) {
  dg_halo *h = &out->halo;
  int n = 0;
  for (int64_t i = 0; i < n_send; ++i)
    if (i == 0 || send[i].rank != send[i - 1].rank) ++n;
  int n_r = 0;
  for (int64_t i = 0; i < n_recv; ++i)
    if (i == 0 || recv[i].rank != recv[i - 1].rank) ++n_r;
  DG_CHECK(n == n_r, DG_ERR_INTERNAL,
           "mesh_distribute: rank %d sends to %d ranks but receives from %d (adjacency not "
           "symmetric)",
           out->rank, n, n_r);
  h->n_neighbors = n;
  DG_CALL(DG_CALLOC(h->neighbor, n > 0 ? n : 1));
  DG_CALL(DG_CALLOC(h->send_offset, n + 1));
  DG_CALL(DG_CALLOC(h->recv_offset, n + 1));
  DG_CALL(DG_CALLOC(h->send_elem, n_send > 0 ? n_send : 1));
  DG_CALL(DG_CALLOC(h->recv_elem, n_recv > 0 ? n_recv : 1));
  int k = -1;
  for (int64_t i = 0; i < n_send; ++i) {
    if (i == 0 || send[i].rank != send[i - 1].rank) h->neighbor[++k] = (int)send[i].rank;
    ++h->send_offset[k + 1];
    h->send_elem[i] = local_of[send[i].elem];
  }
  k = -1;
  for (int64_t i = 0; i < n_recv; ++i) {
    if (i == 0 || recv[i].rank != recv[i - 1].rank) {
      ++k;
      DG_CHECK(h->neighbor[k] == (int)recv[i].rank, DG_ERR_INTERNAL,
               "mesh_distribute: rank %d: neighbour %d is rank %d for sends, %lld for receives",
               out->rank, k, h->neighbor[k], (long long)recv[i].rank);
    }
    ++h->recv_offset[k + 1];
    h->recv_elem[i] = local_of[recv[i].elem];
  }
  for (int i = 0; i < n; ++i) {
    h->send_offset[i + 1] += h->send_offset[i];
    h->recv_offset[i + 1] += h->recv_offset[i];
  }
  return DG_SUCCESS;
}

/* The local topology: the global faces that touch an owned element,
 * interior faces between owned elements first (see the loop). */
static dg_status dist_build_topology(const dg_topology *gt, const int32_t *part, int rank,
                                     const int64_t *local_of, dg_mesh_part *out) {
  dg_topology *t = &out->topo;
  const int n_groups = gt->n_groups;
  int64_t n_keep = 0, n_interior = 0, n_periodic = 0;
  for (int64_t f = 0; f < gt->n_faces; ++f) {
    const int64_t a = gt->face_elem[2 * f], b = gt->face_elem[2 * f + 1];
    if (part[a] == rank || (b >= 0 && part[b] == rank)) {
      ++n_keep;
      if (f < gt->n_interior) ++n_interior;
    }
  }
  t->n_elems = out->mesh.n_elems;
  t->n_faces = n_keep;
  t->n_interior = n_interior;
  t->n_groups = n_groups;
  DG_CALL(DG_CALLOC(t->group_face_offset, n_groups + 1));
  DG_CALL(DG_CALLOC(t->face_elem, 2 * (n_keep > 0 ? n_keep : 1)));
  DG_CALL(DG_CALLOC(t->face_local, 2 * (n_keep > 0 ? n_keep : 1)));
  DG_CALL(DG_CALLOC(t->face_orient, n_keep > 0 ? n_keep : 1));
  DG_CALL(DG_CALLOC(t->face_group, n_keep > 0 ? n_keep : 1));
  DG_CALL(DG_CALLOC(t->face_bface, n_keep > 0 ? n_keep : 1));
  DG_CALL(DG_CALLOC(t->face_shift, 3 * (n_keep > 0 ? n_keep : 1)));
  const int64_t n_slots = t->n_elems * DG_MAX_FACES;
  DG_CALL(DG_CALLOC(t->elem_face, n_slots > 0 ? n_slots : 1));
  DG_CALL(DG_CALLOC(t->elem_neighbor, n_slots > 0 ? n_slots : 1));
  DG_CALL(DG_CALLOC(out->global_face, n_keep > 0 ? n_keep : 1));
  for (int64_t i = 0; i < n_slots; ++i) t->elem_face[i] = t->elem_neighbor[i] = -1;
  int64_t lf = 0, lb = 0;
  t->group_face_offset[0] = n_interior;
  for (int g = 0; g < n_groups; ++g) {
    /* faces of group g in global order */
    for (int64_t f = gt->group_face_offset[g]; f < gt->group_face_offset[g + 1]; ++f)
      if (part[gt->face_elem[2 * f]] == rank) ++t->group_face_offset[g + 1];
    t->group_face_offset[g + 1] += t->group_face_offset[g];
  }
  /* interior faces between two owned elements first, then those with a
   * ghost side (the residual computes the first while the ghosts' data is
   * in flight: residual_plan.h), then the boundary faces; global order
   * inside each */
  for (int64_t k = 0; k < gt->n_interior + gt->n_faces; ++k) {
    const int64_t f = k < gt->n_interior ? k : k - gt->n_interior;
    const int64_t a = gt->face_elem[2 * f], b = gt->face_elem[2 * f + 1];
    if (!(part[a] == rank || (b >= 0 && part[b] == rank))) continue;
    if (f < gt->n_interior && (k < gt->n_interior) != (part[a] == rank && part[b] == rank))
      continue;
    const int64_t la = local_of[a], lbe = b >= 0 ? local_of[b] : -1;
    DG_CHECK(la >= 0 && (b < 0 || lbe >= 0), DG_ERR_INTERNAL,
             "mesh_distribute: face %lld of rank %d has a side that is not local", (long long)f,
             rank);
    t->face_elem[2 * lf] = la;
    t->face_elem[2 * lf + 1] = lbe;
    t->face_local[2 * lf] = gt->face_local[2 * f];
    t->face_local[2 * lf + 1] = gt->face_local[2 * f + 1];
    t->face_orient[lf] = gt->face_orient[f];
    t->face_group[lf] = gt->face_group[f];
    for (int d = 0; d < 3; ++d) t->face_shift[3 * lf + d] = gt->face_shift[3 * f + d];
    if (f < gt->n_interior && (gt->face_shift[3 * f] != 0.0 || gt->face_shift[3 * f + 1] != 0.0 ||
                               gt->face_shift[3 * f + 2] != 0.0))
      ++n_periodic;
    t->face_bface[lf] = gt->face_bface[f] >= 0 ? lb++ : -1;
    t->elem_face[la * DG_MAX_FACES + gt->face_local[2 * f]] = lf;
    if (lbe >= 0) {
      t->elem_face[lbe * DG_MAX_FACES + gt->face_local[2 * f + 1]] = lf;
      t->elem_neighbor[la * DG_MAX_FACES + gt->face_local[2 * f]] = lbe;
      t->elem_neighbor[lbe * DG_MAX_FACES + gt->face_local[2 * f + 1]] = la;
    }
    out->global_face[lf] = f;
    ++lf;
  }
  t->n_periodic_faces = n_periodic;
  DG_CHECK(lb == out->mesh.n_bfaces, DG_ERR_INTERNAL,
           "mesh_distribute: rank %d: %lld boundary faces in the topology, %lld in the mesh", rank,
           (long long)lb, (long long)out->mesh.n_bfaces);
  return DG_SUCCESS;
}

dg_status mesh_distribute(const dg_mesh *g, const dg_topology *gt, const int32_t *part, int n_parts,
                          int rank, int vertex_ghosts, dg_mesh_part *out) {
  DG_CHECK(g && gt && part && out, DG_ERR_ARG, "mesh_distribute: NULL argument");
  DG_CHECK(n_parts >= 1 && rank >= 0 && rank < n_parts, DG_ERR_ARG,
           "mesh_distribute: rank %d of %d parts", rank, n_parts);
  DG_CHECK(gt->n_elems == g->n_elems, DG_ERR_ARG,
           "mesh_distribute: topology of %lld elements for a mesh of %lld", (long long)gt->n_elems,
           (long long)g->n_elems);
  memset(out, 0, sizeof *out);
  out->rank = rank;
  out->n_parts = n_parts;
  out->n_global_elems = g->n_elems;
  int64_t n_mine = 0;
  for (int64_t e = 0; e < g->n_elems; ++e) {
    DG_CHECK(part[e] >= 0 && part[e] < n_parts, DG_ERR_ARG,
             "mesh_distribute: element %lld (tag %lld) is in part %d, outside [0, %d)",
             (long long)e, (long long)g->elem_tag[e], (int)part[e], n_parts);
    n_mine += part[e] == rank;
  }
  DG_CHECK(n_mine > 0, DG_ERR_ARG, "mesh_distribute: rank %d owns no element of %s", rank,
           g->source);

  dg_status status = DG_SUCCESS;
  dist_vertex_map vmap, *vm = NULL;
  memset(&vmap, 0, sizeof vmap);
  uint8_t *mark = NULL;       /* [n_elems] 0 not local, 1 owned, 2 ghost */
  int64_t *local_of = NULL;   /* [n_elems] local index or -1 */
  int64_t *node_local = NULL; /* [n_nodes] local node or -1 */
  dist_pair *send = NULL, *recv = NULL;
  int64_t n_send = 0, n_recv = 0, cap = 0, *adj = NULL, adj_cap = 0;
  if (vertex_ghosts) {
    DG_CALL_GOTO(status, done, dist_vertex_map_build(g, &vmap));
    vm = &vmap;
  }
  DG_CALL_GOTO(status, done, DG_CALLOC(mark, g->n_elems > 0 ? g->n_elems : 1));
  DG_CALL_GOTO(status, done, DG_CALLOC(local_of, g->n_elems > 0 ? g->n_elems : 1));
  DG_CALL_GOTO(status, done, DG_CALLOC(node_local, g->n_nodes > 0 ? g->n_nodes : 1));

  /* owned, ghosts, and the (rank, element) pairs of the halo */
  for (int64_t e = 0; e < g->n_elems; ++e)
    if (part[e] == rank) mark[e] = 1;
  for (int64_t e = 0; e < g->n_elems; ++e) {
    if (part[e] != rank) continue;
    const int64_t n_adj = dist_adjacent(g, gt, vm, e, &adj, &adj_cap);
    if (n_adj < 0) {
      status = dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                            "mesh_distribute: out of memory for the adjacency of element %lld",
                            (long long)g->elem_tag[e]);
      goto done;
    }
    for (int64_t j = 0; j < n_adj; ++j) {
      const int64_t n = adj[j];
      if (part[n] == rank) continue;
      if (n_send == cap) {
        const int64_t c2 = cap ? 2 * cap : 1024;
        dist_pair *s2 = realloc(send, (size_t)c2 * sizeof *s2);
        if (s2) send = s2;
        dist_pair *r2 = s2 ? realloc(recv, (size_t)c2 * sizeof *r2) : NULL;
        if (r2) recv = r2;
        if (!s2 || !r2) {
          status = dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                "mesh_distribute: out of memory for the halo lists");
          goto done;
        }
        cap = c2;
      }
      send[n_send++] = (dist_pair){part[n], e};
      recv[n_recv++] = (dist_pair){part[n], n};
      mark[n] = 2;
    }
  }
  n_send = dist_pairs_unique(send, n_send);
  n_recv = dist_pairs_unique(recv, n_recv);

  /* local element order: per shape, owned then ghosts, each in global order */
  int64_t n_local = 0, n_elem_nodes = 0;
  for (int64_t e = 0; e < g->n_elems; ++e) local_of[e] = -1;
  int64_t shape_count[DG_NUM_SHAPES] = {0};
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    for (int kind = 1; kind <= 2; ++kind)
      for (int64_t e = g->shape_offset[s]; e < g->shape_offset[s + 1]; ++e)
        if (mark[e] == kind) {
          local_of[e] = n_local++;
          n_elem_nodes += mesh_elem_n_nodes(g, e);
          ++shape_count[s];
          if (kind == 1) ++out->n_owned[s];
        }
    out->n_owned_total += out->n_owned[s];
  }
  /* nodes of local elements, in global order */
  for (int64_t i = 0; i < g->n_nodes; ++i) node_local[i] = -1;
  for (int64_t e = 0; e < g->n_elems; ++e)
    if (mark[e])
      for (int64_t k = g->elem_node_start[e]; k < g->elem_node_start[e + 1]; ++k)
        node_local[g->elem_nodes[k]] = 0;
  int64_t n_nodes = 0;
  for (int64_t i = 0; i < g->n_nodes; ++i)
    if (node_local[i] == 0) node_local[i] = n_nodes++;
  int64_t n_bfaces = 0, n_periodic = 0;
  for (int64_t f = gt->n_interior; f < gt->n_faces; ++f)
    if (part[gt->face_elem[2 * f]] == rank) ++n_bfaces;
  for (int64_t l = 0; l < g->n_periodic; ++l)
    if (node_local[g->periodic_slave[l]] >= 0 && node_local[g->periodic_master[l]] >= 0)
      ++n_periodic;

  dg_mesh *m = &out->mesh;
  DG_CALL_GOTO(status, done,
               mesh_alloc(m, n_nodes, n_local, n_elem_nodes, g->n_groups, n_bfaces, n_periodic));
  m->dim = g->dim;
  m->geom_order = g->geom_order;
  snprintf(m->source, sizeof m->source, "%s", g->source);
  for (int i = 0; i < g->n_groups; ++i) m->groups[i] = g->groups[i];
  for (int64_t i = 0; i < g->n_nodes; ++i)
    if (node_local[i] >= 0)
      for (int d = 0; d < 3; ++d) m->x[3 * node_local[i] + d] = g->x[3 * i + d];
  DG_CALL_GOTO(status, done, DG_CALLOC(out->global_elem, n_local > 0 ? n_local : 1));
  m->shape_offset[0] = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    m->shape_offset[s + 1] = m->shape_offset[s] + shape_count[s];
  for (int64_t e = 0; e < g->n_elems; ++e)
    if (local_of[e] >= 0) out->global_elem[local_of[e]] = e;
  m->elem_node_start[0] = 0;
  for (int64_t l = 0; l < n_local; ++l) {
    const int64_t e = out->global_elem[l];
    m->elem_shape[l] = g->elem_shape[e];
    m->elem_tag[l] = g->elem_tag[e];
    const int64_t k0 = g->elem_node_start[e], nn = g->elem_node_start[e + 1] - k0;
    m->elem_node_start[l + 1] = m->elem_node_start[l] + nn;
    for (int64_t k = 0; k < nn; ++k)
      m->elem_nodes[m->elem_node_start[l] + k] = node_local[g->elem_nodes[k0 + k]];
  }
  int64_t b = 0;
  for (int64_t f = gt->n_interior; f < gt->n_faces; ++f) {
    if (part[gt->face_elem[2 * f]] != rank) continue;
    const int64_t gb = gt->face_bface[f];
    m->bface_shape[b] = g->bface_shape[gb];
    m->bface_group[b] = g->bface_group[gb];
    m->bface_tag[b] = g->bface_tag[gb];
    for (int i = 0; i < DG_MAX_FACE_VERTS; ++i) {
      const int64_t v = g->bface_verts[gb * DG_MAX_FACE_VERTS + i];
      m->bface_verts[b * DG_MAX_FACE_VERTS + i] = v >= 0 ? node_local[v] : -1;
    }
    ++b;
  }
  int64_t pl = 0;
  for (int64_t l = 0; l < g->n_periodic; ++l) {
    const int64_t s = node_local[g->periodic_slave[l]], ma = node_local[g->periodic_master[l]];
    if (s >= 0 && ma >= 0) {
      m->periodic_slave[pl] = s;
      m->periodic_master[pl] = ma;
      ++pl;
    }
  }
  DG_CALL_GOTO(status, done, dist_build_topology(gt, part, rank, local_of, out));
  DG_CALL_GOTO(status, done, dist_build_halo(out, send, n_send, recv, n_recv, local_of));

done:
  dist_vertex_map_free(&vmap);
  free(mark);
  free(local_of);
  free(node_local);
  free(send);
  free(recv);
  free(adj);
  if (status != DG_SUCCESS) mesh_part_free(out);
  return status;
}

dg_status mesh_part_exchange(const dg_mesh_part *p, const dg_comm *comm, double *values,
                             int width) {
  DG_CHECK(p && comm && (values || p->mesh.n_elems == 0) && width >= 1, DG_ERR_ARG,
           "mesh_part_exchange: bad arguments");
  dg_halo h = p->halo;
  h.comm = comm;
  return halo_exchange(&h, values, width, 7);
}

dg_status mesh_bcast(const dg_comm *comm, int root, dg_mesh *mesh) {
  DG_CHECK(comm && mesh, DG_ERR_ARG, "mesh_bcast: NULL argument");
  if (dg_comm_size(comm) == 1) return DG_SUCCESS;
  const int me = dg_comm_rank(comm);
  int64_t head[8 + DG_NUM_SHAPES + 1];
  if (me == root) {
    head[0] = mesh->dim;
    head[1] = mesh->geom_order;
    head[2] = mesh->n_nodes;
    head[3] = mesh->n_elems;
    head[4] = mesh->n_elems > 0 ? mesh->elem_node_start[mesh->n_elems] : 0;
    head[5] = mesh->n_groups;
    head[6] = mesh->n_bfaces;
    head[7] = mesh->n_periodic;
    for (int s = 0; s <= DG_NUM_SHAPES; ++s) head[8 + s] = mesh->shape_offset[s];
  }
  DG_CALL(dg_comm_bcast(comm, head, sizeof head, root));
  if (me != root) {
    mesh_free(mesh);
    DG_CALL(mesh_alloc(mesh, head[2], head[3], head[4], (int)head[5], head[6], head[7]));
    mesh->dim = (int)head[0];
    mesh->geom_order = (int)head[1];
    for (int s = 0; s <= DG_NUM_SHAPES; ++s) mesh->shape_offset[s] = head[8 + s];
  }
  const size_t i64 = sizeof(int64_t);
  DG_CALL(dg_comm_bcast(comm, mesh->x, 3 * (size_t)mesh->n_nodes * sizeof(double), root));
  DG_CALL(dg_comm_bcast(comm, mesh->elem_shape, (size_t)mesh->n_elems, root));
  DG_CALL(dg_comm_bcast(comm, mesh->elem_node_start, ((size_t)mesh->n_elems + 1) * i64, root));
  DG_CALL(dg_comm_bcast(comm, mesh->elem_nodes, (size_t)head[4] * i64, root));
  DG_CALL(dg_comm_bcast(comm, mesh->elem_tag, (size_t)mesh->n_elems * i64, root));
  DG_CALL(dg_comm_bcast(comm, mesh->groups, (size_t)mesh->n_groups * sizeof *mesh->groups, root));
  DG_CALL(dg_comm_bcast(comm, mesh->bface_shape, (size_t)mesh->n_bfaces, root));
  DG_CALL(dg_comm_bcast(comm, mesh->bface_verts, (size_t)mesh->n_bfaces * DG_MAX_FACE_VERTS * i64,
                        root));
  DG_CALL(dg_comm_bcast(comm, mesh->bface_group, (size_t)mesh->n_bfaces * sizeof(int32_t), root));
  DG_CALL(dg_comm_bcast(comm, mesh->bface_tag, (size_t)mesh->n_bfaces * i64, root));
  DG_CALL(dg_comm_bcast(comm, mesh->periodic_slave, (size_t)mesh->n_periodic * i64, root));
  DG_CALL(dg_comm_bcast(comm, mesh->periodic_master, (size_t)mesh->n_periodic * i64, root));
  DG_CALL(dg_comm_bcast(comm, mesh->source, sizeof mesh->source, root));
  return DG_SUCCESS;
}
