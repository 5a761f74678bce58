#pragma once
/* Orthonormal modal bases on the reference shapes (src/element/shape.h):
 * Dubiner (PKDO) on triangles and tetrahedra (complete P_p), tensor Legendre
 * on quadrilaterals (Q_p), Legendre on lines. Orthonormal means
 * ∫_ref φ_i φ_j dξ = δ_ij over the reference element (not its unit-measure
 * rescaling), so the mass matrix of an affine element is |det J| I.
 *
 * Modes are ordered hierarchically: the modes of a degree-q space come
 * first, so the degree-(p-1) space is the first basis_count(shape, p-1)
 * modes of the degree-p one (quads: degree means max(i, j)). The
 * Persson–Peraire sensor relies on this. p = 0..DG_MAX_P.
 *
 * DG_HD: the same code evaluates tables on the host and inside kernels.
 *
 * Definitions (docs/NUMERICS-basis.md has the derivation):
 *   line  φ_i(x)   = sqrt((2i+1)/2) P_i(x)
 *   quad  φ_ij     = φ_i(x) φ_j(y)
 *   tri   φ_ij     = c_ij L_i(x; 1-y) P_j^(2i+1,0)(2y-1),
 *         c_ij     = sqrt(2 (2i+1)(i+j+1))
 *   tet   φ_ijk    = c_ijk L_i(x; 1-y-z) J_j^(2i+1)(y; 1-z) P_k^(2i+2j+2,0)(2z-1),
 *         c_ijk    = sqrt(2 (2i+1)(i+j+1)(2(i+j+k)+3))
 * where L_i(x; t) = t^i P_i(2x/t - 1) and J_j^(a)(y; t) = t^j P_j^(a,0)(2y/t - 1)
 * are the "scaled" polynomials of the collapsed coordinates, evaluated by
 * their own recurrences so that no division by t happens: values and
 * gradients are exact polynomials everywhere, the collapsed vertex included.
 *
 * Ordering inside the degree-q shell (mode index = basis_count(s, q-1) + r):
 *   tri   r = i                      (i = 0..q, j = q - i)
 *   tet   r = i(q+1) - i(i-1)/2 + j  (i = 0..q, j = 0..q-i, k = q - i - j)
 *   quad  r = j for (i = q, j < q); q + i for (i < q, j = q); 2q for (q, q) */
#include <math.h>

#include "core/dg_hd.h"
#include "element/shape.h"

#define DG_MAX_P 3
#define DG_MAX_BASIS 20 /* tet p = 3 */
/* Highest degree basis_eval/basis_eval_grad accept: sizes their scratch
 * arrays. Above DG_MAX_P so that studies can go further on the host. */
#define DG_BASIS_EVAL_MAX_P 6

/* Number of modes of the degree-p basis on shape s (0 for unsupported). */
DG_HD int basis_count(dg_shape s, int p) {
  switch (s) {
  case DG_LINE: return p + 1;
  case DG_TRI: return (p + 1) * (p + 2) / 2;
  case DG_QUAD: return (p + 1) * (p + 1);
  case DG_TET: return (p + 1) * (p + 2) * (p + 3) / 6;
  default: return 0;
  }
}

/* Polynomial degree of mode `mode` of the degree-p basis on shape s (quads:
 * max(i, j)): the smallest q with mode < basis_count(s, q). -1 when mode is
 * outside 0..basis_count(s, p)-1 or the shape is unsupported. */
DG_HD int basis_mode_degree(dg_shape s, int p, int mode) {
  if (mode < 0 || mode >= basis_count(s, p)) return -1;
  for (int q = 0; q <= p; ++q)
    if (mode < basis_count(s, q)) return q;
  return -1;
}

/* Scaled Jacobi polynomials Q_n = u^n P_n^(alpha,beta)(X/u), n = 0..n_max,
 * with X and u linear functions of the reference coordinates given by their
 * values and gradients (dX, du: d/dxi_0..2). u = 1, du = 0 gives the plain
 * P_n^(alpha,beta)(X). The recurrence is the Jacobi one multiplied through by
 * u^n, so it never divides by u. Writes q[n_max+1] and, when dq is not NULL,
 * dq[n_max+1][3]. */
DG_HD void basis_jacobi_scaled(int n_max, double alpha, double beta, double X, const double dX[3],
                               double u, const double du[3], double *q, double (*dq)[3]) {
  q[0] = 1.0;
  if (dq) dq[0][0] = dq[0][1] = dq[0][2] = 0.0;
  if (n_max < 1) return;
  const double c1 = 0.5 * (alpha + beta + 2.0), c0 = 0.5 * (alpha - beta);
  q[1] = c1 * X + c0 * u;
  if (dq)
    for (int d = 0; d < 3; ++d) dq[1][d] = c1 * dX[d] + c0 * du[d];
  const double ab = alpha + beta;
  for (int n = 2; n <= n_max; ++n) {
    const double s = 2.0 * n + ab;
    const double a1 = 2.0 * n * (n + ab) * (s - 2.0);
    const double a2 = (s - 1.0) * (alpha * alpha - beta * beta);
    const double a3 = (s - 2.0) * (s - 1.0) * s;
    const double a4 = 2.0 * (n + alpha - 1.0) * (n + beta - 1.0) * s;
    const double lin = a2 * u + a3 * X;
    q[n] = (lin * q[n - 1] - a4 * u * u * q[n - 2]) / a1;
    if (dq)
      for (int d = 0; d < 3; ++d)
        dq[n][d] = ((a2 * du[d] + a3 * dX[d]) * q[n - 1] + lin * dq[n - 1][d] -
                    a4 * (2.0 * u * du[d] * q[n - 2] + u * u * dq[n - 2][d])) /
                   a1;
  }
}

/* Mode index of (i, j) in the quad ordering (see the file comment). */
DG_HD int basis_quad_index(int i, int j) {
  const int q = i > j ? i : j;
  if (i == q && j == q) return q * q + 2 * q;
  if (i == q) return q * q + j;
  return q * q + q + i;
}

/* Shared body of basis_eval and basis_eval_grad; dphi may be NULL. */
DG_HD int basis_eval_impl(dg_shape s, int p, const double xi[3], double *phi, double *dphi) {
  enum { NP = DG_BASIS_EVAL_MAX_P + 1 };
  const double zero[3] = {0.0, 0.0, 0.0};
  const int n_modes = basis_count(s, p);
  if (p < 0 || p > DG_BASIS_EVAL_MAX_P || n_modes == 0) return 0;
  double a[NP], da[NP][3], b[NP], db[NP][3];
  double(*dpa)[3] = dphi ? da : NULL;
  double(*dpb)[3] = dphi ? db : NULL;
  if (s == DG_LINE || s == DG_QUAD) {
    const double dx[3] = {1.0, 0.0, 0.0}, dy[3] = {0.0, 1.0, 0.0};
    basis_jacobi_scaled(p, 0.0, 0.0, xi[0], dx, 1.0, zero, a, dpa);
    if (s == DG_QUAD) basis_jacobi_scaled(p, 0.0, 0.0, xi[1], dy, 1.0, zero, b, dpb);
    for (int i = 0; i <= p; ++i) {
      const double ci = sqrt(0.5 * (2 * i + 1));
      if (s == DG_LINE) {
        phi[i] = ci * a[i];
        if (dphi) {
          dphi[3 * i] = ci * da[i][0];
          dphi[3 * i + 1] = dphi[3 * i + 2] = 0.0;
        }
        continue;
      }
      for (int j = 0; j <= p; ++j) {
        const double c = ci * sqrt(0.5 * (2 * j + 1));
        const int m = basis_quad_index(i, j);
        phi[m] = c * a[i] * b[j];
        if (dphi) {
          dphi[3 * m] = c * da[i][0] * b[j];
          dphi[3 * m + 1] = c * a[i] * db[j][1];
          dphi[3 * m + 2] = 0.0;
        }
      }
    }
    return n_modes;
  }
  const double x = xi[0], y = xi[1], z = s == DG_TET ? xi[2] : 0.0;
  /* L_i(x; t) with t = 1 - y - z (z = 0 on the triangle): X = 2x - t */
  const double dxl[3] = {2.0, 1.0, s == DG_TET ? 1.0 : 0.0};
  const double dtl[3] = {0.0, -1.0, s == DG_TET ? -1.0 : 0.0};
  basis_jacobi_scaled(p, 0.0, 0.0, 2.0 * x - (1.0 - y - z), dxl, 1.0 - y - z, dtl, a, dpa);
  for (int i = 0; i <= p; ++i) {
    if (s == DG_TRI) {
      const double dy[3] = {0.0, 2.0, 0.0};
      basis_jacobi_scaled(p - i, 2.0 * i + 1.0, 0.0, 2.0 * y - 1.0, dy, 1.0, zero, b, dpb);
      for (int j = 0; j <= p - i; ++j) {
        const int q = i + j;
        const int m = q * (q + 1) / 2 + i;
        const double c = sqrt(2.0 * (2 * i + 1) * (i + j + 1));
        phi[m] = c * a[i] * b[j];
        if (dphi)
          for (int d = 0; d < 3; ++d) dphi[3 * m + d] = c * (da[i][d] * b[j] + a[i] * db[j][d]);
      }
      continue;
    }
    /* tet: J_j^(2i+1)(y; w) with w = 1 - z: X = 2y - w */
    const double dxj[3] = {0.0, 2.0, 1.0}, dwj[3] = {0.0, 0.0, -1.0};
    basis_jacobi_scaled(p - i, 2.0 * i + 1.0, 0.0, 2.0 * y - (1.0 - z), dxj, 1.0 - z, dwj, b, dpb);
    for (int j = 0; j <= p - i; ++j) {
      double c3[NP], dc3[NP][3];
      const double dz[3] = {0.0, 0.0, 2.0};
      basis_jacobi_scaled(p - i - j, 2.0 * (i + j) + 2.0, 0.0, 2.0 * z - 1.0, dz, 1.0, zero, c3,
                          dphi ? dc3 : NULL);
      for (int k = 0; k <= p - i - j; ++k) {
        const int q = i + j + k;
        const int m = q * (q + 1) * (q + 2) / 6 + i * (q + 1) - i * (i - 1) / 2 + j;
        const double c = sqrt(2.0 * (2 * i + 1) * (i + j + 1) * (2 * q + 3));
        const double ab = a[i] * b[j];
        phi[m] = c * ab * c3[k];
        if (dphi)
          for (int d = 0; d < 3; ++d)
            dphi[3 * m + d] = c * ((da[i][d] * b[j] + a[i] * db[j][d]) * c3[k] + ab * dc3[k][d]);
      }
    }
  }
  return n_modes;
}

/* Values of the basis_count(s, p) modes of the degree-p basis at reference
 * point xi (unused components ignored): phi[n_modes]. Returns n_modes, or 0
 * (nothing written) for an unsupported shape or p outside
 * 0..DG_BASIS_EVAL_MAX_P. */
DG_HD int basis_eval(dg_shape s, int p, const double xi[3], double *phi) {
  return basis_eval_impl(s, p, xi, phi, NULL);
}

/* Values and reference-coordinate gradients of the degree-p basis at xi:
 * phi[n_modes], dphi[n_modes][3] with dphi[m][d] = dφ_m/dξ_d (components
 * beyond the shape's dimension set to 0). Exact at every point of the
 * closed reference element, collapsed vertices included. Returns n_modes, or
 * 0 (nothing written) as basis_eval. */
DG_HD int basis_eval_grad(dg_shape s, int p, const double xi[3], double *phi, double *dphi) {
  return basis_eval_impl(s, p, xi, phi, dphi);
}
