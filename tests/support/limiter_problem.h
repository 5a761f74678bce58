#pragma once
/* Problems shared by test_limiter.c, test_limiter_gpu.c, test_backend_vec.c
 * and test_backend_vec_gpu.c (found through the include path of
 * colordg_problems, tests/CMakeLists.txt): a 2D
 * structured mesh, its discretisation (no artificial viscosity) and the L2
 * projection of a smooth state or of a blast, plus an independent
 * evaluation of the smallest density and pressure at the points the
 * positivity guard checks (src/dg/limiter.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dg/disc.h"
#include "dg/residual_ops.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"

#define LP_GAMMA 1.4

typedef enum { LP_SMOOTH = 0, LP_BLAST = 1 } lp_state;

typedef struct {
  dg_mesh mesh;
  dg_topology topo;
  dg_geometry geom;
  dg_disc disc;
  double *U; /* [n_coefs] host state, the projection of the initial state */
} lp_problem;

static inline void lp_free(lp_problem *pb) {
  disc_free(&pb->disc);
  geometry_free(&pb->geom);
  topology_free(&pb->topo);
  mesh_free(&pb->mesh);
  free(pb->U);
  memset(pb, 0, sizeof *pb);
}

/* Primitive initial states on [0,1]²: smooth (positive everywhere) or a
 * blast (ρ = 1, u = 0, p = 1000 in the disc r < 0.2 around (0.5, 0.5),
 * p = 0.01 outside: a pressure ratio of 1e5). */
static inline void lp_state_at(lp_state kind, const double *x, double *U) {
  double W[4];
  if (kind == LP_SMOOTH) {
    W[0] = 1.0 + 0.3 * sin(2.0 * DG_PI * x[0]) * cos(2.0 * DG_PI * x[1]);
    W[1] = 0.4;
    W[2] = -0.2 + 0.1 * sin(2.0 * DG_PI * x[1]);
    W[3] = 1.0 + 0.2 * cos(2.0 * DG_PI * x[0]);
  } else {
    const double r2 = (x[0] - 0.5) * (x[0] - 0.5) + (x[1] - 0.5) * (x[1] - 0.5);
    W[0] = 1.0;
    W[1] = W[2] = 0.0;
    W[3] = r2 < 0.04 ? 1000.0 : 0.01;
  }
  physics_primitive_to_conservative(2, LP_GAMMA, W, U);
}

/* Builds the problem on an n x n mesh of `kind` on the unit square,
 * geometric order `order` with deformation `deform`, periodic in x and y
 * (else slip walls), degree p, Roe flux, and projects the state. */
static inline dg_status lp_build(dg_mesh_structured_kind kind, int n, int order, double deform,
                                 int p, lp_state state, lp_problem *pb) {
  memset(pb, 0, sizeof *pb);
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = kind;
  mo.n[0] = mo.n[1] = n;
  mo.order = order;
  mo.deform = deform;
  mo.periodic[0] = mo.periodic[1] = 1;
  DG_CALL(mesh_structured_2d(&mo, &pb->mesh));
  DG_CALL(topology_build(&pb->mesh, &pb->topo));
  DG_CALL(geometry_build(&pb->mesh, &pb->topo, 2 * p + 1, 2 * p + 1, &pb->geom));
  dg_disc_opts o;
  memset(&o, 0, sizeof o);
  o.p = p;
  o.gamma = LP_GAMMA;
  o.flux = DG_FACE_FLUX_ROE;
  const double x0[2] = {0.0, 0.0};
  lp_state_at(LP_SMOOTH, x0, o.freestream);
  o.n_groups = 0;
  DG_CALL(disc_build(&pb->mesh, &pb->topo, &pb->geom, &o, &pb->disc));
  const dg_disc_view *d = &pb->disc.view;
  DG_CALL(DG_CALLOC(pb->U, d->n_coefs));
  const dg_geometry *g = &pb->geom;
  for (int64_t e = 0; e < d->n_elems; ++e) {
    const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar;
    double b[DG_MAX_NVAR * DG_MAX_BASIS] = {0}, c[DG_MAX_NVAR * DG_MAX_BASIS];
    for (int64_t k = g->vol_offset[e]; k < g->vol_offset[e + 1]; ++k) {
      const double *phi = d->vol_phi + d->vol_table[s] + (k - g->vol_offset[e]) * nb;
      double Ue[DG_MAX_NVAR];
      lp_state_at(state, g->vol_x + 3 * k, Ue);
      for (int v = 0; v < nv; ++v)
        for (int m = 0; m < nb; ++m) b[v * nb + m] += g->vol_wdetJ[k] * phi[m] * Ue[v];
    }
    residual_apply_minv(d, e, b, c);
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nb; ++m) pb->U[disc_coef_index(d, e, v, m)] = c[v * nb + m];
  }
  return DG_SUCCESS;
}

/* Smallest density and pressure of element e over its volume quadrature
 * points and the points of every local face (orientation 0), summing all
 * modes (an evaluation independent of the limiter's). */
static inline void lp_point_min(const dg_disc_view *d, int64_t e, const double *U, double *rho_min,
                                double *p_min) {
  const int s = d->elem_shape[e], nb = d->nb[s];
  const int nf = shape_n_faces((dg_shape)s);
  double rmin = INFINITY, pmin = INFINITY;
  for (int i = 0; i < d->nq[s] + nf * d->nqf; ++i) {
    double Uq[DG_MAX_NVAR];
    if (i < d->nq[s]) {
      const double *phi = d->vol_phi + d->vol_table[s] + (int64_t)i * nb;
      for (int v = 0; v < d->nvar; ++v) {
        double sum = 0.0;
        for (int m = 0; m < nb; ++m) sum += phi[m] * U[disc_coef_index(d, e, v, m)];
        Uq[v] = sum;
      }
    } else {
      const int j = i - d->nq[s];
      residual_trace(d, U, e, j / d->nqf, 0, j % d->nqf, Uq);
    }
    const double p = physics_pressure(d->dim, d->gamma, Uq);
    rmin = Uq[0] < rmin ? Uq[0] : rmin;
    pmin = p < pmin ? p : pmin;
    if (!(Uq[0] == Uq[0]) || !(p == p)) rmin = pmin = NAN;
  }
  *rho_min = rmin;
  *p_min = pmin;
}

/* Mean of element e (mode 0 times φ_0): ρ̄ and p̄. */
static inline void lp_mean(const dg_disc_view *d, int64_t e, const double *U, double *rho,
                           double *p) {
  const int s = d->elem_shape[e];
  double mean[DG_MAX_NVAR];
  for (int v = 0; v < d->nvar; ++v)
    mean[v] = d->vol_phi[d->vol_table[s]] * U[disc_coef_index(d, e, v, 0)];
  *rho = mean[0];
  *p = physics_pressure(d->dim, d->gamma, mean);
}

/* Makes the state rough: e % 4 == 1 gets a large top density mode (negative
 * density at points), e % 4 == 2 large first momentum modes (kinetic energy
 * above ρE: negative pressure at points of positive density); element 3
 * (when there is one) gets a negative mean density. */
static inline void lp_roughen(lp_problem *pb) {
  const dg_disc_view *d = &pb->disc.view;
  for (int64_t e = 0; e < d->n_elems; ++e) {
    const int nb = d->nb[d->elem_shape[e]];
    const double c0 = pb->U[disc_coef_index(d, e, 0, 0)];
    if (e % 4 == 1) pb->U[disc_coef_index(d, e, 0, nb - 1)] -= 1.5 * c0;
    if (e % 4 == 2) {
      pb->U[disc_coef_index(d, e, 1, 1)] += 1.2 * c0;
      pb->U[disc_coef_index(d, e, 2, 2)] -= 1.2 * c0;
    }
  }
  if (d->n_elems > 3) pb->U[disc_coef_index(d, 3, 0, 0)] *= -1.0;
}
