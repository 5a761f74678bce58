/* Residual benchmark: time per residual evaluation R(U) of the CUDA backend
 * (CUDA events around the face and element kernels, warm-up, median of
 * repetitions) and of the CPU backend with 1 thread and all threads, for
 * p = 0..3 on structured 2D triangle, 2D quad and 3D tet meshes (straight,
 * and order-2 curved), from ~10k to >= 1.5M unknowns, plus the "9k
 * triangles" mesh of the latency target.
 *
 * Reports ns per degree of freedom (basis coefficient, per element and
 * mode) and per unknown (coefficient x equation), and, from the work model
 * below, achieved GB/s and GFLOP/s against the device's peaks. Prints a
 * table and writes CSV to the path given with --csv.
 *
 * Work model of one residual (docs/PERFORMANCE.md states it):
 *   bytes: compulsory traffic, every array touched once — U read, R written,
 *     face_flux written then read, face normals + wsJ, element metrics
 *     (det J + inverse Jacobian, one entry per affine element or per volume
 *     point), connectivity (face_elem, face_local, face_orient, face_group,
 *     elem_face, elem_shape, elem_affine, metric_offset); reference tables
 *     are not counted (a few hundred KB at most, cache resident).
 *   flops: mul, add, div and sqrt counted 1 each, from the loops of
 *     src/dg/residual_ops.h and the pointwise functions of physics.h.
 *
 * usage: bench_residual --csv PATH [--quick] [--reps N] [--max-unknowns N]
 *                       [--cpu1-max-unknowns N] [--no-cpu] [--portable]
 *                       [--rk-steps N] [--mesh LABEL] [--p P] [--min-unknowns N]
 *                       [--floor] [--quadrature collapsed|symmetric]
 *                       [--cdgm PATH [--flux roe|rusanov] [--affine-rule R]
 *                        [--face-rule R] [--curved-rule R]]
 *                       [--team-chunk N] [--team-modes M] [--face-gather G]
 *                       [--team-face-share S] [--elem-thread T]
 * --quadrature: the rule family on triangles and tetrahedra (default
 * collapsed; src/element/quadrature.h); the CSV's last columns name it and
 * give the volume rule's points (the largest over the mesh's shapes) and the
 * face rule's;
 * --portable also times the portable CUDA kernels (columns portable_*);
 * --rk-steps N times N SSP-RK3 steps of the tuned backend (global CFL step,
 * wall clock; column rk3_step_us through explicit_rk3_step, column
 * rk3_graph_step_us through timestep + backend_cuda_rk3_stages, one CUDA
 * graph for the three stages with the separate updates; column
 * rk3_fixed_step_us through explicit_rk3_step with a fixed step, as PyFR's
 * fixed-step schemes run; column rk3_local_step_us with local steps and no
 * norms, a steady run's step);
 * --mesh LABEL / --p P / --min-unknowns N keep only the configurations of
 * that mesh label (tri9k, tri, quad, tet) / degree / with at least N
 * unknowns;
 * --team-chunk N: volume points per chunk of the tuned element kernel
 * (backend_cuda_set_team_chunk; default 0, the kernel's own choice);
 * --team-modes 0|1|2|3: modes per thread in phase 2 of the tuned element
 * kernel (backend_cuda_set_team_modes; default 0, the kernel's own choice);
 * --team-modes-rk 0|1|2|3: the same in the element kernel with the fused
 * RK stage alone (backend_cuda_set_team_modes_rk; default 0);
 * --elem-thread -1|0|1|2: the tuned element kernel with one thread per
 * element, its coefficients in registers (1) or shared memory (2) where
 * it can (backend_cuda_set_elem_thread; default -1, the backend's own
 * choice);
 * --face-gather -1|0|1: the tuned single-shape face kernel gathers each
 * face's coefficients once into shared memory (backend_cuda_set_face_gather;
 * default -1, the backend's own choice);
 * --team-face-share -1|0|1: the tuned element kernel keeps the face fluxes
 * in the shared memory of its volume chunk (backend_cuda_set_team_face_share;
 * default -1, the backend's own choice);
 * --face-trace -1|0|1: the trace path of the tuned face pass
 * (backend_cuda_set_face_trace; default -1, the backend's own choice);
 * --team-elems N: elements per block of the tuned element kernel
 * (backend_cuda_set_team_elems: 0 the automatic choice, the default:
 * the fewest with the most elements at once on a multiprocessor, balanced
 * over the waves of blocks; N > 0 at most N, a large N the most a block
 * takes);
 * --floor first runs the launch-floor micro-benchmark
 * (backend_cuda_launch_floor) on the first configuration's context.
 * Column gpu_stream_us: µs per residual of back-to-back residuals (5 × reps
 * launched without synchronisation, between two events).
 *
 * --cdgm PATH [--flux roe|rusanov] benches a mesh file instead of the
 * structured sweep (bench_file; the PyFR comparison, tools/compare_pyfr.sh):
 * p = 1..3 (or --p), Euler M 0.5 free stream along x (rho 1, p 1/gamma) plus
 * a small perturbation, groups "wall"/"symmetry" slip walls and every other
 * group far field, the quadrature degrees of `colordg run` (by default the
 * affine elements' rule of degree 2p + 1, as `[discretization] affine_rule =
 * reduced`; --affine-rule mesh: the curved rule on every element; column
 * affine_rule; the face rule of `[discretization] face_rule = reduced`,
 * --face-rule mesh the older one, column face_rule; the volume rule of
 * `[discretization] curved_rule = reduced`, --curved-rule mesh the older
 * one, column curved_rule); one CSV row per p
 * (mesh = the file's base name; columns of bench_file: the event-timed and
 * back-to-back GPU residual, the GPU SSP-RK3 steps, and the CPU backend on
 * all threads: residual and cpuN_rk3_step_us, the median of min(5,
 * --rk-steps) SSP-RK3 steps). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/backend_select.h"
#include "dg/backend.h"
#include "dg/disc.h"
#include "dg/explicit.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "problems.h"
#ifdef COLORDG_HAVE_CUDA
#include "bench_cuda/backend_cuda_bench.h"
#include "kernels/backend_cuda.h"
#endif
#ifdef COLORDG_HAVE_OPENMP
#include <omp.h>
#endif

typedef struct {
  const char *csv_path;
  int quick, reps, no_cpu;
  int portable;           /* also time the portable CUDA kernels */
  int rk_steps;           /* > 0: also time this many SSP-RK3 steps (tuned CUDA) */
  int floor;              /* run the launch-floor micro-benchmark first */
  const char *mesh_label; /* NULL: every mesh */
  const char *cdgm;       /* non-NULL: bench this mesh file (bench_file) */
  int flux;               /* DG_FACE_FLUX_ROE (default) or DG_FACE_FLUX_RUSANOV */
  int only_p;             /* -1: every degree */
  dg_quad_family family;  /* rules on triangles and tetrahedra */
  int affine_reduced;     /* --cdgm: affine elements integrate at 2p + 1 */
  int face_reduced;       /* --cdgm: geometry_face_degree(..., 1), face_rule = reduced */
  int curved_reduced;     /* --cdgm: geometry_volume_degree(..., 1), curved_rule = reduced */
  int64_t max_unknowns, min_unknowns, cpu1_max_unknowns;
} bench_opts;

/* One configuration: mesh kind, geometric order, p, cells per axis. */
typedef struct {
  const char *label; /* "tri", "quad", "tet", "tri9k" */
  dg_mesh_structured_kind kind;
  int dim, order, p;
  int64_t n[3];
} bench_config;

typedef struct {
  double median_ms, face_ms, element_ms;
  int reps;
  double stream_us;        /* µs per residual, back-to-back (NAN when not timed) */
  double rk_step_us;       /* µs per SSP-RK3 step through explicit_rk3_step */
  double rk_graph_step_us; /* µs per step through backend_cuda_rk3_stages */
  double rk_fixed_step_us; /* µs per step through explicit_rk3_step with a fixed step */
  double rk_local_step_us; /* µs per step with local steps, no norms (a steady run's step) */
} bench_time;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *x, int n) {
  qsort(x, (size_t)n, sizeof *x, compare_double);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Modes of the basis on shape s at degree p (P_p simplices, Q_p quads). */
static int modes(dg_mesh_structured_kind kind, int p) {
  switch (kind) {
  case MESH_STRUCTURED_QUAD: return (p + 1) * (p + 1);
  case MESH_STRUCTURED_TET: return (p + 1) * (p + 2) * (p + 3) / 6;
  default: return (p + 1) * (p + 2) / 2;
  }
}

/* Cells per axis so that the mesh holds about `target` unknowns (at least
 * target when at_least). */
static void size_for(bench_config *c, double target, int at_least) {
  const int epc = c->kind == MESH_STRUCTURED_TET ? 6 : c->kind == MESH_STRUCTURED_QUAD ? 1 : 2;
  const double per_cell = (double)epc * modes(c->kind, c->p) * (c->dim + 2);
  const double cells = target / per_cell;
  const double side = pow(cells, 1.0 / c->dim);
  int64_t n = at_least ? (int64_t)ceil(side) : (int64_t)llround(side);
  if (n < 2) n = 2;
  c->n[0] = c->n[1] = n;
  c->n[2] = c->dim == 3 ? n : 1;
}

/* Points of the largest volume rule over the mesh's shapes. */
static int max_vol_points(const dg_disc *disc) {
  int n = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    if (disc->view.n_shape[s] > 0 && disc->view.nq[s] > n) n = disc->view.nq[s];
  return n;
}

/* Compulsory bytes of one residual (model in the header comment). */
static double model_bytes(const dg_disc *disc) {
  const dg_disc_view *d = &disc->view;
  const double dim = d->dim, nv = d->nvar;
  double faces_per_elem = 0.0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    if (d->n_shape[s] > 0) faces_per_elem += (double)d->n_shape[s] * shape_n_faces((dg_shape)s);
  double bytes = 8.0 * 2.0 * (double)d->n_coefs;             /* U read, R written */
  bytes += 8.0 * 2.0 * (double)disc->n_face_points * nv;     /* face_flux written + read */
  bytes += 8.0 * (double)disc->n_face_points * (dim + 1.0);  /* normal, wsJ */
  bytes += 8.0 * (double)disc->n_metric * (1.0 + dim * dim); /* det J, inverse Jacobian */
  bytes += (double)d->n_faces * (16.0 + 2.0 + 1.0 + 4.0);    /* face_elem/local/orient/group */
  bytes += (double)d->n_elems * (1.0 + 1.0 + 8.0) + 8.0 * faces_per_elem; /* elem arrays */
  return bytes;
}

/* Flops of the Roe flux along n (physics_roe_flux), counted from the source:
 * two normal fluxes (7 dim + 8 each), the Roe wave sum with its averages
 * (39 dim + 91) and the final combination (4 per variable). */
static double roe_flops(int dim) { return 2.0 * (7 * dim + 8) + (39 * dim + 91) + 4.0 * (dim + 2); }

/* Flops of one residual (model in the header comment). */
static double model_flops(const dg_disc *disc) {
  const dg_disc_view *d = &disc->view;
  const double dim = d->dim, nv = d->nvar;
  double flops = 0.0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (d->n_shape[s] == 0) continue;
    const double nb = d->nb[s], nq = d->nq[s], nf = shape_n_faces((dg_shape)s);
    const double per_point = nv * nb * 2.0                /* U at the point */
                             + dim * (7.0 * dim + 8.0)    /* physics_flux */
                             + 1.0 + dim * nv * 2.0 * dim /* w det J, G = w det J J^-1 F */
                             + nb * nv * 2.0 * dim;       /* R_m += dphi_m . G */
    const double face_gather = nf * d->nqf * nv * (1.0 + 2.0 * nb);
    flops += (double)d->n_shape[s] * (nq * per_point + face_gather);
  }
  /* faces: traces of both sides (one for a boundary face, whose ghost state
   * is not counted), Roe flux, scaling by wsJ */
  int64_t nb_face = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    if (d->n_shape[s] > 0) nb_face = d->nb[s] > nb_face ? d->nb[s] : nb_face;
  const double traces = (double)(d->n_interior * 2 + (d->n_faces - d->n_interior));
  flops += (double)d->nqf *
           (traces * nv * nb_face * 2.0 + (double)d->n_faces * (roe_flops(d->dim) + nv));
  return flops;
}

/* The benchmark problem (tests/support/problems.h): the structured mesh of
 * c, deformed when curved, far field on every side at M 0.5, α 2°,
 * quadrature degrees 2p + 1 on every mesh order. */
static dg_status build(const bench_config *c, dg_quad_family family, dg_mesh *mesh,
                       dg_topology *topo, dg_geometry *geom, dg_disc *disc) {
  dg_mesh_structured_opts mo = mesh_structured_defaults(c->dim);
  mo.kind = c->kind;
  mo.order = c->order;
  for (int d = 0; d < 3; ++d) mo.n[d] = c->n[d];
  mo.deform = c->order > 1 ? 0.03 : 0.0;
  DG_CALL(problem_mesh_structured(&mo, mesh));
  DG_CALL(topology_build(mesh, topo));
  DG_CALL(geometry_build_family(mesh, topo, 2 * c->p + 1, 2 * c->p + 1, family, geom));
  dg_disc_opts o;
  problem_bcs bcs;
  DG_CALL(problem_freestream_opts(mesh, c->p, 0.5, 2.0, &o, &bcs));
  DG_CALL(disc_build(mesh, topo, geom, &o, disc));
  return DG_SUCCESS;
}

/* CPU backend: median wall time of residual calls with `threads` threads;
 * at least 3 calls, at most reps, stopping after ~0.3 s. */
static dg_status time_cpu(const dg_disc *disc, const double *h_U, int threads, int reps,
                          bench_time *out) {
#ifdef COLORDG_HAVE_OPENMP
  omp_set_num_threads(threads);
#else
  (void)threads;
#endif
  const dg_backend *be = backend_cpu();
  dg_backend_ctx *ctx = NULL;
  dg_vec U = {0}, R = {0};
  double *samples = NULL;
  dg_status st = DG_SUCCESS;
  DG_CALL_GOTO(st, done, DG_CALLOC(samples, reps));
  DG_CALL_GOTO(st, done, dg_backend_create(be, disc, &ctx));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_STATE, &U));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_STATE, &R));
  DG_CALL_GOTO(st, done, dg_vec_upload(h_U, &U));
  DG_CALL_GOTO(st, done, dg_backend_residual(be, ctx, &U, 0.0, &R)); /* warm-up */
  const double start = now_seconds();
  int n = 0;
  while (n < reps && (n < 3 || now_seconds() - start < 0.3)) {
    const double t0 = now_seconds();
    DG_CALL_GOTO(st, done, dg_backend_residual(be, ctx, &U, 0.0, &R));
    samples[n++] = 1e3 * (now_seconds() - t0);
  }
  out->reps = n;
  out->median_ms = median(samples, n);
  out->face_ms = out->element_ms = NAN;
done:
  if (ctx) {
    dg_vec_destroy(&U);
    dg_vec_destroy(&R);
    dg_backend_destroy(be, ctx);
  }
  free(samples);
  return st;
}

/* --team-chunk N: volume points per chunk of the tuned element kernel
 * (backend_cuda_set_team_chunk; 0: its default) */
static int bench_team_chunk = 0;
/* --team-modes M (backend_cuda_set_team_modes; 0: its default) */
static int bench_team_modes = 0;
/* --team-modes-rk M (backend_cuda_set_team_modes_rk; 0: its default) */
static int bench_team_modes_rk = 0;
/* --elem-thread -1|0|1|2 (backend_cuda_set_elem_thread; -1: its default) */
static int bench_elem_thread = -1;
/* --face-gather -1|0|1 (backend_cuda_set_face_gather; -1: its default) */
static int bench_face_gather = -1;
/* --team-face-share -1|0|1 (backend_cuda_set_team_face_share; -1: its default) */
static int bench_team_face_share = -1;
/* --face-trace -1|0|1 (backend_cuda_set_face_trace; -1: its default) */
static int bench_face_trace = -1;
/* --team-elems N (backend_cuda_set_team_elems; 0: its default) */
static int bench_team_elems = 0;

#ifdef COLORDG_HAVE_CUDA
/* Prints the launch-floor micro-benchmark of ctx's device. */
static dg_status print_floor(dg_backend_ctx *ctx) {
  double us[3][3];
  DG_CALL(backend_cuda_launch_floor(ctx, 200, us));
  const char *names[3] = {"empty kernel", "view by value (3 KB)", "view pointer"};
  printf("launch floor (2 blocks per SM, 200 launches each; %zu-byte view):\n",
         sizeof(dg_disc_view));
  printf("  %-22s %18s %18s %18s\n", "kernel", "1 launch, idle us", "back-to-back us",
         "host us/launch");
  for (int k = 0; k < 3; ++k)
    printf("  %-22s %18.2f %18.2f %18.2f\n", names[k], us[k][0], us[k][1], us[k][2]);
  return DG_SUCCESS;
}

/* Times `steps` SSP-RK3 steps on U: mode 0, explicit_rk3_step with a global
 * CFL step (computed, reduced and read back every step); mode 1, timestep
 * + backend_cuda_rk3_stages (the separate updates as one graph); mode 2,
 * explicit_rk3_step with a fixed step (the CFL step of U, computed once), as
 * PyFR's fixed-step schemes run; mode 3, explicit_rk3_step with local steps
 * and no norms, as a steady run's steps between its monitor points: wall
 * clock after 2 untimed steps, closed by a norms call (it waits for the
 * device). */
static dg_status time_rk3(const dg_backend *be, dg_backend_ctx *ctx, const dg_disc *disc, dg_vec *U,
                          int mode, int steps, double *us_per_step) {
  const int graph = mode == 1;
  explicit_rk3 rk;
  memset(&rk, 0, sizeof rk);
  explicit_rk3_opts opts = {0.1, 0, 0.0, 0, 0};
  explicit_rk3_info info;
  double norms[DG_MAX_NVAR];
  int finite = 0;
  dg_vec U1 = {0}, R = {0}, dt = {0};
  cuda_rk3_graph *rk3_graph = NULL;
  dg_status st = explicit_rk3_create(be, ctx, disc, &rk);
  if (st == DG_SUCCESS) st = dg_vec_create(be, ctx, DG_VEC_STATE, &U1);
  if (st == DG_SUCCESS) st = dg_vec_create(be, ctx, DG_VEC_STATE, &R);
  if (st == DG_SUCCESS) st = dg_vec_create(be, ctx, DG_VEC_ELEM, &dt);
  opts.local_dt = mode == 3;
  if (st == DG_SUCCESS && mode == 2)
    st = dg_backend_timestep(be, ctx, U, opts.cfl, 1, &dt, &opts.dt_fixed);
  double t0 = 0.0;
  for (int i = 0; i < steps + 2 && st == DG_SUCCESS; ++i) {
    if (i == 2) {
      st = dg_backend_norms(be, ctx, U, norms, &finite);
      t0 = now_seconds();
    }
    if (st != DG_SUCCESS) break;
    if (graph) {
      double h = 0.0;
      st = dg_backend_timestep(be, ctx, U, opts.cfl, 1, &dt, &h);
      const double stage_t[3] = {0.0, h, 0.5 * h}; /* as explicit_rk3_step at t = 0 */
      if (st == DG_SUCCESS)
        st = backend_cuda_rk3_stages(ctx, &rk3_graph, U->data, U1.data, R.data, dt.data, stage_t);
    } else {
      st = explicit_rk3_step(&rk, U, 0.0, &opts, &info);
    }
  }
  if (st == DG_SUCCESS) st = dg_backend_norms(be, ctx, U, norms, &finite);
  *us_per_step = 1e6 * (now_seconds() - t0) / steps;
  cuda_rk3_graph_free(rk3_graph);
  dg_vec_destroy(&U1);
  dg_vec_destroy(&R);
  dg_vec_destroy(&dt);
  explicit_rk3_destroy(&rk);
  return st;
}

/* CUDA backend: 3 warm-up calls, then `reps` calls timed with events. */
static dg_status time_gpu(const dg_disc *disc, const double *h_U, int reps,
                          backend_cuda_variant variant, int rk_steps, int *floor_pending,
                          bench_time *out) {
  const dg_backend *be = backend_cuda();
  dg_backend_ctx *ctx = NULL;
  dg_vec U = {0}, R = {0};
  double *face = NULL, *element = NULL, *total = NULL;
  dg_status st = DG_SUCCESS;
  DG_CALL_GOTO(st, done, DG_CALLOC(face, reps));
  DG_CALL_GOTO(st, done, DG_CALLOC(element, reps));
  DG_CALL_GOTO(st, done, DG_CALLOC(total, reps));
  DG_CALL_GOTO(st, done, dg_backend_create(be, disc, &ctx));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_STATE, &U));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_STATE, &R));
  DG_CALL_GOTO(st, done, dg_vec_upload(h_U, &U));
  DG_CALL_GOTO(st, done, backend_cuda_set_variant(ctx, variant));
  if (variant == BACKEND_CUDA_TUNED)
    DG_CALL_GOTO(st, done, backend_cuda_set_team_chunk(ctx, bench_team_chunk));
  if (variant == BACKEND_CUDA_TUNED)
    DG_CALL_GOTO(st, done, backend_cuda_set_team_modes(ctx, bench_team_modes));
  if (variant == BACKEND_CUDA_TUNED)
    DG_CALL_GOTO(st, done, backend_cuda_set_team_modes_rk(ctx, bench_team_modes_rk));
  if (variant == BACKEND_CUDA_TUNED)
    DG_CALL_GOTO(st, done, backend_cuda_set_elem_thread(ctx, bench_elem_thread));
  if (variant == BACKEND_CUDA_TUNED)
    DG_CALL_GOTO(st, done, backend_cuda_set_face_gather(ctx, bench_face_gather));
  if (variant == BACKEND_CUDA_TUNED)
    DG_CALL_GOTO(st, done, backend_cuda_set_team_face_share(ctx, bench_team_face_share));
  if (variant == BACKEND_CUDA_TUNED)
    DG_CALL_GOTO(st, done, backend_cuda_set_team_elems(ctx, bench_team_elems));
  if (variant == BACKEND_CUDA_TUNED)
    DG_CALL_GOTO(st, done, backend_cuda_set_face_trace(ctx, bench_face_trace));
  if (*floor_pending) {
    DG_CALL_GOTO(st, done, print_floor(ctx));
    *floor_pending = 0;
  }
  DG_CALL_GOTO(st, done,
               backend_cuda_time_residual(ctx, U.data, 0.0, R.data, 3, reps, face, element));
  DG_CALL_GOTO(
      st, done,
      backend_cuda_time_residual_stream(ctx, U.data, 0.0, R.data, 5 * reps, &out->stream_us));
  if (rk_steps > 0) {
    DG_CALL_GOTO(st, done, time_rk3(be, ctx, disc, &U, 0, rk_steps, &out->rk_step_us));
    DG_CALL_GOTO(st, done, time_rk3(be, ctx, disc, &U, 1, rk_steps, &out->rk_graph_step_us));
    DG_CALL_GOTO(st, done, time_rk3(be, ctx, disc, &U, 2, rk_steps, &out->rk_fixed_step_us));
    DG_CALL_GOTO(st, done, time_rk3(be, ctx, disc, &U, 3, rk_steps, &out->rk_local_step_us));
  }
  for (int i = 0; i < reps; ++i) total[i] = face[i] + element[i];
  out->reps = reps;
  out->median_ms = median(total, reps);
  out->face_ms = median(face, reps);
  out->element_ms = median(element, reps);
done:
  if (ctx) {
    dg_vec_destroy(&U);
    dg_vec_destroy(&R);
    dg_backend_destroy(be, ctx);
  }
  free(face);
  free(element);
  free(total);
  return st;
}
#endif

/* Option `name` with the value mesh (*reduced = 0) or reduced (1) at
 * argv[*i]: consumes both and returns 1; 0 for any other option or value
 * (then the caller's unknown-option error). */
static int rule_option(int argc, char **argv, int *i, const char *name, int *reduced) {
  if (strcmp(argv[*i], name) || *i + 1 >= argc) return 0;
  const char *v = argv[*i + 1];
  if (strcmp(v, "mesh") && strcmp(v, "reduced")) return 0;
  *reduced = !strcmp(v, "reduced");
  ++*i;
  return 1;
}

static int parse(int argc, char **argv, bench_opts *o) {
  memset(o, 0, sizeof *o);
  o->reps = 20;
  o->only_p = -1;
  o->max_unknowns = 2000000;
  o->cpu1_max_unknowns = 200000;
  o->affine_reduced = 1; /* `colordg run`'s default, [discretization] affine_rule = reduced */
  o->face_reduced = 1;   /* and face_rule = reduced */
  o->curved_reduced = 1; /* and curved_rule = reduced */
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const int has_value = i + 1 < argc;
    if (!strcmp(a, "--csv") && has_value)
      o->csv_path = argv[++i];
    else if (!strcmp(a, "--quick"))
      o->quick = 1;
    else if (!strcmp(a, "--no-cpu"))
      o->no_cpu = 1;
    else if (!strcmp(a, "--portable"))
      o->portable = 1;
    else if (!strcmp(a, "--floor"))
      o->floor = 1;
    else if (!strcmp(a, "--cdgm") && has_value)
      o->cdgm = argv[++i];
    else if (!strcmp(a, "--flux") && has_value && !strcmp(argv[i + 1], "roe"))
      o->flux = DG_FACE_FLUX_ROE, ++i;
    else if (!strcmp(a, "--flux") && has_value && !strcmp(argv[i + 1], "rusanov"))
      o->flux = DG_FACE_FLUX_RUSANOV, ++i;
    else if (!strcmp(a, "--mesh") && has_value)
      o->mesh_label = argv[++i];
    else if (!strcmp(a, "--quadrature") && has_value && !strcmp(argv[i + 1], "collapsed"))
      o->family = DG_QUAD_COLLAPSED, ++i;
    else if (!strcmp(a, "--quadrature") && has_value && !strcmp(argv[i + 1], "symmetric"))
      o->family = DG_QUAD_SYMMETRIC, ++i;
    else if (rule_option(argc, argv, &i, "--affine-rule", &o->affine_reduced) ||
             rule_option(argc, argv, &i, "--face-rule", &o->face_reduced) ||
             rule_option(argc, argv, &i, "--curved-rule", &o->curved_reduced))
      continue;
    else if (!strcmp(a, "--p") && has_value)
      o->only_p = atoi(argv[++i]);
    else if (!strcmp(a, "--team-chunk") && has_value)
      bench_team_chunk = atoi(argv[++i]);
    else if (!strcmp(a, "--team-modes") && has_value)
      bench_team_modes = atoi(argv[++i]);
    else if (!strcmp(a, "--team-modes-rk") && has_value)
      bench_team_modes_rk = atoi(argv[++i]);
    else if (!strcmp(a, "--elem-thread") && has_value)
      bench_elem_thread = atoi(argv[++i]);
    else if (!strcmp(a, "--face-gather") && has_value)
      bench_face_gather = atoi(argv[++i]);
    else if (!strcmp(a, "--team-face-share") && has_value)
      bench_team_face_share = atoi(argv[++i]);
    else if (!strcmp(a, "--face-trace") && has_value)
      bench_face_trace = atoi(argv[++i]);
    else if (!strcmp(a, "--team-elems") && has_value)
      bench_team_elems = atoi(argv[++i]);
    else if (!strcmp(a, "--rk-steps") && has_value)
      o->rk_steps = atoi(argv[++i]);
    else if (!strcmp(a, "--reps") && has_value)
      o->reps = atoi(argv[++i]);
    else if (!strcmp(a, "--min-unknowns") && has_value)
      o->min_unknowns = atoll(argv[++i]);
    else if (!strcmp(a, "--max-unknowns") && has_value)
      o->max_unknowns = atoll(argv[++i]);
    else if (!strcmp(a, "--cpu1-max-unknowns") && has_value)
      o->cpu1_max_unknowns = atoll(argv[++i]);
    else {
      fprintf(stderr, "bench_residual: unknown or incomplete option '%s'\n", a);
      return 0;
    }
  }
  if (!o->csv_path || o->reps < 20) {
    fprintf(stderr,
            "usage: bench_residual --csv PATH [--quick] [--reps N>=20] "
            "[--max-unknowns N] [--min-unknowns N] [--cpu1-max-unknowns N] [--no-cpu] "
            "[--portable] "
            "[--rk-steps N] [--mesh LABEL] [--p P] [--floor] "
            "[--quadrature collapsed|symmetric] [--cdgm PATH [--flux roe|rusanov] "
            "[--affine-rule mesh|reduced] [--face-rule mesh|reduced] [--curved-rule mesh|reduced]] "
            "[--team-chunk N] "
            "[--team-modes 0|1|2|3] [--team-modes-rk 0|1|2|3] [--elem-thread -1|0|1|2] "
            "[--face-gather -1|0|1] [--team-face-share -1|0|1] [--team-elems N] [--face-trace "
            "-1|0|1]\n");
    return 0;
  }
  return 1;
}

/* Every configuration, in table order. Returns the count. */
static int make_configs(const bench_opts *o, bench_config *list, int cap) {
  int n = 0;
  /* the latency mesh: 67 x 67 cells = 8978 straight triangles */
  for (int p = 0; p <= 3 && n < cap; ++p)
    list[n++] = (bench_config){"tri9k", MESH_STRUCTURED_TRI, 2, 1, p, {67, 67, 1}};
  const double targets[3] = {1e4, 1.5e5, 1.5e6};
  const int n_targets = o->quick ? 1 : 3;
  const struct {
    const char *label;
    dg_mesh_structured_kind kind;
    int dim;
  } shapes[3] = {{"tri", MESH_STRUCTURED_TRI, 2},
                 {"quad", MESH_STRUCTURED_QUAD, 2},
                 {"tet", MESH_STRUCTURED_TET, 3}};
  for (int k = 0; k < 3; ++k)
    for (int order = 1; order <= 2; ++order)
      for (int t = 0; t < n_targets; ++t) {
        if (order == 2 && t == 1) continue; /* curved: smallest and largest only */
        for (int p = 0; p <= 3 && n < cap; ++p) {
          bench_config c = {shapes[k].label, shapes[k].kind, shapes[k].dim, order, p, {1, 1, 1}};
          size_for(&c, targets[t], t == 2);
          list[n++] = c;
        }
      }
  return n;
}

/* --cdgm: times one SSP-RK3 step (explicit_rk3_step, global CFL step 0.1)
 * of the CPU backend on h_U: the median wall time of `steps` steps after one
 * untimed step (a median, as for the residual), µs per step. */
static dg_status time_rk3_cpu(const dg_disc *disc, const double *h_U, int threads, int steps,
                              double *us_per_step) {
#ifdef COLORDG_HAVE_OPENMP
  omp_set_num_threads(threads);
#else
  (void)threads;
#endif
  const dg_backend *be = backend_cpu();
  dg_backend_ctx *ctx = NULL;
  dg_vec U = {0};
  explicit_rk3 rk;
  memset(&rk, 0, sizeof rk);
  const explicit_rk3_opts opts = {0.1, 0, 0.0, 0, 0};
  double *samples = NULL;
  int n = 0;
  dg_status st = DG_CALLOC(samples, steps);
  if (st == DG_SUCCESS) st = dg_backend_create(be, disc, &ctx);
  if (st == DG_SUCCESS) st = dg_vec_create(be, ctx, DG_VEC_STATE, &U);
  if (st == DG_SUCCESS) st = dg_vec_upload(h_U, &U);
  if (st == DG_SUCCESS) st = explicit_rk3_create(be, ctx, disc, &rk);
  if (st == DG_SUCCESS) st = explicit_rk3_step(&rk, &U, 0.0, &opts, NULL); /* warm-up */
  while (n < steps && st == DG_SUCCESS) {
    const double t0 = now_seconds();
    st = explicit_rk3_step(&rk, &U, 0.0, &opts, NULL);
    samples[n++] = 1e6 * (now_seconds() - t0);
  }
  *us_per_step = st == DG_SUCCESS && n > 0 ? median(samples, n) : NAN;
  explicit_rk3_destroy(&rk);
  dg_vec_destroy(&U);
  if (ctx) dg_backend_destroy(be, ctx);
  free(samples);
  return st;
}

/* --cdgm PATH: the residual (and an SSP-RK3 step) on a mesh file for p =
 * 1..3 or --p, with the free stream of the PyFR comparison (header
 * comment); one printed line and one CSV row per p. */
static int bench_file(const bench_opts *o, FILE *csv, int have_gpu, double peak_gbs,
                      double peak_gflops, int max_threads) {
  const char *base = strrchr(o->cdgm, '/') ? strrchr(o->cdgm, '/') + 1 : o->cdgm;
  char label[128];
  snprintf(label, sizeof label, "%.*s", (int)strcspn(base, "."), base);
  const int steps = o->rk_steps > 0 ? o->rk_steps : 10;
  fprintf(csv, "mesh,geom_order,p,flux,elems,dofs,unknowns,bytes,flops,gpu_us,gpu_face_us,"
               "gpu_element_us,gpu_ns_per_dof,gpu_GBs,gpu_GFLOPs,gpu_stream_us,"
               "gpu_stream_ns_per_dof,rk3_step_us,rk3_graph_step_us,cpuN_threads,cpuN_us,"
               "cpuN_ns_per_dof,cpuN_GBs,cpuN_GFLOPs,cpuN_rk3_step_us,setup_s,quadrature,"
               "vol_points,face_points,rk3_fixed_step_us,rk3_local_step_us,affine_rule,face_rule,"
               "curved_rule\n");
  int failures = 0;
  for (int p = 1; p <= 3; ++p) {
    if (o->only_p >= 0 && p != o->only_p) continue;
    dg_mesh mesh;
    dg_topology topo;
    dg_geometry geom;
    dg_disc disc;
    memset(&mesh, 0, sizeof mesh);
    memset(&topo, 0, sizeof topo);
    memset(&geom, 0, sizeof geom);
    memset(&disc, 0, sizeof disc);
    double *U = NULL;
    int32_t *bc = NULL;
    physics_bc_data *data = NULL;
    const double t0 = now_seconds();
    dg_status st = mesh_read_cdgm(o->cdgm, &mesh);
    if (st == DG_SUCCESS) st = topology_build(&mesh, &topo);
    const int dim = mesh.dim, q = mesh.geom_order > 0 ? mesh.geom_order : 1;
    /* the degrees of `colordg run` (src/app/run.c run_build_disc) */
    if (st == DG_SUCCESS)
      st = geometry_build_family(
          &mesh, &topo, geometry_mesh_volume_degree(&mesh, p, o->curved_reduced),
          geometry_face_degree(p, dim, q, o->face_reduced), o->family, &geom);
    dg_disc_opts d;
    memset(&d, 0, sizeof d);
    d.p = p;
    d.gamma = 1.4; /* as problem_freestream_opts (tests/support/problems.h) */
    d.flux = o->flux;
    if (o->affine_reduced) d.affine_degree = 2 * p + 1; /* [discretization] affine_rule */
    physics_freestream_state(dim, d.gamma, 0.5, 0.0, 0.0, d.freestream);
    const int ng = mesh.n_groups > 0 ? mesh.n_groups : 1;
    if (st == DG_SUCCESS) st = DG_CALLOC(bc, ng);
    if (st == DG_SUCCESS) st = DG_CALLOC(data, ng);
    for (int g = 0; st == DG_SUCCESS && g < mesh.n_groups; ++g) {
      const char *name = mesh.groups[g].name;
      bc[g] = !strncmp(name, "wall", 4) || !strcmp(name, "symmetry") ? PHYSICS_BC_WALL
                                                                     : PHYSICS_BC_FARFIELD;
      for (int v = 0; v < DG_MAX_NVAR; ++v) data[g].state[v] = d.freestream[v];
    }
    d.n_groups = mesh.n_groups;
    d.group_bc = bc;
    d.group_data = data;
    if (st == DG_SUCCESS) st = disc_build(&mesh, &topo, &geom, &d, &disc);
    if (st == DG_SUCCESS) st = DG_CALLOC(U, disc.view.n_coefs);
    const double setup_s = now_seconds() - t0;
    const bench_time unset = {NAN, NAN, NAN, 0, NAN, NAN, NAN, NAN, NAN};
    bench_time gpu = unset, cpun = unset;
    double cpu_rk_us = NAN;
    if (st == DG_SUCCESS) {
      problem_smooth_state(&disc, 1e-3, U);
#ifdef COLORDG_HAVE_CUDA
      int floor_pending = 0;
      if (have_gpu)
        st = time_gpu(&disc, U, o->reps, BACKEND_CUDA_TUNED, steps, &floor_pending, &gpu);
#else
      (void)have_gpu;
#endif
      if (st == DG_SUCCESS && !o->no_cpu) st = time_cpu(&disc, U, max_threads, o->reps, &cpun);
      if (st == DG_SUCCESS && !o->no_cpu)
        st = time_rk3_cpu(&disc, U, max_threads, steps < 5 ? steps : 5, &cpu_rk_us);
    }
    if (st != DG_SUCCESS) {
      dg_error_print(stderr, 1);
      dg_error_clear();
      ++failures;
    } else {
      const double dofs = (double)disc.view.n_coefs / disc.view.nvar;
      const double bytes = model_bytes(&disc), flops = model_flops(&disc);
      const double gs = 1e-3 * gpu.median_ms, cs = 1e-3 * cpun.median_ms;
      const char *flux = o->flux == DG_FACE_FLUX_RUSANOV ? "rusanov" : "roe";
      printf("colordg %s p=%d %-8s elems=%lld dofs=%.0f | gpu %.1f us (%.4f ns/dof), "
             "back-to-back %.1f us, %.0f GB/s, %.0f GFLOP/s (peaks %.0f, %.0f), RK3 step %.1f "
             "us, graph %.1f us, fixed step %.1f us, local steps %.1f us | cpu %d thr %.1f us "
             "(%.3f ns/dof), RK3 "
             "step %.1f us\n",
             label, p, flux, (long long)disc.view.n_elems, dofs, 1e6 * gs, 1e9 * gs / dofs,
             gpu.stream_us, bytes / gs / 1e9, flops / gs / 1e9, peak_gbs, peak_gflops,
             gpu.rk_step_us, gpu.rk_graph_step_us, gpu.rk_fixed_step_us, gpu.rk_local_step_us,
             max_threads, 1e6 * cs, 1e9 * cs / dofs, cpu_rk_us);
      fprintf(csv,
              "%s,%d,%d,%s,%lld,%.0f,%lld,%.0f,%.0f,%.3f,%.3f,%.3f,%.5f,%.1f,%.1f,%.3f,%.5f,%.2f,"
              "%.2f,%d,%.3f,%.5f,%.2f,%.2f,%.2f,%.2f,%s,%d,%d,%.2f,%.2f,%s,%s,%s\n",
              label, q, p, flux, (long long)disc.view.n_elems, dofs, (long long)disc.view.n_coefs,
              bytes, flops, 1e6 * gs, 1e3 * gpu.face_ms, 1e3 * gpu.element_ms, 1e9 * gs / dofs,
              bytes / gs / 1e9, flops / gs / 1e9, gpu.stream_us, 1e3 * gpu.stream_us / dofs,
              gpu.rk_step_us, gpu.rk_graph_step_us, max_threads, 1e6 * cs, 1e9 * cs / dofs,
              bytes / cs / 1e9, flops / cs / 1e9, cpu_rk_us, setup_s,
              quadrature_family_name(o->family), max_vol_points(&disc), disc.view.nqf,
              gpu.rk_fixed_step_us, gpu.rk_local_step_us, o->affine_reduced ? "reduced" : "mesh",
              o->face_reduced ? "reduced" : "mesh", o->curved_reduced ? "reduced" : "mesh");
      fflush(stdout);
      fflush(csv);
    }
    free(U);
    free(bc);
    free(data);
    disc_free(&disc);
    geometry_free(&geom);
    topology_free(&topo);
    mesh_free(&mesh);
  }
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  bench_opts o;
  if (!parse(argc, argv, &o)) return 2;
  FILE *csv = fopen(o.csv_path, "w");
  if (!csv) {
    fprintf(stderr, "bench_residual: cannot write %s\n", o.csv_path);
    return 1;
  }
  char device[256] = "none";
  double peak_gbs = NAN, peak_gflops = NAN;
#ifdef COLORDG_HAVE_CUDA
  int have_gpu = 0;
  if (backend_cuda_available() &&
      backend_cuda_device_info(device, (int)sizeof device, &peak_gbs, &peak_gflops) == DG_SUCCESS)
    have_gpu = 1;
#endif
  int max_threads = 1;
#ifdef COLORDG_HAVE_OPENMP
  max_threads = omp_get_num_procs();
#endif
  printf("device: %s  peak %.0f GB/s, FP64 vector %.0f GFLOP/s; CPU threads: 1 and %d; %s "
         "rules; block %d\n",
         device, peak_gbs, peak_gflops, max_threads, quadrature_family_name(o.family),
#ifdef COLORDG_HAVE_CUDA
         BACKEND_CUDA_BLOCK
#else
         0
#endif
  );
  fprintf(csv, "# device,%s,peak_GBs,%.1f,peak_fp64_GFLOPs,%.1f,cpu_threads,%d\n", device, peak_gbs,
          peak_gflops, max_threads);
  if (o.cdgm) {
    int gpu_present = 0;
#ifdef COLORDG_HAVE_CUDA
    gpu_present = have_gpu;
#endif
    const int rc = bench_file(&o, csv, gpu_present, peak_gbs, peak_gflops, max_threads);
    fclose(csv);
    return rc;
  }
  fprintf(csv, "mesh,geom_order,p,elems,dofs,unknowns,bytes,flops,gpu_us,gpu_face_us,"
               "gpu_element_us,gpu_ns_per_dof,gpu_ns_per_unknown,gpu_GBs,gpu_GFLOPs,gpu_bw_frac,"
               "gpu_flop_frac,cpu1_us,cpu1_ns_per_unknown,cpuN_us,cpuN_ns_per_unknown,"
               "setup_s,portable_us,portable_face_us,portable_element_us,rk3_step_us,"
               "gpu_stream_us,rk3_graph_step_us,quadrature,vol_points,face_points,"
               "rk3_fixed_step_us,rk3_local_step_us\n");
  printf("%-6s %2s %2s %9s %9s %9s | %9s %8s %8s %7s %7s %5s | %9s %8s | %9s %8s\n", "mesh", "q",
         "p", "elems", "dofs", "unknowns", "gpu us", "ns/dof", "ns/unk", "GB/s", "GFLOP/s", "%bw",
         "cpu1 us", "ns/unk", "cpuN us", "ns/unk");

  int floor_pending = o.floor;
  (void)floor_pending; /* used by the CUDA timings only */
  bench_config configs[128];
  const int n_configs = make_configs(&o, configs, 128);
  int failures = 0;
  for (int i = 0; i < n_configs; ++i) {
    const bench_config *c = &configs[i];
    const double expected = (double)c->n[0] * c->n[1] * c->n[2] *
                            (c->kind == MESH_STRUCTURED_TET    ? 6
                             : c->kind == MESH_STRUCTURED_QUAD ? 1
                                                               : 2) *
                            modes(c->kind, c->p) * (c->dim + 2);
    if (expected > (double)o.max_unknowns || expected < (double)o.min_unknowns) continue;
    if (o.mesh_label && strcmp(o.mesh_label, c->label) != 0) continue;
    if (o.only_p >= 0 && c->p != o.only_p) continue;
    dg_mesh mesh;
    dg_topology topo;
    dg_geometry geom;
    dg_disc disc;
    memset(&mesh, 0, sizeof mesh);
    memset(&topo, 0, sizeof topo);
    memset(&geom, 0, sizeof geom);
    memset(&disc, 0, sizeof disc);
    double *U = NULL;
    const double t0 = now_seconds();
    dg_status st = build(c, o.family, &mesh, &topo, &geom, &disc);
    if (st == DG_SUCCESS) st = DG_CALLOC(U, disc.view.n_coefs);
    const double setup_s = now_seconds() - t0;
    const bench_time unset = {NAN, NAN, NAN, 0, NAN, NAN, NAN, NAN, NAN};
    bench_time gpu = unset, cpu1 = unset, cpun = unset, portable = unset;
    if (st == DG_SUCCESS) {
      problem_smooth_state(&disc, 1e-3, U);
#ifdef COLORDG_HAVE_CUDA
      if (have_gpu)
        st = time_gpu(&disc, U, o.reps, BACKEND_CUDA_TUNED, o.rk_steps, &floor_pending, &gpu);
      if (have_gpu && st == DG_SUCCESS && o.portable)
        st = time_gpu(&disc, U, o.reps, BACKEND_CUDA_PORTABLE, 0, &floor_pending, &portable);
#endif
      if (st == DG_SUCCESS && !o.no_cpu && disc.view.n_coefs <= o.cpu1_max_unknowns)
        st = time_cpu(&disc, U, 1, o.reps, &cpu1);
      if (st == DG_SUCCESS && !o.no_cpu && max_threads > 1)
        st = time_cpu(&disc, U, max_threads, o.reps, &cpun);
    }
    if (st != DG_SUCCESS) {
      dg_error_print(stderr, 1);
      dg_error_clear();
      ++failures;
    } else {
      const dg_disc_view *d = &disc.view;
      const double unknowns = (double)d->n_coefs, dofs = unknowns / d->nvar;
      const double bytes = model_bytes(&disc), flops = model_flops(&disc);
      const double gpu_s = 1e-3 * gpu.median_ms;
      const double gbs = bytes / gpu_s / 1e9, gflops = flops / gpu_s / 1e9;
      printf("%-6s %2d %2d %9lld %9.0f %9.0f | %9.1f %8.4f %8.4f %7.0f %7.0f %5.1f | %9.1f %8.3f "
             "| %9.1f %8.3f\n",
             c->label, c->order, c->p, (long long)d->n_elems, dofs, unknowns, 1e3 * gpu.median_ms,
             1e6 * gpu.median_ms / dofs, 1e6 * gpu.median_ms / unknowns, gbs, gflops,
             100.0 * gbs / peak_gbs, 1e3 * cpu1.median_ms, 1e6 * cpu1.median_ms / unknowns,
             1e3 * cpun.median_ms, 1e6 * cpun.median_ms / unknowns);
      printf("       tuned face %.1f + element %.1f us, back-to-back %.1f us/residual; portable "
             "%.1f (face %.1f + element %.1f) us, %.2fx; RK3 step %.1f us, graph %.1f us, fixed "
             "step %.1f us, local steps %.1f us\n",
             1e3 * gpu.face_ms, 1e3 * gpu.element_ms, gpu.stream_us, 1e3 * portable.median_ms,
             1e3 * portable.face_ms, 1e3 * portable.element_ms, portable.median_ms / gpu.median_ms,
             gpu.rk_step_us, gpu.rk_graph_step_us, gpu.rk_fixed_step_us, gpu.rk_local_step_us);
      fprintf(csv,
              "%s,%d,%d,%lld,%.0f,%.0f,%.0f,%.0f,%.3f,%.3f,%.3f,%.5f,%.5f,%.1f,%.1f,%.4f,%.4f,"
              "%.3f,%.5f,%.3f,%.5f,%.2f,%.3f,%.3f,%.3f,%.2f,%.3f,%.2f,%s,%d,%d,%.2f,%.2f\n",
              c->label, c->order, c->p, (long long)d->n_elems, dofs, unknowns, bytes, flops,
              1e3 * gpu.median_ms, 1e3 * gpu.face_ms, 1e3 * gpu.element_ms,
              1e6 * gpu.median_ms / dofs, 1e6 * gpu.median_ms / unknowns, gbs, gflops,
              gbs / peak_gbs, gflops / peak_gflops, 1e3 * cpu1.median_ms,
              1e6 * cpu1.median_ms / unknowns, 1e3 * cpun.median_ms,
              1e6 * cpun.median_ms / unknowns, setup_s, 1e3 * portable.median_ms,
              1e3 * portable.face_ms, 1e3 * portable.element_ms, gpu.rk_step_us, gpu.stream_us,
              gpu.rk_graph_step_us, quadrature_family_name(o.family), max_vol_points(&disc), d->nqf,
              gpu.rk_fixed_step_us, gpu.rk_local_step_us);
      fflush(stdout);
      fflush(csv);
    }
    free(U);
    disc_free(&disc);
    geometry_free(&geom);
    topology_free(&topo);
    mesh_free(&mesh);
  }
  fclose(csv);
  return failures ? 1 : 0;
}
