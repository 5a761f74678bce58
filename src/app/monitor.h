#pragma once
/* Convergence monitor of a run: one table line on a stream and one row of
 * <output folder>/history.csv per monitor point.
 *
 * Columns (stdout and CSV, same order):
 *   iteration   iteration number (1-based: the residual of iteration n is the
 *               residual of the state that step n starts from)
 *   wall_s      wall time since the start of the run, seconds (a restarted
 *               run continues from the time stored in its restart file)
 *   res_<var>   log10(||R_v||_2 / ||R_v||_2 at iteration 1) for each
 *               conservative variable v (rho, rhou, rhov[, rhow], rhoE)
 *   cl, cd, cm  force and moment coefficients of the wall groups
 *   cfl         CFL number of the iteration
 *   time        physical time after the iteration (0 for steady runs; the
 *               stdout table shows it for time-accurate runs only)
 *   order       p-sequenced runs only ([discretization] p_sequence): the
 *               polynomial degree p of the stage the iteration ran at; the
 *               res_ columns are then normalised by the free-stream residual
 *               at that p (the stdout table shows it as a column "p")
 *   residual_total  [stop] residual_norm = total only: log10 of the L2 norm
 *               of all equations together against its first value
 *   linear_iterations  Newton-Krylov runs only: the FGMRES iterations of
 *               the step from this row's state, every try of it (rows
 *               sample the steps when monitor_every > 1; a restarted run
 *               writes the rows the uninterrupted run would)
 * On a terminal each table line ends with the progress (percentage of the
 * nearest stop criterion) and an ETA; redirected output (files, pipes,
 * scripts) keeps the plain table.
 * The CSV is written line by line and flushed after every row, so it can be
 * plotted while the run goes on (tools/plot_history.py). */
#include <stdint.h>
#include <stdio.h>

#include "core/dg_error.h"
#include "dg/physics.h"

#define MONITOR_PATH_LEN 1100

/* One monitor point. */
typedef struct {
  int iteration;
  double wall_seconds;
  double log_residual[DG_MAX_NVAR]; /* normalised log10 residual per variable */
  double cl, cd, cm;
  double cfl;
  double time;      /* physical time after the iteration (0 for steady runs) */
  double progress;  /* fraction of the way to the nearest stop criterion, < 0 unknown */
  double eta;       /* estimated seconds to that criterion, < 0 unknown */
  int order;        /* p of the iteration (written when the monitor shows the order) */
  double log_total; /* log10 of the L2 norm of all equations together against its first value
                       (monitor_total_log_residual; written when the monitor shows the total) */
  int64_t linear_iterations; /* FGMRES iterations of the row's step (written when the monitor
                                shows them) */
} monitor_row;

/* Progress against the stop criteria of a run (the table shows it on a
 * terminal only): max_iters, max_wall_seconds, the residual drop (from the
 * convergence rate since the first monitor point of this invocation) and an
 * end time. The percentage is that of the criterion nearest to stopping the
 * run, the ETA the smallest estimate. */
typedef struct {
  int max_iters;
  double max_wall, drop, end_time;
  int started;       /* the first update has set the start values */
  double wall_start; /* elapsed seconds at the first update */
  double f_start[4]; /* fractions at the first update: iterations, wall, residual, time */
} monitor_progress;

void monitor_progress_start(monitor_progress *p, int it0, int max_iters, double max_wall,
                            double drop, double end_time, double t0);

/* Sets row->progress and row->eta for iteration n after elapsed seconds of
 * this invocation, worst normalised log10 residual and time t. */
void monitor_progress_update(monitor_progress *p, int n, double elapsed, double worst, double t,
                             monitor_row *row);

/* An open monitor. Owns the history file. */
typedef struct {
  int dim, nvar;
  int quiet;      /* 1: no table on `out` */
  int tty;        /* 1: `out` is a terminal: table lines end with the progress and ETA */
  int show_time;  /* 1: the table has a time column (unsteady runs) */
  int show_order; /* 1: the table and history.csv have an order column (p-sequencing) */
  int show_total; /* 1: history.csv ends with a residual_total column ([stop] residual_norm = total)
                   */
  int show_linear; /* 1: then a linear_iterations column (Newton-Krylov) */
  FILE *out;       /* table stream (not owned) */
  FILE *history;   /* history.csv (owned) */
  char history_path[MONITOR_PATH_LEN];
  int rows; /* table lines printed so far (header repeats every 40) */
} run_monitor;

/* Opens <folder>/history.csv (the folder must exist). With resume_iteration
 * 0 the file is created anew with its header. With resume_iteration k > 0
 * (a restart) the rows of an existing history with iteration <= k are kept,
 * later rows are dropped, and new rows are appended; a missing history, or
 * one with other columns, is started anew. out receives the table unless
 * quiet. with_order: the rows end with the order column (p-sequenced runs;
 * without it the columns are those of runs before p-sequencing existed).
 * with_total: then a residual_total column (the log10 drop of all equations
 * together, what the residual-drop stop reads with residual_norm = total).
 * with_linear: then a linear_iterations column (Newton-Krylov runs).
 * DG_ERR_IO names the file on failure. */
dg_status monitor_open(run_monitor *monitor, const char *folder, int dim, int resume_iteration,
                       FILE *out, int quiet, int with_order, int with_total, int with_linear);

/* Normalised log10 residuals: log_residual[v] = log10(norms[v] / reference[v])
 * (a reference of 0 counts as 1; a norm of 0 gives -300). Returns the largest
 * of them, the value the residual-drop stop compares with -drop. */
double monitor_log_residuals(int nvar, const double *norms, const double *reference,
                             double *log_residual);

/* The drop of the whole residual: log10(sqrt(Σ_v norms[v]²) / sqrt(Σ_v
 * reference[v]²)) ([stop] residual_norm = total; a zero reference counts as
 * 1, a zero norm gives -300, NaN stays NaN). */
double monitor_total_log_residual(int nvar, const double *norms, const double *reference);

/* Prints the table line (and the header before the first line and every 40
 * lines) and appends the CSV row, flushed. */
dg_status monitor_record(run_monitor *monitor, const monitor_row *row);

/* Short name of conservative variable v for a dim-D state ("rho", "rhou",
 * "rhov", "rhow", "rhoE"). */
const char *monitor_variable_name(int dim, int v);

/* Closes the history file. Safe on a zeroed or closed monitor. */
void monitor_close(run_monitor *monitor);
