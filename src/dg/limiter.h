#pragma once
/* Positivity guard: a Zhang–Shu scaling limiter on one element
 * (docs/NUMERICS-av.md, "Positivity guard"). One source for the CPU loop
 * (backend_cpu.c) and the CUDA kernel (backend_cuda.cu), docs/ARCHITECTURE.md §3.
 *
 * The element "mean" is the mode-0 part Ū = c_0 φ_0 (φ_0 is constant on the
 * reference element, so this is the reference-element mean of U). The
 * limiter evaluates U at every volume quadrature point and at every face
 * quadrature point of every local face (orientation-0 tables) and, when a
 * point has ρ < δ_ρ or p < δ_p, replaces
 *   c_m ← θ c_m   for every mode m ≥ 1 and every variable,
 * with one θ ∈ [0, 1) for the whole element, i.e. U ← Ū + θ (U − Ū):
 *   θ_ρ = min over points with ρ_q < δ_ρ of (ρ̄ − δ_ρ) / (ρ̄ − ρ_q),
 *   θ_p = min over points of the largest t ∈ [0, 1] with
 *         p(Ū + t θ_ρ (U_q − Ū)) ≥ δ_p   (p is concave in U, so the set of
 *         such t is an interval [0, t_q]; t_q is found by bisection on the
 *         quadratic ρ(t) (p(t) − δ_p)/(γ − 1), which keeps the lower end),
 *   θ = θ_ρ θ_p.
 * Thresholds: δ_ρ = LIMITER_DELTA_REL ρ̄, δ_p = LIMITER_DELTA_REL p̄. After
 * limiting, every checked point has ρ ≥ δ_ρ and p ≥ δ_p up to round-off: a
 * point put on δ_p has its pressure computed from O(ρE) numbers, so it lands
 * within ~1e-16 ρE of δ_p (test_limiter sees ≥ 0.9998 δ_p and checks
 * ≥ δ/2, which holds while ρE/p̄ < ~5e5, i.e. for Mach numbers below ~1e3).
 *
 * Mode 0 is never changed. On an affine element c_0 φ_0 is the cell average
 * ∫_e U dx / |e|, so the limiter conserves mass, momentum and energy. On a
 * curved element (detJ varying) the cell average is ∫ U detJ dξ / ∫ detJ dξ,
 * which also depends on the modes m ≥ 1: scaling them changes ∫_e U dx by a
 * amount of the size of the detJ variation times the removed part
 * (test_limiter: 6e-2 relative on deformed order-2 elements where the
 * removed modes were 1.2–1.5 times the mean; 4e-16 on affine ones).
 *
 * Points other than the quadrature points (e.g. VTU output nodes) are not
 * checked. */
#include "dg/disc.h"
#include "dg/physics.h"

/* Relative thresholds: δ_ρ = LIMITER_DELTA_REL ρ̄, δ_p = LIMITER_DELTA_REL p̄. */
#define LIMITER_DELTA_REL 1e-10
/* Bisection steps of the pressure scaling: the bracket shrinks to 2^-60. */
#define LIMITER_BISECTION_STEPS 60

/* Deviation from the mode-0 part at one point: dev[v] = Σ_{m≥1} φ_m c_{v,m}
 * with phi the nb basis values at the point. */
DG_HD void limiter_point_deviation(const dg_disc_view *d, int64_t e, const double *U,
                                   const double *phi, int nb, double *dev) {
  for (int v = 0; v < d->nvar; ++v) {
    double sum = 0.0;
    for (int m = 1; m < nb; ++m) sum += phi[m] * U[disc_coef_index(d, e, v, m)];
    dev[v] = sum;
  }
}

/* Largest θ ∈ [0, theta] such that the density of Ū + θ dev is ≥ delta_rho
 * (ρ̄ > delta_rho). A non-finite deviation gives 0. */
DG_HD double limiter_density_theta(double rho_bar, double drho, double delta_rho, double theta) {
  const double rho = rho_bar + theta * drho;
  if (rho >= delta_rho) return theta;
  const double t = (rho_bar - delta_rho) / (rho_bar - rho) * theta;
  return t >= 0.0 ? (t < theta ? t : theta) : 0.0;
}

/* Largest t ∈ [0, 1] (to 2^-LIMITER_BISECTION_STEPS) with p(Ū + t dU) ≥
 * delta_p, where mean has ρ̄ > 0 and p̄ > delta_p. Works on
 * f(t) = ρ(t) E(t) − ½|m(t)|² − ρ(t) delta_p/(γ−1) = ρ(t)(p(t) − delta_p)/(γ−1),
 * a quadratic in t with f(0) > 0; the lower end of the bracket always has
 * f ≥ 0 as evaluated. A non-finite dU gives 0. */
DG_HD double limiter_pressure_t(const dg_disc_view *d, const double *mean, const double *dU,
                                double delta_p) {
  const int dim = d->dim, ie = dim + 1;
  const double dp = delta_p / (d->gamma - 1.0);
  double mm = 0.0, md = 0.0, dd = 0.0;
  for (int k = 1; k <= dim; ++k) {
    mm += mean[k] * mean[k];
    md += mean[k] * dU[k];
    dd += dU[k] * dU[k];
  }
  const double c0 = mean[0] * mean[ie] - 0.5 * mm - mean[0] * dp;
  const double c1 = mean[0] * dU[ie] + dU[0] * mean[ie] - md - dU[0] * dp;
  const double c2 = dU[0] * dU[ie] - 0.5 * dd;
  if (!(c0 > 0.0)) return 0.0;
  const double f1 = c0 + c1 + c2;
  if (f1 >= 0.0) return 1.0;
  if (!(f1 < 0.0)) return 0.0; /* NaN */
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < LIMITER_BISECTION_STEPS; ++i) {
    const double t = 0.5 * (lo + hi);
    if (c0 + t * (c1 + t * c2) >= 0.0)
      lo = t;
    else
      hi = t;
  }
  return lo;
}

/* Positivity guard of element e (see the top of this file): U (state in the
 * coefficient layout, disc_coef_index) is read and, when limited, the modes
 * m ≥ 1 of element e are scaled in place; nothing else is written.
 * Returns 1 when the element was limited, 0 when every checked point already
 * had ρ ≥ δ_ρ and p ≥ δ_p (U untouched, bit for bit), −1 when the mean
 * itself is non-physical (ρ̄ or p̄ not a positive number; U untouched). */
DG_HD int limiter_positivity(const dg_disc_view *d, int64_t e, double *U) {
  const int s = d->elem_shape[e], nb = d->nb[s], nq = d->nq[s], nv = d->nvar;
  const double phi0 = d->vol_phi[d->vol_table[s]]; /* mode 0 is constant */
  double mean[DG_MAX_NVAR];
  for (int v = 0; v < nv; ++v) mean[v] = phi0 * U[disc_coef_index(d, e, v, 0)];
  const double rho_bar = mean[0], p_bar = physics_pressure(d->dim, d->gamma, mean);
  if (!(rho_bar > 0.0 && rho_bar < INFINITY && p_bar > 0.0 && p_bar < INFINITY)) return -1;
  if (nb <= 1) return 0;
  const double delta_rho = LIMITER_DELTA_REL * rho_bar, delta_p = LIMITER_DELTA_REL * p_bar;
  const int n_faces = shape_n_faces((dg_shape)s), nqf = d->nqf;
  const int n_points = nq + n_faces * nqf;

  /* density: the smallest θ over the points */
  double theta = 1.0;
  double dev[DG_MAX_NVAR];
  for (int i = 0; i < n_points; ++i) {
    const double *phi =
        i < nq ? d->vol_phi + d->vol_table[s] + (int64_t)i * nb
               : d->face_phi + d->face_table[s][(i - nq) / nqf][0] + (int64_t)((i - nq) % nqf) * nb;
    limiter_point_deviation(d, e, U, phi, nb, dev);
    theta = limiter_density_theta(rho_bar, dev[0], delta_rho, theta);
  }

  /* pressure along Ū → Ū + θ_ρ dev (density stays ≥ δ_ρ on the segment) */
  const double theta_rho = theta;
  for (int i = 0; i < n_points; ++i) {
    const double *phi =
        i < nq ? d->vol_phi + d->vol_table[s] + (int64_t)i * nb
               : d->face_phi + d->face_table[s][(i - nq) / nqf][0] + (int64_t)((i - nq) % nqf) * nb;
    limiter_point_deviation(d, e, U, phi, nb, dev);
    double Uq[DG_MAX_NVAR];
    for (int v = 0; v < nv; ++v) Uq[v] = mean[v] + theta * dev[v];
    if (physics_pressure(d->dim, d->gamma, Uq) >= delta_p && Uq[0] >= delta_rho) continue;
    double dU[DG_MAX_NVAR];
    for (int v = 0; v < nv; ++v) dU[v] = theta_rho * dev[v];
    const double t = limiter_pressure_t(d, mean, dU, delta_p) * theta_rho;
    if (t < theta) theta = t;
  }
  if (theta >= 1.0) return 0;
  /* θ = 0 also clears non-finite modes (0 · NaN would keep them) */
  for (int v = 0; v < nv; ++v)
    for (int m = 1; m < nb; ++m) {
      double *c = U + disc_coef_index(d, e, v, m);
      *c = theta > 0.0 ? theta * *c : 0.0;
    }
  return 1;
}

/* limiter_positivity on element e, recorded in count (may be NULL), the
 * body of the backends' `limit` loops. count[e] = c ≥ 0: c corrections so
 * far; count[e] = −1 − c: c corrections and a non-physical mean seen at
 * least once (limiter_count_split decodes it). */
DG_HD void limiter_positivity_count(const dg_disc_view *d, int64_t e, double *U, double *count) {
  const int r = limiter_positivity(d, e, U);
  if (!count || r == 0) return;
  if (r > 0)
    count[e] += count[e] < 0.0 ? -1.0 : 1.0;
  else if (count[e] >= 0.0)
    count[e] = -1.0 - count[e];
}

/* Decodes count[e] of limiter_positivity_count: returns the corrections and
 * sets *bad to 1 when a non-physical mean was seen, else 0. */
DG_HD double limiter_count_split(double count, int *bad) {
  *bad = count < 0.0;
  return count < 0.0 ? -1.0 - count : count;
}
