/* Euler physics (src/dg/physics.h), 2D and 3D, at many random admissible
 * states: Roe flux consistency, conservation, rotational invariance, the
 * Roe property F(UR) - F(UL) = Â (UR - UL) and |Â| checked against an
 * independent matrix sign function, supersonic upwinding; boundary ghost
 * states (wall mass flux and pressure, far field / inflow / outflow
 * invariants and freestream preservation); every Jacobian against central
 * finite differences; freestream angles; the isentropic vortex (isentropy,
 * Euler residual by finite differences, translation, periodicity). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/case.h"
#include "dg/physics.h"
#include "test_util.h"

#define NV DG_MAX_NVAR
#define NN (DG_MAX_NVAR * DG_MAX_NVAR)
#define N_RANDOM 400
static const double gamma_air = 1.4;

/* The bc kinds cast from the case file's. */
_Static_assert((int)PHYSICS_BC_WALL == (int)DG_BC_WALL, "bc enum");
_Static_assert((int)PHYSICS_BC_SYMMETRY == (int)DG_BC_SYMMETRY, "bc enum");
_Static_assert((int)PHYSICS_BC_FARFIELD == (int)DG_BC_FARFIELD, "bc enum");
_Static_assert((int)PHYSICS_BC_INFLOW_SUBSONIC == (int)DG_BC_INFLOW_SUBSONIC, "bc enum");
_Static_assert((int)PHYSICS_BC_OUTFLOW_SUBSONIC == (int)DG_BC_OUTFLOW_SUBSONIC, "bc enum");
_Static_assert((int)PHYSICS_BC_SUPERSONIC_INFLOW == (int)DG_BC_SUPERSONIC_INFLOW, "bc enum");
_Static_assert((int)PHYSICS_BC_SUPERSONIC_OUTFLOW == (int)DG_BC_SUPERSONIC_OUTFLOW, "bc enum");
_Static_assert((int)PHYSICS_BC_EXACT == (int)DG_BC_EXACT, "bc enum");

/* Deterministic uniform numbers in [0, 1) (tests must be repeatable). */
static unsigned rng = 12345u;
static double uniform(void) {
  rng = rng * 1664525u + 1013904223u;
  return (rng >> 8) / 16777216.0;
}
static double between(double a, double b) { return a + (b - a) * uniform(); }

static void random_unit(int dim, double *n) {
  double len;
  do {
    len = 0.0;
    for (int d = 0; d < dim; ++d) {
      n[d] = between(-1.0, 1.0);
      len += n[d] * n[d];
    }
  } while (len < 0.05 || len > 1.0);
  for (int d = 0; d < dim; ++d) n[d] /= sqrt(len);
}

/* ρ in [0.2, 3], |u| up to ~3, p in [0.1, 3]: subsonic and supersonic. */
static void random_state(int dim, double *U) {
  double W[NV];
  W[0] = between(0.2, 3.0);
  for (int d = 0; d < dim; ++d) W[1 + d] = between(-1.8, 1.8);
  W[dim + 1] = between(0.1, 3.0);
  physics_primitive_to_conservative(dim, gamma_air, W, U);
}

/* A state whose velocity along n is mach_n times its sound speed. */
static void state_with_normal_mach(int dim, const double *n, double mach_n, double *U) {
  double W[NV];
  random_state(dim, U);
  physics_conservative_to_primitive(dim, gamma_air, U, W);
  const double c = sqrt(gamma_air * W[dim + 1] / W[0]);
  double un = 0.0;
  for (int d = 0; d < dim; ++d) un += W[1 + d] * n[d];
  for (int d = 0; d < dim; ++d) W[1 + d] += (mach_n * c - un) * n[d];
  physics_primitive_to_conservative(dim, gamma_air, W, U);
}

static double max_abs(int count, const double *a) {
  double m = 0.0;
  for (int k = 0; k < count; ++k) m = fmax(m, fabs(a[k]));
  return m;
}

/* max_k |a_k - b_k| / max(1, max |b|). */
static double relative_difference(int count, const double *a, const double *b) {
  double m = 0.0;
  for (int k = 0; k < count; ++k) m = fmax(m, fabs(a[k] - b[k]));
  return m / fmax(1.0, max_abs(count, b));
}

/* Random rotation Q (dim×dim, row-major 3×3 storage). */
static void random_rotation(int dim, double Q[9]) {
  if (dim == 2) {
    const double t = between(0.0, 2.0 * DG_PI);
    Q[0] = cos(t), Q[1] = -sin(t), Q[3] = sin(t), Q[4] = cos(t);
    return;
  }
  double q[4], len = 0.0;
  for (int k = 0; k < 4; ++k) {
    q[k] = between(-1.0, 1.0);
    len += q[k] * q[k];
  }
  for (int k = 0; k < 4; ++k) q[k] /= sqrt(len);
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  const double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                       2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                       2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  memcpy(Q, R, sizeof R);
}

/* Rotates the momentum of a state (or a flux vector) by Q. */
static void rotate_state(int dim, const double Q[9], const double *U, double *out) {
  out[0] = U[0];
  out[dim + 1] = U[dim + 1];
  for (int i = 0; i < dim; ++i) {
    out[1 + i] = 0.0;
    for (int j = 0; j < dim; ++j) out[1 + i] += Q[3 * i + j] * U[1 + j];
  }
}

static void rotate_vector(int dim, const double Q[9], const double *v, double *out) {
  for (int i = 0; i < dim; ++i) {
    out[i] = 0.0;
    for (int j = 0; j < dim; ++j) out[i] += Q[3 * i + j] * v[j];
  }
}

/* ---------------------------------------------------------------- basics */

static void test_basics(int dim) {
  /* a state with known values: ρ = 2, u = (0.3, -0.4[, 1.2]), p = 0.9 */
  const double W[NV] = {2.0, 0.3, -0.4, dim == 3 ? 1.2 : 0.9, 0.9};
  double Wd[NV], U[NV], back[NV];
  memcpy(Wd, W, sizeof Wd);
  Wd[dim + 1] = 0.9;
  physics_primitive_to_conservative(dim, gamma_air, Wd, U);
  const double q2 = 0.09 + 0.16 + (dim == 3 ? 1.44 : 0.0);
  TEST_CLOSE(U[dim + 1], 0.9 / 0.4 + 0.5 * 2.0 * q2, 1e-14, "ρE");
  TEST_CLOSE(physics_pressure(dim, gamma_air, U), 0.9, 1e-14, "pressure");
  TEST_CLOSE(physics_sound_speed(dim, gamma_air, U), sqrt(1.4 * 0.9 / 2.0), 1e-14, "c");
  TEST_CLOSE(physics_entropy(dim, gamma_air, U), 0.9 / pow(2.0, 1.4), 1e-14, "entropy");
  TEST_CLOSE(physics_mach(dim, gamma_air, U), sqrt(q2) / sqrt(1.4 * 0.9 / 2.0), 1e-14, "Mach");
  const double m2 = q2 / (1.4 * 0.9 / 2.0);
  TEST_CLOSE(physics_total_pressure(dim, gamma_air, U), 0.9 * pow(1 + 0.2 * m2, 3.5), 1e-13, "p0");
  TEST_CLOSE(physics_total_temperature(dim, gamma_air, U), 0.45 * (1 + 0.2 * m2), 1e-14, "T0");
  physics_conservative_to_primitive(dim, gamma_air, U, back);
  TEST_CHECK(relative_difference(dim + 2, back, Wd) < 1e-15, "primitive round trip");
  TEST_CHECK(physics_admissible(dim, gamma_air, U), "admissible state rejected");
  double bad[NV];
  memcpy(bad, U, sizeof bad);
  bad[dim + 1] = 0.5 * 2.0 * q2 * 0.99; /* negative pressure */
  TEST_CHECK(!physics_admissible(dim, gamma_air, bad), "negative pressure accepted");
  memcpy(bad, U, sizeof bad);
  bad[0] = -1.0;
  TEST_CHECK(!physics_admissible(dim, gamma_air, bad), "negative density accepted");
  memcpy(bad, U, sizeof bad);
  bad[1] = NAN;
  TEST_CHECK(!physics_admissible(dim, gamma_air, bad), "NaN accepted");

  /* flux tensor rows are the normal fluxes along the axes; F·n is linear */
  double F[DG_MAX_DIM * NV], Fn[NV], n[3] = {0.3, -1.7, 0.6}, sum[NV] = {0};
  physics_flux(dim, gamma_air, U, F);
  for (int d = 0; d < dim; ++d)
    for (int k = 0; k < dim + 2; ++k) sum[k] += n[d] * F[d * (dim + 2) + k];
  physics_flux_normal(dim, gamma_air, U, n, Fn);
  TEST_CHECK(relative_difference(dim + 2, Fn, sum) < 1e-15, "F·n = Σ n_d F_d");
  TEST_CLOSE(Fn[0], 2.0 * (0.3 * 0.3 - 0.4 * -1.7 + (dim == 3 ? 1.2 * 0.6 : 0.0)), 1e-14,
             "mass flux");
  double unit[3];
  random_unit(dim, unit);
  double un = 0.0;
  for (int d = 0; d < dim; ++d) un += Wd[1 + d] * unit[d];
  TEST_CLOSE(physics_max_wave_speed(dim, gamma_air, U, unit), fabs(un) + sqrt(0.63), 1e-14,
             "max wave speed");
}

/* ------------------------------------------------------------ Roe flux */

static void test_roe_basic_properties(int dim) {
  double worst_consistency = 0, worst_rusanov = 0, worst_conservation = 0, worst_rotation = 0;
  for (int trial = 0; trial < N_RANDOM; ++trial) {
    double UL[NV], UR[NV], n[3], minus_n[3], F[NV], H[NV], H2[NV], R[NV];
    random_state(dim, UL);
    random_state(dim, UR);
    random_unit(dim, n);
    for (int d = 0; d < dim; ++d) minus_n[d] = -n[d];

    physics_flux_normal(dim, gamma_air, UL, n, F);
    physics_roe_flux(dim, gamma_air, UL, UL, n, PHYSICS_ROE_ENTROPY_FIX, H);
    worst_consistency = fmax(worst_consistency, relative_difference(dim + 2, H, F));
    physics_rusanov_flux(dim, gamma_air, UL, UL, n, H);
    worst_rusanov = fmax(worst_rusanov, relative_difference(dim + 2, H, F));

    physics_roe_flux(dim, gamma_air, UL, UR, n, PHYSICS_ROE_ENTROPY_FIX, H);
    physics_roe_flux(dim, gamma_air, UR, UL, minus_n, PHYSICS_ROE_ENTROPY_FIX, H2);
    for (int k = 0; k < dim + 2; ++k) H2[k] = -H2[k];
    worst_conservation = fmax(worst_conservation, relative_difference(dim + 2, H, H2));
    physics_rusanov_flux(dim, gamma_air, UL, UR, n, R);
    physics_rusanov_flux(dim, gamma_air, UR, UL, minus_n, H2);
    for (int k = 0; k < dim + 2; ++k) H2[k] = -H2[k];
    worst_conservation = fmax(worst_conservation, relative_difference(dim + 2, R, H2));

    /* H(Q UL, Q UR, Q n) = Q H(UL, UR, n) */
    double Q[9], QL[NV], QR[NV], Qn[3], QH[NV], HQ[NV];
    random_rotation(dim, Q);
    rotate_state(dim, Q, UL, QL);
    rotate_state(dim, Q, UR, QR);
    rotate_vector(dim, Q, n, Qn);
    physics_roe_flux(dim, gamma_air, QL, QR, Qn, PHYSICS_ROE_ENTROPY_FIX, HQ);
    rotate_state(dim, Q, H, QH);
    worst_rotation = fmax(worst_rotation, relative_difference(dim + 2, HQ, QH));
  }
  printf("  %dD Roe: consistency %.2e, Rusanov consistency %.2e, conservation %.2e, rotation "
         "%.2e\n",
         dim, worst_consistency, worst_rusanov, worst_conservation, worst_rotation);
  TEST_CHECK(worst_consistency < 1e-15, "%dD Roe H(U,U,n) != F(U)·n: %.3g", dim, worst_consistency);
  TEST_CHECK(worst_rusanov < 1e-15, "%dD Rusanov H(U,U,n) != F(U)·n: %.3g", dim, worst_rusanov);
  TEST_CHECK(worst_conservation < 1e-14, "%dD H(UL,UR,n) != -H(UR,UL,-n): %.3g", dim,
             worst_conservation);
  TEST_CHECK(worst_rotation < 1e-13, "%dD rotational invariance: %.3g", dim, worst_rotation);
}

/* Inverse of an n×n matrix by Gauss–Jordan with partial pivoting. */
static int invert(int n, const double *A, double *inv) {
  double M[NN];
  memcpy(M, A, sizeof(double) * n * n);
  for (int i = 0; i < n * n; ++i) inv[i] = 0.0;
  for (int i = 0; i < n; ++i) inv[i * n + i] = 1.0;
  for (int col = 0; col < n; ++col) {
    int piv = col;
    for (int r = col + 1; r < n; ++r)
      if (fabs(M[r * n + col]) > fabs(M[piv * n + col])) piv = r;
    if (M[piv * n + col] == 0.0) return 0;
    for (int k = 0; k < n; ++k) {
      double t = M[col * n + k];
      M[col * n + k] = M[piv * n + k], M[piv * n + k] = t;
      t = inv[col * n + k];
      inv[col * n + k] = inv[piv * n + k], inv[piv * n + k] = t;
    }
    const double d = 1.0 / M[col * n + col];
    for (int k = 0; k < n; ++k) M[col * n + k] *= d, inv[col * n + k] *= d;
    for (int r = 0; r < n; ++r) {
      if (r == col) continue;
      const double f = M[r * n + col];
      for (int k = 0; k < n; ++k)
        M[r * n + k] -= f * M[col * n + k], inv[r * n + k] -= f * inv[col * n + k];
    }
  }
  return 1;
}

static void matvec(int n, const double *A, const double *x, double *y) {
  for (int i = 0; i < n; ++i) {
    y[i] = 0.0;
    for (int j = 0; j < n; ++j) y[i] += A[i * n + j] * x[j];
  }
}

/* |A| = A sign(A) with sign(A) from the Newton iteration S <- (S + S^-1)/2,
 * which needs no eigenvectors: an independent check of the Roe waves. */
static int matrix_abs(int n, const double *A, double *absA) {
  double S[NN], Sinv[NN];
  memcpy(S, A, sizeof(double) * n * n);
  for (int it = 0; it < 100; ++it) {
    if (!invert(n, S, Sinv)) return 0;
    double change = 0.0;
    for (int k = 0; k < n * n; ++k) {
      const double s = 0.5 * (S[k] + Sinv[k]);
      change = fmax(change, fabs(s - S[k]));
      S[k] = s;
    }
    if (change < 1e-15) break;
  }
  physics_matmul_(n, A, S, absA);
  return 1;
}

/* Harten-fixed |λ| written out again for the check below. */
static double fixed_speed(double lambda, double delta) {
  return fabs(lambda) >= delta ? fabs(lambda) : (lambda * lambda + delta * delta) / (2.0 * delta);
}

/* f(Â) ΔU from the spectral projectors of Â: its eigenvalues are
 * ũn - c̃, ũn (dim-fold), ũn + c̃, so P_k = Π_{j≠k} (Â - λ_j I)/(λ_k - λ_j)
 * (Lagrange interpolation; Â is diagonalisable). Independent of the wave
 * strengths and eigenvectors physics_roe_wave_sum uses. */
static void spectral_dissipation(int dim, const double *A, const double lam[3], const double f[3],
                                 const double *dU, double *out) {
  const int nv = dim + 2;
  for (int i = 0; i < nv; ++i) out[i] = 0.0;
  for (int k = 0; k < 3; ++k) {
    double v[NV], w[NV];
    memcpy(v, dU, sizeof v);
    for (int j = 0; j < 3; ++j) {
      if (j == k) continue;
      matvec(nv, A, v, w);
      for (int i = 0; i < nv; ++i) v[i] = (w[i] - lam[j] * v[i]) / (lam[k] - lam[j]);
    }
    for (int i = 0; i < nv; ++i) out[i] += f[k] * v[i];
  }
}

/* Roe dissipation with the entropy fix on, at random and at near-sonic
 * states, against the spectral form Σ f(λ_k) P_k ΔU. */
static void test_roe_entropy_fix(int dim) {
  const int nv = dim + 2;
  double worst = 0.0;
  int active = 0;
  for (int trial = 0; trial < N_RANDOM; ++trial) {
    double UL[NV], UR[NV], n[3], W[NV], A[NN], dU[NV], D[NV], expect[NV];
    random_unit(dim, n);
    if (trial % 2) {
      random_state(dim, UL);
      random_state(dim, UR);
    } else { /* near a sonic or stagnation point: the fix is active */
      const double targets[3] = {-1.0, 0.0, 1.0};
      state_with_normal_mach(dim, n, targets[trial % 3] + between(-0.05, 0.05), UL);
      physics_conservative_to_primitive(dim, gamma_air, UL, W);
      for (int k = 0; k < nv; ++k) W[k] *= between(0.95, 1.05);
      physics_primitive_to_conservative(dim, gamma_air, W, UR);
    }
    double rho, u[3], Henth, c, un = 0.0;
    physics_roe_average(dim, gamma_air, UL, UR, &rho, u, &Henth, &c);
    for (int d = 0; d < dim; ++d) un += u[d] * n[d];
    const double delta = PHYSICS_ROE_ENTROPY_FIX * (fabs(un) + c);
    const double lam[3] = {un - c, un, un + c};
    const double f[3] = {fixed_speed(lam[0], delta), fixed_speed(lam[1], delta),
                         fixed_speed(lam[2], delta)};
    active += f[0] != fabs(lam[0]) || f[1] != fabs(lam[1]) || f[2] != fabs(lam[2]);
    physics_roe_matrix(dim, gamma_air, UL, UR, n, A);
    for (int k = 0; k < nv; ++k) dU[k] = UR[k] - UL[k];
    spectral_dissipation(dim, A, lam, f, dU, expect);
    physics_roe_wave_sum(dim, gamma_air, UL, UR, n, PHYSICS_ROE_ENTROPY_FIX, 0, D);
    worst = fmax(worst, relative_difference(nv, D, expect));
  }
  printf("  %dD Roe dissipation vs spectral projectors (fix active at %d states): %.2e\n", dim,
         active, worst);
  TEST_CHECK(active > N_RANDOM / 4, "%dD too few states with the entropy fix active: %d", dim,
             active);
  TEST_CHECK(worst < 1e-12, "%dD Roe dissipation != Σ f(λ) P ΔU: %.3g", dim, worst);
}

static void test_roe_property(int dim) {
  const int nv = dim + 2;
  double worst_signed = 0, worst_matrix = 0, worst_abs = 0, worst_fix = 0;
  int tested_abs = 0;
  for (int trial = 0; trial < N_RANDOM; ++trial) {
    double UL[NV], UR[NV], n[3], FL[NV], FR[NV], dF[NV], dU[NV], D[NV], A[NN], AdU[NV];
    random_state(dim, UL);
    random_state(dim, UR);
    random_unit(dim, n);
    physics_flux_normal(dim, gamma_air, UL, n, FL);
    physics_flux_normal(dim, gamma_air, UR, n, FR);
    for (int k = 0; k < nv; ++k) dF[k] = FR[k] - FL[k], dU[k] = UR[k] - UL[k];
    physics_roe_wave_sum(dim, gamma_air, UL, UR, n, 0.0, 1, D);
    worst_signed = fmax(worst_signed, relative_difference(nv, D, dF));
    physics_roe_matrix(dim, gamma_air, UL, UR, n, A);
    matvec(nv, A, dU, AdU);
    worst_matrix = fmax(worst_matrix, relative_difference(nv, AdU, dF));

    /* with the eigenvalues away from 0: H = ½(FL + FR) - ½|Â| ΔU */
    double rho, u[3], Henth, c, un = 0.0;
    physics_roe_average(dim, gamma_air, UL, UR, &rho, u, &Henth, &c);
    for (int d = 0; d < dim; ++d) un += u[d] * n[d];
    const double smallest = fmin(fabs(un), fmin(fabs(un - c), fabs(un + c)));
    if (smallest < 0.2 * (fabs(un) + c)) continue;
    double absA[NN], H[NV], Hfix[NV], expect[NV], absdU[NV];
    if (!matrix_abs(nv, A, absA)) continue;
    ++tested_abs;
    matvec(nv, absA, dU, absdU);
    for (int k = 0; k < nv; ++k) expect[k] = 0.5 * (FL[k] + FR[k]) - 0.5 * absdU[k];
    physics_roe_flux(dim, gamma_air, UL, UR, n, 0.0, H);
    worst_abs = fmax(worst_abs, relative_difference(nv, H, expect));
    /* the fix (δ = 0.1 (|ũn| + c̃)) leaves |λ| >= δ alone */
    physics_roe_flux(dim, gamma_air, UL, UR, n, PHYSICS_ROE_ENTROPY_FIX, Hfix);
    worst_fix = fmax(worst_fix, relative_difference(nv, Hfix, H));
  }
  printf("  %dD Roe property: ΣλαR %.2e, Â ΔU %.2e, |Â| (%d states) %.2e, inactive fix %.2e\n", dim,
         worst_signed, worst_matrix, tested_abs, worst_abs, worst_fix);
  TEST_CHECK(worst_signed < 1e-13, "%dD Σ λ α r != F(UR)-F(UL): %.3g", dim, worst_signed);
  TEST_CHECK(worst_matrix < 1e-13, "%dD Â ΔU != F(UR)-F(UL): %.3g", dim, worst_matrix);
  TEST_CHECK(tested_abs > N_RANDOM / 10, "%dD too few states for the |Â| check: %d", dim,
             tested_abs);
  TEST_CHECK(worst_abs < 1e-11, "%dD Roe flux != ½(FL+FR) - ½|Â|ΔU: %.3g", dim, worst_abs);
  TEST_CHECK(worst_fix == 0.0, "%dD entropy fix changed a flux with |λ| >= δ: %.3g", dim,
             worst_fix);

  /* the fix is active near a sonic point: it adds dissipation there */
  double UL[NV], UR[NV], n[3], H[NV], Hfix[NV];
  random_unit(dim, n);
  state_with_normal_mach(dim, n, 1.0, UL);
  memcpy(UR, UL, sizeof UR);
  UR[0] *= 1.01;
  physics_roe_flux(dim, gamma_air, UL, UR, n, 0.0, H);
  physics_roe_flux(dim, gamma_air, UL, UR, n, PHYSICS_ROE_ENTROPY_FIX, Hfix);
  TEST_CHECK(relative_difference(nv, Hfix, H) > 1e-6, "%dD entropy fix inactive at a sonic point",
             dim);
}

/* Supersonic along n on both sides: Roe is the upwind flux. */
static void test_roe_upwinding(int dim) {
  const int nv = dim + 2;
  double worst = 0.0;
  int tested = 0;
  for (int trial = 0; trial < N_RANDOM; ++trial) {
    double UL[NV], UR[NV], n[3], W[NV], H[NV], F[NV];
    random_unit(dim, n);
    const double sign = trial % 2 ? 1.0 : -1.0;
    state_with_normal_mach(dim, n, sign * between(1.3, 3.0), UL);
    physics_conservative_to_primitive(dim, gamma_air, UL, W);
    for (int k = 0; k < nv; ++k) W[k] *= between(0.97, 1.03);
    physics_primitive_to_conservative(dim, gamma_air, W, UR);
    double rho, u[3], Henth, c, un = 0.0;
    physics_roe_average(dim, gamma_air, UL, UR, &rho, u, &Henth, &c);
    for (int d = 0; d < dim; ++d) un += u[d] * n[d];
    if (fabs(un) - c < PHYSICS_ROE_ENTROPY_FIX * (fabs(un) + c)) continue;
    ++tested;
    physics_roe_flux(dim, gamma_air, UL, UR, n, PHYSICS_ROE_ENTROPY_FIX, H);
    physics_flux_normal(dim, gamma_air, sign > 0 ? UL : UR, n, F);
    worst = fmax(worst, relative_difference(nv, H, F));
  }
  printf("  %dD supersonic upwinding: %d states, worst %.2e\n", dim, tested, worst);
  TEST_CHECK(tested > N_RANDOM / 2, "%dD too few supersonic states: %d", dim, tested);
  TEST_CHECK(worst < 1e-13, "%dD supersonic Roe flux is not the upwind flux: %.3g", dim, worst);
}

/* ------------------------------------------------------ boundary states */

static physics_bc_data freestream_bc(int dim, double mach, double alpha_deg) {
  physics_bc_data bc;
  memset(&bc, 0, sizeof bc);
  physics_freestream_state(dim, gamma_air, mach, alpha_deg, dim == 3 ? 5.0 : 0.0, bc.state);
  bc.total_pressure = physics_total_pressure(dim, gamma_air, bc.state);
  bc.total_temperature = physics_total_temperature(dim, gamma_air, bc.state);
  physics_direction(dim, alpha_deg, dim == 3 ? 5.0 : 0.0, bc.direction);
  bc.static_pressure = 1.0 / gamma_air;
  return bc;
}

static double normal_velocity(int dim, const double *U, const double *n) {
  double un = 0.0;
  for (int d = 0; d < dim; ++d) un += U[1 + d] / U[0] * n[d];
  return un;
}

static void test_wall(int dim) {
  const int nv = dim + 2;
  double worst_mass = 0, worst_tangent = 0, worst_pressure = 0;
  physics_bc_data bc = freestream_bc(dim, 0.5, 2.0);
  for (int trial = 0; trial < N_RANDOM; ++trial) {
    double Ui[NV], Ug[NV], n[3], H[NV];
    random_state(dim, Ui);
    random_unit(dim, n);
    const int kind = trial % 2 ? PHYSICS_BC_WALL : PHYSICS_BC_SYMMETRY;
    physics_ghost_state(dim, gamma_air, kind, &bc, Ui, n, Ug);
    TEST_CLOSE(normal_velocity(dim, Ug, n), -normal_velocity(dim, Ui, n), 1e-14, "reflected u_n");
    TEST_CLOSE(physics_pressure(dim, gamma_air, Ug), physics_pressure(dim, gamma_air, Ui), 1e-14,
               "ghost pressure");
    physics_roe_flux(dim, gamma_air, Ui, Ug, n, PHYSICS_ROE_ENTROPY_FIX, H);
    const double scale = fmax(1.0, max_abs(nv, H));
    worst_mass = fmax(worst_mass, fmax(fabs(H[0]), fabs(H[dim + 1])) / scale);
    double hn = 0.0;
    for (int d = 0; d < dim; ++d) hn += H[1 + d] * n[d];
    for (int d = 0; d < dim; ++d)
      worst_tangent = fmax(worst_tangent, fabs(H[1 + d] - hn * n[d]) / scale);

    /* tangential flow: the momentum flux is the wall pressure times n */
    double W[NV], Ut[NV];
    physics_conservative_to_primitive(dim, gamma_air, Ui, W);
    const double un = normal_velocity(dim, Ui, n);
    for (int d = 0; d < dim; ++d) W[1 + d] -= un * n[d];
    physics_primitive_to_conservative(dim, gamma_air, W, Ut);
    physics_ghost_state(dim, gamma_air, kind, &bc, Ut, n, Ug);
    physics_roe_flux(dim, gamma_air, Ut, Ug, n, PHYSICS_ROE_ENTROPY_FIX, H);
    const double pw = physics_wall_pressure(dim, gamma_air, Ut);
    TEST_CLOSE(pw, W[dim + 1], 1e-14, "wall pressure");
    for (int d = 0; d < dim; ++d)
      worst_pressure = fmax(worst_pressure, fabs(H[1 + d] - pw * n[d]) / fmax(1.0, pw));
  }
  printf("  %dD wall: mass/energy flux %.2e, tangential momentum flux %.2e, wall pressure %.2e\n",
         dim, worst_mass, worst_tangent, worst_pressure);
  TEST_CHECK(worst_mass < 1e-14, "%dD wall mass or energy flux: %.3g", dim, worst_mass);
  TEST_CHECK(worst_tangent < 1e-14, "%dD wall tangential momentum flux: %.3g", dim, worst_tangent);
  TEST_CHECK(worst_pressure < 1e-14, "%dD wall momentum flux != p n: %.3g", dim, worst_pressure);
}

/* Interior = freestream: every far-field-like condition returns it. */
static void test_freestream_preserved(int dim) {
  const int nv = dim + 2;
  const double machs[3] = {0.5, 0.8, 2.0};
  double worst = 0.0, worst_flux = 0.0;
  for (int m = 0; m < 3; ++m) {
    physics_bc_data bc = freestream_bc(dim, machs[m], 3.0);
    for (int trial = 0; trial < 100; ++trial) {
      double n[3], Ug[NV], H[NV], F[NV];
      random_unit(dim, n);
      const double un = normal_velocity(dim, bc.state, n);
      physics_ghost_state(dim, gamma_air, PHYSICS_BC_FARFIELD, &bc, bc.state, n, Ug);
      worst = fmax(worst, relative_difference(nv, Ug, bc.state));
      physics_roe_flux(dim, gamma_air, bc.state, Ug, n, PHYSICS_ROE_ENTROPY_FIX, H);
      physics_flux_normal(dim, gamma_air, bc.state, n, F);
      worst_flux = fmax(worst_flux, relative_difference(nv, H, F));
      const int kinds[4] = {PHYSICS_BC_SUPERSONIC_INFLOW, PHYSICS_BC_EXACT,
                            PHYSICS_BC_SUPERSONIC_OUTFLOW,
                            un < 0 ? PHYSICS_BC_INFLOW_SUBSONIC : PHYSICS_BC_OUTFLOW_SUBSONIC};
      for (int k = 0; k < 4; ++k) {
        if (k == 3 && machs[m] > 1.0) continue;
        physics_ghost_state(dim, gamma_air, kinds[k], &bc, bc.state, n, Ug);
        worst = fmax(worst, relative_difference(nv, Ug, bc.state));
      }
    }
  }
  printf("  %dD freestream preserved by the boundary states: %.2e, far-field flux %.2e\n", dim,
         worst, worst_flux);
  TEST_CHECK(worst < 1e-14, "%dD ghost(U∞) != U∞: %.3g", dim, worst);
  TEST_CHECK(worst_flux < 1e-14, "%dD far-field flux of U∞ != F(U∞)·n: %.3g", dim, worst_flux);
}

static double r_plus(int dim, const double *U, const double *n) {
  return normal_velocity(dim, U, n) + 2.0 * physics_sound_speed(dim, gamma_air, U) / 0.4;
}
static double r_minus(int dim, const double *U, const double *n) {
  return normal_velocity(dim, U, n) - 2.0 * physics_sound_speed(dim, gamma_air, U) / 0.4;
}
static void tangential_velocity(int dim, const double *U, const double *n, double *ut) {
  const double un = normal_velocity(dim, U, n);
  for (int d = 0; d < dim; ++d) ut[d] = U[1 + d] / U[0] - un * n[d];
}

/* The freestream with ρ, u and p scaled by random factors in [0.8, 1.2]:
 * an interior state an inflow boundary can meet. */
static void near_freestream(int dim, const physics_bc_data *bc, double *U) {
  double W[NV];
  physics_conservative_to_primitive(dim, gamma_air, bc->state, W);
  for (int k = 0; k < dim + 2; ++k) W[k] *= between(0.8, 1.2);
  physics_primitive_to_conservative(dim, gamma_air, W, U);
}

/* The characteristic conditions impose what they say they impose. */
static void test_characteristic_conditions(int dim) {
  physics_bc_data bc = freestream_bc(dim, 0.6, 4.0);
  double worst_far = 0, worst_in = 0, worst_out = 0;
  int n_far_in = 0, n_far_out = 0, n_inflow = 0, n_reservoir = 0;
  for (int trial = 0; trial < N_RANDOM; ++trial) {
    double Ui[NV], Ug[NV], n[3], ut_g[3], ut_s[3];
    random_unit(dim, n);
    state_with_normal_mach(dim, n, between(-0.95, 0.95), Ui);

    /* far field: R+ from inside, R- from the freestream, s and u_t upwind */
    physics_ghost_state(dim, gamma_air, PHYSICS_BC_FARFIELD, &bc, Ui, n, Ug);
    const int outflow = normal_velocity(dim, Ug, n) > 0.0;
    n_far_out += outflow, n_far_in += !outflow;
    const double *upwind = outflow ? Ui : bc.state;
    tangential_velocity(dim, Ug, n, ut_g);
    tangential_velocity(dim, upwind, n, ut_s);
    double e = fabs(r_plus(dim, Ug, n) - r_plus(dim, Ui, n));
    e = fmax(e, fabs(r_minus(dim, Ug, n) - r_minus(dim, bc.state, n)));
    e = fmax(e,
             fabs(physics_entropy(dim, gamma_air, Ug) - physics_entropy(dim, gamma_air, upwind)));
    for (int d = 0; d < dim; ++d) e = fmax(e, fabs(ut_g[d] - ut_s[d]));
    worst_far = fmax(worst_far, e);

    /* subsonic inflow: p0, T0 and direction given, R+ from inside */
    double n_in[3];
    double dn = 0.0;
    for (int d = 0; d < dim; ++d) dn += bc.direction[d] * n[d];
    for (int d = 0; d < dim; ++d) n_in[d] = dn < 0 ? n[d] : -n[d];
    if (fabs(dn) > 0.2) {
      double Uin[NV];
      near_freestream(dim, &bc, Uin);
      physics_ghost_state(dim, gamma_air, PHYSICS_BC_INFLOW_SUBSONIC, &bc, Uin, n_in, Ug);
      double speed = 0.0, along = 0.0;
      for (int d = 0; d < dim; ++d) {
        speed += Ug[1 + d] * Ug[1 + d];
        along += Ug[1 + d] * bc.direction[d];
      }
      speed = sqrt(speed);
      e = fabs(physics_total_pressure(dim, gamma_air, Ug) - bc.total_pressure);
      e = fmax(e, fabs(physics_total_temperature(dim, gamma_air, Ug) - bc.total_temperature));
      e = fmax(e, fabs(along - speed));
      /* R+ >= 2 a0/(γ-1): no inflow solution, the reservoir at rest instead */
      const double a0 = sqrt(gamma_air * bc.total_temperature);
      if (r_plus(dim, Uin, n_in) < 2.0 * a0 / 0.4) {
        e = fmax(e, fabs(r_plus(dim, Ug, n_in) - r_plus(dim, Uin, n_in)));
        ++n_inflow;
      } else {
        e = fmax(e, speed);
        ++n_reservoir;
      }
      worst_in = fmax(worst_in, e);
    }

    /* subsonic outflow: p given; s, u_t and R+ from inside */
    bc.static_pressure = between(0.3, 1.2);
    physics_ghost_state(dim, gamma_air, PHYSICS_BC_OUTFLOW_SUBSONIC, &bc, Ui, n, Ug);
    tangential_velocity(dim, Ug, n, ut_g);
    tangential_velocity(dim, Ui, n, ut_s);
    e = fabs(physics_pressure(dim, gamma_air, Ug) - bc.static_pressure);
    e = fmax(e, fabs(physics_entropy(dim, gamma_air, Ug) - physics_entropy(dim, gamma_air, Ui)));
    e = fmax(e, fabs(r_plus(dim, Ug, n) - r_plus(dim, Ui, n)));
    for (int d = 0; d < dim; ++d) e = fmax(e, fabs(ut_g[d] - ut_s[d]));
    worst_out = fmax(worst_out, e);
  }
  printf("  %dD far field (%d in, %d out) %.2e, subsonic inflow (%d, %d at rest) %.2e, subsonic "
         "outflow %.2e\n",
         dim, n_far_in, n_far_out, worst_far, n_inflow, n_reservoir, worst_in, worst_out);
  TEST_CHECK(n_inflow > 50, "%dD subsonic inflow: too few states (%d)", dim, n_inflow);
  TEST_CHECK(n_far_in > 10 && n_far_out > 10, "%dD far field: both branches needed (%d, %d)", dim,
             n_far_in, n_far_out);
  TEST_CHECK(worst_far < 1e-12, "%dD far-field invariants: %.3g", dim, worst_far);
  TEST_CHECK(worst_in < 1e-12, "%dD subsonic inflow invariants: %.3g", dim, worst_in);
  TEST_CHECK(worst_out < 1e-12, "%dD subsonic outflow invariants: %.3g", dim, worst_out);

  /* an interior hotter than the reservoir: no inflow solution, reservoir at rest */
  double Ui[NV], Ug[NV], n[3];
  memcpy(n, bc.direction, sizeof n);
  for (int d = 0; d < dim; ++d) n[d] = -n[d];
  memcpy(Ui, bc.state, sizeof Ui);
  Ui[dim + 1] *= 4.0;
  physics_ghost_state(dim, gamma_air, PHYSICS_BC_INFLOW_SUBSONIC, &bc, Ui, n, Ug);
  TEST_CLOSE(physics_pressure(dim, gamma_air, Ug), bc.total_pressure, 1e-14, "reservoir p0");
  TEST_CLOSE(physics_pressure(dim, gamma_air, Ug) / Ug[0], bc.total_temperature, 1e-14,
             "reservoir T0");
  TEST_CLOSE(max_abs(dim, Ug + 1), 0.0, 0.0, "reservoir at rest");

  /* supersonic branches of the far field and outflow */
  random_unit(dim, n);
  state_with_normal_mach(dim, n, -1.5, Ui);
  physics_ghost_state(dim, gamma_air, PHYSICS_BC_FARFIELD, &bc, Ui, n, Ug);
  TEST_CHECK(relative_difference(dim + 2, Ug, bc.state) == 0.0, "supersonic far-field inflow");
  state_with_normal_mach(dim, n, 1.5, Ui);
  physics_ghost_state(dim, gamma_air, PHYSICS_BC_FARFIELD, &bc, Ui, n, Ug);
  TEST_CHECK(relative_difference(dim + 2, Ug, Ui) == 0.0, "supersonic far-field outflow");
  physics_ghost_state(dim, gamma_air, PHYSICS_BC_OUTFLOW_SUBSONIC, &bc, Ui, n, Ug);
  TEST_CHECK(relative_difference(dim + 2, Ug, Ui) == 0.0, "supersonic outflow at a pressure exit");
}

/* ----------------------------------------------------------- Jacobians */

typedef void (*vector_map)(int dim, const void *ctx, const double *in, double *out);

/* Central finite differences of map at x, relative step 1e-6. */
static void finite_difference_jacobian(int dim, vector_map map, const void *ctx, const double *x,
                                       double *J) {
  const int nv = dim + 2;
  for (int j = 0; j < nv; ++j) {
    double xp[NV], xm[NV], fp[NV], fm[NV];
    memcpy(xp, x, sizeof xp);
    memcpy(xm, x, sizeof xm);
    const double h = 1e-6 * fmax(1.0, fabs(x[j]));
    xp[j] += h;
    xm[j] -= h;
    map(dim, ctx, xp, fp);
    map(dim, ctx, xm, fm);
    for (int i = 0; i < nv; ++i) J[i * nv + j] = (fp[i] - fm[i]) / (2.0 * h);
  }
}

/* max |J - Jfd| / max(max |Jfd|, 1e-300); 0 when both vanish. */
static double jacobian_error(int dim, const double *J, const double *Jfd) {
  const int n = (dim + 2) * (dim + 2);
  const double scale = max_abs(n, Jfd);
  double m = 0.0;
  for (int k = 0; k < n; ++k) m = fmax(m, fabs(J[k] - Jfd[k]));
  if (scale == 0.0) return m == 0.0 ? 0.0 : 1.0;
  return m / scale;
}

typedef struct {
  const double *n;
  const double *other;
  double lambda;
  int kind;
  const physics_bc_data *bc;
} map_context;

static void map_flux(int dim, const void *ctx, const double *U, double *F) {
  physics_flux_normal(dim, gamma_air, U, ((const map_context *)ctx)->n, F);
}
static void map_primitive(int dim, const void *ctx, const double *U, double *W) {
  (void)ctx;
  physics_conservative_to_primitive(dim, gamma_air, U, W);
}
static void map_conservative(int dim, const void *ctx, const double *W, double *U) {
  (void)ctx;
  physics_primitive_to_conservative(dim, gamma_air, W, U);
}
static void map_rusanov_left(int dim, const void *ctx, const double *UL, double *H) {
  const map_context *c = ctx;
  physics_rusanov_flux_speed(dim, gamma_air, UL, c->other, c->n, c->lambda, H);
}
static void map_rusanov_right(int dim, const void *ctx, const double *UR, double *H) {
  const map_context *c = ctx;
  physics_rusanov_flux_speed(dim, gamma_air, c->other, UR, c->n, c->lambda, H);
}
static void map_ghost(int dim, const void *ctx, const double *Ui, double *Ug) {
  const map_context *c = ctx;
  physics_ghost_state(dim, gamma_air, c->kind, c->bc, Ui, c->n, Ug);
}

static void test_flux_jacobians(int dim) {
  double worst_a = 0, worst_p = 0, worst_c = 0, worst_l = 0, worst_r = 0, worst_sum = 0;
  for (int trial = 0; trial < N_RANDOM / 4; ++trial) {
    double U[NV], UR[NV], W[NV], n[3], J[NN], Jfd[NN];
    random_state(dim, U);
    random_state(dim, UR);
    for (int d = 0; d < dim; ++d) n[d] = between(-2.0, 2.0); /* A_n is linear in n */
    map_context ctx = {n, 0, 0.0, 0, 0};
    physics_flux_jacobian(dim, gamma_air, U, n, J);
    finite_difference_jacobian(dim, map_flux, &ctx, U, Jfd);
    worst_a = fmax(worst_a, jacobian_error(dim, J, Jfd));
    physics_primitive_jacobian(dim, gamma_air, U, J);
    finite_difference_jacobian(dim, map_primitive, &ctx, U, Jfd);
    worst_p = fmax(worst_p, jacobian_error(dim, J, Jfd));
    physics_conservative_to_primitive(dim, gamma_air, U, W);
    physics_conservative_jacobian(dim, gamma_air, W, J);
    finite_difference_jacobian(dim, map_conservative, &ctx, W, Jfd);
    worst_c = fmax(worst_c, jacobian_error(dim, J, Jfd));

    /* approximate Roe Jacobians = Rusanov derivatives with λ frozen */
    random_unit(dim, n);
    double JL[NN], JR[NN], A[NN];
    physics_roe_flux_jacobian_approx(dim, gamma_air, U, UR, n, JL, JR);
    ctx.lambda = physics_interface_wave_speed(dim, gamma_air, U, UR, n);
    ctx.other = UR;
    finite_difference_jacobian(dim, map_rusanov_left, &ctx, U, Jfd);
    worst_l = fmax(worst_l, jacobian_error(dim, JL, Jfd));
    ctx.other = U;
    finite_difference_jacobian(dim, map_rusanov_right, &ctx, UR, Jfd);
    worst_r = fmax(worst_r, jacobian_error(dim, JR, Jfd));
    /* at UL = UR the two sum to A_n */
    physics_roe_flux_jacobian_approx(dim, gamma_air, U, U, n, JL, JR);
    physics_flux_jacobian(dim, gamma_air, U, n, A);
    for (int k = 0; k < (dim + 2) * (dim + 2); ++k) JL[k] += JR[k];
    worst_sum = fmax(worst_sum, relative_difference((dim + 2) * (dim + 2), JL, A));
  }
  printf("  %dD Jacobians vs FD: A_n %.2e, dW/dU %.2e, dU/dW %.2e, Roe approx L %.2e R %.2e "
         "(sum %.2e)\n",
         dim, worst_a, worst_p, worst_c, worst_l, worst_r, worst_sum);
  TEST_CHECK(worst_a < 1e-6, "%dD A_n vs FD: %.3g", dim, worst_a);
  TEST_CHECK(worst_p < 1e-6, "%dD dW/dU vs FD: %.3g", dim, worst_p);
  TEST_CHECK(worst_c < 1e-6, "%dD dU/dW vs FD: %.3g", dim, worst_c);
  TEST_CHECK(worst_l < 1e-6, "%dD dH/dUL vs FD: %.3g", dim, worst_l);
  TEST_CHECK(worst_r < 1e-6, "%dD dH/dUR vs FD: %.3g", dim, worst_r);
  TEST_CHECK(worst_sum < 1e-15, "%dD dH/dUL + dH/dUR != A_n at UL = UR: %.3g", dim, worst_sum);
}

/* Ghost-state Jacobians of every kind and branch against FD. The interior
 * normal Mach numbers stay away from the branch switches (±1, and the sign
 * of the far-field u_n,b) so the FD stencil does not straddle one. */
static void test_ghost_jacobians(int dim) {
  physics_bc_data bc = freestream_bc(dim, 0.7, 3.0);
  const char *names[PHYSICS_NUM_BC] = {"wall",
                                       "symmetry",
                                       "farfield",
                                       "inflow_subsonic",
                                       "outflow_subsonic",
                                       "supersonic_inflow",
                                       "supersonic_outflow",
                                       "exact"};
  const double machs[] = {-2.0, -0.8, -0.3, 0.3, 0.8, 2.0};
  for (int kind = 0; kind < PHYSICS_NUM_BC; ++kind) {
    double worst = 0.0;
    int tested = 0;
    for (int trial = 0; trial < 60; ++trial) {
      double Ui[NV], Ug[NV], Ug2[NV], n[3], J[NN], Jfd[NN];
      random_unit(dim, n);
      const double mach_n = machs[trial % 6] * between(0.9, 1.1);
      if (kind == PHYSICS_BC_INFLOW_SUBSONIC) {
        double dn;
        do {
          random_unit(dim, n);
          dn = 0.0;
          for (int d = 0; d < dim; ++d) dn += bc.direction[d] * n[d];
        } while (dn > -0.2);
        near_freestream(dim, &bc, Ui);
      } else {
        state_with_normal_mach(dim, n, mach_n, Ui);
      }
      if (kind == PHYSICS_BC_FARFIELD) {
        /* keep the FD stencil on one side of the inflow/outflow switch */
        const double unb = 0.5 * (r_plus(dim, Ui, n) + r_minus(dim, bc.state, n));
        if (fabs(unb) < 0.05) continue;
      }
      ++tested;
      map_context ctx = {n, 0, 0.0, kind, &bc};
      physics_ghost_state_jacobian(dim, gamma_air, kind, &bc, Ui, n, Ug, J);
      physics_ghost_state(dim, gamma_air, kind, &bc, Ui, n, Ug2);
      TEST_CHECK(relative_difference(dim + 2, Ug, Ug2) == 0.0, "%s: ghost differs with J",
                 names[kind]);
      finite_difference_jacobian(dim, map_ghost, &ctx, Ui, Jfd);
      worst = fmax(worst, jacobian_error(dim, J, Jfd));
    }
    printf("  %dD ghost Jacobian %-18s %2d states, worst relative error %.2e\n", dim, names[kind],
           tested, worst);
    TEST_CHECK(tested >= 20, "%dD %s: too few states (%d)", dim, names[kind], tested);
    TEST_CHECK(worst < 1e-6, "%dD %s ghost Jacobian vs FD: %.3g", dim, names[kind], worst);
  }
}

/* ------------------------------------------------ freestream and vortex */

static void test_freestream(void) {
  double U[NV];
  physics_freestream_state(2, gamma_air, 0.8, 90.0, 0.0, U);
  TEST_CLOSE(U[0], 1.0, 0, "ρ∞");
  TEST_CLOSE(U[1], 0.0, 1e-15, "2D α = 90°: u");
  TEST_CLOSE(U[2], 0.8, 1e-15, "2D α = 90°: v");
  TEST_CLOSE(physics_pressure(2, gamma_air, U), 1.0 / 1.4, 1e-15, "p∞ = 1/γ");
  TEST_CLOSE(physics_sound_speed(2, gamma_air, U), 1.0, 1e-15, "c∞ = 1");
  TEST_CLOSE(physics_mach(2, gamma_air, U), 0.8, 1e-15, "M");
  TEST_CLOSE(physics_total_temperature(2, gamma_air, U), (1 + 0.2 * 0.64) / 1.4, 1e-15, "T0∞");
  physics_freestream_state(3, gamma_air, 0.84, 3.06, 0.0, U);
  TEST_CLOSE(U[2], 0.0, 0, "3D β = 0: no spanwise velocity");
  TEST_CLOSE(atan2(U[3], U[1]) * 180.0 / DG_PI, 3.06, 1e-12, "3D α in the x-z plane");
  physics_freestream_state(3, gamma_air, 0.5, 0.0, 10.0, U);
  TEST_CLOSE(asin(U[2] / 0.5) * 180.0 / DG_PI, 10.0, 1e-12, "3D β: spanwise");
  TEST_CLOSE(physics_mach(3, gamma_air, U), 0.5, 1e-15, "3D M");
}

static physics_vortex reference_vortex(void) {
  physics_vortex v;
  memset(&v, 0, sizeof v);
  v.velocity[0] = 0.5;
  v.velocity[1] = 0.0;
  v.center[0] = 5.0;
  v.center[1] = 0.0;
  v.strength = 5.0;
  return v;
}

static void test_vortex(void) {
  physics_vortex v = reference_vortex();
  v.velocity[1] = 0.2;
  /* isentropic everywhere: p/ρ^γ = 1/γ */
  double worst_entropy = 0.0, U[NV];
  for (int k = 0; k < 500; ++k) {
    const double x[2] = {between(0.0, 10.0), between(-5.0, 5.0)};
    physics_vortex_state(2, gamma_air, &v, x, between(0.0, 3.0), U);
    worst_entropy = fmax(worst_entropy, fabs(physics_entropy(2, gamma_air, U) - 1.0 / 1.4));
  }
  TEST_CHECK(worst_entropy < 1e-14, "vortex not isentropic: %.3g", worst_entropy);

  /* centre values and far field */
  const double centre[2] = {5.0 + 0.5 * 2.0, 0.0 + 0.2 * 2.0};
  physics_vortex_state(2, gamma_air, &v, centre, 2.0, U);
  const double rho_c = pow(1.0 - 0.4 * 25.0 / (8.0 * DG_PI * DG_PI) * exp(1.0), 2.5);
  TEST_CLOSE(U[0], rho_c, 1e-14, "vortex centre density");
  TEST_CLOSE(U[1] / U[0], 0.5, 1e-14, "vortex centre u");
  TEST_CLOSE(U[2] / U[0], 0.2, 1e-14, "vortex centre v");
  const double far[2] = {40.0, 30.0};
  physics_vortex_state(2, gamma_air, &v, far, 0.0, U);
  TEST_CLOSE(U[0], 1.0, 1e-14, "vortex far density");
  TEST_CLOSE(physics_pressure(2, gamma_air, U), 1.0 / 1.4, 1e-14, "vortex far pressure");

  /* An exact Euler solution: ∂U/∂t + ∂F/∂x + ∂G/∂y = 0 (central FD, h = 1e-4). */
  double worst_residual = 0.0, scale = 0.0;
  const double h = 1e-4;
  for (int k = 0; k < 200; ++k) {
    const double t = between(0.0, 2.0);
    const double x[2] = {5.0 + 0.5 * t + between(-3.0, 3.0), 0.2 * t + between(-3.0, 3.0)};
    double Up[NV], Um[NV], Fp[2 * 4], Fm[2 * 4], res[4];
    physics_vortex_state(2, gamma_air, &v, x, t + h, Up);
    physics_vortex_state(2, gamma_air, &v, x, t - h, Um);
    for (int i = 0; i < 4; ++i) res[i] = (Up[i] - Um[i]) / (2 * h);
    for (int d = 0; d < 2; ++d) {
      double xp[2] = {x[0], x[1]}, xm[2] = {x[0], x[1]};
      xp[d] += h;
      xm[d] -= h;
      physics_vortex_state(2, gamma_air, &v, xp, t, Up);
      physics_vortex_state(2, gamma_air, &v, xm, t, Um);
      physics_flux(2, gamma_air, Up, Fp);
      physics_flux(2, gamma_air, Um, Fm);
      for (int i = 0; i < 4; ++i) {
        const double dfdx = (Fp[d * 4 + i] - Fm[d * 4 + i]) / (2 * h);
        res[i] += dfdx;
        scale = fmax(scale, fabs(dfdx));
      }
    }
    worst_residual = fmax(worst_residual, max_abs(4, res));
  }
  printf("  vortex: entropy error %.2e, Euler residual by FD %.2e (flux derivatives up to %.2f)\n",
         worst_entropy, worst_residual, scale);
  TEST_CHECK(worst_residual < 1e-6, "vortex Euler residual %.3g", worst_residual);

  /* moves with the stream; 3D is the extrusion of 2D */
  const double x0[2] = {4.3, 0.7}, x1[2] = {4.3 + 0.5 * 1.5, 0.7 + 0.2 * 1.5};
  double U1[NV], U3[NV];
  physics_vortex_state(2, gamma_air, &v, x0, 0.0, U);
  physics_vortex_state(2, gamma_air, &v, x1, 1.5, U1);
  TEST_CHECK(relative_difference(4, U1, U) < 1e-14, "vortex translation");
  const double x3[3] = {4.3, 0.7, -2.0};
  physics_vortex_state(3, gamma_air, &v, x3, 0.0, U3);
  TEST_CHECK(U3[0] == U[0] && U3[1] == U[1] && U3[2] == U[2] && U3[3] == 0.0 && U3[4] == U[3],
             "3D vortex is the extruded 2D one");

  /* periodic box 10 × 10, advected for one period along x */
  v = reference_vortex();
  v.period[0] = v.period[1] = 10.0;
  for (int images = 0; images <= 2; ++images) {
    v.images = images;
    double Ua[NV], Ub[NV];
    const double xa[2] = {3.7, -1.2}, xb[2] = {3.7 + 10.0, -1.2 - 10.0};
    physics_vortex_state(2, gamma_air, &v, xa, 0.0, Ua);
    physics_vortex_state(2, gamma_air, &v, xb, 20.0, Ub); /* u t = 10 */
    TEST_CHECK(relative_difference(4, Ua, Ub) < 1e-13, "periodic vortex (%d images)", images);
    /* across the box edge x = xc ± 5 */
    const double left[2] = {10.0 - 1e-9, 0.3}, right[2] = {0.0 + 1e-9, 0.3};
    physics_vortex_state(2, gamma_air, &v, left, 0.0, Ua);
    physics_vortex_state(2, gamma_air, &v, right, 0.0, Ub);
    const double jump = relative_difference(4, Ua, Ub);
    printf("  periodic vortex, %d image rings: jump across the box edge %.2e\n", images, jump);
    if (images > 0) TEST_CHECK(jump < 1e-12, "periodic images: jump %.3g", jump);
    if (images == 0) TEST_CHECK(jump < 1e-4, "nearest image: jump %.3g", jump);
  }
}

/* The far-field point vortex: Γ = 0 gives the freestream bit for bit; the
 * velocity perturbation has circulation −Γ on any circle about the centre
 * (clockwise for lift up) and falls off like 1/r; total enthalpy and entropy
 * stay those of the freestream; at M → 0 it is the incompressible vortex
 * Γ/(2π r) above the centre. */
static void test_farfield_vortex(void) {
  const double center[2] = {0.25, 0.0}, gamma = 1.4;
  double Uinf[4], U[4], W[4], Winf[4];
  physics_freestream_state(2, gamma, 0.8, 1.25, 0.0, Uinf);
  physics_conservative_to_primitive(2, gamma, Uinf, Winf);
  const double x0[2] = {3.0, -7.0};
  physics_farfield_vortex_state(gamma, Uinf, 0.0, center, x0, U);
  TEST_CHECK(memcmp(U, Uinf, sizeof U) == 0, "vortex with Γ = 0 is not the freestream");
  const double G = 0.7, h_inf = gamma / (gamma - 1.0) * Winf[3] / Winf[0] +
                                0.5 * (Winf[1] * Winf[1] + Winf[2] * Winf[2]);
  const double s_inf = Winf[3] / pow(Winf[0], gamma);
  for (int ir = 0; ir < 3; ++ir) {
    const double R = 2.0 * pow(4.0, ir);
    const int N = 4000;
    double circ = 0.0, worst_h = 0.0, worst_s = 0.0, dmax = 0.0;
    for (int i = 0; i < N; ++i) {
      const double t = 2.0 * DG_PI * (i + 0.5) / N;
      const double x[2] = {center[0] + R * cos(t), center[1] + R * sin(t)};
      physics_farfield_vortex_state(gamma, Uinf, G, center, x, U);
      physics_conservative_to_primitive(2, gamma, U, W);
      const double du = W[1] - Winf[1], dv = W[2] - Winf[2];
      circ += (-du * sin(t) + dv * cos(t)) * R * 2.0 * DG_PI / N;
      const double h = gamma / (gamma - 1.0) * W[3] / W[0] + 0.5 * (W[1] * W[1] + W[2] * W[2]);
      worst_h = fmax(worst_h, fabs(h - h_inf) / h_inf);
      worst_s = fmax(worst_s, fabs(W[3] / pow(W[0], gamma) - s_inf) / s_inf);
      dmax = fmax(dmax, sqrt(du * du + dv * dv) * R);
    }
    TEST_CLOSE(circ, -G, 1e-12, "circulation of the far-field vortex");
    TEST_CHECK(worst_h < 1e-14 && worst_s < 1e-14,
               "vortex far field r = %g: total enthalpy off by %.2g, entropy by %.2g", R, worst_h,
               worst_s);
    /* |δu| r is bounded by Γ/(2π β) (the perpendicular direction) */
    TEST_CHECK(dmax <= G / (2.0 * DG_PI * sqrt(1.0 - 0.64)) * (1.0 + 1e-9),
               "vortex far field r = %g: |δu| r = %.6g exceeds Γ/(2πβ)", R, dmax);
  }
  /* incompressible limit, point straight above the centre */
  physics_freestream_state(2, gamma, 1e-4, 0.0, 0.0, Uinf);
  physics_conservative_to_primitive(2, gamma, Uinf, Winf);
  const double xa[2] = {center[0], center[1] + 2.0};
  physics_farfield_vortex_state(gamma, Uinf, 1e-5, center, xa, U);
  physics_conservative_to_primitive(2, gamma, U, W);
  TEST_CLOSE((W[1] - Winf[1]) / (1e-5 / (2.0 * DG_PI * 2.0)), 1.0, 1e-7,
             "incompressible vortex speed");
  TEST_CHECK(fabs(W[2] - Winf[2]) < 1e-18, "vortex above the centre has v - v_inf = %.3g",
             W[2] - Winf[2]);
  /* supersonic freestream: unchanged */
  physics_freestream_state(2, gamma, 1.5, 0.0, 0.0, Uinf);
  physics_farfield_vortex_state(gamma, Uinf, G, center, x0, U);
  TEST_CHECK(memcmp(U, Uinf, sizeof U) == 0, "supersonic vortex far field is not the freestream");
}

int main(void) {
  test_farfield_vortex();
  for (int dim = 2; dim <= 3; ++dim) {
    test_basics(dim);
    test_roe_basic_properties(dim);
    test_roe_property(dim);
    test_roe_entropy_fix(dim);
    test_roe_upwinding(dim);
    test_wall(dim);
    test_freestream_preserved(dim);
    test_characteristic_conditions(dim);
    test_flux_jacobians(dim);
    test_ghost_jacobians(dim);
  }
  test_freestream();
  test_vortex();
  return test_finish("test_physics");
}
