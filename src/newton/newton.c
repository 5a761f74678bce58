#include "newton/newton.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lusgs/lusgs.h"

/* ------------------------------------------------------------ FGMRES */

void newton_krylov_destroy(newton_krylov *k) {
  if (!k) return;
  if (k->V)
    for (int i = 0; i <= k->m; ++i) dg_vec_destroy(&k->V[i]);
  if (k->Z)
    for (int i = 0; i < k->m; ++i) dg_vec_destroy(&k->Z[i]);
  dg_vec_destroy(&k->w);
  free(k->V);
  free(k->Z);
  free(k->H);
  free(k->cs);
  free(k->sn);
  free(k->g);
  free(k->y);
  free(k->h2);
  free(k->neg);
  memset(k, 0, sizeof *k);
}

dg_status newton_krylov_create(const dg_backend *backend, dg_backend_ctx *ctx, int m,
                               newton_krylov *k) {
  DG_CHECK(backend && ctx && k, DG_ERR_ARG,
           "newton_krylov_create: NULL backend, context or output");
  DG_CHECK(m >= 1 && m <= NEWTON_MAX_KRYLOV, DG_ERR_ARG,
           "newton_krylov_create: Krylov size %d; expected 1 to %d", m, NEWTON_MAX_KRYLOV);
  const char *gs = getenv("COLORDG_NEWTON_GS");
  DG_CHECK(!gs || !*gs || !strcmp(gs, "cgs2") || !strcmp(gs, "mgs"), DG_ERR_ARG,
           "newton_krylov_create: environment variable COLORDG_NEWTON_GS=%s; expected cgs2 or "
           "mgs",
           gs);
  memset(k, 0, sizeof *k);
  k->m = m;
  k->mgs = gs && !strcmp(gs, "mgs");
  dg_status st = DG_CALLOC(k->V, m + 1);
  if (st == DG_SUCCESS) st = DG_CALLOC(k->Z, m);
  if (st == DG_SUCCESS) st = DG_CALLOC(k->H, (m + 1) * m);
  if (st == DG_SUCCESS) st = DG_CALLOC(k->cs, m);
  if (st == DG_SUCCESS) st = DG_CALLOC(k->sn, m);
  if (st == DG_SUCCESS) st = DG_CALLOC(k->g, m + 1);
  if (st == DG_SUCCESS) st = DG_CALLOC(k->y, m);
  if (st == DG_SUCCESS) st = DG_CALLOC(k->h2, m + 1);
  if (st == DG_SUCCESS) st = DG_CALLOC(k->neg, m + 1);
  for (int i = 0; i <= m && st == DG_SUCCESS; ++i)
    st = dg_vec_create(backend, ctx, DG_VEC_STATE, &k->V[i]);
  for (int i = 0; i < m && st == DG_SUCCESS; ++i)
    st = dg_vec_create(backend, ctx, DG_VEC_STATE, &k->Z[i]);
  if (st == DG_SUCCESS) st = dg_vec_create(backend, ctx, DG_VEC_STATE, &k->w);
  if (st != DG_SUCCESS) {
    newton_krylov_destroy(k);
    DG_CALL(st);
  }
  return DG_SUCCESS;
}

dg_status newton_fgmres(newton_krylov *k, newton_linear_op A, void *a_user, newton_linear_op P,
                        void *p_user, const dg_vec *b, dg_vec *x, int restarts, double eta,
                        newton_krylov_result *res) {
  DG_CHECK(k && k->V && A && b && x, DG_ERR_ARG,
           "newton_fgmres: NULL storage, operator, right-hand side or solution");
  DG_CHECK(b->data != x->data, DG_ERR_ARG, "newton_fgmres: b and x are the same vector");
  DG_CHECK(restarts >= 0 && eta >= 0.0 && eta < 1.0, DG_ERR_ARG,
           "newton_fgmres: %d restarts, tolerance %g; expected >= 0 and [0, 1)", restarts, eta);
  newton_krylov_result local;
  newton_krylov_result *out = res ? res : &local;
  memset(out, 0, sizeof *out);
  const int m = k->m, ld = m + 1;
  DG_CALL(dg_vec_set(0.0, x));
  double bnorm = 0.0;
  DG_CALL(dg_vec_norm2(b, &bnorm));
  DG_CHECK(isfinite(bnorm), DG_ERR_DIVERGED, "newton_fgmres: the right-hand side is not finite");
  if (bnorm == 0.0) {
    out->converged = 1;
    return DG_SUCCESS;
  }
  const double target = eta * bnorm;
  double beta = bnorm, resid = bnorm;
  DG_CALL(dg_vec_axpby(1.0 / beta, b, 0.0, &k->V[0]));
  for (int cycle = 0; cycle <= restarts; ++cycle) {
    if (cycle > 0) {
      /* the true residual b − A x */
      DG_CALL(A(a_user, x, &k->w));
      DG_CALL(dg_vec_copy(b, &k->V[0]));
      DG_CALL(dg_vec_axpby(-1.0, &k->w, 1.0, &k->V[0]));
      DG_CALL(dg_vec_norm2(&k->V[0], &beta));
      DG_CHECK(isfinite(beta), DG_ERR_DIVERGED,
               "newton_fgmres: the residual at restart %d is not finite", cycle);
      resid = beta;
      if (beta <= target) break;
      DG_CALL(dg_vec_scale(1.0 / beta, &k->V[0]));
    }
    ++out->cycles;
    for (int i = 0; i <= m; ++i) k->g[i] = 0.0;
    k->g[0] = beta;
    int done = 0;
    for (int j = 0; j < m; ++j) {
      double *h = k->H + (int64_t)j * ld;
      if (P)
        DG_CALL(P(p_user, &k->V[j], &k->Z[j]));
      else
        DG_CALL(dg_vec_copy(&k->V[j], &k->Z[j]));
      DG_CALL(A(a_user, &k->Z[j], &k->V[j + 1]));
      if (k->mgs) {
        /* modified Gram-Schmidt */
        for (int i = 0; i <= j; ++i) {
          DG_CALL(dg_vec_dot(&k->V[j + 1], &k->V[i], &h[i]));
          DG_CHECK(isfinite(h[i]), DG_ERR_DIVERGED,
                   "newton_fgmres: a Gram-Schmidt coefficient of iteration %d is not finite",
                   out->iterations + 1);
          DG_CALL(dg_vec_axpby(-h[i], &k->V[i], 1.0, &k->V[j + 1]));
        }
      } else {
        /* classical Gram-Schmidt, twice: h = Vᵀw, w −= V h, then the same
         * with the remainder (h += h2) */
        for (int pass = 0; pass < 2; ++pass) {
          double *c = pass ? k->h2 : h;
          DG_CALL(dg_vec_mdot(j + 1, k->V, &k->V[j + 1], c));
          for (int i = 0; i <= j; ++i) {
            DG_CHECK(isfinite(c[i]), DG_ERR_DIVERGED,
                     "newton_fgmres: a Gram-Schmidt coefficient of iteration %d is not finite",
                     out->iterations + 1);
            k->neg[i] = -c[i];
          }
          DG_CALL(dg_vec_maxpy(j + 1, k->neg, k->V, &k->V[j + 1]));
        }
        for (int i = 0; i <= j; ++i) h[i] += k->h2[i];
      }
      DG_CALL(dg_vec_norm2(&k->V[j + 1], &h[j + 1]));
      for (int i = 0; i <= j + 1; ++i)
        DG_CHECK(isfinite(h[i]), DG_ERR_DIVERGED,
                 "newton_fgmres: a Gram-Schmidt coefficient of iteration %d is not finite",
                 out->iterations + 1);
      const double hnext = h[j + 1];
      if (hnext > 0.0) DG_CALL(dg_vec_scale(1.0 / hnext, &k->V[j + 1]));
      /* the earlier rotations, then a new one that zeroes h[j + 1] */
      for (int i = 0; i < j; ++i) {
        const double a = h[i], c = h[i + 1];
        h[i] = k->cs[i] * a + k->sn[i] * c;
        h[i + 1] = -k->sn[i] * a + k->cs[i] * c;
      }
      const double r = hypot(h[j], h[j + 1]);
      k->cs[j] = r > 0.0 ? h[j] / r : 1.0;
      k->sn[j] = r > 0.0 ? h[j + 1] / r : 0.0;
      h[j] = r;
      h[j + 1] = 0.0;
      k->g[j + 1] = -k->sn[j] * k->g[j];
      k->g[j] = k->cs[j] * k->g[j];
      ++out->iterations;
      done = j + 1;
      resid = fabs(k->g[j + 1]);
      if (resid <= target || !(hnext > 0.0)) break;
    }
    /* y = H⁻¹ g (upper triangular), x += Z y */
    for (int i = done - 1; i >= 0; --i) {
      double s = k->g[i];
      for (int l = i + 1; l < done; ++l) s -= k->H[(int64_t)l * ld + i] * k->y[l];
      const double d = k->H[(int64_t)i * ld + i];
      k->y[i] = d != 0.0 ? s / d : 0.0;
    }
    for (int i = 0; i < done; ++i) DG_CALL(dg_vec_axpby(k->y[i], &k->Z[i], 1.0, x));
    if (resid <= target) break;
  }
  out->rel_residual = resid / bnorm;
  out->converged = resid <= target;
  return DG_SUCCESS;
}

double newton_ew_forcing(double res, double res_prev, double eta_prev, double eta_min,
                         double eta_max) {
  const double gamma = 0.9, alpha = 2.0;
  if (!(res_prev > 0.0) || !(eta_prev > 0.0) || !isfinite(res) || !isfinite(res_prev))
    return eta_max;
  double eta = gamma * pow(res / res_prev, alpha);
  const double safe = gamma * pow(eta_prev, alpha);
  if (safe > 0.1 && safe > eta) eta = safe;
  if (eta > eta_max) eta = eta_max;
  if (eta < eta_min) eta = eta_min;
  return eta;
}

/* ------------------------------------------------------------ marcher */

#define NEWTON_EW_MIN 1e-4 /* Eisenstat-Walker: smallest forcing term */
#define NEWTON_EW_MAX 0.5  /* Eisenstat-Walker: largest (and first) forcing term */
#define NEWTON_FD_EPS 1e-7 /* finite-difference products: h = eps (1 + |U|) / |z| */
/* rejected coupled tries of a step (the CFL cut each time) before ε is held again */
#define NEWTON_COUPLED_TRIES 4

typedef struct newton_marcher {
  const dg_backend *backend;
  dg_backend_ctx *ctx;
  lusgs_marcher lm; /* assembly, preconditioner (lusgs_apply), matvec, mass; its dU, dt used */
  dg_marcher_settings s;
  int nvar, av;
  newton_krylov krylov;
  dg_vec R, R_new, U_new, U_fd, R_fd; /* state-sized (R_fd: fd only) */
  dg_vec count, ones;                 /* element-sized: positivity-guard count, all ones */
  /* the residual R(Uⁿ) in R (have_R: valid for the next step) and its norms */
  int have_R;
  double res_norm[DG_MAX_NVAR], res_total;
  double res0;            /* SER reference */
  double res_prev;        /* |R| of the previous step (Eisenstat-Walker) */
  double eta_prev;        /* forcing term of the previous step */
  double cfl_scale;       /* product of the cuts, recovered by 2 per accepted step, <= 1 */
  double omega;           /* relaxation of the held viscosity for the next hold (av_relax_adapt) */
  double omega_min;       /* the case's relaxation: the first hold's ω and the adaptive floor */
  double res_held;        /* |R| after the previous hold (av_relax_adapt), 0: none yet */
  int coupled;            /* ε no longer held: residual R(U, ε(U)), products by differences */
  int coupled_rejections; /* rejected coupled tries of this step */
  double couple_floor;    /* |R| at which a coupled step was rejected (held again until |R| < 0.1 of
                             it); 0: none */
  double eta_min;         /* Eisenstat-Walker floor (newton_forcing_min, else NEWTON_EW_MIN) */
  const dg_vec *U_step;   /* the state of the step (operators) */
  double t_step, u_norm;
  int64_t steps, residuals, linear_iterations, rejections;
  double limit_total;
  int64_t limit_bad;
  int log; /* environment COLORDG_NEWTON_LOG set: one line per try on stderr */
  /* with log: seconds of the try's solve in the preconditioner and the
   * Jacobian products (each followed by a device sync when timed) */
  double t_prec, t_mat;
} newton_marcher;

static double newton_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Jacobian products by finite differences of the residual: asked for, or
 * with the viscosity coupled (the analytic product has no ∂ε/∂U). */
static int newton_fd_products(const newton_marcher *nm) {
  return nm->s.newton_jacobian == NEWTON_JACOBIAN_FD || nm->coupled;
}

/* Whether the step about to start couples the viscosity to the state: the
 * residual fell coupled_after orders below the first step's and, after a
 * rejected coupled step, another order below that step's. */
static int newton_should_couple(const newton_marcher *nm) {
  const double drop = nm->s.av_couple_drop;
  return nm->av && !nm->coupled && drop > 0.0 && nm->res0 > 0.0 && nm->res_total > 0.0 &&
         nm->res_total <= nm->res0 * pow(10.0, -drop) &&
         (nm->couple_floor <= 0.0 || nm->res_total <= 0.1 * nm->couple_floor);
}

/* y = (M/Δt − ∂R/∂U) x: the assembled operator (analytic) or finite
 * differences of the residual plus the mass term. */
static dg_status newton_jacobian_product(newton_marcher *nm, const dg_vec *x, dg_vec *y) {
  if (!newton_fd_products(nm)) return lusgs_matvec(&nm->lm, nm->U_step, x, y);
  double xn = 0.0;
  DG_CALL(dg_vec_norm2(x, &xn));
  DG_CHECK(isfinite(xn), DG_ERR_DIVERGED, "newton_krylov: a Krylov vector is not finite");
  if (xn == 0.0) return dg_vec_set(0.0, y);
  const double h = NEWTON_FD_EPS * (1.0 + nm->u_norm) / xn;
  DG_CALL(dg_vec_copy(nm->U_step, &nm->U_fd));
  DG_CALL(dg_vec_axpby(h, x, 1.0, &nm->U_fd));
  DG_CALL(dg_backend_residual(nm->backend, nm->ctx, &nm->U_fd, nm->t_step, &nm->R_fd));
  ++nm->residuals;
  DG_CALL(lusgs_mass(&nm->lm, &nm->lm.dt, x, y));
  DG_CALL(dg_vec_axpby(-1.0 / h, &nm->R_fd, 1.0, y));
  DG_CALL(dg_vec_axpby(1.0 / h, &nm->R, 1.0, y));
  return DG_SUCCESS;
}

static dg_status newton_apply_jacobian(void *user, const dg_vec *x, dg_vec *y) {
  newton_marcher *nm = user;
  if (!nm->log) return newton_jacobian_product(nm, x, y);
  const double t0 = newton_clock();
  DG_CALL(newton_jacobian_product(nm, x, y));
  DG_CALL(lusgs_sync(&nm->lm));
  nm->t_mat += newton_clock() - t0;
  return DG_SUCCESS;
}

/* y = P⁻¹ x: k symmetric coloured LU-SGS sweeps. */
static dg_status newton_apply_preconditioner(void *user, const dg_vec *x, dg_vec *y) {
  newton_marcher *nm = user;
  if (!nm->log) return lusgs_apply(&nm->lm, nm->U_step, x, nm->s.n_sweeps, y);
  const double t0 = newton_clock();
  DG_CALL(lusgs_apply(&nm->lm, nm->U_step, x, nm->s.n_sweeps, y));
  DG_CALL(lusgs_sync(&nm->lm));
  nm->t_prec += newton_clock() - t0;
  return DG_SUCCESS;
}

static void newton_if_destroy(dg_marcher *m) {
  if (!m || !m->impl) return;
  newton_marcher *nm = m->impl;
  newton_krylov_destroy(&nm->krylov);
  dg_vec_destroy(&nm->R);
  dg_vec_destroy(&nm->R_new);
  dg_vec_destroy(&nm->U_new);
  dg_vec_destroy(&nm->U_fd);
  dg_vec_destroy(&nm->R_fd);
  dg_vec_destroy(&nm->count);
  dg_vec_destroy(&nm->ones);
  lusgs_destroy(&nm->lm);
  free(nm);
  m->impl = NULL;
  m->ops = NULL;
}

static dg_status newton_set_state(newton_marcher *nm, const double *v, int n);

static dg_status newton_if_create(const dg_backend *backend, dg_backend_ctx *ctx,
                                  const dg_disc *disc, const dg_marcher_settings *settings,
                                  dg_marcher *m) {
  DG_CHECK(backend && ctx && disc && settings && m, DG_ERR_ARG,
           "newton_krylov: NULL backend, context, discretisation, settings or output");
  const dg_marcher_settings *s = settings;
  DG_CHECK(s->cfl_min > 0.0 && s->cfl_max >= s->cfl_min, DG_ERR_ARG,
           "newton_krylov: CFL range [%g, %g] is not positive and ordered", s->cfl_min, s->cfl_max);
  DG_CHECK(s->krylov_size >= 1 && s->krylov_size <= NEWTON_MAX_KRYLOV, DG_ERR_ARG,
           "newton_krylov: krylov_size %d; expected 1 to %d", s->krylov_size, NEWTON_MAX_KRYLOV);
  DG_CHECK(s->krylov_restarts >= 0, DG_ERR_ARG, "newton_krylov: krylov_restarts %d < 0",
           s->krylov_restarts);
  DG_CHECK(s->newton_forcing_min >= 0.0 && s->newton_forcing_min <= NEWTON_EW_MAX, DG_ERR_ARG,
           "newton_krylov: smallest forcing term %g outside [0, %g] (0: %g)", s->newton_forcing_min,
           NEWTON_EW_MAX, NEWTON_EW_MIN);
  DG_CHECK(s->newton_forcing >= 0.0 && s->newton_forcing < 1.0, DG_ERR_ARG,
           "newton_krylov: forcing term %g outside [0, 1) (0: Eisenstat-Walker)",
           s->newton_forcing);
  DG_CHECK(s->newton_jacobian == NEWTON_JACOBIAN_ANALYTIC ||
               s->newton_jacobian == NEWTON_JACOBIAN_FD,
           DG_ERR_ARG, "newton_krylov: unknown Jacobian product %d", s->newton_jacobian);
  DG_CHECK(s->newton_max_growth > 1.0 && s->newton_cfl_cut > 0.0 && s->newton_cfl_cut < 1.0 &&
               s->newton_max_cuts >= 0,
           DG_ERR_ARG,
           "newton_krylov: residual growth limit %g (expected > 1), CFL cut %g (expected in (0, "
           "1)), %d cuts (expected >= 0)",
           s->newton_max_growth, s->newton_cfl_cut, s->newton_max_cuts);
  DG_CHECK(s->newton_linear_stall > 0.0 && s->newton_linear_stall <= 1.0, DG_ERR_ARG,
           "newton_krylov: linear stall limit %g; expected in (0, 1]", s->newton_linear_stall);
  DG_CHECK(s->n_sweeps >= 0 && s->n_sweeps <= LUSGS_MAX_SWEEPS, DG_ERR_ARG,
           "newton_krylov: %d preconditioner sweeps; expected 1 to %d", s->n_sweeps,
           LUSGS_MAX_SWEEPS);
  const double omega = s->av_relax > 0.0 ? s->av_relax : 1.0;
  DG_CHECK(omega <= 1.0, DG_ERR_ARG, "newton_krylov: viscosity relaxation %g outside (0, 1]",
           omega);
  m->ops = NULL;
  m->impl = NULL;
  newton_marcher *nm = NULL;
  DG_CALL(DG_CALLOC(nm, 1));
  nm->backend = backend;
  nm->ctx = ctx;
  nm->s = *s;
  nm->s.state = NULL; /* taken below; not kept */
  nm->s.n_state = 0;
  nm->nvar = disc->view.nvar;
  nm->av = disc->view.av != DG_AV_OFF;
  nm->res0 = s->res_reference;
  nm->cfl_scale = 1.0;
  nm->omega = nm->omega_min = omega;
  nm->log = getenv("COLORDG_NEWTON_LOG") != NULL;
  nm->eta_min = s->newton_forcing_min > 0.0 ? s->newton_forcing_min : NEWTON_EW_MIN;
  m->ops = newton_marcher_ops();
  m->impl = nm;
  dg_status st = s->n_state > 0 ? newton_set_state(nm, s->state, s->n_state) : DG_SUCCESS;
  if (st == DG_SUCCESS) st = lusgs_create(backend, ctx, disc, s->coloring, &nm->lm);
  nm->lm.halo_per_pass = s->rank_coupling;
  if (st == DG_SUCCESS) st = lusgs_keep_factors(&nm->lm); /* lusgs_matvec reads them */
  if (st == DG_SUCCESS && s->inverse_single) st = lusgs_set_inverse_single(&nm->lm, 1);
  /* finite-difference products: asked for, or once the viscosity is coupled */
  const int fd = s->newton_jacobian == NEWTON_JACOBIAN_FD || (nm->av && s->av_couple_drop > 0.0);
  if (st == DG_SUCCESS) {
    /* refused before allocating when the Krylov basis and the Newton vectors
     * (and lusgs_apply's two staging vectors) would not fit */
    const int64_t n = disc->view.n_coefs;
    const int64_t bytes = newton_vector_bytes(n, disc->view.n_elems, s->krylov_size, fd) +
                          LUSGS_STAGING_VECTORS * n * (int64_t)sizeof(double);
    char what[160];
    snprintf(what, sizeof what,
             "Newton-Krylov's vectors (FGMRES(%d) basis, Newton vectors, preconditioner staging)",
             s->krylov_size);
    st = dg_backend_memory_check(backend, ctx, bytes, what);
  }
  if (st == DG_SUCCESS) st = newton_krylov_create(backend, ctx, s->krylov_size, &nm->krylov);
  dg_vec *state[] = {&nm->R, &nm->R_new, &nm->U_new, &nm->U_fd};
  for (int i = 0; i < 4 && st == DG_SUCCESS; ++i)
    st = dg_vec_create(backend, ctx, DG_VEC_STATE, state[i]);
  if (st == DG_SUCCESS && fd) st = dg_vec_create(backend, ctx, DG_VEC_STATE, &nm->R_fd);
  if (st == DG_SUCCESS) st = dg_vec_create(backend, ctx, DG_VEC_ELEM, &nm->count);
  if (st == DG_SUCCESS) st = dg_vec_create(backend, ctx, DG_VEC_ELEM, &nm->ones);
  if (st == DG_SUCCESS) st = dg_vec_set(1.0, &nm->ones);
  if (st != DG_SUCCESS) {
    newton_if_destroy(m);
    DG_CALL(st);
  }
  return DG_SUCCESS;
}

/* R = R(U) (R: state vector), its norms and total; 0 in *finite when not finite. */
static dg_status newton_residual(newton_marcher *nm, const dg_vec *U, double t, dg_vec *R,
                                 double *norms, double *total, int *finite) {
  DG_CALL(dg_backend_residual(nm->backend, nm->ctx, U, t, R));
  ++nm->residuals;
  DG_CALL(dg_backend_norms(nm->backend, nm->ctx, R, norms, finite));
  double sum = 0.0;
  for (int v = 0; v < nm->nvar; ++v) sum += norms[v] * norms[v];
  *total = sqrt(sum);
  if (!isfinite(*total)) *finite = 0;
  return DG_SUCCESS;
}

/* The positivity check of a trial state: the guard (limiter.h) on U_new in
 * place with artificial viscosity (as LU-SGS runs it), else on a copy (a
 * check only); *n_bad = elements with a non-physical mean, *n_fixed =
 * elements corrected. The count is fresh (0, 1 or −1 per element), so
 * n_bad = (Σc² − Σc)/2 and n_fixed = (Σc² + Σc)/2 from two reductions. */
static dg_status newton_positivity(newton_marcher *nm, int64_t *n_bad, double *n_fixed) {
  dg_vec *target = &nm->U_new;
  if (!nm->av) {
    DG_CALL(dg_vec_copy(&nm->U_new, &nm->U_fd));
    target = &nm->U_fd;
  }
  DG_CALL(dg_vec_set(0.0, &nm->count));
  DG_CALL(dg_backend_limit(nm->backend, nm->ctx, target, &nm->count));
  double sum = 0.0, sumsq = 0.0;
  DG_CALL(dg_vec_dot(&nm->count, &nm->ones, &sum));
  DG_CALL(dg_vec_dot(&nm->count, &nm->count, &sumsq));
  *n_bad = (int64_t)llround(0.5 * (sumsq - sum));
  *n_fixed = 0.5 * (sumsq + sum);
  return DG_SUCCESS;
}

static dg_status newton_if_step(dg_marcher *m, dg_vec *U, const dg_marcher_step_opts *opts,
                                dg_marcher_info *info) {
  DG_CHECK(m && m->impl && U && opts && info, DG_ERR_ARG,
           "newton_krylov: NULL marcher, state, options or info");
  newton_marcher *nm = m->impl;
  const dg_marcher_settings *s = &nm->s;
  memset(info, 0, sizeof *info);
  info->iteration = opts->iteration;
  info->bad_equation = -1;
  info->finite = 1;
  ++nm->steps;
  const double t = opts->t;
  /* R(Uⁿ): with artificial viscosity ε is held at Uⁿ first (relaxed by
   * av_relax) and frozen for the whole step (residuals, blocks, products) */
  if (!nm->have_R) {
    if (newton_should_couple(nm)) {
      nm->coupled = 1;
      if (nm->log)
        fprintf(stderr, "newton_krylov: iteration %d: viscosity coupled\n", opts->iteration);
    }
    /* coupled: released (no state), so each residual takes ε(U) of its U */
    if (nm->av)
      DG_CALL(dg_backend_av_hold(nm->backend, nm->ctx, nm->coupled ? NULL : U, nm->omega));
    int finite = 1;
    DG_CALL(newton_residual(nm, U, t, &nm->R, nm->res_norm, &nm->res_total, &finite));
    info->finite = finite;
    if (nm->av && s->av_relax_adapt && finite && !nm->coupled) {
      /* the next hold's ω from this hold's progress (held steps only: a
       * coupled step may reuse its R, and ω waits unchanged for a fallback,
       * so a restart, which evaluates R again, takes the same ω) */
      if (nm->res_held > 0.0 && nm->res_total <= 0.8 * nm->res_held)
        nm->omega = fmin(1.0, 1.5 * nm->omega);
      else if (nm->res_held > 0.0 && nm->res_total > nm->res_held)
        nm->omega = fmax(nm->omega_min, 0.5 * nm->omega);
      nm->res_held = nm->res_total;
    }
  }
  nm->have_R = 0;
  info->has_norms = 1;
  for (int v = 0; v < nm->nvar; ++v) {
    info->res_norm[v] = nm->res_norm[v];
    if (info->bad_equation < 0 && !isfinite(nm->res_norm[v])) info->bad_equation = v;
  }
  info->res_total = nm->res_total;
  const double res = nm->res_total;
  if (!info->finite || !isfinite(res)) {
    info->finite = 0;
    info->diverged = 1;
    DG_ERROR(DG_ERR_DIVERGED, "newton_krylov: the residual of iteration %d is not finite",
             opts->iteration);
  }
  if (!(nm->res0 > 0.0)) nm->res0 = res;
  const double eta = s->newton_forcing > 0.0 ? s->newton_forcing
                                             : newton_ew_forcing(res, nm->res_prev, nm->eta_prev,
                                                                 nm->eta_min, NEWTON_EW_MAX);
  const lusgs_opts lo = {s->cfl_law,  s->cfl_min,  s->cfl_max,    s->cfl_ramp_iters,
                         s->n_sweeps, s->av_relax, s->max_change, 1};
  nm->U_step = U;
  nm->t_step = t;
  if (newton_fd_products(nm)) DG_CALL(dg_vec_norm2(U, &nm->u_norm));
  char why[384] = "";
  nm->coupled_rejections = 0;
  for (;;) {
    const double cfl = lusgs_cfl(&lo, opts->iteration, nm->res0, res) * nm->cfl_scale;
    info->cfl = cfl;
    DG_CALL(dg_backend_timestep(nm->backend, nm->ctx, U, cfl, 0, &nm->lm.dt, &info->dt_min));
    dg_status st = lusgs_assemble(&nm->lm, U, t, &nm->lm.dt);
    newton_krylov_result kr;
    memset(&kr, 0, sizeof kr);
    nm->t_prec = nm->t_mat = 0.0;
    double t_solve = nm->log ? newton_clock() : 0.0;
    if (st == DG_SUCCESS)
      st = newton_fgmres(&nm->krylov, newton_apply_jacobian, nm, newton_apply_preconditioner, nm,
                         &nm->R, &nm->lm.dU, s->krylov_restarts, eta, &kr);
    if (nm->log) {
      if (st == DG_SUCCESS) DG_CALL(lusgs_sync(&nm->lm));
      t_solve = st == DG_SUCCESS ? newton_clock() - t_solve : 0.0;
    }
    info->linear_iterations += kr.iterations;
    nm->linear_iterations += kr.iterations;
    int accept = 0;
    double res_new = 0.0, n_fixed = 0.0;
    double norms_new[DG_MAX_NVAR] = {0};
    if (st == DG_SUCCESS) {
      DG_CALL(dg_vec_copy(U, &nm->U_new));
      DG_CALL(lusgs_update(&nm->lm, &nm->U_new, &nm->lm.dU, s->max_change));
      int64_t n_bad = 0;
      DG_CALL(newton_positivity(nm, &n_bad, &n_fixed));
      int finite = 1;
      DG_CALL(newton_residual(nm, &nm->U_new, t, &nm->R_new, norms_new, &res_new, &finite));
      if (!finite)
        snprintf(why, sizeof why, "the residual of the trial state is not finite");
      else if (n_bad > 0)
        snprintf(why, sizeof why, "%lld elements of the trial state have a non-physical mean",
                 (long long)n_bad);
      else if (res_new > s->newton_max_growth * res)
        snprintf(why, sizeof why, "the residual grew by %.3g (limit %g)", res_new / res,
                 s->newton_max_growth);
      else if (!(kr.rel_residual <= s->newton_linear_stall))
        snprintf(why, sizeof why,
                 "the linear solve stalled (relative residual %.3g after %d iterations, limit %g)",
                 kr.rel_residual, kr.iterations, s->newton_linear_stall);
      else
        accept = 1;
    } else if (st == DG_ERR_DIVERGED) {
      snprintf(why, sizeof why, "%s", dg_error_message());
      dg_error_clear();
    } else {
      DG_CALL(st);
    }
    if (nm->log)
      fprintf(stderr,
              "newton_krylov: iteration %d try %d: CFL %.3g, eta %.3g, omega %.3g, %d linear "
              "iterations (%d cycles, relative residual %.3g; %.2f ms: preconditioner %.2f, "
              "products %.2f, the rest %.2f), |R| %.6g -> %.6g, %lld residuals so far%s%s\n",
              opts->iteration, info->rejections + 1, cfl, eta, nm->av ? nm->omega : 0.0,
              kr.iterations, kr.cycles, kr.rel_residual, 1e3 * t_solve, 1e3 * nm->t_prec,
              1e3 * nm->t_mat, 1e3 * (t_solve - nm->t_prec - nm->t_mat), res, res_new,
              (long long)nm->residuals, accept ? "" : ", rejected: ", accept ? "" : why);
    if (accept) {
      if (nm->av) {
        nm->limit_total += n_fixed;
      }
      DG_CALL(dg_vec_copy(&nm->U_new, U));
      const dg_vec swap = nm->R;
      nm->R = nm->R_new;
      nm->R_new = swap;
      for (int v = 0; v < DG_MAX_NVAR; ++v) nm->res_norm[v] = norms_new[v];
      nm->res_total = res_new;
      /* with artificial viscosity the next step holds ε at Uⁿ⁺¹ first,
       * and run.c may update the far-field circulation: R(Uⁿ⁺¹) is then
       * evaluated again */
      nm->have_R = s->newton_reuse_residual && (!nm->av || nm->coupled);
      nm->res_prev = res;
      nm->eta_prev = eta;
      nm->cfl_scale = nm->cfl_scale * 2.0 < 1.0 ? nm->cfl_scale * 2.0 : 1.0;
      return DG_SUCCESS;
    }
    ++info->rejections;
    ++nm->rejections;
    if (nm->coupled && ++nm->coupled_rejections >= NEWTON_COUPLED_TRIES) {
      /* the coupled step failed NEWTON_COUPLED_TRIES times, each at a
       * smaller CFL: hold ε again (at ε(Uⁿ), so R(Uⁿ) is unchanged) and go
       * on with the step held, at the next smaller CFL; couple again once
       * |R| has fallen another order */
      nm->coupled = 0;
      nm->couple_floor = res;
      DG_CALL(dg_backend_av_hold(nm->backend, nm->ctx, U, nm->omega));
      if (nm->log)
        fprintf(stderr, "newton_krylov: iteration %d: viscosity held again\n", opts->iteration);
    }
    nm->cfl_scale *= s->newton_cfl_cut;
    if (info->rejections > s->newton_max_cuts) {
      info->diverged = 1;
      DG_ERROR(DG_ERR_DIVERGED,
               "newton_krylov: iteration %d was rejected %d times in a row (CFL cut to %g; last "
               "rejection: %s); the state is left at the start of the iteration. Lower [solver] "
               "cfl_max or cfl_min, or raise newton_max_cuts",
               opts->iteration, info->rejections, cfl, why);
    }
  }
}

static dg_status newton_if_stats(dg_marcher *m, int with_limiter, dg_marcher_stats *stats) {
  (void)with_limiter;
  DG_CHECK(m && m->impl && stats, DG_ERR_ARG, "newton_krylov: NULL marcher or output");
  newton_marcher *nm = m->impl;
  memset(stats, 0, sizeof *stats);
  stats->steps = nm->steps;
  stats->residuals = nm->residuals;
  stats->res_reference = nm->res0;
  stats->has_limiter = nm->av;
  stats->limit_total = nm->limit_total;
  stats->limit_bad = nm->limit_bad;
  stats->linear_iterations = nm->linear_iterations;
  stats->rejections = nm->rejections;
  return DG_SUCCESS;
}

/* The state a restart needs (NEWTON_STATE values, in this order): the CFL
 * cut, the Eisenstat-Walker history, the viscosity switch and its floor,
 * the adaptive relaxation and its reference. */
#define NEWTON_STATE 7
static dg_status newton_if_get_state(dg_marcher *m, double *state, int *n) {
  DG_CHECK(m && m->impl && state && n, DG_ERR_ARG, "newton_krylov: NULL marcher or output");
  const newton_marcher *nm = m->impl;
  const double v[NEWTON_STATE] = {nm->cfl_scale,    nm->eta_prev, nm->res_prev, nm->coupled,
                                  nm->couple_floor, nm->omega,    nm->res_held};
  for (int i = 0; i < NEWTON_STATE; ++i) state[i] = v[i];
  *n = NEWTON_STATE;
  return DG_SUCCESS;
}

/* Takes the state of newton_if_get_state back (a restart), checked. */
static dg_status newton_set_state(newton_marcher *nm, const double *v, int n) {
  DG_CHECK(n == NEWTON_STATE, DG_ERR_ARG,
           "newton_krylov: the restart file holds %d marcher-state values; Newton-Krylov keeps %d",
           n, NEWTON_STATE);
  const int ok = v[0] > 0.0 && v[0] <= 1.0 && v[1] >= 0.0 && v[1] < 1.0 && v[2] >= 0.0 &&
                 (v[3] == 0.0 || v[3] == 1.0) && v[4] >= 0.0 && v[5] > 0.0 && v[5] <= 1.0 &&
                 v[6] >= 0.0;
  DG_CHECK(ok, DG_ERR_ARG,
           "newton_krylov: the restart file's marcher state is out of range (CFL cut %g, forcing "
           "%g, previous |R| %g, coupled %g, floor %g, relaxation %g, held |R| %g)",
           v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
  nm->cfl_scale = v[0];
  nm->eta_prev = v[1];
  nm->res_prev = v[2];
  nm->coupled = v[3] != 0.0;
  nm->couple_floor = v[4];
  nm->omega = v[5];
  nm->res_held = v[6];
  return DG_SUCCESS;
}

const dg_marcher_ops *newton_marcher_ops(void) {
  static const dg_marcher_ops ops = {
      .name = "newton_krylov",
      .cfl_key = "cfl_max",
      .time_accurate = 0,
      .holds_av = 1,
      .stop_any_step = 1,
      .create = newton_if_create,
      .step = newton_if_step,
      .stable_step = NULL,
      .stats = newton_if_stats,
      .get_state = newton_if_get_state,
      .destroy = newton_if_destroy,
  };
  return &ops;
}

int64_t newton_vector_bytes(int64_t n_coefs, int64_t n_elems, int m, int fd) {
  /* Krylov basis V (m + 1), Z (m), w; R, R_new, U_new, U_fd (+ R_fd); count, ones */
  const int64_t state = (int64_t)(2 * m + 2) + 4 + (fd ? 1 : 0);
  return (int64_t)sizeof(double) * (state * n_coefs + 2 * n_elems);
}
