#pragma once
/* Newton-Krylov steady marcher (docs/NEWTON_KRYLOV.md, docs/ARCHITECTURE.md
 * §5): pseudo-transient continuation with inexact Newton steps. One step
 * from Uⁿ:
 *   R = R(Uⁿ) (ε of artificial viscosity held at Uⁿ, frozen for the step),
 *   Δt_e local steps at CFL_n (SER law towards cfl_max, or the exponential
 *   ramp; cut after a rejected step),
 *   assemble D_e = M_e/Δt_e − ∂R_e/∂U_e and the face Jacobians (the LU-SGS
 *   assembly of an internal lusgs_marcher),
 *   solve (M/Δt − ∂R/∂U) ΔU = R to a relative residual η by restarted
 *   FGMRES(m), right-preconditioned by lusgs_apply (k symmetric coloured
 *   sweeps), Jacobian-vector products analytic (lusgs_matvec) or by finite
 *   differences of the backend residual plus the mass term (lusgs_mass),
 *   U* = Uⁿ + θ ΔU (θ_e: lusgs_update_damping with max_change),
 *   accept when R(U*) is finite, no element mean is non-physical (the
 *   positivity guard's count) and |R(U*)| <= max_growth |R(Uⁿ)|; else cut
 *   the CFL and redo the step from Uⁿ.
 *
 * Written only against the dg_backend entry points, the dg_vec BLAS-1 and
 * the lusgs marcher, so the same code runs on the CPU and on CUDA (the
 * Krylov vectors are backend vectors: device memory on CUDA). Dot products
 * and norms are the backends' deterministic reductions; the small
 * Hessenberg least-squares problem (Givens rotations) is solved on the
 * host. */
#include <stdint.h>

#include "core/dg_error.h"
#include "dg/backend.h"
#include "dg/marcher.h"

#define NEWTON_JACOBIAN_ANALYTIC 0 /* lusgs_matvec: the assembled D + L + U */
#define NEWTON_JACOBIAN_FD 1       /* M/Δt x − (R(U + h x) − R(U)) / h */

#define NEWTON_MAX_KRYLOV 200 /* largest krylov_size */

/* A linear operator or preconditioner on backend vectors: y = op(x) (x
 * read, y written, distinct). */
typedef dg_status (*newton_linear_op)(void *user, const dg_vec *x, dg_vec *y);

/* FGMRES(m) storage: m + 1 basis vectors V, m preconditioned vectors Z
 * (backend state vectors), a work vector, and the host Hessenberg matrix,
 * rotations and right-hand side. */
typedef struct newton_krylov {
  int m;
  dg_vec *V, *Z; /* [m + 1], [m] */
  dg_vec w;
  double *H; /* (m + 1) × m, column-major: H[j*(m+1) + i] */
  double *cs, *sn, *g, *y;
  double *h2, *neg; /* [m + 1]: the second Gram-Schmidt pass, negated coefficients */
  int mgs;          /* 1: modified Gram-Schmidt (COLORDG_NEWTON_GS=mgs); 0: CGS2 */
} newton_krylov;

/* What one solve did. */
typedef struct newton_krylov_result {
  int iterations;      /* Krylov iterations (operator applications in the cycles) */
  int cycles;          /* cycles run (1 + restarts used) */
  double rel_residual; /* |b − A x| / |b| at the end (the Givens estimate of the last cycle) */
  int converged;       /* rel_residual <= eta */
} newton_krylov_result;

/* Makes the storage for Krylov size m (1..NEWTON_MAX_KRYLOV) on a backend
 * context; bytes: 2m + 2 state vectors. Reads COLORDG_NEWTON_GS (cgs2, the
 * default, or mgs; DG_ERR_ARG for another value). On failure k is left
 * empty. */
dg_status newton_krylov_create(const dg_backend *backend, dg_backend_ctx *ctx, int m,
                               newton_krylov *k);
void newton_krylov_destroy(newton_krylov *k);

/* Solves A x = b approximately by restarted right-preconditioned FGMRES(m)
 * with classical Gram-Schmidt applied twice (CGS2: per iteration two
 * batched dot products dg_vec_mdot and two batched updates dg_vec_maxpy,
 * as stable as modified Gram-Schmidt; COLORDG_NEWTON_GS=mgs selects MGS,
 * j + 1 single dot products and updates) and Givens rotations on the host:
 * x starts at 0; at most 1 + restarts cycles of at most m iterations; stops
 * when |b − A x| <= eta |b| (estimated by the rotations; the true residual
 * is recomputed at each restart). A(x) and P(x) are applied through the
 * callbacks (P: the preconditioner, x ↦ P⁻¹x; NULL: none). b and x:
 * distinct state vectors of the storage's context. b = 0 gives x = 0.
 * res may be NULL. DG_ERR_DIVERGED when a dot product or norm is not
 * finite. */
dg_status newton_fgmres(newton_krylov *k, newton_linear_op A, void *a_user, newton_linear_op P,
                        void *p_user, const dg_vec *b, dg_vec *x, int restarts, double eta,
                        newton_krylov_result *res);

/* Eisenstat-Walker choice 2 forcing term with safeguards: η = γ (|R_n| /
 * |R_{n−1}|)^α (γ = 0.9, α = 2); when γ η_prev^α > 0.1, η >= γ η_prev^α;
 * clipped to [eta_min, eta_max]. First step (res_prev <= 0 or eta_prev <= 0):
 * eta_max. */
double newton_ew_forcing(double res, double res_prev, double eta_prev, double eta_min,
                         double eta_max);

/* The Newton-Krylov marcher behind the marcher interface (src/dg/marcher.h):
 * [solver] scheme = newton_krylov. Settings: cfl_law, cfl_min, cfl_max,
 * cfl_ramp_iters, n_sweeps (preconditioner sweeps), av_relax, max_change,
 * res_reference, coloring, krylov_size, krylov_restarts, newton_forcing,
 * newton_jacobian, newton_max_growth, newton_cfl_cut, newton_max_cuts,
 * newton_reuse_residual. info.linear_iterations and info.rejections say
 * what each step did; stats.residuals counts every residual evaluation
 * (finite-difference products and rejected trials included). A step that
 * is rejected newton_max_cuts times in a row fails with DG_ERR_DIVERGED and
 * leaves U at Uⁿ (finite). */
const dg_marcher_ops *newton_marcher_ops(void);

/* Device/host bytes of the marcher's own vectors for a discretisation with
 * n_coefs coefficients and n_elems elements, Krylov size m (colordg info). */
int64_t newton_vector_bytes(int64_t n_coefs, int64_t n_elems, int m, int fd);
