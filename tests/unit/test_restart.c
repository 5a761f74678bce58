/* Restarts are bitwise (issue 12, items 5, 7, 10, 16): for one combination
 * of scheme x artificial viscosity x CFL law (command line), a run of 6
 * iterations and a run of 3 + a restart from its checkpoint to 6 must give
 * the same final state (every byte of solution.cdgs but the wall time and
 * the checksum) and the same history.csv rows (wall time aside). With
 * LU-SGS, viscosity and relaxation 0.1 this needs the held viscosity in the
 * checkpoint.
 *   test_restart WORKDIR explicit off|on global|local   (time step)
 *   test_restart WORKDIR lusgs off|on exponential|ser    (CFL law)
 *   test_restart WORKDIR newton off|on exponential|ser   (Newton-Krylov: the
 *       marcher's own state is in the checkpoint; with viscosity coupled
 *       after 0.05 orders and the adaptive relaxation)
 *   test_restart WORKDIR checks   (forged files, changed settings, wall time,
 *                                  non-physical initial states)
 *   test_restart WORKDIR pseq explicit|lusgs START STOP
 *       p-sequencing ([discretization] p_sequence) from p = START to 2 on a
 *       steady channel (walls, far field, every element viscous), 4
 *       iterations per stage, 12 in all: a run stopped at iteration STOP
 *       (inside a stage, or at a hand-over) and restarted from its
 *       checkpoint is the run that did not stop (the file's p is the
 *       stage's, its reference norms and stage start come back)
 *   test_restart WORKDIR pseq_drop  (hand-over at p_sequence_drop, the
 *       order column, the reference: free-stream residual at each p)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/case.h"
#include "app/run.h"
#include "app/solution_io.h"
#include "mesh/mesh.h"
#include "mesh/mesh_structured.h"
#include "test_util.h"

#define WALL_OFFSET 200 /* .cdgs versions 2 and 3: accumulated wall time (docs/FORMATS.md) */

static dg_status write_mesh(const char *dir) {
  dg_mesh_structured_opts opts = mesh_structured_defaults(2);
  opts.kind = MESH_STRUCTURED_QUAD;
  opts.n[0] = opts.n[1] = 6;
  opts.lo[0] = opts.lo[1] = -5.0;
  opts.hi[0] = opts.hi[1] = 5.0;
  opts.periodic[0] = opts.periodic[1] = 1;
  dg_mesh mesh = {0};
  char path[1024];
  snprintf(path, sizeof path, "%s/restart.cdgm", dir);
  dg_status status = mesh_structured_2d(&opts, &mesh);
  if (status == DG_SUCCESS) status = mesh_write_cdgm(&mesh, path);
  mesh_free(&mesh);
  return status;
}

/* <dir>/<name>.ini: the vortex case with the given extra lines. */
static int write_case(const char *dir, const char *name, const char *flow, const char *solver,
                      const char *extra) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.ini", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) return 0;
  fprintf(f,
          "[mesh]\nfile = restart.cdgm\n[flow]\n%salpha_deg = 10\n%s\n"
          "[discretization]\norder = 1\n[solver]\n%s\n[stop]\nmax_iters = 6\n"
          "residual_drop = 20\n[output]\nmonitor_every = 1\ncheckpoint_every = 3\n"
          "[verification]\nexact_solution = isentropic_vortex\nvortex_x = 1\nvortex_y = -0.5\n"
          "%s\n[boundary]\n",
          strstr(flow, "mach") ? "" : "mach = 0.5\n", flow, solver, extra);
  return fclose(f) == 0;
}

static dg_status run_file(const char *dir, const char *name, const char *folder, int max_iters,
                          const char *restart, FILE *out, run_result *result) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.ini", dir, name);
  dg_case c = {0};
  DG_CALL(case_read(path, &c));
  const run_options o = {.backend = "cpu",
                         .restart = restart,
                         .output_folder = folder,
                         .max_iters = max_iters,
                         .quiet = 1};
  const dg_status status = run_case(&c, &o, out, result);
  case_free(&c);
  return status;
}

/* The .cdgs bytes with the wall time and the checksum zeroed. */
static char *state_bytes(const char *folder, const char *name, long *size) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", folder, name);
  char *b = test_read_all(path, size);
  if (b && *size > 256) {
    memset(b + WALL_OFFSET, 0, 8);
    memset(b + *size - 8, 0, 8);
  }
  return b;
}

static void test_matrix(const char *dir, const char *scheme, const char *av, const char *law) {
  char solver[512], extra[256], name[128];
  const int lusgs = !strcmp(scheme, "lusgs"), newton = !strcmp(scheme, "newton");
  if (lusgs && !strcmp(law, "kept")) /* at cfl_max from iteration 3; blocks kept at 6 and,
                                        without the fresh start after the checkpoint, at 4 */
    snprintf(solver, sizeof solver,
             "scheme = lusgs\ncfl_min = 2\ncfl_max = 50\ncfl_ramp_iters = 2\n"
             "jacobian_interval = 5\nsweeps = 2");
  else if (lusgs)
    snprintf(solver, sizeof solver,
             "scheme = lusgs\ncfl_min = 2\ncfl_max = 50\ncfl_ramp_iters = 4\ncfl_law = %s\n"
             "sweeps = 2",
             law);
  else if (newton) /* the marcher's state (CFL cut, forcing history, switch) in the file */
    snprintf(
        solver, sizeof solver,
        "scheme = newton_krylov\ncfl_min = 5\ncfl_max = 1e6\ncfl_ramp_iters = 3\n"
        "cfl_law = %s\nsweeps = 2\nkrylov_size = 8\nnewton_max_growth = 1.05\nnewton_cfl_cut = 0.3",
        law);
  else
    snprintf(solver, sizeof solver, "scheme = explicit_rk3\ncfl = 0.4\nlocal_time_step = %s",
             strcmp(law, "local") ? "no" : "yes");
  /* s0_offset -20: every element is viscous, the held ε relaxes at 0.1 */
  snprintf(extra, sizeof extra, "%s%s",
           strcmp(av, "on")
               ? ""
               : "[artificial_viscosity]\nenabled = yes\ns0_offset = -20\nc_eps = 0.1\n"
                 "relaxation = 0.1",
           strcmp(av, "on") || !newton ? "" : "\nrelaxation_adapt = yes\ncoupled_after = 0.05");
  snprintf(name, sizeof name, "m_%s_%s_%s", scheme, av, law);
  TEST_CHECK(write_case(dir, name, "", solver, extra), "case %s written", name);
  char straight[1200], split[1200], checkpoint[1300];
  snprintf(straight, sizeof straight, "%s/%s_straight", dir, name);
  snprintf(split, sizeof split, "%s/%s_split", dir, name);
  snprintf(checkpoint, sizeof checkpoint, "%s/checkpoint.cdgs", split);
  run_result a, b, c;
  TEST_OK(run_file(dir, name, straight, 6, NULL, NULL, &a));
  TEST_OK(run_file(dir, name, split, 3, NULL, NULL, &b));
  dg_solution_header h;
  TEST_OK(solution_read_header(checkpoint, &h));
  const int want_scheme = lusgs    ? DG_SCHEME_LUSGS
                          : newton ? DG_SCHEME_NEWTON_KRYLOV
                                   : DG_SCHEME_EXPLICIT_RK3;
  TEST_CHECK(h.version == 3 && h.meta.iteration == 3 && h.meta.has_run &&
                 h.meta.scheme == want_scheme,
             "%s: version-3 checkpoint at iteration 3 with the run's scheme", name);
  TEST_CHECK(h.meta.has_av_hold == ((lusgs || newton) && !strcmp(av, "on")),
             "%s: the held viscosity is stored exactly for LU-SGS and Newton-Krylov with "
             "viscosity",
             name);
  TEST_CHECK(h.meta.n_marcher_state == (newton ? 7 : 0),
             "%s: %d marcher-state values stored (Newton-Krylov: 7, else none)", name,
             h.meta.n_marcher_state);
  if (newton)
    printf("%s: checkpoint at 3: CFL cut %g, forcing %g, |R| %g, coupled %g, floor %g, "
           "relaxation %g\n",
           name, h.meta.marcher_state[0], h.meta.marcher_state[1], h.meta.marcher_state[2],
           h.meta.marcher_state[3], h.meta.marcher_state[4], h.meta.marcher_state[5]);
  const double wall_before = h.meta.wall_seconds;
  TEST_OK(run_file(dir, name, split, 6, checkpoint, NULL, &c));
  TEST_CHECK(c.iterations == 6, "%s: restart continues to 6, got %d", name, c.iterations);
  long na = 0, nb = 0;
  char *fa = state_bytes(straight, "solution.cdgs", &na),
       *fb = state_bytes(split, "solution.cdgs", &nb);
  TEST_CHECK(fa && fb && na == nb && !memcmp(fa, fb, (size_t)na),
             "%s: straight and restarted solution.cdgs are identical (wall time and checksum "
             "aside; %ld vs %ld bytes)",
             name, na, nb);
  free(fa);
  free(fb);
  char *ha = test_history_without_wall(straight), *hb = test_history_without_wall(split);
  TEST_CHECK(ha && hb && !strcmp(ha, hb), "%s: identical history rows:\n%s---\n%s", name,
             ha ? ha : "(none)", hb ? hb : "(none)");
  free(ha);
  free(hb);
  /* wall_s goes on after the restart: the first restarted row is past the
   * wall time stored in the checkpoint */
  char path[1300];
  snprintf(path, sizeof path, "%s/history.csv", split);
  long size = 0;
  char *hist = test_read_all(path, &size);
  const char *row4 = hist ? strstr(hist, "\n4,") : NULL;
  TEST_CHECK(row4 && strtod(row4 + 3, NULL) >= wall_before,
             "%s: wall_s of row 4 (%s) continues from %g s", name, row4 ? row4 + 3 : "-",
             wall_before);
  free(hist);
}

/* Writes a copy of src with the 8 bytes at offset replaced by value and
 * the checksum recomputed (FNV-1a 64 of everything before it). */
static void forge(const char *src, const char *dst, long offset, int64_t value) {
  long size = 0;
  unsigned char *b = (unsigned char *)test_read_all(src, &size);
  TEST_CHECK(b && size > offset + 16, "%s readable", src);
  if (!b) return;
  memcpy(b + offset, &value, 8);
  uint64_t h = 0xcbf29ce484222325ull;
  for (long i = 0; i < size - 8; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  memcpy(b + size - 8, &h, 8);
  FILE *f = fopen(dst, "wb");
  fwrite(b, 1, (size_t)size, f);
  fclose(f);
  free(b);
}

static void test_file_checks(const char *dir) {
  TEST_CHECK(
      write_case(dir, "base", "", "scheme = explicit_rk3\ncfl = 0.4\nlocal_time_step = no", ""),
      "base case");
  TEST_CHECK(write_case(dir, "gamma", "gamma = 1.3",
                        "scheme = explicit_rk3\ncfl = 0.4\nlocal_time_step = no", ""),
             "gamma case");
  TEST_CHECK(write_case(dir, "mach", "mach = 0.6", "scheme = lusgs", ""), "lusgs case");
  char folder[1200], checkpoint[1300], bad[1300];
  snprintf(folder, sizeof folder, "%s/checks", dir);
  snprintf(checkpoint, sizeof checkpoint, "%s/checkpoint.cdgs", folder);
  run_result res;
  TEST_OK(run_file(dir, "base", folder, 3, NULL, NULL, &res));

  /* forged iteration counts (checksum recomputed) are refused */
  snprintf(bad, sizeof bad, "%s/forged.cdgs", dir);
  const int64_t forged[] = {-5, (int64_t)1 << 40};
  for (int k = 0; k < 2; ++k) {
    forge(checkpoint, bad, 96, forged[k]);
    TEST_FAILS(run_file(dir, "base", folder, 6, bad, NULL, &res), DG_ERR_FORMAT, "iteration count");
  }
  /* a marcher-state count outside 0..8 (version 3, offset 240) is refused */
  forge(checkpoint, bad, 240, 9);
  TEST_FAILS(run_file(dir, "base", folder, 6, bad, NULL, &res), DG_ERR_FORMAT,
             "9 marcher-state values (byte offset 240), expected 0 to 8");
  /* a Newton-Krylov checkpoint whose CFL cut (the first state value, 7
   * doubles before the checksum) is forged to 2 is refused by the marcher */
  TEST_CHECK(write_case(dir, "nk", "", "scheme = newton_krylov\nsweeps = 2", ""), "newton case");
  char nk_folder[1300], nk_checkpoint[1400];
  snprintf(nk_folder, sizeof nk_folder, "%s/nk", dir);
  snprintf(nk_checkpoint, sizeof nk_checkpoint, "%s/checkpoint.cdgs", nk_folder);
  TEST_OK(run_file(dir, "nk", nk_folder, 3, NULL, NULL, &res));
  struct stat nk_st;
  TEST_CHECK(stat(nk_checkpoint, &nk_st) == 0, "newton checkpoint written");
  double two = 2.0;
  int64_t two_bits;
  memcpy(&two_bits, &two, 8);
  forge(nk_checkpoint, bad, (long)nk_st.st_size - 8 - 7 * 8, two_bits);
  TEST_FAILS(run_file(dir, "nk", nk_folder, 6, bad, NULL, &res), DG_ERR_ARG,
             "marcher state is out of range (CFL cut 2");
  /* a NaN in the state (checksum recomputed) is refused before any iteration */
  double nan = NAN;
  int64_t nan_bits;
  memcpy(&nan_bits, &nan, 8);
  forge(checkpoint, bad, 256 + 8 * 5, nan_bits);
  char nan_folder[1300];
  snprintf(nan_folder, sizeof nan_folder, "%s/nan", dir);
  TEST_FAILS(run_file(dir, "base", nan_folder, 6, bad, NULL, &res), DG_ERR_CASE,
             "restart state is not physical");
  struct stat st;
  char nan_solution[1400];
  snprintf(nan_solution, sizeof nan_solution, "%s/solution.cdgs", nan_folder);
  TEST_CHECK(stat(nan_solution, &st) != 0, "no solution written from a NaN restart");

  /* a restart with another gamma is refused, another scheme is reported */
  TEST_FAILS(run_file(dir, "gamma", folder, 6, checkpoint, NULL, &res), DG_ERR_ARG,
             "cannot change gamma");
  char log_path[1300];
  snprintf(log_path, sizeof log_path, "%s/restart_log.txt", dir);
  FILE *log = fopen(log_path, "w+");
  TEST_OK(run_file(dir, "mach", folder, 4, checkpoint, log, &res));
  fclose(log);
  long size = 0;
  char *text = test_read_all(log_path, &size);
  TEST_CHECK(text && strstr(text, "restart: scheme changed from explicit_rk3 to lusgs"),
             "scheme change reported:\n%s", text ? text : "(none)");
  TEST_CHECK(text && strstr(text, "restart: [flow] mach changed from 0.5 to 0.6\n"),
             "Mach change reported:\n%s", text ? text : "(none)");
  free(text);

  /* a version-1 file is still read */
  dg_solution_header h;
  TEST_OK(solution_read_header(COLORDG_TEST_DATA "/naca0012_transonic_tri1_p3.cdgs", &h));
  TEST_CHECK(h.version == 1 && !h.meta.has_run && h.meta.iteration > 0,
             "version-1 file read (version %u)", h.version);

  /* a vortex too strong for a positive temperature is refused at the start */
  TEST_CHECK(write_case(dir, "strong", "", "scheme = explicit_rk3\ncfl = 0.4\nlocal_time_step = no",
                        "vortex_strength = 20"),
             "strong vortex case");
  char strong[1300];
  snprintf(strong, sizeof strong, "%s/strong", dir);
  TEST_FAILS(run_file(dir, "strong", strong, 3, NULL, NULL, &res), DG_ERR_CASE, "vortex_strength");
  snprintf(strong, sizeof strong, "%s/strong/solution.cdgs", dir);
  TEST_CHECK(stat(strong, &st) != 0, "no solution written for a non-physical initial state");
}

/* Unsteady run: [stop] end_time ends exactly there, [output]
 * output_interval writes the series at those times, solution.pvd holds
 * t = 0, every output time and the final state, history.csv a time column. */
static void test_unsteady(const char *dir) {
  TEST_CHECK(write_case(dir, "unsteady", "",
                        "scheme = explicit_rk3\ncfl = 0.4\nlocal_time_step = no",
                        "[stop]\nend_time = 0.1\n[output]\noutput_interval = 0.04"),
             "unsteady case");
  char folder[1200];
  snprintf(folder, sizeof folder, "%s/unsteady", dir);
  run_result res;
  TEST_OK(run_file(dir, "unsteady", folder, 1000, NULL, NULL, &res));
  TEST_CHECK(res.reason == RUN_STOP_END_TIME && res.time == 0.1,
             "stopped at the end time exactly: reason %d, t = %.17g", (int)res.reason, res.time);
  char path[1300];
  snprintf(path, sizeof path, "%s/solution.pvd", folder);
  long size = 0;
  char *pvd = test_read_all(path, &size);
  const double want[] = {0.0, 0.04, 0.08, 0.1};
  int n = 0;
  for (const char *p = pvd ? strstr(pvd, "timestep=\"") : NULL; p;
       p = strstr(p + 1, "timestep=\""), ++n)
    TEST_CHECK(n < 4 && fabs(strtod(p + 10, NULL) - want[n]) < 1e-12, "pvd entry %d at t = %g", n,
               strtod(p + 10, NULL));
  TEST_CHECK(n == 4, "pvd with t = 0, 0.04, 0.08 and the final 0.1: %d entries\n%s", n,
             pvd ? pvd : "(none)");
  free(pvd);
  snprintf(path, sizeof path, "%s/history.csv", folder);
  char *hist = test_read_all(path, &size);
  const char *last = hist ? strrchr(hist, ',') : NULL;
  TEST_CHECK(hist && strstr(hist, ",cfl,time\n") && last && strtod(last + 1, NULL) == 0.1,
             "history.csv: time column ends at 0.1 (%s)", last ? last + 1 : "-");
  free(hist);
  /* end_time needs a time-accurate scheme */
  TEST_CHECK(write_case(dir, "unsteady_lusgs", "", "scheme = lusgs", "[stop]\nend_time = 1"),
             "lusgs end_time case");
  TEST_FAILS(run_file(dir, "unsteady_lusgs", folder, 0, NULL, NULL, &res), DG_ERR_CASE,
             "time-accurate");
}

/* <dir>/channel.cdgm: a curved (geometric order 2, deformed) 8 x 4
 * quadrilateral channel [0, 4] x [0, 1]; walls ymin, ymax (planar), far
 * field xmin, xmax. The free stream at an angle is not its steady state. */
static dg_status write_channel_mesh(const char *dir) {
  dg_mesh_structured_opts opts = mesh_structured_defaults(2);
  opts.kind = MESH_STRUCTURED_QUAD;
  opts.order = 2;
  opts.n[0] = 8;
  opts.n[1] = 4;
  opts.hi[0] = 4.0;
  opts.deform = 0.02;
  dg_mesh mesh = {0};
  char path[1024];
  snprintf(path, sizeof path, "%s/channel.cdgm", dir);
  dg_status status = mesh_structured_2d(&opts, &mesh);
  if (status == DG_SUCCESS) status = mesh_write_cdgm(&mesh, path);
  mesh_free(&mesh);
  return status;
}

/* <dir>/<name>.ini: the channel, p-sequenced from p = start to 2, with the
 * given [solver] and [stop] lines. */
static int write_channel_case(const char *dir, const char *name, int start, const char *solver,
                              const char *stop) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.ini", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) return 0;
  fprintf(f,
          "[mesh]\nfile = channel.cdgm\n[flow]\nmach = 0.5\nalpha_deg = 5\n"
          "[discretization]\norder = 2\np_sequence = yes\np_sequence_start = %d\n"
          "[solver]\n%s\n[stop]\n%s\n[output]\nmonitor_every = 1\ncheckpoint_every = 3\n"
          "[artificial_viscosity]\nenabled = yes\ns0_offset = -20\nc_eps = 0.1\n"
          "relaxation = 0.1\n"
          "[boundary]\nxmin = farfield\nxmax = farfield\nymin = wall\nymax = wall\n",
          start, solver, stop);
  return fclose(f) == 0;
}

/* The p (bytes 20..23) and the stage start of a .cdgs file. */
static void cdgs_stage(const char *path, int *p, long long *stage_start) {
  dg_solution_header h;
  memset(&h, 0, sizeof h);
  *p = -1;
  *stage_start = -1;
  if (solution_read_header(path, &h) != DG_SUCCESS) {
    dg_error_print(stderr, 1);
    return;
  }
  *p = h.p;
  *stage_start = (long long)h.meta.stage_start;
}

static void test_pseq(const char *dir, const char *scheme, int start, int stop) {
  TEST_OK(write_channel_mesh(dir));
  const int lusgs = !strcmp(scheme, "lusgs");
  const char *solver = lusgs ? "scheme = lusgs\ncfl_min = 2\ncfl_max = 50\ncfl_ramp_iters = 3\n"
                               "sweeps = 2"
                             : "scheme = explicit_rk3\ncfl = 0.3\nlocal_time_step = yes";
  char name[128];
  snprintf(name, sizeof name, "pseq_%s_%d", scheme, start);
  TEST_CHECK(write_channel_case(dir, name, start, solver,
                                "max_iters = 12\nresidual_drop = 20\np_sequence_drop = 20\n"
                                "p_sequence_max_iters = 4"),
             "case %s written", name);
  char straight[1200], split[1200], checkpoint[1300];
  snprintf(straight, sizeof straight, "%s/%s_straight", dir, name);
  snprintf(split, sizeof split, "%s/%s_split_%d", dir, name, stop);
  snprintf(checkpoint, sizeof checkpoint, "%s/checkpoint.cdgs", split);
  run_result a, b, c;
  TEST_OK(run_file(dir, name, straight, 12, NULL, NULL, &a));
  TEST_OK(run_file(dir, name, split, stop, NULL, NULL, &b));
  /* stages of 4 iterations: p = start from 1, start + 1 from 5, ...; a
   * stop at a hand-over has built the next stage already */
  const int stage = stop / 4, p_want = start + stage < 2 ? start + stage : 2;
  const long long start_want = start + stage <= 2 ? 4LL * stage : 4LL * (2 - start);
  int p = -1;
  long long stage_start = -1;
  cdgs_stage(checkpoint, &p, &stage_start);
  TEST_CHECK(p == p_want && stage_start == start_want,
             "%s: the checkpoint at iteration %d is at p = %d (want %d), its stage began at "
             "iteration %lld (want %lld)",
             name, stop, p, p_want, stage_start, start_want);
  TEST_OK(run_file(dir, name, split, 12, checkpoint, NULL, &c));
  TEST_CHECK(a.iterations == 12 && c.iterations == 12, "%s: both runs reach 12 iterations", name);
  long na = 0, nb = 0;
  char *fa = state_bytes(straight, "solution.cdgs", &na),
       *fb = state_bytes(split, "solution.cdgs", &nb);
  TEST_CHECK(fa && fb && na == nb && !memcmp(fa, fb, (size_t)na),
             "%s, stop at %d: straight and restarted solution.cdgs are identical (wall time and "
             "checksum aside; %ld vs %ld bytes)",
             name, stop, na, nb);
  free(fa);
  free(fb);
  cdgs_stage(checkpoint, &p, &stage_start);
  TEST_CHECK(p == 2, "%s: the run ends at p = 2 (got %d)", name, p);
  char *ha = test_history_without_wall(straight), *hb = test_history_without_wall(split);
  TEST_CHECK(ha && hb && !strcmp(ha, hb), "%s, stop at %d: identical history rows:\n%s---\n%s",
             name, stop, ha ? ha : "(none)", hb ? hb : "(none)");
  /* the order column: the last field of every row */
  TEST_CHECK(ha && strstr(ha, ",cfl,time,order\n") && strstr(ha, "\n12,") &&
                 ha[strlen(ha) - 2] == '2',
             "%s: history.csv ends with the order column, 2 in the last row", name);
  if (ha && start == 1) {
    const char *row4 = strstr(ha, "\n4,"), *row5 = strstr(ha, "\n5,");
    const char *end4 = row4 ? strchr(row4 + 1, '\n') : NULL;
    const char *end5 = row5 ? strchr(row5 + 1, '\n') : NULL;
    TEST_CHECK(end4 && end5 && end4[-1] == '1' && end5[-1] == '2',
               "%s: iteration 4 ran at p = 1, iteration 5 at p = 2", name);
  }
  free(ha);
  free(hb);
}

/* The hand-over at p_sequence_drop (no stage limit): the line is printed,
 * the history's order goes from 1 to 2 and the run converges at p = 2. Each
 * stage's reference is the free-stream residual at its p: with p_sequence_start
 * = order (one stage), the first row is the free stream's own residual, 0 on
 * every equation, and the history equals a run without p-sequencing but for
 * the order column. */
static void test_pseq_drop(const char *dir) {
  TEST_OK(write_channel_mesh(dir));
  const char *solver = "scheme = lusgs\ncfl_min = 5\ncfl_max = 200\ncfl_ramp_iters = 5\nsweeps = 4";
  TEST_CHECK(write_channel_case(dir, "drop", 1, solver,
                                "max_iters = 200\nresidual_drop = 3\np_sequence_drop = 2"),
             "drop case");
  char folder[1200], log_path[1300];
  snprintf(folder, sizeof folder, "%s/drop", dir);
  snprintf(log_path, sizeof log_path, "%s/drop_log.txt", dir);
  FILE *log = fopen(log_path, "w+");
  run_result res;
  TEST_OK(run_file(dir, "drop", folder, 200, NULL, log, &res));
  fclose(log);
  long size = 0;
  char *text = test_read_all(log_path, &size);
  const char *line = text ? strstr(text, "p-sequencing: p = 1 reached ") : NULL;
  double orders = 0.0;
  int at = 0;
  TEST_CHECK(line &&
                 sscanf(line, "p-sequencing: p = 1 reached %lf orders at iteration %d", &orders,
                        &at) == 2 &&
                 orders >= 2.0 && strstr(line, "; continuing at p = 2\n"),
             "hand-over line printed:\n%s", text ? text : "(none)");
  TEST_CHECK(res.reason == RUN_STOP_CONVERGED && res.residual_drop >= 3.0 && res.iterations > at,
             "converged at p = 2 after the hand-over (reason %d, %.2f orders, %d iterations, "
             "hand-over at %d)",
             (int)res.reason, res.residual_drop, res.iterations, at);
  free(text);
  char path[1400];
  snprintf(path, sizeof path, "%s/solution.cdgs", folder);
  int p = -1;
  long long stage_start = -1;
  cdgs_stage(path, &p, &stage_start);
  TEST_CHECK(p == 2 && stage_start == at, "solution.cdgs at p = 2, stage from %lld (%d)",
             stage_start, at);
  char *hist = test_history_without_wall(folder);
  char want[64];
  snprintf(want, sizeof want, "\n%d,", at + 1);
  const char *first2 = hist ? strstr(hist, want) : NULL;
  const char *end = first2 ? strchr(first2 + 1, '\n') : NULL;
  TEST_CHECK(end && end[-1] == '2' && end[-2] == ',',
             "the first iteration of p = 2 is a history row with order 2");
  free(hist);

  /* one stage (start = order): the reference is the free-stream residual,
   * which is the first iteration's residual of a run from the free stream */
  TEST_CHECK(write_channel_case(dir, "single", 2, solver, "max_iters = 5\nresidual_drop = 20"),
             "single-stage case");
  char single[1200], plain[1200];
  snprintf(single, sizeof single, "%s/single", dir);
  snprintf(plain, sizeof plain, "%s/plain", dir);
  TEST_OK(run_file(dir, "single", single, 5, NULL, NULL, &res));
  snprintf(path, sizeof path, "%s/single.ini", dir);
  char plain_ini[1300];
  snprintf(plain_ini, sizeof plain_ini, "%s/plain.ini", dir);
  text = test_read_all(path, &size);
  char *pos = text ? strstr(text, "p_sequence = yes") : NULL;
  if (pos) memcpy(pos, "p_sequence = no ", 16);
  FILE *f = fopen(plain_ini, "w");
  if (f && text) fputs(text, f);
  if (f) fclose(f);
  free(text);
  TEST_OK(run_file(dir, "plain", plain, 5, NULL, NULL, &res));
  char *hs = test_history_without_wall(single), *hp = test_history_without_wall(plain);
  /* drop ",order" and each row's ",2" */
  if (hs) {
    char *o = hs;
    for (char *l = hs; *l;) {
      char *nl = strchr(l, '\n');
      const size_t n = nl ? (size_t)(nl - l) : strlen(l);
      char *comma = l + n;
      while (comma > l && comma[-1] != ',') --comma;
      const size_t keep = comma > l ? (size_t)(comma - 1 - l) : n;
      memmove(o, l, keep);
      o += keep;
      if (nl) *o++ = '\n';
      l += n + (nl ? 1 : 0);
    }
    *o = '\0';
  }
  TEST_CHECK(hs && hp && !strcmp(hs, hp),
             "one stage from the free stream = no p-sequencing (but the order column):\n%s---\n%s",
             hs ? hs : "(none)", hp ? hp : "(none)");
  free(hs);
  free(hp);
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 5 && argc != 6) {
    fprintf(stderr,
            "usage: test_restart WORKDIR SCHEME AV LAW | test_restart WORKDIR checks | "
            "test_restart WORKDIR pseq SCHEME START STOP | test_restart WORKDIR pseq_drop\n");
    return 2;
  }
  const char *dir = argv[1];
  mkdir(dir, 0777);
  if (argc == 6 && !strcmp(argv[2], "pseq")) {
    test_pseq(dir, argv[3], atoi(argv[4]), atoi(argv[5]));
    return test_finish("test_restart");
  }
  if (argc == 3 && !strcmp(argv[2], "pseq_drop")) {
    test_pseq_drop(dir);
    return test_finish("test_restart");
  }
  if (write_mesh(dir) != DG_SUCCESS) {
    dg_error_print(stderr, 1);
    return 1;
  }
  if (argc == 5)
    test_matrix(dir, argv[2], argv[3], argv[4]);
  else {
    test_file_checks(dir);
    test_unsteady(dir);
  }
  return test_finish("test_restart");
}
