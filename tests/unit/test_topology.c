/* Tests of the structured mesh generator and of topology_build /
 * topology_renumber_faces: face counts against exact formulas, orientation
 * codes checked on node coordinates, periodic pairing, error messages,
 * invariance under element and face renumbering.
 *
 * Usage: test_topology [--large N] [--large3d N]
 *   --large N    also times generation and topology of an N x N triangle
 *                mesh (2 N^2 elements) and prints time and peak memory
 *   --large3d N  the same for an N^3-cell tet mesh (6 N^3 elements) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/dg_math.h"
#include "mesh/mesh.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "test_util.h"

/* ---------- small helpers ---------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng_next(void) { /* xorshift64*, deterministic */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717ull;
}
static int64_t rng_below(int64_t n) { return (int64_t)(rng_next() % (uint64_t)n); }

static void shuffle_range(int64_t *v, int64_t begin, int64_t end) {
  for (int64_t i = end - 1; i > begin; --i) {
    const int64_t j = begin + rng_below(i - begin + 1), t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

static const double *node_x(const dg_mesh *m, int64_t node) { return m->x + 3 * node; }

static int64_t face_vertex_node(const dg_mesh *m, int64_t e, int f, int k) {
  const dg_shape s = (dg_shape)m->elem_shape[e];
  return m->elem_nodes[m->elem_node_start[e] + shape_face_vertex(s, f, k)];
}

/* Nodes of element e whose reference point lies on local face f (vertices,
 * edge and face nodes of that face); returns their number. */
static int face_all_nodes(const dg_mesh *m, int64_t e, int f, int64_t *out) {
  const dg_shape s = (dg_shape)m->elem_shape[e];
  double a[3], b[3], c[3] = {0, 0, 0};
  shape_vertex_ref(s, shape_face_vertex(s, f, 0), a);
  shape_vertex_ref(s, shape_face_vertex(s, f, 1), b);
  if (m->dim == 3) shape_vertex_ref(s, shape_face_vertex(s, f, 2), c);
  int n = 0;
  for (int i = 0; i < mesh_elem_n_nodes(m, e); ++i) {
    double p[3];
    shape_node_ref(s, m->geom_order, i, p);
    double dist;
    if (m->dim == 2) {
      dist = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
    } else {
      const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
      const double nrm[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                             u[0] * v[1] - u[1] * v[0]};
      dist = nrm[0] * (p[0] - a[0]) + nrm[1] * (p[1] - a[1]) + nrm[2] * (p[2] - a[2]);
    }
    if (fabs(dist) < 1e-12) out[n++] = m->elem_nodes[m->elem_node_start[e] + i];
  }
  return n;
}

static double dist3(const double *a, const double *b, const double *shift) {
  double d = 0.0;
  for (int k = 0; k < 3; ++k) d = fmax(d, fabs(b[k] - a[k] - (shift ? shift[k] : 0.0)));
  return d;
}

/* ---------- invariants every topology must satisfy ---------- */

/* Checks the consistency of all topology arrays with each other and with the
 * mesh, and that orientation codes and shifts map side 0's face nodes onto
 * side 1's; with `ordered`, also that faces are numbered in element order
 * inside each kind, as topology_build numbers them. Returns the number of
 * failed checks. */
static int check_invariants(const dg_mesh *m, const dg_topology *t, const char *what, int ordered) {
  const int before = test_failures;
  const double tol = 1e-12;
  TEST_CHECK(t->n_elems == m->n_elems, "%s: n_elems", what);
  TEST_CHECK(t->n_groups == m->n_groups, "%s: n_groups", what);
  TEST_CHECK(t->group_face_offset[0] == t->n_interior, "%s: group offset 0", what);
  TEST_CHECK(t->group_face_offset[t->n_groups] == t->n_faces, "%s: last group offset", what);
  int64_t n_periodic = 0, bad_orient = 0, bad_nodes = 0, bad_links = 0, bad_order = 0;
  int64_t prev_side0 = -1;
  for (int64_t f = 0; f < t->n_faces; ++f) {
    const int64_t e0 = t->face_elem[2 * f], e1 = t->face_elem[2 * f + 1];
    const int l0 = t->face_local[2 * f], l1 = t->face_local[2 * f + 1];
    if (e0 < 0 || e0 >= m->n_elems || l0 < 0 || l0 >= shape_n_faces((dg_shape)m->elem_shape[e0]) ||
        t->elem_face[e0 * DG_MAX_FACES + l0] != f) {
      ++bad_links;
      continue;
    }
    const dg_shape fs = shape_face_shape((dg_shape)m->elem_shape[e0], l0);
    const int nv = shape_n_verts(fs);
    if (f < t->n_interior) {
      if (e1 < 0 || e1 >= m->n_elems || l1 < 0 || t->elem_face[e1 * DG_MAX_FACES + l1] != f ||
          t->elem_neighbor[e0 * DG_MAX_FACES + l0] != e1 ||
          t->elem_neighbor[e1 * DG_MAX_FACES + l1] != e0 || t->face_group[f] != -1 ||
          t->face_bface[f] != -1 || !(e0 < e1 || (e0 == e1 && l0 < l1))) {
        ++bad_links;
        continue;
      }
      if (e0 < prev_side0) ++bad_order; /* interior faces in order of side 0 */
      prev_side0 = e0;
      const double *shift = t->face_shift + 3 * f;
      const int periodic = shift[0] != 0.0 || shift[1] != 0.0 || shift[2] != 0.0;
      n_periodic += periodic;
      /* vertices through the orientation code */
      const int o = t->face_orient[f];
      if (o < 0 || o >= shape_n_orient(fs)) {
        ++bad_orient;
        continue;
      }
      for (int k = 0; k < nv; ++k) {
        const int64_t a = face_vertex_node(m, e0, l0, k);
        const int64_t b = face_vertex_node(m, e1, l1, shape_orient_perm(fs, o, k));
        if (dist3(node_x(m, a), node_x(m, b), shift) > tol) ++bad_orient;
        if (!periodic && a != b) ++bad_orient;
      }
      /* all face nodes (high-order ones too): the same points on both sides */
      int64_t na[DG_MAX_NODES], nb[DG_MAX_NODES];
      const int ca = face_all_nodes(m, e0, l0, na), cb = face_all_nodes(m, e1, l1, nb);
      if (ca != cb || ca != shape_n_nodes(fs, m->geom_order)) ++bad_nodes;
      for (int i = 0; i < ca; ++i) {
        int found = 0;
        for (int j = 0; j < cb && !found; ++j)
          found = dist3(node_x(m, na[i]), node_x(m, nb[j]), shift) <= tol &&
                  (periodic || na[i] == nb[j]);
        if (!found) ++bad_nodes;
      }
    } else {
      const int64_t b = t->face_bface[f];
      const int g = t->face_group[f];
      if (e1 != -1 || l1 != -1 || t->elem_neighbor[e0 * DG_MAX_FACES + l0] != -1 || b < 0 ||
          b >= m->n_bfaces || g != m->bface_group[b] || f < t->group_face_offset[g] ||
          f >= t->group_face_offset[g + 1] || t->face_orient[f] != 0) {
        ++bad_links;
        continue;
      }
      if (f > t->group_face_offset[g] && t->face_elem[2 * (f - 1)] > e0) ++bad_order;
      /* the bface has the element face's vertices */
      for (int k = 0; k < nv; ++k) {
        const int64_t a = face_vertex_node(m, e0, l0, k);
        int found = 0;
        for (int j = 0; j < nv; ++j) found |= m->bface_verts[b * DG_MAX_FACE_VERTS + j] == a;
        if (!found) ++bad_nodes;
      }
    }
  }
  for (int64_t e = 0; e < m->n_elems; ++e)
    for (int f = 0; f < DG_MAX_FACES; ++f) {
      const int64_t face = t->elem_face[e * DG_MAX_FACES + f];
      if (f >= shape_n_faces((dg_shape)m->elem_shape[e])) {
        if (face != -1 || t->elem_neighbor[e * DG_MAX_FACES + f] != -1) ++bad_links;
      } else if (face < 0 || face >= t->n_faces) {
        ++bad_links;
      } else {
        const int side = t->face_elem[2 * face] == e && t->face_local[2 * face] == f ? 0 : 1;
        if (t->face_elem[2 * face + side] != e || t->face_local[2 * face + side] != f) ++bad_links;
      }
    }
  TEST_CHECK(bad_links == 0, "%s: %lld inconsistent face/element links", what,
             (long long)bad_links);
  TEST_CHECK(bad_orient == 0, "%s: %lld face vertices not matched by the orientation code", what,
             (long long)bad_orient);
  TEST_CHECK(bad_nodes == 0, "%s: %lld face nodes not shared by both sides", what,
             (long long)bad_nodes);
  TEST_CHECK(!ordered || bad_order == 0, "%s: %lld faces out of element order", what,
             (long long)bad_order);
  TEST_CHECK(n_periodic == t->n_periodic_faces,
             "%s: %lld faces with a shift, n_periodic_faces %lld", what, (long long)n_periodic,
             (long long)t->n_periodic_faces);
  return test_failures - before;
}

/* ---------- exact counts of the structured meshes ---------- */

typedef struct {
  int64_t faces, interior, periodic, group[6]; /* group: xmin xmax ymin ymax zmin zmax */
} expected_counts;

static expected_counts expected_2d(const dg_mesh_structured_opts *o) {
  expected_counts c = {0};
  const int64_t nx = o->n[0], ny = o->n[1];
  int64_t tri_cells = 0;
  for (int64_t j = 0; j < ny; ++j)
    for (int64_t i = 0; i < nx; ++i)
      tri_cells +=
          o->kind == MESH_STRUCTURED_TRI || (o->kind == MESH_STRUCTURED_MIXED && (i + j) % 2);
  c.faces = (nx + !o->periodic[0]) * ny + nx * (ny + !o->periodic[1]) + tri_cells;
  c.periodic = (o->periodic[0] ? ny : 0) + (o->periodic[1] ? nx : 0);
  c.group[0] = c.group[1] = o->periodic[0] ? 0 : ny;
  c.group[2] = c.group[3] = o->periodic[1] ? 0 : nx;
  c.interior = c.faces - 2 * (c.group[0] + c.group[2]);
  return c;
}

static expected_counts expected_3d(const dg_mesh_structured_opts *o) {
  expected_counts c = {0};
  const int64_t *n = o->n;
  const int *p = o->periodic;
  c.faces =
      6 * n[0] * n[1] * n[2] + 2 * ((n[0] + !p[0]) * n[1] * n[2] + n[0] * (n[1] + !p[1]) * n[2] +
                                    n[0] * n[1] * (n[2] + !p[2]));
  c.periodic = 2 * (p[0] * n[1] * n[2] + p[1] * n[0] * n[2] + p[2] * n[0] * n[1]);
  c.group[0] = c.group[1] = p[0] ? 0 : 2 * n[1] * n[2];
  c.group[2] = c.group[3] = p[1] ? 0 : 2 * n[0] * n[2];
  c.group[4] = c.group[5] = p[2] ? 0 : 2 * n[0] * n[1];
  c.interior = c.faces - 2 * (c.group[0] + c.group[2] + c.group[4]);
  return c;
}

static void check_counts(const dg_mesh *m, const dg_topology *t, const expected_counts *c,
                         const char *what) {
  static const char *names[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
  TEST_CHECK(t->n_faces == c->faces, "%s: %lld faces, expected %lld", what, (long long)t->n_faces,
             (long long)c->faces);
  TEST_CHECK(t->n_interior == c->interior, "%s: %lld interior faces, expected %lld", what,
             (long long)t->n_interior, (long long)c->interior);
  TEST_CHECK(t->n_periodic_faces == c->periodic, "%s: %lld periodic faces, expected %lld", what,
             (long long)t->n_periodic_faces, (long long)c->periodic);
  for (int k = 0; k < 2 * m->dim; ++k) {
    const int g = mesh_find_group(m, names[k]);
    const int64_t got = g < 0 ? 0 : t->group_face_offset[g + 1] - t->group_face_offset[g];
    TEST_CHECK(got == c->group[k] && (g >= 0) == (c->group[k] > 0),
               "%s: group %s has %lld faces (index %d), expected %lld", what, names[k],
               (long long)got, g, (long long)c->group[k]);
  }
}

/* The deformation documented in mesh_structured.h, evaluated independently. */
static void deformed_point(const dg_mesh_structured_opts *o, int dim, const double s[3],
                           double x[3]) {
  const double two_pi = 2.0 * DG_PI;
  for (int d = 0; d < 3; ++d) x[d] = d < dim ? o->lo[d] + s[d] * (o->hi[d] - o->lo[d]) : 0.0;
  for (int d = 0; d < dim; ++d) {
    double w = o->deform * (o->hi[d] - o->lo[d]) * sin(two_pi * s[d]);
    for (int e = 0; e < dim; ++e)
      if (e != d) w *= cos(two_pi * s[e]);
    x[d] += w;
  }
}

/* Generator properties: sizes, positive orientation, every node at the
 * deformed image of its Gmsh reference point, bfaces on their sides,
 * periodic links translations between max and min sides. */
static void check_generator(const dg_mesh_structured_opts *o, int dim, const dg_mesh *m,
                            const char *what) {
  const int q = o->order;
  int64_t n_nodes = 1, n_link_free = 1;
  for (int d = 0; d < dim; ++d) {
    n_nodes *= q * o->n[d] + 1;
    n_link_free *= q * o->n[d] + !o->periodic[d];
  }
  TEST_CHECK(m->dim == dim && m->geom_order == q, "%s: dim/order", what);
  TEST_CHECK(m->n_nodes == n_nodes, "%s: %lld nodes, expected %lld", what, (long long)m->n_nodes,
             (long long)n_nodes);
  TEST_CHECK(m->n_periodic == n_nodes - n_link_free, "%s: %lld periodic links, expected %lld", what,
             (long long)m->n_periodic, (long long)(n_nodes - n_link_free));
  TEST_OK(mesh_check(m));
  /* nodes: cell-local affine map of the vertices' undeformed positions (the
   * cell is recovered from the element's vertex centroid) */
  int64_t bad_nodes = 0, bad_tags = 0;
  double max_bend = 0.0;
  for (int64_t e = 0; e < m->n_elems; ++e) {
    bad_tags += m->elem_tag[e] != e + 1;
    const dg_shape s = (dg_shape)m->elem_shape[e];
    const int64_t *nodes = m->elem_nodes + m->elem_node_start[e];
    /* undeformed reference-to-lattice fractions of the vertices: recover them
     * from the lattice node numbering */
    double sv[DG_MAX_VERTS][3];
    for (int v = 0; v < shape_n_verts(s); ++v) {
      int64_t id = nodes[v];
      for (int d = 0; d < 3; ++d) {
        const int64_t width = d < dim ? q * o->n[d] + 1 : 1;
        sv[v][d] = d < dim ? (double)(id % width) / (double)(q * o->n[d]) : 0.0;
        id /= width;
      }
    }
    for (int i = 0; i < mesh_elem_n_nodes(m, e); ++i) {
      double xi[3], sp[3] = {0, 0, 0}, x[3];
      shape_node_ref(s, q, i, xi);
      for (int d = 0; d < dim; ++d) {
        if (s == DG_QUAD)
          sp[d] = sv[0][d] + 0.5 * (xi[0] + 1) * (sv[1][d] - sv[0][d]) +
                  0.5 * (xi[1] + 1) * (sv[3][d] - sv[0][d]);
        else {
          sp[d] = sv[0][d];
          for (int k = 0; k < dim; ++k) sp[d] += xi[k] * (sv[k + 1][d] - sv[0][d]);
        }
      }
      deformed_point(o, dim, sp, x);
      if (dist3(node_x(m, nodes[i]), x, NULL) > 1e-12) ++bad_nodes;
      /* distance of the node from the straight-sided element (curvature) */
      double straight[3] = {0, 0, 0};
      for (int d = 0; d < dim; ++d) {
        const double *x0 = node_x(m, nodes[0]);
        straight[d] = x0[d];
        if (s == DG_QUAD) {
          /* bilinear through the four deformed vertices */
          const double u = 0.5 * (xi[0] + 1), v = 0.5 * (xi[1] + 1);
          straight[d] = (1 - u) * (1 - v) * x0[d] + u * (1 - v) * node_x(m, nodes[1])[d] +
                        u * v * node_x(m, nodes[2])[d] + (1 - u) * v * node_x(m, nodes[3])[d];
        } else {
          for (int k = 0; k < dim; ++k) straight[d] += xi[k] * (node_x(m, nodes[k + 1])[d] - x0[d]);
        }
      }
      max_bend = fmax(max_bend, dist3(node_x(m, nodes[i]), straight, NULL));
    }
  }
  TEST_CHECK(bad_nodes == 0, "%s: %lld nodes off their deformed reference position", what,
             (long long)bad_nodes);
  TEST_CHECK(bad_tags == 0, "%s: element tags are not 1-based indices", what);
  if (q > 1 && o->deform != 0.0)
    TEST_CHECK(max_bend > 1e-3 * (o->hi[0] - o->lo[0]) / (double)o->n[0],
               "%s: order-%d elements are not curved (max bend %g)", what, q, max_bend);
  else
    TEST_CHECK(max_bend < 1e-12, "%s: straight elements bend by %g", what, max_bend);

  /* bfaces lie on their group's side */
  int64_t bad_bfaces = 0;
  for (int64_t b = 0; b < m->n_bfaces; ++b) {
    const char *name = m->groups[m->bface_group[b]].name;
    const int d = name[0] - 'x';
    const double side = strcmp(name + 1, "max") == 0 ? o->hi[d] : o->lo[d];
    for (int k = 0; k < shape_n_verts((dg_shape)m->bface_shape[b]); ++k)
      if (fabs(node_x(m, m->bface_verts[b * DG_MAX_FACE_VERTS + k])[d] - side) > 1e-12)
        ++bad_bfaces;
  }
  TEST_CHECK(bad_bfaces == 0, "%s: %lld bface vertices off their side", what,
             (long long)bad_bfaces);

  /* periodic links: slave - master = sum of the box lengths of the wrapped axes */
  int64_t bad_links = 0;
  for (int64_t l = 0; l < m->n_periodic; ++l) {
    const double *xs = node_x(m, m->periodic_slave[l]), *xm = node_x(m, m->periodic_master[l]);
    int wrapped = 0;
    for (int d = 0; d < dim; ++d) {
      const double diff = xs[d] - xm[d], len = o->hi[d] - o->lo[d];
      if (o->periodic[d] && fabs(diff - len) < 1e-12)
        wrapped = 1;
      else if (fabs(diff) > 1e-12)
        ++bad_links;
    }
    bad_links += !wrapped;
  }
  TEST_CHECK(bad_links == 0, "%s: %lld periodic links are not box translations", what,
             (long long)bad_links);
}

static dg_mesh_structured_opts opts_2d(dg_mesh_structured_kind kind, int order, int px, int py,
                                       double deform) {
  dg_mesh_structured_opts o = mesh_structured_defaults(2);
  o.kind = kind;
  o.order = order;
  o.n[0] = 5;
  o.n[1] = 4;
  o.lo[0] = -1.0;
  o.hi[0] = 2.0;
  o.lo[1] = 0.5;
  o.hi[1] = 2.5;
  o.periodic[0] = px;
  o.periodic[1] = py;
  o.deform = deform;
  return o;
}

static void test_structured_2d(void) {
  const dg_mesh_structured_kind kinds[3] = {MESH_STRUCTURED_TRI, MESH_STRUCTURED_QUAD,
                                            MESH_STRUCTURED_MIXED};
  const int periodic[3][2] = {{0, 0}, {1, 0}, {1, 1}};
  for (int k = 0; k < 3; ++k)
    for (int q = 1; q <= 3; ++q)
      for (int p = 0; p < 3; ++p)
        for (int def = 0; def < 2; ++def) {
          dg_mesh_structured_opts o =
              opts_2d(kinds[k], q, periodic[p][0], periodic[p][1], def ? 0.04 : 0.0);
          o.alternate_diagonals = def; /* both diagonal patterns get covered */
          char what[128];
          snprintf(what, sizeof what, "2D kind %d order %d periodic %d%d deform %g alt %d", k, q,
                   o.periodic[0], o.periodic[1], o.deform, o.alternate_diagonals);
          dg_mesh m = {0};
          dg_topology t = {0};
          TEST_OK(mesh_structured_2d(&o, &m));
          if (m.n_elems == 0) continue;
          check_generator(&o, 2, &m, what);
          TEST_OK(topology_build(&m, &t));
          if (t.n_faces > 0) {
            const expected_counts c = expected_2d(&o);
            check_counts(&m, &t, &c, what);
            check_invariants(&m, &t, what, 1);
            /* every 2D interior face is traversed in opposite directions */
            int64_t not_reversed = 0;
            for (int64_t f = 0; f < t.n_interior; ++f) not_reversed += t.face_orient[f] != 1;
            TEST_CHECK(not_reversed == 0, "%s: %lld line faces with code != 1", what,
                       (long long)not_reversed);
            /* periodic shifts are the box lengths */
            for (int64_t f = 0; f < t.n_interior; ++f) {
              const double *s = t.face_shift + 3 * f;
              if (s[0] == 0.0 && s[1] == 0.0) continue;
              const int ok = (fabs(fabs(s[0]) - 3.0) < 1e-12 && fabs(s[1]) < 1e-12) ||
                             (fabs(fabs(s[1]) - 2.0) < 1e-12 && fabs(s[0]) < 1e-12);
              if (!ok) {
                TEST_CHECK(ok, "%s: face %lld shift (%g, %g)", what, (long long)f, s[0], s[1]);
                break;
              }
            }
          }
          topology_free(&t);
          mesh_free(&m);
        }
}

static void test_structured_3d(void) {
  const int periodic[3][3] = {{0, 0, 0}, {0, 0, 1}, {1, 1, 1}};
  for (int q = 1; q <= 3; ++q)
    for (int p = 0; p < 3; ++p) {
      dg_mesh_structured_opts o = mesh_structured_defaults(3);
      o.order = q;
      o.n[0] = 3;
      o.n[1] = 4;
      o.n[2] = 3;
      o.hi[2] = 0.5;
      o.deform = p == 1 ? 0.03 : 0.0;
      for (int d = 0; d < 3; ++d) o.periodic[d] = periodic[p][d];
      char what[128];
      snprintf(what, sizeof what, "3D tet order %d periodic %d%d%d deform %g", q, o.periodic[0],
               o.periodic[1], o.periodic[2], o.deform);
      dg_mesh m = {0};
      dg_topology t = {0};
      TEST_OK(mesh_structured_3d(&o, &m));
      if (m.n_elems == 0) continue;
      TEST_CHECK(m.n_elems == 6 * 3 * 4 * 3, "%s: %lld elements", what, (long long)m.n_elems);
      check_generator(&o, 3, &m, what);
      TEST_OK(topology_build(&m, &t));
      if (t.n_faces > 0) {
        const expected_counts c = expected_3d(&o);
        check_counts(&m, &t, &c, what);
        check_invariants(&m, &t, what, 1);
        /* two positively oriented tets see a shared face with opposite
         * orientation: an odd permutation (codes 1, 2, 5) */
        int64_t even = 0;
        for (int64_t f = 0; f < t.n_interior; ++f) {
          const int o2 = t.face_orient[f];
          even += !(o2 == 1 || o2 == 2 || o2 == 5);
        }
        TEST_CHECK(even == 0, "%s: %lld tet faces with an even orientation code", what,
                   (long long)even);
      }
      topology_free(&t);
      mesh_free(&m);
    }
}

static void test_generator_errors(void) {
  dg_mesh m = {0};
  dg_mesh_structured_opts o = opts_2d(MESH_STRUCTURED_QUAD, 4, 0, 0, 0.0);
  TEST_FAILS(mesh_structured_2d(&o, &m), DG_ERR_ARG, "geometric order 4");
  o = opts_2d(MESH_STRUCTURED_QUAD, 1, 0, 0, 0.0);
  o.n[1] = 2;
  o.periodic[1] = 1;
  TEST_FAILS(mesh_structured_2d(&o, &m), DG_ERR_ARG, "periodic axis y has 2 cells");
  o = opts_2d(MESH_STRUCTURED_TET, 1, 0, 0, 0.0);
  TEST_FAILS(mesh_structured_2d(&o, &m), DG_ERR_ARG, "kind must be TRI, QUAD or MIXED");
  o = opts_2d(MESH_STRUCTURED_TRI, 1, 0, 0, 0.2);
  o.n[0] = o.n[1] = 16;
  TEST_FAILS(mesh_structured_2d(&o, &m), DG_ERR_MESH, "inverts element");
  TEST_CHECK(m.n_elems == 0 && m.x == NULL, "a failed generation leaves a freed mesh");
}

/* ---------- error cases ---------- */

/* Copy of src with room for extra elements (appended to the last shape's
 * block), nodes and bfaces; the extra entries are zeroed for the caller. */
static dg_status copy_mesh_with_extra(const dg_mesh *src, int64_t extra_nodes, int64_t extra_elems,
                                      int64_t extra_elem_nodes, int64_t extra_bfaces,
                                      dg_mesh *dst) {
  DG_CALL(mesh_alloc(dst, src->n_nodes + extra_nodes, src->n_elems + extra_elems,
                     src->elem_node_start[src->n_elems] + extra_elem_nodes, src->n_groups,
                     src->n_bfaces + extra_bfaces, src->n_periodic));
  dst->dim = src->dim;
  dst->geom_order = src->geom_order;
  memcpy(dst->source, src->source, sizeof dst->source);
  memcpy(dst->x, src->x, 3 * (size_t)src->n_nodes * sizeof *dst->x);
  memcpy(dst->elem_shape, src->elem_shape, (size_t)src->n_elems);
  memcpy(dst->elem_node_start, src->elem_node_start, (size_t)(src->n_elems + 1) * sizeof(int64_t));
  memcpy(dst->elem_nodes, src->elem_nodes,
         (size_t)src->elem_node_start[src->n_elems] * sizeof(int64_t));
  memcpy(dst->elem_tag, src->elem_tag, (size_t)src->n_elems * sizeof(int64_t));
  memcpy(dst->shape_offset, src->shape_offset, sizeof dst->shape_offset);
  for (int s = DG_NUM_SHAPES; s > 0 && dst->shape_offset[s] == src->n_elems; --s)
    dst->shape_offset[s] += extra_elems;
  memcpy(dst->groups, src->groups, (size_t)src->n_groups * sizeof *dst->groups);
  memcpy(dst->bface_shape, src->bface_shape, (size_t)src->n_bfaces);
  memcpy(dst->bface_verts, src->bface_verts,
         (size_t)src->n_bfaces * DG_MAX_FACE_VERTS * sizeof(int64_t));
  memcpy(dst->bface_group, src->bface_group, (size_t)src->n_bfaces * sizeof(int32_t));
  memcpy(dst->bface_tag, src->bface_tag, (size_t)src->n_bfaces * sizeof(int64_t));
  memcpy(dst->periodic_slave, src->periodic_slave, (size_t)src->n_periodic * sizeof(int64_t));
  memcpy(dst->periodic_master, src->periodic_master, (size_t)src->n_periodic * sizeof(int64_t));
  return DG_SUCCESS;
}

static void test_errors(void) {
  char needle[160];
  dg_mesh m = {0};
  dg_topology t = {0};
  dg_mesh_structured_opts o = opts_2d(MESH_STRUCTURED_TRI, 2, 0, 0, 0.0);
  TEST_OK(mesh_structured_2d(&o, &m));
  TEST_OK(topology_build(&m, &t));
  if (!t.n_faces) return;

  /* 1. a boundary face missing from its group */
  {
    const int g = mesh_find_group(&m, "ymax");
    const int64_t f = t.group_face_offset[g] + 2, b = t.face_bface[f];
    const int64_t tag = m.elem_tag[t.face_elem[2 * f]];
    dg_mesh c = {0};
    TEST_OK(copy_mesh_with_extra(&m, 0, 0, 0, 0, &c));
    c.bface_verts[b * DG_MAX_FACE_VERTS] = c.bface_verts[(c.n_bfaces - 1) * DG_MAX_FACE_VERTS];
    c.bface_verts[b * DG_MAX_FACE_VERTS + 1] =
        c.bface_verts[(c.n_bfaces - 1) * DG_MAX_FACE_VERTS + 1];
    c.bface_group[b] = c.bface_group[c.n_bfaces - 1];
    c.n_bfaces -= 1;
    dg_topology bad = {0};
    snprintf(needle, sizeof needle,
             "of element %lld lies on the boundary but is in no physical group", (long long)tag);
    TEST_FAILS(topology_build(&c, &bad), DG_ERR_MESH, needle);
    TEST_CHECK(bad.face_elem == NULL && bad.n_faces == 0, "failed build leaves a freed topology");
    mesh_free(&c);
  }

  /* 2. a third element on an interior face */
  {
    const int64_t f = t.n_interior / 2, e0 = t.face_elem[2 * f];
    const int l0 = t.face_local[2 * f];
    const int64_t a = face_vertex_node(&m, e0, l0, 0), b = face_vertex_node(&m, e0, l0, 1);
    const int nn = shape_n_nodes(DG_TRI, m.geom_order);
    dg_mesh c = {0};
    TEST_OK(copy_mesh_with_extra(&m, 4, 1, nn, 0, &c));
    /* triangle (b, a, new) of order 2: new vertex beyond the face from e0 */
    const int64_t e = m.n_elems, v = m.n_nodes;
    for (int d = 0; d < 3; ++d) c.x[3 * v + d] = 0.5 * (node_x(&m, a)[d] + node_x(&m, b)[d]);
    c.x[3 * v + 2] = 0.0;
    const int64_t nodes[6] = {b, a, v, v + 1, v + 2, v + 3};
    c.elem_shape[e] = DG_TRI;
    c.elem_tag[e] = 9001;
    c.elem_node_start[e + 1] = c.elem_node_start[e] + nn;
    memcpy(c.elem_nodes + c.elem_node_start[e], nodes, sizeof nodes);
    dg_topology bad = {0};
    TEST_FAILS(topology_build(&c, &bad), DG_ERR_MESH, "shared by more than two elements");
    snprintf(needle, sizeof needle, "%lld", (long long)m.elem_tag[e0]);
    dg_error_clear();
    TEST_CHECK(topology_build(&c, &bad) == DG_ERR_MESH && strstr(dg_error_message(), "9001") &&
                   strstr(dg_error_message(), needle),
               "the error names the elements: %s", dg_error_message());
    dg_error_clear();
    mesh_free(&c);
  }

  /* 3. a stray bface (the diagonal the cell is not cut along) and an
   * interior bface */
  for (int which = 0; which < 2; ++which) {
    dg_mesh c = {0};
    TEST_OK(copy_mesh_with_extra(&m, 0, 0, 0, 1, &c));
    const int64_t b = m.n_bfaces, width = 2 * o.n[0] + 1;
    /* lattice nodes (2,0)-(0,2) span cell (0,0)'s other diagonal; (0,0)-(2,2) its cut */
    c.bface_shape[b] = DG_LINE;
    c.bface_verts[b * DG_MAX_FACE_VERTS] = which ? 0 : 2;
    c.bface_verts[b * DG_MAX_FACE_VERTS + 1] = which ? 2 * width + 2 : 2 * width;
    c.bface_verts[b * DG_MAX_FACE_VERTS + 2] = c.bface_verts[b * DG_MAX_FACE_VERTS + 3] = -1;
    c.bface_group[b] = 1;
    c.bface_tag[b] = 777;
    dg_topology bad = {0};
    snprintf(needle, sizeof needle, "boundary face 777 of group %s", m.groups[1].name);
    TEST_FAILS(topology_build(&c, &bad), DG_ERR_MESH, needle);
    dg_error_clear();
    TEST_FAILS(topology_build(&c, &bad), DG_ERR_MESH,
               which ? "lies between elements" : "is not a face of any element");
    mesh_free(&c);
  }
  topology_free(&t);
  mesh_free(&m);

  /* 4. periodic: links that pair no faces, and sides that are not translates */
  o = opts_2d(MESH_STRUCTURED_QUAD, 1, 1, 0, 0.0);
  TEST_OK(mesh_structured_2d(&o, &m));
  {
    dg_mesh c = {0};
    TEST_OK(copy_mesh_with_extra(&m, 0, 0, 0, 0, &c));
    const int64_t tmp = c.periodic_master[1];
    c.periodic_master[1] = c.periodic_master[2];
    c.periodic_master[2] = tmp;
    TEST_FAILS(topology_build(&c, &t), DG_ERR_MESH, "has no periodic partner");
    mesh_free(&c);
    TEST_OK(copy_mesh_with_extra(&m, 0, 0, 0, 0, &c));
    c.x[3 * c.periodic_slave[1] + 1] += 1e-6;
    TEST_FAILS(topology_build(&c, &t), DG_ERR_MESH, "is not a translation");
    mesh_free(&c);
  }
  mesh_free(&m);
}

/* ---------- renumbering invariance ---------- */

typedef struct {
  int32_t group;
  double c[3];
} face_signature;

static int signature_compare(const void *pa, const void *pb) {
  const face_signature *a = pa, *b = pb;
  if (a->group != b->group) return a->group < b->group ? -1 : 1;
  for (int d = 0; d < 3; ++d)
    if (fabs(a->c[d] - b->c[d]) > 1e-9) return a->c[d] < b->c[d] ? -1 : 1;
  return 0;
}

/* Sorted (group, centroid) of every face; a periodic face takes the
 * lexicographically smaller of its two centroids so it does not depend on
 * which element is side 0. */
static face_signature *signatures(const dg_mesh *m, const dg_topology *t) {
  face_signature *sig = calloc((size_t)t->n_faces, sizeof *sig);
  for (int64_t f = 0; f < t->n_faces && sig; ++f) {
    const int64_t e = t->face_elem[2 * f];
    const int l = t->face_local[2 * f];
    const int nv = shape_n_verts(shape_face_shape((dg_shape)m->elem_shape[e], l));
    double c[3] = {0, 0, 0}, cs[3];
    for (int k = 0; k < nv; ++k)
      for (int d = 0; d < 3; ++d) c[d] += node_x(m, face_vertex_node(m, e, l, k))[d] / nv;
    for (int d = 0; d < 3; ++d) cs[d] = c[d] + t->face_shift[3 * f + d];
    int use_shifted = 0;
    for (int d = 0; d < 3; ++d)
      if (fabs(cs[d] - c[d]) > 1e-9) {
        use_shifted = cs[d] < c[d];
        break;
      }
    sig[f].group = t->face_group[f];
    memcpy(sig[f].c, use_shifted ? cs : c, sizeof c);
  }
  if (sig) qsort(sig, (size_t)t->n_faces, sizeof *sig, signature_compare);
  return sig;
}

static void check_renumbering(dg_mesh *m, const char *what) {
  dg_topology a = {0}, b = {0};
  TEST_OK(topology_build(m, &a));
  if (!a.n_faces) return;
  face_signature *sa = signatures(m, &a);

  int64_t *perm = malloc((size_t)m->n_elems * sizeof *perm);
  for (int64_t i = 0; i < m->n_elems; ++i) perm[i] = i;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    shuffle_range(perm, m->shape_offset[s], m->shape_offset[s + 1]);
  TEST_OK(mesh_renumber_elements(m, perm));
  TEST_OK(topology_build(m, &b));
  check_invariants(m, &b, what, 1);
  TEST_CHECK(a.n_faces == b.n_faces && a.n_interior == b.n_interior &&
                 a.n_periodic_faces == b.n_periodic_faces,
             "%s: counts change under element renumbering", what);
  for (int g = 0; g <= a.n_groups; ++g)
    TEST_CHECK(a.group_face_offset[g] == b.group_face_offset[g], "%s: group %d offset", what, g);
  face_signature *sb = signatures(m, &b);
  int64_t differ = 0, bad_neighbors = 0;
  for (int64_t f = 0; f < a.n_faces; ++f) differ += signature_compare(&sa[f], &sb[f]) != 0;
  TEST_CHECK(differ == 0, "%s: %lld (group, centroid) pairs differ after renumbering", what,
             (long long)differ);
  for (int64_t i = 0; i < m->n_elems; ++i)
    for (int f = 0; f < DG_MAX_FACES; ++f) {
      const int64_t nb = b.elem_neighbor[i * DG_MAX_FACES + f];
      const int64_t na = a.elem_neighbor[perm[i] * DG_MAX_FACES + f];
      bad_neighbors += nb < 0 ? na != nb : perm[nb] != na;
    }
  TEST_CHECK(bad_neighbors == 0, "%s: %lld neighbours do not map through the permutation", what,
             (long long)bad_neighbors);

  /* faces: a random permutation inside each kind */
  int64_t *fperm = malloc((size_t)b.n_faces * sizeof *fperm);
  for (int64_t f = 0; f < b.n_faces; ++f) fperm[f] = f;
  shuffle_range(fperm, 0, b.n_interior);
  for (int g = 0; g < b.n_groups; ++g)
    shuffle_range(fperm, b.group_face_offset[g], b.group_face_offset[g + 1]);
  int64_t *old_elem_face = malloc((size_t)m->n_elems * DG_MAX_FACES * sizeof *old_elem_face);
  memcpy(old_elem_face, b.elem_face, (size_t)m->n_elems * DG_MAX_FACES * sizeof *old_elem_face);
  const int64_t probe = b.n_faces / 3, probe_elem = b.face_elem[2 * fperm[probe]];
  TEST_OK(topology_renumber_faces(&b, fperm));
  TEST_CHECK(b.face_elem[2 * probe] == probe_elem, "%s: new face i is old face perm[i]", what);
  int64_t moved_wrong = 0;
  for (int64_t s = 0; s < m->n_elems * DG_MAX_FACES; ++s)
    if (old_elem_face[s] >= 0) moved_wrong += fperm[b.elem_face[s]] != old_elem_face[s];
  TEST_CHECK(moved_wrong == 0, "%s: elem_face not updated through the permutation", what);
  char what2[160];
  snprintf(what2, sizeof what2, "%s, faces renumbered", what);
  check_invariants(m, &b, what2, 0); /* faces are no longer in element order */
  face_signature *sc = signatures(m, &b);
  differ = 0;
  for (int64_t f = 0; f < a.n_faces; ++f) differ += signature_compare(&sa[f], &sc[f]) != 0;
  TEST_CHECK(differ == 0, "%s: (group, centroid) pairs differ", what2);

  /* invalid face permutations are refused and leave the topology intact */
  if (b.n_groups > 0 && b.n_interior > 0) {
    const int64_t boundary = b.group_face_offset[0];
    for (int64_t f = 0; f < b.n_faces; ++f) fperm[f] = f;
    fperm[0] = boundary;
    fperm[boundary] = 0;
    TEST_FAILS(topology_renumber_faces(&b, fperm), DG_ERR_ARG, "another kind");
    fperm[0] = 1;
    fperm[boundary] = boundary;
    TEST_FAILS(topology_renumber_faces(&b, fperm), DG_ERR_ARG, "appears twice");
    check_invariants(m, &b, "after refused permutations", 0);
  }
  free(sa);
  free(sb);
  free(sc);
  free(perm);
  free(fperm);
  free(old_elem_face);
  topology_free(&a);
  topology_free(&b);
}

static void test_renumbering(void) {
  dg_mesh m = {0};
  dg_mesh_structured_opts o = opts_2d(MESH_STRUCTURED_MIXED, 2, 1, 0, 0.04);
  TEST_OK(mesh_structured_2d(&o, &m));
  check_renumbering(&m, "mixed order 2 periodic x");
  mesh_free(&m);
  o = opts_2d(MESH_STRUCTURED_TRI, 3, 1, 1, 0.0);
  TEST_OK(mesh_structured_2d(&o, &m));
  check_renumbering(&m, "tri order 3 periodic xy");
  mesh_free(&m);
  o = mesh_structured_defaults(3);
  o.n[0] = 3;
  o.n[1] = 3;
  o.n[2] = 4;
  o.periodic[0] = o.periodic[2] = 1;
  o.order = 2;
  TEST_OK(mesh_structured_3d(&o, &m));
  check_renumbering(&m, "tet order 2 periodic xz");
  mesh_free(&m);
}

/* ---------- timing (not a test) ---------- */

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double peak_rss_mib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024.0; /* Linux reports KiB */
}

static void time_large(int dim, int64_t n) {
  dg_mesh_structured_opts o = mesh_structured_defaults(dim);
  for (int d = 0; d < dim; ++d) o.n[d] = n;
  dg_mesh m = {0};
  dg_topology t = {0};
  const double t0 = seconds_now();
  TEST_OK(dim == 2 ? mesh_structured_2d(&o, &m) : mesh_structured_3d(&o, &m));
  const double t1 = seconds_now(), rss_mesh = peak_rss_mib();
  TEST_OK(topology_build(&m, &t));
  const double t2 = seconds_now();
  printf("timing: %s mesh %lld^%d cells: %lld elements, %lld nodes, %lld faces; generate %.3f s, "
         "topology_build %.3f s (%.0f ns/element); peak RSS %.0f MiB after generation, %.0f MiB "
         "after topology\n",
         dim == 2 ? "tri" : "tet", (long long)n, dim, (long long)m.n_elems, (long long)m.n_nodes,
         (long long)t.n_faces, t1 - t0, t2 - t1, 1e9 * (t2 - t1) / (double)m.n_elems, rss_mesh,
         peak_rss_mib());
  topology_free(&t);
  mesh_free(&m);
}

int main(int argc, char **argv) {
  test_structured_2d();
  test_structured_3d();
  test_generator_errors();
  test_errors();
  test_renumbering();
  for (int i = 1; i + 1 < argc; ++i) {
    if (strcmp(argv[i], "--large") == 0) time_large(2, atoll(argv[i + 1]));
    if (strcmp(argv[i], "--large3d") == 0) time_large(3, atoll(argv[i + 1]));
  }
  return test_finish("test_topology");
}
