/* Quadrature exactness: every shape and degree integrates every monomial of
 * its degree exactly, in both rule families; every rule of the symmetric
 * table is exact, positive, interior, sums to the reference measure and is
 * invariant under the symmetries of its shape; Gauss–Jacobi rules reproduce
 * Jacobi moments and the closed-form Gauss–Chebyshev and Gauss–Legendre
 * nodes. `test_quadrature --table` prints the point counts of the run's
 * rules instead (docs/PERFORMANCE.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dg_math.h"
#include "element/quadrature.h"
#include "element/quadrature_symmetric.h"
#include "mesh/geometry.h"
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

/* Every monomial of total degree <= degree (quads: per variable) against
 * its exact integral, relative to Σ w |f|; returns the worst ratio. */
static double check_monomials(const dg_quadrature *rule, int degree, const char *what) {
  const dg_shape s = rule->shape;
  const int dim = shape_dim(s);
  double worst = 0.0;
  for (int a = 0; a <= degree; ++a)
    for (int b = 0; b <= (dim >= 2 ? degree : 0); ++b)
      for (int c = 0; c <= (dim >= 3 ? degree : 0); ++c) {
        if (s != DG_QUAD && a + b + c > degree) continue;
        double scale;
        const double got = apply(rule, a, b, c, &scale);
        const double exact = exact_monomial(s, a, b, c);
        const double error = fabs(got - exact);
        if (error > worst * scale) worst = error / scale;
        TEST_CHECK(error <= 1e-13 * scale, "%s x^%d y^%d z^%d: %.17g vs exact %.17g", what, a, b, c,
                   got, exact);
      }
  return worst;
}

/* Point (x, y[, z]) with its barycentric coordinates permuted by perm:
 * λ = (1 - Σx, x, y[, z]), λ'_v = λ_perm[v], x'_d = λ'_{d+1}. */
static void permute_point(int dim, const int *perm, const double x[3], double out[3]) {
  double lam[4] = {1.0 - x[0] - x[1] - (dim == 3 ? x[2] : 0.0), x[0], x[1], x[2]};
  out[0] = out[1] = out[2] = 0.0;
  for (int d = 0; d < dim; ++d) out[d] = lam[perm[d + 1]];
}

/* The symmetric table: each rule as stored (not through the selection of
 * quadrature_rule_family, which may prefer the collapsed rule). */
static void check_symmetric_table(void) {
  int tri_max = 0, tet_max = 0;
  double worst = 0.0;
  for (int i = 0; i < quadrature_symmetric_n_rules; ++i) {
    const dg_quad_symmetric_rule *sym = &quadrature_symmetric_rules[i];
    const dg_shape s = sym->shape;
    const int dim = shape_dim(s);
    char what[64];
    snprintf(what, sizeof what, "symmetric %s degree %d", s == DG_TRI ? "tri" : "tet", sym->degree);
    TEST_CHECK((s == DG_TRI || s == DG_TET) && sym->degree >= 1 &&
                   sym->degree <= DG_MAX_QUAD_DEGREE && sym->n_orbits >= 1,
               "%s: bad table entry", what);
    if (s == DG_TRI && sym->degree > tri_max) tri_max = sym->degree;
    if (s == DG_TET && sym->degree > tet_max) tet_max = sym->degree;
    for (int j = 0; j < i; ++j)
      TEST_CHECK(quadrature_symmetric_rules[j].shape != s ||
                     quadrature_symmetric_rules[j].degree != sym->degree,
                 "%s: listed twice", what);
    /* expand the orbits; each has the size of its type, and the right shape */
    dg_quadrature rule = {.shape = s, .degree = sym->degree};
    rule.xi = calloc(3 * (size_t)sym->n_points, sizeof *rule.xi);
    rule.w = calloc((size_t)sym->n_points, sizeof *rule.w);
    int n = 0;
    for (int o = 0; o < sym->n_orbits; ++o) {
      const dg_quad_orbit *orbit = &sym->orbits[o];
      const int tri_orbit = orbit->type <= DG_ORBIT_S111;
      TEST_CHECK(tri_orbit == (s == DG_TRI), "%s orbit %d: type %d belongs to the other shape",
                 what, o, (int)orbit->type);
      const int size = quadrature_orbit_size(orbit->type);
      TEST_CHECK(n + size <= sym->n_points, "%s: orbits hold more than %d points", what,
                 sym->n_points);
      if (n + size > sym->n_points) break;
      const int got = quadrature_orbit_points(orbit, rule.xi + 3 * n);
      TEST_CHECK(got == size, "%s orbit %d: %d points, its type has %d", what, o, got, size);
      for (int k = 0; k < size; ++k) rule.w[n + k] = orbit->w;
      n += size;
    }
    TEST_CHECK(n == sym->n_points, "%s: orbits hold %d points, the table says %d", what, n,
               sym->n_points);
    rule.n_points = n;
    double sum = 0.0, min_gap = INFINITY;
    int bad_weights = 0, outside = 0;
    for (int q = 0; q < n; ++q) {
      sum += rule.w[q];
      bad_weights += !(rule.w[q] > 0.0);
      outside += !inside(s, rule.xi + 3 * q);
      for (int r = 0; r < q; ++r) {
        double d2 = 0.0;
        for (int d = 0; d < 3; ++d)
          d2 +=
              (rule.xi[3 * q + d] - rule.xi[3 * r + d]) * (rule.xi[3 * q + d] - rule.xi[3 * r + d]);
        if (sqrt(d2) < min_gap) min_gap = sqrt(d2);
      }
    }
    TEST_CHECK(bad_weights == 0 && outside == 0, "%s: %d non-positive weights, %d points outside",
               what, bad_weights, outside);
    TEST_CHECK(n == 1 || min_gap > 1e-6, "%s: two points %.3g apart", what, min_gap);
    TEST_CLOSE(sum, shape_ref_measure(s), 1e-15, what);
    const double w = check_monomials(&rule, sym->degree, what);
    if (w > worst) worst = w;
    /* the degree is no better than claimed up to degree + 2, so the
     * exactness checks above could fail on a damaged table */
    int missed = 0;
    for (int a = 0; a <= sym->degree + 2 && !missed; ++a)
      for (int b = 0; a + b <= sym->degree + 2 && !missed; ++b)
        for (int c = 0; a + b + c <= sym->degree + 2 && c <= (dim == 3 ? a + b + c : 0); ++c) {
          if (a + b + c <= sym->degree) continue;
          double scale;
          missed |= fabs(apply(&rule, a, b, c, &scale) - exact_monomial(s, a, b, c)) > 1e-9 * scale;
        }
    TEST_CHECK(missed, "%s: exact to degree %d as well; the table should say so", what,
               sym->degree + 2);
    /* invariant under every vertex permutation: each image is a point of
     * the rule with the same weight */
    int perms = 0, unmatched = 0;
    for (int p0 = 0; p0 <= dim; ++p0)
      for (int p1 = 0; p1 <= dim; ++p1)
        for (int p2 = 0; p2 <= dim; ++p2)
          for (int p3 = 0; p3 <= (dim == 3 ? 3 : 0); ++p3) {
            const int perm[4] = {p0, p1, p2, p3};
            if (p0 == p1 || p0 == p2 || p1 == p2) continue;
            if (dim == 3 && (p3 == p0 || p3 == p1 || p3 == p2)) continue;
            ++perms;
            for (int q = 0; q < n; ++q) {
              double image[3];
              permute_point(dim, perm, rule.xi + 3 * q, image);
              int found = 0;
              for (int r = 0; r < n && !found; ++r)
                found = fabs(image[0] - rule.xi[3 * r]) + fabs(image[1] - rule.xi[3 * r + 1]) +
                                fabs(image[2] - rule.xi[3 * r + 2]) <=
                            1e-14 &&
                        fabs(rule.w[r] - rule.w[q]) <= 1e-15 * rule.w[q];
              unmatched += !found;
            }
          }
    TEST_CHECK(perms == (dim == 2 ? 6 : 24), "%s: %d permutations", what, perms);
    TEST_CHECK(unmatched == 0,
               "%s: %d images of points under the shape's symmetries are not "
               "points of the rule",
               what, unmatched);
    printf("  %s: %d points, %d orbits, worst relative monomial error %.2e\n", what, n,
           sym->n_orbits, w);
    free(rule.xi);
    free(rule.w);
  }
  printf("  symmetric table: triangles to degree %d, tetrahedra to degree %d, worst %.2e\n",
         tri_max, tet_max, worst);
  TEST_CHECK(tri_max >= 12 && tet_max >= 11,
             "symmetric table covers triangles to degree %d, tetrahedra to %d (expected >= 12, "
             ">= 11)",
             tri_max, tet_max);
}

/* quadrature_rule_family with the symmetric family: exact, positive and
 * interior at every degree; never more points than the collapsed rule;
 * symmetric exactly where the table has a rule that is not dearer; lines
 * and quads the collapsed rules bit for bit. */
static void check_symmetric_family(dg_shape s) {
  for (int degree = 0; degree <= DG_MAX_QUAD_DEGREE; ++degree) {
    dg_quadrature sym = {0}, col = {0};
    TEST_OK(quadrature_rule_family(s, degree, DG_QUAD_SYMMETRIC, &sym));
    TEST_OK(quadrature_rule_family(s, degree, DG_QUAD_COLLAPSED, &col));
    if (!sym.n_points || !col.n_points) continue;
    char what[64];
    snprintf(what, sizeof what, "family symmetric shape %d degree %d", (int)s, degree);
    TEST_CHECK(sym.shape == s && sym.degree == degree && col.family == DG_QUAD_COLLAPSED,
               "%s: shape %d degree %d", what, (int)sym.shape, sym.degree);
    TEST_CHECK(sym.n_points <= col.n_points, "%s: %d points, collapsed %d", what, sym.n_points,
               col.n_points);
    const dg_quad_symmetric_rule *t = quadrature_symmetric_find(s, degree);
    const int expect_symmetric = (s == DG_TRI || s == DG_TET) && t && t->n_points <= col.n_points;
    TEST_CHECK(sym.family == (expect_symmetric ? DG_QUAD_SYMMETRIC : DG_QUAD_COLLAPSED),
               "%s: built %s", what, quadrature_family_name(sym.family));
    if (expect_symmetric)
      TEST_CHECK(sym.n_points == t->n_points && t->degree >= degree,
                 "%s: %d points, the table's rule of degree %d has %d", what, sym.n_points,
                 t->degree, t->n_points);
    if (!expect_symmetric)
      TEST_CHECK(sym.n_points == col.n_points &&
                     !memcmp(sym.xi, col.xi, 3 * (size_t)col.n_points * sizeof *col.xi) &&
                     !memcmp(sym.w, col.w, (size_t)col.n_points * sizeof *col.w),
                 "%s: not the collapsed rule", what);
    int bad_weights = 0, outside = 0;
    for (int q = 0; q < sym.n_points; ++q) {
      bad_weights += !(sym.w[q] > 0.0);
      outside += !inside(s, sym.xi + 3 * q);
    }
    TEST_CHECK(bad_weights == 0 && outside == 0, "%s: %d non-positive weights, %d points outside",
               what, bad_weights, outside);
    check_monomials(&sym, degree, what);
    quadrature_free(&sym);
    quadrature_free(&col);
  }
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

/* --table: the points per element of `colordg run`'s rules (volume degree
 * 2p + 1 + dim (q - 1); face degree 2p + 1 + (dim - 1)(q - 1) with
 * [discretization] face_rule = mesh, geometry_face_degree's reduced one
 * with the default face_rule = reduced) on triangles and tetrahedra, both
 * families, as the Markdown table of docs/PERFORMANCE.md ("Symmetric
 * quadrature rules", with the last two columns added). */
static int print_table(void) {
  printf("| shape | q | p | volume degree | volume points collapsed | symmetric | ratio | face "
         "degree | face points collapsed | symmetric | ratio | reduced face degree | symmetric "
         "points |\n");
  printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  const dg_shape shapes[2] = {DG_TRI, DG_TET};
  for (int k = 0; k < 2; ++k)
    for (int q = 1; q <= 3; ++q)
      for (int p = 0; p <= 3; ++p) {
        const dg_shape s = shapes[k], fs = shape_face_shape(s, 0);
        const int dim = shape_dim(s);
        const int vd = geometry_volume_degree(p, dim, q, 0),
                  fd = geometry_face_degree(p, dim, q, 0);
        const int rd = geometry_face_degree(p, dim, q, 1);
        int n[2][2] = {{0, 0}, {0, 0}}, nr = 0;
        for (int f = 0; f < 2; ++f) {
          dg_quadrature vol = {0}, face = {0};
          if (quadrature_rule_family(s, vd, (dg_quad_family)f, &vol) != DG_SUCCESS ||
              quadrature_rule_family(fs, fd, (dg_quad_family)f, &face) != DG_SUCCESS)
            return 1;
          n[f][0] = vol.n_points;
          n[f][1] = face.n_points;
          quadrature_free(&vol);
          quadrature_free(&face);
        }
        dg_quadrature red = {0};
        if (quadrature_rule_family(fs, rd, DG_QUAD_SYMMETRIC, &red) != DG_SUCCESS) return 1;
        nr = red.n_points;
        quadrature_free(&red);
        printf("| %s | %d | %d | %d | %d | %d | %.2f | %d | %d | %d | %.2f | %d | %d |\n",
               s == DG_TRI ? "tri" : "tet", q, p, vd, n[0][0], n[1][0], (double)n[0][0] / n[1][0],
               fd, n[0][1], n[1][1], (double)n[0][1] / n[1][1], rd, nr);
      }
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--table")) return print_table();
  const dg_shape shapes[] = {DG_LINE, DG_QUAD, DG_TRI, DG_TET};
  for (int i = 0; i < 4; ++i) check_shape(shapes[i]);
  check_symmetric_table();
  for (int i = 0; i < 4; ++i) check_symmetric_family(shapes[i]);

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
  TEST_FAILS(quadrature_rule_family(DG_TET, 4, (dg_quad_family)7, &rule), DG_ERR_ARG,
             "quadrature family 7");
  TEST_FAILS(quadrature_rule_family(DG_TRI, 22, DG_QUAD_SYMMETRIC, &rule), DG_ERR_ARG, "degree 22");
  TEST_FAILS(quadrature_gauss_jacobi(0, 0, 0, x3, w3), DG_ERR_ARG, "n = 0");
  TEST_FAILS(quadrature_gauss_jacobi(2, -1.0, 0, x3, w3), DG_ERR_ARG, "alpha, beta > -1");
  quadrature_free(&rule);
  quadrature_free(NULL);
  return test_finish("test_quadrature");
}
