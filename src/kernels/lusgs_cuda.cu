/* The CUDA LU-SGS operations (lusgs_backend_cuda(), src/kernels/lusgs_cuda.h) over
 * the device view of a CUDA backend context (backend_cuda_view), and their
 * extras (src/kernels/lusgs_cuda.h).
 *
 * Kernels (all on the legacy default stream, like the backend's):
 *   face Jacobians: one thread per face point
 *     (lusgs_face_point_flux_jacobians, the consistent face blocks of
 *     src/lusgs/lusgs_ops.h);
 *   assembly: THREAD, one thread per element (lusgs_block_assemble_jac), or
 *     TEAM, one thread block per element and one thread per block entry
 *     (src/kernels/lusgs_team.h);
 *   factorisation: THREAD (lusgs_lu_factor per thread), TEAM (one thread
 *     block per element, the block in shared memory) or CUBLAS
 *     (cublasDgetrfBatched + cublasDgetriBatched per element shape, D⁻¹
 *     stored); then a check that records the first singular or non-finite
 *     block (atomicMin, one 8-byte copy back);
 *   sweeps and relaxation: one launch per colour; THREAD, one thread per
 *     element of the colour calling lusgs_sweep_forward_element_jac /
 *     lusgs_sweep_backward_element_jac / lusgs_relax_element_jac (or, with
 *     D⁻¹ stored, the same off-diagonal products and a mat-vec), or TEAM,
 *     one warp per element (lusgs_team.h); the off-diagonal products are
 *     computed at the face points inside the kernel from the point
 *     Jacobians (the blocks A_ej are never formed);
 *   update: one thread per coefficient;
 *   artificial viscosity (lusgs_av.h): ε of Uⁿ per element/vertex; then
 *     TEAM (default): the viscous rows (lusgs_av_row_inviscid = 0) listed
 *     on the host from a flag per element (one copy back at assembly), the
 *     viscous block one thread per (row, column) (lusgs_av_block_column)
 *     and the scalar couplings C_ej formed one thread per (row, face,
 *     column) (lusgs_av_coupling_column); the off-diagonal product of a
 *     colour one warp per element, lanes over the block entries: R_out = R
 *     on inviscid rows, R − Σ_j (I ⊗ C_ej) ΔU_j on viscous ones
 *     (lusgs_av_coupling_entry);
 *     THREAD (the reference): one thread per element calling
 *     lusgs_av_block_add and lusgs_av_offdiag_add (matrix-free).
 * Defaults: team assembly, team LU, team sweeps, 32 threads per block, at
 * most 128 per team (512 for the team assembly on tetrahedra); the
 * measurements that chose them are in docs/LUSGS.md ("On the GPU") and
 * docs/PERFORMANCE.md ("LU-SGS on tetrahedra").
 * Nothing uses atomics on floating-point data, and no result depends on
 * the launch sizes, so runs give identical bits.
 *
 * cuBLAS is column-major: a row-major D_e is D_eᵀ to it, so getrf factors
 * D_eᵀ and getri returns (D_eᵀ)⁻¹ column-major, which is D_e⁻¹ row-major. */
#include "kernels/lusgs_cuda.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coloring/coloring_list.h"
#include "kernels/backend_cuda.h"
#include "kernels/backend_cuda_private.h"
#include "kernels/cuda_check.cuh"
#include "kernels/gpu_alloc.cuh"
#include "kernels/lusgs_cuda_private.h"
#include "kernels/lusgs_team.h"
#include "kernels/team_trace.cuh"
#include "lusgs/lusgs_av.h"
#include "lusgs/lusgs_ops.h"

/* ------------------------------------------------------------ errors */

#define DG_CALL_CUBLAS(expr)                                                                       \
  do {                                                                                             \
    const cublasStatus_t dg_cublas_status_ = (expr);                                               \
    if (dg_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                                \
      return dg_error_set(DG_ERR_CUBLAS, __FILE__, __LINE__, __func__, "%s: %s (%s)", #expr,       \
                          cublasGetStatusString(dg_cublas_status_),                                \
                          cublasGetStatusName(dg_cublas_status_));                                 \
  } while (0)

/* The first failing block, packed as e * LUSGS_BAD_STEPS + (step + 1) so
 * that atomicMin keeps the lowest element (step −1: not finite, no step). */
#define LUSGS_BAD_STEPS 128ULL
#define LUSGS_BAD_NONE 0xffffffffffffffffULL
/* Most dynamic shared memory a team block asks for (bytes; sm_90 allows 227 KB). */
#define LUSGS_TEAM_MAX_SMEM (200 * 1024)
#define LUSGS_SPLIT_MAX 4      /* column ranges of a row in lusgs_sweep_split_kernel */
#define LUSGS_WARP_THREADS 128 /* threads per block of lusgs_warp_inverse_kernel (4 elements) */

static_assert(LUSGS_MAX_BLOCK < (int)LUSGS_BAD_STEPS - 1, "pivot steps must fit the packed key");

/* ------------------------------------------------------------ context */

/* Kernel arguments of the sweeps (read-only device pointers). */
typedef struct {
  const double *face_jac;
  const int32_t *color;
  const int64_t *block_offset, *pivot_offset;
  const double *blocks;
  const int32_t *pivots;
  int colmajor; /* blocks hold D⁻¹ column-major (TEAM_INVERSE) */
  int single;   /* ... rounded to float: element e's at (const float *)(blocks + block_offset[e]) */
} lusgs_sweep_data;

/* lusgs_sweep_split_kernel<DIM, NB>'s type (the instantiation is chosen at
 * run time). */
typedef void (*lusgs_sweep_kernel_fn)(const dg_disc_view, int, int64_t, const int64_t *, int64_t,
                                      const double *, double *, lusgs_sweep_data, int, int,
                                      int64_t);

struct lusgs_ctx {
  dg_disc_view view;           /* the backend's device view */
  dg_disc_state state;         /* the backend's run-time state at the last assembly */
  const dg_disc_state *bstate; /* the backend's own (its farfield_circulation may change) */
  dg_backend_ctx *bctx;        /* the backend context (a partition's halo: the ghosts' ε) */
  int n_colors;
  int threads;             /* threads per block of the per-element kernels and team sweeps */
  int team_threads;        /* most threads per element of the team assembly and LU */
  int tet_asm_threads;     /* most threads per element of the team assembly on tetrahedra */
  int sweep_warp_doubles;  /* shared doubles per element of the team sweeps (largest shape) */
  int sweep_rows_threads;  /* rows of lusgs_sweep_split_kernel's blocks: 32 ceil(n_max / 32) */
  int sweep_split;         /* its threads per row: 1, 2 or 4 (0: by colour size) */
  int sweep_elems;         /* its elements per block with one thread per row: 1, 2, 4 or 8 (0:
                              by colour size, lusgs_cuda_sweep_elems) */
  size_t sweep_split_smem; /* its shared bytes per element (largest shape, LUSGS_SPLIT_MAX) */
  lusgs_cuda_assemble assemble;
  lusgs_cuda_factor factor;
  lusgs_cuda_sweep sweep;
  int64_t n_elems, n_faces, n_coefs;
  const dg_coloring *coloring; /* host colour lists (color_start, color_first; not owned) */
  int64_t *h_block_offset;     /* [n_elems + 1] */
  int64_t *h_pivot_offset;     /* [n_elems + 1] */
  int32_t *d_color;            /* [n_elems] coloring->color */
  int64_t *d_color_elems;      /* [n_elems] coloring->color_elems */
  int64_t *d_block_offset, *d_pivot_offset;
  double *d_blocks; /* LU factors of D_e (THREAD, TEAM) or D_e⁻¹ (CUBLAS), row-major */
  int32_t *d_pivots;
  double *d_face_jac;        /* [n_faces * nqf * 2 * nvar²] flux Jacobians */
  unsigned long long *d_bad; /* first failing block (packed) */
  int stored_inverse;        /* what d_blocks holds now: 1 D⁻¹, 0 LU factors */
  int single;           /* [solver] inverse_precision = single: assemble rounds D⁻¹ to float */
  int jac_forward;      /* [solver] face_jacobian = forward: forward differences */
  int stored_single;    /* d_blocks holds that float D⁻¹ (column-major, element e's at float
                           2 block_offset[e], in the first half of its own doubles) */
  int inverse_colmajor; /* the stored D⁻¹ is column-major (TEAM_/WARP_INVERSE) */
  int keep_lu;          /* TEAM_/WARP_INVERSE also write the LU factors to d_lu */
  int lu_copy;          /* d_lu holds the team LU factors of the last assembly */
  size_t bytes;         /* device bytes held */
  size_t block_bytes;   /* of which blocks and pivots (and the cuBLAS LU copy) */
  int team_asm_ok[DG_NUM_SHAPES];      /* the team assembly fits shape s */
  int rows_ok[DG_NUM_SHAPES];          /* ... and its row form is built for s */
  int rows_max_threads[DG_NUM_SHAPES]; /* the row form's most threads per block */
  int asm_rows;                        /* the team assembly by rows where rows_ok (default) */
  int warp_ok[DG_NUM_SHAPES];          /* lusgs_warp_inverse_kernel has shape s's block size */
  int warp_fuse_ok[DG_NUM_SHAPES];     /* ... and its fused form's shared memory fits */
  int fuse;           /* WARP_INVERSE assembles in the inverse's kernel where it can */
  int gj_team;        /* WARP_INVERSE: blocks too large for a warp (n <= LUSGS_GJT_MAX_N) by
                         lusgs_gj_team_kernel (1, the default), else by TEAM_INVERSE's LU (0) */
  int face_jac_shape; /* the one shape of a single-shape mesh with a tuned face-Jacobian kernel
                         (lusgs_face_jac_team_kernel); -1: none, the generic kernel */
  int face_jac_team;  /* use it (1, the default; 0: the generic kernel, for the tests) */
  /* lusgs_sweep_split_kernel<DIM, NB> of a single-shape mesh it is built
   * for (lusgs_sweep_tuned_for; NULL: none), its most threads per block,
   * and whether the sweeps use it (1, the default; 0: the generic form) */
  lusgs_sweep_kernel_fn sweep_tuned_kernel;
  int sweep_tuned_threads;
  int sweep_tuned;
  /* cuBLAS, made on first use */
  cublasHandle_t cublas;
  double *d_lu; /* [block_offset[n_elems]] LU factors getri reads (CUBLAS), or the row-major
                   team LU factors the matvec reads (TEAM_INVERSE after keep_factors) */
  double **d_lu_ptr, **d_inv_ptr; /* [n_elems] */
  int *d_info;                    /* [2 n_elems]: getrf, getri */
  int max_threads[16];            /* per lusgs_kernel: most threads per block it launches with */
  int keep_face_jac; /* assemble keeps the stored face Jacobians (lusgs_cuda_private.h) */
  /* artificial viscosity frozen at the last assembly (view.av on; else NULL) */
  double *d_eps_elem, *d_eps_vert, *d_eps_c;
  lusgs_cuda_av av_variant;
  int av_ready;            /* the TEAM viscous rows and couplings match the last assembly */
  int av_nf, av_nb;        /* most faces and modes of an element (coupling layout) */
  int64_t av_face_doubles; /* doubles of one face's coupling C_ej: av_nb² (column-major) */
  int64_t av_row_doubles;  /* doubles of a viscous row's couplings: av_nf · av_face_doubles */
  int64_t n_visc;          /* viscous rows at the last assembly */
  int64_t av_capacity;     /* rows d_av_coupling holds */
  int32_t *h_av_flag, *h_av_slot; /* [n_elems]: row viscous; its slot, else -1 */
  int64_t *h_av_rows;             /* [n_elems]: element of each slot (n_visc used) */
  int32_t *d_av_flag, *d_av_slot;
  int64_t *d_av_rows;
  double *d_av_coupling; /* [av_capacity * av_row_doubles] */
  lusgs_phase_hook hook; /* the marcher's profile hook (mark NULL: none) */
  /* the recording of lusgs_apply (graph_begin/_end/_launch) */
  cudaStream_t stream;        /* of the sweep, relaxation and viscous-product launches: 0
                                 (legacy), or graph_stream while recording */
  cudaStream_t graph_stream;  /* the capture stream (made at the first recording) */
  cudaGraphExec_t graph_exec; /* the last recording, instantiated (NULL: none) */
  unsigned char *graph_key;   /* what its launches read from the context (lusgs_graph_key) */
};

/* The kernels, for their launch limits (registers bound the threads per
 * block of the large per-thread kernels below 1024). */
typedef enum {
  K_FACE_JAC = 0,
  K_ASSEMBLE_THREAD,
  K_ASSEMBLE_TEAM,
  K_FACTOR_THREAD,
  K_FACTOR_TEAM,
  K_CHECK_CUBLAS,
  K_SOLVE_LU,
  K_SOLVE_INVERSE,
  K_BACKWARD_LU,
  K_BACKWARD_INVERSE,
  K_SWEEP_TEAM_LU,
  K_SWEEP_TEAM_INVERSE,
  K_APPLY_INVERSE,
  K_UPDATE,
  K_FACTOR_TEAM_INVERSE,
  K_SWEEP_SPLIT,
  K_COUNT
} lusgs_kernel;

static_assert(K_COUNT <= 16, "lusgs_ctx::max_threads holds 16 kernels");

static const char *lusgs_kernel_names[K_COUNT] = {
    "face_jac",      "assemble_thread",    "assemble_team", "factor_thread", "factor_team",
    "check_cublas",  "solve_lu",           "solve_inverse", "backward_lu",   "backward_inverse",
    "sweep_team_lu", "sweep_team_inverse", "apply_inverse", "update",        "factor_team_inverse",
    "sweep_split"};

static int64_t blocks_for(int64_t n, int threads) { return (n + threads - 1) / threads; }

static unsigned next_pow2(int64_t x) {
  unsigned p = 1;
  while ((int64_t)p < x && p < 1024u) p <<= 1;
  return p;
}

/* Threads per block of kernel k: ctx->threads, or less where the kernel
 * cannot launch with that many. */
static int threads_for(const lusgs_ctx *x, lusgs_kernel k) {
  return x->threads < x->max_threads[k] ? x->threads : x->max_threads[k];
}

/* Threads of a team block of kernel k for `work` parallel tasks: a power of
 * two at least 32, at most cap (ctx->team_threads or ctx->tet_asm_threads)
 * and the kernel's limit. */
static unsigned team_threads(const lusgs_ctx *x, lusgs_kernel k, int64_t work, int cap) {
  unsigned t = next_pow2(work);
  if (t < 32u) t = 32u;
  if (t > (unsigned)cap) t = (unsigned)cap;
  if (t > (unsigned)x->max_threads[k]) t = (unsigned)x->max_threads[k];
  return t;
}

/* ------------------------------------------------------------ kernels */

/* face_jac (written) at every face point k = f*nqf + q, one thread each
 * (lusgs_face_point_flux_jacobians, forward or central differences); U read. One thread per
 * Jacobian column, with the traces once per point in shared memory, was slower (docs/LUSGS.md). */
static __global__ void lusgs_face_jac_kernel(const __grid_constant__ dg_disc_view view,
                                             const __grid_constant__ dg_disc_state st,
                                             const double *U, double t, int forward,
                                             double *face_jac) {
  const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= view.n_faces * view.nqf) return;
  const int64_t f = k / view.nqf;
  lusgs_face_point_flux_jacobians(&view, &st, f, (int)(k - f * view.nqf), U, t, forward,
                                  face_jac + k * 2 * view.nvar * view.nvar);
}

/* Threads per block of lusgs_face_jac_team_kernel. */
#define LUSGS_FACE_JAC_THREADS 128

/* lusgs_face_point_flux_jacobians out of line: the boundary points of
 * lusgs_face_jac_team_kernel (few; inlined, the boundary conditions would
 * enlarge the code and registers of every point). */
static __device__ __noinline__ void lusgs_face_jac_point(const dg_disc_view *view,
                                                         const dg_disc_state *st, int64_t f, int q,
                                                         const double *U, double t, int forward,
                                                         double *J) {
  lusgs_face_point_flux_jacobians(view, st, f, q, U, t, forward, J);
}

/* face_jac (written) at every face point, as lusgs_face_jac_kernel, for a
 * mesh whose elements all have shape `shape` with NB modes: one thread per
 * point; at interior points the traces unrolled (team_trace, the sums of
 * residual_trace) and the 2 NV columns of lusgs_face_point_jacobian_column
 * with the variables in registers (the column's perturbation selected, not
 * indexed: a runtime index put the states in local memory); boundary points
 * through the generic function. Each thread's 2 NV² entries go to shared
 * memory (stride 2 NV² + 1, conflict-free), then the block writes its
 * points' contiguous range coalesced (one thread per point writing 256 or
 * 400 contiguous bytes wrote partial sectors). The same operations in the
 * same order as the generic kernel, but not always the same bits: nvcc
 * contracts a·b + c into FMAs differently in this inlined flux, and the
 * central difference amplifies the last-bit differences of the fluxes by
 * 1/(2h) (2e-11..7e-11 relative on the test meshes, test_lusgs_gpu).
 * Dynamic shared memory: blockDim.x (2 NV² + 1) doubles. */
template <int DIM, int NB>
static __global__ void __launch_bounds__(LUSGS_FACE_JAC_THREADS)
    lusgs_face_jac_team_kernel(const __grid_constant__ dg_disc_view view,
                               const __grid_constant__ dg_disc_state st, int shape,
                               const double *__restrict__ U, double t, int forward,
                               double *__restrict__ face_jac) {
  constexpr int NV = DIM + 2, NJ = 2 * NV * NV, STRIDE = NJ + 1;
  extern __shared__ double lusgs_shared[];
  const int nqf = view.nqf;
  const int64_t n_points = view.n_faces * nqf;
  const int64_t k0 = (int64_t)blockIdx.x * blockDim.x, k = k0 + threadIdx.x;
  if (k < n_points) {
    double *J = lusgs_shared + threadIdx.x * STRIDE;
    const int64_t f = k / nqf;
    const int q = (int)(k - f * nqf);
    const int64_t e1 = view.face_elem[2 * f + 1];
    if (e1 < 0) {
      lusgs_face_jac_point(&view, &st, f, q, U, t, forward, J);
    } else {
      const double *Ushape = U + view.coef_start[shape];
      const int64_t n_shape = view.n_shape[shape], e_first = view.elem_start[shape];
      double UL[NV], UR[NV], n[DIM];
      team_trace<NB, NV>(Ushape, n_shape, view.face_elem[2 * f] - e_first,
                         view.face_phi + view.face_table[shape][view.face_local[2 * f]][0] + q * NB,
                         UL);
      team_trace<NB, NV>(
          Ushape, n_shape, e1 - e_first,
          view.face_phi + view.face_table[shape][view.face_local[2 * f + 1]][view.face_orient[f]] +
              q * NB,
          UR);
#pragma unroll
      for (int i = 0; i < DIM; ++i) n[i] = view.face_normal[k * DIM + i];
      if (forward) { /* lusgs_face_point_jacobian_column with H0: one flux per column */
        double H0[NV];
        if (view.flux == DG_FACE_FLUX_RUSANOV)
          physics_rusanov_flux(DIM, view.gamma, UL, UR, n, H0);
        else
          physics_roe_flux(DIM, view.gamma, UL, UR, n, PHYSICS_ROE_ENTROPY_FIX, H0);
#pragma unroll 1
        for (int c = 0; c < 2 * NV; ++c) {
          const int side = c >= NV, w = side ? c - NV : c;
          double x0 = 0.0;
#pragma unroll
          for (int i = 0; i < NV; ++i)
            if (i == w) x0 = side ? UR[i] : UL[i];
          const double h = LUSGS_FORWARD_STEP * (fabs(x0) + fabs(side ? UR[0] : UL[0]));
          const double xs = x0 + h;
          double L[NV], R[NV], Hp[NV];
#pragma unroll
          for (int i = 0; i < NV; ++i) {
            L[i] = !side && i == w ? xs : UL[i];
            R[i] = side && i == w ? xs : UR[i];
          }
          if (view.flux == DG_FACE_FLUX_RUSANOV)
            physics_rusanov_flux(DIM, view.gamma, L, R, n, Hp);
          else
            physics_roe_flux(DIM, view.gamma, L, R, n, PHYSICS_ROE_ENTROPY_FIX, Hp);
          const double inv = 1.0 / h;
          double *Js = J + side * NV * NV;
#pragma unroll
          for (int v = 0; v < NV; ++v) Js[v * NV + w] = (Hp[v] - H0[v]) * inv;
        }
      } else {
#pragma unroll 1
        for (int c = 0; c < 2 * NV; ++c) { /* column w of side `side` */
          const int side = c >= NV, w = side ? c - NV : c;
          double x0 = 0.0;
#pragma unroll
          for (int i = 0; i < NV; ++i)
            if (i == w) x0 = side ? UR[i] : UL[i];
          const double h = 1e-6 * (fabs(x0) + fabs(side ? UR[0] : UL[0]));
          double H[2][NV];
#pragma unroll
          for (int pm = 0; pm < 2; ++pm) {
            const double xs = pm ? x0 - h : x0 + h;
            double L[NV], R[NV];
#pragma unroll
            for (int i = 0; i < NV; ++i) {
              L[i] = !side && i == w ? xs : UL[i];
              R[i] = side && i == w ? xs : UR[i];
            }
            if (view.flux == DG_FACE_FLUX_RUSANOV)
              physics_rusanov_flux(DIM, view.gamma, L, R, n, H[pm]);
            else
              physics_roe_flux(DIM, view.gamma, L, R, n, PHYSICS_ROE_ENTROPY_FIX, H[pm]);
          }
          const double inv = 0.5 / h;
          double *Js = J + side * NV * NV;
#pragma unroll
          for (int v = 0; v < NV; ++v) Js[v * NV + w] = (H[0][v] - H[1][v]) * inv;
        }
      }
    }
  }
  __syncthreads();
  const int64_t left = n_points - k0;
  const int count = left < (int64_t)blockDim.x ? (int)left : (int)blockDim.x;
  double *out = face_jac + k0 * NJ;
  for (int i = threadIdx.x; i < count * NJ; i += blockDim.x)
    out[i] = lusgs_shared[(i / NJ) * STRIDE + i % NJ];
}

/* D_e (written at blocks + block_offset[e]) of the elements [e0, e0 + count),
 * one thread each; U, face_jac, dt read. */
static __global__ void lusgs_assemble_thread_kernel(const __grid_constant__ dg_disc_view view,
                                                    int64_t e0, int64_t count, const double *U,
                                                    const double *face_jac, const double *dt,
                                                    const int64_t *block_offset, double *blocks) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const int64_t e = e0 + i;
  lusgs_block_assemble_jac(&view, e, U, face_jac, dt[e], blocks + block_offset[e]);
}

/* D_e (written) of element e0 + blockIdx.x (one shape), one thread per entry
 * after the point phase (lusgs_team.h); U, face_jac, dt read. Dynamic shared
 * memory: lusgs_team_assemble_doubles of the shape. */
static __global__ void lusgs_assemble_team_kernel(const __grid_constant__ dg_disc_view view,
                                                  int64_t e0, const double *U,
                                                  const double *face_jac, const double *dt,
                                                  const int64_t *block_offset, double *blocks) {
  extern __shared__ double lusgs_shared[];
  const int64_t e = e0 + blockIdx.x;
  lusgs_team_points(&view, e, U, face_jac, lusgs_shared, (int)threadIdx.x, (int)blockDim.x);
  __syncthreads();
  const int n = view.nvar * view.nb[view.elem_shape[e]];
  const double scale = 1.0 / dt[e];
  double *K = blocks + block_offset[e];
  for (int idx = threadIdx.x; idx < n * n; idx += blockDim.x)
    K[idx] = lusgs_team_entry(&view, e, scale, lusgs_shared, idx / n, idx % n);
}

/* D_e (written) of element e0 + blockIdx.x (dim DIM, NB modes), as
 * lusgs_assemble_team_kernel but phase 2 by rows: task (r, w) forms the NB
 * entries of row r in the columns of variable w (lusgs_team_row_cols), so
 * each volume point's contraction with the mode's gradient is formed once
 * for NB entries instead of once per entry; the same bits. Dynamic shared
 * memory: lusgs_team_assemble_doubles of the shape. */
template <int DIM, int NB>
static __global__ void lusgs_assemble_rows_kernel(const __grid_constant__ dg_disc_view view,
                                                  int64_t e0, const double *U,
                                                  const double *face_jac, const double *dt,
                                                  const int64_t *block_offset, double *blocks) {
  constexpr int NV = DIM + 2, N = NV * NB;
  extern __shared__ double lusgs_shared[];
  const int64_t e = e0 + blockIdx.x;
  lusgs_team_points(&view, e, U, face_jac, lusgs_shared, (int)threadIdx.x, (int)blockDim.x);
  __syncthreads();
  const double scale = 1.0 / dt[e];
  double *K = blocks + block_offset[e];
  for (int task = (int)threadIdx.x; task < N * NV; task += (int)blockDim.x) {
    const int r = task / NV, w = task - r * NV;
    double k_rw[NB];
    lusgs_team_row_cols(&view, e, scale, lusgs_shared, r, w, 1, DIM, NV, NB, k_rw);
    double *out = K + (int64_t)r * N + w * NB;
#pragma unroll
    for (int k = 0; k < NB; ++k) out[k] = k_rw[k];
  }
}

/* Records block failure (element e, pivot step or −1) in *bad. */
static __device__ void lusgs_record_bad(unsigned long long *bad, int64_t e, int step) {
  atomicMin(bad, (unsigned long long)e * LUSGS_BAD_STEPS + (unsigned long long)(step + 1));
}

/* LU factors (in place) and pivots (written) of the elements [e0, e0 + count),
 * one thread each; a failing element is recorded in bad. */
static __global__ void lusgs_factor_thread_kernel(const __grid_constant__ dg_disc_view view,
                                                  int64_t e0, int64_t count,
                                                  const int64_t *block_offset, double *blocks,
                                                  const int64_t *pivot_offset, int32_t *pivots,
                                                  unsigned long long *bad) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const int64_t e = e0 + i;
  const int step = lusgs_lu_factor(lusgs_block_size(&view, e), blocks + block_offset[e],
                                   pivots + pivot_offset[e]);
  if (step >= 0) lusgs_record_bad(bad, e, step);
}

/* LU factors (in place) and pivots (written) of element e0 + blockIdx.x, all
 * of block size n, one thread block each with the block in shared memory
 * (lusgs_team.h); a failing element is recorded in bad. Dynamic shared
 * memory: n² + 32 doubles and 34 ints. Needs blockDim.x >= 32.
 * INVERSE: the block is replaced by D⁻¹ column-major instead (entry (r, j)
 * at j·n + r; lusgs_team_inverse_row, one thread per row r), and the LU
 * factors go to lu (row-major) when lu is not NULL. */
template <int INVERSE>
static __global__ void lusgs_factor_team_kernel(int64_t e0, int n, const int64_t *block_offset,
                                                double *blocks, const int64_t *pivot_offset,
                                                int32_t *pivots, unsigned long long *bad,
                                                double *lu) {
  extern __shared__ double lusgs_shared[];
  double *A = lusgs_shared;
  double *best = A + n * n;
  int *idx = (int *)(best + 32);
  int *control = idx + 32; /* pivot row, pivot ok */
  const int64_t e = e0 + blockIdx.x;
  const int tid = threadIdx.x, T = blockDim.x;
  double *K = blocks + block_offset[e];
  int32_t *piv = pivots + pivot_offset[e];
  for (int j = tid; j < n * n; j += T) A[j] = K[j];
  __syncthreads();
  int failed = -1;
  for (int k = 0; k < n; ++k) {
    if (tid < 32) lusgs_team_lu_pivot_lane(n, A, k, tid, 32, best, idx);
    __syncthreads();
    if (tid == 0) {
      int ok = 0;
      control[0] = lusgs_team_lu_pivot_select(n, A, k, 32, best, idx, &ok);
      control[1] = ok;
      piv[k] = control[0];
    }
    __syncthreads();
    const int p = control[0];
    if (!control[1]) {
      failed = k;
      break;
    }
    lusgs_team_lu_swap(n, A, k, p, tid, T);
    __syncthreads();
    lusgs_team_lu_multipliers(n, A, k, tid, T);
    __syncthreads();
    lusgs_team_lu_update(n, A, k, tid, T);
    __syncthreads();
  }
  if (!INVERSE) {
    for (int j = tid; j < n * n; j += T) K[j] = A[j];
  } else {
    if (lu) {
      double *L = lu + block_offset[e];
      for (int j = tid; j < n * n; j += T) L[j] = A[j];
    }
    if (failed < 0) {
      /* the pivots in shared memory (piv was written by thread 0) */
      int32_t *sp = control + 2;
      for (int k = tid; k < n; k += T) sp[k] = piv[k];
      __syncthreads();
      double y[LUSGS_MAX_BLOCK];
      for (int r = tid; r < n; r += T) {
        lusgs_team_inverse_row(n, A, sp, r, y);
        for (int j = 0; j < n; ++j) K[(int64_t)j * n + r] = y[j]; /* coalesced over r */
      }
    }
  }
  if (failed >= 0 && tid == 0) lusgs_record_bad(bad, e, failed);
}

/* The largest of the 32 lanes' keys (every lane calls it). */
static __device__ __forceinline__ uint32_t lusgs_warp_max_u32(uint32_t key) {
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync(0xffffffffu, key);
#else
  for (int o = 16; o > 0; o >>= 1) {
    const uint32_t other = __shfl_xor_sync(0xffffffffu, key, o);
    key = other > key ? other : key;
  }
  return key;
#endif
}

/* D_e⁻¹ (written column-major at blocks + block_offset[e], entry (r, c) at
 * c·N + r) of the elements [e0, e0 + count), one warp each, by the warp
 * Gauss–Jordan inverse of lusgs_team.h with the rows in registers (lane l:
 * rows l, l + 32, ...); a failing element is recorded in bad, its block
 * left as it was. FUSED = 0: D_e read from the same place (row-major);
 * FUSED = 1: D_e assembled by the warp (the team assembly's point phase
 * into shared memory, then each lane's rows by lusgs_team_row: the bits of
 * lusgs_assemble_team_kernel), so D_e never reaches global memory. Dynamic
 * shared memory: warp_doubles per warp (asm_doubles of point data when
 * FUSED, two pivot-row buffers of N doubles, N ints of pivot rows). */
/* Blocks of LUSGS_WARP_THREADS per multiprocessor lusgs_warp_inverse_kernel
 * caps its registers for (__launch_bounds__): 6 for the fused triangles at
 * p = 2 (nb = 6: 80 registers with 92 bytes of spills, against 96 without
 * the cap, when 5 blocks fit; their assembly + inverse took 2.5-3.9 % less
 * time with 6 at NACA level 4 on an H200, docs/PERFORMANCE.md), else 1
 * (none). Not measured elsewhere: at nb = 1, 3 and 4 the cap made ptxas
 * use 80 registers instead of 64-72 (fewer blocks fit), at nb >= 9 a lane
 * holds 72-100 doubles of its rows, and 8 blocks spilled more and ran
 * 1.6-1.7x slower. The same operations either way, so the same bits. */
static constexpr int lusgs_warp_min_blocks(int dim, int nb, int fused) {
  return fused && dim == 2 && nb == 6 ? 6 : 1;
}

template <int DIM, int NB, int FUSED>
static __global__ void __launch_bounds__(LUSGS_WARP_THREADS, lusgs_warp_min_blocks(DIM, NB, FUSED))
    lusgs_warp_inverse_kernel(const __grid_constant__ dg_disc_view view, int64_t e0, int64_t count,
                              const double *U, const double *face_jac, const double *dt,
                              const int64_t *block_offset, double *blocks, unsigned long long *bad,
                              int64_t warp_doubles, int64_t asm_doubles, int single) {
  constexpr int NV = DIM + 2, N = NV * NB, R = (N + 31) / 32;
  extern __shared__ double lusgs_shared[];
  const int lane = (int)(threadIdx.x & 31u), wid = (int)(threadIdx.x >> 5);
  const int64_t i = (int64_t)blockIdx.x * (blockDim.x >> 5) + wid;
  if (i >= count) return; /* the whole warp */
  const int64_t e = e0 + i;
  double *sh = lusgs_shared + wid * warp_doubles;
  double *buf = sh + asm_doubles;   /* 2 N: the pivot rows of even and odd steps */
  int *perm = (int *)(buf + 2 * N); /* N: the pivot row of each step */
  double *K = blocks + block_offset[e];
  double a[R][N];
  if (FUSED) {
    lusgs_team_points(&view, e, U, face_jac, sh, lane, 32);
    __syncwarp();
    const double scale = 1.0 / dt[e];
#pragma unroll
    for (int j = 0; j < R; ++j)
      if (lane + 32 * j < N) lusgs_team_row(&view, e, scale, sh, lane + 32 * j, DIM, NV, NB, a[j]);
  } else {
#pragma unroll
    for (int j = 0; j < R; ++j)
      if (lane + 32 * j < N) {
        const double *row = K + (int64_t)(lane + 32 * j) * N;
#pragma unroll
        for (int c = 0; c < N; ++c) a[j][c] = row[c];
      }
  }
  unsigned used = 0u;
  int step_of[R];
  int failed = -1;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    uint32_t key = 0u;
#pragma unroll
    for (int j = 0; j < R; ++j) {
      const int r = lane + 32 * j;
      if (r < N && !((used >> j) & 1u)) {
        const uint32_t kj = lusgs_gj_key(a[j][k], r);
        key = kj > key ? kj : key;
      }
    }
    key = lusgs_warp_max_u32(key);
    if (!lusgs_gj_key_ok(key)) {
      failed = k;
      break;
    }
    const int p = lusgs_gj_key_row(key);
    double *b = buf + (k & 1) * N;
#pragma unroll
    for (int j = 0; j < R; ++j)
      if (lane + 32 * j == p) {
        lusgs_gj_pivot(N, a[j], k, b);
        used |= 1u << j;
        step_of[j] = k;
      }
    if (lane == 0) perm[k] = p;
    __syncwarp();
    if (!lusgs_gj_pivot_ok(b[k])) {
      failed = k;
      break;
    }
#pragma unroll
    for (int j = 0; j < R; ++j) {
      const int r = lane + 32 * j;
      if (r < N && r != p) lusgs_gj_eliminate(N, a[j], k, b);
    }
  }
  if (failed >= 0) {
    if (lane == 0) lusgs_record_bad(bad, e, failed);
    return;
  }
  if (single) { /* every lane read its rows of D_e before the first step's __syncwarp */
    float *Kf = (float *)K;
#pragma unroll
    for (int j = 0; j < R; ++j)
      if (lane + 32 * j < N) {
        const int m = step_of[j];
#pragma unroll
        for (int c = 0; c < N; ++c) Kf[(int64_t)perm[c] * N + m] = (float)a[j][c];
      }
    return;
  }
#pragma unroll
  for (int j = 0; j < R; ++j)
    if (lane + 32 * j < N) {
      const int m = step_of[j];
#pragma unroll
      for (int c = 0; c < N; ++c) K[(int64_t)perm[c] * N + m] = a[j][c];
    }
}

/* Shared bytes of lusgs_gj_team_kernel for blocks of n rows: D_e (n²
 * doubles), the pivot row and column k (2n doubles), step_of and perm (2n
 * ints). */
static inline size_t lusgs_gj_team_smem(int n) {
  return ((size_t)n * n + 2 * (size_t)n) * sizeof(double) + 2 * (size_t)n * sizeof(int);
}

/* D_e⁻¹ of element e0 + blockIdx.x (blocks of n ≤ LUSGS_GJT_MAX_N rows, too
 * many for the warp inverse), one thread block of 32 ⌈n / 32⌉ threads each,
 * by the steps of lusgs_gj_invert_as(team = 1) with D_e in shared memory:
 * at step k thread r offers row r's key (lusgs_gjt_key), the block's
 * largest names the pivot row p; thread c forms entry c of the pivot row
 * (lusgs_gj_pivot's operation) and then, for every other row r, entry
 * (r, c) (lusgs_gj_eliminate's, with row r's entry k read before the step
 * into a column buffer). Each entry has the host reference's operations in
 * its order, so D_e⁻¹ has its bits. D_e is read row-major from blocks +
 * block_offset[e] and D_e⁻¹ written there column-major (single: as floats
 * in the first half of the region); a failing element is recorded in bad,
 * its block left as it was. Dynamic shared memory: lusgs_gj_team_smem(n). */
static __global__ void __launch_bounds__(LUSGS_GJT_MAX_N)
    lusgs_gj_team_kernel(int64_t e0, int n, const int64_t *block_offset, double *blocks,
                         unsigned long long *bad, int single) {
  extern __shared__ double lusgs_shared[];
  __shared__ uint32_t wkey[LUSGS_GJT_MAX_N / 32];
  double *A = lusgs_shared, *buf = A + (int64_t)n * n, *fcol = buf + n;
  int *step_of = (int *)(fcol + n), *perm = step_of + n;
  const int tid = threadIdx.x, warps = (int)(blockDim.x >> 5);
  const int64_t e = e0 + blockIdx.x;
  double *K = blocks + block_offset[e];
  for (int i = tid; i < n * n; i += blockDim.x) A[i] = K[i];
  if (tid < n) step_of[tid] = -1;
  __syncthreads();
  int failed = -1;
  for (int k = 0; k < n; ++k) {
    uint32_t key = 0u;
    if (tid < n && step_of[tid] < 0) key = lusgs_gjt_key(A[tid * n + k], tid);
    key = lusgs_warp_max_u32(key);
    if ((tid & 31) == 0) wkey[tid >> 5] = key;
    __syncthreads();
    uint32_t best = 0u;
    for (int w = 0; w < warps; ++w) best = wkey[w] > best ? wkey[w] : best;
    if (!lusgs_gjt_key_ok(best)) { /* the same for every thread */
      failed = k;
      break;
    }
    const int p = lusgs_gjt_key_row(best);
    const double pivot = A[p * n + k];
    if (tid < n) fcol[tid] = A[tid * n + k];
    __syncthreads(); /* column k read before the pivot row changes it */
    const double inv = 1.0 / pivot;
    if (tid < n) {
      const double x = tid == k ? inv : A[p * n + tid] * inv;
      buf[tid] = x;
      A[p * n + tid] = x;
    }
    if (tid == 0) {
      step_of[p] = k;
      perm[k] = p;
    }
    __syncthreads();
    if (!lusgs_gj_pivot_ok(buf[k])) {
      failed = k;
      break;
    }
    if (tid < n) {
      const int c = tid;
      const double bc = buf[c], bk = buf[k];
      for (int r = 0; r < n; ++r) {
        if (r == p) continue;
        const double f = fcol[r];
        A[r * n + c] = c == k ? -f * bk : fma(-f, bc, A[r * n + c]);
      }
    }
    __syncthreads(); /* the keys of step k + 1 read the eliminated column */
  }
  if (failed >= 0) {
    if (tid == 0) lusgs_record_bad(bad, e, failed);
    return;
  }
  /* entry (m, perm[c]) of D_e⁻¹ is A[perm[m]][c] (step_of[perm[m]] = m):
   * thread m writes row m of every column, coalesced */
  if (tid < n) {
    const int m = tid, row = perm[m] * n;
    if (single) {
      float *Kf = (float *)K;
      for (int c = 0; c < n; ++c) Kf[(int64_t)perm[c] * n + m] = (float)A[row + c];
    } else {
      for (int c = 0; c < n; ++c) K[(int64_t)perm[c] * n + m] = A[row + c];
    }
  }
}

/* D⁻¹ (column-major doubles, TEAM_INVERSE) rounded to float in place, one
 * block per element: entry k's float goes to the element's float 2
 * block_offset[e] + k, bytes [4k, 4k + 4) of its region, which hold
 * double k / 2. In chunks of blockDim.x entries, all read before any is
 * written, the doubles a chunk overwrites are of that chunk or before. */
static __global__ void lusgs_inverse_to_single_kernel(int64_t e0, int n,
                                                      const int64_t *block_offset, double *blocks) {
  const int64_t e = e0 + blockIdx.x;
  double *K = blocks + block_offset[e];
  float *Kf = (float *)K;
  const int64_t nn = (int64_t)n * n;
  for (int64_t k0 = 0; k0 < nn; k0 += blockDim.x) {
    const int64_t k = k0 + threadIdx.x;
    const double v = k < nn ? K[k] : 0.0;
    __syncthreads();
    if (k < nn) Kf[k] = (float)v;
    __syncthreads();
  }
}

/* Doubles of dynamic shared memory one warp of lusgs_warp_inverse_kernel
 * takes: asm_doubles (FUSED), 2n of pivot rows, n ints of pivot steps. */
static int64_t lusgs_warp_doubles(int64_t asm_doubles, int n) {
  return asm_doubles + 2 * (int64_t)n + ((int64_t)n + 1) / 2;
}

/* The fused form is used while one warp's shared memory stays within this.
 * Measured on an H200 (docs/LUSGS.md): the curved tetrahedra at p = 1
 * (more than 24 KB of point data a warp) assembled and inverted in 3.72 ms
 * fused against 3.10 ms separately on the M6 level-0 mesh, so they stay
 * separate; the triangles up to p = 3 gain 1.9-2.9x fused (assembly and
 * inverse against the separate assembly and warp inverse). A block of
 * LUSGS_WARP_THREADS / 32 warps then takes at most 96 KB. */
#define LUSGS_WARP_FUSE_MAX_BYTES (24 * 1024)

/* One launch of lusgs_warp_inverse_kernel<DIM, NB, FUSED> over the owned
 * elements of shape s (out: the blocks), or with attr_only its shared
 * memory limit raised where it needs more than 48 KB. */
template <int DIM, int NB, int FUSED>
static dg_status lusgs_warp_launch_t(lusgs_ctx *x, int s, const double *U, const double *dt,
                                     double *out, int attr_only) {
  const dg_disc_view *d = &x->view;
  constexpr int n = (DIM + 2) * NB;
  const int64_t asm_doubles = FUSED ? lusgs_team_assemble_doubles(d, s) : 0;
  const int64_t warp_doubles = lusgs_warp_doubles(asm_doubles, n);
  constexpr int per_block = LUSGS_WARP_THREADS / 32;
  const size_t smem = (size_t)warp_doubles * per_block * sizeof(double);
  if (attr_only) {
    if (smem > 48 * 1024)
      DG_CALL_CUDA(cudaFuncSetAttribute((const void *)lusgs_warp_inverse_kernel<DIM, NB, FUSED>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        LUSGS_TEAM_MAX_SMEM));
    return DG_SUCCESS;
  }
  const int64_t count = d->n_owned[s]; /* ghosts: their owners' blocks */
  if (count <= 0) return DG_SUCCESS;
  lusgs_warp_inverse_kernel<DIM, NB, FUSED>
      <<<(unsigned)blocks_for(count, per_block), LUSGS_WARP_THREADS, smem>>>(
          x->view, d->elem_start[s], count, U, x->d_face_jac, dt, x->d_block_offset, out, x->d_bad,
          warp_doubles, asm_doubles, x->single);
  DG_CHECK_LAUNCH("lusgs_warp_inverse_kernel");
  return DG_SUCCESS;
}

/* The block sizes lusgs_warp_inverse_kernel is built for (dim, nb): the
 * triangles and quadrilaterals up to n = 40 and the tetrahedra up to
 * n = 50 (p = 2; its 100 doubles a lane fit the 255 registers). */
#define LUSGS_WARP_SHAPES(X)                                                                       \
  X(2, 1) X(2, 3) X(2, 4) X(2, 6) X(2, 9) X(2, 10) X(3, 1) X(3, 4) X(3, 10)

/* Whether the kernel is built for shape s of view d. */
static int lusgs_warp_supported(const dg_disc_view *d, int s) {
  const int key = d->dim * 100 + d->nb[s];
#define LUSGS_WARP_KEY(DIM, NB) key == (DIM)*100 + (NB) ||
  return LUSGS_WARP_SHAPES(LUSGS_WARP_KEY) 0;
#undef LUSGS_WARP_KEY
}

/* One launch of lusgs_face_jac_team_kernel<DIM, NB> over every face point
 * (a single-shape mesh of shape s), or with attr_only its shared memory
 * limit raised where it needs more than 48 KB. */
template <int DIM, int NB>
static dg_status lusgs_face_jac_team_launch_t(lusgs_ctx *x, int s, const double *U, double t,
                                              int attr_only) {
  constexpr int NJ = 2 * (DIM + 2) * (DIM + 2);
  const size_t smem = (size_t)LUSGS_FACE_JAC_THREADS * (NJ + 1) * sizeof(double);
  if (attr_only) {
    if (smem > 48 * 1024)
      DG_CALL_CUDA(cudaFuncSetAttribute((const void *)lusgs_face_jac_team_kernel<DIM, NB>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    return DG_SUCCESS;
  }
  const int64_t n_points = x->n_faces * x->view.nqf;
  lusgs_face_jac_team_kernel<DIM, NB>
      <<<(unsigned)blocks_for(n_points, LUSGS_FACE_JAC_THREADS), LUSGS_FACE_JAC_THREADS, smem>>>(
          x->view, x->state, s, U, t, x->jac_forward, x->d_face_jac);
  DG_CHECK_LAUNCH("lusgs_face_jac_team_kernel");
  return DG_SUCCESS;
}

/* The (dim, nb) lusgs_face_jac_team_kernel is built for: every shape and
 * degree p <= 3 of the residual's face kernel. */
#define LUSGS_FACE_JAC_SHAPES(X)                                                                   \
  X(2, 1) X(2, 3) X(2, 4) X(2, 6) X(2, 9) X(2, 10) X(2, 16) X(3, 1) X(3, 4) X(3, 10) X(3, 20)

/* The (dim, nb) lusgs_assemble_rows_kernel is built for: every shape and
 * degree p <= 3. */
#define LUSGS_ROWS_SHAPES(X) LUSGS_FACE_JAC_SHAPES(X)

/* One launch of lusgs_assemble_rows_kernel<DIM, NB> over the owned elements
 * of shape s (out: the blocks), or with attr_only its shared memory limit
 * raised where it needs more than 48 KB and its most threads per block
 * queried (x->rows_max_threads[s]). Threads: a power of two for the n·nv
 * tasks, at least 32, at most the team cap (tet_asm_threads on
 * tetrahedra) and the kernel's limit. */
template <int DIM, int NB>
static dg_status lusgs_rows_launch_t(lusgs_ctx *x, int s, const double *U, const double *dt,
                                     double *out, int attr_only) {
  const dg_disc_view *d = &x->view;
  constexpr int NV = DIM + 2, N = NV * NB;
  const size_t smem = (size_t)lusgs_team_assemble_doubles(d, s) * sizeof(double);
  const void *kernel = (const void *)lusgs_assemble_rows_kernel<DIM, NB>;
  if (attr_only) {
    if (smem > 48 * 1024)
      DG_CALL_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        LUSGS_TEAM_MAX_SMEM));
    cudaFuncAttributes attributes;
    DG_CALL_CUDA(cudaFuncGetAttributes(&attributes, kernel));
    x->rows_max_threads[s] = attributes.maxThreadsPerBlock / 32 * 32;
    return DG_SUCCESS;
  }
  const int64_t count = d->n_owned[s]; /* ghosts: their owners' blocks */
  if (count <= 0) return DG_SUCCESS;
  unsigned threads = next_pow2((int64_t)N * NV);
  const int cap = s == DG_TET ? x->tet_asm_threads : x->team_threads;
  if (threads < 32u) threads = 32u;
  if (threads > (unsigned)cap) threads = (unsigned)cap;
  if (threads > (unsigned)x->rows_max_threads[s]) threads = (unsigned)x->rows_max_threads[s];
  lusgs_assemble_rows_kernel<DIM, NB><<<(unsigned)count, threads, smem>>>(
      x->view, d->elem_start[s], U, x->d_face_jac, dt, x->d_block_offset, out);
  DG_CHECK_LAUNCH("lusgs_assemble_rows_kernel");
  return DG_SUCCESS;
}

/* lusgs_rows_launch_t for shape s (lusgs_rows_supported). */
static dg_status lusgs_rows_launch(lusgs_ctx *x, int s, const double *U, const double *dt,
                                   double *out, int attr_only) {
  const int key = x->view.dim * 100 + x->view.nb[s];
#define LUSGS_ROWS_CASE(DIM, NB)                                                                   \
  if (key == DIM * 100 + NB) return lusgs_rows_launch_t<DIM, NB>(x, s, U, dt, out, attr_only);
  LUSGS_ROWS_SHAPES(LUSGS_ROWS_CASE)
#undef LUSGS_ROWS_CASE
  DG_ERROR(DG_ERR_ARG, "lusgs cuda: no row assembly for %d modes in %dD", x->view.nb[s],
           x->view.dim);
}

/* Whether lusgs_assemble_rows_kernel is built for shape s of view d. */
static int lusgs_rows_supported(const dg_disc_view *d, int s) {
  const int key = d->dim * 100 + d->nb[s];
#define LUSGS_ROWS_KEY(DIM, NB) key == DIM * 100 + NB ||
  return LUSGS_ROWS_SHAPES(LUSGS_ROWS_KEY) 0;
#undef LUSGS_ROWS_KEY
}

/* lusgs_face_jac_team_launch_t for shape s; DG_ERR_ARG when it is not built
 * for s (lusgs_face_jac_team_supported). */
static dg_status lusgs_face_jac_team_launch(lusgs_ctx *x, int s, const double *U, double t,
                                            int attr_only) {
  const int key = x->view.dim * 100 + x->view.nb[s];
#define LUSGS_FACE_JAC_CASE(DIM, NB)                                                               \
  if (key == DIM * 100 + NB) return lusgs_face_jac_team_launch_t<DIM, NB>(x, s, U, t, attr_only);
  LUSGS_FACE_JAC_SHAPES(LUSGS_FACE_JAC_CASE)
#undef LUSGS_FACE_JAC_CASE
  DG_ERROR(DG_ERR_ARG, "lusgs cuda: no tuned face Jacobians for %d modes in %dD", x->view.nb[s],
           x->view.dim);
}

/* Whether lusgs_face_jac_team_kernel is built for shape s of view d. */
static int lusgs_face_jac_team_supported(const dg_disc_view *d, int s) {
  const int key = d->dim * 100 + d->nb[s];
#define LUSGS_FACE_JAC_KEY(DIM, NB) key == DIM * 100 + NB ||
  return LUSGS_FACE_JAC_SHAPES(LUSGS_FACE_JAC_KEY) 0;
#undef LUSGS_FACE_JAC_KEY
}

/* lusgs_warp_launch_t for shape s (lusgs_warp_supported). */
static dg_status lusgs_warp_launch(lusgs_ctx *x, int s, int fused, const double *U,
                                   const double *dt, double *out, int attr_only) {
  const int key = x->view.dim * 100 + x->view.nb[s];
#define LUSGS_WARP_CASE(DIM, NB)                                                                   \
  if (key == (DIM)*100 + (NB))                                                                     \
    return fused ? lusgs_warp_launch_t<DIM, NB, 1>(x, s, U, dt, out, attr_only)                    \
                 : lusgs_warp_launch_t<DIM, NB, 0>(x, s, U, dt, out, attr_only);
  LUSGS_WARP_SHAPES(LUSGS_WARP_CASE)
#undef LUSGS_WARP_CASE
  DG_ERROR(DG_ERR_ARG, "lusgs cuda: no warp inverse for %d modes in %dD", x->view.nb[s],
           x->view.dim);
}

/* Whether this assembly of shape s runs in the warp inverse's kernel. */
static int lusgs_warp_fused(const lusgs_ctx *x, int s) {
  return x->factor == LUSGS_CUDA_FACTOR_WARP_INVERSE && x->fuse && !x->keep_lu &&
         x->assemble == LUSGS_CUDA_ASSEMBLE_TEAM && x->team_asm_ok[s] && x->warp_fuse_ok[s] &&
         x->view.av == DG_AV_OFF;
}

/* After cuBLAS: an element whose getrf or getri reported a zero pivot, or
 * whose U factor (in lu) has a non-finite diagonal, is recorded in bad. */
static __global__ void lusgs_check_cublas_kernel(const __grid_constant__ dg_disc_view view,
                                                 const int64_t *block_offset, const double *lu,
                                                 const int *info, unsigned long long *bad) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= view.n_elems || !disc_elem_owned(&view, e)) return; /* ghosts: not factored */
  const int n = lusgs_block_size(&view, e);
  if (info[e] > 0) {
    lusgs_record_bad(bad, e, info[e] - 1);
    return;
  }
  const double *A = lu + block_offset[e];
  for (int i = 0; i < n; ++i) {
    const double u = fabs(A[(int64_t)i * n + i]);
    if (!(u > 0.0 && u < INFINITY)) {
      lusgs_record_bad(bad, e, i);
      return;
    }
  }
  if (info[view.n_elems + e] > 0) lusgs_record_bad(bad, e, info[view.n_elems + e] - 1);
}

/* y = Kinv x (n×n, row-major, or column-major when colmajor), written to
 * dst[v*nb + m] of element e (sign = 1: dst = y; sign = −1: dst −= y). */
static __device__ void lusgs_apply_stored_inverse(const dg_disc_view *d, int64_t e,
                                                  const double *Kinv, int colmajor, const double *x,
                                                  double sign, double *dst) {
  const int s = d->elem_shape[e], nb = d->nb[s], nv = d->nvar, n = nv * nb;
  const int64_t rs = colmajor ? 1 : n, cs = colmajor ? n : 1; /* row and column strides */
  for (int v = 0; v < nv; ++v)
    for (int m = 0; m < nb; ++m) {
      const double *row = Kinv + (int64_t)(v * nb + m) * rs;
      double sum = 0.0;
      for (int j = 0; j < n; ++j) sum += row[j * cs] * x[j];
      const int64_t i = disc_coef_index(d, e, v, m);
      if (sign > 0.0)
        dst[i] = sum;
      else
        dst[i] -= sum;
    }
}

/* Forward sweep (which = LUSGS_LOWER) or relaxation (LUSGS_ALL) of the
 * `count` elements of one colour: dU of those elements written, dU of the
 * neighbours and R read. INVERSE: the blocks hold D⁻¹. */
template <int INVERSE>
static __global__ void lusgs_solve_kernel(const __grid_constant__ dg_disc_view view, int which,
                                          int64_t first, const int64_t *list, int64_t count,
                                          const double *R, double *dU, lusgs_sweep_data sd) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const int64_t e = coloring_list_element(first, list, i);
  const double *block = sd.blocks + sd.block_offset[e];
  if (!INVERSE) {
    lusgs_update_element_jac(&view, e, R, dU, sd.face_jac, sd.color, which, block,
                             sd.pivots + sd.pivot_offset[e]);
    return;
  }
  const int n = lusgs_block_size(&view, e);
  double x[LUSGS_MAX_BLOCK], a[LUSGS_MAX_BLOCK];
  residual_load(&view, R, e, x);
  for (int k = 0; k < n; ++k) a[k] = 0.0;
  lusgs_offdiag_add_jac(&view, e, dU, sd.face_jac, sd.color, which, a);
  for (int k = 0; k < n; ++k) x[k] -= a[k];
  if (sd.single)
    lusgs_apply_inverse_single(&view, e, (const float *)block, x, 1.0, dU);
  else
    lusgs_apply_stored_inverse(&view, e, block, sd.colmajor, x, 1.0, dU);
}

/* Backward sweep of the `count` elements of one colour (dU of those
 * elements updated; the upper neighbours' dU read). */
template <int INVERSE>
static __global__ void lusgs_backward_kernel(const __grid_constant__ dg_disc_view view,
                                             int64_t first, const int64_t *list, int64_t count,
                                             double *dU, lusgs_sweep_data sd) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const int64_t e = coloring_list_element(first, list, i);
  const double *block = sd.blocks + sd.block_offset[e];
  if (!INVERSE) {
    lusgs_sweep_backward_element_jac(&view, e, dU, sd.face_jac, sd.color, block,
                                     sd.pivots + sd.pivot_offset[e]);
    return;
  }
  const int n = lusgs_block_size(&view, e);
  double a[LUSGS_MAX_BLOCK];
  for (int k = 0; k < n; ++k) a[k] = 0.0;
  lusgs_offdiag_add_jac(&view, e, dU, sd.face_jac, sd.color, LUSGS_UPPER, a);
  if (sd.single)
    lusgs_apply_inverse_single(&view, e, (const float *)block, a, -1.0, dU);
  else
    lusgs_apply_stored_inverse(&view, e, block, sd.colmajor, a, -1.0, dU);
}

/* Team sweep (lusgs_team.h) of the `count` elements of one colour, one warp
 * each, blockDim.x / 32 elements per block, per_warp shared doubles per
 * element: forward (which = LUSGS_LOWER) or relaxation (LUSGS_ALL): dU_e
 * written from R and the neighbours' dU; backward (LUSGS_UPPER; R unused):
 * dU_e updated. INVERSE: the blocks hold D⁻¹. */
template <int INVERSE>
static __global__ void lusgs_sweep_team_kernel(const __grid_constant__ dg_disc_view view, int which,
                                               int64_t first, const int64_t *list, int64_t count,
                                               const double *R, double *dU, lusgs_sweep_data sd,
                                               int per_warp) {
  extern __shared__ double lusgs_shared[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t i = (int64_t)blockIdx.x * (blockDim.x >> 5) + warp;
  if (i >= count) return; /* the whole warp */
  const int64_t e = coloring_list_element(first, list, i);
  const int s = view.elem_shape[e], nb = view.nb[s], nv = view.nvar, n = nv * nb;
  const int nqf = view.nqf, nf = shape_n_faces((dg_shape)s);
  double *h = lusgs_shared + (int64_t)warp * per_warp;
  double *meta = h + nf * nqf * nv, *b = meta + 2 * nf, *y = b + n;
  for (int task = lane; task < nf * nqf; task += 32)
    lusgs_team_offdiag_task(&view, e, dU, sd.face_jac, sd.color, which, task / nqf, task % nqf, h,
                            meta);
  __syncwarp();
  for (int r = lane; r < n; r += 32) {
    const double a = lusgs_team_offdiag_entry(&view, e, h, meta, r);
    const int v = r / nb;
    b[r] = which == LUSGS_UPPER ? a : R[disc_coef_index(&view, e, v, r - v * nb)] - a;
  }
  __syncwarp();
  const double *block = sd.blocks + sd.block_offset[e];
  if (INVERSE) { /* row-major D⁻¹ (cuBLAS); column-major: lusgs_sweep_split_kernel */
    for (int r = lane; r < n; r += 32) {
      const double *row = block + (int64_t)r * n;
      double sum = 0.0;
      for (int j = 0; j < n; ++j) sum += row[j] * b[j];
      y[r] = sum;
    }
  } else {
    if (lane == 0) lusgs_team_solve_permute(n, sd.pivots + sd.pivot_offset[e], b);
    __syncwarp();
    for (int j = 0; j < n - 1; ++j) {
      lusgs_team_solve_lower(n, block, j, b, lane, 32);
      __syncwarp();
    }
    for (int j = n - 1; j >= 0; --j) {
      lusgs_team_solve_upper(n, block, j, b, y, lane, 32);
      __syncwarp();
    }
  }
  __syncwarp();
  for (int r = lane; r < n; r += 32) {
    const int v = r / nb;
    const int64_t idx = disc_coef_index(&view, e, v, r - v * nb);
    if (which == LUSGS_UPPER)
      dU[idx] -= y[r];
    else
      dU[idx] = y[r];
  }
}

/* Coefficient r of dU_e from row r of D⁻¹ b: written (forward, relaxation)
 * or subtracted (backward, which = LUSGS_UPPER). */
static __device__ void lusgs_sweep_store(const dg_disc_view *view, int64_t e, int which, int r,
                                         double y, double *dU) {
  const int nb = view->nb[view->elem_shape[e]], v = r / nb;
  const int64_t idx = disc_coef_index(view, e, v, r - v * nb);
  if (which == LUSGS_UPPER)
    dU[idx] -= y;
  else
    dU[idx] = y;
}

/* Σ_{j0 <= j < j1} D⁻¹[r][j] b[j] (D⁻¹ column-major, n × n, double or
 * float; summed in double, in order). */
template <typename T>
static __device__ __forceinline__ double lusgs_split_sum(const T *block, int n, int r, int j0,
                                                         int j1, const double *b) {
  double sum = 0.0;
  for (int j = j0; j < j1; ++j) sum += (double)block[(int64_t)j * n + r] * b[j];
  return sum;
}

/* Row r of D⁻¹ b with one thread per row (split 1) for N = nv·nb known at
 * compile time: lusgs_split_sum over the LUSGS_SPLIT_MAX column ranges of
 * ⌈N / LUSGS_SPLIT_MAX⌉, each from 0.0 in column order, then added in
 * order from 0.0, as lusgs_sweep_split_kernel's split-1 path sums them
 * (the same bits); unrolled, so that the row's N loads are in flight
 * together. */
template <int N, typename T>
static __device__ __forceinline__ double lusgs_row_sum_t(const T *__restrict__ block, int r,
                                                         const double *b) {
  constexpr int CH = (N + LUSGS_SPLIT_MAX - 1) / LUSGS_SPLIT_MAX;
  /* rows longer than 24 unrolled by 4 only: fully unrolled they measured
   * slower than the generic kernel (register pressure) */
  constexpr int UNROLL = N <= 24 ? (CH > 0 ? CH : 1) : 4;
  double p[LUSGS_SPLIT_MAX];
#pragma unroll
  for (int c = 0; c < LUSGS_SPLIT_MAX; ++c) {
    double sum = 0.0;
#pragma unroll UNROLL
    for (int j = c * CH; j < (c + 1) * CH && j < N; ++j)
      sum += (double)block[(int64_t)j * N + r] * b[j];
    p[c] = sum;
  }
  double sum = 0.0;
#pragma unroll
  for (int c = 0; c < LUSGS_SPLIT_MAX; ++c) sum += p[c];
  return sum;
}

/* lusgs_team_offdiag_entry with NV and NB known at compile time (the same
 * terms in the same order). */
template <int NV, int NB>
static __device__ __forceinline__ double lusgs_offdiag_entry_t(const dg_disc_view *d, int s, int nf,
                                                               const double *h, const double *meta,
                                                               int r) {
  const int v = r / NB, m = r - v * NB, nqf = d->nqf;
  double out = 0.0;
  for (int lf = 0; lf < nf; ++lf) {
    if (meta[2 * lf] == 0.0) continue;
    const int o = (int)meta[2 * lf + 1];
    const double *phi = d->face_phi + d->face_table[s][lf][o] + m;
    for (int q = 0; q < nqf; ++q) out += h[(lf * nqf + q) * NV + v] * phi[(int64_t)q * NB];
  }
  return out;
}

/* Team sweep with D⁻¹ stored column-major (TEAM_INVERSE) of the `count`
 * elements of one colour, split · 32 ceil(n_max / 32) threads per element
 * (lusgs_cuda_launch_colour; split from lusgs_cuda_sweep_split), epb
 * elements per block (lusgs_cuda_sweep_elems: more than one only with
 * split 1, on large colours, where one element per block left half the
 * warps of a multiprocessor unused by the 32-block limit).
 * A colour of a small mesh is one wave of a few blocks per SM, so its time is
 * one element's latency chain: with one block of 32 ceil(n / 32) threads
 * and one thread per face point (commit bdfc84b), ncu on an H200 gave 40 µs
 * for a colour of 43 elements and 37 µs for one of 922 (p = 3; p = 1: 21 µs
 * either way), the face tasks running one thread each through a
 * neighbour's nv·nb coefficients while the other threads waited at the
 * barrier, and each thread summing its row of D⁻¹ over all n columns. Here
 *   phase 0, one thread per face: the neighbour, its face and orientation,
 *     whether `which` takes it (shared);
 *   phase 1a, task (lf, q, v): the trace of variable v of the neighbour's
 *     dU at face point q (residual_trace's sum, same order);
 *   phase 1b, task (lf, q, v): h = σ wsJ Σ_w J[v][w] trace_w
 *     (lusgs_team_offdiag_task's sum, same order);
 *   phase 2, row r: b_r = R_r − a_r (forward, relaxation) or a_r (backward),
 *     a_r = lusgs_team_offdiag_entry (phase 0 writes the meta pairs it reads);
 *   phase 3: row r of D⁻¹ b as LUSGS_SPLIT_MAX partial sums over fixed
 *     ranges of ⌈n / LUSGS_SPLIT_MAX⌉ columns, added in order; thread
 *     (g, r), g < split, forms LUSGS_SPLIT_MAX / split of them, and thread
 *     r adds them and writes dU_e's coefficient r.
 * The sums do not depend on split (1, 2 or 4) or the launch sizes, so a
 * partition's colours, whose sizes choose the split, give the bits of one
 * process; they agree with the CPU's sweeps (which sum each row in one
 * piece) to rounding.
 * DIM = 0: any mesh (nv, nb and the shapes read from the view). DIM > 0:
 * every element has nb = NB modes and nv = DIM + 2 variables
 * (lusgs_sweep_tuned_for): the loops over modes, variables and the row of
 * D⁻¹ are unrolled and their loads independent, with the same sums in the
 * same order, so the same bits. */
template <int DIM, int NB>
static __global__ void
lusgs_sweep_split_kernel(const __grid_constant__ dg_disc_view view, int which, int64_t first,
                         const int64_t *list, int64_t count, const double *R, double *dU,
                         lusgs_sweep_data sd, int split, int epb, int64_t elem_doubles) {
  extern __shared__ double lusgs_shared[];
  /* epb elements per block, each on its own blockDim.x / epb threads and
   * elem_doubles of shared memory; a slot past the colour's end runs
   * through the barriers with nothing to do */
  const int T = blockDim.x / epb, slot = threadIdx.x / T, t = threadIdx.x - slot * T;
  const int64_t i_elem = (int64_t)blockIdx.x * epb + slot;
  const int valid = i_elem < count;
  const int64_t e = coloring_list_element(first, list, valid ? i_elem : (int64_t)blockIdx.x * epb);
  constexpr int NVC = DIM ? DIM + 2 : 0;
  const int s = view.elem_shape[e], nb = DIM ? NB : view.nb[s], nv = DIM ? NVC : view.nvar;
  const int n = valid ? nv * nb : 0;
  const int nqf = view.nqf, nf = valid ? shape_n_faces((dg_shape)s) : 0, ntask = nf * nqf * nv;
  double *tr = lusgs_shared + slot * elem_doubles, *h = tr + ntask, *b = h + ntask, *part = b + n;
  /* per face: lusgs_team_offdiag_entry's meta pair (taken, e's orientation
   * code), the neighbour taken (−1: none), the face, and j's local face,
   * j's orientation code, e's orientation code, e's side (after the
   * LUSGS_SPLIT_MAX partial sums of every row that phase 3 may write) */
  double *meta = part + (int64_t)LUSGS_SPLIT_MAX * n;
  int64_t *fj = (int64_t *)(meta + 2 * nf), *ff = fj + nf;
  int *fi = (int *)(ff + nf);
  if (t < nf) {
    int side;
    const int64_t f = lusgs_face_side(&view, e, t, &side);
    const int64_t j = view.face_elem[2 * f + (1 - side)];
    int taken = j >= 0 && j != e;
    if (taken) {
      const int32_t cj = sd.color[j], ce = sd.color[e];
      taken = which == LUSGS_LOWER ? cj < ce : (which == LUSGS_UPPER ? cj > ce : 1);
    }
    fj[t] = taken ? j : -1;
    ff[t] = f;
    fi[4 * t] = view.face_local[2 * f + (1 - side)];
    fi[4 * t + 1] = side ? 0 : view.face_orient[f];
    fi[4 * t + 2] = side ? view.face_orient[f] : 0;
    fi[4 * t + 3] = side;
    meta[2 * t] = taken ? 1.0 : 0.0;
    meta[2 * t + 1] = fi[4 * t + 2];
  }
  __syncthreads();
  for (int k = t; k < ntask; k += T) {
    const int pq = k / nv, v = k - pq * nv, lf = pq / nqf, q = pq - lf * nqf;
    const int64_t j = fj[lf];
    if (j < 0) continue;
    double sum = 0.0;
    if constexpr (DIM > 0) { /* j has e's shape: its coefficients (v, m) at base + m n_shape */
      const double *phi =
          view.face_phi + view.face_table[s][fi[4 * lf]][fi[4 * lf + 1]] + (int64_t)q * NB;
      const double *Uj = dU + disc_coef_index(&view, j, v, 0);
      const int64_t stride = view.n_shape[s];
#pragma unroll
      for (int m = 0; m < NB; ++m) sum += phi[m] * Uj[m * stride];
    } else {
      const int sj = view.elem_shape[j], nbj = view.nb[sj];
      const double *phi =
          view.face_phi + view.face_table[sj][fi[4 * lf]][fi[4 * lf + 1]] + (int64_t)q * nbj;
      for (int m = 0; m < nbj; ++m) sum += phi[m] * dU[disc_coef_index(&view, j, v, m)];
    }
    tr[k] = sum;
  }
  __syncthreads();
  for (int k = t; k < ntask; k += T) {
    const int pq = k / nv, v = k - pq * nv, lf = pq / nqf, q = pq - lf * nqf;
    if (fj[lf] < 0) continue;
    const int side = fi[4 * lf + 3];
    const int64_t kq = ff[lf] * nqf + q;
    const double *J = sd.face_jac + (kq * 2 + (1 - side)) * nv * nv + v * nv;
    const double *trq = tr + (int64_t)(lf * nqf + q) * nv;
    double sum = 0.0;
    if constexpr (DIM > 0) {
#pragma unroll
      for (int w = 0; w < NVC; ++w) sum += J[w] * trq[w];
    } else {
      for (int w = 0; w < nv; ++w) sum += J[w] * trq[w];
    }
    h[k] = (side ? -1.0 : 1.0) * view.face_wsJ[kq] * sum;
  }
  __syncthreads();
  for (int r = t; r < n; r += T) {
    const int v = r / nb;
    double a;
    if constexpr (DIM > 0)
      a = lusgs_offdiag_entry_t<NVC, NB>(&view, s, nf, h, meta, r);
    else
      a = lusgs_team_offdiag_entry(&view, e, h, meta, r);
    b[r] = which == LUSGS_UPPER ? a : R[disc_coef_index(&view, e, v, r - v * nb)] - a;
  }
  __syncthreads();
  const double *block = sd.blocks + sd.block_offset[e];
  if constexpr (DIM > 0) {
    if (split == 1) { /* one thread per row, the row unrolled */
      constexpr int N = NVC * NB;
      for (int r = t; r < n; r += T) {
        const double sum = sd.single ? lusgs_row_sum_t<N>((const float *)block, r, b)
                                     : lusgs_row_sum_t<N>(block, r, b);
        lusgs_sweep_store(&view, e, which, r, sum, dU);
      }
      return;
    }
  }
  /* row r of D⁻¹ b: LUSGS_SPLIT_MAX partial sums over fixed column ranges,
   * added in order; thread (g, r) forms LUSGS_SPLIT_MAX / split of them */
  const int rows = T / split, chunk = (n + LUSGS_SPLIT_MAX - 1) / LUSGS_SPLIT_MAX;
  const int per = LUSGS_SPLIT_MAX / split;
  for (int k = t; k < split * rows; k += T) {
    const int g = k / rows, r = k % rows;
    if (r >= n) continue;
    double p[LUSGS_SPLIT_MAX];
#pragma unroll
    for (int c = 0; c < LUSGS_SPLIT_MAX; ++c) {
      if (c >= per) break;
      const int j0 = (g * per + c) * chunk, j1 = min(n, j0 + chunk);
      p[c] = sd.single ? lusgs_split_sum((const float *)block, n, r, j0, j1, b)
                       : lusgs_split_sum(block, n, r, j0, j1, b);
    }
    if (split == 1) {
      double sum = 0.0;
#pragma unroll
      for (int c = 0; c < LUSGS_SPLIT_MAX; ++c) sum += p[c];
      lusgs_sweep_store(&view, e, which, r, sum, dU);
    } else {
#pragma unroll
      for (int c = 0; c < LUSGS_SPLIT_MAX; ++c)
        if (c < per) part[(g * per + c) * n + r] = p[c];
    }
  }
  if (split == 1) return;
  __syncthreads();
  for (int r = t; r < n; r += T) {
    double sum = 0.0;
    for (int c = 0; c < LUSGS_SPLIT_MAX; ++c) sum += part[c * n + r];
    lusgs_sweep_store(&view, e, which, r, sum, dU);
  }
}

/* The (dim, nb) lusgs_sweep_split_kernel<DIM, NB> is built for: where it
 * measured faster than the generic form (H200, 2026-11-29, bench_lusgs,
 * the sweeps of one iteration tuned / generic). NACA level 3 triangles
 * p = 1 (n = 12) 588.3 / 761.8 µs, p = 2 (n = 24) 996.9 / 1,101.9 µs,
 * p = 3 (n = 40) 1,885.9 / 2,233.2 µs; ONERA M6 level 0 tetrahedra
 * (tests/data) p = 1 (n = 20) 288.2 / 332.6 µs, p = 2 (n = 50) 603.5 /
 * 721.6 µs, p = 3 (n = 100) 1,632.9 / 1,740.6 µs. Rows of n > 24 are
 * unrolled by 4 only (lusgs_row_sum_t): fully unrolled, p = 3 tetrahedra
 * took 0.70x the generic kernel's speed. Not measured, so not built: p = 0
 * and quadrilaterals. */
#define LUSGS_SWEEP_SHAPES(X) X(2, 3) X(2, 6) X(2, 10) X(3, 4) X(3, 10) X(3, 20)

/* lusgs_sweep_split_kernel<DIM, NB> for a mesh whose elements all have
 * shape s, or NULL where it is not built for s's modes. */
static lusgs_sweep_kernel_fn lusgs_sweep_tuned_for(const dg_disc_view *d, int s) {
  const int key = d->dim * 100 + d->nb[s];
#define LUSGS_SWEEP_CASE(DIM, NB)                                                                  \
  if (key == (DIM)*100 + (NB)) return lusgs_sweep_split_kernel<DIM, NB>;
  LUSGS_SWEEP_SHAPES(LUSGS_SWEEP_CASE)
#undef LUSGS_SWEEP_CASE
  return NULL;
}

/* y_e (written) = D_e⁻¹ x_e for every element (x read). */
static __global__ void lusgs_apply_inverse_kernel(const __grid_constant__ dg_disc_view view,
                                                  int inverse, const double *x, double *y,
                                                  lusgs_sweep_data sd) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= view.n_elems || !disc_elem_owned(&view, e)) return; /* ghosts: their owners' rows */
  const int s = view.elem_shape[e], nb = view.nb[s], nv = view.nvar;
  double b[LUSGS_MAX_BLOCK];
  residual_load(&view, x, e, b);
  const double *block = sd.blocks + sd.block_offset[e];
  if (inverse && sd.single) {
    lusgs_apply_inverse_single(&view, e, (const float *)block, b, 1.0, y);
    return;
  }
  if (inverse) {
    lusgs_apply_stored_inverse(&view, e, block, sd.colmajor, b, 1.0, y);
    return;
  }
  lusgs_lu_solve(nv * nb, block, sd.pivots + sd.pivot_offset[e], b);
  for (int v = 0; v < nv; ++v)
    for (int m = 0; m < nb; ++m) y[disc_coef_index(&view, e, v, m)] = b[v * nb + m];
}

/* U (incremented) += dU (read), one thread per coefficient. */
static __global__ void lusgs_update_kernel(int64_t n, double *U, const double *dU) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) U[i] += dU[i];
}

/* U (incremented) += θ_e dU (read), lusgs_update_element, one thread per
 * element (coalesced: the layout is element-minor). */
static __global__ void lusgs_update_damped_kernel(const __grid_constant__ dg_disc_view view,
                                                  double max_change, double *U, const double *dU) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < view.n_elems) lusgs_update_element(&view, e, U, dU, max_change);
}

/* Artificial viscosity (lusgs_av.h): ε of Uⁿ frozen for one iteration,
 * the viscous part of D_e, and the viscous off-diagonal products. One thread
 * per element or vertex (deep local arrays; few elements carry ε > 0). */
static __global__ void lusgs_av_eps_elem_kernel(const __grid_constant__ dg_disc_view view,
                                                const __grid_constant__ dg_disc_state st,
                                                const double *U, double *eps_elem) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < view.n_elems) eps_elem[e] = av_element_eps(&view, &st, e, U);
}

static __global__ void lusgs_av_eps_vert_kernel(const __grid_constant__ dg_disc_view view,
                                                const double *eps_elem, double *eps_vert) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < view.n_verts) eps_vert[i] = av_vertex_eps(&view, i, eps_elem);
}

static __global__ void lusgs_av_eps_coef_kernel(const __grid_constant__ dg_disc_view view,
                                                const double *eps_elem, const double *eps_vert,
                                                double *eps_c) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < view.n_elems) av_element_coefs(&view, e, eps_elem, eps_vert, eps_c);
}

/* K_e (the unfactored block, incremented) += −∂R^visc_e/∂U_e. */
static __global__ void lusgs_av_block_kernel(const __grid_constant__ dg_disc_view view,
                                             const __grid_constant__ dg_disc_state st,
                                             const double *U, const double *eps_c, double t,
                                             const int64_t *block_offset, double *blocks) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < view.n_elems && disc_elem_owned(&view, e))
    lusgs_av_block_add(&view, &st, e, U, eps_c, t, blocks + block_offset[e]);
}

/* R_out_e = R_e − Σ_{j ∈ which(e)} A^visc_ej dU_j for the elements of one colour. */
static __global__ void lusgs_av_offdiag_kernel(const __grid_constant__ dg_disc_view view, int which,
                                               int64_t first, const int64_t *list, int64_t count,
                                               const int32_t *color, const double *eps_c,
                                               const double *R, const double *dU, double *R_out) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const int64_t e = coloring_list_element(first, list, i);
  double acc[LUSGS_MAX_BLOCK];
  const int n = lusgs_block_size(&view, e), nb = view.nb[view.elem_shape[e]];
  for (int k = 0; k < n; ++k) acc[k] = 0.0;
  lusgs_av_offdiag_add(&view, e, dU, eps_c, color, which, acc);
  for (int v = 0; v < view.nvar; ++v)
    for (int m = 0; m < nb; ++m) {
      const int64_t k = disc_coef_index(&view, e, v, m);
      R_out[k] = R[k] - acc[v * nb + m];
    }
}

/* flag[e] = 1 when row e is viscous (lusgs_av_row_inviscid = 0), else 0. */
static __global__ void lusgs_av_flag_kernel(const __grid_constant__ dg_disc_view view,
                                            const double *eps_c, int32_t *flag) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < view.n_elems) /* ghosts: their owners' rows */
    flag[e] = disc_elem_owned(&view, e) && !lusgs_av_row_inviscid(&view, e, eps_c);
}

/* K_e −= column c of ∂R^visc_e/∂U_e for thread (slot, c), slot < n_visc
 * (rows[slot] = e), c < cols (the columns past the element's own count
 * idle): lusgs_av_block_column. */
static __global__ void lusgs_av_block_team_kernel(const __grid_constant__ dg_disc_view view,
                                                  const __grid_constant__ dg_disc_state st,
                                                  int64_t n_visc, int cols, const int64_t *rows,
                                                  const double *U, const double *eps_c, double t,
                                                  const int64_t *block_offset, double *blocks) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t slot = i / cols;
  if (slot >= n_visc) return;
  const int c = (int)(i - slot * cols);
  const int64_t e = rows[slot];
  const int n = lusgs_block_size(&view, e);
  const int boundary = lusgs_av_has_boundary(&view, e);
  if (c >= (boundary ? n : n / view.nvar)) return;
  lusgs_av_block_column(&view, &st, e, U, eps_c, t, boundary, c, blocks + block_offset[e]);
}

/* The couplings of viscous row rows[slot], one thread per (slot, lf, k),
 * lf < nf_max, k < nb_max: column k of C_ej of face lf (written to
 * C[slot*row + lf*face + k*nb_e ...]; lusgs_av_coupling_column). */
static __global__ void lusgs_av_coupling_kernel(const __grid_constant__ dg_disc_view view,
                                                int64_t n_visc, int nf_max, int nb_max,
                                                const int64_t *rows, const double *eps_c,
                                                int64_t face_doubles, int64_t row_doubles,
                                                double *C) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t per = (int64_t)nf_max * nb_max, slot = i / per;
  if (slot >= n_visc) return;
  const int rem = (int)(i - slot * per), lf = rem / nb_max, k = rem - lf * nb_max;
  const int64_t e = rows[slot];
  const int s = view.elem_shape[e], nb = view.nb[s];
  if (lf >= shape_n_faces((dg_shape)s)) return;
  double col[DG_MAX_BASIS];
  lusgs_av_coupling_column(&view, e, lf, k, eps_c, col);
  double *dst = C + slot * row_doubles + lf * face_doubles + (int64_t)k * nb;
  for (int m = 0; m < nb; ++m) dst[m] = col[m];
}

/* R_out_e = R_e − Σ_{j ∈ which(e)} A^visc_ej dU_j for the `count` elements
 * of one colour, one warp each (blockDim.x / 32 per block), lanes over the
 * entries: the formed couplings of viscous rows (slot[e] >= 0), R_e itself
 * on the others. */
static __global__ void lusgs_av_product_kernel(const __grid_constant__ dg_disc_view view, int which,
                                               int64_t first, const int64_t *list, int64_t count,
                                               const int32_t *color, const int32_t *slot,
                                               const double *C, int64_t face_doubles,
                                               int64_t row_doubles, const double *R,
                                               const double *dU, double *R_out) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t i = (int64_t)blockIdx.x * (blockDim.x >> 5) + warp;
  if (i >= count) return;
  const int64_t e = coloring_list_element(first, list, i);
  const int nb = view.nb[view.elem_shape[e]], n = view.nvar * nb;
  const int32_t sl = slot[e];
  for (int r = lane; r < n; r += 32) {
    const int v = r / nb;
    const int64_t k = disc_coef_index(&view, e, v, r - v * nb);
    R_out[k] = sl < 0 ? R[k]
                      : R[k] - lusgs_av_coupling_entry(&view, e, C + (int64_t)sl * row_doubles,
                                                       face_doubles, dU, color, which, r);
  }
}

/* ------------------------------------------------------------ set-up */

static void lusgs_cuda_destroy(lusgs_ctx *x) {
  if (!x) return;
  gpu_free(x->d_color);
  gpu_free(x->d_color_elems);
  gpu_free(x->d_block_offset);
  gpu_free(x->d_pivot_offset);
  gpu_free(x->d_blocks);
  gpu_free(x->d_pivots);
  gpu_free(x->d_face_jac);
  gpu_free(x->d_bad);
  gpu_free(x->d_lu);
  gpu_free(x->d_lu_ptr);
  gpu_free(x->d_inv_ptr);
  gpu_free(x->d_info);
  gpu_free(x->d_eps_elem);
  gpu_free(x->d_eps_vert);
  gpu_free(x->d_eps_c);
  gpu_free(x->d_av_flag);
  gpu_free(x->d_av_slot);
  gpu_free(x->d_av_rows);
  gpu_free(x->d_av_coupling);
  free(x->h_av_flag);
  free(x->h_av_slot);
  free(x->h_av_rows);
  if (x->cublas) cublasDestroy(x->cublas);
  if (x->graph_exec) cudaGraphExecDestroy(x->graph_exec);
  if (x->graph_stream) cudaStreamDestroy(x->graph_stream);
  free(x->graph_key);
  free(x->h_block_offset);
  free(x->h_pivot_offset);
  free(x);
}

/* gpu_malloc of `count` T (category c) into *ptr, counted in x->bytes (at
 * least one T). The sizes are those of backend_cuda_plan_bytes. */
template <typename T>
static dg_status device_alloc(lusgs_ctx *x, T **ptr, int64_t count, gpu_mem_category c) {
  const size_t bytes = (size_t)(count > 0 ? count : 1) * sizeof(T);
  DG_CALL_CUDA(gpu_malloc((void **)ptr, bytes, c));
  x->bytes += bytes;
  return DG_SUCCESS;
}

template <typename T>
static dg_status device_upload(lusgs_ctx *x, T **ptr, const T *h, int64_t count,
                               gpu_mem_category c) {
  DG_CALL(device_alloc(x, ptr, count, c));
  if (count > 0)
    DG_CALL_CUDA(cudaMemcpy(*ptr, h, (size_t)count * sizeof(T), cudaMemcpyHostToDevice));
  return DG_SUCCESS;
}

/* The device copies of the colouring's colours and per-colour element lists
 * (made once, by coloring_build / coloring_from_colors). */
static dg_status lusgs_cuda_setup_colors(lusgs_ctx *x) {
  const dg_coloring *col = x->coloring;
  DG_CALL(device_upload(x, &x->d_color, (const int32_t *)col->color, x->n_elems, GPU_MEM_WORK));
  DG_CALL(device_upload(x, &x->d_color_elems, (const int64_t *)col->color_elems, x->n_elems,
                        GPU_MEM_WORK));
  return DG_SUCCESS;
}

/* Block and pivot offsets, block storage, face Jacobians, the failure flag; decides
 * which shapes the team assembly fits. h: the host view. */
static dg_status lusgs_cuda_setup_blocks(lusgs_ctx *x, const dg_disc_view *h) {
  const int64_t ne = x->n_elems;
  x->h_block_offset = (int64_t *)calloc((size_t)ne + 1, sizeof(int64_t));
  x->h_pivot_offset = (int64_t *)calloc((size_t)ne + 1, sizeof(int64_t));
  DG_CHECK(x->h_block_offset && x->h_pivot_offset, DG_ERR_MEMORY,
           "lusgs cuda: out of host memory for the block offsets of %lld elements", (long long)ne);
  for (int64_t e = 0; e < ne; ++e) {
    const int64_t n = lusgs_block_size(h, e);
    x->h_block_offset[e + 1] = x->h_block_offset[e] + n * n;
    x->h_pivot_offset[e + 1] = x->h_pivot_offset[e] + n;
  }
  DG_CALL(device_upload(x, &x->d_block_offset, (const int64_t *)x->h_block_offset, ne + 1,
                        GPU_MEM_LUSGS_BLOCKS));
  DG_CALL(device_upload(x, &x->d_pivot_offset, (const int64_t *)x->h_pivot_offset, ne + 1,
                        GPU_MEM_LUSGS_BLOCKS));
  DG_CALL(device_alloc(x, &x->d_blocks, x->h_block_offset[ne], GPU_MEM_LUSGS_BLOCKS));
  DG_CALL(device_alloc(x, &x->d_pivots, x->h_pivot_offset[ne], GPU_MEM_LUSGS_BLOCKS));
  x->block_bytes = (size_t)x->h_block_offset[ne] * sizeof(double) +
                   (size_t)x->h_pivot_offset[ne] * sizeof(int32_t);
  DG_CALL(device_alloc(x, &x->d_face_jac, x->n_faces * h->nqf * 2 * h->nvar * h->nvar,
                       GPU_MEM_FACE_JAC));
  DG_CALL(device_alloc(x, &x->d_bad, 1, GPU_MEM_WORK));
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (h->n_shape[s] <= 0) continue;
    const size_t bytes = (size_t)lusgs_team_assemble_doubles(h, s) * sizeof(double);
    /* each element with its own volume rule (disc_elem_rule: the affine
     * elements' lower one with affine_rule = reduced); the shared memory is
     * sized for the larger */
    x->team_asm_ok[s] = bytes <= LUSGS_TEAM_MAX_SMEM;
    if (bytes > 48 * 1024 && x->team_asm_ok[s])
      DG_CALL_CUDA(cudaFuncSetAttribute((const void *)lusgs_assemble_team_kernel,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        LUSGS_TEAM_MAX_SMEM));
    x->rows_ok[s] = x->team_asm_ok[s] && lusgs_rows_supported(h, s);
    if (x->rows_ok[s]) DG_CALL(lusgs_rows_launch(x, s, NULL, NULL, NULL, 1));
    x->warp_ok[s] = lusgs_warp_supported(h, s);
    if (x->warp_ok[s]) {
      const int n = h->nvar * h->nb[s];
      x->warp_fuse_ok[s] =
          (size_t)lusgs_warp_doubles(lusgs_team_assemble_doubles(h, s), n) * sizeof(double) <=
          LUSGS_WARP_FUSE_MAX_BYTES;
      for (int fused = 0; fused < 2; ++fused)
        DG_CALL(lusgs_warp_launch(x, s, fused, NULL, NULL, NULL, 1));
    }
    const int64_t sweep_doubles = lusgs_team_sweep_doubles(h, s);
    if (sweep_doubles > x->sweep_warp_doubles) x->sweep_warp_doubles = (int)sweep_doubles;
    const int n = h->nvar * h->nb[s];
    if (32 * ((n + 31) / 32) > x->sweep_rows_threads) x->sweep_rows_threads = 32 * ((n + 31) / 32);
    if (!x->warp_ok[s] && n <= LUSGS_GJT_MAX_N && lusgs_gj_team_smem(n) > 48 * 1024)
      DG_CALL_CUDA(cudaFuncSetAttribute((const void *)lusgs_gj_team_kernel,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        LUSGS_TEAM_MAX_SMEM));
    /* + n pivots of the TEAM_INVERSE kernel */
    const size_t lu_bytes = ((size_t)n * n + 32) * sizeof(double) + (34 + (size_t)n) * sizeof(int);
    if (lu_bytes > 48 * 1024)
      for (int inverse = 0; inverse < 2; ++inverse)
        DG_CALL_CUDA(cudaFuncSetAttribute(inverse ? (const void *)lusgs_factor_team_kernel<1>
                                                  : (const void *)lusgs_factor_team_kernel<0>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          LUSGS_TEAM_MAX_SMEM));
  }
  for (int inverse = 0; inverse < 2; ++inverse)
    DG_CALL_CUDA(cudaFuncSetAttribute(inverse ? (const void *)lusgs_sweep_team_kernel<1>
                                              : (const void *)lusgs_sweep_team_kernel<0>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      LUSGS_TEAM_MAX_SMEM));
  /* a single shape: the tuned face Jacobians (mixed meshes keep the generic kernel) */
  const int shape = disc_single_shape(h);
  x->face_jac_shape = shape >= 0 && lusgs_face_jac_team_supported(h, shape) ? shape : -1;
  if (x->face_jac_shape >= 0) DG_CALL(lusgs_face_jac_team_launch(x, shape, NULL, 0.0, 1));
  x->sweep_split_smem = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (h->n_shape[s] <= 0) continue;
    const size_t nf = (size_t)shape_n_faces((dg_shape)s), n = (size_t)h->nvar * h->nb[s];
    const size_t bytes =
        (2 * nf * h->nqf * h->nvar + n + LUSGS_SPLIT_MAX * n + 2 * nf) * sizeof(double) +
        nf * (2 * sizeof(int64_t) + 4 * sizeof(int));
    if (bytes > x->sweep_split_smem) x->sweep_split_smem = bytes;
  }
  DG_CALL_CUDA(cudaFuncSetAttribute((const void *)lusgs_sweep_split_kernel<0, 0>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    LUSGS_TEAM_MAX_SMEM));
  x->sweep_tuned_kernel = shape >= 0 ? lusgs_sweep_tuned_for(h, shape) : NULL;
  if (x->sweep_tuned_kernel) {
    DG_CALL_CUDA(cudaFuncSetAttribute((const void *)x->sweep_tuned_kernel,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      LUSGS_TEAM_MAX_SMEM));
    cudaFuncAttributes attributes;
    DG_CALL_CUDA(cudaFuncGetAttributes(&attributes, (const void *)x->sweep_tuned_kernel));
    x->sweep_tuned_threads = attributes.maxThreadsPerBlock / 32 * 32;
    /* a block too large for its registers: the generic form */
    if (x->sweep_tuned_threads < x->sweep_rows_threads) x->sweep_tuned_kernel = NULL;
  }
  return DG_SUCCESS;
}

/* The most threads per block each kernel can launch with (multiples of 32). */
static dg_status lusgs_cuda_query_limits(lusgs_ctx *x) {
  const void *kernels[K_COUNT] = {
      (const void *)lusgs_face_jac_kernel,       (const void *)lusgs_assemble_thread_kernel,
      (const void *)lusgs_assemble_team_kernel,  (const void *)lusgs_factor_thread_kernel,
      (const void *)lusgs_factor_team_kernel<0>, (const void *)lusgs_check_cublas_kernel,
      (const void *)lusgs_solve_kernel<0>,       (const void *)lusgs_solve_kernel<1>,
      (const void *)lusgs_backward_kernel<0>,    (const void *)lusgs_backward_kernel<1>,
      (const void *)lusgs_sweep_team_kernel<0>,  (const void *)lusgs_sweep_team_kernel<1>,
      (const void *)lusgs_apply_inverse_kernel,  (const void *)lusgs_update_kernel,
      (const void *)lusgs_factor_team_kernel<1>, (const void *)lusgs_sweep_split_kernel<0, 0>};
  for (int k = 0; k < K_COUNT; ++k) {
    cudaFuncAttributes attributes;
    DG_CALL_CUDA(cudaFuncGetAttributes(&attributes, kernels[k]));
    x->max_threads[k] = attributes.maxThreadsPerBlock / 32 * 32;
    DG_CHECK(x->max_threads[k] >= 32, DG_ERR_CUDA,
             "lusgs cuda: kernel %d launches with at most %d threads per block", k,
             attributes.maxThreadsPerBlock);
  }
  DG_CHECK(x->sweep_rows_threads <= x->max_threads[K_SWEEP_SPLIT], DG_ERR_CUDA,
           "lusgs cuda: the sweep needs %d threads per block (one per row of the largest "
           "block), the kernel launches with at most %d",
           x->sweep_rows_threads, x->max_threads[K_SWEEP_SPLIT]);
  DG_CHECK(x->sweep_split_smem <= LUSGS_TEAM_MAX_SMEM, DG_ERR_CUDA,
           "lusgs cuda: the sweep needs %zu bytes of shared memory per element, at most %d",
           x->sweep_split_smem, (int)LUSGS_TEAM_MAX_SMEM);
  return DG_SUCCESS;
}

/* The viscous-row flags, slots and lists (host and device) and the
 * coupling layout; the couplings themselves grow with the viscous rows
 * (lusgs_cuda_av_team_assembly). */
static dg_status lusgs_cuda_setup_av(lusgs_ctx *x, const dg_disc_view *h) {
  const int64_t ne = x->n_elems;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (h->n_shape[s] <= 0) continue;
    if (shape_n_faces((dg_shape)s) > x->av_nf) x->av_nf = shape_n_faces((dg_shape)s);
    if (h->nb[s] > x->av_nb) x->av_nb = h->nb[s];
  }
  x->av_face_doubles = (int64_t)x->av_nb * x->av_nb;
  x->av_row_doubles = x->av_nf * x->av_face_doubles;
  x->h_av_flag = (int32_t *)calloc((size_t)(ne > 0 ? ne : 1), sizeof(int32_t));
  x->h_av_slot = (int32_t *)calloc((size_t)(ne > 0 ? ne : 1), sizeof(int32_t));
  x->h_av_rows = (int64_t *)calloc((size_t)(ne > 0 ? ne : 1), sizeof(int64_t));
  DG_CHECK(x->h_av_flag && x->h_av_slot && x->h_av_rows, DG_ERR_MEMORY,
           "lusgs cuda: out of host memory for the viscous rows of %lld elements", (long long)ne);
  DG_CALL(device_alloc(x, &x->d_av_flag, ne, GPU_MEM_AV));
  DG_CALL(device_alloc(x, &x->d_av_slot, ne, GPU_MEM_AV));
  DG_CALL(device_alloc(x, &x->d_av_rows, ne, GPU_MEM_AV));
  return DG_SUCCESS;
}

/* The local-memory reservation the driver will add when the artificial-
 * viscosity kernels first launch: their per-thread stack frames (10-13 KB:
 * local arrays of a whole block column) times the resident threads of every
 * multiprocessor, less the stack already reserved (3.2 GiB on an H100 at
 * p = 1: docs/PERFORMANCE.md, "GPU memory"). 0 when it cannot be read. */
static size_t lusgs_cuda_av_stack_bytes(void) {
  const void *kernels[3] = {(const void *)lusgs_av_block_kernel,
                            (const void *)lusgs_av_block_team_kernel,
                            (const void *)lusgs_av_coupling_kernel};
  size_t most = 0, now = 0;
  for (int k = 0; k < 3; ++k) {
    cudaFuncAttributes attributes;
    if (cudaFuncGetAttributes(&attributes, kernels[k]) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    if (attributes.localSizeBytes > most) most = attributes.localSizeBytes;
  }
  int device = 0, threads = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetLimit(&now, cudaLimitStackSize) != cudaSuccess ||
      cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device) !=
          cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return most > now ? (most - now) * (size_t)threads * (size_t)sms : 0;
}

static dg_status lusgs_cuda_create(dg_backend_ctx *bctx, const dg_disc *disc,
                                   const dg_coloring *coloring, lusgs_ctx **out) {
  /* the arguments were checked by lusgs_create */
  *out = NULL;
  const dg_disc_view *h = &disc->view;
  const dg_disc_view *d = backend_cuda_view(bctx);
  DG_CHECK(d->n_elems == h->n_elems && d->n_faces == h->n_faces && d->n_coefs == h->n_coefs,
           DG_ERR_ARG,
           "lusgs cuda: the discretisation (%lld elements) is not the one the CUDA context was "
           "made from (%lld elements)",
           (long long)h->n_elems, (long long)d->n_elems);
  {
    /* refuse before allocating when the plan does not fit (worst-case AV
     * couplings: every element viscous) */
    gpu_plan_sizes sizes;
    gpu_plan_sizes_from_disc(disc, &sizes);
    const gpu_plan_opts po = {1, 0, -1, 0};
    gpu_mem_plan plan;
    backend_cuda_plan_bytes(&sizes, &po, &plan);
    const size_t stack = h->av != DG_AV_OFF ? lusgs_cuda_av_stack_bytes() : 0;
    DG_CALL(gpu_mem_check_free(stack ? "LU-SGS on the GPU (diagonal blocks, face Jacobians, AV "
                                       "couplings and the AV kernels' stack reservation)"
                                     : "LU-SGS on the GPU (diagonal blocks, face Jacobians)",
                               plan.lusgs + stack));
  }
  DG_CHECK(gpu_lusgs_factor_choice() >= 0, DG_ERR_ARG,
           "lusgs cuda: environment variable COLORDG_LUSGS_FACTOR=%s; expected thread, team, "
           "cublas, team_inverse or warp_inverse",
           getenv("COLORDG_LUSGS_FACTOR"));
  const char *face_jac = getenv("COLORDG_LUSGS_FACE_JAC");
  DG_CHECK(!face_jac || !*face_jac || !strcmp(face_jac, "tuned") || !strcmp(face_jac, "generic"),
           DG_ERR_ARG,
           "lusgs cuda: environment variable COLORDG_LUSGS_FACE_JAC=%s; expected tuned or generic",
           face_jac);
  lusgs_ctx *x = (lusgs_ctx *)calloc(1, sizeof *x);
  DG_CHECK(x != NULL, DG_ERR_MEMORY, "lusgs cuda: out of host memory");
  x->view = *d;
  x->bstate = backend_cuda_state(bctx);
  x->bctx = bctx;
  x->state = *x->bstate;
  x->coloring = coloring;
  x->n_colors = coloring->n_colors;
  x->threads = LUSGS_CUDA_DEFAULT_THREADS;
  x->team_threads = LUSGS_CUDA_DEFAULT_TEAM_THREADS;
  x->tet_asm_threads = LUSGS_CUDA_DEFAULT_TET_ASM_THREADS;
  x->sweep = LUSGS_CUDA_SWEEP_TEAM;
  x->assemble = LUSGS_CUDA_ASSEMBLE_TEAM;
  x->factor = (lusgs_cuda_factor)gpu_lusgs_factor_choice();
  x->av_variant = LUSGS_CUDA_AV_TEAM;
  x->fuse = 1;
  x->gj_team = 1;
  x->asm_rows = 1;
  x->face_jac_team = !(face_jac && !strcmp(face_jac, "generic"));
  x->face_jac_shape = -1;
  x->sweep_tuned = 1;
  x->n_elems = h->n_elems;
  x->n_faces = h->n_faces;
  x->n_coefs = h->n_coefs;
  dg_status status = lusgs_cuda_setup_colors(x);
  if (status == DG_SUCCESS) status = lusgs_cuda_setup_blocks(x, h);
  if (status == DG_SUCCESS) status = lusgs_cuda_query_limits(x);
  if (status == DG_SUCCESS && h->av != DG_AV_OFF) {
    status = device_alloc(x, &x->d_eps_elem, h->n_elems, GPU_MEM_AV);
    if (status == DG_SUCCESS) status = device_alloc(x, &x->d_eps_vert, h->n_verts, GPU_MEM_AV);
    if (status == DG_SUCCESS)
      status = device_alloc(x, &x->d_eps_c, h->n_elems * DG_AV_NLIN, GPU_MEM_AV);
    if (status == DG_SUCCESS) status = lusgs_cuda_setup_av(x, h);
  }
  if (status != DG_SUCCESS) {
    dg_error_trace(__FILE__, __LINE__, __func__);
    lusgs_cuda_destroy(x);
    return status;
  }
  *out = x;
  return DG_SUCCESS;
}

/* The cuBLAS handle, the LU copy, the pointer arrays and info (first use). */
/* The second copy of the blocks, d_lu (first use): the LU factors getri
 * reads (CUBLAS) or the team LU factors kept for the matvec (TEAM_INVERSE). */
static dg_status lusgs_cuda_setup_lu_copy(lusgs_ctx *x) {
  if (x->d_lu) return DG_SUCCESS;
  const int64_t ne = x->n_elems;
  DG_CALL(device_alloc(x, &x->d_lu, x->h_block_offset[ne], GPU_MEM_LUSGS_BLOCKS));
  x->block_bytes += (size_t)x->h_block_offset[ne] * sizeof(double);
  return DG_SUCCESS;
}

static dg_status lusgs_cuda_setup_cublas(lusgs_ctx *x) {
  if (x->cublas) return DG_SUCCESS;
  const int64_t ne = x->n_elems;
  DG_CALL(lusgs_cuda_setup_lu_copy(x));
  double **h_lu = (double **)calloc((size_t)ne, sizeof(double *));
  double **h_inv = (double **)calloc((size_t)ne, sizeof(double *));
  dg_status status = DG_SUCCESS;
  if (!h_lu || !h_inv)
    status = dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                          "lusgs cuda: out of host memory for %lld block pointers", (long long)ne);
  for (int64_t e = 0; e < ne && status == DG_SUCCESS; ++e) {
    h_lu[e] = x->d_lu + x->h_block_offset[e];
    h_inv[e] = x->d_blocks + x->h_block_offset[e];
  }
  if (status == DG_SUCCESS)
    status = device_upload(x, &x->d_lu_ptr, (double *const *)h_lu, ne, GPU_MEM_LUSGS_BLOCKS);
  if (status == DG_SUCCESS)
    status = device_upload(x, &x->d_inv_ptr, (double *const *)h_inv, ne, GPU_MEM_LUSGS_BLOCKS);
  if (status == DG_SUCCESS) status = device_alloc(x, &x->d_info, 2 * ne, GPU_MEM_LUSGS_BLOCKS);
  free(h_lu);
  free(h_inv);
  DG_CALL(status);
  cublasHandle_t handle = NULL;
  DG_CALL_CUBLAS(cublasCreate(&handle));
  x->cublas = handle;
  return DG_SUCCESS;
}

/* ------------------------------------------------------------ operations */

/* Threads per block of the deep per-thread AV kernels (local arrays). */
#define LUSGS_AV_THREADS 64

/* TEAM viscous assembly after ε (d_eps_c): the flags, copied back (host
 * sync), the slots and row list built on the host and uploaded; the
 * couplings grown to the viscous rows; then the viscous block columns (into
 * out, the unfactored blocks) and the couplings. */
static dg_status lusgs_cuda_av_team_assembly(lusgs_ctx *x, const double *U, double t, double *out) {
  const int64_t ne = x->n_elems;
  x->av_ready = 0;
  if (ne <= 0) return DG_SUCCESS;
  const int threads = LUSGS_AV_THREADS;
  lusgs_av_flag_kernel<<<(unsigned)blocks_for(ne, threads), threads>>>(x->view, x->d_eps_c,
                                                                       x->d_av_flag);
  DG_CHECK_LAUNCH("lusgs_av_flag_kernel");
  DG_CALL_CUDA(
      cudaMemcpy(x->h_av_flag, x->d_av_flag, (size_t)ne * sizeof(int32_t), cudaMemcpyDeviceToHost));
  int64_t nv = 0;
  for (int64_t e = 0; e < ne; ++e) {
    x->h_av_slot[e] = x->h_av_flag[e] ? (int32_t)nv : -1;
    if (x->h_av_flag[e]) x->h_av_rows[nv++] = e;
  }
  x->n_visc = nv;
  DG_CALL_CUDA(
      cudaMemcpy(x->d_av_slot, x->h_av_slot, (size_t)ne * sizeof(int32_t), cudaMemcpyHostToDevice));
  if (nv > 0)
    DG_CALL_CUDA(cudaMemcpy(x->d_av_rows, x->h_av_rows, (size_t)nv * sizeof(int64_t),
                            cudaMemcpyHostToDevice));
  if (nv > x->av_capacity) {
    /* grow by a quarter beyond the need (a moving shock changes the count) */
    int64_t cap = nv + nv / 4;
    if (cap > ne) cap = ne;
    if (x->d_av_coupling) {
      gpu_free(x->d_av_coupling);
      x->bytes -= (size_t)x->av_capacity * (size_t)x->av_row_doubles * sizeof(double);
      x->d_av_coupling = NULL;
      x->av_capacity = 0;
    }
    DG_CALL(device_alloc(x, &x->d_av_coupling, cap * x->av_row_doubles, GPU_MEM_AV));
    x->av_capacity = cap;
  }
  if (nv > 0) {
    const int cols = x->view.nvar * x->av_nb;
    lusgs_av_block_team_kernel<<<(unsigned)blocks_for(nv * cols, threads), threads>>>(
        x->view, x->state, nv, cols, x->d_av_rows, U, x->d_eps_c, t, x->d_block_offset, out);
    DG_CHECK_LAUNCH("lusgs_av_block_team_kernel");
    const int64_t tasks = nv * x->av_nf * x->av_nb;
    lusgs_av_coupling_kernel<<<(unsigned)blocks_for(tasks, threads), threads>>>(
        x->view, nv, x->av_nf, x->av_nb, x->d_av_rows, x->d_eps_c, x->av_face_doubles,
        x->av_row_doubles, x->d_av_coupling);
    DG_CHECK_LAUNCH("lusgs_av_coupling_kernel");
  }
  x->av_ready = 1;
  return DG_SUCCESS;
}

/* Tells the marcher's profile hook (if attached) that phase begins. */
static dg_status lusgs_cuda_mark(const lusgs_ctx *x, lusgs_phase phase) {
  return x->hook.mark ? x->hook.mark(x->hook.user, phase) : DG_SUCCESS;
}

/* Waits for everything launched (the phase profile's clock). */
static dg_status lusgs_cuda_sync(lusgs_ctx *x) {
  (void)x;
  DG_CALL_CUDA(cudaDeviceSynchronize());
  return DG_SUCCESS;
}

static void lusgs_cuda_set_phase_hook(lusgs_ctx *x, const lusgs_phase_hook *hook) {
  if (!x) return;
  memset(&x->hook, 0, sizeof x->hook);
  if (hook) x->hook = *hook;
}

/* Launches of the assembly (into out: d_blocks, or d_lu for cuBLAS); the
 * viscous phase is marked between the inviscid blocks and the viscous
 * part. */
static dg_status lusgs_cuda_launch_assembly(lusgs_ctx *x, const double *U, double t,
                                            const double *dt, double *out) {
  const dg_disc_view *d = &x->view;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int64_t count = d->n_owned[s]; /* ghosts: their owners' blocks */
    if (count <= 0) continue;
    const int64_t e0 = d->elem_start[s];
    if (lusgs_warp_fused(x, s)) {
      DG_CALL(lusgs_warp_launch(x, s, 1, U, dt, out, 0)); /* D_e⁻¹ */
    } else if (x->assemble == LUSGS_CUDA_ASSEMBLE_TEAM && x->team_asm_ok[s]) {
      if (x->asm_rows && x->rows_ok[s]) {
        DG_CALL(lusgs_rows_launch(x, s, U, dt, out, 0));
        continue;
      }
      const int n = d->nvar * d->nb[s];
      const size_t smem = (size_t)lusgs_team_assemble_doubles(d, s) * sizeof(double);
      const unsigned threads = team_threads(x, K_ASSEMBLE_TEAM, (int64_t)n * n,
                                            s == DG_TET ? x->tet_asm_threads : x->team_threads);
      lusgs_assemble_team_kernel<<<(unsigned)count, threads, smem>>>(x->view, e0, U, x->d_face_jac,
                                                                     dt, x->d_block_offset, out);
      DG_CHECK_LAUNCH("lusgs_assemble_team_kernel");
    } else {
      const int threads = threads_for(x, K_ASSEMBLE_THREAD);
      lusgs_assemble_thread_kernel<<<(unsigned)blocks_for(count, threads), threads>>>(
          x->view, e0, count, U, x->d_face_jac, dt, x->d_block_offset, out);
      DG_CHECK_LAUNCH("lusgs_assemble_thread_kernel");
    }
  }
  DG_CALL(lusgs_cuda_mark(x, LUSGS_PHASE_AV_ASSEMBLY));
  if (d->av != DG_AV_OFF) {
    const int threads = LUSGS_AV_THREADS;
    const unsigned ge = (unsigned)blocks_for(x->n_elems, threads);
    lusgs_av_eps_elem_kernel<<<ge, threads>>>(x->view, x->state, U, x->d_eps_elem);
    DG_CHECK_LAUNCH("lusgs_av_eps_elem_kernel");
    if (d->av == DG_AV_CONTINUOUS && d->n_verts > 0) {
      lusgs_av_eps_vert_kernel<<<(unsigned)blocks_for(d->n_verts, threads), threads>>>(
          x->view, x->d_eps_elem, x->d_eps_vert);
      DG_CHECK_LAUNCH("lusgs_av_eps_vert_kernel");
    }
    lusgs_av_eps_coef_kernel<<<ge, threads>>>(x->view, x->d_eps_elem, x->d_eps_vert, x->d_eps_c);
    DG_CHECK_LAUNCH("lusgs_av_eps_coef_kernel");
    /* a ghost's vertex means miss elements beyond the halo: its owner's ε */
    if (d->av == DG_AV_CONTINUOUS) DG_CALL(backend_cuda_halo_eps(x->bctx, x->d_eps_c));
    if (x->av_variant == LUSGS_CUDA_AV_TEAM) {
      DG_CALL(lusgs_cuda_av_team_assembly(x, U, t, out));
    } else {
      x->av_ready = 0;
      lusgs_av_block_kernel<<<ge, threads>>>(x->view, x->state, U, x->d_eps_c, t, x->d_block_offset,
                                             out);
      DG_CHECK_LAUNCH("lusgs_av_block_kernel");
    }
  }
  return DG_SUCCESS;
}

/* Launches of the factorisation and the failure check (no host sync). */
static dg_status lusgs_cuda_launch_factor(lusgs_ctx *x) {
  const dg_disc_view *d = &x->view;
  if (x->factor == LUSGS_CUDA_FACTOR_CUBLAS) {
    for (int s = 0; s < DG_NUM_SHAPES; ++s) {
      const int64_t count = d->n_owned[s];
      if (count <= 0) continue;
      const int64_t e0 = d->elem_start[s];
      const int n = d->nvar * d->nb[s];
      int *piv = x->d_pivots + x->h_pivot_offset[e0];
      DG_CALL_CUBLAS(
          cublasDgetrfBatched(x->cublas, n, x->d_lu_ptr + e0, n, piv, x->d_info + e0, (int)count));
      DG_CALL_CUBLAS(cublasDgetriBatched(x->cublas, n, (const double *const *)(x->d_lu_ptr + e0), n,
                                         piv, x->d_inv_ptr + e0, n, x->d_info + x->n_elems + e0,
                                         (int)count));
    }
    const int threads = threads_for(x, K_CHECK_CUBLAS);
    lusgs_check_cublas_kernel<<<(unsigned)blocks_for(x->n_elems, threads), threads>>>(
        x->view, x->d_block_offset, x->d_lu, x->d_info, x->d_bad);
    DG_CHECK_LAUNCH("lusgs_check_cublas_kernel");
    return DG_SUCCESS;
  }
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int64_t count = d->n_owned[s]; /* ghosts: their owners' blocks */
    if (count <= 0) continue;
    const int64_t e0 = d->elem_start[s];
    const int n = d->nvar * d->nb[s];
    /* WARP_INVERSE with the LU factors kept, or a block too large for a
     * warp: TEAM_INVERSE */
    const int warp = x->factor == LUSGS_CUDA_FACTOR_WARP_INVERSE && !x->keep_lu && x->warp_ok[s];
    const int gj_team = x->factor == LUSGS_CUDA_FACTOR_WARP_INVERSE && !x->keep_lu &&
                        !x->warp_ok[s] && x->gj_team && n <= LUSGS_GJT_MAX_N;
    if (warp) {
      if (!lusgs_warp_fused(x, s)) /* else done by the assembly */
        DG_CALL(lusgs_warp_launch(x, s, 0, NULL, NULL, x->d_blocks, 0));
    } else if (gj_team) {
      lusgs_gj_team_kernel<<<(unsigned)count, (unsigned)(32 * ((n + 31) / 32)),
                             lusgs_gj_team_smem(n)>>>(e0, n, x->d_block_offset, x->d_blocks,
                                                      x->d_bad, x->single);
      DG_CHECK_LAUNCH("lusgs_gj_team_kernel");
    } else if (x->factor == LUSGS_CUDA_FACTOR_TEAM) {
      const size_t smem = ((size_t)n * n + 32) * sizeof(double) + 34 * sizeof(int);
      const unsigned threads = team_threads(x, K_FACTOR_TEAM, (int64_t)n * n / 4, x->team_threads);
      lusgs_factor_team_kernel<0><<<(unsigned)count, threads, smem>>>(
          e0, n, x->d_block_offset, x->d_blocks, x->d_pivot_offset, x->d_pivots, x->d_bad, NULL);
      DG_CHECK_LAUNCH("lusgs_factor_team_kernel");
    } else if (x->factor == LUSGS_CUDA_FACTOR_TEAM_INVERSE ||
               x->factor == LUSGS_CUDA_FACTOR_WARP_INVERSE) {
      /* + n ints of pivots (lusgs_factor_team_kernel<1>) */
      const size_t smem = ((size_t)n * n + 32) * sizeof(double) + (34 + (size_t)n) * sizeof(int);
      const unsigned threads =
          team_threads(x, K_FACTOR_TEAM_INVERSE, (int64_t)n * n / 4, x->team_threads);
      lusgs_factor_team_kernel<1><<<(unsigned)count, threads, smem>>>(
          e0, n, x->d_block_offset, x->d_blocks, x->d_pivot_offset, x->d_pivots, x->d_bad,
          x->keep_lu ? x->d_lu : NULL);
      DG_CHECK_LAUNCH("lusgs_factor_team_kernel");
      if (x->single) {
        lusgs_inverse_to_single_kernel<<<(unsigned)count, 256>>>(e0, n, x->d_block_offset,
                                                                 x->d_blocks);
        DG_CHECK_LAUNCH("lusgs_inverse_to_single_kernel");
      }
    } else {
      const int threads = threads_for(x, K_FACTOR_THREAD);
      lusgs_factor_thread_kernel<<<(unsigned)blocks_for(count, threads), threads>>>(
          x->view, e0, count, x->d_block_offset, x->d_blocks, x->d_pivot_offset, x->d_pivots,
          x->d_bad);
      DG_CHECK_LAUNCH("lusgs_factor_thread_kernel");
    }
  }
  return DG_SUCCESS;
}

/* Reads the failure flag (host sync) and turns a failure into the error. */
static dg_status lusgs_cuda_check_bad(lusgs_ctx *x, const double *dt) {
  unsigned long long bad = LUSGS_BAD_NONE;
  DG_CALL_CUDA(cudaMemcpy(&bad, x->d_bad, sizeof bad, cudaMemcpyDeviceToHost));
  if (bad == LUSGS_BAD_NONE) return DG_SUCCESS;
  const long long e = (long long)(bad / LUSGS_BAD_STEPS);
  const int step = (int)(bad % LUSGS_BAD_STEPS) - 1;
  double dt_e = 0.0;
  DG_CALL_CUDA(cudaMemcpy(&dt_e, dt + e, sizeof dt_e, cudaMemcpyDeviceToHost));
  DG_ERROR(DG_ERR_DIVERGED,
           "lusgs cuda: the implicit block of element %lld is singular or not finite (pivot %d; "
           "time step %g)",
           e, step, dt_e);
}

/* Face Jacobians, assembly, factorisation (no host sync but the viscous
 * rows' flags); marks the assembly, viscous and factor phases for a profile
 * hook. */
static dg_status lusgs_cuda_assemble_launch(lusgs_ctx *x, const double *U, double t,
                                            const double *dt) {
  x->state = *x->bstate;
  DG_CHECK(!x->single || x->factor == LUSGS_CUDA_FACTOR_TEAM_INVERSE ||
               x->factor == LUSGS_CUDA_FACTOR_WARP_INVERSE,
           DG_ERR_UNSUPPORTED,
           "lusgs cuda: single-precision inverse blocks ([solver] inverse_precision = single) need "
           "a stored column-major inverse (COLORDG_LUSGS_FACTOR=warp_inverse, the default, or "
           "team_inverse); the factorisation is %s",
           x->factor == LUSGS_CUDA_FACTOR_THREAD ? "thread"
           : x->factor == LUSGS_CUDA_FACTOR_TEAM ? "team"
                                                 : "cublas");
  if (x->factor == LUSGS_CUDA_FACTOR_CUBLAS) DG_CALL(lusgs_cuda_setup_cublas(x));
  if ((x->factor == LUSGS_CUDA_FACTOR_TEAM_INVERSE ||
       x->factor == LUSGS_CUDA_FACTOR_WARP_INVERSE) &&
      x->keep_lu)
    DG_CALL(lusgs_cuda_setup_lu_copy(x));
  DG_CALL_CUDA(cudaMemsetAsync(x->d_bad, 0xff, sizeof(unsigned long long), 0));
  const int64_t n_points = x->n_faces * x->view.nqf;
  if (n_points > 0 && !x->keep_face_jac) {
    if (x->face_jac_team && x->face_jac_shape >= 0) {
      DG_CALL(lusgs_face_jac_team_launch(x, x->face_jac_shape, U, t, 0));
    } else {
      const int threads = threads_for(x, K_FACE_JAC);
      lusgs_face_jac_kernel<<<(unsigned)blocks_for(n_points, threads), threads>>>(
          x->view, x->state, U, t, x->jac_forward, x->d_face_jac);
      DG_CHECK_LAUNCH("lusgs_face_jac_kernel");
    }
  }
  DG_CALL(lusgs_cuda_mark(x, LUSGS_PHASE_ASSEMBLY));
  DG_CALL(lusgs_cuda_launch_assembly(
      x, U, t, dt, x->factor == LUSGS_CUDA_FACTOR_CUBLAS ? x->d_lu : x->d_blocks));
  DG_CALL(lusgs_cuda_mark(x, LUSGS_PHASE_FACTOR));
  DG_CALL(lusgs_cuda_launch_factor(x));
  const int colmajor =
      x->factor == LUSGS_CUDA_FACTOR_TEAM_INVERSE || x->factor == LUSGS_CUDA_FACTOR_WARP_INVERSE;
  x->stored_inverse = x->factor == LUSGS_CUDA_FACTOR_CUBLAS || colmajor;
  x->inverse_colmajor = colmajor;
  x->stored_single = colmajor && x->single;
  x->lu_copy = colmajor && x->keep_lu;
  return DG_SUCCESS;
}

static dg_status lusgs_cuda_assemble_op(lusgs_ctx *x, const double *U, double t, const double *dt) {
  DG_CALL(lusgs_cuda_assemble_launch(x, U, t, dt));
  DG_CALL(lusgs_cuda_check_bad(x, dt));
  return DG_SUCCESS;
}

static lusgs_sweep_data lusgs_cuda_sweep_data(const lusgs_ctx *x) {
  lusgs_sweep_data sd;
  memset(&sd, 0, sizeof sd); /* padding too: lusgs_graph_key compares the bytes */
  sd.face_jac = x->d_face_jac;
  sd.color = x->d_color;
  sd.block_offset = x->d_block_offset;
  sd.pivot_offset = x->d_pivot_offset;
  sd.blocks = x->d_blocks;
  sd.pivots = x->d_pivots;
  sd.colmajor = x->stored_inverse && x->inverse_colmajor;
  sd.single = sd.colmajor && x->stored_single;
  return sd;
}

/* Whether the launches use the tuned stored-inverse sweep kernel: built for
 * this single-shape mesh and not switched off (lusgs_cuda_set_sweep_tuned). */
static int lusgs_cuda_sweep_tuned_on(const lusgs_ctx *x) {
  return x->sweep_tuned && x->sweep_tuned_kernel != NULL;
}

/* The stored-inverse sweep kernel the launches use. */
static lusgs_sweep_kernel_fn lusgs_cuda_sweep_kernel(const lusgs_ctx *x) {
  return lusgs_cuda_sweep_tuned_on(x) ? x->sweep_tuned_kernel : lusgs_sweep_split_kernel<0, 0>;
}

/* Its most threads per block. */
static int lusgs_cuda_sweep_max_threads(const lusgs_ctx *x) {
  return lusgs_cuda_sweep_tuned_on(x) ? x->sweep_tuned_threads : x->max_threads[K_SWEEP_SPLIT];
}

/* Threads per row of lusgs_sweep_split_kernel for a colour of `count`
 * elements: the context's setting, else by the colour's threads at one per
 * row, count · 32 ceil(n_max / 32): up to 2^14 four, up to 2^17 two, else
 * one (the sums are the same either way). H200, forward sweeps per LU-SGS
 * iteration (16 sweeps), with 1 / 2 threads per row / this choice: NACA
 * 0012 hybrid mesh (colours of 922, 923, 43 elements) p = 3 1.76 / 1.55 /
 * 1.51 ms, p = 1 0.93 / 0.81 / 0.82 ms; ONERA M6 level 0 p = 2 (colours
 * of 7,959 to 835 elements) 8.35 / 8.92 / 8.18 ms. At most as many as the
 * kernel launches threads for. */
static int lusgs_cuda_sweep_split(const lusgs_ctx *x, int64_t count) {
  int split = x->sweep_split;
  if (split <= 0) {
    const int64_t threads = count * x->sweep_rows_threads;
    split = threads <= (1 << 14) ? 4 : (threads <= (1 << 17) ? 2 : 1);
  }
  while (split > 1 && split * x->sweep_rows_threads > lusgs_cuda_sweep_max_threads(x)) split /= 2;
  return split;
}

/* Elements per block of lusgs_sweep_split_kernel with one thread per row
 * (split 1) for a colour of `count` elements: the context's setting, else
 * LUSGS_SWEEP_ELEMS once the colour fills every multiprocessor's 32 blocks
 * many times over (one element per block is capped at 32 warps of 64 per
 * multiprocessor by the block limit); at most what the kernel's threads
 * and the shared memory allow. The sums are the same either way. Two: on
 * an H200 (bench_lusgs, 2026-11-28) the sweeps of NACA level 4 at p = 2
 * took 4.71 / 4.35 / 4.45 / 5.09 ms with 1 / 2 / 4 / 8 elements per block,
 * level 3 at p = 1-3 gained 7-8 %, 7 %, 1 % with 2 (4 lost at p = 3). */
#define LUSGS_SWEEP_ELEMS 2
static int lusgs_cuda_sweep_elems(const lusgs_ctx *x, int64_t count) {
  int epb = x->sweep_elems > 0 ? x->sweep_elems : (count >= (1 << 14) ? LUSGS_SWEEP_ELEMS : 1);
  while (epb > 1 && (epb * x->sweep_rows_threads > lusgs_cuda_sweep_max_threads(x) ||
                     (size_t)epb * x->sweep_split_smem > LUSGS_TEAM_MAX_SMEM))
    epb /= 2;
  return epb;
}

/* One colour's forward sweep (which = LUSGS_LOWER), relaxation (LUSGS_ALL)
 * or backward sweep (LUSGS_UPPER; R unused) on `stream`. */
static dg_status lusgs_cuda_launch_colour(lusgs_ctx *x, int c, int which, const double *R,
                                          double *dU, cudaStream_t stream) {
  const int64_t *start = x->coloring->color_start;
  const int64_t count = start[c + 1] - start[c];
  if (count <= 0) return DG_SUCCESS;
  const int64_t first = x->coloring->color_first[c];
  const int64_t *list = x->d_color_elems + start[c];
  const lusgs_sweep_data sd = lusgs_cuda_sweep_data(x);
  const int inv = x->stored_inverse;
  if (x->sweep == LUSGS_CUDA_SWEEP_TEAM && sd.colmajor) {
    const int split = lusgs_cuda_sweep_split(x, count);
    const int epb = split == 1 ? lusgs_cuda_sweep_elems(x, count) : 1;
    lusgs_cuda_sweep_kernel(
        x)<<<(unsigned)((count + epb - 1) / epb), (unsigned)(epb * split * x->sweep_rows_threads),
             (size_t)epb * x->sweep_split_smem, stream>>>(
        x->view, which, first, list, count, R, dU, sd, split, epb,
        (int64_t)(x->sweep_split_smem / sizeof(double)));
    DG_CHECK_LAUNCH("lusgs_sweep_split_kernel");
    return DG_SUCCESS;
  }
  if (x->sweep == LUSGS_CUDA_SWEEP_TEAM) {
    /* warps (elements) per block: threads / 32, within the shared memory limit */
    int warps = threads_for(x, inv ? K_SWEEP_TEAM_INVERSE : K_SWEEP_TEAM_LU) / 32;
    const size_t per_warp = (size_t)x->sweep_warp_doubles * sizeof(double);
    while (warps > 1 && (size_t)warps * per_warp > LUSGS_TEAM_MAX_SMEM) --warps;
    const unsigned grid = (unsigned)blocks_for(count, warps);
    const size_t smem = (size_t)warps * per_warp;
    if (inv)
      lusgs_sweep_team_kernel<1><<<grid, 32 * warps, smem, stream>>>(
          x->view, which, first, list, count, R, dU, sd, x->sweep_warp_doubles);
    else
      lusgs_sweep_team_kernel<0><<<grid, 32 * warps, smem, stream>>>(
          x->view, which, first, list, count, R, dU, sd, x->sweep_warp_doubles);
    DG_CHECK_LAUNCH("lusgs_sweep_team_kernel");
    return DG_SUCCESS;
  }
  if (which == LUSGS_UPPER) {
    const int threads = threads_for(x, inv ? K_BACKWARD_INVERSE : K_BACKWARD_LU);
    const unsigned grid = (unsigned)blocks_for(count, threads);
    if (inv)
      lusgs_backward_kernel<1><<<grid, threads, 0, stream>>>(x->view, first, list, count, dU, sd);
    else
      lusgs_backward_kernel<0><<<grid, threads, 0, stream>>>(x->view, first, list, count, dU, sd);
    DG_CHECK_LAUNCH("lusgs_backward_kernel");
    return DG_SUCCESS;
  }
  const int threads = threads_for(x, inv ? K_SOLVE_INVERSE : K_SOLVE_LU);
  const unsigned grid = (unsigned)blocks_for(count, threads);
  if (inv)
    lusgs_solve_kernel<1>
        <<<grid, threads, 0, stream>>>(x->view, which, first, list, count, R, dU, sd);
  else
    lusgs_solve_kernel<0>
        <<<grid, threads, 0, stream>>>(x->view, which, first, list, count, R, dU, sd);
  DG_CHECK_LAUNCH("lusgs_solve_kernel");
  return DG_SUCCESS;
}

/* The table's operations trust their arguments: the checked entry points
 * of src/lusgs/lusgs.c (lusgs_backend_assemble, _sweep_forward, ...) check
 * the marcher, the colour, every vector's kind, length and context, and
 * aliasing once, before calling them. */

static dg_status lusgs_cuda_sweep_forward(lusgs_ctx *x, int c, const double *U, const double *R,
                                          double *dU) {
  (void)U; /* the sweeps read only R, dU and the stored blocks */
  DG_CALL(lusgs_cuda_launch_colour(x, c, LUSGS_LOWER, R, dU, x->stream));
  return DG_SUCCESS;
}

static dg_status lusgs_cuda_sweep_backward(lusgs_ctx *x, int c, const double *U, double *dU) {
  (void)U;
  DG_CALL(lusgs_cuda_launch_colour(x, c, LUSGS_UPPER, NULL, dU, x->stream));
  return DG_SUCCESS;
}

static dg_status lusgs_cuda_relax(lusgs_ctx *x, int c, const double *U, const double *R,
                                  double *dU) {
  (void)U;
  DG_CALL(lusgs_cuda_launch_colour(x, c, LUSGS_ALL, R, dU, x->stream));
  return DG_SUCCESS;
}

static dg_status lusgs_cuda_update(lusgs_ctx *x, double *U, const double *dU, double max_change) {
  if (max_change > 0.0) {
    if (x->n_elems <= 0) return DG_SUCCESS;
    lusgs_update_damped_kernel<<<(unsigned)blocks_for(x->n_elems, 128), 128>>>(x->view, max_change,
                                                                               U, dU);
    DG_CHECK_LAUNCH("lusgs_update_damped_kernel");
    return DG_SUCCESS;
  }
  const int threads = threads_for(x, K_UPDATE);
  lusgs_update_kernel<<<(unsigned)blocks_for(x->n_coefs, threads), threads>>>(x->n_coefs, U, dU);
  DG_CHECK_LAUNCH("lusgs_update_kernel");
  return DG_SUCCESS;
}

static dg_status lusgs_cuda_av_offdiag(lusgs_ctx *x, int c, int which, const double *R,
                                       const double *dU, double *R_out) {
  const int64_t *start = x->coloring->color_start;
  const int64_t count = start[c + 1] - start[c];
  if (count <= 0) return DG_SUCCESS;
  const int64_t first = x->coloring->color_first[c];
  const int64_t *list = x->d_color_elems + start[c];
  if (x->av_variant == LUSGS_CUDA_AV_TEAM) {
    DG_CHECK(x->av_ready, DG_ERR_ARG,
             "lusgs cuda: viscous off-diagonal product of colour %d before an assembly with the "
             "team viscous variant",
             c);
    const int warps = 4;
    lusgs_av_product_kernel<<<(unsigned)blocks_for(count, warps), 32 * warps, 0, x->stream>>>(
        x->view, which, first, list, count, x->d_color, x->d_av_slot, x->d_av_coupling,
        x->av_face_doubles, x->av_row_doubles, R, dU, R_out);
    DG_CHECK_LAUNCH("lusgs_av_product_kernel");
    return DG_SUCCESS;
  }
  const int threads = LUSGS_AV_THREADS;
  lusgs_av_offdiag_kernel<<<(unsigned)blocks_for(count, threads), threads, 0, x->stream>>>(
      x->view, which, first, list, count, x->d_color, x->d_eps_c, R, dU, R_out);
  DG_CHECK_LAUNCH("lusgs_av_offdiag_kernel");
  return DG_SUCCESS;
}

/* y = (D + L + U) x, one thread per element (lusgs_matvec_element_jac from
 * the stored LU factors and face Jacobians). */
static __global__ void lusgs_matvec_kernel(const __grid_constant__ dg_disc_view view,
                                           const double *x, double *y, lusgs_sweep_data sd) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= view.n_elems || !disc_elem_owned(&view, e)) return; /* ghosts: their owners' rows */
  lusgs_matvec_element_jac(&view, e, x, sd.face_jac, sd.color, sd.blocks + sd.block_offset[e],
                           sd.pivots + sd.pivot_offset[e], y);
}

/* y += the viscous couplings Σ_j A^visc_ej x_j, one thread per element
 * (lusgs_av_matvec_element_add, matrix-free, ε frozen at the assembly). */
static __global__ void lusgs_av_matvec_kernel(const __grid_constant__ dg_disc_view view,
                                              const int32_t *color, const double *eps_c,
                                              const double *x, double *y) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < view.n_elems && disc_elem_owned(&view, e))
    lusgs_av_matvec_element_add(&view, e, x, eps_c, color, y);
}

/* y_e = M_e x_e / dt_e, one thread per element (lusgs_mass_element). */
static __global__ void lusgs_mass_kernel(const __grid_constant__ dg_disc_view view,
                                         const double *dt, const double *x, double *y) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < view.n_elems && disc_elem_owned(&view, e)) lusgs_mass_element(&view, e, dt, x, y);
}

static dg_status lusgs_cuda_mass(lusgs_ctx *x, const double *dt, const double *xv, double *y) {
  if (x->n_elems <= 0) return DG_SUCCESS;
  const int threads = LUSGS_AV_THREADS;
  lusgs_mass_kernel<<<(unsigned)blocks_for(x->n_elems, threads), threads>>>(x->view, dt, xv, y);
  DG_CHECK_LAUNCH("lusgs_mass_kernel");
  return DG_SUCCESS;
}

static dg_status lusgs_cuda_matvec(lusgs_ctx *x, const double *U, const double *xv, double *y) {
  (void)U; /* the product reads only the stored factors and face Jacobians */
  DG_CHECK(!x->stored_inverse || x->lu_copy, DG_ERR_UNSUPPORTED,
           "lusgs cuda: the matrix-vector product needs the LU factors of D_e; the %s "
           "factorisation variant stores D_e^-1 (use the THREAD or TEAM factorisation%s)",
           x->factor == LUSGS_CUDA_FACTOR_CUBLAS
               ? "cuBLAS"
               : (x->factor == LUSGS_CUDA_FACTOR_WARP_INVERSE ? "WARP_INVERSE" : "TEAM_INVERSE"),
           x->factor == LUSGS_CUDA_FACTOR_CUBLAS ? ""
                                                 : ", or lusgs_keep_factors before assembling");
  if (x->n_elems <= 0) return DG_SUCCESS;
  lusgs_sweep_data sd = lusgs_cuda_sweep_data(x);
  if (x->stored_inverse) sd.blocks = x->d_lu; /* the team LU copy */
  const int threads = LUSGS_AV_THREADS;
  const unsigned grid = (unsigned)blocks_for(x->n_elems, threads);
  lusgs_matvec_kernel<<<grid, threads>>>(x->view, xv, y, sd);
  DG_CHECK_LAUNCH("lusgs_matvec_kernel");
  if (x->view.av != DG_AV_OFF) {
    lusgs_av_matvec_kernel<<<grid, threads>>>(x->view, x->d_color, x->d_eps_c, xv, y);
    DG_CHECK_LAUNCH("lusgs_av_matvec_kernel");
  }
  return DG_SUCCESS;
}

/* From the next assembly on, TEAM_INVERSE also writes the LU factors to
 * d_lu (allocated then), and WARP_INVERSE factors with TEAM_INVERSE to do
 * so: refused here when that copy would not fit. */
static dg_status lusgs_cuda_keep_factors(lusgs_ctx *x) {
  if ((x->factor == LUSGS_CUDA_FACTOR_TEAM_INVERSE ||
       x->factor == LUSGS_CUDA_FACTOR_WARP_INVERSE) &&
      !x->d_lu)
    DG_CALL(gpu_mem_check_free("the copy of the LU factors Newton-Krylov's products read "
                               "(TEAM_INVERSE, WARP_INVERSE)",
                               (size_t)x->h_block_offset[x->n_elems] * sizeof(double)));
  x->keep_lu = 1;
  return DG_SUCCESS;
}

static dg_status lusgs_cuda_set_inverse_single(lusgs_ctx *x, int single) {
  x->single = single;
  return DG_SUCCESS;
}

static dg_status lusgs_cuda_set_face_jacobian_forward(lusgs_ctx *x, int forward) {
  x->jac_forward = forward;
  return DG_SUCCESS;
}

/* ------------------------------------------------------------ public */

/* ------------------------------------------------- recording (CUDA graph) */

/* What the launches of lusgs_apply's sequence read from the context (the
 * kernel arguments besides the vectors): a recording replays only while
 * this is unchanged. Zeroed first, so that padding compares equal. */
typedef struct lusgs_graph_key {
  dg_disc_view view;
  lusgs_sweep_data sd;
  const int64_t *color_elems;
  const int32_t *color;
  const dg_coloring *coloring;
  int sweep, stored_inverse, sweep_warp_doubles, sweep_rows_threads, sweep_split, sweep_elems,
      sweep_tuned, threads;
  int max_threads[16];
  lusgs_cuda_av av_variant;
  int av_ready;
  const int32_t *av_slot;
  const double *av_coupling, *eps_c;
  int64_t av_face_doubles, av_row_doubles;
} lusgs_graph_key;

static void lusgs_graph_key_make(const lusgs_ctx *x, lusgs_graph_key *k) {
  memset(k, 0, sizeof *k);
  memcpy(&k->view, &x->view, sizeof k->view);
  const lusgs_sweep_data sd = lusgs_cuda_sweep_data(x);
  memcpy(&k->sd, &sd, sizeof sd);
  k->color_elems = x->d_color_elems;
  k->color = x->d_color;
  k->coloring = x->coloring;
  k->sweep = (int)x->sweep;
  k->stored_inverse = x->stored_inverse;
  k->sweep_warp_doubles = x->sweep_warp_doubles;
  k->sweep_rows_threads = x->sweep_rows_threads;
  k->sweep_split = x->sweep_split;
  k->sweep_elems = x->sweep_elems;
  k->sweep_tuned = lusgs_cuda_sweep_tuned_on(x);
  k->threads = x->threads;
  memcpy(k->max_threads, x->max_threads, sizeof k->max_threads);
  k->av_variant = x->av_variant;
  k->av_ready = x->av_ready;
  k->av_slot = x->d_av_slot;
  k->av_coupling = x->d_av_coupling;
  k->eps_c = x->d_eps_c;
  k->av_face_doubles = x->av_face_doubles;
  k->av_row_doubles = x->av_row_doubles;
}

/* Starts capturing the context's sweep launches on graph_stream (a blocking
 * stream: a launch that still went to the legacy stream would invalidate
 * the capture instead of running unrecorded). */
static dg_status lusgs_cuda_graph_begin(lusgs_ctx *x) {
  if (!x->graph_stream) DG_CALL_CUDA(cudaStreamCreate(&x->graph_stream));
  if (!x->graph_key) DG_CALL(DG_CALLOC(x->graph_key, sizeof(lusgs_graph_key)));
  DG_CALL_CUDA(cudaStreamBeginCapture(x->graph_stream, cudaStreamCaptureModeThreadLocal));
  x->stream = x->graph_stream;
  return DG_SUCCESS;
}

/* Ends the capture; instantiates it (or updates the instantiated graph in
 * place when only arguments changed) and stores the key. */
static dg_status lusgs_cuda_graph_end(lusgs_ctx *x, int failed) {
  x->stream = 0;
  cudaGraph_t graph = NULL;
  const cudaError_t end = cudaStreamEndCapture(x->graph_stream, &graph);
  if (failed || end != cudaSuccess || !graph) {
    if (graph) cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    if (failed) return DG_SUCCESS; /* the caller reports its own error */
    DG_CALL_CUDA(end);
    DG_ERROR(DG_ERR_CUDA, "lusgs cuda: the capture of the sweeps gave no graph");
  }
  cudaError_t st = cudaErrorUnknown;
  if (x->graph_exec) {
    cudaGraphExecUpdateResultInfo info;
    st = cudaGraphExecUpdate(x->graph_exec, graph, &info);
    if (st != cudaSuccess) {
      (void)cudaGetLastError();
      cudaGraphExecDestroy(x->graph_exec);
      x->graph_exec = NULL;
    }
  }
  if (!x->graph_exec) st = cudaGraphInstantiate(&x->graph_exec, graph, 0);
  cudaGraphDestroy(graph);
  if (st != cudaSuccess) x->graph_exec = NULL;
  DG_CALL_CUDA(st);
  lusgs_graph_key_make(x, (lusgs_graph_key *)x->graph_key);
  return DG_SUCCESS;
}

/* Replays the recording on the legacy stream when the key still holds. */
static dg_status lusgs_cuda_graph_launch(lusgs_ctx *x, int *launched) {
  *launched = 0;
  if (!x->graph_exec || !x->graph_key) return DG_SUCCESS;
  lusgs_graph_key now;
  lusgs_graph_key_make(x, &now);
  if (memcmp(&now, x->graph_key, sizeof now) != 0) return DG_SUCCESS;
  DG_CALL_CUDA(cudaGraphLaunch(x->graph_exec, 0));
  *launched = 1;
  return DG_SUCCESS;
}

/* The table, field by field (robust to the order of lusgs_backend's fields). */
static lusgs_backend lusgs_cuda_table(void) {
  lusgs_backend table;
  memset(&table, 0, sizeof table);
  table.name = "cuda";
  table.create = lusgs_cuda_create;
  table.destroy = lusgs_cuda_destroy;
  table.assemble = lusgs_cuda_assemble_op;
  table.sweep_forward = lusgs_cuda_sweep_forward;
  table.sweep_backward = lusgs_cuda_sweep_backward;
  table.update = lusgs_cuda_update;
  table.relax = lusgs_cuda_relax;
  table.av_offdiag = lusgs_cuda_av_offdiag;
  table.set_phase_hook = lusgs_cuda_set_phase_hook;
  table.matvec = lusgs_cuda_matvec;
  table.keep_factors = lusgs_cuda_keep_factors;
  table.set_inverse_single = lusgs_cuda_set_inverse_single;
  table.set_face_jacobian_forward = lusgs_cuda_set_face_jacobian_forward;
  table.mass = lusgs_cuda_mass;
  table.sync = lusgs_cuda_sync;
  table.graph_begin = lusgs_cuda_graph_begin;
  table.graph_end = lusgs_cuda_graph_end;
  table.graph_launch = lusgs_cuda_graph_launch;
  return table;
}

extern "C" const lusgs_backend *lusgs_backend_cuda(void) {
  static const lusgs_backend table = lusgs_cuda_table();
  return &table;
}

extern "C" dg_status lusgs_cuda_set_variant(lusgs_ctx *ctx, lusgs_cuda_assemble assemble,
                                            lusgs_cuda_factor factor, lusgs_cuda_sweep sweep) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "lusgs cuda: set_variant needs a context");
  DG_CHECK(assemble == LUSGS_CUDA_ASSEMBLE_THREAD || assemble == LUSGS_CUDA_ASSEMBLE_TEAM,
           DG_ERR_ARG, "lusgs cuda: unknown assembly variant %d", (int)assemble);
  DG_CHECK(factor >= LUSGS_CUDA_FACTOR_THREAD && factor < LUSGS_CUDA_N_FACTORS, DG_ERR_ARG,
           "lusgs cuda: unknown factorisation variant %d", (int)factor);
  DG_CHECK(sweep == LUSGS_CUDA_SWEEP_THREAD || sweep == LUSGS_CUDA_SWEEP_TEAM, DG_ERR_ARG,
           "lusgs cuda: unknown sweep variant %d", (int)sweep);
  ctx->assemble = assemble;
  ctx->factor = factor;
  ctx->sweep = sweep;
  return DG_SUCCESS;
}

extern "C" dg_status lusgs_cuda_set_assembly_rows(lusgs_ctx *ctx, int rows) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "lusgs cuda: set_assembly_rows needs a context");
  ctx->asm_rows = rows != 0;
  return DG_SUCCESS;
}

extern "C" dg_status lusgs_cuda_set_fused_assembly(lusgs_ctx *ctx, int fuse) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "lusgs cuda: set_fused_assembly needs a context");
  ctx->fuse = fuse != 0;
  return DG_SUCCESS;
}

extern "C" dg_status lusgs_cuda_set_gj_team(lusgs_ctx *ctx, int on) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "lusgs cuda: set_gj_team needs a context");
  DG_CHECK(on == 0 || on == 1, DG_ERR_ARG,
           "lusgs cuda: team Gauss-Jordan switch %d; expected 0 (LU) or 1", on);
  ctx->gj_team = on;
  return DG_SUCCESS;
}

extern "C" dg_status lusgs_cuda_set_face_jac_team(lusgs_ctx *ctx, int team) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "lusgs cuda: set_face_jac_team needs a context");
  ctx->face_jac_team = team != 0;
  return DG_SUCCESS;
}

extern "C" int lusgs_cuda_face_jac_team(const lusgs_ctx *ctx) {
  return ctx && ctx->face_jac_team && ctx->face_jac_shape >= 0;
}

extern "C" dg_status lusgs_cuda_set_av_variant(lusgs_ctx *ctx, lusgs_cuda_av variant) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "lusgs cuda: set_av_variant needs a context");
  DG_CHECK(variant == LUSGS_CUDA_AV_THREAD || variant == LUSGS_CUDA_AV_TEAM, DG_ERR_ARG,
           "lusgs cuda: unknown viscous variant %d", (int)variant);
  if (variant != ctx->av_variant) ctx->av_ready = 0;
  ctx->av_variant = variant;
  return DG_SUCCESS;
}

extern "C" int64_t lusgs_cuda_av_rows(const lusgs_ctx *ctx) {
  return ctx && ctx->av_ready ? ctx->n_visc : 0;
}

extern "C" dg_status lusgs_cuda_set_threads(lusgs_ctx *ctx, int threads) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "lusgs cuda: set_threads needs a context");
  DG_CHECK(threads >= 32 && threads <= 1024 && threads % 32 == 0, DG_ERR_ARG,
           "lusgs cuda: %d threads per block; expected a multiple of 32 in [32, 1024]", threads);
  ctx->threads = threads;
  return DG_SUCCESS;
}

extern "C" dg_status lusgs_cuda_set_team_threads(lusgs_ctx *ctx, int threads) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "lusgs cuda: set_team_threads needs a context");
  DG_CHECK(threads >= 32 && threads <= 1024 && threads % 32 == 0, DG_ERR_ARG,
           "lusgs cuda: %d team threads; expected a multiple of 32 in [32, 1024]", threads);
  ctx->team_threads = threads;
  return DG_SUCCESS;
}

extern "C" dg_status lusgs_cuda_set_tet_asm_threads(lusgs_ctx *ctx, int threads) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "lusgs cuda: set_tet_asm_threads needs a context");
  DG_CHECK(threads >= 32 && threads <= 1024 && threads % 32 == 0, DG_ERR_ARG,
           "lusgs cuda: %d tetrahedron assembly threads; expected a multiple of 32 in [32, 1024]",
           threads);
  ctx->tet_asm_threads = threads;
  return DG_SUCCESS;
}

extern "C" dg_status lusgs_cuda_set_sweep_split(lusgs_ctx *ctx, int split) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "lusgs cuda: set_sweep_split needs a context");
  DG_CHECK(split == 0 || split == 1 || split == 2 || split == 4, DG_ERR_ARG,
           "lusgs cuda: %d column pieces of the sweep; expected 0 (by colour size), 1, 2 or 4",
           split);
  ctx->sweep_split = split;
  return DG_SUCCESS;
}

extern "C" dg_status lusgs_cuda_set_sweep_elems(lusgs_ctx *ctx, int elems) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "lusgs cuda: set_sweep_elems needs a context");
  DG_CHECK(elems == 0 || elems == 1 || elems == 2 || elems == 4 || elems == 8, DG_ERR_ARG,
           "lusgs cuda: %d elements per sweep block; expected 0 (by colour size), 1, 2, 4 or 8",
           elems);
  ctx->sweep_elems = elems;
  return DG_SUCCESS;
}

extern "C" dg_status lusgs_cuda_set_sweep_tuned(lusgs_ctx *ctx, int on) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "lusgs cuda: set_sweep_tuned needs a context");
  DG_CHECK(on == 0 || on == 1, DG_ERR_ARG,
           "lusgs cuda: tuned sweep switch %d; expected 0 (the generic kernel) or 1", on);
  ctx->sweep_tuned = on;
  return DG_SUCCESS;
}

extern "C" int lusgs_cuda_sweep_tuned_built(const lusgs_ctx *ctx) {
  return ctx && ctx->sweep_tuned_kernel != NULL;
}

extern "C" int lusgs_cuda_kernel_threads(const lusgs_ctx *ctx, const char **names, int *threads,
                                         int cap) {
  int count = 0;
  for (int k = 0; ctx && k < K_COUNT && k < cap; ++k, ++count) {
    if (names) names[k] = lusgs_kernel_names[k];
    if (threads) threads[k] = threads_for(ctx, (lusgs_kernel)k);
  }
  return count;
}

extern "C" void lusgs_cuda_memory(const lusgs_ctx *ctx, size_t *block_bytes, size_t *total_bytes) {
  if (block_bytes) *block_bytes = ctx ? ctx->block_bytes : 0;
  if (total_bytes) *total_bytes = ctx ? ctx->bytes : 0;
}

extern "C" dg_status lusgs_cuda_apply_inverse(lusgs_ctx *ctx, const double *x, double *y) {
  DG_CHECK(ctx && x && y, DG_ERR_ARG, "lusgs cuda: apply_inverse called with NULL");
  const int threads = threads_for(ctx, K_APPLY_INVERSE);
  lusgs_apply_inverse_kernel<<<(unsigned)blocks_for(ctx->n_elems, threads), threads>>>(
      ctx->view, ctx->stored_inverse, x, y, lusgs_cuda_sweep_data(ctx));
  DG_CHECK_LAUNCH("lusgs_apply_inverse_kernel");
  return DG_SUCCESS;
}

/* ------------------------------------------------------------ private hooks */

/* For tools/bench_cuda/ and tests/support/ (lusgs_cuda_private.h); the
 * solver never calls them. */

extern "C" int lusgs_cuda_n_colors(const lusgs_ctx *ctx) { return ctx ? ctx->n_colors : 0; }

extern "C" dg_status lusgs_cuda_sweep_colour(lusgs_ctx *ctx, int color, int which, const double *R,
                                             double *dU, cudaStream_t stream) {
  DG_CHECK(ctx && color >= 0 && color < ctx->n_colors && dU && (R || which == LUSGS_UPPER),
           DG_ERR_ARG, "lusgs cuda: sweep of colour %d (of %d): bad colour or NULL argument", color,
           ctx ? ctx->n_colors : 0);
  return lusgs_cuda_launch_colour(ctx, color, which, R, dU, stream);
}

extern "C" double *lusgs_cuda_face_jacobians(lusgs_ctx *ctx, size_t *count) {
  if (count)
    *count = ctx ? (size_t)(ctx->n_faces * ctx->view.nqf * 2 * ctx->view.nvar * ctx->view.nvar) : 0;
  return ctx ? ctx->d_face_jac : NULL;
}

extern "C" void lusgs_cuda_keep_face_jacobians(lusgs_ctx *ctx, int keep) {
  if (ctx) ctx->keep_face_jac = keep != 0;
}
