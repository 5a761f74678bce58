/* Artificial viscosity on the CUDA backend against the CPU backend (one
 * source, src/dg/av_ops.h): for p = 1, 2, 3 and both ε fields
 * (DG_AV_ELEMENT, DG_AV_CONTINUOUS) on
 *   - a 2D mixed (quad + triangle) mesh of order 2, deformed (curved), with
 *     far-field, subsonic outflow, slip-wall and exact boundaries,
 *   - a 3D tetrahedral mesh of order 2, deformed, with subsonic inflow and
 *     outflow, wall, far-field, symmetry and exact boundaries,
 * carrying a sharp tanh front in density and pressure (the sensor fires in
 * the elements the front crosses and stays off elsewhere):
 *   - the residual agrees to 1e-12 (‖Rg − Rc‖₂ / ‖Rc‖₂), local time steps
 *     and the element mean ε (av_eps) to 1e-12 (max |diff| / max |cpu|),
 *   - 20 SSP-RK3 steps of the explicit marcher agree to 1e-10,
 *   - two GPU runs give identical bits (residual, time steps, ε, final state),
 *   - ε is positive in some elements and zero in others,
 *   - device outputs filled with NaN first are all written,
 * with both CUDA variants (PORTABLE: the one-thread-per-face / element AV
 * kernels; TUNED: the per-variable kernels of src/kernels/av_team.cuh, which
 * must be the ones running). The same on meshes curved only along one wall
 * whose affine elements take the lower rule of affine_rule = reduced
 * (viscous elements of both rules). Also: av_eps is zero with AV off, and a NULL
 * argument is an error. Prints the device time of one AV residual per case
 * and variant.
 * `test_av_gpu --bench` instead times residuals (inviscid, element ε,
 * continuous ε, both variants) on larger meshes; `test_av_gpu --small` runs two of the
 * cases (for compute-sanitizer). Exits 77 (skipped) without a CUDA
 * device. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_select.h"
#include "bench_cuda/backend_cuda_bench.h"
#include "dg/av_ops.h"
#include "dg/backend.h"
#include "dg/disc.h"
#include "dg/explicit.h"
#include "dg/residual_ops.h"
#include "kernels/backend_cuda.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "problems.h"
#include "test_util.h"

#define RK_STEPS 20
#define N_TIMED 20
static const double gamma_air = 1.4;

/* The first N_CASES are the test's meshes; the others are benchmark-only. */
typedef enum {
  CASE_MIXED_2D = 0,
  CASE_TET_3D = 1,
  N_CASES = 2,
  CASE_TRI_2D = 2,
  CASE_QUAD_2D = 3,
  N_KINDS = 4
} test_case;
static const char *case_name[N_KINDS] = {"2D mixed curved", "3D tets curved", "2D tris curved",
                                         "2D quads curved"};

/* A problem: mesh, topology, geometry, discretisation and initial state. */
/* A problem (tests/support/problems.h): mesh, topology and geometry by
 * the shared builders; the discretisation (the front's boundary conditions)
 * and U (the L2 projection of the front) by problem_build below; no
 * colouring. */

/* The front: left state (ρ = 1, p = 1/γ) and right state (ρ = 1.4,
 * p = 1.6/γ) joined by tanh((x − 0.3 y + 0.2 z − 0.7) / 0.15), velocity
 * (0.5, 0.1, 0) everywhere. */
static void front_state(int dim, const double *x, double *U) {
  const double z = dim == 3 ? x[2] : 0.0;
  const double h = 0.5 * (1.0 + tanh((x[0] - 0.3 * x[1] + 0.2 * z - 0.7) / 0.15));
  const double W[DG_MAX_NVAR] = {1.0 + 0.4 * h, 0.5, 0.1, dim == 3 ? 0.0 : (1.0 + 0.6 * h) / 1.4,
                                 (1.0 + 0.6 * h) / 1.4};
  physics_primitive_to_conservative(dim, gamma_air, W, U);
}

/* U = L2 projection of front_state on every element. */
static void project_front(problem *pb) {
  const dg_disc_view *d = &pb->disc.view;
  const dg_geometry *g = &pb->geom;
  for (int64_t e = 0; e < d->n_elems; ++e) {
    const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar;
    double b[DG_MAX_NVAR * DG_MAX_BASIS] = {0}, c[DG_MAX_NVAR * DG_MAX_BASIS];
    for (int64_t k = g->vol_offset[e]; k < g->vol_offset[e + 1]; ++k) {
      const int q = (int)(k - g->vol_offset[e]);
      const double *phi = d->vol_phi + d->vol_table[s] + (int64_t)q * nb;
      double Ue[DG_MAX_NVAR];
      front_state(d->dim, g->vol_x + 3 * k, Ue);
      for (int v = 0; v < nv; ++v)
        for (int m = 0; m < nb; ++m) b[v * nb + m] += g->vol_wdetJ[k] * phi[m] * Ue[v];
    }
    residual_apply_minv(d, e, b, c);
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nb; ++m) pb->U[disc_coef_index(d, e, v, m)] = c[v * nb + m];
  }
}

/* Offset of the sensor threshold s0 (disc_opts.av_s0_offset) of
 * problem_build: −1 for the tests; the benchmark lowers it to flag every
 * element. */
static double sensor_offset = -1.0;
/* 1: [artificial_viscosity] wall_flux = zero (disc_opts.av_wall_zero) */
static int wall_zero = 0;
/* 1: straight meshes curved only along y = lo (the wall: its nodes follow
 * a bump), so the elements away from it are affine, with the curved
 * elements' rule of degree 2p + 3 and the affine ones' of 2p + 1
 * ([discretization] affine_rule = reduced, disc_opts.affine_degree) */
static int affine_mix = 0;

/* Builds the problem. cells > 0: cells² (2D) or cells³ (3D, in [-5, 5]³)
 * cells instead of the test meshes (benchmark). */
static dg_status problem_build(test_case which, int p, int av, int cells, problem *pb) {
  memset(pb, 0, sizeof *pb);
  const int dim = which == CASE_TET_3D ? 3 : 2;
  dg_mesh_structured_opts mo = mesh_structured_defaults(dim);
  for (int d = 0; d < 3; ++d) {
    mo.lo[d] = -5.0;
    mo.hi[d] = 5.0;
  }
  mo.order = 2;
  mo.deform = affine_mix ? 0.0 : 0.04;
  if (which != CASE_TET_3D) {
    mo.kind = which == CASE_TRI_2D    ? MESH_STRUCTURED_TRI
              : which == CASE_QUAD_2D ? MESH_STRUCTURED_QUAD
                                      : MESH_STRUCTURED_MIXED;
    mo.n[0] = cells > 0 ? cells : 7;
    mo.n[1] = cells > 0 ? cells : 6;
    DG_CALL(problem_mesh_structured(&mo, &pb->mesh));
  } else {
    mo.kind = MESH_STRUCTURED_TET;
    mo.n[0] = mo.n[1] = cells > 0 ? cells : 3;
    mo.n[2] = cells > 0 ? cells : 2;
    mo.lo[2] = cells > 0 ? -5.0 : 0.0;
    mo.hi[2] = cells > 0 ? 5.0 : 4.0;
    DG_CALL(problem_mesh_structured(&mo, &pb->mesh));
  }
  if (affine_mix)
    for (int64_t k = 0; k < pb->mesh.n_nodes; ++k) {
      double *x = pb->mesh.x + 3 * k;
      if (fabs(x[1] - mo.lo[1]) < 1e-12)
        x[1] += 0.2 * sin(DG_PI * (x[0] - mo.lo[0]) / (mo.hi[0] - mo.lo[0]));
    }
  /* topology, then geometry */
  DG_CALL(
      problem_geometry(pb, affine_mix ? 2 * p + 3 : 2 * p + 1, affine_mix ? 2 * p + 2 : 2 * p + 1));

  dg_disc_opts o;
  memset(&o, 0, sizeof o);
  o.p = p;
  o.gamma = gamma_air;
  o.flux = DG_FACE_FLUX_ROE;
  o.exact_kind = 0; /* EXACT boundaries hold the freestream */
  o.av = av;
  /* the energy sensor for element ε, the density sensor for continuous ε */
  o.av_sensor_var = av == DG_AV_ELEMENT ? dim + 1 : 0;
  o.av_s0_offset = sensor_offset;
  o.av_kappa = 1.0;
  o.av_c = 0.5;
  o.av_wall_zero = wall_zero;
  o.br2_eta = 0.0;
  o.affine_degree = affine_mix ? 2 * p + 1 : 0;
  const double x_left[3] = {-5.0, 0.0, 0.0};
  front_state(dim, x_left, o.freestream);
  const double speed = sqrt(0.5 * 0.5 + 0.1 * 0.1);
  /* groups in mesh_structured order: xmin xmax ymin ymax (zmin zmax) */
  const int32_t bc2[4] = {PHYSICS_BC_FARFIELD, PHYSICS_BC_OUTFLOW_SUBSONIC, PHYSICS_BC_WALL,
                          PHYSICS_BC_EXACT};
  const int32_t bc3[6] = {
      PHYSICS_BC_INFLOW_SUBSONIC, PHYSICS_BC_OUTFLOW_SUBSONIC, PHYSICS_BC_WALL,
      PHYSICS_BC_FARFIELD,        PHYSICS_BC_SYMMETRY,         PHYSICS_BC_EXACT};
  physics_bc_data data[6];
  memset(data, 0, sizeof data);
  for (int g = 0; g < 6; ++g) {
    for (int v = 0; v < DG_MAX_NVAR; ++v) data[g].state[v] = o.freestream[v];
    data[g].total_pressure = physics_total_pressure(dim, gamma_air, o.freestream);
    data[g].total_temperature = physics_total_temperature(dim, gamma_air, o.freestream);
    data[g].direction[0] = 0.5 / speed;
    data[g].direction[1] = 0.1 / speed;
    data[g].static_pressure = 1.6 / gamma_air; /* the right state's pressure */
  }
  o.n_groups = pb->mesh.n_groups;
  o.group_bc = dim == 3 ? bc3 : bc2;
  o.group_data = data;
  DG_CHECK(o.n_groups == 2 * dim, DG_ERR_INTERNAL, "test mesh has %d groups", o.n_groups);
  DG_CALL(disc_build(&pb->mesh, &pb->topo, &pb->geom, &o, &pb->disc));
  DG_CHECK(pb->disc.view.av == av, DG_ERR_INTERNAL, "disc_build gave av %d, asked for %d",
           pb->disc.view.av, av);
  if (affine_mix) { /* both kinds, and two rules */
    const dg_disc_view *d = &pb->disc.view;
    int64_t n_affine = 0;
    for (int64_t e = 0; e < d->n_elems; ++e) n_affine += d->elem_affine[e];
    const int s = dim == 3 ? DG_TET : DG_TRI;
    DG_CHECK(n_affine > 0 && n_affine < d->n_elems && d->nq_affine[s] < d->nq[s], DG_ERR_INTERNAL,
             "affine_mix: %lld of %lld elements affine, %d and %d volume points",
             (long long)n_affine, (long long)d->n_elems, d->nq_affine[s], d->nq[s]);
  }
  DG_CALL(DG_CALLOC(pb->U, pb->disc.view.n_coefs));
  project_front(pb);
  return DG_SUCCESS;
}

/* What one backend computed on a problem. */
typedef struct {
  double *R0;       /* [n_coefs] residual of the initial state */
  double *dt_local; /* [n_elems] local time steps */
  double *eps;      /* [n_elems] element mean ε (av_eps) */
  double dt_min, dt_global_first;
  double *U_final; /* [n_coefs] after RK_STEPS SSP-RK3 steps */
  double *eps_final;
  int unwritten_R, unwritten_dt, unwritten_eps; /* entries still NaN after the first kernels */
  int av_team;                                  /* backend_cuda_av_team_active (CUDA only) */
} run_result;

static void result_free(run_result *r) {
  free(r->R0);
  free(r->dt_local);
  free(r->eps);
  free(r->U_final);
  free(r->eps_final);
  memset(r, 0, sizeof *r);
}

static int count_nan(const double *x, int64_t n) {
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += isnan(x[i]) ? 1 : 0;
  return bad;
}

/* Runs residual, timestep, av_eps and the RK3 marcher with backend be on pb.
 * variant, av_block: the CUDA kernels and threads per block of the AV kernels
 * (backend_cuda_set_av_block) when be is the CUDA backend, else ignored. */
static dg_status run_backend(const dg_backend *be, int variant, int av_block, const problem *pb,
                             run_result *r) {
  const dg_disc_view *d = &pb->disc.view;
  const int64_t nc = d->n_coefs, ne = d->n_elems;
  memset(r, 0, sizeof *r);
  DG_CALL(DG_CALLOC(r->R0, nc));
  DG_CALL(DG_CALLOC(r->dt_local, ne));
  DG_CALL(DG_CALLOC(r->eps, ne));
  DG_CALL(DG_CALLOC(r->U_final, nc));
  DG_CALL(DG_CALLOC(r->eps_final, ne));
  double *poison = NULL;
  DG_CALL(DG_CALLOC(poison, nc > ne ? nc : ne));
  for (int64_t i = 0; i < (nc > ne ? nc : ne); ++i) poison[i] = NAN;

  dg_backend_ctx *ctx = NULL;
  dg_vec U = {0}, R = {0}, dt = {0}, eps = {0};
  explicit_rk3 rk;
  memset(&rk, 0, sizeof rk);
  dg_status st = DG_SUCCESS;
  DG_CALL_GOTO(st, done, dg_backend_create(be, &pb->disc, &ctx));
  if (be == backend_cuda()) {
    DG_CALL_GOTO(st, done, backend_cuda_set_variant(ctx, (backend_cuda_variant)variant));
    DG_CALL_GOTO(st, done, backend_cuda_set_av_block(ctx, av_block));
    r->av_team = backend_cuda_av_team_active(ctx);
  }
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_STATE, &U));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_STATE, &R));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_ELEM, &dt));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_ELEM, &eps));
  DG_CALL_GOTO(st, done, dg_vec_upload(pb->U, &U));

  /* poisoned outputs: every entry must be written */
  DG_CALL_GOTO(st, done, dg_vec_upload(poison, &R));
  DG_CALL_GOTO(st, done, dg_vec_upload(poison, &dt));
  DG_CALL_GOTO(st, done, dg_vec_upload(poison, &eps));
  DG_CALL_GOTO(st, done, dg_backend_residual(be, ctx, &U, 0.25, &R));
  DG_CALL_GOTO(st, done, dg_vec_download(&R, r->R0));
  r->unwritten_R = count_nan(r->R0, nc);
  DG_CALL_GOTO(st, done, dg_backend_timestep(be, ctx, &U, 0.3, 0, &dt, &r->dt_min));
  DG_CALL_GOTO(st, done, dg_vec_download(&dt, r->dt_local));
  r->unwritten_dt = count_nan(r->dt_local, ne);
  DG_CALL_GOTO(st, done, dg_backend_av_eps(be, ctx, &U, &eps));
  DG_CALL_GOTO(st, done, dg_vec_download(&eps, r->eps));
  r->unwritten_eps = count_nan(r->eps, ne);

  /* SSP-RK3 with a global CFL step, through the explicit marcher */
  DG_CALL_GOTO(st, done, explicit_rk3_create(be, ctx, &pb->disc, &rk));
  double t = 0.0;
  for (int step = 0; step < RK_STEPS; ++step) {
    const explicit_rk3_opts opts = {0.3, 0, 0.0, 0, 0};
    explicit_rk3_info info;
    DG_CALL_GOTO(st, done, explicit_rk3_step(&rk, &U, t, &opts, &info));
    if (step == 0) r->dt_global_first = info.dt;
    t += info.dt;
  }
  DG_CALL_GOTO(st, done, dg_vec_download(&U, r->U_final));
  DG_CALL_GOTO(st, done, dg_backend_av_eps(be, ctx, &U, &eps));
  DG_CALL_GOTO(st, done, dg_vec_download(&eps, r->eps_final));
done:
  explicit_rk3_destroy(&rk);
  if (ctx) {
    dg_vec_destroy(&U);
    dg_vec_destroy(&R);
    dg_vec_destroy(&dt);
    dg_vec_destroy(&eps);
    dg_backend_destroy(be, ctx);
  }
  free(poison);
  return st;
}

/* ‖a − b‖₂ / ‖b‖₂ (NaN-propagating) */
static double relative_l2(const double *a, const double *b, int64_t n) {
  double diff = 0.0, scale = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    scale += b[i] * b[i];
  }
  return scale > 0.0 ? sqrt(diff / scale) : sqrt(diff);
}

/* max |a − b| / max |b| (NaN-propagating) */
static double relative_max(const double *a, const double *b, int64_t n) {
  double diff = 0.0, scale = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double dd = fabs(a[i] - b[i]);
    diff = dd > diff || isnan(dd) ? dd : diff;
    scale = fabs(b[i]) > scale ? fabs(b[i]) : scale;
  }
  return scale > 0.0 ? diff / scale : diff;
}

static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median device times (ms) over N_TIMED residuals of pb's discretisation on
 * the CUDA backend (variant, av_block threads per portable AV block): ms[0]
 * the whole residual, ms[1] the ε, gradient and face passes, ms[2] the
 * element pass. */
static dg_status time_residual(const problem *pb, int variant, int av_block, double ms[3]) {
  const dg_backend *be = backend_cuda();
  dg_backend_ctx *ctx = NULL;
  dg_vec U = {0}, R = {0};
  double face_ms[N_TIMED], element_ms[N_TIMED], total[N_TIMED];
  dg_status st = DG_SUCCESS;
  DG_CALL_GOTO(st, done, dg_backend_create(be, &pb->disc, &ctx));
  DG_CALL_GOTO(st, done, backend_cuda_set_variant(ctx, (backend_cuda_variant)variant));
  DG_CALL_GOTO(st, done, backend_cuda_set_av_block(ctx, av_block));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_STATE, &U));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_STATE, &R));
  DG_CALL_GOTO(st, done, dg_vec_upload(pb->U, &U));
  DG_CALL_GOTO(
      st, done,
      backend_cuda_time_residual(ctx, U.data, 0.0, R.data, 3, N_TIMED, face_ms, element_ms));
  for (int i = 0; i < N_TIMED; ++i) total[i] = face_ms[i] + element_ms[i];
  qsort(total, N_TIMED, sizeof total[0], compare_doubles);
  qsort(face_ms, N_TIMED, sizeof face_ms[0], compare_doubles);
  qsort(element_ms, N_TIMED, sizeof element_ms[0], compare_doubles);
  ms[0] = total[N_TIMED / 2];
  ms[1] = face_ms[N_TIMED / 2];
  ms[2] = element_ms[N_TIMED / 2];
done:
  if (ctx) {
    dg_vec_destroy(&U);
    dg_vec_destroy(&R);
    dg_backend_destroy(be, ctx);
  }
  return st;
}

static void check_case(test_case which, int p, int av) {
  char what[128];
  const char *av_name = affine_mix            ? (av == DG_AV_ELEMENT ? "element aff" : "contin aff")
                        : av == DG_AV_ELEMENT ? (wall_zero ? "element wall0" : "element")
                                              : (wall_zero ? "contin wall0" : "continuous");
  problem pb;
  const dg_status built = problem_build(which, p, av, 0, &pb);
  TEST_OK(built);
  if (built != DG_SUCCESS) {
    problem_free(&pb);
    return;
  }
  const dg_disc_view *d = &pb.disc.view;
  const int64_t nc = d->n_coefs, ne = d->n_elems;
  run_result cpu, gpu, gpu2;
  TEST_OK(run_backend(backend_cpu(), 0, 0, &pb, &cpu));
  snprintf(what, sizeof what, "%s p=%d %s eps", case_name[which], p, av_name);
  TEST_CHECK(cpu.unwritten_R == 0 && cpu.unwritten_dt == 0 && cpu.unwritten_eps == 0,
             "%s: CPU left outputs unwritten", what);
  /* the test can fail: the sensor fires in some elements, not all */
  int n_pos = 0, n_zero = 0;
  double eps_max = 0.0;
  for (int64_t e = 0; e < ne; ++e) {
    n_pos += cpu.eps[e] > 0.0;
    n_zero += cpu.eps[e] == 0.0;
    eps_max = fmax(eps_max, cpu.eps[e]);
  }
  TEST_CHECK(n_pos > 0 && n_zero > 0,
             "%s: eps > 0 in %d and = 0 in %d of %lld elements (want some of each)", what, n_pos,
             n_zero, (long long)ne);
  if (affine_mix) { /* viscous elements of both rules */
    int pos_affine = 0, pos_curved = 0;
    for (int64_t e = 0; e < ne; ++e)
      if (cpu.eps[e] > 0.0) d->elem_affine[e] ? ++pos_affine : ++pos_curved;
    TEST_CHECK(pos_affine > 0 && pos_curved > 0, "%s: eps > 0 in %d affine and %d curved elements",
               what, pos_affine, pos_curved);
  }

  for (int variant = BACKEND_CUDA_PORTABLE; variant <= BACKEND_CUDA_TUNED; ++variant) {
    snprintf(what, sizeof what, "%s p=%d %s eps %s", case_name[which], p, av_name,
             variant == BACKEND_CUDA_TUNED ? "tuned" : "portable");
    /* the second run uses another launch shape of the AV kernels that take
     * one (backend_cuda_set_av_block), which must not change a bit either */
    TEST_OK(run_backend(backend_cuda(), variant, 0, &pb, &gpu));
    TEST_OK(run_backend(backend_cuda(), variant, 128, &pb, &gpu2));
    if (!gpu.R0 || !gpu2.R0 || !cpu.R0) { /* allocation failed: already reported */
      result_free(&gpu);
      result_free(&gpu2);
      continue;
    }
    /* the tuned variant must run the tuned AV kernels on these meshes */
    TEST_CHECK(gpu.av_team == (variant == BACKEND_CUDA_TUNED),
               "%s: tuned AV kernels active = %d, want %d", what, gpu.av_team,
               variant == BACKEND_CUDA_TUNED);
    TEST_CHECK(gpu.unwritten_R == 0, "%s: %d residual entries not written", what, gpu.unwritten_R);
    TEST_CHECK(gpu.unwritten_dt == 0, "%s: %d time steps not written", what, gpu.unwritten_dt);
    TEST_CHECK(gpu.unwritten_eps == 0, "%s: %d eps entries not written", what, gpu.unwritten_eps);

    const double rel_R = relative_l2(gpu.R0, cpu.R0, nc);
    TEST_CHECK(rel_R <= 1e-12, "%s: residual GPU vs CPU relative difference %.3g > 1e-12", what,
               rel_R);
    const double rel_dt = relative_max(gpu.dt_local, cpu.dt_local, ne);
    TEST_CHECK(rel_dt <= 1e-12, "%s: local time steps differ by %.3g", what, rel_dt);
    TEST_CLOSE(gpu.dt_min, cpu.dt_min, 1e-12 * cpu.dt_min, "dt_min");
    TEST_CLOSE(gpu.dt_global_first, cpu.dt_min, 1e-12 * cpu.dt_min, "global dt");
    const double rel_eps = relative_max(gpu.eps, cpu.eps, ne);
    TEST_CHECK(rel_eps <= 1e-12, "%s: element mean eps differs by %.3g", what, rel_eps);
    const double rel_U = relative_l2(gpu.U_final, cpu.U_final, nc);
    TEST_CHECK(rel_U <= 1e-10, "%s: state after %d RK3 steps, GPU vs CPU relative difference %.3g",
               what, RK_STEPS, rel_U);
    const double rel_eps_final = relative_max(gpu.eps_final, cpu.eps_final, ne);
    TEST_CHECK(rel_eps_final <= 1e-10, "%s: eps after %d RK3 steps differs by %.3g", what, RK_STEPS,
               rel_eps_final);
    TEST_CHECK(memcmp(gpu.R0, gpu2.R0, (size_t)nc * sizeof(double)) == 0 &&
                   memcmp(gpu.dt_local, gpu2.dt_local, (size_t)ne * sizeof(double)) == 0 &&
                   memcmp(gpu.eps, gpu2.eps, (size_t)ne * sizeof(double)) == 0 &&
                   memcmp(gpu.U_final, gpu2.U_final, (size_t)nc * sizeof(double)) == 0,
               "%s: two GPU runs differ in bits", what);
    printf("%-16s p=%d %-10s %-8s elems %4lld  eps>0 %3d =0 %3d max %.3e  |R|rel %.2e  dt %.2e  "
           "eps %.2e  U(RK%d)rel %.2e\n",
           case_name[which], p, av_name, variant == BACKEND_CUDA_TUNED ? "tuned" : "portable",
           (long long)ne, n_pos, n_zero, eps_max, rel_R, rel_dt, rel_eps, RK_STEPS, rel_U);
    result_free(&gpu);
    result_free(&gpu2);
  }
  for (int variant = BACKEND_CUDA_PORTABLE; variant <= BACKEND_CUDA_TUNED; ++variant) {
    double ms[3] = {0.0, 0.0, 0.0};
    TEST_OK(time_residual(&pb, variant, 0, ms));
    printf("%-16s p=%d %-10s %-8s AV residual on the GPU: %.4f ms (eps+gradient+faces %.4f, "
           "elements %.4f; medians of %d)\n",
           case_name[which], p, av_name, variant == BACKEND_CUDA_TUNED ? "tuned" : "portable",
           ms[0], ms[1], ms[2], N_TIMED);
  }
  result_free(&cpu);
  problem_free(&pb);
}

/* With AV off, av_eps writes zeros on both backends; NULL arguments fail. */
static void check_av_off(void) {
  problem pb;
  const dg_status built = problem_build(CASE_MIXED_2D, 2, DG_AV_OFF, 0, &pb);
  TEST_OK(built);
  if (built != DG_SUCCESS) {
    problem_free(&pb);
    return;
  }
  const int64_t ne = pb.disc.view.n_elems;
  double *h_eps = NULL;
  TEST_OK(DG_CALLOC(h_eps, ne));
  const dg_backend *backends[2] = {backend_cpu(), backend_cuda()};
  for (int b = 0; b < 2 && h_eps; ++b) {
    const dg_backend *be = backends[b];
    dg_backend_ctx *ctx = NULL;
    dg_vec U = {0}, eps = {0};
    TEST_OK(dg_backend_create(be, &pb.disc, &ctx));
    if (!ctx) continue;
    TEST_OK(dg_vec_create(be, ctx, DG_VEC_STATE, &U));
    TEST_OK(dg_vec_create(be, ctx, DG_VEC_ELEM, &eps));
    if (U.data && eps.data) {
      for (int64_t e = 0; e < ne; ++e) h_eps[e] = NAN;
      TEST_OK(dg_vec_upload(pb.U, &U));
      TEST_OK(dg_vec_upload(h_eps, &eps));
      TEST_OK(dg_backend_av_eps(be, ctx, &U, &eps));
      TEST_OK(dg_vec_download(&eps, h_eps));
      int nonzero = 0;
      for (int64_t e = 0; e < ne; ++e) nonzero += h_eps[e] != 0.0;
      TEST_CHECK(nonzero == 0, "%s backend, AV off: av_eps left %d of %lld entries nonzero",
                 be->name, nonzero, (long long)ne);
      if (be == backend_cuda())
        TEST_FAILS(dg_backend_av_eps(be, ctx, NULL, &eps), DG_ERR_ARG, "av_eps");
    }
    dg_vec_destroy(&U);
    dg_vec_destroy(&eps);
    dg_backend_destroy(be, ctx);
  }
  free(h_eps);
  problem_free(&pb);
}

/* Elements of pb with ε ≢ 0 (the ones the viscous passes work on),
 * computed on the host with the DG_HD functions. */
static int64_t count_viscous(const problem *pb) {
  const dg_disc_view *d = &pb->disc.view;
  if (d->av == DG_AV_OFF) return 0;
  double *eps_elem = NULL, *eps_vert = NULL, *eps_c = NULL;
  int64_t n = -1;
  if (DG_CALLOC(eps_elem, d->n_elems) == DG_SUCCESS &&
      DG_CALLOC(eps_vert, d->n_verts + 1) == DG_SUCCESS &&
      DG_CALLOC(eps_c, d->n_elems * DG_AV_NLIN) == DG_SUCCESS) {
    for (int64_t e = 0; e < d->n_elems; ++e) eps_elem[e] = av_element_eps(d, NULL, e, pb->U);
    if (d->av == DG_AV_CONTINUOUS)
      for (int64_t v = 0; v < d->n_verts; ++v) eps_vert[v] = av_vertex_eps(d, v, eps_elem);
    n = 0;
    for (int64_t e = 0; e < d->n_elems; ++e) {
      av_element_coefs(d, e, eps_elem, eps_vert, eps_c);
      n += !av_element_inviscid(d, e, eps_c);
    }
  }
  free(eps_elem);
  free(eps_vert);
  free(eps_c);
  return n;
}

/* Device time of the residual (benchmark, not a test): on curved 2D meshes
 * of n² cells (mixed, triangles, quads) and curved tet meshes of n³ cells
 * (the test mesh first), p = 1..3: inviscid (tuned kernels), then element
 * and continuous ε with the portable AV kernels (automatic launch shape)
 * and with the tuned ones; the ratio is AV tuned / inviscid tuned, and
 * "viscous" counts the elements with ε ≢ 0 (the front is resolved on the
 * finer 2D meshes: none there). Last, the largest 2D mixed and tet meshes
 * with the sensor threshold lowered so that every element is viscous (the
 * worst case of the tuned kernels). */
static void bench(void) {
  const test_case which[8] = {CASE_MIXED_2D, CASE_MIXED_2D, CASE_TRI_2D,   CASE_QUAD_2D,
                              CASE_TET_3D,   CASE_TET_3D,   CASE_MIXED_2D, CASE_TET_3D};
  const int cells[8] = {32, 96, 96, 96, 0, 8, 96, 8};
  const int modes[3] = {DG_AV_OFF, DG_AV_ELEMENT, DG_AV_CONTINUOUS};
  const char *mode_name[3] = {"inviscid", "AV element", "AV continuous"};
  char name[160];
  double gbs = 0.0, gflops = 0.0;
  TEST_OK(backend_cuda_device_info(name, (int)sizeof name, &gbs, &gflops));
  printf("device: %s\n", name);
  for (int i = 0; i < 8; ++i) {
    const int all_viscous = i >= 6;
    sensor_offset = all_viscous ? -30.0 : -1.0;
    for (int p = 1; p <= 3; ++p) {
      double inviscid_ms = 0.0;
      for (int k = 0; k < 3; ++k) {
        problem pb;
        const dg_status built = problem_build(which[i], p, modes[k], cells[i], &pb);
        TEST_OK(built);
        const int64_t n_viscous = built == DG_SUCCESS ? count_viscous(&pb) : 0;
        for (int variant = k == 0 ? BACKEND_CUDA_TUNED : BACKEND_CUDA_PORTABLE;
             variant <= BACKEND_CUDA_TUNED && built == DG_SUCCESS; ++variant) {
          double ms[3] = {0.0, 0.0, 0.0};
          TEST_OK(time_residual(&pb, variant, 0, ms));
          if (k == 0) inviscid_ms = ms[0];
          printf("bench %-15s cells %2d p=%d elems %6lld viscous %6lld %-13s %-8s residual "
                 "%8.4f ms (eps+grad+faces %8.4f, elements %8.4f) %7.2f ns/unknown  x%.2f "
                 "inviscid\n",
                 case_name[which[i]], cells[i], p, (long long)pb.disc.view.n_elems,
                 (long long)n_viscous, mode_name[k],
                 variant == BACKEND_CUDA_TUNED ? "tuned" : "portable", ms[0], ms[1], ms[2],
                 ms[0] * 1e6 / (double)pb.disc.view.n_coefs,
                 inviscid_ms > 0.0 ? ms[0] / inviscid_ms : 0.0);
        }
        problem_free(&pb);
      }
    }
  }
  sensor_offset = -1.0;
}

int main(int argc, char **argv) {
  if (!backend_cuda_available()) {
    printf("test_av_gpu: no CUDA backend or device, skipped\n");
    return TEST_SKIP;
  }
  if (argc > 1 && strcmp(argv[1], "--bench") == 0) {
    bench();
    return test_finish("test_av_gpu --bench");
  }
  if (argc > 1 && strcmp(argv[1], "--small") == 0) { /* for compute-sanitizer */
    check_case(CASE_MIXED_2D, 2, DG_AV_CONTINUOUS);
    check_case(CASE_TET_3D, 1, DG_AV_ELEMENT);
    return test_finish("test_av_gpu --small");
  }
  for (int which = 0; which < N_CASES; ++which)
    for (int p = 1; p <= 3; ++p) {
      check_case((test_case)which, p, DG_AV_ELEMENT);
      check_case((test_case)which, p, DG_AV_CONTINUOUS);
    }
  /* no viscous flux through slip walls and symmetry planes (wall_flux =
   * zero): the CPU residual must differ from the ghost treatment's (so that
   * the comparison tests the option) and the GPU must follow it */
  for (int which = 0; which < N_CASES; ++which)
    for (int av = DG_AV_ELEMENT; av <= DG_AV_CONTINUOUS; ++av) {
      problem ghost, zero;
      wall_zero = 0;
      const dg_status b0 = problem_build((test_case)which, 2, av, 0, &ghost);
      wall_zero = 1;
      const dg_status b1 = problem_build((test_case)which, 2, av, 0, &zero);
      TEST_OK(b0);
      TEST_OK(b1);
      if (b0 == DG_SUCCESS && b1 == DG_SUCCESS) {
        run_result r0, r1;
        TEST_OK(run_backend(backend_cpu(), 0, 0, &ghost, &r0));
        TEST_OK(run_backend(backend_cpu(), 0, 0, &zero, &r1));
        if (r0.R0 && r1.R0)
          TEST_CHECK(relative_l2(r1.R0, r0.R0, zero.disc.view.n_coefs) > 1e-8,
                     "%s p=2 av %d: wall_flux = zero does not change the CPU residual",
                     case_name[which], av);
        result_free(&r0);
        result_free(&r1);
      }
      problem_free(&ghost);
      problem_free(&zero);
      check_case((test_case)which, 2, av);
      wall_zero = 0;
    }
  /* the affine elements' lower rule (affine_rule = reduced): the tuned AV
   * kernels take each element's rule */
  affine_mix = 1;
  for (int which = 0; which < N_CASES; ++which)
    for (int p = 1; p <= 3; p += 2) check_case((test_case)which, p, DG_AV_ELEMENT);
  check_case(CASE_TET_3D, 2, DG_AV_CONTINUOUS);
  affine_mix = 0;
  check_av_off();
  return test_finish("test_av_gpu");
}
