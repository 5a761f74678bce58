/* The DG residual on the CPU backend (src/dg/disc.c, src/dg/backend_cpu.c,
 * src/dg/residual_ops.h):
 * - the race-free face-flux gather equals the atomic reference to 1e-13
 *   (relative) for p = 0..3 on tri, quad, mixed and tet meshes, straight,
 *   irregular, curved (geometric order 2, 3) and periodic, and gives the same
 *   bits with 1 and 2 threads;
 * - the residual of a uniform state is zero to round-off on curved meshes,
 *   and the Roe flux is consistent;
 * - the L2 projection reproduces polynomials, norms and forces are right;
 * - the L2 entropy error (disc_entropy_error) of a state with a known
 *   entropy field is the exact integral, on straight and curved meshes;
 * - disc_build rejects bad input with a message that says what is wrong;
 * - the affine elements' lower rule (dg_disc_opts.affine_degree): its tables
 *   integrate the mass and stiffness exactly, a uniform state keeps R = 0,
 *   and the curved elements' residual keeps its bits.
 * One source, `--backend cpu|cuda` (tests/solver.cmake: test_residual_cpu,
 * and test_residual_cuda with label gpu): on cuda the uniform-state
 * residual and the norms and forces run on the CUDA backend; the other
 * checks are of host code and the CPU backend and run with --backend cpu
 * (test_backend_gpu compares the CUDA residual with the CPU's). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef COLORDG_HAVE_OPENMP
#include <omp.h>
#endif

#include "backends/backend_select.h"
#include "dg/backend_cpu.h"
#include "dg/disc.h"
#include "dg/residual_ops.h"
#include "element/basis.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "test_util.h"

#define GAMMA 1.4

typedef struct {
  dg_mesh mesh;
  dg_topology topo;
  dg_geometry geom;
  dg_disc disc;
  dg_backend_ctx *ctx;
} fixture;

static void fixture_free(fixture *fx) {
  if (fx->ctx) dg_backend_destroy(test_backend, fx->ctx);
  disc_free(&fx->disc);
  geometry_free(&fx->geom);
  topology_free(&fx->topo);
  mesh_free(&fx->mesh);
  memset(fx, 0, sizeof *fx);
}

/* Disc options: freestream M 0.5 at 30° (3D: 30°, 10°), the isentropic
 * vortex centred in the box when exact_kind = 1, and boundary groups cycling
 * through exact, far field, slip wall and supersonic outflow (mixed_bcs), or
 * all far field. */
static dg_disc_opts fixture_opts(const dg_mesh *mesh, int p, int exact_kind, int mixed_bcs,
                                 const double *lo, const double *hi, int32_t *bc,
                                 physics_bc_data *data) {
  dg_disc_opts o = {0};
  o.p = p;
  o.gamma = GAMMA;
  o.flux = DG_FACE_FLUX_ROE;
  physics_freestream_state(mesh->dim, GAMMA, 0.5, 30.0, mesh->dim == 3 ? 10.0 : 0.0, o.freestream);
  o.exact_kind = exact_kind;
  o.vortex.velocity[0] = 0.5 * cos(DG_PI / 6);
  o.vortex.velocity[1] = 0.5 * sin(DG_PI / 6);
  o.vortex.center[0] = 0.5 * (lo[0] + hi[0]);
  o.vortex.center[1] = 0.5 * (lo[1] + hi[1]);
  o.vortex.strength = 5.0;
  o.n_groups = mesh->n_groups;
  const int kinds[4] = {PHYSICS_BC_EXACT, PHYSICS_BC_FARFIELD, PHYSICS_BC_WALL,
                        PHYSICS_BC_SUPERSONIC_OUTFLOW};
  for (int g = 0; g < mesh->n_groups; ++g) {
    bc[g] = mixed_bcs ? kinds[g % 4] : PHYSICS_BC_FARFIELD;
    memset(&data[g], 0, sizeof data[g]);
    for (int v = 0; v < DG_MAX_NVAR; ++v) data[g].state[v] = o.freestream[v];
  }
  o.group_bc = bc;
  o.group_data = data;
  return o;
}

/* Mesh, topology, geometry (rules of degree `degree`, 0 = 2p+1), disc and
 * CPU context. */
static int fixture_build_degree(fixture *fx, const dg_mesh_structured_opts *mo, int dim, int p,
                                int exact_kind, int mixed_bcs, int degree) {
  if (degree == 0) degree = 2 * p + 1;
  memset(fx, 0, sizeof *fx);
  dg_status st = dim == 2 ? mesh_structured_2d(mo, &fx->mesh) : mesh_structured_3d(mo, &fx->mesh);
  if (st == DG_SUCCESS) st = topology_build(&fx->mesh, &fx->topo);
  if (st == DG_SUCCESS) st = geometry_build(&fx->mesh, &fx->topo, degree, degree, &fx->geom);
  if (st == DG_SUCCESS) {
    int32_t bc[8];
    physics_bc_data data[8];
    const dg_disc_opts o =
        fixture_opts(&fx->mesh, p, exact_kind, mixed_bcs, mo->lo, mo->hi, bc, data);
    st = disc_build(&fx->mesh, &fx->topo, &fx->geom, &o, &fx->disc);
  }
  if (st == DG_SUCCESS) st = dg_backend_create(test_backend, &fx->disc, &fx->ctx);
  TEST_OK(st);
  return st == DG_SUCCESS;
}

static int fixture_build(fixture *fx, const dg_mesh_structured_opts *mo, int dim, int p,
                         int exact_kind, int mixed_bcs) {
  return fixture_build_degree(fx, mo, dim, p, exact_kind, mixed_bcs, 0);
}

static double max_abs(const double *a, int64_t n) {
  double m = 0.0;
  for (int64_t i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
  return m;
}

static double max_abs_diff(const double *a, const double *b, int64_t n) {
  double m = 0.0;
  for (int64_t i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

/* Gather residual vs atomic reference on one mesh, the vortex projected
 * plus a perturbation of every coefficient (so every mode is exercised). */
static void check_gather_vs_atomic(const char *what, const dg_mesh_structured_opts *mo, int dim,
                                   int p, double *worst) {
  fixture fx;
  if (!fixture_build(&fx, mo, dim, p, 1, 1)) return;
  const dg_backend *b = backend_cpu();
  const int64_t n = fx.disc.view.n_coefs;
  dg_vec U = {0}, R1 = {0}, R2 = {0}, R3 = {0};
  TEST_OK(dg_vec_create(b, fx.ctx, DG_VEC_STATE, &U));
  TEST_OK(dg_vec_create(b, fx.ctx, DG_VEC_STATE, &R1));
  TEST_OK(dg_vec_create(b, fx.ctx, DG_VEC_STATE, &R2));
  TEST_OK(dg_vec_create(b, fx.ctx, DG_VEC_STATE, &R3));
  TEST_OK(disc_project(&fx.disc, 0.3, U.data));
  for (int64_t i = 0; i < n; ++i) U.data[i] += 1e-3 * sin(0.7 * (double)i + 0.3);
  TEST_OK(dg_backend_residual(b, fx.ctx, &U, 0.3, &R1));
  TEST_OK(backend_cpu_residual_atomic(fx.ctx, U.data, 0.3, R2.data));
  const double scale = max_abs(R1.data, n), diff = max_abs_diff(R1.data, R2.data, n);
  TEST_CHECK(scale > 1e-3, "%s p=%d: residual scale %g is suspiciously small", what, p, scale);
  TEST_CHECK(diff <= 1e-13 * scale, "%s p=%d: gather vs atomic differ by %.3g (scale %.3g)", what,
             p, diff, scale);
  if (diff / scale > *worst) *worst = diff / scale;
#ifdef COLORDG_HAVE_OPENMP
  /* race-free and fixed order: the same bits whatever the thread count */
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  TEST_OK(dg_backend_residual(b, fx.ctx, &U, 0.3, &R3));
  omp_set_num_threads(2);
  TEST_OK(dg_backend_residual(b, fx.ctx, &U, 0.3, &R2));
  omp_set_num_threads(threads);
  TEST_CHECK(memcmp(R1.data, R3.data, (size_t)n * sizeof(double)) == 0 &&
                 memcmp(R2.data, R3.data, (size_t)n * sizeof(double)) == 0,
             "%s p=%d: the gather residual depends on the thread count", what, p);
#endif
  dg_vec_destroy(&U);
  dg_vec_destroy(&R1);
  dg_vec_destroy(&R2);
  dg_vec_destroy(&R3);
  fixture_free(&fx);
}

static void test_gather_vs_atomic(void) {
  double worst = 0.0;
  const dg_mesh_structured_kind kinds[3] = {MESH_STRUCTURED_TRI, MESH_STRUCTURED_QUAD,
                                            MESH_STRUCTURED_MIXED};
  const char *names[3] = {"tri", "quad", "mixed"};
  for (int k = 0; k < 3; ++k)
    for (int order = 1; order <= 3; ++order)
      for (int p = 0; p <= DG_MAX_P; ++p) {
        dg_mesh_structured_opts mo = mesh_structured_defaults(2);
        mo.kind = kinds[k];
        mo.order = order;
        mo.n[0] = 4;
        mo.n[1] = 3;
        mo.lo[0] = mo.lo[1] = -2.0;
        mo.hi[0] = mo.hi[1] = 2.0;
        mo.deform = order == 1 && p % 2 == 0 ? 0.0 : 0.04;
        mo.alternate_diagonals = p % 2;
        char what[64];
        snprintf(what, sizeof what, "%s order %d", names[k], order);
        check_gather_vs_atomic(what, &mo, 2, p, &worst);
      }
  for (int p = 0; p <= DG_MAX_P; ++p) {
    dg_mesh_structured_opts mo = mesh_structured_defaults(2);
    mo.kind = MESH_STRUCTURED_MIXED;
    mo.order = 2;
    mo.n[0] = mo.n[1] = 4;
    mo.lo[0] = mo.lo[1] = -2.0;
    mo.hi[0] = mo.hi[1] = 2.0;
    mo.periodic[0] = mo.periodic[1] = 1;
    mo.deform = 0.04;
    check_gather_vs_atomic("periodic mixed order 2", &mo, 2, p, &worst);
    mo.periodic[1] = 0;
    mo.kind = MESH_STRUCTURED_QUAD;
    check_gather_vs_atomic("x-periodic quad order 2", &mo, 2, p, &worst);
  }
  for (int order = 1; order <= 2; ++order)
    for (int p = 0; p <= DG_MAX_P; ++p) {
      dg_mesh_structured_opts mo = mesh_structured_defaults(3);
      mo.order = order;
      mo.n[0] = mo.n[1] = mo.n[2] = 2;
      for (int d = 0; d < 3; ++d) {
        mo.lo[d] = -1.5;
        mo.hi[d] = 1.5;
      }
      mo.deform = 0.04;
      check_gather_vs_atomic(order == 1 ? "tet" : "tet order 2", &mo, 3, p, &worst);
    }
  {
    dg_mesh_structured_opts mo = mesh_structured_defaults(3);
    mo.n[0] = mo.n[1] = mo.n[2] = 3;
    for (int d = 0; d < 3; ++d) {
      mo.lo[d] = -1.5;
      mo.hi[d] = 1.5;
    }
    mo.periodic[0] = mo.periodic[2] = 1;
    check_gather_vs_atomic("periodic tet", &mo, 3, 2, &worst);
  }
  printf("gather vs atomic: worst relative difference %.3g\n", worst);
}

/* A uniform state: R = 0 to round-off on irregular curved meshes. The
 * discrete divergence theorem holds when the rules integrate the metric
 * terms exactly: the face integrand (sJ n) φ has degree p + q - 1 in 2D and
 * p + 2(q - 1) in 3D (geometric order q), the volume one (det J ∇ξ/∂x)·∇φ
 * one less (plus one per variable on quads), so rules of degree 2p+1 suffice
 * for p >= 1 with q <= 3 in 2D and q = 2 in 3D; p = 0 on order-3 (2D) and
 * order-2 (3D) elements needs the higher degree passed here. */
static void check_uniform(const char *what, const dg_mesh_structured_opts *mo, int dim, int p) {
  const int q = mo->order;
  const int need = dim == 2 ? p + q - 1 : p + 2 * (q - 1);
  const int degree = need > 2 * p + 1 ? need : 2 * p + 1;
  fixture fx;
  if (!fixture_build_degree(&fx, mo, dim, p, 0, 0, degree)) return;
  const dg_backend *b = test_backend;
  const int64_t n = fx.disc.view.n_coefs;
  dg_vec U = {0}, R = {0};
  TEST_OK(dg_vec_create(b, fx.ctx, DG_VEC_STATE, &U));
  TEST_OK(dg_vec_create(b, fx.ctx, DG_VEC_STATE, &R));
  double *hU = malloc((size_t)n * sizeof *hU), *hR = malloc((size_t)n * sizeof *hR);
  TEST_OK(disc_project(&fx.disc, 0.0, hU));
  TEST_OK(dg_vec_upload(hU, &U));
  /* the projection of a constant is the constant: mode 0 only */
  double off = 0.0;
  const dg_disc_view *v = &fx.disc.view;
  for (int64_t e = 0; e < v->n_elems; ++e) {
    const int s = v->elem_shape[e];
    double phi0[DG_MAX_BASIS] = {0};
    const double xi[3] = {0.25, 0.25, 0.25};
    basis_eval((dg_shape)s, 0, xi, phi0);
    for (int var = 0; var < v->nvar; ++var)
      for (int m = 0; m < v->nb[s]; ++m) {
        const double want = m == 0 ? v->freestream[var] / phi0[0] : 0.0;
        off = fmax(off, fabs(hU[disc_coef_index(v, e, var, m)] - want));
      }
  }
  TEST_CHECK(off <= 1e-13, "%s p=%d: projection of the freestream is off by %.3g", what, p, off);
  TEST_OK(dg_backend_residual(b, fx.ctx, &U, 0.0, &R));
  TEST_OK(dg_vec_download(&R, hR));
  const double rmax = max_abs(hR, n);
  TEST_CHECK(rmax <= 1e-13, "%s p=%d: residual of the freestream is %.3g", what, p, rmax);
  free(hU);
  free(hR);
  dg_vec_destroy(&U);
  dg_vec_destroy(&R);
  fixture_free(&fx);
}

static void test_uniform_state(void) {
  for (int p = 0; p <= DG_MAX_P; ++p)
    for (int order = 1; order <= 3; ++order) {
      dg_mesh_structured_opts mo = mesh_structured_defaults(2);
      mo.kind = MESH_STRUCTURED_MIXED;
      mo.order = order;
      mo.n[0] = 5;
      mo.n[1] = 4;
      mo.deform = 0.05;
      mo.alternate_diagonals = 1;
      check_uniform("curved mixed", &mo, 2, p);
    }
  for (int p = 0; p <= DG_MAX_P; ++p) {
    dg_mesh_structured_opts mo = mesh_structured_defaults(3);
    mo.order = 2;
    mo.n[0] = mo.n[1] = mo.n[2] = 2;
    mo.deform = 0.04;
    check_uniform("curved tet", &mo, 3, p);
  }
  /* Roe consistency H(U, U, n) = F(U)·n */
  for (int dim = 2; dim <= 3; ++dim) {
    double U[DG_MAX_NVAR], H[DG_MAX_NVAR], F[DG_MAX_NVAR];
    physics_freestream_state(dim, GAMMA, 0.8, 20.0, 5.0, U);
    const double n[3] = {0.6, -0.8 * (dim == 2 ? 1.0 : 0.6), dim == 2 ? 0.0 : -0.8 * 0.8};
    physics_roe_flux(dim, GAMMA, U, U, n, PHYSICS_ROE_ENTROPY_FIX, H);
    physics_flux_normal(dim, GAMMA, U, n, F);
    for (int v = 0; v < dim + 2; ++v) TEST_CLOSE(H[v], F[v], 1e-15, "Roe consistency");
  }
}

/* The projection reproduces a polynomial state of degree p exactly (on a
 * curved mesh: the non-affine mass matrices), so disc_error_l2 is zero, and
 * disc_integral integrates it. */
static void test_projection(void) {
  for (int p = 0; p <= DG_MAX_P; ++p) {
    dg_mesh_structured_opts mo = mesh_structured_defaults(2);
    mo.kind = MESH_STRUCTURED_MIXED;
    mo.order = 2;
    mo.deform = 0.04;
    fixture fx;
    if (!fixture_build(&fx, &mo, 2, p, 0, 0)) continue;
    double *U = NULL, err[DG_MAX_NVAR], total[DG_MAX_NVAR];
    TEST_OK(DG_CALLOC(U, fx.disc.view.n_coefs));
    TEST_OK(disc_project(&fx.disc, 0.0, U));
    TEST_OK(disc_error_l2(&fx.disc, U, 0.0, err));
    TEST_OK(disc_integral(&fx.disc, U, total));
    for (int v = 0; v < 4; ++v) {
      TEST_CLOSE(err[v], 0.0, 1e-13, "projection error of a constant");
      TEST_CLOSE(total[v], fx.disc.view.freestream[v], 1e-13, "integral over the unit box");
    }
    /* the vortex is not a polynomial: a clearly nonzero error */
    fx.disc.view.exact_kind = 1;
    TEST_OK(disc_error_l2(&fx.disc, U, 0.0, err));
    TEST_CHECK(err[0] > 1e-3, "p=%d: error of the freestream against the vortex is %g", p, err[0]);
    free(U);
    fixture_free(&fx);
  }
}

/* norms are the coefficient 2-norms; forces on a uniform state are p∞ times
 * the side's outward normal and length. */
static void test_norms_forces(void) {
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = MESH_STRUCTURED_MIXED;
  mo.order = 3;
  mo.deform = 0.04;
  mo.hi[0] = 2.0;
  fixture fx;
  if (!fixture_build(&fx, &mo, 2, 2, 0, 0)) return;
  const dg_backend *b = test_backend;
  const int64_t n = fx.disc.view.n_coefs;
  dg_vec U = {0};
  TEST_OK(dg_vec_create(b, fx.ctx, DG_VEC_STATE, &U));
  double *hU = malloc((size_t)n * sizeof *hU);
  TEST_OK(disc_project(&fx.disc, 0.0, hU));
  TEST_OK(dg_vec_upload(hU, &U));
  double norms[DG_MAX_NVAR];
  int finite = 0;
  TEST_OK(dg_backend_norms(b, fx.ctx, &U, norms, &finite));
  TEST_CHECK(finite == 1, "norms: a finite state reported as not finite");
  for (int v = 0; v < 4; ++v) {
    double sum = 0.0;
    for (int64_t e = 0; e < fx.disc.view.n_elems; ++e)
      for (int m = 0; m < fx.disc.view.nb[fx.disc.view.elem_shape[e]]; ++m) {
        const double x = hU[disc_coef_index(&fx.disc.view, e, v, m)];
        sum += x * x;
      }
    TEST_CLOSE(norms[v], sqrt(sum), 1e-12 * sqrt(sum), "norm of a variable");
  }
  const double p_inf = 1.0 / GAMMA, x_ref[3] = {0.5, 0.5, 0.0};
  uint8_t mask[8] = {0};
  double out[6];
  mask[mesh_find_group(&fx.mesh, "xmin")] = 1;
  TEST_OK(dg_backend_forces(b, fx.ctx, &U, mask, x_ref, out));
  TEST_CLOSE(out[0], -p_inf * 1.0, 1e-12, "force on xmin (x)");
  TEST_CLOSE(out[1], 0.0, 1e-12, "force on xmin (y)");
  /* moment about (0.5, 0.5): r × F with r = (-0.5, y - 0.5), F = (-p, 0) */
  TEST_CLOSE(out[5], 0.0, 1e-12, "moment of xmin about its midpoint height");
  mask[mesh_find_group(&fx.mesh, "ymax")] = 1;
  TEST_OK(dg_backend_forces(b, fx.ctx, &U, mask, x_ref, out));
  TEST_CLOSE(out[1], p_inf * 2.0, 1e-12, "force on ymax (y)");
  for (int g = 0; g < fx.mesh.n_groups; ++g) mask[g] = 1;
  TEST_OK(dg_backend_forces(b, fx.ctx, &U, mask, x_ref, out));
  TEST_CLOSE(fabs(out[0]) + fabs(out[1]), 0.0, 1e-12,
             "force of a uniform pressure on a closed box");
  hU[3] = NAN;
  TEST_OK(dg_vec_upload(hU, &U));
  TEST_OK(dg_backend_norms(b, fx.ctx, &U, norms, &finite));
  TEST_CHECK(finite == 0, "norms: a NaN was not reported");
  free(hU);
  dg_vec_destroy(&U);
  fixture_free(&fx);
}

/* A linear field f(x) = a + b·x (per variable) projected onto the basis of
 * straight-sided (affine or bilinear) elements is reproduced exactly, so its
 * traces at face points must equal f at face_x from side 0 and from side 1
 * (through the orientation code) on every non-periodic face: checks the
 * face tables, orientations and face points. */
static double linear_field(int v, const double *x, int dim) {
  double f = 1.0 + 0.1 * v;
  for (int d = 0; d < dim; ++d) f += (0.3 + 0.05 * v - 0.1 * d) * x[d];
  return f;
}

static void check_traces(const char *what, const dg_mesh_structured_opts *mo, int dim, int p) {
  fixture fx;
  if (!fixture_build(&fx, mo, dim, p, 0, 0)) return;
  const dg_disc_view *v = &fx.disc.view;
  double *U = NULL;
  TEST_OK(DG_CALLOC(U, v->n_coefs));
  for (int64_t e = 0; e < v->n_elems; ++e) {
    const int s = v->elem_shape[e], nb = v->nb[s];
    double b[DG_MAX_NVAR * DG_MAX_BASIS] = {0}, Ue[DG_MAX_NVAR * DG_MAX_BASIS];
    for (int q = 0; q < v->nq[s]; ++q) {
      const double *phi = v->vol_phi + v->vol_table[s] + (int64_t)q * nb;
      const double *x = fx.disc.vol_x + (fx.disc.vol_x_offset[e] + q) * dim;
      const int64_t mk = v->elem_affine[e] ? v->metric_offset[e] : v->metric_offset[e] + q;
      const double wdetJ = v->vol_w[v->vol_point[s] + q] * v->metric_detJ[mk];
      for (int k = 0; k < v->nvar; ++k)
        for (int m = 0; m < nb; ++m) b[k * nb + m] += wdetJ * linear_field(k, x, dim) * phi[m];
    }
    residual_apply_minv(v, e, b, Ue);
    for (int k = 0; k < v->nvar; ++k)
      for (int m = 0; m < nb; ++m) U[disc_coef_index(v, e, k, m)] = Ue[k * nb + m];
  }
  double worst = 0.0;
  for (int64_t f = 0; f < v->n_faces; ++f) {
    const double *shift = fx.topo.face_shift + 3 * f;
    if (shift[0] != 0.0 || shift[1] != 0.0 || shift[2] != 0.0) continue;
    for (int q = 0; q < v->nqf; ++q) {
      const int64_t k = f * v->nqf + q;
      double U0[DG_MAX_NVAR], U1[DG_MAX_NVAR];
      residual_trace(v, U, v->face_elem[2 * f], v->face_local[2 * f], 0, q, U0);
      if (v->face_elem[2 * f + 1] >= 0)
        residual_trace(v, U, v->face_elem[2 * f + 1], v->face_local[2 * f + 1], v->face_orient[f],
                       q, U1);
      else
        memcpy(U1, U0, sizeof U0);
      for (int c = 0; c < v->nvar; ++c) {
        const double want = linear_field(c, v->face_x + k * dim, dim);
        worst = fmax(worst, fmax(fabs(U0[c] - want), fabs(U1[c] - want)));
      }
    }
  }
  TEST_CHECK(worst <= 1e-12, "%s p=%d: face traces of a linear field are off by %.3g", what, p,
             worst);
  free(U);
  fixture_free(&fx);
}

static void test_traces(void) {
  const dg_mesh_structured_kind kinds[3] = {MESH_STRUCTURED_TRI, MESH_STRUCTURED_QUAD,
                                            MESH_STRUCTURED_MIXED};
  for (int p = 1; p <= DG_MAX_P; ++p) {
    for (int k = 0; k < 3; ++k) {
      dg_mesh_structured_opts mo = mesh_structured_defaults(2);
      mo.kind = kinds[k];
      mo.n[0] = 4;
      mo.n[1] = 3;
      mo.deform = 0.05;
      mo.alternate_diagonals = 1;
      mo.periodic[0] = 1;
      check_traces("irregular 2D", &mo, 2, p);
    }
    dg_mesh_structured_opts mo = mesh_structured_defaults(3);
    mo.n[0] = mo.n[1] = mo.n[2] = 3;
    mo.deform = 0.04;
    mo.periodic[1] = 1;
    check_traces("irregular tet", &mo, 3, p);
  }
}

/* L2 projection of the state rho = 1, u = freestream velocity, p = p_inf (1 +
 * a x): its entropy deviation s/s_inf - 1 = a x is linear, so the projection
 * (p >= 1) reproduces it exactly at every quadrature point. */
static void project_linear_pressure(const fixture *fx, double a, double *U) {
  const dg_disc_view *v = &fx->disc.view;
  const double *inf = v->freestream;
  const double p_inf = physics_pressure(2, GAMMA, inf);
  for (int64_t e = 0; e < v->n_elems; ++e) {
    const int s = v->elem_shape[e], nb = v->nb[s];
    double b[DG_MAX_NVAR * DG_MAX_BASIS] = {0}, Ue[DG_MAX_NVAR * DG_MAX_BASIS];
    for (int q = 0; q < v->nq[s]; ++q) {
      const double *phi = v->vol_phi + v->vol_table[s] + (int64_t)q * nb;
      const double x = fx->disc.vol_x[(fx->disc.vol_x_offset[e] + q) * 2];
      const int64_t mk = v->elem_affine[e] ? v->metric_offset[e] : v->metric_offset[e] + q;
      const double wdetJ = v->vol_w[v->vol_point[s] + q] * v->metric_detJ[mk];
      const double u = inf[1] / inf[0], w = inf[2] / inf[0];
      const double Uq[4] = {1.0, u, w,
                            p_inf * (1.0 + a * x) / (GAMMA - 1.0) + 0.5 * (u * u + w * w)};
      for (int k = 0; k < 4; ++k)
        for (int m = 0; m < nb; ++m) b[k * nb + m] += wdetJ * Uq[k] * phi[m];
    }
    residual_apply_minv(v, e, b, Ue);
    for (int k = 0; k < 4; ++k)
      for (int m = 0; m < nb; ++m) U[disc_coef_index(v, e, k, m)] = Ue[k * nb + m];
  }
}

/* disc_entropy_error: zero for the freestream; for the linear-pressure state
 * above on the box [0,2] x [0,1], eps_s^2 = a^2 (1/2) int_0^2 x^2 dx =
 * (4/3) a^2, exactly on affine elements (the integrand a^2 x^2 has degree 2),
 * and to round-off on curved ones (deformed, geometric order q = p for p = 2,
 * 3, so that the degree-p basis holds x, a degree-q polynomial of the
 * reference coordinates; x^2 detJ is no longer of low degree, so the rule is
 * raised to degree 15 there); NaN
 * when the state has a negative pressure somewhere. */
static void test_entropy_error(void) {
  const double a = 0.3, exact = a * sqrt(4.0 / 3.0);
  for (int curved = 0; curved <= 1; ++curved)
    for (int p = 1 + curved; p <= DG_MAX_P; ++p) {
      dg_mesh_structured_opts mo = mesh_structured_defaults(2);
      mo.kind = MESH_STRUCTURED_MIXED;
      mo.hi[0] = 2.0;
      mo.n[0] = 6;
      mo.n[1] = 3;
      if (curved) {
        mo.order = p;
        mo.deform = 0.03;
      }
      fixture fx;
      if (!fixture_build_degree(&fx, &mo, 2, p, 0, 0, curved ? 15 : 0)) continue;
      TEST_CHECK(curved == 0 || fx.disc.view.elem_affine[0] == 0,
                 "the deformed order-%d mesh has affine elements", p);
      double *U = NULL, err = -1.0;
      TEST_OK(DG_CALLOC(U, fx.disc.view.n_coefs));
      TEST_OK(disc_project(&fx.disc, 0.0, U));
      TEST_OK(disc_entropy_error(&fx.disc, U, &err));
      TEST_CLOSE(err, 0.0, 1e-14, "entropy error of the freestream");
      project_linear_pressure(&fx, a, U);
      TEST_OK(disc_entropy_error(&fx.disc, U, &err));
      TEST_CHECK(fabs(err - exact) <= 1e-12 * exact, "%s p=%d: entropy error %.15g, expected %.15g",
                 curved ? "curved" : "affine", p, err, exact);
      project_linear_pressure(&fx, -1.5, U); /* p < 0 for x > 2/3 */
      TEST_OK(disc_entropy_error(&fx.disc, U, &err));
      TEST_CHECK(isnan(err), "entropy error of a state with p < 0: %g, expected NaN", err);
      free(U);
      fixture_free(&fx);
    }
}

static void test_disc_errors(void) {
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  fixture fx;
  memset(&fx, 0, sizeof fx);
  TEST_OK(mesh_structured_2d(&mo, &fx.mesh));
  TEST_OK(topology_build(&fx.mesh, &fx.topo));
  TEST_OK(geometry_build(&fx.mesh, &fx.topo, 3, 3, &fx.geom));
  int32_t bc[8];
  physics_bc_data data[8];
  dg_disc_opts o = fixture_opts(&fx.mesh, 2, 0, 0, mo.lo, mo.hi, bc, data);
  TEST_FAILS(disc_build(&fx.mesh, &fx.topo, &fx.geom, &o, &fx.disc), DG_ERR_ARG,
             "exact to degree 3");
  o.p = 4;
  TEST_FAILS(disc_build(&fx.mesh, &fx.topo, &fx.geom, &o, &fx.disc), DG_ERR_ARG, "p = 4");
  o.p = 1;
  bc[2] = -1;
  TEST_FAILS(disc_build(&fx.mesh, &fx.topo, &fx.geom, &o, &fx.disc), DG_ERR_ARG,
             "'ymin' (tag 3) has 4 faces but no boundary condition");
  bc[2] = PHYSICS_BC_WALL;
  o.n_groups = 3;
  TEST_FAILS(disc_build(&fx.mesh, &fx.topo, &fx.geom, &o, &fx.disc), DG_ERR_ARG,
             "3 boundary conditions given for 4 mesh groups");
  o.n_groups = 4;
  TEST_OK(disc_build(&fx.mesh, &fx.topo, &fx.geom, &o, &fx.disc));
  TEST_CHECK(fx.disc.view.n_coefs == 32 * 3 * 4, "n_coefs %lld for 32 triangles at p = 1",
             (long long)fx.disc.view.n_coefs);
  fixture_free(&fx);
}

/* A mixed mesh of geometric order 2 that is straight except along y = lo,
 * where the boundary nodes (vertices and edge midpoints) follow a bump: the
 * elements along it are curved, the others affine. Then the geometry with
 * the curved degree 2p + 3 and the disc with affine_degree (0: off). */
static int affine_fixture(fixture *fx, int p, int affine_degree, int exact_kind) {
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = MESH_STRUCTURED_MIXED;
  mo.order = 2;
  mo.n[0] = 6;
  mo.n[1] = 5;
  mo.alternate_diagonals = 1;
  memset(fx, 0, sizeof *fx);
  dg_status st = mesh_structured_2d(&mo, &fx->mesh);
  if (st == DG_SUCCESS) {
    const double L = mo.hi[0] - mo.lo[0];
    for (int64_t k = 0; k < fx->mesh.n_nodes; ++k) {
      double *x = fx->mesh.x + 3 * k;
      if (fabs(x[1] - mo.lo[1]) < 1e-12) x[1] += 0.02 * L * sin(DG_PI * (x[0] - mo.lo[0]) / L);
    }
  }
  if (st == DG_SUCCESS) st = topology_build(&fx->mesh, &fx->topo);
  if (st == DG_SUCCESS) st = geometry_build(&fx->mesh, &fx->topo, 2 * p + 3, 2 * p + 2, &fx->geom);
  if (st == DG_SUCCESS) {
    int32_t bc[8];
    physics_bc_data data[8];
    dg_disc_opts o = fixture_opts(&fx->mesh, p, exact_kind, 0, mo.lo, mo.hi, bc, data);
    o.affine_degree = affine_degree;
    st = disc_build(&fx->mesh, &fx->topo, &fx->geom, &o, &fx->disc);
  }
  if (st == DG_SUCCESS) st = dg_backend_create(test_backend, &fx->disc, &fx->ctx);
  TEST_OK(st);
  return st == DG_SUCCESS;
}

/* R of the projected start state (the vortex) into hR: on fx's backend
 * (cpu = 0) or on a CPU backend context made for the purpose (cpu = 1). */
static void affine_residual_on(fixture *fx, int cpu, double *hR) {
  const dg_backend *b = cpu ? backend_cpu() : test_backend;
  dg_backend_ctx *ctx = fx->ctx;
  if (cpu) TEST_OK(dg_backend_create(b, &fx->disc, &ctx));
  const int64_t n = fx->disc.view.n_coefs;
  dg_vec U = {0}, R = {0};
  double *hU = malloc((size_t)n * sizeof *hU);
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &U));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &R));
  TEST_OK(disc_project(&fx->disc, 0.0, hU));
  TEST_OK(dg_vec_upload(hU, &U));
  TEST_OK(dg_backend_residual(b, ctx, &U, 0.0, &R));
  TEST_OK(dg_vec_download(&R, hR));
  dg_vec_destroy(&U);
  dg_vec_destroy(&R);
  if (cpu) dg_backend_destroy(b, ctx);
  free(hU);
}

static void affine_residual(fixture *fx, double *hR) { affine_residual_on(fx, 0, hR); }

static void test_affine_rule(void) {
  for (int p = 1; p <= DG_MAX_P; ++p) {
    fixture full, red;
    if (!affine_fixture(&full, p, 0, 1)) return;
    if (!affine_fixture(&red, p, 2 * p + 1, 1)) {
      fixture_free(&full);
      return;
    }
    const dg_disc_view *f = &full.disc.view, *r = &red.disc.view;
    int64_t n_affine = 0;
    for (int64_t e = 0; e < r->n_elems; ++e) n_affine += r->elem_affine[e] != 0;
    TEST_CHECK(n_affine > 0 && n_affine < r->n_elems, "p=%d: %lld of %lld elements affine", p,
               (long long)n_affine, (long long)r->n_elems);
    for (int s = DG_TRI; s <= DG_QUAD; ++s)
      TEST_CHECK(disc_shape_rule_uniform(f, s) && f->nq_affine[s] == f->nq[s],
                 "p=%d shape %d: affine rule without affine_degree", p, s);
    TEST_CHECK(!disc_shape_rule_uniform(r, DG_TRI) && r->nq_affine[DG_TRI] < r->nq[DG_TRI],
               "p=%d: triangles' affine rule of %d points, curved %d", p, r->nq_affine[DG_TRI],
               r->nq[DG_TRI]);
    /* quadrilaterals are never affine: no second rule, the tuned kernels stay */
    TEST_CHECK(disc_shape_rule_uniform(r, DG_QUAD) && r->nq_affine[DG_QUAD] == r->nq[DG_QUAD],
               "p=%d: quadrilaterals got an affine rule", p);
    /* the lower rule's tables on every affine element: Σ w detJ φ_m φ_k =
     * detJ δ_mk (orthonormal basis, degree 2p) and Σ w detJ ∂φ_m/∂ξ_i φ_k
     * (degree 2p - 1) as the curved rule gives it */
    double mass_err = 0.0, stiff_err = 0.0;
    for (int64_t e = 0; e < r->n_elems; ++e) {
      if (!r->elem_affine[e]) continue;
      const int s = r->elem_shape[e], nb = r->nb[s];
      const double detJ = r->metric_detJ[r->metric_offset[e]];
      int64_t vt, vp;
      const int nq = disc_elem_rule(r, e, &vt, &vp);
      TEST_CHECK(nq == r->nq_affine[s], "p=%d element %lld: %d points", p, (long long)e, nq);
      for (int m = 0; m < nb; ++m)
        for (int k = 0; k < nb; ++k) {
          double mass = 0.0, stiff[2] = {0.0, 0.0}, stiff_ref[2] = {0.0, 0.0};
          for (int q = 0; q < nq; ++q) {
            const double w = r->vol_w[vp + q] * detJ;
            const double *phi = r->vol_phi + vt + (int64_t)q * nb;
            mass += w * phi[m] * phi[k];
            for (int i = 0; i < 2; ++i)
              stiff[i] += w * r->vol_dphi[(vt + q * nb + m) * 2 + i] * phi[k];
          }
          for (int q = 0; q < f->nq[s]; ++q) {
            const double w = f->vol_w[f->vol_point[s] + q] * detJ;
            const double *phi = f->vol_phi + f->vol_table[s] + (int64_t)q * nb;
            for (int i = 0; i < 2; ++i)
              stiff_ref[i] += w * f->vol_dphi[(f->vol_table[s] + q * nb + m) * 2 + i] * phi[k];
          }
          mass_err = fmax(mass_err, fabs(mass - (m == k ? detJ : 0.0)) / detJ);
          for (int i = 0; i < 2; ++i)
            stiff_err = fmax(stiff_err, fabs(stiff[i] - stiff_ref[i]) / detJ);
        }
    }
    TEST_CHECK(mass_err <= 1e-13, "p=%d: mass with the affine rule off by %.3g", p, mass_err);
    TEST_CHECK(stiff_err <= 1e-12, "p=%d: stiffness with the affine rule off by %.3g", p,
               stiff_err);
    /* the vortex: curved elements' R the same bits (CPU; on the CUDA
     * backend the mesh rule runs the tuned kernels and the reduced one the
     * portable kernels, whose sums are ordered differently: the same to
     * round-off), affine ones within the volume rule's error */
    const int64_t n = r->n_coefs;
    double *Rf = malloc((size_t)n * sizeof *Rf), *Rr = malloc((size_t)n * sizeof *Rr);
    affine_residual(&full, Rf);
    affine_residual(&red, Rr);
    int64_t curved_differ = 0;
    double affine_diff = 0.0, curved_diff = 0.0;
    const double scale = max_abs(Rf, n);
    for (int64_t e = 0; e < r->n_elems; ++e) {
      const int s = r->elem_shape[e];
      for (int v = 0; v < r->nvar; ++v)
        for (int m = 0; m < r->nb[s]; ++m) {
          const int64_t i = disc_coef_index(r, e, v, m);
          if (r->elem_affine[e])
            affine_diff = fmax(affine_diff, fabs(Rr[i] - Rf[i]) / scale);
          else {
            curved_differ += memcmp(&Rr[i], &Rf[i], sizeof(double)) != 0;
            curved_diff = fmax(curved_diff, fabs(Rr[i] - Rf[i]) / scale);
          }
        }
    }
    if (test_backend_is_cpu())
      TEST_CHECK(curved_differ == 0, "p=%d: %lld residual entries of curved elements changed", p,
                 (long long)curved_differ);
    else
      TEST_CHECK(curved_diff <= 1e-13,
                 "p=%d: curved elements' residual differs by %.3g of max |R| (%lld entries)", p,
                 curved_diff, (long long)curved_differ);
    if (!test_backend_is_cpu()) {
      /* the GPU's kernels with the lower rule against the CPU's */
      double *Rc = malloc((size_t)n * sizeof *Rc), gpu_cpu = 0.0;
      affine_residual_on(&red, 1, Rc);
      for (int64_t i = 0; i < n; ++i) gpu_cpu = fmax(gpu_cpu, fabs(Rr[i] - Rc[i]) / scale);
      TEST_CHECK(gpu_cpu <= 1e-12, "p=%d: the lower rule's residual GPU vs CPU differs by %.3g", p,
                 gpu_cpu);
      printf("affine rule p=%d: GPU vs CPU residual with the lower rule %.2e of max |R|\n", p,
             gpu_cpu);
      free(Rc);
    }
    TEST_CHECK(affine_diff > 0.0 && affine_diff <= 1e-4,
               "p=%d: affine elements' residual differs by %.3g (relative to max |R|)", p,
               affine_diff);
    printf("affine rule p=%d: %lld of %lld elements affine, %d instead of %d points (tri); mass "
           "%.1e, stiffness %.1e; vortex R on affine elements %.2e, on curved ones %.2e of max "
           "|R|\n",
           p, (long long)n_affine, (long long)r->n_elems, r->nq_affine[DG_TRI], r->nq[DG_TRI],
           mass_err, stiff_err, affine_diff, curved_diff);
    free(Rf);
    free(Rr);
    fixture_free(&full);
    fixture_free(&red);
    /* the uniform state: R = 0 to round-off with the lower rule */
    fixture uni;
    if (!affine_fixture(&uni, p, 2 * p + 1, 0)) return;
    double *R0 = malloc((size_t)uni.disc.view.n_coefs * sizeof *R0);
    affine_residual(&uni, R0);
    const double rmax = max_abs(R0, uni.disc.view.n_coefs);
    TEST_CHECK(rmax <= 1e-13, "p=%d: residual of the freestream with the affine rule is %.3g", p,
               rmax);
    free(R0);
    fixture_free(&uni);
  }
}

int main(int argc, char **argv) {
  const int rc = test_backend_args(&argc, argv);
  if (rc) return rc;
  printf("backend %s\n", test_backend_name);
  if (!test_backend_is_cpu()) { /* the rest checks host code and the CPU backend */
    test_uniform_state();
    test_norms_forces();
    test_affine_rule();
    return test_finish("test_residual");
  }
  test_gather_vs_atomic();
  test_uniform_state();
  test_projection();
  test_traces();
  test_norms_forces();
  test_disc_errors();
  test_entropy_error();
  test_affine_rule();
  return test_finish("test_residual");
}
