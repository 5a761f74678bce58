/* Basis functions: orthonormality, hierarchy and mode degrees, closed-form
 * low modes, gradients against finite differences (interior points,
 * vertices — the collapsed ones included — and edge midpoints). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "element/basis.h"
#include "element/quadrature.h"
#include "test_util.h"

#define MAX_MODES 84 /* tet, DG_BASIS_EVAL_MAX_P = 6 */

static const dg_shape shapes[] = {DG_LINE, DG_QUAD, DG_TRI, DG_TET};

/* Deterministic uniform numbers in [0, 1) (tests must be repeatable). */
static double uniform(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return (*state >> 8) / 16777216.0;
}

/* A random point strictly inside the reference element. */
static void random_point(dg_shape s, unsigned *state, double xi[3]) {
  xi[0] = xi[1] = xi[2] = 0.0;
  const int dim = shape_dim(s);
  if (s == DG_LINE || s == DG_QUAD) {
    for (int d = 0; d < dim; ++d) xi[d] = 1.8 * uniform(state) - 0.9;
    return;
  }
  double sum;
  do {
    sum = 0.0;
    for (int d = 0; d < dim; ++d) sum += xi[d] = 0.05 + 0.9 * uniform(state);
  } while (sum > 0.95);
}

/* max |M - I| with M from a rule of degree 2p (exact for the products) of
 * the given family: the solver takes the mass matrix of an affine element
 * to be |det J| I (basis.h) whichever family its rules are, so both must
 * reproduce I. */
static void check_orthonormal(dg_shape s, int p, dg_quad_family family, double tol) {
  const int nb = basis_count(s, p);
  dg_quadrature rule = {0};
  TEST_OK(quadrature_rule_family(s, 2 * p, family, &rule));
  double *mass = calloc((size_t)nb * nb, sizeof *mass);
  double phi[MAX_MODES];
  for (int q = 0; q < rule.n_points; ++q) {
    TEST_CHECK(basis_eval(s, p, rule.xi + 3 * q, phi) == nb, "basis_eval mode count");
    for (int i = 0; i < nb; ++i)
      for (int j = 0; j < nb; ++j) mass[i * nb + j] += rule.w[q] * phi[i] * phi[j];
  }
  double worst = 0.0;
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < nb; ++j) worst = fmax(worst, fabs(mass[i * nb + j] - (i == j)));
  TEST_CHECK(worst <= tol, "shape %d p %d, %s rule: max |M - I| = %.3g > %.1g", (int)s, p,
             quadrature_family_name(rule.family), worst, tol);
  printf("  shape %d p %d: %2d modes, max |M - I| = %.2e (%s rule, %d points)\n", (int)s, p, nb,
         worst, quadrature_family_name(rule.family), rule.n_points);
  free(mass);
  quadrature_free(&rule);
}

/* Hierarchy: the degree-(p-1) basis is the first modes of the degree-p one,
 * and basis_mode_degree gives each mode's exact degree: it is orthogonal to
 * every monomial of lower degree, and its (q+1)-th finite difference along
 * a line vanishes (axis-parallel lines on quads, whose degree is max(i,j)). */
static void check_hierarchy(dg_shape s, int p) {
  const int nb = basis_count(s, p), dim = shape_dim(s);
  unsigned state = 12345u + 7u * (unsigned)p;
  double phi[MAX_MODES], phi_low[MAX_MODES];
  for (int trial = 0; trial < 5 && p > 0; ++trial) {
    double xi[3];
    random_point(s, &state, xi);
    basis_eval(s, p, xi, phi);
    basis_eval(s, p - 1, xi, phi_low);
    for (int m = 0; m < basis_count(s, p - 1); ++m)
      TEST_CHECK(phi[m] == phi_low[m], "shape %d p %d mode %d differs from the p-1 basis", (int)s,
                 p, m);
  }
  int count_of_degree[DG_BASIS_EVAL_MAX_P + 1] = {0};
  for (int m = 0; m < nb; ++m) {
    const int q = basis_mode_degree(s, p, m);
    TEST_CHECK(q >= 0 && q <= p, "shape %d p %d mode %d: degree %d", (int)s, p, m, q);
    if (q < 0 || q > p) continue;
    ++count_of_degree[q];
    if (m > 0) TEST_CHECK(q >= basis_mode_degree(s, p, m - 1), "mode degrees not ascending");
  }
  for (int q = 0; q <= p; ++q)
    TEST_CHECK(count_of_degree[q] == basis_count(s, q) - (q ? basis_count(s, q - 1) : 0),
               "shape %d p %d: %d modes of degree %d", (int)s, p, count_of_degree[q], q);
  TEST_CHECK(basis_mode_degree(s, p, -1) == -1 && basis_mode_degree(s, p, nb) == -1,
             "basis_mode_degree out of range");

  /* orthogonal to lower-degree monomials (rule exact for degree 2p) */
  dg_quadrature rule = {0};
  TEST_OK(quadrature_rule(s, 2 * p, &rule));
  for (int a = 0; a < p; ++a)
    for (int b = 0; b < (dim >= 2 ? p : 1); ++b)
      for (int c = 0; c < (dim >= 3 ? p : 1); ++c) {
        const int mono = s == DG_QUAD ? (a > b ? a : b) : a + b + c;
        if (mono >= p) continue;
        double moment[MAX_MODES] = {0};
        for (int k = 0; k < rule.n_points; ++k) {
          const double *x = rule.xi + 3 * k;
          basis_eval(s, p, x, phi);
          const double f = pow(x[0], a) * pow(x[1], b) * pow(x[2], c);
          for (int m = 0; m < nb; ++m) moment[m] += rule.w[k] * f * phi[m];
        }
        for (int m = 0; m < nb; ++m)
          if (basis_mode_degree(s, p, m) > mono)
            TEST_CHECK(fabs(moment[m]) <= 1e-14,
                       "shape %d mode %d (degree %d) vs x^%d y^%d z^%d: %g", (int)s, m,
                       basis_mode_degree(s, p, m), a, b, c, moment[m]);
      }
  quadrature_free(&rule);

  /* degree <= q along lines: the (q+1)-th finite difference vanishes */
  for (int trial = 0; trial < 6; ++trial) {
    double x0[3], dir[3] = {0, 0, 0};
    random_point(s, &state, x0);
    if (s == DG_QUAD || s == DG_LINE) {
      dir[trial % dim] = 1.0;
    } else {
      for (int d = 0; d < dim; ++d) dir[d] = uniform(&state) - 0.5;
    }
    const double h = 0.1;
    double values[DG_BASIS_EVAL_MAX_P + 2][MAX_MODES];
    for (int k = 0; k <= p + 1; ++k) {
      const double x[3] = {x0[0] + k * h * dir[0], x0[1] + k * h * dir[1], x0[2] + k * h * dir[2]};
      basis_eval(s, p, x, values[k]);
    }
    for (int m = 0; m < nb; ++m) {
      const int q = basis_mode_degree(s, p, m);
      double diff = 0.0, binom = 1.0, size = 0.0;
      for (int k = 0; k <= q + 1; ++k) {
        diff += ((q + 1 - k) % 2 ? -1.0 : 1.0) * binom * values[k][m];
        size += binom * fabs(values[k][m]);
        binom = binom * (q + 1 - k) / (k + 1);
      }
      TEST_CHECK(fabs(diff) <= 1e-13 * (size + 1.0),
                 "shape %d p %d mode %d: degree-%d difference %g is not zero", (int)s, p, m, q + 1,
                 diff);
    }
  }
}

/* Gradients against central differences at xi. */
static void check_gradient_at(dg_shape s, int p, const double xi[3], const char *where,
                              double *worst) {
  /* FD truncation error (h^2/6 times the third derivative) grows with p:
   * the contract degrees get 1e-7, the host-side extras 1e-6 */
  const double tol = p <= DG_MAX_P ? 1e-7 : 1e-6;
  const int nb = basis_count(s, p), dim = shape_dim(s);
  double phi[MAX_MODES], phi_plain[MAX_MODES], dphi[3 * MAX_MODES];
  double plus[MAX_MODES], minus[MAX_MODES];
  TEST_CHECK(basis_eval_grad(s, p, xi, phi, dphi) == nb, "basis_eval_grad mode count");
  basis_eval(s, p, xi, phi_plain);
  const double h = 1e-6;
  for (int m = 0; m < nb; ++m)
    TEST_CHECK(phi[m] == phi_plain[m], "shape %d p %d mode %d: basis_eval_grad value differs",
               (int)s, p, m);
  for (int d = 0; d < 3; ++d) {
    if (d >= dim) {
      for (int m = 0; m < nb; ++m)
        TEST_CHECK(dphi[3 * m + d] == 0.0, "shape %d mode %d: unused derivative %d is %g", (int)s,
                   m, d, dphi[3 * m + d]);
      continue;
    }
    double xp[3] = {xi[0], xi[1], xi[2]}, xm[3] = {xi[0], xi[1], xi[2]};
    xp[d] += h;
    xm[d] -= h;
    basis_eval(s, p, xp, plus);
    basis_eval(s, p, xm, minus);
    for (int m = 0; m < nb; ++m) {
      const double fd = (plus[m] - minus[m]) / (2.0 * h);
      const double error = fabs(dphi[3 * m + d] - fd) / fmax(1.0, fabs(fd));
      if (error > *worst) *worst = error;
      TEST_CHECK(isfinite(dphi[3 * m + d]) && error <= tol,
                 "shape %d p %d mode %d d/dxi_%d at %s (%g %g %g): %.12g vs FD %.12g", (int)s, p, m,
                 d, where, xi[0], xi[1], xi[2], dphi[3 * m + d], fd);
    }
  }
}

static void check_gradients(dg_shape s, int p) {
  unsigned state = 999u + (unsigned)(31 * p + (int)s);
  double worst = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    double xi[3];
    random_point(s, &state, xi);
    check_gradient_at(s, p, xi, "interior point", &worst);
  }
  const int nv = shape_n_verts(s);
  for (int v = 0; v < nv; ++v) {
    double xi[3], xj[3];
    shape_vertex_ref(s, v, xi);
    check_gradient_at(s, p, xi, "vertex", &worst);
    for (int w = v + 1; w < nv; ++w) { /* every vertex pair: edges (and quad diagonals) */
      shape_vertex_ref(s, w, xj);
      const double mid[3] = {0.5 * (xi[0] + xj[0]), 0.5 * (xi[1] + xj[1]), 0.5 * (xi[2] + xj[2])};
      check_gradient_at(s, p, mid, "edge midpoint", &worst);
    }
  }
  printf("  shape %d p %d: worst gradient error vs finite differences %.2e\n", (int)s, p, worst);
}

/* Closed forms of the low modes, from the definitions in basis.h. */
static void check_closed_forms(void) {
  const double x = 0.2, y = 0.3, z = 0.1;
  const double xi[3] = {x, y, z};
  double phi[MAX_MODES];
  basis_eval(DG_LINE, 2, xi, phi);
  TEST_CLOSE(phi[0], sqrt(0.5), 1e-15, "line mode 0");
  TEST_CLOSE(phi[1], sqrt(1.5) * x, 1e-15, "line mode 1");
  TEST_CLOSE(phi[2], sqrt(2.5) * 0.5 * (3 * x * x - 1), 1e-15, "line mode 2");
  basis_eval(DG_TRI, 1, xi, phi);
  TEST_CLOSE(phi[0], sqrt(2.0), 1e-15, "tri mode 0");
  TEST_CLOSE(phi[1], 2.0 * (3 * y - 1), 1e-15, "tri mode 1 (i=0, j=1)");
  TEST_CLOSE(phi[2], sqrt(12.0) * (2 * x + y - 1), 1e-15, "tri mode 2 (i=1, j=0)");
  basis_eval(DG_QUAD, 1, xi, phi);
  TEST_CLOSE(phi[0], 0.5, 1e-15, "quad mode 0");
  TEST_CLOSE(phi[1], 0.5 * sqrt(3.0) * x, 1e-15, "quad mode 1 (i=1, j=0)");
  TEST_CLOSE(phi[2], 0.5 * sqrt(3.0) * y, 1e-15, "quad mode 2 (i=0, j=1)");
  TEST_CLOSE(phi[3], 1.5 * x * y, 1e-15, "quad mode 3 (i=1, j=1)");
  basis_eval(DG_TET, 1, xi, phi);
  TEST_CLOSE(phi[0], sqrt(6.0), 1e-15, "tet mode 0");
  /* k = 1: sqrt(2*1*1*5) P_1^(2,0)(2z-1) = sqrt(10) (4z - 1) */
  TEST_CLOSE(phi[1], sqrt(10.0) * (4 * z - 1), 1e-14, "tet mode 1 (0,0,1)");
  /* j = 1: sqrt(2*1*2*5) (1-z)^1 P_1^(1,0)(2y/(1-z)-1) = sqrt(20) (3y + z - 1) */
  TEST_CLOSE(phi[2], sqrt(20.0) * (3 * y + z - 1), 1e-14, "tet mode 2 (0,1,0)");
  /* i = 1: sqrt(2*3*2*5) (2x + y + z - 1) */
  TEST_CLOSE(phi[3], sqrt(60.0) * (2 * x + y + z - 1), 1e-14, "tet mode 3 (1,0,0)");
}

int main(void) {
  for (int k = 0; k < 4; ++k) {
    const dg_shape s = shapes[k];
    for (int p = 0; p <= DG_BASIS_EVAL_MAX_P; ++p) {
      /* DG_MAX_P is the contract (1e-14); higher p is the host-side extra */
      check_orthonormal(s, p, DG_QUAD_COLLAPSED, p <= DG_MAX_P ? 1e-14 : 5e-14);
      check_orthonormal(s, p, DG_QUAD_SYMMETRIC, p <= DG_MAX_P ? 1e-14 : 5e-14);
      check_hierarchy(s, p);
      check_gradients(s, p);
    }
  }
  check_closed_forms();
  double phi[MAX_MODES], dphi[3 * MAX_MODES];
  const double xi[3] = {0.1, 0.1, 0.1};
  TEST_CHECK(basis_eval(DG_PRISM, 1, xi, phi) == 0, "prism is not supported");
  TEST_CHECK(basis_eval(DG_TRI, -1, xi, phi) == 0, "p = -1 is rejected");
  TEST_CHECK(basis_eval_grad(DG_TET, DG_BASIS_EVAL_MAX_P + 1, xi, phi, dphi) == 0,
             "p above DG_BASIS_EVAL_MAX_P is rejected");
  TEST_CHECK(DG_MAX_BASIS == basis_count(DG_TET, DG_MAX_P), "DG_MAX_BASIS");
  return test_finish("test_basis");
}
