#pragma once
/* Implicit LU-SGS time marching for steady problems (docs/ARCHITECTURE.md §5,
 * docs/LUSGS.md). One iteration from Uⁿ:
 *   R = R(Uⁿ) (backend residual), Δt_e local steps at CFL_n,
 *   D_e = M_e/Δt_e − ∂R_e/∂U_e, LU-factored per element (lusgs_ops.h),
 *   forward sweep over colours 0..Nc−1:  ΔU*_e = D_e⁻¹ (R_e − Σ_{j∈L(e)} A_ej ΔU*_j)
 *   backward sweep over Nc−1..0:         ΔU_e  = ΔU*_e − D_e⁻¹ Σ_{j∈U(e)} A_ej ΔU_j
 *   n_sweeps − 1 further symmetric sweeps (relax over colours 0..Nc−1, then
 *   Nc−1..0: ΔU_e = D_e⁻¹ (R_e − Σ_{j∈N(e)} A_ej ΔU_j), N(e) all neighbours),
 *   Uⁿ⁺¹ = Uⁿ + ΔU,
 * with L(e)/U(e) the face neighbours of lower/higher colour and A_ej ΔU_j the
 * off-diagonal product of lusgs_ops.h (the face blocks are the Jacobians of
 * the residual's own numerical flux, so D + L + U = M/Δt − ∂R/∂U). Elements
 * of one colour share no face, so each colour is one parallel loop (one
 * kernel launch).
 *
 * The marcher is written against two tables: the dg_backend (residual, time
 * step, norms) and a lusgs_backend (block assembly and factorisation, the
 * colour sweeps, the update), so the CPU and CUDA versions share it. */
#include <stdint.h>

#include "coloring/coloring.h"
#include "core/dg_error.h"
#include "dg/backend.h"
#include "dg/disc.h"
#include "dg/marcher.h"

/* CFL laws (the values equal src/app/case.h's dg_cfl_law). */
#define LUSGS_CFL_EXPONENTIAL 0 /* CFL_n = cfl_min (cfl_max/cfl_min)^min(n/n_s, 1) */
#define LUSGS_CFL_SER 1         /* CFL_n = cfl_min |R_0|/|R_n| clipped to [cfl_min, cfl_max] */

typedef struct lusgs_ctx lusgs_ctx; /* a lusgs backend's private state */

/* Phases of one iteration, in the order lusgs_step runs them (a profile
 * hook, lusgs_set_phase_hook, is told when each begins). */
typedef enum {
  LUSGS_PHASE_AV_HOLD = 0, /* backend av_hold (artificial viscosity; else empty) */
  LUSGS_PHASE_RESIDUAL,    /* backend residual */
  LUSGS_PHASE_NORMS,       /* backend norms (host sync) */
  LUSGS_PHASE_TIMESTEP,    /* backend local time steps (host sync) */
  LUSGS_PHASE_FACE_JAC,    /* face flux Jacobians (the start of the backend's assemble) */
  LUSGS_PHASE_ASSEMBLY,    /* inviscid D_e of every element (marked by the backend) */
  LUSGS_PHASE_AV_ASSEMBLY, /* ε, viscous rows, viscous blocks and couplings (marked by the
                              backend) */
  LUSGS_PHASE_FACTOR,      /* factorisation, singular-block check (marked by the backend) */
  LUSGS_PHASE_FORWARD,     /* an upward pass (forward sweep or relaxation, with its viscous
                              products); marked once per pass */
  LUSGS_PHASE_BACKWARD,    /* a downward pass; marked once per pass */
  LUSGS_PHASE_UPDATE,      /* U += dU (and the positivity guard with viscosity) */
  LUSGS_N_PHASES           /* marked when the iteration ends */
} lusgs_phase;

/* Short name of a phase ("residual", ...; "end" for LUSGS_N_PHASES). */
const char *lusgs_phase_name(lusgs_phase phase);

/* An optional profile hook: mark(user, phase) is called when a phase
 * begins (several times for the sweep passes) and with LUSGS_N_PHASES when
 * the iteration ends; a phase lasts until the next mark. A failing mark
 * fails the step. Attached by lusgs_set_phase_hook; nothing is called
 * without one. */
typedef struct lusgs_phase_hook {
  dg_status (*mark)(void *user, lusgs_phase phase);
  void *user;
} lusgs_phase_hook;

/* The LU-SGS operations of one backend. Vectors are the dg_backend's
 * state-sized vectors (U, R, dU) and element-sized ones (dt). The
 * implementations trust their arguments: code outside lusgs.c calls them
 * only through the checked entry points below (lusgs_backend_assemble, ...),
 * which check them once. A new operation is a member here, its
 * implementation in lusgs_cpu.c and src/kernels/lusgs_cuda.cu, and one
 * entry point in lusgs.c. */
/* State vectors lusgs_apply stages a recording's input and output through
 * (lusgs_marcher.graph_rhs, graph_dU; allocated for a Krylov solver's
 * vectors, counted in the GPU memory plan of Newton-Krylov). */
#define LUSGS_STAGING_VECTORS 2

typedef struct lusgs_backend {
  const char *name; /* the dg_backend it pairs with: "cpu" */
  /* Creates the private state on top of a dg_backend context: storage for
   * the LU factors of every D_e and the face flux Jacobians
   * (n_faces·nqf·2·nvar² doubles); the sweeps of colour c run over the
   * colouring's element list of c (color_start, color_elems, color_first;
   * a device backend uploads color[] and the lists here, once). disc: the
   * discretisation bctx was created from; coloring: its checked colouring
   * (lusgs_create checked its size), referenced, must outlive the context. */
  dg_status (*create)(dg_backend_ctx *bctx, const dg_disc *disc, const dg_coloring *coloring,
                      lusgs_ctx **ctx);
  void (*destroy)(lusgs_ctx *ctx);
  /* Face flux Jacobians of U at time t (lusgs_face_jacobians, every face),
   * then D_e = M_e/dt[e] − ∂R_e/∂U_e (lusgs_block_assemble_jac) and its LU
   * factors for every element. DG_ERR_DIVERGED names an element whose block
   * is singular or not finite. */
  dg_status (*assemble)(lusgs_ctx *ctx, const double *U, double t, const double *dt);
  /* Forward sweep of the elements of one colour (R read, dU written there). */
  dg_status (*sweep_forward)(lusgs_ctx *ctx, int color, const double *U, const double *R,
                             double *dU);
  /* Backward sweep of the elements of one colour (dU updated there). */
  dg_status (*sweep_backward)(lusgs_ctx *ctx, int color, const double *U, double *dU);
  /* U += dU (state vectors). */
  dg_status (*update)(lusgs_ctx *ctx, double *U, const double *dU, double max_change);
  /* Block Gauss–Seidel relaxation of the elements of one colour with every
   * face neighbour's current value (extra symmetric sweeps):
   *   dU_e = D_e⁻¹ (R_e − Σ_{j ∈ N(e)} A_ej dU_j)
   * (R read, dU of the colour's elements written). With dU = 0 on the upper
   * colours it equals sweep_forward; after a forward pass, relaxing colours
   * Nc−1..0 equals sweep_backward. */
  dg_status (*relax)(lusgs_ctx *ctx, int color, const double *U, const double *R, double *dU);
  /* Artificial viscosity (view.av on; lusgs_av.h): for the elements of one
   * colour, R_out_e = R_e − Σ_{j ∈ which(e)} A^visc_ej dU_j (which =
   * LUSGS_LOWER / LUSGS_UPPER / LUSGS_ALL), with ε frozen at the last
   * assemble (which also adds the viscous part to D_e). R, dU read; R_out
   * written for the colour's elements. lusgs_step feeds R_out to
   * sweep_forward and relax, so the viscous coupling enters every sweep. */
  dg_status (*av_offdiag)(lusgs_ctx *ctx, int color, int which, const double *R, const double *dU,
                          double *R_out);
  /* Optional (NULL: the backend marks nothing itself): hands the backend
   * the marcher's profile hook (NULL detaches), so that its assemble marks
   * LUSGS_PHASE_ASSEMBLY, LUSGS_PHASE_AV_ASSEMBLY and LUSGS_PHASE_FACTOR. */
  void (*set_phase_hook)(lusgs_ctx *ctx, const lusgs_phase_hook *hook);
  /* Optional (NULL: DG_ERR_UNSUPPORTED from lusgs_matvec): the product of
   * the system the sweeps solve, with what the last assemble stored,
   *   y = (D + L + U) x = (M/Δt − ∂R/∂U) x
   * (D_e from its stored factors, the off-diagonal products over every face
   * neighbour, the viscous couplings with artificial viscosity, ε frozen;
   * lusgs_matvec_element_jac, lusgs_av_matvec_element_add). U: the state of
   * the assembly; x read, y written (state vectors, y not aliasing x). */
  dg_status (*matvec)(lusgs_ctx *ctx, const double *U, const double *x, double *y);
  /* Optional (NULL: the backend always keeps what matvec reads): from the
   * next assemble on, keep the LU factors of D_e that matvec reads, also
   * where the sweeps apply a stored D_e⁻¹ (the CUDA WARP_INVERSE and
   * TEAM_INVERSE variants: a second copy of the blocks; refused with DG_ERR_MEMORY when that copy
   * would not fit in the device's free memory). */
  dg_status (*keep_factors)(lusgs_ctx *ctx);
  /* Optional (NULL: DG_ERR_UNSUPPORTED from lusgs_set_inverse_single when
   * asked for single): from the next assemble on, the sweeps (and
   * lusgs_apply's products with D_e⁻¹) multiply by D_e⁻¹ rounded to single
   * precision (single = 1; 0: double, the default). Everything else stays
   * double: the blocks are assembled and inverted in double, the products
   * are summed in double, and the matvec reads the double LU factors. */
  dg_status (*set_inverse_single)(lusgs_ctx *ctx, int single);
  /* Optional (NULL: DG_ERR_UNSUPPORTED from lusgs_set_face_jacobian_forward
   * when asked for forward): from the next assemble on, the face flux
   * Jacobians by forward differences from the flux of the traces (forward
   * = 1: one flux per column, about half the work) or by central ones (0,
   * the default); lusgs_face_point_flux_jacobians. */
  dg_status (*set_face_jacobian_forward)(lusgs_ctx *ctx, int forward);
  /* Optional (NULL: DG_ERR_UNSUPPORTED from lusgs_mass): y_e = M_e x_e / dt[e]
   * for every element (lusgs_mass_element; dt element-sized). */
  dg_status (*mass)(lusgs_ctx *ctx, const double *dt, const double *x, double *y);
  /* Optional (NULL: the operations finish before they return, as on the
   * CPU): waits until the device has finished what was launched, so that a
   * host clock read after it times the work (the phase profile,
   * COLORDG_LUSGS_PHASES). */
  dg_status (*sync)(lusgs_ctx *ctx);
  /* Optional, all three or none (NULL: lusgs_apply launches every colour's
   * operations each time): a recording of lusgs_apply's sequence for replay
   * (the CUDA backend: a CUDA graph of the sweep kernels, so one launch
   * replaces hundreds on small meshes).
   *   graph_begin: the operations called on this context from now on are
   *     recorded, not run, until graph_end;
   *   graph_end: ends the recording (`failed`: the sequence stopped with an
   *     error; the recording is dropped) and keeps it for replay;
   *   graph_launch: runs the recording when the context would launch the
   *     recorded operations with the same arguments now (the same blocks,
   *     face Jacobians, viscous couplings and launch shapes: an assembly
   *     that reallocates or changes the viscous rows invalidates it), else
   *     sets *launched = 0 and runs nothing.
   * The caller keeps the vectors' addresses, the state's and the number of
   * sweeps the same between a recording and its replays. */
  dg_status (*graph_begin)(lusgs_ctx *ctx);
  dg_status (*graph_end)(lusgs_ctx *ctx, int failed);
  dg_status (*graph_launch)(lusgs_ctx *ctx, int *launched);
} lusgs_backend;

/* The CPU (OpenMP) LU-SGS operations; backend_cpu()
 * (src/backends/backend_select.h) pairs them with the CPU dg_backend. */
const lusgs_backend *lusgs_backend_cpu(void);

/* CFL control and inner sweeps of a run (from [solver] cfl_min, cfl_max,
 * cfl_ramp_iters, cfl_law, sweeps). */
typedef struct lusgs_opts {
  int cfl_law;           /* LUSGS_CFL_EXPONENTIAL or LUSGS_CFL_SER */
  double cfl_min;        /* > 0: CFL of the first iteration */
  double cfl_max;        /* >= cfl_min */
  int cfl_ramp_iters;    /* >= 1: n_s of the exponential law */
  int n_sweeps;          /* symmetric block Gauss–Seidel sweeps per iteration, 0..LUSGS_MAX_SWEEPS
                            (0 and 1: classic LU-SGS); the extra ones use the relax op */
  double av_relax;       /* artificial viscosity: relaxation ω in (0, 1] of the held ε at each
                            iteration, ε = ω ε_sensor(Uⁿ) + (1 - ω) ε_(n-1) (backend av_hold);
                            0 means 1 (ε of Uⁿ). Damps the period-two cycle of elements whose
                            viscosity switches on and off between iterations */
  double max_change;     /* > 0: each element's update is scaled so that its mean density and
                            pressure change by at most this fraction (lusgs_update_damping);
                            0: the plain update U += ΔU */
  int jacobian_interval; /* > 1: once the CFL is at cfl_max, lusgs_step rebuilds the blocks only
                            at iterations that are multiples of it (and when none are stored
                            for this CFL) and reuses them between; 0 and 1: every iteration */
} lusgs_opts;

#define LUSGS_MAX_SWEEPS 1000 /* largest n_sweeps */

/* A marcher: both tables, their contexts and the scratch vectors. */
typedef struct lusgs_marcher {
  const dg_backend *backend;
  dg_backend_ctx *ctx;
  const lusgs_backend *ops;
  lusgs_ctx *lctx;
  const dg_coloring *coloring; /* the colouring the sweeps follow (not owned) */
  int n_colors;                /* coloring->n_colors */
  int nvar;
  dg_vec R, dU;          /* state-sized */
  dg_vec R_av;           /* state-sized: R minus the viscous off-diagonal products (view.av on; else
                            zeroed) */
  dg_vec limit_count;    /* element-sized positivity-guard counts (view.av on; else zeroed) */
  int64_t n_elems;       /* elements of the discretisation */
  int av;                /* view.av != DG_AV_OFF */
  dg_vec dt;             /* element-sized */
  double res0;           /* |R_0| of the SER law (0 until the first iteration sets it) */
  double blocks_cfl;     /* the CFL lusgs_step assembled the stored blocks at (0: none, or
                            assembled by lusgs_assemble) */
  double blocks_dt_min;  /* the smallest time step of that assembly */
  lusgs_phase_hook hook; /* profile hook (mark NULL: none), lusgs_set_phase_hook */
  int halo_per_pass;     /* partitions: the ghosts' dU refreshed after each pass, not after each
                            colour (lusgs_apply) */
  /* lusgs_apply's recording (backend graph_begin/_end/_launch; one backend
   * process, no profile hook, COLORDG_LUSGS_GRAPH not 0): the arguments it
   * was recorded with, and the staging vectors of a right-hand side and
   * output other than R and dU (allocated at the first such call) */
  int graph_off;  /* 1: lusgs_apply launches every colour (no backend recording,
                     COLORDG_LUSGS_GRAPH=0, or a recording failed) */
  int graph_have; /* a recording exists for the arguments below */
  const double *graph_U, *graph_in;
  double *graph_out;
  int graph_passes;
  int64_t graph_replays; /* lusgs_apply calls served by a replay */
  dg_vec graph_rhs, graph_dU;
} lusgs_marcher;

/* The checked entry points of the marcher's lusgs_backend: the only way to
 * call its operations (lusgs_create, lusgs_destroy and lusgs_set_phase_hook
 * are those of create, destroy and set_phase_hook). Each checks, once, with
 * a message that names the operation and the backend
 * ("lusgs_backend_relax (backend cpu): colour 4 outside [0, 4)"): the
 * marcher is live, every vector is a live vector of the marcher's backend
 * context of the right kind and length (U, R, dU, R_out state-sized; dt
 * element-sized), the colour is in [0, n_colors), outputs do not alias
 * inputs, scalars are finite; an operation the table lacks gives
 * DG_ERR_UNSUPPORTED naming it. What each computes: the table's comment
 * (lusgs_backend). */
dg_status lusgs_backend_assemble(lusgs_marcher *marcher, const dg_vec *U, double t,
                                 const dg_vec *dt);
dg_status lusgs_backend_sweep_forward(lusgs_marcher *marcher, int color, const dg_vec *U,
                                      const dg_vec *R, dg_vec *dU);
dg_status lusgs_backend_sweep_backward(lusgs_marcher *marcher, int color, const dg_vec *U,
                                       dg_vec *dU);
dg_status lusgs_backend_relax(lusgs_marcher *marcher, int color, const dg_vec *U, const dg_vec *R,
                              dg_vec *dU);
/* max_change >= 0 (0: the plain update). */
dg_status lusgs_backend_update(lusgs_marcher *marcher, dg_vec *U, const dg_vec *dU,
                               double max_change);
/* which: LUSGS_LOWER, LUSGS_UPPER or LUSGS_ALL (lusgs_ops.h); the marcher
 * must have artificial viscosity (view.av on). */
dg_status lusgs_backend_av_offdiag(lusgs_marcher *marcher, int color, int which, const dg_vec *R,
                                   const dg_vec *dU, dg_vec *R_out);
/* Optional op matvec: y = (D + L + U) x (y distinct from x and U). */
dg_status lusgs_backend_matvec(lusgs_marcher *marcher, const dg_vec *U, const dg_vec *x, dg_vec *y);
/* Optional op mass: y = M x / dt per element (dt element-sized; y distinct from x). */
dg_status lusgs_backend_mass(lusgs_marcher *marcher, const dg_vec *dt, const dg_vec *x, dg_vec *y);

/* What one iteration did. */
typedef struct lusgs_info {
  double cfl;                   /* CFL number used */
  double dt_min;                /* smallest local time step */
  double res_norm[DG_MAX_NVAR]; /* backend norms of R(Uⁿ) per variable */
  double res_total;             /* sqrt(Σ_v res_norm[v]²) */
  int finite;                   /* 0 when R(Uⁿ) held NaN/Inf */
} lusgs_info;

/* The lusgs_backend that pairs with a dg_backend (its implicit_ops, set by
 * the tables of src/backends/backend_select.h), or NULL. */
const lusgs_backend *lusgs_backend_for(const dg_backend *backend);

/* Creates the marcher on a dg_backend context: picks the lusgs_backend
 * (DG_ERR_UNSUPPORTED for a backend without one, e.g. cuda), allocates the
 * scratch vectors and the private state. coloring: the element colouring
 * (coloring_build / coloring_from_colors, which checked it; its numbering is
 * the discretisation's: DG_ERR_ARG when its element count differs or it has
 * no colours or element lists); referenced, not copied. ctx and coloring
 * must outlive the marcher. */
dg_status lusgs_create(const dg_backend *backend, dg_backend_ctx *ctx, const dg_disc *disc,
                       const dg_coloring *coloring, lusgs_marcher *marcher);

/* Releases everything lusgs_create made and zeroes the struct (safe on a
 * zeroed struct). */
void lusgs_destroy(lusgs_marcher *marcher);

/* The CFL number of iteration `iteration` (1 for the first) under opts:
 * exponential: cfl_min (cfl_max/cfl_min)^min((iteration−1)/n_s, 1);
 * SER: cfl_min res0/res clipped to [cfl_min, cfl_max] (res0, res: residual
 * norms of the first and the current iteration; cfl_min when either is not
 * a positive finite number). */
double lusgs_cfl(const lusgs_opts *opts, int iteration, double res0, double res);

/* One LU-SGS iteration of the backend state U (read and written) at time t
 * (exact boundary states only) with opts->n_sweeps symmetric sweeps. The
 * blocks are assembled at Uⁿ, or with opts->jacobian_interval > 1 kept from
 * an earlier iteration at the same CFL (cfl_max) unless iteration is a
 * multiple of the interval; the residual is always R(Uⁿ).
 * iteration: 1 for the first (sets the SER reference |R_0| unless set, see
 * lusgs_set_reference). info may be NULL. Fails with DG_ERR_ARG for a bad
 * CFL range or sweep count, with DG_ERR_DIVERGED when R(Uⁿ) is not finite, a
 * time step is not positive or a block is singular; U is then unchanged. */
dg_status lusgs_step(lusgs_marcher *marcher, dg_vec *U, double t, int iteration,
                     const lusgs_opts *opts, lusgs_info *info);

/* The sweep sequence of lusgs_step alone: with the blocks and face
 * Jacobians the last assemble stored (lusgs_step leaves them), solves
 *   (D + L + U) dU = rhs
 * approximately by the forward and backward sweep over the colours and
 * n_sweeps − 1 further symmetric block Gauss–Seidel sweeps (n_sweeps 0 means
 * 1; with artificial viscosity every pass relaxes against rhs minus the
 * viscous off-diagonal products, lusgs_av.h). Linear in rhs; usable as a
 * preconditioner. U: the state the blocks were assembled at; rhs, dU:
 * state-sized backend vectors (rhs read, dU written; dU must not alias rhs,
 * U or the marcher's R_av). Marks LUSGS_PHASE_FORWARD / _BACKWARD per pass
 * when a hook is attached. Partitions (ghosts): the ghosts' dU is refreshed
 * from their owners after every colour, so the sweeps are those of one
 * process; with marcher->halo_per_pass only after every pass ([solver]
 * rank_coupling = pass), dU set to zero first. */
dg_status lusgs_apply(lusgs_marcher *marcher, const dg_vec *U, const dg_vec *rhs, int n_sweeps,
                      dg_vec *dU);

/* y = (D + L + U) x with the blocks and face Jacobians the last assemble
 * stored (lusgs_step or lusgs_assemble leaves them): the operator that
 * lusgs_apply approximately inverts, so lusgs_apply(matvec(x)) → x as the
 * sweeps grow. U: the state the blocks were assembled at; x, y: state-sized
 * vectors of the marcher's context (y must not alias x or U).
 * DG_ERR_UNSUPPORTED for a backend without the op (or a CUDA factorisation
 * variant that stores D⁻¹). */
dg_status lusgs_matvec(lusgs_marcher *marcher, const dg_vec *U, const dg_vec *x, dg_vec *y);

/* Asks the backend to keep, from the next assembly on, the LU factors that
 * lusgs_matvec reads (lusgs_backend.keep_factors; nothing where the backend
 * always keeps them). The Newton-Krylov marcher calls it once. */
dg_status lusgs_keep_factors(lusgs_marcher *marcher);

/* The precision of the D_e⁻¹ the sweeps multiply by, from the next assemble
 * on ([solver] inverse_precision): single = 1 rounds it to single precision
 * (half the bytes the sweeps read), 0 keeps double (the default).
 * DG_ERR_UNSUPPORTED where the backend cannot (lusgs_backend
 * .set_inverse_single). */
dg_status lusgs_set_inverse_single(lusgs_marcher *marcher, int single);

/* The differences of the face flux Jacobians, from the next assemble on
 * ([solver] face_jacobian): forward = 1 by forward differences (one flux
 * per column instead of two; the Jacobians differ by 2e-8 to 5e-8 relative,
 * the converged state not at all), 0 by central ones (the default).
 * DG_ERR_UNSUPPORTED where the backend cannot (lusgs_backend
 * .set_face_jacobian_forward). */
dg_status lusgs_set_face_jacobian_forward(lusgs_marcher *marcher, int forward);

/* Waits until the backend has finished what the marcher launched
 * (lusgs_backend.sync; nothing on the CPU), so that a host clock read after
 * it times the work. */
dg_status lusgs_sync(lusgs_marcher *marcher);

/* y = M x / dt element by element (the mass term of D, for
 * finite-difference Jacobian products): dt element-sized, x and y
 * state-sized vectors of the marcher's context (y not aliasing x). */
dg_status lusgs_mass(lusgs_marcher *marcher, const dg_vec *dt, const dg_vec *x, dg_vec *y);

/* U += θ_e dU element by element (lusgs_update_damping: θ_e = 1 when
 * max_change <= 0), the update of lusgs_step. U, dU: state-sized vectors
 * of the marcher's context. */
dg_status lusgs_update(lusgs_marcher *marcher, dg_vec *U, const dg_vec *dU, double max_change);

/* The assembly of lusgs_step alone: local steps dt (element-sized vector
 * of the marcher's context, read) for U at time t, then the face Jacobians,
 * the blocks D_e = M_e/dt_e − ∂R_e/∂U_e (with artificial viscosity: ε as the
 * backend holds it, frozen) and their factors. DG_ERR_DIVERGED for a
 * singular block. For lusgs_apply and lusgs_matvec. */
dg_status lusgs_assemble(lusgs_marcher *marcher, const dg_vec *U, double t, const dg_vec *dt);

/* Attaches a profile hook to the marcher and its lusgs backend (copied;
 * NULL or a hook with mark NULL detaches). */
void lusgs_set_phase_hook(lusgs_marcher *marcher, const lusgs_phase_hook *hook);

/* Positivity-guard figures of the viscous iterations since lusgs_create
 * (with artificial viscosity every iteration ends with the backend's
 * `limit`): as explicit_rk3_limit_count. DG_ERR_ARG without viscosity. */
dg_status lusgs_limit_count(lusgs_marcher *marcher, double *total, int64_t *n_bad);

/* Sets the SER reference residual |R_0| (a restart passes the first run's
 * value: sqrt(Σ_v ref_norm[v]²)). */
void lusgs_set_reference(lusgs_marcher *marcher, double res0);

/* The SER reference |R_0| in use (0 until the first iteration sets it), for
 * checkpoints: a restart passes it back to lusgs_set_reference. */
double lusgs_reference(const lusgs_marcher *marcher);

/* The LU-SGS marcher behind the marcher interface (src/dg/marcher.h):
 * settings cfl_law, cfl_min, cfl_max, cfl_ramp_iters, n_sweeps, av_relax,
 * max_change, res_reference (lusgs_set_reference), coloring; a step
 * is lusgs_step at the step's iteration (steady: info.dt = 0, norms every
 * iteration); stats.res_reference is lusgs_reference. */
const dg_marcher_ops *lusgs_marcher_ops(void);

/* The lusgs_marcher inside a marcher of lusgs_marcher_ops() (for lusgs_apply,
 * a profile hook, tests), else NULL. */
lusgs_marcher *lusgs_marcher_of(dg_marcher *m);
