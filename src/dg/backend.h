#pragma once
/* A backend: the operations of the time loop over arrays that live on the
 * backend's device (docs/ARCHITECTURE.md §3). The marchers (explicit RK,
 * LU-SGS) are written once against it; "cpu" (OpenMP) and "cuda" implement
 * it with the same DG_HD arithmetic (src/dg/residual_ops.h).
 *
 * Two layers:
 *  - the table (struct dg_backend): raw function pointers over raw backend
 *    arrays (`double *`, a device pointer on CUDA), one per implementation;
 *    implementations trust their arguments (cheap internal asserts at most);
 *  - the checked entry points (dg_vec_create, dg_backend_residual, ...,
 *    src/dg/backend.c): the only way code outside backend.c calls a backend.
 *    Each checks its arguments once (NULL, vector kind and length, vectors
 *    of another context, forbidden aliasing, finite scalars) with a message
 *    naming the operation and the backend, answers DG_ERR_UNSUPPORTED for an
 *    optional operation a table lacks, and finishes every reduction (norms,
 *    dot, norm2, max_abs, forces, the global time-step minimum) in one
 *    function, the place where an MPI_Allreduce will go.
 *
 * Vectors (dg_vec) are typed: state-sized (disc n_coefs) or element-sized
 * (n_elems). Nothing in the time loop copies between host and device except
 * the reductions' few doubles and what download returns. */
#include <stdint.h>

#include "core/dg_error.h"
#include "dg/disc.h"
#include "parallel/comm.h"

typedef struct dg_backend_ctx dg_backend_ctx; /* a backend's private state */

typedef enum { DG_VEC_STATE = 0, DG_VEC_ELEM = 1 } dg_vec_kind;

typedef struct dg_backend dg_backend;

/* A backend vector: made by dg_vec_create, released by dg_vec_destroy. A
 * zeroed dg_vec ({0}) is "no vector" (destroy is a no-op on it). Code
 * outside the backends reads .data only to hand it to a backend-specific
 * routine (the lusgs_backend table, CUDA benchmarks). */
typedef struct dg_vec {
  double *data;              /* n doubles in the backend's memory (device memory on CUDA) */
  int64_t n;                 /* length: n_coefs (DG_VEC_STATE) or n_elems (DG_VEC_ELEM) */
  dg_vec_kind kind;          /* what it holds */
  const dg_backend *backend; /* the backend and context it belongs to */
  dg_backend_ctx *ctx;
} dg_vec;

struct dg_backend {
  const char *name; /* "cpu" or "cuda" */

  /* Creates the backend's copy of the discretisation (device upload). */
  dg_status (*create)(const dg_disc *disc, dg_backend_ctx **ctx);
  void (*destroy)(dg_backend_ctx *ctx);
  /* Allocates a vector (zeroed) of the given kind (callers: dg_vec_create). */
  dg_status (*vec_alloc)(dg_backend_ctx *ctx, dg_vec_kind kind, double **vec);
  void (*vec_free)(dg_backend_ctx *ctx, double *vec);
  /* The length of a vector of the given kind (n_coefs or n_elems). */
  int64_t (*vec_length)(const dg_backend_ctx *ctx, dg_vec_kind kind);
  /* Host <-> backend copies of a whole vector (outside the time loop, or a
   * checkpoint). */
  dg_status (*upload)(dg_backend_ctx *ctx, dg_vec_kind kind, const double *h_src, double *vec);
  dg_status (*download)(dg_backend_ctx *ctx, dg_vec_kind kind, const double *vec, double *h_dst);
  dg_status (*copy)(dg_backend_ctx *ctx, dg_vec_kind kind, const double *src, double *dst);

  /* R = residual of U at time t (weak form, src/dg/residual_ops.h). */
  dg_status (*residual)(dg_backend_ctx *ctx, const double *U, double t, double *R);
  /* When the discretisation has artificial viscosity (view.av), residual
   * and timestep compute the sensor and ε of the U they are given first
   * (src/dg/av_ops.h) and include the BR2 viscous terms.
   * av_eps: eps (element-sized backend vector, written) = mean ε of every
   * element for U (zeros when view.av is off); for outputs and monitors. */
  dg_status (*av_eps)(dg_backend_ctx *ctx, const double *U, double *eps);
  /* Holds the element viscosity between calls (dg_disc_state.av_eps_hold): with U
   * not NULL, held ε_e = av_hold_update(U, held, omega) for every element
   * (the sensor's ε of U at the first call, omega in (0, 1]); residual,
   * timestep and av_eps then use the held ε_e instead of the sensor of
   * their U. With U NULL the hold is released (the sensor again). A
   * no-op when view.av is off. */
  dg_status (*av_hold)(dg_backend_ctx *ctx, const double *U, double omega);
  /* dt[e] = residual_element_timestep(U, cfl) for every element; *dt_min
   * = the minimum over this process's elements (dg_backend_timestep makes
   * it global and fills dt for a global step); dt_min NULL: the minimum is
   * not wanted (the CUDA backend then skips its reduction and the copy to
   * the host). DG_ERR_DIVERGED when a step is not a positive number. */
  dg_status (*timestep)(dg_backend_ctx *ctx, const double *U, double cfl, double *dt,
                        double *dt_min);
  /* Uout = a U0 + b (U + dt M⁻¹ R), element by element. */
  dg_status (*rk_update)(dg_backend_ctx *ctx, double a, const double *U0, double b, const double *U,
                         const double *dt, const double *R, double *Uout);
  /* sumsq[v] = Σ_e Σ_m R_e,v,m² over this process's elements for each
   * variable v < nvar (fixed summation order, so two runs give identical
   * bits; dg_backend_norms combines and takes the square roots); also
   * returns 0 in *finite when any entry is NaN/Inf, 1 otherwise. */
  dg_status (*norms)(dg_backend_ctx *ctx, const double *R, double *sumsq, int *finite);
  /* Sum of residual_face_force over this process's faces of the groups
   * with group_mask[g] != 0: out[0..5] = force (3) and moment (3) about
   * x_ref (dg_backend_forces combines the processes' parts). */
  dg_status (*forces)(dg_backend_ctx *ctx, const double *U, const uint8_t *group_mask,
                      const double x_ref[3], double out[6]);
  /* Positivity guard (src/dg/limiter.h): limiter_positivity on every element
   * of U (state-sized, read and written in place). count (element-sized
   * backend vector, may be NULL) records per element the corrections and
   * whether a non-physical mean (element left unchanged) was seen, encoded
   * as limiter_positivity_count says (zero-initialised: no event). Nothing
   * comes back to the host: the caller downloads count when it wants the
   * figures (explicit_rk3_limit_count). */
  dg_status (*limit)(dg_backend_ctx *ctx, double *U, double *count);
  /* Circulation Γ of the far-field point vortex (dg_disc_state)
   * used from the next residual on by the farfield groups with
   * vortex_correction; no effect on other groups. Host-side only: no
   * device traffic. */
  dg_status (*set_circulation)(dg_backend_ctx *ctx, double circulation);
  /* The held element viscosity of av_hold (n_elems host doubles; -1 = not
   * held), for checkpoints: get copies it to h_hold, set replaces it from
   * h_hold (a restart continues the relaxation bit for bit). get fills -1
   * and set does nothing when view.av is off. */
  dg_status (*av_hold_get)(dg_backend_ctx *ctx, double *h_hold);
  dg_status (*av_hold_set)(dg_backend_ctx *ctx, const double *h_hold);

  /* BLAS-1 over n doubles of backend arrays (the entry points pass a
   * vector's length). y = a x + b y (b == 0: y is not read); x = a x;
   * x = value. */
  dg_status (*axpby)(dg_backend_ctx *ctx, int64_t n, double a, const double *x, double b,
                     double *y);
  dg_status (*scale)(dg_backend_ctx *ctx, int64_t n, double a, double *x);
  dg_status (*set)(dg_backend_ctx *ctx, int64_t n, double value, double *x);
  /* Reductions, this process's part only (the entry points combine the
   * parts at the reduction point of src/dg/backend.c): *local = Σ x_i y_i,
   * Σ x_i², max |x_i| (NaN when an entry is NaN). Sums in a fixed order that
   * depends on n only (not on the thread count or the launch), so two runs
   * give the same bits. */
  dg_status (*dot)(dg_backend_ctx *ctx, int64_t n, const double *x, const double *y, double *local);
  dg_status (*sum_squares)(dg_backend_ctx *ctx, int64_t n, const double *x, double *local);
  dg_status (*max_abs)(dg_backend_ctx *ctx, int64_t n, const double *x, double *local);

  /* The implicit (LU-SGS) operations that pair with this backend: a
   * `const lusgs_backend *` (src/lusgs/lusgs.h), typed void here because
   * lusgs sits above dg. NULL in the tables the backends define (the last
   * member, so positional initialisers leave it NULL); the selection layer
   * (src/backends/backend_select.h) hands out copies with it set, and
   * lusgs_backend_for reads it. */
  const void *implicit_ops;

  /* The communicator whose processes hold the other partitions of ctx's
   * discretisation (dg_disc.halo), over which the entry points combine
   * reductions; NULL (or no member): one process. */
  const struct dg_comm *(*comm)(const dg_backend_ctx *ctx);
  /* The ghost entries of the state-sized vector x from their owners (the
   * halo exchange of the residual, on any state vector: LU-SGS's dU after
   * each colour). Optional: NULL, or nothing to do in one process. */
  dg_status (*halo)(dg_backend_ctx *ctx, double *x);
  /* Optional batched forms (NULL: the entry points loop over dot and
   * axpby): local[c] = Σ x_c,i y_i for c < k, each with the bits of dot
   * (x: k backend arrays); y += Σ_c a_c x_c, the terms added in order c =
   * 0, 1, ... with the bits of k calls of axpby(a_c, x_c, 1, y).
   * A device backend saves the launches and host syncs of k separate calls. */
  dg_status (*mdot)(dg_backend_ctx *ctx, int64_t n, int k, const double *const *x, const double *y,
                    double *local);
  dg_status (*maxpy)(dg_backend_ctx *ctx, int64_t n, int k, const double *a, const double *const *x,
                     double *y);
  /* Optional (NULL: nothing to check, as on the host): DG_ERR_MEMORY, naming
   * `what`, the need and what is free, when `bytes` more would not fit in the
   * device's free memory; called before a large allocation, so that a run
   * that does not fit is refused before it allocates. */
  dg_status (*memory_check)(dg_backend_ctx *ctx, int64_t bytes, const char *what);
  /* Optional (NULL: the entry point calls residual, then rk_update): R =
   * residual of U at time t, then Uout = a U0 + b (U + dt M⁻¹ R) with the
   * bits of those two calls, in one pass where the backend can (the CUDA
   * element kernels finish the stage; the CPU updates each element after
   * its residual). With keep_R 0 the backend may leave R unwritten. Uout
   * may be U0 or U (not R). */
  dg_status (*residual_rk)(dg_backend_ctx *ctx, const double *U, double t, double a,
                           const double *U0, double b, const double *dt, double *R, int keep_R,
                           double *Uout);
};

/* ------------------------------------------------ checked entry points
 * (src/dg/backend.c). b and ctx: a backend table and a context it created.
 * Every vector must be a live dg_vec of that context, of the kind the
 * operation names; the errors name the operation and the backend
 * ("dg_backend_residual (backend cpu): R is an element-sized vector; expected
 * state-sized"). */

/* Makes b's context of disc (device upload on CUDA); disc must outlive it. */
dg_status dg_backend_create(const dg_backend *b, const dg_disc *disc, dg_backend_ctx **ctx);
/* Releases ctx (NULL: no-op); its vectors must be destroyed first. */
void dg_backend_destroy(const dg_backend *b, dg_backend_ctx *ctx);
/* The backend's name ("cpu", "cuda"; "?" for NULL). */
const char *dg_backend_name(const dg_backend *b);

/* *v = a new zeroed vector of the given kind on ctx. On failure *v is
 * zeroed. */
dg_status dg_vec_create(const dg_backend *b, dg_backend_ctx *ctx, dg_vec_kind kind, dg_vec *v);
/* Releases v's memory and zeroes v; no-op on a zeroed vector or NULL. */
void dg_vec_destroy(dg_vec *v);
/* Host <-> backend copies of a whole vector: h_src / h_dst hold v->n
 * doubles (outside the time loop, or a checkpoint). */
dg_status dg_vec_upload(const double *h_src, dg_vec *v);
dg_status dg_vec_download(const dg_vec *v, double *h_dst);
/* dst = src (same context, kind and length; the same vector is a no-op). */
dg_status dg_vec_copy(const dg_vec *src, dg_vec *dst);
/* The entry points' vector check, for the checked entry points of other
 * tables (src/lusgs/lusgs.c): v (called name in the message) is a live
 * vector of (b, ctx) of the given kind and length; else DG_ERR_ARG with a
 * message that starts "what (backend NAME): vector name ...". */
dg_status dg_vec_check(const char *what, const dg_backend *b, const dg_backend_ctx *ctx,
                       const dg_vec *v, const char *name, dg_vec_kind kind);

/* R = residual of U at time t (weak form, src/dg/residual_ops.h); U, R
 * state-sized, distinct. */
dg_status dg_backend_residual(const dg_backend *b, dg_backend_ctx *ctx, const dg_vec *U, double t,
                              dg_vec *R);
/* dt (element-sized) = residual_element_timestep(U, cfl) for every element;
 * *dt_min = the smallest over all elements (of all processes, see the
 * reduction point in backend.c). With global, every dt[e] = *dt_min.
 * dt_min may be NULL for local steps (!global): in one process nothing is
 * reduced or copied to the host, so a marcher that needs no minimum keeps
 * the device running ahead. DG_ERR_DIVERGED when a step is not a positive
 * number. */
dg_status dg_backend_timestep(const dg_backend *b, dg_backend_ctx *ctx, const dg_vec *U, double cfl,
                              int global, dg_vec *dt, double *dt_min);
/* Uout = a U0 + b (U + dt M⁻¹ R), element by element (table rk_update);
 * U0 may be NULL when a == 0; Uout may be U0 or U, not R. */
dg_status dg_backend_rk_update(const dg_backend *b, dg_backend_ctx *ctx, double a, const dg_vec *U0,
                               double bcoef, const dg_vec *U, const dg_vec *dt, const dg_vec *R,
                               dg_vec *Uout);
/* One RK stage from U: R = residual of U at time t, then Uout = a U0 +
 * bcoef (U + dt M⁻¹ R), the bits of dg_backend_residual followed by
 * dg_backend_rk_update (table residual_rk where the backend has it). R is
 * scratch: it holds the residual afterwards only when keep_R. U0 may be
 * NULL when a == 0; Uout may be U0 or U, not R; U and R distinct. */
dg_status dg_backend_residual_rk(const dg_backend *b, dg_backend_ctx *ctx, const dg_vec *U,
                                 double t, double a, const dg_vec *U0, double bcoef,
                                 const dg_vec *dt, dg_vec *R, int keep_R, dg_vec *Uout);
/* norms[v] = sqrt(Σ R_v²) per variable (bitwise reproducible); norms has
 * DG_MAX_NVAR entries (0 past nvar); *finite (may be NULL) = 0 when R holds
 * NaN/Inf. */
dg_status dg_backend_norms(const dg_backend *b, dg_backend_ctx *ctx, const dg_vec *R, double *norms,
                           int *finite);
/* Force (3) and moment (3) about x_ref of the face groups with
 * group_mask[g] != 0 (table forces). */
dg_status dg_backend_forces(const dg_backend *b, dg_backend_ctx *ctx, const dg_vec *U,
                            const uint8_t *group_mask, const double x_ref[3], double out[6]);
/* Optional: positivity guard on U (state) in place; count (element-sized
 * or NULL) accumulates the events (table limit). */
dg_status dg_backend_limit(const dg_backend *b, dg_backend_ctx *ctx, dg_vec *U, dg_vec *count);
/* Optional: eps (element-sized) = element-mean ε of U (table av_eps). */
dg_status dg_backend_av_eps(const dg_backend *b, dg_backend_ctx *ctx, const dg_vec *U, dg_vec *eps);
/* Optional: hold the element viscosity (table av_hold); U NULL releases it;
 * omega in (0, 1] when U is given. */
/* The ghost entries of the state vector x from the ranks that own them
 * (collective in a distributed run; nothing in one process or with a
 * backend without the operation). */
dg_status dg_backend_halo(const dg_backend *b, dg_backend_ctx *ctx, dg_vec *x);

/* The table's memory_check (nothing without it): refuses before an
 * allocation of `bytes` device bytes for `what` that would not fit. */
dg_status dg_backend_memory_check(const dg_backend *b, dg_backend_ctx *ctx, int64_t bytes,
                                  const char *what);

dg_status dg_backend_av_hold(const dg_backend *b, dg_backend_ctx *ctx, const dg_vec *U,
                             double omega);
/* Optional: the far-field vortex circulation (finite) for the next residuals. */
dg_status dg_backend_set_circulation(const dg_backend *b, dg_backend_ctx *ctx, double circulation);
/* Optional: the held viscosity as n_elems host doubles (checkpoints). */
dg_status dg_backend_av_hold_get(const dg_backend *b, dg_backend_ctx *ctx, double *h_hold);
dg_status dg_backend_av_hold_set(const dg_backend *b, dg_backend_ctx *ctx, const double *h_hold);

/* BLAS-1 on vectors of one context (same kind and length; checked):
 * y = a x + b y (b == 0: y is not read, so it may hold NaN); x = a x;
 * x = value (every entry). */
dg_status dg_vec_axpby(double a, const dg_vec *x, double b, dg_vec *y);
dg_status dg_vec_scale(double a, dg_vec *x);
dg_status dg_vec_set(double value, dg_vec *x);
/* Global reductions (over all processes, see the reduction point in
 * backend.c), bitwise reproducible run to run: *result = Σ x_i y_i,
 * sqrt(Σ x_i²), max |x_i| (NaN when an entry is NaN). CPU and CUDA agree to
 * round-off (different fixed orders). */
dg_status dg_vec_dot(const dg_vec *x, const dg_vec *y, double *result);
dg_status dg_vec_norm2(const dg_vec *x, double *result);
dg_status dg_vec_max_abs(const dg_vec *x, double *result);
/* Batched: result[c] = dg_vec_dot(&x[c], y) for c < k (one reduction point
 * for all k), and y += Σ_c a[c] x[c] (the terms in order): the same bits
 * as the k single calls on the CPU and CUDA backends. x: k vectors of
 * y's context, kind and length; 1 <= k <= DG_VEC_BATCH_MAX. */
#define DG_VEC_BATCH_MAX 256
dg_status dg_vec_mdot(int k, const dg_vec *x, const dg_vec *y, double *result);
dg_status dg_vec_maxpy(int k, const double *a, const dg_vec *x, dg_vec *y);
