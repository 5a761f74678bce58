#pragma once
/* Quadrature rules on the reference shapes of src/element/shape.h.
 *
 * quadrature_rule() returns a rule exact for every polynomial of total
 * degree <= degree (tri, tet; line) or of degree <= degree in each variable
 * (quad, tensor Gauss). Weights sum to shape_ref_measure(). Line rules are
 * Gauss–Legendre on [-1,1]; quads are tensor Gauss. Triangles and
 * tetrahedra have two families (dg_quad_family), all points interior and
 * all weights positive in both:
 *   collapsed  Gauss–Jacobi (Duffy) product rules, n = degree/2 + 1 points
 *              per direction (n^2 on a triangle, n^3 on a tetrahedron);
 *   symmetric  fully symmetric rules (quadrature_symmetric.h), 1.3-2.7x
 *              fewer points: triangles and tetrahedra of degree 1..13 (the
 *              run needs at most 11 on triangles, 13 on tetrahedra: p = 3,
 *              q = 3). Where the table has no rule exact to the degree
 *              (degree 14 and above), or its rule has more points than the
 *              collapsed one (triangles of degree 3: 6 points against 4),
 *              the collapsed rule is used; the returned rule's `family`
 *              says which one was built.
 * Lines and quads are the same in both families.
 * Supported degrees: 0..DG_MAX_QUAD_DEGREE. */
#include "core/dg_error.h"
#include "element/shape.h"

#define DG_MAX_QUAD_DEGREE 21

/* Rule family of triangles and tetrahedra (case key [discretization]
 * quadrature, docs/CASE_FILE.md). */
typedef enum { DG_QUAD_COLLAPSED = 0, DG_QUAD_SYMMETRIC = 1 } dg_quad_family;

typedef struct dg_quadrature {
  dg_shape shape;
  dg_quad_family family; /* the family that built this rule (collapsed where symmetric fell back) */
  int degree;            /* exactness degree requested */
  int n_points;          /* number of points */
  double *xi;            /* [n_points][3] reference coordinates (unused components 0) */
  double *w;             /* [n_points] weights */
} dg_quadrature;

/* Builds the collapsed-family rule (allocates xi, w):
 * quadrature_rule_family(shape, degree, DG_QUAD_COLLAPSED, rule). */
dg_status quadrature_rule(dg_shape shape, int degree, dg_quadrature *rule);

/* Builds the rule of `family` (allocates xi, w); see the top of this file
 * for when the symmetric family falls back to the collapsed rule. */
dg_status quadrature_rule_family(dg_shape shape, int degree, dg_quad_family family,
                                 dg_quadrature *rule);

/* "collapsed" or "symmetric" ("?" for anything else). */
const char *quadrature_family_name(dg_quad_family family);

/* Releases the arrays. Safe on a zeroed rule. */
void quadrature_free(dg_quadrature *rule);

/* Gauss–Jacobi nodes and weights on [-1,1] for weight (1-x)^alpha (1+x)^beta,
 * n points (n >= 1), exact to degree 2n-1; x ascending. */
dg_status quadrature_gauss_jacobi(int n, double alpha, double beta, double *x, double *w);

/* Maps a point given on face shape fs (line: xi[0] in [-1,1]; tri: the
 * reference triangle) onto local face f of element shape s, seen with
 * orientation code `orient` (shape_orient_perm): orient 0 is side 0's own
 * parametrisation; side 1 of a face uses the face's code so that both sides
 * land on the same physical point. Writes element reference coordinates. */
DG_HD void quadrature_face_to_elem(dg_shape s, int f, int orient, const double face_xi[3],
                                   double xi[3]) {
  const dg_shape fs = shape_face_shape(s, f);
  const int nv = shape_n_verts(fs);
  double lam[DG_MAX_FACE_VERTS] = {0, 0, 0, 0};
  if (fs == DG_LINE) {
    lam[0] = 0.5 * (1.0 - face_xi[0]);
    lam[1] = 0.5 * (1.0 + face_xi[0]);
  } else if (fs == DG_TRI) {
    lam[0] = 1.0 - face_xi[0] - face_xi[1];
    lam[1] = face_xi[0];
    lam[2] = face_xi[1];
  } else { /* quad faces (hex, reserved): bilinear weights */
    lam[0] = 0.25 * (1 - face_xi[0]) * (1 - face_xi[1]);
    lam[1] = 0.25 * (1 + face_xi[0]) * (1 - face_xi[1]);
    lam[2] = 0.25 * (1 + face_xi[0]) * (1 + face_xi[1]);
    lam[3] = 0.25 * (1 - face_xi[0]) * (1 + face_xi[1]);
  }
  xi[0] = xi[1] = xi[2] = 0.0;
  for (int k = 0; k < nv; ++k) {
    /* side 0's face vertex k is this element's face vertex perm(k) */
    const int v = shape_face_vertex(s, f, shape_orient_perm(fs, orient, k));
    double xv[3];
    shape_vertex_ref(s, v, xv);
    for (int d = 0; d < 3; ++d) xi[d] += lam[k] * xv[d];
  }
}
