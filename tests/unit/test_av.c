/* Artificial viscosity: Persson–Peraire sensor and BR2 diffusion
 * (src/dg/av_ops.h, src/dg/disc.c, src/dg/backend_cpu.c; docs/NUMERICS-av.md).
 *
 *   test_av               sensor and ε ramp; linear ε tables and the vertex
 *                         CSR (continuity of ε across faces, periodic too);
 *                         BR2 liftings (defining identity by quadrature,
 *                         analytic liftings of a constant jump); consistency
 *                         with ∫ ∇·(ε∇U) φ for polynomial U (constant and
 *                         linear ε); free-stream preservation with ε > 0;
 *                         CPU backend against a serial loop, av_eps,
 *                         timestep, thread count, ε = 0 = the inviscid path;
 *                         disc_build option errors
 *   test_av --order       convergence of the BR2 diffusion operator (steady
 *                         periodic problem, CG), CI-sized: tri and quad
 *                         p = 1..3, curved quad p = 1, 2; three meshes each
 *   test_av --order-full  the full study (tri, quad, curved quad; p = 1..3;
 *                         n = 4, 8, 16, 32); slopes printed
 * One source, `--backend cpu|cuda` (tests/av.cmake: test_av_cpu, and
 * test_av_cuda with label gpu): on cuda the free-stream preservation with
 * ε > 0 runs on the CUDA backend; the other checks are of host code and the
 * CPU backend and run with --backend cpu (test_av_gpu compares the CUDA
 * backend's AV residual, time steps and ε with the CPU's). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef COLORDG_HAVE_OPENMP
#include <omp.h>
#endif

#include "backends/backend_select.h"
#include "dg/av_ops.h"
#include "dg/backend_cpu.h"
#include "dg/disc.h"
#include "dg/explicit.h"
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

typedef struct {
  int p, av, sensor_var, bc; /* bc: physics_bc_kind of every group */
  double s0_offset, kappa, c, eta;
  int degree; /* quadrature degree, 0 = 2p+1 */
  int no_ctx; /* 1: no backend context */
} fixture_opts;

static fixture_opts fopts(int p, int av) {
  fixture_opts o = {p, av, 3, PHYSICS_BC_FARFIELD, 0.0, 1.0, 1.0, 0.0, 0, 0};
  return o;
}

static void fixture_free(fixture *fx) {
  if (fx->ctx) dg_backend_destroy(test_backend, fx->ctx);
  disc_free(&fx->disc);
  geometry_free(&fx->geom);
  topology_free(&fx->topo);
  mesh_free(&fx->mesh);
  memset(fx, 0, sizeof *fx);
}

static dg_disc_opts disc_options(const dg_mesh *mesh, const fixture_opts *fo, int32_t *bc,
                                 physics_bc_data *data) {
  dg_disc_opts o = {0};
  o.p = fo->p;
  o.gamma = GAMMA;
  o.flux = DG_FACE_FLUX_ROE;
  physics_freestream_state(mesh->dim, GAMMA, 0.5, 30.0, mesh->dim == 3 ? 10.0 : 0.0, o.freestream);
  o.n_groups = mesh->n_groups;
  for (int g = 0; g < mesh->n_groups; ++g) {
    bc[g] = fo->bc;
    memset(&data[g], 0, sizeof data[g]);
    for (int v = 0; v < DG_MAX_NVAR; ++v) data[g].state[v] = o.freestream[v];
  }
  o.group_bc = bc;
  o.group_data = data;
  o.av = fo->av;
  o.av_sensor_var = fo->sensor_var < physics_nvar(mesh->dim) ? fo->sensor_var : mesh->dim + 1;
  o.av_s0_offset = fo->s0_offset;
  o.av_kappa = fo->kappa;
  o.av_c = fo->c;
  o.br2_eta = fo->eta;
  return o;
}

static int fixture_build(fixture *fx, const dg_mesh_structured_opts *mo, int dim,
                         const fixture_opts *fo) {
  const int degree = fo->degree ? fo->degree : 2 * fo->p + 1;
  memset(fx, 0, sizeof *fx);
  dg_status st = dim == 2 ? mesh_structured_2d(mo, &fx->mesh) : mesh_structured_3d(mo, &fx->mesh);
  if (st == DG_SUCCESS) st = topology_build(&fx->mesh, &fx->topo);
  if (st == DG_SUCCESS) st = geometry_build(&fx->mesh, &fx->topo, degree, degree, &fx->geom);
  if (st == DG_SUCCESS) {
    int32_t bc[8];
    physics_bc_data data[8];
    const dg_disc_opts o = disc_options(&fx->mesh, fo, bc, data);
    st = disc_build(&fx->mesh, &fx->topo, &fx->geom, &o, &fx->disc);
  }
  if (st == DG_SUCCESS && !fo->no_ctx) st = dg_backend_create(test_backend, &fx->disc, &fx->ctx);
  TEST_OK(st);
  if (st != DG_SUCCESS) fixture_free(fx);
  return st == DG_SUCCESS;
}

static dg_mesh_structured_opts mesh2d(dg_mesh_structured_kind kind, int nx, int ny, int order,
                                      double deform, int periodic) {
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = kind;
  mo.n[0] = nx;
  mo.n[1] = ny;
  mo.order = order;
  mo.deform = deform;
  mo.periodic[0] = mo.periodic[1] = periodic;
  return mo;
}

/* w detJ at volume point q of element e. */
static double wdetj(const dg_disc_view *v, int64_t e, int q) {
  const int s = v->elem_shape[e];
  const int64_t mk = v->elem_affine[e] ? v->metric_offset[e] : v->metric_offset[e] + q;
  return v->vol_w[v->vol_point[s] + q] * v->metric_detJ[mk];
}

static const double *vol_x(const dg_disc *disc, int64_t e, int q) {
  return disc->vol_x + (disc->vol_x_offset[e] + q) * disc->view.dim;
}

/* calloc of n >= 1 elements (n <= 0 gives one). */
static void *zalloc(int64_t n, size_t size) { return calloc(n > 0 ? (size_t)n : 1u, size); }

/* Deterministic pseudo-random numbers in [-1, 1]. */
static double rnd(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return 2.0 * ((*state >> 8) / 16777216.0) - 1.0;
}

/* --------------------------------------------------------- polynomials */

/* A polynomial of total degree <= 3 in up to 3 variables, one per state
 * variable: c[v][i][j][k] x^i y^j z^k. */
typedef struct {
  int dim, deg;
  double c[DG_MAX_NVAR][4][4][4];
} poly;

static void poly_random(poly *P, int dim, int deg, unsigned seed) {
  memset(P, 0, sizeof *P);
  P->dim = dim;
  P->deg = deg;
  for (int v = 0; v < DG_MAX_NVAR; ++v)
    for (int i = 0; i <= deg; ++i)
      for (int j = 0; i + j <= deg; ++j)
        for (int k = 0; i + j + k <= deg && (dim == 3 || k == 0); ++k)
          P->c[v][i][j][k] = rnd(&seed);
}

static double ipow(double x, int n) { return n <= 0 ? 1.0 : x * ipow(x, n - 1); }

/* Value, gradient and Laplacian of variable v at x. */
static void poly_eval(const poly *P, int v, const double *x, double *val, double *grad,
                      double *lap) {
  const double X = x[0], Y = x[1], Z = P->dim == 3 ? x[2] : 0.0;
  double f = 0.0, g[3] = {0, 0, 0}, l = 0.0;
  for (int i = 0; i <= P->deg; ++i)
    for (int j = 0; i + j <= P->deg; ++j)
      for (int k = 0; i + j + k <= P->deg; ++k) {
        const double c = P->c[v][i][j][k];
        if (c == 0.0) continue;
        const double xi = ipow(X, i), yj = ipow(Y, j), zk = ipow(Z, k);
        f += c * xi * yj * zk;
        g[0] += c * i * ipow(X, i - 1) * yj * zk;
        g[1] += c * j * xi * ipow(Y, j - 1) * zk;
        g[2] += c * k * xi * yj * ipow(Z, k - 1);
        l += c * (i * (i - 1) * ipow(X, i - 2) * yj * zk + j * (j - 1) * xi * ipow(Y, j - 2) * zk +
                  k * (k - 1) * xi * yj * ipow(Z, k - 2));
      }
  if (val) *val = f;
  if (grad)
    for (int d = 0; d < P->dim; ++d) grad[d] = g[d];
  if (lap) *lap = l;
}

typedef void (*field_fn)(const void *ctx, const double *x, double *U);

static void poly_field(const void *ctx, const double *x, double *U) {
  const poly *P = ctx;
  for (int v = 0; v < physics_nvar(P->dim); ++v) poly_eval(P, v, x, &U[v], NULL, NULL);
}

/* L2 projection of field onto the basis, element by element (exact for
 * polynomials of the element's space on affine or parallelogram elements). */
static void project(const dg_disc *disc, field_fn fn, const void *ctx, double *U) {
  const dg_disc_view *v = &disc->view;
  const int nv = v->nvar;
  for (int64_t e = 0; e < v->n_elems; ++e) {
    const int s = v->elem_shape[e], nb = v->nb[s];
    double b[DG_MAX_NVAR * DG_MAX_BASIS] = {0}, Ue[DG_MAX_NVAR * DG_MAX_BASIS];
    for (int q = 0; q < v->nq[s]; ++q) {
      const double *phi = v->vol_phi + v->vol_table[s] + (int64_t)q * nb;
      double Uq[DG_MAX_NVAR];
      fn(ctx, vol_x(disc, e, q), Uq);
      const double w = wdetj(v, e, q);
      for (int k = 0; k < nv; ++k)
        for (int m = 0; m < nb; ++m) b[k * nb + m] += w * Uq[k] * phi[m];
    }
    residual_apply_minv(v, e, b, Ue);
    for (int k = 0; k < nv; ++k)
      for (int m = 0; m < nb; ++m) U[disc_coef_index(v, e, k, m)] = Ue[k * nb + m];
  }
}

/* Pure BR2 diffusion residual R = ∇·(ε∇U) in weak form (no convection),
 * ε given by eps_c. Scratch: G [dim n_coefs], ff and fj [n_faces nqf nvar]. */
static void diffusion_residual(const dg_disc_view *v, const double *U, const double *eps_c,
                               double *G, double *ff, double *fj, double *R) {
  for (int64_t e = 0; e < v->n_elems; ++e) av_element_gradient(v, e, U, G);
  for (int64_t f = 0; f < v->n_faces; ++f)
    av_residual_face_terms(v, NULL, f, U, G, eps_c, 0.0, 0, ff, fj);
  for (int64_t e = 0; e < v->n_elems; ++e) av_residual_element_terms(v, e, U, eps_c, ff, fj, 0, R);
}

/* eps_c of a constant ε on every element. */
static void constant_eps(const dg_disc_view *v, double eps, double *eps_c) {
  for (int64_t e = 0; e < v->n_elems; ++e) {
    for (int m = 0; m < DG_AV_NLIN; ++m) eps_c[e * DG_AV_NLIN + m] = 0.0;
    eps_c[e * DG_AV_NLIN] = eps * sqrt(shape_ref_measure((dg_shape)v->elem_shape[e]));
  }
}

typedef struct {
  double *G, *ff, *fj, *eps_c;
} scratch;

static void scratch_alloc(const dg_disc_view *v, scratch *w) {
  const int64_t nff = v->n_faces * v->nqf * v->nvar;
  w->G = zalloc(v->dim * v->n_coefs, sizeof(double));
  w->ff = zalloc(nff, sizeof(double));
  w->fj = zalloc(nff, sizeof(double));
  w->eps_c = zalloc(v->n_elems * DG_AV_NLIN, sizeof(double));
}

static void scratch_free(scratch *w) {
  free(w->G);
  free(w->ff);
  free(w->fj);
  free(w->eps_c);
  memset(w, 0, sizeof *w);
}

static double max_abs(const double *a, int64_t n) {
  double m = 0.0;
  for (int64_t i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
  return m;
}

/* -------------------------------------------------------------- sensor */

static void check_sensor(dg_mesh_structured_kind kind, int p, int sensor_var) {
  fixture_opts fo = fopts(p, DG_AV_ELEMENT);
  fo.sensor_var = sensor_var;
  fo.no_ctx = 1;
  fixture fx;
  const dg_mesh_structured_opts mo = mesh2d(kind, 3, 3, 1, 0.0, 0);
  if (!fixture_build(&fx, &mo, 2, &fo)) return;
  dg_disc_view v = fx.disc.view;
  const int nv = v.nvar, sv = v.av_sensor_var;
  TEST_CHECK(sv == (sensor_var < nv ? sensor_var : nv - 1), "sensor variable %d", sv);
  TEST_CLOSE(v.av_s0, -4.0 * log10((double)p), 1e-15, "s0 = -4 log10 p");
  double *U = zalloc(v.n_coefs, sizeof *U);
  const double W[4] = {1.2, 0.3, -0.2, 0.9}; /* ρ, u, v, p */
  double Um[4];
  physics_primitive_to_conservative(2, GAMMA, W, Um);
  const double lambda = sqrt(W[1] * W[1] + W[2] * W[2]) + sqrt(GAMMA * W[3] / W[0]);
  unsigned seed = 7u + (unsigned)p;
  for (int64_t e = 0; e < v.n_elems; ++e) {
    const int s = v.elem_shape[e], nb = v.nb[s], low = v.nb_low[s];
    const double phi0 = 1.0 / sqrt(shape_ref_measure((dg_shape)s));
    TEST_CHECK(low == basis_count((dg_shape)s, p - 1), "nb_low %d", low);
    TEST_CLOSE(v.elem_h[e], fx.geom.elem_h[e], 0.0, "elem_h is the geometry's h");
    /* (a) only modes below the top degree: the floor, ε = 0 */
    for (int k = 0; k < nv; ++k) U[disc_coef_index(&v, e, k, 0)] = Um[k] / phi0;
    for (int m = 1; m < low; ++m) U[disc_coef_index(&v, e, sv, m)] = 0.1 * rnd(&seed);
    TEST_CLOSE(av_sensor(&v, e, U), AV_SENSOR_FLOOR, 0.0, "sensor of a degree p-1 state");
    TEST_CLOSE(av_element_eps(&v, NULL, e, U), 0.0, 0.0, "eps of a degree p-1 state");
    /* (b) known top-mode energy fraction */
    double all = 0.0, top = 0.0;
    for (int m = low; m < nb; ++m) U[disc_coef_index(&v, e, sv, m)] = 0.01 * (m + 1 - low);
    for (int m = 0; m < nb; ++m) {
      const double u = U[disc_coef_index(&v, e, sv, m)];
      all += u * u;
      if (m >= low) top += u * u;
    }
    const double se = av_sensor(&v, e, U);
    TEST_CLOSE(se, log10(top / all), 1e-14, "sensor = log10 of the top-mode energy fraction");
    /* (c) the ramp at s0 - κ, s0 - κ/2, s0, s0 + κ/3, s0 + κ, beyond */
    const double eps0 = v.av_c * lambda * v.elem_h[e] / p;
    const double at[6] = {-1.0, -0.5, 0.0, 1.0 / 3.0, 1.0, 1.5};
    const double want[6] = {0.0, 0.5 * (1.0 - sqrt(0.5)), 0.5, 0.75, 1.0, 1.0};
    for (int i = 0; i < 6; ++i) {
      dg_disc_view w = v;
      w.av_kappa = 0.7;
      w.av_s0 = se - at[i] * w.av_kappa;
      TEST_CLOSE(av_element_eps(&w, NULL, e, U), want[i] * eps0, 1e-14 * eps0, "eps ramp");
    }
    dg_disc_view w = v;
    w.av_s0 = se + 1.0 + 1e-9;
    w.av_kappa = 1.0;
    TEST_CLOSE(av_element_eps(&w, NULL, e, U), 0.0, 0.0, "eps below s0 - kappa");
  }
  /* per-element ε: constant field, mean = ε_e */
  double *eps_elem = zalloc(v.n_elems, sizeof *eps_elem);
  double *eps_c = zalloc(v.n_elems * DG_AV_NLIN, sizeof *eps_c);
  for (int64_t e = 0; e < v.n_elems; ++e) eps_elem[e] = 0.01 * (double)(e + 1);
  for (int64_t e = 0; e < v.n_elems; ++e) {
    av_element_coefs(&v, e, eps_elem, NULL, eps_c);
    TEST_CLOSE(av_element_mean_eps(&v, e, eps_c), eps_elem[e], 1e-15, "mean eps (element)");
    const int s = v.elem_shape[e];
    for (int q = 0; q < v.nq[s]; ++q)
      TEST_CLOSE(av_eps_at(&v, e, eps_c, v.vol_phi + v.vol_table[s] + (int64_t)q * v.nb[s]),
                 eps_elem[e], 1e-15, "per-element eps is constant");
  }
  free(eps_elem);
  free(eps_c);
  free(U);
  fixture_free(&fx);
}

static void test_sensor(void) {
  for (int p = 1; p <= DG_MAX_P; ++p) {
    check_sensor(MESH_STRUCTURED_TRI, p, 3);
    check_sensor(MESH_STRUCTURED_QUAD, p, 0);
  }
  printf("sensor: floor, exact log10 energy fraction and ramp values checked, p = 1..3\n");
}

/* ------------------------------------------------------ linear ε tables */

/* Hat function of reference vertex i, written independently of disc.c. */
static double hat(dg_shape s, int i, const double xi[3]) {
  if (s == DG_QUAD) {
    const double sx[4] = {-1, 1, 1, -1}, sy[4] = {-1, -1, 1, 1};
    return 0.25 * (1 + sx[i] * xi[0]) * (1 + sy[i] * xi[1]);
  }
  const double lam[4] = {1.0 - xi[0] - xi[1] - (s == DG_TET ? xi[2] : 0.0), xi[0], xi[1], xi[2]};
  return lam[i];
}

/* Σ_m lin_coef φ_m reproduces the hat functions at random points; ε from
 * vertex values is continuous across every face (both sides agree at the
 * face points), vertex ids and the CSR agree with the mesh. */
static void check_linear(const char *what, const dg_mesh_structured_opts *mo, int dim, int p) {
  fixture_opts fo = fopts(p, DG_AV_CONTINUOUS);
  fo.no_ctx = 1;
  fixture fx;
  if (!fixture_build(&fx, mo, dim, &fo)) return;
  const dg_disc_view *v = &fx.disc.view;
  unsigned seed = 11u;
  double worst_hat = 0.0, worst_jump = 0.0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (v->n_shape[s] == 0) continue;
    const int nl = v->n_lin[s];
    TEST_CHECK(nl == shape_n_verts((dg_shape)s), "%s: n_lin %d", what, nl);
    for (int trial = 0; trial < 20; ++trial) {
      double xi[3] = {0, 0, 0};
      if (s == DG_QUAD) {
        xi[0] = rnd(&seed);
        xi[1] = rnd(&seed);
      } else {
        double sum = 2.0;
        while (sum > 1.0) {
          sum = 0.0;
          for (int d = 0; d < dim; ++d) sum += (xi[d] = 0.5 * (1.0 + rnd(&seed)));
        }
      }
      double phi[DG_MAX_BASIS];
      basis_eval((dg_shape)s, p, xi, phi);
      for (int i = 0; i < nl; ++i) {
        double sum = 0.0;
        for (int m = 0; m < nl; ++m) sum += v->lin_coef[v->lin_table[s] + m * nl + i] * phi[m];
        worst_hat = fmax(worst_hat, fabs(sum - hat((dg_shape)s, i, xi)));
      }
    }
  }
  TEST_CHECK(worst_hat <= 1e-14, "%s p=%d: lin_coef reproduces the hats to %.3g", what, p,
             worst_hat);

  /* CSR: each element listed under each of its vertices, ascending */
  int64_t listed = 0;
  for (int64_t i = 0; i < v->n_verts; ++i)
    for (int64_t k = v->vert_elem_start[i]; k < v->vert_elem_start[i + 1]; ++k) {
      const int64_t e = v->vert_elem[k];
      TEST_CHECK(k == v->vert_elem_start[i] || v->vert_elem[k - 1] < e,
                 "%s: vertex %lld elements not ascending", what, (long long)i);
      int found = 0;
      for (int j = 0; j < DG_MAX_VERTS; ++j) found |= v->elem_vert[e * DG_MAX_VERTS + j] == i;
      TEST_CHECK(found, "%s: element %lld listed at vertex %lld it does not have", what,
                 (long long)e, (long long)i);
      ++listed;
    }
  int64_t expect = 0;
  for (int64_t e = 0; e < v->n_elems; ++e) expect += shape_n_verts((dg_shape)v->elem_shape[e]);
  TEST_CHECK(listed == expect, "%s: CSR holds %lld entries, elements have %lld vertices", what,
             (long long)listed, (long long)expect);

  /* continuity of ε across faces */
  double *eps_elem = zalloc(v->n_elems, sizeof *eps_elem);
  double *eps_vert = zalloc(v->n_verts, sizeof *eps_vert);
  double *eps_c = zalloc(v->n_elems * DG_AV_NLIN, sizeof *eps_c);
  for (int64_t e = 0; e < v->n_elems; ++e) eps_elem[e] = 1.0 + rnd(&seed);
  for (int64_t i = 0; i < v->n_verts; ++i) {
    eps_vert[i] = av_vertex_eps(v, i, eps_elem);
    double sum = 0.0;
    const int64_t n = v->vert_elem_start[i + 1] - v->vert_elem_start[i];
    for (int64_t e = 0; e < v->n_elems; ++e)
      for (int j = 0; j < DG_MAX_VERTS; ++j)
        if (v->elem_vert[e * DG_MAX_VERTS + j] == i) sum += eps_elem[e];
    TEST_CLOSE(eps_vert[i], sum / (double)n, 1e-14, "vertex eps = mean of its elements");
  }
  for (int64_t e = 0; e < v->n_elems; ++e) av_element_coefs(v, e, eps_elem, eps_vert, eps_c);
  for (int64_t f = 0; f < v->n_interior; ++f) {
    const int64_t e0 = v->face_elem[2 * f], e1 = v->face_elem[2 * f + 1];
    const int s0 = v->elem_shape[e0], s1 = v->elem_shape[e1];
    for (int q = 0; q < v->nqf; ++q) {
      const double *phi0 =
          v->face_phi + v->face_table[s0][v->face_local[2 * f]][0] + (int64_t)q * v->nb[s0];
      const double *phi1 = v->face_phi +
                           v->face_table[s1][v->face_local[2 * f + 1]][v->face_orient[f]] +
                           (int64_t)q * v->nb[s1];
      worst_jump =
          fmax(worst_jump, fabs(av_eps_at(v, e0, eps_c, phi0) - av_eps_at(v, e1, eps_c, phi1)));
    }
  }
  TEST_CHECK(worst_jump <= 1e-14, "%s p=%d: continuous eps jumps by %.3g across faces", what, p,
             worst_jump);
  /* at a vertex, ε equals the vertex value */
  for (int64_t e = 0; e < v->n_elems; ++e) {
    const int s = v->elem_shape[e];
    for (int i = 0; i < shape_n_verts((dg_shape)s); ++i) {
      double xi[3], phi[DG_MAX_BASIS];
      shape_vertex_ref((dg_shape)s, i, xi);
      basis_eval((dg_shape)s, p, xi, phi);
      TEST_CLOSE(av_eps_at(v, e, eps_c, phi), eps_vert[v->elem_vert[e * DG_MAX_VERTS + i]], 1e-14,
                 "eps at a vertex");
    }
  }
  printf("linear eps %-24s p=%d: hats to %.1e, face jumps %.1e, %lld vertices\n", what, p,
         worst_hat, worst_jump, (long long)v->n_verts);
  free(eps_elem);
  free(eps_vert);
  free(eps_c);
  fixture_free(&fx);
}

static void test_linear_eps(void) {
  dg_mesh_structured_opts mo = mesh2d(MESH_STRUCTURED_MIXED, 4, 3, 2, 0.04, 0);
  mo.alternate_diagonals = 1;
  check_linear("curved mixed", &mo, 2, 2);
  mo = mesh2d(MESH_STRUCTURED_MIXED, 4, 4, 1, 0.0, 1);
  check_linear("periodic mixed", &mo, 2, 1);
  mo = mesh2d(MESH_STRUCTURED_QUAD, 3, 3, 3, 0.04, 1);
  check_linear("periodic curved quad", &mo, 2, 3);
  dg_mesh_structured_opts m3 = mesh_structured_defaults(3);
  m3.n[0] = m3.n[1] = m3.n[2] = 3;
  m3.periodic[0] = m3.periodic[2] = 1;
  check_linear("periodic tet", &m3, 3, 2);
}

/* ------------------------------------------------------------ liftings */

/* The state on the mesh: every element gets its own random polynomial
 * (so every face carries a jump); with zero_right, U = 0 on element 1. */
static void check_lifting_identity(const char *what, const dg_mesh_structured_opts *mo, int p,
                                   int zero_right) {
  fixture_opts fo = fopts(p, DG_AV_ELEMENT);
  fo.no_ctx = 1;
  fo.bc = PHYSICS_BC_SUPERSONIC_OUTFLOW;
  fixture fx;
  if (!fixture_build(&fx, mo, 2, &fo)) return;
  const dg_disc_view *v = &fx.disc.view;
  const int nv = v->nvar, dim = v->dim;
  scratch w;
  scratch_alloc(v, &w);
  double *U = zalloc(v->n_coefs, sizeof *U);
  for (int64_t e = 0; e < v->n_elems; ++e) {
    poly P;
    poly_random(&P, 2, p, 100u + (unsigned)e);
    double *Ue = zalloc(v->n_coefs, sizeof *Ue);
    project(&fx.disc, poly_field, &P, Ue);
    const int s = v->elem_shape[e];
    for (int k = 0; k < nv; ++k)
      for (int m = 0; m < v->nb[s]; ++m) {
        const int64_t i = disc_coef_index(v, e, k, m);
        U[i] = zero_right && e == 1 ? 0.0 : Ue[i];
      }
    free(Ue);
  }
  constant_eps(v, 1.0, w.eps_c);
  for (int64_t e = 0; e < v->n_elems; ++e) av_element_gradient(v, e, U, w.G);
  for (int64_t f = 0; f < v->n_faces; ++f)
    av_residual_face_terms(v, NULL, f, U, w.G, w.eps_c, 0.0, 0, w.ff, w.fj);

  const dg_shape fs = shape_face_shape((dg_shape)v->elem_shape[0], 0);
  const dg_quadrature *frule = &fx.geom.face_rule[fs];
  double worst_jump = 0.0, worst_id = 0.0, scale = 0.0;
  for (int64_t f = 0; f < v->n_interior; ++f) {
    /* face_jump = (U_L - U_R) wsJ with traces from basis_eval at mapped points */
    for (int q = 0; q < v->nqf; ++q) {
      const int64_t k = f * v->nqf + q;
      double tr[2][DG_MAX_NVAR];
      for (int side = 0; side < 2; ++side) {
        const int64_t K = v->face_elem[2 * f + side];
        const int s = v->elem_shape[K];
        double xi[3], phi[DG_MAX_BASIS];
        quadrature_face_to_elem((dg_shape)s, v->face_local[2 * f + side],
                                side ? v->face_orient[f] : 0, frule->xi + 3 * q, xi);
        basis_eval((dg_shape)s, p, xi, phi);
        for (int k2 = 0; k2 < nv; ++k2) {
          tr[side][k2] = 0.0;
          for (int m = 0; m < v->nb[s]; ++m)
            tr[side][k2] += phi[m] * U[disc_coef_index(v, K, k2, m)];
        }
      }
      for (int k2 = 0; k2 < nv; ++k2) {
        const double want = (tr[0][k2] - tr[1][k2]) * v->face_wsJ[k];
        worst_jump = fmax(worst_jump, fabs(w.fj[k * nv + k2] - want));
        scale = fmax(scale, fabs(want));
      }
    }
    /* ∫_K r·τ dx = −½ ∫_f δU n·τ ds for τ = φ_j e_c, both sides */
    for (int side = 0; side < 2; ++side) {
      const int64_t K = v->face_elem[2 * f + side];
      const int s = v->elem_shape[K], nb = v->nb[s];
      double r[DG_MAX_DIM * DG_MAX_NVAR * DG_MAX_BASIS];
      av_face_lifting(v, f, side, w.fj, r);
      for (int c = 0; c < dim; ++c)
        for (int k2 = 0; k2 < nv; ++k2)
          for (int j = 0; j < nb; ++j) {
            double lhs = 0.0, rhs = 0.0;
            for (int q = 0; q < v->nq[s]; ++q) {
              const double *phi = v->vol_phi + v->vol_table[s] + (int64_t)q * nb;
              double rq = 0.0;
              for (int m = 0; m < nb; ++m) rq += phi[m] * r[(c * nv + k2) * nb + m];
              lhs += wdetj(v, K, q) * rq * phi[j];
            }
            for (int q = 0; q < v->nqf; ++q) {
              const int64_t k = f * v->nqf + q;
              double xi[3], phi[DG_MAX_BASIS];
              quadrature_face_to_elem((dg_shape)s, v->face_local[2 * f + side],
                                      side ? v->face_orient[f] : 0, frule->xi + 3 * q, xi);
              basis_eval((dg_shape)s, p, xi, phi);
              rhs += -0.5 * w.fj[k * nv + k2] * v->face_normal[k * dim + c] * phi[j];
            }
            worst_id = fmax(worst_id, fabs(lhs - rhs));
          }
    }
  }
  TEST_CHECK(scale > 1e-3, "%s: jumps too small (%g)", what, scale);
  TEST_CHECK(worst_jump <= 1e-14 * scale, "%s p=%d: face_jump off by %.3g", what, p, worst_jump);
  TEST_CHECK(worst_id <= 1e-13 * scale, "%s p=%d: lifting identity off by %.3g (scale %.3g)", what,
             p, worst_id, scale);
  printf("lifting identity %-26s p=%d: jump %.1e, identity %.1e (jump scale %.2f)\n", what, p,
         worst_jump, worst_id, scale);
  free(U);
  scratch_free(&w);
  fixture_free(&fx);
}

/* Legendre P_i(x). */
static double legendre(int i, double x) {
  double a = 1.0, b = x;
  if (i == 0) return a;
  for (int n = 2; n <= i; ++n) {
    const double c = ((2 * n - 1) * x * b - (n - 1) * a) / n;
    a = b;
    b = c;
  }
  return b;
}

/* A constant jump c: element `centre` holds U∞ + c, the others U∞. The
 * lifting of side K of a face of the centre is −½ (U_K − U_other) n_K R_f
 * with R_f ∈ V_h(K), ∫_K R_f τ = ∫_f τ: on an axis-aligned square of side
 * a, R_f = (2/a) Σ_i (2i+1)/2 P_i(ξ_f) P_i(ξ) (ξ the coordinate normal to f,
 * ξ_f = ±1 on f); on a triangle at p = 1, R_f = 3|f|/|K| (1 − 2λ_c) with λ_c
 * the barycentric coordinate of the vertex opposite f. */
static void check_lifting_analytic(dg_mesh_structured_kind kind, int p) {
  fixture_opts fo = fopts(p, DG_AV_ELEMENT);
  fo.no_ctx = 1;
  fixture fx;
  const dg_mesh_structured_opts mo = mesh2d(kind, 3, 3, 1, 0.0, 0);
  if (!fixture_build(&fx, &mo, 2, &fo)) return;
  const dg_disc_view *v = &fx.disc.view;
  const int nv = v->nvar;
  const int64_t centre = kind == MESH_STRUCTURED_QUAD ? 4 : 8; /* middle cell */
  const double jump[4] = {0.1, -0.05, 0.02, 0.3};
  scratch w;
  scratch_alloc(v, &w);
  double *U = zalloc(v->n_coefs, sizeof *U);
  for (int64_t e = 0; e < v->n_elems; ++e) {
    const int s = v->elem_shape[e];
    const double phi0 = 1.0 / sqrt(shape_ref_measure((dg_shape)s));
    for (int k = 0; k < nv; ++k)
      U[disc_coef_index(v, e, k, 0)] = (v->freestream[k] + (e == centre ? jump[k] : 0.0)) / phi0;
  }
  constant_eps(v, 1.0, w.eps_c);
  for (int64_t e = 0; e < v->n_elems; ++e) av_element_gradient(v, e, U, w.G);
  for (int64_t f = 0; f < v->n_faces; ++f)
    av_residual_face(v, NULL, f, U, w.G, w.eps_c, 0.0, w.ff, w.fj);
  double worst = 0.0;
  int checked = 0;
  for (int lf = 0; lf < shape_n_faces((dg_shape)v->elem_shape[centre]); ++lf) {
    const int64_t f = v->elem_face[centre * DG_MAX_FACES + lf];
    for (int side = 0; side < 2; ++side) {
      const int64_t K = v->face_elem[2 * f + side];
      const int s = v->elem_shape[K], nb = v->nb[s];
      const int lfK = v->face_local[2 * f + side];
      const double sign_n = side == 0 ? 1.0 : -1.0; /* n_K = sign_n n */
      const double *n = v->face_normal + f * v->nqf * 2;
      const double dUK = K == centre ? 1.0 : -1.0; /* (U_K − U_other) / jump */
      double r[DG_MAX_DIM * DG_MAX_NVAR * DG_MAX_BASIS];
      av_face_lifting(v, f, side, w.fj, r);
      /* vertices of K */
      double xv[4][2];
      const int64_t *en = fx.mesh.elem_nodes + fx.mesh.elem_node_start[K];
      for (int i = 0; i < shape_n_verts((dg_shape)s); ++i)
        for (int d = 0; d < 2; ++d) xv[i][d] = fx.mesh.x[3 * en[i] + d];
      for (int q = 0; q < v->nq[s]; ++q) {
        const double *x = vol_x(&fx.disc, K, q);
        double R_f;
        if (s == DG_QUAD) {
          const double a = xv[1][0] - xv[0][0];
          const int axis = fabs(n[0]) > 0.5 ? 0 : 1;
          const double lo = fmin(xv[0][axis], xv[2][axis]);
          const double xi = 2.0 * (x[axis] - lo) / a - 1.0;
          const double fx_coord = v->face_x[f * v->nqf * 2 + axis];
          const double xi_f = fx_coord > lo + 0.5 * a ? 1.0 : -1.0;
          R_f = 0.0;
          for (int i = 0; i <= p; ++i)
            R_f += 0.5 * (2 * i + 1) * legendre(i, xi_f) * legendre(i, xi);
          R_f *= 2.0 / a;
        } else {
          /* barycentric coordinate of the vertex opposite local face lfK */
          const int c = (lfK + 2) % 3, a0 = lfK, b0 = (lfK + 1) % 3;
          const double det = (xv[b0][0] - xv[a0][0]) * (xv[c][1] - xv[a0][1]) -
                             (xv[b0][1] - xv[a0][1]) * (xv[c][0] - xv[a0][0]);
          const double lam_c = ((xv[b0][0] - xv[a0][0]) * (x[1] - xv[a0][1]) -
                                (xv[b0][1] - xv[a0][1]) * (x[0] - xv[a0][0])) /
                               det;
          const double flen = hypot(xv[b0][0] - xv[a0][0], xv[b0][1] - xv[a0][1]);
          R_f = 3.0 * flen / v->elem_volume[K] * (1.0 - 2.0 * lam_c);
        }
        const double *phi = v->vol_phi + v->vol_table[s] + (int64_t)q * nb;
        for (int c = 0; c < 2; ++c)
          for (int k = 0; k < nv; ++k) {
            double rq = 0.0;
            for (int m = 0; m < nb; ++m) rq += phi[m] * r[(c * nv + k) * nb + m];
            const double want = -0.5 * dUK * jump[k] * sign_n * n[c] * R_f;
            worst = fmax(worst, fabs(rq - want));
            ++checked;
          }
      }
    }
  }
  TEST_CHECK(checked > 0 && worst <= 1e-12, "%s p=%d: lifting of a constant jump off by %.3g",
             kind == MESH_STRUCTURED_QUAD ? "quad" : "tri", p, worst);
  printf("analytic lifting %-5s p=%d: max error %.1e over %d values\n",
         kind == MESH_STRUCTURED_QUAD ? "quad" : "tri", p, worst, checked);
  free(U);
  scratch_free(&w);
  fixture_free(&fx);
}

static void test_liftings(void) {
  for (int p = 1; p <= DG_MAX_P; ++p) {
    dg_mesh_structured_opts mo = mesh2d(MESH_STRUCTURED_TRI, 1, 1, 1, 0.0, 0);
    check_lifting_identity("two triangles, U_R = 0", &mo, p, 1);
    mo = mesh2d(MESH_STRUCTURED_QUAD, 2, 1, 1, 0.0, 0);
    check_lifting_identity("two quads, U_R = 0", &mo, p, 1);
    mo = mesh2d(MESH_STRUCTURED_MIXED, 3, 3, 2, 0.04, 0);
    check_lifting_identity("curved mixed order 2", &mo, p, 0);
    check_lifting_analytic(MESH_STRUCTURED_QUAD, p);
  }
  check_lifting_analytic(MESH_STRUCTURED_TRI, 1);
}

/* --------------------------------------------------------- consistency */

typedef struct {
  int dim;
  double a[4]; /* ε(x) = a0 + a1 x + a2 y + a3 z */
} linear_eps;

static double linear_eps_at(const linear_eps *L, const double *x, double *grad) {
  double eps = L->a[0];
  for (int d = 0; d < L->dim; ++d) {
    eps += L->a[1 + d] * x[d];
    if (grad) grad[d] = L->a[1 + d];
  }
  return eps;
}

/* U a global polynomial of degree p (continuous: every jump vanishes, the
 * outflow ghost is the interior state): the BR2 diffusion residual equals
 * ∫_e ∇·(ε∇U) φ_m dx = ∫_e (ε ΔU + ∇ε·∇U) φ_m dx for constant ε and for a
 * global linear ε (continuous mode: exact on simplices and rectangles). */
static void check_consistency(const char *what, const dg_mesh_structured_opts *mo, int dim, int p,
                              int variable_eps) {
  fixture_opts fo = fopts(p, variable_eps ? DG_AV_CONTINUOUS : DG_AV_ELEMENT);
  fo.no_ctx = 1;
  fo.bc = PHYSICS_BC_SUPERSONIC_OUTFLOW;
  fixture fx;
  if (!fixture_build(&fx, mo, dim, &fo)) return;
  const dg_disc_view *v = &fx.disc.view;
  const int nv = v->nvar;
  scratch w;
  scratch_alloc(v, &w);
  double *U = zalloc(v->n_coefs, sizeof *U), *R = zalloc(v->n_coefs, sizeof *R);
  poly P;
  poly_random(&P, dim, p, 42u + (unsigned)p);
  project(&fx.disc, poly_field, &P, U);
  linear_eps L = {dim, {0.7, 0.0, 0.0, 0.0}};
  if (variable_eps) {
    L.a[1] = 0.2;
    L.a[2] = -0.15;
    L.a[3] = 0.1;
    double *eps_vert = zalloc(v->n_verts, sizeof *eps_vert);
    for (int64_t e = 0; e < v->n_elems; ++e) {
      const int64_t *en = fx.mesh.elem_nodes + fx.mesh.elem_node_start[e];
      for (int i = 0; i < shape_n_verts((dg_shape)v->elem_shape[e]); ++i)
        eps_vert[v->elem_vert[e * DG_MAX_VERTS + i]] =
            linear_eps_at(&L, fx.mesh.x + 3 * en[i], NULL);
    }
    for (int64_t e = 0; e < v->n_elems; ++e) av_element_coefs(v, e, NULL, eps_vert, w.eps_c);
    free(eps_vert);
  } else {
    constant_eps(v, L.a[0], w.eps_c);
  }
  diffusion_residual(v, U, w.eps_c, w.G, w.ff, w.fj, R);
  double worst = 0.0, scale = 0.0;
  for (int64_t e = 0; e < v->n_elems; ++e) {
    const int s = v->elem_shape[e], nb = v->nb[s];
    double b[DG_MAX_NVAR * DG_MAX_BASIS] = {0};
    for (int q = 0; q < v->nq[s]; ++q) {
      const double *x = vol_x(&fx.disc, e, q);
      const double *phi = v->vol_phi + v->vol_table[s] + (int64_t)q * nb;
      double geps[3] = {0, 0, 0};
      const double eps = linear_eps_at(&L, x, geps);
      for (int k = 0; k < nv; ++k) {
        double g[3] = {0, 0, 0}, lap;
        poly_eval(&P, k, x, NULL, g, &lap);
        double div = eps * lap;
        for (int d = 0; d < dim; ++d) div += geps[d] * g[d];
        for (int m = 0; m < nb; ++m) b[k * nb + m] += wdetj(v, e, q) * div * phi[m];
      }
    }
    for (int k = 0; k < nv; ++k)
      for (int m = 0; m < nb; ++m) {
        worst = fmax(worst, fabs(R[disc_coef_index(v, e, k, m)] - b[k * nb + m]));
        scale = fmax(scale, fabs(b[k * nb + m]));
      }
  }
  TEST_CHECK(scale > 1e-6 || (p == 1 && !variable_eps), "%s p=%d: reference scale %g", what, p,
             scale);
  TEST_CHECK(worst <= 1e-12 * fmax(scale, 1.0), "%s p=%d%s: BR2 residual vs ∫∇·(ε∇U)φ off by %.3g",
             what, p, variable_eps ? " linear eps" : "", worst);
  printf("consistency %-16s p=%d %-10s: max |R - ∫∇·(ε∇U)φ| = %.1e (scale %.2e)\n", what, p,
         variable_eps ? "linear ε" : "const ε", worst, scale);
  free(U);
  free(R);
  scratch_free(&w);
  fixture_free(&fx);
}

static void test_consistency(void) {
  for (int p = 1; p <= DG_MAX_P; ++p)
    for (int var = 0; var <= 1; ++var) {
      dg_mesh_structured_opts mo = mesh2d(MESH_STRUCTURED_MIXED, 4, 3, 1, 0.0, 0);
      mo.alternate_diagonals = 1;
      check_consistency("mixed", &mo, 2, p, var);
      dg_mesh_structured_opts m3 = mesh_structured_defaults(3);
      m3.n[0] = m3.n[1] = m3.n[2] = 2;
      if (p <= 2) check_consistency("tet", &m3, 3, p, var);
    }
}

/* ------------------------------------------------------ free stream */

/* ε forced > 0 everywhere through the sensor (s0 far below the floor): a
 * uniform flow on a curved mesh with far-field boundaries stays uniform. */
static void check_freestream(const char *what, const dg_mesh_structured_opts *mo, int dim, int p,
                             int av) {
  fixture_opts fo = fopts(p, av);
  fo.s0_offset = -40.0;
  fo.c = 2.0;
  fixture fx;
  if (!fixture_build(&fx, mo, dim, &fo)) return;
  const dg_backend *b = test_backend;
  const dg_disc_view *v = &fx.disc.view;
  explicit_rk3 rk;
  dg_vec U = {0}, eps = {0};
  TEST_OK(dg_vec_create(b, fx.ctx, DG_VEC_STATE, &U));
  TEST_OK(dg_vec_create(b, fx.ctx, DG_VEC_ELEM, &eps));
  /* exactly uniform: mode 0 only (a projection would leave round-off in the
   * higher modes of curved elements, which the viscous terms amplify) */
  double *U0 = zalloc(v->n_coefs, sizeof *U0), *h = zalloc(v->n_coefs, sizeof *h);
  double *h_eps = zalloc(v->n_elems, sizeof *h_eps);
  for (int64_t e = 0; e < v->n_elems; ++e)
    for (int k = 0; k < v->nvar; ++k)
      U0[disc_coef_index(v, e, k, 0)] =
          v->freestream[k] * sqrt(shape_ref_measure((dg_shape)v->elem_shape[e]));
  TEST_OK(dg_vec_upload(U0, &U));
  TEST_OK(explicit_rk3_create(b, fx.ctx, &fx.disc, &rk));
  TEST_OK(dg_backend_av_eps(b, fx.ctx, &U, &eps));
  TEST_OK(dg_vec_download(&eps, h_eps));
  double eps_min = INFINITY;
  for (int64_t e = 0; e < v->n_elems; ++e) eps_min = fmin(eps_min, h_eps[e]);
  TEST_CHECK(eps_min > 1e-3, "%s p=%d: eps not forced on (min %g)", what, p, eps_min);
  const explicit_rk3_opts ro = {.cfl = 0.5, .local_dt = 1, .compute_norms = 1};
  explicit_rk3_info info = {0};
  double res = 0.0;
  for (int k = 0; k < 20; ++k) {
    TEST_OK(explicit_rk3_step(&rk, &U, 0.0, &ro, &info));
    for (int i = 0; i < v->nvar; ++i) res = fmax(res, info.res_norm[i]);
  }
  double dev = 0.0;
  TEST_OK(dg_vec_download(&U, h));
  for (int64_t i = 0; i < v->n_coefs; ++i) dev = fmax(dev, fabs(h[i] - U0[i]));
  TEST_CHECK(dev <= 1e-12 && res <= 1e-12,
             "%s p=%d: free stream with AV drifts by %.3g (residual %.3g)", what, p, dev, res);
  printf("free stream with AV %-22s p=%d %s: drift %.1e, residual %.1e, min eps %.3f\n", what, p,
         av == DG_AV_CONTINUOUS ? "continuous" : "element   ", dev, res, eps_min);
  free(U0);
  free(h);
  free(h_eps);
  explicit_rk3_destroy(&rk);
  dg_vec_destroy(&U);
  dg_vec_destroy(&eps);
  fixture_free(&fx);
}

static void test_freestream(void) {
  for (int p = 1; p <= DG_MAX_P; ++p) {
    dg_mesh_structured_opts mo = mesh2d(MESH_STRUCTURED_MIXED, 5, 4, 2, 0.05, 0);
    mo.alternate_diagonals = 1;
    check_freestream("curved mixed order 2", &mo, 2, p, p == 2 ? DG_AV_ELEMENT : DG_AV_CONTINUOUS);
  }
  dg_mesh_structured_opts m3 = mesh_structured_defaults(3);
  m3.order = 2;
  m3.n[0] = m3.n[1] = m3.n[2] = 2;
  m3.deform = 0.04;
  check_freestream("curved tet order 2", &m3, 3, 2, DG_AV_CONTINUOUS);
}

/* ------------------------------------------------------------- backend */

/* The CPU backend with AV (sensor-driven ε, some elements off, some on the
 * ramp, some full) against a serial loop over the DG_HD functions: the same
 * bits, for 1 and 2 threads; av_eps and timestep likewise. */
static void check_backend(const char *what, const dg_mesh_structured_opts *mo, int dim, int p,
                          int av) {
  fixture_opts fo = fopts(p, av);
  fo.bc = PHYSICS_BC_WALL;
  fixture fx;
  fo.no_ctx = 1;
  if (!fixture_build(&fx, mo, dim, &fo)) return;
  dg_disc_view *vw = &fx.disc.view;
  const int64_t n = vw->n_coefs, ne = vw->n_elems;
  double *U = zalloc(n, sizeof *U);
  TEST_OK(disc_project(&fx.disc, 0.0, U));
  unsigned seed = 3u;
  for (int64_t e = 0; e < ne; ++e) {
    const double amp = 1e-5 * pow(10.0, 0.75 * (double)(e % 5));
    const int s = vw->elem_shape[e];
    for (int k = 0; k < vw->nvar; ++k)
      for (int m = 1; m < vw->nb[s]; ++m) U[disc_coef_index(vw, e, k, m)] = amp * rnd(&seed);
  }
  /* put s0 at the median sensor value, κ so that the ramp holds some */
  double *sens = malloc((size_t)ne * sizeof *sens);
  for (int64_t e = 0; e < ne; ++e) sens[e] = av_sensor(vw, e, U);
  for (int64_t i = 1; i < ne; ++i)
    for (int64_t j = i; j > 0 && sens[j - 1] > sens[j]; --j) {
      const double t = sens[j];
      sens[j] = sens[j - 1];
      sens[j - 1] = t;
    }
  vw->av_s0 = sens[ne / 2];
  vw->av_kappa = 0.5 * (sens[(3 * ne) / 4] - sens[ne / 4]);
  free(sens);
  TEST_OK(dg_backend_create(backend_cpu(), &fx.disc, &fx.ctx));
  const dg_disc_view *v = backend_cpu_view(fx.ctx);
  const dg_disc_state *st = backend_cpu_state(fx.ctx);
  int64_t n_off = 0, n_ramp = 0, n_full = 0;
  for (int64_t e = 0; e < ne; ++e) {
    const double se = av_sensor(v, e, U);
    if (se < v->av_s0 - v->av_kappa)
      ++n_off;
    else if (se > v->av_s0 + v->av_kappa)
      ++n_full;
    else
      ++n_ramp;
  }
  TEST_CHECK(n_off > 0 && n_ramp > 0 && n_full > 0, "%s: sensor categories %lld %lld %lld", what,
             (long long)n_off, (long long)n_ramp, (long long)n_full);

  /* serial reference */
  scratch w;
  scratch_alloc(v, &w);
  double *eps_elem = zalloc(ne, sizeof *eps_elem);
  double *eps_vert = zalloc(v->n_verts, sizeof *eps_vert);
  double *Rref = zalloc(n, sizeof *Rref), *dtref = zalloc(ne, sizeof *dtref);
  for (int64_t e = 0; e < ne; ++e) eps_elem[e] = av_element_eps(v, st, e, U);
  for (int64_t i = 0; i < v->n_verts; ++i) eps_vert[i] = av_vertex_eps(v, i, eps_elem);
  for (int64_t e = 0; e < ne; ++e) av_element_coefs(v, e, eps_elem, eps_vert, w.eps_c);
  for (int64_t e = 0; e < ne; ++e) av_element_gradient(v, e, U, w.G);
  for (int64_t f = 0; f < v->n_faces; ++f)
    av_residual_face(v, st, f, U, w.G, w.eps_c, 0.2, w.ff, w.fj);
  for (int64_t e = 0; e < ne; ++e) av_residual_element(v, e, U, w.eps_c, w.ff, w.fj, Rref);
  for (int64_t e = 0; e < ne; ++e) dtref[e] = av_element_timestep(v, e, U, w.eps_c, 0.8);

  const dg_backend *b = backend_cpu();
  double *R = zalloc(n, sizeof *R), *dt = zalloc(ne, sizeof *dt);
  double *eps = zalloc(ne, sizeof *eps);
  int threads = 1;
#ifdef COLORDG_HAVE_OPENMP
  threads = omp_get_max_threads();
#endif
  for (int nt = 1; nt <= 2; ++nt) {
#ifdef COLORDG_HAVE_OPENMP
    omp_set_num_threads(nt);
#endif
    double dt_min = 0.0;
    TEST_OK(dg_backend_residual(b, fx.ctx, BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_STATE, U), 0.2,
                                BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_STATE, R)));
    TEST_OK(dg_backend_timestep(b, fx.ctx, BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_STATE, U), 0.8, 0,
                                BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_ELEM, dt), &dt_min));
    TEST_OK(dg_backend_av_eps(b, fx.ctx, BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_STATE, U),
                              BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_ELEM, eps)));
    TEST_CHECK(memcmp(R, Rref, (size_t)n * sizeof *R) == 0,
               "%s p=%d: backend AV residual differs from the serial loop (%d threads)", what, p,
               nt);
    TEST_CHECK(memcmp(dt, dtref, (size_t)ne * sizeof *dt) == 0,
               "%s p=%d: backend AV timestep differs from the serial loop", what, p);
    double worst = 0.0;
    for (int64_t e = 0; e < ne; ++e)
      worst = fmax(worst, fabs(eps[e] - av_element_mean_eps(v, e, w.eps_c)));
    TEST_CHECK(worst == 0.0, "%s p=%d: av_eps off by %.3g", what, p, worst);
  }
#ifdef COLORDG_HAVE_OPENMP
  omp_set_num_threads(threads);
#endif
  /* the viscous terms act: the residual differs from the inviscid one, and
   * ε lowers the time step of the elements where it is on */
  double *Rinv = zalloc(n, sizeof *Rinv);
  for (int64_t f = 0; f < v->n_faces; ++f) residual_face(v, st, f, U, 0.2, w.ff);
  for (int64_t e = 0; e < ne; ++e) residual_element(v, e, U, w.ff, Rinv);
  double diff = 0.0;
  int dt_ok = 1;
  for (int64_t i = 0; i < n; ++i) diff = fmax(diff, fabs(R[i] - Rinv[i]));
  for (int64_t e = 0; e < ne; ++e) {
    const double dt_inv = residual_element_timestep(v, e, U, 0.8);
    const int on = !av_element_inviscid(v, e, w.eps_c);
    if (on ? !(dt[e] < dt_inv) : dt[e] != dt_inv) dt_ok = 0;
  }
  TEST_CHECK(diff > 1e-8, "%s p=%d: AV changes the residual by only %.3g", what, p, diff);
  TEST_CHECK(dt_ok, "%s p=%d: AV time step not below the inviscid one where ε > 0", what, p);

  /* av_hold: ε held from U while the residual is taken at U2 (other
   * sensor values), relaxed toward U2's ε, then released */
  double *U2 = zalloc(n, sizeof *U2), *R2 = zalloc(n, sizeof *R2), *ref2 = zalloc(n, sizeof *ref2);
  for (int64_t e = 0; e < ne; ++e)
    for (int k = 0; k < v->nvar; ++k)
      for (int m = 0; m < v->nb[v->elem_shape[e]]; ++m) {
        const int64_t i = disc_coef_index(v, e, k, m);
        U2[i] = m == 0 ? U[i] : U[i] * (1.0 + 2.0 * (double)(e % 3));
      }
  int64_t changed = 0;
  for (int64_t e = 0; e < ne; ++e)
    changed += av_element_eps(v, st, e, U2) != av_element_eps(v, st, e, U);
  TEST_CHECK(changed > 0, "%s p=%d: the second state changes no element's ε", what, p);
  TEST_OK(dg_backend_av_hold(b, fx.ctx, BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_STATE, U), 1.0));
  TEST_OK(dg_backend_residual(b, fx.ctx, BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_STATE, U2), 0.2,
                              BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_STATE, R2)));
  TEST_OK(dg_backend_av_eps(b, fx.ctx, BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_STATE, U2),
                            BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_ELEM, eps)));
  for (int64_t e = 0; e < ne; ++e) av_element_gradient(v, e, U2, w.G);
  for (int64_t f = 0; f < v->n_faces; ++f)
    av_residual_face(v, st, f, U2, w.G, w.eps_c, 0.2, w.ff, w.fj);
  for (int64_t e = 0; e < ne; ++e) av_residual_element(v, e, U2, w.eps_c, w.ff, w.fj, ref2);
  TEST_CHECK(memcmp(R2, ref2, (size_t)n * sizeof *R2) == 0,
             "%s p=%d: residual with ε held from U differs from the serial loop", what, p);
  double worst = 0.0;
  for (int64_t e = 0; e < ne; ++e)
    worst = fmax(worst, fabs(eps[e] - av_element_mean_eps(v, e, w.eps_c)));
  TEST_CHECK(worst == 0.0, "%s p=%d: av_eps with ε held from U off by %.3g", what, p, worst);
  TEST_OK(dg_backend_av_hold(b, fx.ctx, BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_STATE, U2), 0.25));
  int64_t bad = 0;
  for (int64_t e = 0; e < ne; ++e) {
    const double want = 0.25 * av_element_eps_sensor(v, e, U2) + 0.75 * eps_elem[e];
    bad += st->av_eps_hold[e] != want;
  }
  TEST_CHECK(bad == 0, "%s p=%d: relaxed held ε wrong in %lld elements", what, p, (long long)bad);
  TEST_FAILS(dg_backend_av_hold(b, fx.ctx, BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_STATE, U2), 0.0),
             DG_ERR_ARG, "relaxation");
  TEST_FAILS(dg_backend_av_hold(b, fx.ctx, BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_STATE, U2), 1.5),
             DG_ERR_ARG, "relaxation");
  TEST_OK(dg_backend_av_hold(b, fx.ctx, NULL, 0.0));
  bad = 0;
  for (int64_t e = 0; e < ne; ++e) bad += st->av_eps_hold[e] != -1.0;
  TEST_CHECK(bad == 0, "%s p=%d: released hold keeps %lld values", what, p, (long long)bad);
  TEST_OK(dg_backend_residual(b, fx.ctx, BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_STATE, U), 0.2,
                              BACKEND_CPU_VEC(b, fx.ctx, DG_VEC_STATE, R2)));
  TEST_CHECK(memcmp(R2, Rref, (size_t)n * sizeof *R2) == 0,
             "%s p=%d: residual after the hold is released differs from the sensor's", what, p);
  free(U2);
  free(R2);
  free(ref2);
  printf("backend %-22s p=%d %s: bitwise = serial loop (1, 2 threads); elements off/ramp/full "
         "%lld/%lld/%lld\n",
         what, p, av == DG_AV_CONTINUOUS ? "continuous" : "element   ", (long long)n_off,
         (long long)n_ramp, (long long)n_full);
  free(Rinv);
  free(R);
  free(dt);
  free(eps);
  free(eps_elem);
  free(eps_vert);
  free(Rref);
  free(dtref);
  free(U);
  scratch_free(&w);
  fixture_free(&fx);
}

/* ε = 0 everywhere (s0 far above every sensor value): residual and time
 * step are bit for bit those of the discretisation without AV. */
static void check_eps_zero(const dg_mesh_structured_opts *mo, int p) {
  fixture on, off;
  fixture_opts fo = fopts(p, DG_AV_CONTINUOUS);
  fo.s0_offset = 100.0;
  if (!fixture_build(&on, mo, 2, &fo)) return;
  fo.av = DG_AV_OFF;
  if (!fixture_build(&off, mo, 2, &fo)) {
    fixture_free(&on);
    return;
  }
  const dg_backend *b = backend_cpu();
  const int64_t n = on.disc.view.n_coefs, ne = on.disc.view.n_elems;
  double *U = zalloc(n, sizeof *U), *R1 = zalloc(n, sizeof *R1), *R2 = zalloc(n, sizeof *R2),
         *dt1 = zalloc(ne, sizeof *dt1), *dt2 = zalloc(ne, sizeof *dt2),
         *eps = zalloc(ne, sizeof *eps);
  TEST_OK(disc_project(&on.disc, 0.0, U));
  unsigned seed = 9u;
  for (int64_t i = 0; i < n; ++i) U[i] += 1e-2 * rnd(&seed);
  double m1 = 0, m2 = 0;
  TEST_OK(dg_backend_residual(b, on.ctx, BACKEND_CPU_VEC(b, on.ctx, DG_VEC_STATE, U), 0.0,
                              BACKEND_CPU_VEC(b, on.ctx, DG_VEC_STATE, R1)));
  TEST_OK(dg_backend_residual(b, off.ctx, BACKEND_CPU_VEC(b, off.ctx, DG_VEC_STATE, U), 0.0,
                              BACKEND_CPU_VEC(b, off.ctx, DG_VEC_STATE, R2)));
  TEST_OK(dg_backend_timestep(b, on.ctx, BACKEND_CPU_VEC(b, on.ctx, DG_VEC_STATE, U), 0.9, 1,
                              BACKEND_CPU_VEC(b, on.ctx, DG_VEC_ELEM, dt1), &m1));
  TEST_OK(dg_backend_timestep(b, off.ctx, BACKEND_CPU_VEC(b, off.ctx, DG_VEC_STATE, U), 0.9, 1,
                              BACKEND_CPU_VEC(b, off.ctx, DG_VEC_ELEM, dt2), &m2));
  TEST_CHECK(memcmp(R1, R2, (size_t)n * sizeof *R1) == 0 &&
                 memcmp(dt1, dt2, (size_t)ne * sizeof *dt1) == 0 && m1 == m2,
             "p=%d: AV with ε = 0 is not the inviscid path bit for bit", p);
  TEST_OK(dg_backend_av_eps(b, off.ctx, BACKEND_CPU_VEC(b, off.ctx, DG_VEC_STATE, U),
                            BACKEND_CPU_VEC(b, off.ctx, DG_VEC_ELEM, eps)));
  TEST_CHECK(max_abs(eps, ne) == 0.0, "av_eps with av off is not zero");
  TEST_FAILS(backend_cpu_residual_atomic(on.ctx, U, 0.0, R1), DG_ERR_UNSUPPORTED,
             "no artificial viscosity terms");
  free(U);
  free(R1);
  free(R2);
  free(dt1);
  free(dt2);
  free(eps);
  fixture_free(&on);
  fixture_free(&off);
}

static void test_backend_ops(void) {
  for (int p = 1; p <= DG_MAX_P; ++p) {
    dg_mesh_structured_opts mo = mesh2d(MESH_STRUCTURED_MIXED, 5, 4, 2, 0.04, 0);
    mo.lo[0] = mo.lo[1] = -2.0;
    mo.hi[0] = mo.hi[1] = 2.0;
    check_backend("curved mixed order 2", &mo, 2, p, p == 2 ? DG_AV_ELEMENT : DG_AV_CONTINUOUS);
    check_eps_zero(&mo, p);
  }
  dg_mesh_structured_opts m3 = mesh_structured_defaults(3);
  m3.n[0] = m3.n[1] = m3.n[2] = 2;
  m3.deform = 0.04;
  check_backend("tet", &m3, 3, 2, DG_AV_CONTINUOUS);
  dg_mesh_structured_opts mp = mesh2d(MESH_STRUCTURED_QUAD, 4, 4, 1, 0.0, 1);
  check_backend("periodic quad", &mp, 2, 2, DG_AV_CONTINUOUS);
}

/* -------------------------------------------------------------- errors */

static void test_errors(void) {
  const dg_mesh_structured_opts mo = mesh2d(MESH_STRUCTURED_MIXED, 4, 4, 1, 0.0, 0);
  fixture fx;
  memset(&fx, 0, sizeof fx);
  TEST_OK(mesh_structured_2d(&mo, &fx.mesh));
  TEST_OK(topology_build(&fx.mesh, &fx.topo));
  TEST_OK(geometry_build(&fx.mesh, &fx.topo, 5, 5, &fx.geom));
  int32_t bc[8];
  physics_bc_data data[8];
  fixture_opts fo = fopts(2, DG_AV_CONTINUOUS);
  dg_disc_opts o = disc_options(&fx.mesh, &fo, bc, data);
  dg_disc *d = &fx.disc;
  o.av = 3;
  TEST_FAILS(disc_build(&fx.mesh, &fx.topo, &fx.geom, &o, d), DG_ERR_ARG,
             "unknown artificial viscosity mode 3");
  o.av = DG_AV_ELEMENT;
  o.av_kappa = 0.0;
  TEST_FAILS(disc_build(&fx.mesh, &fx.topo, &fx.geom, &o, d), DG_ERR_ARG, "kappa = 0 must be");
  o.av_kappa = 1.0;
  o.av_c = -1.0;
  TEST_FAILS(disc_build(&fx.mesh, &fx.topo, &fx.geom, &o, d), DG_ERR_ARG, "c = -1 must be");
  o.av_c = 1.0;
  o.av_sensor_var = 4;
  TEST_FAILS(disc_build(&fx.mesh, &fx.topo, &fx.geom, &o, d), DG_ERR_ARG,
             "sensor variable 4 is outside 0..3");
  o.av_sensor_var = 0;
  o.br2_eta = 3.5; /* > 3 faces of the triangles, not > 4 of the quads */
  TEST_FAILS(disc_build(&fx.mesh, &fx.topo, &fx.geom, &o, d), DG_ERR_ARG,
             "eta = 3.5 does not exceed 4, the face count of the mesh's quadrilateral");
  o.br2_eta = -1.0;
  TEST_FAILS(disc_build(&fx.mesh, &fx.topo, &fx.geom, &o, d), DG_ERR_ARG, "eta = -1 must be 0");
  o.br2_eta = 4.5;
  TEST_OK(disc_build(&fx.mesh, &fx.topo, &fx.geom, &o, d));
  TEST_CHECK(d->view.av == DG_AV_ELEMENT && d->view.br2_eta == 4.5 && d->view.lin_coef &&
                 d->view.vert_elem && d->view.n_verts == 25,
             "AV fields of a built disc (n_verts %lld)", (long long)d->view.n_verts);
  disc_free(d);
  /* p = 0: AV off whatever was asked (even with invalid constants) */
  o.p = 0;
  o.av_kappa = -1.0;
  TEST_OK(disc_build(&fx.mesh, &fx.topo, &fx.geom, &o, d));
  TEST_CHECK(d->view.av == DG_AV_OFF && d->view.lin_coef == NULL && d->view.elem_h == NULL,
             "p = 0 must switch AV off");
  disc_free(d);
  /* av off: every AV field zero / NULL */
  o.p = 2;
  o.av = DG_AV_OFF;
  TEST_OK(disc_build(&fx.mesh, &fx.topo, &fx.geom, &o, d));
  TEST_CHECK(d->view.av == DG_AV_OFF && d->view.vert_elem == NULL && d->view.n_verts == 0,
             "av off leaves the AV fields empty");
  fixture_free(&fx);
}

/* --------------------------------------------------------- convergence */

/* Manufactured periodic solution u = e^{sin 2πx} cos 2πy (zero mean) and
 * f = ∇²u = 4π² u (cos² 2πx − sin 2πx − 1). */
static double manufactured(const double *x, double *lap) {
  const double k = 2.0 * DG_PI, sx = sin(k * x[0]), cx = cos(k * x[0]);
  const double u = exp(sx) * cos(k * x[1]);
  if (lap) *lap = k * k * u * (cx * cx - sx - 1.0);
  return u;
}

/* Steady diffusion ε∇²u = f on the periodic unit square (every variable),
 * ε = 1: A u_h = b with A = −R_BR2 (symmetric, positive semi-definite, the
 * constants its null space), b_m = −∫ f φ_m made orthogonal to the
 * constants, solved by conjugate gradients to 1e-11 (relative residual;
 * the algebraic error is then far below the discretisation error); the L2 error of u_h
 * (mean removed). */
static double diffusion_error(dg_mesh_structured_kind kind, int order, double deform, int p,
                              int cells, int *iterations) {
  fixture_opts fo = fopts(p, DG_AV_ELEMENT);
  fo.no_ctx = 1;
  fixture fx;
  const dg_mesh_structured_opts mo = mesh2d(kind, cells, cells, order, deform, 1);
  if (!fixture_build(&fx, &mo, 2, &fo)) return NAN;
  const dg_disc_view *v = &fx.disc.view;
  const int64_t n = v->n_coefs;
  scratch w;
  scratch_alloc(v, &w);
  constant_eps(v, 1.0, w.eps_c);
  double *x = zalloc(n, sizeof *x), *r = zalloc(n, sizeof *r), *pd = zalloc(n, sizeof *pd),
         *Ap = zalloc(n, sizeof *Ap);
  for (int64_t e = 0; e < v->n_elems; ++e) {
    const int s = v->elem_shape[e], nb = v->nb[s];
    for (int q = 0; q < v->nq[s]; ++q) {
      double f;
      manufactured(vol_x(&fx.disc, e, q), &f);
      const double *phi = v->vol_phi + v->vol_table[s] + (int64_t)q * nb;
      for (int k = 0; k < v->nvar; ++k)
        for (int m = 0; m < nb; ++m) r[disc_coef_index(v, e, k, m)] -= wdetj(v, e, q) * f * phi[m];
    }
  }
  /* remove the component along the constants (z = 1/φ0 on mode 0) */
  for (int k = 0; k < v->nvar; ++k) {
    double bz = 0.0, zz = 0.0;
    for (int64_t e = 0; e < v->n_elems; ++e) {
      const double z = sqrt(shape_ref_measure((dg_shape)v->elem_shape[e]));
      bz += r[disc_coef_index(v, e, k, 0)] * z;
      zz += z * z;
    }
    for (int64_t e = 0; e < v->n_elems; ++e)
      r[disc_coef_index(v, e, k, 0)] -=
          bz / zz * sqrt(shape_ref_measure((dg_shape)v->elem_shape[e]));
  }
  double bnorm = 0.0, rr = 0.0;
  for (int64_t i = 0; i < n; ++i) rr += r[i] * r[i];
  bnorm = sqrt(rr);
  memcpy(pd, r, (size_t)n * sizeof *pd);
  int it = 0;
  for (; it < 20000 && sqrt(rr) > 1e-11 * bnorm; ++it) {
    diffusion_residual(v, pd, w.eps_c, w.G, w.ff, w.fj, Ap);
    double pAp = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      Ap[i] = -Ap[i];
      pAp += pd[i] * Ap[i];
    }
    const double alpha = rr / pAp;
    double rr_new = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      x[i] += alpha * pd[i];
      r[i] -= alpha * Ap[i];
      rr_new += r[i] * r[i];
    }
    const double beta = rr_new / rr;
    rr = rr_new;
    for (int64_t i = 0; i < n; ++i) pd[i] = r[i] + beta * pd[i];
  }
  *iterations = it;
  TEST_CHECK(sqrt(rr) <= 1e-11 * bnorm, "CG did not converge (%g after %d)", sqrt(rr) / bnorm, it);
  /* error of variable 0, mean removed */
  double mean = 0.0, area = 0.0, err = 0.0;
  for (int pass = 0; pass < 2; ++pass)
    for (int64_t e = 0; e < v->n_elems; ++e) {
      const int s = v->elem_shape[e], nb = v->nb[s];
      for (int q = 0; q < v->nq[s]; ++q) {
        const double *xq = vol_x(&fx.disc, e, q);
        const double *phi = v->vol_phi + v->vol_table[s] + (int64_t)q * nb;
        double uh = 0.0;
        for (int m = 0; m < nb; ++m) uh += phi[m] * x[disc_coef_index(v, e, 0, m)];
        const double u = manufactured(xq, NULL);
        const double wq = wdetj(v, e, q);
        if (pass == 0) {
          mean += wq * uh;
          area += wq;
        } else {
          err += wq * (uh - mean - u) * (uh - mean - u);
        }
      }
      if (pass == 0 && e == v->n_elems - 1) mean /= area;
    }
  free(x);
  free(r);
  free(pd);
  free(Ap);
  scratch_free(&w);
  fixture_free(&fx);
  return sqrt(err);
}

/* Slopes of the L2 error on meshes n, 2n, 2^(L-1) n (the check is on the
 * finest pair: >= p + 0.8). CI: 3 meshes from a start where the finest pair
 * is asymptotic (0 = not run in CI); full: n = 4, 8, 16, 32. */
static void convergence_study(int full) {
  const struct {
    const char *name;
    dg_mesh_structured_kind kind;
    int order;
    double deform;
    int ci_cells[DG_MAX_P + 1];
  } meshes[3] = {{"tri", MESH_STRUCTURED_TRI, 1, 0.0, {0, 8, 4, 4}},
                 {"quad", MESH_STRUCTURED_QUAD, 1, 0.0, {0, 8, 4, 6}},
                 {"curved quad", MESH_STRUCTURED_QUAD, 3, 0.04, {0, 8, 4, 0}}};
  for (int k = 0; k < 3; ++k)
    for (int p = 1; p <= DG_MAX_P; ++p) {
      const int n_levels = full ? 4 : 3;
      int cells = full ? 4 : meshes[k].ci_cells[p];
      if (cells == 0) continue;
      double err[4], h[4];
      printf("BR2 diffusion %-11s p=%d:", meshes[k].name, p);
      for (int l = 0; l < n_levels; ++l, cells *= 2) {
        int its = 0;
        struct timespec t0, t1;
        timespec_get(&t0, TIME_UTC);
        err[l] = diffusion_error(meshes[k].kind, meshes[k].order, meshes[k].deform, p, cells, &its);
        timespec_get(&t1, TIME_UTC);
        h[l] = 1.0 / cells;
        printf("  n=%d e=%.3e (%d CG, %.1f s)", cells, err[l], its,
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
        if (l > 0) printf(" slope %.3f", log(err[l - 1] / err[l]) / log(h[l - 1] / h[l]));
      }
      const double slope =
          log(err[n_levels - 2] / err[n_levels - 1]) / log(h[n_levels - 2] / h[n_levels - 1]);
      printf("\n");
      TEST_CHECK(slope >= p + 0.8, "%s p=%d: BR2 diffusion converges at %.2f < %.1f",
                 meshes[k].name, p, slope, p + 0.8);
    }
}

int main(int argc, char **argv) {
  const int rc = test_backend_args(&argc, argv);
  if (rc) return rc;
  printf("backend %s\n", test_backend_name);
  if (!test_backend_is_cpu()) { /* the rest checks host code and the CPU backend */
    test_freestream();
    return test_finish("test_av");
  }
  if (argc > 1 && !strcmp(argv[1], "--order-full")) {
    convergence_study(1);
    return test_finish("test_av --order-full");
  }
  if (argc > 1 && !strcmp(argv[1], "--order")) {
    convergence_study(0);
    return test_finish("test_av --order");
  }
  test_sensor();
  test_linear_eps();
  test_liftings();
  test_consistency();
  test_freestream();
  test_backend_ops();
  test_errors();
  return test_finish("test_av");
}
