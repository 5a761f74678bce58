#pragma once
/* The marcher interface (docs/ARCHITECTURE.md §3): one table of operations
 * that every time-marching scheme implements, so that the run driver picks a
 * table once from the case's scheme and makes one call per step (in the
 * spirit of PETSc's TS). Implementations: explicit SSP-RK3
 * (explicit_rk3_marcher_ops(), src/dg/explicit.c) and LU-SGS
 * (lusgs_marcher_ops(), src/lusgs/lusgs.c). A new scheme adds a table
 * beside its code and one line where src/app/run.c maps schemes to tables.
 *
 * A marcher works on a backend state vector U (src/dg/backend.h) and owns
 * its scratch vectors on that backend; it lives as long as one
 * discretisation (a p-sequencing stage makes a new one). */
#include <stdint.h>

#include "coloring/coloring.h"
#include "core/dg_error.h"
#include "dg/backend.h"
#include "dg/disc.h"

/* What a marcher is made from: the case's [solver] settings (each marcher
 * reads the ones it uses) and the element colouring. */
typedef struct dg_marcher_settings {
  /* explicit */
  double cfl;     /* Courant number of the explicit step */
  int local_dt;   /* nonzero: per-element steps (steady runs); else one global step */
  int positivity; /* nonzero: positivity guard (backend limit) */
  /* implicit */
  int cfl_law;           /* LUSGS_CFL_EXPONENTIAL or LUSGS_CFL_SER (src/lusgs/lusgs.h) */
  double cfl_min;        /* CFL of the first iteration */
  double cfl_max;        /* largest CFL */
  int cfl_ramp_iters;    /* iterations of the exponential ramp */
  int n_sweeps;          /* symmetric sweeps per iteration */
  int jacobian_interval; /* lusgs: at cfl_max the blocks are rebuilt every this many
                            iterations and kept between (0 and 1: every iteration) */
  int inverse_single;    /* 1: the sweeps multiply by D_e⁻¹ in single precision
                            (lusgs_set_inverse_single) */
  int jacobian_forward;  /* lusgs: 1: face flux Jacobians by forward differences
                            (lusgs_set_face_jacobian_forward) */
  int rank_coupling;     /* 1: the sweeps exchange ghosts' dU once per pass (lusgs_marcher) */
  double av_relax;       /* relaxation of the held viscosity */
  int av_relax_adapt;    /* newton_krylov: ω from av_relax up to 1 as the residual falls */
  double av_couple_drop; /* newton_krylov: orders of drop after which ε = ε(U) (0: held) */
  double max_change;     /* update damping (0: none) */
  double res_reference;  /* SER reference |R_0| to start from (a restart's), 0: the first
                            iteration sets it */
  /* newton_krylov (src/newton/newton.h; also cfl_*, n_sweeps = the preconditioner's sweeps,
     av_relax, max_change) */
  int krylov_size;            /* FGMRES Krylov vectors per cycle (m) */
  int krylov_restarts;        /* FGMRES restarts after the first cycle */
  double newton_forcing;      /* > 0: fixed relative linear tolerance η; 0: Eisenstat-Walker */
  double newton_forcing_min;  /* Eisenstat-Walker floor (0: NEWTON_EW_MIN) */
  int newton_jacobian;        /* NEWTON_JACOBIAN_ANALYTIC or NEWTON_JACOBIAN_FD */
  double newton_max_growth;   /* reject a step when |R(U+ΔU)| > this |R(U)| */
  double newton_linear_stall; /* reject a try whose FGMRES relative residual ends above this */
  double newton_cfl_cut;      /* CFL factor after a rejected step, in (0, 1) */
  int newton_max_cuts;        /* rejections in a row before DG_ERR_DIVERGED */
  int newton_reuse_residual;  /* 1: nothing changes R between steps (no far-field vortex
                                 circulation update), so R(Uⁿ⁺¹) of the accepted step is the
                                 next step's residual */
  /* the element colouring (src/coloring/coloring.h, checked when made); must outlive the marcher */
  const dg_coloring *coloring;
  /* a restart: the state get_state gave when the file was written (n_state
   * doubles, copied at create; NULL / 0: a fresh marcher) */
  const double *state;
  int n_state;
} dg_marcher_settings;

#define DG_MARCHER_STATE_MAX 8 /* doubles of a marcher's own state (get_state) */

/* What one step is asked to do. */
typedef struct dg_marcher_step_opts {
  double t;          /* time at the start of the step (exact boundary states) */
  int iteration;     /* the step's number within its CFL ramp (1 for the first) */
  double dt_fixed;   /* > 0: a time-accurate marcher takes this global step instead of its
                        stable one (landing on an output or end time); others ignore it */
  int compute_norms; /* nonzero: fill res_norm (a marcher that always computes them, does) */
  int fresh_blocks;  /* nonzero: a marcher that keeps its implicit blocks between iterations
                        (lusgs, jacobian_interval) builds them at this one, as a restart does:
                        the iteration after a checkpoint, so a restart from it is bit for bit */
} dg_marcher_step_opts;

/* What one step did (marcher-neutral). */
typedef struct dg_marcher_info {
  int iteration; /* the step's number as passed */
  double dt;     /* physical time advanced (0 for local or pseudo-time steps) */
  double
      dt_min; /* smallest element step taken (SSP-RK3 with local steps: 0 on steps without norms) */
  double cfl; /* Courant number used (0 when the step failed before it) */
  int has_norms;                /* res_norm, res_total hold the norms of R(Uⁿ) */
  double res_norm[DG_MAX_NVAR]; /* backend norms of R(Uⁿ) per equation */
  double res_total;             /* sqrt(Σ_v res_norm[v]²) */
  int finite;                   /* 0 when R(Uⁿ) held NaN/Inf */
  int diverged;                 /* the step failed with DG_ERR_DIVERGED (U unusable) */
  int bad_equation;             /* diverged on a non-finite residual: its first equation,
                                   else -1 */
  int linear_iterations;        /* Krylov iterations of the step (newton_krylov; else 0) */
  int rejections;               /* rejected trial steps before this one was accepted */
} dg_marcher_info;

/* Figures since the marcher was made. */
typedef struct dg_marcher_stats {
  int64_t steps;             /* steps taken (successful or not) */
  int64_t residuals;         /* residual evaluations of the steps that completed */
  double res_reference;      /* SER reference |R_0| in use (0: none or unset) */
  int has_limiter;           /* the positivity guard ran; limit_total, limit_bad are valid */
  double limit_total;        /* element corrections (limiter_count_download) */
  int64_t limit_bad;         /* elements found with a non-physical mean */
  int64_t linear_iterations; /* Krylov iterations (newton_krylov; else 0) */
  int64_t rejections;        /* rejected trial steps (newton_krylov; else 0) */
} dg_marcher_stats;

typedef struct dg_marcher_ops dg_marcher_ops;

/* A marcher: its table and its private state. */
typedef struct dg_marcher {
  const dg_marcher_ops *ops;
  void *impl;
} dg_marcher;

struct dg_marcher_ops {
  const char *name;    /* the case's [solver] scheme value: "explicit_rk3", "lusgs" */
  const char *cfl_key; /* the [solver] key that bounds its step, for divergence advice */
  int time_accurate;   /* 1: can march in physical time (with settings.local_dt = 0) */
  int holds_av;        /* 1: with artificial viscosity it holds ε in the backend (av_hold), so
                          checkpoints store the held field (backend av_hold_get/_set) */
  int stop_any_step;   /* 1: its steps give the norms every step (LU-SGS, whose CFL law
                          reads them; Newton-Krylov), so colordg run tests the residual drop
                          (convergence, p-sequencing hand-over) after every step, not only at
                          monitor rows, and records the step that reaches it as a row */
  /* Makes the marcher on a backend context (ctx must outlive it); disc: the
   * discretisation ctx was created from. DG_ERR_UNSUPPORTED when the backend
   * cannot run this marcher. On failure m is left empty. */
  dg_status (*create)(const dg_backend *backend, dg_backend_ctx *ctx, const dg_disc *disc,
                      const dg_marcher_settings *settings, dg_marcher *m);
  /* Advances U (state-sized backend vector, read and written) by one step;
   * info (written, may not be NULL) says what it did, also on failure.
   * DG_ERR_DIVERGED: non-finite residual or step, singular block. */
  dg_status (*step)(dg_marcher *m, dg_vec *U, const dg_marcher_step_opts *opts,
                    dg_marcher_info *info);
  /* Optional (time-accurate marchers): the stable global step of U in *dt. */
  dg_status (*stable_step)(dg_marcher *m, const dg_vec *U, double *dt);
  /* Figures since create; with_limiter: also the positivity-guard counts (a
   * download: at monitor points or the end, not every step). */
  dg_status (*stats)(dg_marcher *m, int with_limiter, dg_marcher_stats *stats);
  /* Releases everything; m is zeroed. Safe on a zeroed marcher. */
  void (*destroy)(dg_marcher *m);
  /* Optional (NULL: nothing to keep): what the next step needs beyond U and
   * the held viscosity, at most DG_MARCHER_STATE_MAX doubles in state, their
   * count in *n, for a checkpoint; a restart hands them back through
   * settings.state, so that it takes the steps the run would have taken. */
  dg_status (*get_state)(dg_marcher *m, double *state, int *n);
};

/* Makes a marcher of table ops (see dg_marcher_ops.create). */
static inline dg_status dg_marcher_create(const dg_marcher_ops *ops, const dg_backend *backend,
                                          dg_backend_ctx *ctx, const dg_disc *disc,
                                          const dg_marcher_settings *settings, dg_marcher *m) {
  DG_CHECK(ops && m, DG_ERR_ARG, "dg_marcher_create: NULL table or output");
  m->ops = NULL;
  m->impl = NULL;
  return ops->create(backend, ctx, disc, settings, m);
}

/* One step (see dg_marcher_ops.step). */
static inline dg_status dg_marcher_step(dg_marcher *m, dg_vec *U, const dg_marcher_step_opts *opts,
                                        dg_marcher_info *info) {
  DG_CHECK(m && m->ops && info, DG_ERR_ARG, "dg_marcher_step: no marcher or NULL info");
  return m->ops->step(m, U, opts, info);
}

/* Releases m (safe on a zeroed marcher). */
static inline void dg_marcher_destroy(dg_marcher *m) {
  if (m && m->ops) m->ops->destroy(m);
  if (m) {
    m->ops = NULL;
    m->impl = NULL;
  }
}
