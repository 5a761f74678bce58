#define _POSIX_C_SOURCE 200809L /* mkdir, sigaction, kill, isatty */
#include "app/run.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/info.h"
#include "app/monitor.h"
#include "app/run_dist.h"
#include "app/solution_io.h"
#include "app/surface.h"
#include "app/vtu.h"
#include "backends/backend_select.h"
#include "coloring/coloring.h"
#include "core/dg_file.h"
#include "dg/backend.h"
#include "dg/disc.h"
#include "dg/explicit.h"
#include "dg/marcher.h"
#include "kernels/gpu_memory.h"
#include "lusgs/lusgs.h"
#include "mesh/geometry.h"
#include "mesh/mesh.h"
#include "mesh/partition.h"
#include "mesh/topology.h"
#include "newton/newton.h"

static double run_seconds(void) {
  struct timespec ts;
  if (timespec_get(&ts, TIME_UTC) != TIME_UTC) return 0.0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* mkdir -p: creates every missing folder of path. */
static dg_status run_make_folder(const char *path) {
  char buf[DG_CASE_PATH_LEN];
  const size_t n = strlen(path);
  DG_CHECK(n > 0 && n < sizeof buf, DG_ERR_ARG, "output folder name '%s' is empty or too long",
           path);
  memcpy(buf, path, n + 1);
  for (size_t i = 1; i <= n; ++i) {
    if (buf[i] != '/' && buf[i] != '\0') continue;
    const char saved = buf[i];
    buf[i] = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
      DG_ERROR(DG_ERR_IO, "cannot create output folder %s: %s", buf, strerror(errno));
    buf[i] = saved;
  }
  struct stat st;
  DG_CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode), DG_ERR_IO,
           "output folder %s is not a folder", path);
  return DG_SUCCESS;
}

/* "<folder>/<name>" into buf. */
static dg_status run_path(char *buf, size_t size, const char *folder, const char *name) {
  const int n = snprintf(buf, size, "%s/%s", folder, name);
  DG_CHECK(n > 0 && (size_t)n < size, DG_ERR_ARG, "path %s/%s is too long", folder, name);
  return DG_SUCCESS;
}

/* The GPU of this rank in a distributed CUDA run (run_pick_backend): the
 * device index, and whether several ranks of the host share it. */
static int run_gpu_device = -1, run_gpu_shared = 0;

/* The backend a name asks for ("auto"/NULL: CUDA when a device is there).
 * A distributed CUDA run takes one GPU per rank: its rank on the host
 * modulo the host's devices. */
static dg_status run_pick_backend(const char *name, int ranks, const dg_backend **backend) {
  if (!name || !strcmp(name, "auto")) {
    *backend = backend_cuda_available() ? backend_cuda() : backend_cpu();
  } else if (!strcmp(name, "cpu")) {
    *backend = backend_cpu();
  } else {
    DG_CHECK(!strcmp(name, "cuda"), DG_ERR_ARG, "unknown backend '%s' (cpu, cuda or auto)", name);
    DG_CHECK(backend_cuda(), DG_ERR_UNSUPPORTED,
             "backend cuda: this colordg was built without CUDA; use --backend cpu");
    DG_CHECK(backend_cuda_available(), DG_ERR_UNSUPPORTED,
             "backend cuda: no CUDA device found; use --backend cpu");
    *backend = backend_cuda();
  }
  if (ranks > 1 && *backend == backend_cuda())
    DG_CALL(backend_cuda_pick_device(dg_comm_node_rank(), dg_comm_node_size(), &run_gpu_device,
                                     &run_gpu_shared));
  return DG_SUCCESS;
}

/* Periods of a periodic mesh per direction (0 when not periodic): the
 * largest translation of its periodic faces along each axis. */
static void run_mesh_periods(const dg_topology *topo, double period[3]) {
  period[0] = period[1] = period[2] = 0.0;
  for (int64_t f = 0; f < topo->n_interior; ++f)
    for (int d = 0; d < 3; ++d) {
      const double s = fabs(topo->face_shift[3 * f + d]);
      if (s > period[d]) period[d] = s;
    }
}

/* Boundary conditions of the mesh groups from the case (physics_bc_kind
 * numbering equals dg_bc_type's); periodic groups get -1 (no ghost). */
static dg_status run_boundary_data(const dg_case *c, const dg_mesh *mesh, const double *freestream,
                                   int32_t *group_bc, physics_bc_data *group_data) {
  const int dim = mesh->dim;
  for (int g = 0; g < mesh->n_groups; ++g) {
    const dg_case_bc *bc = case_find_bc(c, mesh->groups[g].name);
    physics_bc_data *data = &group_data[g];
    memset(data, 0, sizeof *data);
    for (int v = 0; v < dim + 2; ++v) data->state[v] = freestream[v];
    if (!bc || bc->type == DG_BC_PERIODIC) {
      group_bc[g] = -1;
      continue;
    }
    DG_CHECK((int)bc->type < PHYSICS_NUM_BC, DG_ERR_INTERNAL,
             "boundary type %d of group '%s' has no ghost state", (int)bc->type, bc->group);
    group_bc[g] = (int32_t)bc->type;
    data->total_pressure = bc->total_pressure;
    data->total_temperature = bc->total_temperature;
    physics_direction(dim, bc->flow_angle_deg, c->beta_deg, data->direction);
    data->static_pressure = bc->static_pressure;
    data->vortex_correction = bc->type == DG_BC_FARFIELD && bc->vortex_correction;
  }
  return DG_SUCCESS;
}

/* Everything a run holds; released by run_release. */
typedef struct {
  dg_mesh mesh;
  dg_topology topo;
  dg_coloring coloring;     /* applied: elements are colour-major (the whole mesh's) */
  int colors_dropped;       /* colours coloring_reduce removed */
  int colors_turned;        /* 1: coloring_order_turns relabelled the colours */
  const char *numbered_for; /* the restart / init file whose numbering kept the colouring
                               without a step of the case's (below); NULL: none */
  int numbered_reduce;      /* with numbered_for: the steps that numbering had */
  int numbered_turns;
  dg_coloring
      part_coloring; /* distributed: the colours of the rank's elements, owned ones listed */
  dg_geometry geom;
  dg_disc disc;
  const dg_backend *backend;
  dg_backend_ctx *ctx;
  const dg_marcher_ops *march;   /* the case's scheme (run_marcher_ops) */
  dg_marcher marcher;            /* of the current stage */
  double cfl;                    /* CFL of the last step that got one (monitor, advice) */
  dg_vec U, U_good, U_candidate; /* backend state vectors */
  double *h_U;                   /* host state */
  dg_vec eps;                    /* artificial viscosity per element (backend); zeroed when off */
  double *h_eps;                 /* the same on the host; NULL when off */
  double *h_hold; /* LU-SGS held viscosity (host, n_elems) for checkpoints; NULL when none */
  double wall0;   /* wall time of the run before this invocation (restart) */
  int32_t *group_bc;
  physics_bc_data *group_data;
  uint8_t *wall_mask;
  int n_walls;
  int vortex; /* a farfield group has the point-vortex correction */
  double freestream[DG_MAX_NVAR];
  /* positivity-guard figures of the p-sequencing stages before this one */
  double limit_fix;
  int64_t limit_bad;
  int limit_counted; /* 1 when an earlier stage counted */
  run_monitor monitor;
  dg_flow_reference ref;
  /* VTU time series (vtu_every > 0): file names relative to the folder */
  int n_series, series_capacity;
  char **series_files;
  double *series_times;
  int it_start;   /* iteration this invocation started from */
  int vtu_pieces; /* volume output as one piece per rank and a .pvtu ([output] vtu_pieces) */
  run_dist dist;  /* MPI ranks: this rank's part, rank 0's whole-mesh outputs (run_dist.h) */
} run_data;

/* The marcher table of a [solver] scheme: the one place that maps schemes
 * to marchers (src/dg/marcher.h). */
static const dg_marcher_ops *run_marcher_ops(int scheme) {
  switch (scheme) {
  case DG_SCHEME_LUSGS: return lusgs_marcher_ops();
  case DG_SCHEME_NEWTON_KRYLOV: return newton_marcher_ops();
  default: return explicit_rk3_marcher_ops();
  }
}

/* Releases what belongs to one order p (a p-sequencing stage): the
 * marcher, the backend context and its vectors, the host state, the
 * discretisation and the geometry (its rules depend on p). */
static void run_release_stage(run_data *r) {
  dg_marcher_destroy(&r->marcher);
  if (r->ctx) {
    dg_vec_destroy(&r->U);
    dg_vec_destroy(&r->U_good);
    dg_vec_destroy(&r->U_candidate);
    dg_vec_destroy(&r->eps);
    dg_backend_destroy(r->backend, r->ctx);
  }
  r->ctx = NULL;
  free(r->h_U);
  free(r->h_eps);
  free(r->h_hold);
  r->h_U = r->h_eps = r->h_hold = NULL;
  disc_free(&r->disc);
  geometry_free(&r->geom);
}

static void run_release(run_data *r) {
  for (int i = 0; i < r->n_series; ++i) free(r->series_files[i]);
  free(r->series_files);
  free(r->series_times);
  monitor_close(&r->monitor);
  run_release_stage(r);
  free(r->group_bc);
  free(r->group_data);
  free(r->wall_mask);
  coloring_free(&r->coloring);
  coloring_free(&r->part_coloring);
  topology_free(&r->topo);
  mesh_free(&r->mesh);
  run_dist_free(&r->dist);
  memset(r, 0, sizeof *r);
}

/* What the writers read: in one process the run's mesh, discretisation and
 * host state; in a distributed run rank 0's whole mesh and the gathered
 * state (run_dist_gather), and nothing on the other ranks. */
typedef struct {
  const dg_mesh *mesh;
  const dg_disc *disc;
  const double *h_U, *h_eps;
  double *h_hold; /* (solution_meta's av_hold; only read by the writer) */
} run_out_view;

/* The host state h_U (and h_eps when with_eps, the held viscosity h_hold
 * when with_hold and the run holds one) as the writers see it: the whole
 * mesh's on rank 0 of a distributed run; returns 1 when this rank writes
 * (collective in a distributed run). */
static dg_status run_out(run_data *r, int with_eps, int with_hold, run_out_view *v, int *writes) {
  const double *eps = with_eps ? r->h_eps : NULL;
  double *hold = with_hold ? r->h_hold : NULL;
  if (r->dist.size == 1) {
    *v = (run_out_view){&r->mesh, &r->disc, r->h_U, eps, hold};
    *writes = 1;
    return DG_SUCCESS;
  }
  DG_CALL(run_dist_gather(&r->dist, &r->disc, r->h_U, eps, hold));
  *v = (run_out_view){&r->dist.gmesh, &r->dist.gdisc, r->dist.gh_U, eps ? r->dist.gh_eps : NULL,
                      hold ? r->dist.gh_hold : NULL};
  *writes = r->dist.rank == 0;
  return DG_SUCCESS;
}

/* Force coefficients of the wall groups for backend state U (0 without walls). */
static dg_status run_forces(run_data *r, const dg_vec *U, dg_force_coefs *coefs) {
  memset(coefs, 0, sizeof *coefs);
  if (r->n_walls == 0) return DG_SUCCESS;
  double raw[6];
  DG_CALL(dg_backend_forces(r->backend, r->ctx, U, r->wall_mask, r->ref.moment_center, raw));
  DG_CALL(surface_coefficients(raw, r->disc.view.dim, &r->ref, coefs));
  return DG_SUCCESS;
}

/* Far-field point vortex (vortex_correction): Γ = ½ |u∞| CL S from the
 * lift of backend state U, for the next step's residuals. */
static dg_status run_update_circulation(run_data *r, const dg_vec *U) {
  dg_force_coefs coefs;
  DG_CALL(run_forces(r, U, &coefs));
  DG_CHECK(isfinite(coefs.cl), DG_ERR_DIVERGED,
           "the lift coefficient is not finite; the far-field vortex correction cannot use it");
  DG_CALL(dg_backend_set_circulation(r->backend, r->ctx,
                                     0.5 * r->ref.mach * coefs.cl * r->ref.ref_area));
  return DG_SUCCESS;
}

_Static_assert(DG_MARCHER_STATE_MAX <= DG_SOLUTION_STATE_MAX,
               "a .cdgs file holds every marcher's state");

/* Writes the host state h_U as a .cdgs file at folder/name. with_hold: the
 * state is the backend's current U, so the LU-SGS held viscosity (what the
 * next iteration relaxes against) is stored with it. */
static dg_status run_write_host_state(run_data *r, const char *folder, const char *name,
                                      const dg_solution_meta *meta, int with_hold) {
  char path[DG_CASE_PATH_LEN + 64];
  DG_CALL(run_path(path, sizeof path, folder, name));
  dg_solution_meta m = *meta;
  m.av_hold = NULL;
  with_hold = with_hold && r->h_hold;
  if (with_hold) DG_CALL(dg_backend_av_hold_get(r->backend, r->ctx, r->h_hold));
  if (r->marcher.ops) { /* an implicit marcher's SER reference, for a restart */
    dg_marcher_stats stats;
    DG_CALL(r->marcher.ops->stats(&r->marcher, 0, &stats));
    if (stats.res_reference > 0.0) m.ser_res0 = stats.res_reference;
  }
  /* the marcher's own state (Newton-Krylov), so that a restart takes the
   * same steps */
  m.n_marcher_state = 0;
  if (r->marcher.ops && r->marcher.ops->get_state) {
    int n = 0;
    DG_CALL(r->marcher.ops->get_state(&r->marcher, m.marcher_state, &n));
    DG_CHECK(n >= 0 && n <= DG_SOLUTION_STATE_MAX, DG_ERR_INTERNAL,
             "marcher %s: %d state values (at most %d)", r->marcher.ops->name, n,
             DG_SOLUTION_STATE_MAX);
    m.n_marcher_state = n;
  }
  m.elem_order = r->coloring.perm;
  run_out_view v;
  int writes = 0;
  /* distributed: the held viscosity gathered with the state, whole-mesh numbering */
  DG_CALL(run_out(r, 0, with_hold, &v, &writes));
  m.av_hold = v.h_hold;
  if (writes) DG_CALL(solution_write(path, v.mesh, v.disc, v.h_U, &m));
  return DG_SUCCESS;
}

/* Checks the host state h_U before the first iteration: every coefficient
 * finite and, at every volume point (pointwise: a fresh state; element
 * averages of the points: a state read from a file, which the positivity
 * guard may have left negative between its points), a positive density and
 * pressure. what names where the state came from. */
static dg_status run_check_state(const dg_case *c, run_data *r, const char *what, int pointwise) {
  const dg_disc *disc = &r->disc;
  const dg_disc_view *d = &disc->view;
  const int dim = d->dim, nvar = d->nvar;
  for (int64_t e = 0; e < d->n_elems; ++e) {
    const int s = d->elem_shape[e], nb = d->nb[s];
    const int64_t a = disc->vol_x_offset[e], b = disc->vol_x_offset[e + 1];
    double mean[DG_MAX_NVAR] = {0}, wsum = 0.0;
    for (int64_t k = a; k < b; ++k) {
      const int q = (int)(k - a);
      double u[DG_MAX_NVAR];
      for (int v = 0; v < nvar; ++v) {
        u[v] = 0.0;
        for (int m = 0; m < nb; ++m)
          u[v] += d->vol_phi[d->vol_table[s] + (int64_t)q * nb + m] *
                  r->h_U[disc_coef_index(d, e, v, m)];
      }
      const double w = d->vol_w[d->vol_point[s] + q];
      for (int v = 0; v < nvar; ++v) mean[v] += w * u[v];
      wsum += w;
      int finite = 1;
      for (int v = 0; v < nvar; ++v) finite &= isfinite(u[v]) != 0;
      if (!finite || (pointwise && !physics_admissible(dim, c->gamma, u))) {
        const double *x = &disc->vol_x[k * dim];
        char at[96];
        if (dim == 3)
          snprintf(at, sizeof at, "(%g, %g, %g)", x[0], x[1], x[2]);
        else
          snprintf(at, sizeof at, "(%g, %g)", x[0], x[1]);
        DG_ERROR(DG_ERR_CASE,
                 "%s: the %s is not physical at element %lld, point %s: density %g, "
                 "pressure %g%s; nothing was run",
                 c->path, what, (long long)e, at, u[0],
                 finite ? physics_pressure(dim, c->gamma, u) : NAN,
                 pointwise && c->exact_solution == DG_EXACT_ISENTROPIC_VORTEX
                     ? " (check [verification] vortex_strength: a strong vortex makes the core "
                       "temperature negative)"
                     : "");
      }
    }
    if (!pointwise && wsum > 0.0) {
      for (int v = 0; v < nvar; ++v) mean[v] /= wsum;
      DG_CHECK(physics_admissible(dim, c->gamma, mean), DG_ERR_CASE,
               "%s: the %s has a non-physical mean in element %lld: density %g, pressure %g; "
               "nothing was run",
               c->path, what, (long long)e, mean[0], physics_pressure(dim, c->gamma, mean));
    }
  }
  return DG_SUCCESS;
}

/* 1 when every coefficient of the host state h_U is finite (on every rank;
 * collective in a distributed run: a failed reduction counts as not finite). */
static int run_host_state_finite(const run_data *r) {
  int bad = 0;
  for (int64_t i = 0; i < r->disc.view.n_coefs && !bad; ++i)
    if (!isfinite(r->h_U[i])) bad = 1;
  if (run_dist_any(&r->dist, &bad) != DG_SUCCESS) return 0;
  return !bad;
}

/* With artificial viscosity: h_eps = the element-mean ε of backend state U. */
static dg_status run_fetch_eps(run_data *r, const dg_vec *U) {
  if (!r->eps.data) return DG_SUCCESS;
  DG_CALL(dg_backend_av_eps(r->backend, r->ctx, U, &r->eps));
  DG_CALL(dg_vec_download(&r->eps, r->h_eps));
  return DG_SUCCESS;
}

/* av_field.csv: element, centroid (mean of its volume points) and mean ε of
 * every element (h_eps), for plots of the viscosity field. */
static dg_status run_write_av_field(const run_out_view *v, const char *path) {
  const dg_disc *disc = v->disc;
  const int dim = disc->view.dim;
  dg_atomic_file af;
  DG_CALL(dg_file_open(&af, path));
  fprintf(af.file, dim == 3 ? "element,x,y,z,eps\n" : "element,x,y,eps\n");
  for (int64_t e = 0; e < disc->view.n_elems; ++e) {
    double c[3] = {0, 0, 0};
    const int64_t a = disc->vol_x_offset[e], b = disc->vol_x_offset[e + 1];
    for (int64_t k = a; k < b; ++k)
      for (int d = 0; d < dim; ++d) c[d] += disc->vol_x[k * dim + d] / (double)(b - a);
    fprintf(af.file, "%lld", (long long)e);
    for (int d = 0; d < dim; ++d) fprintf(af.file, ",%.10g", c[d]);
    fprintf(af.file, ",%.6e\n", v->h_eps[e]);
  }
  DG_CALL(dg_file_commit(&af));
  return DG_SUCCESS;
}

/* errors.csv: the L2 entropy error of the final state and the mesh measures
 * the order-of-accuracy study plots it against. */
static dg_status run_write_errors(const run_data *r, const char *folder, const run_result *res) {
  if (r->dist.rank != 0) return DG_SUCCESS;
  char path[DG_CASE_PATH_LEN + 64];
  snprintf(path, sizeof path, "%s/errors.csv", folder);
  dg_atomic_file af;
  DG_CALL(dg_file_open(&af, path));
  fprintf(af.file, "p,elements,dofs,h,entropy_error\n%d,%lld,%lld,%.10e,%.10e\n", r->disc.view.p,
          (long long)(r->dist.size > 1 ? r->dist.g_n_elems : r->disc.view.n_elems),
          (long long)res->dofs, 1.0 / sqrt((double)res->dofs), res->entropy_error);
  DG_CALL(dg_file_commit(&af));
  return DG_SUCCESS;
}

/* The volume output in pieces (r->vtu_pieces): every rank writes its owned
 * elements of h_U to <folder>/<stem>/rank_<r>.vtu, and rank 0 writes
 * <folder>/<stem>.pvtu listing them. Collective. */
static dg_status run_write_pieces(run_data *r, const char *folder, const char *stem) {
  char dir[DG_CASE_PATH_LEN + 64], path[DG_CASE_PATH_LEN + 96], piece[64];
  DG_CALL(run_path(dir, sizeof dir, folder, stem));
  DG_CALL(dg_comm_agree(r->dist.comm, r->dist.rank == 0 ? run_make_folder(dir) : DG_SUCCESS));
  const int distributed = r->dist.size > 1;
  const int32_t *colour = distributed ? r->part_coloring.color : r->coloring.color;
  snprintf(path, sizeof path, "%s/rank_%04d.vtu", dir, r->dist.rank);
  DG_CALL(dg_comm_agree(r->dist.comm,
                        vtu_write_piece(path, &r->mesh, &r->disc, r->h_U, &r->ref, colour, r->h_eps,
                                        distributed ? r->dist.part.global_elem : NULL)));
  dg_status st = DG_SUCCESS;
  if (r->dist.rank == 0) {
    char **names = NULL;
    st = DG_CALLOC(names, (size_t)r->dist.size);
    for (int k = 0; k < r->dist.size && st == DG_SUCCESS; ++k) {
      snprintf(piece, sizeof piece, "%s/rank_%04d.vtu", stem, k);
      st = DG_CALLOC(names[k], strlen(piece) + 1);
      if (st == DG_SUCCESS) memcpy(names[k], piece, strlen(piece) + 1);
    }
    snprintf(piece, sizeof piece, "%s.pvtu", stem);
    if (st == DG_SUCCESS) st = run_path(path, sizeof path, folder, piece);
    if (st == DG_SUCCESS)
      st = vtu_write_pvtu(path, r->dist.size, (const char *const *)names, &r->ref, colour != NULL,
                          r->h_eps != NULL);
    for (int k = 0; names && k < r->dist.size; ++k) free(names[k]);
    free(names);
  }
  DG_CALL(dg_comm_agree(r->dist.comm, st));
  return DG_SUCCESS;
}

/* Final outputs of backend state U: solution.cdgs, solution.vtu (or
 * solution.pvtu and its pieces), the wall Cp (surface_cp.csv) and, with
 * artificial viscosity, av_field.csv. */
static dg_status run_write_outputs(run_data *r, const dg_vec *U, const char *folder,
                                   const dg_solution_meta *meta) {
  char path[DG_CASE_PATH_LEN + 64];
  DG_CALL(dg_vec_download(U, r->h_U));
  DG_CALL(run_fetch_eps(r, U));
  DG_CALL(run_write_host_state(r, folder, "solution.cdgs", meta, U == &r->U));
  if (r->vtu_pieces) DG_CALL(run_write_pieces(r, folder, "solution"));
  run_out_view v;
  int writes = 0;
  DG_CALL(run_out(r, 1, 0, &v, &writes));
  if (!writes) return DG_SUCCESS;
  /* the other form of the volume output, left by an earlier run here, would be stale */
  DG_CALL(run_path(path, sizeof path, folder, r->vtu_pieces ? "solution.vtu" : "solution.pvtu"));
  remove(path);
  if (!r->vtu_pieces) {
    DG_CALL(run_path(path, sizeof path, folder, "solution.vtu"));
    DG_CALL(vtu_write(path, v.mesh, v.disc, v.h_U, 0, &r->ref, r->coloring.color, v.h_eps));
  }
  if (r->eps.data) {
    DG_CALL(run_path(path, sizeof path, folder, "av_field.csv"));
    DG_CALL(run_write_av_field(&v, path));
  }
  if (r->n_walls > 0) /* surface_cp.csv, surface.vtu, section_eta*.csv */
    DG_CALL(surface_write_outputs(folder, v.mesh, v.disc, v.h_U, r->wall_mask, &r->ref));
  return DG_SUCCESS;
}

/* Writes h_U as solution_<iteration>.vtu (or .pvtu and its pieces) and
 * rewrites solution.pvd with every file of the series so far. */
static dg_status run_write_series(run_data *r, const char *folder, int iteration, double time) {
  if (r->n_series == r->series_capacity) {
    const int capacity = r->series_capacity ? 2 * r->series_capacity : 16;
    char **files = realloc(r->series_files, (size_t)capacity * sizeof *files);
    DG_CHECK(files, DG_ERR_MEMORY, "out of memory for the VTU series list");
    r->series_files = files;
    double *times = realloc(r->series_times, (size_t)capacity * sizeof *times);
    DG_CHECK(times, DG_ERR_MEMORY, "out of memory for the VTU series list");
    r->series_times = times;
    r->series_capacity = capacity;
  }
  char name[64], path[DG_CASE_PATH_LEN + 64];
  snprintf(name, sizeof name, "solution_%06d.%s", iteration, r->vtu_pieces ? "pvtu" : "vtu");
  DG_CALL(run_path(path, sizeof path, folder, name));
  DG_CALL(run_fetch_eps(r, &r->U));
  int writes = r->dist.rank == 0;
  if (r->vtu_pieces) {
    char stem[64];
    snprintf(stem, sizeof stem, "solution_%06d", iteration);
    DG_CALL(run_write_pieces(r, folder, stem));
  } else {
    run_out_view v;
    DG_CALL(run_out(r, 1, 0, &v, &writes));
    if (writes)
      DG_CALL(vtu_write(path, v.mesh, v.disc, v.h_U, 0, &r->ref, r->coloring.color, v.h_eps));
  }
  DG_CALL(DG_CALLOC(r->series_files[r->n_series], strlen(name) + 1));
  memcpy(r->series_files[r->n_series], name, strlen(name) + 1);
  r->series_times[r->n_series++] = time;
  DG_CALL(run_path(path, sizeof path, folder, "solution.pvd"));
  if (writes)
    DG_CALL(
        vtu_write_pvd(path, r->n_series, (const char *const *)r->series_files, r->series_times));
  return DG_SUCCESS;
}

/* A restart in the same folder keeps the series of the run before it: the
 * entries of its solution.pvd up to iteration it0 whose files still exist. */
static dg_status run_load_series(run_data *r, const char *folder, int it0) {
  char path[DG_CASE_PATH_LEN + 64];
  DG_CALL(run_path(path, sizeof path, folder, "solution.pvd"));
  FILE *f = fopen(path, "r");
  if (!f) return DG_SUCCESS;
  char line[1024];
  dg_status status = DG_SUCCESS;
  while (status == DG_SUCCESS && fgets(line, sizeof line, f)) {
    const char *ts = strstr(line, "timestep=\""), *fi = strstr(line, "file=\"");
    if (!ts || !fi) continue;
    char name[64];
    int iteration = -1;
    char ext[8] = "";
    if (sscanf(fi + 6, "solution_%d.%5[ptvu]", &iteration, ext) != 2 || iteration < 0 ||
        iteration > it0 || strcmp(ext, r->vtu_pieces ? "pvtu" : "vtu") != 0)
      continue;
    snprintf(name, sizeof name, "solution_%06d.%s", iteration, ext);
    char file[DG_CASE_PATH_LEN + 64];
    struct stat st;
    if (run_path(file, sizeof file, folder, name) != DG_SUCCESS || stat(file, &st) != 0) {
      dg_error_clear();
      continue;
    }
    if (r->n_series == r->series_capacity) {
      const int capacity = r->series_capacity ? 2 * r->series_capacity : 16;
      char **files = realloc(r->series_files, (size_t)capacity * sizeof *files);
      double *times = files ? realloc(r->series_times, (size_t)capacity * sizeof *times) : NULL;
      if (files) r->series_files = files;
      if (times) r->series_times = times;
      if (!files || !times) {
        status = dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                              "out of memory for the VTU series list");
        break;
      }
      r->series_capacity = capacity;
    }
    status = DG_CALLOC(r->series_files[r->n_series], strlen(name) + 1);
    if (status != DG_SUCCESS) break;
    memcpy(r->series_files[r->n_series], name, strlen(name) + 1);
    r->series_times[r->n_series++] = strtod(ts + 10, NULL);
  }
  fclose(f);
  return status;
}

/* Removes temporary files (<name>.tmp.<pid>, src/core/dg_file.c) that a
 * writer killed mid-write (kill -9, power loss) left in folder: those whose
 * process is gone. */
static void run_remove_stale_temporaries(const char *folder, FILE *out) {
  DIR *dir = opendir(folder);
  if (!dir) return;
  const struct dirent *ent;
  while ((ent = readdir(dir)) != NULL) {
    const char *tag = strstr(ent->d_name, ".tmp.");
    if (!tag || tag == ent->d_name) continue;
    char *end = NULL;
    errno = 0;
    const long pid = strtol(tag + 5, &end, 10);
    if (errno || end == tag + 5 || *end != '\0' || pid <= 0 || pid == (long)getpid()) continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours to judge */
    char path[DG_CASE_PATH_LEN + 300];
    snprintf(path, sizeof path, "%s/%s", folder, ent->d_name);
    if (remove(path) == 0 && out)
      fprintf(out, "removed %s: a temporary file of process %ld, which is gone\n", path, pid);
  }
  closedir(dir);
}

/* SIGINT / SIGTERM: the first one asks the marcher to stop after the
 * iteration in progress (checkpoint and outputs are written, the run ends
 * with RUN_STOP_SIGNAL, colordg exits with 3); the handler resets itself
 * (SA_RESETHAND), so a second signal ends the process at once. */
static volatile sig_atomic_t run_caught_signal = 0;
static int run_last_signal = 0;

static void run_on_signal(int sig) { run_caught_signal = sig; }

int run_signal_received(void) { return run_last_signal; }

static const char *run_reason_text(run_stop_reason reason) {
  switch (reason) {
  case RUN_STOP_CONVERGED: return "residual drop reached";
  case RUN_STOP_MAX_ITERS: return "iteration limit reached";
  case RUN_STOP_WALL_TIME: return "wall-time limit reached";
  case RUN_STOP_DIVERGED: return "diverged";
  case RUN_STOP_SIGNAL: return "stopped by a signal";
  case RUN_STOP_END_TIME: return "end time reached";
  }
  return "?";
}

const char *run_seed_group(const dg_case *c, const dg_mesh *mesh) {
  for (int g = 0; g < mesh->n_groups; ++g) {
    const dg_case_bc *bc = case_find_bc(c, mesh->groups[g].name);
    if (bc && bc->type == DG_BC_WALL) return mesh->groups[g].name;
  }
  return "wall";
}

/* The colouring of a run, not applied: coloring_build with the case's
 * algorithm, then coloring_reduce when reduce, then coloring_order_turns
 * when turns; *dropped, *moved: what those two changed. */
static dg_status run_color_build(const dg_case *c, const run_data *r, int reduce, int turns,
                                 dg_coloring *col, int *dropped, int *moved) {
  *dropped = *moved = 0;
  DG_CALL(coloring_build(&r->mesh, &r->topo, (dg_coloring_algorithm)c->coloring,
                         run_seed_group(c, &r->mesh), col));
  dg_status st = reduce ? coloring_reduce(&r->mesh, &r->topo, col, dropped) : DG_SUCCESS;
  if (st == DG_SUCCESS && turns) st = coloring_order_turns(&r->mesh, col, moved);
  if (st != DG_SUCCESS) coloring_free(col);
  return st;
}

/* Colours the elements (checked by coloring_build), removes colours with
 * coloring_reduce ([solver] coloring_reduce, default true), puts the
 * largest colours at the sweeps' turns ([solver] coloring_turns, default
 * true), renumbers the mesh colour-major and rebuilds the topology in the
 * new numbering (deterministic, so restarts see the same numbering). A run
 * that continues a file written for a numbering without one of those steps
 * (written before the step existed, or by a case without it) leaves the
 * step out, so the file's numbering is the run's: its mesh fingerprint
 * (docs/FORMATS.md) names the colouring. The colouring object is what the
 * marcher takes. */
static dg_status run_color(const dg_case *c, const run_options *o, run_data *r) {
  const int reduce = c->coloring_reduce, turns = c->coloring_turns;
  DG_CALL(
      run_color_build(c, r, reduce, turns, &r->coloring, &r->colors_dropped, &r->colors_turned));
  r->numbered_for = NULL;
  const char *file = o->restart ? o->restart : o->init;
  dg_solution_header h;
  if (file && (reduce || turns) && solution_read_header(file, &h) == DG_SUCCESS &&
      h.mesh_fingerprint != solution_mesh_fingerprint_permuted(&r->mesh, r->coloring.perm)) {
    /* the numberings with fewer steps, each tried once */
    static const int steps[3][2] = {{1, 0}, {0, 1}, {0, 0}};
    for (int k = 0; k < 3; ++k) {
      const int rd = steps[k][0] && reduce, tn = steps[k][1] && turns;
      int tried = rd == reduce && tn == turns;
      for (int j = 0; j < k; ++j)
        tried = tried || (rd == (steps[j][0] && reduce) && tn == (steps[j][1] && turns));
      if (tried) continue;
      dg_coloring alt = {0};
      int dropped = 0, moved = 0;
      DG_CALL(run_color_build(c, r, rd, tn, &alt, &dropped, &moved));
      if (h.mesh_fingerprint != solution_mesh_fingerprint_permuted(&r->mesh, alt.perm)) {
        coloring_free(&alt);
        continue;
      }
      coloring_free(&r->coloring);
      r->coloring = alt;
      r->colors_dropped = dropped;
      r->colors_turned = moved;
      r->numbered_for = file;
      r->numbered_reduce = rd;
      r->numbered_turns = tn;
      break;
    }
  }
  dg_error_clear(); /* a file that cannot be read is left to the read that names the problem */
  DG_CALL(coloring_apply(&r->coloring, &r->mesh));
  topology_free(&r->topo);
  DG_CALL(topology_build(&r->mesh, &r->topo));
  return DG_SUCCESS;
}

/* "colouring: N colours (sizes a, b, ...), <algorithm>" of the applied
 * colouring, into text (truncated to size). */
static void run_coloring_text(const dg_case *c, const run_data *r, char *text, size_t size) {
  const dg_coloring *col = &r->coloring;
  int len = snprintf(text, size, "colouring: %d colours (sizes", col->n_colors);
  for (int k = 0; k < col->n_colors; ++k) {
    int64_t n = 0;
    for (int s = 0; s < DG_NUM_SHAPES; ++s) {
      const int64_t *off = col->shape_color_offset + s * (col->n_colors + 1);
      n += off[k + 1] - off[k];
    }
    if (len >= 0 && (size_t)len < size)
      len += snprintf(text + len, size - (size_t)len, "%s%lld", k ? ", " : " ", (long long)n);
  }
  /* the steps taken, and those a restart file's numbering left out */
  const char *item[4] = {NULL, NULL, NULL, NULL};
  int n_items = 0;
  if (r->colors_dropped > 0) item[n_items++] = "reduced by coloring_reduce";
  if (r->colors_turned) item[n_items++] = "largest colours at the turns";
  if (r->numbered_for && c->coloring_reduce && !r->numbered_reduce) item[n_items++] = "not reduced";
  if (r->numbered_for && c->coloring_turns && !r->numbered_turns)
    item[n_items++] = "turns as built";
  char notes[160] = "";
  size_t used = 0;
  for (int k = 0; k < n_items && used < sizeof notes; ++k) {
    const int w = snprintf(notes + used, sizeof notes - used, "%s%s", k ? ", " : " (", item[k]);
    if (w > 0) used += (size_t)w;
  }
  if (n_items && used < sizeof notes)
    snprintf(notes + used, sizeof notes - used, "%s",
             r->numbered_for ? ": the element numbering of " : ")");
  if (len >= 0 && (size_t)len < size)
    snprintf(text + len, size - (size_t)len, "), %s%s%s%s",
             coloring_algorithm_name((dg_coloring_algorithm)c->coloring), notes,
             r->numbered_for ? r->numbered_for : "", r->numbered_for ? ")" : "");
}

/* Rank 0 of a distributed run with artificial viscosity that starts from a
 * state ([solver] partition_viscous): *viscous (allocated; NULL when there
 * is nothing to weigh) = the viscous rows of the state's held LU-SGS
 * viscosity (partition_viscous_rows), in the renumbered mesh's numbering,
 * which is the file's. A file that cannot be read here is left to the
 * state's own read, which names the problem. */
static dg_status run_viscous_rows(const dg_case *c, const run_options *o, const run_data *r,
                                  uint8_t **viscous) {
  *viscous = NULL;
  const char *file = o->restart ? o->restart : o->init;
  if (!file || !c->av_enabled || !c->partition_viscous) return DG_SUCCESS;
  const int64_t ne = r->mesh.n_elems;
  double *hold = malloc((size_t)(ne > 0 ? ne : 1) * sizeof *hold);
  uint8_t *v = malloc((size_t)(ne > 0 ? ne : 1));
  if (!hold || !v) {
    free(hold);
    free(v);
    DG_ERROR(DG_ERR_MEMORY, "out of memory for the viscous rows of %lld elements", (long long)ne);
  }
  int found = 0;
  if (solution_read_av_hold(file, ne, hold, &found) == DG_SUCCESS && found &&
      partition_viscous_rows(&r->mesh, &r->topo, hold, v) > 0) {
    *viscous = v;
    v = NULL;
  }
  free(hold);
  free(v);
  return DG_SUCCESS;
}

/* Every rank holds the whole coloured mesh and its topology: rank 0
 * partitions it (viscous, read on rank 0 only: rows to spread evenly; NULL:
 * by cost only), each rank moves its part into r->mesh and r->topo and
 * colours it with the whole mesh's colours. Collective. */
static dg_status run_partition(const dg_case *c, run_data *r, const uint8_t *viscous) {
  DG_CALL(run_dist_setup(&r->dist, &r->mesh, &r->topo, c->order, (dg_quad_family)c->quadrature,
                         viscous, c->av_enabled && c->av_continuous && c->order >= 1,
                         r->coloring.color, r->coloring.n_colors));
  /* the sweeps of the part: every element keeps its colour of the whole
   * mesh, so a colour's step is the same on every rank */
  int32_t *color = NULL;
  DG_CALL(DG_CALLOC(color, r->mesh.n_elems > 0 ? r->mesh.n_elems : 1));
  for (int64_t l = 0; l < r->mesh.n_elems; ++l)
    color[l] = r->coloring.color[r->dist.part.global_elem[l]];
  dg_status st =
      coloring_from_colors(&r->mesh, &r->topo, color, r->coloring.n_colors, &r->part_coloring);
  free(color);
  DG_CALL(st);
  DG_CALL(coloring_list_owned(&r->part_coloring, &r->mesh, r->dist.part.n_owned));
  return DG_SUCCESS;
}

/* Reads the mesh, checks it against the case, builds its topology, colours
 * and renumbers it, and sets the boundary data: what every order shares. */
static dg_status run_setup_mesh(const dg_case *c, const run_options *o, run_data *r) {
  if (r->dist.size > 1) {
    /* rank 0 reads (a .geo is meshed once), every rank gets the mesh */
    DG_CALL(dg_comm_agree(r->dist.comm, r->dist.rank == 0 ? case_read_mesh(c, o->mesh, 0, &r->mesh)
                                                          : DG_SUCCESS));
    DG_CALL(mesh_bcast(r->dist.comm, 0, &r->mesh));
  } else {
    DG_CALL(case_read_mesh(c, o->mesh, 0, &r->mesh));
  }
  DG_CALL(case_validate_against_mesh(c, &r->mesh));
  DG_CALL(topology_build(&r->mesh, &r->topo));
  DG_CALL(run_color(c, o, r));
  /* every rank coloured the same mesh the same way; now each takes its part */
  if (r->dist.size > 1) {
    uint8_t *viscous = NULL;
    if (r->dist.rank == 0) DG_CALL(run_viscous_rows(c, o, r, &viscous));
    const dg_status st = run_partition(c, r, viscous);
    free(viscous);
    DG_CALL(st);
  }
  const int dim = r->mesh.dim;
  physics_freestream_state(dim, c->gamma, c->mach, c->alpha_deg, c->beta_deg, r->freestream);
  const int n_groups = r->mesh.n_groups;
  DG_CALL(DG_CALLOC(r->group_bc, n_groups > 0 ? n_groups : 1));
  DG_CALL(DG_CALLOC(r->group_data, n_groups > 0 ? n_groups : 1));
  DG_CALL(DG_CALLOC(r->wall_mask, n_groups > 0 ? n_groups : 1));
  DG_CALL(run_boundary_data(c, &r->mesh, r->freestream, r->group_bc, r->group_data));
  for (int g = 0; g < n_groups; ++g) {
    r->wall_mask[g] = r->group_bc[g] == PHYSICS_BC_WALL;
    r->n_walls += r->wall_mask[g];
    r->vortex |= r->group_bc[g] >= 0 && r->group_data[g].vortex_correction;
  }
  surface_reference_from_case(c, dim, &r->ref);
  return DG_SUCCESS;
}

/* The geometry and discretisation of degree p, and the host arrays of its
 * state (and of the held LU-SGS viscosity). */
static dg_status run_build_disc(const dg_case *c, run_data *r, int p) {
  const int dim = r->mesh.dim;
  /* Curved elements: the mass matrix integrand has degree 2p + dim (q-1),
   * the face flux times the scaled normal 2p + (dim-1)(q-1) (for a linear
   * flux); geometry_mesh_volume_degree and geometry_face_degree say what
   * curved_rule and face_rule take (through info_run_degrees, which
   * `colordg info` sizes the memory with). */
  int vol_degree = 0, face_degree = 0;
  info_run_degrees(&r->mesh, p, info_case_rules(c), &vol_degree, &face_degree);
  const dg_quad_family family = (dg_quad_family)c->quadrature;
  DG_CALL(geometry_build_family(&r->mesh, &r->topo, vol_degree, face_degree, family, &r->geom));
  if (r->dist.size > 1) DG_CALL(run_dist_geometry(&r->dist, &r->geom));

  dg_disc_opts dopts;
  memset(&dopts, 0, sizeof dopts);
  dopts.p = p;
  dopts.gamma = c->gamma;
  dopts.flux = DG_FACE_FLUX_ROE;
  for (int v = 0; v < DG_MAX_NVAR; ++v) dopts.freestream[v] = r->freestream[v];
  dopts.farfield_center[0] = c->moment_center[0];
  dopts.farfield_center[1] = c->moment_center[1];
  dopts.n_groups = r->mesh.n_groups;
  dopts.group_bc = r->group_bc;
  dopts.group_data = r->group_data;
  dopts.exact_kind = c->exact_solution == DG_EXACT_ISENTROPIC_VORTEX ? 1 : 0;
  double u[3], period[3];
  case_freestream_velocity(c, dim, u);
  run_mesh_periods(&r->topo, period);
  dopts.vortex.velocity[0] = u[0];
  dopts.vortex.velocity[1] = u[1];
  dopts.vortex.center[0] = c->vortex_center[0];
  dopts.vortex.center[1] = c->vortex_center[1];
  dopts.vortex.strength = c->vortex_strength;
  dopts.vortex.period[0] = period[0];
  dopts.vortex.period[1] = period[1];
  /* one ring of images keeps the periodic field smooth across the box */
  dopts.vortex.images = period[0] > 0.0 || period[1] > 0.0 ? 1 : 0;
  /* reduced: affine elements integrate at the straight-sided degree */
  if (c->affine_rule == 1) dopts.affine_degree = 2 * p + 1;
  if (c->av_enabled && p >= 1) {
    dopts.av = c->av_continuous ? DG_AV_CONTINUOUS : DG_AV_ELEMENT;
    dopts.av_sensor_var = c->av_sensor == DG_AV_SENSOR_DENSITY ? 0 : dim + 1;
    dopts.av_s0_offset = c->av_s0_offset;
    dopts.av_kappa = c->av_kappa;
    dopts.av_c = c->av_c_eps;
    dopts.br2_eta = c->br2_eta;
    dopts.av_wall_zero = c->av_wall_flux == 1;
  }
  if (r->dist.size > 1) {
    dopts.n_owned = r->dist.part.n_owned;
    dopts.halo = &r->dist.part.halo;
  }
  DG_CALL(disc_build(&r->mesh, &r->topo, &r->geom, &dopts, &r->disc));
  if (r->dist.size > 1)
    DG_CALL(run_dist_global_disc(&r->dist, &dopts, vol_degree, face_degree, family));

  DG_CALL(DG_CALLOC(r->h_U, r->disc.view.n_coefs));
  if (r->march->holds_av && r->disc.view.av != DG_AV_OFF)
    DG_CALL(DG_CALLOC(r->h_hold, r->disc.view.n_elems > 0 ? r->disc.view.n_elems : 1));
  return DG_SUCCESS;
}

/* The backend context of the discretisation and its vectors. */
static dg_status run_build_backend(run_data *r) {
  DG_CALL(dg_backend_create(r->backend, &r->disc, &r->ctx));
  DG_CALL(dg_vec_create(r->backend, r->ctx, DG_VEC_STATE, &r->U));
  DG_CALL(dg_vec_create(r->backend, r->ctx, DG_VEC_STATE, &r->U_good));
  DG_CALL(dg_vec_create(r->backend, r->ctx, DG_VEC_STATE, &r->U_candidate));
  if (r->disc.view.av != DG_AV_OFF) {
    DG_CALL(dg_vec_create(r->backend, r->ctx, DG_VEC_ELEM, &r->eps));
    DG_CALL(DG_CALLOC(r->h_eps, r->disc.view.n_elems > 0 ? r->disc.view.n_elems : 1));
  }
  return DG_SUCCESS;
}

/* p-sequencing: the per-equation norms of the residual of the free stream
 * at the stage's p (the reference of the stage's residual drop), from a
 * fresh backend context (no far-field circulation, no held viscosity).
 * Uses U_candidate and U_good as scratch: call it before they hold a
 * state. */
static dg_status run_stage_reference(const dg_case *c, run_data *r, double *norms) {
  double *h_free = NULL;
  DG_CALL(DG_CALLOC(h_free, r->disc.view.n_coefs > 0 ? r->disc.view.n_coefs : 1));
  dg_status status = disc_project(&r->disc, 0.0, h_free);
  if (status == DG_SUCCESS) status = dg_vec_upload(h_free, &r->U_candidate);
  free(h_free);
  DG_CALL(status);
  DG_CALL(dg_backend_residual(r->backend, r->ctx, &r->U_candidate, 0.0, &r->U_good));
  int finite = 1;
  double out[DG_MAX_NVAR] = {0};
  DG_CALL(dg_backend_norms(r->backend, r->ctx, &r->U_good, out, &finite));
  DG_CHECK(finite, DG_ERR_DIVERGED,
           "%s: [discretization] p_sequence: the residual of the free stream at p = %d is not "
           "finite",
           c->path, r->disc.view.p);
  for (int v = 0; v < DG_MAX_NVAR; ++v) norms[v] = v < r->disc.view.nvar ? out[v] : 0.0;
  return DG_SUCCESS;
}

/* The p of the run's first (or only) discretisation: the case's order
 * without p-sequencing; with it p_sequence_start, the p of a restart file
 * (the stage it was written in), or the p of an --init file when that is
 * higher than the start. */
static dg_status run_first_order(const dg_case *c, const run_options *o, int *p) {
  *p = c->order;
  if (!c->p_sequence) return DG_SUCCESS;
  *p = c->p_sequence_start;
  const char *file = o->restart ? o->restart : o->init;
  if (!file) return DG_SUCCESS;
  dg_solution_header h;
  DG_CALL(solution_read_header(file, &h));
  DG_CHECK(h.p <= c->order, DG_ERR_ARG,
           "%s file %s was written for p = %d, above the case's [discretization] order = %d",
           o->restart ? "restart" : "initial solution", file, h.p, c->order);
  if (o->restart || h.p > *p) *p = h.p;
  return DG_SUCCESS;
}

/* The case's marcher on the stage's backend context. The SER reference
 * (LU-SGS): a restart continues with the stored |R_0| (meta->ser_res0), an
 * older file's with that of its reference norms; a fresh run or stage sets
 * it at its first iteration (p-sequencing: the reference norms are the free
 * stream's, not a first residual's). */
static dg_status run_create_marcher(const dg_case *c, run_data *r, const dg_solution_meta *meta,
                                    const char *restart) {
  double res0 = 0.0;
  for (int v = 0; v < r->disc.view.nvar; ++v) res0 += meta->ref_norms[v] * meta->ref_norms[v];
  dg_marcher_settings s;
  memset(&s, 0, sizeof s);
  s.cfl = c->cfl;
  s.local_dt = c->local_time_step;
  s.positivity = r->disc.view.av != DG_AV_OFF;
  s.cfl_law = c->cfl_law;
  s.cfl_min = c->cfl_min;
  s.cfl_max = c->cfl_max;
  s.cfl_ramp_iters = c->cfl_ramp_iters;
  /* p-sequencing: a stage above p_sequence_start starts at p_sequence_cfl, its
   * exponential ramp at the first stage's rate */
  if (c->p_sequence && r->disc.view.p > c->p_sequence_start && c->p_sequence_cfl > 0.0) {
    s.cfl_min = c->p_sequence_cfl;
    if (c->cfl_max > c->cfl_min) {
      const double n = (double)c->cfl_ramp_iters * log(c->cfl_max / c->p_sequence_cfl) /
                       log(c->cfl_max / c->cfl_min);
      s.cfl_ramp_iters = n < 1.0 ? 1 : (int)lround(n);
    }
  }
  s.n_sweeps = c->sweeps;
  s.jacobian_interval = c->jacobian_interval;
  s.inverse_single = c->inverse_precision == 1;
  s.jacobian_forward = c->face_jacobian == 1;
  s.rank_coupling = c->rank_coupling == DG_RANK_COUPLING_PASS;
  s.av_relax = c->av_relax;
  s.av_relax_adapt = c->av_relax_adapt;
  s.av_couple_drop = c->av_couple_drop;
  s.max_change = c->max_update;
  s.res_reference = meta->ser_res0 > 0.0 ? meta->ser_res0 : c->p_sequence ? 0.0 : sqrt(res0);
  /* a restart of the same scheme continues the marcher's own state */
  if (meta->n_marcher_state > 0 && meta->scheme == c->scheme) {
    s.state = meta->marcher_state;
    s.n_state = meta->n_marcher_state;
  }
  s.coloring = r->dist.size > 1 ? &r->part_coloring : &r->coloring;
  s.krylov_size = c->krylov_size;
  s.krylov_restarts = c->krylov_restarts;
  s.newton_forcing = c->newton_forcing;
  s.newton_forcing_min = c->newton_forcing_min;
  s.newton_jacobian = c->newton_jacobian;
  s.newton_max_growth = c->newton_max_growth;
  s.newton_linear_stall = c->newton_linear_stall;
  s.newton_cfl_cut = c->newton_cfl_cut;
  s.newton_max_cuts = c->newton_max_cuts;
  /* the far-field vortex circulation changes R between steps */
  s.newton_reuse_residual = !r->vortex;
  const dg_status st = dg_marcher_create(r->march, r->backend, r->ctx, &r->disc, &s, &r->marcher);
  if (st != DG_SUCCESS && s.n_state > 0 && restart) {
    /* name the file whose marcher state was refused */
    char why[512];
    snprintf(why, sizeof why, "%s", dg_error_message());
    dg_error_clear();
    DG_ERROR(st, "%s: %s", restart, why);
  }
  return st;
}

/* COLORDG_SETUP_TIMES=1 (environment): each stage of the preprocessing
 * prints its seconds to stderr, "setup: STAGE S s" (where the
 * preprocessing time of the run's banner goes). *t: the end of the stage
 * before, moved to now. */
static void run_setup_time(const char *stage, double *t) {
  static int on = -1;
  if (on < 0) {
    const char *v = getenv("COLORDG_SETUP_TIMES");
    on = v && *v && strcmp(v, "0") != 0;
  }
  if (!on) return;
  const double now = run_seconds();
  fprintf(stderr, "setup: %s %.4f s\n", stage, now - *t);
  *t = now;
}

/* Reads the mesh, builds topology, geometry, the discretisation and the
 * backend state with the initial (or restart) solution; with p-sequencing
 * at the first stage's p, with the stage's reference norms. */
static dg_status run_setup(const dg_case *c, const run_options *o, run_data *r,
                           dg_solution_meta *meta, double *t) {
  DG_CALL(run_setup_mesh(c, o, r));
  run_setup_time("mesh", t);
  int p = c->order;
  DG_CALL(run_first_order(c, o, &p));
  DG_CALL(run_build_disc(c, r, p));
  run_setup_time("discretisation", t);
  memset(meta, 0, sizeof *meta);
  meta->cfl = c->cfl;
  run_dist *dist = &r->dist;
  if (dist->size > 1 && (o->restart || o->init)) {
    /* rank 0 reads the whole state, every rank takes its elements */
    dg_status st = DG_SUCCESS;
    /* a restart's held viscosity (whole mesh) comes with it when the run holds one */
    meta->av_hold = r->h_hold ? dist->gh_hold : NULL;
    if (dist->rank == 0)
      st = o->restart ? solution_read(o->restart, &dist->gmesh, &dist->gdisc, dist->gh_U, meta)
                      : solution_read_prolong(o->init, &dist->gmesh, &dist->gdisc, dist->gh_U);
    DG_CALL(dg_comm_agree(dist->comm, st));
    DG_CALL(dg_comm_bcast(dist->comm, meta, sizeof *meta, 0));
    meta->av_hold = NULL;
    meta->elem_order = NULL;
    DG_CALL(run_dist_scatter(dist, &r->disc, r->h_U));
    if (r->h_hold && meta->has_av_hold) DG_CALL(run_dist_scatter_hold(dist, &r->disc, r->h_hold));
    if (o->restart) r->wall0 = meta->wall_seconds;
    DG_CALL(dg_comm_agree(
        dist->comm,
        run_check_state(c, r, o->restart ? "restart state" : "initial state read with --init", 0)));
  } else if (o->restart) {
    meta->av_hold = r->h_hold;
    DG_CALL(solution_read(o->restart, &r->mesh, &r->disc, r->h_U, meta));
    meta->av_hold = NULL;
    r->wall0 = meta->wall_seconds;
    DG_CALL(run_check_state(c, r, "restart state", 0));
  } else if (o->init) {
    DG_CALL(solution_read_prolong(o->init, &r->mesh, &r->disc, r->h_U));
    DG_CALL(run_check_state(c, r, "initial state read with --init", 0));
  } else {
    DG_CALL(disc_project(&r->disc, 0.0, r->h_U));
    DG_CALL(dg_comm_agree(dist->comm, run_check_state(c, r, "initial state", 1)));
  }
  run_setup_time("state", t);

  DG_CALL(run_build_backend(r));
  run_setup_time("backend", t);
  /* a restart keeps the reference norms of its stage (in the file) */
  if (c->p_sequence && !o->restart) DG_CALL(run_stage_reference(c, r, meta->ref_norms));
  DG_CALL(dg_vec_upload(r->h_U, &r->U));
  if (r->h_hold && meta->has_av_hold)
    DG_CALL(dg_backend_av_hold_set(r->backend, r->ctx, r->h_hold));
  DG_CALL(dg_vec_copy(&r->U, &r->U_good));
  run_setup_time("upload", t);
  DG_CALL(run_create_marcher(c, r, meta, o->restart));
  run_setup_time("marcher", t);
  return DG_SUCCESS;
}

/* Adds the positivity-guard figures of the stage ending now to the run's
 * (artificial viscosity: the marcher runs the guard). */
static dg_status run_count_stage_limits(run_data *r) {
  if (!r->marcher.ops) return DG_SUCCESS;
  dg_marcher_stats stats;
  DG_CALL(r->marcher.ops->stats(&r->marcher, 1, &stats));
  if (!stats.has_limiter) return DG_SUCCESS;
  r->limit_fix += stats.limit_total;
  r->limit_bad += stats.limit_bad;
  r->limit_counted = 1;
  return DG_SUCCESS;
}

/* p-sequencing: hands the stage over to p + 1 after iteration n. The
 * state is prolonged exactly (disc_prolong, as --init does), the objects of
 * the stage are freed before those of p + 1 are built, the reference norms
 * become the free-stream residual at p + 1, the CFL ramp and the SER
 * reference start again (stage_start = n) and the held viscosity starts
 * fresh (a new backend context). */
/* p-sequencing hand-over of a distributed run that holds the LU-SGS
 * viscosity ([solver] partition_viscous): the whole mesh is partitioned
 * again with the viscous rows of the state reached (the shock has formed;
 * the start-up partition, made from the free stream, could not know them),
 * as a restart from this iteration would be. Rank 0 gets the whole state
 * at the stage's p in *whole (allocated; NULL elsewhere) and every rank
 * cuts its part again; the colouring of the whole mesh is kept, so with
 * colour coupling the sweeps stay those of one process. *moved = 0 (and
 * nothing changes) when the state holds no viscous row. The stage's
 * discretisation and backend are released when *moved. Collective. */
static dg_status run_repartition(const dg_case *c, run_data *r, double **whole, int *moved) {
  run_dist *d = &r->dist;
  *whole = NULL;
  *moved = 0;
  DG_CALL(dg_backend_av_hold_get(r->backend, r->ctx, r->h_hold));
  DG_CALL(run_dist_gather(d, &r->disc, r->h_U, NULL, r->h_hold));
  uint8_t *viscous = NULL;
  int64_t n_rows = 0;
  dg_status st = DG_SUCCESS;
  if (d->rank == 0) {
    viscous = malloc((size_t)(d->g_n_elems > 0 ? d->g_n_elems : 1));
    if (viscous)
      n_rows = partition_viscous_rows(&d->gmesh, &d->gtopo, d->gh_hold, viscous);
    else
      st = dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                        "out of memory for the viscous rows of %lld elements",
                        (long long)d->g_n_elems);
  }
  st = dg_comm_agree(d->comm, st);
  if (st == DG_SUCCESS) st = dg_comm_bcast(d->comm, &n_rows, sizeof n_rows, 0);
  if (st != DG_SUCCESS || n_rows == 0) {
    free(viscous);
    return st;
  }
  /* the part is cut again from the whole mesh, which every rank needs:
   * rank 0 hands its copy back to the run and broadcasts it */
  if (d->rank == 0) {
    *whole = d->gh_U;
    d->gh_U = NULL;
  }
  run_release_stage(r);
  coloring_free(&r->part_coloring);
  topology_free(&r->topo);
  mesh_free(&r->mesh);
  if (d->rank == 0) {
    r->mesh = d->gmesh;
    r->topo = d->gtopo;
    memset(&d->gmesh, 0, sizeof d->gmesh);
    memset(&d->gtopo, 0, sizeof d->gtopo);
  }
  run_dist_free(d);
  *moved = 1;
  st = mesh_bcast(d->comm, 0, &r->mesh);
  if (st == DG_SUCCESS && d->rank != 0) st = topology_build(&r->mesh, &r->topo);
  st = dg_comm_agree(d->comm, st);
  if (st == DG_SUCCESS) st = run_partition(c, r, viscous);
  free(viscous);
  return st;
}

static dg_status run_next_stage(const dg_case *c, run_data *r, dg_solution_meta *meta, int n,
                                FILE *out) {
  const int p_from = r->disc.view.p;
  DG_CALL(dg_vec_download(&r->U, r->h_U));
  DG_CALL(run_count_stage_limits(r));
  double *whole = NULL;
  int moved = 0;
  if (r->dist.size > 1 && c->partition_viscous && r->h_hold) {
    dg_status st = run_repartition(c, r, &whole, &moved);
    if (st != DG_SUCCESS) {
      free(whole);
      return st;
    }
  }
  if (moved) {
    /* the whole state at p_from prolonged on rank 0, every rank's part sent */
    dg_status status = run_build_disc(c, r, p_from + 1);
    if (status == DG_SUCCESS && r->dist.rank == 0)
      status = disc_prolong(&r->dist.gdisc.view, p_from, whole, r->dist.gh_U);
    free(whole);
    status = dg_comm_agree(r->dist.comm, status);
    if (status == DG_SUCCESS) status = run_dist_scatter(&r->dist, &r->disc, r->h_U);
    DG_CALL(status);
    if (out && r->dist.rank == 0) {
      fprintf(out,
              "p-sequencing: partitioned again with the %lld viscous rows of the state "
              "(largest part / mean %.3f; imbalance %.3f, %lld cut faces, colour-step balance "
              "%.4f; [solver] partition_viscous)\n",
              (long long)r->dist.n_viscous, r->dist.viscous_balance, r->dist.imbalance,
              (long long)r->dist.cut_faces, r->dist.colour_balance);
      fflush(out);
    }
  } else {
    double *U_from = r->h_U;
    r->h_U = NULL;
    run_release_stage(r);
    dg_status status = run_build_disc(c, r, p_from + 1);
    if (status == DG_SUCCESS) status = disc_prolong(&r->disc.view, p_from, U_from, r->h_U);
    free(U_from);
    DG_CALL(status);
  }
  DG_CALL(run_check_state(c, r, "state prolonged by p-sequencing", 0));
  DG_CALL(run_build_backend(r));
  DG_CALL(run_stage_reference(c, r, meta->ref_norms));
  DG_CALL(dg_vec_upload(r->h_U, &r->U));
  DG_CALL(dg_vec_copy(&r->U, &r->U_good));
  meta->stage_start = n;
  meta->ser_res0 = 0.0;      /* the stage's first iteration sets it */
  meta->n_marcher_state = 0; /* a new stage's marcher starts fresh */
  DG_CALL(run_create_marcher(c, r, meta, NULL));
  return DG_SUCCESS;
}

/* The step length an unsteady run must not exceed from time t: up to the
 * end time and the next output time (0 when neither applies). */
static double run_time_limit(const dg_case *c, double t, double next_output) {
  double limit = 0.0;
  if (c->end_time > 0.0) limit = c->end_time - t;
  if (next_output > 0.0 && (limit <= 0.0 || next_output - t < limit)) limit = next_output - t;
  return limit;
}

static dg_status run_march(const dg_case *c, const run_options *o, run_data *r,
                           dg_solution_meta *meta, const char *folder, double start, FILE *out,
                           run_result *res) {
  const int dim = r->disc.view.dim, nvar = r->disc.view.nvar;
  const int max_iters = o->max_iters > 0 ? o->max_iters : c->max_iters;
  const int it0 = (int)meta->iteration;
  r->it_start = it0;
  DG_CHECK(it0 <= max_iters, DG_ERR_ARG,
           "restart file %s is at iteration %d, past the iteration limit %d; raise --max-iters",
           o->restart, it0, max_iters);
  const int unsteady = r->march->time_accurate && !c->local_time_step;
  DG_CHECK(unsteady || (c->end_time <= 0.0 && c->output_interval <= 0.0), DG_ERR_CASE,
           "%s: [stop] end_time and [output] output_interval need a time-accurate run "
           "([solver] scheme = explicit_rk3, local_time_step = no)",
           c->path);
  DG_CHECK(c->end_time <= 0.0 || meta->time < c->end_time, DG_ERR_ARG,
           "restart file %s is at time %g, not before [stop] end_time %g", o->restart, meta->time,
           c->end_time);
  const int root = r->dist.rank == 0; /* writes history.csv and the outputs */
  if (root)
    DG_CALL(monitor_open(&r->monitor, folder, dim, it0, out, o->quiet, c->p_sequence,
                         c->residual_norm == DG_RESIDUAL_TOTAL,
                         c->scheme == DG_SCHEME_NEWTON_KRYLOV));
  r->monitor.show_time = unsteady;
  r->monitor.tty = out && !o->quiet && isatty(fileno(out));
  const int series_on = c->vtu_every > 0 || c->output_interval > 0.0;
  if (it0 == 0) {
    /* a series left by an earlier run in this folder would list stale files */
    char pvd[DG_CASE_PATH_LEN + 64];
    DG_CALL(run_path(pvd, sizeof pvd, folder, "solution.pvd"));
    if (root) remove(pvd);
  } else if (series_on) {
    DG_CALL(run_load_series(r, folder, it0));
  }
  meta->has_run = 1;
  meta->scheme = c->scheme;
  meta->cfl_law = c->cfl_law;
  meta->gamma = c->gamma;
  meta->mach = c->mach;
  meta->alpha_deg = c->alpha_deg;
  meta->beta_deg = c->beta_deg;

  dg_marcher_step_opts sopts;
  memset(&sopts, 0, sizeof sopts);
  double t = meta->time;
  double next_output = 0.0; /* next output time (output_interval) */
  if (c->output_interval > 0.0)
    next_output = c->output_interval * (floor(t / c->output_interval + 1e-9) + 1.0);
  int good_iteration = it0; /* U_good holds the state after this many iterations */
  double good_time = t, worst = 0.0;
  res->reason = RUN_STOP_MAX_ITERS;
  int it = it0, diverged_at = 0, last_series = -1;
  char what[512] = "";
  monitor_progress progress;
  monitor_progress_start(&progress, it0, max_iters, c->max_wall_seconds, c->residual_drop,
                         c->end_time, t);
  if (series_on && it0 == 0) {
    /* the series starts with the initial state (t = 0) */
    DG_CALL(dg_vec_download(&r->U, r->h_U));
    DG_CALL(run_write_series(r, folder, 0, t));
    last_series = 0;
  }
  while (it < max_iters) {
    if (r->dist.size == 1 && run_caught_signal) { /* ranks agree at the end of an iteration */
      res->reason = RUN_STOP_SIGNAL;
      break;
    }
    const int n = it + 1;
    /* p-sequencing: a stage below order hands over at its drop or its
     * iteration limit (whose last iteration is a monitor point) */
    const int stage_p = r->disc.view.p;
    const int lower_stage = c->p_sequence && stage_p < c->order;
    const int stage_iters = n - (int)meta->stage_start;
    const int stage_limit =
        lower_stage && c->p_sequence_max_iters > 0 && stage_iters >= c->p_sequence_max_iters;
    sopts.dt_fixed = 0.0;
    const double limit = unsteady ? run_time_limit(c, t, next_output) : 0.0;
    if (limit > 0.0) { /* unsteady: a time-accurate marcher, which has stable_step */
      double h = 0.0;
      DG_CALL(r->marcher.ops->stable_step(&r->marcher, &r->U, &h));
      if (isfinite(h) && h >= limit) sopts.dt_fixed = limit; /* land on the end/output time */
      /* else the stable step itself, fixed: the marcher does not compute it
       * a second time (the same step and bits as its own CFL step) */
      else if (isfinite(h) && h > 0.0)
        sopts.dt_fixed = h;
    }
    const int last_step =
        sopts.dt_fixed > 0.0 && c->end_time > 0.0 && t + sopts.dt_fixed >= c->end_time;
    const int monitor_point = n == 1 || n % c->monitor_every == 0 || n == max_iters || last_step ||
                              stage_limit || (c->p_sequence && stage_iters == 1);
    sopts.compute_norms = monitor_point;
    sopts.t = t;
    /* the CFL ramp counts the iterations of the p-sequencing stage (all of
     * them without p-sequencing) */
    sopts.iteration = n - (int)meta->stage_start;
    if (monitor_point) DG_CALL(dg_vec_copy(&r->U, &r->U_candidate));
    dg_marcher_info info;
    memset(&info, 0, sizeof info);
    info.finite = 1;
    info.bad_equation = -1;
    dg_status status = r->vortex ? run_update_circulation(r, &r->U) : DG_SUCCESS;
    if (status == DG_SUCCESS) status = dg_marcher_step(&r->marcher, &r->U, &sopts, &info);
    sopts.fresh_blocks = 0;
    if (info.cfl > 0.0) r->cfl = info.cfl; /* 0 when the step failed before its CFL */
    if (status == DG_ERR_DIVERGED) {
      if (monitor_point && !info.finite)
        snprintf(what, sizeof what, "the %s residual is not finite",
                 monitor_variable_name(dim, info.bad_equation >= 0 ? info.bad_equation : 0));
      else
        snprintf(what, sizeof what, "%s", dg_error_message());
      dg_error_clear();
      diverged_at = n;
      break;
    }
    DG_CALL(status);
    t += info.dt;                   /* 0 for local or pseudo-time steps */
    if (last_step) t = c->end_time; /* exactly the end time, not a rounded sum */
    it = n;
    const int at_output = next_output > 0.0 && t >= next_output * (1.0 - 1e-12);
    const int at_end = last_step;
    /* (p-sequencing: the free-stream residual of the stage, set with it) */
    if (monitor_point && it0 == 0 && n == 1 && !c->p_sequence)
      for (int v = 0; v < nvar; ++v) meta->ref_norms[v] = info.res_norm[v];
    /* the drop, measured at monitor points and, for a marcher with
     * stop_any_step (Newton-Krylov), after every step: a step between
     * monitor rows whose norms reach the drop (the stage's hand-over, or the
     * run's convergence) becomes a row too */
    monitor_row row;
    memset(&row, 0, sizeof row);
    double drop = 0.0;
    int row_point = monitor_point;
    if (monitor_point || (r->marcher.ops->stop_any_step && info.has_norms && !unsteady)) {
      drop = monitor_log_residuals(nvar, info.res_norm, meta->ref_norms, row.log_residual);
      row.log_total = monitor_total_log_residual(nvar, info.res_norm, meta->ref_norms);
      if (c->residual_norm == DG_RESIDUAL_TOTAL) drop = row.log_total;
      row_point = monitor_point || drop <= -(lower_stage ? c->p_sequence_drop : c->residual_drop);
    }
    if (row_point) {
      /* the state this step started from had a finite residual (U_candidate
       * holds it at monitor points) */
      if (monitor_point) {
        const dg_vec swap = r->U_good;
        r->U_good = r->U_candidate;
        r->U_candidate = swap;
        good_iteration = n - 1;
        good_time = meta->time; /* still the time at the start of step n */
      }
      row.iteration = n;
      row.wall_seconds = r->wall0 + run_seconds() - start;
      row.time = t;
      worst = drop;
      dg_force_coefs coefs;
      DG_CALL(run_forces(r, &r->U, &coefs));
      row.cl = coefs.cl;
      row.cd = coefs.cd;
      row.cm = coefs.cm;
      row.cfl = r->cfl;
      row.order = stage_p;
      row.linear_iterations = info.linear_iterations;
      monitor_progress_update(&progress, n, run_seconds() - start, worst, t, &row);
      if (root) DG_CALL(monitor_record(&r->monitor, &row));
    }
    meta->iteration = it;
    meta->time = t;
    meta->wall_seconds = r->wall0 + run_seconds() - start;
    if (lower_stage && (stage_limit || (row_point && worst <= -c->p_sequence_drop))) {
      /* before the checkpoint of this iteration: a checkpoint written now
       * holds the next stage's start, so a restart from it hands over too */
      if (out) {
        fprintf(out, "p-sequencing: p = %d reached %.2f orders at iteration %d (%.1f s)%s; ",
                stage_p, -worst, n, meta->wall_seconds,
                row_point && worst <= -c->p_sequence_drop ? "" : ", its iteration limit");
        fprintf(out, "continuing at p = %d\n", stage_p + 1);
        fflush(out);
      }
      DG_CALL(run_next_stage(c, r, meta, n, out));
      good_iteration = n;
      good_time = t;
      worst = 0.0; /* nothing measured at the new p yet */
    }
    const int checkpoint =
        c->checkpoint_every > 0 && it % c->checkpoint_every == 0 && it < max_iters;
    const int series = (c->vtu_every > 0 && it % c->vtu_every == 0) || at_output;
    if (at_output)
      while (next_output <= t * (1.0 + 1e-12)) next_output += c->output_interval;
    if (checkpoint || series) {
      /* never let a blown-up state overwrite a good checkpoint */
      DG_CALL(dg_vec_download(&r->U, r->h_U));
      if (!run_host_state_finite(r)) {
        snprintf(what, sizeof what, "the state holds NaN or Inf");
        diverged_at = n;
        break;
      }
      if (checkpoint) {
        DG_CALL(run_write_host_state(r, folder, "checkpoint.cdgs", meta, 1));
        /* the next iteration builds its blocks, as a restart from the file does */
        sopts.fresh_blocks = 1;
      }
      if (series) {
        DG_CALL(run_write_series(r, folder, it, t));
        last_series = it;
      }
    }
    if (at_end) {
      res->reason = RUN_STOP_END_TIME;
      break;
    }
    if (row_point && !lower_stage && worst <= -c->residual_drop) {
      res->reason = RUN_STOP_CONVERGED;
      break;
    }
    /* a signal or the wall-clock limit seen by any rank stops every rank */
    int stop_wall = c->max_wall_seconds > 0.0 && run_seconds() - start >= c->max_wall_seconds;
    int stop_signal = run_caught_signal != 0;
    DG_CALL(run_dist_any(&r->dist, &stop_wall));
    DG_CALL(run_dist_any(&r->dist, &stop_signal));
    if (stop_wall) {
      res->reason = RUN_STOP_WALL_TIME;
      break;
    }
    if (stop_signal) {
      if (!run_caught_signal) run_caught_signal = SIGTERM; /* another rank's */
      res->reason = RUN_STOP_SIGNAL;
      break;
    }
  }
  res->iterations = diverged_at ? diverged_at : it;
  res->time = t;
  res->residual_drop = -worst;
  if (!diverged_at) {
    DG_CALL(dg_vec_download(&r->U, r->h_U));
    if (!run_host_state_finite(r)) {
      snprintf(what, sizeof what, "the final state holds NaN or Inf");
      diverged_at = it;
    }
  }
  meta->wall_seconds = r->wall0 + run_seconds() - start;
  if (diverged_at) {
    res->reason = RUN_STOP_DIVERGED;
    dg_solution_meta good_meta = *meta;
    good_meta.iteration = good_iteration;
    good_meta.time = good_time;
    DG_CALL(dg_vec_download(&r->U_good, r->h_U));
    if (!run_host_state_finite(r))
      DG_ERROR(DG_ERR_DIVERGED,
               "%s: the run diverged at iteration %d: %s; no finite state was kept, nothing was "
               "written as a solution",
               c->path, diverged_at, what);
    DG_CALL(run_write_outputs(r, &r->U_good, folder, &good_meta));
    DG_ERROR(DG_ERR_DIVERGED,
             "%s: the run diverged at iteration %d: %s (CFL %g). The last good state "
             "(iteration %d) is written to %s/solution.cdgs and %s; lower [solver] %s",
             c->path, diverged_at, what, r->cfl, good_iteration, folder,
             r->vtu_pieces ? "solution.pvtu" : "solution.vtu", r->march->cfl_key);
  }
  DG_CALL(run_write_host_state(r, folder, "checkpoint.cdgs", meta, 1));
  if (series_on && last_series != it) DG_CALL(run_write_series(r, folder, it, t));
  DG_CALL(run_write_outputs(r, &r->U, folder, meta)); /* leaves the state in h_U */
  /* error norms over the whole mesh: rank 0's gathered state when distributed */
  const dg_disc *whole = r->dist.size > 1 ? &r->dist.gdisc : &r->disc;
  const double *whole_U = r->dist.size > 1 ? r->dist.gh_U : r->h_U;
  if (root && c->exact_solution == DG_EXACT_ISENTROPIC_VORTEX && !c->local_time_step) {
    DG_CALL(disc_error_l2(whole, whole_U, t, res->error_l2));
    res->has_error = 1;
  }
  if (root && c->entropy_error) {
    DG_CALL(disc_entropy_error(whole, whole_U, &res->entropy_error));
    res->has_entropy_error = 1;
    res->dofs = whole->view.n_coefs / whole->view.nvar;
    DG_CALL(run_write_errors(r, folder, res));
  }
  dg_force_coefs coefs;
  DG_CALL(run_forces(r, &r->U, &coefs));
  res->cl = coefs.cl;
  res->cd = coefs.cd;
  res->cm = coefs.cm;
  return DG_SUCCESS;
}

static const char *run_scheme_name(int scheme) { return run_marcher_ops(scheme)->name; }

/* A restart under other settings than the run it continues: a different
 * gamma is refused (the stored conservative state would mean another
 * temperature and pressure); another scheme, CFL law or free stream
 * (Mach, angles) is allowed, a continuation or a sweep, and each change is
 * printed. A version-1 file stored none of these. */
static dg_status run_restart_check(const dg_case *c, const run_options *o,
                                   const dg_solution_meta *meta, FILE *out) {
  if (!o->restart) return DG_SUCCESS;
  if (!meta->has_run) {
    if (out)
      fprintf(out,
              "restart: %s is a version-1 file: its scheme, gamma and free stream were not "
              "stored and are not checked; a held viscosity starts anew\n",
              o->restart);
    return DG_SUCCESS;
  }
  DG_CHECK(meta->gamma == c->gamma, DG_ERR_ARG,
           "%s: [flow] gamma = %.15g, but restart file %s was written with gamma = %.15g; a "
           "restart cannot change gamma (use --init to start a new run from the state)",
           c->path, c->gamma, o->restart, meta->gamma);
  if (!out) return DG_SUCCESS;
  if (meta->scheme != c->scheme)
    fprintf(out, "restart: scheme changed from %s to %s (the CFL control starts anew)\n",
            run_scheme_name(meta->scheme), run_scheme_name(c->scheme));
  else if (c->scheme != DG_SCHEME_EXPLICIT_RK3 && meta->cfl_law != c->cfl_law)
    fprintf(out, "restart: CFL law changed from %s to %s\n",
            meta->cfl_law == DG_CFL_SER ? "ser" : "exponential",
            c->cfl_law == DG_CFL_SER ? "ser" : "exponential");
  if (meta->mach != c->mach)
    fprintf(out, "restart: [flow] mach changed from %.15g to %.15g\n", meta->mach, c->mach);
  if (meta->alpha_deg != c->alpha_deg)
    fprintf(out, "restart: [flow] alpha_deg changed from %.15g to %.15g\n", meta->alpha_deg,
            c->alpha_deg);
  if (meta->beta_deg != c->beta_deg)
    fprintf(out, "restart: [flow] beta_deg changed from %.15g to %.15g\n", meta->beta_deg,
            c->beta_deg);
  return DG_SUCCESS;
}

dg_status run_case(const dg_case *c, const run_options *options, FILE *out, run_result *result) {
  run_options defaults;
  memset(&defaults, 0, sizeof defaults);
  const run_options *o = options ? options : &defaults;
  run_result local;
  run_result *res = result ? result : &local;
  memset(res, 0, sizeof *res);
  const double start = run_seconds();

  run_data r;
  memset(&r, 0, sizeof r);
  run_dist_init(&r.dist);
  r.vtu_pieces = c->vtu_pieces == DG_VTU_PIECES_YES ||
                 (c->vtu_pieces == DG_VTU_PIECES_AUTO && r.dist.size > 1);
  if (r.dist.rank != 0) out = NULL; /* rank 0 reports */
  /* LU-SGS and Newton-Krylov (preconditioned by the LU-SGS sweeps) */
  const int lusgs = c->scheme == DG_SCHEME_LUSGS || c->scheme == DG_SCHEME_NEWTON_KRYLOV;
  r.march = run_marcher_ops(c->scheme);
  DG_CHECK(!(o->restart && o->init), DG_ERR_ARG,
           "--restart (continue a run) and --init (start a new run from a solution) exclude each "
           "other");
  DG_CALL(run_pick_backend(o->backend, r.dist.size, &r.backend));
  DG_CHECK(!lusgs || lusgs_backend_for(r.backend), DG_ERR_UNSUPPORTED,
           "%s: [solver] scheme = %s: backend %s has no LU-SGS operations", c->path, r.march->name,
           dg_backend_name(r.backend));
  const char *folder = o->output_folder ? o->output_folder : c->output_folder;
  snprintf(res->backend, sizeof res->backend, "%s", dg_backend_name(r.backend));
  snprintf(res->output_folder, sizeof res->output_folder, "%s", folder);

  dg_status status = DG_SUCCESS;
  double *rank_wait = NULL; /* rank 0: every rank's halo wait s (who waits least is slowest) */
  dg_solution_meta meta;
  memset(&meta, 0, sizeof meta);
  struct sigaction old_int, old_term, act;
  memset(&act, 0, sizeof act);
  act.sa_handler = run_on_signal;
  act.sa_flags = SA_RESETHAND; /* the second signal takes the default action */
  sigemptyset(&act.sa_mask);
  run_caught_signal = 0;
  run_last_signal = 0;
  sigaction(SIGINT, &act, &old_int);
  sigaction(SIGTERM, &act, &old_term);
  DG_CALL_GOTO(status, done,
               dg_comm_agree(r.dist.comm, r.dist.rank == 0 ? run_make_folder(folder) : DG_SUCCESS));
  if (r.dist.rank == 0) run_remove_stale_temporaries(folder, out);
  double t_setup = start;
  run_setup_time("backend choice", &t_setup);
  DG_CALL_GOTO(status, done, run_setup(c, o, &r, &meta, &t_setup));
  DG_CALL_GOTO(status, done, run_restart_check(c, o, &meta, out));
  if (out) {
    fprintf(out,
            "case %s: %s, p = %d, %lld elements (geometric order %d), %lld dofs x %d, backend "
            "%s%s\n",
            c->name, r.mesh.source, r.disc.view.p,
            (long long)(r.dist.size > 1 ? r.dist.g_n_elems : r.mesh.n_elems), r.mesh.geom_order,
            (long long)((r.dist.size > 1 ? r.dist.gdisc.view.n_coefs : r.disc.view.n_coefs) /
                        r.disc.view.nvar),
            r.disc.view.nvar, dg_backend_name(r.backend), o->restart ? "" : "");
    if (r.dist.size > 1)
      fprintf(out,
              "distributed: %d MPI ranks, METIS parts (imbalance %.3f, %lld cut faces, at most "
              "%lld face ghosts per rank, colour-step balance %.4f)%s\n",
              r.dist.size, r.dist.imbalance, (long long)r.dist.cut_faces,
              (long long)r.dist.max_ghosts, r.dist.colour_balance,
              dg_comm_device_aware() ? ", CUDA-aware MPI" : "");
    if (r.dist.size > 1 && r.dist.n_viscous > 0)
      fprintf(out,
              "distributed: %lld viscous rows of the start state spread over the ranks "
              "(largest part / mean %.3f; [solver] partition_viscous)\n",
              (long long)r.dist.n_viscous, r.dist.viscous_balance);
    if (r.dist.size > 1 && run_gpu_device >= 0)
      fprintf(out, "GPUs: rank 0 on device %d; %d ranks on this host%s\n", run_gpu_device,
              dg_comm_node_size(),
              run_gpu_shared ? " share its GPUs (more ranks than devices: for testing)"
                             : ", one GPU each");
    const dg_mesh *whole_mesh = r.dist.size > 1 ? &r.dist.gmesh : &r.mesh;
    if (c->av_enabled && whole_mesh->geom_order > 1) {
      geometry_quality quality;
      DG_CALL_GOTO(status, done,
                   geometry_jacobian_quality(whole_mesh, GEOMETRY_QUALITY_WARN, &quality));
      geometry_quality_warn(whole_mesh, &quality, GEOMETRY_QUALITY_WARN, out);
    }
    if (o->restart)
      fprintf(out, "restart from %s at iteration %lld\n", o->restart, (long long)meta.iteration);
    if (o->init)
      fprintf(out, "initial state from %s (prolonged to p = %d)\n", o->init, r.disc.view.p);
    if (c->p_sequence && r.disc.view.p < c->order) {
      fprintf(out,
              "p-sequencing: p = %d -> %d; a stage hands over %g orders below its free-stream "
              "residual",
              r.disc.view.p, c->order, c->p_sequence_drop);
      if (c->p_sequence_max_iters > 0)
        fprintf(out, " or after %d iterations", c->p_sequence_max_iters);
      if (c->p_sequence_cfl > 0.0 && c->scheme != DG_SCHEME_EXPLICIT_RK3)
        fprintf(out, ", the next starting at CFL %g", c->p_sequence_cfl);
      if (o->restart)
        fprintf(out, "; this stage began at iteration %lld", (long long)meta.stage_start);
      fputc('\n', out);
    } else if (c->p_sequence) {
      fprintf(out, "p-sequencing: the last stage, p = %d", c->order);
      if (o->restart) fprintf(out, ", began at iteration %lld", (long long)meta.stage_start);
      fprintf(out, "; residuals against the free-stream residual at p = %d\n", c->order);
    }
    run_setup_time("checks", &t_setup);
    char coloring[768];
    run_coloring_text(c, &r, coloring, sizeof coloring);
    if (c->scheme == DG_SCHEME_NEWTON_KRYLOV)
      fprintf(out,
              "Newton-Krylov, local time steps, CFL %g -> %g (%s), FGMRES(%d), %d restarts, "
              "forcing %s, %s Jacobian products, preconditioner %d LU-SGS sweep%s; %s; "
              "preprocessing %.3f s\n",
              c->cfl_min, c->cfl_max, c->cfl_law == DG_CFL_SER ? "ser" : "exponential",
              c->krylov_size, c->krylov_restarts, c->newton_forcing_text,
              c->newton_jacobian == NEWTON_JACOBIAN_FD ? "finite-difference" : "analytic",
              c->sweeps, c->sweeps == 1 ? "" : "s", coloring, run_seconds() - start);
    else if (lusgs) {
      char jac[96] = "";
      if (c->jacobian_interval > 1)
        snprintf(jac, sizeof jac, ", the blocks rebuilt every %d iterations at CFL %g",
                 c->jacobian_interval, c->cfl_max);
      fprintf(out,
              "LU-SGS, local time steps, CFL %g -> %g (%s), %d sweep%s per iteration%s; %s; "
              "preprocessing %.3f s\n",
              c->cfl_min, c->cfl_max, c->cfl_law == DG_CFL_SER ? "ser" : "exponential", c->sweeps,
              c->sweeps == 1 ? "" : "s", jac, coloring, run_seconds() - start);
    } else
      fprintf(out, "explicit SSP-RK3, %s time step, CFL %g; %s; preprocessing %.3f s\n",
              c->local_time_step ? "local" : "global", c->cfl, coloring, run_seconds() - start);
    if (r.disc.view.av != DG_AV_OFF)
      fprintf(out,
              "artificial viscosity: %s, sensor on %s, s0 = %.3f, kappa %g, eps0 = %g lambda h / "
              "p, BR2 eta %s, wall flux %s\n",
              r.disc.view.av == DG_AV_CONTINUOUS ? "continuous" : "per element",
              c->av_sensor == DG_AV_SENSOR_DENSITY ? "density" : "energy", r.disc.view.av_s0,
              c->av_kappa, c->av_c_eps, c->br2_eta > 0.0 ? "fixed" : "faces + 1",
              c->av_wall_flux ? "zero" : "ghost");
    else if (c->av_enabled)
      fprintf(out, "artificial viscosity: off at p = 0 (first-order finite volume)\n");
    fflush(out);
  }
  status = run_march(c, o, &r, &meta, folder, start, out, res);
  if (res->reason == RUN_STOP_SIGNAL) run_last_signal = (int)run_caught_signal;
  res->wall_seconds = run_seconds() - start;
  if (out && (r.limit_counted || (r.disc.view.av != DG_AV_OFF && r.marcher.ops))) {
    /* p-sequencing: the stages before this one, then this one */
    const double fix_before = r.limit_fix;
    const int64_t bad_before = r.limit_bad;
    r.limit_fix = 0.0;
    r.limit_bad = 0;
    const dg_status count_status = run_count_stage_limits(&r);
    if (count_status == DG_SUCCESS)
      fprintf(out, "positivity limiter: %.0f element corrections (%lld with a non-physical mean)\n",
              fix_before + r.limit_fix, (long long)(bad_before + r.limit_bad));
    else if (status == DG_SUCCESS)
      status = count_status;
  }
  if (status != DG_SUCCESS) {
    dg_error_trace(__FILE__, __LINE__, __func__);
    goto done;
  }
  double halo[4] = {0, 0, 0, 0}; /* max over ranks: exchanges, doubles sent, wait s, march s */
  if (r.dist.size > 1) {
    const dg_exchange_totals tot = dg_exchange_get_totals();
    halo[0] = (double)tot.exchanges;
    halo[1] = tot.doubles_sent;
    halo[2] = tot.wait_seconds;
    halo[3] = res->wall_seconds;
    if (r.dist.rank == 0) rank_wait = calloc((size_t)r.dist.size, sizeof *rank_wait);
    int64_t have = r.dist.rank != 0 || rank_wait; /* the report line only (no error) */
    DG_CALL_GOTO(status, done, dg_comm_allreduce_i64(r.dist.comm, DG_COMM_MIN, &have, 1));
    if (have)
      DG_CALL_GOTO(status, done,
                   dg_comm_gather(r.dist.comm, &tot.wait_seconds, sizeof(double), rank_wait, 0));
    DG_CALL_GOTO(status, done, dg_comm_allreduce(r.dist.comm, DG_COMM_MAX, halo, 4));
  }
  if (out) {
    fprintf(out,
            "%s after %d iterations in %.2f s: residual drop %.2f orders, CL %.6f, CD %.6f, "
            "CM %.6f\n",
            run_reason_text(res->reason), res->iterations, res->wall_seconds, res->residual_drop,
            res->cl, res->cd, res->cm);
    if (res->has_error) {
      fprintf(out, "L2 error against the exact solution at t = %.6g:", res->time);
      for (int v = 0; v < r.disc.view.nvar; ++v)
        fprintf(out, " %s %.4e", monitor_variable_name(r.disc.view.dim, v), res->error_l2[v]);
      fputc('\n', out);
    }
    if (res->has_entropy_error)
      fprintf(
          out,
          "L2 entropy error: %.6e (p = %d, %lld DOFs, h = 1/sqrt(DOFs) = %.6g; %s/errors.csv)\n",
          res->entropy_error, r.disc.view.p, (long long)res->dofs, 1.0 / sqrt((double)res->dofs),
          folder);
    const int run_iters = res->iterations - r.it_start;
    if (r.dist.size > 1 && run_iters > 0)
      fprintf(out,
              "halo exchanges: %.0f per iteration, %.1f KiB sent per rank per iteration, %.3f s "
              "waiting of %.2f s (largest over the ranks); messages %s\n",
              halo[0] / run_iters, halo[1] * 8.0 / 1024.0 / run_iters, halo[2], halo[3],
              backend_halo_transport(r.backend, r.ctx));
    if (r.dist.size > 1 && run_iters > 0 && rank_wait) {
      /* the rank that waits least holds the others up (load imbalance) */
      fprintf(out, "halo wait per rank (s):");
      for (int k = 0; k < r.dist.size && k < 64; ++k) fprintf(out, " %.3f", rank_wait[k]);
      fprintf(out, "%s\n", r.dist.size > 64 ? " ..." : "");
    }
    fprintf(out, "wrote %s/{history.csv, checkpoint.cdgs, solution.cdgs, %s%s%s%s}\n", folder,
            r.vtu_pieces ? "solution.pvtu (pieces in solution/)" : "solution.vtu",
            r.n_walls ? ", surface_cp.csv, surface.vtu" : "", r.eps.data ? ", av_field.csv" : "",
            r.n_series > 0 ? ", solution.pvd" : "");
    char gpu_line[320]; /* peak device bytes vs the plan (src/kernels/gpu_memory.h) */
    if (r.backend == backend_cuda() &&
        gpu_mem_report_line(&r.disc, lusgs, gpu_line, sizeof gpu_line))
      fprintf(out, "%s\n", gpu_line);
    if (res->reason == RUN_STOP_SIGNAL)
      fprintf(out,
              "stopped by signal %d (%s); continue with: colordg run %s --restart "
              "%s/checkpoint.cdgs (exit code %d)\n",
              run_last_signal, run_last_signal == SIGINT ? "SIGINT" : "SIGTERM", c->path, folder,
              RUN_EXIT_SIGNAL);
  }
done:
  free(rank_wait);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  run_release(&r);
  return status;
}
