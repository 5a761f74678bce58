#pragma once
/* Team arithmetic of the tuned CUDA LU-SGS kernels (src/kernels/lusgs_cuda.cu):
 * the block assembly and the LU factorisation of src/lusgs/lusgs_ops.h cut
 * into phases whose tasks run on the threads of one team (a thread block per
 * element), with a barrier between phases. Every task is a DG_HD function,
 * so a host loop over the tasks of each phase reproduces the kernel
 * (tests/unit/test_lusgs_gpu.c does, without a GPU). Each entry is computed
 * with the same operations in the same order as the per-thread functions
 * lusgs_block_assemble_jac and lusgs_lu_factor, so on the host the results
 * are bitwise identical to theirs.
 *
 * Assembly of D_e (n = nvar·nb, shared memory of lusgs_team_assemble_doubles):
 *   phase 1, tasks (q, i) < nq·dim and (lf, q) < nf·nqf:
 *     B[(q·dim + i)·nv² + a] = ∂F/∂U along w detJ (dξ_i/dx) at volume point q
 *     (lusgs_team_volume_task), and per face point the stored flux Jacobian
 *     of the element's side J[(lf·nqf + q)·nv² + a], its signed wsJ and the
 *     face orientation code (lusgs_team_face_task);
 *   phase 2, tasks r·n + c < n²: K[r·n + c] = lusgs_team_entry (mass, minus
 *     the volume sum over q, plus the face sum over (lf, q)), written
 *     straight to the element's row-major block (coalesced).
 * LU with partial pivoting of A (n×n in shared memory), for k = 0..n−1:
 *   lusgs_team_lu_pivot_lane (lanes l < L), lusgs_team_lu_pivot_select (one
 *   thread), lusgs_team_lu_swap, lusgs_team_lu_multipliers,
 *   lusgs_team_lu_update (threads t < T), a barrier after each. */
#include <stdint.h>
#include <string.h>

#include "lusgs/lusgs_ops.h"

/* Loop unrolling in the device pass of the DG_HD bodies that the warp
 * inverse keeps in registers (the host compiler rejects the pragma under
 * -Werror). */
#ifdef __CUDA_ARCH__
#define LUSGS_UNROLL _Pragma("unroll")
#else
#define LUSGS_UNROLL
#endif

/* Doubles of shared memory one element of shape s needs in the team
 * assembly: volume Jacobians (nq·dim·nvar²), face Jacobians (nf·nqf·nvar²),
 * signed face wsJ (nf·nqf) and orientation codes (nf). */
DG_HD int64_t lusgs_team_assemble_doubles(const dg_disc_view *d, int s) {
  const int64_t nv2 = (int64_t)d->nvar * d->nvar, nf = shape_n_faces((dg_shape)s);
  return (int64_t)disc_shape_max_points(d, s) * d->dim * nv2 + nf * d->nqf * (nv2 + 1) + nf;
}

/* Offsets of the face Jacobians, face wsJ and orientation codes in the
 * shared array (the volume Jacobians start at 0). */
DG_HD int64_t lusgs_team_face_offset(const dg_disc_view *d, int s) {
  return (int64_t)disc_shape_max_points(d, s) * d->dim * d->nvar * d->nvar;
}
DG_HD int64_t lusgs_team_wsj_offset(const dg_disc_view *d, int s) {
  return lusgs_team_face_offset(d, s) +
         (int64_t)shape_n_faces((dg_shape)s) * d->nqf * d->nvar * d->nvar;
}
DG_HD int64_t lusgs_team_orient_offset(const dg_disc_view *d, int s) {
  return lusgs_team_wsj_offset(d, s) + (int64_t)shape_n_faces((dg_shape)s) * d->nqf;
}

/* Phase-1 volume task (q, i) of element e: the state at volume point q from
 * the coefficients (U, state vector) and B_q,i = physics_flux_jacobian along
 * row i of w detJ invJ, into shared[(q·dim + i)·nv² ...]
 * (lusgs_block_add_volume's B[i] at point q). */
DG_HD void lusgs_team_volume_task(const dg_disc_view *d, int64_t e, const double *U, int q, int i,
                                  double *shared) {
  const int s = d->elem_shape[e], nb = d->nb[s], dim = d->dim, nv = d->nvar;
  const int64_t m0 = d->metric_offset[e];
  int64_t vt, vp; /* the element's rule (q below its point count) */
  (void)disc_elem_rule(d, e, &vt, &vp);
  const double *phi = d->vol_phi + vt + (int64_t)q * nb;
  double Uq[DG_MAX_NVAR];
  for (int v = 0; v < nv; ++v) {
    double sum = 0.0;
    for (int m = 0; m < nb; ++m) sum += phi[m] * U[disc_coef_index(d, e, v, m)];
    Uq[v] = sum;
  }
  const int64_t mk = d->elem_affine[e] ? m0 : m0 + q;
  const double wdetJ = d->vol_w[vp + q] * d->metric_detJ[mk];
  const double *invJ = d->metric_invJ + mk * dim * dim;
  double dir[DG_MAX_DIM] = {0.0, 0.0, 0.0};
  for (int j = 0; j < dim; ++j) dir[j] = wdetJ * invJ[i * dim + j];
  physics_flux_jacobian(dim, d->gamma, Uq, dir, shared + ((int64_t)q * dim + i) * nv * nv);
}

/* Phase-1 face task (lf, q) of element e: the stored flux Jacobian of e's
 * side at that face point (face_jac, lusgs_face_jacobians' layout), the
 * signed wsJ (σ wsJ, σ = −1 on side 1) and, for q = 0, the orientation code
 * of e's side, into shared. */
DG_HD void lusgs_team_face_task(const dg_disc_view *d, int64_t e, const double *face_jac, int lf,
                                int q, double *shared) {
  const int s = d->elem_shape[e], nv = d->nvar;
  int side;
  const int64_t f = lusgs_face_side(d, e, lf, &side);
  const int64_t k = f * d->nqf + q, point = (int64_t)lf * d->nqf + q;
  const double *J = face_jac + (k * 2 + side) * nv * nv;
  double *Js = shared + lusgs_team_face_offset(d, s) + point * nv * nv;
  for (int a = 0; a < nv * nv; ++a) Js[a] = J[a];
  shared[lusgs_team_wsj_offset(d, s) + point] = (side ? -1.0 : 1.0) * d->face_wsJ[k];
  if (q == 0) shared[lusgs_team_orient_offset(d, s) + lf] = side ? d->face_orient[f] : 0;
}

/* Phase 1 of element e on thread t of T: its volume tasks (q, i) and face
 * tasks (lf, q), every T-th from t. */
DG_HD void lusgs_team_points(const dg_disc_view *d, int64_t e, const double *U,
                             const double *face_jac, double *shared, int t, int T) {
  int64_t vt, vp;
  const int nq = disc_elem_rule(d, e, &vt, &vp), dim = d->dim, nqf = d->nqf;
  const int n_vol = nq * dim, n_tasks = n_vol + shape_n_faces((dg_shape)d->elem_shape[e]) * nqf;
  for (int task = t; task < n_tasks; task += T) {
    if (task < n_vol)
      lusgs_team_volume_task(d, e, U, task / dim, task % dim, shared);
    else
      lusgs_team_face_task(d, e, face_jac, (task - n_vol) / nqf, (task - n_vol) % nqf, shared);
  }
}

/* Phase-2 task: entry (r, c) of D_e = M_e/Δt_e − ∂R_e/∂U_e from the phase-1
 * data in shared (scale = 1/Δt_e). Same terms, same order as
 * lusgs_block_assemble_jac accumulates into K[r·n + c]. */
DG_HD double lusgs_team_entry(const dg_disc_view *d, int64_t e, double scale, const double *shared,
                              int r, int c) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, dim = d->dim;
  int64_t vt, vp; /* the element's rule: the shape's for curved elements */
  const int nq = disc_elem_rule(d, e, &vt, &vp);
  const int v = r / nb, m = r - v * nb, w = c / nb, k = c - w * nb;
  const int64_t m0 = d->metric_offset[e];
  double K = 0.0;
  if (d->elem_affine[e]) {
    if (r == c) K = scale * d->metric_detJ[m0];
  } else if (v == w) {
    for (int q = 0; q < nq; ++q) {
      const double *phi = d->vol_phi + vt + (int64_t)q * nb;
      const double wq = scale * d->vol_w[vp + q] * d->metric_detJ[m0 + q];
      K += wq * phi[m] * phi[k];
    }
  }
  const int a = v * nv + w;
  for (int q = 0; q < nq; ++q) {
    const double *phi = d->vol_phi + vt + (int64_t)q * nb;
    const double *dphi = d->vol_dphi + (vt + (int64_t)q * nb) * dim;
    double C = 0.0;
    for (int i = 0; i < dim; ++i)
      C += dphi[m * dim + i] * shared[((int64_t)q * dim + i) * nv * nv + a];
    K -= C * phi[k];
  }
  const double *J = shared + lusgs_team_face_offset(d, s);
  const double *wsJ = shared + lusgs_team_wsj_offset(d, s);
  const double *orient = shared + lusgs_team_orient_offset(d, s);
  const int nf = shape_n_faces((dg_shape)s);
  for (int lf = 0; lf < nf; ++lf) {
    const int o = (int)orient[lf];
    for (int q = 0; q < d->nqf; ++q) {
      const int64_t point = (int64_t)lf * d->nqf + q;
      const double *phi = d->face_phi + d->face_table[s][lf][o] + (int64_t)q * nb;
      const double wm = wsJ[point] * phi[m];
      const double cw = wm * J[point * nv * nv + a];
      K += cw * phi[k];
    }
  }
  return K;
}

/* Part of row r of D_e: the columns of the variables w0 .. w0 + nw − 1,
 * K[j·nb + k] = lusgs_team_entry(d, e, scale, shared, r, (w0 + j)·nb + k),
 * each entry by the same operations in the same order (mass over q, then
 * the volume terms over q, then the face points), so the bits are the
 * same. Each volume point's C = Σ_i ∂φ_m/∂ξ_i B_q,i is formed once per
 * variable pair and used for all nb columns k (the entry form forms it per
 * column). dim, nv, nb, nw are the view's and the caller's, passed so that
 * the kernels can give them as constants (K then stays in registers: every
 * index into K is known after unrolling). */
DG_HD void lusgs_team_row_cols(const dg_disc_view *d, int64_t e, double scale, const double *shared,
                               int r, int w0, int nw, int dim, int nv, int nb, double *K) {
  const int s = d->elem_shape[e];
  int64_t vt, vp; /* the element's rule: the shape's for curved elements */
  const int nq = disc_elem_rule(d, e, &vt, &vp);
  const int v = r / nb, m = r - v * nb;
  const int64_t m0 = d->metric_offset[e];
  LUSGS_UNROLL
  for (int c = 0; c < nw * nb; ++c) K[c] = 0.0;
  if (d->elem_affine[e]) {
    const double diag = scale * d->metric_detJ[m0];
    LUSGS_UNROLL
    for (int c = 0; c < nw * nb; ++c)
      if (w0 * nb + c == r) K[c] = diag;
  } else {
    for (int q = 0; q < nq; ++q) {
      const double *phi = d->vol_phi + vt + (int64_t)q * nb;
      const double wq = scale * d->vol_w[vp + q] * d->metric_detJ[m0 + q];
      LUSGS_UNROLL
      for (int j = 0; j < nw; ++j)
        if (w0 + j == v) {
          LUSGS_UNROLL
          for (int k = 0; k < nb; ++k) K[j * nb + k] += wq * phi[m] * phi[k];
        }
    }
  }
  for (int q = 0; q < nq; ++q) {
    const double *phi = d->vol_phi + vt + (int64_t)q * nb;
    const double *dphi = d->vol_dphi + (vt + (int64_t)q * nb) * dim;
    LUSGS_UNROLL
    for (int j = 0; j < nw; ++j) {
      const int a = v * nv + w0 + j;
      double C = 0.0;
      LUSGS_UNROLL
      for (int i = 0; i < dim; ++i)
        C += dphi[m * dim + i] * shared[((int64_t)q * dim + i) * nv * nv + a];
      LUSGS_UNROLL
      for (int k = 0; k < nb; ++k) K[j * nb + k] -= C * phi[k];
    }
  }
  const double *J = shared + lusgs_team_face_offset(d, s);
  const double *wsJ = shared + lusgs_team_wsj_offset(d, s);
  const double *orient = shared + lusgs_team_orient_offset(d, s);
  const int nf = shape_n_faces((dg_shape)s);
  for (int lf = 0; lf < nf; ++lf) {
    const int o = (int)orient[lf];
    for (int q = 0; q < d->nqf; ++q) {
      const int64_t point = (int64_t)lf * d->nqf + q;
      const double *phi = d->face_phi + d->face_table[s][lf][o] + (int64_t)q * nb;
      const double wm = wsJ[point] * phi[m];
      LUSGS_UNROLL
      for (int j = 0; j < nw; ++j) {
        const double cw = wm * J[point * nv * nv + v * nv + w0 + j];
        LUSGS_UNROLL
        for (int k = 0; k < nb; ++k) K[j * nb + k] += cw * phi[k];
      }
    }
  }
}

/* Row r of D_e into K[0..n), n = nv·nb: lusgs_team_row_cols over every
 * variable (the warp inverse's fused assembly). */
DG_HD void lusgs_team_row(const dg_disc_view *d, int64_t e, double scale, const double *shared,
                          int r, int dim, int nv, int nb, double *K) {
  lusgs_team_row_cols(d, e, scale, shared, r, 0, nv, dim, nv, nb, K);
}

/* LU step k, pivot search of lane `lane` of `lanes`: among the rows
 * i = k + lane, k + lane + lanes, ... the first with the largest |A[i][k]|
 * (NaN never chosen) into best[lane], idx[lane] (n and −1 when none). */
DG_HD void lusgs_team_lu_pivot_lane(int n, const double *A, int k, int lane, int lanes,
                                    double *best, int *idx) {
  double b = -1.0;
  int p = n;
  for (int i = k + lane; i < n; i += lanes) {
    const double a = fabs(A[(int64_t)i * n + k]);
    if (a > b) {
      b = a;
      p = i;
    }
  }
  best[lane] = b;
  idx[lane] = p;
}

/* LU step k, one thread: the pivot row lusgs_lu_factor picks (the first row
 * of largest |A[i][k]|, i >= k; k itself when |A[k][k]| is NaN) from the
 * lanes' candidates. *ok = 0 when the pivot is zero or not finite. */
DG_HD int lusgs_team_lu_pivot_select(int n, const double *A, int k, int lanes, const double *best,
                                     const int *idx, int *ok) {
  double b = -1.0;
  int p = n;
  for (int l = 0; l < lanes; ++l)
    if (best[l] > b || (best[l] == b && idx[l] < p)) {
      b = best[l];
      p = idx[l];
    }
  const double diag = fabs(A[(int64_t)k * n + k]);
  if (p >= n || diag != diag) p = k;
  const double pivot = fabs(A[(int64_t)p * n + k]);
  *ok = pivot > 0.0 && pivot < INFINITY;
  return p;
}

/* LU step k, thread t of T: swaps rows k and p (p != k). */
DG_HD void lusgs_team_lu_swap(int n, double *A, int k, int p, int t, int T) {
  if (p == k) return;
  for (int j = t; j < n; j += T) {
    const double tmp = A[(int64_t)k * n + j];
    A[(int64_t)k * n + j] = A[(int64_t)p * n + j];
    A[(int64_t)p * n + j] = tmp;
  }
}

/* LU step k, thread t of T: multipliers A[i][k] = A[i][k] / A[k][k], i > k
 * (lusgs_lu_factor's product with the reciprocal). */
DG_HD void lusgs_team_lu_multipliers(int n, double *A, int k, int t, int T) {
  const double inv = 1.0 / A[(int64_t)k * n + k];
  for (int i = k + 1 + t; i < n; i += T) A[(int64_t)i * n + k] *= inv;
}

/* LU step k, thread t of T: A[i][j] −= A[i][k]·A[k][j] for i, j > k
 * (rows with a zero multiplier are left alone, as in lusgs_lu_factor). */
DG_HD void lusgs_team_lu_update(int n, double *A, int k, int t, int T) {
  const int w = n - k - 1;
  for (int idx = t; idx < w * w; idx += T) {
    const int i = k + 1 + idx / w, j = k + 1 + idx % w;
    const double l = A[(int64_t)i * n + k];
    if (l == 0.0) continue;
    A[(int64_t)i * n + j] -= l * A[(int64_t)k * n + j];
  }
}

/* ------------------------------------------------------------------------
 * Team sweeps: one warp per element of a colour (the colour groups are a
 * few thousand elements, too few for one thread each). Shared memory per
 * element (lusgs_team_sweep_doubles): h[(lf·nqf + q)·nv + v] the face-point
 * products, meta[2 lf] (1: neighbour taken) and meta[2 lf + 1] (orientation
 * code), b[n] the right-hand side, y[n] the solution.
 *   phase 1, tasks (lf, q) < nf·nqf: lusgs_team_offdiag_task;
 *   phase 2, tasks r < n: a_r = lusgs_team_offdiag_entry, b_r = R_r − a_r
 *     (forward, relaxation) or a_r (backward);
 *   phase 3, the LU solve of b (lusgs_team_solve_*: the permutation by one
 *     thread, then n forward and n backward column steps), or y = D⁻¹ b
 *     with a stored inverse;
 *   phase 4, dU_e = y (forward, relaxation) or dU_e −= y (backward).
 * Same products and sums as lusgs_offdiag_add_jac and the forward
 * substitution of lusgs_lu_solve in the same order; the backward
 * substitution subtracts the columns in descending order (lusgs_lu_solve:
 * ascending), so results agree with the per-thread sweeps to rounding. */

/* Doubles of shared memory one element of shape s needs in a team sweep. */
DG_HD int64_t lusgs_team_sweep_doubles(const dg_disc_view *d, int s) {
  const int64_t nf = shape_n_faces((dg_shape)s), n = (int64_t)d->nvar * d->nb[s];
  return nf * d->nqf * d->nvar + 2 * nf + 2 * n;
}

/* Phase-1 task (lf, q) of element e: when the face neighbour j across lf is
 * taken by `which` (LUSGS_LOWER, _UPPER, _ALL; never a boundary or e
 * itself), h[(lf·nqf + q)·nv + v] = σ wsJ Σ_w J_{1−s}[v][w] ΔU_j,w (ΔU_j's
 * trace at the point, dU read); meta as above (written by q = 0). */
DG_HD void lusgs_team_offdiag_task(const dg_disc_view *d, int64_t e, const double *dU,
                                   const double *face_jac, const int32_t *color, int which, int lf,
                                   int q, double *h, double *meta) {
  const int nv = d->nvar;
  int side;
  const int64_t f = lusgs_face_side(d, e, lf, &side);
  const int64_t j = d->face_elem[2 * f + (1 - side)];
  int taken = j >= 0 && j != e;
  if (taken) {
    const int32_t cj = color[j], ce = color[e];
    taken = which == LUSGS_LOWER ? cj < ce : (which == LUSGS_UPPER ? cj > ce : 1);
  }
  if (q == 0) {
    meta[2 * lf] = taken ? 1.0 : 0.0;
    meta[2 * lf + 1] = side ? d->face_orient[f] : 0;
  }
  if (!taken) return;
  const int lfj = d->face_local[2 * f + (1 - side)];
  const int oj = side ? 0 : d->face_orient[f];
  const int64_t k = f * d->nqf + q;
  double dUj[DG_MAX_NVAR];
  residual_trace(d, dU, j, lfj, oj, q, dUj);
  const double *J = face_jac + (k * 2 + (1 - side)) * nv * nv;
  const double wsJ = (side ? -1.0 : 1.0) * d->face_wsJ[k];
  double *hp = h + ((int64_t)lf * d->nqf + q) * nv;
  for (int v = 0; v < nv; ++v) {
    double sum = 0.0;
    for (int w = 0; w < nv; ++w) sum += J[v * nv + w] * dUj[w];
    hp[v] = wsJ * sum;
  }
}

/* Phase-2 task r = v·nb + m: Σ over the taken faces and their points of
 * h·φ_m (lusgs_offdiag_add_jac's out[r], same order). */
DG_HD double lusgs_team_offdiag_entry(const dg_disc_view *d, int64_t e, const double *h,
                                      const double *meta, int r) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar;
  const int v = r / nb, m = r - v * nb;
  double out = 0.0;
  for (int lf = 0; lf < shape_n_faces((dg_shape)s); ++lf) {
    if (meta[2 * lf] == 0.0) continue;
    const int o = (int)meta[2 * lf + 1];
    for (int q = 0; q < d->nqf; ++q) {
      const double *phi = d->face_phi + d->face_table[s][lf][o] + (int64_t)q * nb;
      out += h[((int64_t)lf * d->nqf + q) * nv + v] * phi[m];
    }
  }
  return out;
}

/* Phase 3, one thread: the row swaps of lusgs_lu_solve. */
DG_HD void lusgs_team_solve_permute(int n, const int32_t *piv, double *b) {
  for (int k = 0; k < n; ++k) {
    const int p = piv[k];
    if (p != k) {
      const double tmp = b[k];
      b[k] = b[p];
      b[p] = tmp;
    }
  }
}

/* Row r of D⁻¹ into y[0..n) from the LU factors of lusgs_lu_factor (A,
 * row-major, P D = L U with P the row swaps (k, piv[k]) applied for
 * k = 0, 1, ...): e_rᵀ D⁻¹ = e_rᵀ U⁻¹ L⁻¹ P, so Uᵀ z = e_r (forward), Lᵀ w = z
 * (backward, unit diagonal) and y = Pᵀ w (the swaps in reverse order).
 * Reads A column-wise: the team threads (one row each) read the same entry
 * at each step (a shared-memory broadcast in lusgs_factor_team_kernel). */
DG_HD void lusgs_team_inverse_row(int n, const double *A, const int32_t *piv, int r, double *y) {
  for (int i = 0; i < r; ++i) y[i] = 0.0;
  for (int i = r; i < n; ++i) {
    double sum = i == r ? 1.0 : 0.0;
    for (int j = r; j < i; ++j) sum -= A[(int64_t)j * n + i] * y[j];
    y[i] = sum / A[(int64_t)i * n + i];
  }
  for (int i = n - 2; i >= 0; --i) {
    double sum = y[i];
    for (int j = i + 1; j < n; ++j) sum -= A[(int64_t)j * n + i] * y[j];
    y[i] = sum;
  }
  lusgs_lu_unpermute(n, piv, y); /* yᵀ = wᵀ P */
}

/* Forward-substitution column step j (thread t of T): b[i] −= L[i][j] b[j],
 * i > j (A: the LU factors). */
DG_HD void lusgs_team_solve_lower(int n, const double *A, int j, double *b, int t, int T) {
  const double bj = b[j];
  for (int i = j + 1 + t; i < n; i += T) b[i] -= A[(int64_t)i * n + j] * bj;
}

/* Backward-substitution column step j (descending; thread t of T):
 * y[j] = b[j] / U[j][j] (written by t = j mod T), b[i] −= U[i][j] y[j], i < j. */
DG_HD void lusgs_team_solve_upper(int n, const double *A, int j, double *b, double *y, int t,
                                  int T) {
  const double yj = b[j] / A[(int64_t)j * n + j];
  if (j % T == t) y[j] = yj;
  for (int i = t; i < j; i += T) b[i] -= A[(int64_t)i * n + j] * yj;
}

/* ------------------------------------------------------------------------
 * Warp inverse (the WARP_INVERSE factorisation, lusgs_warp_inverse_kernel
 * in lusgs_cuda.cu): one warp per element, lane l holding rows l, l + 32,
 * ... of D_e in registers (n ≤ LUSGS_GJ_MAX_N), D_e⁻¹ by Gauss–Jordan
 * elimination in place with partial pivoting, the rows never moved. Step
 * k = 0..n−1:
 *   every row not yet a pivot offers lusgs_gj_key(D[r][k], r); the largest
 *   key of the warp names the pivot row p (its magnitude to 2⁻¹⁴, ties to
 *   the lowest row); none above zero: the block is singular at step k;
 *   row p becomes lusgs_gj_pivot (scaled by 1/D[p][k], which lands in
 *   column k) and is copied to a buffer the warp reads; a pivot that is
 *   zero or not finite (lusgs_gj_pivot_ok of the buffer's entry k) stops
 *   at step k;
 *   every other row: lusgs_gj_eliminate with that buffer.
 * Column k, freed by step k, takes column p_k of the inverse, so after the
 * n steps the row that was pivot at step m holds row m of D⁻¹ with
 * D⁻¹[m][p_k] at position k. lusgs_gj_invert runs the same steps row after
 * row (the host reference; same operations, same bits). */
#define LUSGS_GJ_MAX_N 64 /* the key's 6 row bits */

/* The pivot key of row r (r < 64) at a step: the high 32 bits of |x|'s
 * IEEE pattern with the 6 lowest cleared, then 63 − r (a NaN or an
 * infinity outranks every number: it is chosen and stops the step). */
DG_HD uint32_t lusgs_gj_key(double x, int r) {
  const double ax = fabs(x);
  uint64_t bits;
  memcpy(&bits, &ax, sizeof bits);
  return ((uint32_t)(bits >> 32) & ~(uint32_t)63) | (uint32_t)(63 - r);
}

/* Whether the largest key of a step names a pivot (a nonzero candidate). */
DG_HD int lusgs_gj_key_ok(uint32_t key) { return (key >> 6) != 0; }

/* The row a key names. */
DG_HD int lusgs_gj_key_row(uint32_t key) { return 63 - (int)(key & 63); }

/* Step k, the pivot row (n entries, in place) and its copy buf: entry
 * c != k times inv = 1/row[k], entry k = inv. */
DG_HD void lusgs_gj_pivot(int n, double *row, int k, double *buf) {
  const double inv = 1.0 / row[k];
  LUSGS_UNROLL
  for (int c = 0; c < n; ++c) {
    const double x = c == k ? inv : row[c] * inv;
    buf[c] = x;
    row[c] = x;
  }
}

/* Whether the pivot step succeeded: inv (buf[k]) nonzero and finite. */
DG_HD int lusgs_gj_pivot_ok(double inv) {
  const double a = fabs(inv);
  return a > 0.0 && a < INFINITY;
}

/* Step k, any other row (in place): with f = row[k], entry c != k
 * −= f·buf[c] (one fused multiply-add), entry k = −f·buf[k]. */
DG_HD void lusgs_gj_eliminate(int n, double *row, int k, const double *buf) {
  const double f = row[k];
  LUSGS_UNROLL
  for (int c = 0; c < n; ++c) row[c] = c == k ? -f * buf[k] : fma(-f, buf[c], row[c]);
}

/* The team Gauss–Jordan inverse (lusgs_gj_team_kernel, blocks of up to
 * LUSGS_GJT_MAX_N rows that a warp cannot hold): the warp inverse's steps
 * with a pivot key of 7 row bits, its magnitude to 2⁻¹³ (ties to the
 * lowest row). */
#define LUSGS_GJT_MAX_N 128
DG_HD uint32_t lusgs_gjt_key(double x, int r) {
  const double ax = fabs(x);
  uint64_t bits;
  memcpy(&bits, &ax, sizeof bits);
  return ((uint32_t)(bits >> 32) & ~(uint32_t)127) | (uint32_t)(127 - r);
}
DG_HD int lusgs_gjt_key_ok(uint32_t key) { return (key >> 7) != 0; }
DG_HD int lusgs_gjt_key_row(uint32_t key) { return 127 - (int)(key & 127); }

/* D⁻¹ of the n×n row-major A (n ≤ LUSGS_GJ_MAX_N, or LUSGS_GJT_MAX_N with
 * team = 1; A is overwritten) into inv, column-major (entry (r, c) at
 * c·n + r), by the warp inverse's steps (team = 1: the team kernel's, whose
 * key has 7 row bits) in the same order; returns −1, or the step at which
 * the block is singular or not finite (inv then not written). buf: n
 * doubles; step_of, perm: n ints. */
DG_HD int lusgs_gj_invert_as(int n, double *A, double *inv, double *buf, int *step_of, int *perm,
                             int team) {
  if (n > (team ? LUSGS_GJT_MAX_N : LUSGS_GJ_MAX_N)) return 0;
  for (int r = 0; r < n; ++r) step_of[r] = -1;
  for (int k = 0; k < n; ++k) {
    uint32_t best = 0;
    for (int r = 0; r < n; ++r) {
      const double x = A[(int64_t)r * n + k];
      const uint32_t key = step_of[r] >= 0 ? 0 : (team ? lusgs_gjt_key(x, r) : lusgs_gj_key(x, r));
      if (key > best) best = key;
    }
    if (!(team ? lusgs_gjt_key_ok(best) : lusgs_gj_key_ok(best))) return k;
    const int p = team ? lusgs_gjt_key_row(best) : lusgs_gj_key_row(best);
    lusgs_gj_pivot(n, A + (int64_t)p * n, k, buf);
    if (!lusgs_gj_pivot_ok(buf[k])) return k;
    step_of[p] = k;
    perm[k] = p;
    for (int r = 0; r < n; ++r)
      if (r != p) lusgs_gj_eliminate(n, A + (int64_t)r * n, k, buf);
  }
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) inv[(int64_t)perm[c] * n + step_of[r]] = A[(int64_t)r * n + c];
  return -1;
}

/* lusgs_gj_invert_as with the warp inverse's key. */
DG_HD int lusgs_gj_invert(int n, double *A, double *inv, double *buf, int *step_of, int *perm) {
  return lusgs_gj_invert_as(n, A, inv, buf, step_of, perm, 0);
}
