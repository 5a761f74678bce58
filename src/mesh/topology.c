#include "mesh/topology.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How faces are found
 * -------------------
 * Every node gets a canonical id: the smallest node index of its class under
 * the periodic links (union-find), so a periodic slave and its master (and
 * chains of links, e.g. corners linked through edges) share one id. An
 * element face's key is the sorted list of the canonical ids of its
 * vertices. Faces are bucketed by the smallest id of their key (a counting
 * sort, O(n) time, 8 bytes per element face plus 8 per node); inside a
 * bucket, which holds only the faces around one vertex, keys are sorted and
 * runs of equal keys are one face: a run of 2 is an interior face (periodic
 * when the two sides' vertex nodes differ), a run of 1 a boundary face, which
 * must then be a bface of the mesh (matched by its actual node ids through a
 * sorted table of bfaces). Faces are then numbered in one pass over the
 * elements in order: an interior face when its side-0 element (the lower
 * element index; the lower local face when an element meets itself across
 * a periodic pair) is visited, so faces of nearby elements are nearby;
 * boundary faces by group, inside a group in element order.
 *
 * Orientation codes
 * -----------------
 * Let a_k (k = 0..n-1) be side 0's face vertices in shape_face_vertex order
 * and b_j side 1's. For each k, perm[k] is the j with canonical(b_j) ==
 * canonical(a_k) (canonical ids, so a periodic face is oriented through the
 * links just like an ordinary one). The face's orientation code is the o in
 * 0..shape_n_orient(face shape)-1 with shape_orient_perm(fs, o, k) == perm[k]
 * for every k, i.e. side 0's vertex k is side 1's vertex
 * shape_orient_perm(fs, o, k). For a line face between two positively
 * oriented elements this is always 1 (the shared edge is traversed in
 * opposite directions); for a triangle face of two tets always a reflection
 * (codes 1, 2 or 5). On a periodic face the shift is
 *   x(b_perm[k]) - x(a_k),
 * the same for every k to 1e-10 times the mesh's bounding-box diagonal. */

#define TOPO_SLOT(e, f) ((e) * (int64_t)DG_MAX_FACES + (f))

typedef struct {
  int64_t key[DG_MAX_FACE_VERTS]; /* sorted node ids (canonical or actual) */
  int nv;
  int64_t id; /* element face slot or bface index */
} topo_key;

/* Temporaries of one topology_build. */
typedef struct {
  const dg_mesh *mesh;
  int64_t *canon;         /* [n_nodes] canonical id of each node */
  uint8_t *periodic_node; /* [n_nodes] 1 when the node is in a periodic link */
  int64_t *bucket_start;  /* [n_nodes + 1] element-face slots with smallest canonical id v */
  int64_t *bucket_slots;  /* [n element faces] */
  int64_t *match;         /* [n_elems * DG_MAX_FACES] partner slot, -1 boundary, -2-b bface b */
  topo_key *bface_keys;   /* [n_bfaces] sorted by actual node ids */
  uint8_t *bface_used;    /* [n_bfaces] */
  topo_key *scratch;      /* [largest bucket] */
  double tolerance;       /* periodic shift tolerance: 1e-10 x bounding-box diagonal */
} topo_build_ctx;

static int topo_key_compare(const topo_key *a, const topo_key *b) {
  if (a->nv != b->nv) return a->nv < b->nv ? -1 : 1;
  for (int k = 0; k < a->nv; ++k)
    if (a->key[k] != b->key[k]) return a->key[k] < b->key[k] ? -1 : 1;
  return 0;
}

static int topo_key_compare_qsort(const void *pa, const void *pb) {
  const topo_key *a = pa, *b = pb;
  const int c = topo_key_compare(a, b);
  if (c) return c;
  return a->id < b->id ? -1 : a->id > b->id;
}

static void topo_sort_keys(topo_key *keys, int64_t n) {
  if (n > 16) {
    qsort(keys, (size_t)n, sizeof *keys, topo_key_compare_qsort);
    return;
  }
  for (int64_t i = 1; i < n; ++i) {
    topo_key k = keys[i];
    int64_t j = i;
    while (j > 0 && topo_key_compare_qsort(&keys[j - 1], &k) > 0) {
      keys[j] = keys[j - 1];
      --j;
    }
    keys[j] = k;
  }
}

static void topo_sort_ids(int64_t *v, int n) {
  for (int i = 1; i < n; ++i) {
    const int64_t x = v[i];
    int j = i;
    while (j > 0 && v[j - 1] > x) {
      v[j] = v[j - 1];
      --j;
    }
    v[j] = x;
  }
}

/* Vertex node indices of local face f of element e; returns their number. */
static int topo_face_nodes(const dg_mesh *mesh, int64_t e, int f,
                           int64_t nodes[DG_MAX_FACE_VERTS]) {
  const dg_shape s = (dg_shape)mesh->elem_shape[e];
  const int64_t *en = mesh->elem_nodes + mesh->elem_node_start[e];
  const int nv = shape_n_verts(shape_face_shape(s, f));
  for (int k = 0; k < DG_MAX_FACE_VERTS; ++k)
    nodes[k] = k < nv ? en[shape_face_vertex(s, f, k)] : -1;
  return nv;
}

/* Canonical key of an element face slot. */
static void topo_slot_key(const topo_build_ctx *c, int64_t slot, topo_key *k) {
  int64_t nodes[DG_MAX_FACE_VERTS];
  k->nv = topo_face_nodes(c->mesh, slot / DG_MAX_FACES, (int)(slot % DG_MAX_FACES), nodes);
  for (int i = 0; i < k->nv; ++i) k->key[i] = c->canon[nodes[i]];
  for (int i = k->nv; i < DG_MAX_FACE_VERTS; ++i) k->key[i] = -1;
  topo_sort_ids(k->key, k->nv);
  k->id = slot;
}

/* "(x, y), (x, y)" (2D) or "(x, y, z), ..." of the given nodes, for messages. */
static void topo_format_points(const dg_mesh *mesh, const int64_t *nodes, int n, char *buf,
                               size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; k < n && used < size; ++k) {
    const double *x = mesh->x + 3 * nodes[k];
    int w =
        mesh->dim == 3
            ? snprintf(buf + used, size - used, "%s(%g, %g, %g)", k ? ", " : "", x[0], x[1], x[2])
            : snprintf(buf + used, size - used, "%s(%g, %g)", k ? ", " : "", x[0], x[1]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

static void topo_format_ids(const int64_t *ids, int n, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; k < n && used < size; ++k) {
    int w = snprintf(buf + used, size - used, "%s%lld", k ? ", " : "", (long long)ids[k]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

static void topo_ctx_free(topo_build_ctx *c) {
  DG_FREE(c->canon);
  DG_FREE(c->periodic_node);
  DG_FREE(c->bucket_start);
  DG_FREE(c->bucket_slots);
  DG_FREE(c->match);
  DG_FREE(c->bface_keys);
  DG_FREE(c->bface_used);
  DG_FREE(c->scratch);
}

static int64_t topo_find_root(int64_t *parent, int64_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* Checks what topology relies on (shapes, node indices) and computes the
 * canonical ids and the periodic tolerance. */
static dg_status topo_prepare(topo_build_ctx *c) {
  const dg_mesh *mesh = c->mesh;
  DG_CHECK(mesh->dim == 2 || mesh->dim == 3, DG_ERR_MESH, "%s: mesh dimension %d is not 2 or 3",
           mesh->source, mesh->dim);
  for (int64_t e = 0; e < mesh->n_elems; ++e) {
    const dg_shape s = (dg_shape)mesh->elem_shape[e];
    DG_CHECK(s >= 0 && s < DG_NUM_SHAPES && shape_dim(s) == mesh->dim, DG_ERR_MESH,
             "%s: element %lld has shape %d, which is not a %dD element shape", mesh->source,
             (long long)mesh->elem_tag[e], (int)s, mesh->dim);
    DG_CHECK(shape_supported(s), DG_ERR_UNSUPPORTED,
             "%s: element %lld is a prism or hexahedron, which this build does not support",
             mesh->source, (long long)mesh->elem_tag[e]);
    DG_CHECK(mesh->elem_node_start[e + 1] - mesh->elem_node_start[e] >= shape_n_verts(s),
             DG_ERR_MESH, "%s: element %lld has fewer nodes than vertices", mesh->source,
             (long long)mesh->elem_tag[e]);
    const int64_t *en = mesh->elem_nodes + mesh->elem_node_start[e];
    for (int v = 0; v < shape_n_verts(s); ++v)
      DG_CHECK(en[v] >= 0 && en[v] < mesh->n_nodes, DG_ERR_MESH,
               "%s: element %lld: vertex %d is node %lld, outside 0..%lld", mesh->source,
               (long long)mesh->elem_tag[e], v, (long long)en[v], (long long)mesh->n_nodes - 1);
  }

  DG_CALL(DG_CALLOC(c->canon, mesh->n_nodes));
  DG_CALL(DG_CALLOC(c->periodic_node, mesh->n_nodes));
  for (int64_t i = 0; i < mesh->n_nodes; ++i) c->canon[i] = i;
  for (int64_t l = 0; l < mesh->n_periodic; ++l) {
    const int64_t s = mesh->periodic_slave[l], m = mesh->periodic_master[l];
    DG_CHECK(s >= 0 && s < mesh->n_nodes && m >= 0 && m < mesh->n_nodes, DG_ERR_MESH,
             "%s: periodic link %lld joins nodes %lld and %lld, outside 0..%lld", mesh->source,
             (long long)l, (long long)s, (long long)m, (long long)mesh->n_nodes - 1);
    c->periodic_node[s] = c->periodic_node[m] = 1;
    const int64_t rs = topo_find_root(c->canon, s), rm = topo_find_root(c->canon, m);
    /* the smaller index becomes the root, so ids do not depend on link order */
    if (rs < rm)
      c->canon[rm] = rs;
    else
      c->canon[rs] = rm;
  }
  for (int64_t i = 0; i < mesh->n_nodes; ++i) c->canon[i] = topo_find_root(c->canon, i);

  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int64_t i = 0; i < mesh->n_nodes; ++i)
    for (int d = 0; d < 3; ++d) {
      lo[d] = fmin(lo[d], mesh->x[3 * i + d]);
      hi[d] = fmax(hi[d], mesh->x[3 * i + d]);
    }
  double diag = 0.0;
  for (int d = 0; d < 3 && mesh->n_nodes > 0; ++d) diag += (hi[d] - lo[d]) * (hi[d] - lo[d]);
  c->tolerance = 1e-10 * sqrt(diag);
  return DG_SUCCESS;
}

/* Buckets element faces by their smallest canonical id and pairs them. */
static dg_status topo_match_faces(topo_build_ctx *c) {
  const dg_mesh *mesh = c->mesh;
  const int64_t n_slots = mesh->n_elems * DG_MAX_FACES;
  DG_CALL(DG_CALLOC(c->bucket_start, mesh->n_nodes + 1));
  DG_CALL(DG_CALLOC(c->match, n_slots));
  int64_t n_faces = 0;
  for (int64_t e = 0; e < mesh->n_elems; ++e) {
    const dg_shape s = (dg_shape)mesh->elem_shape[e];
    for (int f = 0; f < DG_MAX_FACES; ++f) c->match[TOPO_SLOT(e, f)] = -1;
    for (int f = 0; f < shape_n_faces(s); ++f) {
      topo_key k;
      topo_slot_key(c, TOPO_SLOT(e, f), &k);
      for (int i = 0; i + 1 < k.nv; ++i)
        if (k.key[i] == k.key[i + 1]) {
          int64_t nodes[DG_MAX_FACE_VERTS];
          char pts[256];
          const int nv = topo_face_nodes(mesh, e, f, nodes);
          topo_format_points(mesh, nodes, nv, pts, sizeof pts);
          for (int a = 0; a < nv; ++a)
            for (int b = a + 1; b < nv; ++b)
              DG_CHECK(nodes[a] != nodes[b], DG_ERR_MESH,
                       "%s: face %d of element %lld, with vertices %s, uses node %lld twice: the "
                       "element is degenerate (a repeated node)",
                       mesh->source, f, (long long)mesh->elem_tag[e], pts, (long long)nodes[a]);
          DG_ERROR(DG_ERR_MESH,
                   "%s: face %d of element %lld, with vertices %s, has two vertices that are "
                   "periodic images of each other: a periodic direction needs at least three "
                   "elements across",
                   mesh->source, f, (long long)mesh->elem_tag[e], pts);
        }
      c->bucket_start[k.key[0] + 1]++;
      ++n_faces;
    }
  }
  int64_t largest = 0;
  for (int64_t v = 0; v < mesh->n_nodes; ++v) {
    if (c->bucket_start[v + 1] > largest) largest = c->bucket_start[v + 1];
    c->bucket_start[v + 1] += c->bucket_start[v];
  }
  DG_CALL(DG_CALLOC(c->bucket_slots, n_faces));
  DG_CALL(DG_CALLOC(c->scratch, largest));
  {
    /* fill with a moving cursor per bucket (bucket_start shifted by one, restored below) */
    for (int64_t e = 0; e < mesh->n_elems; ++e) {
      const dg_shape s = (dg_shape)mesh->elem_shape[e];
      for (int f = 0; f < shape_n_faces(s); ++f) {
        topo_key k;
        topo_slot_key(c, TOPO_SLOT(e, f), &k);
        c->bucket_slots[c->bucket_start[k.key[0]]++] = k.id;
      }
    }
    for (int64_t v = mesh->n_nodes; v > 0; --v) c->bucket_start[v] = c->bucket_start[v - 1];
    c->bucket_start[0] = 0;
  }

  for (int64_t v = 0; v < mesh->n_nodes; ++v) {
    const int64_t b0 = c->bucket_start[v], n = c->bucket_start[v + 1] - b0;
    if (n == 0) continue;
    for (int64_t i = 0; i < n; ++i) topo_slot_key(c, c->bucket_slots[b0 + i], &c->scratch[i]);
    topo_sort_keys(c->scratch, n);
    for (int64_t i = 0; i < n;) {
      int64_t j = i + 1;
      while (j < n && topo_key_compare(&c->scratch[i], &c->scratch[j]) == 0) ++j;
      if (j - i == 2) {
        c->match[c->scratch[i].id] = c->scratch[i + 1].id;
        c->match[c->scratch[i + 1].id] = c->scratch[i].id;
      } else if (j - i > 2) {
        char tags[160], pts[256];
        int64_t elem_tags[8], nodes[DG_MAX_FACE_VERTS];
        const int n_show = j - i < 8 ? (int)(j - i) : 8;
        for (int t = 0; t < n_show; ++t)
          elem_tags[t] = mesh->elem_tag[c->scratch[i + t].id / DG_MAX_FACES];
        topo_format_ids(elem_tags, n_show, tags, sizeof tags);
        const int64_t slot = c->scratch[i].id;
        const int nv =
            topo_face_nodes(mesh, slot / DG_MAX_FACES, (int)(slot % DG_MAX_FACES), nodes);
        topo_format_points(mesh, nodes, nv, pts, sizeof pts);
        DG_ERROR(DG_ERR_MESH,
                 "%s: the face with vertices %s is shared by more than two elements (%lld "
                 "elements: %s): the mesh has overlapping or duplicated elements",
                 mesh->source, pts, (long long)(j - i), tags);
      }
      i = j;
    }
  }
  return DG_SUCCESS;
}

/* Finds the element-face slot whose canonical key equals k (-1 if none). */
static int64_t topo_find_slot(const topo_build_ctx *c, const topo_key *k) {
  const int64_t b0 = c->bucket_start[k->key[0]], b1 = c->bucket_start[k->key[0] + 1];
  for (int64_t i = b0; i < b1; ++i) {
    topo_key other;
    topo_slot_key(c, c->bucket_slots[i], &other);
    if (topo_key_compare(k, &other) == 0) return other.id;
  }
  return -1;
}

/* 1 when the faces in slots a and b are made of different nodes (a periodic pair). */
static int topo_slots_periodic(const topo_build_ctx *c, int64_t a, int64_t b) {
  int64_t na[DG_MAX_FACE_VERTS], nb[DG_MAX_FACE_VERTS];
  const int n = topo_face_nodes(c->mesh, a / DG_MAX_FACES, (int)(a % DG_MAX_FACES), na);
  topo_face_nodes(c->mesh, b / DG_MAX_FACES, (int)(b % DG_MAX_FACES), nb);
  topo_sort_ids(na, n);
  topo_sort_ids(nb, n);
  return memcmp(na, nb, (size_t)n * sizeof *na) != 0;
}

static const char *topo_group_name(const dg_mesh *mesh, int g) {
  return g >= 0 && g < mesh->n_groups ? mesh->groups[g].name : "?";
}

/* Matches boundary element faces with the mesh's bfaces; reports stray
 * bfaces first (they usually explain the unmatched element faces), then
 * element faces on the boundary in no group. */
static dg_status topo_match_bfaces(topo_build_ctx *c) {
  const dg_mesh *mesh = c->mesh;
  const int face_shape = mesh->dim == 2 ? DG_LINE : DG_TRI;
  DG_CALL(DG_CALLOC(c->bface_keys, mesh->n_bfaces));
  DG_CALL(DG_CALLOC(c->bface_used, mesh->n_bfaces));
  for (int64_t b = 0; b < mesh->n_bfaces; ++b) {
    const int s = mesh->bface_shape[b];
    DG_CHECK(s == face_shape || (mesh->dim == 3 && s == DG_QUAD), DG_ERR_MESH,
             "%s: boundary face %lld has shape %d, which is not a face shape of a %dD mesh",
             mesh->source, (long long)mesh->bface_tag[b], s, mesh->dim);
    DG_CHECK(mesh->bface_group[b] >= 0 && mesh->bface_group[b] < mesh->n_groups, DG_ERR_MESH,
             "%s: boundary face %lld is in group %d, outside 0..%d", mesh->source,
             (long long)mesh->bface_tag[b], (int)mesh->bface_group[b], mesh->n_groups - 1);
    topo_key *k = &c->bface_keys[b];
    k->nv = shape_n_verts((dg_shape)s);
    k->id = b;
    for (int i = 0; i < DG_MAX_FACE_VERTS; ++i) {
      const int64_t node = i < k->nv ? mesh->bface_verts[b * DG_MAX_FACE_VERTS + i] : -1;
      DG_CHECK(i >= k->nv || (node >= 0 && node < mesh->n_nodes), DG_ERR_MESH,
               "%s: boundary face %lld of group %s: vertex %d is node %lld, outside 0..%lld",
               mesh->source, (long long)mesh->bface_tag[b],
               topo_group_name(mesh, mesh->bface_group[b]), i, (long long)node,
               (long long)mesh->n_nodes - 1);
      k->key[i] = node;
    }
    topo_sort_ids(k->key, k->nv);
  }
  qsort(c->bface_keys, (size_t)mesh->n_bfaces, sizeof *c->bface_keys, topo_key_compare_qsort);
  for (int64_t i = 0; i + 1 < mesh->n_bfaces; ++i)
    if (topo_key_compare(&c->bface_keys[i], &c->bface_keys[i + 1]) == 0) {
      const int64_t a = c->bface_keys[i].id, b = c->bface_keys[i + 1].id;
      DG_ERROR(DG_ERR_MESH,
               "%s: boundary faces %lld (group %s) and %lld (group %s) have the same vertices: "
               "put each boundary face in one physical group only",
               mesh->source, (long long)mesh->bface_tag[a],
               topo_group_name(mesh, mesh->bface_group[a]), (long long)mesh->bface_tag[b],
               topo_group_name(mesh, mesh->bface_group[b]));
    }

  int64_t first_unmatched = -1;
  for (int64_t slot = 0; slot < mesh->n_elems * DG_MAX_FACES; ++slot) {
    const int64_t e = slot / DG_MAX_FACES;
    const int f = (int)(slot % DG_MAX_FACES);
    if (f >= shape_n_faces((dg_shape)mesh->elem_shape[e]) || c->match[slot] != -1) continue;
    topo_key k;
    int64_t nodes[DG_MAX_FACE_VERTS];
    k.nv = topo_face_nodes(mesh, e, f, nodes);
    for (int i = 0; i < DG_MAX_FACE_VERTS; ++i) k.key[i] = i < k.nv ? nodes[i] : -1;
    topo_sort_ids(k.key, k.nv);
    k.id = -1;
    int64_t lo = 0, hi = mesh->n_bfaces;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (topo_key_compare(&c->bface_keys[mid], &k) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < mesh->n_bfaces && topo_key_compare(&c->bface_keys[lo], &k) == 0) {
      const int64_t b = c->bface_keys[lo].id;
      c->match[slot] = -2 - b;
      c->bface_used[b] = 1;
    } else if (first_unmatched < 0) {
      first_unmatched = slot;
    }
  }

  for (int64_t b = 0; b < mesh->n_bfaces; ++b) {
    if (c->bface_used[b]) continue;
    topo_key k;
    k.nv = shape_n_verts((dg_shape)mesh->bface_shape[b]);
    k.id = -1;
    for (int i = 0; i < DG_MAX_FACE_VERTS; ++i)
      k.key[i] = i < k.nv ? c->canon[mesh->bface_verts[b * DG_MAX_FACE_VERTS + i]] : -1;
    topo_sort_ids(k.key, k.nv);
    const int64_t slot = topo_find_slot(c, &k);
    char pts[256];
    topo_format_points(mesh, mesh->bface_verts + b * DG_MAX_FACE_VERTS, k.nv, pts, sizeof pts);
    if (slot >= 0 && c->match[slot] >= 0) {
      /* a group on a periodic side (Gmsh files often have one) is harmless:
       * the face is interior and the group gets no face */
      if (topo_slots_periodic(c, slot, c->match[slot])) continue;
      DG_ERROR(DG_ERR_MESH,
               "%s: boundary face %lld of group %s, with vertices %s, lies between elements "
               "%lld and %lld inside the domain: remove it from the physical group",
               mesh->source, (long long)mesh->bface_tag[b],
               topo_group_name(mesh, mesh->bface_group[b]), pts,
               (long long)mesh->elem_tag[slot / DG_MAX_FACES],
               (long long)mesh->elem_tag[c->match[slot] / DG_MAX_FACES]);
    }
    DG_ERROR(DG_ERR_MESH,
             "%s: boundary face %lld of group %s, with vertices %s, is not a face of any element",
             mesh->source, (long long)mesh->bface_tag[b],
             topo_group_name(mesh, mesh->bface_group[b]), pts);
  }

  if (first_unmatched >= 0) {
    const int64_t e = first_unmatched / DG_MAX_FACES;
    int64_t nodes[DG_MAX_FACE_VERTS];
    char pts[256], ids[128];
    const int nv = topo_face_nodes(mesh, e, (int)(first_unmatched % DG_MAX_FACES), nodes);
    topo_format_points(mesh, nodes, nv, pts, sizeof pts);
    topo_format_ids(nodes, nv, ids, sizeof ids);
    int all_periodic = mesh->n_periodic > 0;
    for (int k = 0; k < nv; ++k) all_periodic &= c->periodic_node[nodes[k]];
    if (all_periodic)
      DG_ERROR(DG_ERR_MESH,
               "%s: face with vertices %s (node indices %s) of element %lld lies on a periodic "
               "boundary but has no periodic partner: the meshes of the two periodic sides do "
               "not match",
               mesh->source, pts, ids, (long long)mesh->elem_tag[e]);
    DG_ERROR(DG_ERR_MESH,
             "%s: face with vertices %s (node indices %s) of element %lld lies on the boundary "
             "but is in no physical group: add it to a physical group and map it in the case "
             "file",
             mesh->source, pts, ids, (long long)mesh->elem_tag[e]);
  }
  return DG_SUCCESS;
}

/* Orientation code of the interior face (slot0 = side 0, slot1 = side 1),
 * whether it is periodic, and its shift (see the comment at the top). */
static dg_status topo_orient(const topo_build_ctx *c, int64_t slot0, int64_t slot1, int8_t *orient,
                             double shift[3], int *periodic) {
  const dg_mesh *mesh = c->mesh;
  const int64_t e0 = slot0 / DG_MAX_FACES, e1 = slot1 / DG_MAX_FACES;
  const int f0 = (int)(slot0 % DG_MAX_FACES), f1 = (int)(slot1 % DG_MAX_FACES);
  const dg_shape fs = shape_face_shape((dg_shape)mesh->elem_shape[e0], f0);
  int64_t a[DG_MAX_FACE_VERTS], b[DG_MAX_FACE_VERTS];
  int perm[DG_MAX_FACE_VERTS];
  const int n = topo_face_nodes(mesh, e0, f0, a);
  topo_face_nodes(mesh, e1, f1, b);
  for (int k = 0; k < n; ++k) {
    perm[k] = -1;
    for (int j = 0; j < n; ++j)
      if (c->canon[b[j]] == c->canon[a[k]]) perm[k] = j;
  }
  int code = -1;
  for (int o = 0; o < shape_n_orient(fs) && code < 0; ++o) {
    int same = 1;
    for (int k = 0; k < n; ++k) same &= shape_orient_perm(fs, o, k) == perm[k];
    if (same) code = o;
  }
  DG_CHECK(code >= 0, DG_ERR_INTERNAL,
           "%s: no orientation code relates face %d of element %lld to face %d of element %lld",
           mesh->source, f0, (long long)mesh->elem_tag[e0], f1, (long long)mesh->elem_tag[e1]);
  *orient = (int8_t)code;
  *periodic = 0;
  for (int k = 0; k < n; ++k) *periodic |= a[k] != b[perm[k]];
  shift[0] = shift[1] = shift[2] = 0.0;
  if (!*periodic) return DG_SUCCESS;
  for (int d = 0; d < 3; ++d) shift[d] = mesh->x[3 * b[perm[0]] + d] - mesh->x[3 * a[0] + d];
  for (int k = 1; k < n; ++k) {
    double dev = 0.0;
    for (int d = 0; d < 3; ++d)
      dev = fmax(dev, fabs(mesh->x[3 * b[perm[k]] + d] - mesh->x[3 * a[k] + d] - shift[d]));
    if (dev > c->tolerance) {
      char pa[256], pb[256];
      int64_t bp[DG_MAX_FACE_VERTS];
      for (int j = 0; j < n; ++j) bp[j] = b[perm[j]];
      topo_format_points(mesh, a, n, pa, sizeof pa);
      topo_format_points(mesh, bp, n, pb, sizeof pb);
      DG_ERROR(DG_ERR_MESH,
               "%s: periodic face between elements %lld and %lld: vertices %s map to %s, which "
               "is not a translation (deviation %g > %g): periodic sides must be translates of "
               "each other",
               mesh->source, (long long)mesh->elem_tag[e0], (long long)mesh->elem_tag[e1], pa, pb,
               dev, c->tolerance);
    }
  }
  return DG_SUCCESS;
}

static dg_status topo_allocate_faces(dg_topology *t, int64_t n_faces) {
  DG_CALL(DG_CALLOC(t->face_elem, 2 * n_faces));
  DG_CALL(DG_CALLOC(t->face_local, 2 * n_faces));
  DG_CALL(DG_CALLOC(t->face_orient, n_faces));
  DG_CALL(DG_CALLOC(t->face_group, n_faces));
  DG_CALL(DG_CALLOC(t->face_bface, n_faces));
  DG_CALL(DG_CALLOC(t->face_shift, 3 * n_faces));
  return DG_SUCCESS;
}

/* Numbers the matched faces (see the comment at the top) and fills topo. */
static dg_status topo_number_faces(const topo_build_ctx *c, dg_topology *t) {
  const dg_mesh *mesh = c->mesh;
  const int64_t n_slots = mesh->n_elems * DG_MAX_FACES;
  int64_t n_interior = 0;
  t->n_elems = mesh->n_elems;
  t->n_groups = mesh->n_groups;
  int64_t *next = NULL; /* [n_groups + 1] next face index of interior (0) and group g (g + 1) */
  DG_CALL(DG_CALLOC(next, mesh->n_groups + 1));
  for (int64_t slot = 0; slot < n_slots; ++slot) {
    if (c->match[slot] > slot)
      ++n_interior;
    else if (c->match[slot] <= -2)
      ++next[1 + mesh->bface_group[-2 - c->match[slot]]];
  }
  int64_t n_faces = n_interior;
  for (int g = 0; g < mesh->n_groups; ++g) n_faces += next[1 + g];
  t->n_faces = n_faces;
  t->n_interior = n_interior;
  dg_status status = DG_CALLOC(t->group_face_offset, t->n_groups + 1);
  if (status == DG_SUCCESS) status = topo_allocate_faces(t, n_faces);
  if (status == DG_SUCCESS) status = DG_CALLOC(t->elem_face, n_slots);
  if (status == DG_SUCCESS) status = DG_CALLOC(t->elem_neighbor, n_slots);
  if (status != DG_SUCCESS) {
    DG_FREE(next);
    DG_CALL(status);
  }
  t->group_face_offset[0] = n_interior;
  for (int g = 0; g < mesh->n_groups; ++g)
    t->group_face_offset[g + 1] = t->group_face_offset[g] + next[1 + g];
  next[0] = 0;
  for (int g = 0; g < mesh->n_groups; ++g) next[1 + g] = t->group_face_offset[g];

  for (int64_t slot = 0; slot < n_slots; ++slot) {
    t->elem_face[slot] = -1;
    t->elem_neighbor[slot] = -1;
  }
  for (int64_t slot = 0; slot < n_slots; ++slot) {
    const int64_t m = c->match[slot];
    if (m >= 0 && m < slot) continue; /* numbered from its side 0 */
    if (m == -1) continue;            /* past the element's faces */
    const int64_t e = slot / DG_MAX_FACES;
    const int f = (int)(slot % DG_MAX_FACES);
    int64_t face;
    if (m >= 0) {
      face = next[0]++;
      int periodic = 0;
      status = topo_orient(c, slot, m, &t->face_orient[face], t->face_shift + 3 * face, &periodic);
      if (status != DG_SUCCESS) break;
      t->n_periodic_faces += periodic;
      t->face_elem[2 * face + 1] = m / DG_MAX_FACES;
      t->face_local[2 * face + 1] = (int8_t)(m % DG_MAX_FACES);
      t->face_group[face] = -1;
      t->face_bface[face] = -1;
      t->elem_face[m] = face;
      t->elem_neighbor[m] = e;
      t->elem_neighbor[slot] = m / DG_MAX_FACES;
    } else {
      const int64_t b = -2 - m;
      const int g = mesh->bface_group[b];
      face = next[1 + g]++;
      t->face_elem[2 * face + 1] = -1;
      t->face_local[2 * face + 1] = -1;
      t->face_orient[face] = 0;
      t->face_group[face] = g;
      t->face_bface[face] = b;
    }
    t->face_elem[2 * face] = e;
    t->face_local[2 * face] = (int8_t)f;
    t->elem_face[slot] = face;
  }
  DG_FREE(next);
  if (status != DG_SUCCESS) dg_error_trace(__FILE__, __LINE__, __func__);
  return status;
}

dg_status topology_build(const dg_mesh *mesh, dg_topology *topo) {
  DG_CHECK(mesh && topo, DG_ERR_ARG, "topology_build: mesh and topology must not be NULL");
  memset(topo, 0, sizeof *topo);
  topo_build_ctx c = {.mesh = mesh};
  dg_status status;
  DG_CALL_GOTO(status, fail, topo_prepare(&c));
  DG_CALL_GOTO(status, fail, topo_match_faces(&c));
  DG_CALL_GOTO(status, fail, topo_match_bfaces(&c));
  DG_CALL_GOTO(status, fail, topo_number_faces(&c, topo));
  topo_ctx_free(&c);
  return DG_SUCCESS;
fail:
  topo_ctx_free(&c);
  topology_free(topo);
  return status;
}

/* Index of the kind (0 = interior, 1 + g = group g) that face f belongs to. */
static int topo_face_kind(const dg_topology *t, int64_t f) {
  if (f < t->n_interior) return 0;
  int lo = 0, hi = t->n_groups; /* last g with group_face_offset[g] <= f */
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (t->group_face_offset[mid] <= f)
      lo = mid;
    else
      hi = mid;
  }
  return 1 + lo;
}

dg_status topology_renumber_faces(dg_topology *topo, const int64_t *perm) {
  DG_CHECK(topo && perm, DG_ERR_ARG, "topology_renumber_faces: NULL argument");
  const int64_t n = topo->n_faces;
  dg_topology next = {0};
  int64_t *inverse = NULL;
  dg_status status;
  DG_CALL_GOTO(status, done, DG_CALLOC(inverse, n));
  for (int64_t i = 0; i < n; ++i) inverse[i] = -1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t old = perm[i];
    if (old < 0 || old >= n) {
      status = dg_error_set(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                            "face permutation: entry %lld is %lld, outside 0..%lld", (long long)i,
                            (long long)old, (long long)n - 1);
      goto done;
    }
    if (inverse[old] >= 0) {
      status = dg_error_set(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                            "face permutation: old face %lld appears twice (entries %lld and "
                            "%lld); it must be a permutation",
                            (long long)old, (long long)inverse[old], (long long)i);
      goto done;
    }
    if (topo_face_kind(topo, old) != topo_face_kind(topo, i)) {
      status = dg_error_set(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                            "face permutation: entry %lld moves face %lld to another kind "
                            "(interior / boundary group); faces must stay in their kind's range",
                            (long long)i, (long long)old);
      goto done;
    }
    inverse[old] = i;
  }
  DG_CALL_GOTO(status, done, topo_allocate_faces(&next, n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t old = perm[i];
    for (int s = 0; s < 2; ++s) {
      next.face_elem[2 * i + s] = topo->face_elem[2 * old + s];
      next.face_local[2 * i + s] = topo->face_local[2 * old + s];
    }
    for (int d = 0; d < 3; ++d) next.face_shift[3 * i + d] = topo->face_shift[3 * old + d];
    next.face_orient[i] = topo->face_orient[old];
    next.face_group[i] = topo->face_group[old];
    next.face_bface[i] = topo->face_bface[old];
  }
  for (int64_t slot = 0; slot < topo->n_elems * DG_MAX_FACES; ++slot)
    if (topo->elem_face[slot] >= 0) topo->elem_face[slot] = inverse[topo->elem_face[slot]];
#define TOPO_SWAP(field)                                                                           \
  do {                                                                                             \
    void *tmp_ = (void *)topo->field;                                                              \
    topo->field = next.field;                                                                      \
    next.field = tmp_;                                                                             \
  } while (0)
  TOPO_SWAP(face_elem);
  TOPO_SWAP(face_local);
  TOPO_SWAP(face_orient);
  TOPO_SWAP(face_group);
  TOPO_SWAP(face_bface);
  TOPO_SWAP(face_shift);
#undef TOPO_SWAP
  status = DG_SUCCESS;
done:
  topology_free(&next);
  DG_FREE(inverse);
  return status;
}

void topology_free(dg_topology *topo) {
  if (!topo) return;
  DG_FREE(topo->group_face_offset);
  DG_FREE(topo->face_elem);
  DG_FREE(topo->face_local);
  DG_FREE(topo->face_orient);
  DG_FREE(topo->face_group);
  DG_FREE(topo->face_bface);
  DG_FREE(topo->face_shift);
  DG_FREE(topo->elem_face);
  DG_FREE(topo->elem_neighbor);
  memset(topo, 0, sizeof *topo);
}
