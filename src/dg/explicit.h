#pragma once
/* Explicit SSP-RK3 time marching (Shu–Osher), written once against the
 * backend table (src/dg/backend.h), so it runs unchanged on the CPU and CUDA
 * backends:
 *   U1 = U + Δt M⁻¹R(U, t)
 *   U1 = ¾ U + ¼ (U1 + Δt M⁻¹R(U1, t + Δt))
 *   U  = ⅓ U + ⅔ (U1 + Δt M⁻¹R(U1, t + Δt/2))
 * Δt is one global step (time accurate; the stage times feed exact boundary
 * states) or a per-element local step (steady problems; stage times are then
 * meaningless and t is passed unchanged).
 * With opts.positivity the positivity guard (src/dg/limiter.h, the backend's
 * `limit`) is applied to the result of every stage, and the marcher counts
 * the limited elements on the backend (explicit_rk3_limit_count). */
#include "dg/backend.h"
#include "dg/marcher.h"

/* A marcher: the backend, its context and the scratch vectors it owns. */
typedef struct explicit_rk3 {
  const dg_backend *backend;
  dg_backend_ctx *ctx;
  dg_vec U1;          /* state-sized stage vector */
  dg_vec R;           /* state-sized residual */
  dg_vec dt;          /* element-sized time steps */
  int64_t n_elems;    /* elements of the discretisation */
  double dt_uploaded; /* the fixed step currently held in dt, 0 when none */
  dg_vec limit_count; /* element-sized: corrections per element, see explicit_rk3_limit_count */
} explicit_rk3;

/* Options of one step. */
typedef struct explicit_rk3_opts {
  double cfl;        /* Courant number for the CFL step (docs/ARCHITECTURE.md §5) */
  int local_dt;      /* nonzero: per-element steps (steady runs); else one global step */
  double dt_fixed;   /* > 0: use this global step instead of the CFL one (time-accurate studies) */
  int compute_norms; /* nonzero: fill res_norm with the norms of R(Uⁿ) (one extra pass) */
  int positivity;    /* nonzero: positivity guard on every stage result (backend limit) */
} explicit_rk3_opts;

/* What one step did. */
typedef struct explicit_rk3_info {
  double dt; /* the global step (local: the smallest element step, on steps with norms; else 0) */
  double res_norm[DG_MAX_NVAR]; /* backend norms of R(Uⁿ) when asked, else 0 */
  int finite;                   /* 0 when R(Uⁿ) held NaN/Inf (only when norms are computed) */
} explicit_rk3_info;

/* Allocates the scratch vectors on the backend. disc: the host
 * discretisation ctx was created from (sizes only). ctx must outlive rk. */
dg_status explicit_rk3_create(const dg_backend *backend, dg_backend_ctx *ctx, const dg_disc *disc,
                              explicit_rk3 *rk);

/* Releases the scratch vectors and zeroes rk. Safe on a zeroed struct. */
void explicit_rk3_destroy(explicit_rk3 *rk);

/* The global CFL time step of U (minimum over elements, docs/ARCHITECTURE.md §5) in
 * *dt; fills the marcher's dt scratch with it, so that a following
 * explicit_rk3_step with dt_fixed = *dt uploads nothing and takes the step
 * (and the bits) its own global CFL step would. */
dg_status explicit_rk3_global_step(explicit_rk3 *rk, const dg_vec *U, double cfl, double *dt);

/* Advances the backend state U (state-sized backend vector, read and
 * written) by one SSP-RK3 step from time t. info may be NULL. With dt_fixed
 * the step is dt_fixed; otherwise the CFL step of Uⁿ (global minimum unless
 * local_dt). Fails with DG_ERR_DIVERGED when the time step is not a positive
 * number, or when norms are asked for and R(Uⁿ) is not finite. */
dg_status explicit_rk3_step(explicit_rk3 *rk, dg_vec *U, double t, const explicit_rk3_opts *opts,
                            explicit_rk3_info *info);

/* Positivity-guard figures since explicit_rk3_create: *total = number of
 * element corrections (one per limited element per stage); *n_bad (may be
 * NULL) = elements whose mean was found non-physical at least once (the
 * guard left them alone). Downloads the element-sized count from the
 * backend: call it at the end of a run or at monitor points, not every
 * step. */
dg_status explicit_rk3_limit_count(explicit_rk3 *rk, double *total, int64_t *n_bad);

/* The same figures from any element-sized count vector that the backend's
 * `limit` op has filled (encoded as limiter_positivity_count says); used by
 * the LU-SGS marcher too. Downloads the vector. */
dg_status limiter_count_download(const dg_vec *count, double *total, int64_t *n_bad);

/* The SSP-RK3 marcher behind the marcher interface (src/dg/marcher.h):
 * settings cfl, local_dt, positivity; steps as explicit_rk3_step with the
 * step's dt_fixed and compute_norms; stable_step is explicit_rk3_global_step;
 * info.dt is the time advanced (0 with local steps). */
const dg_marcher_ops *explicit_rk3_marcher_ops(void);
