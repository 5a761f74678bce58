#pragma once
/* Per-element and per-face arithmetic of the implicit LU-SGS marcher
 * (docs/ARCHITECTURE.md §5, docs/LUSGS.md): one source for the CPU loops
 * (src/lusgs/lusgs_cpu.c) and the CUDA kernels.
 *
 * R is the weak-form right-hand side of src/dg/residual_ops.h (dU/dt = M⁻¹R),
 * so backward Euler with local steps, linearised, reads
 *   (M/Δt − ∂R/∂U) ΔU = R(Uⁿ).
 * The element block of that matrix is
 *   D_e = M_e/Δt_e − ∂R_e/∂U_e
 *       = M_e/Δt_e − ∫_e (∂F/∂U · ∇φ_m) φ_n dx + Σ_faces ∫_f φ_m J φ_n ds
 * with J the Jacobian of the face flux with respect to e's own trace.
 *
 * Two face Jacobians are provided:
 *
 * (1) consistent (what the backends use, the *_jac functions at the end of
 *     this file): the Jacobians of the residual's own numerical flux (Roe
 *     with the entropy fix, or Rusanov), ∂H/∂U_0 and ∂H/∂U_1, by central
 *     differences at every face point, stored per face point by assemble
 *     (lusgs_face_jacobians; boundary faces: the total derivative through
 *     the ghost state). The off-diagonal product is linear,
 *       A_ej ΔU_j = ∫_f φ_m σ J_{side of j} ΔU_j ds  (= −∂R_e/∂U_j ΔU_j),
 *     so D + L + U is the exact Jacobian of R (to ~1e-9).
 *
 * (2) dissipative approximation (the first version; no backend uses it,
 *     only its diagonal block is kept, for test_lusgs to measure how far
 *     it is from the residual's Jacobian):
 *       J = ½(A_n(U_e) + λ I), λ = max(|u·n| + c) over the two traces
 *     (lusgs_face_lambda, frozen at Uⁿ), on a boundary face
 *       ½(A_n(U_e) + λ I) + ½(A_n(U_g) − λ I) ∂U_g/∂U_e.
 *     λI is much more dissipative than the Roe flux's |Â|: on the NACA 0012
 *     case the implicit iteration with it stalled (docs/LUSGS.md); its
 *     sweeps (matrix-free ½[(F_n(U_j + ΔU_j) − F_n(U_j)) − λ ΔU_j]) were
 *     removed.
 *
 * Sweeps read (D + L + U) ΔU = R with L, U the blocks of the lower and upper
 * colours.
 *
 * Block layout: an element's local vector is x[v*nb + m] (residual_load's
 * order) and its block is a dense row-major n×n matrix, n = nvar·nb ≤ 100:
 * K[i*n + j] = ∂(row i)/∂(x_j). Functions write through the caller's
 * pointers; the block is assembled in place where it is stored. */
#include <math.h>
#include <stdint.h>

#include "dg/disc.h"
#include "dg/physics.h"
#include "dg/residual_ops.h"

#define LUSGS_MAX_BLOCK (DG_MAX_NVAR * DG_MAX_BASIS) /* largest n = nvar·nb */

/* Block dimension n = nvar·nb of element e. */
DG_HD int lusgs_block_size(const dg_disc_view *d, int64_t e) {
  return d->nvar * d->nb[d->elem_shape[e]];
}

/* Side (0 or 1) of element e on its local face lf, and the face index. */
DG_HD int64_t lusgs_face_side(const dg_disc_view *d, int64_t e, int lf, int *side) {
  const int64_t f = d->elem_face[e * DG_MAX_FACES + lf];
  *side = (d->face_elem[2 * f] == e && d->face_local[2 * f] == lf) ? 0 : 1;
  return f;
}

/* λ (the dissipation speed of the approximate flux Jacobian) at every point
 * of face f: lambda[f*nqf + q] = max(|u·n| + c) over the side-0 trace and the
 * other side's trace (the ghost state on a boundary face, at time t). */
DG_HD void lusgs_face_lambda(const dg_disc_view *d, const dg_disc_state *st, int64_t f,
                             const double *U, double t, double *lambda) {
  for (int q = 0; q < d->nqf; ++q) {
    const int64_t k = f * d->nqf + q;
    double UL[DG_MAX_NVAR] = {0}, UR[DG_MAX_NVAR] = {0};
    residual_trace(d, U, d->face_elem[2 * f], d->face_local[2 * f], 0, q, UL);
    residual_outer_state(d, st, U, f, q, UL, t, UR);
    lambda[k] = physics_interface_wave_speed(d->dim, d->gamma, UL, UR, d->face_normal + k * d->dim);
  }
}

/* K = scale · M_e (the whole n×n block is written): M_e is block diagonal
 * over variables with the element mass matrix ∫ φ_m φ_k dx, which is
 * detJ·I on affine elements (orthonormal basis) and the volume-rule
 * integral on mapped ones. scale: 1/Δt_e for D_e. */
DG_HD void lusgs_block_mass(const dg_disc_view *d, int64_t e, double scale, double *K) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, n = nv * nb;
  for (int i = 0; i < n * n; ++i) K[i] = 0.0;
  const int64_t m0 = d->metric_offset[e];
  if (d->elem_affine[e]) {
    const double mass = scale * d->metric_detJ[m0];
    for (int i = 0; i < n; ++i) K[i * n + i] = mass;
    return;
  }
  for (int q = 0; q < d->nq[s]; ++q) {
    const double *phi = d->vol_phi + d->vol_table[s] + (int64_t)q * nb;
    const double w = scale * d->vol_w[d->vol_point[s] + q] * d->metric_detJ[m0 + q];
    for (int m = 0; m < nb; ++m)
      for (int k = 0; k < nb; ++k) {
        const double c = w * phi[m] * phi[k];
        for (int v = 0; v < nv; ++v) K[(v * nb + m) * n + v * nb + k] += c;
      }
  }
}

/* K −= ∂R^vol_e/∂U_e, the exact Jacobian of the volume term
 * ∫ F(U)·∇φ_m dx: Σ_q Σ_i (∂φ_m/∂ξ_i) wdetJ A_{ξ_i}(U_q) φ_k with
 * A_{ξ_i} = Σ_j (dξ_i/dx_j) ∂F_j/∂U (the flux Jacobian along the row i of
 * invJ, physics_flux_jacobian being linear in its direction). U: state. */
DG_HD void lusgs_block_add_volume(const dg_disc_view *d, int64_t e, const double *U, double *K) {
  const int s = d->elem_shape[e], nb = d->nb[s], dim = d->dim, nv = d->nvar;
  int64_t vt, vp;
  const int nq = disc_elem_rule(d, e, &vt, &vp);
  const int n = nv * nb;
  const int affine = d->elem_affine[e];
  const int64_t m0 = d->metric_offset[e];
  double Ue[DG_MAX_NVAR * DG_MAX_BASIS];
  residual_load(d, U, e, Ue);
  for (int q = 0; q < nq; ++q) {
    const double *phi = d->vol_phi + vt + (int64_t)q * nb;
    const double *dphi = d->vol_dphi + (vt + (int64_t)q * nb) * dim;
    double Uq[DG_MAX_NVAR];
    for (int v = 0; v < nv; ++v) {
      double sum = 0.0;
      for (int m = 0; m < nb; ++m) sum += phi[m] * Ue[v * nb + m];
      Uq[v] = sum;
    }
    const int64_t mk = affine ? m0 : m0 + q;
    const double wdetJ = d->vol_w[vp + q] * d->metric_detJ[mk];
    const double *invJ = d->metric_invJ + mk * dim * dim;
    double B[DG_MAX_DIM][DG_MAX_NVAR * DG_MAX_NVAR];
    for (int i = 0; i < dim; ++i) {
      double dir[DG_MAX_DIM] = {0.0, 0.0, 0.0};
      for (int j = 0; j < dim; ++j) dir[j] = wdetJ * invJ[i * dim + j];
      physics_flux_jacobian(dim, d->gamma, Uq, dir, B[i]);
    }
    for (int m = 0; m < nb; ++m) {
      double C[DG_MAX_NVAR * DG_MAX_NVAR];
      for (int a = 0; a < nv * nv; ++a) {
        double sum = 0.0;
        for (int i = 0; i < dim; ++i) sum += dphi[m * dim + i] * B[i][a];
        C[a] = sum;
      }
      for (int v = 0; v < nv; ++v)
        for (int w = 0; w < nv; ++w) {
          const double c = C[v * nv + w];
          double *row = K + (int64_t)(v * nb + m) * n + w * nb;
          for (int k = 0; k < nb; ++k) row[k] -= c * phi[k];
        }
    }
  }
}

/* The approximate Jacobian of the face flux with respect to the own trace
 * at point q of face f seen from element e (side `side`), n outward from e:
 *   J = ½(A_n(U_e) + λ I)                       interior face
 *   J = ½(A_n(U_e) + λ I) + ½(A_n(U_g) − λ I) G  boundary face, G = ∂U_g/∂U_e
 * λ = lambda[f*nqf + q] (lusgs_face_lambda); t: time of exact boundary
 * states. Ue: the element's trace at the point. J: nvar×nvar, written. */
DG_HD void lusgs_face_point_jacobian(const dg_disc_view *d, const dg_disc_state *st, int64_t f,
                                     int q, int side, const double *Ue, const double *lambda,
                                     double t, double *J) {
  const int dim = d->dim, nv = d->nvar;
  const int64_t k = f * d->nqf + q;
  const double lam = lambda[k];
  double n[DG_MAX_DIM] = {0.0, 0.0, 0.0};
  for (int i = 0; i < dim; ++i) n[i] = (side ? -1.0 : 1.0) * d->face_normal[k * dim + i];
  physics_flux_jacobian(dim, d->gamma, Ue, n, J);
  for (int a = 0; a < nv * nv; ++a) J[a] *= 0.5;
  for (int a = 0; a < nv; ++a) J[a * nv + a] += 0.5 * lam;
  if (d->face_elem[2 * f + 1] >= 0) return;
  /* boundary face (e is side 0): chain rule through the ghost state */
  const int g = d->face_group[f];
  const int bc = d->group_bc[g];
  physics_bc_data data;
  residual_boundary_data(d, st, g, k, t, &data);
  double Ug[DG_MAX_NVAR], G[DG_MAX_NVAR * DG_MAX_NVAR], Ag[DG_MAX_NVAR * DG_MAX_NVAR];
  physics_ghost_state_jacobian(dim, d->gamma, bc, &data, Ue, n, Ug, G);
  physics_flux_jacobian(dim, d->gamma, Ug, n, Ag);
  for (int a = 0; a < nv; ++a) Ag[a * nv + a] -= lam;
  for (int a = 0; a < nv; ++a)
    for (int b = 0; b < nv; ++b) {
      double sum = 0.0;
      for (int c = 0; c < nv; ++c) sum += Ag[a * nv + c] * G[c * nv + b];
      J[a * nv + b] += 0.5 * sum;
    }
}

/* K += Σ_faces ∫_f φ_m J φ_k ds (lusgs_face_point_jacobian): the own-face
 * part of −∂R_e/∂U_e. U: state; lambda: [n_faces*nqf]; t: time of exact
 * boundary states. */
DG_HD void lusgs_block_add_faces(const dg_disc_view *d, const dg_disc_state *st, int64_t e,
                                 const double *U, const double *lambda, double t, double *K) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, n = nv * nb;
  const int nf = shape_n_faces((dg_shape)s);
  for (int lf = 0; lf < nf; ++lf) {
    int side;
    const int64_t f = lusgs_face_side(d, e, lf, &side);
    const int o = side ? d->face_orient[f] : 0;
    for (int q = 0; q < d->nqf; ++q) {
      const double *phi = d->face_phi + d->face_table[s][lf][o] + (int64_t)q * nb;
      double Ue[DG_MAX_NVAR], J[DG_MAX_NVAR * DG_MAX_NVAR];
      residual_trace(d, U, e, lf, o, q, Ue);
      lusgs_face_point_jacobian(d, st, f, q, side, Ue, lambda, t, J);
      const double wsJ = d->face_wsJ[f * d->nqf + q];
      for (int m = 0; m < nb; ++m) {
        const double wm = wsJ * phi[m];
        for (int v = 0; v < nv; ++v)
          for (int w = 0; w < nv; ++w) {
            const double c = wm * J[v * nv + w];
            double *row = K + (int64_t)(v * nb + m) * n + w * nb;
            for (int k = 0; k < nb; ++k) row[k] += c * phi[k];
          }
      }
    }
  }
}

/* D_e = M_e/Δt_e − ∂R_e/∂U_e (volume exact, faces approximate; see the top
 * of this file) into K (n×n, written). dt_e: local time step of e. */
DG_HD void lusgs_block_assemble(const dg_disc_view *d, const dg_disc_state *st, int64_t e,
                                const double *U, const double *lambda, double t, double dt_e,
                                double *K) {
  lusgs_block_mass(d, e, 1.0 / dt_e, K);
  lusgs_block_add_volume(d, e, U, K);
  lusgs_block_add_faces(d, st, e, U, lambda, t, K);
}

/* In-place LU factorisation with partial pivoting of the n×n row-major A:
 * P A = L U, L unit lower (below the diagonal), U on and above it; piv[i] =
 * the row swapped with row i at step i. Returns -1 on success, else the
 * step whose pivot is zero or not finite (A is then partly factored). */
DG_HD int lusgs_lu_factor(int n, double *A, int32_t *piv) {
  for (int k = 0; k < n; ++k) {
    int p = k;
    double best = fabs(A[(int64_t)k * n + k]);
    for (int i = k + 1; i < n; ++i) {
      const double a = fabs(A[(int64_t)i * n + k]);
      if (a > best) {
        best = a;
        p = i;
      }
    }
    piv[k] = p;
    if (!(best > 0.0) || !(best < INFINITY)) return k;
    if (p != k)
      for (int j = 0; j < n; ++j) {
        const double tmp = A[(int64_t)k * n + j];
        A[(int64_t)k * n + j] = A[(int64_t)p * n + j];
        A[(int64_t)p * n + j] = tmp;
      }
    const double inv = 1.0 / A[(int64_t)k * n + k];
    for (int i = k + 1; i < n; ++i) {
      double *row = A + (int64_t)i * n;
      const double l = row[k] * inv;
      row[k] = l;
      if (l == 0.0) continue;
      const double *prow = A + (int64_t)k * n;
      for (int j = k + 1; j < n; ++j) row[j] -= l * prow[j];
    }
  }
  return -1;
}

/* Solves A x = b in place (b becomes x) with the factors of lusgs_lu_factor. */
DG_HD void lusgs_lu_solve(int n, const double *A, const int32_t *piv, double *b) {
  for (int k = 0; k < n; ++k) {
    const int p = piv[k];
    if (p != k) {
      const double tmp = b[k];
      b[k] = b[p];
      b[p] = tmp;
    }
  }
  for (int i = 1; i < n; ++i) {
    const double *row = A + (int64_t)i * n;
    double sum = b[i];
    for (int j = 0; j < i; ++j) sum -= row[j] * b[j];
    b[i] = sum;
  }
  for (int i = n - 1; i >= 0; --i) {
    const double *row = A + (int64_t)i * n;
    double sum = b[i];
    for (int j = i + 1; j < n; ++j) sum -= row[j] * b[j];
    b[i] = sum / row[i];
  }
}

/* Which neighbours an off-diagonal product takes. */
#define LUSGS_LOWER 0 /* colour(j) < colour(e) */
#define LUSGS_UPPER 1 /* colour(j) > colour(e) */
#define LUSGS_ALL 2   /* every face neighbour (relaxation) */

/* Damping θ in (0, 1] of element e's update ΔU: the largest θ ≤ 1 with
 * which the element's mean density and pressure (mode-0 states) change by
 * at most max_change of their values, |Δρ̄| ≤ c ρ̄ and |p(Ū + ΔŪ) − p̄| ≤ c p̄
 * (θ = c p̄ / |Δp| for the pressure: the linear estimate). 1 when
 * max_change <= 0 or the change is within the bound. At convergence ΔU → 0
 * and θ = 1, so steady solutions do not depend on it; in a transient (a
 * shock forming at CFL ~100-1000) it keeps the means physical. */
DG_HD double lusgs_update_damping(const dg_disc_view *d, int64_t e, const double *U,
                                  const double *dU, double max_change) {
  if (!(max_change > 0.0)) return 1.0;
  const int s = d->elem_shape[e], nv = d->nvar, dim = d->dim;
  const double phi0 = 1.0 / sqrt(shape_ref_measure((dg_shape)s));
  double Um[DG_MAX_NVAR], Un[DG_MAX_NVAR];
  for (int v = 0; v < nv; ++v) {
    Um[v] = U[disc_coef_index(d, e, v, 0)] * phi0;
    Un[v] = Um[v] + dU[disc_coef_index(d, e, v, 0)] * phi0;
  }
  double theta = 1.0;
  const double drho = fabs(Un[0] - Um[0]), rho = fabs(Um[0]);
  if (drho > max_change * rho) theta = max_change * rho / drho;
  const double p0 = physics_pressure(dim, d->gamma, Um), p1 = physics_pressure(dim, d->gamma, Un);
  const double dp = fabs(p1 - p0), p = fabs(p0);
  if (dp > max_change * p && max_change * p / dp < theta) theta = max_change * p / dp;
  return theta;
}

/* U_e += θ_e ΔU_e (lusgs_update_damping) for element e. */
DG_HD void lusgs_update_element(const dg_disc_view *d, int64_t e, double *U, const double *dU,
                                double max_change) {
  const double theta = lusgs_update_damping(d, e, U, dU, max_change);
  const int nb = d->nb[d->elem_shape[e]];
  for (int v = 0; v < d->nvar; ++v)
    for (int m = 0; m < nb; ++m) {
      const int64_t i = disc_coef_index(d, e, v, m);
      U[i] += theta * dU[i];
    }
}

/* ------------------------------------------------------------------------
 * Consistent variant: the Jacobians of the residual's own numerical flux
 * (d->flux: Roe with the entropy fix, or Rusanov), stored per face point.
 *
 * face_jac[((f*nqf + q)*2 + s)*nvar² ...] = ∂H/∂U_s at point q of face f
 * (H(U_0, U_1, n), n = side 0's outward normal, s the side of the trace);
 * on a boundary face s = 0 holds the total derivative through the ghost
 * state, d H(U_0, U_g(U_0))/dU_0, and s = 1 is zero. Element e on side s
 * (σ = +1 on side 0, −1 on side 1, as R_e subtracts side 0's flux and adds
 * side 1's):
 *   D_e face part   = Σ_f ∫_f φ_m σ J_s φ_k ds
 *   A_ej ΔU_j       = ∫_f φ_m σ J_{1−s} ΔU_j ds   (linear, exact −∂R_e/∂U_j)
 * so with the exact volume part, D + L + U is the exact Jacobian of R
 * (up to the finite differences below, ~1e-9 relative). Storage:
 * n_faces·nqf·2·nvar² doubles. */

/* The residual's numerical flux H(UL, UR, n) (residual_point_flux's choice). */
DG_HD void lusgs_numerical_flux(const dg_disc_view *d, const double *UL, const double *UR,
                                const double *n, double *H) {
  if (d->flux == DG_FACE_FLUX_RUSANOV)
    physics_rusanov_flux(d->dim, d->gamma, UL, UR, n, H);
  else
    physics_roe_flux(d->dim, d->gamma, UL, UR, n, PHYSICS_ROE_ENTROPY_FIX, H);
}

/* Face flux at point q of face f as a function of the side-0 trace UL and,
 * on an interior face, the side-1 trace UR; on a boundary face UR is
 * ignored and the ghost state of UL at time t is used. */
DG_HD void lusgs_face_point_flux(const dg_disc_view *d, const dg_disc_state *st, int64_t f, int q,
                                 const double *UL, const double *UR, double t, double *H) {
  const int64_t k = f * d->nqf + q;
  const double *n = d->face_normal + k * d->dim;
  if (d->face_elem[2 * f + 1] >= 0) {
    lusgs_numerical_flux(d, UL, UR, n, H);
    return;
  }
  const int g = d->face_group[f];
  const int bc = d->group_bc[g];
  physics_bc_data data;
  residual_boundary_data(d, st, g, k, t, &data);
  double Ug[DG_MAX_NVAR];
  physics_ghost_state(d->dim, d->gamma, bc, &data, UL, n, Ug);
  lusgs_numerical_flux(d, UL, Ug, n, H);
}

/* The relative step of the forward differences (H0 given below): about
 * the square root of the double epsilon, which balances the truncation
 * error (of order h) against the rounding of the flux difference (of order
 * ε/h): about 1e-8 relative each. */
#define LUSGS_FORWARD_STEP 1.5e-8

/* Column w of ∂H/∂U_s at point q of face f (Js[v·nv + w], v < nv), from the
 * traces UL and UR (not changed; UR is ignored on a boundary face):
 * H0 NULL: central differences of lusgs_face_point_flux with the step
 * h = 1e-6 (|U_w| + ρ) of side s's trace (two fluxes per column); else
 * forward differences from H0 = lusgs_face_point_flux(UL, UR) with
 * h = LUSGS_FORWARD_STEP (|U_w| + ρ) (one flux per column; [solver]
 * face_jacobian = forward). */
DG_HD void lusgs_face_point_jacobian_column(const dg_disc_view *d, const dg_disc_state *st,
                                            int64_t f, int q, const double *UL, const double *UR,
                                            double t, int s, int w, const double *H0, double *Js) {
  const int nv = d->nvar;
  double L[DG_MAX_NVAR] = {0}, R[DG_MAX_NVAR] = {0};
  for (int v = 0; v < nv; ++v) {
    L[v] = UL[v];
    R[v] = UR[v];
  }
  double *X = s ? R : L;
  const double x0 = X[w], h = (H0 ? LUSGS_FORWARD_STEP : 1e-6) * (fabs(x0) + fabs(X[0]));
  double Hp[DG_MAX_NVAR], Hm[DG_MAX_NVAR];
  X[w] = x0 + h;
  lusgs_face_point_flux(d, st, f, q, L, R, t, Hp);
  if (H0) {
    const double inv = 1.0 / h;
    for (int v = 0; v < nv; ++v) Js[v * nv + w] = (Hp[v] - H0[v]) * inv;
    return;
  }
  X[w] = x0 - h;
  lusgs_face_point_flux(d, st, f, q, L, R, t, Hm);
  const double inv = 0.5 / h;
  for (int v = 0; v < nv; ++v) Js[v * nv + w] = (Hp[v] - Hm[v]) * inv;
}

/* The trace of side `side` at point q of face f into X (zero for side 1
 * of a boundary face). */
DG_HD void lusgs_face_point_trace(const dg_disc_view *d, const double *U, int64_t f, int q,
                                  int side, double *X) {
  for (int v = 0; v < d->nvar; ++v) X[v] = 0.0;
  if (side == 0)
    residual_trace(d, U, d->face_elem[2 * f], d->face_local[2 * f], 0, q, X);
  else if (d->face_elem[2 * f + 1] >= 0)
    residual_trace(d, U, d->face_elem[2 * f + 1], d->face_local[2 * f + 1], d->face_orient[f], q,
                   X);
}

/* The traces of both sides at point q of face f (UR zero on a boundary
 * face); returns whether the face is interior. */
DG_HD int lusgs_face_point_traces(const dg_disc_view *d, const double *U, int64_t f, int q,
                                  double *UL, double *UR) {
  lusgs_face_point_trace(d, U, f, q, 0, UL);
  lusgs_face_point_trace(d, U, f, q, 1, UR);
  return d->face_elem[2 * f + 1] >= 0;
}

/* ∂H/∂U_0 and ∂H/∂U_1 at point q of face f (layout above: J[0..nv²) side 0,
 * J[nv²..2nv²) side 1; side 1 zero on a boundary face), column by column
 * (lusgs_face_point_jacobian_column; forward: by forward differences from
 * the flux of the traces, formed once). */
DG_HD void lusgs_face_point_flux_jacobians(const dg_disc_view *d, const dg_disc_state *st,
                                           int64_t f, int q, const double *U, double t, int forward,
                                           double *J) {
  const int nv = d->nvar;
  double UL[DG_MAX_NVAR], UR[DG_MAX_NVAR], H0[DG_MAX_NVAR];
  const int interior = lusgs_face_point_traces(d, U, f, q, UL, UR);
  if (forward) lusgs_face_point_flux(d, st, f, q, UL, UR, t, H0);
  for (int s = 0; s < 2; ++s) {
    double *Js = J + s * nv * nv;
    if (s == 1 && !interior) {
      for (int a = 0; a < nv * nv; ++a) Js[a] = 0.0;
      continue;
    }
    for (int w = 0; w < nv; ++w)
      lusgs_face_point_jacobian_column(d, st, f, q, UL, UR, t, s, w, forward ? H0 : NULL, Js);
  }
}

/* The flux Jacobians of every point of face f into face_jac (layout above;
 * forward: lusgs_face_point_flux_jacobians' forward differences). */
DG_HD void lusgs_face_jacobians(const dg_disc_view *d, const dg_disc_state *st, int64_t f,
                                const double *U, double t, int forward, double *face_jac) {
  const int nv = d->nvar;
  for (int q = 0; q < d->nqf; ++q)
    lusgs_face_point_flux_jacobians(d, st, f, q, U, t, forward,
                                    face_jac + (f * d->nqf + q) * 2 * nv * nv);
}

/* K += Σ_faces ∫_f φ_m σ J_s φ_k ds: the own-face part of −∂R_e/∂U_e from
 * the stored flux Jacobians. */
DG_HD void lusgs_block_add_faces_jac(const dg_disc_view *d, int64_t e, const double *face_jac,
                                     double *K) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, n = nv * nb;
  const int nf = shape_n_faces((dg_shape)s);
  for (int lf = 0; lf < nf; ++lf) {
    int side;
    const int64_t f = lusgs_face_side(d, e, lf, &side);
    const int o = side ? d->face_orient[f] : 0;
    for (int q = 0; q < d->nqf; ++q) {
      const int64_t k = f * d->nqf + q;
      const double *phi = d->face_phi + d->face_table[s][lf][o] + (int64_t)q * nb;
      const double *J = face_jac + (k * 2 + side) * nv * nv;
      const double wsJ = (side ? -1.0 : 1.0) * d->face_wsJ[k];
      for (int m = 0; m < nb; ++m) {
        const double wm = wsJ * phi[m];
        for (int v = 0; v < nv; ++v)
          for (int w = 0; w < nv; ++w) {
            const double c = wm * J[v * nv + w];
            double *row = K + (int64_t)(v * nb + m) * n + w * nb;
            for (int k2 = 0; k2 < nb; ++k2) row[k2] += c * phi[k2];
          }
      }
    }
  }
}

/* D_e = M_e/Δt_e − ∂R_e/∂U_e with the exact volume part and the stored
 * face flux Jacobians into K (n×n, written). */
DG_HD void lusgs_block_assemble_jac(const dg_disc_view *d, int64_t e, const double *U,
                                    const double *face_jac, double dt_e, double *K) {
  lusgs_block_mass(d, e, 1.0 / dt_e, K);
  lusgs_block_add_volume(d, e, U, K);
  lusgs_block_add_faces_jac(d, e, face_jac, K);
}

/* out[v*nb + m] += Σ_j A_ej ΔU_j = Σ_j ∫_f φ_m σ J_{1−s} ΔU_j ds over the
 * interior-face neighbours j selected by `which` (LUSGS_LOWER, _UPPER,
 * _ALL), from the stored flux Jacobians. */
DG_HD void lusgs_offdiag_add_jac(const dg_disc_view *d, int64_t e, const double *dU,
                                 const double *face_jac, const int32_t *color, int which,
                                 double *out) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar;
  const int nf = shape_n_faces((dg_shape)s);
  const int32_t ce = color[e];
  for (int lf = 0; lf < nf; ++lf) {
    int side;
    const int64_t f = lusgs_face_side(d, e, lf, &side);
    const int64_t j = d->face_elem[2 * f + (1 - side)];
    if (j < 0 || j == e) continue;
    const int32_t cj = color[j];
    if (which == LUSGS_LOWER ? !(cj < ce) : (which == LUSGS_UPPER ? !(cj > ce) : 0)) continue;
    const int o = side ? d->face_orient[f] : 0;
    const int lfj = d->face_local[2 * f + (1 - side)];
    const int oj = side ? 0 : d->face_orient[f];
    for (int q = 0; q < d->nqf; ++q) {
      const int64_t k = f * d->nqf + q;
      double dUj[DG_MAX_NVAR];
      residual_trace(d, dU, j, lfj, oj, q, dUj);
      const double *J = face_jac + (k * 2 + (1 - side)) * nv * nv;
      const double wsJ = (side ? -1.0 : 1.0) * d->face_wsJ[k];
      const double *phi = d->face_phi + d->face_table[s][lf][o] + (int64_t)q * nb;
      for (int v = 0; v < nv; ++v) {
        double sum = 0.0;
        for (int w = 0; w < nv; ++w) sum += J[v * nv + w] * dUj[w];
        const double h = wsJ * sum;
        for (int m = 0; m < nb; ++m) out[v * nb + m] += h * phi[m];
      }
    }
  }
}

/* One block Gauss–Seidel update of element e with the stored Jacobians:
 *   ΔU_e = D_e⁻¹ (R_e − Σ_{j∈which} A_ej ΔU_j)
 * written to dU (the neighbours' ΔU read from dU). block/piv: the LU
 * factors of D_e (lusgs_block_assemble_jac). */
DG_HD void lusgs_update_element_jac(const dg_disc_view *d, int64_t e, const double *R, double *dU,
                                    const double *face_jac, const int32_t *color, int which,
                                    const double *block, const int32_t *piv) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, n = nv * nb;
  double x[LUSGS_MAX_BLOCK], a[LUSGS_MAX_BLOCK];
  residual_load(d, R, e, x);
  for (int i = 0; i < n; ++i) a[i] = 0.0;
  lusgs_offdiag_add_jac(d, e, dU, face_jac, color, which, a);
  for (int i = 0; i < n; ++i) x[i] -= a[i];
  lusgs_lu_solve(n, block, piv, x);
  for (int v = 0; v < nv; ++v)
    for (int m = 0; m < nb; ++m) dU[disc_coef_index(d, e, v, m)] = x[v * nb + m];
}

/* Forward sweep of element e: ΔU*_e = D_e⁻¹ (R_e − Σ_{j∈L(e)} A_ej ΔU*_j). */
DG_HD void lusgs_sweep_forward_element_jac(const dg_disc_view *d, int64_t e, const double *R,
                                           double *dU, const double *face_jac, const int32_t *color,
                                           const double *block, const int32_t *piv) {
  lusgs_update_element_jac(d, e, R, dU, face_jac, color, LUSGS_LOWER, block, piv);
}

/* Relaxation of element e with every face neighbour's current value (the
 * extra symmetric sweeps): ΔU_e = D_e⁻¹ (R_e − Σ_{j∈N(e)} A_ej ΔU_j). With
 * ΔU = 0 on the upper neighbours it equals the forward sweep; after a
 * forward sweep, relaxing the colours downwards equals the backward one. */
DG_HD void lusgs_relax_element_jac(const dg_disc_view *d, int64_t e, const double *R, double *dU,
                                   const double *face_jac, const int32_t *color,
                                   const double *block, const int32_t *piv) {
  lusgs_update_element_jac(d, e, R, dU, face_jac, color, LUSGS_ALL, block, piv);
}

/* Backward sweep of element e with the stored Jacobians:
 *   ΔU_e = ΔU*_e − D_e⁻¹ Σ_{j∈U(e)} A_ej ΔU_j
 * (ΔU*_e and the upper neighbours' final ΔU read from dU). */
DG_HD void lusgs_sweep_backward_element_jac(const dg_disc_view *d, int64_t e, double *dU,
                                            const double *face_jac, const int32_t *color,
                                            const double *block, const int32_t *piv) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, n = nv * nb;
  double a[LUSGS_MAX_BLOCK];
  for (int i = 0; i < n; ++i) a[i] = 0.0;
  lusgs_offdiag_add_jac(d, e, dU, face_jac, color, LUSGS_UPPER, a);
  lusgs_lu_solve(n, block, piv, a);
  for (int v = 0; v < nv; ++v)
    for (int m = 0; m < nb; ++m) dU[disc_coef_index(d, e, v, m)] -= a[v * nb + m];
}

/* Single-precision inverse blocks ([solver] inverse_precision = single):
 * D_e⁻¹ rounded to float, column-major (entry (r, c) at inv[c n + r]), the
 * layout the GPU's stored inverses have. The products are summed in double
 * over the columns in order. */

/* inv = D⁻¹ rounded to single precision, from the LU factors of
 * lusgs_lu_factor: column c is the solve with the c-th unit vector. */
DG_HD void lusgs_inverse_single(int n, const double *A, const int32_t *piv, float *inv) {
  double col[LUSGS_MAX_BLOCK];
  for (int c = 0; c < n; ++c) {
    for (int r = 0; r < n; ++r) col[r] = r == c ? 1.0 : 0.0;
    lusgs_lu_solve(n, A, piv, col);
    for (int r = 0; r < n; ++r) inv[(int64_t)c * n + r] = (float)col[r];
  }
}

/* y = inv x (x[v nb + m] of element e) into dU's coefficients of e:
 * written (sign > 0) or subtracted (sign < 0). */
DG_HD void lusgs_apply_inverse_single(const dg_disc_view *d, int64_t e, const float *inv,
                                      const double *x, double sign, double *dU) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, n = nv * nb;
  for (int v = 0; v < nv; ++v)
    for (int m = 0; m < nb; ++m) {
      const int r = v * nb + m;
      double sum = 0.0;
      for (int c = 0; c < n; ++c) sum += (double)inv[(int64_t)c * n + r] * x[c];
      const int64_t i = disc_coef_index(d, e, v, m);
      if (sign > 0.0)
        dU[i] = sum;
      else
        dU[i] -= sum;
    }
}

/* lusgs_update_element_jac with the single-precision inverse:
 *   ΔU_e = D_e⁻¹ (R_e − Σ_{j∈which} A_ej ΔU_j). */
DG_HD void lusgs_update_element_single(const dg_disc_view *d, int64_t e, const double *R,
                                       double *dU, const double *face_jac, const int32_t *color,
                                       int which, const float *inv) {
  const int n = lusgs_block_size(d, e);
  double x[LUSGS_MAX_BLOCK], a[LUSGS_MAX_BLOCK];
  residual_load(d, R, e, x);
  for (int i = 0; i < n; ++i) a[i] = 0.0;
  lusgs_offdiag_add_jac(d, e, dU, face_jac, color, which, a);
  for (int i = 0; i < n; ++i) x[i] -= a[i];
  lusgs_apply_inverse_single(d, e, inv, x, 1.0, dU);
}

/* lusgs_sweep_backward_element_jac with the single-precision inverse:
 *   ΔU_e = ΔU*_e − D_e⁻¹ Σ_{j∈U(e)} A_ej ΔU_j. */
DG_HD void lusgs_sweep_backward_element_single(const dg_disc_view *d, int64_t e, double *dU,
                                               const double *face_jac, const int32_t *color,
                                               const float *inv) {
  const int n = lusgs_block_size(d, e);
  double a[LUSGS_MAX_BLOCK];
  for (int i = 0; i < n; ++i) a[i] = 0.0;
  lusgs_offdiag_add_jac(d, e, dU, face_jac, color, LUSGS_UPPER, a);
  lusgs_apply_inverse_single(d, e, inv, a, -1.0, dU);
}

/* y = P⁻¹ y for the row swaps of lusgs_lu_factor ((k, piv[k]) applied for
 * k = 0, 1, ...): the swaps undone in reverse order, in place. */
DG_HD void lusgs_lu_unpermute(int n, const int32_t *piv, double *y) {
  for (int k = n - 1; k >= 0; --k) {
    const int p = piv[k];
    if (p != k) {
      const double tmp = y[k];
      y[k] = y[p];
      y[p] = tmp;
    }
  }
}

/* y = D_e x from the LU factors of lusgs_lu_factor (P D = L U, so
 * D x = P⁻¹ L U x: U x, then L (unit lower), then the row swaps undone in
 * reverse order). x, y: n doubles; y may not alias x. */
DG_HD void lusgs_lu_multiply(int n, const double *A, const int32_t *piv, const double *x,
                             double *y) {
  for (int i = 0; i < n; ++i) {
    const double *row = A + (int64_t)i * n;
    double sum = 0.0;
    for (int j = i; j < n; ++j) sum += row[j] * x[j];
    y[i] = sum;
  }
  for (int i = n - 1; i >= 1; --i) {
    const double *row = A + (int64_t)i * n;
    double sum = y[i];
    for (int j = 0; j < i; ++j) sum += row[j] * y[j];
    y[i] = sum;
  }
  lusgs_lu_unpermute(n, piv, y);
}

/* The product of the linear system LU-SGS sweeps on, row block e:
 *   y_e = D_e x_e + Σ_{j ∈ N(e)} A_ej x_j   ((D + L + U) x = (M/Δt − ∂R/∂U) x)
 * with what the last assemble stored: the LU factors of D_e (block, piv;
 * D_e includes the viscous diagonal with artificial viscosity) and the face
 * flux Jacobians. The viscous couplings A^visc_ej are added by
 * lusgs_av_matvec_element_add (lusgs_av.h). x, y: state vectors (y of e
 * written; must not alias x). */
DG_HD void lusgs_matvec_element_jac(const dg_disc_view *d, int64_t e, const double *x,
                                    const double *face_jac, const int32_t *color,
                                    const double *block, const int32_t *piv, double *y) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, n = nv * nb;
  double xe[LUSGS_MAX_BLOCK], ye[LUSGS_MAX_BLOCK];
  residual_load(d, x, e, xe);
  lusgs_lu_multiply(n, block, piv, xe, ye);
  lusgs_offdiag_add_jac(d, e, x, face_jac, color, LUSGS_ALL, ye);
  for (int v = 0; v < nv; ++v)
    for (int m = 0; m < nb; ++m) y[disc_coef_index(d, e, v, m)] = ye[v * nb + m];
}

/* y_e = M_e x_e / dt_e (the mass term of D_e, lusgs_block_mass, without
 * forming the block): detJ·x/dt on affine elements, the volume-rule
 * integral on mapped ones. dt: element steps (NULL: 1). x, y: state vectors. */
DG_HD void lusgs_mass_element(const dg_disc_view *d, int64_t e, const double *dt, const double *x,
                              double *y) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar;
  const double scale = dt ? 1.0 / dt[e] : 1.0;
  const int64_t m0 = d->metric_offset[e];
  if (d->elem_affine[e]) {
    const double mass = scale * d->metric_detJ[m0];
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nb; ++m) {
        const int64_t i = disc_coef_index(d, e, v, m);
        y[i] = mass * x[i];
      }
    return;
  }
  double xe[LUSGS_MAX_BLOCK], ye[LUSGS_MAX_BLOCK];
  residual_load(d, x, e, xe);
  for (int i = 0; i < nv * nb; ++i) ye[i] = 0.0;
  for (int q = 0; q < d->nq[s]; ++q) {
    const double *phi = d->vol_phi + d->vol_table[s] + (int64_t)q * nb;
    const double w = scale * d->vol_w[d->vol_point[s] + q] * d->metric_detJ[m0 + q];
    for (int v = 0; v < nv; ++v) {
      double xq = 0.0;
      for (int k = 0; k < nb; ++k) xq += phi[k] * xe[v * nb + k];
      xq *= w;
      for (int m = 0; m < nb; ++m) ye[v * nb + m] += xq * phi[m];
    }
  }
  for (int v = 0; v < nv; ++v)
    for (int m = 0; m < nb; ++m) y[disc_coef_index(d, e, v, m)] = ye[v * nb + m];
}
