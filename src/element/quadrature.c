#include "element/quadrature.h"

#include <math.h>
#include <stdlib.h>

#include "element/quadrature_symmetric.h"

/* Recurrence coefficients of the orthonormal Jacobi polynomials for weight
 * (1-x)^alpha (1+x)^beta: x p_k = b[k+1] p_{k+1} + a[k] p_k + b[k] p_{k-1},
 * a[0..n-1], b[1..n] (b[0] unused). The k = 1 term has its (1+alpha+beta)
 * factor cancelled by hand so that alpha + beta = -1 stays finite. */
static void quadrature_jacobi_recurrence(int n, double alpha, double beta, double *a, double *b) {
  const double ab = alpha + beta;
  for (int k = 0; k < n; ++k) {
    const double s = 2.0 * k + ab;
    a[k] = k == 0 ? (beta - alpha) / (ab + 2.0) : (beta * beta - alpha * alpha) / (s * (s + 2.0));
  }
  b[0] = 0.0;
  for (int k = 1; k <= n; ++k) {
    const double s = 2.0 * k + ab;
    const double b2 =
        k == 1 ? 4.0 * (1.0 + alpha) * (1.0 + beta) / ((ab + 2.0) * (ab + 2.0) * (ab + 3.0))
               : 4.0 * k * (k + alpha) * (k + beta) * (k + ab) / (s * s * (s + 1.0) * (s - 1.0));
    b[k] = sqrt(b2);
  }
}

/* Eigenvalues of the symmetric tridiagonal matrix with diagonal d[0..n-1]
 * and off-diagonal e[1..n-1] (e[0] unused) by the QL algorithm with
 * implicit Wilkinson shifts. d is overwritten with the eigenvalues
 * (unordered), e is destroyed. */
static dg_status quadrature_tridiagonal_eigenvalues(int n, double *d, double *e) {
  for (int i = 1; i < n; ++i) e[i - 1] = e[i];
  e[n - 1] = 0.0;
  for (int l = 0; l < n; ++l) {
    int iterations = 0;
    int m;
    do {
      for (m = l; m < n - 1; ++m) {
        const double dd = fabs(d[m]) + fabs(d[m + 1]);
        if (fabs(e[m]) <= 1e-300 + 0.5 * 2.220446049250313e-16 * dd) break;
      }
      if (m != l) {
        DG_CHECK(++iterations <= 60, DG_ERR_INTERNAL,
                 "tridiagonal QL did not converge for eigenvalue %d of %d", l, n);
        double g = (d[l + 1] - d[l]) / (2.0 * e[l]);
        double r = hypot(g, 1.0);
        g = d[m] - d[l] + e[l] / (g + (g >= 0.0 ? fabs(r) : -fabs(r)));
        double s = 1.0, c = 1.0, p = 0.0;
        int i;
        for (i = m - 1; i >= l; --i) {
          double f = s * e[i];
          const double bb = c * e[i];
          r = hypot(f, g);
          e[i + 1] = r;
          if (r == 0.0) {
            d[i + 1] -= p;
            e[m] = 0.0;
            break;
          }
          s = f / r;
          c = g / r;
          g = d[i + 1] - p;
          r = (d[i] - g) * s + 2.0 * c * bb;
          p = s * r;
          d[i + 1] = g + p;
          g = c * r - bb;
        }
        if (r == 0.0 && i >= l) continue;
        d[l] -= p;
        e[l] = g;
        e[m] = 0.0;
      }
    } while (m != l);
  }
  return DG_SUCCESS;
}

static int quadrature_compare_double(const void *pa, const void *pb) {
  const double x = *(const double *)pa, y = *(const double *)pb;
  return (x > y) - (x < y);
}

dg_status quadrature_gauss_jacobi(int n, double alpha, double beta, double *x, double *w) {
  DG_CHECK(n >= 1, DG_ERR_ARG, "Gauss-Jacobi rule needs at least 1 point (got n = %d)", n);
  DG_CHECK(alpha > -1.0 && beta > -1.0, DG_ERR_ARG,
           "Gauss-Jacobi weight (1-x)^alpha (1+x)^beta needs alpha, beta > -1 (got %g, %g)", alpha,
           beta);
  DG_CHECK(x && w, DG_ERR_ARG, "Gauss-Jacobi output arrays must not be NULL");
  double *a = NULL, *b = NULL, *e = NULL;
  dg_status status = DG_SUCCESS;
  DG_CALL_GOTO(status, done, DG_CALLOC(a, n));
  DG_CALL_GOTO(status, done, DG_CALLOC(b, n + 1));
  DG_CALL_GOTO(status, done, DG_CALLOC(e, n));
  quadrature_jacobi_recurrence(n, alpha, beta, a, b);

  /* Golub–Welsch: the nodes are the eigenvalues of the Jacobi matrix. */
  for (int i = 0; i < n; ++i) {
    x[i] = a[i];
    e[i] = b[i];
  }
  DG_CALL_GOTO(status, done, quadrature_tridiagonal_eigenvalues(n, x, e));
  qsort(x, (size_t)n, sizeof *x, quadrature_compare_double);

  /* mu0 = ∫ (1-x)^alpha (1+x)^beta dx; p_0 = 1/sqrt(mu0). */
  const double mu0 = pow(2.0, alpha + beta + 1.0) * tgamma(alpha + 1.0) * tgamma(beta + 1.0) /
                     tgamma(alpha + beta + 2.0);
  for (int i = 0; i < n; ++i) {
    /* Newton on the orthonormal p_n polishes the eigenvalue to full
     * precision; the Christoffel sum 1/Σ p_k² then gives the weight from
     * positive terms only, which keeps it accurate to a few ulps. */
    for (int iteration = 0; iteration < 3; ++iteration) {
      double p_prev = 0.0, p = 1.0 / sqrt(mu0), dp_prev = 0.0, dp = 0.0;
      for (int k = 0; k < n; ++k) {
        const double p_next = ((x[i] - a[k]) * p - b[k] * p_prev) / b[k + 1];
        const double dp_next = (p + (x[i] - a[k]) * dp - b[k] * dp_prev) / b[k + 1];
        p_prev = p;
        p = p_next;
        dp_prev = dp;
        dp = dp_next;
      }
      const double step = p / dp;
      x[i] -= step;
      if (fabs(step) <= 1e-17) break;
    }
    double p_prev = 0.0, p = 1.0 / sqrt(mu0), sum = 0.0;
    for (int k = 0; k < n; ++k) {
      sum += p * p;
      if (k + 1 < n) {
        const double p_next = ((x[i] - a[k]) * p - b[k] * p_prev) / b[k + 1];
        p_prev = p;
        p = p_next;
      }
    }
    w[i] = 1.0 / sum;
  }
done:
  DG_FREE(a);
  DG_FREE(b);
  DG_FREE(e);
  return status;
}

/* The collapsed (tensor Gauss, Duffy on simplices) rule; rule's shape and
 * degree are set, its arrays empty. */
static dg_status quadrature_rule_collapsed(dg_shape shape, int degree, dg_quadrature *rule) {
  /* n Gauss points per direction are exact to degree 2n-1 >= degree. On
   * simplices the Duffy factors (1-b), (1-c)^2 go into the Jacobi weights,
   * so the collapsed integrand stays a polynomial of degree <= degree per
   * direction. */
  const int n = degree / 2 + 1;
  const int dim = shape_dim(shape);
  int n_points = n;
  for (int d = 1; d < dim; ++d) n_points *= n;

  double ga[DG_MAX_QUAD_DEGREE / 2 + 1], wa[DG_MAX_QUAD_DEGREE / 2 + 1];
  double gb[DG_MAX_QUAD_DEGREE / 2 + 1], wb[DG_MAX_QUAD_DEGREE / 2 + 1];
  double gc[DG_MAX_QUAD_DEGREE / 2 + 1], wc[DG_MAX_QUAD_DEGREE / 2 + 1];
  DG_CALL(quadrature_gauss_jacobi(n, 0.0, 0.0, ga, wa));
  const int simplex = shape == DG_TRI || shape == DG_TET;
  if (dim >= 2) DG_CALL(quadrature_gauss_jacobi(n, simplex ? 1.0 : 0.0, 0.0, gb, wb));
  if (dim >= 3) DG_CALL(quadrature_gauss_jacobi(n, 2.0, 0.0, gc, wc));

  dg_status status = DG_SUCCESS;
  DG_CALL_GOTO(status, fail, DG_CALLOC(rule->xi, 3 * n_points));
  DG_CALL_GOTO(status, fail, DG_CALLOC(rule->w, n_points));
  rule->n_points = n_points;
  int q = 0;
  switch (shape) {
  case DG_LINE:
    for (int i = 0; i < n; ++i, ++q) {
      rule->xi[3 * q] = ga[i];
      rule->w[q] = wa[i];
    }
    break;
  case DG_QUAD:
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i, ++q) {
        rule->xi[3 * q] = ga[i];
        rule->xi[3 * q + 1] = gb[j];
        rule->w[q] = wa[i] * wb[j];
      }
    break;
  case DG_TRI:
    /* y = (1+b)/2, x = (1+a)/2 (1-y); dx dy = (1-b)/8 da db */
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i, ++q) {
        const double y = 0.5 * (1.0 + gb[j]);
        rule->xi[3 * q] = 0.5 * (1.0 + ga[i]) * (1.0 - y);
        rule->xi[3 * q + 1] = y;
        rule->w[q] = wa[i] * wb[j] / 8.0;
      }
    break;
  default: /* DG_TET */
    /* z = (1+c)/2, y = (1+b)/2 (1-z), x = (1+a)/2 (1-y-z);
     * dx dy dz = (1-b)(1-c)^2/64 da db dc */
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i, ++q) {
          const double z = 0.5 * (1.0 + gc[k]);
          const double y = 0.5 * (1.0 + gb[j]) * (1.0 - z);
          rule->xi[3 * q] = 0.5 * (1.0 + ga[i]) * (1.0 - y - z);
          rule->xi[3 * q + 1] = y;
          rule->xi[3 * q + 2] = z;
          rule->w[q] = wa[i] * wb[j] * wc[k] / 64.0;
        }
    break;
  }
  return DG_SUCCESS;
fail:
  quadrature_free(rule);
  return status;
}

int quadrature_orbit_size(dg_quad_orbit_type t) {
  static const int size[] = {1, 3, 6, 1, 4, 6, 12, 24};
  return (int)t >= 0 && (int)t < (int)(sizeof size / sizeof size[0]) ? size[t] : 0;
}

int quadrature_orbit_points(const dg_quad_orbit *orbit, double *xi) {
  const double a = orbit->prm[0], b = orbit->prm[1], c = orbit->prm[2];
  /* the tuple and, for each entry, which value it is (equal labels, equal
   * values): a permutation is new when its label sequence is */
  double value[4] = {0, 0, 0, 0};
  int label[4] = {0, 1, 2, 3};
  int n = 4; /* tuple length: dim + 1 */
  switch (orbit->type) {
  case DG_ORBIT_S3:
    n = 3;
    value[0] = value[1] = value[2] = 1.0 / 3.0;
    label[1] = label[2] = 0;
    break;
  case DG_ORBIT_S21:
    n = 3;
    value[0] = value[1] = a;
    value[2] = 1.0 - 2.0 * a;
    label[1] = 0;
    break;
  case DG_ORBIT_S111:
    n = 3;
    value[0] = a;
    value[1] = b;
    value[2] = 1.0 - a - b;
    break;
  case DG_ORBIT_S4:
    value[0] = value[1] = value[2] = value[3] = 0.25;
    label[1] = label[2] = label[3] = 0;
    break;
  case DG_ORBIT_S31:
    value[0] = value[1] = value[2] = a;
    value[3] = 1.0 - 3.0 * a;
    label[1] = label[2] = 0;
    break;
  case DG_ORBIT_S22:
    value[0] = value[1] = a;
    value[2] = value[3] = 0.5 - a;
    label[1] = 0;
    label[3] = 2;
    break;
  case DG_ORBIT_S211:
    value[0] = value[1] = a;
    value[2] = b;
    value[3] = 1.0 - 2.0 * a - b;
    label[1] = 0;
    break;
  default: /* DG_ORBIT_S1111 */
    value[0] = a;
    value[1] = b;
    value[2] = c;
    value[3] = 1.0 - a - b - c;
    break;
  }
  /* permutations in lexicographic order of the position sequence */
  int seen[24][4];
  int count = 0;
  for (int p0 = 0; p0 < n; ++p0)
    for (int p1 = 0; p1 < n; ++p1)
      for (int p2 = 0; p2 < n; ++p2)
        for (int p3 = 0; p3 < (n == 4 ? n : 1); ++p3) {
          const int perm[4] = {p0, p1, p2, n == 4 ? p3 : 0};
          if (p0 == p1 || p0 == p2 || p1 == p2) continue;
          if (n == 4 && (p3 == p0 || p3 == p1 || p3 == p2)) continue;
          int is_new = 1;
          for (int q = 0; q < count && is_new; ++q) {
            int same = 1;
            for (int v = 0; v < n; ++v) same &= seen[q][v] == label[perm[v]];
            is_new = !same;
          }
          if (!is_new) continue;
          for (int v = 0; v < n; ++v) seen[count][v] = label[perm[v]];
          /* vertex v + 1 of the reference shape is e_v: ξ_v = λ_{v+1} */
          for (int d = 0; d < 3; ++d) xi[3 * count + d] = d + 1 < n ? value[perm[d + 1]] : 0.0;
          ++count;
        }
  return count;
}

const dg_quad_symmetric_rule *quadrature_symmetric_find(dg_shape shape, int degree) {
  const dg_quad_symmetric_rule *best = NULL;
  for (int i = 0; i < quadrature_symmetric_n_rules; ++i) {
    const dg_quad_symmetric_rule *r = &quadrature_symmetric_rules[i];
    if (r->shape != shape || r->degree < degree) continue;
    if (!best || r->n_points < best->n_points ||
        (r->n_points == best->n_points && r->degree > best->degree))
      best = r;
  }
  return best;
}

/* Expands a symmetric rule's orbits into rule's points and weights. */
static dg_status quadrature_rule_symmetric(const dg_quad_symmetric_rule *sym, dg_quadrature *rule) {
  int total = 0;
  for (int o = 0; o < sym->n_orbits; ++o) total += quadrature_orbit_size(sym->orbits[o].type);
  DG_CHECK(total == sym->n_points && total > 0, DG_ERR_INTERNAL,
           "symmetric %s rule of degree %d: its orbits hold %d points, the table says %d",
           sym->shape == DG_TRI ? "triangle" : "tetrahedron", sym->degree, total, sym->n_points);
  dg_status status = DG_SUCCESS;
  DG_CALL_GOTO(status, fail, DG_CALLOC(rule->xi, 3 * total));
  DG_CALL_GOTO(status, fail, DG_CALLOC(rule->w, total));
  int q = 0;
  for (int o = 0; o < sym->n_orbits; ++o) {
    const int n = quadrature_orbit_points(&sym->orbits[o], rule->xi + 3 * q);
    for (int k = 0; k < n; ++k) rule->w[q + k] = sym->orbits[o].w;
    q += n;
  }
  rule->n_points = total;
  rule->family = DG_QUAD_SYMMETRIC;
  return DG_SUCCESS;
fail:
  quadrature_free(rule);
  return status;
}

dg_status quadrature_rule_family(dg_shape shape, int degree, dg_quad_family family,
                                 dg_quadrature *rule) {
  DG_CHECK(rule, DG_ERR_ARG, "quadrature_rule: rule must not be NULL");
  DG_CHECK(degree >= 0 && degree <= DG_MAX_QUAD_DEGREE, DG_ERR_ARG,
           "quadrature degree %d is outside the supported range 0..%d", degree, DG_MAX_QUAD_DEGREE);
  DG_CHECK(shape == DG_LINE || shape == DG_TRI || shape == DG_QUAD || shape == DG_TET,
           DG_ERR_UNSUPPORTED,
           "no quadrature rule for element shape %d (line, tri, quad, tet only)", (int)shape);
  DG_CHECK(family == DG_QUAD_COLLAPSED || family == DG_QUAD_SYMMETRIC, DG_ERR_ARG,
           "quadrature family %d is not collapsed (%d) or symmetric (%d)", (int)family,
           (int)DG_QUAD_COLLAPSED, (int)DG_QUAD_SYMMETRIC);
  rule->shape = shape;
  rule->family = DG_QUAD_COLLAPSED;
  rule->degree = degree;
  rule->n_points = 0;
  rule->xi = NULL;
  rule->w = NULL;
  if (family == DG_QUAD_SYMMETRIC && (shape == DG_TRI || shape == DG_TET)) {
    const dg_quad_symmetric_rule *sym = quadrature_symmetric_find(shape, degree);
    const int n = degree / 2 + 1;
    const int n_collapsed = shape == DG_TRI ? n * n : n * n * n;
    if (sym && sym->n_points <= n_collapsed) return quadrature_rule_symmetric(sym, rule);
  }
  return quadrature_rule_collapsed(shape, degree, rule);
}

dg_status quadrature_rule(dg_shape shape, int degree, dg_quadrature *rule) {
  return quadrature_rule_family(shape, degree, DG_QUAD_COLLAPSED, rule);
}

const char *quadrature_family_name(dg_quad_family family) {
  switch (family) {
  case DG_QUAD_COLLAPSED: return "collapsed";
  case DG_QUAD_SYMMETRIC: return "symmetric";
  default: return "?";
  }
}

void quadrature_free(dg_quadrature *rule) {
  if (!rule) return;
  DG_FREE(rule->xi);
  DG_FREE(rule->w);
  rule->n_points = 0;
}
