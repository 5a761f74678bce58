/* The CUDA backend against the CPU backend (src/dg/backend.h), one source
 * for both, with each of the two CUDA kernel variants (portable DG_HD
 * kernels and the tuned team kernels, backend_cuda_set_variant): for p = 0..3 on
 *   - a 2D mixed (quad + triangle) mesh of order 2, deformed (curved), with
 *     far-field (with the point-vortex correction, circulation 0.3, which
 *     the tuned kernels read from the device copy of the view), subsonic
 *     outflow, slip-wall and exact boundaries,
 *   - a 3D tetrahedral mesh of order 2, deformed, with subsonic inflow and
 *     outflow, wall, far-field, symmetry and exact boundaries,
 *   - a periodic 2D triangle mesh carrying the isentropic vortex,
 * one residual agrees to 1e-12 relative (max |Rg - Rc| / max |Rc|), local and
 * global time steps, norms and wall forces agree, 100 SSP-RK3 steps of the
 * explicit marcher (src/dg/explicit.h) agree to 1e-10, and two GPU runs give bitwise-identical
 * norms. Device outputs are filled with NaN before the first kernel and checked written. The
 * RK3 stages run as one CUDA graph (backend_cuda_rk3_stages) give the same bits as
 * explicit_rk3_step. The tuned element kernel gives the same bits (residual
 * and the state after the RK3 steps, whose stages it fuses) whatever
 * volume points per chunk it holds (backend_cuda_set_team_chunk: the
 * default, every point, the fewest), and the tuned face kernel gives the same
 * bits when it gathers each face's coefficients once into shared memory
 * (backend_cuda_set_face_gather, on the single-shape meshes, directly and
 * through the RK3 graph), and so does the element kernel with 2 or 4 modes
 * per thread in its phase 2 (backend_cuda_set_team_modes; and in the fused
 * RK stage alone, backend_cuda_set_team_modes_rk), and with its
 * face fluxes in their own shared memory or over its volume chunk's
 * (backend_cuda_set_team_face_share: 0 and 1), and with fewer elements
 * per block (backend_cuda_set_team_elems: the most that fit, at most 5),
 * and with the face pass's trace path on and off (backend_cuda_set_face_trace,
 * directly and through the RK3 graph), and with the element kernel of one
 * thread per element set on, off and left to the backend
 * (backend_cuda_set_elem_thread, directly and through the RK3 graph);
 * the tuned
 * time-step terms give the portable kernel's local steps bit for bit. Exits 77 (skipped) when no
 * CUDA device is present. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_select.h"
#include "bench_cuda/backend_cuda_bench.h"
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

#define RK_STEPS 100
#define CIRCULATION 0.3 /* of the far-field vortex of the 2D mixed case */
static const double gamma_air = 1.4;

typedef enum { CASE_MIXED_2D = 0, CASE_TET_3D = 1, CASE_VORTEX_2D = 2, N_CASES = 3 } test_case;
static const char *case_name[N_CASES] = {"2D mixed curved", "3D tets curved", "2D periodic vortex"};

/* A problem (tests/support/problems.h): mesh, topology and geometry by
 * the shared builders; the discretisation (the boundary conditions of each
 * case) and U (the L2 projection of the vortex) by problem_build below; no
 * colouring. */

/* U = L2 projection of the exact state (the vortex at t = 0) on every element. */
static void project_initial_state(problem *pb) {
  const dg_disc_view *d = &pb->disc.view;
  const dg_geometry *g = &pb->geom;
  for (int64_t e = 0; e < d->n_elems; ++e) {
    const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar;
    double b[DG_MAX_NVAR * DG_MAX_BASIS] = {0}, c[DG_MAX_NVAR * DG_MAX_BASIS];
    for (int64_t k = g->vol_offset[e]; k < g->vol_offset[e + 1]; ++k) {
      const int q = (int)(k - g->vol_offset[e]);
      const double *phi = d->vol_phi + d->vol_table[s] + (int64_t)q * nb;
      double Ue[DG_MAX_NVAR];
      physics_vortex_state(d->dim, d->gamma, &d->vortex, g->vol_x + 3 * k, 0.0, Ue);
      for (int v = 0; v < nv; ++v)
        for (int m = 0; m < nb; ++m) b[v * nb + m] += g->vol_wdetJ[k] * phi[m] * Ue[v];
    }
    residual_apply_minv(d, e, b, c);
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nb; ++m) pb->U[disc_coef_index(d, e, v, m)] = c[v * nb + m];
  }
}

static dg_status problem_build(test_case which, int p, problem *pb) {
  memset(pb, 0, sizeof *pb);
  const int dim = which == CASE_TET_3D ? 3 : 2;
  dg_mesh_structured_opts mo = mesh_structured_defaults(dim);
  for (int d = 0; d < 3; ++d) {
    mo.lo[d] = -5.0;
    mo.hi[d] = 5.0;
  }
  if (which == CASE_MIXED_2D) {
    mo.kind = MESH_STRUCTURED_MIXED;
    mo.order = 2;
    mo.n[0] = 7;
    mo.n[1] = 6;
    mo.deform = 0.04;
    DG_CALL(problem_mesh_structured(&mo, &pb->mesh));
  } else if (which == CASE_TET_3D) {
    mo.kind = MESH_STRUCTURED_TET;
    mo.order = 2;
    mo.n[0] = mo.n[1] = 3;
    mo.n[2] = 2;
    mo.lo[2] = 0.0;
    mo.hi[2] = 4.0;
    mo.deform = 0.04;
    DG_CALL(problem_mesh_structured(&mo, &pb->mesh));
  } else {
    mo.kind = MESH_STRUCTURED_TRI;
    mo.n[0] = mo.n[1] = 8;
    mo.periodic[0] = mo.periodic[1] = 1;
    mo.alternate_diagonals = 1;
    mo.deform = 0.03;
    DG_CALL(problem_mesh_structured(&mo, &pb->mesh));
  }
  DG_CALL(problem_geometry(pb, 2 * p + 1, 2 * p + 1)); /* topology, then geometry */

  dg_disc_opts o;
  memset(&o, 0, sizeof o);
  o.p = p;
  o.gamma = gamma_air;
  o.flux = DG_FACE_FLUX_ROE;
  o.exact_kind = 1;
  o.vortex = (physics_vortex){{0.5, 0.1}, {0.3, -0.2}, 2.0, {0.0, 0.0}, 0};
  if (which == CASE_VORTEX_2D) {
    o.vortex.period[0] = o.vortex.period[1] = 10.0;
    o.vortex.images = 1;
  }
  /* the vortex's far field: rho = 1, u = its velocity, p = 1/gamma */
  const double W_inf[DG_MAX_NVAR] = {1.0, 0.5, 0.1, dim == 3 ? 0.0 : 1.0 / gamma_air,
                                     1.0 / gamma_air};
  physics_primitive_to_conservative(dim, gamma_air, W_inf, o.freestream);
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
    data[g].static_pressure = 0.98 / gamma_air;
  }
  if (which == CASE_MIXED_2D) { /* far field with the lift's point vortex (set_circulation) */
    data[0].vortex_correction = 1;
    o.farfield_center[0] = 0.3;
    o.farfield_center[1] = -0.2;
  }
  o.n_groups = pb->mesh.n_groups;
  o.group_bc = dim == 3 ? bc3 : bc2;
  o.group_data = data;
  DG_CHECK(o.n_groups == (which == CASE_VORTEX_2D ? 0 : 2 * dim), DG_ERR_INTERNAL,
           "test mesh has %d groups", o.n_groups);
  DG_CALL(disc_build(&pb->mesh, &pb->topo, &pb->geom, &o, &pb->disc));
  DG_CALL(DG_CALLOC(pb->U, pb->disc.view.n_coefs));
  project_initial_state(pb);
  return DG_SUCCESS;
}

/* What one backend computed on a problem. */
typedef struct {
  double *R0;       /* [n_coefs] residual of the initial state */
  double *dt_local; /* [n_elems] local time steps */
  double dt_min, dt_global_first;
  double norms0[DG_MAX_NVAR];
  int finite0, finite_poison;
  double force[6];
  double *U_final; /* [n_coefs] after RK_STEPS SSP-RK3 steps */
  double norms_final[DG_MAX_NVAR];
  int finite_final;
  int unwritten_R, unwritten_dt; /* entries still NaN after the first kernels */
} run_result;

static void result_free(run_result *r) {
  free(r->R0);
  free(r->dt_local);
  free(r->U_final);
  memset(r, 0, sizeof *r);
}

static int64_t count_nan(const double *x, int64_t n) {
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += isnan(x[i]) ? 1 : 0;
  return bad;
}

/* Volume points per chunk of the tuned element kernel in run_backend (0:
 * the default; backend_cuda_set_team_chunk). */
static int team_chunk = 0;
/* Modes per thread of the tuned element kernel's phase 2 in run_backend
 * (0: the default; backend_cuda_set_team_modes); team_modes_used: what the
 * last run_backend's element kernel used (backend_cuda_team_modes). */
static int team_modes = 0, team_modes_used = 0;
/* The same for the fused RK stage's element kernel alone
 * (backend_cuda_set_team_modes_rk; 0: the default); team_modes_rk_used:
 * what the last run_backend's used (backend_cuda_team_modes_rk). */
static int team_modes_rk = 0, team_modes_rk_used = 0;
/* The gathering face kernel in run_backend and run_rk3
 * (backend_cuda_set_face_gather); face_gather_active: whether the last
 * run_backend's residual ran it. */
static int face_gather = 0, face_gather_active = 0;
/* The trace path of the face pass in run_backend and run_rk3
 * (backend_cuda_set_face_trace; -1: the default); face_trace_active:
 * whether the last run_backend's residual ran it. */
static int face_trace = -1, face_trace_active = 0;
/* The element kernel's face fluxes over its volume chunk in run_backend
 * (backend_cuda_set_team_face_share; -1: the default); face_share_used:
 * whether the last run_backend's element kernels all shared. */
static int face_share = -1, face_share_used = 0;
/* Elements per block of the tuned element kernel in run_backend
 * (backend_cuda_set_team_elems; 0: the default); team_elems_used: the
 * largest the last run_backend's element kernels used. */
static int team_elems = 0, team_elems_used = 0;

/* The element kernel with one thread per element in run_backend and
 * run_rk3 (backend_cuda_set_elem_thread; -1: the default);
 * elem_thread_used: bit 0 (1) when the last run_backend's residual or fused
 * RK stage ran its registers form for some shape, bit 1 (2) its shared
 * form. */
static int elem_thread = -1, elem_thread_used = 0;

/* Whether some shape of d has the thread element kernel with its
 * coefficients in shared memory (ush = 1: nb = 10 and 16 in 2D, 10 in 3D)
 * or in registers (0: nb <= 10 in 2D, nb <= 4 in 3D; THREAD_ELEM_SHAPES
 * and THREAD_ELEM_SHARED_SHAPES of the backend). */
static int thread_expected(const dg_disc_view *d, int ush) {
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int nb = d->nb[s];
    if (d->n_shape[s] == 0) continue;
    if (ush ? (d->dim == 2 ? nb == 10 || nb == 16 : nb == 10) : (d->dim == 2 ? nb <= 10 : nb <= 4))
      return 1;
  }
  return 0;
}

/* The modes per thread the element kernels take when `asked` are asked
 * (backend_cuda_set_team_modes): 2 for even nb >= 4, 3 for nb = 3 and 9 in
 * 2D, else 1 (on a single-shape mesh). */
static int modes_expected(const dg_disc_view *d, int asked) {
  const int shape = disc_single_shape(d);
  const int nb = shape >= 0 ? d->nb[shape] : 0;
  return asked == 2 && nb >= 4 && nb % 2 == 0                ? 2
         : asked == 3 && d->dim == 2 && (nb == 3 || nb == 9) ? 3
                                                             : 1;
}

/* Runs every backend operation on pb (the case `which`) and collects the
 * results. variant: the CUDA kernels (backend_cuda_variant) when be is the
 * CUDA backend, ignored otherwise. */
static dg_status run_backend(const dg_backend *be, int variant, test_case which, const problem *pb,
                             run_result *r) {
  const dg_disc_view *d = &pb->disc.view;
  const int64_t nc = d->n_coefs, ne = d->n_elems;
  memset(r, 0, sizeof *r);
  DG_CALL(DG_CALLOC(r->R0, nc));
  DG_CALL(DG_CALLOC(r->dt_local, ne));
  DG_CALL(DG_CALLOC(r->U_final, nc));
  double *poison = NULL;
  DG_CALL(DG_CALLOC(poison, nc > ne ? nc : ne));
  for (int64_t i = 0; i < (nc > ne ? nc : ne); ++i) poison[i] = NAN;

  dg_backend_ctx *ctx = NULL;
  dg_vec U = {0}, R = {0}, dt = {0};
  explicit_rk3 rk;
  memset(&rk, 0, sizeof rk);
  dg_status st = DG_SUCCESS;
  DG_CALL_GOTO(st, done, dg_backend_create(be, &pb->disc, &ctx));
  if (be == backend_cuda()) {
    DG_CALL_GOTO(st, done, backend_cuda_set_variant(ctx, (backend_cuda_variant)variant));
    DG_CALL_GOTO(st, done, backend_cuda_set_team_chunk(ctx, team_chunk));
    DG_CALL_GOTO(st, done, backend_cuda_set_team_modes(ctx, team_modes));
    DG_CALL_GOTO(st, done, backend_cuda_set_team_modes_rk(ctx, team_modes_rk));
    DG_CALL_GOTO(st, done, backend_cuda_set_face_gather(ctx, face_gather));
    DG_CALL_GOTO(st, done, backend_cuda_set_team_face_share(ctx, face_share));
    DG_CALL_GOTO(st, done, backend_cuda_set_team_elems(ctx, team_elems));
    DG_CALL_GOTO(st, done, backend_cuda_set_elem_thread(ctx, elem_thread));
    elem_thread_used = 0;
    for (int s = 0; s < DG_NUM_SHAPES; ++s)
      for (int rk = 0; rk < 2; ++rk)
        elem_thread_used |= backend_cuda_elem_thread_active(ctx, s, rk);
    team_elems_used = 0;
    for (int s = 0; s < DG_NUM_SHAPES; ++s)
      if (backend_cuda_team_elems(ctx, s) > team_elems_used)
        team_elems_used = backend_cuda_team_elems(ctx, s);
    face_share_used = 1;
    for (int s = 0; s < DG_NUM_SHAPES; ++s)
      if (d->n_shape[s] > 0 && !backend_cuda_team_face_share(ctx, s)) face_share_used = 0;
    DG_CALL_GOTO(st, done, backend_cuda_set_face_trace(ctx, face_trace));
    face_trace_active = backend_cuda_face_trace_active(ctx);
    face_gather_active = backend_cuda_face_gather_active(ctx);
    team_modes_used = team_modes_rk_used = 0;
    for (int s = 0; s < DG_NUM_SHAPES; ++s)
      if (backend_cuda_team_modes_rk(ctx, s) > team_modes_rk_used)
        team_modes_rk_used = backend_cuda_team_modes_rk(ctx, s);
    for (int s = 0; s < DG_NUM_SHAPES; ++s)
      if (backend_cuda_team_modes(ctx, s) > team_modes_used)
        team_modes_used = backend_cuda_team_modes(ctx, s);
  }
  if (which == CASE_MIXED_2D)
    DG_CALL_GOTO(st, done, dg_backend_set_circulation(be, ctx, CIRCULATION));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_STATE, &U));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_STATE, &R));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_ELEM, &dt));
  DG_CALL_GOTO(st, done, dg_vec_upload(pb->U, &U));

  /* poisoned outputs: every entry must be written by the kernels */
  DG_CALL_GOTO(st, done, dg_vec_upload(poison, &R));
  DG_CALL_GOTO(st, done, dg_backend_norms(be, ctx, &R, r->norms0, &r->finite_poison));
  DG_CALL_GOTO(st, done, dg_vec_upload(poison, &dt));
  DG_CALL_GOTO(st, done, dg_backend_residual(be, ctx, &U, 0.25, &R));
  DG_CALL_GOTO(st, done, dg_vec_download(&R, r->R0));
  r->unwritten_R = (int)count_nan(r->R0, nc);
  DG_CALL_GOTO(st, done, dg_backend_norms(be, ctx, &R, r->norms0, &r->finite0));
  DG_CALL_GOTO(st, done, dg_backend_timestep(be, ctx, &U, 0.3, 0, &dt, &r->dt_min));
  DG_CALL_GOTO(st, done, dg_vec_download(&dt, r->dt_local));
  r->unwritten_dt = (int)count_nan(r->dt_local, ne);
  if (d->n_groups > 0) {
    uint8_t mask[8] = {0};
    for (int g = 0; g < d->n_groups && g < 8; ++g)
      mask[g] = d->group_bc[g] == PHYSICS_BC_WALL || d->group_bc[g] == PHYSICS_BC_SYMMETRY;
    const double x_ref[3] = {0.25, -0.5, 0.1};
    DG_CALL_GOTO(st, done, dg_backend_forces(be, ctx, &U, mask, x_ref, r->force));
  }

  /* SSP-RK3 with a global CFL step, through the explicit marcher */
  DG_CALL_GOTO(st, done, explicit_rk3_create(be, ctx, &pb->disc, &rk));
  double t = 0.0;
  for (int step = 0; step < RK_STEPS; ++step) {
    const explicit_rk3_opts opts = {0.3, 0, 0.0, step == 0, 0};
    explicit_rk3_info info;
    DG_CALL_GOTO(st, done, explicit_rk3_step(&rk, &U, t, &opts, &info));
    if (step == 0) r->dt_global_first = info.dt;
    t += info.dt;
  }
  DG_CALL_GOTO(st, done, dg_vec_download(&U, r->U_final));
  DG_CALL_GOTO(st, done, dg_backend_residual(be, ctx, &U, t, &R));
  DG_CALL_GOTO(st, done, dg_backend_norms(be, ctx, &R, r->norms_final, &r->finite_final));
done:
  explicit_rk3_destroy(&rk);
  if (ctx) {
    dg_vec_destroy(&U);
    dg_vec_destroy(&R);
    dg_vec_destroy(&dt);
    dg_backend_destroy(be, ctx);
  }
  free(poison);
  return st;
}

/* max |a - b| / max |b| */
static double relative_difference(const double *a, const double *b, int64_t n) {
  double diff = 0.0, scale = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double dd = fabs(a[i] - b[i]);
    diff = dd > diff || isnan(dd) ? dd : diff;
    scale = fabs(b[i]) > scale ? fabs(b[i]) : scale;
  }
  return scale > 0.0 ? diff / scale : diff;
}

static void check_case(test_case which, int p) {
  char what[128];
  problem pb;
  const dg_status built = problem_build(which, p, &pb);
  TEST_OK(built);
  if (built != DG_SUCCESS) {
    problem_free(&pb);
    return;
  }
  const dg_disc_view *d = &pb.disc.view;
  run_result cpu, gpu, gpu2;
  TEST_OK(run_backend(backend_cpu(), 0, which, &pb, &cpu));
  double *dt_portable = (double *)calloc((size_t)pb.disc.view.n_elems, sizeof(double));
  TEST_CHECK(dt_portable != NULL, "out of memory");
  for (int variant = BACKEND_CUDA_PORTABLE; variant <= BACKEND_CUDA_TUNED; ++variant) {
    TEST_OK(run_backend(backend_cuda(), variant, which, &pb, &gpu));
    TEST_OK(run_backend(backend_cuda(), variant, which, &pb, &gpu2));
    const int nv = d->nvar;

    snprintf(what, sizeof what, "%s p=%d %s", case_name[which], p,
             variant == BACKEND_CUDA_TUNED ? "tuned" : "portable");
    TEST_CHECK(gpu.unwritten_R == 0, "%s: %d residual entries not written", what, gpu.unwritten_R);
    TEST_CHECK(gpu.unwritten_dt == 0, "%s: %d time steps not written", what, gpu.unwritten_dt);
    TEST_CHECK(cpu.unwritten_R == 0 && cpu.unwritten_dt == 0, "%s: CPU left outputs unwritten",
               what);
    TEST_CHECK(gpu.finite_poison == 0 && cpu.finite_poison == 0,
               "%s: norms of a NaN vector reported finite (gpu %d, cpu %d)", what,
               gpu.finite_poison, cpu.finite_poison);
    TEST_CHECK(gpu.finite0 == 1 && gpu.finite_final == 1, "%s: GPU residual not finite", what);

    const double rel_R = relative_difference(gpu.R0, cpu.R0, d->n_coefs);
    TEST_CHECK(rel_R <= 1e-12, "%s: residual GPU vs CPU relative difference %.3g > 1e-12", what,
               rel_R);
    const double rel_dt = relative_difference(gpu.dt_local, cpu.dt_local, d->n_elems);
    TEST_CHECK(rel_dt <= 1e-12, "%s: local time steps differ by %.3g", what, rel_dt);
    /* the tuned time-step terms (timestep_term_team_kernel on single-shape
     * meshes): the portable kernel's bits */
    if (dt_portable && gpu.dt_local) {
      if (variant == BACKEND_CUDA_PORTABLE)
        memcpy(dt_portable, gpu.dt_local, (size_t)d->n_elems * sizeof(double));
      else
        TEST_CHECK(memcmp(dt_portable, gpu.dt_local, (size_t)d->n_elems * sizeof(double)) == 0,
                   "%s: the local time steps differ in bits from the portable kernels'", what);
    }
    TEST_CLOSE(gpu.dt_min, cpu.dt_min, 1e-12 * cpu.dt_min, "dt_min");
    TEST_CLOSE(gpu.dt_global_first, cpu.dt_min, 1e-12 * cpu.dt_min, "global dt");
    for (int v = 0; v < nv; ++v) {
      TEST_CLOSE(gpu.norms0[v], cpu.norms0[v], 1e-12 * (cpu.norms0[v] + 1e-300), "norm of R");
      TEST_CLOSE(gpu.norms_final[v], cpu.norms_final[v], 1e-9 * (cpu.norms_final[v] + 1e-300),
                 "norm of R after RK");
    }
    double force_scale = 0.0;
    for (int c = 0; c < 6; ++c) force_scale = fmax(force_scale, fabs(cpu.force[c]));
    if (d->n_groups > 0)
      TEST_CHECK(force_scale > 0.0, "%s: wall force is zero (no wall faces?)", what);
    for (int c = 0; c < 6; ++c)
      TEST_CLOSE(gpu.force[c], cpu.force[c], 1e-12 * force_scale, "force");

    const double rel_U = relative_difference(gpu.U_final, cpu.U_final, d->n_coefs);
    TEST_CHECK(rel_U <= 1e-10, "%s: state after %d RK3 steps, GPU vs CPU relative difference %.3g",
               what, RK_STEPS, rel_U);
    TEST_CHECK(memcmp(gpu.norms0, gpu2.norms0, sizeof gpu.norms0) == 0 &&
                   memcmp(gpu.norms_final, gpu2.norms_final, sizeof gpu.norms_final) == 0 &&
                   memcmp(gpu.force, gpu2.force, sizeof gpu.force) == 0 &&
                   memcmp(gpu.U_final, gpu2.U_final, (size_t)d->n_coefs * sizeof(double)) == 0,
               "%s: two GPU runs differ in bits", what);
    printf("%-20s p=%d %-8s elems %6lld  coefs %8lld  |R|rel %.2e  dt %.2e  U(RK%d)rel %.2e\n",
           case_name[which], p, variant == BACKEND_CUDA_TUNED ? "tuned" : "portable",
           (long long)d->n_elems, (long long)d->n_coefs, rel_R, rel_dt, RK_STEPS, rel_U);
    if (variant == BACKEND_CUDA_TUNED) {
      /* the settings of the team element kernel below: with the thread
       * kernel off, so that they run */
      elem_thread = 0;
      /* every point at once, then the fewest per chunk: the same bits */
      const int chunks[2] = {1 << 20, 1};
      for (int c = 0; c < 2; ++c) {
        run_result other;
        team_chunk = chunks[c];
        TEST_OK(run_backend(backend_cuda(), variant, which, &pb, &other));
        team_chunk = 0;
        if (other.R0 && other.U_final && gpu.R0 && gpu.U_final)
          TEST_CHECK(memcmp(other.R0, gpu.R0, (size_t)d->n_coefs * sizeof(double)) == 0 &&
                         memcmp(other.U_final, gpu.U_final, (size_t)d->n_coefs * sizeof(double)) ==
                             0,
                     "%s: %s volume points per chunk change the bits", what,
                     c == 0 ? "all" : "the fewest");
        result_free(&other);
      }
      /* 1, 2 and 3 modes per thread in the element kernel's phase 2
       * (where instantiated: 2 for even nb >= 4, 3 for nb = 3 and 9 in 2D;
       * the default is 2): the same bits, directly and through the RK3
       * steps, whose stages it fuses */
      const int modes[3] = {1, 2, 3};
      for (int c = 0; c < 3; ++c) {
        run_result other;
        team_modes = modes[c];
        TEST_OK(run_backend(backend_cuda(), variant, which, &pb, &other));
        team_modes = 0;
        const int shape = disc_single_shape(d), expect = modes_expected(d, modes[c]);
        if (shape >= 0)
          TEST_CHECK(team_modes_used == expect,
                     "%s: %d modes per thread asked, the element kernel used %d (expected %d)",
                     what, modes[c], team_modes_used, expect);
        if (other.R0 && other.U_final && gpu.R0 && gpu.U_final)
          TEST_CHECK(
              memcmp(other.R0, gpu.R0, (size_t)d->n_coefs * sizeof(double)) == 0 &&
                  memcmp(other.U_final, gpu.U_final, (size_t)d->n_coefs * sizeof(double)) == 0,
              "%s: %d modes per thread in the element kernel change the bits", what, modes[c]);
        result_free(&other);
      }
      /* the same modes per thread in the fused RK stage alone: the same
       * bits of the state after the RK3 steps */
      for (int c = 0; c < 3; ++c) {
        run_result other;
        team_modes_rk = modes[c];
        TEST_OK(run_backend(backend_cuda(), variant, which, &pb, &other));
        team_modes_rk = 0;
        const int shape = disc_single_shape(d), expect = modes_expected(d, modes[c]);
        if (shape >= 0)
          TEST_CHECK(team_modes_rk_used == expect,
                     "%s: %d modes per thread asked of the fused RK stage, it used %d (expected "
                     "%d)",
                     what, modes[c], team_modes_rk_used, expect);
        if (other.U_final && gpu.U_final)
          TEST_CHECK(memcmp(other.U_final, gpu.U_final, (size_t)d->n_coefs * sizeof(double)) == 0,
                     "%s: %d modes per thread in the fused RK stage change the bits", what,
                     modes[c]);
        result_free(&other);
      }
      /* the element kernel's face fluxes in their own shared memory, then
       * over the volume chunk's: the same bits, directly and through the
       * RK3 steps */
      for (int c = 0; c < 2; ++c) {
        run_result other;
        face_share = c;
        TEST_OK(run_backend(backend_cuda(), variant, which, &pb, &other));
        face_share = -1;
        TEST_CHECK(face_share_used == c, "%s: face fluxes over the volume chunk %s", what,
                   c ? "asked, not used" : "not asked, used");
        if (other.R0 && other.U_final && gpu.R0 && gpu.U_final)
          TEST_CHECK(memcmp(other.R0, gpu.R0, (size_t)d->n_coefs * sizeof(double)) == 0 &&
                         memcmp(other.U_final, gpu.U_final, (size_t)d->n_coefs * sizeof(double)) ==
                             0,
                     "%s: the face fluxes %s change the bits", what,
                     c ? "over the volume chunk" : "in their own shared memory");
        result_free(&other);
      }
      /* other elements per block than the default's (team_elems_for):
       * the most a block takes, then at most 5: the same bits, directly
       * and through the RK3 steps */
      for (int c = 0; c < 2; ++c) {
        run_result other;
        team_elems = c ? 5 : 1 << 20;
        TEST_OK(run_backend(backend_cuda(), variant, which, &pb, &other));
        team_elems = 0;
        if (c)
          TEST_CHECK(team_elems_used == 5, "%s: at most 5 elements per block asked, %d used", what,
                     team_elems_used);
        if (other.R0 && other.U_final && gpu.R0 && gpu.U_final)
          TEST_CHECK(
              memcmp(other.R0, gpu.R0, (size_t)d->n_coefs * sizeof(double)) == 0 &&
                  memcmp(other.U_final, gpu.U_final, (size_t)d->n_coefs * sizeof(double)) == 0,
              "%s: %s elements per block change the bits", what, c ? "at most 5" : "the most");
        result_free(&other);
      }
      elem_thread = -1;
      /* the element kernel with one thread per element set on (its
       * coefficients in shared memory first, then in registers first),
       * off and left to the backend: the same bits, directly and through
       * the RK3 steps, whose stages it fuses */
      for (int c = 2; c >= -1; --c) {
        run_result other;
        elem_thread = c;
        TEST_OK(run_backend(backend_cuda(), variant, which, &pb, &other));
        elem_thread = -1;
        if (c >= 1) {
          /* the asked form where it exists, else the other */
          const int asked = thread_expected(d, c == 2), other_form = thread_expected(d, c != 2);
          TEST_CHECK(((elem_thread_used & (c == 2 ? 2 : 1)) != 0) == asked,
                     "%s: the thread element kernel (form %d) asked, %s", what, c,
                     asked ? "it did not run" : "it ran where it has no instance");
          TEST_CHECK(elem_thread_used != 0 || !(asked || other_form),
                     "%s: the thread element kernel (form %d) asked, no form ran", what, c);
        }
        if (c == 0)
          TEST_CHECK(!elem_thread_used, "%s: the thread element kernel ran when off", what);
        if (other.R0 && other.U_final && gpu.R0 && gpu.U_final)
          TEST_CHECK(
              memcmp(other.R0, gpu.R0, (size_t)d->n_coefs * sizeof(double)) == 0 &&
                  memcmp(other.U_final, gpu.U_final, (size_t)d->n_coefs * sizeof(double)) == 0,
              "%s: the thread element kernel %s changes the bits (residual %.3g, RK3 state %.3g "
              "relative)",
              what,
              c == 2   ? "on (shared)"
              : c == 1 ? "on"
              : c == 0 ? "off"
                       : "by default",
              relative_difference(other.R0, gpu.R0, d->n_coefs),
              relative_difference(other.U_final, gpu.U_final, d->n_coefs));
        result_free(&other);
      }
      /* the face kernel gathering each face's coefficients once: the same
       * bits, on the single-shape meshes (the mixed one has no such kernel) */
      run_result other;
      face_gather = 1;
      face_trace = 0;
      TEST_OK(run_backend(backend_cuda(), variant, which, &pb, &other));
      face_gather = 0;
      TEST_CHECK(face_gather_active == (which != CASE_MIXED_2D), "%s: the gathering face kernel %s",
                 what, face_gather_active ? "ran on a mixed mesh" : "did not run");
      if (other.R0 && other.U_final && gpu.R0 && gpu.U_final)
        TEST_CHECK(memcmp(other.R0, gpu.R0, (size_t)d->n_coefs * sizeof(double)) == 0 &&
                       memcmp(other.U_final, gpu.U_final, (size_t)d->n_coefs * sizeof(double)) == 0,
                   "%s: the gathering face kernel changes the bits (residual %.3g, RK3 state "
                   "%.3g relative)",
                   what, relative_difference(other.R0, gpu.R0, d->n_coefs),
                   relative_difference(other.U_final, gpu.U_final, d->n_coefs));
      result_free(&other);
      face_trace = -1;
      /* the trace path (each element's traces formed once, then the
       * fluxes from them) set on, off, and left to the backend (on for
       * tetrahedra at p = 3): the same bits as the default, and it runs on
       * the single-shape meshes only */
      for (int c = 1; c >= -1; --c) {
        face_trace = c;
        TEST_OK(run_backend(backend_cuda(), variant, which, &pb, &other));
        face_trace = -1;
        const int expect = which != CASE_MIXED_2D && (c == 1 || (c == -1 && d->dim == 3 && p == 3));
        TEST_CHECK(face_trace_active == expect, "%s: the trace path (set %d) %s", what, c,
                   face_trace_active ? "ran where it should not" : "did not run");
        if (other.R0 && other.U_final && gpu.R0 && gpu.U_final)
          TEST_CHECK(
              memcmp(other.R0, gpu.R0, (size_t)d->n_coefs * sizeof(double)) == 0 &&
                  memcmp(other.U_final, gpu.U_final, (size_t)d->n_coefs * sizeof(double)) == 0,
              "%s: the trace path %s changes the bits (residual %.3g, RK3 state %.3g relative)",
              what,
              c == 1   ? "on"
              : c == 0 ? "off"
                       : "by default",
              relative_difference(other.R0, gpu.R0, d->n_coefs),
              relative_difference(other.U_final, gpu.U_final, d->n_coefs));
        result_free(&other);
      }
    }
    result_free(&gpu);
    result_free(&gpu2);
  }
  free(dt_portable);
  result_free(&cpu);
  problem_free(&pb);
}

/* Advances U0 by `steps` SSP-RK3 steps with a global CFL step and returns
 * the final state in out: through explicit_rk3_step (graph 0) or through
 * timestep + backend_cuda_rk3_stages (graph 1, one CUDA graph per step).
 * The stage times change every step, so the graph's time updates are
 * exercised (the 2D mixed case has time-dependent exact boundaries). */
static dg_status run_rk3(const problem *pb, int graph, int steps, double *out) {
  const dg_backend *be = backend_cuda();
  dg_backend_ctx *ctx = NULL;
  dg_vec U = {0}, U1 = {0}, R = {0}, dt = {0};
  cuda_rk3_graph *rk3_graph = NULL;
  explicit_rk3 rk;
  memset(&rk, 0, sizeof rk);
  dg_status st = DG_SUCCESS;
  DG_CALL_GOTO(st, done, dg_backend_create(be, &pb->disc, &ctx));
  DG_CALL_GOTO(st, done, backend_cuda_set_variant(ctx, BACKEND_CUDA_TUNED));
  DG_CALL_GOTO(st, done, backend_cuda_set_face_gather(ctx, face_gather));
  DG_CALL_GOTO(st, done, backend_cuda_set_face_trace(ctx, face_trace));
  DG_CALL_GOTO(st, done, backend_cuda_set_elem_thread(ctx, elem_thread));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_STATE, &U));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_STATE, &U1));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_STATE, &R));
  DG_CALL_GOTO(st, done, dg_vec_create(be, ctx, DG_VEC_ELEM, &dt));
  DG_CALL_GOTO(st, done, dg_vec_upload(pb->U, &U));
  DG_CALL_GOTO(st, done, explicit_rk3_create(be, ctx, &pb->disc, &rk));
  double t = 0.0;
  for (int step = 0; step < steps; ++step) {
    double h = 0.0;
    if (graph) {
      DG_CALL_GOTO(st, done, dg_backend_timestep(be, ctx, &U, 0.3, 1, &dt, &h));
      const double stage_t[3] = {t, t + h, t + 0.5 * h};
      DG_CALL_GOTO(
          st, done,
          backend_cuda_rk3_stages(ctx, &rk3_graph, U.data, U1.data, R.data, dt.data, stage_t));
    } else {
      const explicit_rk3_opts opts = {0.3, 0, 0.0, 0, 0};
      explicit_rk3_info info;
      DG_CALL_GOTO(st, done, explicit_rk3_step(&rk, &U, t, &opts, &info));
      h = info.dt;
    }
    t += h;
  }
  DG_CALL_GOTO(st, done, dg_vec_download(&U, out));
done:
  cuda_rk3_graph_free(rk3_graph);
  explicit_rk3_destroy(&rk);
  if (ctx) {
    dg_vec_destroy(&U);
    dg_vec_destroy(&U1);
    dg_vec_destroy(&R);
    dg_vec_destroy(&dt);
    dg_backend_destroy(be, ctx);
  }
  return st;
}

/* backend_cuda_rk3_stages (CUDA graph) against explicit_rk3_step: the same
 * bits after 12 steps, and a state that moved. */
static void check_rk3_graph(test_case which, int p) {
  problem pb;
  const dg_status built = problem_build(which, p, &pb);
  TEST_OK(built);
  if (built != DG_SUCCESS) {
    problem_free(&pb);
    return;
  }
  const int64_t nc = pb.disc.view.n_coefs;
  double *a = NULL, *b = NULL, *g = NULL;
  if (DG_CALLOC(a, nc) == DG_SUCCESS && DG_CALLOC(b, nc) == DG_SUCCESS &&
      DG_CALLOC(g, nc) == DG_SUCCESS) {
    TEST_OK(run_rk3(&pb, 0, 12, a));
    TEST_OK(run_rk3(&pb, 1, 12, b));
    TEST_CHECK(memcmp(a, b, (size_t)nc * sizeof(double)) == 0,
               "%s p=%d: RK3 stages through the CUDA graph differ in bits from explicit_rk3_step "
               "(relative %.3g)",
               case_name[which], p, relative_difference(b, a, nc));
    /* the graph with the gathering face kernel (its node's launch updated per stage) */
    face_gather = 1;
    face_trace = 0;
    TEST_OK(run_rk3(&pb, 1, 12, g));
    face_gather = 0;
    TEST_CHECK(memcmp(a, g, (size_t)nc * sizeof(double)) == 0,
               "%s p=%d: RK3 graph with the gathering face kernel differs in bits (relative %.3g)",
               case_name[which], p, relative_difference(g, a, nc));
    /* the graph with the trace path set on and off (two launches, the face
     * node updated per stage; on by default for tetrahedra at p = 3) */
    for (int c = 1; c >= 0; --c) {
      face_trace = c;
      TEST_OK(run_rk3(&pb, 1, 12, g));
      TEST_CHECK(memcmp(a, g, (size_t)nc * sizeof(double)) == 0,
                 "%s p=%d: RK3 graph with the trace path %s differs in bits (relative %.3g)",
                 case_name[which], p, c ? "on" : "off", relative_difference(g, a, nc));
    }
    face_trace = -1;
    /* the graph with the thread element kernel set on and off (the fused
     * stages' launches) */
    for (int c = 2; c >= 0; --c) {
      elem_thread = c;
      TEST_OK(run_rk3(&pb, 1, 12, g));
      TEST_CHECK(memcmp(a, g, (size_t)nc * sizeof(double)) == 0,
                 "%s p=%d: RK3 graph with the thread element kernel %s differs in bits (relative "
                 "%.3g)",
                 case_name[which], p,
                 c == 2 ? "on (shared)"
                 : c    ? "on"
                        : "off",
                 relative_difference(g, a, nc));
    }
    elem_thread = -1;
    TEST_CHECK(relative_difference(a, pb.U, nc) > 0.0, "%s p=%d: 12 RK3 steps left U unchanged",
               case_name[which], p);
  } else {
    TEST_CHECK(0, "out of host memory");
  }
  free(a);
  free(b);
  free(g);
  problem_free(&pb);
}

/* Errors are reported, not crashed on: a bad vector kind and a NULL vector. */
static void check_errors(void) {
  problem pb;
  TEST_OK(problem_build(CASE_VORTEX_2D, 1, &pb));
  const dg_backend *be = backend_cuda();
  dg_backend_ctx *ctx = NULL;
  TEST_OK(dg_backend_create(be, &pb.disc, &ctx));
  if (ctx) {
    dg_vec vec = {0};
    TEST_FAILS(dg_vec_create(be, ctx, (dg_vec_kind)7, &vec), DG_ERR_ARG, "vector kind");
    TEST_FAILS(dg_backend_residual(be, ctx, NULL, 0.0, NULL), DG_ERR_ARG, "residual");
    TEST_CHECK(backend_cuda_get_variant(ctx) == BACKEND_CUDA_TUNED,
               "the tuned kernels are not the default on a triangle mesh");
    TEST_FAILS(backend_cuda_set_variant(ctx, (backend_cuda_variant)5), DG_ERR_ARG, "variant");
    TEST_FAILS(backend_cuda_set_team_chunk(ctx, -1), DG_ERR_ARG, "points");
    TEST_FAILS(backend_cuda_set_face_gather(ctx, 2), DG_ERR_ARG, "0 or 1");
    TEST_FAILS(backend_cuda_set_face_trace(ctx, 2), DG_ERR_ARG, "automatic");
    TEST_FAILS(backend_cuda_set_elem_thread(ctx, 3), DG_ERR_ARG, "automatic");
    TEST_FAILS(backend_cuda_set_team_face_share(ctx, 2), DG_ERR_ARG, "0 or 1");
    TEST_FAILS(backend_cuda_set_team_modes(ctx, 4), DG_ERR_ARG, "1, 2 or 3");
    TEST_FAILS(backend_cuda_set_team_modes_rk(ctx, -1), DG_ERR_ARG, "1, 2 or 3");
    TEST_FAILS(backend_cuda_set_team_elems(ctx, -1), DG_ERR_ARG, "automatic");
    dg_backend_destroy(be, ctx);
  }
  problem_free(&pb);
}

int main(void) {
  if (!backend_cuda_available()) {
    printf("test_backend_gpu: no CUDA backend or device, skipped\n");
    return TEST_SKIP;
  }
  TEST_CHECK(strcmp(backend_cuda()->name, "cuda") == 0, "backend name %s", backend_cuda()->name);
  for (int which = 0; which < N_CASES; ++which)
    for (int p = 0; p <= 3; ++p) check_case((test_case)which, p);
  for (int which = 0; which < N_CASES; ++which)
    for (int p = 1; p <= 3; p += 2) check_rk3_graph((test_case)which, p);
  check_errors();
  return test_finish("test_backend_gpu");
}
