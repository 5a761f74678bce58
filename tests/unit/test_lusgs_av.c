/* The artificial-viscosity (BR2, ε frozen) part of the LU-SGS blocks
 * (src/lusgs/lusgs_av.h) against central finite differences of the viscous
 * residual of src/dg/av_ops.h (av_element_gradient, av_residual_face_terms,
 * av_residual_element_terms without convection) with a fixed eps_c:
 *   (0) that residual is the full AV residual minus the inviscid one;
 *   (a) lusgs_av_block_add = −∂R^visc_e/∂U_e, column by column;
 *   (b) lusgs_av_offdiag_add = −Σ_j ∂R^visc_e/∂U_j ΔU_j for LOWER, UPPER
 *       and ALL (random distinct colours), FD moving only the selected
 *       neighbours (ΔU on e itself must be ignored); LOWER + UPPER = ALL;
 *   (c) both are no-ops with AV off;
 *   (d) the pieces the GPU runs in parallel: the block column by column in
 *       reverse order (lusgs_av_block_column) is bitwise the block, and the
 *       formed couplings (lusgs_av_coupling_column, applied by
 *       lusgs_av_coupling_entry) give the matrix-free product of (b) to
 *       rounding (≤ 1e-12 relative) for LOWER, UPPER and ALL.
 * Meshes: curved mixed 2D (wall + far field), curved tets (wall + far
 * field); p = 1..3; DG_AV_ELEMENT and DG_AV_CONTINUOUS; ε set directly
 * (0 on half of the mesh: rows whose viscous residual vanishes must get
 * exactly zero blocks) or from the sensor of a perturbed state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dg/av_ops.h"
#include "dg/disc.h"
#include "dg/residual_ops.h"
#include "lusgs/lusgs_av.h"
#include "lusgs/lusgs_ops.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "test_util.h"

#define GAMMA 1.4

typedef struct {
  const char *name;
  dg_mesh_structured_opts mo;
  int dim, p, av;
  const char *wall; /* group that is a slip wall (the others: far field) */
  int sensor;       /* 1: ε_e from the sensor of U; 0: set directly */
  int wall_zero;    /* 1: no viscous flux through the wall (wall_flux = zero) */
} spec;

typedef struct {
  dg_mesh mesh;
  dg_topology topo;
  dg_geometry geom;
  dg_disc disc;
  double *U, *eps_elem, *eps_vert, *eps_c;
  double *G, *ff, *fj, *R, *W; /* residual scratch; W: a state-sized work vector */
} problem;

static void *zalloc(int64_t n, size_t size) { return calloc(n > 0 ? (size_t)n : 1u, size); }

static void problem_free(problem *pb) {
  free(pb->U);
  free(pb->eps_elem);
  free(pb->eps_vert);
  free(pb->eps_c);
  free(pb->G);
  free(pb->ff);
  free(pb->fj);
  free(pb->R);
  free(pb->W);
  disc_free(&pb->disc);
  geometry_free(&pb->geom);
  topology_free(&pb->topo);
  mesh_free(&pb->mesh);
  memset(pb, 0, sizeof *pb);
}

static int compare_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The directly set ε_e: 0 on the elements whose centroid has x < 0.5 (so
 * that rows with ε = 0 on the element and its neighbours exist), else a
 * varying positive value. */
static double direct_eps(const dg_disc *disc, int64_t e) {
  const int64_t q0 = disc->vol_x_offset[e], q1 = disc->vol_x_offset[e + 1];
  double x = 0.0;
  for (int64_t q = q0; q < q1; ++q) x += disc->vol_x[q * disc->view.dim];
  x /= (double)(q1 - q0);
  return x < 0.5 ? 0.0 : 0.05 * (1.0 + 0.5 * sin(1.7 * (double)e));
}

static int problem_build(problem *pb, const spec *sp) {
  memset(pb, 0, sizeof *pb);
  dg_status st = sp->dim == 2 ? mesh_structured_2d(&sp->mo, &pb->mesh)
                              : mesh_structured_3d(&sp->mo, &pb->mesh);
  if (st == DG_SUCCESS) st = topology_build(&pb->mesh, &pb->topo);
  const int dim = sp->dim, q = sp->mo.order, p = sp->p;
  if (st == DG_SUCCESS)
    st = geometry_build(&pb->mesh, &pb->topo, 2 * p + 1 + dim * (q - 1),
                        2 * p + 1 + (dim - 1) * (q - 1), &pb->geom);
  int32_t bc[8];
  physics_bc_data data[8];
  dg_disc_opts o;
  memset(&o, 0, sizeof o);
  o.p = p;
  o.gamma = GAMMA;
  o.flux = DG_FACE_FLUX_ROE;
  physics_freestream_state(dim, GAMMA, 0.5, 10.0, dim == 3 ? 5.0 : 0.0, o.freestream);
  o.n_groups = pb->mesh.n_groups;
  o.group_bc = bc;
  o.group_data = data;
  for (int g = 0; g < pb->mesh.n_groups && g < 8; ++g) {
    bc[g] = strcmp(pb->mesh.groups[g].name, sp->wall) ? PHYSICS_BC_FARFIELD : PHYSICS_BC_WALL;
    memset(&data[g], 0, sizeof data[g]);
    memcpy(data[g].state, o.freestream, sizeof o.freestream);
  }
  o.av = sp->av;
  o.av_wall_zero = sp->wall_zero;
  o.av_sensor_var = 0;
  o.av_kappa = 1.0;
  o.av_c = 1.0;
  if (st == DG_SUCCESS) st = disc_build(&pb->mesh, &pb->topo, &pb->geom, &o, &pb->disc);
  TEST_OK(st);
  if (st != DG_SUCCESS) {
    problem_free(pb);
    return 0;
  }
  const dg_disc_view *d = &pb->disc.view;
  const int64_t nff = d->n_faces * d->nqf * d->nvar;
  pb->U = zalloc(d->n_coefs, sizeof(double));
  pb->W = zalloc(d->n_coefs, sizeof(double));
  pb->R = zalloc(d->n_coefs, sizeof(double));
  pb->G = zalloc(d->dim * d->n_coefs, sizeof(double));
  pb->ff = zalloc(nff, sizeof(double));
  pb->fj = zalloc(nff, sizeof(double));
  pb->eps_elem = zalloc(d->n_elems, sizeof(double));
  pb->eps_vert = zalloc(d->n_verts, sizeof(double));
  pb->eps_c = zalloc(d->n_elems * DG_AV_NLIN, sizeof(double));
  TEST_OK(disc_project(&pb->disc, 0.0, pb->U));
  /* a smooth deterministic perturbation of every coefficient (ρ, p stay > 0) */
  for (int64_t i = 0; i < d->n_coefs; ++i) pb->U[i] += 0.02 * sin(12.9898 * (double)i + 0.7);
  /* ε: the sensor's, or a field with some zero elements; then the backend's
   * vertex averaging (continuous) and coefficients. Sensor cases: the top
   * modes of every third element are scaled by 0.1, 0.5 or 1, and the
   * threshold s0 is placed at the median s_e (κ = 0.5), so that ε is 0 on
   * some elements, on the ramp or full on others. */
  if (sp->sensor) {
    double sensor[4096];
    const int64_t ne = d->n_elems < 4096 ? d->n_elems : 4096;
    for (int64_t e = 0; e < d->n_elems; ++e) {
      const int s = d->elem_shape[e];
      const double factor = e % 3 == 0 ? 0.1 : (e % 3 == 1 ? 0.5 : 1.0);
      for (int v = 0; v < d->nvar; ++v)
        for (int m = d->nb_low[s]; m < d->nb[s]; ++m) pb->U[disc_coef_index(d, e, v, m)] *= factor;
    }
    for (int64_t e = 0; e < ne; ++e) sensor[e] = av_sensor(d, e, pb->U);
    qsort(sensor, (size_t)ne, sizeof(double), compare_double);
    pb->disc.view.av_s0 = sensor[ne / 2];
    pb->disc.view.av_kappa = 0.5;
  }
  for (int64_t e = 0; e < d->n_elems; ++e)
    pb->eps_elem[e] = sp->sensor ? av_element_eps(d, NULL, e, pb->U) : direct_eps(&pb->disc, e);
  if (d->av == DG_AV_CONTINUOUS)
    for (int64_t v = 0; v < d->n_verts; ++v) pb->eps_vert[v] = av_vertex_eps(d, v, pb->eps_elem);
  for (int64_t e = 0; e < d->n_elems; ++e)
    av_element_coefs(d, e, pb->eps_elem, pb->eps_vert, pb->eps_c);
  return 1;
}

/* 1 when U has ρ > 0 and p > 0 at every face point of every element (the
 * ghost states and their Jacobians need it). */
static int admissible(const dg_disc_view *d, const double *U) {
  for (int64_t e = 0; e < d->n_elems; ++e) {
    const int nf = shape_n_faces((dg_shape)d->elem_shape[e]);
    for (int lf = 0; lf < nf; ++lf) {
      int side;
      const int64_t f = lusgs_face_side(d, e, lf, &side);
      for (int q = 0; q < d->nqf; ++q) {
        double Uq[DG_MAX_NVAR];
        residual_trace(d, U, e, lf, side ? d->face_orient[f] : 0, q, Uq);
        if (!(Uq[0] > 0.0 && physics_pressure(d->dim, d->gamma, Uq) > 0.0)) return 0;
      }
    }
  }
  return 1;
}

/* out = row e of the viscous residual R^visc(U) (BR2 diffusion with the
 * frozen eps_c, no convection): what it reads is recomputed (the gradients
 * of e and its neighbours, the faces of e). */
static void visc_row(problem *pb, int64_t e, const double *U, double *out) {
  const dg_disc_view *d = &pb->disc.view;
  const int nf = shape_n_faces((dg_shape)d->elem_shape[e]);
  av_element_gradient(d, e, U, pb->G);
  for (int lf = 0; lf < nf; ++lf) {
    int side;
    const int64_t f = lusgs_face_side(d, e, lf, &side), j = d->face_elem[2 * f + 1 - side];
    if (j >= 0) av_element_gradient(d, j, U, pb->G);
  }
  for (int lf = 0; lf < nf; ++lf) {
    const int64_t f = d->elem_face[e * DG_MAX_FACES + lf];
    av_residual_face_terms(d, NULL, f, U, pb->G, pb->eps_c, 0.0, 0, pb->ff, pb->fj);
  }
  av_residual_element_terms(d, e, U, pb->eps_c, pb->ff, pb->fj, 0, pb->R);
  residual_load(d, pb->R, e, out);
}

/* (0) max |R_full − R_inviscid − R^visc| / max |R^visc| over the mesh. */
static double decomposition_error(problem *pb) {
  const dg_disc_view *d = &pb->disc.view;
  const int64_t nc = d->n_coefs;
  double *Rf = zalloc(nc, sizeof(double)), *Ri = zalloc(nc, sizeof(double));
  for (int64_t e = 0; e < d->n_elems; ++e) av_element_gradient(d, e, pb->U, pb->G);
  for (int64_t f = 0; f < d->n_faces; ++f)
    av_residual_face(d, NULL, f, pb->U, pb->G, pb->eps_c, 0.0, pb->ff, pb->fj);
  for (int64_t e = 0; e < d->n_elems; ++e)
    av_residual_element(d, e, pb->U, pb->eps_c, pb->ff, pb->fj, Rf);
  for (int64_t f = 0; f < d->n_faces; ++f) residual_face(d, NULL, f, pb->U, 0.0, pb->ff);
  for (int64_t e = 0; e < d->n_elems; ++e) residual_element(d, e, pb->U, pb->ff, Ri);
  for (int64_t f = 0; f < d->n_faces; ++f)
    av_residual_face_terms(d, NULL, f, pb->U, pb->G, pb->eps_c, 0.0, 0, pb->ff, pb->fj);
  for (int64_t e = 0; e < d->n_elems; ++e)
    av_residual_element_terms(d, e, pb->U, pb->eps_c, pb->ff, pb->fj, 0, pb->R);
  double err = 0.0, scale = 0.0;
  for (int64_t i = 0; i < nc; ++i) {
    err = fmax(err, fabs(Rf[i] - Ri[i] - pb->R[i]));
    scale = fmax(scale, fabs(pb->R[i]));
  }
  free(Rf);
  free(Ri);
  return scale > 0.0 ? err / scale : INFINITY;
}

/* Deterministic pseudo-random numbers in [-1, 1]. */
static double rnd(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return 2.0 * ((*state >> 8) / 16777216.0) - 1.0;
}

typedef struct {
  double block, offdiag, split, coupling; /* worst relative errors */
  int n_rows, n_inviscid_rows;            /* blocks checked */
  int n_interior;                         /* of them, elements without a boundary face */
  double block_scale;
} result;

/* 1 when e has a boundary face with BR2 terms: any boundary face, except
 * the slip walls when the wall carries no viscous flux (wall_flux = zero;
 * nor the symmetry planes). */
static int has_boundary_face(const dg_disc_view *d, int64_t e) {
  for (int lf = 0; lf < shape_n_faces((dg_shape)d->elem_shape[e]); ++lf) {
    int side;
    const int64_t f = lusgs_face_side(d, e, lf, &side);
    if (d->face_elem[2 * f + 1 - side] >= 0) continue;
    const int bc = d->group_bc[d->face_group[f]];
    if (!d->av_wall_zero || (bc != PHYSICS_BC_WALL && bc != PHYSICS_BC_SYMMETRY)) return 1;
  }
  return 0;
}

/* (a) block of element e against FD; (relative error, or −1 for a row whose
 * viscous residual vanishes: then K and the FD must both be exactly 0). */
static double check_block(problem *pb, int64_t e, double *K, double *scale_out) {
  const dg_disc_view *d = &pb->disc.view;
  const int nb = d->nb[d->elem_shape[e]], nv = d->nvar, n = nv * nb;
  for (int i = 0; i < n * n; ++i) K[i] = 0.0;
  lusgs_av_block_add(d, NULL, e, pb->U, pb->eps_c, 0.0, K);
  if (!lusgs_av_row_inviscid(d, e, pb->eps_c)) { /* (d) column by column, in reverse order */
    double *K2 = zalloc((int64_t)n * n, sizeof *K2);
    const int boundary = lusgs_av_has_boundary(d, e);
    TEST_CHECK(boundary == has_boundary_face(d, e), "element %lld: lusgs_av_has_boundary %d",
               (long long)e, boundary);
    for (int c = (boundary ? n : nb) - 1; c >= 0; --c)
      lusgs_av_block_column(d, NULL, e, pb->U, pb->eps_c, 0.0, boundary, c, K2);
    TEST_CHECK(memcmp(K, K2, (size_t)n * n * sizeof *K) == 0,
               "element %lld: the block column by column differs from lusgs_av_block_add",
               (long long)e);
    free(K2);
  }
  double err = 0.0, scale = 0.0, fd_max = 0.0;
  for (int i = 0; i < n * n; ++i) scale = fmax(scale, fabs(K[i]));
  double gp[LUSGS_MAX_BLOCK], gm[LUSGS_MAX_BLOCK];
  for (int w = 0; w < nv; ++w)
    for (int k = 0; k < nb; ++k) {
      const int64_t idx = disc_coef_index(d, e, w, k);
      const double u0 = pb->U[idx], h = 1e-6 * fmax(1.0, fabs(u0));
      pb->U[idx] = u0 + h;
      visc_row(pb, e, pb->U, gp);
      pb->U[idx] = u0 - h;
      visc_row(pb, e, pb->U, gm);
      pb->U[idx] = u0;
      const int col = w * nb + k;
      for (int r = 0; r < n; ++r) {
        const double fd = -(gp[r] - gm[r]) / (2.0 * h);
        err = fmax(err, fabs(K[r * n + col] - fd));
        fd_max = fmax(fd_max, fabs(fd));
      }
    }
  *scale_out = scale;
  if (lusgs_av_row_inviscid(d, e, pb->eps_c)) {
    TEST_CHECK(scale == 0.0 && fd_max == 0.0,
               "inviscid row %lld: block max %.3g, FD max %.3g (both should be 0)", (long long)e,
               scale, fd_max);
    return -1.0;
  }
  return scale > 0.0 ? err / scale : INFINITY;
}

/* (b) off-diagonal products of element e against FD for LOWER, UPPER, ALL;
 * returns the worst relative error, *split = |ALL − LOWER − UPPER| / max|ALL|. */
static double check_offdiag(problem *pb, int64_t e, const int32_t *color, unsigned *seed,
                            double *dU, double *split, double *coupling) {
  const dg_disc_view *d = &pb->disc.view;
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, n = nv * nb;
  const int nf = shape_n_faces((dg_shape)s);
  for (int64_t i = 0; i < d->n_coefs; ++i) dU[i] = rnd(seed);
  double prod[3][LUSGS_MAX_BLOCK];
  double worst = 0.0;
  const int which[3] = {LUSGS_LOWER, LUSGS_UPPER, LUSGS_ALL};
  for (int c = 0; c < 3; ++c) {
    for (int i = 0; i < n; ++i) prod[c][i] = 0.0;
    lusgs_av_offdiag_add(d, e, dU, pb->eps_c, color, which[c], prod[c]);
    /* FD moving only the selected neighbours by h ΔU_j */
    const double h = 1e-5;
    double gp[LUSGS_MAX_BLOCK], gm[LUSGS_MAX_BLOCK];
    for (int sign = 0; sign < 2; ++sign) {
      memcpy(pb->W, pb->U, (size_t)d->n_coefs * sizeof(double));
      for (int lf = 0; lf < nf; ++lf) {
        int side;
        const int64_t f = lusgs_face_side(d, e, lf, &side), j = d->face_elem[2 * f + 1 - side];
        if (j < 0 || j == e) continue;
        if (which[c] == LUSGS_LOWER && !(color[j] < color[e])) continue;
        if (which[c] == LUSGS_UPPER && !(color[j] > color[e])) continue;
        const int nbj = d->nb[d->elem_shape[j]];
        for (int v = 0; v < nv; ++v)
          for (int m = 0; m < nbj; ++m) {
            const int64_t idx = disc_coef_index(d, j, v, m);
            pb->W[idx] = pb->U[idx] + (sign ? -h : h) * dU[idx];
          }
      }
      visc_row(pb, e, pb->W, sign ? gm : gp);
    }
    double err = 0.0, scale = 0.0;
    for (int i = 0; i < n; ++i) {
      const double fd = -(gp[i] - gm[i]) / (2.0 * h);
      err = fmax(err, fabs(prod[c][i] - fd));
      scale = fmax(scale, fabs(prod[c][i]));
    }
    if (which[c] == LUSGS_ALL && !lusgs_av_row_inviscid(d, e, pb->eps_c))
      TEST_CHECK(scale > 0.0, "element %lld: the viscous off-diagonal product is 0", (long long)e);
    if (scale > 0.0)
      worst = fmax(worst, err / scale);
    else
      TEST_CHECK(err == 0.0, "element %lld: product 0 but FD %.3g", (long long)e, err);
  }
  /* (d) the formed couplings against the matrix-free products */
  const int64_t fstride = (int64_t)DG_MAX_BASIS * DG_MAX_BASIS;
  double *C = zalloc(DG_MAX_FACES * fstride, sizeof *C);
  for (int lf = 0; lf < nf; ++lf)
    for (int k = 0; k < DG_MAX_BASIS; ++k)
      lusgs_av_coupling_column(d, e, lf, k, pb->eps_c, C + lf * fstride + k * nb);
  *coupling = 0.0;
  for (int c = 0; c < 3 && !lusgs_av_row_inviscid(d, e, pb->eps_c); ++c) {
    double err = 0.0, scale = 0.0;
    for (int i = 0; i < n; ++i) {
      const double x = lusgs_av_coupling_entry(d, e, C, fstride, dU, color, which[c], i);
      err = fmax(err, fabs(x - prod[c][i]));
      scale = fmax(scale, fabs(prod[c][i]));
    }
    *coupling = fmax(*coupling, scale > 0.0 ? err / scale : err);
  }
  free(C);
  double sp = 0.0, scale = 0.0;
  for (int i = 0; i < n; ++i) {
    sp = fmax(sp, fabs(prod[2][i] - prod[0][i] - prod[1][i]));
    scale = fmax(scale, fabs(prod[2][i]));
  }
  *split = scale > 0.0 ? sp / scale : sp;
  return worst;
}

static double seconds(void) {
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_case(const spec *sp) {
  const double t0 = seconds();
  problem pb;
  if (!problem_build(&pb, sp)) return;
  const dg_disc_view *d = &pb.disc.view;
  int n_viscous = 0;
  double smin = INFINITY, smax = -INFINITY;
  for (int64_t e = 0; e < d->n_elems; ++e) {
    n_viscous += pb.eps_elem[e] > 0.0;
    smin = fmin(smin, av_sensor(d, e, pb.U));
    smax = fmax(smax, av_sensor(d, e, pb.U));
  }
  if (sp->sensor)
    printf("%s p=%d: sensor s_e in [%.2f, %.2f], s0 = %.2f, kappa = %.2f\n", sp->name, sp->p, smin,
           smax, d->av_s0, d->av_kappa);
  TEST_CHECK(n_viscous > 0 && n_viscous < d->n_elems, "%s p=%d: %d of %lld elements have ε > 0",
             sp->name, sp->p, n_viscous, (long long)d->n_elems);
  TEST_CHECK(admissible(d, pb.U), "%s p=%d: the perturbed state is not admissible", sp->name,
             sp->p);
  const double dec = decomposition_error(&pb);
  TEST_CHECK(dec <= 1e-10, "%s p=%d: R_full − R_inviscid − R^visc relative %.3g", sp->name, sp->p,
             dec);
  /* distinct colours in a shuffled order */
  int32_t *color = malloc((size_t)d->n_elems * sizeof *color);
  unsigned seed = 12345u + (unsigned)sp->p;
  for (int64_t e = 0; e < d->n_elems; ++e) color[e] = (int32_t)e;
  for (int64_t e = d->n_elems - 1; e > 0; --e) {
    const int64_t k = (int64_t)((0.5 * rnd(&seed) + 0.5) * (double)(e + 1)) % (e + 1);
    const int32_t tmp = color[e];
    color[e] = color[k];
    color[k] = tmp;
  }
  double *K = malloc(LUSGS_MAX_BLOCK * LUSGS_MAX_BLOCK * sizeof *K);
  double *dU = zalloc(d->n_coefs, sizeof(double));
  result res = {0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0.0};
  /* ~12 rows per case; the blocks of tets at p = 3 (n = 100 columns, each
   * with two FD residual rows) on two elements with a boundary face and two
   * without only, to keep the test short under the sanitizers */
  const int64_t stride = d->n_elems > 10 ? d->n_elems / 10 : 1;
  const int block_limit = d->dim == 3 && d->p == 3 ? 2 : d->n_elems;
  int tested[2] = {0, 0}; /* blocks checked without / with a boundary face */
  for (int64_t e = 0; e < d->n_elems; e += stride) {
    double split, coupling;
    res.offdiag = fmax(res.offdiag, check_offdiag(&pb, e, color, &seed, dU, &split, &coupling));
    res.split = fmax(res.split, split);
    res.coupling = fmax(res.coupling, coupling);
    const int bnd = has_boundary_face(d, e);
    if (tested[bnd] >= block_limit) continue;
    ++tested[bnd];
    double scale;
    const double eb = check_block(&pb, e, K, &scale);
    if (eb < 0.0) {
      ++res.n_inviscid_rows;
    } else {
      ++res.n_rows;
      res.n_interior += !bnd;
      res.block = fmax(res.block, eb);
      res.block_scale = fmax(res.block_scale, scale);
    }
  }
  TEST_CHECK(res.n_rows > res.n_interior && res.n_interior > 0,
             "%s p=%d: %d blocks checked, %d without a boundary face", sp->name, sp->p, res.n_rows,
             res.n_interior);
  TEST_CHECK(res.block <= 1e-6, "%s p=%d: AV block vs FD relative error %.3g", sp->name, sp->p,
             res.block);
  TEST_CHECK(res.offdiag <= 1e-6, "%s p=%d: AV off-diagonal product vs FD relative error %.3g",
             sp->name, sp->p, res.offdiag);
  TEST_CHECK(res.split <= 1e-12, "%s p=%d: ALL − LOWER − UPPER relative %.3g", sp->name, sp->p,
             res.split);
  TEST_CHECK(res.coupling <= 1e-12,
             "%s p=%d: formed couplings vs matrix-free off-diagonal product relative %.3g",
             sp->name, sp->p, res.coupling);
  printf("%-34s %s p=%d: ε>0 on %d/%lld, decomposition %.1e; %d blocks (%d interior, +%d "
         "inviscid rows): block vs FD %.2e (max|K| %.2e), off-diagonal vs FD %.2e, ALL-LOWER-UPPER "
         "%.1e, couplings vs product %.1e; "
         "%.2f s\n",
         sp->name, d->av == DG_AV_CONTINUOUS ? "continuous" : "element   ", sp->p, n_viscous,
         (long long)d->n_elems, dec, res.n_rows, res.n_interior, res.n_inviscid_rows, res.block,
         res.block_scale, res.offdiag, res.split, res.coupling, seconds() - t0);
  free(color);
  free(K);
  free(dU);
  problem_free(&pb);
}

/* (c) AV off: both functions leave their outputs alone. */
static void test_av_off(void) {
  spec sp;
  memset(&sp, 0, sizeof sp);
  sp.name = "av off";
  sp.dim = 2;
  sp.mo = mesh_structured_defaults(2);
  sp.mo.n[0] = sp.mo.n[1] = 2;
  sp.p = 1;
  sp.av = DG_AV_OFF;
  sp.wall = "ymin";
  problem pb;
  if (!problem_build(&pb, &sp)) return;
  const dg_disc_view *d = &pb.disc.view;
  int32_t *color = zalloc(d->n_elems, sizeof *color);
  double K[LUSGS_MAX_BLOCK * LUSGS_MAX_BLOCK], out[LUSGS_MAX_BLOCK];
  const int n = lusgs_block_size(d, 0);
  for (int i = 0; i < n * n; ++i) K[i] = 1.0;
  for (int i = 0; i < n; ++i) out[i] = 1.0;
  for (int64_t e = 0; e < d->n_elems; ++e) color[e] = (int32_t)e;
  /* ε > 0 everywhere: only the AV-off test may keep the outputs */
  double *eps_c = zalloc(d->n_elems * DG_AV_NLIN, sizeof *eps_c);
  for (int64_t i = 0; i < d->n_elems * DG_AV_NLIN; ++i) eps_c[i] = 1.0;
  lusgs_av_block_add(d, NULL, 0, pb.U, eps_c, 0.0, K);
  lusgs_av_offdiag_add(d, 0, pb.U, eps_c, color, LUSGS_ALL, out);
  free(eps_c);
  int same = 1;
  for (int i = 0; i < n * n; ++i) same &= K[i] == 1.0;
  for (int i = 0; i < n; ++i) same &= out[i] == 1.0;
  TEST_CHECK(same, "AV off: the AV block or product changed its output");
  free(color);
  problem_free(&pb);
}

int main(void) {
  spec sp;
  memset(&sp, 0, sizeof sp);
  /* curved mixed 2D: wall at ymin, far field elsewhere; ε set directly */
  sp.name = "curved mixed 2D, wall+far field";
  sp.dim = 2;
  sp.mo = mesh_structured_defaults(2);
  sp.mo.kind = MESH_STRUCTURED_MIXED;
  sp.mo.order = 2;
  sp.mo.n[0] = 4;
  sp.mo.n[1] = 3;
  sp.mo.deform = 0.04;
  sp.wall = "ymin";
  for (int p = 1; p <= 3; ++p)
    for (int av = DG_AV_ELEMENT; av <= DG_AV_CONTINUOUS; ++av) {
      sp.p = p;
      sp.av = av;
      test_case(&sp);
    }
  /* wall_flux = zero: no viscous flux and no lifting at the wall; the
   * blocks and products must still be the residual's exact Jacobian */
  sp.name = "curved mixed 2D, wall+far field, no viscous wall flux";
  sp.wall_zero = 1;
  for (int p = 1; p <= 2; ++p) {
    sp.p = p;
    sp.av = DG_AV_ELEMENT;
    test_case(&sp);
  }
  /* curved tets: wall at zmin, far field elsewhere; ε from the sensor */
  spec st;
  memset(&st, 0, sizeof st);
  st.name = "curved tets, wall+far field";
  st.dim = 3;
  st.mo = mesh_structured_defaults(3);
  st.mo.kind = MESH_STRUCTURED_TET;
  st.mo.order = 2;
  st.mo.n[0] = st.mo.n[1] = st.mo.n[2] = 2;
  st.mo.deform = 0.03;
  st.wall = "zmin";
  st.sensor = 1;
  for (int p = 1; p <= 3; ++p)
    for (int av = DG_AV_ELEMENT; av <= DG_AV_CONTINUOUS; ++av) {
      st.p = p;
      st.av = av;
      test_case(&st);
    }
  st.name = "curved tets, wall+far field, no viscous wall flux";
  st.wall_zero = 1;
  st.p = 2;
  st.av = DG_AV_ELEMENT;
  test_case(&st);
  test_av_off();
  return test_finish("test_lusgs_av");
}
