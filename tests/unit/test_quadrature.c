/* Quadrature exactness: every shape and degree integrates every monomial of
 * its degree exactly; Gauss–Jacobi rules reproduce Jacobi moments and the
 * closed-form Gauss–Chebyshev and Gauss–Legendre nodes. */
#include <math.h>
#include <stdlib.h>

#include "core/dg_math.h"
#include "element/quadrature.h"
#include "test_util.h"

/* ∫_{-1}^{1} x^a dx */
static double line_monomial(int a) { return a % 2 ? 0.0 : 2.0 / (a + 1); }

/* a! b! c! / (a + b + c + extra)! as a product of ratios (no overflow). */
static double factorial_ratio(int a, int b, int c, int extra) {
  double value = 1.0;
  int top[3] = {a, b, c};
  int n = a + b + c + extra;
  /* divide by n!, multiply by a! b! c!: cancel the largest factorial first */
  int k = 0;
  for (int i = 1; i < 3; ++i)
    if (top[i] > top[k]) k = i;
  for (int m = top[k] + 1; m <= n; ++m) value /= m;
  for (int i = 0; i < 3; ++i)
    if (i != k)
      for (int m = 2; m <= top[i]; ++m) value *= m;
  return value;
}

/* Exact ∫_ref x^a y^b z^c over the reference shape. */
static double exact_monomial(dg_shape s, int a, int b, int c) {
  switch (s) {
  case DG_LINE: return b || c ? 0.0 : line_monomial(a);
  case DG_QUAD: return c ? 0.0 : line_monomial(a) * line_monomial(b);
  case DG_TRI: return c ? 0.0 : factorial_ratio(a, b, 0, 2);
  default: return factorial_ratio(a, b, c, 3);
  }
}

/* Applies the rule to x^a y^b z^c; *scale gets Σ w |f| (the natural size of
 * the rounding error, so the tolerance is relative even when ∫ f = 0). */
static double apply(const dg_quadrature *rule, int a, int b, int c, double *scale) {
  double sum = 0.0, abs_sum = 0.0;
  for (int q = 0; q < rule->n_points; ++q) {
    const double *x = rule->xi + 3 * q;
    const double f = pow(x[0], a) * pow(x[1], b) * pow(x[2], c);
    sum += rule->w[q] * f;
    abs_sum += rule->w[q] * fabs(f);
  }
  *scale = abs_sum;
  return sum;
}

static int inside(dg_shape s, const double x[3]) {
  switch (s) {
  case DG_LINE: return x[0] > -1 && x[0] < 1 && x[1] == 0 && x[2] == 0;
  case DG_QUAD: return fabs(x[0]) < 1 && fabs(x[1]) < 1 && x[2] == 0;
  case DG_TRI: return x[0] > 0 && x[1] > 0 && x[0] + x[1] < 1 && x[2] == 0;
  default: return x[0] > 0 && x[1] > 0 && x[2] > 0 && x[0] + x[1] + x[2] < 1;
  }
}

static void check_shape(dg_shape s) {
  const int dim = shape_dim(s);
  double worst = 0.0;
  for (int degree = 0; degree <= DG_MAX_QUAD_DEGREE; ++degree) {
    dg_quadrature rule = {0};
    TEST_OK(quadrature_rule(s, degree, &rule));
    if (!rule.n_points) continue;
    const int n = degree / 2 + 1;
    TEST_CHECK(
        rule.n_points == (int)lround(pow(n, dim)) && rule.shape == s && rule.degree == degree,
        "shape %d degree %d: %d points, expected %d^%d", (int)s, degree, rule.n_points, n, dim);
    int bad_weights = 0, outside = 0;
    for (int q = 0; q < rule.n_points; ++q) {
      bad_weights += !(rule.w[q] > 0.0);
      outside += !inside(s, rule.xi + 3 * q);
    }
    TEST_CHECK(bad_weights == 0 && outside == 0,
               "shape %d degree %d: %d non-positive weights, %d points outside", (int)s, degree,
               bad_weights, outside);
    for (int a = 0; a <= degree; ++a)
      for (int b = 0; b <= (dim >= 2 ? degree : 0); ++b)
        for (int c = 0; c <= (dim >= 3 ? degree : 0); ++c) {
          /* simplices and lines: total degree; quads: degree per variable */
          if (s != DG_QUAD && a + b + c > degree) continue;
          double scale;
          const double got = apply(&rule, a, b, c, &scale);
          const double exact = exact_monomial(s, a, b, c);
          const double error = fabs(got - exact);
          if (error > worst * scale) worst = error / scale;
          TEST_CHECK(error <= 1e-13 * scale,
                     "shape %d degree %d x^%d y^%d z^%d: %.17g vs exact %.17g", (int)s, degree, a,
                     b, c, got, exact);
        }
    /* the rule is no better than claimed: n Gauss points miss t^(2n) in the
     * last collapsed direction (t = x on lines and quads, 2y-1 on
     * triangles, 2z-1 on tetrahedra), so the exactness checks can fail */
    double miss = 0.0;
    for (int q = 0; q < rule.n_points; ++q) {
      const double *x = rule.xi + 3 * q;
      const double t = s == DG_TRI ? 2 * x[1] - 1 : s == DG_TET ? 2 * x[2] - 1 : x[0];
      miss += rule.w[q] * pow(t, 2 * n);
    }
    const double t_exact = s == DG_LINE   ? 2.0 / (2 * n + 1)
                           : s == DG_QUAD ? 4.0 / (2 * n + 1)
                           : s == DG_TRI  ? 1.0 / (2.0 * (2 * n + 1))
                                          : (2.0 / (2 * n + 1) + 2.0 / (2 * n + 3)) / 16.0;
    TEST_CHECK(fabs(miss - t_exact) > 1e-9 * t_exact,
               "shape %d degree %d integrates t^%d exactly: the exactness test cannot fail", (int)s,
               degree, 2 * n);
    quadrature_free(&rule);
    TEST_CHECK(rule.xi == NULL && rule.w == NULL && rule.n_points == 0, "quadrature_free");
  }
  printf("  shape %d: worst relative monomial error %.2e\n", (int)s, worst);
}

/* Moments ∫ (1+x)^k (1-x)^alpha (1+x)^beta = 2^(k+alpha+beta+1) B(k+beta+1, alpha+1). */
static void check_gauss_jacobi(double alpha, double beta) {
  for (int n = 1; n <= 15; ++n) {
    double x[15], w[15];
    TEST_OK(quadrature_gauss_jacobi(n, alpha, beta, x, w));
    for (int i = 0; i < n; ++i) {
      TEST_CHECK(x[i] > -1.0 && x[i] < 1.0 && w[i] > 0.0, "GJ(%g,%g) n %d node %d: %g %g", alpha,
                 beta, n, i, x[i], w[i]);
      if (i) TEST_CHECK(x[i] > x[i - 1], "GJ(%g,%g) n %d: nodes not ascending", alpha, beta, n);
    }
    /* M_0 from Gamma at small arguments, then M_k = M_(k-1) 2(k+beta)/(k+alpha+beta+1)
     * (products of Gamma at large arguments lose digits) */
    double exact = pow(2.0, alpha + beta + 1) * tgamma(alpha + 1) * tgamma(beta + 1) /
                   tgamma(alpha + beta + 2);
    for (int k = 0; k <= 2 * n - 1; ++k) {
      if (k) exact *= 2.0 * (k + beta) / (k + alpha + beta + 1);
      double sum = 0.0;
      for (int i = 0; i < n; ++i) sum += w[i] * pow(1.0 + x[i], k);
      TEST_CHECK(fabs(sum - exact) <= 2e-14 * exact, "GJ(%g,%g) n %d moment %d: %.17g vs %.17g",
                 alpha, beta, n, k, sum, exact);
    }
  }
}

int main(void) {
  const dg_shape shapes[] = {DG_LINE, DG_QUAD, DG_TRI, DG_TET};
  for (int i = 0; i < 4; ++i) check_shape(shapes[i]);

  const double pairs[][2] = {{0, 0}, {1, 0}, {2, 0}, {0.5, -0.5}, {3, 1.5}, {-0.5, -0.5}};
  for (int i = 0; i < 6; ++i) check_gauss_jacobi(pairs[i][0], pairs[i][1]);

  /* closed forms: Gauss–Chebyshev (alpha = beta = -1/2) and 3-point Legendre */
  for (int n = 1; n <= 11; ++n) {
    double x[11], w[11];
    TEST_OK(quadrature_gauss_jacobi(n, -0.5, -0.5, x, w));
    for (int i = 0; i < n; ++i) {
      const double node = -cos((2.0 * i + 1.0) * DG_PI / (2.0 * n));
      TEST_CLOSE(x[i], node, 1e-15, "Gauss-Chebyshev node");
      TEST_CLOSE(w[i], DG_PI / n, 4e-15, "Gauss-Chebyshev weight");
    }
  }
  double x3[3], w3[3];
  TEST_OK(quadrature_gauss_jacobi(3, 0, 0, x3, w3));
  TEST_CLOSE(x3[0], -sqrt(0.6), 1e-16, "Gauss-Legendre 3 node 0");
  TEST_CLOSE(x3[1], 0.0, 1e-16, "Gauss-Legendre 3 node 1");
  TEST_CLOSE(w3[0], 5.0 / 9.0, 4e-16, "Gauss-Legendre 3 weight 0");
  TEST_CLOSE(w3[1], 8.0 / 9.0, 4e-16, "Gauss-Legendre 3 weight 1");

  /* bad requests fail with a message that names the problem */
  dg_quadrature rule = {0};
  TEST_FAILS(quadrature_rule(DG_TRI, DG_MAX_QUAD_DEGREE + 1, &rule), DG_ERR_ARG, "degree 22");
  TEST_FAILS(quadrature_rule(DG_LINE, -1, &rule), DG_ERR_ARG, "degree -1");
  TEST_FAILS(quadrature_rule(DG_PRISM, 2, &rule), DG_ERR_UNSUPPORTED, "shape 4");
  TEST_FAILS(quadrature_gauss_jacobi(0, 0, 0, x3, w3), DG_ERR_ARG, "n = 0");
  TEST_FAILS(quadrature_gauss_jacobi(2, -1.0, 0, x3, w3), DG_ERR_ARG, "alpha, beta > -1");
  quadrature_free(&rule);
  quadrature_free(NULL);
  return test_finish("test_quadrature");
}
