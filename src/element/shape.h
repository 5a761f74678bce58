#pragma once
/* Reference shapes (Gmsh conventions), their local faces and the reference
 * coordinates of Gmsh's Lagrange nodes for geometric orders 1..3.
 *
 * Reference elements (as Gmsh):
 *   line  xi in [-1, 1]
 *   tri   (0,0) (1,0) (0,1)
 *   quad  [-1,1]^2, vertices (-1,-1) (1,-1) (1,1) (-1,1)
 *   tet   (0,0,0) (1,0,0) (0,1,0) (0,0,1)
 * Local faces list their vertices so that, for a positively oriented element,
 * the right-hand rule (3D) or "tangent then rotate clockwise" (2D) gives the
 * outward normal. Face f of a tri/quad is the edge (f, f+1 mod n).
 * Tet faces are Gmsh's: {0,2,1} {0,1,3} {0,3,2} {3,1,2}.
 *
 * Prisms and hexahedra have slots in the enum so they can be added by
 * extending these tables; they are rejected (DG_ERR_UNSUPPORTED) for now.
 * All functions are DG_HD so kernels can use them. */
#include "core/dg_hd.h"

typedef enum {
  DG_LINE = 0,
  DG_TRI = 1,
  DG_QUAD = 2,
  DG_TET = 3,
  DG_PRISM = 4, /* reserved */
  DG_HEX = 5,   /* reserved */
  DG_NUM_SHAPES = 6
} dg_shape;

#define DG_MAX_FACES 6      /* faces of any supported or reserved element */
#define DG_MAX_FACE_VERTS 4 /* vertices of any face */
#define DG_MAX_VERTS 8      /* vertices of any element */
#define DG_MAX_GEOM_ORDER 3 /* highest geometric (Lagrange) order */
#define DG_MAX_NODES                                                                               \
  64 /* nodes of any element up to DG_MAX_GEOM_ORDER (hex27 would be 64 at order 3) */
#define DG_MAX_FACE_ORIENT                                                                         \
  8 /* vertex permutations a face can have: 2 (line), 6 (tri), 8 (quad)                            \
     */

/* Topological dimension of a shape. */
DG_HD int shape_dim(dg_shape s) {
  switch (s) {
  case DG_LINE: return 1;
  case DG_TRI:
  case DG_QUAD: return 2;
  default: return 3;
  }
}

/* Number of vertices. */
DG_HD int shape_n_verts(dg_shape s) {
  switch (s) {
  case DG_LINE: return 2;
  case DG_TRI: return 3;
  case DG_QUAD: return 4;
  case DG_TET: return 4;
  case DG_PRISM: return 6;
  case DG_HEX: return 8;
  default: return 0;
  }
}

/* 1 for the shapes this build handles as elements or faces. */
DG_HD int shape_supported(dg_shape s) {
  return s == DG_LINE || s == DG_TRI || s == DG_QUAD || s == DG_TET;
}

/* Number of (codimension-1) faces of an element shape. */
DG_HD int shape_n_faces(dg_shape s) {
  switch (s) {
  case DG_TRI: return 3;
  case DG_QUAD: return 4;
  case DG_TET: return 4;
  case DG_PRISM: return 5;
  case DG_HEX: return 6;
  default: return 0;
  }
}

/* Shape of local face f of element shape s. */
DG_HD dg_shape shape_face_shape(dg_shape s, int f) {
  (void)f;
  switch (s) {
  case DG_TRI:
  case DG_QUAD: return DG_LINE;
  case DG_TET: return DG_TRI;
  default: return DG_NUM_SHAPES;
  }
}

/* Vertex k (local element numbering) of local face f of shape s; -1 past the end. */
DG_HD int shape_face_vertex(dg_shape s, int f, int k) {
  const int tet[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {3, 1, 2}};
  switch (s) {
  case DG_TRI: return k < 2 ? (f + k) % 3 : -1;
  case DG_QUAD: return k < 2 ? (f + k) % 4 : -1;
  case DG_TET: return k < 3 ? tet[f][k] : -1;
  default: return -1;
  }
}

/* Reference coordinates of vertex v (unused components set to 0). */
DG_HD void shape_vertex_ref(dg_shape s, int v, double xi[3]) {
  const double tri[3][2] = {{0, 0}, {1, 0}, {0, 1}};
  const double quad[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  const double tet[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  xi[0] = xi[1] = xi[2] = 0.0;
  switch (s) {
  case DG_LINE: xi[0] = v == 0 ? -1.0 : 1.0; break;
  case DG_TRI:
    xi[0] = tri[v][0];
    xi[1] = tri[v][1];
    break;
  case DG_QUAD:
    xi[0] = quad[v][0];
    xi[1] = quad[v][1];
    break;
  case DG_TET:
    xi[0] = tet[v][0];
    xi[1] = tet[v][1];
    xi[2] = tet[v][2];
    break;
  default: break;
  }
}

/* Measure (length, area, volume) of the reference shape. */
DG_HD double shape_ref_measure(dg_shape s) {
  switch (s) {
  case DG_LINE: return 2.0;
  case DG_TRI: return 0.5;
  case DG_QUAD: return 4.0;
  case DG_TET: return 1.0 / 6.0;
  default: return 0.0;
  }
}

/* Number of Lagrange nodes of shape s at geometric order q (1..3), Gmsh's
 * complete (not serendipity) elements. */
DG_HD int shape_n_nodes(dg_shape s, int q) {
  switch (s) {
  case DG_LINE: return q + 1;
  case DG_TRI: return (q + 1) * (q + 2) / 2;
  case DG_QUAD: return (q + 1) * (q + 1);
  case DG_TET: return (q + 1) * (q + 2) * (q + 3) / 6;
  default: return 0;
  }
}

/* Gmsh element type number of (shape, order), 0 when not supported. */
DG_HD int shape_gmsh_type(dg_shape s, int q) {
  const int line[4] = {0, 1, 8, 26}, tri[4] = {0, 2, 9, 21}, quad[4] = {0, 3, 10, 36},
            tet[4] = {0, 4, 11, 29};
  if (q < 1 || q > 3) return 0;
  switch (s) {
  case DG_LINE: return line[q];
  case DG_TRI: return tri[q];
  case DG_QUAD: return quad[q];
  case DG_TET: return tet[q];
  default: return 0;
  }
}

/* Reference coordinates of node i of the order-q Lagrange element of shape s,
 * in Gmsh's node order (vertices, then edge nodes along each edge, then face
 * and interior nodes). Values are those reported by Gmsh's
 * getElementProperties (checked by a test when Gmsh is available). */
DG_HD void shape_node_ref(dg_shape s, int q, int i, double xi[3]) {
  const double t = 1.0 / 3.0, u = 2.0 / 3.0;
  xi[0] = xi[1] = xi[2] = 0.0;
  if (i < shape_n_verts(s)) {
    shape_vertex_ref(s, i, xi);
    return;
  }
  switch (s) {
  case DG_LINE: {
    const double l3[2] = {-t, t};
    xi[0] = q == 2 ? 0.0 : l3[i - 2];
    break;
  }
  case DG_TRI: {
    const double t2[3][2] = {{0.5, 0}, {0.5, 0.5}, {0, 0.5}};
    const double t3[7][2] = {{t, 0}, {u, 0}, {u, t}, {t, u}, {0, u}, {0, t}, {t, t}};
    xi[0] = q == 2 ? t2[i - 3][0] : t3[i - 3][0];
    xi[1] = q == 2 ? t2[i - 3][1] : t3[i - 3][1];
    break;
  }
  case DG_QUAD: {
    const double q2[5][2] = {{0, -1}, {1, 0}, {0, 1}, {-1, 0}, {0, 0}};
    const double q3[12][2] = {{-t, -1}, {t, -1},  {1, -t},  {1, t},  {t, 1}, {-t, 1},
                              {-1, t},  {-1, -t}, {-t, -t}, {t, -t}, {t, t}, {-t, t}};
    xi[0] = q == 2 ? q2[i - 4][0] : q3[i - 4][0];
    xi[1] = q == 2 ? q2[i - 4][1] : q3[i - 4][1];
    break;
  }
  case DG_TET: {
    const double e2[6][3] = {{0.5, 0, 0}, {0.5, 0.5, 0}, {0, 0.5, 0},
                             {0, 0, 0.5}, {0, 0.5, 0.5}, {0.5, 0, 0.5}};
    const double e3[16][3] = {{t, 0, 0}, {u, 0, 0}, {u, t, 0}, {t, u, 0}, {0, u, 0}, {0, t, 0},
                              {0, 0, u}, {0, 0, t}, {0, t, u}, {0, u, t}, {t, 0, u}, {u, 0, t},
                              {t, t, 0}, {t, 0, t}, {0, t, t}, {t, t, t}};
    for (int d = 0; d < 3; ++d) xi[d] = q == 2 ? e2[i - 4][d] : e3[i - 4][d];
    break;
  }
  default: break;
  }
}

/* Number of vertex permutations (orientations) a face of shape fs can have. */
DG_HD int shape_n_orient(dg_shape fs) {
  switch (fs) {
  case DG_LINE: return 2;
  case DG_TRI: return 6;
  case DG_QUAD: return 8;
  default: return 1;
  }
}

/* Face orientation codes. A face is seen by side 0 with local vertices
 * (a_0..a_{n-1}) and by side 1 with (b_0..b_{n-1}); code o means
 * b_{shape_orient_perm(fs, o, k)} is the same mesh vertex as a_k.
 * Code 0 is the identity. Lines: 0 = same, 1 = reversed. Triangles: the six
 * permutations of {0,1,2}. Quads: the eight dihedral symmetries. */
DG_HD int shape_orient_perm(dg_shape fs, int o, int k) {
  const int tri[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const int quad[8][4] = {{0, 1, 2, 3}, {1, 2, 3, 0}, {2, 3, 0, 1}, {3, 0, 1, 2},
                          {0, 3, 2, 1}, {3, 2, 1, 0}, {2, 1, 0, 3}, {1, 0, 3, 2}};
  switch (fs) {
  case DG_LINE: return o == 0 ? k : 1 - k;
  case DG_TRI: return tri[o][k];
  case DG_QUAD: return quad[o][k];
  default: return k;
  }
}
