/* Wall Cp (CSV) and force coefficients from a host state. */
#include "app/surface.h"

#include <math.h>
#include <string.h>

#include <stdlib.h>

#include "app/solution_io.h"
#include "app/vtu.h"
#include "dg/physics.h"
#include "dg/residual_ops.h"
#include "element/basis.h"
#include "element/quadrature.h"
#include "mesh/geometry.h"
#include "mesh/mesh.h"

void surface_reference_from_case(const dg_case *c, int dim, dg_flow_reference *ref) {
  memset(ref, 0, sizeof *ref);
  ref->mach = c->mach;
  ref->alpha_deg = c->alpha_deg;
  ref->beta_deg = c->beta_deg;
  ref->gamma = c->gamma;
  ref->ref_length = c->ref_length;
  ref->ref_area = dim == 2 ? c->ref_length * 1.0 : c->ref_area;
  for (int d = 0; d < 3; ++d) ref->moment_center[d] = c->moment_center[d];
  ref->vtu_cells = c->vtu_cells;
  ref->vtu_subdivision = c->vtu_subdivision;
  ref->semispan = c->semispan;
  ref->n_sections = c->n_sections;
  for (int i = 0; i < c->n_sections; ++i) ref->sections[i] = c->sections[i];
}

void surface_wind_axes(const dg_flow_reference *ref, int dim, double drag[3], double lift[3],
                       double side[3]) {
  physics_wind_axes_deg(dim, ref->alpha_deg, ref->beta_deg, drag, lift, side);
}

dg_status surface_coefficients(const double raw[6], int dim, const dg_flow_reference *ref,
                               dg_force_coefs *out) {
  DG_CHECK(raw && ref && out, DG_ERR_ARG, "surface_coefficients: NULL argument");
  DG_CHECK(dim == 2 || dim == 3, DG_ERR_ARG, "surface_coefficients: dimension %d", dim);
  DG_CHECK(ref->mach > 0.0 && ref->ref_area > 0.0 && ref->ref_length > 0.0, DG_ERR_ARG,
           "force coefficients need a positive Mach number (%g), reference area (%g) and "
           "reference length (%g)",
           ref->mach, ref->ref_area, ref->ref_length);
  memset(out, 0, sizeof *out);
  for (int i = 0; i < 3; ++i) {
    out->force[i] = raw[i];
    out->moment[i] = raw[3 + i];
  }
  double drag[3], lift[3], side[3];
  surface_wind_axes(ref, dim, drag, lift, side);
  const double qs = 0.5 * ref->mach * ref->mach * ref->ref_area;
  double fd = 0.0, fl = 0.0, fs = 0.0;
  for (int i = 0; i < 3; ++i) {
    fd += raw[i] * drag[i];
    fl += raw[i] * lift[i];
    fs += raw[i] * side[i];
  }
  out->cd = fd / qs;
  out->cl = fl / qs;
  out->cy = fs / qs;
  out->cm = (dim == 2 ? -raw[5] : raw[4]) / (qs * ref->ref_length);
  return DG_SUCCESS;
}

static dg_status surface_check(const dg_disc *disc, const double *h_U, const uint8_t *group_mask,
                               const dg_flow_reference *ref) {
  DG_CHECK(disc && h_U && group_mask && ref, DG_ERR_ARG,
           "surface output: disc, state, group mask or reference values is NULL");
  DG_CHECK(disc->view.face_group && disc->view.face_x, DG_ERR_ARG,
           "surface output: the discretisation was not built");
  return DG_SUCCESS;
}

dg_status surface_forces(const dg_disc *disc, const double *h_U, const uint8_t *group_mask,
                         const dg_flow_reference *ref, dg_force_coefs *out) {
  DG_CALL(surface_check(disc, h_U, group_mask, ref));
  DG_CHECK(out, DG_ERR_ARG, "surface_forces: out is NULL");
  const dg_disc_view *d = &disc->view;
  double raw[6] = {0, 0, 0, 0, 0, 0};
  for (int64_t f = d->n_interior; f < d->n_faces; ++f) {
    const int g = d->face_group[f];
    if (g < 0 || !group_mask[g]) continue;
    double part[6];
    residual_face_force(d, f, h_U, ref->moment_center, part);
    for (int i = 0; i < 6; ++i) raw[i] += part[i];
  }
  DG_CALL(surface_coefficients(raw, d->dim, ref, out));
  return DG_SUCCESS;
}

dg_status surface_write_cp(const char *path, const dg_disc *disc, const double *h_U,
                           const uint8_t *group_mask, const dg_flow_reference *ref) {
  DG_CALL(surface_check(disc, h_U, group_mask, ref));
  DG_CHECK(path, DG_ERR_ARG, "surface_write_cp: path is NULL");
  DG_CHECK(ref->mach > 0.0 && ref->gamma > 1.0, DG_ERR_ARG,
           "%s: Cp needs a positive Mach number (got %g) and gamma > 1 (got %g)", path, ref->mach,
           ref->gamma);
  const dg_disc_view *d = &disc->view;
  const double p_inf = 1.0 / ref->gamma, q_inf = 0.5 * ref->mach * ref->mach;
  dg_atomic_file af;
  DG_CALL(dg_file_open(&af, path));
  fprintf(af.file, d->dim == 2 ? "x,y,cp,face,group\n" : "x,y,z,cp,face,group\n");
  for (int64_t f = d->n_interior; f < d->n_faces; ++f) {
    const int g = d->face_group[f];
    if (g < 0 || !group_mask[g]) continue;
    const int64_t e0 = d->face_elem[2 * f];
    const int lf0 = d->face_local[2 * f];
    for (int q = 0; q < d->nqf; ++q) {
      const int64_t k = f * d->nqf + q;
      double Uq[DG_MAX_NVAR];
      residual_trace(d, h_U, e0, lf0, 0, q, Uq);
      const double cp = (physics_pressure(d->dim, d->gamma, Uq) - p_inf) / q_inf;
      const double *x = d->face_x + k * d->dim;
      for (int i = 0; i < d->dim; ++i) fprintf(af.file, "%.16g,", x[i]);
      fprintf(af.file, "%.16g,%lld,%d\n", cp, (long long)f, g);
    }
  }
  DG_CALL(dg_file_commit(&af));
  return DG_SUCCESS;
}

/* ------------------------------------------------ wall outputs of a run */

/* One wall face: disc face f, its fluid element e (side 0) and local face
 * lf, the group g, and sign (+1 or -1) making the normal computed from the
 * face parametrisation point out of the fluid (as disc's face_normal). */
typedef struct {
  int64_t f, e;
  int lf, g;
  double sign;
} surface_face;

typedef struct {
  const dg_mesh *mesh;
  const dg_disc_view *d;
  const double *U;
  const dg_flow_reference *ref;
  surface_face *faces; /* wall faces, groups by name, then face order */
  int64_t n_faces;
  int *group_order; /* selected groups sorted by name */
  int n_groups;
} surface_walls;

/* Element reference point of face parameter uv (2D: t in [0, 1] from face
 * vertex 0 to 1; 3D: (u, v) on the face's unit triangle, vertices 0, 1, 2)
 * and the reference directions of the parameters. */
static void surface_face_ref(const surface_walls *w, const surface_face *sf, const double *uv,
                             double xi[3], double dxi[2][3]) {
  const dg_shape s = (dg_shape)w->d->elem_shape[sf->e];
  double a[3], b[3], c[3] = {0, 0, 0};
  shape_vertex_ref(s, shape_face_vertex(s, sf->lf, 0), a);
  shape_vertex_ref(s, shape_face_vertex(s, sf->lf, 1), b);
  if (w->d->dim == 3) shape_vertex_ref(s, shape_face_vertex(s, sf->lf, 2), c);
  for (int k = 0; k < 3; ++k) {
    dxi[0][k] = b[k] - a[k];
    dxi[1][k] = w->d->dim == 3 ? c[k] - a[k] : 0.0;
    xi[k] = a[k] + uv[0] * dxi[0][k] + (w->d->dim == 3 ? uv[1] * dxi[1][k] : 0.0);
  }
}

/* Physical point, parameter derivatives dx/du (and dx/dv in 3D) and the
 * unit normal out of the fluid at face parameter uv; xi_out (may be NULL)
 * the element reference point. */
static void surface_face_point(const surface_walls *w, const surface_face *sf, const double *uv,
                               double x[3], double dx[2][3], double n[3], double *xi_out) {
  double xi[3], dxi[2][3], jac[9];
  surface_face_ref(w, sf, uv, xi, dxi);
  geometry_map(w->mesh, sf->e, xi, x, jac);
  for (int p = 0; p < 2; ++p)
    for (int i = 0; i < 3; ++i) {
      dx[p][i] = 0.0;
      for (int j = 0; j < 3; ++j) dx[p][i] += jac[3 * i + j] * dxi[p][j];
    }
  if (w->d->dim == 2) {
    n[0] = dx[0][1], n[1] = -dx[0][0], n[2] = 0.0;
  } else {
    n[0] = dx[0][1] * dx[1][2] - dx[0][2] * dx[1][1];
    n[1] = dx[0][2] * dx[1][0] - dx[0][0] * dx[1][2];
    n[2] = dx[0][0] * dx[1][1] - dx[0][1] * dx[1][0];
  }
  const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (int i = 0; i < 3; ++i) n[i] *= (len > 0.0 ? sf->sign / len : 0.0);
  if (xi_out)
    for (int i = 0; i < 3; ++i) xi_out[i] = xi[i];
}

/* Conservative state of element e at reference point xi. */
static void surface_state(const surface_walls *w, int64_t e, const double xi[3], double *Uq) {
  const dg_disc_view *d = w->d;
  double phi[DG_MAX_BASIS];
  const int nb = basis_eval((dg_shape)d->elem_shape[e], d->p, xi, phi);
  for (int v = 0; v < d->nvar; ++v) {
    double sum = 0.0;
    for (int m = 0; m < nb; ++m) sum += phi[m] * w->U[disc_coef_index(d, e, v, m)];
    Uq[v] = sum;
  }
}

static double surface_cp(const surface_walls *w, const double *Uq) {
  return (physics_pressure(w->d->dim, w->ref->gamma, Uq) - 1.0 / w->ref->gamma) /
         (0.5 * w->ref->mach * w->ref->mach);
}

static const surface_walls *surface_sort_ctx;
static int surface_group_cmp(const void *a, const void *b) {
  const int ga = *(const int *)a, gb = *(const int *)b;
  const int c =
      strcmp(surface_sort_ctx->mesh->groups[ga].name, surface_sort_ctx->mesh->groups[gb].name);
  return c ? c : ga - gb;
}

static void surface_walls_free(surface_walls *w) {
  free(w->faces);
  free(w->group_order);
  memset(w, 0, sizeof *w);
}

/* Collects the wall faces, groups sorted by name. */
static dg_status surface_walls_build(const dg_mesh *mesh, const dg_disc *disc, const double *h_U,
                                     const uint8_t *group_mask, const dg_flow_reference *ref,
                                     surface_walls *w) {
  memset(w, 0, sizeof *w);
  const dg_disc_view *d = &disc->view;
  DG_CHECK(mesh->n_elems == d->n_elems && mesh->dim == d->dim && mesh->n_groups == d->n_groups,
           DG_ERR_ARG, "surface output: the mesh is not the one the discretisation was built from");
  w->mesh = mesh, w->d = d, w->U = h_U, w->ref = ref;
  DG_CALL(DG_CALLOC(w->group_order, d->n_groups > 0 ? d->n_groups : 1));
  for (int g = 0; g < d->n_groups; ++g)
    if (group_mask[g]) w->group_order[w->n_groups++] = g;
  surface_sort_ctx = w;
  qsort(w->group_order, (size_t)w->n_groups, sizeof(int), surface_group_cmp);
  int64_t n = 0;
  for (int64_t f = d->n_interior; f < d->n_faces; ++f)
    n += d->face_group[f] >= 0 && group_mask[d->face_group[f]];
  DG_CALL(DG_CALLOC(w->faces, n > 0 ? n : 1));
  for (int i = 0; i < w->n_groups; ++i)
    for (int64_t f = d->n_interior; f < d->n_faces; ++f) {
      if (d->face_group[f] != w->group_order[i]) continue;
      surface_face *sf = &w->faces[w->n_faces++];
      sf->f = f, sf->e = d->face_elem[2 * f], sf->lf = d->face_local[2 * f];
      sf->g = d->face_group[f], sf->sign = 1.0;
      const double mid[2] = {d->dim == 2 ? 0.5 : 1.0 / 3.0, 1.0 / 3.0};
      double x[3], dx[2][3], nrm[3], dot = 0.0;
      surface_face_point(w, sf, mid, x, dx, nrm, NULL);
      for (int k = 0; k < d->dim; ++k) dot += nrm[k] * d->face_normal[f * d->nqf * d->dim + k];
      sf->sign = dot < 0.0 ? -1.0 : 1.0;
    }
  return DG_SUCCESS;
}

/* Length of a 2D wall face between parameters t0 and t1 (8-point Gauss). */
static double surface_arc(const surface_walls *w, const surface_face *sf, double t0, double t1,
                          const double *gx, const double *gw) {
  double len = 0.0;
  for (int k = 0; k < 8; ++k) {
    const double t = t0 + 0.5 * (gx[k] + 1.0) * (t1 - t0);
    double x[3], dx[2][3], n[3];
    surface_face_point(w, sf, &t, x, dx, n, NULL);
    len += 0.5 * gw[k] * sqrt(dx[0][0] * dx[0][0] + dx[0][1] * dx[0][1]);
  }
  return len * fabs(t1 - t0);
}

static int surface_same(const double *a, const double *b, double tol) {
  return fabs(a[0] - b[0]) + fabs(a[1] - b[1]) + fabs(a[2] - b[2]) <= tol;
}

/* 2D surface_cp.csv: the faces of each group chained into curves by their
 * end points; each curve starts at a free end (an open wall) or, for a
 * closed one, at the face end with the largest x (the trailing edge), and
 * follows the faces' direction (fluid on the left); rows at the Gauss
 * points of every face with the arc length s from the curve's start. */
static dg_status surface_write_csv_2d(const char *path, const surface_walls *w) {
  const int64_t n = w->n_faces;
  const int nq = w->d->nqf;
  double gx[8], gw[8], qx[16], qw[16];
  DG_CALL(quadrature_gauss_jacobi(8, 0.0, 0.0, gx, gw));
  DG_CHECK(nq >= 1 && nq <= 16, DG_ERR_INTERNAL, "surface: %d points per face", nq);
  DG_CALL(quadrature_gauss_jacobi(nq, 0.0, 0.0, qx, qw));
  double *end = NULL; /* [n][2][3] end points */
  uint8_t *used = NULL;
  DG_CALL(DG_CALLOC(end, 6 * (size_t)(n > 0 ? n : 1)));
  dg_status st = DG_CALLOC(used, (size_t)(n > 0 ? n : 1));
  if (st != DG_SUCCESS) {
    free(end);
    return st;
  }
  double scale = 0.0;
  for (int64_t i = 0; i < n; ++i)
    for (int k = 0; k < 2; ++k) {
      const double t = k;
      double dx[2][3], nrm[3];
      surface_face_point(w, &w->faces[i], &t, end + 6 * i + 3 * k, dx, nrm, NULL);
      scale = fmax(scale, fabs(end[6 * i + 3 * k]) + fabs(end[6 * i + 3 * k + 1]));
    }
  const double tol = 1e-9 * fmax(scale, 1.0);
  dg_atomic_file af;
  st = dg_file_open(&af, path);
  if (st != DG_SUCCESS) {
    free(end), free(used);
    return st;
  }
  fputs("group,curve,s,x,y,cp,mach,nx,ny,face\n", af.file);
  int64_t first = 0;
  for (int gi = 0; gi < w->n_groups; ++gi) {
    int64_t last = first;
    while (last < n && w->faces[last].g == w->group_order[gi]) ++last;
    const char *name = w->mesh->groups[w->group_order[gi]].name;
    for (int curve = 0;; ++curve) {
      /* start: a free end with the largest x, else the largest-x start point */
      int64_t start = -1;
      int rev = 0, best_free = -1;
      double best_x = -HUGE_VAL;
      for (int64_t i = first; i < last; ++i) {
        if (used[i]) continue;
        for (int k = 0; k < 2; ++k) {
          const double *p = end + 6 * i + 3 * k;
          int shared = 0;
          for (int64_t j = first; j < last && !shared; ++j)
            if (j != i && !used[j])
              shared = surface_same(p, end + 6 * j, tol) || surface_same(p, end + 6 * j + 3, tol);
          if (k == 1 && shared) continue; /* a closed curve starts at a face's first end */
          const int is_free = !shared;
          if (is_free > best_free || (is_free == best_free && p[0] > best_x + tol))
            start = i, rev = k, best_free = is_free, best_x = p[0];
        }
      }
      if (start < 0) break;
      double s = 0.0;
      for (int64_t i = start; i >= 0;) {
        used[i] = 1;
        const surface_face *sf = &w->faces[i];
        const double t0 = rev ? 1.0 : 0.0;
        for (int q = 0; q < nq; ++q) {
          const double tq = 0.5 * (qx[rev ? nq - 1 - q : q] + 1.0);
          double x[3], dx[2][3], nrm[3], xi[3], Uq[DG_MAX_NVAR];
          surface_face_point(w, sf, &tq, x, dx, nrm, xi);
          surface_state(w, sf->e, xi, Uq);
          fprintf(af.file, "%s,%d,%.16g,%.16g,%.16g,%.16g,%.16g,%.16g,%.16g,%lld\n", name, curve,
                  s + surface_arc(w, sf, t0, tq, gx, gw), x[0], x[1], surface_cp(w, Uq),
                  physics_mach(2, w->ref->gamma, Uq), nrm[0], nrm[1], (long long)sf->f);
        }
        s += surface_arc(w, sf, 0.0, 1.0, gx, gw);
        const double *p = end + 6 * i + 3 * (1 - rev);
        int64_t next = -1;
        for (int64_t j = first; j < last && next < 0; ++j) {
          if (used[j]) continue;
          if (surface_same(p, end + 6 * j, tol))
            next = j, rev = 0;
          else if (surface_same(p, end + 6 * j + 3, tol))
            next = j, rev = 1;
        }
        i = next;
      }
    }
    first = last;
  }
  free(end);
  free(used);
  DG_CALL(dg_file_commit(&af));
  return DG_SUCCESS;
}

/* 3D surface_cp.csv: every face quadrature point (disc's face_x and
 * face_normal, the trace of the fluid element), groups by name. */
static dg_status surface_write_csv_3d(const char *path, const surface_walls *w) {
  const dg_disc_view *d = w->d;
  dg_atomic_file af;
  DG_CALL(dg_file_open(&af, path));
  fputs("group,x,y,z,cp,mach,nx,ny,nz,face\n", af.file);
  for (int64_t i = 0; i < w->n_faces; ++i) {
    const surface_face *sf = &w->faces[i];
    for (int q = 0; q < d->nqf; ++q) {
      const int64_t k = sf->f * d->nqf + q;
      double Uq[DG_MAX_NVAR];
      residual_trace(d, w->U, sf->e, sf->lf, 0, q, Uq);
      const double *x = d->face_x + 3 * k, *nrm = d->face_normal + 3 * k;
      fprintf(af.file, "%s,%.16g,%.16g,%.16g,%.16g,%.16g,%.16g,%.16g,%.16g,%lld\n",
              w->mesh->groups[sf->g].name, x[0], x[1], x[2], surface_cp(w, Uq),
              physics_mach(3, w->ref->gamma, Uq), nrm[0], nrm[1], nrm[2], (long long)sf->f);
    }
  }
  DG_CALL(dg_file_commit(&af));
  return DG_SUCCESS;
}

/* surface.vtu (ASCII): one VTK Lagrange curve (2D, type 68) or triangle
 * (3D, type 69) per wall face, of order max(p, q, 1) (or vtu_subdivision). */
static dg_status surface_write_vtu(const char *path, const surface_walls *w) {
  const dg_disc_view *d = w->d;
  const int n = w->ref->vtu_subdivision > 0 ? w->ref->vtu_subdivision
                                            : vtu_default_subdiv(d->p, w->mesh->geom_order);
  static double uv[3 * VTU_MAX_LAGRANGE_POINTS];
  const int np = vtu_lagrange_points(d->dim == 2 ? DG_LINE : DG_TRI, n, uv);
  DG_CHECK(np > 0, DG_ERR_ARG, "%s: Lagrange order %d is not in 1..%d", path, n, VTU_MAX_SUBDIV);
  const int64_t n_points = w->n_faces * np;
  dg_atomic_file af;
  DG_CALL(dg_file_open(&af, path));
  FILE *f = af.file;
  fprintf(f,
          "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
          "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n"
          "    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n",
          (long long)n_points, (long long)w->n_faces);
  const int has_cp = w->ref->mach > 0.0;
  const char *names[6] = {"cp", "mach", "pressure", "density", "normal", "Points"};
  fputs("      <PointData Scalars=\"cp\" Normals=\"normal\">\n", f);
  for (int a = 0; a < 6; ++a) {
    if (a == 0 && !has_cp) continue;
    if (a == 5) fputs("      </PointData>\n      <Points>\n", f);
    fprintf(f, "        <DataArray type=\"Float64\" Name=\"%s\"%s format=\"ascii\">\n", names[a],
            a >= 4 ? " NumberOfComponents=\"3\"" : "");
    for (int64_t i = 0; i < w->n_faces; ++i)
      for (int k = 0; k < np; ++k) {
        double x[3], dx[2][3], nrm[3], xi[3], Uq[DG_MAX_NVAR];
        surface_face_point(w, &w->faces[i], uv + 3 * k, x, dx, nrm, xi);
        surface_state(w, w->faces[i].e, xi, Uq);
        switch (a) {
        case 0: fprintf(f, "%.16g\n", surface_cp(w, Uq)); break;
        case 1: fprintf(f, "%.16g\n", physics_mach(d->dim, w->ref->gamma, Uq)); break;
        case 2: fprintf(f, "%.16g\n", physics_pressure(d->dim, w->ref->gamma, Uq)); break;
        case 3: fprintf(f, "%.16g\n", Uq[0]); break;
        case 4: fprintf(f, "%.16g %.16g %.16g\n", nrm[0], nrm[1], nrm[2]); break;
        default: fprintf(f, "%.16g %.16g %.16g\n", x[0], x[1], x[2]); break;
        }
      }
    fputs("        </DataArray>\n", f);
  }
  fputs("      </Points>\n      <CellData Scalars=\"group\">\n"
        "        <DataArray type=\"Int32\" Name=\"group\" format=\"ascii\">\n",
        f);
  for (int64_t i = 0; i < w->n_faces; ++i) fprintf(f, "%d\n", w->faces[i].g);
  fputs("        </DataArray>\n        <DataArray type=\"Int64\" Name=\"face\" format=\"ascii\">\n",
        f);
  for (int64_t i = 0; i < w->n_faces; ++i) fprintf(f, "%lld\n", (long long)w->faces[i].f);
  fputs("        </DataArray>\n      </CellData>\n      <Cells>\n"
        "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n",
        f);
  for (int64_t k = 0; k < n_points; ++k) fprintf(f, "%lld\n", (long long)k);
  fputs("        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" "
        "format=\"ascii\">\n",
        f);
  for (int64_t i = 1; i <= w->n_faces; ++i) fprintf(f, "%lld\n", (long long)(i * np));
  fputs(
      "        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n",
      f);
  for (int64_t i = 0; i < w->n_faces; ++i) fprintf(f, "%d\n", d->dim == 2 ? 68 : 69);
  fputs("        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n",
        f);
  DG_CALL(dg_file_commit(&af));
  return DG_SUCCESS;
}

/* ----------------------------------------------- 3D sections y = const */

typedef struct {
  double x[3], xi[3]; /* physical point, reference point in element e */
  int64_t e;
} surface_cut_point;

/* Point where the face's y equals y0 on the parameter segment a -> b (y - y0
 * changes sign between them): Newton on s with bisection safeguard. */
static void surface_cut_edge(const surface_walls *w, const surface_face *sf, const double a[2],
                             const double b[2], double ha, double hb, double y0,
                             surface_cut_point *out) {
  double lo = 0.0, hi = 1.0, s = ha / (ha - hb);
  double uv[2], dx[2][3], nrm[3];
  for (int it = 0; it < 60; ++it) {
    uv[0] = a[0] + s * (b[0] - a[0]), uv[1] = a[1] + s * (b[1] - a[1]);
    surface_face_point(w, sf, uv, out->x, dx, nrm, out->xi);
    const double h = out->x[1] - y0;
    if (fabs(h) <= 1e-14 * (1.0 + fabs(y0))) break;
    if ((h > 0.0) == (ha > 0.0))
      lo = s;
    else
      hi = s;
    const double dh = dx[0][1] * (b[0] - a[0]) + dx[1][1] * (b[1] - a[1]);
    double next = dh != 0.0 ? s - h / dh : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (fabs(next - s) < 1e-16) break;
    s = next;
  }
  out->e = sf->e;
}

/* Writes section_eta<eta>.csv for station y0 = eta * semispan. */
static dg_status surface_write_section(const char *path, const surface_walls *w, double y0) {
  const int m = 4 * (w->mesh->geom_order > 1 ? w->mesh->geom_order : 1); /* sub-triangles/edge */
  size_t cap = 256, n_seg = 0;
  surface_cut_point *seg = NULL; /* [n_seg][2] */
  DG_CALL(DG_CALLOC(seg, 2 * cap));
  double scale = 0.0;
  for (int64_t i = 0; i < w->n_faces; ++i) {
    const surface_face *sf = &w->faces[i];
    double uvl[(4 * DG_MAX_GEOM_ORDER + 1) * (4 * DG_MAX_GEOM_ORDER + 1)][2];
    double h[(4 * DG_MAX_GEOM_ORDER + 1) * (4 * DG_MAX_GEOM_ORDER + 1)];
    double ymin = HUGE_VAL, ymax = -HUGE_VAL;
    for (int j = 0; j <= m; ++j)
      for (int k = 0; k + j <= m; ++k) {
        const int id = j * (m + 1) + k;
        double x[3], dx[2][3], nrm[3];
        uvl[id][0] = (double)k / m, uvl[id][1] = (double)j / m;
        surface_face_point(w, sf, uvl[id], x, dx, nrm, NULL);
        h[id] = x[1] - y0;
        ymin = fmin(ymin, x[1]), ymax = fmax(ymax, x[1]);
        scale = fmax(scale, fabs(x[0]) + fabs(x[1]) + fabs(x[2]));
      }
    if (ymin > y0 || ymax < y0) continue;
    for (int j = 0; j < m; ++j)
      for (int k = 0; k + j < m; ++k)
        for (int up = 0; up < 2; ++up) {
          if (up && k + j + 2 > m) continue;
          int v[3];
          if (!up)
            v[0] = j * (m + 1) + k, v[1] = v[0] + 1, v[2] = v[0] + m + 1;
          else
            v[0] = j * (m + 1) + k + 1, v[1] = v[0] + m + 1, v[2] = v[1] - 1;
          surface_cut_point cut[2];
          int nc = 0;
          for (int ed = 0; ed < 3 && nc < 2; ++ed) {
            const int a = v[ed], b = v[(ed + 1) % 3];
            if ((h[a] >= 0.0) != (h[b] >= 0.0))
              surface_cut_edge(w, sf, uvl[a], uvl[b], h[a], h[b], y0, &cut[nc++]);
          }
          /* a sub-triangle that only touches the plane at a vertex, or nearly
           * (a sliver segment whose ends the chain below cannot match: it would
           * make a curve of its own) */
          if (nc < 2 || surface_same(cut[0].x, cut[1].x, 1e-6 * fmax(scale, 1.0))) continue;
          if (n_seg == cap) {
            surface_cut_point *grown = realloc(seg, 4 * cap * sizeof *seg);
            if (!grown) {
              free(seg);
              DG_ERROR(DG_ERR_MEMORY, "%s: out of memory for the section", path);
            }
            seg = grown, cap *= 2;
          }
          seg[2 * n_seg] = cut[0], seg[2 * n_seg + 1] = cut[1];
          ++n_seg;
        }
  }
  const double tol = 1e-6 * fmax(scale, 1.0);
  /* chain the segments into curves */
  uint8_t *used = NULL;
  surface_cut_point *pts = NULL;
  dg_status st = DG_CALLOC(used, n_seg + 1);
  if (st == DG_SUCCESS) st = DG_CALLOC(pts, n_seg + 2);
  dg_atomic_file af;
  if (st == DG_SUCCESS) st = dg_file_open(&af, path);
  if (st != DG_SUCCESS) {
    free(seg), free(used), free(pts);
    return st;
  }
  fputs("curve,x,y,z,x/c,cp,upper\n", af.file);
  for (int curve = 0;; ++curve) {
    /* start at a free end when there is one (an open cut), else anywhere */
    int64_t start = -1;
    int start_end = 0;
    for (size_t i = 0; i < n_seg && !(start >= 0 && start_end >= 0); ++i) {
      if (used[i]) continue;
      if (start < 0) start = (int64_t)i, start_end = -1;
      for (int k = 0; k < 2; ++k) {
        int shared = 0;
        for (size_t j = 0; j < n_seg && !shared; ++j)
          shared = j != i && !used[j] &&
                   (surface_same(seg[2 * i + k].x, seg[2 * j].x, tol) ||
                    surface_same(seg[2 * i + k].x, seg[2 * j + 1].x, tol));
        if (!shared) {
          start = (int64_t)i, start_end = k;
          break;
        }
      }
    }
    if (start < 0) break;
    const int open = start_end >= 0;
    int64_t np = 0, i = start;
    int k = open ? start_end : 0;
    pts[np++] = seg[2 * i + k];
    while (i >= 0) {
      used[i] = 1;
      const surface_cut_point *p = &seg[2 * i + 1 - k];
      int64_t next = -1;
      for (size_t j = 0; j < n_seg && next < 0; ++j) {
        if (used[j]) continue;
        if (surface_same(p->x, seg[2 * j].x, tol))
          next = (int64_t)j, k = 0;
        else if (surface_same(p->x, seg[2 * j + 1].x, tol))
          next = (int64_t)j, k = 1;
      }
      if (next >= 0 || open || !surface_same(p->x, pts[0].x, tol)) pts[np++] = *p;
      i = next;
    }
    /* leading edge (smallest x) and trailing edge (largest x) */
    int64_t le = 0, te = 0;
    for (int64_t j = 1; j < np; ++j) {
      if (pts[j].x[0] < pts[le].x[0]) le = j;
      if (pts[j].x[0] > pts[te].x[0]) te = j;
    }
    const double chord = pts[te].x[0] - pts[le].x[0];
    /* closed: from the trailing edge over the upper side (larger z first) */
    int64_t first = 0, step = 1;
    if (!open && np > 2) {
      first = te;
      const int64_t nx = (te + 1) % np, pv = (te + np - 1) % np;
      step = pts[nx].x[2] >= pts[pv].x[2] ? 1 : -1;
    }
    int upper = 1;
    for (int64_t c = 0; c < np; ++c) {
      const int64_t j = ((first + step * c) % np + np) % np;
      double Uq[DG_MAX_NVAR];
      surface_state(w, pts[j].e, pts[j].xi, Uq);
      if (open) /* above the chord line */
        upper = pts[j].x[2] >= pts[le].x[2] + (pts[te].x[2] - pts[le].x[2]) *
                                                  (pts[j].x[0] - pts[le].x[0]) /
                                                  (chord > 0.0 ? chord : 1.0);
      fprintf(af.file, "%d,%.16g,%.16g,%.16g,%.16g,%.16g,%d\n", curve, pts[j].x[0], pts[j].x[1],
              pts[j].x[2], chord > 0.0 ? (pts[j].x[0] - pts[le].x[0]) / chord : 0.0,
              surface_cp(w, Uq), upper);
      if (j == le) upper = 0;
    }
  }
  free(seg), free(used), free(pts);
  DG_CALL(dg_file_commit(&af));
  return DG_SUCCESS;
}

dg_status surface_write_outputs(const char *folder, const dg_mesh *mesh, const dg_disc *disc,
                                const double *h_U, const uint8_t *group_mask,
                                const dg_flow_reference *ref) {
  DG_CALL(surface_check(disc, h_U, group_mask, ref));
  DG_CHECK(folder && mesh, DG_ERR_ARG, "surface_write_outputs: folder or mesh is NULL");
  DG_CHECK(ref->mach > 0.0 && ref->gamma > 1.0, DG_ERR_ARG,
           "%s: wall outputs need a positive Mach number (got %g) and gamma > 1 (got %g)", folder,
           ref->mach, ref->gamma);
  surface_walls w;
  DG_CALL(surface_walls_build(mesh, disc, h_U, group_mask, ref, &w));
  char path[4096];
  dg_status st = DG_SUCCESS;
  if (strlen(folder) + 64 > sizeof path) {
    surface_walls_free(&w);
    DG_ERROR(DG_ERR_ARG, "output folder name '%s' is too long", folder);
  }
  snprintf(path, sizeof path, "%s/surface_cp.csv", folder);
  st = w.d->dim == 2 ? surface_write_csv_2d(path, &w) : surface_write_csv_3d(path, &w);
  if (st == DG_SUCCESS) {
    snprintf(path, sizeof path, "%s/surface.vtu", folder);
    st = surface_write_vtu(path, &w);
  }
  for (int i = 0; i < ref->n_sections && st == DG_SUCCESS && w.d->dim == 3; ++i) {
    snprintf(path, sizeof path, "%s/section_eta%.4g.csv", folder, ref->sections[i]);
    st = surface_write_section(path, &w, ref->sections[i] * ref->semispan);
  }
  surface_walls_free(&w);
  if (st != DG_SUCCESS) dg_error_trace(__FILE__, __LINE__, __func__);
  return st;
}
