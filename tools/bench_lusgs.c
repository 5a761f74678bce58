/* LU-SGS benchmark: the cost of one implicit iteration (lusgs_step) on the
 * NACA 0012 meshes (M 0.5, α 2°, slip wall + far field, BFS colouring,
 * colour-major numbering as `colordg run` does), p = 1..3:
 *
 *   GPU: every phase timed with CUDA events (lusgs_cuda_profile_step):
 *     residual, norms, time step, face Jacobians, assembly, factorisation
 *     (with the singular-block check and its copy back), forward sweep,
 *     backward sweep, update; median over the timed iterations; for the
 *     assembly, factorisation and sweep variants of src/kernels/lusgs_cuda.h
 *     (WARP_INVERSE also with the separate assembly: "warp_inv_sep"; fused,
 *     the assembly column holds the whole inverse), and the team assembly
 *     by entries ("asm_team_entries") beside the default by rows; the
 *     default with single-precision inverses, with forward-difference face
 *     Jacobians ("default+forward", [solver] face_jacobian = forward) and
 *     with both; the local time step alone with the tuned and the portable
 *     kernels;
 *   launch sizes 32…1024 (default variants): the threads per block of the
 *     per-element kernels and team sweeps, then the team threads of the team
 *     assembly and LU;
 *   the sweeps launched one by one vs as one CUDA Graph;
 *   CPU with one thread and with all threads: the same phases by wall
 *     clock (a profile hook on lusgs_step; the CPU table's assemble covers
 *     face Jacobians, assembly and factorisation);
 *   device memory of the blocks per element, p = 0..3, 2D and 3D.
 *
 * With --av (GPU only): the transonic case with artificial viscosity
 * (M 0.8, α 1.25°, [artificial_viscosity] defaults: energy sensor, κ 1,
 * s0 offset −1, c 1, ε per element; held ε relaxed by 0.2), the state read
 * from --state FILE.cdgs (a solution of the same mesh, e.g. `colordg run`'s
 * solution.cdgs at p = 1, prolonged to p) or the free stream; --sweeps
 * symmetric sweeps (default 16), CFL 10 → 1000 over 50 iterations counted
 * from 1 (the work of an iteration does not depend on the CFL). Every
 * phase (lusgs_cuda_profile_step) for: the same iteration without AV (the
 * disc built with AV off, same state), AV with the TEAM viscous kernels
 * (default) and with the THREAD ones (the reference, fewer iterations);
 * the number of viscous rows of the last assembly.
 *
 * Prints tables and writes CSV rows (one per measurement) to --csv PATH.
 *
 * usage: bench_lusgs --csv PATH [--mesh FILE]... [--p-min P] [--p-max P]
 *                    [--iters N] [--cpu-iters N] [--no-cpu] [--no-sweep]
 *                    [--default-only] [--av [--state FILE.cdgs] [--sweeps N]]
 *                    [--mach M] [--alpha DEG] [--s0-offset S] [--cfl C]
 *                    [--affine-rule mesh|reduced] [--face-rule mesh|reduced]
 *                    [--curved-rule mesh|reduced]
 * --default-only: the default kernel variants only (then the launch-size
 * passes unless --no-sweep); --cfl: a constant CFL instead of the ramp;
 * --affine-rule: the affine elements' volume rule, reduced (degree 2p + 1,
 * the default, as `colordg run`'s) or mesh (the curved elements' rule);
 * --face-rule: the face rule, reduced (the default, as `colordg run`'s
 * [discretization] face_rule) or mesh (geometry_face_degree); --curved-rule:
 * the volume rule, reduced (the default, as `colordg run`'s
 * [discretization] curved_rule) or mesh (geometry_volume_degree).
 * --mach/--alpha replace the free stream of either case (e.g. the ONERA M6
 * wing: --mach 0.8395 --alpha 3.06), --s0-offset the sensor shift of --av
 * (default -1; the ONERA M6 case uses the solver default -1.5). A group
 * named "symmetry" is a symmetry plane, "wall" a slip wall, any other a far
 * field.
 * Meshes default to tests/data/mesh_naca0012_tri_0_q2.cdgm and
 * .devmesh/naca_l1_q2.cdgm (relative to the working directory; a missing
 * file is reported and skipped); with --av to
 * tests/data/mesh_naca0012_hybrid_q2.cdgm. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/solution_io.h"
#include "backends/backend_select.h"
#include "coloring/coloring.h"
#include "dg/backend.h"
#include "dg/disc.h"
#include "lusgs/lusgs.h"
#include "lusgs/lusgs_ops.h"
#include "mesh/geometry.h"
#include "mesh/mesh.h"
#include "mesh/topology.h"
#include "problems.h"
#ifdef COLORDG_HAVE_CUDA
#include "bench_cuda/backend_cuda_bench.h"
#include "bench_cuda/lusgs_cuda_bench.h"
#include "kernels/backend_cuda.h"
#include "kernels/lusgs_cuda.h"
#endif
#ifdef COLORDG_HAVE_OPENMP
#include <omp.h>
#endif

/* --mach, --alpha (NAN: the case's), --s0-offset */
static double bench_mach = NAN, bench_alpha = NAN, bench_s0_offset = -1.0;
/* --cfl: a constant CFL instead of the ramp 10 -> 1000 (the M6 wing without
 * AV diverges from the free stream within the timed iterations at CFL 5) */
static double bench_cfl = NAN;
/* --affine-rule reduced (the default, as `colordg run`'s): the affine
 * elements' volume rule of degree 2p + 1 ([discretization] affine_rule =
 * reduced); mesh: the curved elements' rule on every element */
static int bench_affine_reduced = 1;
/* --face-rule reduced (the default, as `colordg run`'s [discretization]
 * face_rule): geometry_face_degree(p, dim, q, 1); mesh: (..., 0) */
static int bench_face_reduced = 1;
/* --curved-rule reduced (the default, as `colordg run`'s [discretization]
 * curved_rule): geometry_volume_degree(p, dim, q, 1); mesh: (..., 0) */
static int bench_curved_reduced = 1;
#define MAX_MESHES 8
#define N_PHASES LUSGS_N_PHASES /* lusgs_phase of lusgs.h */

typedef struct {
  const char *csv_path;
  const char *meshes[MAX_MESHES];
  int n_meshes, p_min, p_max, iters, cpu_iters, no_cpu, no_sweep;
  int default_only;  /* --default-only: the default kernel variants only (no other variants) */
  int av, sweeps;    /* --av: the transonic AV case; symmetric sweeps per iteration */
  const char *state; /* --state: initial state (.cdgs), or NULL (free stream) */
} bench_opts;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(const double *x, int n) {
  double *s = malloc((size_t)n * sizeof *s);
  memcpy(s, x, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, compare_double);
  const double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  free(s);
  return m;
}

/* The NACA case on a mesh file at degree p (tests/support/problems.h; walls:
 * the group "wall", colouring from it): M 0.5, α 2° without artificial
 * viscosity (av = 0); M 0.8, α 1.25° with the case defaults of
 * [artificial_viscosity] (av = 1); M 0.8, α 1.25° without it (av = 2, the
 * comparison). pb->U: the free stream. */
static dg_status problem_build(const char *path, int p, int av, problem *pb) {
  memset(pb, 0, sizeof *pb);
  DG_CALL(mesh_read(path, 0, &pb->mesh));
  DG_CALL(problem_color(pb, "wall"));
  DG_CALL(problem_geometry(
      pb, geometry_mesh_volume_degree(&pb->mesh, p, bench_curved_reduced),
      geometry_face_degree(p, pb->mesh.dim, pb->mesh.geom_order, bench_face_reduced)));
  const double mach = isnan(bench_mach) ? (av ? 0.8 : 0.5) : bench_mach;
  const double alpha = isnan(bench_alpha) ? (av ? 1.25 : 2.0) : bench_alpha;
  dg_disc_opts o;
  problem_bcs bcs;
  DG_CALL(problem_freestream_opts(&pb->mesh, p, mach, alpha, &o, &bcs));
  if (bench_affine_reduced) o.affine_degree = 2 * p + 1;
  if (av == 1) {
    o.av = DG_AV_ELEMENT;
    o.av_sensor_var = pb->mesh.dim + 1;
    o.av_s0_offset = bench_s0_offset;
    o.av_kappa = 1.0;
    o.av_c = 1.0;
  }
  DG_CALL(disc_build(&pb->mesh, &pb->topo, &pb->geom, &o, &pb->disc));
  DG_CALL(DG_CALLOC(pb->U, pb->disc.view.n_coefs));
  DG_CALL(disc_project(&pb->disc, 0.0, pb->U));
  return DG_SUCCESS;
}

static lusgs_opts bench_lusgs_opts(void) {
  lusgs_opts lo;
  memset(&lo, 0, sizeof lo);
  lo.cfl_law = LUSGS_CFL_EXPONENTIAL;
  lo.cfl_min = 10.0;
  lo.cfl_max = 1e3;
  lo.cfl_ramp_iters = 40;
  if (!isnan(bench_cfl)) lo.cfl_min = lo.cfl_max = bench_cfl;
  lo.n_sweeps = 1;
  lo.max_change = 0.2; /* the solver's default: the finer NACA meshes (135k, 537k triangles)
                          diverged within 17-23 timed iterations with the plain update */
  return lo;
}

static FILE *csv;

/* One CSV row: what, mesh, p, elements, variant, threads, then the phases'
 * milliseconds and the total. */
static void csv_row(const char *what, const char *mesh, int p, int64_t elems, const char *variant,
                    int threads, const double *ms, double total_ms) {
  fprintf(csv, "%s,%s,%d,%lld,%s,%d", what, mesh, p, (long long)elems, variant, threads);
  for (int k = 0; k < N_PHASES; ++k) fprintf(csv, ",%.4f", ms ? ms[k] : NAN);
  fprintf(csv, ",%.4f\n", total_ms);
  fflush(csv);
}

static void print_phases(const char *label, const double *ms, double total_ms, double dofs) {
  printf("  %-28s", label);
  for (int k = 0; k < N_PHASES; ++k) printf(" %8.3f", ms[k]);
  printf(" | %9.3f ms  %7.1f ns/dof\n", total_ms, 1e6 * total_ms / dofs);
  fflush(stdout);
}

static void print_header(void) {
  printf("  %-28s", "(milliseconds per iteration)");
  for (int k = 0; k < N_PHASES; ++k) printf(" %8.8s", lusgs_phase_name((lusgs_phase)k));
  printf(" | %12s  %12s\n", "total", "per DOF");
}

/* ------------------------------------------------------------ CPU */

/* Wall-clock profile hook of the CPU runs: the time from one phase mark to
 * the next is booked under the first; the CPU table's assemble (face
 * Jacobians, assembly and factorisation) marks nothing inside, so it is
 * booked under "assembly". */
typedef struct {
  double *ms, t0;
  int phase; /* the phase running since t0, -1 before the first mark */
} cpu_profile;

static dg_status cpu_profile_mark(void *user, lusgs_phase phase) {
  cpu_profile *p = user;
  const double t = now_seconds();
  if (p->phase >= 0) p->ms[p->phase] += 1e3 * (t - p->t0);
  p->phase = phase == LUSGS_PHASE_FACE_JAC ? LUSGS_PHASE_ASSEMBLY : (int)phase;
  p->t0 = t;
  return DG_SUCCESS;
}

/* One lusgs_step with the wall-clock hook: ms[N_PHASES] written. */
static dg_status cpu_timed_step(lusgs_marcher *m, dg_vec *U, int iteration, const lusgs_opts *lo,
                                double *ms) {
  for (int k = 0; k < N_PHASES; ++k) ms[k] = 0.0;
  cpu_profile prof = {ms, 0.0, -1};
  const lusgs_phase_hook hook = {cpu_profile_mark, &prof};
  lusgs_set_phase_hook(m, &hook);
  const dg_status status = lusgs_step(m, U, 0.0, iteration, lo, NULL);
  lusgs_set_phase_hook(m, NULL);
  return status;
}

static dg_status bench_cpu(const problem *pb, const char *mesh, int p, int threads, int iters) {
#ifdef COLORDG_HAVE_OPENMP
  omp_set_num_threads(threads);
#endif
  const dg_backend *b = backend_cpu();
  dg_backend_ctx *ctx = NULL;
  dg_vec U = {0};
  double *samples = calloc((size_t)iters * N_PHASES, sizeof *samples);
  lusgs_marcher m;
  memset(&m, 0, sizeof m);
  dg_status st = DG_SUCCESS;
  DG_CALL_GOTO(st, done, dg_backend_create(b, &pb->disc, &ctx));
  DG_CALL_GOTO(st, done, dg_vec_create(b, ctx, DG_VEC_STATE, &U));
  DG_CALL_GOTO(st, done, dg_vec_upload(pb->U, &U));
  DG_CALL_GOTO(st, done, lusgs_create(b, ctx, &pb->disc, &pb->col, &m));
  const lusgs_opts lo = bench_lusgs_opts();
  double ms[N_PHASES], med[N_PHASES], total = 0.0;
  DG_CALL_GOTO(st, done, cpu_timed_step(&m, &U, 1, &lo, ms)); /* warm-up */
  for (int it = 0; it < iters; ++it) {
    DG_CALL_GOTO(st, done, cpu_timed_step(&m, &U, it + 2, &lo, ms));
    for (int k = 0; k < N_PHASES; ++k) samples[k * iters + it] = ms[k];
  }
  for (int k = 0; k < N_PHASES; ++k) total += med[k] = median(samples + k * iters, iters);
  char label[64];
  snprintf(label, sizeof label, "CPU %d thread%s", threads, threads > 1 ? "s" : "");
  print_phases(label, med, total, (double)pb->disc.view.n_coefs / pb->disc.view.nvar);
  csv_row("cpu", mesh, p, pb->disc.view.n_elems, threads > 1 ? "all_threads" : "one_thread",
          threads, med, total);
done:
  lusgs_destroy(&m);
  if (ctx) {
    dg_vec_destroy(&U);
    dg_backend_destroy(b, ctx);
  }
  free(samples);
  return st;
}

/* ------------------------------------------------------------ GPU */

#ifdef COLORDG_HAVE_CUDA
static const char *asm_names[2] = {"thread", "team"};
static const char *factor_names[LUSGS_CUDA_N_FACTORS] = {"thread", "team", "cublas", "team_inv",
                                                         "warp_inv"};
static const char *sweep_names[2] = {"thread", "team"};

/* A configuration of the LU-SGS kernels. */
typedef struct {
  lusgs_cuda_assemble assemble;
  lusgs_cuda_factor factor;
  lusgs_cuda_sweep sweep;
  int threads, team_threads, tet_asm_threads;
  int separate; /* WARP_INVERSE after the separate assembly (lusgs_cuda_set_fused_assembly 0) */
  int entries;  /* the team assembly by entries (lusgs_cuda_set_assembly_rows 0) */
} gpu_config;

/* iters profiled iterations (after 3 warm-up ones from pb->U) with the
 * configuration; median per phase into med, *total. */
static dg_status gpu_profile(lusgs_marcher *m, dg_vec *U, const problem *pb, const gpu_config *c,
                             int iters, double *med, double *total) {
  DG_CALL(dg_vec_upload(pb->U, U));
  DG_CALL(lusgs_cuda_set_variant(m->lctx, c->assemble, c->factor, c->sweep));
  DG_CALL(lusgs_cuda_set_threads(m->lctx, c->threads));
  DG_CALL(lusgs_cuda_set_team_threads(m->lctx, c->team_threads));
  DG_CALL(lusgs_cuda_set_tet_asm_threads(m->lctx, c->tet_asm_threads));
  DG_CALL(lusgs_cuda_set_fused_assembly(m->lctx, !c->separate));
  DG_CALL(lusgs_cuda_set_assembly_rows(m->lctx, !c->entries));
  lusgs_set_reference(m, 0.0);
  const lusgs_opts lo = bench_lusgs_opts();
  double ms[N_PHASES], all = 0.0;
  double *samples = calloc((size_t)iters * (N_PHASES + 1), sizeof *samples);
  DG_CHECK(samples != NULL, DG_ERR_MEMORY, "bench_lusgs: out of memory");
  dg_status st = DG_SUCCESS;
  for (int it = 1; it <= 3 && st == DG_SUCCESS; ++it)
    st = lusgs_cuda_profile_step(m, U, 0.0, it, &lo, NULL, ms, &all);
  for (int it = 0; it < iters && st == DG_SUCCESS; ++it) {
    st = lusgs_cuda_profile_step(m, U, 0.0, it + 4, &lo, NULL, ms, &all);
    for (int k = 0; k < N_PHASES; ++k) samples[k * iters + it] = ms[k];
    samples[N_PHASES * iters + it] = all;
  }
  if (st == DG_SUCCESS) {
    for (int k = 0; k < N_PHASES; ++k) med[k] = median(samples + k * iters, iters);
    *total = median(samples + N_PHASES * iters, iters);
  }
  free(samples);
  return st;
}

/* Label "asm team, LU cublas, sweep team" and CSV variant "asm_team+lu_cublas+sweep_team". */
static void config_names(const gpu_config *c, char *label, size_t nl, char *variant, size_t nv) {
  const char *sep = c->separate ? "_sep" : "";
  const char *ent = c->entries && c->assemble == LUSGS_CUDA_ASSEMBLE_TEAM ? "_entries" : "";
  snprintf(label, nl, "asm %s%s, LU %s%s, sweep %s", asm_names[c->assemble], ent,
           factor_names[c->factor], sep, sweep_names[c->sweep]);
  snprintf(variant, nv, "asm_%s%s+lu_%s%s+sweep_%s", asm_names[c->assemble], ent,
           factor_names[c->factor], sep, sweep_names[c->sweep]);
}

static dg_status bench_gpu(const problem *pb, const char *mesh, int p, const bench_opts *o) {
  const dg_backend *b = backend_cuda();
  dg_backend_ctx *ctx = NULL;
  dg_vec U = {0};
  lusgs_marcher m;
  memset(&m, 0, sizeof m);
  dg_status st = DG_SUCCESS;
  const double dofs = (double)pb->disc.view.n_coefs / pb->disc.view.nvar;
  const int64_t ne = pb->disc.view.n_elems;
  DG_CALL_GOTO(st, done, dg_backend_create(b, &pb->disc, &ctx));
  DG_CALL_GOTO(st, done, dg_vec_create(b, ctx, DG_VEC_STATE, &U));
  DG_CALL_GOTO(st, done, lusgs_create(b, ctx, &pb->disc, &pb->col, &m));
  double med[N_PHASES], total = 0.0;
  const int T = LUSGS_CUDA_DEFAULT_THREADS, TT = LUSGS_CUDA_DEFAULT_TEAM_THREADS,
            TA = LUSGS_CUDA_DEFAULT_TET_ASM_THREADS;
  const gpu_config def = {LUSGS_CUDA_ASSEMBLE_TEAM,
                          LUSGS_CUDA_FACTOR_WARP_INVERSE,
                          LUSGS_CUDA_SWEEP_TEAM,
                          T,
                          TT,
                          TA,
                          0,
                          0};
  enum { N_VARIANTS = 10 };
  const gpu_config variants[N_VARIANTS] = {
      def,
      {LUSGS_CUDA_ASSEMBLE_TEAM, LUSGS_CUDA_FACTOR_WARP_INVERSE, LUSGS_CUDA_SWEEP_TEAM, T, TT, TA,
       1, 0},
      {LUSGS_CUDA_ASSEMBLE_TEAM, LUSGS_CUDA_FACTOR_TEAM_INVERSE, LUSGS_CUDA_SWEEP_TEAM, T, TT, TA,
       0, 0},
      {LUSGS_CUDA_ASSEMBLE_TEAM, LUSGS_CUDA_FACTOR_TEAM, LUSGS_CUDA_SWEEP_TEAM, T, TT, TA, 0, 0},
      {LUSGS_CUDA_ASSEMBLE_TEAM, LUSGS_CUDA_FACTOR_CUBLAS, LUSGS_CUDA_SWEEP_TEAM, T, TT, TA, 0, 0},
      {LUSGS_CUDA_ASSEMBLE_TEAM, LUSGS_CUDA_FACTOR_THREAD, LUSGS_CUDA_SWEEP_TEAM, T, TT, TA, 0, 0},
      {LUSGS_CUDA_ASSEMBLE_THREAD, LUSGS_CUDA_FACTOR_TEAM, LUSGS_CUDA_SWEEP_TEAM, T, TT, TA, 0, 0},
      {LUSGS_CUDA_ASSEMBLE_TEAM, LUSGS_CUDA_FACTOR_TEAM, LUSGS_CUDA_SWEEP_THREAD, T, TT, TA, 0, 0},
      {LUSGS_CUDA_ASSEMBLE_TEAM, LUSGS_CUDA_FACTOR_CUBLAS, LUSGS_CUDA_SWEEP_THREAD, T, TT, TA, 0,
       0},
      {LUSGS_CUDA_ASSEMBLE_THREAD, LUSGS_CUDA_FACTOR_THREAD, LUSGS_CUDA_SWEEP_THREAD, T, TT, TA, 0,
       0}};
  char label[96], variant[96];
  for (int k = 0; k < (o->default_only ? 1 : N_VARIANTS); ++k) {
    DG_CALL_GOTO(st, done, gpu_profile(&m, &U, pb, &variants[k], o->iters, med, &total));
    config_names(&variants[k], label, sizeof label, variant, sizeof variant);
    print_phases(label, med, total, dofs);
    csv_row("gpu", mesh, p, ne, variant, T, med, total);
  }
  /* the team assembly by entries (the form before the row tasks; the same
   * bits), with the default factorisation and the separate one */
  for (int k = 0; k < 2; ++k) {
    gpu_config c = def;
    c.separate = k;
    c.entries = 1;
    DG_CALL_GOTO(st, done, gpu_profile(&m, &U, pb, &c, o->iters, med, &total));
    config_names(&c, label, sizeof label, variant, sizeof variant);
    print_phases(label, med, total, dofs);
    csv_row("gpu", mesh, p, ne, variant, T, med, total);
  }
  /* the default variants with the block inverses of the sweeps in single
   * precision ([solver] inverse_precision = single), then back to double */
  {
    double single_ms = 0.0, double_ms = 0.0;
    DG_CALL_GOTO(st, done, gpu_profile(&m, &U, pb, &def, 5, med, &total));
    DG_CALL_GOTO(st, done, lusgs_cuda_time_sweeps(m.lctx, m.R.data, m.dU.data, 1, 200, &double_ms));
    /* elements per block of the stored-inverse sweep where it runs one
     * thread per row (large colours) */
    for (int epb = 1; epb <= 8; epb *= 2) {
      double ms = 0.0;
      DG_CALL_GOTO(st, done, lusgs_cuda_set_sweep_elems(m.lctx, epb));
      DG_CALL_GOTO(st, done, lusgs_cuda_time_sweeps(m.lctx, m.R.data, m.dU.data, 1, 200, &ms));
      printf("  sweeps team (CUDA Graph), %d elements per block where one thread per row: %.1f "
             "us\n",
             epb, 1e3 * ms);
      fprintf(csv, "sweeps_elems,%s,%d,%lld,%d,graph_ms,%.5f\n", mesh, p, (long long)ne, epb, ms);
    }
    DG_CALL_GOTO(st, done, lusgs_cuda_set_sweep_elems(m.lctx, 0));
    /* the generic stored-inverse sweep kernel against the tuned one, where
     * it is built for the mesh (the default there; the same bits) */
    if (lusgs_cuda_sweep_tuned_built(m.lctx)) {
      double ms = 0.0;
      DG_CALL_GOTO(st, done, lusgs_cuda_set_sweep_tuned(m.lctx, 0));
      DG_CALL_GOTO(st, done, lusgs_cuda_time_sweeps(m.lctx, m.R.data, m.dU.data, 1, 200, &ms));
      DG_CALL_GOTO(st, done, lusgs_cuda_set_sweep_tuned(m.lctx, 1));
      printf("  sweeps team (CUDA Graph): %.1f us with the kernel for the mesh's modes, %.1f us "
             "generic (%.2fx)\n",
             1e3 * double_ms, 1e3 * ms, ms / double_ms);
      fprintf(csv, "sweeps_tuned,%s,%d,%lld,sweep_team,tuned_ms,%.5f,generic_ms,%.5f\n", mesh, p,
              (long long)ne, double_ms, ms);
    }
    DG_CALL_GOTO(st, done, lusgs_set_inverse_single(&m, 1));
    DG_CALL_GOTO(st, done, gpu_profile(&m, &U, pb, &def, o->iters, med, &total));
    print_phases("default, single inverses", med, total, dofs);
    csv_row("gpu", mesh, p, ne, "default+single", T, med, total);
    DG_CALL_GOTO(st, done, lusgs_cuda_time_sweeps(m.lctx, m.R.data, m.dU.data, 1, 200, &single_ms));
    printf("  sweeps team (%d colours, as a CUDA Graph): %.1f us with double inverses, %.1f us "
           "single (%.2fx)\n",
           m.n_colors, 1e3 * double_ms, 1e3 * single_ms, double_ms / single_ms);
    fprintf(csv, "sweeps_single,%s,%d,%lld,sweep_team,double_ms,%.5f,single_ms,%.5f\n", mesh, p,
            (long long)ne, double_ms, single_ms);
    DG_CALL_GOTO(st, done, lusgs_set_inverse_single(&m, 0));
  }
  /* blocks a warp cannot hold (tetrahedra and quadrilaterals at p = 3) by
   * TEAM_INVERSE's LU and inverse rows instead of the team Gauss-Jordan
   * inverse */
  DG_CALL_GOTO(st, done, lusgs_cuda_set_gj_team(m.lctx, 0));
  DG_CALL_GOTO(st, done, gpu_profile(&m, &U, pb, &def, o->iters, med, &total));
  print_phases("default, LU for large blocks", med, total, dofs);
  csv_row("gpu", mesh, p, ne, "default+lu_large", T, med, total);
  DG_CALL_GOTO(st, done, lusgs_cuda_set_gj_team(m.lctx, 1));
  /* the face Jacobians by forward differences ([solver] face_jacobian =
   * forward), with double and with single inverses */
  DG_CALL_GOTO(st, done, lusgs_set_face_jacobian_forward(&m, 1));
  for (int single = 0; single < 2; ++single) {
    DG_CALL_GOTO(st, done, lusgs_set_inverse_single(&m, single));
    DG_CALL_GOTO(st, done, gpu_profile(&m, &U, pb, &def, o->iters, med, &total));
    print_phases(single ? "default, forward, single" : "default, forward", med, total, dofs);
    csv_row("gpu", mesh, p, ne, single ? "default+forward+single" : "default+forward", T, med,
            total);
  }
  DG_CALL_GOTO(st, done, lusgs_set_inverse_single(&m, 0));
  DG_CALL_GOTO(st, done, lusgs_set_face_jacobian_forward(&m, 0));
  /* the local time step alone, tuned and portable kernels (the same bits) */
  {
    double us_tuned = 0.0, us_portable = 0.0;
    DG_CALL_GOTO(
        st, done,
        backend_cuda_time_timestep(ctx, U.data, 1.0, m.dt.data, 50, &us_tuned, &us_portable));
    printf("  local time step: %.1f us tuned, %.1f us portable (%.2fx)\n", us_tuned, us_portable,
           us_portable / us_tuned);
    fprintf(csv, "timestep,%s,%d,%lld,tuned_us,%.2f,portable_us,%.2f\n", mesh, p, (long long)ne,
            us_tuned, us_portable);
  }
  size_t block_bytes = 0, total_bytes = 0;
  lusgs_cuda_memory(m.lctx, &block_bytes, &total_bytes);
  printf("  device memory of the LU-SGS context: %.1f MB (blocks, pivots, cuBLAS LU copy %.1f MB; "
         "%.0f bytes of blocks per element)\n",
         total_bytes / 1e6, block_bytes / 1e6, (double)block_bytes / (double)ne);
  /* launch sizes, default variants: threads of the per-element kernels and
   * team sweeps (team threads 128), then team threads (threads 32) */
  for (int pass = 0; pass < 2 && !o->no_sweep; ++pass)
    for (int threads = 32; threads <= 1024; threads *= 2) {
      gpu_config c = def;
      if (pass == 0)
        c.threads = threads;
      else
        c.team_threads = c.tet_asm_threads = threads;
      DG_CALL_GOTO(st, done,
                   gpu_profile(&m, &U, pb, &c, o->iters / 2 > 5 ? o->iters / 2 : 5, med, &total));
      snprintf(label, sizeof label, "default, %s %d", pass ? "team threads" : "threads", threads);
      print_phases(label, med, total, dofs);
      csv_row(pass ? "gpu_team_threads" : "gpu_threads", mesh, p, ne, "default", threads, med,
              total);
      const char *names[16];
      int used[16];
      const int n_kernels = lusgs_cuda_kernel_threads(m.lctx, names, used, 16);
      int printed = 0;
      for (int k = 0; k < n_kernels; ++k)
        if (pass == 0 && used[k] != threads)
          printf("%s %s %d", printed++ ? "," : "    (kernel limit:", names[k], used[k]);
      if (printed) printf(")\n");
    }
  /* the sweeps one by one vs as a graph, default variants and per-thread sweeps */
  for (int k = 0; k < 2; ++k) {
    gpu_config c = def;
    c.sweep = k ? LUSGS_CUDA_SWEEP_THREAD : LUSGS_CUDA_SWEEP_TEAM;
    DG_CALL_GOTO(st, done, gpu_profile(&m, &U, pb, &c, 5, med, &total));
    double plain_ms = 0.0, graph_ms = 0.0;
    DG_CALL_GOTO(st, done, lusgs_cuda_time_sweeps(m.lctx, m.R.data, m.dU.data, 0, 200, &plain_ms));
    DG_CALL_GOTO(st, done, lusgs_cuda_time_sweeps(m.lctx, m.R.data, m.dU.data, 1, 200, &graph_ms));
    printf("  sweeps %-6s (%d colours, %d launches): %.1f us launched one by one, %.1f us as a "
           "CUDA Graph (%.2fx)\n",
           sweep_names[c.sweep], m.n_colors, 2 * m.n_colors, 1e3 * plain_ms, 1e3 * graph_ms,
           plain_ms / graph_ms);
    fprintf(csv, "sweeps_graph,%s,%d,%lld,sweep_%s,plain_ms,%.5f,graph_ms,%.5f\n", mesh, p,
            (long long)ne, sweep_names[c.sweep], plain_ms, graph_ms);
  }
done:
  lusgs_destroy(&m);
  if (ctx) {
    dg_vec_destroy(&U);
    dg_backend_destroy(b, ctx);
  }
  return st;
}
#endif

#ifdef COLORDG_HAVE_CUDA
/* --av: one LU-SGS iteration of the transonic case from pb->U (pb: AV on; pb0:
 * the same case with AV off), every phase, without AV, AV TEAM, AV THREAD. */
static dg_status bench_av(const problem *pb, const problem *pb0, const char *mesh, int p,
                          const bench_opts *o) {
  const dg_backend *b = backend_cuda();
  const double dofs = (double)pb->disc.view.n_coefs / pb->disc.view.nvar;
  const int64_t ne = pb->disc.view.n_elems;
  static const char *names[3] = {"no AV", "AV team", "AV thread (reference)"};
  static const char *csv_names[3] = {"no_av", "av_team", "av_thread"};
  dg_status st = DG_SUCCESS;
  for (int k = 0; k < 3 && st == DG_SUCCESS; ++k) {
    const problem *q = k ? pb : pb0;
    dg_backend_ctx *ctx = NULL;
    dg_vec U = {0};
    lusgs_marcher m;
    memset(&m, 0, sizeof m);
    const int iters = k == 2 && o->iters > 5 ? 5 : o->iters;
    double *samples = calloc((size_t)iters * (N_PHASES + 1), sizeof *samples);
    if (!samples) {
      st = dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__, "bench_lusgs: out of memory");
      goto done;
    }
    DG_CALL_GOTO(st, done, dg_backend_create(b, &q->disc, &ctx));
    DG_CALL_GOTO(st, done, dg_vec_create(b, ctx, DG_VEC_STATE, &U));
    DG_CALL_GOTO(st, done, dg_vec_upload(pb->U, &U));
    DG_CALL_GOTO(st, done, lusgs_create(b, ctx, &q->disc, &q->col, &m));
    if (k)
      DG_CALL_GOTO(
          st, done,
          lusgs_cuda_set_av_variant(m.lctx, k == 1 ? LUSGS_CUDA_AV_TEAM : LUSGS_CUDA_AV_THREAD));
    lusgs_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.cfl_law = LUSGS_CFL_EXPONENTIAL;
    lo.cfl_min = 10.0;
    lo.cfl_max = 1000.0;
    lo.cfl_ramp_iters = 50;
    lo.n_sweeps = o->sweeps;
    lo.av_relax = 0.2;
    double ms[N_PHASES], all = 0.0, med[N_PHASES], total = 0.0;
    for (int it = 1; it <= 2; ++it)
      DG_CALL_GOTO(st, done, lusgs_cuda_profile_step(&m, &U, 0.0, it, &lo, NULL, ms, &all));
    for (int it = 0; it < iters; ++it) {
      DG_CALL_GOTO(st, done, lusgs_cuda_profile_step(&m, &U, 0.0, it + 3, &lo, NULL, ms, &all));
      for (int j = 0; j < N_PHASES; ++j) samples[j * iters + it] = ms[j];
      samples[N_PHASES * iters + it] = all;
    }
    for (int j = 0; j < N_PHASES; ++j) med[j] = median(samples + j * iters, iters);
    total = median(samples + N_PHASES * iters, iters);
    print_phases(names[k], med, total, dofs);
    csv_row("gpu_av", mesh, p, ne, csv_names[k], o->sweeps, med, total);
    if (k == 1)
      printf("    %lld of %lld rows viscous at the last assembly, %d colours, %d sweeps\n",
             (long long)lusgs_cuda_av_rows(m.lctx), (long long)ne, m.n_colors, o->sweeps);
  done:
    lusgs_destroy(&m);
    if (ctx) {
      dg_vec_destroy(&U);
      dg_backend_destroy(b, ctx);
    }
    free(samples);
  }
  return st;
}
#endif

/* Bytes per element of the block storage (n² doubles + n int32 pivots;
 * cuBLAS keeps a second n² doubles) for p = 0..3, triangles, quads and
 * tetrahedra, and of the face Jacobians per face point. */
static void print_memory_table(void) {
  printf("\nblock memory per element (n = nvar x modes; n^2 doubles + n int32 pivots; "
         "cuBLAS: + n^2 doubles)\n");
  printf("  %-6s %2s %4s %10s %12s\n", "shape", "p", "n", "bytes", "bytes cuBLAS");
  const struct {
    const char *name;
    int nvar, kind; /* 0 tri, 1 quad, 2 tet */
  } shapes[3] = {{"tri", 4, 0}, {"quad", 4, 1}, {"tet", 5, 2}};
  for (int k = 0; k < 3; ++k)
    for (int p = 0; p <= 3; ++p) {
      const int nb = shapes[k].kind == 0   ? (p + 1) * (p + 2) / 2
                     : shapes[k].kind == 1 ? (p + 1) * (p + 1)
                                           : (p + 1) * (p + 2) * (p + 3) / 6;
      const int n = shapes[k].nvar * nb;
      const double bytes = 8.0 * n * n + 4.0 * n;
      printf("  %-6s %2d %4d %10.0f %12.0f\n", shapes[k].name, p, n, bytes, bytes + 8.0 * n * n);
      fprintf(csv, "memory,%s,%d,%d,%.0f,%.0f\n", shapes[k].name, p, n, bytes, bytes + 8.0 * n * n);
    }
  printf("  face Jacobians: 2 nvar^2 doubles per face point (%d bytes in 2D, %d in 3D)\n",
         2 * 16 * 8, 2 * 25 * 8);
}

/* The value of a rule option (--affine-rule, --face-rule, --curved-rule):
 * *reduced = 1 for "reduced", 0 for "mesh"; 0 (with a message) otherwise. */
static int parse_rule(const char *option, const char *value, int *reduced) {
  if (strcmp(value, "mesh") && strcmp(value, "reduced")) {
    fprintf(stderr, "bench_lusgs: %s expects mesh or reduced, got '%s'\n", option, value);
    return 0;
  }
  *reduced = !strcmp(value, "reduced");
  return 1;
}

static int parse(int argc, char **argv, bench_opts *o) {
  memset(o, 0, sizeof *o);
  o->p_min = 1;
  o->p_max = 3;
  o->iters = 20;
  o->cpu_iters = 3;
  o->sweeps = 16;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const int has_value = i + 1 < argc;
    if (!strcmp(a, "--csv") && has_value)
      o->csv_path = argv[++i];
    else if (!strcmp(a, "--mesh") && has_value && o->n_meshes < MAX_MESHES)
      o->meshes[o->n_meshes++] = argv[++i];
    else if (!strcmp(a, "--p-min") && has_value)
      o->p_min = atoi(argv[++i]);
    else if (!strcmp(a, "--p-max") && has_value)
      o->p_max = atoi(argv[++i]);
    else if (!strcmp(a, "--iters") && has_value)
      o->iters = atoi(argv[++i]);
    else if (!strcmp(a, "--cpu-iters") && has_value)
      o->cpu_iters = atoi(argv[++i]);
    else if (!strcmp(a, "--no-cpu"))
      o->no_cpu = 1;
    else if (!strcmp(a, "--no-sweep"))
      o->no_sweep = 1;
    else if (!strcmp(a, "--default-only"))
      o->default_only = 1;
    else if (!strcmp(a, "--av"))
      o->av = 1;
    else if (!strcmp(a, "--state") && has_value)
      o->state = argv[++i];
    else if (!strcmp(a, "--sweeps") && has_value)
      o->sweeps = atoi(argv[++i]);
    else if (!strcmp(a, "--mach") && has_value)
      bench_mach = atof(argv[++i]);
    else if (!strcmp(a, "--alpha") && has_value)
      bench_alpha = atof(argv[++i]);
    else if (!strcmp(a, "--s0-offset") && has_value)
      bench_s0_offset = atof(argv[++i]);
    else if (!strcmp(a, "--cfl") && has_value)
      bench_cfl = atof(argv[++i]);
    else if (!strcmp(a, "--affine-rule") && has_value) {
      if (!parse_rule(a, argv[++i], &bench_affine_reduced)) return 0;
    } else if (!strcmp(a, "--face-rule") && has_value) {
      if (!parse_rule(a, argv[++i], &bench_face_reduced)) return 0;
    } else if (!strcmp(a, "--curved-rule") && has_value) {
      if (!parse_rule(a, argv[++i], &bench_curved_reduced)) return 0;
    } else {
      fprintf(stderr, "bench_lusgs: unknown or incomplete option '%s'\n", a);
      return 0;
    }
  }
  if (!o->csv_path || o->iters < 5 || o->cpu_iters < 1 || o->p_min < 0 || o->p_max > 3 ||
      o->p_min > o->p_max || o->sweeps < 1 || (o->av && o->p_min < 1) ||
      !(isnan(bench_mach) || (bench_mach > 0.0 && bench_mach < 10.0)) ||
      !(isnan(bench_alpha) || fabs(bench_alpha) < 90.0) ||
      !(isnan(bench_cfl) || (bench_cfl > 0.0 && bench_cfl < 1e12))) {
    fprintf(stderr, "usage: bench_lusgs --csv PATH [--mesh FILE]... [--p-min P] [--p-max P] "
                    "[--iters N>=5] [--cpu-iters N>=1] [--no-cpu] [--no-sweep] [--default-only] "
                    "[--av [--state FILE.cdgs] [--sweeps N>=1]] (--av: p >= 1) [--mach M] "
                    "[--alpha DEG] [--s0-offset S] [--cfl C] [--affine-rule mesh|reduced] "
                    "[--face-rule mesh|reduced] [--curved-rule mesh|reduced]\n");
    return 0;
  }
  if (o->n_meshes == 0 && o->av)
    o->meshes[o->n_meshes++] = COLORDG_TEST_DATA "/mesh_naca0012_hybrid_q2.cdgm";
  if (o->n_meshes == 0) {
    o->meshes[o->n_meshes++] = COLORDG_TEST_DATA "/mesh_naca0012_tri_0_q2.cdgm";
    o->meshes[o->n_meshes++] = ".devmesh/naca_l1_q2.cdgm";
  }
  return 1;
}

int main(int argc, char **argv) {
  bench_opts o;
  if (!parse(argc, argv, &o)) return 2;
  csv = fopen(o.csv_path, "w");
  if (!csv) {
    fprintf(stderr, "bench_lusgs: cannot write %s\n", o.csv_path);
    return 1;
  }
  char device[256] = "none";
  double peak_gbs = NAN, peak_gflops = NAN;
  int have_gpu = 0;
#ifdef COLORDG_HAVE_CUDA
  if (backend_cuda_available() &&
      backend_cuda_device_info(device, (int)sizeof device, &peak_gbs, &peak_gflops) == DG_SUCCESS)
    have_gpu = 1;
#endif
  int max_threads = 1;
#ifdef COLORDG_HAVE_OPENMP
  max_threads = omp_get_num_procs();
#endif
  printf("device: %s (peak %.0f GB/s, FP64 %.0f GFLOP/s); CPU threads 1 and %d\n", device, peak_gbs,
         peak_gflops, max_threads);
  fprintf(csv, "# device,%s,cpu_threads,%d\n", device, max_threads);
  fprintf(csv, "what,mesh,p,elems,variant,threads");
  for (int k = 0; k < N_PHASES; ++k) fprintf(csv, ",%s_ms", lusgs_phase_name((lusgs_phase)k));
  fprintf(csv, ",total_ms\n");
  print_memory_table();
  int failures = 0;
  for (int i = 0; i < o.n_meshes; ++i)
    for (int p = o.p_min; p <= o.p_max; ++p) {
      problem pb;
      const double t0 = now_seconds();
      dg_status st = problem_build(o.meshes[i], p, o.av, &pb);
      if (o.av) {
#ifdef COLORDG_HAVE_CUDA
        problem pb0;
        memset(&pb0, 0, sizeof pb0);
        if (st == DG_SUCCESS && o.state)
          st = solution_read_prolong(o.state, &pb.mesh, &pb.disc, pb.U);
        if (st == DG_SUCCESS) st = problem_build(o.meshes[i], p, 2, &pb0);
        if (st == DG_SUCCESS && !have_gpu)
          st = dg_error_set(DG_ERR_UNSUPPORTED, __FILE__, __LINE__, __func__,
                            "bench_lusgs --av needs a CUDA device");
        if (st == DG_SUCCESS) {
          const dg_disc_view *d = &pb.disc.view;
          printf("\n%s p=%d, M 0.8 with AV (state %s): %lld elements, %d colours, %.0f DOF\n",
                 o.meshes[i], p, o.state ? o.state : "free stream", (long long)d->n_elems,
                 pb.col.n_colors, (double)d->n_coefs / d->nvar);
          print_header();
          st = bench_av(&pb, &pb0, o.meshes[i], p, &o);
        }
        problem_free(&pb0);
#else
        if (st == DG_SUCCESS)
          st = dg_error_set(DG_ERR_UNSUPPORTED, __FILE__, __LINE__, __func__,
                            "bench_lusgs --av needs the CUDA backend");
#endif
        if (st != DG_SUCCESS) {
          dg_error_print(stderr, 1);
          dg_error_clear();
          ++failures;
        }
        problem_free(&pb);
        continue;
      }
      if (st == DG_SUCCESS) {
        const dg_disc_view *d = &pb.disc.view;
        printf("\n%s p=%d: %lld elements, %d colours, %.0f DOF (%lld unknowns); set-up %.1f s\n",
               o.meshes[i], p, (long long)d->n_elems, pb.col.n_colors, (double)d->n_coefs / d->nvar,
               (long long)d->n_coefs, now_seconds() - t0);
        print_header();
      }
#ifdef COLORDG_HAVE_CUDA
      if (st == DG_SUCCESS && have_gpu) st = bench_gpu(&pb, o.meshes[i], p, &o);
#endif
      if (st == DG_SUCCESS && !o.no_cpu) st = bench_cpu(&pb, o.meshes[i], p, 1, o.cpu_iters);
      if (st == DG_SUCCESS && !o.no_cpu && max_threads > 1)
        st = bench_cpu(&pb, o.meshes[i], p, max_threads, o.cpu_iters);
      if (st != DG_SUCCESS) {
        dg_error_print(stderr, 1);
        dg_error_clear();
        ++failures;
      }
      problem_free(&pb);
    }
  (void)have_gpu;
  fclose(csv);
  return failures ? 1 : 0;
}
