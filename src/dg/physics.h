#pragma once
/* Pointwise compressible Euler arithmetic, 2D and 3D: pressure, fluxes,
 * Roe and Rusanov numerical fluxes, boundary ghost states, their exact
 * Jacobians, the freestream and the isentropic vortex. docs/NUMERICS-physics.md
 * has the formulas and their derivation.
 *
 * Conventions (shared with src/app/case.h):
 * - Conservative state U = (ρ, ρu, ρv[, ρw], ρE): NVAR = dim + 2 doubles.
 *   Primitive state W = (ρ, u, v[, w], p) in the same slots.
 * - Nondimensional: ρ∞ = 1, a∞ = 1 (freestream speed of sound), length = 1,
 *   so p∞ = 1/γ and |u∞| = M. Temperature T = p/ρ (T∞ = 1/γ), c² = γT.
 * - p = (γ-1)(ρE - ½ρ|u|²).
 * - n is the outward unit normal of the face seen from the "left"/interior
 *   side. The physical normal flux F(U)·n is linear in n and accepts any
 *   vector; everything else (Roe, Rusanov, wave speed, ghost states) needs a
 *   unit vector.
 * - Matrices are row-major and compact: A[i*nvar + j] = ∂out_i/∂in_j, with
 *   nvar = dim + 2; callers size them DG_MAX_NVAR*DG_MAX_NVAR.
 * - Arrays are caller-owned; nothing allocates. dim is 2 or 3 at run time.
 *
 * DG_HD: host (C11) and device (nvcc) share this one source. No includes
 * other than <math.h>. */
#include <math.h>

#include "core/dg_hd.h"
#include "core/dg_math.h"

#define DG_MAX_NVAR 5
#ifndef DG_MAX_DIM
#define DG_MAX_DIM 3
#endif

/* Harten's entropy-fix width as a fraction of the Roe-averaged |ũ·n| + c̃;
 * the value the solver uses unless a caller passes its own. */
#define PHYSICS_ROE_ENTROPY_FIX 0.1

/* Boundary-condition kinds. The values equal src/app/case.h's dg_bc_type
 * (DG_BC_WALL ...) so a case's type casts directly; test_physics checks it.
 * Periodic faces are interior faces and have no ghost state. */
typedef enum {
  PHYSICS_BC_WALL = 0,           /* slip wall: normal velocity reflected */
  PHYSICS_BC_SYMMETRY,           /* symmetry plane: same ghost as the slip wall */
  PHYSICS_BC_FARFIELD,           /* characteristic far field from bc.state (freestream) */
  PHYSICS_BC_INFLOW_SUBSONIC,    /* total pressure, total temperature, flow direction */
  PHYSICS_BC_OUTFLOW_SUBSONIC,   /* static pressure */
  PHYSICS_BC_SUPERSONIC_INFLOW,  /* ghost = bc.state */
  PHYSICS_BC_SUPERSONIC_OUTFLOW, /* ghost = interior */
  PHYSICS_BC_EXACT,              /* ghost = bc.state, the exact solution at the point */
  PHYSICS_NUM_BC
} physics_bc_kind;

/* Data a boundary condition reads (nondimensional). Plain old data, so it
 * can be passed by value to kernels. */
typedef struct {
  /* farfield, supersonic inflow: the freestream, conservative. exact: the
   * exact state at the quadrature point (the caller fills it per point). */
  double state[DG_MAX_NVAR];
  double total_pressure;        /* inflow_subsonic: p0 */
  double total_temperature;     /* inflow_subsonic: T0 = p0/ρ0 (so a0² = γ T0) */
  double direction[DG_MAX_DIM]; /* inflow_subsonic: unit flow direction, into the domain */
  double static_pressure;       /* outflow_subsonic: p */
  int vortex_correction;        /* farfield (2D): state is corrected per point by
                                   physics_farfield_vortex_state (the caller does it) */
} physics_bc_data;

/* Isentropic vortex (Yee, Sandham & Djomehri 1999) advected by a uniform
 * stream in the x-y plane, on ρ∞ = 1, p∞ = 1/γ:
 *   δ(u, v) = β/(2π) e^((1-r²)/2) (-(y-yc), x-xc),
 *   c² = 1 - (γ-1) β²/(8π²) e^(1-r²),  ρ = (c²)^(1/(γ-1)),  p = ρ^γ/γ,
 * centre (xc, yc) = center + velocity t. In 3D it is extruded along z
 * (w = 0). period[d] > 0 makes direction d periodic: the displacement to the
 * centre is wrapped to the nearest image, and `images` > 0 superposes the
 * perturbations (δu, δv, δc²) of the (2 images + 1)² nearest images so the
 * field is smooth across the box (an approximation of the same size as the
 * perturbation at distance period/2, ~1e-5 for β = 5 on a 10×10 box). */
typedef struct {
  double velocity[2]; /* freestream (u∞, v∞); |velocity| is the Mach number */
  double center[2];   /* vortex centre at t = 0 */
  double strength;    /* β (5 in the reference case) */
  double period[2];   /* box lengths (x, y); 0 = not periodic in that direction */
  int images;         /* image rings superposed when periodic (0 = nearest image only) */
} physics_vortex;

/* ---------------------------------------------------------------- basics */

/* Number of conservative variables for dimension dim: dim + 2. */
DG_HD int physics_nvar(int dim) { return dim + 2; }

/* Static pressure p = (γ-1)(ρE - ½|ρu|²/ρ). */
DG_HD double physics_pressure(int dim, double gamma, const double *U) {
  double m2 = 0.0;
  for (int d = 0; d < dim; ++d) m2 += U[1 + d] * U[1 + d];
  return (gamma - 1.0) * (U[dim + 1] - 0.5 * m2 / U[0]);
}

/* Speed of sound c = sqrt(γ p/ρ). */
DG_HD double physics_sound_speed(int dim, double gamma, const double *U) {
  return sqrt(gamma * physics_pressure(dim, gamma, U) / U[0]);
}

/* Entropy function s = p/ρ^γ (s∞ = 1/γ). */
DG_HD double physics_entropy(int dim, double gamma, const double *U) {
  return physics_pressure(dim, gamma, U) / pow(U[0], gamma);
}

/* Mach number |u|/c. */
DG_HD double physics_mach(int dim, double gamma, const double *U) {
  double m2 = 0.0;
  for (int d = 0; d < dim; ++d) m2 += U[1 + d] * U[1 + d];
  return sqrt(m2) / U[0] / physics_sound_speed(dim, gamma, U);
}

/* Total (stagnation) pressure p0 = p (1 + (γ-1)/2 M²)^(γ/(γ-1)). */
DG_HD double physics_total_pressure(int dim, double gamma, const double *U) {
  const double mach = physics_mach(dim, gamma, U);
  return physics_pressure(dim, gamma, U) *
         pow(1.0 + 0.5 * (gamma - 1.0) * mach * mach, gamma / (gamma - 1.0));
}

/* Total temperature T0 = T (1 + (γ-1)/2 M²) with T = p/ρ. */
DG_HD double physics_total_temperature(int dim, double gamma, const double *U) {
  const double mach = physics_mach(dim, gamma, U);
  return physics_pressure(dim, gamma, U) / U[0] * (1.0 + 0.5 * (gamma - 1.0) * mach * mach);
}

/* 1 when U is finite with ρ > 0 and p > 0 (NaN fails every comparison). */
DG_HD int physics_admissible(int dim, double gamma, const double *U) {
  for (int k = 0; k < dim + 2; ++k)
    if (!(U[k] - U[k] == 0.0)) return 0;
  return U[0] > 0.0 && physics_pressure(dim, gamma, U) > 0.0;
}

/* Conservative U -> primitive W = (ρ, u, v[, w], p). U and W may alias. */
DG_HD void physics_conservative_to_primitive(int dim, double gamma, const double *U, double *W) {
  const double p = physics_pressure(dim, gamma, U);
  const double rho = U[0];
  for (int d = 0; d < dim; ++d) W[1 + d] = U[1 + d] / rho;
  W[0] = rho;
  W[dim + 1] = p;
}

/* Primitive W = (ρ, u, v[, w], p) -> conservative U. U and W may alias. */
DG_HD void physics_primitive_to_conservative(int dim, double gamma, const double *W, double *U) {
  const double rho = W[0];
  double q2 = 0.0;
  for (int d = 0; d < dim; ++d) q2 += W[1 + d] * W[1 + d];
  const double rho_e = W[dim + 1] / (gamma - 1.0) + 0.5 * rho * q2;
  for (int d = 0; d < dim; ++d) U[1 + d] = rho * W[1 + d];
  U[0] = rho;
  U[dim + 1] = rho_e;
}

/* dW/dU at U: P[i*nvar + j] = ∂W_i/∂U_j. */
DG_HD void physics_primitive_jacobian(int dim, double gamma, const double *U, double *P) {
  const int nv = dim + 2;
  const double rho = U[0], g1 = gamma - 1.0;
  double q2 = 0.0;
  for (int d = 0; d < dim; ++d) q2 += U[1 + d] * U[1 + d] / (rho * rho);
  for (int k = 0; k < nv * nv; ++k) P[k] = 0.0;
  P[0] = 1.0;
  for (int d = 0; d < dim; ++d) {
    const double u = U[1 + d] / rho;
    P[(1 + d) * nv + 0] = -u / rho;
    P[(1 + d) * nv + 1 + d] = 1.0 / rho;
    P[(dim + 1) * nv + 1 + d] = -g1 * u;
  }
  P[(dim + 1) * nv + 0] = 0.5 * g1 * q2;
  P[(dim + 1) * nv + dim + 1] = g1;
}

/* dU/dW at W (primitive): C[i*nvar + j] = ∂U_i/∂W_j. */
DG_HD void physics_conservative_jacobian(int dim, double gamma, const double *W, double *C) {
  const int nv = dim + 2;
  const double rho = W[0];
  double q2 = 0.0;
  for (int d = 0; d < dim; ++d) q2 += W[1 + d] * W[1 + d];
  for (int k = 0; k < nv * nv; ++k) C[k] = 0.0;
  C[0] = 1.0;
  for (int d = 0; d < dim; ++d) {
    C[(1 + d) * nv + 0] = W[1 + d];
    C[(1 + d) * nv + 1 + d] = rho;
    C[(dim + 1) * nv + 1 + d] = rho * W[1 + d];
  }
  C[(dim + 1) * nv + 0] = 0.5 * q2;
  C[(dim + 1) * nv + dim + 1] = 1.0 / (gamma - 1.0);
}

/* ---------------------------------------------------------------- fluxes */

/* Physical flux along n (any vector, not only unit): F(U)·n =
 * (ρ u_n, ρ u u_n + p n, (ρE + p) u_n), u_n = u·n. */
DG_HD void physics_flux_normal(int dim, double gamma, const double *U, const double *n, double *F) {
  const double p = physics_pressure(dim, gamma, U);
  double mn = 0.0;
  for (int d = 0; d < dim; ++d) mn += U[1 + d] * n[d];
  const double un = mn / U[0];
  F[0] = mn;
  for (int d = 0; d < dim; ++d) F[1 + d] = U[1 + d] * un + p * n[d];
  F[dim + 1] = (U[dim + 1] + p) * un;
}

/* Cartesian flux tensor: F[d*nvar + k] = component k of the flux in
 * direction x_d (d < dim), as the volume integral ∫ ∇φ·F needs it. */
DG_HD void physics_flux(int dim, double gamma, const double *U, double *F) {
  const int nv = dim + 2;
  for (int d = 0; d < dim; ++d) {
    double e[DG_MAX_DIM] = {0.0, 0.0, 0.0};
    e[d] = 1.0;
    physics_flux_normal(dim, gamma, U, e, F + d * nv);
  }
}

/* Largest wave speed along unit n: |u·n| + c. */
DG_HD double physics_max_wave_speed(int dim, double gamma, const double *U, const double *n) {
  double un = 0.0;
  for (int d = 0; d < dim; ++d) un += U[1 + d] * n[d];
  return fabs(un / U[0]) + physics_sound_speed(dim, gamma, U);
}

/* A_n as a function of velocity u and total enthalpy H (the form the Roe
 * matrix needs): A[i*nvar + j] = ∂(F·n)_i/∂U_j. */
DG_HD void physics_flux_jacobian_velocity_enthalpy(int dim, double gamma, const double *u, double H,
                                                   const double *n, double *A) {
  const int nv = dim + 2;
  const double g1 = gamma - 1.0;
  double q2 = 0.0, un = 0.0;
  for (int d = 0; d < dim; ++d) {
    q2 += u[d] * u[d];
    un += u[d] * n[d];
  }
  const double phi = 0.5 * g1 * q2;
  A[0] = 0.0;
  for (int j = 0; j < dim; ++j) A[1 + j] = n[j];
  A[dim + 1] = 0.0;
  for (int i = 0; i < dim; ++i) {
    double *row = A + (1 + i) * nv;
    row[0] = phi * n[i] - u[i] * un;
    for (int j = 0; j < dim; ++j) row[1 + j] = u[i] * n[j] - g1 * n[i] * u[j] + (i == j ? un : 0.0);
    row[dim + 1] = g1 * n[i];
  }
  double *row = A + (dim + 1) * nv;
  row[0] = un * (phi - H);
  for (int j = 0; j < dim; ++j) row[1 + j] = H * n[j] - g1 * un * u[j];
  row[dim + 1] = gamma * un;
}

/* Flux Jacobian A_n = ∂(F(U)·n)/∂U at U (n any vector). */
DG_HD void physics_flux_jacobian(int dim, double gamma, const double *U, const double *n,
                                 double *A) {
  double u[DG_MAX_DIM];
  for (int d = 0; d < dim; ++d) u[d] = U[1 + d] / U[0];
  const double H = (U[dim + 1] + physics_pressure(dim, gamma, U)) / U[0];
  physics_flux_jacobian_velocity_enthalpy(dim, gamma, u, H, n, A);
}

/* Roe averages of UL and UR: density ρ̃ = sqrt(ρL ρR), velocity ũ and total
 * enthalpy H̃ weighted by sqrt(ρ), c̃ = sqrt((γ-1)(H̃ - ½|ũ|²)). */
DG_HD void physics_roe_average(int dim, double gamma, const double *UL, const double *UR,
                               double *rho, double *u, double *H, double *c) {
  const double sl = sqrt(UL[0]), sr = sqrt(UR[0]);
  const double w = 1.0 / (sl + sr);
  const double hl = (UL[dim + 1] + physics_pressure(dim, gamma, UL)) / UL[0];
  const double hr = (UR[dim + 1] + physics_pressure(dim, gamma, UR)) / UR[0];
  double q2 = 0.0;
  for (int d = 0; d < dim; ++d) {
    /* sqrt(ρ) u = (ρu)/sqrt(ρ) */
    u[d] = (UL[1 + d] / sl + UR[1 + d] / sr) * w;
    q2 += u[d] * u[d];
  }
  *rho = sl * sr;
  *H = (sl * hl + sr * hr) * w;
  *c = sqrt((gamma - 1.0) * (*H - 0.5 * q2));
}

/* Roe matrix Â_n = A_n(ũ, H̃): F(UR)·n - F(UL)·n = Â_n (UR - UL) exactly. */
DG_HD void physics_roe_matrix(int dim, double gamma, const double *UL, const double *UR,
                              const double *n, double *A) {
  double rho, u[DG_MAX_DIM], H, c;
  physics_roe_average(dim, gamma, UL, UR, &rho, u, &H, &c);
  physics_flux_jacobian_velocity_enthalpy(dim, gamma, u, H, n, A);
}

/* Sum over the Roe waves D = Σ_k f(λ_k) α_k r_k for the jump UR - UL along
 * unit n. signed_speeds = 0: f(λ) = |λ| with Harten's fix (|λ| < δ becomes
 * (λ² + δ²)/(2δ), δ = entropy_fix (|ũ·n| + c̃)), i.e. D = |Â_n|(UR - UL),
 * the Roe dissipation. signed_speeds = 1: f(λ) = λ, D = Â_n (UR - UL).
 * Waves: λ = ũn ∓ c̃ with α = (Δp ∓ ρ̃c̃Δu_n)/(2c̃²); the entropy and shear
 * waves at λ = ũn carry Δρ - Δp/c̃² and ρ̃ times the tangential Δu. */
DG_HD void physics_roe_wave_sum(int dim, double gamma, const double *UL, const double *UR,
                                const double *n, double entropy_fix, int signed_speeds, double *D) {
  double rho, u[DG_MAX_DIM], H, c;
  physics_roe_average(dim, gamma, UL, UR, &rho, u, &H, &c);
  const double pl = physics_pressure(dim, gamma, UL), pr = physics_pressure(dim, gamma, UR);
  double un = 0.0, q2 = 0.0, dun = 0.0, du[DG_MAX_DIM];
  for (int d = 0; d < dim; ++d) {
    du[d] = UR[1 + d] / UR[0] - UL[1 + d] / UL[0];
    un += u[d] * n[d];
    q2 += u[d] * u[d];
    dun += du[d] * n[d];
  }
  const double drho = UR[0] - UL[0], dp = pr - pl;
  const double c2 = c * c;
  const double a_minus = (dp - rho * c * dun) / (2.0 * c2);
  const double a_plus = (dp + rho * c * dun) / (2.0 * c2);
  const double a_entropy = drho - dp / c2;
  double lam[3] = {un - c, un, un + c};
  if (!signed_speeds) {
    const double delta = entropy_fix * (fabs(un) + c);
    for (int k = 0; k < 3; ++k) {
      const double a = fabs(lam[k]);
      lam[k] = a < delta ? (lam[k] * lam[k] + delta * delta) / (2.0 * delta) : a;
    }
  }
  const double wm = lam[0] * a_minus, wp = lam[2] * a_plus, ws = lam[1];
  double shear_energy = 0.0;
  D[0] = wm + ws * a_entropy + wp;
  for (int d = 0; d < dim; ++d) {
    const double dut = du[d] - dun * n[d];
    shear_energy += u[d] * dut;
    D[1 + d] =
        wm * (u[d] - c * n[d]) + ws * (a_entropy * u[d] + rho * dut) + wp * (u[d] + c * n[d]);
  }
  D[dim + 1] =
      wm * (H - un * c) + ws * (a_entropy * 0.5 * q2 + rho * shear_energy) + wp * (H + un * c);
}

/* Roe flux along unit n: H = ½(F(UL)·n + F(UR)·n) - ½|Â_n|(UR - UL), with
 * Harten's entropy fix of width entropy_fix (|ũ·n| + c̃) (pass
 * PHYSICS_ROE_ENTROPY_FIX; 0 switches the fix off). */
DG_HD void physics_roe_flux(int dim, double gamma, const double *UL, const double *UR,
                            const double *n, double entropy_fix, double *H) {
  double fl[DG_MAX_NVAR], fr[DG_MAX_NVAR], D[DG_MAX_NVAR];
  physics_flux_normal(dim, gamma, UL, n, fl);
  physics_flux_normal(dim, gamma, UR, n, fr);
  physics_roe_wave_sum(dim, gamma, UL, UR, n, entropy_fix, 0, D);
  for (int k = 0; k < dim + 2; ++k) H[k] = 0.5 * (fl[k] + fr[k]) - 0.5 * D[k];
}

/* Local Lax–Friedrichs flux with a given dissipation speed λ:
 * ½(F(UL)·n + F(UR)·n) - ½ λ (UR - UL). */
DG_HD void physics_rusanov_flux_speed(int dim, double gamma, const double *UL, const double *UR,
                                      const double *n, double lambda, double *H) {
  double fl[DG_MAX_NVAR], fr[DG_MAX_NVAR];
  physics_flux_normal(dim, gamma, UL, n, fl);
  physics_flux_normal(dim, gamma, UR, n, fr);
  for (int k = 0; k < dim + 2; ++k) H[k] = 0.5 * (fl[k] + fr[k]) - 0.5 * lambda * (UR[k] - UL[k]);
}

/* Largest wave speed of the two sides along unit n: the λ of the Rusanov
 * flux and of the approximate Roe Jacobian. */
DG_HD double physics_interface_wave_speed(int dim, double gamma, const double *UL, const double *UR,
                                          const double *n) {
  return fmax(physics_max_wave_speed(dim, gamma, UL, n), physics_max_wave_speed(dim, gamma, UR, n));
}

/* Local Lax–Friedrichs (Rusanov) flux along unit n, λ = max over both sides
 * of |u·n| + c. */
DG_HD void physics_rusanov_flux(int dim, double gamma, const double *UL, const double *UR,
                                const double *n, double *H) {
  physics_rusanov_flux_speed(dim, gamma, UL, UR, n,
                             physics_interface_wave_speed(dim, gamma, UL, UR, n), H);
}

/* Approximate Jacobians of the interface flux used by LU-SGS:
 * ∂H/∂UL ≈ ½(A_n(UL) + λ I), ∂H/∂UR ≈ ½(A_n(UR) - λ I), λ the interface
 * wave speed (exactly the Rusanov flux's derivative with λ frozen). Either
 * output may be 0 (NULL) when not wanted. */
DG_HD void physics_roe_flux_jacobian_approx(int dim, double gamma, const double *UL,
                                            const double *UR, const double *n, double *dH_dUL,
                                            double *dH_dUR) {
  const int nv = dim + 2;
  const double lambda = physics_interface_wave_speed(dim, gamma, UL, UR, n);
  if (dH_dUL) {
    physics_flux_jacobian(dim, gamma, UL, n, dH_dUL);
    for (int k = 0; k < nv * nv; ++k) dH_dUL[k] *= 0.5;
    for (int k = 0; k < nv; ++k) dH_dUL[k * nv + k] += 0.5 * lambda;
  }
  if (dH_dUR) {
    physics_flux_jacobian(dim, gamma, UR, n, dH_dUR);
    for (int k = 0; k < nv * nv; ++k) dH_dUR[k] *= 0.5;
    for (int k = 0; k < nv; ++k) dH_dUR[k * nv + k] -= 0.5 * lambda;
  }
}

/* ------------------------------------------------------- boundary states */

/* Wall pressure for force integration: the interior pressure, extrapolated
 * (not the Roe interface pressure, which adds ρ c u_n). */
DG_HD double physics_wall_pressure(int dim, double gamma, const double *U_interior) {
  return physics_pressure(dim, gamma, U_interior);
}

/* C = A B for n×n row-major matrices (C must not alias A or B). */
DG_HD void physics_matmul_(int n, const double *A, const double *B, double *C) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0.0;
      for (int k = 0; k < n; ++k) s += A[i * n + k] * B[k * n + j];
      C[i * n + j] = s;
    }
}

/* J = dU/dW(Wg) G dW/dU(Ui): a primitive-variable Jacobian G = ∂Wg/∂Wi
 * carried to conservative variables. */
DG_HD void physics_ghost_jacobian_from_primitive_(int dim, double gamma, const double *Ui,
                                                  const double *Wg, const double *G, double *J) {
  const int nv = dim + 2;
  double P[DG_MAX_NVAR * DG_MAX_NVAR], C[DG_MAX_NVAR * DG_MAX_NVAR], T[DG_MAX_NVAR * DG_MAX_NVAR];
  physics_primitive_jacobian(dim, gamma, Ui, P);
  physics_conservative_jacobian(dim, gamma, Wg, C);
  physics_matmul_(nv, G, P, T);
  physics_matmul_(nv, C, T, J);
}

/* Ghost state and, when J is not 0 (NULL), its exact Jacobian
 * J[i*nvar + j] = ∂Ug_i/∂Ui_j. See physics_ghost_state for the conditions. */
DG_HD void physics_ghost_state_jacobian(int dim, double gamma, int bc_kind,
                                        const physics_bc_data *bc, const double *Ui,
                                        const double *n, double *Ug, double *J) {
  const int nv = dim + 2, ip = dim + 1;
  const double g1 = gamma - 1.0;
  if (J)
    for (int k = 0; k < nv * nv; ++k) J[k] = 0.0;

  if (bc_kind == PHYSICS_BC_WALL || bc_kind == PHYSICS_BC_SYMMETRY) {
    /* ρ and ρE unchanged, ρu -> ρu - 2(ρu·n)n: linear in U */
    double mn = 0.0;
    for (int d = 0; d < dim; ++d) mn += Ui[1 + d] * n[d];
    Ug[0] = Ui[0];
    for (int d = 0; d < dim; ++d) Ug[1 + d] = Ui[1 + d] - 2.0 * mn * n[d];
    Ug[ip] = Ui[ip];
    if (J) {
      J[0] = 1.0;
      J[ip * nv + ip] = 1.0;
      for (int i = 0; i < dim; ++i)
        for (int j = 0; j < dim; ++j)
          J[(1 + i) * nv + 1 + j] = (i == j ? 1.0 : 0.0) - 2.0 * n[i] * n[j];
    }
    return;
  }
  if (bc_kind == PHYSICS_BC_SUPERSONIC_INFLOW || bc_kind == PHYSICS_BC_EXACT) {
    for (int k = 0; k < nv; ++k) Ug[k] = bc->state[k];
    return;
  }

  double Wi[DG_MAX_NVAR];
  physics_conservative_to_primitive(dim, gamma, Ui, Wi);
  const double rho_i = Wi[0], p_i = Wi[ip];
  const double c_i = sqrt(gamma * p_i / rho_i);
  double un_i = 0.0;
  for (int d = 0; d < dim; ++d) un_i += Wi[1 + d] * n[d];

  const int extrapolate =
      bc_kind == PHYSICS_BC_SUPERSONIC_OUTFLOW ||
      ((bc_kind == PHYSICS_BC_FARFIELD || bc_kind == PHYSICS_BC_OUTFLOW_SUBSONIC) && un_i >= c_i);
  if (extrapolate) {
    for (int k = 0; k < nv; ++k) Ug[k] = Ui[k];
    if (J)
      for (int k = 0; k < nv; ++k) J[k * nv + k] = 1.0;
    return;
  }
  if (bc_kind == PHYSICS_BC_FARFIELD && un_i <= -c_i) { /* supersonic inflow */
    for (int k = 0; k < nv; ++k) Ug[k] = bc->state[k];
    return;
  }

  /* Outgoing Riemann invariant R+ = u_n + 2c/(γ-1) and its gradient in Wi. */
  const double r_plus = un_i + 2.0 * c_i / g1;
  double g_r[DG_MAX_NVAR];
  g_r[0] = -c_i / (g1 * rho_i);
  for (int d = 0; d < dim; ++d) g_r[1 + d] = n[d];
  g_r[ip] = c_i / (g1 * p_i);

  double Wg[DG_MAX_NVAR];
  double G[DG_MAX_NVAR * DG_MAX_NVAR]; /* ∂Wg/∂Wi */
  for (int k = 0; k < nv * nv; ++k) G[k] = 0.0;

  if (bc_kind == PHYSICS_BC_FARFIELD) {
    double Winf[DG_MAX_NVAR];
    physics_conservative_to_primitive(dim, gamma, bc->state, Winf);
    const double c_inf = sqrt(gamma * Winf[ip] / Winf[0]);
    double un_inf = 0.0;
    for (int d = 0; d < dim; ++d) un_inf += Winf[1 + d] * n[d];
    const double r_minus = un_inf - 2.0 * c_inf / g1;
    const double un_b = 0.5 * (r_plus + r_minus);
    const double c_b = 0.25 * g1 * (r_plus - r_minus);
    /* entropy and tangential velocity from the upwind side */
    const int outflow = un_b > 0.0;
    const double *Ws = outflow ? Wi : Winf;
    const double un_s = outflow ? un_i : un_inf;
    const double s = Ws[ip] / pow(Ws[0], gamma);
    const double rho_b = pow(c_b * c_b / (gamma * s), 1.0 / g1);
    const double p_b = rho_b * c_b * c_b / gamma;
    Wg[0] = rho_b;
    for (int d = 0; d < dim; ++d) Wg[1 + d] = Ws[1 + d] - un_s * n[d] + un_b * n[d];
    Wg[ip] = p_b;
    if (J) {
      for (int j = 0; j < nv; ++j) {
        const double g_cb = 0.25 * g1 * g_r[j], g_unb = 0.5 * g_r[j];
        double g_s = 0.0;
        if (outflow) g_s = j == 0 ? -gamma * s / rho_i : (j == ip ? s / p_i : 0.0);
        const double g_rho = rho_b / g1 * (2.0 * g_cb / c_b - g_s / s);
        G[j] = g_rho;
        G[ip * nv + j] = p_b * (g_rho / rho_b + 2.0 * g_cb / c_b);
        for (int d = 0; d < dim; ++d) {
          double g_ut = 0.0;
          if (outflow && j >= 1 && j <= dim) g_ut = (d == j - 1 ? 1.0 : 0.0) - n[d] * n[j - 1];
          G[(1 + d) * nv + j] = g_ut + n[d] * g_unb;
        }
      }
    }
  } else if (bc_kind == PHYSICS_BC_INFLOW_SUBSONIC) {
    /* Speed V along the given direction from R+ and the total enthalpy:
     * c_b² = a0² - (γ-1)/2 V², R+ = V d_n + 2 c_b/(γ-1); larger root. */
    const double a02 = gamma * bc->total_temperature;
    double dn = 0.0;
    for (int d = 0; d < dim; ++d) dn += bc->direction[d] * n[d];
    const double qa = 1.0 + 0.5 * g1 * dn * dn;
    const double qb = -g1 * r_plus * dn;
    const double qc = 0.5 * g1 * r_plus * r_plus - 2.0 * a02 / g1;
    /* qc >= 0 means R+ >= 2 a0/(γ-1): no inflow speed matches the interior
     * (it is hotter than the reservoir or flows out); impose the reservoir
     * at rest, V = 0. Otherwise qc < 0 and the larger root is positive; for
     * qb > 0 it is written as -2qc/(qb + root) so that a slow inflow does
     * not lose its digits to the cancellation in -qb + root. */
    const double root = qc < 0.0 ? sqrt(qb * qb - 4.0 * qa * qc) : 0.0;
    const double V =
        qc >= 0.0 ? 0.0 : (qb > 0.0 ? -2.0 * qc / (qb + root) : (root - qb) / (2.0 * qa));
    const double c_b2 = a02 - 0.5 * g1 * V * V;
    const double p_b = bc->total_pressure * pow(c_b2 / a02, gamma / g1);
    const double rho_b = gamma * p_b / c_b2;
    Wg[0] = rho_b;
    for (int d = 0; d < dim; ++d) Wg[1 + d] = V * bc->direction[d];
    Wg[ip] = p_b;
    if (J) {
      /* implicit derivative of qa V² + qb V + qc = 0; ∂f/∂V = root */
      const double dv_dr = qc < 0.0 ? -(g1 * r_plus - g1 * dn * V) / root : 0.0;
      for (int j = 0; j < nv; ++j) {
        const double g_v = dv_dr * g_r[j];
        const double g_c2 = -g1 * V * g_v;
        const double g_p = p_b * gamma / g1 * g_c2 / c_b2;
        G[j] = rho_b * (g_p / p_b - g_c2 / c_b2);
        for (int d = 0; d < dim; ++d) G[(1 + d) * nv + j] = bc->direction[d] * g_v;
        G[ip * nv + j] = g_p;
      }
    }
  } else { /* PHYSICS_BC_OUTFLOW_SUBSONIC: p given; entropy, u_t and R+ from inside */
    const double p_b = bc->static_pressure;
    const double s = p_i / pow(rho_i, gamma);
    const double rho_b = pow(p_b / s, 1.0 / gamma);
    const double c_b = sqrt(gamma * p_b / rho_b);
    const double un_b = r_plus - 2.0 * c_b / g1;
    Wg[0] = rho_b;
    for (int d = 0; d < dim; ++d) Wg[1 + d] = Wi[1 + d] + (un_b - un_i) * n[d];
    Wg[ip] = p_b;
    if (J) {
      for (int j = 0; j < nv; ++j) {
        const double g_s = j == 0 ? -gamma * s / rho_i : (j == ip ? s / p_i : 0.0);
        const double g_rho = -rho_b / (gamma * s) * g_s;
        const double g_c = -c_b / (2.0 * rho_b) * g_rho;
        const double g_unb = g_r[j] - 2.0 / g1 * g_c;
        G[j] = g_rho;
        for (int d = 0; d < dim; ++d) {
          const double g_ut =
              (j >= 1 && j <= dim) ? (d == j - 1 ? 1.0 : 0.0) - n[d] * n[j - 1] : 0.0;
          G[(1 + d) * nv + j] = g_ut + n[d] * g_unb;
        }
        G[ip * nv + j] = 0.0;
      }
    }
  }
  physics_primitive_to_conservative(dim, gamma, Wg, Ug);
  if (J) physics_ghost_jacobian_from_primitive_(dim, gamma, Ui, Wg, G, J);
}

/* Ghost (exterior) state Ug for a boundary face with outward unit normal n,
 * from the interior state Ui; the face flux is then the Roe flux H(Ui, Ug, n).
 *  WALL, SYMMETRY: normal velocity reflected (ρ, p, tangential u kept).
 *  FARFIELD: bc.state is the freestream. |u_n| >= c inside: supersonic,
 *    ghost = freestream (inflow) or interior (outflow). Otherwise
 *    R+ = u_n + 2c/(γ-1) from inside, R- from the freestream, u_n,b and c_b
 *    from them, entropy p/ρ^γ and tangential velocity from the upwind side.
 *  INFLOW_SUBSONIC: total pressure, total temperature, direction given;
 *    the speed from the interior R+ (see docs/NUMERICS-physics.md); the
 *    reservoir at rest when R+ >= 2 a0/(γ-1) leaves no inflow solution.
 *  OUTFLOW_SUBSONIC: static pressure given; entropy, tangential velocity and
 *    R+ from inside (u_n >= c inside: supersonic, ghost = interior).
 *  SUPERSONIC_INFLOW, EXACT: ghost = bc.state. SUPERSONIC_OUTFLOW: interior. */
DG_HD void physics_ghost_state(int dim, double gamma, int bc_kind, const physics_bc_data *bc,
                               const double *Ui, const double *n, double *Ug) {
  physics_ghost_state_jacobian(dim, gamma, bc_kind, bc, Ui, n, Ug, 0);
}

/* ------------------------------------------------ freestream and vortex */

/* Far-field state at point x of a 2D lifting body: the freestream Uinf
 * (conservative) plus the compressible point vortex of circulation
 * `circulation` centred at `center` (Usab and Murman 1983; Thomas and Salas,
 * AIAA J. 24(7), 1986):
 *   u = u∞ + Γβ sinθ / (2π r (1 − M∞² sin²(θ − α))),
 *   v = v∞ − Γβ cosθ / (2π r (1 − M∞² sin²(θ − α))),
 * β = √(1 − M∞²), (r, θ) the polar coordinates of x about the centre and α
 * the freestream direction. Γ = ½ |u∞| c CL > 0 turns clockwise (lift up).
 * ρ and p follow from the freestream's entropy p/ρ^γ and total enthalpy.
 * Returns Uinf unchanged when M∞ ≥ 1, Γ = 0 or x is at the centre. */
DG_HD void physics_farfield_vortex_state(double gamma, const double *Uinf, double circulation,
                                         const double *center, const double *x, double *U) {
  double W[4];
  physics_conservative_to_primitive(2, gamma, Uinf, W);
  const double q2 = W[1] * W[1] + W[2] * W[2], c2 = gamma * W[3] / W[0], m2 = q2 / c2;
  const double dx = x[0] - center[0], dy = x[1] - center[1], r = sqrt(dx * dx + dy * dy);
  for (int k = 0; k < 4; ++k) U[k] = Uinf[k];
  if (!(m2 < 1.0) || circulation == 0.0 || !(r > 0.0)) return;
  const double sin_t = dy / r, cos_t = dx / r, q = sqrt(q2);
  const double sin_a = q > 0.0 ? W[2] / q : 0.0, cos_a = q > 0.0 ? W[1] / q : 1.0;
  const double s = sin_t * cos_a - cos_t * sin_a; /* sin(θ − α) */
  const double f = circulation * sqrt(1.0 - m2) / (2.0 * DG_PI * r * (1.0 - m2 * s * s));
  const double u = W[1] + f * sin_t, v = W[2] - f * cos_t;
  const double g1 = gamma - 1.0;
  const double h0 = c2 / g1 + 0.5 * q2, entropy = W[3] / pow(W[0], gamma);
  double cb2 = g1 * (h0 - 0.5 * (u * u + v * v));
  cb2 = cb2 > 1e-3 * c2 ? cb2 : 1e-3 * c2; /* a vortex that strong near the boundary is a user
                                              error; keep the state physical */
  const double rho = pow(cb2 / (gamma * entropy), 1.0 / g1);
  double Wb[4] = {rho, u, v, rho * cb2 / gamma};
  physics_primitive_to_conservative(2, gamma, Wb, U);
}

/* The wind axes (the one definition of the case.h convention; x
 * downstream, y span, z up) for angle of attack a and sideslip b in
 * radians: drag along the free stream, 2D (cos a, sin a, 0), 3D
 * (cos a cos b, sin b, sin a cos b); lift normal to it in the plane of a,
 * pointing up, 2D (-sin a, cos a, 0), 3D (-sin a, 0, cos a); side =
 * lift × drag in 3D, 0 in 2D. drag, lift, side: 3 doubles each, written;
 * lift and side may be NULL. b is not used in 2D. */
DG_HD void physics_wind_axes(int dim, double a, double b, double *drag, double *lift,
                             double *side) {
  if (dim == 2) {
    drag[0] = cos(a), drag[1] = sin(a), drag[2] = 0.0;
    if (lift) lift[0] = -sin(a), lift[1] = cos(a), lift[2] = 0.0;
    if (side) side[0] = side[1] = side[2] = 0.0;
    return;
  }
  drag[0] = cos(a) * cos(b), drag[1] = sin(b), drag[2] = sin(a) * cos(b);
  const double up[3] = {-sin(a), 0.0, cos(a)};
  if (lift)
    for (int d = 0; d < 3; ++d) lift[d] = up[d];
  if (side) {
    side[0] = up[1] * drag[2] - up[2] * drag[1];
    side[1] = up[2] * drag[0] - up[0] * drag[2];
    side[2] = up[0] * drag[1] - up[1] * drag[0];
  }
}

/* physics_wind_axes from angles in degrees, converted as α·π/180: the
 * force and surface axes (surface_wind_axes) and case_freestream_velocity.
 * physics_direction below converts α·(π/180); the two roundings differ in
 * the last bit and are kept apart so that histories stay bitwise
 * (docs/ARCHITECTURE.md §7): these two functions are the only degree
 * conversions of the wind axes. */
DG_HD void physics_wind_axes_deg(int dim, double alpha_deg, double beta_deg, double *drag,
                                 double *lift, double *side) {
  physics_wind_axes(dim, alpha_deg * DG_PI / 180.0, beta_deg * DG_PI / 180.0, drag, lift, side);
}

/* Unit free-stream direction (the drag axis of physics_wind_axes) from
 * angles in degrees; 3 doubles written (0 beyond dim). */
DG_HD void physics_direction(int dim, double alpha_deg, double beta_deg, double *direction) {
  physics_wind_axes(dim, alpha_deg * (DG_PI / 180.0), beta_deg * (DG_PI / 180.0), direction, NULL,
                    NULL);
}

/* Freestream conservative state: ρ = 1, u = M physics_direction(α, β),
 * p = 1/γ. Angles in degrees. */
DG_HD void physics_freestream_state(int dim, double gamma, double mach, double alpha_deg,
                                    double beta_deg, double *U) {
  double W[DG_MAX_NVAR], e[DG_MAX_DIM];
  physics_direction(dim, alpha_deg, beta_deg, e);
  W[0] = 1.0;
  for (int d = 0; d < dim; ++d) W[1 + d] = mach * e[d];
  W[dim + 1] = 1.0 / gamma;
  physics_primitive_to_conservative(dim, gamma, W, U);
}

/* Displacement x - xc wrapped to the nearest periodic image. */
DG_HD double physics_vortex_wrap_(double dx, double period) {
  return period > 0.0 ? dx - period * floor(dx / period + 0.5) : dx;
}

/* Conservative state of the isentropic vortex (physics_vortex) at point x
 * (dim components) and time t. */
DG_HD void physics_vortex_state(int dim, double gamma, const physics_vortex *v, const double *x,
                                double t, double *U) {
  const double g1 = gamma - 1.0;
  const double dx0 = physics_vortex_wrap_(x[0] - (v->center[0] + v->velocity[0] * t), v->period[0]);
  const double dy0 = physics_vortex_wrap_(x[1] - (v->center[1] + v->velocity[1] * t), v->period[1]);
  const int ix = v->period[0] > 0.0 ? v->images : 0;
  const int iy = v->period[1] > 0.0 ? v->images : 0;
  const double amp_u = v->strength / (2.0 * DG_PI);
  const double amp_c2 = g1 * v->strength * v->strength / (8.0 * DG_PI * DG_PI);
  double du = 0.0, dv = 0.0, dc2 = 0.0;
  for (int i = -ix; i <= ix; ++i)
    for (int j = -iy; j <= iy; ++j) {
      const double dx = dx0 + i * v->period[0], dy = dy0 + j * v->period[1];
      const double e = exp(1.0 - dx * dx - dy * dy); /* e^(1-r²) */
      const double s = sqrt(e);                      /* e^((1-r²)/2) */
      du -= amp_u * s * dy;
      dv += amp_u * s * dx;
      dc2 -= amp_c2 * e;
    }
  double W[DG_MAX_NVAR];
  const double rho = pow(1.0 + dc2, 1.0 / g1);
  W[0] = rho;
  W[1] = v->velocity[0] + du;
  W[2] = v->velocity[1] + dv;
  if (dim == 3) W[3] = 0.0;
  W[dim + 1] = pow(rho, gamma) / gamma;
  physics_primitive_to_conservative(dim, gamma, W, U);
}
