#pragma once
/* A backend: the operations of the time loop over opaque arrays that live on
 * the backend's device (docs/ARCHITECTURE.md §3). The marchers (explicit RK, LU-SGS)
 * are written once against this table; "cpu" (OpenMP) and "cuda" implement
 * it with the same DG_HD arithmetic (src/dg/residual_ops.h).
 *
 * Vectors are backend-owned double arrays: state-sized (disc n_coefs),
 * element-sized (n_elems) or face-flux-sized; a dg_vec is an opaque handle
 * (a device pointer on CUDA). Nothing in the time loop copies between host
 * and device except what `norms`, `forces` and `download` return. */
#include <stdint.h>

#include "core/dg_error.h"
#include "dg/disc.h"

typedef struct dg_backend_ctx dg_backend_ctx; /* a backend's private state */

typedef enum { DG_VEC_STATE = 0, DG_VEC_ELEM = 1 } dg_vec_kind;

typedef struct dg_backend {
  const char *name; /* "cpu" or "cuda" */

  /* Creates the backend's copy of the discretisation (device upload). */
  dg_status (*create)(const dg_disc *disc, dg_backend_ctx **ctx);
  void (*destroy)(dg_backend_ctx *ctx);
  /* Allocates a vector (zeroed) of the given kind; *vec is an opaque handle. */
  dg_status (*vec_alloc)(dg_backend_ctx *ctx, dg_vec_kind kind, double **vec);
  void (*vec_free)(dg_backend_ctx *ctx, double *vec);
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
  /* dt[e] = residual_element_timestep(U, cfl) for every element. When
   * global, every dt[e] is replaced by the minimum over elements and that
   * value is returned in *dt_min (always returned). */
  dg_status (*timestep)(dg_backend_ctx *ctx, const double *U, double cfl, int global, double *dt,
                        double *dt_min);
  /* Uout = a U0 + b (U + dt M⁻¹ R), element by element. */
  dg_status (*rk_update)(dg_backend_ctx *ctx, double a, const double *U0, double b, const double *U,
                         const double *dt, const double *R, double *Uout);
  /* norms[v] = sqrt(Σ_e Σ_m R_e,v,m²) for each variable (fixed summation order,
   * so two runs give identical bits); also returns 0 in *finite when any
   * entry is NaN/Inf, 1 otherwise. */
  dg_status (*norms)(dg_backend_ctx *ctx, const double *R, double *norms, int *finite);
  /* Sum of residual_face_force over the faces of the groups with
   * group_mask[g] != 0: out[0..5] = force (3) and moment (3) about x_ref. */
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

  /* The implicit (LU-SGS) operations that pair with this backend: a
   * `const lusgs_backend *` (src/lusgs/lusgs.h), typed void here because
   * lusgs sits above dg. NULL in the tables the backends define (the last
   * member, so positional initialisers leave it NULL); the selection layer
   * (src/backends/backend_select.h) hands out copies with it set, and
   * lusgs_backend_for reads it. */
  const void *implicit_ops;
} dg_backend;
