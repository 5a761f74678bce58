/* Geometry (src/mesh/geometry.c): Lagrange shape functions, affine
 * detection, volumes, discrete divergence theorem on closed element
 * surfaces, face points and normals seen from both sides (periodic and every
 * orientation code), element sizes, inverted elements, and convergence of a
 * curved disc's area and perimeter (Gmsh). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dg_math.h"
#include "element/basis.h"
#include "element/quadrature.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "test_util.h"

static const dg_shape test_shapes[4] = {DG_LINE, DG_TRI, DG_QUAD, DG_TET};

/* Deterministic pseudo-random numbers in [0, 1). */
static double test_random(void) {
  static unsigned long long state = 88172645463325252ull;
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return (double)(state >> 11) / 9007199254740992.0;
}

/* A random point inside the reference shape. */
static void test_random_point(dg_shape s, double xi[3]) {
  xi[0] = xi[1] = xi[2] = 0.0;
  const int dim = shape_dim(s);
  if (s == DG_LINE || s == DG_QUAD) {
    for (int d = 0; d < dim; ++d) xi[d] = 2.0 * test_random() - 1.0;
    return;
  }
  do {
    for (int d = 0; d < dim; ++d) xi[d] = test_random();
  } while (xi[0] + xi[1] + xi[2] > 1.0);
}

/* A polynomial of the order-q Lagrange space of s (top degree included):
 * the interpolant must reproduce it exactly. */
static double test_space_polynomial(dg_shape s, int q, const double xi[3]) {
  if (s == DG_QUAD) return pow(xi[0] + 0.3, q) * pow(0.7 - xi[1], q) + xi[0];
  return pow(0.4 + xi[0] + 2.0 * xi[1] - xi[2], q) + 0.5 * xi[2];
}

static void test_lagrange(void) {
  for (int is = 0; is < 4; ++is)
    for (int q = 1; q <= DG_MAX_GEOM_ORDER; ++q) {
      const dg_shape s = test_shapes[is];
      const int n = shape_n_nodes(s, q), dim = shape_dim(s);
      double N[DG_MAX_NODES], dN[3 * DG_MAX_NODES];
      double err_nodal = 0.0, err_unity = 0.0, err_grad_sum = 0.0, err_fd = 0.0, err_repro = 0.0;
      for (int j = 0; j < n; ++j) {
        double xj[3];
        shape_node_ref(s, q, j, xj);
        geometry_lagrange(s, q, xj, N, NULL);
        for (int i = 0; i < n; ++i) err_nodal = fmax(err_nodal, fabs(N[i] - (i == j)));
      }
      double nodal_values[DG_MAX_NODES];
      for (int i = 0; i < n; ++i) {
        double xi[3];
        shape_node_ref(s, q, i, xi);
        nodal_values[i] = test_space_polynomial(s, q, xi);
      }
      for (int trial = 0; trial < 50; ++trial) {
        double xi[3];
        test_random_point(s, xi);
        geometry_lagrange(s, q, xi, N, dN);
        double sum = 0.0, gsum[3] = {0, 0, 0}, interp = 0.0;
        for (int i = 0; i < n; ++i) {
          sum += N[i];
          interp += N[i] * nodal_values[i];
          for (int d = 0; d < 3; ++d) gsum[d] += dN[3 * i + d];
        }
        err_unity = fmax(err_unity, fabs(sum - 1.0));
        err_repro = fmax(err_repro, fabs(interp - test_space_polynomial(s, q, xi)));
        for (int d = 0; d < 3; ++d) err_grad_sum = fmax(err_grad_sum, fabs(gsum[d]));
        const double h = 1e-6;
        for (int d = 0; d < dim; ++d) {
          double xp[3] = {xi[0], xi[1], xi[2]}, xm[3] = {xi[0], xi[1], xi[2]};
          double Np[DG_MAX_NODES], Nm[DG_MAX_NODES];
          xp[d] += h;
          xm[d] -= h;
          geometry_lagrange(s, q, xp, Np, NULL);
          geometry_lagrange(s, q, xm, Nm, NULL);
          for (int i = 0; i < n; ++i)
            err_fd = fmax(err_fd, fabs((Np[i] - Nm[i]) / (2 * h) - dN[3 * i + d]));
        }
        for (int d = dim; d < 3; ++d)
          for (int i = 0; i < n; ++i) err_fd = fmax(err_fd, fabs(dN[3 * i + d]));
      }
      printf("  lagrange shape %d order %d: nodal %.1e unity %.1e sum dN %.1e FD %.1e "
             "reproduction %.1e\n",
             s, q, err_nodal, err_unity, err_grad_sum, err_fd, err_repro);
      TEST_CHECK(err_nodal < 1e-13, "shape %d q %d: N_i(x_j) != delta_ij (%g)", s, q, err_nodal);
      TEST_CHECK(err_unity < 1e-13, "shape %d q %d: sum N != 1 (%g)", s, q, err_unity);
      TEST_CHECK(err_grad_sum < 1e-12, "shape %d q %d: sum dN != 0 (%g)", s, q, err_grad_sum);
      TEST_CHECK(err_fd < 1e-7, "shape %d q %d: dN vs finite differences %g", s, q, err_fd);
      TEST_CHECK(err_repro < 1e-12, "shape %d q %d: P_q/Q_q not reproduced (%g)", s, q, err_repro);
    }
}

/* 3x3 inverse (independent of geometry.c's). */
static double test_inverse3(const double a[9], double inv[9]) {
  const double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
                     a[2] * (a[3] * a[7] - a[4] * a[6]);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      /* cofactor of a[j][i] */
      const int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
      inv[3 * i + j] = (a[3 * r0 + c0] * a[3 * r1 + c1] - a[3 * r0 + c1] * a[3 * r1 + c0]) / det;
    }
  return det;
}

/* Outward unit normal of element e at its reference point xi on local face
 * lf, by Nanson's formula n ~ J^{-T} N_ref (not the tangent construction
 * that geometry.c uses). */
static void test_nanson_normal(const dg_mesh *mesh, int64_t e, int lf, const double xi[3],
                               double x[3], double n[3]) {
  const dg_shape s = (dg_shape)mesh->elem_shape[e];
  const dg_shape fs = shape_face_shape(s, lf);
  double fv[3][3], nref[3], centroid[3] = {0, 0, 0};
  for (int k = 0; k < shape_n_verts(fs); ++k)
    shape_vertex_ref(s, shape_face_vertex(s, lf, k), fv[k]);
  for (int v = 0; v < shape_n_verts(s); ++v) {
    double xv[3];
    shape_vertex_ref(s, v, xv);
    for (int d = 0; d < 3; ++d) centroid[d] += xv[d] / shape_n_verts(s);
  }
  if (fs == DG_LINE) {
    nref[0] = fv[1][1] - fv[0][1], nref[1] = fv[0][0] - fv[1][0], nref[2] = 0.0;
  } else {
    double a[3], b[3];
    for (int d = 0; d < 3; ++d) a[d] = fv[1][d] - fv[0][d], b[d] = fv[2][d] - fv[0][d];
    nref[0] = a[1] * b[2] - a[2] * b[1];
    nref[1] = a[2] * b[0] - a[0] * b[2];
    nref[2] = a[0] * b[1] - a[1] * b[0];
  }
  /* the reference normal must point away from the reference centroid */
  double side = 0.0;
  for (int d = 0; d < 3; ++d) side += nref[d] * (fv[0][d] - centroid[d]);
  if (side < 0)
    for (int d = 0; d < 3; ++d) nref[d] = -nref[d];
  double jac[9], inv[9];
  geometry_map(mesh, e, xi, x, jac);
  test_inverse3(jac, inv);
  double norm = 0.0;
  for (int i = 0; i < 3; ++i) {
    n[i] = 0.0;
    for (int j = 0; j < 3; ++j) n[i] += inv[3 * j + i] * nref[j];
    norm += n[i] * n[i];
  }
  norm = sqrt(norm);
  for (int i = 0; i < 3; ++i) n[i] /= norm;
}

/* Average of element e's vertices. */
static void test_vertex_centroid(const dg_mesh *mesh, int64_t e, double c[3]) {
  const int nv = shape_n_verts((dg_shape)mesh->elem_shape[e]);
  c[0] = c[1] = c[2] = 0.0;
  for (int v = 0; v < nv; ++v)
    for (int d = 0; d < 3; ++d)
      c[d] += mesh->x[3 * mesh->elem_nodes[mesh->elem_node_start[e] + v] + d] / nv;
}

typedef struct {
  int straight;      /* every element is straight-sided: check n.(x - centroid) > 0 */
  double box_volume; /* > 0: the elements must tile this volume */
  double length;     /* domain length scale for absolute tolerances */
} test_mesh_expect;

/* Everything that must hold for any valid mesh; counts orientation codes in seen[]. */
static void test_check_geometry(const char *name, const dg_mesh *mesh, const dg_topology *topo,
                                const dg_geometry *geom, test_mesh_expect expect,
                                int seen[DG_MAX_FACE_ORIENT]) {
  const int dim = mesh->dim;
  const double L = expect.length;
  double err_x = 0.0, err_wdet = 0.0, err_inv = 0.0, err_affine_jac = 0.0;
  double total_volume = 0.0;
  int64_t n_affine = 0, bad_sizes = 0;
  for (int64_t e = 0; e < mesh->n_elems; ++e) {
    const dg_shape s = (dg_shape)mesh->elem_shape[e];
    const dg_quadrature *rule = &geom->vol_rule[s];
    const int64_t v0 = geom->vol_offset[e], m0 = geom->metric_offset[e];
    const int64_t nm = geom->metric_offset[e + 1] - m0;
    n_affine += geom->elem_affine[e];
    if (geom->vol_offset[e + 1] - v0 != rule->n_points ||
        nm != (geom->elem_affine[e] ? 1 : rule->n_points))
      ++bad_sizes;
    if (!(geom->elem_volume[e] > 0.0) || !(geom->elem_h[e] > 0.0)) ++bad_sizes;
    total_volume += geom->elem_volume[e];
    for (int k = 0; k < rule->n_points; ++k) {
      double x[3], jac[9], inv[9];
      geometry_map(mesh, e, rule->xi + 3 * k, x, jac);
      const double det = test_inverse3(jac, inv);
      for (int d = 0; d < 3; ++d) err_x = fmax(err_x, fabs(x[d] - geom->vol_x[3 * (v0 + k) + d]));
      err_wdet =
          fmax(err_wdet, fabs(geom->vol_wdetJ[v0 + k] - rule->w[k] * det) / fabs(rule->w[k] * det));
      const int64_t m = geom->elem_affine[e] ? m0 : m0 + k;
      const double *ginv = geom->metric_invJ + 9 * m;
      err_wdet = fmax(err_wdet, fabs(geom->metric_detJ[m] - det) / det);
      /* invJ * J = I on the element's dimensions, zero rows/cols past them */
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          double p = 0.0;
          for (int l = 0; l < 3; ++l) p += ginv[3 * i + l] * jac[3 * l + j];
          const double want = (i == j && i < dim) ? 1.0 : 0.0;
          err_inv = fmax(err_inv, fabs(p - want));
          if (geom->elem_affine[e])
            err_affine_jac =
                fmax(err_affine_jac,
                     fabs(ginv[3 * i + j] - (i < dim && j < dim ? inv[3 * i + j] : 0.0)) *
                         geom->elem_h[e]);
        }
    }
  }
  TEST_CHECK(bad_sizes == 0, "%s: %lld bad offsets/volumes/sizes", name, (long long)bad_sizes);
  TEST_CHECK(err_x < 1e-14 * L * 10, "%s: vol_x differs from the map by %g", name, err_x);
  TEST_CHECK(err_wdet < 1e-12, "%s: wdetJ/detJ differ from the map by %g (relative)", name,
             err_wdet);
  TEST_CHECK(err_inv < 1e-11, "%s: invJ * J - I = %g", name, err_inv);
  TEST_CHECK(err_affine_jac < 1e-10, "%s: affine Jacobian differs across the element by %g", name,
             err_affine_jac);
  if (expect.box_volume > 0)
    TEST_CLOSE(total_volume, expect.box_volume, 1e-13 * expect.box_volume, "total volume");

  /* faces: side 0 data vs Nanson normals; side 1 must see the same points.
   * Per element, sum n wsJ must vanish and sum (x - c).n wsJ = dim |K| (x
   * relative to the element's centroid c, so small far-away elements keep
   * their digits) */
  double *surface_n, *surface_xn, *surface_area;
  surface_n = calloc((size_t)(3 * mesh->n_elems), sizeof *surface_n);
  surface_xn = calloc((size_t)mesh->n_elems, sizeof *surface_xn);
  surface_area = calloc((size_t)mesh->n_elems, sizeof *surface_area);
  double err_match = 0.0, err_n0 = 0.0, err_n1 = 0.0, err_unit = 0.0;
  int64_t inward = 0;
  for (int64_t f = 0; f < topo->n_faces; ++f) {
    const int64_t e0 = topo->face_elem[2 * f], e1 = topo->face_elem[2 * f + 1];
    const int l0 = topo->face_local[2 * f], l1 = topo->face_local[2 * f + 1];
    const int orient = topo->face_orient[f];
    const dg_shape s0 = (dg_shape)mesh->elem_shape[e0];
    const dg_quadrature *rule = &geom->face_rule[shape_face_shape(s0, l0)];
    const double *shift = topo->face_shift + 3 * f;
    if (e1 >= 0 && orient >= 0 && orient < DG_MAX_FACE_ORIENT) ++seen[orient];
    double centroid[3], centroid1[3];
    test_vertex_centroid(mesh, e0, centroid);
    if (e1 >= 0) test_vertex_centroid(mesh, e1, centroid1);
    for (int k = 0; k < rule->n_points; ++k) {
      const int64_t p = geom->face_offset[f] + k;
      const double *xf = geom->face_x + 3 * p, *nf = geom->face_normal + 3 * p;
      const double w = geom->face_wsJ[p];
      double xi[3], x[3], n[3], nn = 0.0, out = 0.0;
      quadrature_face_to_elem(s0, l0, 0, rule->xi + 3 * k, xi);
      test_nanson_normal(mesh, e0, l0, xi, x, n);
      for (int d = 0; d < 3; ++d) {
        err_match = fmax(err_match, fabs(x[d] - xf[d]));
        err_n0 = fmax(err_n0, fabs(n[d] - nf[d]));
        nn += nf[d] * nf[d];
        out += nf[d] * (xf[d] - centroid[d]);
        surface_n[3 * e0 + d] += nf[d] * w;
        surface_xn[e0] += (xf[d] - centroid[d]) * nf[d] * w;
      }
      surface_area[e0] += w;
      err_unit = fmax(err_unit, fabs(nn - 1.0));
      if (expect.straight && !(out > 0.0)) ++inward;
      if (e1 < 0) continue;
      const dg_shape s1 = (dg_shape)mesh->elem_shape[e1];
      double xi1[3], x1[3], n1[3];
      quadrature_face_to_elem(s1, l1, orient, rule->xi + 3 * k, xi1);
      test_nanson_normal(mesh, e1, l1, xi1, x1, n1);
      for (int d = 0; d < 3; ++d) {
        err_match = fmax(err_match, fabs(x1[d] - (xf[d] + shift[d])));
        err_n1 = fmax(err_n1, fabs(n1[d] + nf[d]));
        surface_n[3 * e1 + d] -= nf[d] * w;
        surface_xn[e1] -= (x1[d] - centroid1[d]) * nf[d] * w;
      }
      surface_area[e1] += w;
    }
  }
  double err_closed = 0.0, err_div = 0.0, err_area = 0.0;
  for (int64_t e = 0; e < mesh->n_elems; ++e) {
    const double area = surface_area[e];
    for (int d = 0; d < 3; ++d) err_closed = fmax(err_closed, fabs(surface_n[3 * e + d]) / area);
    err_div =
        fmax(err_div, fabs(surface_xn[e] - dim * geom->elem_volume[e]) / geom->elem_volume[e]);
    double faces = 0.0;
    for (int l = 0; l < shape_n_faces((dg_shape)mesh->elem_shape[e]); ++l)
      faces += geom->face_area[topo->elem_face[e * DG_MAX_FACES + l]];
    err_area = fmax(err_area, fabs(faces - area) / area);
  }
  printf("  %-34s %6lld elems %5lld affine | face match %.1e n0 %.1e n1 %.1e | closed %.1e "
         "div %.1e\n",
         name, (long long)mesh->n_elems, (long long)n_affine, err_match, err_n0, err_n1, err_closed,
         err_div);
  TEST_CHECK(err_match < 1e-13 * L, "%s: face points from the two sides differ by %g", name,
             err_match);
  TEST_CHECK(err_n0 < 1e-12, "%s: face normals differ from Nanson's by %g", name, err_n0);
  TEST_CHECK(err_n1 < 1e-12, "%s: side 1's outward normal is not -n (by %g)", name, err_n1);
  TEST_CHECK(err_unit < 1e-14, "%s: normals not unit (%g)", name, err_unit);
  TEST_CHECK(inward == 0, "%s: %lld face points with an inward normal", name, (long long)inward);
  TEST_CHECK(err_closed < 1e-13, "%s: sum of n wsJ over a closed surface = %g", name, err_closed);
  TEST_CHECK(err_div < 1e-12, "%s: surface integral of x.n != dim*volume (%g)", name, err_div);
  TEST_CHECK(err_area < 1e-13, "%s: face_area disagrees with sum of wsJ (%g)", name, err_area);
  free(surface_n);
  free(surface_xn);
  free(surface_area);
}

/* Two positively oriented tets see their common face with opposite
 * handedness, so only the odd permutations (codes 1, 2, 5) can occur; every
 * one of them must have been exercised. */
static void test_check_tet_codes(const char *name, const int seen[DG_MAX_FACE_ORIENT]) {
  for (int o = 0; o < shape_n_orient(DG_TRI); ++o) {
    const int odd = o == 1 || o == 2 || o == 5;
    TEST_CHECK(odd ? seen[o] > 0 : seen[o] == 0, "%s: %d interior faces with orientation code %d",
               name, seen[o], o);
  }
}

/* Structured meshes of every kind, order, with and without deformation and periodicity. */
static void test_structured(void) {
  int seen2[DG_MAX_FACE_ORIENT] = {0}, seen3[DG_MAX_FACE_ORIENT] = {0};
  const dg_mesh_structured_kind kinds2[3] = {MESH_STRUCTURED_TRI, MESH_STRUCTURED_QUAD,
                                             MESH_STRUCTURED_MIXED};
  const char *kind_names[4] = {"tri", "quad", "mixed", "tet"};
  for (int dim = 2; dim <= 3; ++dim)
    for (int ik = 0; ik < (dim == 2 ? 3 : 1); ++ik)
      for (int q = 1; q <= DG_MAX_GEOM_ORDER; ++q)
        for (int variant = 0; variant < 4; ++variant) {
          const int deformed = variant & 1, periodic = variant >> 1;
          dg_mesh_structured_opts o = mesh_structured_defaults(dim);
          o.kind = dim == 2 ? kinds2[ik] : MESH_STRUCTURED_TET;
          o.order = q;
          o.deform = deformed ? 0.04 : 0.0;
          o.alternate_diagonals = periodic;
          const double lo[3] = {-1.0, 0.5, 0.25}, hi[3] = {2.0, 2.0, 1.75};
          const int64_t n[3] = {6, 5, 4};
          for (int d = 0; d < 3; ++d) {
            o.lo[d] = lo[d], o.hi[d] = hi[d];
            o.n[d] = dim == 3 ? n[d] - 1 : n[d];
            o.periodic[d] = periodic && d < dim && (dim == 3 || d == 0 || variant == 3);
          }
          char name[96];
          snprintf(name, sizeof name, "%s q%d%s%s", kind_names[dim == 2 ? ik : 3], q,
                   deformed ? " deformed" : "", periodic ? " periodic" : "");
          dg_mesh mesh;
          dg_topology topo;
          dg_geometry geom;
          memset(&mesh, 0, sizeof mesh);
          memset(&topo, 0, sizeof topo);
          memset(&geom, 0, sizeof geom);
          const int degree = 3 * q > 4 ? 3 * q : 4;
          TEST_OK(dim == 2 ? mesh_structured_2d(&o, &mesh) : mesh_structured_3d(&o, &mesh));
          TEST_OK(topology_build(&mesh, &topo));
          TEST_OK(geometry_build(&mesh, &topo, degree, degree, &geom));
          if (geom.n_elems == mesh.n_elems && mesh.n_elems > 0) {
            const double volume =
                (hi[0] - lo[0]) * (hi[1] - lo[1]) * (dim == 3 ? hi[2] - lo[2] : 1);
            test_mesh_expect expect = {!deformed || q == 1 ? 1 : 0, volume, 3.0};
            /* order-1 deformed quads are bilinear and straight-sided: outwardness holds */
            test_check_geometry(name, &mesh, &topo, &geom, expect, dim == 2 ? seen2 : seen3);
            int64_t n_affine = 0;
            for (int64_t e = 0; e < mesh.n_elems; ++e) {
              n_affine += geom.elem_affine[e];
              if (mesh.elem_shape[e] == DG_QUAD)
                TEST_CHECK(!geom.elem_affine[e], "%s: quad %lld marked affine", name, (long long)e);
            }
            const int64_t n_simplex =
                mesh.n_elems - (mesh.shape_offset[DG_QUAD + 1] - mesh.shape_offset[DG_QUAD]);
            if (!deformed || q == 1)
              TEST_CHECK(n_affine == n_simplex, "%s: %lld of %lld simplices affine", name,
                         (long long)n_affine, (long long)n_simplex);
            else if (n_simplex > 0)
              TEST_CHECK(n_affine < n_simplex / 2, "%s: %lld of %lld curved simplices affine", name,
                         (long long)n_affine, (long long)n_simplex);
            if (periodic) TEST_CHECK(topo.n_periodic_faces > 0, "%s: no periodic faces", name);
          }
          geometry_free(&geom);
          topology_free(&topo);
          mesh_free(&mesh);
        }
  printf("  interior faces by orientation code, 2D:");
  for (int o = 0; o < shape_n_orient(DG_LINE); ++o) printf(" %d", seen2[o]);
  printf("; 3D:");
  for (int o = 0; o < shape_n_orient(DG_TRI); ++o) printf(" %d", seen3[o]);
  printf("\n");
  TEST_CHECK(seen2[1] > 0 && seen2[0] == 0, "2D interior faces must all be reversed (code 1)");
  test_check_tet_codes("structured tets", seen3);
}

/* h of undistorted cells of side a: quads a, right-triangle halves and Kuhn tets 1.0146 a. */
static void test_element_size(void) {
  for (int k = 0; k < 3; ++k) {
    const int dim = k == 2 ? 3 : 2;
    dg_mesh_structured_opts o = mesh_structured_defaults(dim);
    o.kind = k == 0 ? MESH_STRUCTURED_TRI : k == 1 ? MESH_STRUCTURED_QUAD : MESH_STRUCTURED_TET;
    o.n[0] = o.n[1] = o.n[2] = 4;
    const double a = 0.25;
    const double want = k == 0   ? 2.0 * sqrt(3.0) * a / (2.0 + sqrt(2.0))
                        : k == 1 ? a
                                 : sqrt(6.0) * a / (1.0 + sqrt(2.0));
    dg_mesh mesh;
    dg_topology topo;
    dg_geometry geom;
    memset(&mesh, 0, sizeof mesh);
    memset(&topo, 0, sizeof topo);
    memset(&geom, 0, sizeof geom);
    TEST_OK(dim == 2 ? mesh_structured_2d(&o, &mesh) : mesh_structured_3d(&o, &mesh));
    TEST_OK(topology_build(&mesh, &topo));
    TEST_OK(geometry_build(&mesh, &topo, 2, 2, &geom));
    double err = 0.0;
    for (int64_t e = 0; e < geom.n_elems; ++e) err = fmax(err, fabs(geom.elem_h[e] - want));
    printf("  h of %s cells of side %.2f: %.6f (expected %.6f)\n",
           k == 0   ? "tri"
           : k == 1 ? "quad"
                    : "tet",
           a, geom.n_elems ? geom.elem_h[0] : 0.0, want);
    TEST_CHECK(geom.n_elems > 0 && err < 1e-14, "element size h off by %g", err);
    geometry_free(&geom);
    topology_free(&topo);
    mesh_free(&mesh);
  }
}

/* Corrupts one element after the topology is built; geometry_build must
 * refuse the mesh naming the element's tag and the source file. */
static void test_inverted(void) {
  for (int mode = 0; mode < 3; ++mode) {
    dg_mesh_structured_opts o = mesh_structured_defaults(2);
    o.n[0] = o.n[1] = 3;
    o.order = mode == 2 ? 3 : 1;
    dg_mesh mesh;
    dg_topology topo;
    dg_geometry geom;
    memset(&mesh, 0, sizeof mesh);
    memset(&topo, 0, sizeof topo);
    memset(&geom, 0, sizeof geom);
    TEST_OK(mesh_structured_2d(&o, &mesh));
    TEST_OK(topology_build(&mesh, &topo));
    snprintf(mesh.source, sizeof mesh.source, "corrupted-mesh-%d.msh", mode);
    const int64_t e = 7;
    int64_t *nodes = mesh.elem_nodes + mesh.elem_node_start[e];
    if (mode == 0) { /* swapped vertices: negative det J everywhere */
      const int64_t t = nodes[1];
      nodes[1] = nodes[2], nodes[2] = t;
    } else if (mode == 1) { /* collapsed: vertex 2 moved onto vertex 0 */
      nodes[2] = nodes[0];
    } else { /* order 3: the private interior node thrown far outside past vertex 0 */
      double *xc = mesh.x + 3 * nodes[9];
      const double *x0 = mesh.x + 3 * nodes[0];
      for (int d = 0; d < 2; ++d) xc[d] = x0[d] - 2.0 * (xc[d] - x0[d]);
    }
    char needle[64];
    snprintf(needle, sizeof needle, "(tag %lld)", (long long)mesh.elem_tag[e]);
    TEST_FAILS(geometry_build(&mesh, &topo, 6, 6, &geom), DG_ERR_MESH, needle);
    TEST_CHECK(geom.elem_volume == NULL && geom.face_x == NULL, "failed build left arrays");
    geometry_free(&geom);
    topology_free(&topo);
    mesh_free(&mesh);
  }
}

/* geometry_check_jacobians (run by `colordg import`): a valid curved mesh
 * passes; a second-order element whose mid-edge node is pushed across the
 * element folds over near that edge and is refused, naming its tag and the
 * number of bad elements. */
static void test_check_jacobians(void) {
  for (int dim = 2; dim <= 3; ++dim)
    for (int mode = 0; mode < 2; ++mode) {
      dg_mesh_structured_opts o = mesh_structured_defaults(dim);
      o.n[0] = o.n[1] = o.n[2] = 2;
      o.order = 2;
      dg_mesh mesh;
      memset(&mesh, 0, sizeof mesh);
      TEST_OK(dim == 2 ? mesh_structured_2d(&o, &mesh) : mesh_structured_3d(&o, &mesh));
      snprintf(mesh.source, sizeof mesh.source, "folded-%dd.msh", dim);
      if (mode == 0) {
        TEST_OK(geometry_check_jacobians(&mesh));
      } else {
        /* mid-edge node of edge (0, 1) (node nv, Gmsh order) moved past the
         * opposite vertex */
        const int64_t e = 3;
        const int64_t *nodes = mesh.elem_nodes + mesh.elem_node_start[e];
        const int nv = shape_n_verts((dg_shape)mesh.elem_shape[e]);
        double *xm = mesh.x + 3 * nodes[nv];
        const double *x2 = mesh.x + 3 * nodes[2];
        for (int d = 0; d < 3; ++d) xm[d] = xm[d] + 1.5 * (x2[d] - xm[d]);
        char needle[96];
        snprintf(needle, sizeof needle, "(tag %lld)", (long long)mesh.elem_tag[e]);
        TEST_FAILS(geometry_check_jacobians(&mesh), DG_ERR_MESH, needle);
        TEST_FAILS(geometry_check_jacobians(&mesh), DG_ERR_MESH, "inverted or degenerate");
      }
      mesh_free(&mesh);
    }
}

/* geometry_jacobian_quality: straight second-order elements have min/max
 * det J = 1; an element whose mid-edge node is pushed most of the way
 * towards the opposite vertex (still not folded) is found as the worst, below
 * GEOMETRY_QUALITY_WARN, and geometry_quality_warn names it; a straight mesh
 * prints nothing. */
static void test_jacobian_quality(void) {
  for (int dim = 2; dim <= 3; ++dim) {
    dg_mesh_structured_opts o = mesh_structured_defaults(dim);
    o.n[0] = o.n[1] = o.n[2] = 2;
    o.order = 2;
    dg_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    TEST_OK(dim == 2 ? mesh_structured_2d(&o, &mesh) : mesh_structured_3d(&o, &mesh));
    snprintf(mesh.source, sizeof mesh.source, "curved-%dd.msh", dim);
    geometry_quality q;
    TEST_OK(geometry_jacobian_quality(&mesh, GEOMETRY_QUALITY_WARN, &q));
    TEST_CHECK(fabs(q.worst - 1.0) < 1e-12 && q.n_below == 0,
               "%dD straight: worst %.17g, %lld below", dim, q.worst, (long long)q.n_below);
    FILE *out = tmpfile();
    TEST_CHECK(out != NULL, "tmpfile");
    geometry_quality_warn(&mesh, &q, GEOMETRY_QUALITY_WARN, out);
    TEST_CHECK(ftell(out) == 0, "%dD straight mesh: a warning was printed", dim);
    const int64_t e = 3;
    const int64_t *nodes = mesh.elem_nodes + mesh.elem_node_start[e];
    const int nv = shape_n_verts((dg_shape)mesh.elem_shape[e]);
    double *xm = mesh.x + 3 * nodes[nv];
    const double *x2 = mesh.x + 3 * nodes[2];
    for (int d = 0; d < 3; ++d) xm[d] = xm[d] + 0.45 * (x2[d] - xm[d]);
    TEST_OK(geometry_check_jacobians(&mesh));
    TEST_OK(geometry_jacobian_quality(&mesh, GEOMETRY_QUALITY_WARN, &q));
    TEST_CHECK(q.worst > 0.0 && q.worst < GEOMETRY_QUALITY_WARN && q.worst_elem == e &&
                   q.n_below >= 1,
               "%dD curved: worst %.6g at element %lld, %lld below", dim, q.worst,
               (long long)q.worst_elem, (long long)q.n_below);
    geometry_quality_warn(&mesh, &q, GEOMETRY_QUALITY_WARN, out);
    char text[1024] = {0};
    rewind(out);
    const size_t n = fread(text, 1, sizeof text - 1, out);
    text[n] = 0;
    fclose(out);
    char needle[96];
    snprintf(needle, sizeof needle, "element %lld (tag %lld)", (long long)e,
             (long long)mesh.elem_tag[e]);
    TEST_CHECK(strstr(text, "warning: curved-") && strstr(text, needle),
               "%dD warning does not name the element: %s", dim, text);
    printf("  %dD: worst min/max det J %.4f at element %lld (%lld below %g)\n", dim, q.worst,
           (long long)q.worst_elem, (long long)q.n_below, GEOMETRY_QUALITY_WARN);
    mesh_free(&mesh);
  }
}

#ifdef COLORDG_HAVE_GMSH
/* Writes a unit disc .geo with mesh size h into the working directory. */
static int test_write_disc(const char *path, double h) {
  FILE *file = fopen(path, "w");
  if (!file) return 0;
  fprintf(file,
          "h = %.17g;\n"
          "Point(1) = {0, 0, 0, h};\nPoint(2) = {1, 0, 0, h};\nPoint(3) = {0, 1, 0, h};\n"
          "Point(4) = {-1, 0, 0, h};\nPoint(5) = {0, -1, 0, h};\n"
          "Circle(1) = {2, 1, 3};\nCircle(2) = {3, 1, 4};\nCircle(3) = {4, 1, 5};\n"
          "Circle(4) = {5, 1, 2};\nCurve Loop(1) = {1, 2, 3, 4};\nPlane Surface(1) = {1};\n"
          "Physical Curve(\"wall\") = {1, 2, 3, 4};\nPhysical Surface(\"fluid\") = {1};\n",
          h);
  return fclose(file) == 0;
}
#endif

/* Area and perimeter of Gmsh's curved unit disc converge at order q+1 or better. */
static void test_disc(void) {
#ifndef COLORDG_HAVE_GMSH
  printf("  built without Gmsh: curved disc convergence test skipped\n");
#else
  enum { N_LEVELS = 4 };
  const double sizes[N_LEVELS] = {0.4, 0.2, 0.1, 0.05};
  int seen[DG_MAX_FACE_ORIENT] = {0};
  printf(
      "  curved unit disc: q  level  wall faces  elems  area error  rate  perimeter error  rate\n");
  for (int q = 1; q <= DG_MAX_GEOM_ORDER; ++q) {
    double area_err[N_LEVELS], perim_err[N_LEVELS], n_wall[N_LEVELS];
    for (int level = 0; level < N_LEVELS; ++level) {
      char path[64];
      snprintf(path, sizeof path, "test_geometry_disc_%d.geo", level);
      TEST_CHECK(test_write_disc(path, sizes[level]), "cannot write %s", path);
      dg_mesh mesh;
      dg_topology topo;
      dg_geometry geom;
      memset(&mesh, 0, sizeof mesh);
      memset(&topo, 0, sizeof topo);
      memset(&geom, 0, sizeof geom);
      area_err[level] = perim_err[level] = n_wall[level] = NAN;
      TEST_OK(mesh_read(path, q, &mesh));
      TEST_CHECK(mesh.geom_order == q, "disc read at order %d, asked %d", mesh.geom_order, q);
      TEST_OK(topology_build(&mesh, &topo));
      const int degree = 3 * q + 1;
      TEST_OK(geometry_build(&mesh, &topo, degree, degree, &geom));
      if (geom.n_elems == mesh.n_elems && mesh.n_elems > 0) {
        char name[64];
        snprintf(name, sizeof name, "gmsh disc q%d level %d", q, level);
        test_mesh_expect expect = {q == 1, 0.0, 1.0};
        test_check_geometry(name, &mesh, &topo, &geom, expect, seen);
        double area = 0.0, perimeter = 0.0;
        for (int64_t e = 0; e < geom.n_elems; ++e) area += geom.elem_volume[e];
        const int g = mesh_find_group(&mesh, "wall");
        TEST_CHECK(g >= 0, "disc has no wall group");
        if (g >= 0) {
          for (int64_t f = topo.group_face_offset[g]; f < topo.group_face_offset[g + 1]; ++f)
            perimeter += geom.face_area[f];
          n_wall[level] = (double)(topo.group_face_offset[g + 1] - topo.group_face_offset[g]);
        }
        area_err[level] = fabs(area - DG_PI);
        perim_err[level] = fabs(perimeter - 2.0 * DG_PI);
        double area_rate = NAN, perim_rate = NAN;
        if (level > 0) {
          const double ratio = log(n_wall[level] / n_wall[level - 1]);
          area_rate = log(area_err[level - 1] / area_err[level]) / ratio;
          perim_rate = log(perim_err[level - 1] / perim_err[level]) / ratio;
        }
        printf("  %19d  %5d  %10.0f  %5lld  %10.3e  %4.2f  %15.3e  %4.2f\n", q, level,
               n_wall[level], (long long)mesh.n_elems, area_err[level], area_rate, perim_err[level],
               perim_rate);
        if (level > 0) {
          TEST_CHECK(area_rate >= q + 0.8, "disc q%d: area converges at rate %.2f < %.1f", q,
                     area_rate, q + 0.8);
          TEST_CHECK(perim_rate >= q + 0.8, "disc q%d: perimeter converges at rate %.2f < %.1f", q,
                     perim_rate, q + 0.8);
        }
      }
      geometry_free(&geom);
      topology_free(&topo);
      mesh_free(&mesh);
      remove(path);
    }
  }
#endif
}

/* Gmsh's curved unit ball (OpenCASCADE sphere): every consistency check on
 * curved tets with all face orientations, volume -> 4 pi / 3. */
static void test_ball(void) {
#ifndef COLORDG_HAVE_GMSH
  printf("  built without Gmsh: curved ball test skipped\n");
#else
  enum { N_LEVELS = 2 };
  const double sizes[N_LEVELS] = {0.5, 0.25};
  int seen[DG_MAX_FACE_ORIENT] = {0};
  for (int q = 1; q <= DG_MAX_GEOM_ORDER; ++q) {
    double err[N_LEVELS] = {NAN, NAN};
    for (int level = 0; level < N_LEVELS; ++level) {
      const char *path = "test_geometry_ball.geo";
      FILE *file = fopen(path, "w");
      TEST_CHECK(file != NULL, "cannot write %s", path);
      if (!file) return;
      fprintf(file,
              "SetFactory(\"OpenCASCADE\");\nSphere(1) = {0, 0, 0, 1};\n"
              "Physical Surface(\"wall\") = {1};\nPhysical Volume(\"fluid\") = {1};\n"
              "MeshSize{PointsOf{Volume{1};}} = %.17g;\nMesh.MeshSizeMax = %.17g;\n",
              sizes[level], sizes[level]);
      fclose(file);
      dg_mesh mesh;
      dg_topology topo;
      dg_geometry geom;
      memset(&mesh, 0, sizeof mesh);
      memset(&topo, 0, sizeof topo);
      memset(&geom, 0, sizeof geom);
      TEST_OK(mesh_read(path, q, &mesh));
      TEST_OK(topology_build(&mesh, &topo));
      const int degree = 3 * q + 1;
      TEST_OK(geometry_build(&mesh, &topo, degree, degree, &geom));
      if (geom.n_elems == mesh.n_elems && mesh.n_elems > 0) {
        char name[64];
        snprintf(name, sizeof name, "gmsh ball q%d level %d", q, level);
        test_mesh_expect expect = {q == 1, 0.0, 1.0};
        test_check_geometry(name, &mesh, &topo, &geom, expect, seen);
        double volume = 0.0;
        for (int64_t e = 0; e < geom.n_elems; ++e) volume += geom.elem_volume[e];
        err[level] = fabs(volume - 4.0 * DG_PI / 3.0);
        printf("  ball q%d level %d: volume error %.3e\n", q, level, err[level]);
      }
      geometry_free(&geom);
      topology_free(&topo);
      mesh_free(&mesh);
      remove(path);
    }
    /* two coarse unstructured levels give noisy rates: ask for rate q here;
     * the disc above asserts the full q+1 */
    TEST_CHECK(err[1] < err[0] / pow(2.0, q), "ball q%d: volume error %.3e -> %.3e, rate < %d", q,
               err[0], err[1], q);
  }
  test_check_tet_codes("gmsh ball", seen);
#endif
}

/* Σ over face f's points of wsJ n_d φ_i φ_j (φ: side 0's basis of degree
 * p at the point) into m[(d nb + i) nb + j]; returns the entries, 3 nb². */
static int face_moments(const dg_mesh *mesh, const dg_topology *topo, const dg_geometry *g,
                        int64_t f, int p, double *m) {
  const int64_t e = topo->face_elem[2 * f];
  const dg_shape s = (dg_shape)mesh->elem_shape[e];
  const int lf = topo->face_local[2 * f], nb = basis_count(s, p);
  const dg_quadrature *rule = &g->face_rule[shape_face_shape(s, lf)];
  memset(m, 0, (size_t)3 * nb * nb * sizeof *m);
  for (int64_t k = g->face_offset[f]; k < g->face_offset[f + 1]; ++k) {
    double xi[3], phi[DG_MAX_BASIS];
    quadrature_face_to_elem(s, lf, 0, &rule->xi[3 * (k - g->face_offset[f])], xi);
    basis_eval(s, p, xi, phi);
    for (int d = 0; d < mesh->dim; ++d)
      for (int i = 0; i < nb; ++i)
        for (int j = 0; j < nb; ++j)
          m[(d * nb + i) * nb + j] += g->face_wsJ[k] * g->face_normal[3 * k + d] * phi[i] * phi[j];
  }
  return 3 * nb * nb;
}

/* Element e's mass matrix Σ wdetJ φ_i φ_j into m[0 .. nb²) and its flux
 * term Σ wdetJ (∇φ_i)_d φ_j (∇ in physical coordinates: invJ at the
 * point, detJ invJ the cofactors) into m[nb² + (d nb + i) nb + j]; returns
 * the entries, (1 + dim) nb². */
static int volume_moments(const dg_mesh *mesh, const dg_geometry *g, int64_t e, int p, double *m) {
  const dg_shape s = (dg_shape)mesh->elem_shape[e];
  const int nb = basis_count(s, p), dim = mesh->dim;
  const dg_quadrature *rule = &g->vol_rule[s];
  memset(m, 0, (size_t)(1 + dim) * nb * nb * sizeof *m);
  for (int64_t k = g->vol_offset[e]; k < g->vol_offset[e + 1]; ++k) {
    const int q = (int)(k - g->vol_offset[e]);
    double phi[DG_MAX_BASIS], dphi[DG_MAX_BASIS * 3];
    basis_eval_grad(s, p, &rule->xi[3 * q], phi, dphi);
    const int64_t mk = g->elem_affine[e] ? g->metric_offset[e] : g->metric_offset[e] + q;
    const double *invJ = &g->metric_invJ[9 * mk], w = g->vol_wdetJ[k];
    for (int i = 0; i < nb; ++i)
      for (int j = 0; j < nb; ++j) {
        m[i * nb + j] += w * phi[i] * phi[j];
        for (int d = 0; d < dim; ++d) {
          double gd = 0.0; /* dφ_i/dx_d = Σ_r dφ_i/dξ_r dξ_r/dx_d */
          for (int r = 0; r < dim; ++r) gd += dphi[3 * i + r] * invJ[3 * r + d];
          m[nb * nb + (d * nb + i) * nb + j] += w * gd * phi[j];
        }
      }
  }
  return (1 + dim) * nb * nb;
}

/* The largest difference of face_moments (volume = 0: face rules of degree
 * `degree` and `degree` + 6) or volume_moments (volume = 1: volume rules of
 * those degrees) over the mesh, relative to the largest. */
static double rule_error(const dg_mesh *mesh, const dg_topology *topo, int p, int volume,
                         int degree) {
  dg_geometry a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  double worst = -1.0, scale = 0.0;
  const int other = 2 * p + 1;
  if (geometry_build_family(mesh, topo, volume ? degree : other, volume ? other : degree,
                            DG_QUAD_SYMMETRIC, &a) != DG_SUCCESS ||
      geometry_build_family(mesh, topo, volume ? degree + 6 : other, volume ? other : degree + 6,
                            DG_QUAD_SYMMETRIC, &b) != DG_SUCCESS) {
    TEST_CHECK(0, "%s rule of degree %d: geometry failed", volume ? "volume" : "face", degree);
  } else {
    double ma[4 * DG_MAX_BASIS * DG_MAX_BASIS], mb[4 * DG_MAX_BASIS * DG_MAX_BASIS];
    worst = 0.0;
    const int64_t n = volume ? mesh->n_elems : topo->n_faces;
    for (int64_t x = 0; x < n; ++x) {
      const int count =
          volume ? volume_moments(mesh, &a, x, p, ma) : face_moments(mesh, topo, &a, x, p, ma);
      if (volume)
        volume_moments(mesh, &b, x, p, mb);
      else
        face_moments(mesh, topo, &b, x, p, mb);
      for (int i = 0; i < count; ++i) {
        worst = fmax(worst, fabs(ma[i] - mb[i]));
        scale = fmax(scale, fabs(mb[i]));
      }
    }
    worst /= scale > 0.0 ? scale : 1.0;
  }
  geometry_free(&a);
  geometry_free(&b);
  return worst;
}

/* [discretization] face_rule = reduced: geometry_face_degree(p, dim, q, 1)
 * integrates a test function times a state trace (both of degree p) times
 * the scaled normal of curved faces exactly, the integrand of a flux linear
 * in the state; in 2D the rule of two degrees less (p Gauss points) does
 * not. The mesh rule is never below the reduced one. And curved_rule =
 * reduced (geometry_volume_degree(p, dim, q, 1)) integrates the mass
 * matrix and the flux term exactly on the simplices. */
static void test_face_degree(void) {
  const dg_mesh_structured_kind kinds[3] = {MESH_STRUCTURED_TRI, MESH_STRUCTURED_MIXED,
                                            MESH_STRUCTURED_TET};
  const char *names[3] = {"tri", "mixed", "tet"};
  for (int k = 0; k < 3; ++k)
    for (int q = 1; q <= 3; ++q) {
      const int dim = k == 2 ? 3 : 2;
      dg_mesh_structured_opts o = mesh_structured_defaults(dim);
      o.kind = kinds[k];
      o.order = q;
      o.deform = 0.05;
      for (int d = 0; d < dim; ++d) o.n[d] = dim == 3 ? 2 : 3;
      dg_mesh mesh;
      dg_topology topo;
      memset(&mesh, 0, sizeof mesh);
      memset(&topo, 0, sizeof topo);
      TEST_OK(dim == 2 ? mesh_structured_2d(&o, &mesh) : mesh_structured_3d(&o, &mesh));
      TEST_OK(topology_build(&mesh, &topo));
      for (int p = 0; p <= DG_MAX_P && topo.n_faces > 0; ++p) {
        const int reduced = geometry_face_degree(p, dim, q, 1);
        TEST_CHECK(reduced <= geometry_face_degree(p, dim, q, 0) && reduced >= 2 * p + 1,
                   "%s q=%d p=%d: reduced face degree %d", names[k], q, p, reduced);
        const double err = rule_error(&mesh, &topo, p, 0, reduced);
        TEST_CHECK(err >= 0.0 && err <= 1e-13,
                   "%s q=%d p=%d: face rule of degree %d is off by %.3g", names[k], q, p, reduced,
                   err);
        if (dim == 2 && q >= 2 && p >= 1) {
          const double less = rule_error(&mesh, &topo, p, 0, reduced - 2);
          TEST_CHECK(less > 1e-9, "%s q=%d p=%d: the rule of degree %d is exact too (%.3g)",
                     names[k], q, p, reduced - 2, less);
        }
        /* curved_rule = reduced: the mass matrix and the flux term of a flux
         * linear in the state exact (simplices: triangles have P_p bases;
         * quadrilaterals' Q_p and bilinear maps need more, so the mixed
         * mesh's check is the mesh rule's) */
        const int vred = geometry_volume_degree(p, dim, q, 1);
        TEST_CHECK(vred <= geometry_volume_degree(p, dim, q, 0) && vred >= 2 * p + 1,
                   "%s q=%d p=%d: reduced volume degree %d", names[k], q, p, vred);
        const int vdeg =
            kinds[k] == MESH_STRUCTURED_MIXED ? geometry_volume_degree(p, dim, q, 0) : vred;
        const double verr = rule_error(&mesh, &topo, p, 1, vdeg);
        TEST_CHECK(verr >= 0.0 && verr <= 1e-13,
                   "%s q=%d p=%d: volume rule of degree %d is off by %.3g", names[k], q, p, vdeg,
                   verr);
      }
      topology_free(&topo);
      mesh_free(&mesh);
    }
}

int main(void) {
  test_lagrange();
  test_structured();
  test_element_size();
  test_inverted();
  test_check_jacobians();
  test_jacobian_quality();
  test_disc();
  test_ball();
  test_face_degree();
  return test_finish("test_geometry");
}
