/* derive_symmetric: derives fully symmetric quadrature rules on the
 * reference triangle (0,0) (1,0) (0,1) and tetrahedron (0,0,0) (1,0,0)
 * (0,1,0) (0,0,1) of src/element/shape.h, and writes the table that
 * src/element/quadrature_symmetric.c holds.
 *
 *   derive_symmetric search --shape tri|tet --degree D [--seed S] [--tries N]
 *                    [--max-points P] [--min-points P] [--above U] [--below U]
 *                    [--config n0,n1,...]
 *       finds a rule exact to degree D whose points form symmetry orbits and
 *       prints it as a record (the format `emit` reads);
 *   derive_symmetric emit RULES.txt
 *       checks every record of RULES.txt (refines it to long double
 *       precision, then rounds it to double) and writes the C source file on
 *       stdout; a table of counts and errors goes to stderr;
 *   derive_symmetric check RULES.txt
 *       the same checks, no output file.
 *
 * Method. A point of an orbit is a permutation of a barycentric tuple:
 * triangle S3 (1/3,1/3,1/3), S21 (a,a,1-2a), S111 (a,b,1-a-b); tetrahedron
 * S4 (1/4,...), S31 (a,a,a,1-3a), S22 (a,a,1/2-a,1/2-a), S211
 * (a,a,b,1-2a-b), S1111 (a,b,c,1-a-b-c); every point of an orbit has the same
 * weight. The unknowns are the orbit parameters and weights; a rule is
 * exact to degree D when it integrates every member of the orthonormal
 * Dubiner basis of degree <= D exactly (∫φ_0 = sqrt(|T|), ∫φ_k = 0
 * otherwise). An orbit structure is a choice of orbit counts; `search`
 * tries the structures whose unknown count lies in [K - below, K + above],
 * K the number of S-invariant polynomials of degree <= D (triangle:
 * #{2i+3j <= D}, tetrahedron: #{2i+3j+4k <= D}), fewest points first, or
 * the one structure of --config. For each structure, damped Gauss–Newton
 * (Levenberg–Marquardt, Marquardt scaling) runs from --tries random starts
 * on the K invariant equations (one evaluation per orbit; see "the
 * invariant equations" below) plus feasibility rows for negative weights and
 * points outside; a converged start is polished on the full Dubiner
 * equations and kept when all weights are positive, all points strictly
 * inside and distinct, and the residual is below 1e-17. Everything is
 * computed in long double. Plain C11 and libm; no external tables. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef long double real;

#define MAX_DEGREE 16
#define MAX_MODES 1000 /* tet degree 16: 969 */
#define MAX_ORBITS 64
#define MAX_UNKNOWNS 256
#define MAX_PERMS 24

/* ---- orbit types ---- */

typedef enum { S3, S21, S111, S4, S31, S22, S211, S1111, N_ORBIT_TYPES } orbit_kind;

typedef struct {
  const char *name;
  int dim;
  int size;     /* points in the orbit */
  int n_params; /* barycentric parameters (weights not counted) */
  int labels[4];
} orbit_type;

static const orbit_type orbit_types[N_ORBIT_TYPES] = {
    {"S3", 2, 1, 0, {0, 0, 0, 0}},    {"S21", 2, 3, 1, {0, 0, 1, 0}},
    {"S111", 2, 6, 2, {0, 1, 2, 0}},  {"S4", 3, 1, 0, {0, 0, 0, 0}},
    {"S31", 3, 4, 1, {0, 0, 0, 1}},   {"S22", 3, 6, 1, {0, 0, 1, 1}},
    {"S211", 3, 12, 2, {0, 0, 1, 2}}, {"S1111", 3, 24, 3, {0, 1, 2, 3}},
};

/* The orbit types of a dimension, in the order structures list their counts. */
static int orbit_kinds_of(int dim, orbit_kind *kinds) {
  int n = 0;
  for (int t = 0; t < N_ORBIT_TYPES; ++t)
    if (orbit_types[t].dim == dim) kinds[n++] = (orbit_kind)t;
  return n;
}

/* Distinct permutations of an orbit's tuple: perm[q][v] is the tuple
 * position whose value is the barycentric coordinate of vertex v. */
static int orbit_perms[N_ORBIT_TYPES][MAX_PERMS][4];

static void orbit_perms_build(void) {
  for (int t = 0; t < N_ORBIT_TYPES; ++t) {
    const int n = orbit_types[t].dim + 1;
    int count = 0;
    int p[4] = {0, 1, 2, 3};
    /* all n! permutations by Heap's algorithm, kept when their label
     * sequence is new */
    int c[4] = {0, 0, 0, 0};
    int i = 0;
    for (;;) {
      int seen = 0;
      for (int q = 0; q < count && !seen; ++q) {
        int same = 1;
        for (int v = 0; v < n; ++v)
          if (orbit_types[t].labels[orbit_perms[t][q][v]] != orbit_types[t].labels[p[v]]) same = 0;
        seen = same;
      }
      if (!seen) {
        for (int v = 0; v < n; ++v) orbit_perms[t][count][v] = p[v];
        ++count;
      }
      while (i < n && c[i] >= i) c[i++] = 0;
      if (i >= n) break;
      const int j = i % 2 == 0 ? 0 : c[i];
      const int tmp = p[j];
      p[j] = p[i];
      p[i] = tmp;
      ++c[i];
      i = 0;
    }
    if (count != orbit_types[t].size) {
      fprintf(stderr, "internal error: orbit %s has %d permutations\n", orbit_types[t].name, count);
      exit(2);
    }
  }
}

/* Tuple values T[4] of an orbit and their derivatives dT[4][3] with respect
 * to the parameters. */
static void orbit_tuple(orbit_kind t, const real *prm, real T[4], real dT[4][3]) {
  memset(dT, 0, sizeof(real) * 12);
  const real a = orbit_types[t].n_params > 0 ? prm[0] : 0;
  const real b = orbit_types[t].n_params > 1 ? prm[1] : 0;
  const real c = orbit_types[t].n_params > 2 ? prm[2] : 0;
  switch (t) {
  case S3: T[0] = T[1] = T[2] = 1.0L / 3.0L; break;
  case S21:
    T[0] = T[1] = a;
    T[2] = 1 - 2 * a;
    dT[0][0] = dT[1][0] = 1;
    dT[2][0] = -2;
    break;
  case S111:
    T[0] = a;
    T[1] = b;
    T[2] = 1 - a - b;
    dT[0][0] = dT[1][1] = 1;
    dT[2][0] = dT[2][1] = -1;
    break;
  case S4: T[0] = T[1] = T[2] = T[3] = 0.25L; break;
  case S31:
    T[0] = T[1] = T[2] = a;
    T[3] = 1 - 3 * a;
    dT[0][0] = dT[1][0] = dT[2][0] = 1;
    dT[3][0] = -3;
    break;
  case S22:
    T[0] = T[1] = a;
    T[2] = T[3] = 0.5L - a;
    dT[0][0] = dT[1][0] = 1;
    dT[2][0] = dT[3][0] = -1;
    break;
  case S211:
    T[0] = T[1] = a;
    T[2] = b;
    T[3] = 1 - 2 * a - b;
    dT[0][0] = dT[1][0] = 1;
    dT[2][1] = 1;
    dT[3][0] = -2;
    dT[3][1] = -1;
    break;
  default: /* S1111 */
    T[0] = a;
    T[1] = b;
    T[2] = c;
    T[3] = 1 - a - b - c;
    dT[0][0] = dT[1][1] = dT[2][2] = 1;
    dT[3][0] = dT[3][1] = dT[3][2] = -1;
    break;
  }
}

/* ---- orthonormal Dubiner basis with gradients, any degree ---- */

/* Q_n = u^n P_n^(alpha,0)(X/u), n = 0..n_max, and gradients, by the Jacobi
 * three-term recurrence multiplied through by u^n (no division by u). */
static void jacobi_scaled(int n_max, real alpha, real X, const real dX[3], real u, const real du[3],
                          real *q, real (*dq)[3]) {
  q[0] = 1;
  dq[0][0] = dq[0][1] = dq[0][2] = 0;
  if (n_max < 1) return;
  const real beta = 0;
  q[1] = 0.5L * (alpha + beta + 2) * X + 0.5L * (alpha - beta) * u;
  for (int d = 0; d < 3; ++d)
    dq[1][d] = 0.5L * (alpha + beta + 2) * dX[d] + 0.5L * (alpha - beta) * du[d];
  for (int n = 2; n <= n_max; ++n) {
    const real s = 2 * n + alpha + beta;
    const real a1 = 2 * n * (n + alpha + beta) * (s - 2);
    const real a2 = (s - 1) * (alpha * alpha - beta * beta);
    const real a3 = (s - 2) * (s - 1) * s;
    const real a4 = 2 * (n + alpha - 1) * (n + beta - 1) * s;
    const real lin = a2 * u + a3 * X;
    q[n] = (lin * q[n - 1] - a4 * u * u * q[n - 2]) / a1;
    for (int d = 0; d < 3; ++d)
      dq[n][d] = ((a2 * du[d] + a3 * dX[d]) * q[n - 1] + lin * dq[n - 1][d] -
                  a4 * (2 * u * du[d] * q[n - 2] + u * u * dq[n - 2][d])) /
                 a1;
  }
}

static int n_modes(int dim, int degree) {
  return dim == 2 ? (degree + 1) * (degree + 2) / 2
                  : (degree + 1) * (degree + 2) * (degree + 3) / 6;
}

/* Values phi[n_modes] and gradients dphi[n_modes][3] at reference point x.
 * tri: φ_ij = sqrt(2(2i+1)(i+j+1)) L_i(x; 1-y) P_j^(2i+1,0)(2y-1);
 * tet: φ_ijk = sqrt(2(2i+1)(i+j+1)(2(i+j+k)+3)) L_i(x; 1-y-z)
 *              J_j^(2i+1)(y; 1-z) P_k^(2i+2j+2,0)(2z-1). */
static int dubiner(int dim, int degree, const real x[3], real *phi, real (*dphi)[3]) {
  real a[MAX_DEGREE + 1], da[MAX_DEGREE + 1][3];
  real b[MAX_DEGREE + 1], db[MAX_DEGREE + 1][3];
  real c[MAX_DEGREE + 1], dc[MAX_DEGREE + 1][3];
  const real zero[3] = {0, 0, 0};
  const real z = dim == 3 ? x[2] : 0;
  const real t = 1 - x[1] - z;
  const real dXa[3] = {2, 1, dim == 3 ? 1 : 0}, dta[3] = {0, -1, dim == 3 ? -1 : 0};
  jacobi_scaled(degree, 0, 2 * x[0] - t, dXa, t, dta, a, da);
  int m = 0;
  for (int i = 0; i <= degree; ++i) {
    if (dim == 2) {
      const real dXb[3] = {0, 2, 0};
      jacobi_scaled(degree - i, 2 * i + 1, 2 * x[1] - 1, dXb, 1, zero, b, db);
      for (int j = 0; j <= degree - i; ++j, ++m) {
        const real cn = sqrtl(2.0L * (2 * i + 1) * (i + j + 1));
        phi[m] = cn * a[i] * b[j];
        for (int d = 0; d < 3; ++d) dphi[m][d] = cn * (da[i][d] * b[j] + a[i] * db[j][d]);
      }
      continue;
    }
    const real w = 1 - z;
    const real dXb[3] = {0, 2, 1}, dwb[3] = {0, 0, -1};
    jacobi_scaled(degree - i, 2 * i + 1, 2 * x[1] - w, dXb, w, dwb, b, db);
    for (int j = 0; j <= degree - i; ++j) {
      const real dXc[3] = {0, 0, 2};
      jacobi_scaled(degree - i - j, 2 * (i + j) + 2, 2 * z - 1, dXc, 1, zero, c, dc);
      for (int k = 0; k <= degree - i - j; ++k, ++m) {
        const real cn = sqrtl(2.0L * (2 * i + 1) * (i + j + 1) * (2 * (i + j + k) + 3));
        const real ab = a[i] * b[j];
        phi[m] = cn * ab * c[k];
        for (int d = 0; d < 3; ++d)
          dphi[m][d] = cn * ((da[i][d] * b[j] + a[i] * db[j][d]) * c[k] + ab * dc[k][d]);
      }
    }
  }
  return m;
}

/* ---- a rule: orbits with parameters and weights ---- */

typedef struct {
  int dim, degree;
  int n_orbits;
  orbit_kind kind[MAX_ORBITS];
  real prm[MAX_ORBITS][3];
  real w[MAX_ORBITS]; /* weight of each point of the orbit */
} rule;

static real ref_measure(int dim) { return dim == 2 ? 0.5L : 1.0L / 6.0L; }

static int rule_points(const rule *r) {
  int n = 0;
  for (int o = 0; o < r->n_orbits; ++o) n += orbit_types[r->kind[o]].size;
  return n;
}

static int rule_unknowns(const rule *r) {
  int n = 0;
  for (int o = 0; o < r->n_orbits; ++o) n += 1 + orbit_types[r->kind[o]].n_params;
  return n;
}

/* Unknown vector: per orbit, weight then parameters. */
static void rule_pack(const rule *r, real *u) {
  int k = 0;
  for (int o = 0; o < r->n_orbits; ++o) {
    u[k++] = r->w[o];
    for (int j = 0; j < orbit_types[r->kind[o]].n_params; ++j) u[k++] = r->prm[o][j];
  }
}

static void rule_unpack(rule *r, const real *u) {
  int k = 0;
  for (int o = 0; o < r->n_orbits; ++o) {
    r->w[o] = u[k++];
    for (int j = 0; j < orbit_types[r->kind[o]].n_params; ++j) r->prm[o][j] = u[k++];
  }
}

/* Reference coordinates of point q of orbit o. */
static void rule_point(const rule *r, int o, int q, real x[3], real dx[3][3]) {
  real T[4], dT[4][3];
  orbit_tuple(r->kind[o], r->prm[o], T, dT);
  const int *perm = orbit_perms[r->kind[o]][q];
  for (int d = 0; d < 3; ++d) {
    x[d] = d < r->dim ? T[perm[d + 1]] : 0;
    for (int j = 0; j < 3; ++j) dx[d][j] = d < r->dim ? dT[perm[d + 1]][j] : 0;
  }
}

/* Residual res[m] (quadrature minus exact, orthonormal basis) and, when jac
 * is not NULL, its Jacobian jac[m][n] with respect to the packed unknowns. */
static int rule_residual(const rule *r, real *res, real *jac) {
  static real phi[MAX_MODES], dphi[MAX_MODES][3];
  const int m = n_modes(r->dim, r->degree), n = rule_unknowns(r);
  for (int k = 0; k < m; ++k) res[k] = 0;
  if (jac) memset(jac, 0, sizeof(real) * (size_t)m * (size_t)n);
  int col = 0;
  for (int o = 0; o < r->n_orbits; ++o) {
    const int np = orbit_types[r->kind[o]].n_params;
    for (int q = 0; q < orbit_types[r->kind[o]].size; ++q) {
      real x[3], dx[3][3];
      rule_point(r, o, q, x, dx);
      dubiner(r->dim, r->degree, x, phi, dphi);
      for (int k = 0; k < m; ++k) {
        res[k] += r->w[o] * phi[k];
        if (!jac) continue;
        real *row = jac + (size_t)k * (size_t)n + col;
        row[0] += phi[k];
        for (int j = 0; j < np; ++j) {
          real g = 0;
          for (int d = 0; d < r->dim; ++d) g += dphi[k][d] * dx[d][j];
          row[1 + j] += r->w[o] * g;
        }
      }
    }
    col += 1 + np;
  }
  res[0] -= sqrtl(ref_measure(r->dim));
  return m;
}

/* ---- the invariant equations (search phase) ----
 * A symmetric rule integrates f exactly iff it integrates its symmetrisation
 * exactly, so during the search it suffices to impose exactness on a basis
 * of the S-invariant polynomials of degree <= D, and an invariant takes the
 * same value at every point of an orbit: one evaluation per orbit instead of
 * one per point and per basis function. The invariants are the monomials
 * p2^i p3^j p4^k of the power sums p_n = Σ_v μ_v^n of the centred
 * barycentric coordinates μ_v = λ_v - 1/(dim+1); their Gram matrix G over the
 * reference shape (collapsed Gauss–Legendre product rule, exact) is factored
 * G = L L^T and the equations use the orthonormal invariants L^-1 m. The
 * kept solution is then polished on the full orthonormal Dubiner basis
 * (rule_residual), which is the accurate measure. */

#define MAX_INVARIANTS 128

static struct {
  int dim, degree, n;
  int e[MAX_INVARIANTS][3];                /* exponents of p2, p3, p4 */
  real L[MAX_INVARIANTS * MAX_INVARIANTS]; /* Cholesky factor of the Gram matrix */
  real b[MAX_INVARIANTS];                  /* L^-1 ∫ m */
} inv;

/* The invariant monomials m[n] at barycentric tuple T and, when dm is not
 * NULL, their derivatives dm[n][3] with respect to the orbit parameters
 * (dT: tuple derivatives). */
static void inv_monomials(const real T[4], const real dT[4][3], int n_params, real *m,
                          real (*dm)[3]) {
  const int nv = inv.dim + 1;
  real p[5] = {0, 0, 0, 0, 0}, dp[5][3] = {{0}};
  for (int v = 0; v < nv; ++v) {
    const real mu = T[v] - 1.0L / nv, mu2 = mu * mu, mu3 = mu2 * mu;
    p[2] += mu2;
    p[3] += mu3;
    p[4] += mu2 * mu2;
    for (int j = 0; j < n_params; ++j) {
      dp[2][j] += 2 * mu * dT[v][j];
      dp[3][j] += 3 * mu2 * dT[v][j];
      dp[4][j] += 4 * mu3 * dT[v][j];
    }
  }
  /* powers of the power sums: pw[k][e] = p_k^e */
  real pw[5][MAX_DEGREE / 2 + 2];
  for (int k = 2; k <= 4; ++k) {
    pw[k][0] = 1;
    for (int e = 1; e <= MAX_DEGREE / 2 + 1; ++e) pw[k][e] = pw[k][e - 1] * p[k];
  }
  for (int i = 0; i < inv.n; ++i) {
    const int *e = inv.e[i];
    const real a = pw[2][e[0]], b = pw[3][e[1]], c = pw[4][e[2]];
    m[i] = a * b * c;
    if (!dm) continue;
    const real da = e[0] ? e[0] * pw[2][e[0] - 1] : 0;
    const real db = e[1] ? e[1] * pw[3][e[1] - 1] : 0;
    const real dc = e[2] ? e[2] * pw[4][e[2] - 1] : 0;
    for (int j = 0; j < 3; ++j)
      dm[i][j] = da * dp[2][j] * b * c + a * db * dp[3][j] * c + a * b * dc * dp[4][j];
  }
}

/* Gauss–Legendre nodes and weights on [-1, 1] by Newton on P_n. */
static void gauss_legendre(int n, real *x, real *w) {
  for (int i = 0; i < n; ++i) {
    real t = cosl(3.14159265358979323846264338327950288L * (i + 0.75L) / (n + 0.5L));
    real dp = 1;
    for (int it = 0; it < 100; ++it) {
      real p0 = 1, p1 = t;
      for (int k = 2; k <= n; ++k) {
        const real p2 = ((2 * k - 1) * t * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      dp = n * (t * p1 - p0) / (t * t - 1);
      const real step = p1 / dp;
      t -= step;
      if (fabsl(step) < 1e-21L) break;
    }
    x[i] = t;
    w[i] = 2 / ((1 - t * t) * dp * dp);
  }
}

static void inv_setup(int dim, int degree) {
  inv.dim = dim;
  inv.degree = degree;
  inv.n = 0;
  for (int i = 0; 2 * i <= degree; ++i)
    for (int j = 0; 2 * i + 3 * j <= degree; ++j)
      for (int k = 0; 2 * i + 3 * j + 4 * k <= degree && (dim == 3 || k == 0); ++k) {
        inv.e[inv.n][0] = i;
        inv.e[inv.n][1] = j;
        inv.e[inv.n][2] = k;
        ++inv.n;
      }
  /* Gram matrix by the collapsed product rule: the integrand has degree
   * 2D in each collapsed direction, plus the Duffy factors (1-b), (1-c)^2 */
  const int nq = degree + 3;
  real gx[64], gw[64];
  gauss_legendre(nq, gx, gw);
  const int n = inv.n;
  static real G[MAX_INVARIANTS * MAX_INVARIANTS];
  real m[MAX_INVARIANTS];
  memset(G, 0, sizeof G);
  const real zero3[4][3] = {{0}};
  for (int i = 0; i < nq; ++i)
    for (int j = 0; j < nq; ++j)
      for (int k = 0; k < (dim == 3 ? nq : 1); ++k) {
        real x, y, z = 0, wt;
        if (dim == 2) {
          y = 0.5L * (1 + gx[j]);
          x = 0.5L * (1 + gx[i]) * (1 - y);
          wt = gw[i] * gw[j] * (1 - y) / 4;
        } else {
          z = 0.5L * (1 + gx[k]);
          y = 0.5L * (1 + gx[j]) * (1 - z);
          x = 0.5L * (1 + gx[i]) * (1 - y - z);
          wt = gw[i] * gw[j] * gw[k] * (1 - y - z) * (1 - z) / 8;
        }
        const real T[4] = {1 - x - y - z, x, y, z};
        inv_monomials(T, zero3, 0, m, NULL);
        for (int a = 0; a < n; ++a)
          for (int b = 0; b <= a; ++b) G[a * n + b] += wt * m[a] * m[b];
      }
  for (int a = 0; a < n; ++a) inv.b[a] = G[a * n]; /* ∫ m_a = ∫ m_a m_0, m_0 = 1 */
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) G[a * n + b] = G[b * n + a];
  memcpy(inv.L, G, sizeof(real) * (size_t)n * (size_t)n);
  /* Cholesky in place (lower triangle), then b = L^-1 ∫m */
  for (int j = 0; j < n; ++j) {
    real s = inv.L[j * n + j];
    for (int k = 0; k < j; ++k) s -= inv.L[j * n + k] * inv.L[j * n + k];
    if (!(s > 0)) {
      fprintf(stderr, "internal error: invariant Gram matrix not positive definite\n");
      exit(2);
    }
    inv.L[j * n + j] = sqrtl(s);
    for (int i = j + 1; i < n; ++i) {
      real t = inv.L[i * n + j];
      for (int k = 0; k < j; ++k) t -= inv.L[i * n + k] * inv.L[j * n + k];
      inv.L[i * n + j] = t / inv.L[j * n + j];
    }
  }
  for (int i = 0; i < n; ++i) {
    real s = inv.b[i];
    for (int k = 0; k < i; ++k) s -= inv.L[i * n + k] * inv.b[k];
    inv.b[i] = s / inv.L[i * n + i];
  }
}

/* As rule_residual, on the orthonormal invariants (inv_setup first). */
static int rule_residual_invariant(const rule *r, real *res, real *jac) {
  const int m = inv.n, n = rule_unknowns(r);
  real mono[MAX_INVARIANTS], dmono[MAX_INVARIANTS][3];
  for (int k = 0; k < m; ++k) res[k] = 0;
  if (jac) memset(jac, 0, sizeof(real) * (size_t)m * (size_t)n);
  int col = 0;
  for (int o = 0; o < r->n_orbits; ++o) {
    const int np = orbit_types[r->kind[o]].n_params, size = orbit_types[r->kind[o]].size;
    real T[4], dT[4][3];
    orbit_tuple(r->kind[o], r->prm[o], T, dT);
    inv_monomials(T, dT, np, mono, jac ? dmono : NULL);
    for (int k = 0; k < m; ++k) {
      res[k] += r->w[o] * size * mono[k];
      if (!jac) continue;
      real *row = jac + (size_t)k * (size_t)n + col;
      row[0] += size * mono[k];
      for (int j = 0; j < np; ++j) row[1 + j] += r->w[o] * size * dmono[k][j];
    }
    col += 1 + np;
  }
  /* res = L^-1 res - b; jac = L^-1 jac (forward substitution) */
  for (int i = 0; i < m; ++i) {
    for (int k = 0; k < i; ++k) {
      const real l = inv.L[i * m + k];
      res[i] -= l * res[k];
      if (jac)
        for (int c = 0; c < n; ++c) jac[(size_t)i * n + c] -= l * jac[(size_t)k * n + c];
    }
    const real d = inv.L[i * m + i];
    res[i] /= d;
    if (jac)
      for (int c = 0; c < n; ++c) jac[(size_t)i * n + c] /= d;
  }
  for (int i = 0; i < m; ++i) res[i] -= inv.b[i];
  /* Feasibility rows: zero for a positive weight and a tuple inside the
   * simplex, the violation otherwise (weights scaled by points/|T|). A
   * valid rule still has zero residual; on a structure with more unknowns
   * than equations the rows steer LM along the solution set towards its
   * feasible part instead of the nearest solution, which is mostly
   * infeasible. */
  int row = m;
  const real wscale = rule_points(r) / ref_measure(r->dim);
  col = 0;
  for (int o = 0; o < r->n_orbits; ++o) {
    const int np = orbit_types[r->kind[o]].n_params;
    real T[4], dT[4][3];
    orbit_tuple(r->kind[o], r->prm[o], T, dT);
    const int active_w = r->w[o] < 0;
    res[row] = active_w ? -wscale * r->w[o] : 0;
    if (jac) {
      memset(jac + (size_t)row * n, 0, sizeof(real) * (size_t)n);
      if (active_w) jac[(size_t)row * n + col] = -wscale;
    }
    ++row;
    for (int v = 0; v <= r->dim; ++v) {
      const int active = T[v] < 0;
      res[row] = active ? -T[v] : 0;
      if (jac) {
        memset(jac + (size_t)row * n, 0, sizeof(real) * (size_t)n);
        for (int j = 0; j < np && active; ++j) jac[(size_t)row * n + col + 1 + j] = -dT[v][j];
      }
      ++row;
    }
    col += 1 + np;
  }
  return row;
}

static int use_invariants = 0; /* levenberg_marquardt's residual: 1 invariants, 0 full */

static int rule_residual_any(const rule *r, real *res, real *jac) {
  return use_invariants ? rule_residual_invariant(r, res, jac) : rule_residual(r, res, jac);
}

static real vec_norm2(const real *v, int n) {
  real s = 0;
  for (int i = 0; i < n; ++i) s += v[i] * v[i];
  return s;
}

/* Solves the symmetric positive definite system A x = b (A n×n, destroyed)
 * by Cholesky. Returns 0 when A is not positive definite. */
static int cholesky_solve(int n, real *A, real *x) {
  for (int j = 0; j < n; ++j) {
    real s = A[j * n + j];
    for (int k = 0; k < j; ++k) s -= A[j * n + k] * A[j * n + k];
    if (!(s > 0)) return 0;
    const real l = sqrtl(s);
    A[j * n + j] = l;
    for (int i = j + 1; i < n; ++i) {
      real t = A[i * n + j];
      for (int k = 0; k < j; ++k) t -= A[i * n + k] * A[j * n + k];
      A[i * n + j] = t / l;
    }
  }
  for (int i = 0; i < n; ++i) {
    real s = x[i];
    for (int k = 0; k < i; ++k) s -= A[i * n + k] * x[k];
    x[i] = s / A[i * n + i];
  }
  for (int i = n - 1; i >= 0; --i) {
    real s = x[i];
    for (int k = i + 1; k < n; ++k) s -= A[k * n + i] * x[k];
    x[i] = s / A[i * n + i];
  }
  return 1;
}

/* Smallest barycentric coordinate over the rule's tuples (all points share
 * their orbit tuple's values). */
static real rule_min_bary(const rule *r) {
  real mn = 1;
  for (int o = 0; o < r->n_orbits; ++o) {
    real T[4], dT[4][3];
    orbit_tuple(r->kind[o], r->prm[o], T, dT);
    for (int v = 0; v <= r->dim; ++v)
      if (T[v] < mn) mn = T[v];
  }
  return mn;
}

static real rule_min_weight(const rule *r) {
  real mn = r->w[0];
  for (int o = 1; o < r->n_orbits; ++o)
    if (r->w[o] < mn) mn = r->w[o];
  return mn;
}

/* Smallest distance between two points of the rule. */
static real rule_min_distance(const rule *r) {
  const int n = rule_points(r);
  real *x = malloc(sizeof(real) * 3 * (size_t)n);
  int k = 0;
  for (int o = 0; o < r->n_orbits; ++o)
    for (int q = 0; q < orbit_types[r->kind[o]].size; ++q, ++k) {
      real dx[3][3];
      rule_point(r, o, q, x + 3 * k, dx);
    }
  real mn = 1;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      real s = 0;
      for (int d = 0; d < 3; ++d)
        s += (x[3 * i + d] - x[3 * j + d]) * (x[3 * i + d] - x[3 * j + d]);
      if (sqrtl(s) < mn) mn = sqrtl(s);
    }
  free(x);
  return mn;
}

/* ---- Levenberg–Marquardt ---- */

typedef struct {
  real *res, *jac, *trial_res, *A, *g, *step, *u, *trial_u;
} workspace;

static void workspace_init(workspace *ws) {
  const size_t m = MAX_MODES, n = MAX_UNKNOWNS;
  ws->res = malloc(sizeof(real) * m);
  ws->trial_res = malloc(sizeof(real) * m);
  ws->jac = malloc(sizeof(real) * m * n);
  ws->A = malloc(sizeof(real) * n * n);
  ws->g = malloc(sizeof(real) * n);
  ws->step = malloc(sizeof(real) * n);
  ws->u = malloc(sizeof(real) * n);
  ws->trial_u = malloc(sizeof(real) * n);
  if (!ws->res || !ws->trial_res || !ws->jac || !ws->A || !ws->g || !ws->step || !ws->u ||
      !ws->trial_u) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
}

static void workspace_free(workspace *ws) {
  free(ws->res);
  free(ws->trial_res);
  free(ws->jac);
  free(ws->A);
  free(ws->g);
  free(ws->step);
  free(ws->u);
  free(ws->trial_u);
}

/* Runs LM on r from its current unknowns. Returns the final squared
 * residual norm. `polish` runs undamped (tiny μ) Gauss–Newton steps until
 * the residual stops decreasing. Starts that wander far outside the
 * simplex or stall are abandoned early (the large value returned). */
static real levenberg_marquardt(rule *r, workspace *ws, int max_iters, int polish) {
  const int n = rule_unknowns(r);
  const int m = rule_residual_any(r, ws->res, ws->jac);
  real cost = vec_norm2(ws->res, m);
  real mu = polish ? 1e-20L : 1e-3L;
  real cost_at[8] = {0};
  int stalls = 0;
  rule trial = *r;
  for (int it = 0; it < max_iters; ++it) {
    if (cost < (polish ? 0 : 1e-26L)) break;
    if (!polish) {
      cost_at[it % 8] = cost;
      if (it >= 60 && it % 20 == 0 && cost > 0.5L * cost_at[(it + 1) % 8] && cost > 1e-12L)
        return cost;                              /* stalled */
      if (it >= 300 && cost > 1e-8L) return cost; /* slow */
      if (rule_min_bary(r) < -0.5L) return 1e30L; /* wandered off */
    }
    for (int i = 0; i < n; ++i) {
      real s = 0;
      for (int k = 0; k < m; ++k) s += ws->jac[(size_t)k * n + i] * ws->res[k];
      ws->g[i] = -s;
      for (int j = 0; j <= i; ++j) {
        real t = 0;
        for (int k = 0; k < m; ++k) t += ws->jac[(size_t)k * n + i] * ws->jac[(size_t)k * n + j];
        ws->A[i * n + j] = ws->A[j * n + i] = t;
      }
    }
    static real diag[MAX_UNKNOWNS], Acopy[MAX_UNKNOWNS * MAX_UNKNOWNS];
    for (int i = 0; i < n; ++i) diag[i] = ws->A[i * n + i] > 0 ? ws->A[i * n + i] : 1e-30L;
    int accepted = 0;
    for (int attempt = 0; attempt < 40 && !accepted; ++attempt) {
      memcpy(Acopy, ws->A, sizeof(real) * (size_t)n * (size_t)n);
      for (int i = 0; i < n; ++i) {
        Acopy[i * n + i] += mu * diag[i];
        ws->step[i] = ws->g[i];
      }
      if (!cholesky_solve(n, Acopy, ws->step)) {
        mu = mu * 10 + 1e-18L;
        continue;
      }
      rule_pack(r, ws->u);
      for (int i = 0; i < n; ++i) ws->trial_u[i] = ws->u[i] + ws->step[i];
      trial = *r;
      rule_unpack(&trial, ws->trial_u);
      rule_residual_any(&trial, ws->trial_res, NULL);
      const real trial_cost = vec_norm2(ws->trial_res, m);
      if (trial_cost < cost) {
        *r = trial;
        cost = rule_residual_any(r, ws->res, ws->jac), cost = vec_norm2(ws->res, m);
        mu = mu / 3 > 1e-20L ? mu / 3 : 1e-20L;
        accepted = 1;
      } else {
        mu *= 4;
        if (polish && mu > 1e-6L) break;
      }
    }
    if (!accepted) {
      if (++stalls > 0) break;
    }
  }
  return cost;
}

/* ---- random starts ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng_next(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static real rng_uniform(void) { return ((real)(rng_next() >> 11) + 0.5L) / 9007199254740992.0L; }

/* A uniformly random point of the n-simplex as n+1 barycentric coordinates. */
static void rng_simplex(int n, real *lam) {
  real s = 0;
  for (int v = 0; v <= n; ++v) s += lam[v] = -logl(rng_uniform());
  for (int v = 0; v <= n; ++v) lam[v] /= s;
}

static void rule_random_start(rule *r) {
  const int n_pts = rule_points(r);
  for (int o = 0; o < r->n_orbits; ++o) {
    real lam[4];
    real *p = r->prm[o];
    switch (r->kind[o]) {
    case S21: p[0] = 0.5L * rng_uniform(); break;
    case S111:
      rng_simplex(2, lam);
      p[0] = lam[0];
      p[1] = lam[1];
      break;
    case S31: p[0] = rng_uniform() / 3; break;
    case S22: p[0] = 0.25L * rng_uniform(); break;
    case S211:
      rng_simplex(2, lam);
      p[0] = 0.5L * lam[0];
      p[1] = lam[1];
      break;
    case S1111:
      rng_simplex(3, lam);
      p[0] = lam[0];
      p[1] = lam[1];
      p[2] = lam[2];
      break;
    default: break;
    }
    r->w[o] = ref_measure(r->dim) / n_pts * (0.5L + rng_uniform());
  }
}

/* ---- checks ---- */

typedef struct {
  real residual;     /* max |orthonormal moment error| */
  real monomial;     /* max relative monomial error */
  real weight_sum;   /* |Σw - |T|| / |T| */
  real min_bary;     /* smallest barycentric coordinate */
  real min_weight;   /* smallest weight */
  real min_distance; /* smallest distance between points */
} rule_report;

static real factorial(int n) {
  real f = 1;
  for (int i = 2; i <= n; ++i) f *= i;
  return f;
}

static void rule_check(const rule *r, rule_report *rep) {
  static real res[MAX_MODES];
  const int m = rule_residual(r, res, NULL);
  rep->residual = 0;
  for (int k = 0; k < m; ++k)
    if (fabsl(res[k]) > rep->residual) rep->residual = fabsl(res[k]);
  /* monomials x^i y^j z^k: ∫ = i! j! k! / (i+j+k+dim)! */
  rep->monomial = 0;
  const int kmax = r->dim == 3 ? r->degree : 0;
  for (int i = 0; i <= r->degree; ++i)
    for (int j = 0; i + j <= r->degree; ++j)
      for (int k = 0; k <= kmax && i + j + k <= r->degree; ++k) {
        real q = 0;
        for (int o = 0; o < r->n_orbits; ++o)
          for (int p = 0; p < orbit_types[r->kind[o]].size; ++p) {
            real x[3], dx[3][3];
            rule_point(r, o, p, x, dx);
            q += r->w[o] * powl(x[0], i) * powl(x[1], j) * (r->dim == 3 ? powl(x[2], k) : 1);
          }
        const real exact =
            factorial(i) * factorial(j) * factorial(k) / factorial(i + j + k + r->dim);
        const real e = fabsl(q - exact) / exact;
        if (e > rep->monomial) rep->monomial = e;
      }
  real s = 0;
  for (int o = 0; o < r->n_orbits; ++o) s += r->w[o] * orbit_types[r->kind[o]].size;
  rep->weight_sum = fabsl(s - ref_measure(r->dim)) / ref_measure(r->dim);
  rep->min_bary = rule_min_bary(r);
  rep->min_weight = rule_min_weight(r);
  rep->min_distance = rule_min_distance(r);
}

static int rule_valid(const rule_report *rep) {
  return rep->min_weight > 0 && rep->min_bary > 1e-8L && rep->min_distance > 1e-6L;
}

/* Canonical form: S22's a below 1/4, S111/S211/S1111 parameters in
 * descending order where the orbit allows relabelling, orbits sorted by
 * type then parameters, so that records and tables read the same way. */
static void rule_canonical(rule *r) {
  for (int o = 0; o < r->n_orbits; ++o) {
    real *p = r->prm[o];
    real T[4], dT[4][3];
    orbit_tuple(r->kind[o], p, T, dT);
    switch (r->kind[o]) {
    case S22:
      if (p[0] > 0.25L) p[0] = 0.5L - p[0];
      break;
    case S111: { /* any two of the three values */
      real v[3] = {T[0], T[1], T[2]};
      for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
          if (v[j] < v[i]) {
            const real t = v[i];
            v[i] = v[j];
            v[j] = t;
          }
      p[0] = v[0];
      p[1] = v[1];
      break;
    }
    case S211: /* b and 1-2a-b swap */
      if (T[3] < p[1]) p[1] = T[3];
      break;
    case S1111: {
      real v[4] = {T[0], T[1], T[2], T[3]};
      for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j)
          if (v[j] < v[i]) {
            const real t = v[i];
            v[i] = v[j];
            v[j] = t;
          }
      p[0] = v[0];
      p[1] = v[1];
      p[2] = v[2];
      break;
    }
    default: break;
    }
  }
  for (int i = 0; i < r->n_orbits; ++i)
    for (int j = i + 1; j < r->n_orbits; ++j) {
      const int swap = r->kind[j] < r->kind[i] ||
                       (r->kind[j] == r->kind[i] &&
                        (r->prm[j][0] < r->prm[i][0] ||
                         (r->prm[j][0] == r->prm[i][0] && r->prm[j][1] < r->prm[i][1])));
      if (!swap) continue;
      const orbit_kind k = r->kind[i];
      r->kind[i] = r->kind[j];
      r->kind[j] = k;
      real t[3];
      memcpy(t, r->prm[i], sizeof t);
      memcpy(r->prm[i], r->prm[j], sizeof t);
      memcpy(r->prm[j], t, sizeof t);
      const real w = r->w[i];
      r->w[i] = r->w[j];
      r->w[j] = w;
    }
}

/* ---- records ---- */

static void rule_print_record(FILE *f, const rule *r, const rule_report *rep, const char *how) {
  fprintf(f, "# %s degree %d: %d points, %d orbits; max moment error %.2Le, monomial %.2Le\n",
          r->dim == 2 ? "tri" : "tet", r->degree, rule_points(r), r->n_orbits, rep->residual,
          rep->monomial);
  if (how) fprintf(f, "# found by: %s\n", how);
  fprintf(f, "rule %s %d %d\n", r->dim == 2 ? "tri" : "tet", r->degree, r->n_orbits);
  for (int o = 0; o < r->n_orbits; ++o) {
    fprintf(f, "%-5s", orbit_types[r->kind[o]].name);
    for (int j = 0; j < 3; ++j)
      fprintf(f, " %.21Le", j < orbit_types[r->kind[o]].n_params ? r->prm[o][j] : 0.0L);
    fprintf(f, " %.21Le\n", r->w[o]);
  }
  fprintf(f, "end\n");
}

/* Reads the next record; returns 0 at the end of the file, -1 on error. */
static int rule_read_record(FILE *f, rule *r, int *line) {
  char buf[512];
  int in_rule = 0, o = 0;
  while (fgets(buf, sizeof buf, f)) {
    ++*line;
    if (buf[0] == '#' || buf[0] == '\n') continue;
    char name[16];
    if (!in_rule) {
      int deg, no;
      if (sscanf(buf, "rule %15s %d %d", name, &deg, &no) != 3 || no < 1 || no > MAX_ORBITS ||
          deg < 0 || deg > MAX_DEGREE || (strcmp(name, "tri") && strcmp(name, "tet"))) {
        fprintf(stderr, "line %d: expected 'rule tri|tet DEGREE N_ORBITS'\n", *line);
        return -1;
      }
      memset(r, 0, sizeof *r);
      r->dim = strcmp(name, "tri") == 0 ? 2 : 3;
      r->degree = deg;
      r->n_orbits = no;
      in_rule = 1;
      continue;
    }
    if (strncmp(buf, "end", 3) == 0) {
      if (o != r->n_orbits) {
        fprintf(stderr, "line %d: rule has %d orbits, header says %d\n", *line, o, r->n_orbits);
        return -1;
      }
      return 1;
    }
    long double a, b, c, w;
    if (o >= r->n_orbits || sscanf(buf, "%15s %Lf %Lf %Lf %Lf", name, &a, &b, &c, &w) != 5) {
      fprintf(stderr, "line %d: expected 'TYPE a b c weight'\n", *line);
      return -1;
    }
    int t = -1;
    for (int k = 0; k < N_ORBIT_TYPES; ++k)
      if (strcmp(orbit_types[k].name, name) == 0 && orbit_types[k].dim == r->dim) t = k;
    if (t < 0) {
      fprintf(stderr, "line %d: unknown orbit type %s for this shape\n", *line, name);
      return -1;
    }
    r->kind[o] = (orbit_kind)t;
    r->prm[o][0] = a;
    r->prm[o][1] = b;
    r->prm[o][2] = c;
    r->w[o] = w;
    ++o;
  }
  if (in_rule) {
    fprintf(stderr, "line %d: file ends inside a rule\n", *line);
    return -1;
  }
  return 0;
}

/* ---- search ---- */

static int invariant_count(int dim, int degree) {
  int n = 0;
  for (int i = 0; 2 * i <= degree; ++i)
    for (int j = 0; 2 * i + 3 * j <= degree; ++j)
      for (int k = 0; 2 * i + 3 * j + 4 * k <= degree; ++k) {
        ++n;
        if (dim == 2) break;
      }
  return n;
}

typedef struct {
  int counts[5];
  int points, unknowns;
} structure;

static int structure_compare(const void *pa, const void *pb) {
  const structure *a = pa, *b = pb;
  if (a->points != b->points) return a->points - b->points;
  return a->unknowns - b->unknowns;
}

/* Orbit structures of a dimension with unknowns in [lo, hi] and points in
 * [min_points, max_points], fewest points first. */
static int structures_list(int dim, int lo, int hi, int min_points, int max_points, structure *out,
                           int cap) {
  orbit_kind kinds[5];
  const int nk = orbit_kinds_of(dim, kinds);
  int n = 0;
  int c[5] = {0, 0, 0, 0, 0};
  for (;;) {
    int pts = 0, unk = 0;
    for (int t = 0; t < nk; ++t) {
      pts += c[t] * orbit_types[kinds[t]].size;
      unk += c[t] * (1 + orbit_types[kinds[t]].n_params);
    }
    if (unk >= lo && unk <= hi && pts >= min_points && pts <= max_points && n < cap) {
      memcpy(out[n].counts, c, sizeof c);
      out[n].points = pts;
      out[n].unknowns = unk;
      ++n;
    }
    int t = 0;
    for (; t < nk; ++t) {
      ++c[t];
      int unk2 = 0;
      for (int s = 0; s < nk; ++s) unk2 += c[s] * (1 + orbit_types[kinds[s]].n_params);
      if ((t > 0 || c[0] <= 1) && unk2 <= hi) break;
      c[t] = 0;
    }
    if (t == nk) break;
  }
  qsort(out, (size_t)n, sizeof *out, structure_compare);
  return n;
}

static void rule_from_structure(rule *r, int dim, int degree, const structure *s) {
  orbit_kind kinds[5];
  const int nk = orbit_kinds_of(dim, kinds);
  memset(r, 0, sizeof *r);
  r->dim = dim;
  r->degree = degree;
  for (int t = 0; t < nk; ++t)
    for (int i = 0; i < s->counts[t]; ++i) r->kind[r->n_orbits++] = kinds[t];
}

/* Tries `tries` random starts on structure s; on success fills r and rep.
 * The random sequence depends only on (seed, dim, degree, s), so `--config`
 * with the same seed repeats a structure's starts exactly, whatever was
 * tried before it. */
static int search_structure(int dim, int degree, const structure *s, uint64_t seed, int tries,
                            workspace *ws, rule *r, rule_report *rep, int verbose) {
  rng_state = seed * 0x2545f4914f6cdd1dULL + (uint64_t)(dim * 100 + degree);
  for (int t = 0; t < 5; ++t) rng_state = rng_state * 1000003ULL + (uint64_t)s->counts[t];
  int converged = 0;
  for (int t = 0; t < tries; ++t) {
    rule_from_structure(r, dim, degree, s);
    rule_random_start(r);
    use_invariants = 1;
    const real cost = levenberg_marquardt(r, ws, 2000, 0);
    use_invariants = 0;
    if (!(cost < 1e-24L)) continue;
    ++converged;
    levenberg_marquardt(r, ws, 50, 1);
    rule_canonical(r);
    rule_check(r, rep);
    if (verbose > 1)
      fprintf(stderr, "  start %d converged: min w %.3Le, min bary %.3Le, min dist %.3Le\n", t,
              rep->min_weight, rep->min_bary, rep->min_distance);
    if (rule_valid(rep) && rep->residual < 1e-17L) return 1;
  }
  if (verbose) fprintf(stderr, "  %d of %d starts converged, none valid\n", converged, tries);
  return 0;
}

static int parse_config(const char *s, structure *st, int dim) {
  memset(st, 0, sizeof *st);
  orbit_kind kinds[5];
  const int nk = orbit_kinds_of(dim, kinds);
  int t = 0;
  const char *p = s;
  while (*p && t < nk) {
    char *end;
    st->counts[t] = (int)strtol(p, &end, 10);
    if (end == p || st->counts[t] < 0) return 0;
    st->points += st->counts[t] * orbit_types[kinds[t]].size;
    st->unknowns += st->counts[t] * (1 + orbit_types[kinds[t]].n_params);
    ++t;
    p = *end == ',' ? end + 1 : end;
    if (*end != ',' && *end) return 0;
  }
  return t == nk && !*p;
}

static int cmd_search(int argc, char **argv) {
  int dim = 0, degree = -1, tries = 200, max_points = 100000, min_points = 0, above = 2, below = 0,
      verbose = 1;
  uint64_t seed = 1;
  const char *config = NULL;
  for (int i = 2; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--shape") && v) {
      dim = !strcmp(v, "tri") ? 2 : !strcmp(v, "tet") ? 3 : 0;
      ++i;
    } else if (!strcmp(a, "--degree") && v) {
      degree = atoi(v);
      ++i;
    } else if (!strcmp(a, "--seed") && v) {
      seed = strtoull(v, NULL, 10);
      ++i;
    } else if (!strcmp(a, "--tries") && v) {
      tries = atoi(v);
      ++i;
    } else if (!strcmp(a, "--max-points") && v) {
      max_points = atoi(v);
      ++i;
    } else if (!strcmp(a, "--min-points") && v) {
      min_points = atoi(v);
      ++i;
    } else if (!strcmp(a, "--above") && v) {
      above = atoi(v);
      ++i;
    } else if (!strcmp(a, "--below") && v) {
      below = atoi(v);
      ++i;
    } else if (!strcmp(a, "--config") && v) {
      config = v;
      ++i;
    } else if (!strcmp(a, "--quiet")) {
      verbose = 0;
    } else if (!strcmp(a, "--verbose")) {
      verbose = 2;
    } else {
      fprintf(stderr, "search: unknown or incomplete option '%s'\n", a);
      return 2;
    }
  }
  if (!dim || degree < 1 || degree > MAX_DEGREE) {
    fprintf(stderr, "search: needs --shape tri|tet and --degree 1..%d\n", MAX_DEGREE);
    return 2;
  }
  const int K = invariant_count(dim, degree);
  static structure list[20000];
  int n_list;
  if (config) {
    if (!parse_config(config, &list[0], dim)) {
      fprintf(stderr, "search: --config needs %d comma-separated orbit counts (%s)\n",
              dim == 2 ? 3 : 5, dim == 2 ? "S3,S21,S111" : "S4,S31,S22,S211,S1111");
      return 2;
    }
    n_list = 1;
  } else {
    n_list = structures_list(dim, K - below, K + above, min_points, max_points, list, 20000);
  }
  if (verbose)
    fprintf(stderr, "%s degree %d: %d invariant conditions, %d structures to try\n",
            dim == 2 ? "tri" : "tet", degree, K, n_list);
  inv_setup(dim, degree);
  if (inv.n != K) {
    fprintf(stderr, "internal error: %d invariants, expected %d\n", inv.n, K);
    return 2;
  }
  workspace ws;
  workspace_init(&ws);
  rule r;
  rule_report rep;
  for (int s = 0; s < n_list; ++s) {
    if (verbose) {
      fprintf(stderr, "structure %d points, %d unknowns, counts", list[s].points, list[s].unknowns);
      for (int t = 0; t < (dim == 2 ? 3 : 5); ++t) fprintf(stderr, " %d", list[s].counts[t]);
      fprintf(stderr, "\n");
    }
    if (search_structure(dim, degree, &list[s], seed, tries, &ws, &r, &rep, verbose)) {
      char how[512], counts[64] = "";
      for (int t = 0; t < (dim == 2 ? 3 : 5); ++t)
        snprintf(counts + strlen(counts), sizeof counts - strlen(counts), "%s%d", t ? "," : "",
                 list[s].counts[t]);
      snprintf(how, sizeof how,
               "derive_symmetric search --shape %s --degree %d --seed %llu --tries %d --config %s",
               dim == 2 ? "tri" : "tet", degree, (unsigned long long)seed, tries, counts);
      rule_print_record(stdout, &r, &rep, how);
      workspace_free(&ws);
      return 0;
    }
  }
  workspace_free(&ws);
  fprintf(stderr, "search: no rule found\n");
  return 1;
}

/* ---- emit / check ---- */

static int cmd_emit(int argc, char **argv, int emit) {
  if (argc < 3) {
    fprintf(stderr, "%s: needs RULES.txt\n", argv[1]);
    return 2;
  }
  FILE *f = fopen(argv[2], "r");
  if (!f) {
    fprintf(stderr, "%s: cannot open %s\n", argv[1], argv[2]);
    return 2;
  }
  static rule rules[64];
  int n = 0, line = 0, st;
  while (n < 64 && (st = rule_read_record(f, &rules[n], &line)) == 1) ++n;
  fclose(f);
  if (st < 0) return 2;
  workspace ws;
  workspace_init(&ws);
  int bad = 0;
  rule_report reps[64];
  fprintf(stderr,
          "shape degree points orbits  moment_err  monomial_err  sum_err  min_w  min_bary\n");
  for (int i = 0; i < n; ++i) {
    rule *r = &rules[i];
    levenberg_marquardt(r, &ws, 50, 1);
    /* what the library will hold: the parameters rounded to double */
    for (int o = 0; o < r->n_orbits; ++o) {
      r->w[o] = (double)r->w[o];
      for (int j = 0; j < 3; ++j) r->prm[o][j] = (double)r->prm[o][j];
    }
    rule_check(r, &reps[i]);
    const int ok = rule_valid(&reps[i]) && reps[i].residual < 1e-15L && reps[i].monomial < 1e-14L &&
                   reps[i].weight_sum < 1e-15L;
    bad += !ok;
    fprintf(stderr, "%-5s %6d %6d %6d  %10.2Le  %12.2Le  %7.1Le  %.2Le  %.2Le%s\n",
            r->dim == 2 ? "tri" : "tet", r->degree, rule_points(r), r->n_orbits, reps[i].residual,
            reps[i].monomial, reps[i].weight_sum, reps[i].min_weight, reps[i].min_bary,
            ok ? "" : "  FAILS");
  }
  if (emit && !bad) {
    printf("/* Generated by tools/quadrature/derive_symmetric (do not edit by hand):\n"
           " *   build/tests/derive_symmetric emit tools/quadrature/symmetric_rules.txt \\\n"
           " *     > src/element/quadrature_symmetric.c\n"
           " * The records of symmetric_rules.txt come from `derive_symmetric search`\n"
           " * (each record names its command). Per orbit: barycentric parameters\n"
           " * (a, b, c; see quadrature_symmetric.h) and the weight of each of its\n"
           " * points. Columns of the comments: points, max |error| on the orthonormal\n"
           " * basis moments, max relative monomial error (long double check). */\n"
           "#include \"element/quadrature_symmetric.h\"\n\n"
           "/* clang-format off */\n\n");
    for (int i = 0; i < n; ++i) {
      const rule *r = &rules[i];
      printf("/* %s degree %d: %d points, moment error %.1Le, monomial error %.1Le */\n",
             r->dim == 2 ? "triangle" : "tetrahedron", r->degree, rule_points(r), reps[i].residual,
             reps[i].monomial);
      printf("static const dg_quad_orbit %s_%d[] = {\n", r->dim == 2 ? "tri" : "tet", r->degree);
      for (int o = 0; o < r->n_orbits; ++o) {
        printf("    {DG_ORBIT_%s, {", orbit_types[r->kind[o]].name);
        for (int j = 0; j < 3; ++j)
          printf("%s%.17g", j ? ", " : "",
                 j < orbit_types[r->kind[o]].n_params ? (double)r->prm[o][j] : 0.0);
        printf("}, %.17g},\n", (double)r->w[o]);
      }
      printf("};\n\n");
    }
    printf("const dg_quad_symmetric_rule quadrature_symmetric_rules[] = {\n");
    for (int i = 0; i < n; ++i)
      printf("    {DG_%s, %d, %d, %d, %s_%d},\n", rules[i].dim == 2 ? "TRI" : "TET",
             rules[i].degree, rule_points(&rules[i]), rules[i].n_orbits,
             rules[i].dim == 2 ? "tri" : "tet", rules[i].degree);
    printf("};\n\nconst int quadrature_symmetric_n_rules =\n"
           "    (int)(sizeof quadrature_symmetric_rules / sizeof quadrature_symmetric_rules[0]);\n"
           "\n/* clang-format on */\n");
  }
  workspace_free(&ws);
  if (bad) fprintf(stderr, "%s: %d rule(s) fail the checks\n", argv[1], bad);
  return bad ? 1 : 0;
}

int main(int argc, char **argv) {
  orbit_perms_build();
  if (argc >= 2 && !strcmp(argv[1], "search")) return cmd_search(argc, argv);
  if (argc >= 2 && !strcmp(argv[1], "emit")) return cmd_emit(argc, argv, 1);
  if (argc >= 2 && !strcmp(argv[1], "check")) return cmd_emit(argc, argv, 0);
  fprintf(stderr, "usage: derive_symmetric search --shape tri|tet --degree D [options]\n"
                  "       derive_symmetric emit RULES.txt > quadrature_symmetric.c\n"
                  "       derive_symmetric check RULES.txt\n"
                  "(see the comment at the top of tools/quadrature/derive_symmetric.c)\n");
  return 2;
}
