/* Tests of `colordg run` (src/app/run.h, src/app/monitor.h) on a small
 * periodic isentropic-vortex case made here (no Gmsh needed):
 *   - a short run writes history.csv (header, one row per monitor point,
 *     finite values), the solution (.cdgs, .vtu), the VTU series and a
 *     checkpoint;
 *   - a run of N iterations and a run of N/2 + restart + N/2 give the same
 *     final state file byte for byte and the same history rows (wall time
 *     aside);
 *   - an absurd CFL diverges with DG_ERR_DIVERGED and leaves the last good
 *     (finite) state in solution.cdgs;
 *   - scheme = lusgs runs (LU-SGS on the CPU backend);
 *   - the monitor's normalisation and history truncation on restart.
 *
 * usage: test_run WORKDIR             run the tests in WORKDIR
 *        test_run --write-fixture DIR write the mesh and cases the CLI tests
 *                                     (tests/run.cmake) use, then exit */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/case.h"
#include "app/monitor.h"
#include "app/run.h"
#include "app/solution_io.h"
#include "backends/backend_select.h"
#include "dg/backend.h"
#include "mesh/mesh.h"
#include "mesh/mesh_structured.h"
#include "test_util.h"

/* Writes the periodic vortex mesh (8 x 8 quads on [-5,5]^2) to dir. */
static dg_status write_mesh(const char *dir) {
  dg_mesh_structured_opts opts = mesh_structured_defaults(2);
  opts.kind = MESH_STRUCTURED_QUAD;
  opts.n[0] = opts.n[1] = 8;
  opts.lo[0] = opts.lo[1] = -5.0;
  opts.hi[0] = opts.hi[1] = 5.0;
  opts.periodic[0] = opts.periodic[1] = 1;
  dg_mesh mesh = {0};
  char path[1024];
  snprintf(path, sizeof path, "%s/run_vortex.cdgm", dir);
  dg_status status = mesh_structured_2d(&opts, &mesh);
  if (status == DG_SUCCESS) status = mesh_write_cdgm(&mesh, path);
  mesh_free(&mesh);
  return status;
}

/* Writes <dir>/<name>.ini: the vortex case with the given solver lines. */
static int write_case(const char *dir, const char *name, const char *solver) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.ini", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) return 0;
  fprintf(f,
          "[mesh]\nfile = run_vortex.cdgm\n[flow]\nmach = 0.5\nalpha_deg = 10\n"
          "[discretization]\norder = 1\n[solver]\n%s\n[stop]\nmax_iters = 8\n"
          "residual_drop = 20\n[output]\nmonitor_every = 2\ncheckpoint_every = 3\n"
          "vtu_every = 3\n[verification]\nexact_solution = isentropic_vortex\n"
          "vortex_x = 1\nvortex_y = -0.5\n[boundary]\n",
          solver);
  return fclose(f) == 0;
}

static int write_fixture(const char *dir) {
  if (write_mesh(dir) != DG_SUCCESS) {
    dg_error_print(stderr, 1);
    return 0;
  }
  return write_case(dir, "run_vortex", "scheme = explicit_rk3\ncfl = 0.4\nlocal_time_step = no") &&
         write_case(dir, "run_vortex_diverge",
                    "scheme = explicit_rk3\ncfl = 40\nlocal_time_step = no") &&
         write_case(dir, "run_vortex_lusgs", "scheme = lusgs");
}

/* Reads a whole file; *size bytes, NULL when it cannot be read. */
static int file_exists(const char *dir, const char *name) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  struct stat st;
  return stat(path, &st) == 0 && st.st_size > 0;
}

static int count_lines(const char *text) {
  int n = 0;
  for (; *text; ++text) n += *text == '\n';
  return n;
}

static dg_status run_file(const char *dir, const char *name, const char *folder, int max_iters,
                          const char *restart, run_result *result) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.ini", dir, name);
  dg_case c = {0};
  DG_CALL(case_read(path, &c));
  const run_options o = {.backend = "cpu",
                         .restart = restart,
                         .output_folder = folder,
                         .max_iters = max_iters,
                         .quiet = 1};
  const dg_status status = run_case(&c, &o, NULL, result);
  case_free(&c);
  return status;
}

static void test_short_run(const char *dir) {
  char folder[1024];
  snprintf(folder, sizeof folder, "%s/short", dir);
  run_result res;
  TEST_OK(run_file(dir, "run_vortex", folder, 0, NULL, &res));
  TEST_CHECK(res.iterations == 8 && res.reason == RUN_STOP_MAX_ITERS,
             "8 iterations to the limit, got %d (reason %d)", res.iterations, (int)res.reason);
  TEST_CHECK(!strcmp(res.backend, "cpu"), "backend cpu, got %s", res.backend);
  TEST_CHECK(res.time > 0.0 && isfinite(res.time), "global steps advance the time: %g", res.time);
  TEST_CHECK(res.has_error && res.error_l2[0] > 0.0 && isfinite(res.error_l2[0]),
             "vortex error against the exact solution reported");
  const char *names[] = {"history.csv",         "solution.cdgs",       "solution.vtu",
                         "checkpoint.cdgs",     "solution.pvd",        "solution_000003.vtu",
                         "solution_000006.vtu", "solution_000000.vtu", "solution_000008.vtu"};
  for (size_t i = 0; i < sizeof names / sizeof *names; ++i)
    TEST_CHECK(file_exists(folder, names[i]), "%s/%s written", folder, names[i]);
  TEST_CHECK(!file_exists(folder, "surface_cp.csv"), "no wall, no surface_cp.csv");

  char path[2048];
  snprintf(path, sizeof path, "%s/history.csv", folder);
  long size = 0;
  char *text = test_read_all(path, &size);
  TEST_CHECK(text != NULL, "history.csv readable");
  if (!text) return;
  const char *header = "iteration,wall_s,res_rho,res_rhou,res_rhov,res_rhoE,cl,cd,cm,cfl,time\n";
  TEST_CHECK(!strncmp(text, header, strlen(header)), "history header: %.80s", text);
  /* monitor points: 1 (reference), every 2nd, the last: 1, 2, 4, 6, 8 */
  TEST_CHECK(count_lines(text) == 6, "header + 5 rows, got %d lines", count_lines(text));
  const int expected_iter[] = {1, 2, 4, 6, 8};
  const char *line = strchr(text, '\n') + 1;
  for (int r = 0; r < 5 && *line; ++r) {
    double values[11];
    int n = 0;
    char *end = NULL;
    for (const char *p = line; n < 11; ++n) {
      values[n] = strtod(p, &end);
      if (end == p) break;
      p = *end == ',' ? end + 1 : end;
    }
    TEST_CHECK(n == 11, "row %d has 11 numbers, got %d", r, n);
    TEST_CHECK((int)values[0] == expected_iter[r], "row %d is iteration %d, got %g", r,
               expected_iter[r], values[0]);
    for (int k = 0; k < n; ++k) TEST_CHECK(isfinite(values[k]), "row %d column %d finite", r, k);
    if (r == 0)
      for (int v = 2; v < 6; ++v) TEST_CLOSE(values[v], 0.0, 0.0, "first row is the reference");
    TEST_CLOSE(values[9], 0.4, 0.0, "CFL column");
    TEST_CHECK(values[10] > 0.0 && (r == 0 || values[10] > 0.02 * expected_iter[r]),
               "time column of row %d: %g", r, values[10]);
    line = strchr(line, '\n') + 1;
  }
  free(text);

  /* the final state: finite, at iteration 8, with the reference norms */
  dg_solution_header h;
  snprintf(path, sizeof path, "%s/solution.cdgs", folder);
  TEST_OK(solution_read_header(path, &h));
  TEST_CHECK(h.meta.iteration == 8, "solution at iteration 8, got %lld",
             (long long)h.meta.iteration);
  TEST_CLOSE(h.meta.time, res.time, 0.0, "solution time");
  TEST_CHECK(h.meta.ref_norms[0] > 0.0, "reference norms stored");
  TEST_CHECK(h.p == 1 && h.nvar == 4, "p = 1, 4 variables");
}

static void test_restart_bitwise(const char *dir) {
  char straight[1024], split[1024], checkpoint[1100];
  snprintf(straight, sizeof straight, "%s/straight", dir);
  snprintf(split, sizeof split, "%s/split", dir);
  snprintf(checkpoint, sizeof checkpoint, "%s/checkpoint.cdgs", split);
  run_result a, b, c;
  TEST_OK(run_file(dir, "run_vortex", straight, 8, NULL, &a));
  TEST_OK(run_file(dir, "run_vortex", split, 4, NULL, &b));
  TEST_CHECK(b.iterations == 4, "first half: 4 iterations, got %d", b.iterations);
  /* a restart into a fresh folder starts a new history at the next row */
  char fresh[1100];
  snprintf(fresh, sizeof fresh, "%s/fresh", dir);
  TEST_OK(run_file(dir, "run_vortex", fresh, 6, checkpoint, &c));
  char *hc = test_history_without_wall(fresh);
  TEST_CHECK(hc && count_lines(hc) == 2 && strstr(hc, "\n6,"),
             "fresh history: header and row 6, got:\n%s", hc ? hc : "(none)");
  free(hc);
  TEST_OK(run_file(dir, "run_vortex", split, 8, checkpoint, &c));
  TEST_CHECK(c.iterations == 8, "restart continues to 8, got %d", c.iterations);
  TEST_CLOSE(c.time, a.time, 0.0, "same final time");

  char pa[1100], pb[1100];
  snprintf(pa, sizeof pa, "%s/solution.cdgs", straight);
  snprintf(pb, sizeof pb, "%s/solution.cdgs", split);
  long na = 0, nb = 0;
  char *fa = test_read_all(pa, &na), *fb = test_read_all(pb, &nb);
  /* every byte but the accumulated wall time (offset 200) and the checksum */
  if (fa && fb && na == nb && na > 256) {
    memset(fa + 200, 0, 8);
    memset(fb + 200, 0, 8);
    memset(fa + na - 8, 0, 8);
    memset(fb + nb - 8, 0, 8);
  }
  TEST_CHECK(fa && fb && na == nb && !memcmp(fa, fb, (size_t)na),
             "straight and restarted final states are identical bytes (%ld vs %ld bytes)", na, nb);
  free(fa);
  free(fb);

  char *ha = test_history_without_wall(straight), *hb = test_history_without_wall(split);
  TEST_CHECK(ha && hb && !strcmp(ha, hb), "identical history rows (wall time aside):\n%s---\n%s",
             ha ? ha : "(none)", hb ? hb : "(none)");
  TEST_CHECK(ha && count_lines(ha) == 6, "6 history lines");
  free(ha);
  free(hb);

  /* the restarted folder's solution.pvd keeps the series of the first run
   * (t = 0, iteration 3) and adds the restarted one's (6, final 8) */
  char pvd[1200];
  snprintf(pvd, sizeof pvd, "%s/solution.pvd", split);
  long np = 0;
  char *series = test_read_all(pvd, &np);
  TEST_CHECK(series && strstr(series, "solution_000000.vtu") &&
                 strstr(series, "solution_000003.vtu") && strstr(series, "solution_000006.vtu") &&
                 strstr(series, "solution_000008.vtu"),
             "the whole series after a restart:\n%s", series ? series : "(none)");
  free(series);

  /* a restart past the limit is refused */
  TEST_FAILS(run_file(dir, "run_vortex", fresh, 7, checkpoint, &c), DG_ERR_ARG,
             "past the iteration limit");
}

static void test_diverge(const char *dir) {
  char folder[1024];
  snprintf(folder, sizeof folder, "%s/diverge", dir);
  run_result res;
  TEST_FAILS(run_file(dir, "run_vortex_diverge", folder, 200, NULL, &res), DG_ERR_DIVERGED,
             "diverged at iteration");
  TEST_CHECK(res.reason == RUN_STOP_DIVERGED, "reason diverged");
  TEST_CHECK(res.iterations > 1 && res.iterations < 200, "diverged early: iteration %d",
             res.iterations);
  TEST_CHECK(file_exists(folder, "solution.vtu"), "last good VTU written");
  char path[1100];
  snprintf(path, sizeof path, "%s/solution.cdgs", folder);
  dg_solution_header h;
  TEST_OK(solution_read_header(path, &h));
  TEST_CHECK(h.meta.iteration < res.iterations, "last good state (iteration %lld) before %d",
             (long long)h.meta.iteration, res.iterations);
  /* every coefficient of the last good state is finite */
  long size = 0;
  char *bytes = test_read_all(path, &size);
  TEST_CHECK(bytes != NULL, "solution.cdgs readable");
  if (bytes) {
    const long n = (long)h.n_coefs, offset = size - 8 * n - 8; /* U, then the checksum */
    int finite = offset > 0;
    for (long i = 0; finite && i < n; ++i) {
      double value;
      memcpy(&value, bytes + offset + 8 * i, sizeof value);
      finite = isfinite(value);
    }
    TEST_CHECK(finite, "last good state is finite");
    free(bytes);
  }
}

static void test_unsupported(const char *dir) {
  char folder[1024];
  snprintf(folder, sizeof folder, "%s/lusgs", dir);
  run_result res;
  /* scheme = lusgs runs on the CPU (src/lusgs/); on CUDA it is refused */
  TEST_OK(run_file(dir, "run_vortex_lusgs", folder, 3, NULL, &res));
  TEST_CHECK(res.iterations == 3 && res.reason == RUN_STOP_MAX_ITERS,
             "lusgs: 3 iterations, got %d (reason %d)", res.iterations, (int)res.reason);
  if (!backend_cuda()) {
    dg_case c = {0};
    char path[1100];
    snprintf(path, sizeof path, "%s/run_vortex.ini", dir);
    TEST_OK(case_read(path, &c));
    const run_options o = {.backend = "cuda", .output_folder = folder, .quiet = 1};
    TEST_FAILS(run_case(&c, &o, NULL, NULL), DG_ERR_UNSUPPORTED, "built without CUDA");
    case_free(&c);
  }
}

/* Reopens the history of `folder` for a restart at the last row with a
 * residual_total column (and linear_iterations with with_linear), whose
 * header differs from the old one, so the history starts anew: one row
 * (row->iteration = the restart's + 1), then the header must end with
 * header_end and the row with row_end. */
static void check_extra_columns(const char *folder, int with_linear, monitor_row *row,
                                const char *header_end, const char *row_end) {
  run_monitor m;
  TEST_OK(monitor_open(&m, folder, 3, row->iteration, NULL, 1, 0, 1, with_linear));
  ++row->iteration;
  TEST_OK(monitor_record(&m, row));
  monitor_close(&m);
  char *h = test_history_without_wall(folder);
  TEST_CHECK(h && count_lines(h) == 2 && strstr(h, header_end) && strstr(h, row_end),
             "history started anew: header ending %s and one row ending %s, got:\n%s", header_end,
             row_end, h ? h : "(none)");
  free(h);
}

static void test_monitor(const char *dir) {
  const double norms[4] = {1e-3, 0.0, 2.0, NAN}, ref[4] = {1e-1, 1.0, 0.0, 1.0};
  double logres[4];
  const double worst = monitor_log_residuals(3, norms, ref, logres);
  TEST_CLOSE(logres[0], -2.0, 1e-14, "log10(1e-3 / 1e-1)");
  TEST_CLOSE(logres[1], -300.0, 0.0, "zero norm");
  TEST_CLOSE(logres[2], log10(2.0), 1e-15, "zero reference counts as 1");
  TEST_CLOSE(worst, log10(2.0), 1e-15, "largest of the three");
  TEST_CHECK(isnan(monitor_log_residuals(4, norms, ref, logres)), "NaN norm gives NaN");
  /* the whole residual: an equation with a small first residual (the
   * spanwise momentum of a wing) no longer decides the drop */
  const double tn[3] = {1e-11, 1e-11, 1e-10}, tr[3] = {1.0, 1.0, 1e-2};
  TEST_CLOSE(monitor_log_residuals(3, tn, tr, logres), -8.0, 1e-12, "per equation: worst -8");
  TEST_CLOSE(monitor_total_log_residual(3, tn, tr),
             log10(sqrt(1e-22 + 1e-22 + 1e-20) / sqrt(2.0001)), 1e-12, "total drop");
  TEST_CLOSE(monitor_total_log_residual(2, (const double[]){0.0, 0.0}, tr), -300.0, 0.0,
             "zero total");
  TEST_CHECK(isnan(monitor_total_log_residual(4, norms, ref)), "NaN norm gives a NaN total");

  /* restart truncation keeps rows <= the restart iteration */
  char folder[1024];
  snprintf(folder, sizeof folder, "%s/monitor", dir);
  mkdir(folder, 0777);
  run_monitor m;
  monitor_row row = {.cfl = 1.0};
  TEST_OK(monitor_open(&m, folder, 3, 0, NULL, 1, 0, 0, 0));
  for (int it = 1; it <= 5; ++it) {
    row.iteration = it;
    TEST_OK(monitor_record(&m, &row));
  }
  monitor_close(&m);
  TEST_OK(monitor_open(&m, folder, 3, 3, NULL, 1, 0, 0, 0));
  row.iteration = 4;
  TEST_OK(monitor_record(&m, &row));
  monitor_close(&m);
  char *h = test_history_without_wall(folder);
  TEST_CHECK(h && count_lines(h) == 5 &&
                 !strncmp(h, "iteration,res_rho,res_rhou,res_rhov,res_rhow,", 45),
             "3D header and rows 1-4, got:\n%s", h ? h : "(none)");
  TEST_CHECK(h && strstr(h, "\n3,") && strstr(h, "\n4,") && !strstr(h, "\n5,"),
             "row 5 dropped, row 4 appended");
  free(h);

  /* with_total: the rows end with residual_total; a history without it is
   * started anew on a restart (other columns); row 4 was the last */
  row.log_total = -2.5;
  check_extra_columns(folder, 0, &row, ",cfl,time,residual_total\n", ",-2.500000000000e+00\n");
  /* with_linear: then linear_iterations, an integer */
  row.linear_iterations = 37;
  check_extra_columns(folder, 1, &row, ",time,residual_total,linear_iterations\n",
                      ",-2.500000000000e+00,37\n");
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--write-fixture")) {
    if (!write_fixture(argv[2])) {
      fprintf(stderr, "test_run: cannot write the fixture in %s\n", argv[2]);
      return 1;
    }
    printf("wrote run_vortex.cdgm and run_vortex*.ini in %s\n", argv[2]);
    return 0;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: test_run WORKDIR | test_run --write-fixture DIR\n");
    return 2;
  }
  const char *dir = argv[1];
  mkdir(dir, 0777);
  TEST_CHECK(write_fixture(dir), "fixture written in %s", dir);
  test_monitor(dir);
  test_short_run(dir);
  test_restart_bitwise(dir);
  test_diverge(dir);
  test_unsupported(dir);
  return test_finish("test_run");
}
