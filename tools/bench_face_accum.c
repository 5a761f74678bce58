/* Face-accumulation study (tools/face_accum.h, docs/PERFORMANCE.md
 * "Face accumulation"): µs per residual on the GPU of
 *   gather  face-flux array + element gather (the backend's tuned path),
 *   atomic  volume kernel, then a face kernel with atomicAdd onto R,
 *   color   volume kernel, then one face launch per face colour, plain +=,
 *   c-atomic color's launches with atomicAdd (what the per-colour launches cost),
 * and, timing only, the parts: volume (the volume kernel of atomic / color),
 * g-faces (the face-flux kernel of gather), a-faces (the face kernel of
 * atomic),
 * under five orderings of elements and faces:
 *   mesh/elem    elements as the mesh numbers them, faces by side-0 element
 *                (topology_build numbers faces in element order)
 *   mesh/color   elements as the mesh numbers them, faces sorted by face colour
 *   cm/old       elements colour-major (coloring_build BFS_WALL +
 *                coloring_apply), faces kept in the order of the mesh numbering
 *                (renumbering the cells alone)
 *   cm/elem      elements colour-major, faces by side-0 element (topology rebuilt)
 *   cm/color     elements colour-major, faces sorted by face colour
 * (face colour sorting keeps faces inside the interior range and inside each
 * boundary group, as topology_renumber_faces requires).
 *
 * Meshes: the curved NACA 0012 mesh in tests/data (9k triangles, Gmsh
 * numbering) and a structured straight triangle box sized for >= 1.5M
 * unknowns at each p, in cell order ("tri") and with its elements shuffled
 * by a fixed-seed Fisher-Yates permutation ("tri-shuffled", the worst
 * locality a generator's numbering could have); p = 1 and 3.
 *
 * Every variant's residual (R filled with NaN first) is checked against the
 * CPU backend's residual on the same disc: max |Rg - Rc| / max |Rc| <= 1e-12,
 * else the row says FAIL and the tool exits 1. Timing: 100 ms of
 * back-to-back residuals, then --reps (>= 20, default 50) residuals each
 * bracketed by CUDA events; the median is reported. GPU only: exits 77
 * without a CUDA device.
 *
 * usage: bench_face_accum [--csv PATH] [--reps N] [--quick] [--naca PATH]
 *   --quick: the NACA mesh only. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/backend_select.h"
#include "bench_cuda/backend_cuda_bench.h"
#include "coloring/coloring.h"
#include "dg/backend.h"
#include "dg/disc.h"
#include "face_accum.h"
#include "kernels/backend_cuda.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "problems.h"

#define MAX_REPS 1000
#define REL_TOL 1e-12
typedef enum { MESH_NACA = 0, MESH_TRI, MESH_TRI_SHUFFLED } mesh_source;
static const char *mesh_label[3] = {"naca9k", "tri", "tri-shuffled"};

typedef enum {
  ORD_MESH_ELEM = 0,
  ORD_MESH_COLOR,
  ORD_CM_OLD,
  ORD_CM_ELEM,
  ORD_CM_COLOR,
  N_ORD
} ordering;
static const char *ordering_label[N_ORD] = {"mesh/elem", "mesh/color", "cm/old", "cm/elem",
                                            "cm/color"};

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

/* Fisher-Yates shuffle of the elements of each shape (xorshift64, fixed seed). */
static dg_status shuffle_elements(dg_mesh *mesh, uint64_t seed) {
  int64_t *perm = NULL;
  DG_CALL(DG_CALLOC(perm, mesh->n_elems));
  for (int64_t i = 0; i < mesh->n_elems; ++i) perm[i] = i;
  uint64_t x = seed;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int64_t lo = mesh->shape_offset[s], hi = mesh->shape_offset[s + 1];
    for (int64_t i = hi - 1; i > lo; --i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      const int64_t j = lo + (int64_t)(x % (uint64_t)(i - lo + 1));
      const int64_t tmp = perm[i];
      perm[i] = perm[j];
      perm[j] = tmp;
    }
  }
  const dg_status st = mesh_renumber_elements(mesh, perm);
  free(perm);
  return st;
}

/* Triangle cells per axis for at least `target` unknowns at degree p. */
static int64_t tri_cells(int p, double target) {
  const double per_cell = 2.0 * (p + 1) * (p + 2) / 2 * 4;
  return (int64_t)ceil(sqrt(target / per_cell));
}

/* Builds the mesh, applies the ordering, then topology, geometry, disc and a
 * smooth admissible state (freestream plus small higher modes). */
static dg_status problem_build(mesh_source src, const char *naca, int p, ordering ord,
                               double target, problem *pb) {
  memset(pb, 0, sizeof *pb);
  if (src == MESH_NACA) {
    DG_CALL(mesh_read(naca, 0, &pb->mesh));
  } else {
    dg_mesh_structured_opts mo = mesh_structured_defaults(2);
    mo.kind = MESH_STRUCTURED_TRI;
    mo.n[0] = mo.n[1] = tri_cells(p, target);
    DG_CALL(mesh_structured_2d(&mo, &pb->mesh));
    if (src == MESH_TRI_SHUFFLED) DG_CALL(shuffle_elements(&pb->mesh, 0x9e3779b97f4a7c15ull));
  }
  DG_CALL(topology_build(&pb->mesh, &pb->topo));
  int64_t *perm = NULL;
  DG_CALL(DG_CALLOC(perm, pb->topo.n_faces > 0 ? pb->topo.n_faces : 1));
  dg_status st = DG_SUCCESS;
  if (ord == ORD_CM_OLD || ord == ORD_CM_ELEM || ord == ORD_CM_COLOR) {
    DG_CALL_GOTO(st, done,
                 coloring_build(&pb->mesh, &pb->topo, DG_COLORING_BFS_WALL, "wall", &pb->col));
    DG_CALL_GOTO(st, done, coloring_apply(&pb->col, &pb->mesh));
    dg_topology old = pb->topo;
    memset(&pb->topo, 0, sizeof pb->topo);
    st = topology_build(&pb->mesh, &pb->topo);
    if (st == DG_SUCCESS && ord == ORD_CM_OLD)
      st = face_accum_face_perm_old_order(&old, &pb->topo, pb->col.perm, perm);
    if (st == DG_SUCCESS && ord == ORD_CM_OLD) st = topology_renumber_faces(&pb->topo, perm);
    topology_free(&old);
    if (st != DG_SUCCESS) goto done;
  }
  if (ord == ORD_MESH_COLOR || ord == ORD_CM_COLOR) {
    DG_CALL_GOTO(st, done, face_accum_face_perm_by_color(&pb->topo, perm));
    DG_CALL_GOTO(st, done, topology_renumber_faces(&pb->topo, perm));
  }
  DG_CALL_GOTO(
      st, done,
      problem_geometry(pb, problem_vol_degree(&pb->mesh, p), problem_face_degree(&pb->mesh, p)));
  dg_disc_opts o;
  problem_bcs bcs;
  DG_CALL_GOTO(st, done, problem_freestream_opts(&pb->mesh, p, 0.5, 2.0, &o, &bcs));
  DG_CALL_GOTO(st, done, disc_build(&pb->mesh, &pb->topo, &pb->geom, &o, &pb->disc));
  DG_CALL_GOTO(st, done, DG_CALLOC(pb->U, pb->disc.view.n_coefs));
  problem_smooth_state(&pb->disc, 1e-3, pb->U);
done:
  free(perm);
  return st;
}

/* max |a - b| / max |b| (NaN in a gives +inf). */
static double rel_diff(const double *a, const double *b, int64_t n) {
  double num = 0.0, den = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = fabs(a[i] - b[i]);
    if (!(d <= num)) num = isnan(d) ? INFINITY : d;
    if (fabs(b[i]) > den) den = fabs(b[i]);
  }
  return den > 0.0 ? num / den : num;
}

static FILE *csv;

/* CPU reference, then every variant on the GPU: check and time. Returns
 * the number of failed checks in *failures. */
static dg_status run_problem(const char *mesh, int p, ordering ord, problem *pb, int reps,
                             int *failures) {
  const dg_disc_view *d = &pb->disc.view;
  const int64_t n = d->n_coefs;
  const dg_backend *cpu = backend_cpu(), *gpu = backend_cuda();
  dg_backend_ctx *cctx = NULL, *gctx = NULL;
  face_accum_ctx *fa = NULL;
  double *Rc = NULL, *Rg = NULL, *h_nan = NULL;
  dg_vec cU = {0}, cR = {0}, gU = {0}, gR = {0};
  double us[MAX_REPS];
  dg_status st = DG_SUCCESS;
  DG_CALL_GOTO(st, done, DG_CALLOC(Rc, n));
  DG_CALL_GOTO(st, done, DG_CALLOC(Rg, n));
  DG_CALL_GOTO(st, done, DG_CALLOC(h_nan, n));
  for (int64_t i = 0; i < n; ++i) h_nan[i] = NAN;
  DG_CALL_GOTO(st, done, dg_backend_create(cpu, &pb->disc, &cctx));
  DG_CALL_GOTO(st, done, dg_vec_create(cpu, cctx, DG_VEC_STATE, &cU));
  DG_CALL_GOTO(st, done, dg_vec_create(cpu, cctx, DG_VEC_STATE, &cR));
  DG_CALL_GOTO(st, done, dg_vec_upload(pb->U, &cU));
  DG_CALL_GOTO(st, done, dg_backend_residual(cpu, cctx, &cU, 0.0, &cR));
  DG_CALL_GOTO(st, done, dg_vec_download(&cR, Rc));
  DG_CALL_GOTO(st, done, dg_backend_create(gpu, &pb->disc, &gctx));
  DG_CALL_GOTO(st, done, dg_vec_create(gpu, gctx, DG_VEC_STATE, &gU));
  DG_CALL_GOTO(st, done, dg_vec_create(gpu, gctx, DG_VEC_STATE, &gR));
  DG_CALL_GOTO(st, done, dg_vec_upload(pb->U, &gU));
  DG_CALL_GOTO(st, done, face_accum_create(&pb->disc, backend_cuda_view(gctx), &fa));
  for (int k = 0; k < FACE_ACCUM_N_VARIANTS; ++k) {
    const face_accum_variant var = (face_accum_variant)k;
    double rel = NAN;
    if (var < FACE_ACCUM_VOLUME) {
      DG_CALL_GOTO(st, done, dg_vec_upload(h_nan, &gR));
      DG_CALL_GOTO(st, done, face_accum_residual(fa, var, gU.data, 0.0, gR.data));
      DG_CALL_GOTO(st, done, dg_vec_download(&gR, Rg));
      rel = rel_diff(Rg, Rc, n);
    }
    DG_CALL_GOTO(st, done, face_accum_time(fa, var, gU.data, 0.0, gR.data, reps, us));
    const double med = median(us, reps), lo = us[0]; /* sorted: the fastest */
    const int bad = var < FACE_ACCUM_VOLUME && !(rel <= REL_TOL);
    *failures += bad;
    printf("%-12s %d %-10s %6lld %9lld %3d %3d %-7s %9.1f %9.1f %10.2e%s\n", mesh, p,
           ordering_label[ord], (long long)d->n_elems, (long long)n, pb->col.n_colors,
           face_accum_n_colors(fa), face_accum_variant_name(var), med, lo, rel,
           bad ? "  FAIL (> 1e-12)" : "");
    fprintf(csv, "%s,%d,%s,%lld,%lld,%d,%d,%s,%.2f,%.2f,%.3e,%s\n", mesh, p, ordering_label[ord],
            (long long)d->n_elems, (long long)n, pb->col.n_colors, face_accum_n_colors(fa),
            face_accum_variant_name(var), med, lo, rel, bad ? "FAIL" : "ok");
    fflush(stdout);
    fflush(csv);
  }
done:
  face_accum_destroy(fa);
  if (gctx) {
    dg_vec_destroy(&gU);
    dg_vec_destroy(&gR);
    dg_backend_destroy(gpu, gctx);
  }
  if (cctx) {
    dg_vec_destroy(&cU);
    dg_vec_destroy(&cR);
    dg_backend_destroy(cpu, cctx);
  }
  free(Rc);
  free(Rg);
  free(h_nan);
  return st;
}

int main(int argc, char **argv) {
  const char *csv_path = "face_accum.csv";
  const char *naca = COLORDG_TEST_DATA "/mesh_naca0012_tri_1_q2.cdgm";
  int reps = 50, quick = 0;
  double target = 1.5e6;
  for (int i = 1; i < argc; ++i) {
    const int has_value = i + 1 < argc;
    if (!strcmp(argv[i], "--csv") && has_value)
      csv_path = argv[++i];
    else if (!strcmp(argv[i], "--reps") && has_value)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--naca") && has_value)
      naca = argv[++i];
    else if (!strcmp(argv[i], "--unknowns") && has_value)
      target = atof(argv[++i]);
    else if (!strcmp(argv[i], "--quick"))
      quick = 1;
    else {
      fprintf(stderr,
              "usage: bench_face_accum [--csv PATH] [--reps N (20..%d)] [--quick] "
              "[--naca MESH] [--unknowns N (default 1.5e6)]\n",
              MAX_REPS);
      return 2;
    }
  }
  if (reps < 20 || reps > MAX_REPS) {
    fprintf(stderr, "bench_face_accum: --reps must be in 20..%d (got %d)\n", MAX_REPS, reps);
    return 2;
  }
  char device[256] = "none";
  double peak_gbs = NAN, peak_gflops = NAN;
  if (!backend_cuda_available() ||
      backend_cuda_device_info(device, (int)sizeof device, &peak_gbs, &peak_gflops) != DG_SUCCESS) {
    dg_error_clear();
    printf("bench_face_accum: no CUDA device, skipped\n");
    return 77;
  }
  csv = fopen(csv_path, "w");
  if (!csv) {
    fprintf(stderr, "bench_face_accum: cannot write %s\n", csv_path);
    return 1;
  }
  printf("device: %s; median of %d residuals after 100 ms warm-up (us); rel = max|Rg-Rc|/max|Rc|\n",
         device, reps);
  fprintf(csv, "# device,%s,reps,%d\n", device, reps);
  fprintf(csv, "mesh,p,ordering,elems,unknowns,elem_colors,face_colors,variant,median_us,"
               "min_us,rel_err,check\n");
  printf("%-12s %s %-10s %6s %9s %3s %3s %-7s %9s %9s %10s\n", "mesh", "p", "ordering", "elems",
         "unknowns", "ec", "fc", "variant", "median", "min", "rel");
  int failures = 0, errors = 0;
  const int n_src = quick ? 1 : 3;
  for (int src = 0; src < n_src; ++src)
    for (int p = 1; p <= 3; p += 2)
      for (int ord = 0; ord < N_ORD; ++ord) {
        problem pb;
        const double t0 = now_seconds();
        dg_status st = problem_build((mesh_source)src, naca, p, (ordering)ord, target, &pb);
        const double setup = now_seconds() - t0;
        if (st == DG_SUCCESS)
          st = run_problem(mesh_label[src], p, (ordering)ord, &pb, reps, &failures);
        if (st != DG_SUCCESS) {
          dg_error_print(stderr, 1);
          dg_error_clear();
          ++errors;
        } else if (ord == 0) {
          printf("  (set-up %.1f s)\n", setup);
        }
        problem_free(&pb);
      }
  fclose(csv);
  if (failures || errors)
    printf("bench_face_accum: %d residual checks FAILED, %d errors\n", failures, errors);
  return failures || errors ? 1 : 0;
}
