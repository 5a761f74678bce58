/* Reference-to-physical maps, metrics, face normals and element sizes
 * (geometry.h). Everything here runs once on the host during preprocessing. */
#include "mesh/geometry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

/* Largest Lagrange element handled: the order-3 tetrahedron (20 nodes). */
#define GEOMETRY_MAX_LAGRANGE 20

/* Relative distance below which a high-order node counts as sitting on the
 * linear interpolation of the vertices (affine detection). */
#define GEOMETRY_AFFINE_TOL 1e-12
/* det J below this times (vertex diameter)^dim is treated as degenerate. */
#define GEOMETRY_DEGENERATE_TOL 1e-14

/* N_i(xi) = sum_j coef[i][j] * xi^exps[j] (monomials of the complete P_q
 * space on simplices, Q_q on quads); coef is the transposed inverse of the
 * Vandermonde matrix at Gmsh's nodes, so that N_i(node_k) = delta_ik. */
typedef struct {
  int n;
  int valid;
  int exps[GEOMETRY_MAX_LAGRANGE][3];
  double coef[GEOMETRY_MAX_LAGRANGE][GEOMETRY_MAX_LAGRANGE];
} geometry_lagrange_table;

/* The monomials are in coordinates centred and scaled to [-1,1] on simplices
 * (2 xi - 1): a better conditioned Vandermonde matrix than xi on [0,1]. */
static double geometry_monomial_scale(dg_shape s) { return s == DG_TRI || s == DG_TET ? 2.0 : 1.0; }
static double geometry_monomial_var(dg_shape s, double v) {
  return s == DG_TRI || s == DG_TET ? 2.0 * v - 1.0 : v;
}

static geometry_lagrange_table geometry_tables[DG_NUM_SHAPES][DG_MAX_GEOM_ORDER + 1];
static once_flag geometry_tables_once = ONCE_FLAG_INIT;

static int geometry_monomial_exponents(dg_shape s, int q, int exps[][3]) {
  int n = 0;
  switch (s) {
  case DG_LINE:
    for (int a = 0; a <= q; ++a) exps[n][0] = a, exps[n][1] = 0, exps[n][2] = 0, ++n;
    break;
  case DG_TRI:
    for (int a = 0; a <= q; ++a)
      for (int b = 0; a + b <= q; ++b) exps[n][0] = a, exps[n][1] = b, exps[n][2] = 0, ++n;
    break;
  case DG_QUAD:
    for (int a = 0; a <= q; ++a)
      for (int b = 0; b <= q; ++b) exps[n][0] = a, exps[n][1] = b, exps[n][2] = 0, ++n;
    break;
  case DG_TET:
    for (int a = 0; a <= q; ++a)
      for (int b = 0; a + b <= q; ++b)
        for (int c = 0; a + b + c <= q; ++c) exps[n][0] = a, exps[n][1] = b, exps[n][2] = c, ++n;
    break;
  default: break;
  }
  return n;
}

/* Inverts the n x n row-major matrix a into inv by Gauss-Jordan elimination
 * with partial pivoting (a is destroyed); 0 when singular. */
static int geometry_invert(int n, double *a, double *inv) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) inv[i * n + j] = i == j ? 1.0 : 0.0;
  for (int c = 0; c < n; ++c) {
    int p = c;
    for (int r = c + 1; r < n; ++r)
      if (fabs(a[r * n + c]) > fabs(a[p * n + c])) p = r;
    if (!(fabs(a[p * n + c]) > 1e-13)) return 0;
    if (p != c)
      for (int j = 0; j < n; ++j) {
        double t = a[c * n + j];
        a[c * n + j] = a[p * n + j], a[p * n + j] = t;
        t = inv[c * n + j];
        inv[c * n + j] = inv[p * n + j], inv[p * n + j] = t;
      }
    const double d = 1.0 / a[c * n + c];
    for (int j = 0; j < n; ++j) a[c * n + j] *= d, inv[c * n + j] *= d;
    for (int r = 0; r < n; ++r) {
      if (r == c || a[r * n + c] == 0.0) continue;
      const double f = a[r * n + c];
      for (int j = 0; j < n; ++j)
        a[r * n + j] -= f * a[c * n + j], inv[r * n + j] -= f * inv[c * n + j];
    }
  }
  return 1;
}

static double geometry_ipow(double x, int k) {
  double r = 1.0;
  for (int i = 0; i < k; ++i) r *= x;
  return r;
}

static void geometry_tables_init(void) {
  const dg_shape shapes[4] = {DG_LINE, DG_TRI, DG_QUAD, DG_TET};
  for (int is = 0; is < 4; ++is)
    for (int q = 1; q <= DG_MAX_GEOM_ORDER; ++q) {
      const dg_shape s = shapes[is];
      geometry_lagrange_table *t = &geometry_tables[s][q];
      t->n = geometry_monomial_exponents(s, q, t->exps);
      if (t->n != shape_n_nodes(s, q) || t->n > GEOMETRY_MAX_LAGRANGE) continue;
      const int n = t->n;
      double v[GEOMETRY_MAX_LAGRANGE * GEOMETRY_MAX_LAGRANGE];
      double inv[GEOMETRY_MAX_LAGRANGE * GEOMETRY_MAX_LAGRANGE];
      for (int i = 0; i < n; ++i) {
        double xi[3];
        shape_node_ref(s, q, i, xi);
        for (int j = 0; j < n; ++j)
          v[i * n + j] = geometry_ipow(geometry_monomial_var(s, xi[0]), t->exps[j][0]) *
                         geometry_ipow(geometry_monomial_var(s, xi[1]), t->exps[j][1]) *
                         geometry_ipow(geometry_monomial_var(s, xi[2]), t->exps[j][2]);
      }
      if (!geometry_invert(n, v, inv)) continue; /* duplicate nodes in shape.h: stays invalid */
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) t->coef[i][j] = inv[j * n + i];
      t->valid = 1;
    }
}

void geometry_lagrange(dg_shape s, int q, const double xi[3], double *N, double *dN) {
  if (!shape_supported(s) || q < 1 || q > DG_MAX_GEOM_ORDER) return;
  call_once(&geometry_tables_once, geometry_tables_init);
  const geometry_lagrange_table *t = &geometry_tables[s][q];
  const int n = shape_n_nodes(s, q);
  if (!t->valid) { /* a broken node table: make every use fail loudly (NaN det J) */
    for (int i = 0; i < n; ++i) {
      N[i] = NAN;
      if (dN) dN[3 * i] = dN[3 * i + 1] = dN[3 * i + 2] = NAN;
    }
    return;
  }
  double pw[3][DG_MAX_GEOM_ORDER + 1], dpw[3][DG_MAX_GEOM_ORDER + 1];
  for (int d = 0; d < 3; ++d) {
    pw[d][0] = 1.0;
    dpw[d][0] = 0.0;
    for (int k = 1; k <= q; ++k) {
      pw[d][k] = pw[d][k - 1] * geometry_monomial_var(s, xi[d]);
      dpw[d][k] = k * pw[d][k - 1] * geometry_monomial_scale(s);
    }
  }
  double m[GEOMETRY_MAX_LAGRANGE], dm[GEOMETRY_MAX_LAGRANGE][3];
  for (int j = 0; j < n; ++j) {
    const int *e = t->exps[j];
    const double a = pw[0][e[0]], b = pw[1][e[1]], c = pw[2][e[2]];
    m[j] = a * b * c;
    dm[j][0] = dpw[0][e[0]] * b * c;
    dm[j][1] = a * dpw[1][e[1]] * c;
    dm[j][2] = a * b * dpw[2][e[2]];
  }
  for (int i = 0; i < n; ++i) {
    double v = 0.0, g0 = 0.0, g1 = 0.0, g2 = 0.0;
    for (int j = 0; j < n; ++j) {
      const double c = t->coef[i][j];
      v += c * m[j];
      g0 += c * dm[j][0];
      g1 += c * dm[j][1];
      g2 += c * dm[j][2];
    }
    N[i] = v;
    if (dN) dN[3 * i] = g0, dN[3 * i + 1] = g1, dN[3 * i + 2] = g2;
  }
}

void geometry_map(const dg_mesh *mesh, int64_t e, const double xi[3], double x[3], double jac[9]) {
  const dg_shape s = (dg_shape)mesh->elem_shape[e];
  const int q = mesh->geom_order, n = shape_n_nodes(s, q), sd = shape_dim(s);
  double N[GEOMETRY_MAX_LAGRANGE], dN[GEOMETRY_MAX_LAGRANGE * 3];
  geometry_lagrange(s, q, xi, N, dN);
  const int64_t *nodes = mesh->elem_nodes + mesh->elem_node_start[e];
  /* coordinates relative to the first vertex: a small element far from the
   * origin keeps its digits (sum N = 1 and sum dN = 0 make this exact) */
  const double *x0 = mesh->x + 3 * nodes[0];
  double dx[3] = {0, 0, 0};
  for (int i = 0; i < 9; ++i) jac[i] = 0.0;
  for (int k = 1; k < n; ++k) {
    const double *xk = mesh->x + 3 * nodes[k];
    for (int i = 0; i < 3; ++i) {
      const double rel = xk[i] - x0[i];
      dx[i] += N[k] * rel;
      for (int j = 0; j < sd; ++j) jac[3 * i + j] += rel * dN[3 * k + j];
    }
  }
  for (int i = 0; i < 3; ++i) x[i] = x0[i] + dx[i];
  for (int j = sd; j < 3; ++j) jac[3 * j + j] = 1.0;
}

static double geometry_det3(const double a[9]) {
  return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
         a[2] * (a[3] * a[7] - a[4] * a[6]);
}

static void geometry_inverse3(const double a[9], double det, double inv[9]) {
  const double r = 1.0 / det;
  inv[0] = (a[4] * a[8] - a[5] * a[7]) * r;
  inv[1] = (a[2] * a[7] - a[1] * a[8]) * r;
  inv[2] = (a[1] * a[5] - a[2] * a[4]) * r;
  inv[3] = (a[5] * a[6] - a[3] * a[8]) * r;
  inv[4] = (a[0] * a[8] - a[2] * a[6]) * r;
  inv[5] = (a[2] * a[3] - a[0] * a[5]) * r;
  inv[6] = (a[3] * a[7] - a[4] * a[6]) * r;
  inv[7] = (a[1] * a[6] - a[0] * a[7]) * r;
  inv[8] = (a[0] * a[4] - a[1] * a[3]) * r;
}

/* Largest distance between two vertices of element e: its length scale. */
static double geometry_vertex_diameter(const dg_mesh *mesh, int64_t e) {
  const dg_shape s = (dg_shape)mesh->elem_shape[e];
  const int nv = shape_n_verts(s);
  const int64_t *nodes = mesh->elem_nodes + mesh->elem_node_start[e];
  double d2 = 0.0;
  for (int a = 0; a < nv; ++a)
    for (int b = a + 1; b < nv; ++b) {
      const double *xa = mesh->x + 3 * nodes[a], *xb = mesh->x + 3 * nodes[b];
      const double dx = xa[0] - xb[0], dy = xa[1] - xb[1], dz = xa[2] - xb[2];
      d2 = fmax(d2, dx * dx + dy * dy + dz * dz);
    }
  return sqrt(d2);
}

/* A simplex is affine when every high-order node sits at the linear
 * interpolation of its vertices; quads are bilinear at best, never affine. */
static int geometry_is_affine(const dg_mesh *mesh, int64_t e) {
  const dg_shape s = (dg_shape)mesh->elem_shape[e];
  if (s != DG_TRI && s != DG_TET) return 0;
  const int q = mesh->geom_order, n = shape_n_nodes(s, q), nv = shape_n_verts(s);
  const int64_t *nodes = mesh->elem_nodes + mesh->elem_node_start[e];
  const double tol = GEOMETRY_AFFINE_TOL * geometry_vertex_diameter(mesh, e);
  for (int k = nv; k < n; ++k) {
    double xi[3], lam[4];
    shape_node_ref(s, q, k, xi);
    lam[0] = 1.0 - xi[0] - xi[1] - xi[2];
    lam[1] = xi[0], lam[2] = xi[1], lam[3] = xi[2];
    const double *xk = mesh->x + 3 * nodes[k];
    double dist2 = 0.0;
    for (int i = 0; i < 3; ++i) {
      double lin = 0.0;
      for (int v = 0; v < nv; ++v) lin += lam[v] * mesh->x[3 * nodes[v] + i];
      dist2 += (xk[i] - lin) * (xk[i] - lin);
    }
    if (!(sqrt(dist2) <= tol)) return 0;
  }
  return 1;
}

/* Where an element failed the det J check. */
typedef struct {
  double x[3];
  double det;
} geometry_bad_point;

/* det J at reference point xi of element e; x and jac filled as geometry_map. */
static double geometry_det_at(const dg_mesh *mesh, int64_t e, const double xi[3], double x[3],
                              double jac[9]) {
  geometry_map(mesh, e, xi, x, jac);
  return geometry_det3(jac);
}

/* Fills element e's volume points, weights and metrics, and checks det J at
 * every volume and face quadrature point. Returns 0 when the element is fine,
 * 1 (with the offending point in *bad) when it is inverted or degenerate. */
static int geometry_element(const dg_mesh *mesh, dg_geometry *geom, int64_t e,
                            geometry_bad_point *bad) {
  const dg_shape s = (dg_shape)mesh->elem_shape[e];
  const dg_quadrature *rule = &geom->vol_rule[s];
  const double L = geometry_vertex_diameter(mesh, e);
  const double det_min = GEOMETRY_DEGENERATE_TOL * pow(L, shape_dim(s));
  const int64_t v0 = geom->vol_offset[e], m0 = geom->metric_offset[e];
  double x[3], jac[9];
  if (geom->elem_affine[e]) {
    double centroid[3] = {0, 0, 0};
    const int nv = shape_n_verts(s);
    for (int v = 0; v < nv; ++v) {
      double xv[3];
      shape_vertex_ref(s, v, xv);
      for (int d = 0; d < 3; ++d) centroid[d] += xv[d] / nv;
    }
    const double det = geometry_det_at(mesh, e, centroid, x, jac);
    if (!(det > det_min)) {
      memcpy(bad->x, x, sizeof x);
      bad->det = det;
      return 1;
    }
    geom->metric_detJ[m0] = det;
    geometry_inverse3(jac, det, geom->metric_invJ + 9 * m0);
  }
  for (int k = 0; k < rule->n_points; ++k) {
    const double det = geometry_det_at(mesh, e, rule->xi + 3 * k, x, jac);
    memcpy(geom->vol_x + 3 * (v0 + k), x, sizeof x);
    if (geom->elem_affine[e]) {
      geom->vol_wdetJ[v0 + k] = rule->w[k] * geom->metric_detJ[m0];
      continue;
    }
    if (!(det > det_min)) {
      memcpy(bad->x, x, sizeof x);
      bad->det = det;
      return 1;
    }
    geom->vol_wdetJ[v0 + k] = rule->w[k] * det;
    geom->metric_detJ[m0 + k] = det;
    geometry_inverse3(jac, det, geom->metric_invJ + 9 * (m0 + k));
  }
  if (!geom->elem_affine[e]) {
    /* curved elements can fold over at their boundary while every interior
     * point is fine: check the face points too */
    for (int f = 0; f < shape_n_faces(s); ++f) {
      const dg_quadrature *frule = &geom->face_rule[shape_face_shape(s, f)];
      for (int k = 0; k < frule->n_points; ++k) {
        double xi[3];
        quadrature_face_to_elem(s, f, 0, frule->xi + 3 * k, xi);
        const double det = geometry_det_at(mesh, e, xi, x, jac);
        if (!(det > det_min)) {
          memcpy(bad->x, x, sizeof x);
          bad->det = det;
          return 1;
        }
      }
    }
  }
  if (mesh->dim == 2)
    for (int64_t m = m0; m < geom->metric_offset[e + 1]; ++m) geom->metric_invJ[9 * m + 8] = 0.0;
  return 0;
}

/* Fills face f's points, normals and weights from side 0. Returns 1 (with
 * the point) when the surface Jacobian vanishes. */
static int geometry_face(const dg_mesh *mesh, const dg_topology *topo, dg_geometry *geom, int64_t f,
                         geometry_bad_point *bad) {
  const int64_t e = topo->face_elem[2 * f];
  const int lf = topo->face_local[2 * f];
  const dg_shape s = (dg_shape)mesh->elem_shape[e];
  const dg_shape fs = shape_face_shape(s, lf);
  const dg_quadrature *rule = &geom->face_rule[fs];
  double fv[3][3]; /* reference coordinates of the face's vertices in the element */
  for (int k = 0; k < shape_n_verts(fs) && k < 3; ++k)
    shape_vertex_ref(s, shape_face_vertex(s, lf, k), fv[k]);
  double t1_ref[3], t2_ref[3];
  for (int d = 0; d < 3; ++d) {
    /* d xi / d (face coordinate): lines are parametrised on [-1,1], triangles
     * by the reference triangle's two legs (quadrature_face_to_elem) */
    t1_ref[d] = fs == DG_LINE ? 0.5 * (fv[1][d] - fv[0][d]) : fv[1][d] - fv[0][d];
    t2_ref[d] = fs == DG_LINE ? 0.0 : fv[2][d] - fv[0][d];
  }
  const int64_t p0 = geom->face_offset[f];
  double area = 0.0;
  for (int k = 0; k < rule->n_points; ++k) {
    double xi[3], x[3], jac[9], t1[3] = {0, 0, 0}, t2[3] = {0, 0, 0}, n[3];
    quadrature_face_to_elem(s, lf, 0, rule->xi + 3 * k, xi);
    geometry_map(mesh, e, xi, x, jac);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        t1[i] += jac[3 * i + j] * t1_ref[j];
        t2[i] += jac[3 * i + j] * t2_ref[j];
      }
    if (fs == DG_LINE) {
      /* shape.h lists edges counter-clockwise: the tangent turned clockwise points out */
      n[0] = t1[1], n[1] = -t1[0], n[2] = 0.0;
    } else {
      n[0] = t1[1] * t2[2] - t1[2] * t2[1];
      n[1] = t1[2] * t2[0] - t1[0] * t2[2];
      n[2] = t1[0] * t2[1] - t1[1] * t2[0];
    }
    const double sj = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(sj > 0.0)) {
      memcpy(bad->x, x, sizeof x);
      bad->det = sj;
      return 1;
    }
    for (int d = 0; d < 3; ++d) {
      geom->face_x[3 * (p0 + k) + d] = x[d];
      geom->face_normal[3 * (p0 + k) + d] = n[d] / sj;
    }
    geom->face_wsJ[p0 + k] = rule->w[k] * sj;
    area += rule->w[k] * sj;
  }
  geom->face_area[f] = area;
  return 0;
}

/* h = c_s * dim * |K| / |dK| (see geometry.h): dim|K|/|dK| is the inradius of
 * a simplex (half the width of a square); c_s scales it to the edge length of
 * the regular element of the shape. */
static double geometry_h_factor(dg_shape s) {
  switch (s) {
  case DG_TRI: return 2.0 * sqrt(3.0);
  case DG_QUAD: return 2.0;
  case DG_TET: return 2.0 * sqrt(6.0);
  default: return 0.0;
  }
}

static dg_status geometry_report_bad(const dg_mesh *mesh, int64_t e, const geometry_bad_point *bad,
                                     const char *where) {
  DG_ERROR(DG_ERR_MESH,
           "%s: element %lld (tag %lld) is inverted or degenerate: det J = %.6g at (%.10g, %.10g, "
           "%.10g) (%s); reorder its nodes or move its high-order nodes so the map is one-to-one",
           mesh->source[0] ? mesh->source : "(mesh)", (long long)e,
           (long long)(mesh->elem_tag ? mesh->elem_tag[e] : e), bad->det, bad->x[0], bad->x[1],
           bad->x[2], where);
}

/* Reference point of lattice index (i, j, k) of n intervals: simplices use
 * barycentric lattices (i + j + k <= n), the quadrilateral a tensor one.
 * Returns 0 when the index lies outside the element. */
static int geometry_lattice_point(dg_shape s, int n, int i, int j, int k, double xi[3]) {
  double v[4][3];
  const int nv = shape_n_verts(s);
  for (int a = 0; a < nv && a < 4; ++a) shape_vertex_ref(s, a, v[a]);
  const double a = (double)i / n, b = (double)j / n, c = (double)k / n;
  for (int d = 0; d < 3; ++d) xi[d] = 0.0;
  switch (s) {
  case DG_TRI:
    if (k != 0 || i + j > n) return 0;
    for (int d = 0; d < 3; ++d) xi[d] = (1 - a - b) * v[0][d] + a * v[1][d] + b * v[2][d];
    return 1;
  case DG_QUAD:
    if (k != 0) return 0;
    for (int d = 0; d < 3; ++d)
      xi[d] = (1 - a) * (1 - b) * v[0][d] + a * (1 - b) * v[1][d] + a * b * v[2][d] +
              (1 - a) * b * v[3][d];
    return 1;
  case DG_TET:
    if (i + j + k > n) return 0;
    for (int d = 0; d < 3; ++d)
      xi[d] = (1 - a - b - c) * v[0][d] + a * v[1][d] + b * v[2][d] + c * v[3][d];
    return 1;
  default: return 0;
  }
}

dg_status geometry_check_jacobians(const dg_mesh *mesh) {
  DG_CHECK(mesh->dim == 2 || mesh->dim == 3, DG_ERR_ARG, "%s: mesh dimension %d is not 2 or 3",
           mesh->source, mesh->dim);
  /* straight elements: det J is constant (simplices) or bilinear (quadrilaterals), so the
   * vertices decide */
  const int n = mesh->geom_order > 1 ? 2 * mesh->geom_order + 1 : 1;
  int64_t n_bad = 0, first = -1;
  geometry_bad_point first_bad = {{0, 0, 0}, 0};
#pragma omp parallel for schedule(static) reduction(+ : n_bad)
  for (int64_t e = 0; e < mesh->n_elems; ++e) {
    const dg_shape s = (dg_shape)mesh->elem_shape[e];
    const double L = geometry_vertex_diameter(mesh, e);
    const double det_min = GEOMETRY_DEGENERATE_TOL * pow(L, shape_dim(s));
    const int nk = s == DG_TET ? n : 0;
    int bad = 0;
    geometry_bad_point where = {{0, 0, 0}, 0};
    for (int i = 0; i <= n && !bad; ++i)
      for (int j = 0; j <= n && !bad; ++j)
        for (int k = 0; k <= nk && !bad; ++k) {
          double xi[3], x[3], jac[9];
          if (!geometry_lattice_point(s, n, i, j, k, xi)) continue;
          const double det = geometry_det_at(mesh, e, xi, x, jac);
          if (!(det > det_min)) {
            bad = 1;
            memcpy(where.x, x, sizeof x);
            where.det = det;
          }
        }
    if (bad) {
      ++n_bad;
#pragma omp critical(geometry_check_first)
      if (first < 0 || e < first) {
        first = e;
        first_bad = where;
      }
    }
  }
  if (n_bad == 0) return DG_SUCCESS;
  DG_ERROR(DG_ERR_MESH,
           "%s: %lld element(s) inverted or degenerate, the first element %lld (tag %lld): det J "
           "= %.6g at (%.10g, %.10g, %.10g); mesh again with a finer size where the wall is "
           "strongly curved, or with high-order optimisation (Gmsh: Mesh.HighOrderOptimize = 2)",
           mesh->source[0] ? mesh->source : "(mesh)", (long long)n_bad, (long long)first,
           (long long)(mesh->elem_tag ? mesh->elem_tag[first] : first), first_bad.det,
           first_bad.x[0], first_bad.x[1], first_bad.x[2]);
}

/* min det J / max det J of element e over the lattice of n + 1 points per
 * edge (0 when det J never gets positive); at: the point of the smallest
 * det J (may be NULL). */
static double geometry_element_ratio(const dg_mesh *mesh, int64_t e, int n, double at[3]) {
  const dg_shape s = (dg_shape)mesh->elem_shape[e];
  const int nk = s == DG_TET ? n : 0;
  double lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j)
      for (int k = 0; k <= nk; ++k) {
        double xi[3], x[3], jac[9];
        if (!geometry_lattice_point(s, n, i, j, k, xi)) continue;
        const double det = geometry_det_at(mesh, e, xi, x, jac);
        if (det < lo) {
          lo = det;
          if (at) memcpy(at, x, 3 * sizeof *at);
        }
        hi = det > hi ? det : hi;
      }
  return hi > 0.0 ? lo / hi : 0.0;
}

dg_status geometry_jacobian_quality(const dg_mesh *mesh, double threshold, geometry_quality *q) {
  DG_CHECK(mesh && q, DG_ERR_ARG, "geometry_jacobian_quality: NULL mesh or output");
  q->worst = 1.0;
  q->worst_elem = -1;
  q->worst_x[0] = q->worst_x[1] = q->worst_x[2] = 0.0;
  q->n_below = 0;
  if (mesh->geom_order <= 1) return DG_SUCCESS;
  const int n = 2 * mesh->geom_order + 1;
  int64_t n_below = 0, worst_elem = -1;
  double worst = 1.0;
#pragma omp parallel reduction(+ : n_below)
  {
    /* each thread's smallest ratio and its first element, then the
     * smallest over threads with the lowest element on ties (deterministic) */
    double t_worst = 1.0;
    int64_t t_elem = -1;
#pragma omp for schedule(static)
    for (int64_t e = 0; e < mesh->n_elems; ++e) {
      const double r = geometry_element_ratio(mesh, e, n, NULL);
      if (r < threshold) ++n_below;
      if (r < t_worst) {
        t_worst = r;
        t_elem = e;
      }
    }
#pragma omp critical(geometry_quality_worst)
    if (t_elem >= 0 && (t_worst < worst || (t_worst == worst && t_elem < worst_elem))) {
      worst = t_worst;
      worst_elem = t_elem;
    }
  }
  q->worst = worst;
  q->n_below = n_below;
  q->worst_elem = worst_elem;
  if (worst_elem >= 0) geometry_element_ratio(mesh, worst_elem, n, q->worst_x);
  return DG_SUCCESS;
}

void geometry_quality_warn(const dg_mesh *mesh, const geometry_quality *q, double threshold,
                           FILE *out) {
  if (!out || !mesh || !q || q->n_below == 0 || q->worst_elem < 0) return;
  const int64_t e = q->worst_elem;
  fprintf(out,
          "warning: %s: %lld curved element(s) with min/max det J below %g, the worst element "
          "%lld (tag %lld) %.3g at (%.6g, %.6g, %.6g): shock-capturing viscosity (BR2) can be "
          "unstable on so strongly curved an element; mesh the wall finer there, or set "
          "[artificial_viscosity] wall_flux = zero\n",
          mesh->source[0] ? mesh->source : "(mesh)", (long long)q->n_below, threshold, (long long)e,
          (long long)(mesh->elem_tag ? mesh->elem_tag[e] : e), q->worst, q->worst_x[0],
          q->worst_x[1], q->worst_x[2]);
}

static dg_status geometry_build_impl(const dg_mesh *mesh, const dg_topology *topo, int vol_degree,
                                     int face_degree, dg_quad_family family, dg_geometry *geom) {
  DG_CHECK(mesh->dim == 2 || mesh->dim == 3, DG_ERR_ARG, "%s: mesh dimension %d is not 2 or 3",
           mesh->source, mesh->dim);
  DG_CHECK(mesh->geom_order >= 1 && mesh->geom_order <= DG_MAX_GEOM_ORDER, DG_ERR_UNSUPPORTED,
           "%s: geometric order %d is outside 1..%d", mesh->source, mesh->geom_order,
           DG_MAX_GEOM_ORDER);
  DG_CHECK(topo->n_elems == mesh->n_elems, DG_ERR_ARG,
           "%s: topology has %lld elements, mesh %lld (built from another mesh?)", mesh->source,
           (long long)topo->n_elems, (long long)mesh->n_elems);
  geom->dim = mesh->dim;
  geom->vol_degree = vol_degree;
  geom->face_degree = face_degree;
  geom->quad_family = family;
  geom->n_elems = mesh->n_elems;
  geom->n_faces = topo->n_faces;
  const int64_t ne = mesh->n_elems, nf = topo->n_faces;

  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (mesh->shape_offset[s + 1] == mesh->shape_offset[s]) continue;
    const int64_t e = mesh->shape_offset[s];
    DG_CHECK(shape_supported((dg_shape)s) && shape_dim((dg_shape)s) == mesh->dim && s != DG_LINE,
             DG_ERR_UNSUPPORTED,
             "%s: element %lld (tag %lld) has shape %d, unsupported in a %dD mesh", mesh->source,
             (long long)e, (long long)mesh->elem_tag[e], s, mesh->dim);
    DG_CALL(quadrature_rule_family((dg_shape)s, vol_degree, family, &geom->vol_rule[s]));
    const dg_shape fs = shape_face_shape((dg_shape)s, 0);
    if (geom->face_rule[fs].n_points == 0)
      DG_CALL(quadrature_rule_family(fs, face_degree, family, &geom->face_rule[fs]));
  }
  for (int64_t e = 0; e < ne; ++e) {
    const dg_shape s = (dg_shape)mesh->elem_shape[e];
    DG_CHECK(mesh_elem_n_nodes(mesh, e) == shape_n_nodes(s, mesh->geom_order), DG_ERR_MESH,
             "%s: element %lld (tag %lld) has %d nodes, an order-%d element of its shape has %d",
             mesh->source, (long long)e, (long long)mesh->elem_tag[e], mesh_elem_n_nodes(mesh, e),
             mesh->geom_order, shape_n_nodes(s, mesh->geom_order));
  }

  DG_CALL(DG_CALLOC(geom->elem_affine, ne));
  DG_CALL(DG_CALLOC(geom->elem_volume, ne));
  DG_CALL(DG_CALLOC(geom->elem_h, ne));
  DG_CALL(DG_CALLOC(geom->vol_offset, ne + 1));
  DG_CALL(DG_CALLOC(geom->metric_offset, ne + 1));
  DG_CALL(DG_CALLOC(geom->face_offset, nf + 1));
  DG_CALL(DG_CALLOC(geom->face_area, nf));

#ifdef COLORDG_HAVE_OPENMP
#pragma omp parallel for schedule(static)
#endif
  for (int64_t e = 0; e < ne; ++e) geom->elem_affine[e] = (uint8_t)geometry_is_affine(mesh, e);

  for (int64_t e = 0; e < ne; ++e) {
    const int np = geom->vol_rule[mesh->elem_shape[e]].n_points;
    geom->vol_offset[e + 1] = geom->vol_offset[e] + np;
    geom->metric_offset[e + 1] = geom->metric_offset[e] + (geom->elem_affine[e] ? 1 : np);
  }
  for (int64_t f = 0; f < nf; ++f) {
    const int64_t e = topo->face_elem[2 * f];
    const dg_shape fs = shape_face_shape((dg_shape)mesh->elem_shape[e], topo->face_local[2 * f]);
    geom->face_offset[f + 1] = geom->face_offset[f] + geom->face_rule[fs].n_points;
  }
  const int64_t nvp = geom->vol_offset[ne], nm = geom->metric_offset[ne],
                nfp = geom->face_offset[nf];
  DG_CALL(DG_CALLOC(geom->vol_x, 3 * nvp));
  DG_CALL(DG_CALLOC(geom->vol_wdetJ, nvp));
  DG_CALL(DG_CALLOC(geom->metric_detJ, nm));
  DG_CALL(DG_CALLOC(geom->metric_invJ, 9 * nm));
  DG_CALL(DG_CALLOC(geom->face_x, 3 * nfp));
  DG_CALL(DG_CALLOC(geom->face_normal, 3 * nfp));
  DG_CALL(DG_CALLOC(geom->face_wsJ, nfp));

  /* the first bad element (lowest index) is reported, whatever the threads did */
  int64_t first_bad = ne;
#ifdef COLORDG_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 64) reduction(min : first_bad)
#endif
  for (int64_t e = 0; e < ne; ++e) {
    geometry_bad_point bad;
    if (geometry_element(mesh, geom, e, &bad) && e < first_bad) first_bad = e;
  }
  if (first_bad < ne) {
    geometry_bad_point bad;
    geometry_element(mesh, geom, first_bad, &bad);
    DG_CALL(geometry_report_bad(mesh, first_bad, &bad, "volume or face quadrature point"));
  }

  int64_t first_bad_face = nf;
#ifdef COLORDG_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 64) reduction(min : first_bad_face)
#endif
  for (int64_t f = 0; f < nf; ++f) {
    geometry_bad_point bad;
    if (geometry_face(mesh, topo, geom, f, &bad) && f < first_bad_face) first_bad_face = f;
  }
  if (first_bad_face < nf) {
    geometry_bad_point bad;
    geometry_face(mesh, topo, geom, first_bad_face, &bad);
    DG_CALL(geometry_report_bad(mesh, topo->face_elem[2 * first_bad_face], &bad,
                                "zero surface Jacobian on a face"));
  }

#ifdef COLORDG_HAVE_OPENMP
#pragma omp parallel for schedule(static)
#endif
  for (int64_t e = 0; e < ne; ++e) {
    const dg_shape s = (dg_shape)mesh->elem_shape[e];
    double volume = 0.0, surface = 0.0;
    for (int64_t k = geom->vol_offset[e]; k < geom->vol_offset[e + 1]; ++k)
      volume += geom->vol_wdetJ[k];
    for (int f = 0; f < shape_n_faces(s); ++f) {
      const int64_t face = topo->elem_face[e * DG_MAX_FACES + f];
      if (face >= 0) surface += geom->face_area[face];
    }
    geom->elem_volume[e] = volume;
    geom->elem_h[e] = surface > 0.0 ? geometry_h_factor(s) * mesh->dim * volume / surface : 0.0;
  }
  return DG_SUCCESS;
}

/* A rule's degree for solution degree p whose integrand gains `curved`
 * degrees from the map: 2p + 1 + curved, or reduced 2p + curved and at
 * least 2p + 1 (geometry_volume_degree, geometry_face_degree). */
static int geometry_rule_degree(int p, int curved, int reduced) {
  if (!reduced) return 2 * p + 1 + curved;
  return curved > 1 ? 2 * p + curved : 2 * p + 1;
}

int geometry_volume_degree(int p, int dim, int q, int reduced) {
  return geometry_rule_degree(p, dim * (q > 1 ? q - 1 : 0), reduced);
}

int geometry_mesh_volume_degree(const dg_mesh *mesh, int p, int reduced) {
  const int quads = mesh->shape_offset[DG_QUAD + 1] > mesh->shape_offset[DG_QUAD];
  const int q = mesh->geom_order > 0 ? mesh->geom_order : 1;
  return geometry_volume_degree(p, mesh->dim, q, reduced && !quads);
}

int geometry_face_degree(int p, int dim, int q, int reduced) {
  return geometry_rule_degree(p, (dim - 1) * (q > 1 ? q - 1 : 0), reduced);
}

dg_status geometry_build_family(const dg_mesh *mesh, const dg_topology *topo, int vol_degree,
                                int face_degree, dg_quad_family family, dg_geometry *geom) {
  memset(geom, 0, sizeof *geom);
  const dg_status status = geometry_build_impl(mesh, topo, vol_degree, face_degree, family, geom);
  if (status != DG_SUCCESS) {
    dg_error_trace(__FILE__, __LINE__, __func__);
    geometry_free(geom);
  }
  return status;
}

dg_status geometry_build(const dg_mesh *mesh, const dg_topology *topo, int vol_degree,
                         int face_degree, dg_geometry *geom) {
  return geometry_build_family(mesh, topo, vol_degree, face_degree, DG_QUAD_COLLAPSED, geom);
}

void geometry_free(dg_geometry *geom) {
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    quadrature_free(&geom->vol_rule[s]);
    quadrature_free(&geom->face_rule[s]);
  }
  free(geom->elem_affine);
  free(geom->elem_volume);
  free(geom->elem_h);
  free(geom->vol_offset);
  free(geom->vol_x);
  free(geom->vol_wdetJ);
  free(geom->metric_offset);
  free(geom->metric_detJ);
  free(geom->metric_invJ);
  free(geom->face_offset);
  free(geom->face_x);
  free(geom->face_normal);
  free(geom->face_wsJ);
  free(geom->face_area);
  memset(geom, 0, sizeof *geom);
}
