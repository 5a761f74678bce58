#pragma once
#include <stdio.h>
/* Reference-to-physical maps and metrics (docs/ARCHITECTURE.md §4).
 *
 * The map of an element is its Lagrange interpolant of geometric order q
 * (mesh->geom_order) through its nodes. An element is "affine" when its map
 * is affine (a straight-sided simplex: its high-order nodes, if any, sit at
 * the linear positions to round-off); it stores one Jacobian. Every other
 * element (quads, curved elements) stores metrics at each volume quadrature
 * point. Face data is stored at face quadrature points.
 *
 * Layouts
 *   volume points of element e: [vol_offset[e], vol_offset[e+1]) into vol_x (3 per point),
 *     vol_wdetJ (quadrature weight x det J)
 *   metrics of element e: [metric_offset[e], metric_offset[e+1]) into
 *     metric_detJ (1 per entry) and metric_invJ (9 per entry, row-major
 *     dξ_i/dx_j); one entry when elem_affine[e], else one per volume point
 *   face points of face f: [face_offset[f], face_offset[f+1]) into face_x
 *     (3 per point, as seen from side 0), face_normal (3, unit, outward from
 *     side 0), face_wsJ (quadrature weight x surface Jacobian)
 * The rules are the same for every element of a shape: vol_rule[shape],
 * and for faces face_rule[face shape]; the reference point of a face point
 * in either element is quadrature_face_to_elem(shape, local face, orient, ...)
 * with orient 0 for side 0 and topo->face_orient[f] for side 1. */
#include <stdint.h>

#include "core/dg_error.h"
#include "element/quadrature.h"
#include "mesh/mesh.h"
#include "mesh/topology.h"

typedef struct dg_geometry {
  int dim;
  int vol_degree;                         /* exactness degree of the volume rules */
  int face_degree;                        /* exactness degree of the face rules */
  dg_quad_family quad_family;             /* rule family asked for on triangles and tetrahedra */
  dg_quadrature vol_rule[DG_NUM_SHAPES];  /* used for the mesh's element shapes */
  dg_quadrature face_rule[DG_NUM_SHAPES]; /* used for the mesh's face shapes */

  int64_t n_elems, n_faces;
  uint8_t *elem_affine; /* [n_elems] 1 when one Jacobian describes the element */
  double *elem_volume;  /* [n_elems] area (2D) or volume (3D) */
  /* [n_elems] length scale h = c * dim * |K| / |dK| (volume over surface; for a
   * simplex dim*|K|/|dK| is its inradius), with c = 2 (quad), 2*sqrt(3) (tri),
   * 2*sqrt(6) (tet) so that h is the edge length of the square / equilateral
   * triangle / regular tetrahedron; a square cell of side a split into two
   * right triangles, or a cube split into six tets, gives h ~ 1.01 a. */
  double *elem_h;
  int64_t *vol_offset;    /* [n_elems + 1] */
  double *vol_x;          /* [n_vol_points][3] */
  double *vol_wdetJ;      /* [n_vol_points] */
  int64_t *metric_offset; /* [n_elems + 1] */
  double *metric_detJ;    /* [n_metric] */
  double *metric_invJ;    /* [n_metric][9] row-major dξ_i/dx_j (unused rows/cols 0) */
  int64_t *face_offset;   /* [n_faces + 1] */
  double *face_x;         /* [n_face_points][3] */
  double *face_normal;    /* [n_face_points][3] */
  double *face_wsJ;       /* [n_face_points] */
  double *face_area;      /* [n_faces] length (2D) or area (3D) */
} dg_geometry;

/* Evaluates the map of element e at reference point xi: physical point x and
 * Jacobian jac[i][j] = dx_i/dξ_j (row-major 3x3, identity-padded past dim). */
void geometry_map(const dg_mesh *mesh, int64_t e, const double xi[3], double x[3], double jac[9]);

/* Lagrange shape functions of shape s, order q (1..3), Gmsh node order, at
 * xi: values N[n] and gradients dN[n][3] (dN may be NULL). */
void geometry_lagrange(dg_shape s, int q, const double xi[3], double *N, double *dN);

/* The exactness degrees of the rules `colordg run` builds for solution
 * degree p on a mesh of dimension dim and geometric order q (q <= 1:
 * straight-sided). Volume: with reduced = 0 ([discretization] curved_rule
 * = mesh) 2p + 1 + dim (q - 1), the mass matrix's integrand 2p + dim
 * (q - 1) plus one; with reduced = 1 (curved_rule = reduced, the default) that
 * integrand's degree, at least 2p + 1: the mass matrix stays exact, and the
 * flux term (cofactors of J, degree (dim - 1)(q - 1), times a reference
 * gradient, p - 1, times a flux linear in the state, p) keeps the margin
 * of two degrees the affine elements' 2p + 1 has over their 2p - 1.
 * Faces: with reduced = 0
 * ([discretization] face_rule = mesh) 2p + 1 + (dim - 1)(q - 1); with
 * reduced = 1 (face_rule = reduced, the default) the degree of a test
 * function times a flux linear in the state times the scaled normal,
 * 2p + (dim - 1)(q - 1), and at least the straight-sided 2p + 1: p + 1
 * Gauss points per edge on P2 triangles instead of p + 2. */
int geometry_volume_degree(int p, int dim, int q, int reduced);
/* geometry_volume_degree for a mesh: reduced only where it has no
 * quadrilateral (a curved quadrilateral's det J has degree 2q - 1 in each
 * reference coordinate, so its mass matrix needs the mesh rule). */
int geometry_mesh_volume_degree(const dg_mesh *mesh, int p, int reduced);
int geometry_face_degree(int p, int dim, int q, int reduced);

/* Builds the geometry with volume rules exact to vol_degree and face rules
 * exact to face_degree, of rule family `family` on triangles and tetrahedra
 * (quadrature_rule_family; each rule's own `family` says which one it is).
 * Fails (DG_ERR_MESH) naming the element (source tag) and point when
 * det J <= 0 (inverted or degenerate element). */
dg_status geometry_build_family(const dg_mesh *mesh, const dg_topology *topo, int vol_degree,
                                int face_degree, dg_quad_family family, dg_geometry *geom);

/* geometry_build_family with the collapsed rules (DG_QUAD_COLLAPSED). */
dg_status geometry_build(const dg_mesh *mesh, const dg_topology *topo, int vol_degree,
                         int face_degree, dg_geometry *geom);

/* Checks det J > 0 of every curved element (geometric order > 1) on a
 * lattice of (2q + 1)^dim reference points that includes the element's
 * vertices, edges and faces (curved elements fold over at their boundary
 * first). Fails (DG_ERR_MESH) naming the first bad element (index and source
 * tag), the point and how many elements are bad. Straight-sided meshes are
 * checked at the vertices. */
dg_status geometry_check_jacobians(const dg_mesh *mesh);

/* Shape quality of curved elements: r_e = min det J / max det J over the
 * lattice of geometry_check_jacobians (1 for a straight simplex, 0 for a
 * folded element). On the ONERA M6 level-0 mesh one wall tetrahedron with
 * r = 0.074 at the leading edge had an unstable artificial-viscosity block
 * (the slip-wall viscous flux of wall_flux = ghost outweighed the
 * dissipation on its large curved wall face, src/dg/av_ops.h
 * av_face_viscous) and p = 2 LU-SGS diverged at CFL 126
 * (docs/VALIDATION_ONERA_M6.md); the next worst element there had 0.49. */
#define GEOMETRY_QUALITY_WARN 0.2
typedef struct geometry_quality {
  double worst;       /* smallest r_e (1 when no element is curved) */
  int64_t worst_elem; /* its element index (-1 when none) */
  double worst_x[3];  /* the lattice point with the smallest det J of that element */
  int64_t n_below;    /* elements with r_e < the threshold */
} geometry_quality;

/* r_e of every curved element (geometric order > 1; straight meshes give
 * worst = 1) and how many fall below threshold. Call after
 * geometry_check_jacobians (folded elements give r_e <= 0). */
dg_status geometry_jacobian_quality(const dg_mesh *mesh, double threshold, geometry_quality *q);

/* Prints "warning: ..." to out when q->n_below > 0 (nothing otherwise):
 * the count, the worst element (index and source tag), its r_e and where. */
void geometry_quality_warn(const dg_mesh *mesh, const geometry_quality *q, double threshold,
                           FILE *out);

/* Releases every array and zeroes the struct. Safe on a zeroed geometry. */
void geometry_free(dg_geometry *geom);
