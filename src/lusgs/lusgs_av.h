#pragma once
/* The artificial-viscosity part of the implicit LU-SGS blocks
 * (docs/LUSGS_AV.md): the Jacobian of the BR2 viscous residual of
 * src/dg/av_ops.h with ε frozen (eps_c given, computed once from Uⁿ), one
 * source for the CPU loops and the CUDA kernels.
 *
 * With ε frozen, R^visc_e is
 *   R^visc_e,m = −∫_e ε_e (∇U_e + Σ_{f∋e} r_f,e)·∇φ_m dx + Σ_{f∋e} ∫_f σ ĥ_f·n φ_m ds,
 *   ĥ_f = ½ Σ_{K=L,R} ε_K (G_K + η_K r_f,K)  (boundary: ε_L (G_L + η_L r_f,L)),
 * σ = +1 when e is side 0 of f, −1 when side 1 (n is side 0's normal),
 * r_f,K the BR2 lifting of δU = U_L − U_R on side K, G_K the projected
 * gradient of U_K. It depends on U_e and on the face neighbours U_j only (a
 * compact stencil): on U_e through ∇U_e, G_e, every lifting of e's faces and
 * the liftings r_f,j of the neighbours (δU holds U_e's trace); on U_j
 * through G_j and the two liftings of the shared face only. It is linear on
 * interior faces; on a boundary face U_R = U_g(U_L) is the ghost state,
 * linearised here with physics_ghost_state_jacobian at U. Hence
 *   lusgs_av_block_add:   K −= ∂R^visc_e/∂U_e, exact (the ghost Jacobian is
 *                         analytic);
 *   lusgs_av_offdiag_add: out += Σ_j A^visc_ej ΔU_j = −Σ_j ∂R^visc_e/∂U_j ΔU_j,
 *                         exact (only interior faces couple elements).
 * What is not in them: ∂ε/∂U (sensor, mean-state speed and vertex
 * averaging), frozen at Uⁿ by design.
 *
 * Both evaluate the linearised residual matrix-free (lusgs_av_apply_add):
 * the direction field is a local array on e (block: one unit vector per
 * column) or the neighbours' ΔU (off-diagonal product), and the face terms of
 * each of e's faces are rebuilt from it: jump at the face points, the
 * liftings of both sides (one side at a time, as av_residual_face_terms),
 * the face flux of both sides and the lifted volume term. Local arrays:
 * ~1400 doubles (tet, p = 3, 3D; nvcc sm_90: 10.8 KB stack for the
 * product, 12.9 KB for the block). The block costs nb scalar evaluations
 * for an element without viscous boundary faces (I_nvar ⊗ S) and n = nvar·nb
 * full ones otherwise (assembly only); every evaluation computes only the
 * variables it needs (nva: 1 for the scalar ones).
 *
 * The pieces the GPU runs in parallel (src/kernels/lusgs_cuda.cu, TEAM):
 * lusgs_av_apply_add is lusgs_av_face_add per face then
 * lusgs_av_volume_add; lusgs_av_block_column is one column of the block
 * (lusgs_av_block_add is the loop over them, the same operations); and the
 * off-diagonal coupling, which only interior faces carry and which acts on
 * every variable alike, A^visc_ej = I_nvar ⊗ C_ej, is formed column by
 * column (lusgs_av_coupling_column, nb_e × nb_j per face) and applied entry
 * by entry (lusgs_av_coupling_entry): the same product as
 * lusgs_av_offdiag_add up to rounding (test_lusgs_av: ≤ 1e-12 relative).
 *
 * Layouts as lusgs_ops.h: local vectors x[v*nb + m], blocks row-major n×n;
 * lifting and gradient coefficients [(c*nvar + v)*nb + m] as av_ops.h. */
#include <stddef.h>
#include <stdint.h>

#include "dg/av_ops.h"
#include "dg/disc.h"
#include "dg/physics.h"
#include "dg/residual_ops.h"
#include "lusgs/lusgs_ops.h"

#define LUSGS_AV_MAX_VEC (DG_MAX_DIM * DG_MAX_NVAR * DG_MAX_BASIS) /* dim·nvar·nb */

/* g = M_e⁻¹ ∫_e ∇a φ dx (written, [(c*nv + v)*nb + m]): the projected
 * gradient of the local coefficients a[v*nb + m] of element e, as
 * av_element_gradient, for the leading nva variables (the entries of the
 * others are not written). b: scratch of dim·nvar·nb doubles. */
DG_HD void lusgs_av_gradient_local(const dg_disc_view *d, int64_t e, const double *a, int nva,
                                   double *b, double *g) {
  const int s = d->elem_shape[e], nb = d->nb[s], dim = d->dim, nv = d->nvar;
  int64_t vt, vp;
  const int nq = disc_elem_rule(d, e, &vt, &vp);
  for (int c = 0; c < dim; ++c)
    for (int i = 0; i < nva * nb; ++i) b[c * nv * nb + i] = 0.0;
  for (int q = 0; q < nq; ++q) {
    const double *phi = d->vol_phi + vt + (int64_t)q * nb;
    const int64_t mk = d->elem_affine[e] ? d->metric_offset[e] : d->metric_offset[e] + q;
    const double wdetJ = d->vol_w[vp + q] * d->metric_detJ[mk];
    double gU[DG_MAX_DIM * DG_MAX_NVAR];
    av_volume_gradient(d, e, q, a, nva, gU);
    for (int c = 0; c < dim; ++c)
      for (int v = 0; v < nva; ++v) {
        const double w = wdetJ * gU[c * nv + v];
        for (int m = 0; m < nb; ++m) b[(c * nv + v) * nb + m] += w * phi[m];
      }
  }
  av_apply_minv_dim(d, e, b, nva, g);
}

/* Value at face point q of the local coefficients a[v*nb + m] of element K
 * on its local face lf seen with orientation o (zeros when a is NULL), for
 * the leading nva variables. */
DG_HD void lusgs_av_trace_local(const dg_disc_view *d, int64_t K, int lf, int o, int q,
                                const double *a, int nva, double *out) {
  const int s = d->elem_shape[K], nb = d->nb[s];
  const double *phi = d->face_phi + d->face_table[s][lf][o] + (int64_t)q * nb;
  for (int v = 0; v < nva; ++v) {
    double sum = 0.0;
    if (a)
      for (int m = 0; m < nb; ++m) sum += phi[m] * a[v * nb + m];
    out[v] = sum;
  }
}

/* The linearised jump δ·wsJ (δ = U_L − U_R, written to jump[v]) at point q
 * of face f of element e (on side `side`, local face lf) for the direction
 * ae on e and aj on the other element j (local coefficients, NULL = 0), for
 * the leading nva variables on an interior face (all on a boundary face). On
 * a boundary face δ = (I − ∂U_g/∂U_L) ae's trace, the ghost Jacobian at the
 * state U (time t for exact boundary states); U is only read there. */
DG_HD void lusgs_av_point_jump(const dg_disc_view *d, const dg_disc_state *st, int64_t f, int q,
                               int64_t e, int lf, int side, const double *ae, const double *aj,
                               const double *U, double t, int nva, double *jump) {
  const int dim = d->dim;
  const int64_t k = f * d->nqf + q;
  const int64_t j = d->face_elem[2 * f + 1 - side];
  const int nv = j >= 0 ? nva : d->nvar;
  double te[DG_MAX_NVAR], tj[DG_MAX_NVAR];
  lusgs_av_trace_local(d, e, lf, side ? d->face_orient[f] : 0, q, ae, nv, te);
  if (j >= 0) {
    lusgs_av_trace_local(d, j, d->face_local[2 * f + 1 - side], side ? 0 : d->face_orient[f], q, aj,
                         nv, tj);
  } else {
    for (int v = 0; v < nv; ++v) tj[v] = 0.0;
    if (ae) {
      /* boundary face: e is side 0, U_R = U_g(U_L) linearised at U */
      const int g = d->face_group[f];
      const int bc = d->group_bc[g];
      physics_bc_data data;
      residual_boundary_data(d, st, g, k, t, &data);
      const double *n = d->face_normal + k * dim;
      double UL[DG_MAX_NVAR] = {0.0}, Ug[DG_MAX_NVAR], Gg[DG_MAX_NVAR * DG_MAX_NVAR];
      residual_trace(d, U, e, lf, 0, q, UL);
      physics_ghost_state_jacobian(dim, d->gamma, bc, &data, UL, n, Ug, Gg);
      for (int v = 0; v < nv; ++v) {
        double sum = 0.0;
        for (int w = 0; w < nv; ++w) sum += Gg[v * nv + w] * te[w];
        tj[v] = sum;
      }
    }
  }
  const double wsJ = d->face_wsJ[k];
  for (int v = 0; v < nv; ++v) jump[v] = (side ? tj[v] - te[v] : te[v] - tj[v]) * wsJ;
}

/* 1 when the viscous residual of element e vanishes identically (ε = 0 on
 * e and on every face neighbour; a boundary face's ghost side has e's ε):
 * its AV block and off-diagonal products are zero. */
DG_HD int lusgs_av_row_inviscid(const dg_disc_view *d, int64_t e, const double *eps_c) {
  if (!av_element_inviscid(d, e, eps_c)) return 0;
  const int nf = shape_n_faces((dg_shape)d->elem_shape[e]);
  for (int lf = 0; lf < nf; ++lf) {
    int side;
    const int64_t f = lusgs_face_side(d, e, lf, &side);
    const int64_t j = d->face_elem[2 * f + 1 - side];
    if (j >= 0 && !av_element_inviscid(d, j, eps_c)) return 0;
  }
  return 1;
}

/* The terms of face lf of element e in lusgs_av_apply_add (see there for
 * e, U, eps_c, t, ae, scale, nva, out): aj is the direction on the other
 * element j of the face (local coefficients, NULL = 0; ae when j is e), g
 * the projected gradient of whichever of ae (pass K = e) and aj (pass
 * K = j) is given (lusgs_av_gradient_local). Adds the face flux of both
 * sides to out and e's lifting right-hand side of this face to bsum
 * ([(c*nv + v)*nb + m], incremented). b, r: scratch of dim·nvar·nb doubles.
 * Callers skip faces where ae and aj are both NULL. */
DG_HD void lusgs_av_face_add(const dg_disc_view *d, const dg_disc_state *st, int64_t e, int lf,
                             const double *U, const double *eps_c, double t, const double *ae,
                             const double *aj, const double *g, double scale, int nva, double *b,
                             double *r, double *bsum, double *out) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, dim = d->dim;
  const int visc_e = !av_element_inviscid(d, e, eps_c);
  int side;
  const int64_t f = lusgs_face_side(d, e, lf, &side);
  const int64_t j = d->face_elem[2 * f + 1 - side];
  const int visc_j = j >= 0 && !av_element_inviscid(d, j, eps_c);
  const double weight = j >= 0 ? 0.5 : 1.0, sigma = side ? -1.0 : 1.0;
  const int o = side ? d->face_orient[f] : 0;
  if (!av_face_viscous(d, f)) return; /* slip wall, symmetry plane: no flux, no lifting */
  /* one side at a time (K = e, then K = j): lifting r_f,K, then the
   * face flux ε_K (G_K + η_K r_f,K)·n gathered into e's row */
  for (int pass = 0; pass < 2; ++pass) {
    if (pass ? !visc_j : !visc_e) continue;
    const int side_k = pass ? 1 - side : side;
    const int64_t K = d->face_elem[2 * f + side_k];
    const int sk = d->elem_shape[K], nbk = d->nb[sk];
    const int lfk = d->face_local[2 * f + side_k], ok = side_k ? d->face_orient[f] : 0;
    const double *gk = (pass ? aj : ae) ? g : NULL;
    for (int i = 0; i < dim * nv * nbk; ++i) b[i] = 0.0;
    for (int q = 0; q < d->nqf; ++q) {
      const int64_t k = f * d->nqf + q;
      const double *phik = d->face_phi + d->face_table[sk][lfk][ok] + (int64_t)q * nbk;
      const double *n = d->face_normal + k * dim;
      double jump[DG_MAX_NVAR];
      lusgs_av_point_jump(d, st, f, q, e, lf, side, ae, aj, U, t, nva, jump);
      for (int c = 0; c < dim; ++c)
        for (int v = 0; v < nva; ++v) {
          const double w = -0.5 * jump[v] * n[c];
          for (int m = 0; m < nbk; ++m) b[(c * nv + v) * nbk + m] += w * phik[m];
        }
    }
    if (!pass)
      for (int i = 0; i < dim * nv * nb; ++i) bsum[i] += b[i];
    av_apply_minv_dim(d, K, b, nva, r);
    const double eta = d->br2_eta > 0.0 ? d->br2_eta : shape_n_faces((dg_shape)sk) + 1.0;
    for (int q = 0; q < d->nqf; ++q) {
      const int64_t k = f * d->nqf + q;
      const double *phik = d->face_phi + d->face_table[sk][lfk][ok] + (int64_t)q * nbk;
      const double *phie = d->face_phi + d->face_table[s][lf][o] + (int64_t)q * nb;
      const double *n = d->face_normal + k * dim;
      const double w = scale * sigma * weight * av_eps_at(d, K, eps_c, phik) * d->face_wsJ[k];
      for (int v = 0; v < nva; ++v) {
        double hn = 0.0;
        for (int c = 0; c < dim; ++c) {
          const int i0 = (c * nv + v) * nbk;
          double sum = 0.0;
          for (int m = 0; m < nbk; ++m)
            sum += phik[m] * ((gk ? gk[i0 + m] : 0.0) + eta * r[i0 + m]);
          hn += n[c] * sum;
        }
        const double h = w * hn;
        for (int m = 0; m < nb; ++m) out[v * nb + m] += h * phie[m];
      }
    }
  }
}

/* The volume term −∫_e ε (∇ae + Σ_f r_f,e)·∇φ_m dx of lusgs_av_apply_add,
 * added to out (scaled): bsum holds e's lifting right-hand sides summed
 * over its faces (lusgs_av_face_add), ae the direction on e (NULL = 0).
 * r: scratch of dim·nvar·nb doubles. No-op when ε = 0 on e. */
DG_HD void lusgs_av_volume_add(const dg_disc_view *d, int64_t e, const double *eps_c,
                               const double *ae, const double *bsum, double scale, int nva,
                               double *r, double *out) {
  if (av_element_inviscid(d, e, eps_c)) return;
  int64_t vt, vp; /* the rule's tables: read by av_volume_point_add */
  const int nq = disc_elem_rule(d, e, &vt, &vp);
  av_apply_minv_dim(d, e, bsum, nva, r);
  for (int q = 0; q < nq; ++q) av_volume_point_add(d, e, q, eps_c, ae, r, scale, nva, out);
}

/* out[v*nb + m] += scale · (∂R^visc_e/∂U) δ: the linearised viscous
 * residual of element e (see the top of this file) in the direction δ that
 * is ae on e (local coefficients [v*nb + m], NULL = 0) and, on every face
 * neighbour j ≠ e selected by (color, which) as in lusgs_offdiag_add_jac,
 * dU_j (dU: state vector, NULL = 0). A face whose two sides are e
 * (periodic) sees ae on both. U (state, only read on boundary faces when ae
 * is given), t: ghost states. eps_c: [n_elems*DG_AV_NLIN], frozen. nva:
 * the leading variables computed (nvar; 1 for the scalar operator of an
 * element without boundary faces, where only the ghost Jacobian couples
 * variables and every variable sees the same operator). Face by face
 * (lusgs_av_face_add), then the volume term (lusgs_av_volume_add). */
DG_HD void lusgs_av_apply_add(const dg_disc_view *d, const dg_disc_state *st, int64_t e,
                              const double *U, const double *eps_c, double t, const double *ae,
                              const double *dU, const int32_t *color, int which, double scale,
                              int nva, double *out) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, dim = d->dim;
  const int nf = shape_n_faces((dg_shape)s);
  /* g: projected gradient of the direction on e (ae given) or on the
   * current neighbour j (off-diagonal product); bsum: e's lifting
   * right-hand sides summed over its faces */
  double g[LUSGS_AV_MAX_VEC], bsum[LUSGS_AV_MAX_VEC], b[LUSGS_AV_MAX_VEC], r[LUSGS_AV_MAX_VEC];
  double aj_local[DG_MAX_NVAR * DG_MAX_BASIS];
  if (ae) lusgs_av_gradient_local(d, e, ae, nva, b, g);
  for (int i = 0; i < dim * nv * nb; ++i) bsum[i] = 0.0;
  for (int lf = 0; lf < nf; ++lf) {
    int side;
    const int64_t f = lusgs_face_side(d, e, lf, &side);
    const int64_t j = d->face_elem[2 * f + 1 - side];
    const double *aj = NULL;
    if (j == e) {
      aj = ae;
    } else if (j >= 0 && dU && !ae) {
      const int32_t ce = color[e], cj = color[j];
      if (which == LUSGS_LOWER ? !(cj < ce) : (which == LUSGS_UPPER ? !(cj > ce) : 0)) continue;
      residual_load(d, dU, j, aj_local);
      lusgs_av_gradient_local(d, j, aj_local, nva, b, g);
      aj = aj_local;
    }
    if (!ae && !aj) continue;
    lusgs_av_face_add(d, st, e, lf, U, eps_c, t, ae, aj, g, scale, nva, b, r, bsum, out);
  }
  lusgs_av_volume_add(d, e, eps_c, ae, bsum, scale, nva, r, out);
}

/* 1 when element e has a boundary face that carries the BR2 terms
 * (av_face_viscous): there the ghost Jacobian couples the variables of its
 * AV block (lusgs_av_block_add). A face without them (a slip wall or
 * symmetry plane with wall_flux = zero) adds nothing to the block, which
 * then acts on every variable alike. */
DG_HD int lusgs_av_has_boundary(const dg_disc_view *d, int64_t e) {
  const int nf = shape_n_faces((dg_shape)d->elem_shape[e]);
  int boundary = 0;
  for (int lf = 0; lf < nf; ++lf) {
    int side;
    const int64_t f = lusgs_face_side(d, e, lf, &side);
    boundary |= d->face_elem[2 * f + 1 - side] < 0 && av_face_viscous(d, f);
  }
  return boundary;
}

/* Column c of lusgs_av_block_add (c < n with a boundary face, else
 * c < nb: column c of every variable's copy of the scalar block S):
 * K (n×n row-major, n = nvar·nb) −= that column of ∂R^visc_e/∂U_e, the
 * same operations as lusgs_av_block_add's loop. boundary:
 * lusgs_av_has_boundary(d, e). Call only for rows that are not inviscid. */
DG_HD void lusgs_av_block_column(const dg_disc_view *d, const dg_disc_state *st, int64_t e,
                                 const double *U, const double *eps_c, double t, int boundary,
                                 int c, double *K) {
  const int n = lusgs_block_size(d, e), nv = d->nvar, nb = n / nv;
  double a[LUSGS_MAX_BLOCK], col[LUSGS_MAX_BLOCK];
  for (int i = 0; i < n; ++i) a[i] = 0.0;
  for (int i = 0; i < n; ++i) col[i] = 0.0;
  a[c] = 1.0;
  lusgs_av_apply_add(d, st, e, U, eps_c, t, a, NULL, NULL, LUSGS_ALL, 1.0, boundary ? nv : 1, col);
  if (boundary) {
    for (int i = 0; i < n; ++i) K[(int64_t)i * n + c] -= col[i];
  } else {
    for (int v = 0; v < nv; ++v)
      for (int m = 0; m < nb; ++m) K[(int64_t)(v * nb + m) * n + v * nb + c] -= col[m];
  }
}

/* K −= ∂R^visc_e/∂U_e (n×n row-major, n = nvar·nb, incremented): the AV part
 * of D_e, exact for frozen ε, column by column (lusgs_av_block_column: a
 * unit vector on e through lusgs_av_apply_add). Without boundary faces the
 * block is I_nvar ⊗ S with one nb×nb scalar block S (nb columns of variable
 * 0); with one, the ghost Jacobian couples the variables and all n columns
 * are computed. U: state Uⁿ (boundary ghost Jacobians); eps_c: ε of Uⁿ
 * ([n_elems*DG_AV_NLIN]); t: time of exact boundary states. No-op when
 * d->av is DG_AV_OFF or the row is inviscid (lusgs_av_row_inviscid). */
DG_HD void lusgs_av_block_add(const dg_disc_view *d, const dg_disc_state *st, int64_t e,
                              const double *U, const double *eps_c, double t, double *K) {
  if (d->av == DG_AV_OFF || lusgs_av_row_inviscid(d, e, eps_c)) return;
  const int n = lusgs_block_size(d, e), nb = n / d->nvar;
  const int boundary = lusgs_av_has_boundary(d, e);
  const int n_cols = boundary ? n : nb;
  for (int c = 0; c < n_cols; ++c) lusgs_av_block_column(d, st, e, U, eps_c, t, boundary, c, K);
}

/* The viscous coupling of element e to the element j across its local
 * face lf, formed (the off-diagonal products apply it matrix-free,
 * lusgs_av_offdiag_add): only interior faces couple, and there the
 * linearised operator acts on each variable alike, so
 * A^visc_ej = −∂R^visc_e/∂U_j = I_nvar ⊗ C_ej with one nb_e × nb_j scalar
 * block C_ej. Column k of C_ej (the direction: mode k of variable 0 on j)
 * is written to col[m], m < nb_e; zeros when the face has no other element
 * (boundary, or j = e periodic: no off-diagonal coupling) or k >= nb_j. */
DG_HD void lusgs_av_coupling_column(const dg_disc_view *d, int64_t e, int lf, int k,
                                    const double *eps_c, double *col) {
  const int nb = d->nb[d->elem_shape[e]], nv = d->nvar, dim = d->dim;
  for (int m = 0; m < nb; ++m) col[m] = 0.0;
  int side;
  const int64_t f = lusgs_face_side(d, e, lf, &side);
  const int64_t j = d->face_elem[2 * f + 1 - side];
  if (j < 0 || j == e) return;
  const int nbj = d->nb[d->elem_shape[j]];
  if (k >= nbj) return;
  double g[LUSGS_AV_MAX_VEC], bsum[LUSGS_AV_MAX_VEC], b[LUSGS_AV_MAX_VEC], r[LUSGS_AV_MAX_VEC];
  double aj[DG_MAX_NVAR * DG_MAX_BASIS];
  for (int i = 0; i < nv * nbj; ++i) aj[i] = 0.0;
  aj[k] = 1.0;
  lusgs_av_gradient_local(d, j, aj, 1, b, g);
  for (int i = 0; i < dim * nv * nb; ++i) bsum[i] = 0.0;
  lusgs_av_face_add(d, NULL, e, lf, NULL, eps_c, 0.0, NULL, aj, g, -1.0, 1, b, r, bsum, col);
  lusgs_av_volume_add(d, e, eps_c, NULL, bsum, -1.0, 1, r, col);
}

/* Entry i = v*nb + m of Σ_j A^visc_ej ΔU_j over the neighbours selected by
 * `which` (as lusgs_av_offdiag_add, which computes the same sum matrix-free;
 * the two agree to rounding) from the formed couplings: C[lf*fstride +
 * k*nb + m] = C_ej of face lf, column-major (lusgs_av_coupling_column);
 * faces without a neighbour are not read. dU: state vector; color: [n_elems]. */
DG_HD double lusgs_av_coupling_entry(const dg_disc_view *d, int64_t e, const double *C,
                                     int64_t fstride, const double *dU, const int32_t *color,
                                     int which, int i) {
  const int nb = d->nb[d->elem_shape[e]], nf = shape_n_faces((dg_shape)d->elem_shape[e]);
  const int v = i / nb, m = i - v * nb;
  double sum = 0.0;
  for (int lf = 0; lf < nf; ++lf) {
    int side;
    const int64_t f = lusgs_face_side(d, e, lf, &side);
    const int64_t j = d->face_elem[2 * f + 1 - side];
    if (j < 0 || j == e) continue;
    const int32_t ce = color[e], cj = color[j];
    if (which == LUSGS_LOWER ? !(cj < ce) : (which == LUSGS_UPPER ? !(cj > ce) : 0)) continue;
    const int nbj = d->nb[d->elem_shape[j]];
    const double *Cf = C + lf * fstride;
    for (int k = 0; k < nbj; ++k) sum += Cf[(int64_t)k * nb + m] * dU[disc_coef_index(d, j, v, k)];
  }
  return sum;
}

/* out[v*nb + m] += Σ_j A^visc_ej ΔU_j = −Σ_j ∂R^visc_e/∂U_j ΔU_j over the
 * interior-face neighbours j ≠ e of e selected by `which` (LUSGS_LOWER,
 * LUSGS_UPPER, LUSGS_ALL by colour, as lusgs_offdiag_add_jac): exact for frozen
 * ε (linear in ΔU_j). dU: state vector (read on the selected neighbours);
 * color: [n_elems]; eps_c: ε of Uⁿ. No-op when d->av is DG_AV_OFF. */
DG_HD void lusgs_av_offdiag_add(const dg_disc_view *d, int64_t e, const double *dU,
                                const double *eps_c, const int32_t *color, int which, double *out) {
  if (d->av == DG_AV_OFF || lusgs_av_row_inviscid(d, e, eps_c)) return;
  lusgs_av_apply_add(d, NULL, e, NULL, eps_c, 0.0, NULL, dU, color, which, -1.0, d->nvar, out);
}

/* y_e += Σ_j A^visc_ej x_j over every interior-face neighbour (the viscous
 * couplings of the matrix-vector product, after lusgs_matvec_element_jac;
 * ε frozen at the last assemble). x, y: state vectors. No-op without
 * artificial viscosity or on an inviscid row. */
DG_HD void lusgs_av_matvec_element_add(const dg_disc_view *d, int64_t e, const double *x,
                                       const double *eps_c, const int32_t *color, double *y) {
  if (d->av == DG_AV_OFF || lusgs_av_row_inviscid(d, e, eps_c)) return;
  const int nb = d->nb[d->elem_shape[e]];
  double acc[LUSGS_MAX_BLOCK];
  for (int i = 0; i < d->nvar * nb; ++i) acc[i] = 0.0;
  lusgs_av_offdiag_add(d, e, x, eps_c, color, LUSGS_ALL, acc);
  for (int v = 0; v < d->nvar; ++v)
    for (int m = 0; m < nb; ++m) y[disc_coef_index(d, e, v, m)] += acc[v * nb + m];
}
