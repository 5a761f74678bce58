#pragma once
/* Programmatic meshes of a box, for tests and verification cases (no Gmsh).
 *
 * The box [lo[0],hi[0]] x [lo[1],hi[1]] (x [lo[2],hi[2]]) is cut into
 * n[0] x n[1] (x n[2]) cells, each made into elements of one kind:
 *   TRI   2D, each cell split into two triangles along the diagonal from its
 *         lower-left to its upper-right corner; with alternate_diagonals the
 *         other diagonal is used in cells with i + j odd.
 *   QUAD  2D, one quadrilateral per cell.
 *   MIXED 2D, a checkerboard: cells with i + j even are quads, the others two
 *         triangles (so every quad meets triangles across its interior faces).
 *   TET   3D, each cell split into the six Kuhn (Freudenthal) tetrahedra that
 *         share the cell's main diagonal; the split is the same in every cell,
 *         so it is conforming, and every cell face is cut along the diagonal
 *         from its lowest to its highest corner.
 *
 * Nodes. All elements have geometric order `order` (1..3). The nodes are the
 * points of the lattice with spacing 1/order of a cell, numbered
 *   node(I, J, K) = I + (order*n[0] + 1) * (J + (order*n[1] + 1) * K),
 * and every lattice point is a node of some element. Element nodes are in
 * Gmsh order (shape_node_ref), so an element's node sits at the image of its
 * Gmsh reference point under the cell's affine map, before deformation.
 *
 * Deformation. With deform = a != 0 every node (high-order nodes included)
 * is moved by
 *   x_d += a * L_d * sin(2 pi s_d) * prod_{e != d} cos(2 pi s_e),
 *   s_e = (x_e - lo[e]) / L_e,  L_e = hi[e] - lo[e],
 * which is smooth, keeps every box side planar (nodes slide along it), and is
 * periodic, so periodic sides stay translates of one another. Order-1 meshes
 * become irregular; order 2 and 3 elements become genuinely curved. Keep
 * |a| <= 0.05 for cells of aspect ratio near 1 (a larger amplitude can
 * invert elements; the generator checks the vertices' orientation).
 *
 * Boundary. Each non-periodic side is a physical group named "xmin", "xmax",
 * "ymin", "ymax" ("zmin", "zmax"), in that order, with Gmsh-like tag = group
 * index + 1; its bfaces are the element faces on it (lines in 2D, triangles
 * in 3D). A periodic axis has no groups and no bfaces; instead every node on
 * its max side is linked (periodic_slave -> periodic_master) to its image on
 * the min side. A node on the max side of several periodic axes (an edge or
 * corner) is linked once, directly to its image with all those coordinates
 * wrapped to the min sides, so every slave has exactly one master and no
 * master is itself a slave. A periodic axis needs n >= 3 cells (with fewer,
 * two distinct edges would join the same pair of wrapped vertices).
 *
 * Numbering. Elements are grouped by shape (triangles before quads), in cell
 * order (x fastest) inside a shape, the elements of a cell consecutive;
 * elem_tag = 1-based element index; bface tags continue after the element
 * tags (unique tags as in a Gmsh file). Elements are positively oriented. */
#include <stdint.h>

#include "core/dg_error.h"
#include "mesh/mesh.h"

typedef enum {
  MESH_STRUCTURED_TRI = 0,
  MESH_STRUCTURED_QUAD = 1,
  MESH_STRUCTURED_MIXED = 2,
  MESH_STRUCTURED_TET = 3
} dg_mesh_structured_kind;

typedef struct {
  dg_mesh_structured_kind kind;
  int order;               /* geometric order 1..3 */
  int64_t n[3];            /* cells along x, y, z (n[2] unused in 2D), >= 1 */
  double lo[3], hi[3];     /* box corners (lo[2], hi[2] unused in 2D) */
  int periodic[3];         /* nonzero: the axis is periodic (needs n >= 3) */
  int alternate_diagonals; /* TRI/MIXED: flip the diagonal in cells with i + j odd */
  double deform;           /* relative amplitude a of the smooth deformation; 0 = none */
} dg_mesh_structured_opts;

/* Default options: unit box [0,1]^dim, 4 cells per axis, order 1, no
 * periodicity, no deformation, TRI in 2D and TET in 3D. */
dg_mesh_structured_opts mesh_structured_defaults(int dim);

/* Generates a 2D mesh (kind TRI, QUAD or MIXED) into `mesh`, which must be
 * zeroed or freed; the caller releases it with mesh_free(). DG_ERR_ARG on
 * invalid options (naming the option), DG_ERR_MESH when the deformation
 * inverts an element (naming its tag). */
dg_status mesh_structured_2d(const dg_mesh_structured_opts *opts, dg_mesh *mesh);

/* Generates a 3D mesh (kind TET) into `mesh`; as mesh_structured_2d. */
dg_status mesh_structured_3d(const dg_mesh_structured_opts *opts, dg_mesh *mesh);

/* Moves every node of a 3D mesh by the z-independent map
 *   (x, y, z) += L a (sin X cos Y, cos X sin Y, sin X sin Y), X = 2πx/L, Y = 2πy/L,
 * which keeps sides periodic in x and y (period L) exact translates and
 * curves the elements of geometric order >= 2 alike in every z layer (the
 * generator's own deformation varies along z at the scale of one cell). */
void mesh_structured_deform_xy(dg_mesh *mesh, double period, double a);
