/* The CUDA backend: device copies of the discretisation and thin kernels
 * over the DG_HD arithmetic of src/dg/residual_ops.h (see backend_cuda.h).
 *
 * Two variants of the residual and the RK update (backend_cuda_set_variant):
 * the portable baseline (one thread per face, then one thread per element,
 * calling residual_face / residual_element / residual_rk_update) and the
 * tuned default of residual_team.cuh (one thread per face point, a block of
 * threads per group of elements with shared memory, one thread per
 * coefficient in the RK update). Both are checked against the CPU backend.
 *
 * The residual runs the passes of the residual plan (src/dg/residual_plan.h,
 * built at create) in order: residual_launch walks its runs (adjacent
 * passes of one family merged: the interior and boundary faces are one face
 * launch, the elements of all shapes one launch or one per shape) and
 * cuda_run_pass maps each pass kind to the kernels of the active variant.
 * Artificial viscosity (view.av != DG_AV_OFF, src/dg/av_ops.h): the ε
 * passes come first (one thread per element: sensor or held ε_e; continuous
 * ε: one thread per vertex for ε_v; one thread per element for the ε
 * coefficients, which the portable path fuses with the projected gradient
 * G), then one thread per face (av_residual_face: convective flux, BR2
 * viscous flux and jump) and one per element (av_residual_element): the
 * portable AV path. The tuned variant instead runs av_team.cuh (one thread
 * per (element or face, variable) for the viscous terms, the inviscid team
 * kernel for the convective ones) when it covers the discretisation, else
 * the portable AV path. Every pass writes its own outputs only (the tuned
 * path updates face_flux and R in place, one thread per entry): no atomics,
 * the same bits on every run. The run-time state (circulation, held ε) is
 * passed by value to the portable kernels and read from its device copy
 * (d_state) by the tuned face kernels.
 *
 * Streams: every operation runs on the legacy default stream; the tuned
 * residual and RK-update kernels launch on ctx->stream, which only a graph
 * capture of the benchmarks changes (backend_cuda_private.h; the SSP-RK3
 * graph of tools/bench_cuda/backend_cuda_bench.cu records the plan's
 * launches, and docs/PERFORMANCE.md what it saves). */
#include "kernels/backend_cuda.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dg/av_ops.h"
#include "dg/limiter.h"
#include "dg/residual_ops.h"
#include "dg/residual_plan.h"
#include "kernels/av_team.cuh"
#include "kernels/backend_cuda_private.h"
#include "kernels/cuda_check.cuh"
#include "kernels/gpu_alloc.cuh"
#include "kernels/residual_team.cuh"
#include "parallel/halo.h"

/* ------------------------------------------------------------ errors */

static_assert((BACKEND_CUDA_BLOCK & (BACKEND_CUDA_BLOCK - 1)) == 0 && BACKEND_CUDA_BLOCK >= 32 &&
                  BACKEND_CUDA_BLOCK <= 1024,
              "BACKEND_CUDA_BLOCK must be a power of two in [32, 1024] (tree reductions)");

/* Most blocks of the first reduction stage. The stage's grid depends only on
 * the problem size (never on the device), which keeps sums bitwise
 * reproducible across runs. */
#define REDUCE_MAX_BLOCKS GPU_PLAN_REDUCE_MAX_BLOCKS
/* Most components reduced at once: norms need 2 per variable (sum of
 * squares, count of non-finite entries), forces 6. */
#define REDUCE_MAX_COMPONENTS GPU_PLAN_REDUCE_MAX_COMPONENTS

/* ------------------------------------------------------------ context */

/* A team element kernel (residual_team.cuh), instantiated for (dim, nb,
 * rk). */
typedef void (*team_kernel_fn)(const residual_team_args, int, const double *, const double *,
                               double *, const rk_stage_args);

/* The team kernel for dimension dim and nb modes, with the fused RK stage
 * (rk = 1) or without, and mb modes per thread in its phase 2; NULL when
 * none is instantiated (the portable element kernel is used then). mb = 2
 * is instantiated for even nb >= 4, mb = 3 for nb = 3 and 9 in 2D. */
template <int RK> static team_kernel_fn team_kernel_rk(int dim, int nb, int mb) {
  if (mb == 1) {
    if (dim == 2) switch (nb) {
      case 1: return residual_element_team_kernel<2, 1, RK, 1>;
      case 3: return residual_element_team_kernel<2, 3, RK, 1>;
      case 4: return residual_element_team_kernel<2, 4, RK, 1>;
      case 6: return residual_element_team_kernel<2, 6, RK, 1>;
      case 9: return residual_element_team_kernel<2, 9, RK, 1>;
      case 10: return residual_element_team_kernel<2, 10, RK, 1>;
      case 16: return residual_element_team_kernel<2, 16, RK, 1>;
      default: return NULL;
      }
    if (dim == 3) switch (nb) {
      case 1: return residual_element_team_kernel<3, 1, RK, 1>;
      case 4: return residual_element_team_kernel<3, 4, RK, 1>;
      case 10: return residual_element_team_kernel<3, 10, RK, 1>;
      case 20: return residual_element_team_kernel<3, 20, RK, 1>;
      default: return NULL;
      }
  }
  if (mb == 2) {
    if (dim == 2) switch (nb) {
      case 4: return residual_element_team_kernel<2, 4, RK, 2>;
      case 6: return residual_element_team_kernel<2, 6, RK, 2>;
      case 10: return residual_element_team_kernel<2, 10, RK, 2>;
      case 16: return residual_element_team_kernel<2, 16, RK, 2>;
      default: return NULL;
      }
    if (dim == 3) switch (nb) {
      case 4: return residual_element_team_kernel<3, 4, RK, 2>;
      case 10: return residual_element_team_kernel<3, 10, RK, 2>;
      case 20: return residual_element_team_kernel<3, 20, RK, 2>;
      default: return NULL;
      }
  }
  if (mb == 3 && dim == 2) switch (nb) {
    case 3: return residual_element_team_kernel<2, 3, RK, 3>;
    case 9: return residual_element_team_kernel<2, 9, RK, 3>;
    default: return NULL;
    }
  return NULL;
}

static team_kernel_fn team_kernel_for(int dim, int nb, int rk, int mb) {
  return rk ? team_kernel_rk<1>(dim, nb, mb) : team_kernel_rk<0>(dim, nb, mb);
}

/* The (dim, nb) of the element kernel with one thread per element
 * (residual_element_thread_kernel) with its coefficients in registers
 * (USH = 0): those whose 2 NV NB doubles fit the registers without spills
 * (ptxas -v, sm_90: 2D nb = 10 244 / 254 registers without / with the fused
 * RK stage, nb = 6 164 / 166; 3D nb = 4 164; 3D nb = 10 spills at 255);
 * and with its coefficients in shared memory (USH = 1): 2D nb = 10 168 /
 * 254, nb = 16 255 / 255 (380 bytes of spills with the stage), 3D nb = 10
 * 252 / 254. */
#define THREAD_ELEM_SHAPES(X) X(2, 1) X(2, 3) X(2, 4) X(2, 6) X(2, 9) X(2, 10) X(3, 1) X(3, 4)
#define THREAD_ELEM_SHARED_SHAPES(X) X(2, 10) X(2, 16) X(3, 10)

/* That kernel for (dim, nb, rk), its coefficients in shared memory (ush =
 * 1) or registers (0); NULL when none is instantiated. */
static team_kernel_fn thread_kernel_for(int dim, int nb, int rk, int ush) {
  const int key = dim * 100 + nb;
#define THREAD_ELEM_CASE(DIM, NB, USH)                                                             \
  if (key == (DIM)*100 + (NB))                                                                     \
    return rk ? residual_element_thread_kernel<DIM, NB, 1, USH>                                    \
              : residual_element_thread_kernel<DIM, NB, 0, USH>;
#define THREAD_ELEM_REG(DIM, NB) THREAD_ELEM_CASE(DIM, NB, 0)
#define THREAD_ELEM_USH(DIM, NB) THREAD_ELEM_CASE(DIM, NB, 1)
  if (ush) {
    THREAD_ELEM_SHARED_SHAPES(THREAD_ELEM_USH)
  } else {
    THREAD_ELEM_SHAPES(THREAD_ELEM_REG)
  }
#undef THREAD_ELEM_USH
#undef THREAD_ELEM_REG
#undef THREAD_ELEM_CASE
  return NULL;
}

/* The single-shape face kernel (residual_team.cuh) for (dim, nb). */
typedef void (*face_kernel_fn)(const residual_face_args, const dg_disc_view *, const double *,
                               double, double *);

/* The (dim, nb) the single-shape face kernels are built for: every shape
 * and degree p <= 3 (2D: triangles 1, 3, 6, 10, quadrilaterals 1, 4, 9,
 * 16; 3D: tetrahedra 1, 4, 10, 20). */
#define TEAM_FACE_SHAPES(X)                                                                        \
  X(2, 1) X(2, 3) X(2, 4) X(2, 6) X(2, 9) X(2, 10) X(2, 16) X(3, 1) X(3, 4) X(3, 10) X(3, 20)

/* The face kernel for dimension dim and nb modes, NULL when none is
 * instantiated. */
static face_kernel_fn face_kernel_for(int dim, int nb) {
  const int key = dim * 100 + nb;
#define TEAM_FACE_CASE(DIM, NB)                                                                    \
  if (key == (DIM)*100 + (NB)) return residual_face_team_kernel<DIM, NB>;
  TEAM_FACE_SHAPES(TEAM_FACE_CASE)
#undef TEAM_FACE_CASE
  return NULL;
}

/* The single-shape time-step term kernel (timestep_term_team_kernel). */
typedef void (*timestep_kernel_fn)(const residual_face_args, const double *, double *);

/* The time-step term kernel for dimension dim and nb modes, NULL when none
 * is instantiated (the face kernel's set). */
static timestep_kernel_fn timestep_kernel_for(int dim, int nb) {
  const int key = dim * 100 + nb;
#define TEAM_FACE_CASE(DIM, NB)                                                                    \
  if (key == (DIM)*100 + (NB)) return timestep_term_team_kernel<DIM, NB>;
  TEAM_FACE_SHAPES(TEAM_FACE_CASE)
#undef TEAM_FACE_CASE
  return NULL;
}

/* The gathering variant of the single-shape face kernel
 * (residual_face_gather_kernel) for (dim, nb), NULL when none is
 * instantiated. */
static face_kernel_fn face_gather_kernel_for(int dim, int nb) {
  const int key = dim * 100 + nb;
#define TEAM_FACE_CASE(DIM, NB)                                                                    \
  if (key == (DIM)*100 + (NB)) return residual_face_gather_kernel<DIM, NB>;
  TEAM_FACE_SHAPES(TEAM_FACE_CASE)
#undef TEAM_FACE_CASE
  return NULL;
}

/* The trace kernel of the trace path (residual_trace_kernel) and its face
 * kernel (residual_face_trace_kernel). */
typedef void (*trace_kernel_fn)(const residual_team_args, int, const double *, int64_t,
                                const double *, double *);
typedef void (*face_trace_kernel_fn)(const residual_face_args, const dg_disc_view *, const double *,
                                     double, const double *, int64_t, double *);

/* The trace kernel for (dim, nb), NULL when none is instantiated (the face
 * kernel's set). */
static trace_kernel_fn trace_kernel_for(int dim, int nb) {
  const int key = dim * 100 + nb;
#define TEAM_FACE_CASE(DIM, NB)                                                                    \
  if (key == (DIM)*100 + (NB)) return residual_trace_kernel<DIM, NB>;
  TEAM_FACE_SHAPES(TEAM_FACE_CASE)
#undef TEAM_FACE_CASE
  return NULL;
}

static face_trace_kernel_fn face_trace_kernel_for(int dim) {
  return dim == 2 ? residual_face_trace_kernel<2> : residual_face_trace_kernel<3>;
}

/* The gathering face kernel's time-step-term form
 * (residual_face_gather_kernel<DIM, NB, 1>), instantiated where the
 * residual gathers by default (tetrahedra at p = 3); NULL elsewhere. */
static face_kernel_fn timestep_gather_kernel_for(int dim, int nb) {
  return dim == 3 && nb == 20 ? residual_face_gather_kernel<3, 20, 1> : NULL;
}

#define BACKEND_CUDA_MAX_ARRAYS 32

/* One team element kernel of a shape and its launch (team_shape_setup):
 * args.E elements per block, smem dynamic shared bytes per block. */
typedef struct {
  team_kernel_fn kernel; /* NULL: no elements, or no team kernel */
  size_t smem;
  int threads; /* threads per block: BACKEND_CUDA_TEAM, or args.E for the thread kernel */
  residual_team_args args;
} team_launch;

/* Blocks of launch t: its args.n_run elements, args.E per block. */
static unsigned team_blocks(const team_launch *t) {
  return (unsigned)((t->args.n_run + t->args.E - 1) / t->args.E);
}

struct dg_backend_ctx {
  dg_disc_view view;      /* device pointers */
  dg_disc_state state;    /* run-time state (host struct, device av_eps_hold): by value to the
                             portable kernels */
  dg_disc_state *d_state; /* device copy of state, read by the tuned face kernels (a graph
                             launch sees set_circulation's update) */
  int64_t n_coefs, n_elems, n_faces, n_face_points;
  int nvar, n_groups;
  void *arrays[BACKEND_CUDA_MAX_ARRAYS]; /* device copies of the disc arrays */
  int n_arrays;
  double *d_face_flux; /* [n_face_points * nvar] scratch of residual */
  double *d_force;     /* [6][n_faces] per-face forces, component-major */
  double *d_partial;   /* [REDUCE_MAX_COMPONENTS][REDUCE_MAX_BLOCKS] first-stage results */
  double *d_result;    /* [REDUCE_MAX_COMPONENTS] second-stage results */
  uint8_t *d_mask;     /* [n_groups] group mask of forces */
  /* artificial viscosity scratch (NULL when view.av is off) */
  double *d_eps_elem;                 /* [n_elems] ε_e of the sensor */
  double *d_eps_hold;                 /* [n_elems] held ε (state.av_eps_hold), -1 = not held */
  double *d_eps_vert;                 /* [n_verts] ε_v (DG_AV_CONTINUOUS only) */
  double *d_eps_c;                    /* [n_elems * DG_AV_NLIN] coefficients of ε */
  double *d_grad;                     /* [dim * n_coefs] projected gradient G of U */
  double *d_face_jump;                /* [n_face_points * nvar] δU wsJ of the BR2 liftings */
  double *d_lift;                     /* [dim * n_coefs] Σ_f r_f,e of the tuned AV kernels */
  backend_cuda_variant variant;       /* kernels used by residual and rk_update */
  int team_ok;                        /* 1 when every shape has a team kernel */
  team_launch team[DG_NUM_SHAPES];    /* per shape (kernel NULL: no elements) */
  team_launch team_rk[DG_NUM_SHAPES]; /* the same with the fused RK stage */
  int rk_fused_ok;                    /* cuda_residual_rk may fuse (team_setup): one process */
  const rk_stage_args *rk_stage[DG_NUM_SHAPES]; /* set during a fused residual_rk only */
  int team_chunk;      /* volume points per chunk of the team kernel (0: team_chunk_for) */
  int team_modes;      /* modes per thread of its phase 2 (0: team_modes_for) */
  int team_modes_rk;   /* the same in the fused RK stage (0: team_modes_rk_for's default) */
  int team_face_share; /* its face fluxes over the volume chunk: -1 team_face_share_for, 0, 1 */
  int team_elems_set;  /* its elements per block: 0 team_elems_for's, > 0 at most that many */
  int elem_thread;     /* the thread element kernel: -1 elem_thread_kind's rule, 0 off, 1 on (its
                          coefficients in registers where it can), 2 on (in shared memory where it
                          can) */
  int64_t n_affine[DG_NUM_SHAPES]; /* owned affine elements per shape (elem_thread_kind) */
  int n_sm;                        /* multiprocessors of the device */
  int av_block;                    /* threads per block of the AV kernels, 0 auto */

  /* tuned AV kernels (av_team.cuh); av_team_ok: they cover the discretisation */
  int av_team_ok;
  av_team_shape_kernels av_team[DG_NUM_SHAPES]; /* per shape (NULLs: no elements) */
  av_face_fn av_team_face;                      /* face kernel for the largest nb */
  /* by-value parameters of the RK update and the single-shape face kernel
   * (team_setup; the team kernels' are in team and team_rk) */
  rk_coef_args rk_args[DG_NUM_SHAPES];
  face_kernel_fn face_kernel; /* single-shape face kernel; NULL: residual_face_point_kernel */
  /* the time-step terms with face_args (tuned variant; NULL: timestep_term_kernel) */
  timestep_kernel_fn timestep_kernel;
  face_kernel_fn timestep_gather_kernel; /* its gathering form (NULL: none), where the
                                            residual's face kernel gathers */
  /* its gathering variant (residual_face_gather_kernel; NULL: none for this nb) and
   * whether the residual uses it (backend_cuda_set_face_gather) */
  face_kernel_fn face_gather_kernel;
  int face_gather;         /* -1 automatic, 0 off, 1 on: face_gather_on */
  size_t face_gather_smem; /* its dynamic shared bytes */
  residual_face_args face_args;
  /* the trace path (residual_team.cuh: residual_trace_kernel, then
   * residual_face_trace_kernel; face_trace_on), on a single-shape mesh
   * without AV: the traces of both sides of every face point, d_trace
   * [2 nvar][n_face_points] (allocated where the path runs by default or
   * once it is set on, else NULL), formed from the transposed face tables
   * d_face_phiT (face_phi with each table's point index fastest) by
   * trace_kernel with trace_args (E elements per block, trace_smem dynamic
   * shared bytes) */
  trace_kernel_fn trace_kernel;           /* NULL: no trace path */
  face_trace_kernel_fn face_trace_kernel; /* its face kernel */
  residual_team_args trace_args;
  size_t trace_smem;
  int face_trace; /* -1 automatic, 0 off, 1 on: face_trace_on */
  double *d_trace;
  const double *d_face_phiT; /* one of arrays */
  dg_disc_view *d_view;      /* device copy of view (read by the tuned face kernels) */
  cudaStream_t stream;       /* stream of the tuned residual and RK launches: 0 (legacy) except
                                while a benchmark captures a graph (backend_cuda_set_stream) */
  cudaGraphNode_t *capture_face_node; /* while not NULL: where the captured tuned face
                                         kernel's node goes (backend_cuda_capture_face_node) */
  dg_residual_plan plan;              /* the residual's passes (src/dg/residual_plan.h) */

  /* partitions (docs/ARCHITECTURE.md §8; nothing in one process). When
   * some shape block ends in ghost elements the reductions mask the ghosts
   * out (d_owned_state [n_coefs], d_owned_elem [n_elems]: 1 for an owned
   * entry; NULL without ghosts) and the element passes cover owned elements only. The
   * halo: per exchange (the ghosts' state coefficients at HALO_START /
   * FINISH and of any state vector, their ε coefficients at HALO_EPS) a
   * dg_exchange and the gather (send) and scatter (receive) indices into the
   * exchanged array; the packed messages go through d_send / d_recv, staged
   * through the pinned h_send / h_recv unless MPI reads device memory
   * (device_aware, detected at run time). */
  uint8_t *d_owned_state, *d_owned_elem;
  const dg_halo *halo;
  int device_aware;
  dg_exchange *ex_U, *ex_eps;
  int64_t *d_send_U, *d_recv_U, *d_send_eps, *d_recv_eps;
  int64_t n_send_U, n_recv_U, n_send_eps, n_recv_eps;
  double *d_send, *d_recv, *h_send, *h_recv;
  /* the IPC transport (ipc = 1; cuda_halo_ipc_setup): every neighbour on
   * this host, the messages copied GPU to GPU straight into the
   * neighbour's receive buffer (CUDA IPC, peer copies over NVLink or PCIe
   * on copy_stream), a one-double MPI message per neighbour (doorbell) to
   * say the copies are issued, and an interprocess event (sent_event) the
   * receiver's stream waits on before it unpacks. d_recv has two halves of
   * recv_half doubles, used in turn (exchanges counts them), so a message
   * never lands in the half its receiver may still be unpacking. Per
   * neighbour i: my messages start at send_off_*[i] of d_send and land at
   * peer_base[i] + half * peer_half[i] + peer_off_*[i] */
  int ipc, n_nb;
  int64_t exchanges, recv_half;
  cudaStream_t copy_stream;
  cudaEvent_t sent_event, packed_event;
  dg_exchange *doorbell;
  double bell[2];
  int64_t *send_off_U, *send_off_eps; /* [n_nb + 1] */
  int64_t *peer_off_U, *peer_off_eps; /* [n_nb] */
  int64_t *peer_half;                 /* [n_nb] */
  double **peer_base;                 /* [n_nb] opened IPC buffers */
  cudaEvent_t *peer_event;            /* [n_nb] opened IPC events */
  double *bell_send, *bell_recv;      /* [n_nb] */

  /* COLORDG_CUDA_TIMELINE=N: the N-th residual of this context is timed
   * pass by pass (CUDA events after a device synchronisation, and the host
   * clock around the MPI calls) and printed to stderr (cuda_residual) */
  int64_t timeline_call, residual_calls;
  int timeline_on;        /* 1 while the timed residual runs */
  double timeline_t0;     /* host ms at its start */
  double timeline_mpi[2]; /* host ms (from t0): messages posted, wait returned */
};

static void cuda_halo_ipc_free(dg_backend_ctx *ctx);
static dg_status cuda_halo_ipc_setup(dg_backend_ctx *ctx, const dg_halo *hl, const int64_t *send_u,
                                     const int64_t *recv_u, const int64_t *send_e,
                                     const int64_t *recv_e);

const dg_disc_view *backend_cuda_view(const dg_backend_ctx *ctx) { return &ctx->view; }

const dg_disc_state *backend_cuda_state(const dg_backend_ctx *ctx) { return &ctx->state; }

static int64_t grid_for(int64_t n) { return (n + BACKEND_CUDA_BLOCK - 1) / BACKEND_CUDA_BLOCK; }

/* Most and fewest threads per block of the AV kernels. */
#define AV_BLOCK_MAX 64
#define AV_BLOCK_MIN 8

/* Threads per block of an AV kernel over n items. Each thread of those
 * kernels holds several kB of local arrays (liftings, gradients), so a
 * multiprocessor loaded with many of them spills its L1 cache to L2; the
 * automatic choice halves the block from AV_BLOCK_MAX (not below
 * AV_BLOCK_MIN) until the blocks cover half the multiprocessors (the
 * measurements: docs/PERFORMANCE.md, "AV kernels: threads per block"). No AV
 * kernel reduces across threads, so the launch shape never changes the
 * bits. */
static unsigned av_threads(const dg_backend_ctx *ctx, int64_t n) {
  if (ctx->av_block > 0) return (unsigned)ctx->av_block;
  int64_t threads = AV_BLOCK_MAX;
  while (threads > AV_BLOCK_MIN && 2 * ((n + threads - 1) / threads) < ctx->n_sm) threads /= 2;
  return (unsigned)threads;
}

/* Blocks of an AV kernel over n items with av_threads(ctx, n) threads. */
static unsigned av_blocks(const dg_backend_ctx *ctx, int64_t n) {
  const int64_t threads = av_threads(ctx, n);
  return (unsigned)((n + threads - 1) / threads);
}

static int reduce_blocks(int64_t n) {
  const int64_t g = grid_for(n);
  return (int)(g < 1 ? 1 : g > REDUCE_MAX_BLOCKS ? REDUCE_MAX_BLOCKS : g);
}

/* ------------------------------------------------------------ kernels */

/* face_flux (written) = residual_face of the faces [f0, f1); U read. */
static __global__ void residual_face_kernel(const __grid_constant__ dg_disc_view view,
                                            const __grid_constant__ dg_disc_state st, int64_t f0,
                                            int64_t f1, const double *U, double t,
                                            double *face_flux) {
  const int64_t f = f0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (f < f1) residual_face(&view, &st, f, U, t, face_flux);
}

/* R (written) = residual_element of the elements [e0, e1); U, face_flux read. */
static __global__ void residual_element_kernel(const __grid_constant__ dg_disc_view view,
                                               int64_t e0, int64_t e1, const double *U,
                                               const double *face_flux, double *R) {
  const int64_t e = e0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < e1) residual_element(&view, e, U, face_flux, R);
}

/* eps_elem (written) = av_element_eps of the elements [e0, e1); U read. */
static __global__ void av_element_eps_kernel(const __grid_constant__ dg_disc_view view,
                                             const __grid_constant__ dg_disc_state st, int64_t e0,
                                             int64_t e1, const double *U, double *eps_elem) {
  const int64_t e = e0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < e1) eps_elem[e] = av_element_eps(&view, &st, e, U);
}

/* hold (read and written) = av_hold_update of every element, or -1 (not
 * held) when U is NULL; U read. */
static __global__ void av_hold_kernel(const __grid_constant__ dg_disc_view view, const double *U,
                                      double omega, double *hold) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < view.n_elems) hold[e] = U ? av_hold_update(&view, e, U, hold[e], omega) : -1.0;
}

/* eps_vert (written) = av_vertex_eps of the vertices [v0, v1); eps_elem read. */
static __global__ void av_vertex_eps_kernel(const __grid_constant__ dg_disc_view view, int64_t v0,
                                            int64_t v1, const double *eps_elem, double *eps_vert) {
  const int64_t v = v0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (v < v1) eps_vert[v] = av_vertex_eps(&view, v, eps_elem);
}

/* eps_c (written) = av_element_coefs of the elements [e0, e1) and, when G
 * is not NULL, G (written) = av_element_gradient; U, eps_elem, eps_vert read. */
static __global__ void av_element_coefs_kernel(const __grid_constant__ dg_disc_view view,
                                               int64_t e0, int64_t e1, const double *U,
                                               const double *eps_elem, const double *eps_vert,
                                               double *eps_c, double *G) {
  const int64_t e = e0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= e1) return;
  av_element_coefs(&view, e, eps_elem, eps_vert, eps_c);
  if (G) av_element_gradient(&view, e, U, G);
}

/* face_flux, face_jump (written) = av_residual_face of the faces [f0, f1);
 * U, G, eps_c read. */
static __global__ void av_face_kernel(const __grid_constant__ dg_disc_view view,
                                      const __grid_constant__ dg_disc_state st, int64_t f0,
                                      int64_t f1, const double *U, const double *G,
                                      const double *eps_c, double t, double *face_flux,
                                      double *face_jump) {
  const int64_t f = f0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (f < f1) av_residual_face(&view, &st, f, U, G, eps_c, t, face_flux, face_jump);
}

/* R (written) = av_residual_element of the elements [e0, e1); U, eps_c,
 * face_flux, face_jump read. */
static __global__ void av_element_kernel(const __grid_constant__ dg_disc_view view, int64_t e0,
                                         int64_t e1, const double *U, const double *eps_c,
                                         const double *face_flux, const double *face_jump,
                                         double *R) {
  const int64_t e = e0 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < e1) av_residual_element(&view, e, U, eps_c, face_flux, face_jump, R);
}

/* dt (written) = av_element_timestep of every owned element (a ghost's
 * faces beyond the halo are not in its partition); U, eps_c read. */
static __global__ void av_timestep_kernel(const __grid_constant__ dg_disc_view view,
                                          const double *U, const double *eps_c, double cfl,
                                          double *dt) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < view.n_elems && disc_elem_owned(&view, e))
    dt[e] = av_element_timestep(&view, e, U, eps_c, cfl);
}

/* eps (written) = av_element_mean_eps of every element; eps_c read. */
static __global__ void av_mean_eps_kernel(const __grid_constant__ dg_disc_view view,
                                          const double *eps_c, double *eps) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < view.n_elems) eps[e] = av_element_mean_eps(&view, e, eps_c);
}

/* Uout (written, may alias U0 or U) = a U0 + b (U + dt M⁻¹ R); the rest read. */
static __global__ void rk_update_kernel(const __grid_constant__ dg_disc_view view, double a,
                                        const double *U0, double b, const double *U,
                                        const double *dt, const double *R, double *Uout) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < view.n_elems) residual_rk_update(&view, e, a, U0, b, U, dt, R, Uout);
}

/* U (read and written in place) = limiter_positivity of every element;
 * count (incremented, may be NULL) records limited and bad elements. */
static __global__ void limit_kernel(const __grid_constant__ dg_disc_view view, double *U,
                                    double *count) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < view.n_elems) limiter_positivity_count(&view, e, U, count);
}

/* The time step in two passes: term (written) [2 k + side] =
 * residual_timestep_term of face point k = f nqf + q for each side of face
 * f that has an element (a thread per face point: the traces of one
 * element's faces no longer run one after another in one thread); U read. */
static __global__ void timestep_term_kernel(const dg_disc_view *__restrict__ view, int64_t n_points,
                                            const double *U, double *term) {
  const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n_points) return;
  const int64_t f = k / view->nqf;
  const int q = (int)(k - f * view->nqf);
  term[2 * k] = residual_timestep_term(view, U, f, 0, q);
  if (view->face_elem[2 * f + 1] >= 0) term[2 * k + 1] = residual_timestep_term(view, U, f, 1, q);
}

/* dt (written) of every owned element (a ghost's faces beyond the halo are
 * not in its partition; its entry is not written): its terms summed in
 * residual_element_timestep's order (faces, then points); term read. */
static __global__ void timestep_sum_kernel(const dg_disc_view *__restrict__ view,
                                           const double *term, double cfl, double *dt) {
  const int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= view->n_elems || !disc_elem_owned(view, e)) return;
  const int nf = shape_n_faces((dg_shape)view->elem_shape[e]), nqf = view->nqf;
  double sum = 0.0;
  for (int lf = 0; lf < nf; ++lf) {
    const int64_t f = view->elem_face[e * DG_MAX_FACES + lf];
    const int side = residual_face_side(view, e, lf, f);
    for (int q = 0; q < nqf; ++q) sum += term[2 * (f * nqf + q) + side];
  }
  dt[e] = residual_timestep_of_sum(view, e, cfl, sum);
}

/* dt[e] (written) = *value (read) for every element. */
/* BLAS-1 (dg_vec_axpby, _scale, _set): one entry per thread. */
/* The products and the sum rounded one by one (no fused multiply-add), so
 * that maxpy_kernel's a x + y gives the same bits. */
static __global__ void axpby_kernel(int64_t n, double a, const double *x, double b, double *y) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = b == 0.0 ? a * x[i] : __dadd_rn(__dmul_rn(a, x[i]), __dmul_rn(b, y[i]));
}

static __global__ void scale_kernel(int64_t n, double a, double *x) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

static __global__ void set_kernel(int64_t n, double value, double *x) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value;
}

/* force (written, [6][n_faces]) = residual_face_force of the boundary faces
 * of masked groups, 0 elsewhere; U, mask read. */
static __global__ void force_kernel(const __grid_constant__ dg_disc_view view, const double *U,
                                    const uint8_t *mask, double x0, double x1, double x2,
                                    double *force) {
  const int64_t f = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= view.n_faces) return;
  double out[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  const int g = view.face_group[f];
  /* the faces of owned elements (a ghost's boundary face is its owner's) */
  if (g >= 0 && mask[g] && disc_elem_owned(&view, view.face_elem[2 * f])) {
    const double x_ref[3] = {x0, x1, x2};
    residual_face_force(&view, f, U, x_ref, out);
  }
  for (int c = 0; c < 6; ++c) force[c * view.n_faces + f] = out[c];
}

typedef enum { REDUCE_SUM = 0, REDUCE_MIN = 1, REDUCE_MAX = 2 } reduce_op;

/* REDUCE_MAX keeps a NaN once it has met one (whatever the order). */
DG_HD double reduce_combine(reduce_op op, double a, double b) {
  return op == REDUCE_MIN   ? (b < a ? b : a)
         : op == REDUCE_MAX ? ((b > a || b != b) ? b : a)
                            : a + b;
}

/* Fixed-shape tree over the block's values in shared memory (power-of-two
 * block): the same additions in the same order on every run. Returns the
 * block's result in thread 0. */
static __device__ double block_reduce(reduce_op op, double value, double *shared) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int width = BACKEND_CUDA_BLOCK / 2; width > 0; width /= 2) {
    if ((int)threadIdx.x < width)
      shared[threadIdx.x] = reduce_combine(op, shared[threadIdx.x], shared[threadIdx.x + width]);
    __syncthreads();
  }
  return shared[0];
}

/* First stage: component c = blockIdx.y of x ([n_comp][n], read) reduced
 * into partial[c * gridDim.x + blockIdx.x] (written). Each thread walks
 * its grid-stride slice in index order; owned (NULL: every entry) leaves
 * out the entries i with owned[i] == 0 (a partition's ghosts). */
static __global__ void reduce_stage1_kernel(reduce_op op, double identity, int64_t n,
                                            const double *x, const uint8_t *owned,
                                            double *partial) {
  __shared__ double shared[BACKEND_CUDA_BLOCK];
  const double *xc = x + (int64_t)blockIdx.y * n;
  double value = identity;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    if (!owned || owned[i]) value = reduce_combine(op, value, xc[i]);
  value = block_reduce(op, value, shared);
  if (threadIdx.x == 0) partial[blockIdx.y * gridDim.x + blockIdx.x] = value;
}

/* Second stage: one block per component c; result[c] (written) = reduction
 * of partial[c * n_partial ...] (read). */
static __global__ void reduce_stage2_kernel(reduce_op op, double identity, int n_partial,
                                            const double *partial, double *result) {
  __shared__ double shared[BACKEND_CUDA_BLOCK];
  const double *pc = partial + (int64_t)blockIdx.x * n_partial;
  double value = identity;
  for (int i = threadIdx.x; i < n_partial; i += blockDim.x)
    value = reduce_combine(op, value, pc[i]);
  value = block_reduce(op, value, shared);
  if (threadIdx.x == 0) result[blockIdx.x] = value;
}

/* First stage of the BLAS-1 reductions: partial[blockIdx.x] (written) =
 * the block's Σ x_i y_i (what 0), Σ x_i² (1) or max |x_i| (2) over its
 * grid-stride slice in index order, then the fixed tree of block_reduce;
 * owned as in reduce_stage1_kernel. */
static __global__ void blas_stage1_kernel(int what, int64_t n, const double *x, const double *y,
                                          const uint8_t *owned, double *partial) {
  __shared__ double shared[BACKEND_CUDA_BLOCK];
  const reduce_op op = what == 2 ? REDUCE_MAX : REDUCE_SUM;
  double value = 0.0;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (owned && !owned[i]) continue;
    /* the product rounded before the sum (mdot_stage1_kernel: the same bits) */
    const double term = what == 0   ? __dmul_rn(x[i], y[i])
                        : what == 1 ? __dmul_rn(x[i], x[i])
                                    : fabs(x[i]);
    value = reduce_combine(op, value, term);
  }
  value = block_reduce(op, value, shared);
  if (threadIdx.x == 0) partial[blockIdx.x] = value;
}

/* The coefficients of one variable: up to DG_NUM_SHAPES contiguous segments
 * (one per shape block), segment s starting at base[s] + v * len[s]. */
typedef struct {
  int n_segments;
  int64_t base[DG_NUM_SHAPES], len[DG_NUM_SHAPES];
  int64_t total; /* Σ len */
} norm_segments;

/* First stage of the norms: for variable v = blockIdx.y, partial[v][block]
 * (written) = Σ R² over the block's slice and partial[nvar + v][block] = the
 * number of non-finite entries; R read; owned (NULL: all) as in
 * reduce_stage1_kernel, by coefficient index. */
static __global__ void norm_stage1_kernel(norm_segments seg, int nvar, const double *R,
                                          const uint8_t *owned, double *partial) {
  __shared__ double shared[BACKEND_CUDA_BLOCK];
  const int v = blockIdx.y;
  double sum = 0.0, bad = 0.0;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < seg.total; i += stride) {
    int64_t j = i;
    int s = 0;
    while (s < seg.n_segments - 1 && j >= seg.len[s]) j -= seg.len[s++];
    const int64_t k = seg.base[s] + v * seg.len[s] + j;
    if (owned && !owned[k]) continue;
    const double r = R[k];
    sum += r * r;
    if (!isfinite(r)) bad += 1.0;
  }
  sum = block_reduce(REDUCE_SUM, sum, shared);
  if (threadIdx.x == 0) partial[v * gridDim.x + blockIdx.x] = sum;
  __syncthreads();
  bad = block_reduce(REDUCE_SUM, bad, shared);
  if (threadIdx.x == 0) partial[(nvar + v) * gridDim.x + blockIdx.x] = bad;
}

/* ------------------------------------------------------------ helpers */

static dg_status require_device(void) {
  const int count = backend_cuda_device_count();
  DG_CHECK(count > 0, DG_ERR_UNSUPPORTED,
           "the CUDA backend needs a CUDA device, and none is available (driver or device "
           "missing); use the cpu backend");
  return DG_SUCCESS;
}

/* Copies `count` elements of host array h (may be NULL when count is 0) to a
 * new device array owned by ctx; *d gets NULL when count is 0. */
template <typename T>
static dg_status upload_array(dg_backend_ctx *ctx, const T *h, int64_t count, const char *what,
                              const T **d, gpu_mem_category category = GPU_MEM_GEOMETRY) {
  *d = NULL;
  if (count <= 0) return DG_SUCCESS;
  DG_CHECK(h != NULL, DG_ERR_ARG, "CUDA backend: the discretisation's %s is NULL (%lld entries)",
           what, (long long)count);
  DG_CHECK(ctx->n_arrays < BACKEND_CUDA_MAX_ARRAYS, DG_ERR_INTERNAL,
           "CUDA backend: more than %d device arrays", BACKEND_CUDA_MAX_ARRAYS);
  void *ptr = NULL;
  const size_t bytes = (size_t)count * sizeof(T);
  DG_CALL_CUDA(gpu_malloc(&ptr, bytes, category));
  ctx->arrays[ctx->n_arrays++] = ptr;
  DG_CALL_CUDA(cudaMemcpy(ptr, h, bytes, cudaMemcpyHostToDevice));
  *d = (const T *)ptr;
  return DG_SUCCESS;
}

static int64_t vec_length(const dg_backend_ctx *ctx, dg_vec_kind kind) {
  return kind == DG_VEC_STATE ? ctx->n_coefs : kind == DG_VEC_ELEM ? ctx->n_elems : -1;
}

/* Runs both reduction stages over x ([n_comp][n] on the device) into
 * ctx->d_result[0 .. n_comp); owned: NULL or the mask of the entries
 * counted (reduce_stage1_kernel). */
static dg_status reduce_components(dg_backend_ctx *ctx, reduce_op op, double identity, int64_t n,
                                   int n_comp, const double *x, const uint8_t *owned) {
  const int blocks = reduce_blocks(n);
  reduce_stage1_kernel<<<dim3((unsigned)blocks, (unsigned)n_comp), BACKEND_CUDA_BLOCK>>>(
      op, identity, n, x, owned, ctx->d_partial);
  DG_CHECK_LAUNCH("reduce_stage1_kernel");
  reduce_stage2_kernel<<<(unsigned)n_comp, BACKEND_CUDA_BLOCK>>>(op, identity, blocks,
                                                                 ctx->d_partial, ctx->d_result);
  DG_CHECK_LAUNCH("reduce_stage2_kernel");
  return DG_SUCCESS;
}

/* ------------------------------------------------------------ halo */

/* Host wall clock in milliseconds (the residual timeline). */
static double host_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* dst[k] (written) = src[idx[k]] (read), k < n: packs a halo message. */
static __global__ void halo_gather_kernel(int64_t n, const int64_t *idx, const double *src,
                                          double *dst) {
  const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dst[k] = src[idx[k]];
}

/* dst[idx[k]] (written) = src[k] (read), k < n: unpacks a halo message. */
static __global__ void halo_scatter_kernel(int64_t n, const int64_t *idx, const double *src,
                                           double *dst) {
  const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dst[idx[k]] = src[k];
}

/* A device copy of n host values (at least one entry) in *d. */
template <typename T> static dg_status halo_upload(const T *h, int64_t n, T **d) {
  const size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(T);
  DG_CALL_CUDA(gpu_malloc((void **)d, bytes, GPU_MEM_WORK));
  if (n > 0) DG_CALL_CUDA(cudaMemcpy(*d, h, (size_t)n * sizeof(T), cudaMemcpyHostToDevice));
  return DG_SUCCESS;
}

/* The indices, into the exchanged array, of the doubles of the listed
 * elements list[0 .. n) in message order (state: each element's nvar x nb
 * coefficients, variable-major; ε: its DG_AV_NLIN coefficients), and per
 * neighbour the doubles of elements [offset[i], offset[i+1]) (counts). */
static dg_status halo_indices(const dg_disc_view *h, int state, int n_neighbors,
                              const int64_t *offset, const int64_t *list, int64_t *counts,
                              int64_t **d_idx, int64_t *n_idx) {
  int64_t total = 0;
  for (int i = 0; i < n_neighbors; ++i) {
    counts[i] = 0;
    for (int64_t k = offset[i]; k < offset[i + 1]; ++k)
      counts[i] += state ? (int64_t)h->nvar * h->nb[h->elem_shape[list[k]]] : DG_AV_NLIN;
    total += counts[i];
  }
  int64_t *idx = (int64_t *)malloc((size_t)(total > 0 ? total : 1) * sizeof(int64_t));
  DG_CHECK(idx != NULL, DG_ERR_MEMORY, "CUDA backend: out of host memory for %lld halo indices",
           (long long)total);
  int64_t j = 0;
  for (int64_t k = 0; k < offset[n_neighbors]; ++k) {
    const int64_t e = list[k];
    if (state) {
      const int nb = h->nb[h->elem_shape[e]];
      for (int v = 0; v < h->nvar; ++v)
        for (int m = 0; m < nb; ++m) idx[j++] = disc_coef_index(h, e, v, m);
    } else {
      for (int c = 0; c < DG_AV_NLIN; ++c) idx[j++] = e * DG_AV_NLIN + c;
    }
  }
  *n_idx = total;
  const dg_status status = halo_upload(idx, total, d_idx);
  free(idx);
  return status;
}

/* The masks of owned entries (when some shape has ghosts) and the halo's
 * exchanges, indices and buffers (when the discretisation is one partition
 * of several); nothing in one process. */
static dg_status cuda_halo_create(dg_backend_ctx *ctx, const dg_disc *disc) {
  const dg_disc_view *h = &disc->view;
  int ghosts = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) ghosts |= h->n_owned[s] < h->n_shape[s];
  if (ghosts) {
    uint8_t *owned_state = (uint8_t *)calloc((size_t)h->n_coefs, 1);
    uint8_t *owned_elem = (uint8_t *)calloc((size_t)h->n_elems, 1);
    dg_status status = DG_SUCCESS;
    if (!owned_state || !owned_elem)
      status = dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                            "CUDA backend: out of host memory for the owned masks");
    for (int64_t e = 0; status == DG_SUCCESS && e < h->n_elems; ++e) {
      if (!disc_elem_owned(h, e)) continue;
      owned_elem[e] = 1;
      const int nb = h->nb[h->elem_shape[e]];
      for (int v = 0; v < h->nvar; ++v)
        for (int m = 0; m < nb; ++m) owned_state[disc_coef_index(h, e, v, m)] = 1;
    }
    if (status == DG_SUCCESS) status = halo_upload(owned_state, h->n_coefs, &ctx->d_owned_state);
    if (status == DG_SUCCESS) status = halo_upload(owned_elem, h->n_elems, &ctx->d_owned_elem);
    free(owned_state);
    free(owned_elem);
    DG_CALL(status);
  }
  const dg_halo *hl = disc->halo;
  ctx->halo = hl;
  if (!hl || !hl->comm || dg_comm_size(hl->comm) == 1) return DG_SUCCESS;
  const int n = hl->n_neighbors;
  int64_t *counts = (int64_t *)calloc((size_t)(4 * (n > 0 ? n : 1)), sizeof(int64_t));
  DG_CHECK(counts != NULL, DG_ERR_MEMORY, "CUDA backend: out of host memory for the halo");
  int64_t *send_u = counts, *recv_u = counts + n, *send_e = counts + 2 * n,
          *recv_e = counts + 3 * n;
  dg_status status =
      halo_indices(h, 1, n, hl->send_offset, hl->send_elem, send_u, &ctx->d_send_U, &ctx->n_send_U);
  if (status == DG_SUCCESS)
    status = halo_indices(h, 1, n, hl->recv_offset, hl->recv_elem, recv_u, &ctx->d_recv_U,
                          &ctx->n_recv_U);
  if (status == DG_SUCCESS)
    status = dg_exchange_create(hl->comm, n, hl->neighbor, send_u, recv_u, 101, &ctx->ex_U);
  if (status == DG_SUCCESS && h->av != DG_AV_OFF) {
    status = halo_indices(h, 0, n, hl->send_offset, hl->send_elem, send_e, &ctx->d_send_eps,
                          &ctx->n_send_eps);
    if (status == DG_SUCCESS)
      status = halo_indices(h, 0, n, hl->recv_offset, hl->recv_elem, recv_e, &ctx->d_recv_eps,
                            &ctx->n_recv_eps);
    if (status == DG_SUCCESS)
      status = dg_exchange_create(hl->comm, n, hl->neighbor, send_e, recv_e, 102, &ctx->ex_eps);
  }
  if (status != DG_SUCCESS) {
    free(counts);
    DG_CALL(status);
  }
  /* one pair of buffers for both exchanges (never in flight together); the
   * receive buffer in two halves for the IPC transport */
  const int64_t n_send = ctx->n_send_U > ctx->n_send_eps ? ctx->n_send_U : ctx->n_send_eps;
  const int64_t n_recv = ctx->n_recv_U > ctx->n_recv_eps ? ctx->n_recv_U : ctx->n_recv_eps;
  ctx->recv_half = n_recv > 0 ? n_recv : 1;
  const size_t send_bytes = (size_t)(n_send > 0 ? n_send : 1) * sizeof(double);
  const size_t recv_bytes = (size_t)ctx->recv_half * sizeof(double);
  ctx->device_aware = dg_comm_device_aware();
  if (gpu_malloc((void **)&ctx->d_send, send_bytes, GPU_MEM_WORK) != cudaSuccess ||
      gpu_malloc((void **)&ctx->d_recv, 2 * recv_bytes, GPU_MEM_WORK) != cudaSuccess ||
      (!ctx->device_aware && (cudaMallocHost((void **)&ctx->h_send, send_bytes) != cudaSuccess ||
                              cudaMallocHost((void **)&ctx->h_recv, recv_bytes) != cudaSuccess)))
    status = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__,
                          "CUDA backend: the halo buffers (%zu + %zu bytes): %s", send_bytes,
                          2 * recv_bytes, cudaGetErrorString(cudaGetLastError()));
  /* collective: every rank reaches it (a rank that failed above reports after) */
  const dg_status ipc_status = cuda_halo_ipc_setup(ctx, hl, send_u, recv_u, send_e, recv_e);
  free(counts);
  DG_CALL(status);
  DG_CALL(ipc_status);
  return DG_SUCCESS;
}

/* Releases the IPC transport (opened handles, events, stream, doorbell). */
static void cuda_halo_ipc_free(dg_backend_ctx *ctx) {
  if (ctx->peer_base)
    for (int i = 0; i < ctx->n_nb; ++i)
      if (ctx->peer_base[i]) cudaIpcCloseMemHandle(ctx->peer_base[i]);
  if (ctx->peer_event)
    for (int i = 0; i < ctx->n_nb; ++i)
      if (ctx->peer_event[i]) cudaEventDestroy(ctx->peer_event[i]);
  if (ctx->sent_event) cudaEventDestroy(ctx->sent_event);
  if (ctx->packed_event) cudaEventDestroy(ctx->packed_event);
  if (ctx->copy_stream) cudaStreamDestroy(ctx->copy_stream);
  dg_exchange_destroy(ctx->doorbell);
  free(ctx->peer_base);
  free(ctx->peer_event);
  free(ctx->send_off_U);
  free(ctx->send_off_eps);
  free(ctx->peer_off_U);
  free(ctx->peer_off_eps);
  free(ctx->peer_half);
  free(ctx->bell_send);
  free(ctx->bell_recv);
  ctx->peer_base = NULL;
  ctx->peer_event = NULL;
  ctx->sent_event = ctx->packed_event = NULL;
  ctx->copy_stream = NULL;
  ctx->doorbell = NULL;
  ctx->send_off_U = ctx->send_off_eps = ctx->peer_off_U = ctx->peer_off_eps = NULL;
  ctx->peer_half = NULL;
  ctx->bell_send = ctx->bell_recv = NULL;
  ctx->ipc = 0;
}

/* Doubles that carry a CUDA IPC handle (64 bytes) in a setup message. */
#define IPC_HANDLE_DOUBLES (sizeof(cudaIpcMemHandle_t) / sizeof(double))
/* Per neighbour in the setup message: the memory handle of d_recv, the
 * event handle of sent_event, where the neighbour's messages start in each
 * half (state, ε), the half's length and the device index. */
#define IPC_SETUP_DOUBLES (2 * IPC_HANDLE_DOUBLES + 4)

static_assert(sizeof(cudaIpcMemHandle_t) % sizeof(double) == 0 &&
                  sizeof(cudaIpcEventHandle_t) == sizeof(cudaIpcMemHandle_t),
              "IPC handles packed as doubles");

/* Sets up the IPC transport when every rank's neighbours are processes of
 * this host whose GPUs this one can reach (peer access, or the same GPU),
 * and COLORDG_HALO_TRANSPORT is not "staged": collective (every rank of the
 * communicator takes part and all agree on ipc). send_u..recv_e: doubles
 * per neighbour of the two exchanges. Without it (ipc = 0) the messages go
 * through MPI (staged or CUDA-aware). */
static dg_status cuda_halo_ipc_setup(dg_backend_ctx *ctx, const dg_halo *hl, const int64_t *send_u,
                                     const int64_t *recv_u, const int64_t *send_e,
                                     const int64_t *recv_e) {
  const dg_comm *comm = hl->comm;
  const int n = hl->n_neighbors;
  const char *env = getenv("COLORDG_HALO_TRANSPORT");
  int64_t ok = !(env && strcmp(env, "staged") == 0) && !ctx->device_aware &&
               dg_comm_node_size() == dg_comm_size(comm);
  int device = 0;
  if (ok && cudaGetDevice(&device) != cudaSuccess) ok = 0;
  DG_CALL(dg_comm_allreduce_i64(comm, DG_COMM_MIN, &ok, 1));
  if (!ok) return DG_SUCCESS;
  ctx->n_nb = n;
  const int m = n > 0 ? n : 1;
  ctx->send_off_U = (int64_t *)calloc((size_t)m + 1, sizeof(int64_t));
  ctx->send_off_eps = (int64_t *)calloc((size_t)m + 1, sizeof(int64_t));
  ctx->peer_off_U = (int64_t *)calloc((size_t)m, sizeof(int64_t));
  ctx->peer_off_eps = (int64_t *)calloc((size_t)m, sizeof(int64_t));
  ctx->peer_half = (int64_t *)calloc((size_t)m, sizeof(int64_t));
  ctx->peer_base = (double **)calloc((size_t)m, sizeof(double *));
  ctx->peer_event = (cudaEvent_t *)calloc((size_t)m, sizeof(cudaEvent_t));
  ctx->bell_send = (double *)calloc((size_t)m, sizeof(double));
  ctx->bell_recv = (double *)calloc((size_t)m, sizeof(double));
  double *msg = (double *)calloc((size_t)m * 2 * IPC_SETUP_DOUBLES, sizeof(double));
  int64_t *ones = (int64_t *)calloc((size_t)m, sizeof(int64_t)),
          *setup_count = (int64_t *)calloc((size_t)m, sizeof(int64_t));
  dg_status status = DG_SUCCESS;
  dg_exchange *setup = NULL;
  int64_t opened = 1;
  if (!ctx->send_off_U || !ctx->send_off_eps || !ctx->peer_off_U || !ctx->peer_off_eps ||
      !ctx->peer_half || !ctx->peer_base || !ctx->peer_event || !ctx->bell_send ||
      !ctx->bell_recv || !msg || !ones || !setup_count)
    status = dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                          "CUDA backend: out of host memory for the IPC halo");
  /* a rank that could not allocate leaves the collectives below to nobody:
   * all agree first (that rank fails, the others keep the staged path) */
  int64_t allocated = status == DG_SUCCESS;
  const dg_status agreed = dg_comm_allreduce_i64(comm, DG_COMM_MIN, &allocated, 1);
  if (agreed != DG_SUCCESS || !allocated) {
    free(msg);
    free(ones);
    free(setup_count);
    cuda_halo_ipc_free(ctx);
    DG_CALL(status);
    return agreed;
  }
  int64_t recv_off_U = 0, recv_off_eps = 0;
  cudaIpcMemHandle_t mem_handle;
  cudaIpcEventHandle_t event_handle;
  if (status == DG_SUCCESS) {
    for (int i = 0; i < n; ++i) {
      ctx->send_off_U[i + 1] = ctx->send_off_U[i] + send_u[i];
      ctx->send_off_eps[i + 1] = ctx->send_off_eps[i] + send_e[i];
      ones[i] = 1;
      setup_count[i] = IPC_SETUP_DOUBLES;
    }
    if (cudaStreamCreateWithFlags(&ctx->copy_stream, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreateWithFlags(&ctx->sent_event,
                                 cudaEventInterprocess | cudaEventDisableTiming) != cudaSuccess ||
        cudaEventCreateWithFlags(&ctx->packed_event, cudaEventDisableTiming) != cudaSuccess ||
        cudaIpcGetMemHandle(&mem_handle, ctx->d_recv) != cudaSuccess ||
        cudaIpcGetEventHandle(&event_handle, ctx->sent_event) != cudaSuccess)
      opened = 0;
  }
  if (status == DG_SUCCESS && opened) {
    /* to neighbour i: where its messages land in my halves */
    double *out = msg;
    for (int i = 0; i < n; ++i) {
      double *w = out + (size_t)i * IPC_SETUP_DOUBLES;
      memcpy(w, &mem_handle, sizeof mem_handle);
      memcpy(w + IPC_HANDLE_DOUBLES, &event_handle, sizeof event_handle);
      w[2 * IPC_HANDLE_DOUBLES] = (double)recv_off_U;
      w[2 * IPC_HANDLE_DOUBLES + 1] = (double)recv_off_eps;
      w[2 * IPC_HANDLE_DOUBLES + 2] = (double)ctx->recv_half;
      w[2 * IPC_HANDLE_DOUBLES + 3] = (double)device;
      recv_off_U += recv_u[i];
      recv_off_eps += recv_e[i];
    }
  }
  /* every rank takes part in the exchanges below (a failed handle only
   * clears opened) */
  if (status == DG_SUCCESS)
    status = dg_exchange_create(comm, n, hl->neighbor, setup_count, setup_count, 103, &setup);
  if (status == DG_SUCCESS)
    status = dg_exchange_start(setup, msg, msg + (size_t)m * IPC_SETUP_DOUBLES);
  if (status == DG_SUCCESS) status = dg_exchange_finish(setup);
  dg_exchange_destroy(setup);
  for (int i = 0; status == DG_SUCCESS && opened && i < n; ++i) {
    const double *r = msg + (size_t)(m + i) * IPC_SETUP_DOUBLES;
    const int peer_device = (int)r[2 * IPC_HANDLE_DOUBLES + 3];
    int access = peer_device == device;
    if (!access && cudaDeviceCanAccessPeer(&access, device, peer_device) != cudaSuccess) access = 0;
    cudaIpcMemHandle_t mh;
    cudaIpcEventHandle_t eh;
    memcpy(&mh, r, sizeof mh);
    memcpy(&eh, r + IPC_HANDLE_DOUBLES, sizeof eh);
    void *base = NULL;
    if (!access || cudaIpcOpenMemHandle(&base, mh, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess ||
        cudaIpcOpenEventHandle(&ctx->peer_event[i], eh) != cudaSuccess) {
      opened = 0;
      if (base) cudaIpcCloseMemHandle(base);
      break;
    }
    ctx->peer_base[i] = (double *)base;
    ctx->peer_off_U[i] = (int64_t)r[2 * IPC_HANDLE_DOUBLES];
    ctx->peer_off_eps[i] = (int64_t)r[2 * IPC_HANDLE_DOUBLES + 1];
    ctx->peer_half[i] = (int64_t)r[2 * IPC_HANDLE_DOUBLES + 2];
  }
  if (!opened) (void)cudaGetLastError(); /* leave no sticky error */
  if (status == DG_SUCCESS) status = dg_comm_allreduce_i64(comm, DG_COMM_MIN, &opened, 1);
  if (status == DG_SUCCESS && opened)
    status = dg_exchange_create(comm, n, hl->neighbor, ones, ones, 104, &ctx->doorbell);
  free(msg);
  free(ones);
  free(setup_count);
  if (status != DG_SUCCESS || !opened) {
    cuda_halo_ipc_free(ctx);
    DG_CALL(status);
    return DG_SUCCESS;
  }
  ctx->ipc = 1;
  return DG_SUCCESS;
}

/* Packs src's listed doubles (idx, n of them) and starts the exchange ex
 * (nothing without one): straight from device memory with CUDA-aware MPI,
 * else through the pinned buffer (the copy waits for the pack). */
static dg_status cuda_halo_start(dg_backend_ctx *ctx, dg_exchange *ex, const double *src,
                                 const int64_t *idx, int64_t n) {
  if (!ex) return DG_SUCCESS;
  /* IPC: d_send is free once the previous exchange's copies are done */
  if (ctx->ipc) DG_CALL_CUDA(cudaStreamWaitEvent(0, ctx->sent_event, 0));
  if (n > 0) {
    halo_gather_kernel<<<(unsigned)grid_for(n), BACKEND_CUDA_BLOCK>>>(n, idx, src, ctx->d_send);
    DG_CHECK_LAUNCH("halo_gather_kernel");
  }
  if (ctx->ipc) {
    /* the copies on copy_stream after the pack, then the doorbells */
    const int eps = ex == ctx->ex_eps;
    const int64_t *send_off = eps ? ctx->send_off_eps : ctx->send_off_U;
    const int64_t *peer_off = eps ? ctx->peer_off_eps : ctx->peer_off_U;
    const int64_t half = ctx->exchanges & 1;
    DG_CALL_CUDA(cudaEventRecord(ctx->packed_event, 0));
    DG_CALL_CUDA(cudaStreamWaitEvent(ctx->copy_stream, ctx->packed_event, 0));
    for (int i = 0; i < ctx->n_nb; ++i) {
      const int64_t count = send_off[i + 1] - send_off[i];
      if (count > 0)
        DG_CALL_CUDA(cudaMemcpyAsync(ctx->peer_base[i] + half * ctx->peer_half[i] + peer_off[i],
                                     ctx->d_send + send_off[i], (size_t)count * sizeof(double),
                                     cudaMemcpyDefault, ctx->copy_stream));
    }
    DG_CALL_CUDA(cudaEventRecord(ctx->sent_event, ctx->copy_stream));
    DG_CALL(dg_exchange_start(ctx->doorbell, ctx->bell_send, ctx->bell_recv));
    dg_exchange_count_payload((double)send_off[ctx->n_nb]);
  } else if (ctx->device_aware) {
    DG_CALL_CUDA(cudaStreamSynchronize(0));
    DG_CALL(dg_exchange_start(ex, ctx->d_send, ctx->d_recv));
  } else {
    if (n > 0)
      DG_CALL_CUDA(
          cudaMemcpy(ctx->h_send, ctx->d_send, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost));
    DG_CALL(dg_exchange_start(ex, ctx->h_send, ctx->h_recv));
  }
  if (ctx->timeline_on) ctx->timeline_mpi[0] = host_ms() - ctx->timeline_t0;
  return DG_SUCCESS;
}

/* Waits for ex and writes the received doubles to dst at idx (n of them). */
static dg_status cuda_halo_finish(dg_backend_ctx *ctx, dg_exchange *ex, double *dst,
                                  const int64_t *idx, int64_t n) {
  if (!ex) return DG_SUCCESS;
  if (ctx->ipc) {
    /* the doorbells, then the stream waits for the neighbours' copies */
    DG_CALL(dg_exchange_finish(ctx->doorbell));
    if (ctx->timeline_on) ctx->timeline_mpi[1] = host_ms() - ctx->timeline_t0;
    for (int i = 0; i < ctx->n_nb; ++i) DG_CALL_CUDA(cudaStreamWaitEvent(0, ctx->peer_event[i], 0));
    const double *recv = ctx->d_recv + (ctx->exchanges & 1) * ctx->recv_half;
    ctx->exchanges += 1;
    if (n <= 0) return DG_SUCCESS;
    halo_scatter_kernel<<<(unsigned)grid_for(n), BACKEND_CUDA_BLOCK>>>(n, idx, recv, dst);
    DG_CHECK_LAUNCH("halo_scatter_kernel");
    return DG_SUCCESS;
  }
  DG_CALL(dg_exchange_finish(ex));
  if (ctx->timeline_on) ctx->timeline_mpi[1] = host_ms() - ctx->timeline_t0;
  if (n <= 0) return DG_SUCCESS;
  if (!ctx->device_aware)
    DG_CALL_CUDA(
        cudaMemcpy(ctx->d_recv, ctx->h_recv, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
  halo_scatter_kernel<<<(unsigned)grid_for(n), BACKEND_CUDA_BLOCK>>>(n, idx, ctx->d_recv, dst);
  DG_CHECK_LAUNCH("halo_scatter_kernel");
  return DG_SUCCESS;
}

/* The ghosts' ε coefficients (eps_c, [n_elems * DG_AV_NLIN] on the device)
 * from their owners (blocking; nothing in one process or without AV). */
static dg_status cuda_halo_eps(dg_backend_ctx *ctx, double *eps_c) {
  DG_CALL(cuda_halo_start(ctx, ctx->ex_eps, eps_c, ctx->d_send_eps, ctx->n_send_eps));
  DG_CALL(cuda_halo_finish(ctx, ctx->ex_eps, eps_c, ctx->d_recv_eps, ctx->n_recv_eps));
  return DG_SUCCESS;
}

/* The table's halo: the ghost coefficients of state vector x from their
 * owners (blocking). */
static dg_status cuda_halo(dg_backend_ctx *ctx, double *x) {
  DG_CALL(cuda_halo_start(ctx, ctx->ex_U, x, ctx->d_send_U, ctx->n_send_U));
  DG_CALL(cuda_halo_finish(ctx, ctx->ex_U, x, ctx->d_recv_U, ctx->n_recv_U));
  return DG_SUCCESS;
}

static const dg_comm *cuda_comm(const dg_backend_ctx *ctx) {
  return ctx->halo ? ctx->halo->comm : NULL;
}

dg_status backend_cuda_halo_eps(dg_backend_ctx *ctx, double *d_eps_c) {
  return cuda_halo_eps(ctx, d_eps_c);
}

extern "C" const char *backend_cuda_halo_transport(const dg_backend_ctx *ctx) {
  if (!ctx || !ctx->ex_U) return "none (one process)";
  return ctx->ipc            ? "GPU to GPU (CUDA IPC peer copies, MPI doorbells)"
         : ctx->device_aware ? "GPU memory through CUDA-aware MPI"
                             : "staged through pinned host memory";
}

/* ------------------------------------------------------------ operations */

static void cuda_destroy(dg_backend_ctx *ctx) {
  if (!ctx) return;
  for (int i = 0; i < ctx->n_arrays; ++i) gpu_free(ctx->arrays[i]);
  gpu_free(ctx->d_face_flux);
  gpu_free(ctx->d_trace);
  gpu_free(ctx->d_force);
  gpu_free(ctx->d_partial);
  gpu_free(ctx->d_result);
  gpu_free(ctx->d_mask);
  gpu_free(ctx->d_eps_elem);
  gpu_free(ctx->d_eps_hold);
  gpu_free(ctx->d_eps_vert);
  gpu_free(ctx->d_eps_c);
  gpu_free(ctx->d_grad);
  gpu_free(ctx->d_face_jump);
  gpu_free(ctx->d_lift);
  gpu_free(ctx->d_view);
  gpu_free(ctx->d_state);
  gpu_free(ctx->d_owned_state);
  gpu_free(ctx->d_owned_elem);
  gpu_free(ctx->d_send_U);
  gpu_free(ctx->d_recv_U);
  gpu_free(ctx->d_send_eps);
  gpu_free(ctx->d_recv_eps);
  gpu_free(ctx->d_send);
  gpu_free(ctx->d_recv);
  if (ctx->h_send) cudaFreeHost(ctx->h_send);
  if (ctx->h_recv) cudaFreeHost(ctx->h_recv);
  dg_exchange_destroy(ctx->ex_U);
  dg_exchange_destroy(ctx->ex_eps);
  cuda_halo_ipc_free(ctx);
  free(ctx);
}

/* A zeroed device array of n doubles (at least one) owned by the caller
 * (artificial-viscosity scratch: counted as GPU_MEM_AV). */
static dg_status device_zeros(int64_t n, const char *what, double **out) {
  const size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
  const cudaError_t error = gpu_malloc((void **)out, bytes, GPU_MEM_AV);
  if (error != cudaSuccess) {
    *out = NULL;
    return dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__,
                        "CUDA backend: cudaMalloc of %s (%lld doubles): %s (%s)", what,
                        (long long)n, cudaGetErrorString(error), cudaGetErrorName(error));
  }
  DG_CALL_CUDA(cudaMemset(*out, 0, bytes));
  return DG_SUCCESS;
}

/* Device copies of the artificial-viscosity arrays of the discretisation and
 * the scratch of its ε passes; nothing (NULL pointers) when view.av is off. */
static dg_status cuda_create_av_arrays(const dg_disc *disc, dg_backend_ctx *ctx) {
  const dg_disc_view *h = &disc->view;
  dg_disc_view *d = &ctx->view;
  d->lin_coef = NULL;
  d->elem_h = NULL;
  d->elem_vert = NULL;
  d->vert_elem_start = NULL;
  d->vert_elem = NULL;
  if (h->av == DG_AV_OFF) return DG_SUCCESS;
  DG_CHECK(h->av == DG_AV_ELEMENT || h->av == DG_AV_CONTINUOUS, DG_ERR_ARG,
           "CUDA backend create: unknown artificial viscosity mode %d", h->av);
  const int64_t ne = h->n_elems;
  DG_CHECK(h->n_verts > 0 && disc->n_lin_table > 0 && disc->n_vert_elem > 0, DG_ERR_ARG,
           "CUDA backend create: artificial viscosity is on but the discretisation has no "
           "vertex or linear tables (n_verts %lld, n_lin_table %lld, n_vert_elem %lld)",
           (long long)h->n_verts, (long long)disc->n_lin_table, (long long)disc->n_vert_elem);
  DG_CALL(upload_array(ctx, h->lin_coef, disc->n_lin_table, "lin_coef", &d->lin_coef, GPU_MEM_AV));
  DG_CALL(upload_array(ctx, h->elem_h, ne, "elem_h", &d->elem_h, GPU_MEM_AV));
  DG_CALL(
      upload_array(ctx, h->elem_vert, ne * DG_MAX_VERTS, "elem_vert", &d->elem_vert, GPU_MEM_AV));
  DG_CALL(upload_array(ctx, h->vert_elem_start, h->n_verts + 1, "vert_elem_start",
                       &d->vert_elem_start, GPU_MEM_AV));
  DG_CALL(
      upload_array(ctx, h->vert_elem, disc->n_vert_elem, "vert_elem", &d->vert_elem, GPU_MEM_AV));
  DG_CALL(device_zeros(ne, "eps_elem", &ctx->d_eps_elem));
  DG_CALL(device_zeros(ne, "eps_hold", &ctx->d_eps_hold));
  ctx->state.av_eps_hold = ctx->d_eps_hold;
  if (ne > 0) {
    av_hold_kernel<<<(unsigned)grid_for(ne), BACKEND_CUDA_BLOCK>>>(*d, NULL, 1.0, ctx->d_eps_hold);
    DG_CHECK_LAUNCH("av_hold_kernel");
  }
  if (h->av == DG_AV_CONTINUOUS) DG_CALL(device_zeros(h->n_verts, "eps_vert", &ctx->d_eps_vert));
  DG_CALL(device_zeros(ne * DG_AV_NLIN, "eps_c", &ctx->d_eps_c));
  DG_CALL(device_zeros((int64_t)h->dim * h->n_coefs, "gradient G", &ctx->d_grad));
  DG_CALL(device_zeros(disc->n_face_points * h->nvar, "face_jump", &ctx->d_face_jump));
  DG_CALL(device_zeros((int64_t)h->dim * h->n_coefs, "lifting L", &ctx->d_lift));
  return DG_SUCCESS;
}

/* d_trace (allocated, NaN until written): the traces of both sides of
 * every face point, for the trace path. */
static dg_status cuda_trace_alloc(dg_backend_ctx *ctx) {
  const size_t bytes = (size_t)ctx->n_face_points * 2 * ctx->nvar * sizeof(double);
  DG_CALL_CUDA(gpu_malloc((void **)&ctx->d_trace, bytes, GPU_MEM_WORK));
  DG_CALL_CUDA(cudaMemset(ctx->d_trace, 0xff, bytes));
  return DG_SUCCESS;
}

/* The trace path's arrays (backend_cuda_trace_tables: a single-shape mesh
 * without AV): d_face_phiT, the face tables with each table's point index
 * fastest, and, where the path runs by default (backend_cuda_trace_default),
 * d_trace. */
static dg_status cuda_create_trace_arrays(const dg_disc *disc, dg_backend_ctx *ctx) {
  const dg_disc_view *h = &disc->view;
  const int64_t n_table = disc->n_face_table, nqf = h->nqf;
  double *phiT = (double *)malloc((size_t)(n_table > 0 ? n_table : 1) * sizeof(double));
  DG_CHECK(phiT != NULL, DG_ERR_MEMORY,
           "CUDA backend: out of host memory for the transposed face tables (%lld doubles)",
           (long long)n_table);
  const int s = disc_single_shape(h), nb = h->nb[s];
  const dg_shape fs = shape_face_shape((dg_shape)s, 0);
  for (int lf = 0; lf < shape_n_faces((dg_shape)s); ++lf)
    for (int o = 0; o < shape_n_orient(fs); ++o) {
      const int64_t t = h->face_table[s][lf][o];
      for (int q = 0; q < nqf; ++q)
        for (int m = 0; m < nb; ++m) phiT[t + m * nqf + q] = h->face_phi[t + q * nb + m];
    }
  const dg_status st =
      upload_array(ctx, (const double *)phiT, n_table, "transposed face_phi", &ctx->d_face_phiT);
  free(phiT);
  DG_CALL(st);
  if (backend_cuda_trace_default(h->av, h->dim, nb, disc->n_face_points))
    DG_CALL(cuda_trace_alloc(ctx));
  return DG_SUCCESS;
}

static dg_status cuda_create_arrays(const dg_disc *disc, dg_backend_ctx *ctx) {
  const dg_disc_view *h = &disc->view;
  dg_disc_view *d = &ctx->view;
  const int64_t ne = h->n_elems, nf = h->n_faces, nfp = disc->n_face_points, dim = h->dim;
  *d = *h; /* sizes, tables offsets, freestream, vortex; pointers replaced below */
  DG_CALL(upload_array(ctx, h->vol_phi, disc->n_vol_table, "vol_phi", &d->vol_phi));
  DG_CALL(upload_array(ctx, h->vol_dphi, disc->n_vol_table * dim, "vol_dphi", &d->vol_dphi));
  DG_CALL(upload_array(ctx, h->vol_w, disc->n_vol_points, "vol_w", &d->vol_w));
  DG_CALL(upload_array(ctx, h->face_phi, disc->n_face_table, "face_phi", &d->face_phi));
  DG_CALL(upload_array(ctx, h->elem_shape, ne, "elem_shape", &d->elem_shape));
  DG_CALL(upload_array(ctx, h->elem_affine, ne, "elem_affine", &d->elem_affine));
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    ctx->n_affine[s] = 0;
    for (int64_t e = h->elem_start[s]; e < h->elem_start[s] + h->n_owned[s]; ++e)
      ctx->n_affine[s] += h->elem_affine[e] != 0;
  }
  DG_CALL(upload_array(ctx, h->metric_offset, ne + 1, "metric_offset", &d->metric_offset));
  DG_CALL(upload_array(ctx, h->metric_detJ, disc->n_metric, "metric_detJ", &d->metric_detJ));
  DG_CALL(upload_array(ctx, h->metric_invJ, disc->n_metric * dim * dim, "metric_invJ",
                       &d->metric_invJ));
  DG_CALL(upload_array(ctx, h->minv_offset, ne, "minv_offset", &d->minv_offset));
  DG_CALL(upload_array(ctx, h->minv, disc->n_minv, "minv", &d->minv));
  DG_CALL(upload_array(ctx, h->elem_volume, ne, "elem_volume", &d->elem_volume));
  DG_CALL(upload_array(ctx, h->elem_face, ne * DG_MAX_FACES, "elem_face", &d->elem_face));
  DG_CALL(upload_array(ctx, h->face_elem, 2 * nf, "face_elem", &d->face_elem));
  DG_CALL(upload_array(ctx, h->face_local, 2 * nf, "face_local", &d->face_local));
  DG_CALL(upload_array(ctx, h->face_orient, nf, "face_orient", &d->face_orient));
  DG_CALL(upload_array(ctx, h->face_group, nf, "face_group", &d->face_group));
  DG_CALL(upload_array(ctx, h->face_normal, nfp * dim, "face_normal", &d->face_normal));
  DG_CALL(upload_array(ctx, h->face_wsJ, nfp, "face_wsJ", &d->face_wsJ));
  DG_CALL(upload_array(ctx, h->face_x, nfp * dim, "face_x", &d->face_x));
  DG_CALL(upload_array(ctx, h->group_bc, (int64_t)h->n_groups, "group_bc", &d->group_bc));
  DG_CALL(upload_array(ctx, h->group_data, (int64_t)h->n_groups, "group_data", &d->group_data));

  const size_t flux_bytes = (size_t)nfp * ctx->nvar * sizeof(double);
  DG_CALL_CUDA(
      gpu_malloc((void **)&ctx->d_face_flux, flux_bytes > 0 ? flux_bytes : 8, GPU_MEM_WORK));
  /* all-ones bytes are NaN: a face the face kernel missed poisons R */
  DG_CALL_CUDA(cudaMemset(ctx->d_face_flux, 0xff, flux_bytes > 0 ? flux_bytes : 8));
  const int single = disc_single_shape(h);
  if (backend_cuda_trace_tables(h->av, single >= 0 ? h->nb[single] : 0, nfp))
    DG_CALL(cuda_create_trace_arrays(disc, ctx));
  DG_CALL_CUDA(gpu_malloc((void **)&ctx->d_force, (size_t)(nf > 0 ? nf : 1) * 6 * sizeof(double),
                          GPU_MEM_WORK));
  DG_CALL_CUDA(gpu_malloc((void **)&ctx->d_partial,
                          (size_t)REDUCE_MAX_COMPONENTS * REDUCE_MAX_BLOCKS * sizeof(double),
                          GPU_MEM_WORK));
  DG_CALL_CUDA(
      gpu_malloc((void **)&ctx->d_result, REDUCE_MAX_COMPONENTS * sizeof(double), GPU_MEM_WORK));
  DG_CALL_CUDA(gpu_malloc((void **)&ctx->d_mask, (size_t)(ctx->n_groups > 0 ? ctx->n_groups : 1),
                          GPU_MEM_WORK));
  DG_CALL(cuda_create_av_arrays(disc, ctx));
  /* the run-time state (Γ = 0, av_eps_hold set by cuda_create_av_arrays) */
  DG_CALL_CUDA(gpu_malloc((void **)&ctx->d_state, sizeof(dg_disc_state), GPU_MEM_GEOMETRY));
  DG_CALL_CUDA(
      cudaMemcpy(ctx->d_state, &ctx->state, sizeof(dg_disc_state), cudaMemcpyHostToDevice));
  return DG_SUCCESS;
}

/* Volume points per chunk of the team element kernel for shape s (the
 * points whose fluxes a block keeps in shared memory at a time,
 * residual_team.cuh): the context's setting, else every point in 2D and
 * RESIDUAL_TEAM_CHUNK_3D in 3D (twice that above 10 modes), where a curved
 * tetrahedron's 24-81 points held at once allowed two blocks of four warps
 * per multiprocessor; at least ceil(nb / dim) (the fused RK stage's sums
 * reuse the chunk's storage), at most the rule's points. The sums are the
 * same either way. H200, ONERA M6 level 0 (76 % affine, reduced rule), µs
 * per residual with 4 / 8 / 16 / all points per chunk: p = 1 141.8 / 138.5
 * / 171.9 / 176.4, p = 2 280.1 / 254.8 / 288.2 / 393.9, p = 3 579.1 /
 * 565.8 / 529.4 / 721.3 (docs/PERFORMANCE.md). */
#define RESIDUAL_TEAM_CHUNK_3D 8
static int team_chunk_for(const dg_backend_ctx *ctx, int s) {
  const dg_disc_view *d = &ctx->view;
  const int nq_max = disc_shape_max_points(d, s);
  int qc = ctx->team_chunk > 0 ? ctx->team_chunk
           : d->dim == 3 ? (d->nb[s] > 10 ? 2 * RESIDUAL_TEAM_CHUNK_3D : RESIDUAL_TEAM_CHUNK_3D)
                         : nq_max;
  const int qc_min = (d->nb[s] + d->dim - 1) / d->dim;
  if (qc < qc_min) qc = qc_min;
  if (qc > nq_max) qc = nq_max;
  return qc;
}

/* Modes per thread in phase 2 of the team element kernel of shape s: the
 * context's setting where that kernel is instantiated, else 1; by default
 * 2, else 3, else 1, the first instantiated. The sums are the same either
 * way. H200, straight meshes of >= 1.6 M unknowns, element kernel µs with
 * 1 / 2 / 4 modes per thread (4 since removed): tetrahedra
 * p = 2 131.8 / 125.6 / 131.8 (4: not instantiated), p = 3 173.0 / 164.3
 * / 227.4; triangles p = 2 75.3 / 59.0, p = 3 63.8 / 58.2 / 63.9;
 * quadrilaterals p = 1 91.2 / 74.1 / 88.0, p = 3 67.0 / 60.7 / 73.4
 * (docs/PERFORMANCE.md). */
static int team_modes_for(const dg_backend_ctx *ctx, int s) {
  const dg_disc_view *d = &ctx->view;
  if (ctx->team_modes > 0)
    return team_kernel_for(d->dim, d->nb[s], 0, ctx->team_modes) ? ctx->team_modes : 1;
  if (team_kernel_for(d->dim, d->nb[s], 0, 2)) return 2;
  return team_kernel_for(d->dim, d->nb[s], 0, 3) ? 3 : 1;
}

/* Modes per thread in phase 2 of the team kernel of shape s with the
 * fused RK stage, mb being the residual's: the context's setting
 * (backend_cuda_set_team_modes_rk; 1 where that is not instantiated), else
 * the residual's when backend_cuda_set_team_modes set it, else 1. With 2
 * the fused kernel needs more registers (2D p = 3: 71 against 56; 3D:
 * 119-126 against 80; ptxas), so fewer blocks fit a multiprocessor, and
 * the SSP-RK3 step with a fixed step measured slower with it (H200, µs, 2
 * -> 1 modes: NACA 0012 level 3 p = 1 369.0-369.3 -> 350.6-353.0, p = 2
 * 624.8-627.0 -> 626.9-630.4, p = 3 1073.3-1075.1 -> 954.3-956.0; level 2
 * p = 1 109.4-110.8 -> 107.0-107.4, p = 2 170.9-171.7 -> 167.1, p = 3
 * 287.7-288.1 -> 287.9-288.4; level 1 p = 1 63.6-63.7 -> 62.0-62.1, p =
 * 2-3 2 % slower; ONERA M6 level 0 p = 2 861.2 -> 798.3, p = 3 1643.7 ->
 * 1591.2; docs/PERFORMANCE.md). Every setting gives the same bits. */
static int team_modes_rk_for(const dg_backend_ctx *ctx, int s, int mb) {
  const dg_disc_view *d = &ctx->view;
  if (ctx->team_modes_rk > 0)
    return team_kernel_for(d->dim, d->nb[s], 1, ctx->team_modes_rk) ? ctx->team_modes_rk : 1;
  return ctx->team_modes > 0 ? mb : 1;
}

/* Whether the team element kernels keep their face fluxes in the
 * shared memory of its volume chunk (residual_team_args.face_share): the
 * context's setting, else on tetrahedra, where the smaller elements let
 * more fit a multiprocessor. H200, ONERA M6 level 0 (default rules), µs
 * per back-to-back residual, separate -> shared, two runs each: p = 1
 * 104.9, 104.3 -> 98.0, 97.8; p = 2 204.8, 204.4 -> 199.8, 200.0. At p = 3
 * it gained nothing with 6 elements per block (395.9, 395.2 -> 393.5,
 * 393.4), and does since a block may take 12 and the elements per block
 * follow what fits a multiprocessor (team_elems_for): 385.8, 386.2 ->
 * 371.1 µs, structured tetrahedra (bench_residual --mesh tet) 266.3 /
 * 274.5 -> 255.0 / 264.5 µs (straight / curved; docs/PERFORMANCE.md). The
 * sums are the same either way. */
static int team_face_share_for(const dg_backend_ctx *ctx) {
  if (ctx->team_face_share >= 0) return ctx->team_face_share;
  return ctx->view.dim == 3;
}

/* Elements per block of team kernel `kernel` of shape s, most being the
 * most its threads take (team_shape_setup) and per_elem its doubles of
 * shared memory per element: at most ctx->team_elems_set when that is set
 * (> 0); else (0, automatic) from the blocks of E elements that fit a
 * multiprocessor at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor,
 * registers and shared memory), E = 1 .. most: the fewest elements per
 * block that give the most elements at once on a multiprocessor, then,
 * keeping the number of waves of blocks the launch needs with that, the
 * fewest that still fit the elements in as many waves, so that the last
 * wave is as full as the others, not a few blocks alone while most
 * multiprocessors idle. H200, back-to-back residual (docs/PERFORMANCE.md):
 * with blocks of at most 128 / nb elements, the most -> balanced: ONERA M6
 * level 0 (21,179 tetrahedra) p = 1 73.7 -> 69.6 µs, p = 2 200.3 -> 190.0,
 * p = 3 374.1 -> 373.8; NACA 0012 level 1 (9,004 triangles) p = 1 25.9 ->
 * 19.0, p = 2 27.6 -> 23.3. Then blocks of up to 128 mb / nb elements,
 * chosen by what fits at once: M6 p = 2 190.4 -> 184.2, NACA level 3 p = 3
 * 298.2 -> 289.7, structured tetrahedra p = 2 172.5 -> 176.6 (with the face
 * fluxes over the volume chunk at p = 3 too, team_face_share_for: M6 374.9
 * -> 371.1). Each element's sums are the same whatever its block holds
 * (the same bits). */
static dg_status team_elems_for(const dg_backend_ctx *ctx, int s, team_kernel_fn kernel,
                                int64_t per_elem, int most, int *elems) {
  *elems = most;
  if (ctx->team_elems_set > 0) {
    if (ctx->team_elems_set < most) *elems = ctx->team_elems_set;
    return DG_SUCCESS;
  }
  int per_sm[BACKEND_CUDA_TEAM + 1] = {0}; /* blocks of E elements at once (mb <= nb) */
  DG_CHECK(most >= 1 && most <= BACKEND_CUDA_TEAM, DG_ERR_INTERNAL,
           "CUDA backend: %d elements per team block of shape %d", most, s);
  int best = 0;
  int64_t best_at_once = 0;
  for (int E = 1; E <= most; ++E) {
    const size_t bytes = (size_t)E * (size_t)per_elem * sizeof(double);
    DG_CALL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[E], (const void *)kernel,
                                                               BACKEND_CUDA_TEAM, bytes));
    if ((int64_t)E * per_sm[E] > best_at_once) {
      best_at_once = (int64_t)E * per_sm[E];
      best = E;
    }
  }
  const int64_t n = ctx->view.n_owned[s];
  if (n < 1 || best < 1) return DG_SUCCESS;
  const int64_t at_once = best_at_once * ctx->n_sm;
  const int64_t waves = (n + at_once - 1) / at_once;
  *elems = best;
  for (int E = 1; E < best; ++E)
    if ((int64_t)E * per_sm[E] * ctx->n_sm * waves >= n) {
      *elems = E;
      break;
    }
  return DG_SUCCESS;
}

/* Whether shape s runs the element kernel with one thread per element
 * (residual_element_thread_kernel) in the residual (rk = 0) or the fused
 * RK stage (rk = 1), and which: 0 none (the team kernel), 1 its
 * coefficients in registers, 2 in shared memory. Where it is instantiated,
 * as the context's setting says (backend_cuda_set_elem_thread); by default
 * only where the shape has at least BACKEND_CUDA_TEAM owned elements per
 * multiprocessor (fewer leave too few threads to hide its latencies), and
 * there the shared form where it exists (2D nb = 10 and 16, 3D nb = 10),
 * else the registers form, except in the fused RK stage at 2D nb = 10:
 * the registers form where at least half the elements are affine, else
 * the team kernel (both forms measured slower there with every element
 * curved, and the shared form slower with few curved).
 * H200, µs (docs/PERFORMANCE.md, "One thread per element"), element
 * kernel, team -> registers form: NACA 0012 level 3 (135,504 triangles,
 * few curved) p = 1 73.2 -> 37.0, p = 2 127.4 -> 66.0, p = 3 198.0 ->
 * 138.5; level 2 (34,542) p = 1-3 faster, level 1 (9,004) p = 2-3 14 %
 * slower per residual; tetrahedra p = 0-1 119-137 -> 47-67;
 * quadrilaterals p = 0-2 57-93 -> 43-47. Back-to-back residual, the
 * registers form (p = 3 triangles) or the team kernel -> the shared form:
 * triangles p = 3 74.5 -> 61.6 (curved 93.6 -> 70.9, team 86.6), NACA
 * level 3 p = 3 231.0 -> 223.9, tetrahedra p = 2 176.9 -> 141.4, ONERA M6
 * level 0 p = 2 183.7 -> 156.9, quadrilaterals p = 3 95.7 -> 84.9; the
 * fixed SSP-RK3 step at p = 3 on triangles 275.1 -> 289.4 (curved: team
 * 342.5, registers 393.0, shared 404.1). The same bits either way. */
static int elem_thread_kind(const dg_backend_ctx *ctx, int s, int rk) {
  const dg_disc_view *d = &ctx->view;
  const int reg = thread_kernel_for(d->dim, d->nb[s], rk, 0) != NULL;
  const int ush = thread_kernel_for(d->dim, d->nb[s], rk, 1) != NULL;
  switch (ctx->elem_thread) {
  case 0: return 0;
  case 1: return reg ? 1 : ush ? 2 : 0;
  case 2: return ush ? 2 : reg ? 1 : 0;
  default: break;
  }
  const int64_t n = d->n_owned[s];
  if (n < (int64_t)BACKEND_CUDA_TEAM * ctx->n_sm) return 0;
  if (rk && d->dim == 2 && d->nb[s] == 10) return 2 * ctx->n_affine[s] >= n ? 1 : 0;
  return ush ? 2 : reg ? 1 : 0;
}

/* Elements (= threads) per block of the thread element kernel of shape s:
 * BACKEND_CUDA_TEAM, halved down to one warp while the launch would have
 * fewer than four blocks per multiprocessor, so that a small mesh still
 * spreads over every multiprocessor. */
static int thread_block_elems(const dg_backend_ctx *ctx, int s, int kind) {
  const int64_t n = ctx->view.n_owned[s];
  int E = kind == 2 ? BACKEND_CUDA_TEAM / 2 : BACKEND_CUDA_TEAM; /* shared: at most 32 KB */
  while (E > 32 && (n + E - 1) / E < 4 * (int64_t)ctx->n_sm) E /= 2;
  return E;
}

/* The most elements per block of a team kernel with mb modes per thread
 * in phase 2 (one (element, mb modes) task per thread: BACKEND_CUDA_TEAM
 * mb / nb), fewer where their shared memory (per_elem doubles each) would
 * exceed RESIDUAL_TEAM_MAX_SMEM. */
static int team_most_elems(int nb, int mb, int64_t per_elem) {
  int most = BACKEND_CUDA_TEAM * mb / nb;
  if (most < 1) most = 1;
  while (most > 1 && (int64_t)most * per_elem * 8 > RESIDUAL_TEAM_MAX_SMEM) --most;
  return most;
}

/* The team kernels of shape s (the residual's and the fused RK stage's),
 * their elements per block (team_elems_for, each its own), volume points
 * per chunk and shared memory, and the kernels' shared-memory limit raised
 * where needed; *ok cleared when the shape has no team kernel that fits. */
static dg_status team_shape_setup(dg_backend_ctx *ctx, int s, int *ok) {
  const dg_disc_view *d = &ctx->view;
  const int mb = team_modes_for(ctx, s), mb_rk = team_modes_rk_for(ctx, s, mb);
  const team_kernel_fn kernel = team_kernel_for(d->dim, d->nb[s], 0, mb);
  const team_kernel_fn kernel_rk = team_kernel_for(d->dim, d->nb[s], 1, mb_rk);
  const int qc = team_chunk_for(ctx, s), share = team_face_share_for(ctx);
  const int64_t per_elem = residual_team_doubles_per_elem(
      d->dim, d->nb[s], qc, shape_n_faces((dg_shape)s), d->nqf, share);
  const int most = team_most_elems(d->nb[s], mb, per_elem);
  const int most_rk = team_most_elems(d->nb[s], mb_rk, per_elem);
  const size_t most_bytes = (size_t)most * (size_t)per_elem * sizeof(double);
  const size_t most_bytes_rk = (size_t)most_rk * (size_t)per_elem * sizeof(double);
  /* each element with its own volume rule (residual_team_args: the
   * affine elements' lower one with affine_rule = reduced) */
  if (!kernel || !kernel_rk || most_bytes > RESIDUAL_TEAM_MAX_SMEM ||
      most_bytes_rk > RESIDUAL_TEAM_MAX_SMEM) {
    *ok = 0;
    return DG_SUCCESS;
  }
  /* the fused RK stage's sums go over the block's chunk of G (at least as
   * large: qc dim >= nb) */
  DG_CHECK((int64_t)qc * d->dim >= d->nb[s], DG_ERR_INTERNAL,
           "CUDA backend: team kernel of shape %d: %d modes, %d volume points per chunk", s,
           d->nb[s], qc);
  if (most_bytes > 48 * 1024)
    DG_CALL_CUDA(cudaFuncSetAttribute(
        (const void *)kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)most_bytes));
  if (most_bytes_rk > 48 * 1024)
    DG_CALL_CUDA(cudaFuncSetAttribute(
        (const void *)kernel_rk, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)most_bytes_rk));
  int elems = most, elems_rk = most_rk;
  DG_CALL(team_elems_for(ctx, s, kernel, per_elem, most, &elems));
  DG_CALL(team_elems_for(ctx, s, kernel_rk, per_elem, most_rk, &elems_rk));
  team_launch *t = &ctx->team[s], *t_rk = &ctx->team_rk[s];
  t->kernel = kernel;
  t_rk->kernel = kernel_rk;
  t->smem = (size_t)elems * (size_t)per_elem * sizeof(double);
  t_rk->smem = (size_t)elems_rk * (size_t)per_elem * sizeof(double);
  t->threads = t_rk->threads = BACKEND_CUDA_TEAM;
  /* the thread kernel instead (a.E threads per block; shared memory only
   * for the coefficients of kind 2) */
  const int kind = elem_thread_kind(ctx, s, 0), kind_rk = elem_thread_kind(ctx, s, 1);
  if (kind) {
    t->kernel = thread_kernel_for(d->dim, d->nb[s], 0, kind == 2);
    t->threads = elems = thread_block_elems(ctx, s, kind);
    t->smem = kind == 2 ? (size_t)elems * d->nvar * d->nb[s] * sizeof(double) : 0;
  }
  if (kind_rk) {
    t_rk->kernel = thread_kernel_for(d->dim, d->nb[s], 1, kind_rk == 2);
    t_rk->threads = elems_rk = thread_block_elems(ctx, s, kind_rk);
    t_rk->smem = kind_rk == 2 ? (size_t)elems_rk * d->nvar * d->nb[s] * sizeof(double) : 0;
  }
  DG_CHECK(residual_team_args_fill(d, s, elems, qc, share, &t->args) &&
               residual_team_args_fill(d, s, elems_rk, qc, share, &t_rk->args),
           DG_ERR_INTERNAL, "CUDA backend: a face table offset of shape %d does not fit an int", s);
  return DG_SUCCESS;
}

/* Chooses the team kernel, elements per block and shared memory of every
 * shape (team_shape_setup). Selects the tuned variant when every shape has
 * a team kernel that fits. */
static dg_status team_setup(dg_backend_ctx *ctx) {
  const dg_disc_view *d = &ctx->view;
  int ok = 1;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    if (d->n_shape[s] > 0) DG_CALL(team_shape_setup(ctx, s, &ok));
  /* the fused stage updates the owned elements only: one process (ghosts
   * would keep their old U, where the separate update overwrites them) */
  ctx->rk_fused_ok = ok;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    if (d->n_owned[s] != d->n_shape[s]) ctx->rk_fused_ok = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    rk_coef_args *r = &ctx->rk_args[s];
    r->elem_affine = d->elem_affine;
    r->metric_offset = d->metric_offset;
    r->minv_offset = d->minv_offset;
    r->metric_detJ = d->metric_detJ;
    r->minv = d->minv;
    r->n_shape = d->n_shape[s];
    r->e_first = d->elem_start[s];
    r->coef_start = d->coef_start[s];
    r->nb = d->nb[s];
    r->nvar = d->nvar;
  }
  /* a single shape: the face kernel with NB unrolled (mixed meshes keep the
   * generic residual_face_point_kernel) */
  const int shape = disc_single_shape(d);
  ctx->face_kernel = shape >= 0 && ctx->team[shape].kernel /* team[shape].args set */
                         ? face_kernel_for(d->dim, d->nb[shape])
                         : NULL;
  if (ctx->face_kernel) {
    residual_face_args *f = &ctx->face_args;
    f->face_phi = d->face_phi;
    f->face_normal = d->face_normal;
    f->face_wsJ = d->face_wsJ;
    f->face_elem = d->face_elem;
    f->face_local = d->face_local;
    f->face_orient = d->face_orient;
    f->k_first = 0;
    f->n_points = ctx->n_face_points;
    f->n_shape = d->n_shape[shape];
    f->e_first = d->elem_start[shape];
    f->coef_start = d->coef_start[shape];
    f->gamma = d->gamma;
    f->nqf = d->nqf;
    f->flux = d->flux;
    f->state = ctx->d_state;
    memcpy(f->face_table, ctx->team[shape].args.face_table, sizeof f->face_table);
    ctx->timestep_kernel = timestep_kernel_for(d->dim, d->nb[shape]);
    ctx->face_gather_kernel = face_gather_kernel_for(d->dim, d->nb[shape]);
    ctx->face_gather_smem = residual_face_gather_smem(d->dim, d->nb[shape], d->nqf);
    ctx->timestep_gather_kernel = timestep_gather_kernel_for(d->dim, d->nb[shape]);
    /* a block holds whole faces, one thread per point */
    if (ctx->face_gather_smem > 48 * 1024 || d->nqf > BACKEND_CUDA_TEAM)
      ctx->face_gather_kernel = NULL;
    /* the trace path: every element of the shape (ghosts too), E per block */
    const int nf = shape_n_faces((dg_shape)shape);
    ctx->trace_args = ctx->team[shape].args;
    ctx->trace_args.n_run = d->n_shape[shape];
    ctx->trace_args.E = residual_trace_elems(nf, d->nqf);
    ctx->trace_smem = residual_trace_smem(d->dim, d->nb[shape], ctx->trace_args.E);
    ctx->trace_kernel = ctx->d_face_phiT && ctx->trace_smem <= 48 * 1024
                            ? trace_kernel_for(d->dim, d->nb[shape])
                            : NULL;
    ctx->face_trace_kernel = face_trace_kernel_for(d->dim);
  }
  DG_CALL_CUDA(gpu_malloc((void **)&ctx->d_view, sizeof(dg_disc_view), GPU_MEM_GEOMETRY));
  DG_CALL_CUDA(cudaMemcpy(ctx->d_view, d, sizeof(dg_disc_view), cudaMemcpyHostToDevice));
  ctx->team_ok = ok;
  ctx->variant = ok ? BACKEND_CUDA_TUNED : BACKEND_CUDA_PORTABLE;
  return DG_SUCCESS;
}

/* Dynamic shared bytes per block of av_face_viscous_kernel. */
static size_t av_team_face_smem(const dg_disc_view *d) {
  return (size_t)av_team_faces_per_block(d->dim) * 2 * d->dim * d->nvar * d->nqf * sizeof(double);
}

/* Chooses the tuned AV kernels (av_team.cuh) of every shape; av_team_ok
 * when AV is on and they, and the inviscid team kernels, cover every shape. */
static void av_team_setup(dg_backend_ctx *ctx) {
  const dg_disc_view *d = &ctx->view;
  int ok = d->av != DG_AV_OFF && ctx->team_ok, nb_max = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (d->n_shape[s] <= 0) continue;
    ctx->av_team[s] = av_team_shape_kernels_for(d->dim, d->nb[s]);
    if (!ctx->av_team[s].gradient || !ctx->av_team[s].lift || !ctx->av_team[s].element) ok = 0;
    if (d->nb[s] > nb_max) nb_max = d->nb[s];
  }
  ctx->av_team_face = av_team_face_kernel_for(d->dim, nb_max);
  ctx->av_team_ok = ok && ctx->av_team_face != NULL && av_team_face_smem(d) <= 48 * 1024;
}

static dg_status cuda_create(const dg_disc *disc, dg_backend_ctx **out) {
  DG_CHECK(disc && out, DG_ERR_ARG, "CUDA backend create: disc and ctx must not be NULL");
  *out = NULL;
  const dg_disc_view *h = &disc->view;
  DG_CHECK((h->dim == 2 || h->dim == 3) && h->nvar == h->dim + 2, DG_ERR_ARG,
           "CUDA backend create: dim %d / nvar %d is not a built discretisation", h->dim, h->nvar);
  DG_CHECK(h->n_elems > 0 && h->n_coefs > 0, DG_ERR_ARG,
           "CUDA backend create: the discretisation has no elements");
  DG_CHECK(disc->n_face_points == h->n_faces * h->nqf, DG_ERR_ARG,
           "CUDA backend create: n_face_points %lld differs from n_faces * nqf = %lld",
           (long long)disc->n_face_points, (long long)(h->n_faces * h->nqf));
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    DG_CHECK(h->n_owned[s] >= 0 && h->n_owned[s] <= h->n_shape[s], DG_ERR_ARG,
             "CUDA backend create: shape %d owns %lld of its %lld elements", s,
             (long long)h->n_owned[s], (long long)h->n_shape[s]);
  DG_CALL(require_device());
  dg_backend_ctx *ctx = (dg_backend_ctx *)calloc(1, sizeof *ctx);
  DG_CHECK(ctx != NULL, DG_ERR_MEMORY, "CUDA backend create: out of host memory");
  ctx->n_coefs = h->n_coefs;
  ctx->n_elems = h->n_elems;
  ctx->n_faces = h->n_faces;
  ctx->n_face_points = disc->n_face_points;
  ctx->nvar = h->nvar;
  ctx->face_gather = -1;     /* automatic: face_gather_on */
  ctx->face_trace = -1;      /* automatic: face_trace_on */
  ctx->team_face_share = -1; /* automatic: team_face_share_for */
  ctx->elem_thread = -1;     /* automatic: elem_thread_kind */
  /* ctx->team_elems_set = 0 (calloc): automatic, team_elems_for */
  ctx->n_groups = h->n_groups;
  int device = 0;
  dg_status status = DG_SUCCESS;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&ctx->n_sm, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      ctx->n_sm < 1)
    status = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__,
                          "CUDA backend create: cannot read the multiprocessor count: %s",
                          cudaGetErrorString(cudaGetLastError()));
  if (status == DG_SUCCESS) {
    /* refuse before allocating when the discretisation's arrays and the
     * run's vectors do not fit (backend_cuda_plan_bytes) */
    gpu_plan_sizes sizes;
    gpu_plan_sizes_from_disc(disc, &sizes);
    const gpu_plan_opts po = {0, 0, -1, 0};
    gpu_mem_plan plan;
    backend_cuda_plan_bytes(&sizes, &po, &plan);
    status = gpu_mem_check_free("the CUDA backend (discretisation arrays and state vectors)",
                                plan.backend + plan.vectors);
  }
  if (status == DG_SUCCESS) status = residual_plan_build(h, &ctx->plan);
  if (status == DG_SUCCESS) status = cuda_create_arrays(disc, ctx);
  if (status == DG_SUCCESS) status = team_setup(ctx);
  if (status == DG_SUCCESS) av_team_setup(ctx);
  if (status == DG_SUCCESS) status = cuda_halo_create(ctx, disc);
  if (getenv("COLORDG_CUDA_TIMELINE")) ctx->timeline_call = atoll(getenv("COLORDG_CUDA_TIMELINE"));
  if (status != DG_SUCCESS) {
    dg_error_trace(__FILE__, __LINE__, __func__);
    cuda_destroy(ctx);
    return status;
  }
  *out = ctx;
  return DG_SUCCESS;
}

/* The operations trust their arguments: the entry points of src/dg/backend.c
 * check them (NULL, vector kind and length, aliasing, finite scalars). */

static int64_t cuda_vec_length(const dg_backend_ctx *ctx, dg_vec_kind kind) {
  return vec_length(ctx, kind);
}

static dg_status cuda_vec_alloc(dg_backend_ctx *ctx, dg_vec_kind kind, double **vec) {
  *vec = NULL;
  const size_t bytes = (size_t)vec_length(ctx, kind) * sizeof(double);
  double *ptr = NULL;
  DG_CALL_CUDA(gpu_malloc((void **)&ptr, bytes, GPU_MEM_VECTORS));
  const cudaError_t error = cudaMemset(ptr, 0, bytes);
  if (error != cudaSuccess) {
    gpu_free(ptr);
    DG_CALL_CUDA(error);
  }
  *vec = ptr;
  return DG_SUCCESS;
}

static void cuda_vec_free(dg_backend_ctx *ctx, double *vec) {
  (void)ctx;
  gpu_free(vec);
}

static dg_status cuda_upload(dg_backend_ctx *ctx, dg_vec_kind kind, const double *h_src,
                             double *vec) {
  DG_CALL_CUDA(cudaMemcpy(vec, h_src, (size_t)vec_length(ctx, kind) * sizeof(double),
                          cudaMemcpyHostToDevice));
  return DG_SUCCESS;
}

static dg_status cuda_download(dg_backend_ctx *ctx, dg_vec_kind kind, const double *vec,
                               double *h_dst) {
  DG_CALL_CUDA(cudaMemcpy(h_dst, vec, (size_t)vec_length(ctx, kind) * sizeof(double),
                          cudaMemcpyDeviceToHost));
  return DG_SUCCESS;
}

static dg_status cuda_copy(dg_backend_ctx *ctx, dg_vec_kind kind, const double *src, double *dst) {
  DG_CALL_CUDA(cudaMemcpyAsync(dst, src, (size_t)vec_length(ctx, kind) * sizeof(double),
                               cudaMemcpyDeviceToDevice, 0));
  return DG_SUCCESS;
}

/* ------------------------------------------------------------ BLAS-1 */

static dg_status cuda_axpby(dg_backend_ctx *ctx, int64_t n, double a, const double *x, double b,
                            double *y) {
  (void)ctx;
  if (n <= 0) return DG_SUCCESS;
  axpby_kernel<<<(unsigned)grid_for(n), BACKEND_CUDA_BLOCK>>>(n, a, x, b, y);
  DG_CHECK_LAUNCH("axpby_kernel");
  return DG_SUCCESS;
}

static dg_status cuda_scale(dg_backend_ctx *ctx, int64_t n, double a, double *x) {
  (void)ctx;
  if (n <= 0) return DG_SUCCESS;
  scale_kernel<<<(unsigned)grid_for(n), BACKEND_CUDA_BLOCK>>>(n, a, x);
  DG_CHECK_LAUNCH("scale_kernel");
  return DG_SUCCESS;
}

static dg_status cuda_set(dg_backend_ctx *ctx, int64_t n, double value, double *x) {
  (void)ctx;
  if (n <= 0) return DG_SUCCESS;
  set_kernel<<<(unsigned)grid_for(n), BACKEND_CUDA_BLOCK>>>(n, value, x);
  DG_CHECK_LAUNCH("set_kernel");
  return DG_SUCCESS;
}

/* The BLAS-1 reduction `what` (0 dot, 1 sum of squares, 2 max |x|) into
 * *local: both stages in the ctx scratch (the block count depends on n
 * only, so the order is fixed), one 8-byte copy back. */
static dg_status cuda_blas_reduce(dg_backend_ctx *ctx, int what, int64_t n, const double *x,
                                  const double *y, double *local) {
  *local = 0.0;
  if (n <= 0) return DG_SUCCESS;
  const int blocks = reduce_blocks(n);
  /* a partition: the owned entries only (ghosts are their owners' copies) */
  const uint8_t *owned = n == ctx->n_coefs   ? ctx->d_owned_state
                         : n == ctx->n_elems ? ctx->d_owned_elem
                                             : NULL;
  blas_stage1_kernel<<<(unsigned)blocks, BACKEND_CUDA_BLOCK>>>(what, n, x, y, owned,
                                                               ctx->d_partial);
  DG_CHECK_LAUNCH("blas_stage1_kernel");
  reduce_stage2_kernel<<<1, BACKEND_CUDA_BLOCK>>>(what == 2 ? REDUCE_MAX : REDUCE_SUM, 0.0, blocks,
                                                  ctx->d_partial, ctx->d_result);
  DG_CHECK_LAUNCH("reduce_stage2_kernel");
  DG_CALL_CUDA(cudaMemcpy(local, ctx->d_result, sizeof(double), cudaMemcpyDeviceToHost));
  return DG_SUCCESS;
}

static dg_status cuda_dot(dg_backend_ctx *ctx, int64_t n, const double *x, const double *y,
                          double *local) {
  return cuda_blas_reduce(ctx, 0, n, x, y, local);
}

/* Up to REDUCE_MAX_COMPONENTS vectors per launch of the batched BLAS-1. */
typedef struct {
  const double *x[REDUCE_MAX_COMPONENTS];
  double a[REDUCE_MAX_COMPONENTS];
} vec_batch;

/* blas_stage1_kernel's dot for x = batch.x[blockIdx.y] (the same terms in
 * the same order, so the same bits) into partial[blockIdx.y][blockIdx.x]. */
static __global__ void mdot_stage1_kernel(int64_t n, vec_batch batch, const double *y,
                                          const uint8_t *owned, double *partial) {
  __shared__ double shared[BACKEND_CUDA_BLOCK];
  const double *x = batch.x[blockIdx.y];
  double value = 0.0;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (owned && !owned[i]) continue;
    value = reduce_combine(REDUCE_SUM, value, __dmul_rn(x[i], y[i]));
  }
  value = block_reduce(REDUCE_SUM, value, shared);
  if (threadIdx.x == 0) partial[blockIdx.y * gridDim.x + blockIdx.x] = value;
}

/* y += Σ_{c < k} a_c x_c, the terms in order c, each rounded as
 * axpby_kernel's a x + 1 y (the same bits as k axpby launches). */
static __global__ void maxpy_kernel(int64_t n, int k, vec_batch batch, double *y) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = y[i];
  for (int c = 0; c < k; ++c) v = __dadd_rn(__dmul_rn(batch.a[c], batch.x[c][i]), v);
  y[i] = v;
}

/* dot of each x[c] with y: per chunk of REDUCE_MAX_COMPONENTS vectors both
 * stages and one copy back. */
static dg_status cuda_mdot(dg_backend_ctx *ctx, int64_t n, int k, const double *const *x,
                           const double *y, double *local) {
  for (int c = 0; c < k; ++c) local[c] = 0.0;
  if (n <= 0) return DG_SUCCESS;
  const int blocks = reduce_blocks(n);
  const uint8_t *owned = n == ctx->n_coefs   ? ctx->d_owned_state
                         : n == ctx->n_elems ? ctx->d_owned_elem
                                             : NULL;
  for (int c0 = 0; c0 < k; c0 += REDUCE_MAX_COMPONENTS) {
    const int kc = k - c0 < REDUCE_MAX_COMPONENTS ? k - c0 : REDUCE_MAX_COMPONENTS;
    vec_batch batch;
    memset(&batch, 0, sizeof batch);
    for (int c = 0; c < kc; ++c) batch.x[c] = x[c0 + c];
    mdot_stage1_kernel<<<dim3((unsigned)blocks, (unsigned)kc), BACKEND_CUDA_BLOCK>>>(
        n, batch, y, owned, ctx->d_partial);
    DG_CHECK_LAUNCH("mdot_stage1_kernel");
    reduce_stage2_kernel<<<(unsigned)kc, BACKEND_CUDA_BLOCK>>>(REDUCE_SUM, 0.0, blocks,
                                                               ctx->d_partial, ctx->d_result);
    DG_CHECK_LAUNCH("reduce_stage2_kernel");
    DG_CALL_CUDA(
        cudaMemcpy(local + c0, ctx->d_result, (size_t)kc * sizeof(double), cudaMemcpyDeviceToHost));
  }
  return DG_SUCCESS;
}

static dg_status cuda_maxpy(dg_backend_ctx *ctx, int64_t n, int k, const double *a,
                            const double *const *x, double *y) {
  (void)ctx;
  if (n <= 0) return DG_SUCCESS;
  for (int c0 = 0; c0 < k; c0 += REDUCE_MAX_COMPONENTS) {
    const int kc = k - c0 < REDUCE_MAX_COMPONENTS ? k - c0 : REDUCE_MAX_COMPONENTS;
    vec_batch batch;
    memset(&batch, 0, sizeof batch);
    for (int c = 0; c < kc; ++c) {
      batch.x[c] = x[c0 + c];
      batch.a[c] = a[c0 + c];
    }
    maxpy_kernel<<<(unsigned)grid_for(n), BACKEND_CUDA_BLOCK>>>(n, kc, batch, y);
    DG_CHECK_LAUNCH("maxpy_kernel");
  }
  return DG_SUCCESS;
}

static dg_status cuda_sum_squares(dg_backend_ctx *ctx, int64_t n, const double *x, double *local) {
  return cuda_blas_reduce(ctx, 1, n, x, NULL, local);
}

static dg_status cuda_max_abs(dg_backend_ctx *ctx, int64_t n, const double *x, double *local) {
  return cuda_blas_reduce(ctx, 2, n, x, NULL, local);
}

/* The tuned face kernel's launch over the face points [k0, k1) (whole
 * faces): the kernel (the gathering variant where face_gather_on), its
 * blocks and dynamic shared bytes. */
typedef struct {
  face_kernel_fn fn;
  unsigned blocks;
  size_t smem;
} face_launch;

/* Whether the residual runs the gathering face kernel: set on (1), or
 * automatic (-1, the default) on tetrahedra at p = 3 (nb = 20), where it
 * measured faster (H200, straight tetrahedra of 1.65 M unknowns: face
 * kernel 148-151 µs gathering per point, 120-121 µs gathering per face).
 * At p <= 2 and on triangles it measured slower (tetrahedra p = 2: 69 ->
 * 108 µs; triangles p = 3: 30 -> 45 µs; docs/PERFORMANCE.md). Where the
 * trace path runs (face_trace_on: by default there, in one process) it
 * takes precedence. */
static int face_gather_on(const dg_backend_ctx *ctx) {
  if (!ctx->face_kernel || !ctx->face_gather_kernel) return 0;
  if (ctx->face_gather >= 0) return ctx->face_gather;
  const int shape = disc_single_shape(&ctx->view);
  return ctx->view.dim == 3 && shape >= 0 && ctx->view.nb[shape] == 20;
}

/* Whether the residual's face pass over the face points [k0, k1) runs the
 * trace path (residual_trace_kernel, then residual_face_trace_kernel), where
 * it exists (a single-shape mesh without AV) and the pass covers every face
 * point (one process: the trace kernel forms every element's traces at
 * once): set on (1), or automatic (-1, the default) on tetrahedra at p = 3
 * (nb = 20), where it measured faster than the gathering face kernel it
 * replaces there (H200, µs of the face pass: straight tetrahedra of 1.65 M
 * unknowns 117-122 -> 88-92, ONERA M6 level 0 134-139 -> 104-110). On
 * triangles and at p <= 2 it measured slower: the traces (2 nvar values
 * per face point) move more bytes through DRAM than the face kernels'
 * coefficient loads, which hit L2 (NACA level 3: p = 1 45 -> 70 µs, p = 3
 * 99 -> 110; tetrahedra p = 2 68 -> 83; docs/PERFORMANCE.md). */
static int face_trace_on(const dg_backend_ctx *ctx, int64_t k0, int64_t k1) {
  if (!ctx->face_kernel || !ctx->trace_kernel || !ctx->d_trace || k0 != 0 ||
      k1 != ctx->n_face_points)
    return 0;
  if (ctx->face_trace >= 0) return ctx->face_trace;
  const int shape = disc_single_shape(&ctx->view); /* >= 0: trace_kernel is set */
  return backend_cuda_trace_default(ctx->view.av, ctx->view.dim, ctx->view.nb[shape],
                                    ctx->n_face_points);
}

/* Blocks of the tuned face kernels over every face point (one thread per
 * point). */
static unsigned face_point_blocks(const dg_backend_ctx *ctx) {
  return (unsigned)((ctx->n_face_points + BACKEND_CUDA_TEAM - 1) / BACKEND_CUDA_TEAM);
}

/* The trace path's two launches over every face point (face_trace_on): the
 * traces of U, then the fluxes at time t into d_face_flux. */
static dg_status face_trace_launch(dg_backend_ctx *ctx, const double *U, double t) {
  const residual_team_args *ta = &ctx->trace_args;
  const unsigned blocks = (unsigned)((ta->n_run + ta->E - 1) / ta->E);
  ctx->trace_kernel<<<blocks, BACKEND_CUDA_TEAM, ctx->trace_smem, ctx->stream>>>(
      *ta, shape_n_faces((dg_shape)disc_single_shape(&ctx->view)), ctx->d_face_phiT,
      ctx->n_face_points, U, ctx->d_trace);
  DG_CHECK_LAUNCH("residual_trace_kernel");
  ctx->face_trace_kernel<<<face_point_blocks(ctx), BACKEND_CUDA_TEAM, 0, ctx->stream>>>(
      ctx->face_args, ctx->d_view, U, t, ctx->d_trace, ctx->n_face_points, ctx->d_face_flux);
  return DG_SUCCESS;
}

static face_launch face_launch_for(const dg_backend_ctx *ctx, int64_t k0, int64_t k1) {
  face_launch l;
  if (face_gather_on(ctx)) {
    const int64_t F = residual_face_gather_faces(ctx->view.nqf);
    const int64_t n_faces = (k1 - k0) / ctx->view.nqf;
    l.fn = ctx->face_gather_kernel;
    l.blocks = (unsigned)((n_faces + F - 1) / F);
    l.smem = ctx->face_gather_smem;
  } else {
    l.fn = ctx->face_kernel;
    l.blocks = (unsigned)((k1 - k0 + BACKEND_CUDA_TEAM - 1) / BACKEND_CUDA_TEAM);
    l.smem = 0;
  }
  return l;
}

/* The kernels the residual plan's passes run on (cuda_run_pass). */
typedef enum {
  PASS_PORTABLE = 0, /* one thread per face / element (residual_ops.h) */
  PASS_TUNED,        /* residual_team.cuh: a thread per face point, team element kernels */
  PASS_AV_PORTABLE,  /* av_ops.h: one thread per face / element */
  PASS_AV_TEAM       /* av_team.cuh with the inviscid team kernels */
} pass_kernels;

static pass_kernels pass_kernels_of(const dg_backend_ctx *ctx) {
  if (ctx->view.av != DG_AV_OFF)
    return ctx->variant == BACKEND_CUDA_TUNED && ctx->av_team_ok ? PASS_AV_TEAM : PASS_AV_PORTABLE;
  return ctx->variant == BACKEND_CUDA_TUNED ? PASS_TUNED : PASS_PORTABLE;
}

/* The shapes whose elements the run covers (shapes[], *n of them, in shape
 * order): the per-shape tuned kernels cover, per shape, the whole block
 * (AV_GRADIENT) or its owned elements (ELEMENTS: the first n_owned, which
 * is the whole block in one process). DG_ERR_INTERNAL when the range is
 * not a union of such per-shape ranges. */
static dg_status run_shapes(const dg_backend_ctx *ctx, const dg_pass *run, int *shapes, int *n) {
  const dg_disc_view *d = &ctx->view;
  int64_t covered = 0;
  *n = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int64_t count = run->kind == DG_PASS_ELEMENTS ? d->n_owned[s] : d->n_shape[s];
    const int64_t b = d->elem_start[s], e = b + count;
    if (count <= 0 || b < run->begin || e > run->end) continue;
    shapes[(*n)++] = s;
    covered += count;
  }
  DG_CHECK(covered == run->end - run->begin, DG_ERR_INTERNAL,
           "CUDA backend: the %s pass over elements [%lld, %lld) cuts a shape block; the tuned "
           "kernels run whole blocks (or their owned elements)",
           residual_plan_pass_name(run->kind), (long long)run->begin, (long long)run->end);
  return DG_SUCCESS;
}

/* DG_ERR_INTERNAL unless the face run covers every face (the tuned face
 * kernels run over all face points). */
static dg_status run_all_faces(const dg_backend_ctx *ctx, const dg_pass *run) {
  DG_CHECK(run->begin == 0 && run->end == ctx->n_faces, DG_ERR_INTERNAL,
           "CUDA backend: the tuned face kernels run every face, not the range [%lld, %lld) of "
           "%lld",
           (long long)run->begin, (long long)run->end, (long long)ctx->n_faces);
  return DG_SUCCESS;
}

/* One run of the residual plan (residual_plan_run: adjacent passes of one
 * family merged, so every run is one launch, or one per shape for the
 * per-shape tuned kernels, as before the plan) with the kernels k. U read;
 * R and the context's scratch written for the run's range. fuse_gradient
 * (PASS_AV_PORTABLE): the AV_COEFS launch also writes G of its elements
 * (one kernel, av_element_coefs_kernel), and AV_GRADIENT is then a no-op;
 * the plan's AV_COEFS range (every element) covers the gradient ranges. */
static dg_status cuda_run_pass(dg_backend_ctx *ctx, pass_kernels k, const dg_pass *run,
                               const double *U, double t, double *R, int fuse_gradient) {
  const dg_disc_view *d = &ctx->view;
  const int64_t b = run->begin, n = run->end - run->begin, nv = ctx->nvar, dim = d->dim;
  int shapes[DG_NUM_SHAPES], n_shapes = 0;
  switch (run->kind) {
  case DG_PASS_HALO_START: return cuda_halo_start(ctx, ctx->ex_U, U, ctx->d_send_U, ctx->n_send_U);
  case DG_PASS_HALO_FINISH:
    return cuda_halo_finish(ctx, ctx->ex_U, (double *)(uintptr_t)U, ctx->d_recv_U, ctx->n_recv_U);
  case DG_PASS_HALO_EPS: return cuda_halo_eps(ctx, ctx->d_eps_c);
  case DG_PASS_AV_EPS:
    av_element_eps_kernel<<<av_blocks(ctx, n), av_threads(ctx, n)>>>(ctx->view, ctx->state, b,
                                                                     run->end, U, ctx->d_eps_elem);
    DG_CHECK_LAUNCH("av_element_eps_kernel");
    return DG_SUCCESS;
  case DG_PASS_AV_VERTEX_EPS:
    av_vertex_eps_kernel<<<(unsigned)grid_for(n), BACKEND_CUDA_BLOCK>>>(
        ctx->view, b, run->end, ctx->d_eps_elem, ctx->d_eps_vert);
    DG_CHECK_LAUNCH("av_vertex_eps_kernel");
    return DG_SUCCESS;
  case DG_PASS_AV_COEFS:
    av_element_coefs_kernel<<<av_blocks(ctx, n), av_threads(ctx, n)>>>(
        ctx->view, b, run->end, U, ctx->d_eps_elem, ctx->d_eps_vert, ctx->d_eps_c,
        fuse_gradient && k == PASS_AV_PORTABLE ? ctx->d_grad : NULL);
    DG_CHECK_LAUNCH("av_element_coefs_kernel");
    return DG_SUCCESS;
  case DG_PASS_AV_GRADIENT:
    if (k != PASS_AV_TEAM) return DG_SUCCESS; /* with AV_COEFS (fuse_gradient) */
    DG_CALL(run_shapes(ctx, run, shapes, &n_shapes));
    for (int i = 0; i < n_shapes; ++i) {
      const int s = shapes[i];
      const int64_t m = d->n_shape[s] * nv * dim;
      const unsigned blocks = (unsigned)((m + AV_TEAM_BLOCK - 1) / AV_TEAM_BLOCK);
      ctx->av_team[s].gradient<<<blocks, AV_TEAM_BLOCK>>>(ctx->view, s, ctx->d_eps_c, U,
                                                          ctx->d_grad);
      DG_CHECK_LAUNCH("av_gradient_var_kernel");
    }
    return DG_SUCCESS;
  case DG_PASS_FACES_INTERIOR:
  case DG_PASS_FACES_BOUNDARY:
    if (k == PASS_AV_TEAM) {
      DG_CALL(run_all_faces(ctx, run));
      unsigned blocks = (unsigned)((ctx->n_face_points + AV_TEAM_BLOCK - 1) / AV_TEAM_BLOCK);
      av_face_point_kernel<<<blocks, AV_TEAM_BLOCK>>>(ctx->view, ctx->state, U, t, ctx->d_face_flux,
                                                      ctx->d_face_jump);
      DG_CHECK_LAUNCH("av_face_point_kernel");
      const int64_t per_block = av_team_faces_per_block(d->dim);
      blocks = (unsigned)((ctx->n_faces + per_block - 1) / per_block);
      ctx->av_team_face<<<blocks, AV_TEAM_BLOCK, av_team_face_smem(d)>>>(
          ctx->view, ctx->d_grad, ctx->d_eps_c, ctx->d_face_jump, ctx->d_face_flux);
      DG_CHECK_LAUNCH("av_face_viscous_kernel");
    } else if (k == PASS_AV_PORTABLE) {
      av_face_kernel<<<av_blocks(ctx, n), av_threads(ctx, n)>>>(ctx->view, ctx->state, b, run->end,
                                                                U, ctx->d_grad, ctx->d_eps_c, t,
                                                                ctx->d_face_flux, ctx->d_face_jump);
      DG_CHECK_LAUNCH("av_face_kernel");
    } else if (k == PASS_TUNED) {
      /* the run's face points (all in one process; a partition's inner
       * faces, then the rest: residual_plan.h) */
      const int64_t k0 = b * d->nqf, k1 = run->end * d->nqf;
      if (k1 <= k0) return DG_SUCCESS;
      const unsigned blocks = (unsigned)((k1 - k0 + BACKEND_CUDA_TEAM - 1) / BACKEND_CUDA_TEAM);
      if (face_trace_on(ctx, k0, k1)) {
        DG_CALL(face_trace_launch(ctx, U, t));
      } else if (ctx->face_kernel) {
        residual_face_args fa = ctx->face_args;
        fa.k_first = k0;
        fa.n_points = k1;
        const face_launch l = face_launch_for(ctx, k0, k1);
        l.fn<<<l.blocks, BACKEND_CUDA_TEAM, l.smem, ctx->stream>>>(fa, ctx->d_view, U, t,
                                                                   ctx->d_face_flux);
      } else {
        residual_face_point_kernel<<<blocks, BACKEND_CUDA_TEAM, 0, ctx->stream>>>(
            ctx->d_view, ctx->d_state, k0, k1, U, t, ctx->d_face_flux);
      }
      DG_CHECK_LAUNCH("residual face kernel");
      if (ctx->capture_face_node) { /* the node just captured (its time changes per stage) */
        cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
        const cudaGraphNode_t *deps = NULL;
        size_t n_deps = 0;
        DG_CALL_CUDA(
            cudaStreamGetCaptureInfo(ctx->stream, &capture, NULL, NULL, &deps, NULL, &n_deps));
        DG_CHECK(capture == cudaStreamCaptureStatusActive && n_deps == 1, DG_ERR_INTERNAL,
                 "CUDA backend: graph capture of the face kernel: status %d, %zu leaf nodes",
                 (int)capture, n_deps);
        *ctx->capture_face_node = deps[0];
      }
    } else {
      residual_face_kernel<<<(unsigned)grid_for(n), BACKEND_CUDA_BLOCK>>>(
          ctx->view, ctx->state, b, run->end, U, t, ctx->d_face_flux);
      DG_CHECK_LAUNCH("residual_face_kernel");
    }
    return DG_SUCCESS;
  case DG_PASS_ELEMENTS:
    if (k == PASS_AV_TEAM) {
      /* per shape of the run: the summed liftings, the inviscid team
       * kernel, the viscous volume terms (each a loop over the shapes) */
      DG_CALL(run_shapes(ctx, run, shapes, &n_shapes));
      for (int i = 0; i < n_shapes; ++i) {
        const int s = shapes[i];
        const int64_t m = d->n_owned[s] * nv * dim;
        const unsigned blocks = (unsigned)((m + AV_TEAM_BLOCK - 1) / AV_TEAM_BLOCK);
        ctx->av_team[s].lift<<<blocks, AV_TEAM_BLOCK>>>(ctx->view, s, ctx->d_eps_c,
                                                        ctx->d_face_jump, ctx->d_lift);
        DG_CHECK_LAUNCH("av_lift_var_kernel");
      }
      for (int i = 0; i < n_shapes; ++i) {
        const int s = shapes[i];
        const team_launch *t = &ctx->team[s];
        t->kernel<<<team_blocks(t), t->threads, t->smem>>>(t->args, shape_n_faces((dg_shape)s), U,
                                                           ctx->d_face_flux, R, rk_stage_args{});
        DG_CHECK_LAUNCH("residual_element_team_kernel");
      }
      for (int i = 0; i < n_shapes; ++i) {
        const int s = shapes[i];
        const int64_t m = d->n_owned[s], per_block = av_team_elems_per_block(d->dim);
        const unsigned blocks = (unsigned)((m + per_block - 1) / per_block);
        ctx->av_team[s].element<<<blocks, AV_TEAM_BLOCK>>>(ctx->view, s, U, ctx->d_eps_c,
                                                           ctx->d_lift, R);
        DG_CHECK_LAUNCH("av_element_viscous_kernel");
      }
    } else if (k == PASS_AV_PORTABLE) {
      av_element_kernel<<<av_blocks(ctx, n), av_threads(ctx, n)>>>(
          ctx->view, b, run->end, U, ctx->d_eps_c, ctx->d_face_flux, ctx->d_face_jump, R);
      DG_CHECK_LAUNCH("av_element_kernel");
    } else if (k == PASS_TUNED) {
      DG_CALL(run_shapes(ctx, run, shapes, &n_shapes));
      for (int i = 0; i < n_shapes; ++i) {
        const int s = shapes[i];
        const rk_stage_args *rk = ctx->rk_stage[s];
        const team_launch *t = rk ? &ctx->team_rk[s] : &ctx->team[s];
        t->kernel<<<team_blocks(t), t->threads, t->smem, ctx->stream>>>(
            t->args, shape_n_faces((dg_shape)s), U, ctx->d_face_flux, R,
            rk ? *rk : rk_stage_args{});
        DG_CHECK_LAUNCH("residual_element_team_kernel");
      }
    } else {
      residual_element_kernel<<<(unsigned)grid_for(n), BACKEND_CUDA_BLOCK>>>(
          ctx->view, b, run->end, U, ctx->d_face_flux, R);
      DG_CHECK_LAUNCH("residual_element_kernel");
    }
    return DG_SUCCESS;
  default: break;
  }
  DG_CHECK(0, DG_ERR_INTERNAL, "CUDA backend: no kernel for the residual pass %s",
           residual_plan_pass_name(run->kind));
  return DG_SUCCESS;
}

/* The ε passes of U (the plan's AV_EPS, AV_VERTEX_EPS, AV_COEFS): eps_elem,
 * eps_vert (continuous ε) and eps_c (ctx scratch, written), for the time
 * step and av_eps, after the ghosts' U (HALO_START, HALO_FINISH: the owned
 * elements' vertex means read the ghosts' ε). AV on. */
static dg_status av_eps_launch(dg_backend_ctx *ctx, const double *U) {
  const pass_kernels k = pass_kernels_of(ctx);
  for (int i = 0; i < ctx->plan.n_passes;) {
    dg_pass run;
    const int next = residual_plan_run(&ctx->plan, i, &run);
    if (run.kind == DG_PASS_HALO_START || run.kind == DG_PASS_HALO_FINISH ||
        run.kind == DG_PASS_AV_EPS || run.kind == DG_PASS_AV_VERTEX_EPS ||
        run.kind == DG_PASS_AV_COEFS)
      DG_CALL(cuda_run_pass(ctx, k, &run, U, 0.0, NULL, 0));
    i = next;
  }
  return DG_SUCCESS;
}

/* The residual: the runs of the plan in order (src/dg/residual_plan.h),
 * optionally bracketed by events: events[0] before the first pass,
 * events[1] before the element passes (the ε, gradient and face passes
 * count as the face time), events[2] after the last. */
static dg_status residual_launch(dg_backend_ctx *ctx, const double *U, double t, double *R,
                                 cudaEvent_t *events) {
  const pass_kernels k = pass_kernels_of(ctx);
  if (events) DG_CALL_CUDA(cudaEventRecord(events[0], 0));
  int marked = 0;
  for (int i = 0; i < ctx->plan.n_passes;) {
    dg_pass run;
    const int next = residual_plan_run(&ctx->plan, i, &run);
    if (events && !marked && run.kind == DG_PASS_ELEMENTS) {
      DG_CALL_CUDA(cudaEventRecord(events[1], 0));
      marked = 1;
    }
    DG_CALL(cuda_run_pass(ctx, k, &run, U, t, R, 1));
    i = next;
  }
  if (events && !marked) DG_CALL_CUDA(cudaEventRecord(events[1], 0));
  if (events) DG_CALL_CUDA(cudaEventRecord(events[2], 0));
  return DG_SUCCESS;
}

/* The residual with its timeline (COLORDG_CUDA_TIMELINE): after a device
 * synchronisation (so the events and the host clock share an origin), an
 * event before and after every run of the plan (a run's begin is when the
 * stream reached its launch: after the host issued it), the host clock when the
 * halo messages are posted and when their wait returns; one line per run
 * to stderr, "timeline rank R: PASS gpu BEGIN - END ms", and the MPI
 * interval. The exchange overlaps the GPU work that runs while the host
 * waits (the inner faces between HALO_START and HALO_FINISH). */
static dg_status cuda_residual_timeline(dg_backend_ctx *ctx, const double *U, double t, double *R) {
  enum { MAX_EVENTS = 2 * DG_PLAN_MAX_PASSES + 1 }; /* origin, then before and after each run */
  cudaEvent_t ev[MAX_EVENTS];
  dg_pass runs[DG_PLAN_MAX_PASSES];
  int n_runs = 0, n_events = 0;
  dg_status status = DG_SUCCESS;
  for (; n_events < MAX_EVENTS; ++n_events)
    if (cudaEventCreate(&ev[n_events]) != cudaSuccess) break;
  if (n_events < MAX_EVENTS || cudaDeviceSynchronize() != cudaSuccess)
    status = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__,
                          "CUDA backend: the residual timeline's events: %s",
                          cudaGetErrorString(cudaGetLastError()));
  const pass_kernels k = pass_kernels_of(ctx);
  if (status == DG_SUCCESS) {
    ctx->timeline_t0 = host_ms();
    ctx->timeline_mpi[0] = ctx->timeline_mpi[1] = -1.0;
    ctx->timeline_on = 1;
    cudaEventRecord(ev[0], 0);
    for (int i = 0; i < ctx->plan.n_passes && status == DG_SUCCESS;) {
      const int next = residual_plan_run(&ctx->plan, i, &runs[n_runs]);
      cudaEventRecord(ev[2 * n_runs + 1], 0);
      status = cuda_run_pass(ctx, k, &runs[n_runs], U, t, R, 1);
      cudaEventRecord(ev[2 * n_runs + 2], 0);
      ++n_runs;
      i = next;
    }
    ctx->timeline_on = 0;
  }
  if (status == DG_SUCCESS && cudaEventSynchronize(ev[2 * n_runs]) == cudaSuccess) {
    const int rank = dg_comm_rank(cuda_comm(ctx));
    for (int r = 0; r < n_runs; ++r) {
      float begin = 0.0f, end = 0.0f;
      cudaEventElapsedTime(&begin, ev[0], ev[2 * r + 1]);
      cudaEventElapsedTime(&end, ev[0], ev[2 * r + 2]);
      fprintf(stderr, "timeline rank %d: %-15s [%lld, %lld) gpu %9.3f - %9.3f ms\n", rank,
              residual_plan_pass_name(runs[r].kind), (long long)runs[r].begin,
              (long long)runs[r].end, begin, end);
    }
    if (ctx->timeline_mpi[0] >= 0.0)
      fprintf(stderr, "timeline rank %d: mpi messages posted %9.3f ms, wait returned %9.3f ms\n",
              rank, ctx->timeline_mpi[0], ctx->timeline_mpi[1]);
  }
  for (int i = 0; i < n_events; ++i) cudaEventDestroy(ev[i]);
  return status;
}

static dg_status cuda_residual(dg_backend_ctx *ctx, const double *U, double t, double *R) {
  if (ctx->timeline_call > 0 && ++ctx->residual_calls == ctx->timeline_call)
    return cuda_residual_timeline(ctx, U, t, R);
  DG_CALL(residual_launch(ctx, U, t, R, NULL));
  return DG_SUCCESS;
}

static dg_status cuda_set_circulation(dg_backend_ctx *ctx, double circulation) {
  if (ctx->state.farfield_circulation == circulation) return DG_SUCCESS;
  ctx->state.farfield_circulation = circulation;
  if (ctx->d_state) /* the tuned face kernels read the device copy: update its field (8 bytes) */
    DG_CALL_CUDA(cudaMemcpyAsync(
        (char *)ctx->d_state + offsetof(dg_disc_state, farfield_circulation),
        &ctx->state.farfield_circulation, sizeof(double), cudaMemcpyHostToDevice, ctx->stream));
  return DG_SUCCESS;
}

static dg_status cuda_av_hold(dg_backend_ctx *ctx, const double *U, double omega) {
  if (ctx->view.av == DG_AV_OFF || ctx->n_elems <= 0) return DG_SUCCESS;
  /* a ghost's hold follows its owner's: both from the same U */
  if (U) DG_CALL(cuda_halo(ctx, (double *)(uintptr_t)U));
  av_hold_kernel<<<(unsigned)grid_for(ctx->n_elems), BACKEND_CUDA_BLOCK>>>(ctx->view, U, omega,
                                                                           ctx->d_eps_hold);
  DG_CHECK_LAUNCH("av_hold_kernel");
  return DG_SUCCESS;
}

static dg_status cuda_av_hold_get(dg_backend_ctx *ctx, double *h_hold) {
  if (ctx->view.av == DG_AV_OFF || !ctx->d_eps_hold) {
    for (int64_t e = 0; e < ctx->n_elems; ++e) h_hold[e] = -1.0;
    return DG_SUCCESS;
  }
  if (ctx->n_elems <= 0) return DG_SUCCESS;
  DG_CALL_CUDA(cudaMemcpy(h_hold, ctx->d_eps_hold, (size_t)ctx->n_elems * sizeof(double),
                          cudaMemcpyDeviceToHost));
  return DG_SUCCESS;
}

static dg_status cuda_av_hold_set(dg_backend_ctx *ctx, const double *h_hold) {
  if (ctx->view.av == DG_AV_OFF || !ctx->d_eps_hold || ctx->n_elems <= 0) return DG_SUCCESS;
  DG_CALL_CUDA(cudaMemcpy(ctx->d_eps_hold, h_hold, (size_t)ctx->n_elems * sizeof(double),
                          cudaMemcpyHostToDevice));
  return DG_SUCCESS;
}

static dg_status cuda_av_eps(dg_backend_ctx *ctx, const double *U, double *eps) {
  if (ctx->view.av == DG_AV_OFF) {
    DG_CALL_CUDA(cudaMemsetAsync(eps, 0, (size_t)ctx->n_elems * sizeof(double), 0));
    return DG_SUCCESS;
  }
  DG_CALL(av_eps_launch(ctx, U));
  av_mean_eps_kernel<<<(unsigned)grid_for(ctx->n_elems), BACKEND_CUDA_BLOCK>>>(ctx->view,
                                                                               ctx->d_eps_c, eps);
  DG_CHECK_LAUNCH("av_mean_eps_kernel");
  return DG_SUCCESS;
}

static dg_status cuda_timestep(dg_backend_ctx *ctx, const double *U, double cfl, double *dt,
                               double *dt_min) {
  const unsigned grid = (unsigned)grid_for(ctx->n_elems);
  if (ctx->view.av != DG_AV_OFF) {
    DG_CALL(av_eps_launch(ctx, U));
    av_timestep_kernel<<<av_blocks(ctx, ctx->n_elems), av_threads(ctx, ctx->n_elems)>>>(
        ctx->view, U, ctx->d_eps_c, cfl, dt);
    DG_CHECK_LAUNCH("av_timestep_kernel");
  } else { /* the residual's face-flux scratch (nvar >= 2 doubles per point) holds the terms */
    /* ctx->timestep_kernel is set with ctx->face_kernel, and ctx->face_args
     * spans every face point */
    if (ctx->n_face_points > 0 && ctx->variant == BACKEND_CUDA_TUNED && ctx->timestep_kernel) {
      if (face_gather_on(ctx) && ctx->timestep_gather_kernel) {
        const face_launch l = face_launch_for(ctx, 0, ctx->n_face_points);
        ctx->timestep_gather_kernel<<<l.blocks, BACKEND_CUDA_TEAM, l.smem>>>(
            ctx->face_args, ctx->d_view, U, 0.0, ctx->d_face_flux);
        DG_CHECK_LAUNCH("residual_face_gather_kernel (time-step terms)");
      } else {
        ctx->timestep_kernel<<<face_point_blocks(ctx), BACKEND_CUDA_TEAM>>>(ctx->face_args, U,
                                                                            ctx->d_face_flux);
        DG_CHECK_LAUNCH("timestep_term_team_kernel");
      }
    } else if (ctx->n_face_points > 0) {
      timestep_term_kernel<<<(unsigned)grid_for(ctx->n_face_points), BACKEND_CUDA_BLOCK>>>(
          ctx->d_view, ctx->n_face_points, U, ctx->d_face_flux);
      DG_CHECK_LAUNCH("timestep_term_kernel");
    }
    timestep_sum_kernel<<<grid, BACKEND_CUDA_BLOCK>>>(ctx->d_view, ctx->d_face_flux, cfl, dt);
    DG_CHECK_LAUNCH("timestep_sum_kernel");
  }
  if (!dt_min) return DG_SUCCESS; /* local steps, no minimum wanted: nothing to the host */
  DG_CALL(reduce_components(ctx, REDUCE_MIN, INFINITY, ctx->n_elems, 1, dt, ctx->d_owned_elem));
  /* a global step: dg_backend_timestep fills dt with the global minimum */
  DG_CALL_CUDA(cudaMemcpy(dt_min, ctx->d_result, sizeof(double), cudaMemcpyDeviceToHost));
  return DG_SUCCESS;
}

static dg_status cuda_rk_update(dg_backend_ctx *ctx, double a, const double *U0, double b,
                                const double *U, const double *dt, const double *R, double *Uout) {
  if (ctx->variant == BACKEND_CUDA_TUNED) {
    for (int s = 0; s < DG_NUM_SHAPES; ++s) {
      const int64_t n = ctx->view.n_shape[s] * ctx->view.nb[s] * ctx->nvar;
      if (n <= 0) continue;
      rk_update_coef_kernel<<<(unsigned)((n + BACKEND_CUDA_TEAM - 1) / BACKEND_CUDA_TEAM),
                              BACKEND_CUDA_TEAM, 0, ctx->stream>>>(ctx->rk_args[s], a, U0, b, U, dt,
                                                                   R, Uout);
      DG_CHECK_LAUNCH("rk_update_coef_kernel");
    }
    return DG_SUCCESS;
  }
  rk_update_kernel<<<(unsigned)grid_for(ctx->n_elems), BACKEND_CUDA_BLOCK>>>(ctx->view, a, U0, b, U,
                                                                             dt, R, Uout);
  DG_CHECK_LAUNCH("rk_update_kernel");
  return DG_SUCCESS;
}

/* The residual of U and an RK stage from it (table residual_rk). With the
 * tuned inviscid kernels in one process, the element kernels finish the
 * stage (residual_element_team_kernel, RK = 1): R is written only when
 * keep_R, and the separate update's launch and its reads of R and U are
 * saved; same bits as residual + rk_update (rk_coef_value). Otherwise (AV,
 * portable kernels, ghosts, a timeline call) residual + rk_update. */
static dg_status cuda_residual_rk(dg_backend_ctx *ctx, const double *U, double t, double a,
                                  const double *U0, double b, const double *dt, double *R,
                                  int keep_R, double *Uout) {
  if (!ctx->rk_fused_ok || pass_kernels_of(ctx) != PASS_TUNED || ctx->timeline_call > 0) {
    DG_CALL(cuda_residual(ctx, U, t, R));
    return cuda_rk_update(ctx, a, U0, b, U, dt, R, Uout);
  }
  rk_stage_args args[DG_NUM_SHAPES];
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    args[s].mass = ctx->rk_args[s];
    args[s].alpha = a;
    args[s].b = b;
    args[s].U0 = U0;
    args[s].dt = dt;
    args[s].Uout = Uout;
    ctx->rk_stage[s] = &args[s];
  }
  const dg_status status = residual_launch(ctx, U, t, keep_R ? R : NULL, NULL);
  for (int s = 0; s < DG_NUM_SHAPES; ++s) ctx->rk_stage[s] = NULL;
  DG_CALL(status);
  return DG_SUCCESS;
}

static dg_status cuda_norms(dg_backend_ctx *ctx, const double *R, double *sumsq, int *finite) {
  const dg_disc_view *d = &ctx->view;
  norm_segments seg;
  memset(&seg, 0, sizeof seg);
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (d->n_shape[s] <= 0) continue;
    seg.base[seg.n_segments] = d->coef_start[s];
    seg.len[seg.n_segments] = (int64_t)d->nb[s] * d->n_shape[s];
    seg.total += seg.len[seg.n_segments];
    seg.n_segments++;
  }
  const int nv = ctx->nvar, blocks = reduce_blocks(seg.total);
  norm_stage1_kernel<<<dim3((unsigned)blocks, (unsigned)nv), BACKEND_CUDA_BLOCK>>>(
      seg, nv, R, ctx->d_owned_state, ctx->d_partial);
  DG_CHECK_LAUNCH("norm_stage1_kernel");
  reduce_stage2_kernel<<<(unsigned)(2 * nv), BACKEND_CUDA_BLOCK>>>(REDUCE_SUM, 0.0, blocks,
                                                                   ctx->d_partial, ctx->d_result);
  DG_CHECK_LAUNCH("reduce_stage2_kernel");
  double result[REDUCE_MAX_COMPONENTS];
  DG_CALL_CUDA(cudaMemcpy(result, ctx->d_result, 2 * nv * sizeof(double), cudaMemcpyDeviceToHost));
  int ok = 1;
  for (int v = 0; v < nv; ++v) {
    sumsq[v] = result[v];
    if (result[nv + v] != 0.0) ok = 0;
  }
  *finite = ok;
  return DG_SUCCESS;
}

static dg_status cuda_forces(dg_backend_ctx *ctx, const double *U, const uint8_t *group_mask,
                             const double x_ref[3], double out[6]) {
  for (int c = 0; c < 6; ++c) out[c] = 0.0;
  if (ctx->n_faces == 0 || ctx->n_groups == 0) return DG_SUCCESS;
  DG_CALL_CUDA(cudaMemcpy(ctx->d_mask, group_mask, (size_t)ctx->n_groups, cudaMemcpyHostToDevice));
  force_kernel<<<(unsigned)grid_for(ctx->n_faces), BACKEND_CUDA_BLOCK>>>(
      ctx->view, U, ctx->d_mask, x_ref[0], x_ref[1], x_ref[2], ctx->d_force);
  DG_CHECK_LAUNCH("force_kernel");
  DG_CALL(reduce_components(ctx, REDUCE_SUM, 0.0, ctx->n_faces, 6, ctx->d_force, NULL));
  DG_CALL_CUDA(cudaMemcpy(out, ctx->d_result, 6 * sizeof(double), cudaMemcpyDeviceToHost));
  return DG_SUCCESS;
}

static dg_status cuda_limit(dg_backend_ctx *ctx, double *U, double *count) {
  if (ctx->n_elems <= 0) return DG_SUCCESS;
  limit_kernel<<<(unsigned)grid_for(ctx->n_elems), BACKEND_CUDA_BLOCK>>>(ctx->view, U, count);
  DG_CHECK_LAUNCH("limit_kernel");
  return DG_SUCCESS;
}

/* Refuses `bytes` more for `what` when they exceed the free device memory. */
static dg_status cuda_memory_check(dg_backend_ctx *ctx, int64_t bytes, const char *what) {
  (void)ctx;
  return gpu_mem_check_free(what, (size_t)bytes);
}

/* In the member order of dg_backend (src/dg/backend.h). */
static const dg_backend backend_cuda_ops = {
    "cuda",           cuda_create,       cuda_destroy,
    cuda_vec_alloc,   cuda_vec_free,     cuda_vec_length,
    cuda_upload,      cuda_download,     cuda_copy,
    cuda_residual,    cuda_av_eps,       cuda_av_hold,
    cuda_timestep,    cuda_rk_update,    cuda_norms,
    cuda_forces,      cuda_limit,        cuda_set_circulation,
    cuda_av_hold_get, cuda_av_hold_set,  cuda_axpby,
    cuda_scale,       cuda_set,          cuda_dot,
    cuda_sum_squares, cuda_max_abs,      NULL,
    cuda_comm,        cuda_halo,         cuda_mdot,
    cuda_maxpy,       cuda_memory_check, cuda_residual_rk,
};

/* ------------------------------------------------------------ public */

extern "C" const dg_backend *backend_cuda_table(void) { return &backend_cuda_ops; }

extern "C" int backend_cuda_device_count(void) {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError(); /* leave no sticky error for later calls */
    return 0;
  }
  return count;
}

extern "C" dg_status backend_cuda_use_device(int index) {
  const int count = backend_cuda_device_count();
  DG_CHECK(index >= 0 && index < count, DG_ERR_ARG,
           "CUDA backend: device %d does not exist (%d devices)", index, count);
  DG_CALL_CUDA(cudaSetDevice(index));
  return DG_SUCCESS;
}

extern "C" dg_status backend_cuda_set_variant(dg_backend_ctx *ctx, backend_cuda_variant variant) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "CUDA backend set_variant: ctx must not be NULL");
  DG_CHECK(variant == BACKEND_CUDA_PORTABLE || variant == BACKEND_CUDA_TUNED, DG_ERR_ARG,
           "CUDA backend set_variant: unknown variant %d", (int)variant);
  DG_CHECK(variant == BACKEND_CUDA_PORTABLE || ctx->team_ok, DG_ERR_UNSUPPORTED,
           "CUDA backend set_variant: the tuned kernels do not cover this discretisation (an "
           "element shape with no team kernel or too large for shared memory)");
  ctx->variant = variant;
  return DG_SUCCESS;
}

/* After a setter of the team kernels (named by setter) changed a setting:
 * team_shape_setup of every shape again, where the tuned kernels cover the
 * discretisation. */
static dg_status team_resetup(dg_backend_ctx *ctx, const char *setter) {
  if (!ctx->team_ok) return DG_SUCCESS;
  int ok = 1;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    if (ctx->view.n_shape[s] > 0) DG_CALL(team_shape_setup(ctx, s, &ok));
  DG_CHECK(ok, DG_ERR_INTERNAL, "CUDA backend %s: a team block no longer fits", setter);
  return DG_SUCCESS;
}

extern "C" dg_status backend_cuda_set_team_chunk(dg_backend_ctx *ctx, int points) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "CUDA backend set_team_chunk: ctx must not be NULL");
  DG_CHECK(points >= 0, DG_ERR_ARG,
           "CUDA backend set_team_chunk: points must be 0 (automatic) or positive (got %d)",
           points);
  ctx->team_chunk = points;
  return team_resetup(ctx, "set_team_chunk");
}

extern "C" dg_status backend_cuda_set_team_modes(dg_backend_ctx *ctx, int modes) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "CUDA backend set_team_modes: ctx must not be NULL");
  DG_CHECK(modes >= 0 && modes <= 3, DG_ERR_ARG,
           "CUDA backend set_team_modes: modes must be 0 (automatic), 1, 2 or 3 (got %d)", modes);
  ctx->team_modes = modes;
  return team_resetup(ctx, "set_team_modes");
}

extern "C" dg_status backend_cuda_set_team_modes_rk(dg_backend_ctx *ctx, int modes) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "CUDA backend set_team_modes_rk: ctx must not be NULL");
  DG_CHECK(modes >= 0 && modes <= 3, DG_ERR_ARG,
           "CUDA backend set_team_modes_rk: modes must be 0 (automatic), 1, 2 or 3 (got %d)",
           modes);
  ctx->team_modes_rk = modes;
  return team_resetup(ctx, "set_team_modes_rk");
}

extern "C" dg_status backend_cuda_set_elem_thread(dg_backend_ctx *ctx, int on) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "CUDA backend set_elem_thread: ctx must not be NULL");
  DG_CHECK(on >= -1 && on <= 2, DG_ERR_ARG,
           "CUDA backend set_elem_thread: on must be -1 (automatic), 0, 1 or 2 (got %d)", on);
  ctx->elem_thread = on;
  return team_resetup(ctx, "set_elem_thread");
}

extern "C" dg_status backend_cuda_set_team_face_share(dg_backend_ctx *ctx, int share) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "CUDA backend set_team_face_share: ctx must not be NULL");
  DG_CHECK(share == -1 || share == 0 || share == 1, DG_ERR_ARG,
           "CUDA backend set_team_face_share: share must be -1 (automatic), 0 or 1 (got %d)",
           share);
  ctx->team_face_share = share;
  return team_resetup(ctx, "set_team_face_share");
}

/* Whether ctx has elements of shape and a team kernel for them. */
static int team_shape_ready(const dg_backend_ctx *ctx, int shape) {
  return ctx != NULL && shape >= 0 && shape < DG_NUM_SHAPES && ctx->view.n_shape[shape] > 0 &&
         ctx->team[shape].kernel;
}

extern "C" dg_status backend_cuda_set_team_elems(dg_backend_ctx *ctx, int elems) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "CUDA backend set_team_elems: ctx must not be NULL");
  DG_CHECK(elems >= 0, DG_ERR_ARG,
           "CUDA backend set_team_elems: elems must be 0 (automatic) or positive (got %d)", elems);
  ctx->team_elems_set = elems;
  return team_resetup(ctx, "set_team_elems");
}

extern "C" int backend_cuda_team_elems(const dg_backend_ctx *ctx, int shape) {
  return team_shape_ready(ctx, shape) ? ctx->team[shape].args.E : 0;
}

extern "C" int backend_cuda_team_face_share(const dg_backend_ctx *ctx, int shape) {
  return team_shape_ready(ctx, shape) ? ctx->team[shape].args.face_share : 0;
}

extern "C" int backend_cuda_team_modes(const dg_backend_ctx *ctx, int shape) {
  if (!team_shape_ready(ctx, shape)) return 0;
  return team_modes_for(ctx, shape);
}

extern "C" int backend_cuda_team_modes_rk(const dg_backend_ctx *ctx, int shape) {
  return team_modes_rk_for(ctx, shape, team_modes_for(ctx, shape));
}

extern "C" int backend_cuda_elem_thread_active(const dg_backend_ctx *ctx, int shape, int rk) {
  if (!team_shape_ready(ctx, shape)) return 0;
  return elem_thread_kind(ctx, shape, rk != 0);
}

extern "C" dg_status backend_cuda_set_face_trace(dg_backend_ctx *ctx, int on) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "CUDA backend set_face_trace: ctx must not be NULL");
  DG_CHECK(on == -1 || on == 0 || on == 1, DG_ERR_ARG,
           "CUDA backend set_face_trace: on must be -1 (automatic), 0 or 1 (got %d)", on);
  ctx->face_trace = on;
  /* the traces, where the path exists but does not run by default (not in
   * the memory plan: backend_cuda_trace_default) */
  if (on == 1 && ctx->trace_kernel && !ctx->d_trace) DG_CALL(cuda_trace_alloc(ctx));
  return DG_SUCCESS;
}

extern "C" int backend_cuda_face_trace_active(const dg_backend_ctx *ctx) {
  return ctx != NULL && face_trace_on(ctx, 0, ctx->n_face_points);
}

extern "C" dg_status backend_cuda_set_face_gather(dg_backend_ctx *ctx, int on) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "CUDA backend set_face_gather: ctx must not be NULL");
  DG_CHECK(on == -1 || on == 0 || on == 1, DG_ERR_ARG,
           "CUDA backend set_face_gather: on must be -1 (automatic), 0 or 1 (got %d)", on);
  ctx->face_gather = on;
  return DG_SUCCESS;
}

extern "C" int backend_cuda_face_gather_active(const dg_backend_ctx *ctx) {
  return ctx != NULL && face_gather_on(ctx) && !face_trace_on(ctx, 0, ctx->n_face_points);
}

extern "C" dg_status backend_cuda_set_av_block(dg_backend_ctx *ctx, int threads) {
  DG_CHECK(ctx != NULL, DG_ERR_ARG, "CUDA backend set_av_block: ctx must not be NULL");
  DG_CHECK(threads == 0 ||
               (threads >= AV_BLOCK_MIN && threads <= 1024 && (threads & (threads - 1)) == 0),
           DG_ERR_ARG,
           "CUDA backend set_av_block: threads must be 0 (automatic) or a power of two in "
           "[%d, 1024] (got %d)",
           AV_BLOCK_MIN, threads);
  ctx->av_block = threads;
  return DG_SUCCESS;
}

extern "C" backend_cuda_variant backend_cuda_get_variant(const dg_backend_ctx *ctx) {
  return ctx ? ctx->variant : BACKEND_CUDA_PORTABLE;
}

extern "C" int backend_cuda_av_team_active(const dg_backend_ctx *ctx) {
  return ctx && ctx->view.av != DG_AV_OFF && ctx->variant == BACKEND_CUDA_TUNED && ctx->av_team_ok;
}

/* ------------------------------------------------------------ private hooks */

/* For tools/bench_cuda/ (backend_cuda_private.h); the solver never calls them. */

extern "C" dg_status backend_cuda_residual_events(dg_backend_ctx *ctx, const double *U, double t,
                                                  double *R, cudaEvent_t *events) {
  return residual_launch(ctx, U, t, R, events);
}

extern "C" dg_status backend_cuda_rk_update_raw(dg_backend_ctx *ctx, double a, const double *U0,
                                                double b, const double *U, const double *dt,
                                                const double *R, double *Uout) {
  return cuda_rk_update(ctx, a, U0, b, U, dt, R, Uout);
}

extern "C" void backend_cuda_set_stream(dg_backend_ctx *ctx, cudaStream_t stream) {
  ctx->stream = stream;
}

extern "C" void backend_cuda_capture_face_node(dg_backend_ctx *ctx, cudaGraphNode_t *node) {
  ctx->capture_face_node = node;
}

extern "C" dg_status backend_cuda_face_node_update(const dg_backend_ctx *ctx, cudaGraphExec_t exec,
                                                   cudaGraphNode_t node, const double *U,
                                                   double t) {
  const dg_disc_view *view = ctx->d_view;
  const dg_disc_state *state = ctx->d_state;
  int64_t k_first = 0, n_points = ctx->n_face_points;
  const double *Uk = U;
  double tk = t;
  double *flux = ctx->d_face_flux;
  residual_face_args face_args = ctx->face_args;
  void *generic_args[] = {(void *)&view, (void *)&state, (void *)&k_first, (void *)&n_points,
                          (void *)&Uk,   (void *)&tk,    (void *)&flux};
  void *team_args[] = {(void *)&face_args, (void *)&view, (void *)&Uk, (void *)&tk, (void *)&flux};
  cudaKernelNodeParams params = {};
  if (face_trace_on(ctx, 0, ctx->n_face_points)) { /* the trace kernel's node does not read t */
    const double *trace = ctx->d_trace;
    int64_t n_trace = ctx->n_face_points;
    void *trace_args[] = {(void *)&face_args, (void *)&view,    (void *)&Uk,  (void *)&tk,
                          (void *)&trace,     (void *)&n_trace, (void *)&flux};
    params.func = (void *)ctx->face_trace_kernel;
    params.gridDim = dim3(face_point_blocks(ctx));
    params.blockDim = dim3(BACKEND_CUDA_TEAM);
    params.sharedMemBytes = 0;
    params.kernelParams = trace_args;
    DG_CALL_CUDA(cudaGraphExecKernelNodeSetParams(exec, node, &params));
    return DG_SUCCESS;
  }
  const face_launch l = face_launch_for(ctx, 0, ctx->n_face_points);
  params.func = ctx->face_kernel ? (void *)l.fn : (void *)residual_face_point_kernel;
  params.gridDim = dim3(ctx->face_kernel ? l.blocks : face_point_blocks(ctx));
  params.blockDim = dim3(BACKEND_CUDA_TEAM);
  params.sharedMemBytes = ctx->face_kernel ? (unsigned)l.smem : 0;
  params.kernelParams = ctx->face_kernel ? team_args : generic_args;
  DG_CALL_CUDA(cudaGraphExecKernelNodeSetParams(exec, node, &params));
  return DG_SUCCESS;
}
