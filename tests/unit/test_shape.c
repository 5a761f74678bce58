/* Checks the reference-shape tables of src/element/shape.h: Lagrange node
 * coordinates against Gmsh's own (when the SDK is available), node
 * placement, outward face vertex orderings and the face orientation codes. */
#include <math.h>
#include <string.h>

#include "element/shape.h"
#include "test_util.h"

#ifdef COLORDG_HAVE_GMSH
#include <gmshc.h>
#endif

static const dg_shape test_shapes[4] = {DG_LINE, DG_TRI, DG_QUAD, DG_TET};

/* Gmsh's getElementProperties must report the same nodes in the same order. */
static void test_nodes_against_gmsh(void) {
#ifdef COLORDG_HAVE_GMSH
  int ierr = 0;
  gmshInitialize(0, NULL, 0, &ierr);
  TEST_CHECK(ierr == 0, "gmshInitialize failed (%d)", ierr);
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  for (int is = 0; is < 4; ++is)
    for (int q = 1; q <= DG_MAX_GEOM_ORDER; ++q) {
      const dg_shape s = test_shapes[is];
      const int type = shape_gmsh_type(s, q);
      TEST_CHECK(type > 0, "shape %d order %d has no Gmsh type", s, q);
      char *name = NULL;
      int dim = 0, order = 0, n_nodes = 0, n_primary = 0;
      double *coord = NULL;
      size_t n_coord = 0;
      gmshModelMeshGetElementProperties(type, &name, &dim, &order, &n_nodes, &coord, &n_coord,
                                        &n_primary, &ierr);
      TEST_CHECK(ierr == 0, "getElementProperties(%d) failed", type);
      TEST_CHECK(dim == shape_dim(s), "%s: dim %d vs shape_dim %d", name, dim, shape_dim(s));
      TEST_CHECK(order == q, "%s: order %d vs %d", name, order, q);
      TEST_CHECK(n_nodes == shape_n_nodes(s, q), "%s: %d nodes vs shape_n_nodes %d", name, n_nodes,
                 shape_n_nodes(s, q));
      TEST_CHECK(n_primary == shape_n_verts(s), "%s: %d primary nodes vs %d vertices", name,
                 n_primary, shape_n_verts(s));
      const size_t stride = n_nodes > 0 ? n_coord / (size_t)n_nodes : 0;
      TEST_CHECK(stride == (size_t)dim || stride == 3, "%s: %zu coordinates for %d nodes", name,
                 n_coord, n_nodes);
      int mismatches = 0;
      for (int i = 0; i < n_nodes && i < shape_n_nodes(s, q) && stride > 0; ++i) {
        double xi[3];
        shape_node_ref(s, q, i, xi);
        for (int d = 0; d < dim; ++d)
          if (fabs(xi[d] - coord[stride * i + d]) > 1e-14) {
            ++mismatches;
            fprintf(stderr, "  %s node %d coordinate %d: shape.h %.17g, Gmsh %.17g\n", name, i, d,
                    xi[d], coord[stride * i + d]);
          }
      }
      TEST_CHECK(mismatches == 0, "%s: %d node coordinates differ from Gmsh", name, mismatches);
      printf("  %-12s (type %2d): %2d nodes match Gmsh\n", name, type, n_nodes);
      gmshFree(name);
      gmshFree(coord);
    }
  gmshFinalize(&ierr);
#else
  printf("  built without Gmsh: node coordinates not compared with Gmsh\n");
#endif
}

/* Barycentric coordinates (simplices) or bounds (line, quad) of a point. */
static int test_inside(dg_shape s, const double xi[3], double tol) {
  switch (s) {
  case DG_LINE: return fabs(xi[0]) <= 1 + tol;
  case DG_QUAD: return fabs(xi[0]) <= 1 + tol && fabs(xi[1]) <= 1 + tol;
  case DG_TRI: return xi[0] >= -tol && xi[1] >= -tol && xi[0] + xi[1] <= 1 + tol;
  case DG_TET:
    return xi[0] >= -tol && xi[1] >= -tol && xi[2] >= -tol && xi[0] + xi[1] + xi[2] <= 1 + tol;
  default: return 0;
  }
}

/* Structural properties that hold without Gmsh: vertices first, nodes
 * distinct and inside the reference element, q-1 nodes inside each edge in
 * Gmsh's order (from the edge's first vertex to its second). */
static void test_node_tables(void) {
  for (int is = 0; is < 4; ++is)
    for (int q = 1; q <= DG_MAX_GEOM_ORDER; ++q) {
      const dg_shape s = test_shapes[is];
      const int n = shape_n_nodes(s, q), nv = shape_n_verts(s);
      TEST_CHECK(n <= DG_MAX_NODES, "shape %d order %d: %d nodes > DG_MAX_NODES", s, q, n);
      double xi[DG_MAX_NODES][3];
      for (int i = 0; i < n; ++i) shape_node_ref(s, q, i, xi[i]);
      for (int v = 0; v < nv; ++v) {
        double xv[3];
        shape_vertex_ref(s, v, xv);
        for (int d = 0; d < 3; ++d) TEST_CLOSE(xi[v][d], xv[d], 0.0, "vertex node");
      }
      for (int i = 0; i < n; ++i) {
        TEST_CHECK(test_inside(s, xi[i], 1e-15), "shape %d order %d node %d outside", s, q, i);
        for (int j = i + 1; j < n; ++j) {
          const double d2 = (xi[i][0] - xi[j][0]) * (xi[i][0] - xi[j][0]) +
                            (xi[i][1] - xi[j][1]) * (xi[i][1] - xi[j][1]) +
                            (xi[i][2] - xi[j][2]) * (xi[i][2] - xi[j][2]);
          TEST_CHECK(d2 > 1e-6, "shape %d order %d nodes %d and %d coincide", s, q, i, j);
        }
      }
    }
  /* tri and quad edge nodes follow the faces (f, f+1) from vertex f to f+1 */
  for (int is = 1; is <= 2; ++is) {
    const dg_shape s = test_shapes[is];
    for (int q = 2; q <= DG_MAX_GEOM_ORDER; ++q)
      for (int f = 0; f < shape_n_faces(s); ++f) {
        double a[3], b[3];
        shape_vertex_ref(s, shape_face_vertex(s, f, 0), a);
        shape_vertex_ref(s, shape_face_vertex(s, f, 1), b);
        for (int k = 1; k < q; ++k) {
          double xi[3];
          shape_node_ref(s, q, shape_n_verts(s) + f * (q - 1) + (k - 1), xi);
          const double t = (double)k / q;
          for (int d = 0; d < 2; ++d)
            TEST_CLOSE(xi[d], a[d] + t * (b[d] - a[d]), 1e-15, "edge node on its edge");
        }
      }
  }
}

/* Face normals built the way geometry.c builds them must point out of the
 * reference element, and the faces must cover each vertex subset once. */
static void test_faces_outward(void) {
  for (int is = 1; is < 4; ++is) {
    const dg_shape s = test_shapes[is];
    const int nv = shape_n_verts(s), nf = shape_n_faces(s);
    double centroid[3] = {0, 0, 0};
    for (int v = 0; v < nv; ++v) {
      double xv[3];
      shape_vertex_ref(s, v, xv);
      for (int d = 0; d < 3; ++d) centroid[d] += xv[d] / nv;
    }
    int seen_mask[DG_MAX_FACES];
    for (int f = 0; f < nf; ++f) {
      const dg_shape fs = shape_face_shape(s, f);
      const int fnv = shape_n_verts(fs);
      double fv[DG_MAX_FACE_VERTS][3], fc[3] = {0, 0, 0}, n[3];
      int mask = 0;
      for (int k = 0; k < fnv; ++k) {
        const int v = shape_face_vertex(s, f, k);
        TEST_CHECK(v >= 0 && v < nv, "shape %d face %d vertex %d = %d", s, f, k, v);
        mask |= 1 << v;
        shape_vertex_ref(s, v, fv[k]);
        for (int d = 0; d < 3; ++d) fc[d] += fv[k][d] / fnv;
      }
      TEST_CHECK(shape_face_vertex(s, f, fnv) == -1, "shape %d face %d: no -1 past the end", s, f);
      TEST_CHECK(__builtin_popcount(mask) == fnv, "shape %d face %d repeats a vertex", s, f);
      seen_mask[f] = mask;
      for (int g = 0; g < f; ++g)
        TEST_CHECK(seen_mask[g] != mask, "shape %d faces %d and %d coincide", s, g, f);
      if (fs == DG_LINE) {
        const double t[2] = {fv[1][0] - fv[0][0], fv[1][1] - fv[0][1]};
        n[0] = t[1], n[1] = -t[0], n[2] = 0;
      } else {
        double a[3], b[3];
        for (int d = 0; d < 3; ++d) a[d] = fv[1][d] - fv[0][d], b[d] = fv[2][d] - fv[0][d];
        n[0] = a[1] * b[2] - a[2] * b[1];
        n[1] = a[2] * b[0] - a[0] * b[2];
        n[2] = a[0] * b[1] - a[1] * b[0];
      }
      double dot = 0.0;
      for (int d = 0; d < 3; ++d) dot += n[d] * (fc[d] - centroid[d]);
      TEST_CHECK(dot > 0.0, "shape %d face %d: normal points inward (n.(xf-xc) = %g)", s, f, dot);
      /* every vertex not on the face lies behind it */
      for (int v = 0; v < nv; ++v) {
        if (mask & (1 << v)) continue;
        double xv[3], d2 = 0.0;
        shape_vertex_ref(s, v, xv);
        for (int d = 0; d < 3; ++d) d2 += n[d] * (xv[d] - fv[0][d]);
        TEST_CHECK(d2 < 0.0, "shape %d face %d: vertex %d in front of the face", s, f, v);
      }
    }
    TEST_CHECK(shape_n_faces(s) <= DG_MAX_FACES, "too many faces");
  }
}

/* Orientation codes: code 0 is the identity, each is a permutation, all differ. */
static void test_orientations(void) {
  const dg_shape face_shapes[3] = {DG_LINE, DG_TRI, DG_QUAD};
  for (int i = 0; i < 3; ++i) {
    const dg_shape fs = face_shapes[i];
    const int no = shape_n_orient(fs), nv = shape_n_verts(fs);
    TEST_CHECK(no <= DG_MAX_FACE_ORIENT, "face shape %d: %d orientations", fs, no);
    int perms[DG_MAX_FACE_ORIENT][DG_MAX_FACE_VERTS];
    for (int o = 0; o < no; ++o) {
      int used = 0;
      for (int k = 0; k < nv; ++k) {
        const int p = shape_orient_perm(fs, o, k);
        perms[o][k] = p;
        TEST_CHECK(p >= 0 && p < nv, "face shape %d code %d: perm(%d) = %d", fs, o, k, p);
        if (p >= 0 && p < nv) used |= 1 << p;
        if (o == 0) TEST_CHECK(p == k, "face shape %d: code 0 is not the identity", fs);
      }
      TEST_CHECK(used == (1 << nv) - 1, "face shape %d code %d is not a permutation", fs, o);
      for (int o2 = 0; o2 < o; ++o2)
        TEST_CHECK(memcmp(perms[o], perms[o2], sizeof perms[o]) != 0,
                   "face shape %d codes %d and %d are the same permutation", fs, o2, o);
    }
    if (fs == DG_QUAD) {
      /* dihedral: neighbours on the square stay neighbours */
      for (int o = 0; o < no; ++o)
        for (int k = 0; k < nv; ++k) {
          const int diff = (perms[o][(k + 1) % 4] - perms[o][k] + 4) % 4;
          TEST_CHECK(diff == 1 || diff == 3, "quad code %d breaks adjacency", o);
        }
    }
  }
}

int main(void) {
  test_nodes_against_gmsh();
  test_node_tables();
  test_faces_outward();
  test_orientations();
  return test_finish("test_shape");
}
