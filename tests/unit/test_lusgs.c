/* Implicit LU-SGS (src/lusgs/) on a backend: one source, `--backend
 * cpu|cuda` (tests/lusgs.cmake: test_lusgs_cpu, test_lusgs_naca_cpu,
 * test_lusgs_naca_p1_cpu and their _cuda twins, label gpu). The marcher's
 * properties (3), (4) and the NACA march run on either backend; (1), (2),
 * the limits, the update damping and the CFL laws check the CPU operations
 * and host code and run with --backend cpu only (the CUDA operations are
 * compared with them in test_lusgs_gpu).
 *
 *   test_lusgs           (1) diagonal blocks against finite differences,
 *                        LU factors, mass blocks; (2) coloured sweeps against
 *                        a plain serial symmetric Gauss–Seidel step written
 *                        here; (3) convergence of a perturbed free stream
 *                        (far field + walls, curved mixed mesh); (4) implicit
 *                        and explicit reach the same steady state (a
 *                        stationary vortex on a small quad mesh); CFL laws;
 *                        lusgs_apply alone (= the step's ΔU, linear,
 *                        converging with sweeps) and the phase hook; both
 *                        marcher tables (src/dg/marcher.h) against the
 *                        direct steps
 *   test_lusgs --naca [p [cfl_min cfl_max ramp [iters [target [sweeps
 *                    [exponential|ser [bfs|levels [mesh.cdgm]]]]]]]]
 *                        NACA 0012, M 0.5, α 2°, committed level-0 mesh: the
 *                        march stays admissible (and reaches `target` orders
 *                        when given); prints the drop, time, CL, CD */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/backend_select.h"
#include "coloring/coloring.h"
#include "dg/backend_cpu.h"
#include "dg/disc.h"
#include "dg/explicit.h"
#include "dg/residual_ops.h"
#include "lusgs/lusgs.h"
#include "lusgs/lusgs_ops.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "test_util.h"

#define GAMMA 1.4

static double seconds(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
  dg_mesh mesh;
  dg_topology topo;
  dg_geometry geom;
  dg_disc disc;
  dg_coloring col;
  dg_backend_ctx *ctx;
  dg_vec U;  /* backend state (on the CPU backend: a host array) */
  double *h; /* [n_coefs] host copy of U (problem_host) */
} problem;

static void problem_free(problem *pb) {
  const dg_backend *b = test_backend;
  free(pb->h);
  if (pb->U.data) dg_vec_destroy(&pb->U);
  if (pb->ctx) dg_backend_destroy(b, pb->ctx);
  coloring_free(&pb->col);
  disc_free(&pb->disc);
  geometry_free(&pb->geom);
  topology_free(&pb->topo);
  mesh_free(&pb->mesh);
  memset(pb, 0, sizeof *pb);
}

/* What a problem is made of. */
typedef struct {
  const char *mesh_file;      /* a .cdgm file, or NULL for the structured mesh */
  dg_mesh_structured_opts mo; /* structured mesh when mesh_file is NULL */
  int p;                      /* degree */
  double mach, alpha_deg;     /* freestream */
  int vortex;                 /* 1: stationary isentropic vortex (exact BC) */
  const char *wall_groups[4]; /* groups that are slip walls (others: far field) */
  int affine_reduced;         /* 1: affine elements integrate at degree 2p + 1 (affine_degree) */
} problem_spec;

static int problem_build(problem *pb, const problem_spec *ps) {
  memset(pb, 0, sizeof *pb);
  const dg_backend *b = test_backend;
  dg_status st = ps->mesh_file ? mesh_read(ps->mesh_file, 0, &pb->mesh)
                               : mesh_structured_2d(&ps->mo, &pb->mesh);
  if (st == DG_SUCCESS) st = topology_build(&pb->mesh, &pb->topo);
  const int dim = pb->mesh.dim, q = pb->mesh.geom_order > 0 ? pb->mesh.geom_order : 1, p = ps->p;
  if (st == DG_SUCCESS)
    st = geometry_build(&pb->mesh, &pb->topo, 2 * p + 1 + dim * (q - 1),
                        2 * p + 1 + (dim - 1) * (q - 1), &pb->geom);
  int32_t bc[16];
  physics_bc_data data[16];
  dg_disc_opts o;
  memset(&o, 0, sizeof o);
  o.p = p;
  o.gamma = GAMMA;
  o.flux = DG_FACE_FLUX_ROE;
  o.n_groups = pb->mesh.n_groups;
  o.group_bc = bc;
  o.group_data = data;
  physics_freestream_state(dim, GAMMA, ps->mach, ps->alpha_deg, 0.0, o.freestream);
  if (ps->vortex) {
    o.exact_kind = 1;
    o.vortex.center[0] = 0.5 * (ps->mo.lo[0] + ps->mo.hi[0]);
    o.vortex.center[1] = 0.5 * (ps->mo.lo[1] + ps->mo.hi[1]);
    o.vortex.strength = 2.0;
    o.vortex.velocity[0] = ps->mach;
  }
  for (int g = 0; g < pb->mesh.n_groups && g < 16; ++g) {
    bc[g] = ps->vortex ? PHYSICS_BC_EXACT : PHYSICS_BC_FARFIELD;
    for (int w = 0; w < 4; ++w)
      if (ps->wall_groups[w] && !strcmp(ps->wall_groups[w], pb->mesh.groups[g].name))
        bc[g] = PHYSICS_BC_WALL;
    memset(&data[g], 0, sizeof data[g]);
    memcpy(data[g].state, o.freestream, sizeof o.freestream);
  }
  if (ps->affine_reduced) o.affine_degree = 2 * p + 1;
  if (st == DG_SUCCESS) st = disc_build(&pb->mesh, &pb->topo, &pb->geom, &o, &pb->disc);
  if (st == DG_SUCCESS)
    st = coloring_build(&pb->mesh, &pb->topo, DG_COLORING_BFS_WALL, "wall", &pb->col);
  if (st == DG_SUCCESS) st = dg_backend_create(b, &pb->disc, &pb->ctx);
  if (st == DG_SUCCESS) st = dg_vec_create(b, pb->ctx, DG_VEC_STATE, &pb->U);
  if (st == DG_SUCCESS) st = DG_CALLOC(pb->h, pb->disc.view.n_coefs);
  if (st == DG_SUCCESS) st = disc_project(&pb->disc, 0.0, pb->h);
  if (st == DG_SUCCESS) st = dg_vec_upload(pb->h, &pb->U);
  TEST_OK(st);
  return st == DG_SUCCESS;
}

/* pb->h, downloaded from pb->U. */
static double *problem_host(problem *pb) {
  TEST_OK(dg_vec_download(&pb->U, pb->h));
  return pb->h;
}

/* max |U_a − U_b| over the coefficients of two problems of one spec. */
static double state_difference(problem *a, problem *b) {
  const double *Ua = problem_host(a), *Ub = problem_host(b);
  double diff = 0.0;
  for (int64_t i = 0; i < a->disc.view.n_coefs; ++i) diff = fmax(diff, fabs(Ua[i] - Ub[i]));
  return diff;
}

/* A smooth, deterministic perturbation of every coefficient (keeps ρ, p > 0). */
static void perturb(problem *pb, double amplitude) {
  for (int64_t i = 0; i < pb->disc.view.n_coefs; ++i)
    pb->U.data[i] += amplitude * sin(12.9898 * (double)i + 0.7);
}

static double max_abs(const double *a, int64_t n) {
  double m = 0.0;
  for (int64_t i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
  return m;
}

/* ------------------------------------------------ (1) diagonal blocks */

/* out[v*nb + m] = Σ_faces Σ_q wsJ φ_m H̃_v with the frozen-λ flux
 * H̃(U_e, U_o) = ½(F_n(U_e) + F_n(U_o)) − ½ λ (U_o − U_e), n outward from e,
 * U_o the neighbour's trace (fixed) or the ghost state of U_e: the face part
 * of −R_e under the approximation whose exact Jacobian D's face part is. */
static void approx_face_sum(const dg_disc_view *d, int64_t e, const double *U, const double *lambda,
                            double *out) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, dim = d->dim;
  for (int i = 0; i < nv * nb; ++i) out[i] = 0.0;
  for (int lf = 0; lf < shape_n_faces((dg_shape)s); ++lf) {
    const int64_t f = d->elem_face[e * DG_MAX_FACES + lf];
    const int side = (d->face_elem[2 * f] == e && d->face_local[2 * f] == lf) ? 0 : 1;
    const int o = side ? d->face_orient[f] : 0;
    for (int q = 0; q < d->nqf; ++q) {
      const int64_t k = f * d->nqf + q;
      double Ue[DG_MAX_NVAR], Uo[DG_MAX_NVAR], n[3] = {0, 0, 0};
      for (int i = 0; i < dim; ++i) n[i] = (side ? -1.0 : 1.0) * d->face_normal[k * dim + i];
      residual_trace(d, U, e, lf, o, q, Ue);
      const int64_t j = d->face_elem[2 * f + 1 - side];
      if (j >= 0) {
        residual_trace(d, U, j, d->face_local[2 * f + 1 - side], side ? 0 : d->face_orient[f], q,
                       Uo);
      } else {
        physics_bc_data bd = d->group_data[d->face_group[f]];
        const int kind = d->group_bc[d->face_group[f]];
        if (kind == PHYSICS_BC_EXACT) residual_exact_state(d, d->face_x + k * dim, 0.0, bd.state);
        physics_ghost_state(dim, d->gamma, kind, &bd, Ue, n, Uo);
      }
      double Fe[DG_MAX_NVAR], Fo[DG_MAX_NVAR];
      physics_flux_normal(dim, d->gamma, Ue, n, Fe);
      physics_flux_normal(dim, d->gamma, Uo, n, Fo);
      const double *phi = d->face_phi + d->face_table[s][lf][o] + (int64_t)q * nb;
      for (int v = 0; v < nv; ++v) {
        const double h =
            d->face_wsJ[k] * (0.5 * (Fe[v] + Fo[v]) - 0.5 * lambda[k] * (Uo[v] - Ue[v]));
        for (int m = 0; m < nb; ++m) out[v * nb + m] += h * phi[m];
      }
    }
  }
}

/* Max over entries of |K − FD| / max |K| for one element's block, where FD
 * is the central difference of g(U_e) (sign: K ≈ sign ∂g/∂U_e). */
typedef void (*block_function)(const dg_disc_view *d, int64_t e, const double *U, void *aux,
                               double *out);

static double fd_block_error(const dg_disc_view *d, int64_t e, double *U, const double *K,
                             double sign, block_function g, void *aux) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, n = nv * nb;
  double gp[LUSGS_MAX_BLOCK], gm[LUSGS_MAX_BLOCK];
  double err = 0.0, scale = 0.0;
  for (int i = 0; i < n * n; ++i) scale = fmax(scale, fabs(K[i]));
  for (int w = 0; w < nv; ++w)
    for (int k = 0; k < nb; ++k) {
      const int64_t idx = disc_coef_index(d, e, w, k);
      const double u0 = U[idx], h = 1e-6 * fmax(1.0, fabs(u0));
      U[idx] = u0 + h;
      g(d, e, U, aux, gp);
      U[idx] = u0 - h;
      g(d, e, U, aux, gm);
      U[idx] = u0;
      const int col = w * nb + k;
      for (int row = 0; row < n; ++row) {
        const double fd = sign * (gp[row] - gm[row]) / (2.0 * h);
        err = fmax(err, fabs(K[row * n + col] - fd));
      }
    }
  return err / scale;
}

typedef struct {
  double *R, *zero_flux;
} volume_aux;

/* The volume part of R_e (residual_element with an all-zero face flux). */
static void volume_residual(const dg_disc_view *d, int64_t e, const double *U, void *aux,
                            double *out) {
  volume_aux *a = aux;
  residual_element(d, e, U, a->zero_flux, a->R);
  residual_load(d, a->R, e, out);
}

static void face_sum(const dg_disc_view *d, int64_t e, const double *U, void *aux, double *out) {
  approx_face_sum(d, e, U, (const double *)aux, out);
}

typedef struct {
  double *R, *face_flux;
} full_aux;

static void full_residual(const dg_disc_view *d, int64_t e, const double *U, void *aux,
                          double *out) {
  full_aux *a = aux;
  for (int64_t f = 0; f < d->n_faces; ++f) residual_face(d, NULL, f, U, 0.0, a->face_flux);
  residual_element(d, e, U, a->face_flux, a->R);
  residual_load(d, a->R, e, out);
}

/* Max over the face neighbours j of e of |A_ej − (−∂R_e/∂U_j)_FD| / max|A_ej|:
 * A_ej's columns from lusgs_offdiag_add_jac applied to unit vectors. */
static double offdiag_error(const dg_disc_view *d, int64_t e, double *U, const double *face_jac,
                            full_aux *fa, double *dU) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, n = nv * nb;
  int32_t *color = calloc((size_t)d->n_elems, sizeof *color);
  color[e] = 1; /* every neighbour is "lower" */
  double err = 0.0, scale = 0.0;
  for (int lf = 0; lf < shape_n_faces((dg_shape)s); ++lf) {
    int side;
    const int64_t f = lusgs_face_side(d, e, lf, &side);
    const int64_t j = d->face_elem[2 * f + 1 - side];
    if (j < 0 || j == e) continue;
    const int nbj = d->nb[d->elem_shape[j]];
    for (int w = 0; w < nv; ++w)
      for (int k = 0; k < nbj; ++k) {
        const int64_t idx = disc_coef_index(d, j, w, k);
        double a[LUSGS_MAX_BLOCK] = {0}, gp[LUSGS_MAX_BLOCK], gm[LUSGS_MAX_BLOCK];
        memset(dU, 0, (size_t)d->n_coefs * sizeof *dU);
        dU[idx] = 1.0;
        lusgs_offdiag_add_jac(d, e, dU, face_jac, color, LUSGS_LOWER, a);
        const double u0 = U[idx], h = 1e-6 * fmax(1.0, fabs(u0));
        U[idx] = u0 + h;
        full_residual(d, e, U, fa, gp);
        U[idx] = u0 - h;
        full_residual(d, e, U, fa, gm);
        U[idx] = u0;
        for (int r = 0; r < n; ++r) {
          const double fd = -(gp[r] - gm[r]) / (2.0 * h);
          err = fmax(err, fabs(a[r] - fd));
          scale = fmax(scale, fabs(a[r]));
        }
      }
  }
  free(color);
  return scale > 0.0 ? err / scale : 0.0;
}

static void test_blocks_on(const char *what, const problem_spec *ps) {
  problem pb;
  if (!problem_build(&pb, ps)) return;
  perturb(&pb, 0.02);
  const dg_disc_view *d = &pb.disc.view;
  const int64_t nfq = d->n_faces * d->nqf;
  double *lambda = calloc((size_t)nfq, sizeof *lambda);
  double *R = calloc((size_t)d->n_coefs, sizeof *R);
  double *zero = calloc((size_t)nfq * d->nvar, sizeof *zero);
  double *flux = calloc((size_t)nfq * d->nvar, sizeof *flux);
  double *K = malloc(LUSGS_MAX_BLOCK * LUSGS_MAX_BLOCK * sizeof *K);
  double *K2 = malloc(LUSGS_MAX_BLOCK * LUSGS_MAX_BLOCK * sizeof *K2);
  double *face_jac = calloc((size_t)nfq * 2 * d->nvar * d->nvar, sizeof *face_jac);
  double *dU = calloc((size_t)d->n_coefs, sizeof *dU);
  for (int64_t f = 0; f < d->n_faces; ++f) lusgs_face_lambda(d, NULL, f, pb.U.data, 0.0, lambda);
  for (int64_t f = 0; f < d->n_faces; ++f)
    lusgs_face_jacobians(d, NULL, f, pb.U.data, 0.0, 0, face_jac);
  /* forward differences ([solver] face_jacobian = forward): near the
   * central ones, not equal to them */
  double *face_jac_fwd = calloc((size_t)nfq * 2 * d->nvar * d->nvar, sizeof *face_jac_fwd);
  for (int64_t f = 0; f < d->n_faces; ++f)
    lusgs_face_jacobians(d, NULL, f, pb.U.data, 0.0, 1, face_jac_fwd);
  double fwd_diff = 0.0, fwd_scale = 0.0;
  for (int64_t i = 0; i < nfq * 2 * d->nvar * d->nvar; ++i) {
    fwd_diff = fmax(fwd_diff, fabs(face_jac_fwd[i] - face_jac[i]));
    fwd_scale = fmax(fwd_scale, fabs(face_jac[i]));
  }
  const double fwd_rel = fwd_scale > 0.0 ? fwd_diff / fwd_scale : fwd_diff;
  TEST_CHECK(fwd_rel <= 1e-6 && fwd_rel > 0.0,
             "%s: forward vs central face Jacobians differ by %.3g relative (expected (0, 1e-6])",
             what, fwd_rel);
  double worst_vol = 0.0, worst_face = 0.0, worst_mass = 0.0, worst_lu = 0.0, gap = 0.0;
  double worst_diag_fwd = 0.0;
  double worst_diag = 0.0, worst_off = 0.0;
  const int64_t stride = d->n_elems > 12 ? d->n_elems / 12 : 1;
  for (int64_t e = 0; e < d->n_elems; e += stride) {
    const int n = lusgs_block_size(d, e), nb = n / d->nvar;
    /* volume: exact Jacobian */
    lusgs_block_mass(d, e, 0.0, K);
    lusgs_block_add_volume(d, e, pb.U.data, K);
    volume_aux va = {R, zero};
    const double ev = fd_block_error(d, e, pb.U.data, K, -1.0, volume_residual, &va);
    worst_vol = fmax(worst_vol, ev);
    /* faces: the frozen-λ approximation */
    lusgs_block_mass(d, e, 0.0, K);
    lusgs_block_add_faces(d, NULL, e, pb.U.data, lambda, 0.0, K);
    const double ef = fd_block_error(d, e, pb.U.data, K, 1.0, face_sum, lambda);
    worst_face = fmax(worst_face, ef);
    /* how far the approximate D is from the true Jacobian of the Roe residual (reported) */
    lusgs_block_assemble(d, NULL, e, pb.U.data, lambda, 0.0, INFINITY, K);
    full_aux fa = {R, flux};
    gap = fmax(gap, fd_block_error(d, e, pb.U.data, K, -1.0, full_residual, &fa));
    /* the consistent blocks: D_e (Δt = ∞) and A_ej against the true Jacobian of the residual */
    lusgs_block_assemble_jac(d, e, pb.U.data, face_jac, INFINITY, K);
    worst_diag = fmax(worst_diag, fd_block_error(d, e, pb.U.data, K, -1.0, full_residual, &fa));
    lusgs_block_assemble_jac(d, e, pb.U.data, face_jac_fwd, INFINITY, K);
    worst_diag_fwd =
        fmax(worst_diag_fwd, fd_block_error(d, e, pb.U.data, K, -1.0, full_residual, &fa));
    worst_off = fmax(worst_off, offdiag_error(d, e, pb.U.data, face_jac, &fa, dU));
    /* mass block times the stored inverse mass is the identity */
    lusgs_block_mass(d, e, 1.0, K);
    for (int i = 0; i < nb; ++i) {
      double col[DG_MAX_NVAR * DG_MAX_BASIS] = {0}, out[DG_MAX_NVAR * DG_MAX_BASIS];
      for (int r = 0; r < n; ++r) col[r] = K[r * n + i]; /* M e_i (variable 0) */
      residual_apply_minv(d, e, col, out);
      for (int r = 0; r < n; ++r) worst_mass = fmax(worst_mass, fabs(out[r] - (r == i)));
    }
    /* LU factors solve the assembled block */
    lusgs_block_assemble_jac(d, e, pb.U.data, face_jac, 0.05, K);
    memcpy(K2, K, (size_t)n * n * sizeof *K);
    int32_t piv[LUSGS_MAX_BLOCK];
    TEST_CHECK(lusgs_lu_factor(n, K2, piv) < 0, "%s: block of element %lld is singular", what,
               (long long)e);
    double x[LUSGS_MAX_BLOCK], b[LUSGS_MAX_BLOCK];
    for (int i = 0; i < n; ++i) x[i] = b[i] = cos(0.37 * i);
    lusgs_lu_solve(n, K2, piv, x);
    double res = 0.0, bn = 0.0;
    for (int i = 0; i < n; ++i) {
      double sum = 0.0;
      for (int j = 0; j < n; ++j) sum += K[i * n + j] * x[j];
      res = fmax(res, fabs(sum - b[i]));
      bn = fmax(bn, fabs(b[i]));
    }
    worst_lu = fmax(worst_lu, res / bn);
  }
  TEST_CHECK(worst_vol <= 1e-6, "%s: volume Jacobian vs FD relative error %.3g", what, worst_vol);
  TEST_CHECK(worst_face <= 1e-6, "%s: face Jacobian vs FD of the frozen-λ flux: %.3g", what,
             worst_face);
  TEST_CHECK(worst_mass <= 1e-11, "%s: mass block times M⁻¹ differs from I by %.3g", what,
             worst_mass);
  TEST_CHECK(worst_lu <= 1e-12, "%s: LU solve residual %.3g", what, worst_lu);
  TEST_CHECK(worst_diag <= 1e-6, "%s: consistent D_e vs FD of the residual: %.3g", what,
             worst_diag);
  TEST_CHECK(worst_off <= 1e-6, "%s: consistent A_ej vs FD of the residual: %.3g", what, worst_off);
  TEST_CHECK(worst_diag_fwd <= 1e-6,
             "%s: D_e with forward-difference face Jacobians vs FD of the residual: %.3g", what,
             worst_diag_fwd);
  TEST_CHECK(gap >= 0.1,
             "%s: the dissipative approximation should differ from the true "
             "Jacobian (gap %.3g): is the comparison blind?",
             what, gap);
  printf("blocks %-28s p=%d: volume vs FD %.2e, faces vs FD (frozen λ) %.2e, mass %.1e, LU %.1e; "
         "consistent vs true Jacobian: D %.2e, A_ej %.2e; dissipative approximation vs true "
         "(reported) %.2e; forward-difference face Jacobians: vs central %.2e, D %.2e\n",
         what, ps->p, worst_vol, worst_face, worst_mass, worst_lu, worst_diag, worst_off, gap,
         fwd_rel, worst_diag_fwd);
  free(lambda);
  free(R);
  free(zero);
  free(flux);
  free(K);
  free(K2);
  free(face_jac);
  free(face_jac_fwd);
  free(dU);
  problem_free(&pb);
}

static void test_blocks(void) {
  problem_spec ps;
  memset(&ps, 0, sizeof ps);
  ps.mo = mesh_structured_defaults(2);
  ps.mo.kind = MESH_STRUCTURED_MIXED;
  ps.mo.order = 2;
  ps.mo.n[0] = 4;
  ps.mo.n[1] = 3;
  ps.mo.deform = 0.04;
  ps.mach = 0.5;
  ps.alpha_deg = 10.0;
  ps.wall_groups[0] = "ymin";
  for (int p = 1; p <= 3; p += 2) {
    ps.p = p;
    test_blocks_on("curved mixed, wall+far field", &ps);
  }
  /* straight elements of geometric order 2 (the triangles affine) with
   * their lower rule: the blocks are the Jacobian of that residual */
  problem_spec pa = ps;
  pa.mo.deform = 0.0;
  pa.affine_reduced = 1;
  pa.p = 2;
  test_blocks_on("straight q=2, affine rule", &pa);
  problem_spec pv = ps;
  pv.vortex = 1;
  pv.mo.periodic[0] = 1;
  pv.mo.n[0] = 3;
  pv.mo.lo[0] = pv.mo.lo[1] = -5.0;
  pv.mo.hi[0] = pv.mo.hi[1] = 5.0;
  pv.p = 2;
  test_blocks_on("periodic x, exact BC", &pv);
}

/* ------------------------------------- (2) sweeps against serial SGS */

/* A_ej ΔU_j for the face neighbour j of e, written plainly: search the
 * faces shared by e and j, apply the stored flux Jacobian of j's side,
 * σ = +1 when e is side 0 (R_e subtracts side 0's flux), −1 else. */
static void plain_offdiag(const dg_disc_view *d, int64_t e, int64_t j, const double *dU,
                          const double *face_jac, double *out) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar;
  for (int64_t f = 0; f < d->n_interior; ++f) {
    const int64_t a = d->face_elem[2 * f], b = d->face_elem[2 * f + 1];
    if (!((a == e && b == j) || (a == j && b == e))) continue;
    const int side_e = a == e ? 0 : 1;
    for (int q = 0; q < d->nqf; ++q) {
      const int64_t k = f * d->nqf + q;
      double dUj[DG_MAX_NVAR];
      const int oj = side_e ? 0 : d->face_orient[f];
      residual_trace(d, dU, j, d->face_local[2 * f + 1 - side_e], oj, q, dUj);
      const double *J = face_jac + (k * 2 + 1 - side_e) * nv * nv;
      const double *phi =
          d->face_phi +
          d->face_table[s][d->face_local[2 * f + side_e]][side_e ? d->face_orient[f] : 0] +
          (int64_t)q * nb;
      for (int v = 0; v < nv; ++v) {
        double jd = 0.0;
        for (int w = 0; w < nv; ++w) jd += J[v * nv + w] * dUj[w];
        for (int m = 0; m < nb; ++m)
          out[v * nb + m] += (side_e ? -1.0 : 1.0) * d->face_wsJ[k] * jd * phi[m];
      }
    }
  }
}

/* ΔU_e = D_e⁻¹ (R_e − Σ_{j: take(j)} A_ej ΔU_j) of one element, plainly. */
static void plain_update(const dg_disc_view *d, int64_t e, const double *R, double *dU,
                         const double *face_jac, const double *blocks, const int32_t *piv,
                         const int32_t *color, int which) {
  const int n = lusgs_block_size(d, e), nb = n / d->nvar;
  double x[LUSGS_MAX_BLOCK], a[LUSGS_MAX_BLOCK] = {0};
  residual_load(d, R, e, x);
  for (int64_t j = 0; j < d->n_elems; ++j)
    if (which == LUSGS_ALL || (which == LUSGS_LOWER ? color[j] < color[e] : color[j] > color[e]))
      plain_offdiag(d, e, j, dU, face_jac, a);
  if (which == LUSGS_UPPER) { /* backward: ΔU_e −= D⁻¹ Σ_U A ΔU */
    lusgs_lu_solve(n, blocks + e * LUSGS_MAX_BLOCK * LUSGS_MAX_BLOCK, piv + e * LUSGS_MAX_BLOCK, a);
    for (int v = 0; v < d->nvar; ++v)
      for (int m = 0; m < nb; ++m) dU[disc_coef_index(d, e, v, m)] -= a[v * nb + m];
    return;
  }
  for (int r = 0; r < n; ++r) x[r] -= a[r];
  lusgs_lu_solve(n, blocks + e * LUSGS_MAX_BLOCK * LUSGS_MAX_BLOCK, piv + e * LUSGS_MAX_BLOCK, x);
  for (int v = 0; v < d->nvar; ++v)
    for (int m = 0; m < nb; ++m) dU[disc_coef_index(d, e, v, m)] = x[v * nb + m];
}

/* One serial LU-SGS step with n_sweeps symmetric sweeps: elements in order
 * of (colour, index); the first sweep is the classic forward/backward pair,
 * the others relax every element with all its neighbours' current values,
 * upwards then downwards. Returns ΔU. */
static void plain_sgs(const problem *pb, const int32_t *color, double cfl, int n_sweeps,
                      double *dU) {
  const dg_backend *b = backend_cpu();
  const dg_disc_view *d = &pb->disc.view;
  const int64_t ne = d->n_elems;
  double *R = calloc((size_t)d->n_coefs, sizeof *R), *dt = calloc((size_t)ne, sizeof *dt);
  double *face_jac =
      calloc((size_t)(d->n_faces * d->nqf * 2 * d->nvar * d->nvar), sizeof *face_jac);
  double *blocks = malloc((size_t)ne * LUSGS_MAX_BLOCK * LUSGS_MAX_BLOCK * sizeof *blocks);
  int32_t *piv = malloc((size_t)ne * LUSGS_MAX_BLOCK * sizeof *piv);
  int64_t *order = malloc((size_t)ne * sizeof *order);
  double dtmin;
  TEST_OK(
      dg_backend_residual(b, pb->ctx, &pb->U, 0.0, BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, R)));
  TEST_OK(dg_backend_timestep(b, pb->ctx, &pb->U, cfl, 0,
                              BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_ELEM, dt), &dtmin));
  for (int64_t f = 0; f < d->n_faces; ++f)
    lusgs_face_jacobians(d, NULL, f, pb->U.data, 0.0, 0, face_jac);
  for (int64_t e = 0; e < ne; ++e) {
    double *K = blocks + e * LUSGS_MAX_BLOCK * LUSGS_MAX_BLOCK;
    lusgs_block_assemble_jac(d, e, pb->U.data, face_jac, dt[e], K);
    lusgs_lu_factor(lusgs_block_size(d, e), K, piv + e * LUSGS_MAX_BLOCK);
  }
  /* insertion sort by (colour, index) */
  for (int64_t e = 0; e < ne; ++e) {
    int64_t i = e;
    while (i > 0 && color[order[i - 1]] > color[e]) {
      order[i] = order[i - 1];
      --i;
    }
    order[i] = e;
  }
  memset(dU, 0, (size_t)d->n_coefs * sizeof *dU);
  for (int64_t i = 0; i < ne; ++i) /* forward */
    plain_update(d, order[i], R, dU, face_jac, blocks, piv, color, LUSGS_LOWER);
  for (int64_t i = ne - 1; i >= 0; --i) /* backward */
    plain_update(d, order[i], R, dU, face_jac, blocks, piv, color, LUSGS_UPPER);
  for (int sweep = 1; sweep < n_sweeps; ++sweep) {
    for (int64_t i = 0; i < ne; ++i)
      plain_update(d, order[i], R, dU, face_jac, blocks, piv, color, LUSGS_ALL);
    for (int64_t i = ne - 1; i >= 0; --i)
      plain_update(d, order[i], R, dU, face_jac, blocks, piv, color, LUSGS_ALL);
  }
  free(R);
  free(dt);
  free(face_jac);
  free(blocks);
  free(piv);
  free(order);
}

static void check_sweeps(problem *pb, const dg_coloring *col, int n_sweeps, const char *what) {
  const dg_backend *b = backend_cpu();
  const dg_disc_view *d = &pb->disc.view;
  const int64_t nc = d->n_coefs;
  double *U0 = malloc((size_t)nc * sizeof *U0), *dU_plain = malloc((size_t)nc * sizeof *U0);
  memcpy(U0, pb->U.data, (size_t)nc * sizeof *U0);
  const double cfl = 50.0;
  plain_sgs(pb, col->color, cfl, n_sweeps, dU_plain);
  lusgs_marcher lm;
  TEST_OK(lusgs_create(b, pb->ctx, &pb->disc, col, &lm));
  const lusgs_opts lo = {LUSGS_CFL_EXPONENTIAL, cfl, cfl, 1, n_sweeps, 0.0, 0.0, 1};
  lusgs_info info;
  TEST_OK(lusgs_step(&lm, &pb->U, 0.0, 1, &lo, &info));
  double err = 0.0;
  for (int64_t i = 0; i < nc; ++i) err = fmax(err, fabs((pb->U.data[i] - U0[i]) - dU_plain[i]));
  const double scale = max_abs(dU_plain, nc);
  TEST_CHECK(err <= 1e-13 * scale && scale > 0.0,
             "%s: coloured sweeps differ from the serial SGS step by %.3g (|dU| %.3g)", what, err,
             scale);
  printf("sweeps %-36s %5d colours, %d sweep(s): max |dU - dU_serial| = %.2e (|dU| = %.2e)\n", what,
         col->n_colors, n_sweeps, err, scale);
  lusgs_destroy(&lm);
  memcpy(pb->U.data, U0, (size_t)nc * sizeof *U0);
  free(U0);
  free(dU_plain);
}

/* The relax op: one pass over colours 0..Nc−1 from ΔU = 0 equals the
 * forward sweep, and a pass over Nc−1..0 after it equals the backward one. */
static void check_relax(problem *pb) {
  const dg_backend *b = backend_cpu();
  const dg_disc_view *d = &pb->disc.view;
  const int64_t nc = d->n_coefs;
  lusgs_marcher lm;
  TEST_OK(lusgs_create(b, pb->ctx, &pb->disc, &pb->col, &lm));
  double dtmin;
  double *sweep = calloc((size_t)nc, sizeof *sweep), *relax = calloc((size_t)nc, sizeof *relax);
  TEST_OK(dg_backend_residual(b, pb->ctx, &pb->U, 0.0, &lm.R));
  TEST_OK(dg_backend_timestep(b, pb->ctx, &pb->U, 50.0, 0, &lm.dt, &dtmin));
  TEST_OK(lusgs_backend_assemble(&lm, &pb->U, 0.0, &lm.dt));
  const int ncol = pb->col.n_colors;
  dg_vec *vsweep = BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, sweep);
  dg_vec *vrelax = BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, relax);
  for (int c = 0; c < ncol; ++c)
    TEST_OK(lusgs_backend_sweep_forward(&lm, c, &pb->U, &lm.R, vsweep));
  for (int c = 0; c < ncol; ++c) TEST_OK(lusgs_backend_relax(&lm, c, &pb->U, &lm.R, vrelax));
  double ef = 0.0, eb = 0.0;
  for (int64_t i = 0; i < nc; ++i) ef = fmax(ef, fabs(sweep[i] - relax[i]));
  const double sf = max_abs(sweep, nc);
  double *fwd = malloc((size_t)nc * sizeof *fwd);
  memcpy(fwd, sweep, (size_t)nc * sizeof *fwd);
  for (int c = ncol - 1; c >= 0; --c) TEST_OK(lusgs_backend_sweep_backward(&lm, c, &pb->U, vsweep));
  for (int c = ncol - 1; c >= 0; --c) TEST_OK(lusgs_backend_relax(&lm, c, &pb->U, &lm.R, vrelax));
  for (int64_t i = 0; i < nc; ++i) eb = fmax(eb, fabs(sweep[i] - relax[i]));
  const double sb = max_abs(sweep, nc);
  /* the backward sweep changed ΔU, so the second comparison is not the first again */
  double moved = 0.0;
  for (int64_t i = 0; i < nc; ++i) moved = fmax(moved, fabs(sweep[i] - fwd[i]));
  TEST_CHECK(moved > 1e-3 * sb, "the backward sweep changed ΔU by only %.3g", moved);
  TEST_CHECK(sf > 0.0 && ef <= 1e-13 * sf,
             "relax upwards from 0 vs forward sweep: %.3g (|dU| %.3g)", ef, sf);
  TEST_CHECK(sb > 0.0 && eb <= 1e-13 * sb, "relax downwards vs backward sweep: %.3g (|dU| %.3g)",
             eb, sb);
  printf("relax: upwards from 0 = forward sweep to %.1e, downwards = backward sweep to %.1e "
         "(|dU| %.2e, %.2e; the backward sweep moved ΔU by %.2e)\n",
         ef, eb, sf, sb, moved);
  free(fwd);
  free(sweep);
  free(relax);
  lusgs_destroy(&lm);
}

/* A profile hook that records the phases lusgs_step marks. */
typedef struct {
  int n;
  lusgs_phase phase[64];
} phase_log;

static dg_status log_phase(void *user, lusgs_phase phase) {
  phase_log *log = user;
  if (log->n < 64) log->phase[log->n] = phase;
  ++log->n;
  return DG_SUCCESS;
}

/* lusgs_apply on its own: with the blocks lusgs_step left, it gives the
 * step's ΔU bit for bit; it is linear (twice the right-hand side gives twice
 * ΔU exactly); more sweeps converge (the change from n to n + 1 sweeps falls
 * by a factor over every 4 sweeps); the step marks its phases in order on an
 * attached hook. */
static void check_apply(problem *pb) {
  const dg_backend *b = backend_cpu();
  const dg_disc_view *d = &pb->disc.view;
  const int64_t nc = d->n_coefs;
  const int n_sweeps = 3;
  double *U0 = malloc((size_t)nc * sizeof *U0), *dU = malloc((size_t)nc * sizeof *dU);
  double *R2 = malloc((size_t)nc * sizeof *R2), *prev = malloc((size_t)nc * sizeof *prev);
  memcpy(U0, pb->U.data, (size_t)nc * sizeof *U0);
  lusgs_marcher lm;
  TEST_OK(lusgs_create(b, pb->ctx, &pb->disc, &pb->col, &lm));
  phase_log log;
  memset(&log, 0, sizeof log);
  const lusgs_phase_hook hook = {log_phase, &log};
  lusgs_set_phase_hook(&lm, &hook);
  const lusgs_opts lo = {LUSGS_CFL_EXPONENTIAL, 50.0, 50.0, 1, n_sweeps, 0.0, 0.0, 1};
  lusgs_info info;
  TEST_OK(lusgs_step(&lm, &pb->U, 0.0, 1, &lo, &info));
  lusgs_set_phase_hook(&lm, NULL);
  /* AV_HOLD .. FACE_JAC, (FORWARD, BACKWARD) per sweep, UPDATE, end */
  const int expect_n = 5 + 2 * n_sweeps + 2;
  int order_ok = log.n == expect_n;
  for (int k = 0; order_ok && k < expect_n; ++k) {
    const lusgs_phase want = k < 5 ? (lusgs_phase)k
                             : k < 5 + 2 * n_sweeps
                                 ? (k - 5) % 2 ? LUSGS_PHASE_BACKWARD : LUSGS_PHASE_FORWARD
                             : k == expect_n - 2 ? LUSGS_PHASE_UPDATE
                                                 : LUSGS_N_PHASES;
    order_ok = log.phase[k] == want;
  }
  TEST_CHECK(order_ok, "lusgs_step marked %d phases (expected %d in order)", log.n, expect_n);
  TEST_CHECK(!strcmp(lusgs_phase_name(LUSGS_PHASE_FORWARD), "forward"), "phase name '%s'",
             lusgs_phase_name(LUSGS_PHASE_FORWARD));

  /* the step's ΔU again, from lusgs_apply alone (U0: the state it assembled at) */
  TEST_OK(lusgs_apply(&lm, BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, U0), &lm.R, n_sweeps,
                      BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, dU)));
  int64_t differ = 0;
  for (int64_t i = 0; i < nc; ++i) differ += dU[i] != lm.dU.data[i];
  const double scale = max_abs(dU, nc);
  TEST_CHECK(scale > 0.0 && differ == 0,
             "lusgs_apply: %lld of %lld coefficients differ from lusgs_step's dU (|dU| %.3g)",
             (long long)differ, (long long)nc, scale);
  /* linear: twice the right-hand side, twice ΔU (exact in binary) */
  for (int64_t i = 0; i < nc; ++i) R2[i] = 2.0 * lm.R.data[i];
  TEST_OK(lusgs_apply(&lm, BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, U0),
                      BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, R2), n_sweeps,
                      BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, prev)));
  differ = 0;
  for (int64_t i = 0; i < nc; ++i) differ += prev[i] != 2.0 * dU[i];
  TEST_CHECK(differ == 0, "lusgs_apply(2 rhs) != 2 lusgs_apply(rhs) at %lld coefficients",
             (long long)differ);
  TEST_FAILS(lusgs_apply(&lm, BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, U0),
                         BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, dU), 1,
                         BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, dU)),
             DG_ERR_ARG, "aliases");
  /* symmetric Gauss–Seidel converges: |ΔU_(n+1) − ΔU_n| falls with n */
  double change[24];
  TEST_OK(lusgs_apply(&lm, BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, U0), &lm.R, 1,
                      BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, prev)));
  for (int k = 0; k < 24; ++k) {
    TEST_OK(lusgs_apply(&lm, BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, U0), &lm.R, k + 2,
                        BACKEND_CPU_VEC(b, pb->ctx, DG_VEC_STATE, dU)));
    double c = 0.0;
    for (int64_t i = 0; i < nc; ++i) c = fmax(c, fabs(dU[i] - prev[i]));
    change[k] = c;
    memcpy(prev, dU, (size_t)nc * sizeof *dU);
  }
  /* (in the max norm the change need not fall at every sweep) */
  for (int k = 4; k < 24; ++k)
    TEST_CHECK(change[k] < change[k - 4],
               "lusgs_apply: the change from %d to %d sweeps (%.3g) is not below the one 4 "
               "sweeps before (%.3g)",
               k + 1, k + 2, change[k], change[k - 4]);
  TEST_CHECK(change[23] < 1e-5 * change[0], "lusgs_apply: sweeps converge slowly (%.3g -> %.3g)",
             change[0], change[23]);
  printf("apply: = lusgs_step's dU bit for bit, linear; |dU(n+1) - dU(n)| %.2e -> %.2e for n = 1 "
         "-> 24 (|dU| %.2e)\n",
         change[0], change[23], scale);
  lusgs_destroy(&lm);
  memcpy(pb->U.data, U0, (size_t)nc * sizeof *U0);
  free(U0);
  free(dU);
  free(R2);
  free(prev);
}

/* The marcher interface (src/dg/marcher.h): a step through either table
 * gives the bits of the direct call (lusgs_step, explicit_rk3_step) and a
 * marcher-neutral info (time advanced, CFL, norms); stats count the steps;
 * only the explicit marcher is time accurate. */
static void check_marchers(problem *pb) {
  const dg_backend *b = backend_cpu();
  const dg_disc_view *d = &pb->disc.view;
  const int64_t nc = d->n_coefs;
  double *U0 = malloc((size_t)nc * sizeof *U0), *U1 = malloc((size_t)nc * sizeof *U1);
  memcpy(U0, pb->U.data, (size_t)nc * sizeof *U0);
  dg_marcher_settings set;
  memset(&set, 0, sizeof set);
  set.cfl = 0.5;
  set.local_dt = 0;
  set.cfl_law = LUSGS_CFL_EXPONENTIAL;
  set.cfl_min = 5.0;
  set.cfl_max = 50.0;
  set.cfl_ramp_iters = 4;
  set.n_sweeps = 2;
  set.coloring = &pb->col;

  /* LU-SGS: two iterations (the ramp moves) against lusgs_step */
  lusgs_marcher lm;
  TEST_OK(lusgs_create(b, pb->ctx, &pb->disc, &pb->col, &lm));
  const lusgs_opts lo = {LUSGS_CFL_EXPONENTIAL, 5.0, 50.0, 4, 2, 0.0, 0.0, 1};
  lusgs_info li;
  TEST_OK(lusgs_step(&lm, &pb->U, 0.0, 1, &lo, &li));
  TEST_OK(lusgs_step(&lm, &pb->U, 0.0, 2, &lo, &li));
  memcpy(U1, pb->U.data, (size_t)nc * sizeof *U1);
  lusgs_destroy(&lm);
  memcpy(pb->U.data, U0, (size_t)nc * sizeof *U0);
  dg_marcher m;
  TEST_OK(dg_marcher_create(lusgs_marcher_ops(), b, pb->ctx, &pb->disc, &set, &m));
  TEST_CHECK(lusgs_marcher_of(&m) != NULL && !m.ops->time_accurate && !m.ops->stable_step &&
                 !strcmp(m.ops->name, "lusgs"),
             "the LU-SGS marcher table");
  dg_marcher_info info;
  dg_marcher_step_opts so = {.t = 0.0, .iteration = 1};
  TEST_OK(dg_marcher_step(&m, &pb->U, &so, &info));
  so.iteration = 2;
  TEST_OK(dg_marcher_step(&m, &pb->U, &so, &info));
  int64_t differ = 0;
  for (int64_t i = 0; i < nc; ++i) differ += pb->U.data[i] != U1[i];
  TEST_CHECK(differ == 0, "LU-SGS through the marcher table: %lld coefficients differ",
             (long long)differ);
  TEST_CHECK(info.dt == 0.0 && info.cfl == li.cfl && info.has_norms && info.finite &&
                 info.res_total == li.res_total && info.res_norm[0] == li.res_norm[0] &&
                 info.iteration == 2 && info.dt_min == li.dt_min && !info.diverged,
             "LU-SGS marcher info: dt %g cfl %g (%g) |R| %g (%g)", info.dt, info.cfl, li.cfl,
             info.res_total, li.res_total);
  dg_marcher_stats stats;
  TEST_OK(m.ops->stats(&m, 1, &stats));
  TEST_CHECK(stats.steps == 2 && stats.residuals == 2 && stats.res_reference > 0.0 &&
                 !stats.has_limiter,
             "LU-SGS marcher stats: %lld steps, %lld residuals, |R_0| %g", (long long)stats.steps,
             (long long)stats.residuals, stats.res_reference);
  dg_marcher_destroy(&m);
  TEST_CHECK(m.ops == NULL && m.impl == NULL, "dg_marcher_destroy zeroes the marcher");
  dg_marcher_destroy(&m); /* safe twice */

  /* SSP-RK3, global step: against explicit_rk3_step */
  memcpy(pb->U.data, U0, (size_t)nc * sizeof *U0);
  explicit_rk3 rk;
  TEST_OK(explicit_rk3_create(b, pb->ctx, &pb->disc, &rk));
  const explicit_rk3_opts ro = {.cfl = 0.5, .compute_norms = 1};
  explicit_rk3_info ri;
  TEST_OK(explicit_rk3_step(&rk, &pb->U, 0.0, &ro, &ri));
  memcpy(U1, pb->U.data, (size_t)nc * sizeof *U1);
  explicit_rk3_destroy(&rk);
  memcpy(pb->U.data, U0, (size_t)nc * sizeof *U0);
  TEST_OK(dg_marcher_create(explicit_rk3_marcher_ops(), b, pb->ctx, &pb->disc, &set, &m));
  TEST_CHECK(lusgs_marcher_of(&m) == NULL && m.ops->time_accurate && m.ops->stable_step,
             "the SSP-RK3 marcher table");
  double h = 0.0;
  TEST_OK(m.ops->stable_step(&m, &pb->U, &h));
  so = (dg_marcher_step_opts){.t = 0.0, .iteration = 1, .compute_norms = 1};
  TEST_OK(dg_marcher_step(&m, &pb->U, &so, &info));
  differ = 0;
  for (int64_t i = 0; i < nc; ++i) differ += pb->U.data[i] != U1[i];
  TEST_CHECK(differ == 0, "SSP-RK3 through the marcher table: %lld coefficients differ",
             (long long)differ);
  TEST_CHECK(info.dt == ri.dt && h == ri.dt && info.dt > 0.0 && info.cfl == 0.5 && info.has_norms &&
                 info.res_norm[0] == ri.res_norm[0],
             "SSP-RK3 marcher info: dt %g (%g, stable %g), cfl %g", info.dt, ri.dt, h, info.cfl);
  TEST_OK(m.ops->stats(&m, 1, &stats));
  TEST_CHECK(stats.steps == 1 && stats.residuals == 3 && stats.res_reference == 0.0,
             "SSP-RK3 marcher stats: %lld steps, %lld residuals", (long long)stats.steps,
             (long long)stats.residuals);
  dg_marcher_destroy(&m);
  /* local steps advance no time */
  set.local_dt = 1;
  TEST_OK(dg_marcher_create(explicit_rk3_marcher_ops(), b, pb->ctx, &pb->disc, &set, &m));
  TEST_OK(dg_marcher_step(&m, &pb->U, &so, &info));
  TEST_CHECK(info.dt == 0.0 && info.dt_min > 0.0, "SSP-RK3 local steps: dt %g, smallest %g",
             info.dt, info.dt_min);
  dg_marcher_destroy(&m);
  printf("marchers: LU-SGS and SSP-RK3 through dg_marcher = the direct calls bit for bit\n");
  memcpy(pb->U.data, U0, (size_t)nc * sizeof *U0);
  free(U0);
  free(U1);
}

static void test_sweeps(void) {
  problem_spec ps;
  memset(&ps, 0, sizeof ps);
  ps.mo = mesh_structured_defaults(2);
  ps.mo.kind = MESH_STRUCTURED_MIXED;
  ps.mo.order = 2;
  ps.mo.n[0] = 5;
  ps.mo.n[1] = 4;
  ps.mo.periodic[0] = 1;
  ps.mo.deform = 0.04;
  ps.mach = 0.5;
  ps.alpha_deg = 5.0;
  ps.wall_groups[0] = "ymin";
  ps.p = 2;
  problem pb;
  if (!problem_build(&pb, &ps)) return;
  perturb(&pb, 0.02);
  const int64_t ne = pb.disc.view.n_elems;
  int32_t *ident = malloc((size_t)ne * sizeof *ident);
  for (int64_t e = 0; e < ne; ++e) ident[e] = (int32_t)e;
  dg_coloring one_each;
  TEST_OK(coloring_from_colors(&pb.mesh, &pb.topo, ident, (int)ne, &one_each));
  check_sweeps(&pb, &one_each, 1, "one colour per element");
  check_sweeps(&pb, &pb.col, 1, "coloring_build (BFS from wall)");
  check_sweeps(&pb, &one_each, 3, "one colour per element");
  check_sweeps(&pb, &pb.col, 3, "coloring_build (BFS from wall)");
  coloring_free(&one_each);
  check_relax(&pb);
  check_apply(&pb);
  check_marchers(&pb);
  /* an invalid colouring is refused where it is made (the marcher takes the
   * checked object and does not check it again) */
  lusgs_marcher lm;
  int64_t e0 = pb.disc.view.face_elem[0], e1 = pb.disc.view.face_elem[1];
  ident[e1] = ident[e0];
  dg_coloring bad;
  TEST_FAILS(coloring_from_colors(&pb.mesh, &pb.topo, ident, (int)ne, &bad), DG_ERR_ARG,
             "joins elements");
  /* a colouring of another numbering, or one not made by src/coloring, is refused */
  dg_coloring other = pb.col;
  other.n_elems = ne - 1;
  TEST_FAILS(lusgs_create(backend_cpu(), pb.ctx, &pb.disc, &other, &lm), DG_ERR_ARG,
             "the colouring has");
  memset(&other, 0, sizeof other);
  other.n_colors = 2;
  other.n_elems = ne;
  other.color = ident;
  TEST_FAILS(lusgs_create(backend_cpu(), pb.ctx, &pb.disc, &other, &lm), DG_ERR_ARG,
             "no element lists");
  /* the LU-SGS operations come with the dg_backend table (its implicit_ops,
   * set by src/backends/backend_select.c): the CPU backend of the selection
   * layer carries the CPU ones; the bare table of src/dg has none, so
   * lusgs_create refuses it */
  TEST_CHECK(lusgs_backend_for(backend_cpu()) == lusgs_backend_cpu(),
             "backend_cpu() does not carry the CPU LU-SGS operations");
  TEST_CHECK(backend_cpu() == backend_cpu(), "backend_cpu() is not one table");
  TEST_CHECK(lusgs_backend_for(backend_cpu_table()) == NULL && lusgs_backend_for(NULL) == NULL,
             "a bare dg_backend table has LU-SGS operations");
  TEST_FAILS(lusgs_create(backend_cpu_table(), pb.ctx, &pb.disc, &pb.col, &lm), DG_ERR_UNSUPPORTED,
             "no LU-SGS operations");
  free(ident);
  problem_free(&pb);
}

/* ------------------------------------------------------ convergence */

typedef struct {
  int iterations;
  double drop, seconds, cl, cd;
} march_result;

/* LU-SGS until max over variables of log10(|R_v|/|R_v,0|) <= -drop. */
/* march_lusgs: the face Jacobians by forward differences
 * (lusgs_set_face_jacobian_forward) while set. */
static int march_forward;

static march_result march_lusgs(problem *pb, const lusgs_opts *lo, int max_iters, double drop,
                                int verbose) {
  march_result mr = {0};
  const dg_backend *b = test_backend;
  lusgs_marcher lm;
  TEST_OK(lusgs_create(b, pb->ctx, &pb->disc, &pb->col, &lm));
  if (march_forward) TEST_OK(lusgs_set_face_jacobian_forward(&lm, 1));
  double ref[DG_MAX_NVAR];
  const double start = seconds();
  for (int it = 1; it <= max_iters; ++it) {
    lusgs_info info;
    const dg_status st = lusgs_step(&lm, &pb->U, 0.0, it, lo, &info);
    TEST_OK(st);
    if (st != DG_SUCCESS) break;
    if (it == 1) memcpy(ref, info.res_norm, sizeof ref);
    double worst = -INFINITY;
    for (int v = 0; v < pb->disc.view.nvar; ++v)
      worst = fmax(worst, log10(info.res_norm[v] / ref[v]));
    mr.iterations = it;
    mr.drop = -worst;
    if (verbose && (it % 25 == 0 || it == 1))
      printf("  it %4d  CFL %9.3g  log10 drop %7.3f\n", it, info.cfl, worst);
    if (worst <= -drop) break;
  }
  mr.seconds = seconds() - start;
  lusgs_destroy(&lm);
  return mr;
}

/* Lift and drag coefficients (chord 1, ρ∞ = 1, |u∞| = M) of the groups. */
static void force_coefs(problem *pb, const char *group, double mach, double alpha_deg, double *cl,
                        double *cd) {
  uint8_t mask[16] = {0};
  for (int g = 0; g < pb->mesh.n_groups && g < 16; ++g)
    mask[g] = !strcmp(pb->mesh.groups[g].name, group);
  const double xref[3] = {0.25, 0, 0};
  double out[6];
  TEST_OK(dg_backend_forces(test_backend, pb->ctx, &pb->U, mask, xref, out));
  const double a = alpha_deg * DG_PI / 180.0, q = 0.5 * mach * mach;
  *cd = (out[0] * cos(a) + out[1] * sin(a)) / q;
  *cl = (-out[0] * sin(a) + out[1] * cos(a)) / q;
}

static void test_freestream_convergence(void) {
  problem_spec ps;
  memset(&ps, 0, sizeof ps);
  ps.mo = mesh_structured_defaults(2);
  ps.mo.kind = MESH_STRUCTURED_MIXED;
  ps.mo.order = 2;
  ps.mo.n[0] = 6;
  ps.mo.n[1] = 4;
  ps.mo.hi[0] = 4.0;
  ps.mo.hi[1] = 3.0;
  ps.mo.deform = 0.04;
  ps.mach = 0.5;
  ps.alpha_deg = 0.0;
  ps.wall_groups[0] = "ymin";
  ps.wall_groups[1] = "ymax";
  for (int p = 1; p <= 2; ++p) {
    ps.p = p;
    problem pb;
    if (!problem_build(&pb, &ps)) return;
    /* a smooth bump on the free stream */
    const int64_t nc = pb.disc.view.n_coefs;
    for (int64_t i = 0; i < nc; ++i) pb.h[i] *= 1.0 + 0.05 * sin(0.37 * (double)i);
    TEST_OK(dg_vec_upload(pb.h, &pb.U));
    const lusgs_opts lo = {LUSGS_CFL_EXPONENTIAL, 10.0, 1e4, 30, 1, 0.0, 0.0, 1};
    const march_result mr = march_lusgs(&pb, &lo, 600, 10.0, 0);
    TEST_CHECK(mr.drop >= 10.0, "free stream p=%d: residual drop %.2f orders after %d iterations",
               p, mr.drop, mr.iterations);
    double dev = 0.0;
    double *U0 = malloc((size_t)nc * sizeof *U0);
    TEST_OK(disc_project(&pb.disc, 0.0, U0));
    const double *U = problem_host(&pb);
    for (int64_t i = 0; i < nc; ++i) dev = fmax(dev, fabs(U[i] - U0[i]));
    TEST_CHECK(dev <= 1e-9, "free stream p=%d: converged state differs from U∞ by %.3g", p, dev);
    printf("free stream (curved mixed, walls + far field) p=%d: %.1f orders in %d iterations, "
           "%.2f s; |U - U_inf| = %.1e\n",
           p, mr.drop, mr.iterations, mr.seconds, dev);
    free(U0);
    problem_free(&pb);
  }
}

/* The stationary isentropic vortex with exact boundary states on 6 x 6
 * curved quads, p = 1 (tests 4, 5 and 6). */
static problem_spec vortex_spec(void) {
  problem_spec ps;
  memset(&ps, 0, sizeof ps);
  ps.mo = mesh_structured_defaults(2);
  ps.mo.kind = MESH_STRUCTURED_QUAD;
  ps.mo.n[0] = ps.mo.n[1] = 6;
  ps.mo.lo[0] = ps.mo.lo[1] = -5.0;
  ps.mo.hi[0] = ps.mo.hi[1] = 5.0;
  ps.mo.deform = 0.03;
  ps.mach = 0.5;
  ps.vortex = 1;
  ps.p = 1;
  return ps;
}

/* (4) implicit and explicit reach the same steady state: a stationary
 * isentropic vortex with exact boundary states on a small quad mesh. */
static void test_implicit_vs_explicit(void) {
  const problem_spec ps = vortex_spec();
  problem imp, exp_;
  if (!problem_build(&imp, &ps) || !problem_build(&exp_, &ps)) return;
  const lusgs_opts lo = {LUSGS_CFL_EXPONENTIAL, 10.0, 1e4, 30, 1, 0.0, 0.0, 1};
  const march_result mi = march_lusgs(&imp, &lo, 400, 12.0, 0);
  TEST_CHECK(mi.drop >= 12.0, "vortex implicit: %.2f orders in %d iterations", mi.drop,
             mi.iterations);
  /* explicit, local steps */
  const dg_backend *b = test_backend;
  explicit_rk3 rk;
  TEST_OK(explicit_rk3_create(b, exp_.ctx, &exp_.disc, &rk));
  const explicit_rk3_opts ro = {.cfl = 0.8, .local_dt = 1, .compute_norms = 1};
  double ref[DG_MAX_NVAR] = {0}, drop = 0.0;
  int it = 0;
  const double start = seconds();
  for (it = 1; it <= 20000; ++it) {
    explicit_rk3_info info;
    const dg_status st = explicit_rk3_step(&rk, &exp_.U, 0.0, &ro, &info);
    TEST_OK(st);
    if (st != DG_SUCCESS) break;
    if (it == 1) memcpy(ref, info.res_norm, sizeof ref);
    double worst = -INFINITY;
    for (int v = 0; v < 4; ++v) worst = fmax(worst, log10(info.res_norm[v] / ref[v]));
    drop = -worst;
    if (drop >= 12.0) break;
  }
  const double explicit_seconds = seconds() - start;
  explicit_rk3_destroy(&rk);
  TEST_CHECK(drop >= 12.0, "vortex explicit: %.2f orders in %d iterations", drop, it);
  const double diff = state_difference(&imp, &exp_);
  /* "forces": the pressure integrated over the ymin side */
  double cl_i, cd_i, cl_e, cd_e;
  force_coefs(&imp, "ymin", 0.5, 0.0, &cl_i, &cd_i);
  force_coefs(&exp_, "ymin", 0.5, 0.0, &cl_e, &cd_e);
  TEST_CHECK(diff <= 1e-8, "vortex: implicit and explicit steady states differ by %.3g", diff);
  TEST_CLOSE(cl_i, cl_e, 1e-8, "vortex: ymin force coefficient (normal), implicit vs explicit");
  TEST_CLOSE(cd_i, cd_e, 1e-8, "vortex: ymin force coefficient (tangential), implicit vs explicit");
  printf("steady vortex p=1: implicit %d iterations %.2f s, explicit %d iterations %.2f s; max "
         "|U_imp - U_exp| = %.1e; ymin force %.12f vs %.12f\n",
         mi.iterations, mi.seconds, it, explicit_seconds, diff, cl_i, cl_e);
  problem_free(&imp);
  problem_free(&exp_);
}

/* (5) Limits of the linearisation on the stationary vortex (p = 1, 6×6
 * curved quads, exact BC): (a) at a tiny CFL one step is explicit Euler,
 * ΔU = Δt M⁻¹ R to O(CFL); (b) at an infinite time step with the linear
 * system solved by many sweeps, it is Newton's method with the exact
 * Jacobian: the residual falls quadratically. */
static void test_limits(void) {
  const problem_spec ps = vortex_spec();
  problem pb;
  if (!problem_build(&pb, &ps)) return;
  const dg_backend *b = backend_cpu();
  const dg_disc_view *d = &pb.disc.view;
  const int64_t nc = d->n_coefs;
  perturb(&pb, 0.01);
  lusgs_marcher lm;
  TEST_OK(lusgs_create(b, pb.ctx, &pb.disc, &pb.col, &lm));
  /* a sweep count out of range is refused, the state untouched */
  const lusgs_opts bad = {LUSGS_CFL_EXPONENTIAL, 1.0, 1.0, 1, -1, 0.0, 0.0, 1};
  TEST_FAILS(lusgs_step(&lm, &pb.U, 0.0, 1, &bad, NULL), DG_ERR_ARG, "symmetric sweeps");
  /* (a) explicit Euler */
  double *U0 = malloc((size_t)nc * sizeof *U0), *R = malloc((size_t)nc * sizeof *R);
  double *dt = malloc((size_t)d->n_elems * sizeof *dt), dtmin;
  memcpy(U0, pb.U.data, (size_t)nc * sizeof *U0);
  const double cfl = 1e-6;
  TEST_OK(dg_backend_residual(b, pb.ctx, &pb.U, 0.0, BACKEND_CPU_VEC(b, pb.ctx, DG_VEC_STATE, R)));
  TEST_OK(dg_backend_timestep(b, pb.ctx, &pb.U, cfl, 0, BACKEND_CPU_VEC(b, pb.ctx, DG_VEC_ELEM, dt),
                              &dtmin));
  const lusgs_opts tiny = {LUSGS_CFL_EXPONENTIAL, cfl, cfl, 1, 1, 0.0, 0.0, 1};
  TEST_OK(lusgs_step(&lm, &pb.U, 0.0, 1, &tiny, NULL));
  double err = 0.0, scale = 0.0;
  for (int64_t e = 0; e < d->n_elems; ++e) {
    double Re[LUSGS_MAX_BLOCK], dUe[LUSGS_MAX_BLOCK];
    residual_load(d, R, e, Re);
    residual_apply_minv(d, e, Re, dUe);
    const int nb = d->nb[d->elem_shape[e]];
    for (int v = 0; v < d->nvar; ++v)
      for (int m = 0; m < nb; ++m) {
        const int64_t i = disc_coef_index(d, e, v, m);
        err = fmax(err, fabs((pb.U.data[i] - U0[i]) - dt[e] * dUe[v * nb + m]));
        scale = fmax(scale, fabs(dt[e] * dUe[v * nb + m]));
      }
  }
  TEST_CHECK(scale > 0.0 && err <= 10.0 * cfl * scale,
             "tiny CFL: LU-SGS step differs from explicit Euler by %.3g (|dU| %.3g)", err, scale);
  /* (b) Newton: CFL 1e12 from the first iteration, 100 sweeps (converged linear solves) */
  memcpy(pb.U.data, U0, (size_t)nc * sizeof *U0);
  lusgs_set_reference(&lm, 0.0);
  const lusgs_opts newton = {LUSGS_CFL_EXPONENTIAL, 1e12, 1e12, 1, 100, 0.0, 0.0, 1};
  double res[8] = {0};
  int n = 0;
  for (int it = 1; it <= 8; ++it) {
    lusgs_info info;
    TEST_OK(lusgs_step(&lm, &pb.U, 0.0, it, &newton, &info));
    res[n++] = info.res_total;
    if (info.res_total < 1e-12 * res[0]) break;
  }
  /* quadratic: once below 1e-3 of the first residual, each step at least squares the ratio
   * (up to a factor 100), until the floor */
  int quadratic = 0, checked = 0;
  for (int i = 1; i + 1 < n; ++i) {
    const double r0 = res[i] / res[0], r1 = res[i + 1] / res[0];
    if (r0 > 1e-3 || r0 < 1e-10) continue;
    ++checked;
    quadratic += r1 <= 100.0 * r0 * r0;
  }
  TEST_CHECK(checked >= 1 && quadratic == checked && res[n - 1] < 1e-11 * res[0],
             "Newton limit: %d of %d steps quadratic, final drop %.3g after %d iterations",
             quadratic, checked, res[n - 1] / res[0], n);
  printf("limits: tiny CFL %.0e: |dU - dt M^-1 R| = %.1e (|dU| %.1e); Newton (CFL 1e12, %d "
         "sweeps): residual/first =",
         cfl, err, scale, newton.n_sweeps);
  for (int i = 0; i < n; ++i) printf(" %.1e", res[i] / res[0]);
  printf("\n");
  free(U0);
  free(R);
  free(dt);
  lusgs_destroy(&lm);
  problem_free(&pb);
}

static void test_cfl_laws(void) {
  const lusgs_opts ex = {LUSGS_CFL_EXPONENTIAL, 1.0, 100.0, 2000, 1, 0.0, 0.0, 1};
  TEST_CLOSE(lusgs_cfl(&ex, 1, 0, 0), 1.0, 1e-15, "exponential CFL at iteration 1");
  TEST_CLOSE(lusgs_cfl(&ex, 1001, 0, 0), 10.0, 1e-12, "exponential CFL half way");
  TEST_CLOSE(lusgs_cfl(&ex, 5000, 0, 0), 100.0, 1e-12, "exponential CFL capped");
  const lusgs_opts ser = {LUSGS_CFL_SER, 2.0, 50.0, 1, 1, 0.0, 0.0, 1};
  TEST_CLOSE(lusgs_cfl(&ser, 7, 1.0, 0.1), 20.0, 1e-12, "SER CFL");
  TEST_CLOSE(lusgs_cfl(&ser, 7, 1.0, 1e-6), 50.0, 0.0, "SER CFL capped");
  TEST_CLOSE(lusgs_cfl(&ser, 7, 1.0, 10.0), 2.0, 0.0, "SER CFL floored");
  TEST_CLOSE(lusgs_cfl(&ser, 7, 1.0, NAN), 2.0, 0.0, "SER CFL of a NaN residual");
}

/* Colours by breadth-first levels from the faces of a boundary group (the
 * wall): colour = level·K + the smallest sub-colour not used by a face
 * neighbour of the same level (K = DG_MAX_FACES + 1), compressed to the
 * used ones, so a forward sweep runs outwards from the wall and a backward
 * one inwards (a "wavefront" ordering; docs/LUSGS.md). color: [n_elems],
 * all −1 on entry, written. Returns the number of colours. */
static int level_colors(const problem *pb, const char *group, int32_t *color) {
  const dg_disc_view *d = &pb->disc.view;
  const int64_t ne = d->n_elems;
  int64_t *queue = malloc((size_t)ne * sizeof *queue), head = 0, tail = 0;
  int32_t *level = malloc((size_t)ne * sizeof *level);
  for (int64_t e = 0; e < ne; ++e) level[e] = -1;
  for (int64_t f = d->n_interior; f < d->n_faces; ++f) {
    const int g = d->face_group[f];
    const int64_t e = d->face_elem[2 * f];
    if (g >= 0 && !strcmp(pb->mesh.groups[g].name, group) && level[e] < 0) {
      level[e] = 0;
      queue[tail++] = e;
    }
  }
  while (head < tail) {
    const int64_t e = queue[head++];
    for (int lf = 0; lf < shape_n_faces((dg_shape)d->elem_shape[e]); ++lf) {
      int side;
      const int64_t f = lusgs_face_side(d, e, lf, &side);
      const int64_t j = d->face_elem[2 * f + 1 - side];
      if (j >= 0 && level[j] < 0) {
        level[j] = level[e] + 1;
        queue[tail++] = j;
      }
    }
  }
  const int K = DG_MAX_FACES + 1;
  int32_t max_color = 0;
  for (int64_t i = 0; i < tail; ++i) {
    const int64_t e = queue[i];
    int used[DG_MAX_FACES + 1] = {0};
    for (int lf = 0; lf < shape_n_faces((dg_shape)d->elem_shape[e]); ++lf) {
      int side;
      const int64_t f = lusgs_face_side(d, e, lf, &side);
      const int64_t j = d->face_elem[2 * f + 1 - side];
      /* same-level neighbours coloured before e (color[] starts at -1) */
      if (j >= 0 && level[j] == level[e] && color[j] >= 0) used[color[j] - level[e] * K] = 1;
    }
    int c = 0;
    while (used[c]) ++c;
    color[e] = level[e] * K + c;
    if (color[e] > max_color) max_color = color[e];
  }
  /* compress to the colours used */
  int32_t *map = malloc((size_t)(max_color + 1) * sizeof *map);
  for (int c = 0; c <= max_color; ++c) map[c] = -1;
  for (int64_t e = 0; e < ne; ++e) map[color[e]] = 0;
  int n = 0;
  for (int c = 0; c <= max_color; ++c)
    if (map[c] == 0) map[c] = n++;
  for (int64_t e = 0; e < ne; ++e) color[e] = map[color[e]];
  free(map);
  free(queue);
  free(level);
  return n;
}

/* (3) NACA 0012, M 0.5, α 2°, on the committed level-0 mesh. The march must
 * stay admissible for max_iters iterations, and reach `target` orders when
 * target <= 10; the drop reached is printed (docs/LUSGS.md, "Measured").
 * levels: colour by BFS levels from the wall instead of coloring_build. */
static void test_naca(int p, const lusgs_opts *lo, int max_iters, double target, int levels,
                      const char *mesh_file) {
  problem_spec ps;
  memset(&ps, 0, sizeof ps);
  ps.mesh_file = mesh_file ? mesh_file : COLORDG_TEST_DATA "/mesh_naca0012_tri_0_q2.cdgm";
  ps.p = p;
  ps.mach = 0.5;
  ps.alpha_deg = 2.0;
  ps.wall_groups[0] = "wall";
  problem pb;
  if (!problem_build(&pb, &ps)) return;
  if (levels) {
    const int64_t ne = pb.disc.view.n_elems;
    int32_t *color = malloc((size_t)(ne > 0 ? ne : 1) * sizeof *color);
    for (int64_t e = 0; e < ne; ++e) color[e] = -1;
    const int n_colors = level_colors(&pb, "wall", color);
    coloring_free(&pb.col);
    TEST_OK(coloring_from_colors(&pb.mesh, &pb.topo, color, n_colors, &pb.col));
    free(color);
  }
  const march_result mr = march_lusgs(&pb, lo, max_iters, target, getenv("LUSGS_QUIET") == NULL);
  double cl, cd;
  force_coefs(&pb, "wall", 0.5, 2.0, &cl, &cd);
  TEST_CHECK(mr.iterations == max_iters || mr.drop >= target,
             "NACA p=%d: the march stopped after %d iterations", p, mr.iterations);
  if (target <= 10.0)
    TEST_CHECK(mr.drop >= target,
               "NACA p=%d: residual drop %.2f orders after %d iterations (target "
               "%.1f)",
               p, mr.drop, mr.iterations, target);
  int admissible = 1;
  const double *U = problem_host(&pb);
  for (int64_t i = 0; i < pb.disc.view.n_coefs; ++i) admissible &= isfinite(U[i]) != 0;
  TEST_CHECK(admissible, "NACA p=%d: the state holds NaN/Inf", p);
  printf("NACA0012 M0.5 a2 p=%d (%lld elements, %d colours): %.2f orders in %d iterations, %.2f s "
         "(%.1f ms/iteration); CL %.8f CD %.8f\n",
         p, (long long)pb.disc.view.n_elems, pb.col.n_colors, mr.drop, mr.iterations, mr.seconds,
         1e3 * mr.seconds / (mr.iterations > 0 ? mr.iterations : 1), cl, cd);
  problem_free(&pb);
}

/* The update damping (lusgs_update_damping, the CPU update op): an update
 * that changes an element's mean density by 50 % is scaled to the 20 %
 * bound (θ = 0.4), one that changes the mean pressure by 10 % of p̄ against
 * a 5 % bound gets θ ≈ 0.5, a small update and max_change = 0 are applied
 * whole; the damped update is θ ΔU on every coefficient of the element. */
static void test_update_damping(void) {
  problem_spec ps;
  memset(&ps, 0, sizeof ps);
  ps.mo = mesh_structured_defaults(2);
  ps.mo.kind = MESH_STRUCTURED_TRI;
  ps.mo.n[0] = ps.mo.n[1] = 3;
  ps.mach = 0.5;
  ps.p = 2;
  problem pb;
  if (!problem_build(&pb, &ps)) return;
  const dg_disc_view *d = &pb.disc.view;
  const int64_t nc = d->n_coefs, e = 4;
  const int s = d->elem_shape[e], nb = d->nb[s];
  double *dU = calloc((size_t)nc, sizeof *dU), *U1 = malloc((size_t)nc * sizeof *U1);
  const double phi0 = 1.0 / sqrt(shape_ref_measure((dg_shape)s));
  const double rho = pb.U.data[disc_coef_index(d, e, 0, 0)] * phi0;
  for (int v = 0; v < d->nvar; ++v)
    for (int m = 0; m < nb; ++m) dU[disc_coef_index(d, e, v, m)] = 1e-3 * (1 + v + m);
  dU[disc_coef_index(d, e, 0, 0)] = 0.5 * rho / phi0; /* mean ρ +50 %, ρE unchanged */
  const double theta = lusgs_update_damping(d, e, pb.U.data, dU, 0.2);
  TEST_CHECK(theta <= 0.4 + 1e-15 && theta > 0.0,
             "damping of a +50 %% density update: θ = %.6g, expected <= 0.4", theta);
  TEST_CLOSE(lusgs_update_damping(d, e, pb.U.data, dU, 0.0), 1.0, 0.0,
             "no damping at max_change 0");
  double *tiny = calloc((size_t)nc, sizeof *tiny);
  for (int64_t i = 0; i < nc; ++i) tiny[i] = 1e-6 * dU[i];
  TEST_CLOSE(lusgs_update_damping(d, e, pb.U.data, tiny, 0.2), 1.0, 0.0, "a small update is whole");
  /* pressure: ρE changed by 10 % of p̄/(γ−1) alone moves p̄ by 10 % */
  double *dp = calloc((size_t)nc, sizeof *dp);
  double Um[DG_MAX_NVAR];
  for (int v = 0; v < d->nvar; ++v) Um[v] = pb.U.data[disc_coef_index(d, e, v, 0)] * phi0;
  const double pm = physics_pressure(d->dim, d->gamma, Um);
  dp[disc_coef_index(d, e, d->nvar - 1, 0)] = 0.1 * pm / (d->gamma - 1.0) / phi0;
  TEST_CLOSE(lusgs_update_damping(d, e, pb.U.data, dp, 0.05), 0.5, 1e-12,
             "a +10 % pressure update against a 5 % bound");
  /* the CPU update op applies θ ΔU element by element */
  memcpy(U1, pb.U.data, (size_t)nc * sizeof *U1);
  lusgs_marcher lm;
  TEST_OK(lusgs_create(backend_cpu(), pb.ctx, &pb.disc, &pb.col, &lm));
  TEST_OK(lusgs_backend_update(&lm, BACKEND_CPU_VEC(backend_cpu(), pb.ctx, DG_VEC_STATE, U1),
                               BACKEND_CPU_VEC(backend_cpu(), pb.ctx, DG_VEC_STATE, dU), 0.2));
  double worst = 0.0;
  for (int64_t k = 0; k < d->n_elems; ++k) {
    const double th = k == e ? theta : 1.0;
    for (int v = 0; v < d->nvar; ++v)
      for (int m = 0; m < d->nb[d->elem_shape[k]]; ++m) {
        const int64_t i = disc_coef_index(d, k, v, m);
        worst = fmax(worst, fabs(U1[i] - (pb.U.data[i] + th * dU[i])));
      }
  }
  TEST_CHECK(worst == 0.0, "damped CPU update differs from θ ΔU by %.3g", worst);
  printf("update damping: +50 %% density θ = %.4f (bound 0.2), +10 %% pressure θ = 0.5 (bound "
         "0.05)\n",
         theta);
  lusgs_destroy(&lm);
  free(dU);
  free(U1);
  free(tiny);
  free(dp);
  problem_free(&pb);
}

/* Counts the assemblies (FACE_JAC marks) of the steps it watches. */
static dg_status count_assembly(void *user, lusgs_phase phase) {
  if (phase == LUSGS_PHASE_FACE_JAC) ++*(int *)user;
  return DG_SUCCESS;
}

/* (6) opts.jacobian_interval: at cfl_max the blocks are rebuilt at the
 * iterations that are multiples of the interval and kept between, never
 * during the CFL ramp; a kept step is the residual at the new state with
 * the earlier blocks, bit for bit (replayed by hand on a second marcher);
 * and the kept blocks converge to the same steady state. */
static void test_jacobian_interval(void) {
  const problem_spec ps = vortex_spec();
  problem a, h;
  if (!problem_build(&a, &ps) || !problem_build(&h, &ps)) return;
  const dg_backend *b = test_backend;
  const int64_t nc = a.disc.view.n_coefs;
  int assemblies[2] = {0, 0};
  lusgs_marcher la, lh;
  TEST_OK(lusgs_create(b, a.ctx, &a.disc, &a.col, &la));
  TEST_OK(lusgs_create(b, h.ctx, &h.disc, &h.col, &lh));
  /* a constant CFL (the largest), interval 3: assembled at 1 (none kept), 3, 6 */
  const lusgs_opts keep3 = {LUSGS_CFL_EXPONENTIAL, 50.0, 50.0, 1, 2, 0.0, 0.0, 3};
  const lusgs_phase_hook ha = {count_assembly, &assemblies[0]};
  lusgs_set_phase_hook(&la, &ha);
  int pattern_ok = 1;
  for (int it = 1; it <= 6; ++it) {
    const int before = assemblies[0];
    TEST_OK(lusgs_step(&la, &a.U, 0.0, it, &keep3, NULL));
    pattern_ok &= (assemblies[0] - before) == (it == 1 || it == 3 || it == 6);
    if (it == 1) TEST_OK(lusgs_step(&lh, &h.U, 0.0, 1, &keep3, NULL));
    if (it == 2) {
      /* the kept step by hand: R(U1), the sweeps with the blocks of U0, the update */
      TEST_OK(dg_backend_residual(b, h.ctx, &h.U, 0.0, &lh.R));
      TEST_OK(lusgs_apply(&lh, &h.U, &lh.R, keep3.n_sweeps, &lh.dU));
      TEST_OK(lusgs_update(&lh, &h.U, &lh.dU, 0.0));
      const double *Ua = problem_host(&a), *Uh = problem_host(&h);
      int64_t differ = 0;
      for (int64_t i = 0; i < nc; ++i) differ += Ua[i] != Uh[i];
      TEST_CHECK(differ == 0,
                 "jacobian_interval: the kept step differs from the blocks of U0 applied to "
                 "R(U1) in %lld of %lld coefficients",
                 (long long)differ, (long long)nc);
    }
  }
  lusgs_set_phase_hook(&la, NULL);
  TEST_CHECK(pattern_ok && assemblies[0] == 3,
             "jacobian_interval 3 at a constant CFL: %d assemblies in 6 steps, expected 3 (at "
             "1, 3, 6)",
             assemblies[0]);
  /* a ramp 5 -> 50 over 4 iterations (at cfl_max from iteration 5), interval 2: assembled at
   * every ramp iteration, at 5 (the first at cfl_max), 6 and 8, not at 7 */
  const lusgs_opts ramp2 = {LUSGS_CFL_EXPONENTIAL, 5.0, 50.0, 4, 2, 0.0, 0.0, 2};
  const lusgs_phase_hook hh = {count_assembly, &assemblies[1]};
  lusgs_destroy(&lh);
  TEST_OK(lusgs_create(b, h.ctx, &h.disc, &h.col, &lh));
  lusgs_set_phase_hook(&lh, &hh);
  for (int it = 1; it <= 8; ++it) TEST_OK(lusgs_step(&lh, &h.U, 0.0, it, &ramp2, NULL));
  lusgs_set_phase_hook(&lh, NULL);
  TEST_CHECK(assemblies[1] == 7,
             "jacobian_interval 2 with a ramp: %d assemblies in 8 steps, "
             "expected 7",
             assemblies[1]);
  lusgs_destroy(&la);
  lusgs_destroy(&lh);
  problem_free(&a);
  problem_free(&h);

  /* the same steady state as assembling every iteration */
  problem every, kept;
  if (!problem_build(&every, &ps) || !problem_build(&kept, &ps)) return;
  const lusgs_opts lo1 = {LUSGS_CFL_EXPONENTIAL, 10.0, 1e4, 30, 1, 0.0, 0.0, 1};
  lusgs_opts lo4 = lo1;
  lo4.jacobian_interval = 4;
  const march_result m1 = march_lusgs(&every, &lo1, 400, 12.0, 0);
  const march_result m4 = march_lusgs(&kept, &lo4, 400, 12.0, 0);
  TEST_CHECK(m1.drop >= 12.0 && m4.drop >= 12.0,
             "vortex: %.2f orders in %d iterations (every iteration), %.2f in %d (interval 4)",
             m1.drop, m1.iterations, m4.drop, m4.iterations);
  const double diff = state_difference(&every, &kept);
  TEST_CHECK(diff <= 1e-9, "vortex: the steady states with interval 1 and 4 differ by %.3g", diff);
  printf("jacobian_interval: assemblies as expected (%d, %d); vortex 12 orders in %d iterations "
         "(every iteration), %d (interval 4), states %.1e apart\n",
         assemblies[0], assemblies[1], m1.iterations, m4.iterations, diff);
  problem_free(&every);
  problem_free(&kept);
}

/* [solver] face_jacobian = forward: the preconditioner changes by the
 * Jacobians' ~1e-8, so the vortex reaches 12 orders in the same iterations
 * (within 2 %) and the same steady state. */
static void test_face_jacobian_forward(void) {
  const problem_spec ps = vortex_spec();
  problem central, forward;
  if (!problem_build(&central, &ps) || !problem_build(&forward, &ps)) return;
  const lusgs_opts lo = {LUSGS_CFL_EXPONENTIAL, 10.0, 1e4, 30, 1, 0.0, 0.0, 1};
  const march_result mc = march_lusgs(&central, &lo, 400, 12.0, 0);
  march_forward = 1;
  const march_result mf = march_lusgs(&forward, &lo, 400, 12.0, 0);
  march_forward = 0;
  TEST_CHECK(mc.drop >= 12.0 && mf.drop >= 12.0,
             "face_jacobian: vortex %.2f orders in %d iterations (central), %.2f in %d (forward)",
             mc.drop, mc.iterations, mf.drop, mf.iterations);
  TEST_CHECK(abs(mf.iterations - mc.iterations) <= 1 + mc.iterations / 50,
             "face_jacobian: %d iterations with forward differences against %d with central",
             mf.iterations, mc.iterations);
  const double diff = state_difference(&central, &forward);
  TEST_CHECK(diff <= 1e-9, "face_jacobian: the steady states differ by %.3g", diff);
  printf("face_jacobian: vortex 12 orders in %d iterations (central), %d (forward), states %.1e "
         "apart\n",
         mc.iterations, mf.iterations, diff);
  problem_free(&central);
  problem_free(&forward);
}

int main(int argc, char **argv) {
  const int rc = test_backend_args(&argc, argv);
  if (rc) return rc;
  printf("backend %s\n", test_backend_name);
  if (argc > 1 && !strcmp(argv[1], "--naca")) {
    const int p = argc > 2 ? atoi(argv[2]) : 1;
    lusgs_opts lo = {LUSGS_CFL_EXPONENTIAL, 10.0, 1e4, 40, 1, 0.0, 0.0, 1};
    if (argc > 5) {
      lo.cfl_min = atof(argv[3]);
      lo.cfl_max = atof(argv[4]);
      lo.cfl_ramp_iters = atoi(argv[5]);
    }
    if (argc > 8) lo.n_sweeps = atoi(argv[8]);
    if (argc > 9) lo.cfl_law = !strcmp(argv[9], "ser") ? LUSGS_CFL_SER : LUSGS_CFL_EXPONENTIAL;
    const int levels = argc > 10 && !strcmp(argv[10], "levels");
    test_naca(p, &lo, argc > 6 ? atoi(argv[6]) : 200, argc > 7 ? atof(argv[7]) : INFINITY, levels,
              argc > 11 ? argv[11] : NULL);
    return test_finish("test_lusgs --naca");
  }
  const char *only = argc > 1 ? argv[1] : "";
  const int cpu = test_backend_is_cpu(); /* checks of the CPU operations and host code */
  if (!cpu) printf("cfl, blocks, sweeps, limits, damping: CPU only (--backend cpu)\n");
  if (cpu && (!*only || !strcmp(only, "cfl"))) test_cfl_laws();
  if (cpu && (!*only || !strcmp(only, "blocks"))) test_blocks();
  if (cpu && (!*only || !strcmp(only, "sweeps"))) test_sweeps();
  if (!*only || !strcmp(only, "freestream")) test_freestream_convergence();
  if (!*only || !strcmp(only, "steady")) test_implicit_vs_explicit();
  if (!*only || !strcmp(only, "jacobian_interval")) test_jacobian_interval();
  if (!*only || !strcmp(only, "face_jacobian")) test_face_jacobian_forward();
  if (cpu && (!*only || !strcmp(only, "limits"))) test_limits();
  if (cpu && (!*only || !strcmp(only, "damping"))) test_update_damping();
  return test_finish("test_lusgs");
}
