#pragma once
/* Shock capturing: Persson–Peraire sensor and artificial viscosity
 * ∇·(ε∇U) discretised with BR2 (docs/ARCHITECTURE.md §5, docs/NUMERICS-av.md). One
 * DG_HD source for the CPU loops (src/dg/backend_cpu.c) and the CUDA kernels
 * (src/kernels/backend_cuda.cu). Only used when view.av != DG_AV_OFF (p ≥ 1).
 *
 * Sensor (element e, sensor variable u = U[av_sensor_var], orthonormal
 * reference basis, hierarchical modes):
 *   S_e = Σ_{m ≥ nb_low} u_m² / Σ_m u_m²   (an ENERGY ratio, squared L2
 *   norms in reference space, as Persson–Peraire's (u−û, u−û)/(u, u); an
 *   amplitude ratio would be its square root and halve s_e, which is why
 *   s0 = −4 log10 p: amplitudes of the top modes decay like 1/p²),
 *   s_e = log10 S_e (floored at AV_SENSOR_FLOOR).
 * Viscosity: ε0 = C λ_e h_e / p with λ_e = |ū| + c̄ of the element mean
 * state (mode 0 coefficients; c̄² floored at 0), h_e = elem_h[e] (the
 * geometry's length scale, src/mesh/geometry.h);
 *   ε_e = 0 for s_e < s0 − κ, ε0 for s_e > s0 + κ,
 *   ε0/2 (1 + sin(π (s_e − s0) / (2κ))) between.
 * ε field: eps_c[e*DG_AV_NLIN + m], m < n_lin[s], coefficients of ε on the
 * first n_lin modes of element e's basis (ε(x) = Σ_m eps_c φ_m):
 *   DG_AV_ELEMENT:    eps_c[0] = ε_e / φ_0, the rest 0 (ε constant);
 *   DG_AV_CONTINUOUS: vertex values ε_v = mean of ε_e over the elements
 *     around v (vert_elem CSR, ascending order), then
 *     eps_c[m] = Σ_i lin_coef[m][i] ε_{vertex i} (linear in reference space).
 *
 * BR2 for ∇·(ε∇U) (ε frozen per evaluation, one scalar for all variables).
 * At a face with sides L (0), R (1) and unit normal n outward from L:
 *   δU = U_L − U_R (traces; on a boundary face U_R is the ghost state, and
 *        the ghost side has L's ε and gradient),
 *   lifting on side K ∈ {L, R}: r_K ∈ V_h(K)^dim with
 *        ∫_K r_K·τ dx = −½ ∫_f δU n·τ ds for every τ ∈ V_h(K)^dim
 *        (the same expression on both sides, because (U_K − U_other) n_K =
 *        δU n; ½ also on boundary faces: the ghost acts as a neighbour),
 *   viscous face flux ĥ = ½ Σ_K ε_K (∇U_K + η_K r_K), η_K = br2_eta or
 *        (faces of K) + 1; on a boundary face ĥ = ε_L(∇U_L + η_L r_L).
 *   ∇U_K at face points is the L2 projection of ∇U onto V_h(K) (exact on
 *   affine elements): G_K = M_K⁻¹ ∫_K ∇U φ dx.
 * Residual (weak form, same sign convention as residual_ops.h: dU/dt = M⁻¹R):
 *   R_e,m += −∫_e ε (∇U + Σ_{f ∋ e} r_f,e)·∇φ_m dx + ∮_∂e ĥ·n_e φ_m ds.
 * The face term enters face_flux (H·n − ĥ·n) wsJ, which residual_element's
 * gather already adds with the right sign; the volume term holds BR2's
 * symmetric term Σ_f ∫_f ½ δU n·ε∇φ_m through the liftings (the usual
 * "lifted gradient" form: identical for ε constant on affine elements, a
 * consistent variant otherwise).
 *
 * Arrays (sizes; all state-layout indices through disc_coef_index):
 *   eps_elem [n_elems]; eps_vert [n_verts]; eps_c [n_elems * DG_AV_NLIN];
 *   G [dim * n_coefs]: ∂U_v/∂x_d coefficients at G[d*n_coefs + disc_coef_index(e, v, m)];
 *   face_flux [n_faces*nqf*nvar] as in residual_ops.h;
 *   face_jump [n_faces*nqf*nvar]: δU·wsJ at face point k = f*nqf + q.
 * Argument access: inputs read, outputs written (never incremented). */
#include <math.h>

#include "dg/disc.h"
#include "dg/physics.h"
#include "dg/residual_ops.h"
#include "element/basis.h"

/* Weight of the viscous term of av_element_timestep: 0.25 kept p = 3 stable
 * at CFL 1 on the NACA0012 M 0.8 hybrid mesh (600 iterations, no guard
 * correction), 0.05 diverged within 27 iterations. */
#define AV_DT_VISC_FACTOR 0.25
#define AV_SENSOR_FLOOR (-20.0) /* s_e when the sensor variable has no energy at all */

/* s_e = log10 S_e of element e (see the header), ≥ AV_SENSOR_FLOOR. */
DG_HD double av_sensor(const dg_disc_view *d, int64_t e, const double *U) {
  const int s = d->elem_shape[e], nb = d->nb[s], low = d->nb_low[s], sv = d->av_sensor_var;
  double top = 0.0, all = 0.0;
  for (int m = 0; m < nb; ++m) {
    const double u = U[disc_coef_index(d, e, sv, m)];
    all += u * u;
    if (m >= low) top += u * u;
  }
  if (!(top > 0.0 && all > 0.0)) return AV_SENSOR_FLOOR;
  const double se = log10(top / all);
  return se > AV_SENSOR_FLOOR ? se : AV_SENSOR_FLOOR;
}

/* ε_e of element e from its sensor and mean state (0 when s_e < s0 − κ). */
DG_HD double av_element_eps_sensor(const dg_disc_view *d, int64_t e, const double *U) {
  const double se = av_sensor(d, e, U);
  const double s0 = d->av_s0, kappa = d->av_kappa;
  if (se < s0 - kappa) return 0.0;
  const int s = d->elem_shape[e], dim = d->dim;
  const double phi0 = 1.0 / sqrt(shape_ref_measure((dg_shape)s));
  double Um[DG_MAX_NVAR];
  for (int v = 0; v < d->nvar; ++v) Um[v] = U[disc_coef_index(d, e, v, 0)] * phi0;
  double speed2 = 0.0;
  for (int k = 0; k < dim; ++k) speed2 += (Um[1 + k] / Um[0]) * (Um[1 + k] / Um[0]);
  const double c2 = d->gamma * physics_pressure(dim, d->gamma, Um) / Um[0];
  const double lambda = sqrt(speed2) + sqrt(c2 > 0.0 ? c2 : 0.0);
  const double eps0 = d->av_c * lambda * d->elem_h[e] / d->p;
  if (se > s0 + kappa) return eps0;
  return 0.5 * eps0 * (1.0 + sin(DG_PI * (se - s0) / (2.0 * kappa)));
}

/* ε_e of element e as the residual uses it: the held value
 * st->av_eps_hold[e] when the marcher holds ε (entry >= 0, see
 * av_hold_update), else av_element_eps_sensor of U (also when st or its
 * av_eps_hold is NULL). */
DG_HD double av_element_eps(const dg_disc_view *d, const dg_disc_state *st, int64_t e,
                            const double *U) {
  if (st && st->av_eps_hold) {
    const double held = st->av_eps_hold[e];
    if (held >= 0.0) return held;
  }
  return av_element_eps_sensor(d, e, U);
}

/* New held ε of element e (av_hold): ε_s = av_element_eps_sensor(U), then
 * ω ε_s + (1 − ω) held when a value is held (held >= 0), else ε_s. The fixed
 * points of the relaxed iteration are those of ε = ε_s(U); ω < 1 damps the
 * period-two cycle that an element switching its viscosity on and off can
 * drive in a Newton-like marcher (docs/NUMERICS-av.md). */
DG_HD double av_hold_update(const dg_disc_view *d, int64_t e, const double *U, double held,
                            double omega) {
  const double es = av_element_eps_sensor(d, e, U);
  return held >= 0.0 ? omega * es + (1.0 - omega) * held : es;
}

/* ε_v of vertex vtx: mean of eps_elem over vert_elem (ascending order). */
DG_HD double av_vertex_eps(const dg_disc_view *d, int64_t vtx, const double *eps_elem) {
  const int64_t i0 = d->vert_elem_start[vtx], i1 = d->vert_elem_start[vtx + 1];
  double sum = 0.0;
  for (int64_t i = i0; i < i1; ++i) sum += eps_elem[d->vert_elem[i]];
  return i1 > i0 ? sum / (double)(i1 - i0) : 0.0;
}

/* eps_c[e*DG_AV_NLIN + 0..DG_AV_NLIN-1] (written; unused entries 0) of
 * element e: from eps_elem (DG_AV_ELEMENT; eps_vert may be NULL) or from
 * eps_vert (DG_AV_CONTINUOUS). */
DG_HD void av_element_coefs(const dg_disc_view *d, int64_t e, const double *eps_elem,
                            const double *eps_vert, double *eps_c) {
  const int s = d->elem_shape[e], nl = d->n_lin[s];
  double *c = eps_c + e * DG_AV_NLIN;
  for (int m = 0; m < DG_AV_NLIN; ++m) c[m] = 0.0;
  if (d->av != DG_AV_CONTINUOUS) {
    c[0] = eps_elem[e] * sqrt(shape_ref_measure((dg_shape)s));
    return;
  }
  const double *L = d->lin_coef + d->lin_table[s];
  const int64_t *vert = d->elem_vert + e * DG_MAX_VERTS;
  for (int m = 0; m < nl; ++m) {
    double sum = 0.0;
    for (int i = 0; i < nl; ++i) sum += L[m * nl + i] * eps_vert[vert[i]];
    c[m] = sum;
  }
}

/* ε of element e at the point whose basis row is phi (nb values, e.g. a row
 * of vol_phi or face_phi): Σ_{m < n_lin} eps_c[e][m] phi[m]. */
DG_HD double av_eps_at(const dg_disc_view *d, int64_t e, const double *eps_c, const double *phi) {
  const int nl = d->n_lin[d->elem_shape[e]];
  const double *c = eps_c + e * DG_AV_NLIN;
  double sum = 0.0;
  for (int m = 0; m < nl; ++m) sum += c[m] * phi[m];
  return sum;
}

/* 1 when ε vanishes identically on element e (all its eps_c are 0): its
 * viscous terms are skipped. */
DG_HD int av_element_inviscid(const dg_disc_view *d, int64_t e, const double *eps_c) {
  (void)d;
  const double *c = eps_c + e * DG_AV_NLIN;
  for (int m = 0; m < DG_AV_NLIN; ++m)
    if (c[m] != 0.0) return 0;
  return 1;
}

/* Mean ε over element e: eps_c[e][0] φ_0 (φ_0 = 1/sqrt|ref|); for output. */
DG_HD double av_element_mean_eps(const dg_disc_view *d, int64_t e, const double *eps_c) {
  return eps_c[e * DG_AV_NLIN] / sqrt(shape_ref_measure((dg_shape)d->elem_shape[e]));
}

/* Reference gradients of element e's coefficients Ue[v*nb + m] at volume
 * point q turned physical: gU[k*nv + v] = ∂U_v/∂x_k, for the leading nva
 * variables (nvar: all; the entries of the others are not written). */
DG_HD void av_volume_gradient(const dg_disc_view *d, int64_t e, int q, const double *Ue, int nva,
                              double *gU) {
  const int s = d->elem_shape[e], nb = d->nb[s], dim = d->dim, nv = d->nvar;
  int64_t vt, vp;
  disc_elem_rule(d, e, &vt, &vp);
  const double *dphi = d->vol_dphi + (vt + (int64_t)q * nb) * dim;
  const int64_t mk = d->elem_affine[e] ? d->metric_offset[e] : d->metric_offset[e] + q;
  const double *invJ = d->metric_invJ + mk * dim * dim;
  for (int v = 0; v < nva; ++v) {
    double gref[DG_MAX_DIM] = {0.0, 0.0, 0.0};
    for (int m = 0; m < nb; ++m)
      for (int i = 0; i < dim; ++i) gref[i] += dphi[m * dim + i] * Ue[v * nb + m];
    for (int k = 0; k < dim; ++k) {
      double sum = 0.0;
      for (int i = 0; i < dim; ++i) sum += gref[i] * invJ[i * dim + k];
      gU[k * nv + v] = sum;
    }
  }
}

/* out = M_e⁻¹ in for dim stacked local arrays [(k*nv + v)*nb + m], for the
 * leading nva variables of each (nvar: all, the same operations as
 * residual_apply_minv; the other entries of out are not written). */
DG_HD void av_apply_minv_dim(const dg_disc_view *d, int64_t e, const double *in, int nva,
                             double *out) {
  const int s = d->elem_shape[e], nb = d->nb[s], stride = d->nvar * nb;
  if (d->elem_affine[e]) {
    const double inv = 1.0 / d->metric_detJ[d->metric_offset[e]];
    for (int k = 0; k < d->dim; ++k)
      for (int i = 0; i < nva * nb; ++i) out[k * stride + i] = inv * in[k * stride + i];
    return;
  }
  const double *Mi = d->minv + d->minv_offset[e];
  for (int k = 0; k < d->dim; ++k)
    for (int v = 0; v < nva; ++v)
      for (int i = 0; i < nb; ++i) {
        const double *x = in + k * stride + v * nb;
        double sum = 0.0;
        for (int j = 0; j < nb; ++j) sum += Mi[i * nb + j] * x[j];
        out[k * stride + v * nb + i] = sum;
      }
}

/* G (written, element e's entries only) = projected gradient of U. */
DG_HD void av_element_gradient(const dg_disc_view *d, int64_t e, const double *U, double *G) {
  const int s = d->elem_shape[e], nb = d->nb[s], dim = d->dim, nv = d->nvar;
  int64_t vt, vp;
  const int nq = disc_elem_rule(d, e, &vt, &vp);
  double Ue[DG_MAX_NVAR * DG_MAX_BASIS], b[DG_MAX_DIM * DG_MAX_NVAR * DG_MAX_BASIS];
  double g[DG_MAX_DIM * DG_MAX_NVAR * DG_MAX_BASIS];
  residual_load(d, U, e, Ue);
  for (int i = 0; i < dim * nv * nb; ++i) b[i] = 0.0;
  for (int q = 0; q < nq; ++q) {
    const double *phi = d->vol_phi + vt + (int64_t)q * nb;
    const int64_t mk = d->elem_affine[e] ? d->metric_offset[e] : d->metric_offset[e] + q;
    const double wdetJ = d->vol_w[vp + q] * d->metric_detJ[mk];
    double gU[DG_MAX_DIM * DG_MAX_NVAR];
    av_volume_gradient(d, e, q, Ue, nv, gU);
    for (int k = 0; k < dim; ++k)
      for (int v = 0; v < nv; ++v) {
        const double w = wdetJ * gU[k * nv + v];
        for (int m = 0; m < nb; ++m) b[(k * nv + v) * nb + m] += w * phi[m];
      }
  }
  av_apply_minv_dim(d, e, b, nv, g);
  for (int k = 0; k < dim; ++k)
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nb; ++m)
        G[k * d->n_coefs + disc_coef_index(d, e, v, m)] = g[(k * nv + v) * nb + m];
}

/* Adds side `side` (0 or 1) of face f to a lifting right-hand side b of that
 * side's element K: b[(k*nv + v)*nb + m] += −½ Σ_q face_jump[q][v] n_k φ^K_m
 * (face_jump holds δU wsJ). */
DG_HD void av_lifting_rhs_add(const dg_disc_view *d, int64_t f, int side, const double *face_jump,
                              double *b) {
  const int64_t K = d->face_elem[2 * f + side];
  const int s = d->elem_shape[K], nb = d->nb[s], nv = d->nvar, dim = d->dim;
  const int lf = d->face_local[2 * f + side], o = side ? d->face_orient[f] : 0;
  for (int q = 0; q < d->nqf; ++q) {
    const int64_t k = f * d->nqf + q;
    const double *phi = d->face_phi + d->face_table[s][lf][o] + (int64_t)q * nb;
    const double *n = d->face_normal + k * dim;
    const double *jump = face_jump + k * nv;
    for (int c = 0; c < dim; ++c)
      for (int v = 0; v < nv; ++v) {
        const double w = -0.5 * jump[v] * n[c];
        for (int m = 0; m < nb; ++m) b[(c * nv + v) * nb + m] += w * phi[m];
      }
  }
}

/* BR2 lifting of face f on side `side`: r[(k*nv + v)*nb + m] (written) are
 * the coefficients of r_K (component k, variable v) in K's basis,
 * ∫_K r_K·τ dx = −½ ∫_f δU n·τ ds for every τ ∈ V_h(K)^dim. */
DG_HD void av_face_lifting(const dg_disc_view *d, int64_t f, int side, const double *face_jump,
                           double *r) {
  const int64_t K = d->face_elem[2 * f + side];
  const int n = d->dim * d->nvar * d->nb[d->elem_shape[K]];
  double b[DG_MAX_DIM * DG_MAX_NVAR * DG_MAX_BASIS];
  for (int i = 0; i < n; ++i) b[i] = 0.0;
  av_lifting_rhs_add(d, f, side, face_jump, b);
  av_apply_minv_dim(d, K, b, d->nvar, r);
}

/* 1 when face f carries the BR2 terms: every interior face, every boundary
 * face by default, and with view.av_wall_zero ([artificial_viscosity]
 * wall_flux = zero) not the slip walls and symmetry planes: there the
 * artificial viscosity then has no flux (ĥ·n = 0, nothing is diffused
 * through the wall) and no lifting (homogeneous Neumann for ∇·(ε∇U)). The
 * default, the ghost state as a BR2 neighbour with the interior gradient,
 * leaves ĥ·n = ε ∂U/∂n of the interior for ρ, ρE and the tangential
 * momentum without a symmetric counterpart, which is not dissipative: on a
 * strongly curved ONERA M6 leading-edge tetrahedron (min/max det J 0.074)
 * the implicit block had a positive real eigenvalue and p = 2 LU-SGS
 * diverged at CFL 126; with wall_flux = zero the block's rightmost
 * eigenvalue is −237 (docs/NUMERICS-av.md). */
DG_HD int av_face_viscous(const dg_disc_view *d, int64_t f) {
  if (d->face_elem[2 * f + 1] >= 0 || !d->av_wall_zero) return 1;
  const int bc = d->group_bc[d->face_group[f]];
  return bc != PHYSICS_BC_WALL && bc != PHYSICS_BC_SYMMETRY;
}

/* Point q of face f (k = f*nqf + q): face_flux[k*nvar + v] (written) =
 * H wsJ (H: Roe or Rusanov flux with the ghost states at time t; 0 when
 * with_convection is 0) and face_jump[k*nvar + v] (written) = δU wsJ.
 * U read. The first part of av_residual_face_terms, one point at a time. */
DG_HD void av_face_point_terms(const dg_disc_view *d, const dg_disc_state *st, int64_t f, int q,
                               const double *U, double t, int with_convection, double *face_flux,
                               double *face_jump) {
  const int nv = d->nvar, dim = d->dim;
  const int64_t k = f * d->nqf + q;
  double UL[DG_MAX_NVAR] = {0}, UR[DG_MAX_NVAR] = {0}, H[DG_MAX_NVAR] = {0};
  residual_trace(d, U, d->face_elem[2 * f], d->face_local[2 * f], 0, q, UL);
  residual_outer_state(d, st, U, f, q, UL, t, UR);
  const double *n = d->face_normal + k * dim;
  if (with_convection) {
    if (d->flux == DG_FACE_FLUX_RUSANOV)
      physics_rusanov_flux(dim, d->gamma, UL, UR, n, H);
    else
      physics_roe_flux(dim, d->gamma, UL, UR, n, PHYSICS_ROE_ENTROPY_FIX, H);
  }
  const double wsJ = d->face_wsJ[k];
  const double jw = av_face_viscous(d, f) ? wsJ : 0.0; /* no lifting at slip walls */
  for (int v = 0; v < nv; ++v) {
    face_flux[k * nv + v] = H[v] * wsJ;
    face_jump[k * nv + v] = (UL[v] - UR[v]) * jw;
  }
}

/* av_residual_face with the convective flux optional: with_convection = 0
 * leaves only the BR2 flux −ĥ·n wsJ in face_flux (pure diffusion ∇·(ε∇U),
 * for verification). */
DG_HD void av_residual_face_terms(const dg_disc_view *d, const dg_disc_state *st, int64_t f,
                                  const double *U, const double *G, const double *eps_c, double t,
                                  int with_convection, double *face_flux, double *face_jump) {
  const int nv = d->nvar, dim = d->dim, nqf = d->nqf;
  const int64_t e1 = d->face_elem[2 * f + 1];
  for (int q = 0; q < nqf; ++q)
    av_face_point_terms(d, st, f, q, U, t, with_convection, face_flux, face_jump);
  /* ĥ = ½ Σ_K ε_K (∇U_K + η_K r_K) (boundary: the L side only, weight 1),
   * one side at a time so only one lifting is held */
  if (!av_face_viscous(d, f)) return;
  const int n_sides = e1 >= 0 ? 2 : 1;
  const double weight = e1 >= 0 ? 0.5 : 1.0;
  for (int side = 0; side < n_sides; ++side) {
    const int64_t K = d->face_elem[2 * f + side];
    if (av_element_inviscid(d, K, eps_c)) continue;
    const int s = d->elem_shape[K], nb = d->nb[s];
    const int lf = d->face_local[2 * f + side], o = side ? d->face_orient[f] : 0;
    const double eta = d->br2_eta > 0.0 ? d->br2_eta : shape_n_faces((dg_shape)s) + 1.0;
    /* coefficients of ∇U_K + η_K r_K, then evaluated at the face points */
    double T[DG_MAX_DIM * DG_MAX_NVAR * DG_MAX_BASIS];
    av_face_lifting(d, f, side, face_jump, T);
    for (int c = 0; c < dim; ++c)
      for (int v = 0; v < nv; ++v)
        for (int m = 0; m < nb; ++m) {
          const int i = (c * nv + v) * nb + m;
          T[i] = G[c * d->n_coefs + disc_coef_index(d, K, v, m)] + eta * T[i];
        }
    for (int q = 0; q < nqf; ++q) {
      const int64_t k = f * nqf + q;
      const double *phi = d->face_phi + d->face_table[s][lf][o] + (int64_t)q * nb;
      const double *n = d->face_normal + k * dim;
      const double scale = weight * av_eps_at(d, K, eps_c, phi) * d->face_wsJ[k];
      for (int v = 0; v < nv; ++v) {
        double hn = 0.0;
        for (int c = 0; c < dim; ++c) {
          const double *Tc = T + (c * nv + v) * nb;
          double sum = 0.0;
          for (int m = 0; m < nb; ++m) sum += phi[m] * Tc[m];
          hn += n[c] * sum;
        }
        face_flux[k * nv + v] -= scale * hn;
      }
    }
  }
}

/* Face f: face_flux[k*nvar + v] = (H − ĥ·n) wsJ (H: residual_point_flux,
 * Roe/Rusanov + ghost states at time t, run-time state st) and
 * face_jump[k*nvar + v] = δU wsJ for every point k of f. U, G, eps_c read. */
DG_HD void av_residual_face(const dg_disc_view *d, const dg_disc_state *st, int64_t f,
                            const double *U, const double *G, const double *eps_c, double t,
                            double *face_flux, double *face_jump) {
  av_residual_face_terms(d, st, f, U, G, eps_c, t, 1, face_flux, face_jump);
}

/* out[v*nb + m] −= scale w detJ ε (∇a + Σ_f r_f)·∇φ_m at volume point q
 * of element e, for the leading nva variables: the lifted-gradient volume
 * term of the BR2 operator at one point. a: e's local coefficients
 * [v*nb + m] (NULL = 0); r: the summed liftings [(c*nvar + v)*nb + m]. The
 * residual (scale 1, a = U_e) and the LU-SGS Jacobian action (lusgs_av.h)
 * share it. */
DG_HD void av_volume_point_add(const dg_disc_view *d, int64_t e, int q, const double *eps_c,
                               const double *a, const double *r, double scale, int nva,
                               double *out) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, dim = d->dim;
  int64_t vt, vp;
  disc_elem_rule(d, e, &vt, &vp);
  const double *phi = d->vol_phi + vt + (int64_t)q * nb;
  const double *dphi = d->vol_dphi + (vt + (int64_t)q * nb) * dim;
  const int64_t mk = d->elem_affine[e] ? d->metric_offset[e] : d->metric_offset[e] + q;
  const double wdetJ = d->vol_w[vp + q] * d->metric_detJ[mk];
  const double *invJ = d->metric_invJ + mk * dim * dim;
  const double w = scale * wdetJ * av_eps_at(d, e, eps_c, phi);
  double gU[DG_MAX_DIM * DG_MAX_NVAR] = {0};
  if (a) av_volume_gradient(d, e, q, a, nva, gU);
  for (int c = 0; c < dim; ++c)
    for (int v = 0; v < nva; ++v) {
      double rl = 0.0;
      for (int m = 0; m < nb; ++m) rl += phi[m] * r[(c * nv + v) * nb + m];
      gU[c * nv + v] += rl;
    }
  /* ε (∇a + Σ r) in reference directions, times w detJ */
  double Fr[DG_MAX_DIM * DG_MAX_NVAR];
  for (int i = 0; i < dim; ++i)
    for (int v = 0; v < nva; ++v) {
      double sum = 0.0;
      for (int jj = 0; jj < dim; ++jj) sum += invJ[i * dim + jj] * gU[jj * nv + v];
      Fr[i * nv + v] = w * sum;
    }
  for (int m = 0; m < nb; ++m)
    for (int v = 0; v < nva; ++v) {
      double sum = 0.0;
      for (int i = 0; i < dim; ++i) sum += dphi[m * dim + i] * Fr[i * nv + v];
      out[v * nb + m] -= sum;
    }
}

/* av_residual_element with the convective volume term optional (see
 * av_residual_face_terms); the face gather is always done. */
DG_HD void av_residual_element_terms(const dg_disc_view *d, int64_t e, const double *U,
                                     const double *eps_c, const double *face_flux,
                                     const double *face_jump, int with_convection, double *R) {
  const int s = d->elem_shape[e], nb = d->nb[s], dim = d->dim, nv = d->nvar;
  int64_t vt, vp;
  const int nq = disc_elem_rule(d, e, &vt, &vp);
  const int nf = shape_n_faces((dg_shape)s);
  if (with_convection) {
    residual_element(d, e, U, face_flux, R);
  } else {
    double Re[DG_MAX_NVAR * DG_MAX_BASIS];
    for (int i = 0; i < nv * nb; ++i) Re[i] = 0.0;
    for (int lf = 0; lf < nf; ++lf) {
      const int64_t f = d->elem_face[e * DG_MAX_FACES + lf];
      const int side = (d->face_elem[2 * f] == e && d->face_local[2 * f] == lf) ? 0 : 1;
      const int o = side ? d->face_orient[f] : 0;
      const double sign = side ? 1.0 : -1.0;
      for (int q = 0; q < d->nqf; ++q) {
        const double *phi = d->face_phi + d->face_table[s][lf][o] + (int64_t)q * nb;
        const double *H = face_flux + (f * d->nqf + q) * nv;
        for (int v = 0; v < nv; ++v)
          for (int m = 0; m < nb; ++m) Re[v * nb + m] += sign * H[v] * phi[m];
      }
    }
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nb; ++m) R[disc_coef_index(d, e, v, m)] = Re[v * nb + m];
  }
  if (av_element_inviscid(d, e, eps_c)) return;

  /* Σ_f r_f,e = M⁻¹ Σ_f (lifting right-hand sides) */
  double Ue[DG_MAX_NVAR * DG_MAX_BASIS], Rv[DG_MAX_NVAR * DG_MAX_BASIS];
  double b[DG_MAX_DIM * DG_MAX_NVAR * DG_MAX_BASIS], r[DG_MAX_DIM * DG_MAX_NVAR * DG_MAX_BASIS];
  residual_load(d, U, e, Ue);
  for (int i = 0; i < dim * nv * nb; ++i) b[i] = 0.0;
  for (int i = 0; i < nv * nb; ++i) Rv[i] = 0.0;
  for (int lf = 0; lf < nf; ++lf) {
    const int64_t f = d->elem_face[e * DG_MAX_FACES + lf];
    const int side = (d->face_elem[2 * f] == e && d->face_local[2 * f] == lf) ? 0 : 1;
    av_lifting_rhs_add(d, f, side, face_jump, b);
  }
  av_apply_minv_dim(d, e, b, nv, r);

  for (int q = 0; q < nq; ++q) av_volume_point_add(d, e, q, eps_c, Ue, r, 1.0, nv, Rv);
  for (int v = 0; v < nv; ++v)
    for (int m = 0; m < nb; ++m) R[disc_coef_index(d, e, v, m)] += Rv[v * nb + m];
}

/* Element e: R (written, e's coefficients) = residual_element's convective
 * residual (face_flux gathered) plus −∫_e ε (∇U + Σ_f r_f,e)·∇φ_m dx, the
 * liftings r_f,e rebuilt from face_jump. U, eps_c, face_flux, face_jump read. */
DG_HD void av_residual_element(const dg_disc_view *d, int64_t e, const double *U,
                               const double *eps_c, const double *face_flux,
                               const double *face_jump, double *R) {
  av_residual_element_terms(d, e, U, eps_c, face_flux, face_jump, 1, R);
}

/* Largest ε of element e at its vertices (ε is linear in reference space,
 * so this is its maximum over the element), at least 0. */
DG_HD double av_element_max_eps(const dg_disc_view *d, int64_t e, const double *eps_c) {
  const int s = d->elem_shape[e];
  double most = 0.0;
  for (int i = 0; i < shape_n_verts((dg_shape)s); ++i) {
    double xi[3], phi[DG_MAX_BASIS];
    shape_vertex_ref((dg_shape)s, i, xi);
    basis_eval((dg_shape)s, 1, xi, phi);
    const double eps = av_eps_at(d, e, eps_c, phi);
    if (eps > most) most = eps;
  }
  return most;
}

/* Time step of element e with viscosity (docs/ARCHITECTURE.md §5 extended):
 *   Δt_e = CFL |Ω_e| / ((2p+1) Σ_f ∫(|u·n| + c) ds
 *                       + AV_DT_VISC_FACTOR η_e (p+1)⁴ ε̂_e |∂Ω_e|² / |Ω_e|)
 * with ε̂_e the largest ε of the element at its vertices (eps_c) and η_e the
 * BR2 penalty — reduces to residual_element_timestep when ε = 0 (the same
 * bits). The (p+1)⁴ η scaling follows the spectral radius of the BR2
 * operator; the earlier (2p+1)² weight let p = 3 blow up on the NACA0012
 * M 0.8 hybrid mesh within tens of iterations at CFL 1 (docs/NUMERICS-av.md). */
DG_HD double av_element_timestep(const dg_disc_view *d, int64_t e, const double *U,
                                 const double *eps_c, double cfl) {
  const int s = d->elem_shape[e];
  const int nf = shape_n_faces((dg_shape)s);
  double sum = 0.0, perimeter = 0.0;
  for (int lf = 0; lf < nf; ++lf) {
    const int64_t f = d->elem_face[e * DG_MAX_FACES + lf];
    const int side = (d->face_elem[2 * f] == e && d->face_local[2 * f] == lf) ? 0 : 1;
    const int o = side ? d->face_orient[f] : 0;
    for (int q = 0; q < d->nqf; ++q) {
      double Uq[DG_MAX_NVAR];
      residual_trace(d, U, e, lf, o, q, Uq);
      const int64_t k = f * d->nqf + q;
      sum += d->face_wsJ[k] *
             physics_max_wave_speed(d->dim, d->gamma, Uq, d->face_normal + k * d->dim);
      perimeter += d->face_wsJ[k];
    }
  }
  const double vol = d->elem_volume[e], order = 2.0 * d->p + 1.0;
  const double pp = (d->p + 1.0) * (d->p + 1.0);
  const double eta = d->br2_eta > 0.0 ? d->br2_eta : nf + 1.0;
  const double viscous = AV_DT_VISC_FACTOR * eta * pp * pp * av_element_max_eps(d, e, eps_c) *
                         perimeter * perimeter / vol;
  return cfl * vol / (order * sum + viscous);
}
