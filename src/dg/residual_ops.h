#pragma once
/* Per-face and per-element arithmetic of the DG residual, explicit update,
 * time step and forces: one source for the CPU loops and the CUDA kernels
 * (docs/ARCHITECTURE.md §3). Each function handles one face or one element; backends
 * call them as `for each f: residual_face(...)` then
 * `for each e: residual_element(...)`.
 *
 * Weak form, per element e and mode m (no mass matrix applied):
 *   R_e,m = ∫_e F(U)·∇φ_m dx − Σ_faces ∫_f H(U⁻, U⁺, n) φ_m ds
 * with n outward from e. dU/dt = M⁻¹ R.
 *
 * Race-free face accumulation: residual_face writes H·n·wsJ at every point of
 * face f into face_flux (read-only elsewhere); residual_element gathers the
 * face fluxes of its own faces (side 0 subtracts, side 1 adds, because n is
 * side 0's outward normal). No two threads write one address, and the sum
 * order is fixed, so results are deterministic.
 *
 * Argument access: U, face_flux read; outputs written, never incremented.
 * Local arrays are sized for the largest case (tet, p = 3, 3D). */
#include "dg/disc.h"
#include "dg/physics.h"
#include "element/basis.h"

/* State of element e (coefficients U) at face point q of its local face lf
 * seen with orientation code o. */
DG_HD void residual_trace(const dg_disc_view *d, const double *U, int64_t e, int lf, int o, int q,
                          double *Uq) {
  const int s = d->elem_shape[e], nb = d->nb[s];
  const double *phi = d->face_phi + d->face_table[s][lf][o] + (int64_t)q * nb;
  for (int v = 0; v < d->nvar; ++v) {
    double sum = 0.0;
    for (int m = 0; m < nb; ++m) sum += phi[m] * U[disc_coef_index(d, e, v, m)];
    Uq[v] = sum;
  }
}

/* Exact state at a point (freestream or the isentropic vortex at time t). */
DG_HD void residual_exact_state(const dg_disc_view *d, const double *x, double t, double *Ue) {
  if (d->exact_kind == 1) {
    physics_vortex_state(d->dim, d->gamma, &d->vortex, x, t, Ue);
  } else {
    for (int v = 0; v < d->nvar; ++v) Ue[v] = d->freestream[v];
  }
}

/* Boundary data of group g at face point k (= f*nqf + q) at time t: the
 * group's data, with the exact state at the point (EXACT) or the freestream
 * corrected by the far-field point vortex of circulation
 * st->farfield_circulation (FARFIELD with vortex_correction; st NULL: Γ = 0). */
DG_HD void residual_boundary_data(const dg_disc_view *d, const dg_disc_state *st, int g, int64_t k,
                                  double t, physics_bc_data *data) {
  *data = d->group_data[g];
  const int bc = d->group_bc[g];
  if (bc == PHYSICS_BC_EXACT) {
    residual_exact_state(d, d->face_x + k * d->dim, t, data->state);
  } else if (bc == PHYSICS_BC_FARFIELD && data->vortex_correction) {
    double Uinf[DG_MAX_NVAR];
    for (int v = 0; v < d->nvar; ++v) Uinf[v] = data->state[v];
    physics_farfield_vortex_state(d->gamma, Uinf, st ? st->farfield_circulation : 0.0,
                                  d->farfield_center, d->face_x + k * d->dim, data->state);
  }
}

/* Neighbour state at face point k of face f: the other element's trace on
 * an interior face, the ghost state on a boundary face (st: run-time state,
 * residual_boundary_data). */
DG_HD void residual_outer_state(const dg_disc_view *d, const dg_disc_state *st, const double *U,
                                int64_t f, int q, const double *UL, double t, double *UR) {
  const int64_t e1 = d->face_elem[2 * f + 1];
  const int64_t k = f * d->nqf + q;
  if (e1 >= 0) {
    residual_trace(d, U, e1, d->face_local[2 * f + 1], d->face_orient[f], q, UR);
    return;
  }
  const int g = d->face_group[f];
  const int bc = d->group_bc[g];
  if (bc == PHYSICS_BC_EXACT || (bc == PHYSICS_BC_FARFIELD && d->group_data[g].vortex_correction)) {
    physics_bc_data data;
    residual_boundary_data(d, st, g, k, t, &data);
    physics_ghost_state(d->dim, d->gamma, bc, &data, UL, d->face_normal + k * d->dim, UR);
  } else {
    physics_ghost_state(d->dim, d->gamma, bc, &d->group_data[g], UL, d->face_normal + k * d->dim,
                        UR);
  }
}

/* Numerical flux H(U⁻, U⁺, n) (not yet times wsJ) at point q of face f. */
DG_HD void residual_point_flux(const dg_disc_view *d, const dg_disc_state *st, int64_t f, int q,
                               const double *U, double t, double *H) {
  const int64_t k = f * d->nqf + q;
  double UL[DG_MAX_NVAR] = {0}, UR[DG_MAX_NVAR] = {0};
  residual_trace(d, U, d->face_elem[2 * f], d->face_local[2 * f], 0, q, UL);
  residual_outer_state(d, st, U, f, q, UL, t, UR);
  const double *n = d->face_normal + k * d->dim;
  if (d->flux == DG_FACE_FLUX_RUSANOV)
    physics_rusanov_flux(d->dim, d->gamma, UL, UR, n, H);
  else
    physics_roe_flux(d->dim, d->gamma, UL, UR, n, PHYSICS_ROE_ENTROPY_FIX, H);
}

/* Numerical flux times wsJ at every point of face f, written to
 * face_flux[(f*nqf + q)*nvar + v]. t: time (exact boundary states); st:
 * run-time state (far-field circulation). */
DG_HD void residual_face(const dg_disc_view *d, const dg_disc_state *st, int64_t f, const double *U,
                         double t, double *face_flux) {
  for (int q = 0; q < d->nqf; ++q) {
    const int64_t k = f * d->nqf + q;
    double H[DG_MAX_NVAR];
    residual_point_flux(d, st, f, q, U, t, H);
    const double wsJ = d->face_wsJ[k];
    for (int v = 0; v < d->nvar; ++v) face_flux[k * d->nvar + v] = H[v] * wsJ;
  }
}

/* Coefficients of element e into a local array Ue[v*nb + m]. */
DG_HD void residual_load(const dg_disc_view *d, const double *U, int64_t e, double *Ue) {
  const int s = d->elem_shape[e], nb = d->nb[s];
  for (int v = 0; v < d->nvar; ++v)
    for (int m = 0; m < nb; ++m) Ue[v * nb + m] = U[disc_coef_index(d, e, v, m)];
}

/* Residual of element e (weak form, no mass matrix), written to R in the
 * coefficient layout. face_flux must hold residual_face of every face. */
DG_HD void residual_element(const dg_disc_view *d, int64_t e, const double *U,
                            const double *face_flux, double *R) {
  const int s = d->elem_shape[e], nb = d->nb[s], dim = d->dim, nv = d->nvar;
  int64_t vt, vp;
  const int nq = disc_elem_rule(d, e, &vt, &vp);
  double Ue[DG_MAX_NVAR * DG_MAX_BASIS], Re[DG_MAX_NVAR * DG_MAX_BASIS];
  residual_load(d, U, e, Ue);
  for (int i = 0; i < nv * nb; ++i) Re[i] = 0.0;

  const int affine = d->elem_affine[e];
  const int64_t m0 = d->metric_offset[e];
  for (int q = 0; q < nq; ++q) {
    const double *phi = d->vol_phi + vt + (int64_t)q * nb;
    const double *dphi = d->vol_dphi + (vt + (int64_t)q * nb) * dim;
    double Uq[DG_MAX_NVAR], F[DG_MAX_DIM * DG_MAX_NVAR];
    for (int v = 0; v < nv; ++v) {
      double sum = 0.0;
      for (int m = 0; m < nb; ++m) sum += phi[m] * Ue[v * nb + m];
      Uq[v] = sum;
    }
    physics_flux(dim, d->gamma, Uq, F);
    const int64_t mk = affine ? m0 : m0 + q;
    const double wdetJ = d->vol_w[vp + q] * d->metric_detJ[mk];
    const double *invJ = d->metric_invJ + mk * dim * dim;
    /* G[i*nv + v] = wdetJ Σ_j (dξ_i/dx_j) F_j,v: the flux in reference directions */
    double G[DG_MAX_DIM * DG_MAX_NVAR];
    for (int i = 0; i < dim; ++i)
      for (int v = 0; v < nv; ++v) {
        double sum = 0.0;
        for (int j = 0; j < dim; ++j) sum += invJ[i * dim + j] * F[j * nv + v];
        G[i * nv + v] = wdetJ * sum;
      }
    for (int m = 0; m < nb; ++m)
      for (int v = 0; v < nv; ++v) {
        double sum = 0.0;
        for (int i = 0; i < dim; ++i) sum += dphi[m * dim + i] * G[i * nv + v];
        Re[v * nb + m] += sum;
      }
  }

  const int nf = shape_n_faces((dg_shape)s);
  for (int lf = 0; lf < nf; ++lf) {
    const int64_t f = d->elem_face[e * DG_MAX_FACES + lf];
    const int side = (d->face_elem[2 * f] == e && d->face_local[2 * f] == lf) ? 0 : 1;
    const int o = side ? d->face_orient[f] : 0;
    const double sign = side ? 1.0 : -1.0;
    for (int q = 0; q < d->nqf; ++q) {
      const double *phi = d->face_phi + d->face_table[s][lf][o] + (int64_t)q * nb;
      const double *H = face_flux + (f * d->nqf + q) * nv;
      for (int v = 0; v < nv; ++v) {
        const double h = sign * H[v];
        for (int m = 0; m < nb; ++m) Re[v * nb + m] += h * phi[m];
      }
    }
  }
  for (int v = 0; v < nv; ++v)
    for (int m = 0; m < nb; ++m) R[disc_coef_index(d, e, v, m)] = Re[v * nb + m];
}

/* out = M_e⁻¹ in for one element's local array [v*nb + m]. */
DG_HD void residual_apply_minv(const dg_disc_view *d, int64_t e, const double *in, double *out) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar;
  if (d->elem_affine[e]) {
    const double inv = 1.0 / d->metric_detJ[d->metric_offset[e]];
    for (int i = 0; i < nv * nb; ++i) out[i] = inv * in[i];
    return;
  }
  const double *Mi = d->minv + d->minv_offset[e];
  for (int v = 0; v < nv; ++v)
    for (int i = 0; i < nb; ++i) {
      double sum = 0.0;
      for (int j = 0; j < nb; ++j) sum += Mi[i * nb + j] * in[v * nb + j];
      out[v * nb + i] = sum;
    }
}

/* Explicit Runge–Kutta stage update of element e:
 *   Uout = a U0 + b (U + dt_e M⁻¹ R)
 * (SSP-RK3: (a, b) = (0, 1), (3/4, 1/4), (1/3, 2/3)). dt: [n_elems] time
 * steps (a global step is the same value everywhere). Uout may alias U0 or U. */
DG_HD void residual_rk_update(const dg_disc_view *d, int64_t e, double a, const double *U0,
                              double b, const double *U, const double *dt, const double *R,
                              double *Uout) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar;
  double Re[DG_MAX_NVAR * DG_MAX_BASIS], dU[DG_MAX_NVAR * DG_MAX_BASIS];
  residual_load(d, R, e, Re);
  residual_apply_minv(d, e, Re, dU);
  const double h = dt[e];
  for (int v = 0; v < nv; ++v)
    for (int m = 0; m < nb; ++m) {
      const int64_t i = disc_coef_index(d, e, v, m);
      const double stage = U[i] + h * dU[v * nb + m];
      Uout[i] = a != 0.0 ? a * U0[i] + b * stage : b * stage;
    }
}

/* Convective time step of element e (docs/ARCHITECTURE.md §5):
 *   Δt_e = CFL |Ω_e| / ((2p+1) Σ_faces ∫ (|u·n| + c) ds)
 * with u, c from the element's own trace at the face points. */
/* Term (f, q) of that sum for the element on `side` of face f (0: its
 * first element, 1: the second, with the face's orientation code): wsJ
 * (|u·n| + c) of the element's own trace at the point. */
DG_HD double residual_timestep_term(const dg_disc_view *d, const double *U, int64_t f, int side,
                                    int q) {
  const int64_t e = d->face_elem[2 * f + side];
  const int lf = d->face_local[2 * f + side];
  const int o = side ? d->face_orient[f] : 0;
  double Uq[DG_MAX_NVAR];
  residual_trace(d, U, e, lf, o, q, Uq);
  const int64_t k = f * d->nqf + q;
  return d->face_wsJ[k] * physics_max_wave_speed(d->dim, d->gamma, Uq, d->face_normal + k * d->dim);
}

/* The side of face f that element e's local face lf is (0 or 1). */
DG_HD int residual_face_side(const dg_disc_view *d, int64_t e, int lf, int64_t f) {
  return (d->face_elem[2 * f] == e && d->face_local[2 * f] == lf) ? 0 : 1;
}

/* Δt_e from the sum of its terms (residual_element_timestep). */
DG_HD double residual_timestep_of_sum(const dg_disc_view *d, int64_t e, double cfl, double sum) {
  return cfl * d->elem_volume[e] / ((2.0 * d->p + 1.0) * sum);
}

DG_HD double residual_element_timestep(const dg_disc_view *d, int64_t e, const double *U,
                                       double cfl) {
  const int s = d->elem_shape[e];
  const int nf = shape_n_faces((dg_shape)s);
  double sum = 0.0;
  for (int lf = 0; lf < nf; ++lf) {
    const int64_t f = d->elem_face[e * DG_MAX_FACES + lf];
    const int side = residual_face_side(d, e, lf, f);
    for (int q = 0; q < d->nqf; ++q) sum += residual_timestep_term(d, U, f, side, q);
  }
  return residual_timestep_of_sum(d, e, cfl, sum);
}

/* Pressure force and moment on boundary face f (a wall): out[0..2] = Σ p n wsJ
 * (force on the body, n outward from the fluid into the body), out[3..5] =
 * Σ (x − x_ref) × p n wsJ. 2D: z components 0, moment in out[5]. */
DG_HD void residual_face_force(const dg_disc_view *d, int64_t f, const double *U,
                               const double *x_ref, double *out) {
  const int64_t e0 = d->face_elem[2 * f];
  const int lf0 = d->face_local[2 * f];
  for (int i = 0; i < 6; ++i) out[i] = 0.0;
  for (int q = 0; q < d->nqf; ++q) {
    const int64_t k = f * d->nqf + q;
    double Uq[DG_MAX_NVAR];
    residual_trace(d, U, e0, lf0, 0, q, Uq);
    const double pw = physics_wall_pressure(d->dim, d->gamma, Uq) * d->face_wsJ[k];
    const double *n = d->face_normal + k * d->dim, *x = d->face_x + k * d->dim;
    double F[3] = {0, 0, 0}, r[3] = {0, 0, 0};
    for (int i = 0; i < d->dim; ++i) {
      F[i] = pw * n[i];
      r[i] = x[i] - x_ref[i];
    }
    out[0] += F[0];
    out[1] += F[1];
    out[2] += F[2];
    out[3] += r[1] * F[2] - r[2] * F[1];
    out[4] += r[2] * F[0] - r[0] * F[2];
    out[5] += r[0] * F[1] - r[1] * F[0];
  }
}
