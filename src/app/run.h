#pragma once
/* `colordg run`: one run of a case from its file to its outputs (docs/ARCHITECTURE.md §1).
 *
 * run_case() reads the mesh, builds faces and geometry, checks the case
 * against the mesh, builds the discretisation, puts it on a backend (CPU or
 * CUDA), sets the initial state (freestream, the exact solution of
 * [verification], or a restart file) and marches it in time with the
 * explicit SSP-RK3 scheme (local time steps when [solver] local_time_step,
 * else a global step) or, with scheme = lusgs, the implicit LU-SGS scheme
 * (src/lusgs/lusgs.h: local steps, CFL law of [solver]; CPU and CUDA
 * backends) until a stop criterion holds:
 *   - residual drop: max over equations of log10(||R_v|| / ||R_v||_1) <= -drop
 *     (checked at monitor points);
 *   - max_iters iterations in all (a restarted run counts the iterations
 *     before the restart);
 *   - max_wall_seconds of wall time (0 = no limit);
 *   - end_time of physical time (time-accurate runs: explicit scheme with a
 *     global step; the last step is shortened to land on it);
 *   - SIGINT / SIGTERM: the iteration in progress is finished, checkpoint
 *     and outputs are written (RUN_STOP_SIGNAL, colordg exits with 3); a
 *     second signal ends the process at once;
 *   - divergence: a NaN/Inf residual norm or time step, or a non-positive
 *     time step (a non-admissible state) -> DG_ERR_DIVERGED naming the
 *     iteration and the equation; the last state that was finite at a monitor
 *     point is written as the solution before returning (never a non-finite
 *     one).
 * Before the first iteration the state is checked: a fresh one must be
 * physical at every volume point, one read from a file finite with physical
 * element means (DG_ERR_CASE naming the element and the cause).
 * Quadrature: volume rules exact to degree 2p+1 + dim (q-1) and face rules
 * to 2p+1 + (dim-1) (q-1) for geometric order q, so that the mass matrix
 * and the face flux of curved elements are integrated to the accuracy of
 * affine ones.
 *
 * Outputs in the output folder (created): history.csv (monitor.h),
 * checkpoint.cdgs every checkpoint_every iterations and at the end
 * (solution_io.h), solution.cdgs and solution.vtu at the end (and
 * solution_<iteration>.vtu + solution.pvd every vtu_every iterations or
 * output_interval of time, with the initial and the final state),
 * surface_cp.csv of the wall groups. Temporary files of dead writers
 * (<name>.tmp.<pid>) in the folder are removed at the start. A restart
 * continues bitwise as if the run had not stopped: the restart file
 * (version 2, docs/FORMATS.md) holds the state, the iteration, the time, the
 * CFL, the reference residual norms, the SER reference, the held LU-SGS
 * viscosity and the wall time; the solution.pvd series of the folder is
 * kept. A restart with another gamma is refused; another scheme, CFL law or
 * free stream is printed. */
#include <stdio.h>

#include "app/case.h"
#include "core/dg_error.h"
#include "dg/physics.h"
#include "mesh/mesh.h"

/* Overrides and settings of a run beyond the case file. */
typedef struct run_options {
  const char *backend;       /* "cpu", "cuda" or "auto"/NULL (cuda when available) */
  const char *restart;       /* restart (.cdgs) file, or NULL */
  const char *init;          /* initial state from a .cdgs of the same mesh at p' <= p, or NULL */
  const char *mesh;          /* mesh file replacing the case's [mesh] file, or NULL */
  const char *output_folder; /* replaces the case's [output] folder, or NULL */
  int max_iters;             /* > 0: replaces [stop] max_iters */
  int quiet;                 /* 1: no monitor table (history.csv is still written) */
} run_options;

/* Why a run stopped. */
typedef enum {
  RUN_STOP_CONVERGED = 0, /* residual drop reached */
  RUN_STOP_MAX_ITERS,
  RUN_STOP_WALL_TIME,
  RUN_STOP_DIVERGED,
  RUN_STOP_SIGNAL,  /* SIGINT/SIGTERM: checkpoint and outputs written (colordg exits with 3) */
  RUN_STOP_END_TIME /* [stop] end_time reached */
} run_stop_reason;

/* What a run achieved (for the caller and tests). */
typedef struct run_result {
  run_stop_reason reason;
  int iterations;       /* iterations in all (restart included) */
  double wall_seconds;  /* of this invocation, preprocessing included */
  double residual_drop; /* -max over equations of the normalised log10 residual at the last monitor
                           point */
  double cl, cd, cm;    /* force coefficients of the wall groups at the end */
  double time;          /* physical time reached (nondimensional) */
  int has_error;        /* 1 when error_l2 is set: exact_solution = isentropic_vortex with a
                         * global time step (a time-accurate run with a known solution) */
  double error_l2[DG_MAX_NVAR]; /* L2 error of each variable against the exact solution at `time` */
  int has_entropy_error;        /* 1 when entropy_error is set ([verification] entropy_error) */
  double entropy_error;         /* L2 entropy error of the final state (disc_entropy_error) */
  int64_t dofs;                 /* with has_entropy_error: degrees of freedom per variable */
  char backend[16];             /* backend that ran */
  char output_folder[DG_CASE_PATH_LEN];
} run_result;

/* Runs the case (see the top of this file), printing the monitor table and a
 * summary to out. result may be NULL. Errors: those of the steps (DG_ERR_IO,
 * DG_ERR_MESH, DG_ERR_CASE, ...), DG_ERR_UNSUPPORTED for the LU-SGS scheme
 * on the CUDA backend (not built yet) or a CUDA backend this build or machine lacks, and
 * DG_ERR_DIVERGED (result->reason = RUN_STOP_DIVERGED, outputs of the last
 * good state written). */
dg_status run_case(const dg_case *c, const run_options *options, FILE *out, run_result *result);

/* The signal (SIGINT or SIGTERM) that stopped the last run_case early, 0
 * when none did. run_case handles the first such signal by finishing the
 * iteration in progress, writing checkpoint.cdgs and the outputs and
 * returning DG_SUCCESS with reason RUN_STOP_SIGNAL; a second signal ends
 * the process at once (the default action). */
int run_signal_received(void);

/* The boundary group a run's BFS colouring starts from: the first mesh
 * group the case makes a wall, else "wall" (coloring_build falls back to
 * element 0 when it is absent). `colordg info --partitions` colours the
 * same way. */
const char *run_seed_group(const dg_case *c, const dg_mesh *mesh);

/* Exit code of colordg for a run stopped by a signal (README.md). */
#define RUN_EXIT_SIGNAL 3
