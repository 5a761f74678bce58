/* .vtu (inline base64 binary, UInt64 block headers) and .pvd writers. The
 * sizes of every array are known before writing, so each array's byte count
 * is written first and its data is then streamed element by element through
 * a base64 encoder: memory use does not grow with the mesh. */
#include "app/vtu.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/solution_io.h"
#include "element/basis.h"
#include "mesh/geometry.h"

enum {
  VTU_TRIANGLE = 5,
  VTU_QUAD = 9,
  VTU_TETRA = 10,
  VTU_LAGRANGE_TRIANGLE = 69,
  VTU_LAGRANGE_QUADRILATERAL = 70,
  VTU_LAGRANGE_TETRAHEDRON = 71
};

/* The subdivision of one reference shape: points and linear sub-cells. */
typedef struct {
  int n_points, n_cells, verts; /* verts per sub-cell */
  uint8_t vtk_type;
  double *xi;  /* [n_points][3] */
  int *conn;   /* [n_cells][verts] local point indices */
  int nb;      /* modes of the discretisation's basis */
  double *phi; /* [n_points][nb] basis values at the points */
} vtu_template;

int vtu_default_subdiv(int p, int geom_order) {
  int n = p > geom_order ? p : geom_order;
  return n < 1 ? 1 : n;
}

static void vtu_template_sizes(dg_shape s, int n, int *n_points, int *n_cells) {
  switch (s) {
  case DG_TRI: *n_points = (n + 1) * (n + 2) / 2, *n_cells = n * n; break;
  case DG_QUAD: *n_points = (n + 1) * (n + 1), *n_cells = n * n; break;
  case DG_TET: *n_points = (n + 1) * (n + 2) * (n + 3) / 6, *n_cells = n * n * n; break;
  default: *n_points = *n_cells = 0; break;
  }
}

void vtu_counts(const dg_mesh *mesh, int subdiv, int64_t *n_points, int64_t *n_cells) {
  const int n = subdiv;
  *n_points = *n_cells = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    int np, nc;
    vtu_template_sizes((dg_shape)s, n, &np, &nc);
    const int64_t ne = mesh->shape_offset[s + 1] - mesh->shape_offset[s];
    *n_points += ne * np;
    *n_cells += ne * nc;
  }
}

/* Appends a sub-cell, reordering a tetrahedron so its reference volume is
 * positive (VTK's orientation). */
static void vtu_add_cell(vtu_template *t, int *cell, const int *v) {
  int w[4] = {v[0], v[1], v[2], t->verts > 3 ? v[3] : 0};
  if (t->vtk_type == VTU_TETRA) {
    const double *a = t->xi + 3 * w[0];
    double e[3][3];
    for (int k = 0; k < 3; ++k)
      for (int d = 0; d < 3; ++d) e[k][d] = t->xi[3 * w[k + 1] + d] - a[d];
    const double det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                       e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                       e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
    if (det < 0.0) {
      const int tmp = w[1];
      w[1] = w[2];
      w[2] = tmp;
    }
  }
  for (int k = 0; k < t->verts; ++k) t->conn[*cell * t->verts + k] = w[k];
  ++*cell;
}

/* Builds the subdivision of shape s into n^dim sub-cells. Triangles: the
 * lattice (i, j), i + j <= n, upward and downward triangles. Tetrahedra:
 * per lattice point, an upward tet, an octahedron cut into 4 tets along one
 * diagonal, and a downward tet (n(n+1)(n+2)/6 + 4 (n-1)n(n+1)/6 +
 * (n-2)(n-1)n/6 = n³). */
static dg_status vtu_template_build(dg_shape s, int n, int p, vtu_template *t) {
  memset(t, 0, sizeof *t);
  vtu_template_sizes(s, n, &t->n_points, &t->n_cells);
  t->verts = s == DG_TRI ? 3 : 4;
  t->vtk_type = s == DG_TRI ? VTU_TRIANGLE : s == DG_QUAD ? VTU_QUAD : VTU_TETRA;
  t->nb = basis_count(s, p);
  DG_CALL(DG_CALLOC(t->xi, 3 * (size_t)t->n_points));
  DG_CALL(DG_CALLOC(t->conn, (size_t)t->n_cells * t->verts));
  DG_CALL(DG_CALLOC(t->phi, (size_t)t->n_points * t->nb));
  const int m = n + 1;
  int *id = NULL; /* lattice (i, j, k) -> point index */
  DG_CALL(DG_CALLOC(id, (size_t)m * m * m));
#define VTU_ID(i, j, k) id[((k)*m + (j)) * m + (i)]
  int np = 0, nc = 0;
  const double h = 1.0 / n;
  if (s == DG_QUAD) {
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i) {
        t->xi[3 * np] = -1.0 + 2.0 * i * h, t->xi[3 * np + 1] = -1.0 + 2.0 * j * h;
        VTU_ID(i, j, 0) = np++;
      }
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const int v[4] = {VTU_ID(i, j, 0), VTU_ID(i + 1, j, 0), VTU_ID(i + 1, j + 1, 0),
                          VTU_ID(i, j + 1, 0)};
        vtu_add_cell(t, &nc, v);
      }
  } else if (s == DG_TRI) {
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i + j <= n; ++i) {
        t->xi[3 * np] = i * h, t->xi[3 * np + 1] = j * h;
        VTU_ID(i, j, 0) = np++;
      }
    for (int j = 0; j < n; ++j)
      for (int i = 0; i + j < n; ++i) {
        const int up[3] = {VTU_ID(i, j, 0), VTU_ID(i + 1, j, 0), VTU_ID(i, j + 1, 0)};
        vtu_add_cell(t, &nc, up);
        if (i + j + 2 <= n) {
          const int down[3] = {VTU_ID(i + 1, j, 0), VTU_ID(i + 1, j + 1, 0), VTU_ID(i, j + 1, 0)};
          vtu_add_cell(t, &nc, down);
        }
      }
  } else {
    for (int k = 0; k <= n; ++k)
      for (int j = 0; j + k <= n; ++j)
        for (int i = 0; i + j + k <= n; ++i) {
          t->xi[3 * np] = i * h, t->xi[3 * np + 1] = j * h, t->xi[3 * np + 2] = k * h;
          VTU_ID(i, j, k) = np++;
        }
    for (int k = 0; k < n; ++k)
      for (int j = 0; j + k < n; ++j)
        for (int i = 0; i + j + k < n; ++i) {
          const int up[4] = {VTU_ID(i, j, k), VTU_ID(i + 1, j, k), VTU_ID(i, j + 1, k),
                             VTU_ID(i, j, k + 1)};
          vtu_add_cell(t, &nc, up);
          if (i + j + k + 2 <= n) {
            /* octahedron: diagonal a-f, ring b-d-e-c around it */
            const int a = VTU_ID(i + 1, j, k), f = VTU_ID(i, j + 1, k + 1);
            const int ring[4] = {VTU_ID(i, j + 1, k), VTU_ID(i + 1, j + 1, k),
                                 VTU_ID(i + 1, j, k + 1), VTU_ID(i, j, k + 1)};
            for (int r = 0; r < 4; ++r) {
              const int v[4] = {a, f, ring[r], ring[(r + 1) % 4]};
              vtu_add_cell(t, &nc, v);
            }
          }
          if (i + j + k + 3 <= n) {
            const int down[4] = {VTU_ID(i + 1, j + 1, k), VTU_ID(i + 1, j, k + 1),
                                 VTU_ID(i, j + 1, k + 1), VTU_ID(i + 1, j + 1, k + 1)};
            vtu_add_cell(t, &nc, down);
          }
        }
  }
#undef VTU_ID
  free(id);
  DG_CHECK(np == t->n_points && nc == t->n_cells, DG_ERR_INTERNAL,
           "vtu: subdivision of shape %d at n = %d made %d points / %d cells, expected %d / %d",
           (int)s, n, np, nc, t->n_points, t->n_cells);
  for (int q = 0; q < np; ++q)
    DG_CHECK(basis_eval(s, p, t->xi + 3 * q, t->phi + (size_t)q * t->nb) == t->nb, DG_ERR_INTERNAL,
             "vtu: basis_eval failed for shape %d, p = %d", (int)s, p);
  return DG_SUCCESS;
}

/* ------------------------------------------------- VTK Lagrange ordering */

/* Appends the lattice points (i, j) of a triangle of order n whose corner
 * is at lattice (b, b), in VTK's Lagrange order: corners, edge 0-1, 1-2,
 * 2-0 (each from its first vertex), then the interior as a triangle of
 * order n - 3 at (b + 1, b + 1), recursively. */
static int vtu_lagrange_tri(int n, int b, int (*out)[3], int np) {
  if (n < 0) return np;
  if (n == 0) {
    out[np][0] = b, out[np][1] = b, out[np][2] = 0;
    return np + 1;
  }
  const int c[3][2] = {{b, b}, {b + n, b}, {b, b + n}};
  for (int v = 0; v < 3; ++v) out[np][0] = c[v][0], out[np][1] = c[v][1], out[np++][2] = 0;
  for (int v = 0; v < 3; ++v)
    for (int k = 1; k < n; ++k) {
      const int *a = c[v], *z = c[(v + 1) % 3];
      out[np][0] = a[0] + k * (z[0] - a[0]) / n;
      out[np][1] = a[1] + k * (z[1] - a[1]) / n;
      out[np++][2] = 0;
    }
  return vtu_lagrange_tri(n - 3, b + 1, out, np);
}

/* Tetrahedron of order n with corner (b, b, b): corners, the edges 0-1,
 * 1-2, 2-0, 0-3, 1-3, 2-3, the face interiors (faces 0-1-3, 1-2-3, 2-0-3,
 * 0-2-1, each as a triangle of order n - 3 whose local axes run from the
 * face vertex listed first in vtu_tet_face to the next two), then the
 * interior as a tetrahedron of order n - 4, recursively (VTK 9's
 * vtkLagrangeTetra; tests/scripts/check_vtu.py compares with VTK's own
 * parametric coordinates). */
static int vtu_lagrange_tet(int n, int b, int (*out)[3], int np) {
  if (n < 0) return np;
  if (n == 0) {
    out[np][0] = out[np][1] = out[np][2] = b;
    return np + 1;
  }
  const int c[4][3] = {{b, b, b}, {b + n, b, b}, {b, b + n, b}, {b, b, b + n}};
  static const int edge[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
  static const int face[4][3] = {{0, 1, 3}, {2, 3, 1}, {0, 3, 2}, {0, 2, 1}};
  for (int v = 0; v < 4; ++v, ++np)
    for (int d = 0; d < 3; ++d) out[np][d] = c[v][d];
  for (int e = 0; e < 6; ++e)
    for (int k = 1; k < n; ++k, ++np)
      for (int d = 0; d < 3; ++d)
        out[np][d] = c[edge[e][0]][d] + k * (c[edge[e][1]][d] - c[edge[e][0]][d]) / n;
  for (int f = 0; f < 4; ++f) {
    int uv[VTU_MAX_SUBDIV * VTU_MAX_SUBDIV][3];
    const int m = vtu_lagrange_tri(n - 3, 1, uv, 0);
    const int *a = c[face[f][0]], *p = c[face[f][1]], *q = c[face[f][2]];
    for (int k = 0; k < m; ++k, ++np)
      for (int d = 0; d < 3; ++d)
        out[np][d] = a[d] + (uv[k][0] * (p[d] - a[d]) + uv[k][1] * (q[d] - a[d])) / n;
  }
  return vtu_lagrange_tet(n - 4, b + 1, out, np);
}

/* Quadrilateral of order n: corners (0,0), (n,0), (n,n), (0,n); edges
 * j = 0 and i = n and j = n and i = 0, each in increasing i or j; then the
 * interior row by row, i fastest (vtkHigherOrderQuadrilateral). */
static int vtu_lagrange_quad(int n, int (*out)[3]) {
  int np = 0;
  const int c[4][2] = {{0, 0}, {n, 0}, {n, n}, {0, n}};
  for (int v = 0; v < 4; ++v) out[np][0] = c[v][0], out[np][1] = c[v][1], out[np++][2] = 0;
  for (int k = 1; k < n; ++k) out[np][0] = k, out[np][1] = 0, out[np++][2] = 0;
  for (int k = 1; k < n; ++k) out[np][0] = n, out[np][1] = k, out[np++][2] = 0;
  for (int k = 1; k < n; ++k) out[np][0] = k, out[np][1] = n, out[np++][2] = 0;
  for (int k = 1; k < n; ++k) out[np][0] = 0, out[np][1] = k, out[np++][2] = 0;
  for (int j = 1; j < n; ++j)
    for (int i = 1; i < n; ++i) out[np][0] = i, out[np][1] = j, out[np++][2] = 0;
  return np;
}

int vtu_lagrange_points(dg_shape s, int n, double *xi) {
  if (n < 1 || n > VTU_MAX_SUBDIV) return 0;
  if (s == DG_LINE) {
    for (int k = 0; k <= n; ++k) {
      xi[3 * k] = k == 0 ? 0.0 : k == 1 ? 1.0 : (double)(k - 1) / n;
      xi[3 * k + 1] = xi[3 * k + 2] = 0.0;
    }
    return n + 1;
  }
  if (s != DG_TRI && s != DG_QUAD && s != DG_TET) return 0;
  static int ijk[VTU_MAX_LAGRANGE_POINTS][3];
  const int np = s == DG_TRI    ? vtu_lagrange_tri(n, 0, ijk, 0)
                 : s == DG_QUAD ? vtu_lagrange_quad(n, ijk)
                                : vtu_lagrange_tet(n, 0, ijk, 0);
  for (int k = 0; k < np; ++k)
    for (int d = 0; d < 3; ++d)
      xi[3 * k + d] =
          s == DG_QUAD ? (d < 2 ? -1.0 + 2.0 * ijk[k][d] / n : 0.0) : (double)ijk[k][d] / n;
  return np;
}

/* One Lagrange cell of order n per element: its points in VTK's order. */
static dg_status vtu_template_build_lagrange(dg_shape s, int n, int p, vtu_template *t) {
  memset(t, 0, sizeof *t);
  int np_expected, nc;
  vtu_template_sizes(s, n, &np_expected, &nc);
  t->n_points = np_expected, t->n_cells = 1, t->verts = np_expected;
  t->vtk_type = s == DG_TRI    ? VTU_LAGRANGE_TRIANGLE
                : s == DG_QUAD ? VTU_LAGRANGE_QUADRILATERAL
                               : VTU_LAGRANGE_TETRAHEDRON;
  t->nb = basis_count(s, p);
  int(*ijk)[3] = NULL;
  DG_CALL(DG_CALLOC(ijk, (size_t)np_expected));
  const int np = s == DG_TRI    ? vtu_lagrange_tri(n, 0, ijk, 0)
                 : s == DG_QUAD ? vtu_lagrange_quad(n, ijk)
                                : vtu_lagrange_tet(n, 0, ijk, 0);
  dg_status st = DG_SUCCESS;
  if (np != np_expected)
    st = dg_error_set(DG_ERR_INTERNAL, __FILE__, __LINE__, __func__,
                      "vtu: Lagrange shape %d of order %d has %d points, expected %d", (int)s, n,
                      np, np_expected);
  if (st == DG_SUCCESS) st = DG_CALLOC(t->xi, 3 * (size_t)np);
  if (st == DG_SUCCESS) st = DG_CALLOC(t->conn, (size_t)np);
  if (st == DG_SUCCESS) st = DG_CALLOC(t->phi, (size_t)np * t->nb);
  for (int k = 0; k < np && st == DG_SUCCESS; ++k) {
    for (int d = 0; d < 3; ++d)
      t->xi[3 * k + d] =
          s == DG_QUAD ? (d < 2 ? -1.0 + 2.0 * ijk[k][d] / n : 0.0) : (double)ijk[k][d] / n;
    t->conn[k] = k;
    if (basis_eval(s, p, t->xi + 3 * k, t->phi + (size_t)k * t->nb) != t->nb)
      st = dg_error_set(DG_ERR_INTERNAL, __FILE__, __LINE__, __func__,
                        "vtu: basis_eval failed for shape %d, p = %d", (int)s, p);
  }
  free(ijk);
  return st;
}

static void vtu_template_free(vtu_template *t) {
  free(t->xi);
  free(t->conn);
  free(t->phi);
  memset(t, 0, sizeof *t);
}

/* ---------------------------------------------------------------- arrays */

typedef enum {
  VTU_DENSITY = 0,
  VTU_VELOCITY,
  VTU_PRESSURE,
  VTU_MACH,
  VTU_CP,
  VTU_ENTROPY,
  VTU_ELEMENT_TAG,
  VTU_ELEMENT_INDEX,
  VTU_SHAPE,
  VTU_COLOUR,
  VTU_AV,
  VTU_POINTS,
  VTU_CONNECTIVITY,
  VTU_OFFSETS,
  VTU_TYPES,
  VTU_NUM_ARRAYS
} vtu_array;

static const struct {
  const char *name, *type;
  int components, bytes, per_cell; /* per_cell: 0 point, 1 cell, 2 connectivity entry */
} vtu_arrays[VTU_NUM_ARRAYS] = {{"density", "Float64", 1, 8, 0},
                                {"velocity", "Float64", 3, 8, 0},
                                {"pressure", "Float64", 1, 8, 0},
                                {"mach", "Float64", 1, 8, 0},
                                {"cp", "Float64", 1, 8, 0},
                                {"entropy_deviation", "Float64", 1, 8, 0},
                                {"element_tag", "Int64", 1, 8, 1},
                                {"element_index", "Int64", 1, 8, 1},
                                {"shape", "Int32", 1, 4, 1},
                                {"colour", "Int32", 1, 4, 1},
                                {"artificial_viscosity", "Float64", 1, 8, 1},
                                {"Points", "Float64", 3, 8, 0},
                                {"connectivity", "Int64", 1, 8, 2},
                                {"offsets", "Int64", 1, 8, 1},
                                {"types", "UInt8", 1, 1, 1}};

typedef struct {
  const dg_mesh *mesh;
  const dg_disc_view *d;
  const double *U;
  const dg_flow_reference *ref;
  const int32_t *colour;
  const double *av_eps;
  const int64_t *global_elem; /* piece: global index of each element; NULL: the index itself */
  int owned_only;             /* piece: ghosts are left out */
  vtu_template tpl[DG_NUM_SHAPES];
  FILE *file;
  int failed;
  unsigned char carry[3]; /* base64: bytes not yet encoded */
  int n_carry;
  char out[4096]; /* base64: encoded characters not yet written */
  size_t n_out;
} vtu_writer;

static const char vtu_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void vtu_flush_out(vtu_writer *w) {
  if (!w->failed && w->n_out > 0 && fwrite(w->out, 1, w->n_out, w->file) != w->n_out)
    w->failed = errno ? errno : EIO;
  w->n_out = 0;
}

/* Encodes the carried bytes (1..3) as four characters, '=' padded. */
static void vtu_b64_emit(vtu_writer *w) {
  const unsigned char *c = w->carry;
  const unsigned v = (unsigned)c[0] << 16 | (w->n_carry > 1 ? (unsigned)c[1] << 8 : 0u) |
                     (w->n_carry > 2 ? (unsigned)c[2] : 0u);
  if (w->n_out + 4 > sizeof w->out) vtu_flush_out(w);
  char *o = w->out + w->n_out;
  o[0] = vtu_b64[v >> 18 & 63], o[1] = vtu_b64[v >> 12 & 63];
  o[2] = w->n_carry > 1 ? vtu_b64[v >> 6 & 63] : '=';
  o[3] = w->n_carry > 2 ? vtu_b64[v & 63] : '=';
  w->n_out += 4;
  w->n_carry = 0;
}

/* Appends n bytes to the array's base64 stream. */
static void vtu_put(vtu_writer *w, const void *data, size_t n) {
  const unsigned char *b = data;
  size_t i = 0;
  while (i < n && w->n_carry > 0) { /* complete the carried group */
    w->carry[w->n_carry++] = b[i++];
    if (w->n_carry == 3) vtu_b64_emit(w);
  }
  for (; i + 3 <= n; i += 3) { /* whole groups straight into the buffer */
    if (w->n_out + 4 > sizeof w->out) vtu_flush_out(w);
    const unsigned v = (unsigned)b[i] << 16 | (unsigned)b[i + 1] << 8 | (unsigned)b[i + 2];
    char *o = w->out + w->n_out;
    o[0] = vtu_b64[v >> 18 & 63], o[1] = vtu_b64[v >> 12 & 63];
    o[2] = vtu_b64[v >> 6 & 63], o[3] = vtu_b64[v & 63];
    w->n_out += 4;
  }
  for (; i < n; ++i) w->carry[w->n_carry++] = b[i];
}

/* Ends an array's base64 stream (padding) and writes it out. */
static void vtu_b64_end(vtu_writer *w) {
  if (w->n_carry > 0) vtu_b64_emit(w);
  vtu_flush_out(w);
}

/* Conservative state at every template point of element e: Uq[j*nvar + v]. */
static void vtu_element_state(const vtu_writer *w, int64_t e, double *Uq) {
  const dg_disc_view *d = w->d;
  const vtu_template *t = &w->tpl[d->elem_shape[e]];
  double Ue[DG_MAX_NVAR * DG_MAX_BASIS];
  const int nb = t->nb, nv = d->nvar;
  for (int v = 0; v < nv; ++v)
    for (int m = 0; m < nb; ++m) Ue[v * nb + m] = w->U[disc_coef_index(d, e, v, m)];
  for (int j = 0; j < t->n_points; ++j)
    for (int v = 0; v < nv; ++v) {
      double sum = 0.0;
      for (int m = 0; m < nb; ++m) sum += t->phi[j * nb + m] * Ue[v * nb + m];
      Uq[j * nv + v] = sum;
    }
}

/* Value(s) of a point array at one state (vtu_arrays[a].components). */
static void vtu_point_values(const vtu_writer *w, vtu_array a, const double *U, double *out) {
  const int dim = w->d->dim;
  const double gamma = w->ref->gamma;
  const double rho = U[0];
  const double p = physics_pressure(dim, gamma, U);
  switch (a) {
  case VTU_DENSITY: out[0] = rho; break;
  case VTU_VELOCITY:
    out[2] = 0.0;
    for (int i = 0; i < dim; ++i) out[i] = U[1 + i] / rho;
    break;
  case VTU_PRESSURE: out[0] = p; break;
  case VTU_MACH: out[0] = physics_mach(dim, gamma, U); break;
  case VTU_CP: out[0] = (p - 1.0 / gamma) / (0.5 * w->ref->mach * w->ref->mach); break;
  default: /* VTU_ENTROPY: (p/ρ^γ) / (p∞/ρ∞^γ) − 1 with ρ∞ = 1, p∞ = 1/γ */
    out[0] = gamma * p / pow(rho, gamma) - 1.0;
    break;
  }
}

static void vtu_write_array(vtu_writer *w, vtu_array a, int64_t count) {
  const uint64_t bytes =
      (uint64_t)count * (uint64_t)vtu_arrays[a].components * (uint64_t)vtu_arrays[a].bytes;
  vtu_put(w, &bytes, sizeof bytes);
  const dg_disc_view *d = w->d;
  double Uq[DG_MAX_NVAR * 1024];
  double buf[3 * 1024];
  int64_t point_base = 0, vert_offset = 0;
  for (int64_t e = 0; e < d->n_elems && !w->failed; ++e) {
    if (w->owned_only && !disc_elem_owned(d, e)) continue;
    const vtu_template *t = &w->tpl[d->elem_shape[e]];
    switch (a) {
    case VTU_POINTS:
      for (int j = 0; j < t->n_points; ++j) {
        double jac[9];
        geometry_map(w->mesh, e, t->xi + 3 * j, buf + 3 * j, jac);
      }
      vtu_put(w, buf, 3 * sizeof(double) * (size_t)t->n_points);
      break;
    case VTU_CONNECTIVITY:
      for (int c = 0; c < t->n_cells * t->verts; ++c) {
        const int64_t v = point_base + t->conn[c];
        vtu_put(w, &v, sizeof v);
      }
      break;
    case VTU_OFFSETS:
      for (int c = 0; c < t->n_cells; ++c) {
        vert_offset += t->verts;
        vtu_put(w, &vert_offset, sizeof vert_offset);
      }
      break;
    case VTU_TYPES:
    case VTU_ELEMENT_TAG:
    case VTU_ELEMENT_INDEX:
    case VTU_SHAPE:
    case VTU_AV:
    case VTU_COLOUR: {
      const int64_t tag = w->mesh->elem_tag[e], index = w->global_elem ? w->global_elem[e] : e;
      const int32_t shape = d->elem_shape[e], colour = w->colour ? w->colour[e] : 0;
      for (int c = 0; c < t->n_cells; ++c) {
        if (a == VTU_TYPES) vtu_put(w, &t->vtk_type, 1);
        if (a == VTU_ELEMENT_TAG) vtu_put(w, &tag, sizeof tag);
        if (a == VTU_ELEMENT_INDEX) vtu_put(w, &index, sizeof index);
        if (a == VTU_SHAPE) vtu_put(w, &shape, sizeof shape);
        if (a == VTU_COLOUR) vtu_put(w, &colour, sizeof colour);
        if (a == VTU_AV) vtu_put(w, &w->av_eps[e], sizeof(double));
      }
      break;
    }
    default: {
      vtu_element_state(w, e, Uq);
      const int nc = vtu_arrays[a].components;
      for (int j = 0; j < t->n_points; ++j) vtu_point_values(w, a, Uq + j * d->nvar, buf + nc * j);
      vtu_put(w, buf, sizeof(double) * (size_t)nc * (size_t)t->n_points);
      break;
    }
    }
    point_base += t->n_points;
  }
}

static dg_status vtu_check(const char *path, const dg_mesh *mesh, const dg_disc *disc,
                           const double *h_U, int subdiv, const dg_flow_reference *ref) {
  DG_CHECK(path && mesh && disc && h_U && ref, DG_ERR_ARG,
           "vtu_write: path, mesh, disc, state or reference values is NULL");
  const dg_disc_view *d = &disc->view;
  DG_CHECK(subdiv <= VTU_MAX_SUBDIV, DG_ERR_ARG, "%s: subdivision %d is above the maximum %d", path,
           subdiv, VTU_MAX_SUBDIV);
  DG_CHECK(ref->vtu_subdivision <= VTU_MAX_SUBDIV, DG_ERR_ARG,
           "%s: [output] vtu_subdivision = %d is above the maximum %d", path, ref->vtu_subdivision,
           VTU_MAX_SUBDIV);
  DG_CHECK(ref->gamma > 1.0, DG_ERR_ARG, "%s: gamma = %g must be > 1", path, ref->gamma);
  DG_CHECK(mesh->n_elems == d->n_elems && mesh->dim == d->dim, DG_ERR_ARG,
           "%s: the mesh (%lld elements, %dD) is not the one the discretisation was built from "
           "(%lld elements, %dD)",
           path, (long long)mesh->n_elems, mesh->dim, (long long)d->n_elems, d->dim);
  for (int64_t e = 0; e < d->n_elems; ++e)
    DG_CHECK(mesh->elem_shape[e] == d->elem_shape[e], DG_ERR_ARG,
             "%s: element %lld has shape %d in the mesh but %d in the discretisation (different "
             "numbering?)",
             path, (long long)e, mesh->elem_shape[e], d->elem_shape[e]);
  return DG_SUCCESS;
}

/* Resolved layout: Lagrange cells (1) or sub-cells (0), and the order /
 * subdivision n. */
static void vtu_layout(const dg_mesh *mesh, int p, int subdiv, const dg_flow_reference *ref,
                       int *lagrange, int *n) {
  if (subdiv > 0) {
    *lagrange = 0, *n = subdiv;
    return;
  }
  *lagrange = ref->vtu_cells == DG_VTU_CELLS_LAGRANGE;
  *n = ref->vtu_subdivision > 0 ? ref->vtu_subdivision : vtu_default_subdiv(p, mesh->geom_order);
}

/* The byte order VTK's byte_order attribute names for this machine. */
static const char *vtu_byte_order(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first ? "LittleEndian" : "BigEndian";
}

/* Whether array a is written (cp needs a Mach number; colour and ε only
 * when given). */
static int vtu_array_present(vtu_array a, const dg_flow_reference *ref, int with_colour,
                             int with_av) {
  return !(a == VTU_CP && !(ref->mach > 0.0)) && !(a == VTU_COLOUR && !with_colour) &&
         !(a == VTU_AV && !with_av);
}

static dg_status vtu_write_impl(const char *path, const dg_mesh *mesh, const dg_disc *disc,
                                const double *h_U, int subdiv, const dg_flow_reference *ref,
                                const int32_t *colour, const double *av_eps,
                                const int64_t *global_elem, int owned_only) {
  DG_CALL(vtu_check(path, mesh, disc, h_U, subdiv, ref));
  const dg_disc_view *d = &disc->view;
  int lagrange, n;
  vtu_layout(mesh, d->p, subdiv, ref, &lagrange, &n);
  DG_CHECK(n >= 1 && n <= VTU_MAX_SUBDIV &&
               (ref->vtu_cells == DG_VTU_CELLS_LAGRANGE || ref->vtu_cells == DG_VTU_CELLS_SUBCELLS),
           DG_ERR_ARG, "%s: VTU %s %d is not in 1..%d (or cell layout %d unknown)", path,
           lagrange ? "Lagrange order" : "subdivision", n, VTU_MAX_SUBDIV, ref->vtu_cells);
  vtu_writer w;
  memset(&w, 0, sizeof w);
  w.mesh = mesh, w.d = d, w.U = h_U, w.ref = ref, w.colour = colour;
  w.av_eps = av_eps;
  w.global_elem = global_elem, w.owned_only = owned_only;
  dg_status status = DG_SUCCESS;
  for (int s = 0; s < DG_NUM_SHAPES && status == DG_SUCCESS; ++s) {
    if (d->n_shape[s] == 0) continue;
    if (s == DG_TRI || s == DG_QUAD || s == DG_TET)
      status = lagrange ? vtu_template_build_lagrange((dg_shape)s, n, d->p, &w.tpl[s])
                        : vtu_template_build((dg_shape)s, n, d->p, &w.tpl[s]);
    else
      status = dg_error_set(DG_ERR_UNSUPPORTED, __FILE__, __LINE__, __func__,
                            "%s: elements of shape %d cannot be written", path, s);
  }
  int64_t n_points = 0, n_cells = 0, n_conn = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int64_t ne = owned_only ? d->n_owned[s] : d->n_shape[s];
    n_points += ne * w.tpl[s].n_points;
    n_cells += ne * w.tpl[s].n_cells;
    n_conn += ne * w.tpl[s].n_cells * w.tpl[s].verts;
  }

  dg_atomic_file af;
  if (status == DG_SUCCESS) status = dg_file_open(&af, path);
  if (status != DG_SUCCESS) {
    for (int s = 0; s < DG_NUM_SHAPES; ++s) vtu_template_free(&w.tpl[s]);
    dg_error_trace(__FILE__, __LINE__, __func__);
    return status;
  }
  w.file = af.file;

  FILE *f = af.file;
  fprintf(f,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"%s\" "
          "header_type=\"UInt64\">\n"
          "  <UnstructuredGrid>\n"
          "    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n",
          vtu_byte_order(), (long long)n_points, (long long)n_cells);
  const char *const section_open[4] = {
      "      <PointData Scalars=\"density\" Vectors=\"velocity\">\n",
      "      <CellData Scalars=\"element_index\">\n", "      <Points>\n", "      <Cells>\n"};
  const char *const section_close[4] = {"      </PointData>\n", "      </CellData>\n",
                                        "      </Points>\n", "      </Cells>\n"};
  const int section_first[5] = {VTU_DENSITY, VTU_ELEMENT_TAG, VTU_POINTS, VTU_CONNECTIVITY,
                                VTU_NUM_ARRAYS};
  for (int sec = 0; sec < 4; ++sec) {
    fputs(section_open[sec], f);
    for (int a = section_first[sec]; a < section_first[sec + 1]; ++a) {
      if (!vtu_array_present((vtu_array)a, ref, colour != NULL, av_eps != NULL)) continue;
      const int64_t count = vtu_arrays[a].per_cell == 0   ? n_points
                            : vtu_arrays[a].per_cell == 1 ? n_cells
                                                          : n_conn;
      fprintf(f, "        <DataArray type=\"%s\" Name=\"%s\"", vtu_arrays[a].type,
              vtu_arrays[a].name);
      if (vtu_arrays[a].components > 1)
        fprintf(f, " NumberOfComponents=\"%d\"", vtu_arrays[a].components);
      fputs(" format=\"binary\">\n", f);
      vtu_write_array(&w, (vtu_array)a, count);
      vtu_b64_end(&w);
      fputs("\n        </DataArray>\n", f);
    }
    fputs(section_close[sec], f);
  }
  fputs("    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n", f);
  for (int s = 0; s < DG_NUM_SHAPES; ++s) vtu_template_free(&w.tpl[s]);
  if (w.failed) {
    dg_file_abort(&af);
    DG_ERROR(DG_ERR_IO, "%s: writing failed: %s", path, strerror(w.failed));
  }
  DG_CALL(dg_file_commit(&af));
  return DG_SUCCESS;
}

/* Writes s with the five XML special characters escaped. */
static void vtu_put_escaped(FILE *f, const char *s) {
  for (; *s; ++s) {
    switch (*s) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&apos;", f); break;
    default: fputc(*s, f); break;
    }
  }
}

dg_status vtu_write(const char *path, const dg_mesh *mesh, const dg_disc *disc, const double *h_U,
                    int subdiv, const dg_flow_reference *ref, const int32_t *colour,
                    const double *av_eps) {
  return vtu_write_impl(path, mesh, disc, h_U, subdiv, ref, colour, av_eps, NULL, 0);
}

dg_status vtu_write_piece(const char *path, const dg_mesh *mesh, const dg_disc *disc,
                          const double *h_U, const dg_flow_reference *ref, const int32_t *colour,
                          const double *av_eps, const int64_t *global_elem) {
  return vtu_write_impl(path, mesh, disc, h_U, 0, ref, colour, av_eps, global_elem, 1);
}

dg_status vtu_write_pvtu(const char *path, int n_pieces, const char *const *pieces,
                         const dg_flow_reference *ref, int with_colour, int with_av) {
  DG_CHECK(path && ref && n_pieces >= 1 && pieces, DG_ERR_ARG,
           "vtu_write_pvtu: path, pieces or reference values is NULL (%d pieces)", n_pieces);
  for (int i = 0; i < n_pieces; ++i)
    DG_CHECK(pieces[i] && pieces[i][0], DG_ERR_ARG, "%s: piece %d has no file name", path, i);
  dg_atomic_file af;
  DG_CALL(dg_file_open(&af, path));
  FILE *f = af.file;
  fprintf(f,
          "<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"%s\" "
          "header_type=\"UInt64\">\n"
          "  <PUnstructuredGrid GhostLevel=\"0\">\n",
          vtu_byte_order());
  /* the pieces' arrays, in their order (Points and Cells are implicit but
   * for the points' type) */
  const char *const section_open[3] = {
      "    <PPointData Scalars=\"density\" Vectors=\"velocity\">\n",
      "    <PCellData Scalars=\"element_index\">\n", "    <PPoints>\n"};
  const char *const section_close[3] = {"    </PPointData>\n", "    </PCellData>\n",
                                        "    </PPoints>\n"};
  const int section_first[4] = {VTU_DENSITY, VTU_ELEMENT_TAG, VTU_POINTS, VTU_CONNECTIVITY};
  for (int sec = 0; sec < 3; ++sec) {
    fputs(section_open[sec], f);
    for (int a = section_first[sec]; a < section_first[sec + 1]; ++a) {
      if (!vtu_array_present((vtu_array)a, ref, with_colour, with_av)) continue;
      fprintf(f, "      <PDataArray type=\"%s\" Name=\"%s\"", vtu_arrays[a].type,
              vtu_arrays[a].name);
      if (vtu_arrays[a].components > 1)
        fprintf(f, " NumberOfComponents=\"%d\"", vtu_arrays[a].components);
      fputs("/>\n", f);
    }
    fputs(section_close[sec], f);
  }
  for (int i = 0; i < n_pieces; ++i) {
    fputs("    <Piece Source=\"", f);
    vtu_put_escaped(f, pieces[i]);
    fputs("\"/>\n", f);
  }
  fputs("  </PUnstructuredGrid>\n</VTKFile>\n", f);
  DG_CALL(dg_file_commit(&af));
  return DG_SUCCESS;
}

dg_status vtu_write_pvd(const char *path, int n, const char *const *files, const double *times) {
  DG_CHECK(path && n >= 0 && (n == 0 || (files && times)), DG_ERR_ARG,
           "vtu_write_pvd: path, files or times is NULL (n = %d)", n);
  for (int i = 0; i < n; ++i)
    DG_CHECK(files[i] && files[i][0], DG_ERR_ARG, "%s: file name %d of the series is empty", path,
             i);
  dg_atomic_file af;
  DG_CALL(dg_file_open(&af, path));
  FILE *f = af.file;
  fputs("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n"
        "  <Collection>\n",
        f);
  for (int i = 0; i < n; ++i) {
    fprintf(f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"", times[i]);
    vtu_put_escaped(f, files[i]);
    fputs("\"/>\n", f);
  }
  fputs("  </Collection>\n</VTKFile>\n", f);
  DG_CALL(dg_file_commit(&af));
  return DG_SUCCESS;
}
