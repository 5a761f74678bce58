#include "mesh/mesh_structured.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dg_math.h"

/* Working state of one generation: the options, lattice sizes and cursors
 * into the mesh arrays being filled. Lattice coordinates are integers in
 * units of 1/order of a cell, so every node is an exact lattice point. */
typedef struct {
  const dg_mesh_structured_opts *opts;
  int dim, order;
  int64_t cells[3];   /* n per axis, 1 past dim */
  int64_t lattice[3]; /* order * n per axis: max lattice coordinate, 0 past dim */
  dg_mesh *mesh;
  int64_t elem;     /* next element index */
  int64_t elem_pos; /* next position in elem_nodes */
} structured_state;

static int64_t structured_node(const structured_state *st, const int64_t p[3]) {
  return p[0] + (st->lattice[0] + 1) * (p[1] + (st->lattice[1] + 1) * p[2]);
}

/* Appends one element of shape s whose vertices are the lattice points v
 * (Gmsh vertex order); its higher-order nodes are the lattice points at the
 * images of Gmsh's reference nodes under the affine (simplex) or bilinear
 * (axis-aligned parallelogram, hence affine too) map of those vertices. */
static void structured_emit(structured_state *st, dg_shape s, const int64_t v[][3]) {
  dg_mesh *mesh = st->mesh;
  const int n_nodes = shape_n_nodes(s, st->order);
  mesh->elem_shape[st->elem] = (int8_t)s;
  mesh->elem_tag[st->elem] = st->elem + 1;
  mesh->elem_node_start[st->elem] = st->elem_pos;
  for (int i = 0; i < n_nodes; ++i) {
    double xi[3];
    shape_node_ref(s, st->order, i, xi);
    int64_t p[3];
    for (int d = 0; d < 3; ++d) {
      double pd = (double)v[0][d];
      if (s == DG_QUAD) {
        pd += 0.5 * (xi[0] + 1.0) * (double)(v[1][d] - v[0][d]) +
              0.5 * (xi[1] + 1.0) * (double)(v[3][d] - v[0][d]);
      } else {
        for (int k = 0; k < shape_dim(s); ++k) pd += xi[k] * (double)(v[k + 1][d] - v[0][d]);
      }
      p[d] = (int64_t)llround(pd);
    }
    mesh->elem_nodes[st->elem_pos++] = structured_node(st, p);
  }
  st->elem++;
}

/* Lattice point of cell corner (i + a, j + b, k + c). */
static void structured_corner(const structured_state *st, const int64_t cell[3], int a, int b,
                              int c, int64_t p[3]) {
  p[0] = st->order * (cell[0] + a);
  p[1] = st->order * (cell[1] + b);
  p[2] = st->order * (cell[2] + c);
}

/* Shape the 2D cell (i, j) is made of. */
static dg_shape structured_cell_shape(const dg_mesh_structured_opts *opts, int64_t i, int64_t j) {
  if (opts->kind == MESH_STRUCTURED_QUAD) return DG_QUAD;
  if (opts->kind == MESH_STRUCTURED_MIXED && (i + j) % 2 == 0) return DG_QUAD;
  return DG_TRI;
}

static void structured_emit_cell_2d(structured_state *st, const int64_t cell[3], dg_shape s) {
  int64_t c00[3], c10[3], c11[3], c01[3];
  structured_corner(st, cell, 0, 0, 0, c00);
  structured_corner(st, cell, 1, 0, 0, c10);
  structured_corner(st, cell, 1, 1, 0, c11);
  structured_corner(st, cell, 0, 1, 0, c01);
  if (s == DG_QUAD) {
    const int64_t v[4][3] = {
        {c00[0], c00[1], 0}, {c10[0], c10[1], 0}, {c11[0], c11[1], 0}, {c01[0], c01[1], 0}};
    structured_emit(st, DG_QUAD, v);
    return;
  }
  const int flip = st->opts->alternate_diagonals && (cell[0] + cell[1]) % 2 == 1;
  if (!flip) {
    const int64_t a[3][3] = {{c00[0], c00[1], 0}, {c10[0], c10[1], 0}, {c11[0], c11[1], 0}};
    const int64_t b[3][3] = {{c00[0], c00[1], 0}, {c11[0], c11[1], 0}, {c01[0], c01[1], 0}};
    structured_emit(st, DG_TRI, a);
    structured_emit(st, DG_TRI, b);
  } else {
    const int64_t a[3][3] = {{c00[0], c00[1], 0}, {c10[0], c10[1], 0}, {c01[0], c01[1], 0}};
    const int64_t b[3][3] = {{c10[0], c10[1], 0}, {c11[0], c11[1], 0}, {c01[0], c01[1], 0}};
    structured_emit(st, DG_TRI, a);
    structured_emit(st, DG_TRI, b);
  }
}

/* The six Kuhn tetrahedra of a cell: the monotone lattice paths from the
 * lowest to the highest corner, one per axis order sigma. For odd sigma the
 * path's vertices 1 and 2 are swapped so that the tet is positively
 * oriented (det = sign(sigma) otherwise); the vertex sets, hence the
 * conformity of the split, are unchanged. */
static void structured_emit_cell_tet(structured_state *st, const int64_t cell[3]) {
  static const int sigma[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  for (int t = 0; t < 6; ++t) {
    int64_t v[4][3];
    structured_corner(st, cell, 0, 0, 0, v[0]);
    for (int k = 0; k < 3; ++k) {
      memcpy(v[k + 1], v[k], sizeof v[k]);
      v[k + 1][sigma[t][k]] += st->order;
    }
    if (t >= 3) {
      int64_t tmp[3];
      memcpy(tmp, v[1], sizeof tmp);
      memcpy(v[1], v[2], sizeof tmp);
      memcpy(v[2], tmp, sizeof tmp);
    }
    structured_emit(st, DG_TET, v);
  }
}

/* Position of lattice point p, deformed (see mesh_structured.h). The
 * deformation uses the lattice fraction reduced modulo 1, so the two ends of
 * an axis get bit-identical displacements and periodic sides stay exact
 * translates. */
static void structured_position(const structured_state *st, const int64_t p[3], double x[3]) {
  const dg_mesh_structured_opts *o = st->opts;
  const double two_pi = 2.0 * DG_PI;
  double s[3] = {0, 0, 0}, sn[3] = {0, 0, 0}, cs[3] = {1, 1, 1};
  x[0] = x[1] = x[2] = 0.0;
  for (int d = 0; d < st->dim; ++d) {
    const double t = (double)p[d] / (double)st->lattice[d];
    x[d] = (1.0 - t) * o->lo[d] + t * o->hi[d];
    s[d] = (double)(p[d] % st->lattice[d]) / (double)st->lattice[d];
    sn[d] = sin(two_pi * s[d]);
    cs[d] = cos(two_pi * s[d]);
  }
  if (o->deform == 0.0) return;
  for (int d = 0; d < st->dim; ++d) {
    double w = o->deform * (o->hi[d] - o->lo[d]) * sn[d];
    for (int e = 0; e < st->dim; ++e)
      if (e != d) w *= cs[e];
    x[d] += w;
  }
}

/* Signed measure (times a positive constant) of the straight-sided element
 * through the vertices of element e; for quads the smallest corner area, so
 * a non-convex or folded quad counts as inverted. */
static double structured_vertex_measure(const dg_mesh *mesh, int64_t e) {
  const dg_shape s = (dg_shape)mesh->elem_shape[e];
  const int64_t *nodes = mesh->elem_nodes + mesh->elem_node_start[e];
  const double *x[4];
  for (int k = 0; k < shape_n_verts(s); ++k) x[k] = mesh->x + 3 * nodes[k];
  if (s == DG_TET) {
    double a[3], b[3], c[3];
    for (int d = 0; d < 3; ++d) {
      a[d] = x[1][d] - x[0][d];
      b[d] = x[2][d] - x[0][d];
      c[d] = x[3][d] - x[0][d];
    }
    return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
           a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  const int n = shape_n_verts(s);
  double min_area = INFINITY;
  for (int k = 0; k < (s == DG_TRI ? 1 : n); ++k) {
    const double *p0 = x[k], *p1 = x[(k + 1) % n], *pm = x[(k + n - 1) % n];
    const double area = (p1[0] - p0[0]) * (pm[1] - p0[1]) - (p1[1] - p0[1]) * (pm[0] - p0[0]);
    if (area < min_area) min_area = area;
  }
  return min_area;
}

static const char *structured_kind_name(dg_mesh_structured_kind kind) {
  switch (kind) {
  case MESH_STRUCTURED_TRI: return "tri";
  case MESH_STRUCTURED_QUAD: return "quad";
  case MESH_STRUCTURED_MIXED: return "mixed";
  case MESH_STRUCTURED_TET: return "tet";
  }
  return "?";
}

static dg_status structured_check_opts(const dg_mesh_structured_opts *o, int dim) {
  const char axis[3] = {'x', 'y', 'z'};
  DG_CHECK(o, DG_ERR_ARG, "structured mesh: options are NULL");
  if (dim == 2)
    DG_CHECK(o->kind == MESH_STRUCTURED_TRI || o->kind == MESH_STRUCTURED_QUAD ||
                 o->kind == MESH_STRUCTURED_MIXED,
             DG_ERR_ARG, "structured 2D mesh: kind must be TRI, QUAD or MIXED (got %d)",
             (int)o->kind);
  else
    DG_CHECK(o->kind == MESH_STRUCTURED_TET, DG_ERR_ARG,
             "structured 3D mesh: kind must be TET (got %d)", (int)o->kind);
  DG_CHECK(o->order >= 1 && o->order <= DG_MAX_GEOM_ORDER, DG_ERR_ARG,
           "structured mesh: geometric order %d is not in 1..%d", o->order, DG_MAX_GEOM_ORDER);
  for (int d = 0; d < dim; ++d) {
    DG_CHECK(o->n[d] >= 1, DG_ERR_ARG, "structured mesh: %c cells = %lld, need >= 1", axis[d],
             (long long)o->n[d]);
    DG_CHECK(o->hi[d] > o->lo[d], DG_ERR_ARG,
             "structured mesh: %c range [%g, %g] is empty; need lo < hi", axis[d], o->lo[d],
             o->hi[d]);
    DG_CHECK(!o->periodic[d] || o->n[d] >= 3, DG_ERR_ARG,
             "structured mesh: periodic axis %c has %lld cells; periodic axes need >= 3", axis[d],
             (long long)o->n[d]);
  }
  DG_CHECK(isfinite(o->deform) && fabs(o->deform) < 0.25, DG_ERR_ARG,
           "structured mesh: deformation amplitude %g is not in (-0.25, 0.25)", o->deform);
  return DG_SUCCESS;
}

static dg_status structured_build(const dg_mesh_structured_opts *o, int dim, dg_mesh *mesh) {
  memset(mesh, 0, sizeof *mesh);
  DG_CALL(structured_check_opts(o, dim));
  const int q = o->order;
  structured_state st = {.opts = o, .dim = dim, .order = q, .mesh = mesh};
  for (int d = 0; d < 3; ++d) {
    st.cells[d] = d < dim ? o->n[d] : 1;
    st.lattice[d] = d < dim ? q * o->n[d] : 0;
  }
  const int64_t nx = st.cells[0], ny = st.cells[1], nz = st.cells[2];

  /* Sizes. */
  const int64_t n_nodes = (st.lattice[0] + 1) * (st.lattice[1] + 1) * (st.lattice[2] + 1);
  int64_t n_shape[DG_NUM_SHAPES] = {0};
  if (dim == 3) {
    n_shape[DG_TET] = 6 * nx * ny * nz;
  } else {
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx; ++i) {
        if (structured_cell_shape(o, i, j) == DG_QUAD)
          n_shape[DG_QUAD] += 1;
        else
          n_shape[DG_TRI] += 2;
      }
  }
  int64_t n_elems = 0, n_elem_nodes = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    n_elems += n_shape[s];
    n_elem_nodes += n_shape[s] * shape_n_nodes((dg_shape)s, q);
  }
  int n_groups = 0;
  int64_t n_bfaces = 0, n_unlinked = 1;
  for (int d = 0; d < dim; ++d) {
    n_unlinked *= st.lattice[d] + (o->periodic[d] ? 0 : 1);
    if (o->periodic[d]) continue;
    n_groups += 2;
    int64_t side = 1; /* bfaces per side: cells of the side, 2 triangles each in 3D */
    for (int e = 0; e < dim; ++e)
      if (e != d) side *= st.cells[e];
    n_bfaces += 2 * side * (dim == 3 ? 2 : 1);
  }
  const int64_t n_periodic = n_nodes - n_unlinked;

  DG_CALL(mesh_alloc(mesh, n_nodes, n_elems, n_elem_nodes, n_groups, n_bfaces, n_periodic));
  mesh->dim = dim;
  mesh->geom_order = q;
  if (dim == 3)
    snprintf(mesh->source, sizeof mesh->source, "structured %s mesh %lldx%lldx%lld order %d",
             structured_kind_name(o->kind), (long long)nx, (long long)ny, (long long)nz, q);
  else
    snprintf(mesh->source, sizeof mesh->source, "structured %s mesh %lldx%lld order %d",
             structured_kind_name(o->kind), (long long)nx, (long long)ny, q);
  mesh->shape_offset[0] = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    mesh->shape_offset[s + 1] = mesh->shape_offset[s] + n_shape[s];

  /* Nodes. */
  for (int64_t k = 0; k <= st.lattice[2]; ++k)
    for (int64_t j = 0; j <= st.lattice[1]; ++j)
      for (int64_t i = 0; i <= st.lattice[0]; ++i) {
        const int64_t p[3] = {i, j, k};
        structured_position(&st, p, mesh->x + 3 * structured_node(&st, p));
      }

  /* Elements, shape by shape in dg_shape order. */
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (!n_shape[s]) continue;
    for (int64_t k = 0; k < nz; ++k)
      for (int64_t j = 0; j < ny; ++j)
        for (int64_t i = 0; i < nx; ++i) {
          const int64_t cell[3] = {i, j, k};
          if (dim == 3)
            structured_emit_cell_tet(&st, cell);
          else if (structured_cell_shape(o, i, j) == (dg_shape)s)
            structured_emit_cell_2d(&st, cell, (dg_shape)s);
        }
  }
  if (st.elem != n_elems || st.elem_pos != n_elem_nodes)
    DG_ERROR(DG_ERR_INTERNAL,
             "structured mesh: emitted %lld elements / %lld nodes, expected %lld / %lld",
             (long long)st.elem, (long long)st.elem_pos, (long long)n_elems,
             (long long)n_elem_nodes);
  mesh->elem_node_start[n_elems] = n_elem_nodes;

  /* Boundary groups and faces. */
  const char axis[3] = {'x', 'y', 'z'};
  int g = 0;
  int64_t b = 0;
  for (int d = 0; d < dim; ++d) {
    if (o->periodic[d]) continue;
    /* the two other axes (a < c); c unused in 2D */
    const int a = d == 0 ? 1 : 0, c = d == 2 ? 1 : 2;
    for (int side = 0; side < 2; ++side, ++g) {
      snprintf(mesh->groups[g].name, sizeof mesh->groups[g].name, "%c%s", axis[d],
               side ? "max" : "min");
      mesh->groups[g].tag = g + 1;
      for (int64_t v = 0; v < (dim == 3 ? st.cells[c] : 1); ++v)
        for (int64_t u = 0; u < st.cells[a]; ++u) {
          int64_t m[3] = {0, 0, 0};
          m[d] = side ? st.lattice[d] : 0;
          m[a] = q * u;
          if (dim == 3) m[c] = q * v;
          int64_t pa[3], pac[3], pc[3];
          memcpy(pa, m, sizeof m);
          pa[a] += q;
          memcpy(pac, pa, sizeof m);
          memcpy(pc, m, sizeof m);
          if (dim == 3) {
            pac[c] += q;
            pc[c] += q;
          }
          /* 2D: the edge (m, m+e_a); 3D: the Kuhn split of the cell face,
           * cut along its diagonal from m to m + e_a + e_c */
          const int64_t *tris[2][3] = {{m, pa, pac}, {m, pc, pac}};
          for (int t = 0; t < (dim == 3 ? 2 : 1); ++t, ++b) {
            mesh->bface_shape[b] = (int8_t)(dim == 3 ? DG_TRI : DG_LINE);
            mesh->bface_group[b] = g;
            mesh->bface_tag[b] = n_elems + 1 + b;
            for (int k = 0; k < DG_MAX_FACE_VERTS; ++k)
              mesh->bface_verts[b * DG_MAX_FACE_VERTS + k] =
                  k < dim ? structured_node(&st, tris[t][k]) : -1;
          }
        }
    }
  }
  if (b != n_bfaces)
    DG_ERROR(DG_ERR_INTERNAL, "structured mesh: emitted %lld boundary faces, expected %lld",
             (long long)b, (long long)n_bfaces);

  /* Periodic links: each node on the max side of some periodic axis to its
   * image with all those coordinates wrapped to 0. */
  int64_t l = 0;
  for (int64_t k = 0; k <= st.lattice[2]; ++k)
    for (int64_t j = 0; j <= st.lattice[1]; ++j)
      for (int64_t i = 0; i <= st.lattice[0]; ++i) {
        const int64_t p[3] = {i, j, k};
        int64_t image[3] = {i, j, k};
        int wrapped = 0;
        for (int d = 0; d < dim; ++d)
          if (o->periodic[d] && p[d] == st.lattice[d]) {
            image[d] = 0;
            wrapped = 1;
          }
        if (!wrapped) continue;
        mesh->periodic_slave[l] = structured_node(&st, p);
        mesh->periodic_master[l] = structured_node(&st, image);
        ++l;
      }
  if (l != n_periodic)
    DG_ERROR(DG_ERR_INTERNAL, "structured mesh: emitted %lld periodic links, expected %lld",
             (long long)l, (long long)n_periodic);

  for (int64_t e = 0; e < n_elems; ++e)
    DG_CHECK(structured_vertex_measure(mesh, e) > 0.0, DG_ERR_MESH,
             "%s: deformation amplitude %g inverts element %lld; use a smaller amplitude",
             mesh->source, o->deform, (long long)mesh->elem_tag[e]);
  return DG_SUCCESS;
}

dg_mesh_structured_opts mesh_structured_defaults(int dim) {
  dg_mesh_structured_opts o;
  memset(&o, 0, sizeof o);
  o.kind = dim == 3 ? MESH_STRUCTURED_TET : MESH_STRUCTURED_TRI;
  o.order = 1;
  for (int d = 0; d < 3; ++d) {
    o.n[d] = 4;
    o.lo[d] = 0.0;
    o.hi[d] = 1.0;
  }
  return o;
}

dg_status mesh_structured_2d(const dg_mesh_structured_opts *opts, dg_mesh *mesh) {
  dg_status status = structured_build(opts, 2, mesh);
  if (status != DG_SUCCESS) {
    mesh_free(mesh);
    dg_error_trace(__FILE__, __LINE__, __func__);
  }
  return status;
}

dg_status mesh_structured_3d(const dg_mesh_structured_opts *opts, dg_mesh *mesh) {
  dg_status status = structured_build(opts, 3, mesh);
  if (status != DG_SUCCESS) {
    mesh_free(mesh);
    dg_error_trace(__FILE__, __LINE__, __func__);
  }
  return status;
}

void mesh_structured_deform_xy(dg_mesh *mesh, double period, double a) {
  if (a == 0.0) return;
  const double two_pi = 2.0 * DG_PI;
  for (int64_t i = 0; i < mesh->n_nodes; ++i) {
    double *x = mesh->x + 3 * i;
    const double sx = sin(two_pi * x[0] / period), cx = cos(two_pi * x[0] / period);
    const double sy = sin(two_pi * x[1] / period), cy = cos(two_pi * x[1] / period);
    x[0] += period * a * sx * cy;
    x[1] += period * a * cx * sy;
    x[2] += period * a * sx * sy;
  }
}
