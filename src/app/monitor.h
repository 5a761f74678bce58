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
 * The CSV is written line by line and flushed after every row, so it can be
 * plotted while the run goes on (tools/plot_history.py). */
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
} monitor_row;

/* An open monitor. Owns the history file. */
typedef struct {
  int dim, nvar;
  int quiet;     /* 1: no table on `out` */
  FILE *out;     /* table stream (not owned) */
  FILE *history; /* history.csv (owned) */
  char history_path[MONITOR_PATH_LEN];
  int rows; /* table lines printed so far (header repeats every 40) */
} run_monitor;

/* Opens <folder>/history.csv (the folder must exist). With resume_iteration
 * 0 the file is created anew with its header. With resume_iteration k > 0
 * (a restart) the rows of an existing history with iteration <= k are kept,
 * later rows are dropped, and new rows are appended; a missing history, or
 * one with other columns, is started anew. out receives the table unless
 * quiet. DG_ERR_IO names the file on failure. */
dg_status monitor_open(run_monitor *monitor, const char *folder, int dim, int resume_iteration,
                       FILE *out, int quiet);

/* Normalised log10 residuals: log_residual[v] = log10(norms[v] / reference[v])
 * (a reference of 0 counts as 1; a norm of 0 gives -300). Returns the largest
 * of them, the value the residual-drop stop compares with -drop. */
double monitor_log_residuals(int nvar, const double *norms, const double *reference,
                             double *log_residual);

/* Prints the table line (and the header before the first line and every 40
 * lines) and appends the CSV row, flushed. */
dg_status monitor_record(run_monitor *monitor, const monitor_row *row);

/* Short name of conservative variable v for a dim-D state ("rho", "rhou",
 * "rhov", "rhow", "rhoE"). */
const char *monitor_variable_name(int dim, int v);

/* Closes the history file. Safe on a zeroed or closed monitor. */
void monitor_close(run_monitor *monitor);
