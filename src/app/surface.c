/* Wall Cp (CSV) and force coefficients from a host state. */
#include "app/surface.h"

#include <math.h>
#include <string.h>

#include "app/solution_io.h"
#include "dg/residual_ops.h"

#define SURFACE_PI 3.14159265358979323846

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
  const double a = ref->alpha_deg * SURFACE_PI / 180.0;
  const double b = dim == 2 ? 0.0 : ref->beta_deg * SURFACE_PI / 180.0;
  if (dim == 2) {
    drag[0] = cos(a), drag[1] = sin(a), drag[2] = 0.0;
    lift[0] = -sin(a), lift[1] = cos(a), lift[2] = 0.0;
    side[0] = side[1] = side[2] = 0.0;
    return;
  }
  drag[0] = cos(a) * cos(b), drag[1] = sin(b), drag[2] = sin(a) * cos(b);
  lift[0] = -sin(a), lift[1] = 0.0, lift[2] = cos(a);
  side[0] = lift[1] * drag[2] - lift[2] * drag[1];
  side[1] = lift[2] * drag[0] - lift[0] * drag[2];
  side[2] = lift[0] * drag[1] - lift[1] * drag[0];
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
