#include "app/monitor.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *monitor_variable_name(int dim, int v) {
  static const char *const names2[] = {"rho", "rhou", "rhov", "rhoE"};
  static const char *const names3[] = {"rho", "rhou", "rhov", "rhow", "rhoE"};
  if (v < 0 || v >= dim + 2) return "?";
  return dim == 3 ? names3[v] : names2[v];
}

/* The CSV header line (without newline) into buf. */
static void monitor_header(int dim, int with_order, int with_total, int with_linear, char *buf,
                           size_t size) {
  size_t n = (size_t)snprintf(buf, size, "iteration,wall_s");
  for (int v = 0; v < dim + 2 && n < size; ++v)
    n += (size_t)snprintf(buf + n, size - n, ",res_%s", monitor_variable_name(dim, v));
  if (n < size)
    snprintf(buf + n, size - n, ",cl,cd,cm,cfl,time%s%s%s", with_order ? ",order" : "",
             with_total ? ",residual_total" : "", with_linear ? ",linear_iterations" : "");
}

/* Copies the rows of an existing history with iteration <= keep into a
 * temporary file and renames it over the history. *kept = 1 when the old
 * history was usable (same header), 0 when it must be started anew. */
static dg_status monitor_truncate(const char *path, const char *header, int keep, int *kept) {
  *kept = 0;
  FILE *old = fopen(path, "r");
  if (!old) return DG_SUCCESS;
  char tmp[MONITOR_PATH_LEN + 8];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *fresh = NULL;
  char line[4096];
  dg_status status = DG_SUCCESS;
  if (!fgets(line, sizeof line, old)) goto done;
  line[strcspn(line, "\r\n")] = '\0';
  if (strcmp(line, header)) goto done;
  fresh = fopen(tmp, "w");
  if (!fresh) {
    status = dg_error_set(DG_ERR_IO, __FILE__, __LINE__, __func__, "cannot write %s: %s", tmp,
                          strerror(errno));
    goto done;
  }
  fprintf(fresh, "%s\n", header);
  while (fgets(line, sizeof line, old)) {
    char *end = NULL;
    const long iteration = strtol(line, &end, 10);
    if (end == line || *end != ',' || iteration > keep) break;
    fputs(line, fresh);
  }
  if (fclose(fresh) != 0) {
    fresh = NULL;
    status = dg_error_set(DG_ERR_IO, __FILE__, __LINE__, __func__, "cannot write %s", tmp);
    goto done;
  }
  fresh = NULL;
  if (rename(tmp, path) != 0) {
    status = dg_error_set(DG_ERR_IO, __FILE__, __LINE__, __func__, "cannot rename %s to %s: %s",
                          tmp, path, strerror(errno));
    goto done;
  }
  *kept = 1;
done:
  if (fresh) fclose(fresh);
  fclose(old);
  return status;
}

dg_status monitor_open(run_monitor *monitor, const char *folder, int dim, int resume_iteration,
                       FILE *out, int quiet, int with_order, int with_total, int with_linear) {
  memset(monitor, 0, sizeof *monitor);
  DG_CHECK(dim == 2 || dim == 3, DG_ERR_ARG, "monitor: dimension %d is not 2 or 3", dim);
  monitor->dim = dim;
  monitor->nvar = dim + 2;
  monitor->quiet = quiet;
  monitor->out = out;
  monitor->show_order = with_order;
  monitor->show_total = with_total;
  monitor->show_linear = with_linear;
  const int n =
      snprintf(monitor->history_path, sizeof monitor->history_path, "%s/history.csv", folder);
  DG_CHECK(n > 0 && (size_t)n < sizeof monitor->history_path, DG_ERR_ARG,
           "output folder name too long: %s", folder);
  char header[256];
  monitor_header(dim, with_order, with_total, with_linear, header, sizeof header);
  int kept = 0;
  if (resume_iteration > 0)
    DG_CALL(monitor_truncate(monitor->history_path, header, resume_iteration, &kept));
  monitor->history = fopen(monitor->history_path, kept ? "a" : "w");
  DG_CHECK(monitor->history, DG_ERR_IO, "cannot write %s: %s", monitor->history_path,
           strerror(errno));
  if (!kept) {
    fprintf(monitor->history, "%s\n", header);
    fflush(monitor->history);
  }
  return DG_SUCCESS;
}

double monitor_log_residuals(int nvar, const double *norms, const double *reference,
                             double *log_residual) {
  double worst = -HUGE_VAL;
  for (int v = 0; v < nvar; ++v) {
    const double ref = reference[v] > 0.0 ? reference[v] : 1.0;
    const double ratio = norms[v] / ref;
    /* NaN stays NaN so that the caller sees it. */
    log_residual[v] = ratio > 0.0 ? log10(ratio) : (ratio == 0.0 ? -300.0 : ratio);
    if (!(log_residual[v] <= worst)) worst = log_residual[v];
  }
  return worst;
}

double monitor_total_log_residual(int nvar, const double *norms, const double *reference) {
  double num = 0.0, den = 0.0;
  for (int v = 0; v < nvar; ++v) {
    num += norms[v] * norms[v];
    den += reference[v] * reference[v];
  }
  const double ratio = sqrt(num) / (den > 0.0 ? sqrt(den) : 1.0);
  return ratio > 0.0 ? log10(ratio) : (ratio == 0.0 ? -300.0 : ratio);
}

dg_status monitor_record(run_monitor *monitor, const monitor_row *row) {
  const int nv = monitor->nvar;
  if (!monitor->quiet && monitor->out) {
    if (monitor->rows % 40 == 0) {
      fprintf(monitor->out, "%9s %9s", "iter", "wall(s)");
      for (int v = 0; v < nv; ++v)
        fprintf(monitor->out, " %8s", monitor_variable_name(monitor->dim, v));
      fprintf(monitor->out, " %12s %12s %9s", "CL", "CD", "CFL");
      if (monitor->show_time) fprintf(monitor->out, " %12s", "time");
      if (monitor->show_order) fprintf(monitor->out, " %2s", "p");
      fputc('\n', monitor->out);
    }
    fprintf(monitor->out, "%9d %9.2f", row->iteration, row->wall_seconds);
    for (int v = 0; v < nv; ++v) fprintf(monitor->out, " %8.3f", row->log_residual[v]);
    fprintf(monitor->out, " %12.6f %12.6f %9.3g", row->cl, row->cd, row->cfl);
    if (monitor->show_time) fprintf(monitor->out, " %12.6g", row->time);
    if (monitor->show_order) fprintf(monitor->out, " %2d", row->order);
    if (monitor->tty && row->progress >= 0.0) {
      fprintf(monitor->out, "  %3.0f%%", 100.0 * (row->progress < 1.0 ? row->progress : 1.0));
      if (row->eta >= 0.0) {
        const long s = (long)(row->eta + 0.5);
        if (s >= 3600)
          fprintf(monitor->out, " ETA %ldh%02ldm", s / 3600, s / 60 % 60);
        else
          fprintf(monitor->out, " ETA %ldm%02lds", s / 60, s % 60);
      }
    }
    fputc('\n', monitor->out);
    fflush(monitor->out);
  }
  ++monitor->rows;
  FILE *h = monitor->history;
  DG_CHECK(h, DG_ERR_ARG, "monitor_record: the monitor is not open");
  fprintf(h, "%d,%.6f", row->iteration, row->wall_seconds);
  for (int v = 0; v < nv; ++v) fprintf(h, ",%.12e", row->log_residual[v]);
  fprintf(h, ",%.12e,%.12e,%.12e,%.12e,%.17g", row->cl, row->cd, row->cm, row->cfl, row->time);
  if (monitor->show_order) fprintf(h, ",%d", row->order);
  if (monitor->show_total) fprintf(h, ",%.12e", row->log_total);
  if (monitor->show_linear) fprintf(h, ",%lld", (long long)row->linear_iterations);
  fputc('\n', h);
  DG_CHECK(fflush(h) == 0 && !ferror(h), DG_ERR_IO, "cannot write %s: %s", monitor->history_path,
           strerror(errno));
  return DG_SUCCESS;
}

void monitor_close(run_monitor *monitor) {
  if (monitor->history) fclose(monitor->history);
  monitor->history = NULL;
}

void monitor_progress_start(monitor_progress *p, int it0, int max_iters, double max_wall,
                            double drop, double end_time, double t0) {
  (void)it0;
  (void)t0;
  memset(p, 0, sizeof *p);
  p->max_iters = max_iters;
  p->max_wall = max_wall;
  p->drop = drop;
  p->end_time = end_time;
}

void monitor_progress_update(monitor_progress *p, int n, double elapsed, double worst, double t,
                             monitor_row *row) {
  double f[4] = {-1.0, -1.0, -1.0, -1.0};
  if (p->max_iters > 0) f[0] = (double)n / (double)p->max_iters;
  if (p->max_wall > 0.0) f[1] = elapsed / p->max_wall;
  if (p->drop > 0.0 && isfinite(worst)) f[2] = -worst / p->drop;
  if (p->end_time > 0.0) f[3] = t / p->end_time;
  if (!p->started) {
    p->started = 1;
    p->wall_start = elapsed;
    memcpy(p->f_start, f, sizeof f);
  }
  row->progress = -1.0;
  row->eta = -1.0;
  for (int k = 0; k < 4; ++k) {
    if (f[k] < 0.0) continue;
    if (f[k] > row->progress) row->progress = f[k];
    const double df = f[k] - p->f_start[k], dw = elapsed - p->wall_start;
    if (df > 0.0 && dw > 0.0) {
      double eta = (1.0 - f[k]) * dw / df;
      if (eta < 0.0) eta = 0.0;
      if (row->eta < 0.0 || eta < row->eta) row->eta = eta;
    }
  }
}
