#pragma once
/* The CUDA LU-SGS operations (lusgs_backend_cuda(),
 * src/kernels/lusgs_cuda.cu) and their extras: the
 * kernel variants, the launch size, a per-phase profile of one iteration and
 * a CUDA Graph of the colour sweeps, for tests and benchmarks.
 *
 * Storage (device, per element e, n_e = nvar·nb): n_e² doubles (row-major
 * LU factors of D_e, or D_e⁻¹ with the cuBLAS factorisation) and n_e int32
 * pivots; the flux Jacobians of both sides at every face point
 * (2·nvar² doubles, lusgs_ops.h); the colours and a CSR of the elements of
 * each colour (a colour whose elements are one index range — colour-major
 * numbering — is launched over that range). The cuBLAS factorisation keeps a
 * second n_e² doubles per element for the LU factors it inverts. */
#include <stddef.h>
#include <stdint.h>

#include "core/dg_error.h"
#include "dg/backend.h"
#include "dg/disc.h"
#include "dg/marcher.h"

#ifdef __cplusplus
/* lusgs.h has no C++ guard: its declarations get C linkage here; its own
 * includes come first, outside. */
extern "C" {
#endif
#include "lusgs/lusgs.h"

/* The CUDA LU-SGS operations (static storage, never NULL); backend_cuda()
 * (src/backends/backend_select.h) pairs them with the CUDA dg_backend. */
const lusgs_backend *lusgs_backend_cuda(void);

/* How D_e is assembled. THREAD: one thread per element calling
 * lusgs_block_assemble_jac (the reference). TEAM: a thread block per element,
 * one thread per block entry (src/kernels/lusgs_team.h); shapes whose
 * point data do not fit in shared memory fall back to THREAD. */
typedef enum { LUSGS_CUDA_ASSEMBLE_THREAD = 0, LUSGS_CUDA_ASSEMBLE_TEAM = 1 } lusgs_cuda_assemble;

/* How D_e is factored, and what the sweeps apply:
 * THREAD: one thread per element, lusgs_lu_factor (the reference); the
 *   sweeps call lusgs_sweep_*_element_jac (lusgs_lu_solve);
 * TEAM: a thread block per element in shared memory (lusgs_team.h), the
 *   same factors and sweeps as THREAD;
 * CUBLAS: cublasDgetrfBatched then cublasDgetriBatched (one batch per
 *   element shape) store D_e⁻¹; the sweeps multiply by it. */
typedef enum {
  LUSGS_CUDA_FACTOR_THREAD = 0,
  LUSGS_CUDA_FACTOR_TEAM = 1,
  LUSGS_CUDA_FACTOR_CUBLAS = 2
} lusgs_cuda_factor;

#define LUSGS_CUDA_N_FACTORS 3

/* How the sweeps and relaxations run: THREAD, one thread per element of the
 * colour calling the DG_HD element functions of lusgs_ops.h (the
 * reference); TEAM, one warp per element (lusgs_team.h). */
typedef enum { LUSGS_CUDA_SWEEP_THREAD = 0, LUSGS_CUDA_SWEEP_TEAM = 1 } lusgs_cuda_sweep;

/* How the artificial-viscosity parts run (view.av on; lusgs_av.h):
 * THREAD: one thread per element for the viscous block (lusgs_av_block_add)
 *   and for each colour's off-diagonal products (lusgs_av_offdiag_add,
 *   matrix-free) — the reference;
 * TEAM: at assembly the viscous rows (lusgs_av_row_inviscid = 0) are listed
 *   (a flag per element copied back), their block is built one thread per
 *   column and their scalar couplings C_ej (A^visc_ej = I_nvar ⊗ C_ej, nb_e ×
 *   nb_j per interior face) are formed one thread per column; the products
 *   of a colour run one warp per element over the formed couplings
 *   (inviscid rows copy R). Device memory: nf·nb² doubles per viscous row
 *   (nf, nb: the largest of the mesh's shapes), grown as the rows grow. */
typedef enum { LUSGS_CUDA_AV_THREAD = 0, LUSGS_CUDA_AV_TEAM = 1 } lusgs_cuda_av;

/* Selects the viscous variant of later assemble and av_offdiag calls (the
 * TEAM products need a TEAM assembly first: DG_ERR_ARG otherwise).
 * Default TEAM. DG_ERR_ARG for an unknown value. */
dg_status lusgs_cuda_set_av_variant(lusgs_ctx *ctx, lusgs_cuda_av variant);

/* Viscous rows at the last TEAM assembly (0 without AV or with THREAD). */
int64_t lusgs_cuda_av_rows(const lusgs_ctx *ctx);

/* Selects the assembly and factorisation of later assemble calls of ctx (a
 * context of lusgs_backend_cuda()) and the sweeps; the stored blocks are
 * invalid until the next assemble. DG_ERR_ARG for an unknown value.
 * Defaults: TEAM, TEAM, TEAM. */
dg_status lusgs_cuda_set_variant(lusgs_ctx *ctx, lusgs_cuda_assemble assemble,
                                 lusgs_cuda_factor factor, lusgs_cuda_sweep sweep);

/* Threads per block of ctx's per-element, per-face and per-coefficient
 * kernels, and of the team sweeps (threads / 32 elements per block). A
 * multiple of 32 in [32, 1024] (DG_ERR_ARG otherwise). */
#define LUSGS_CUDA_DEFAULT_THREADS 32
dg_status lusgs_cuda_set_threads(lusgs_ctx *ctx, int threads);

/* Most threads per element of the team assembly and team LU (a power of
 * two up to this, from the block size). A multiple of 32 in [32, 1024].
 * The team assembly on tetrahedra takes up to LUSGS_CUDA_DEFAULT_TET_ASM_THREADS
 * (its p >= 2 blocks are 50x50 and larger: on the ONERA M6 wing at p = 2,
 * 73 k tetrahedra, H200, the assembly took 229 ms with 128 threads, 134 with
 * 256, 91 with 512, 102 with 1024; the team LU is fastest with 128),
 * set by lusgs_cuda_set_tet_asm_threads. The results do not depend on the
 * thread counts (every block entry is summed by one thread in a fixed
 * order). */
#define LUSGS_CUDA_DEFAULT_TEAM_THREADS 128
#define LUSGS_CUDA_DEFAULT_TET_ASM_THREADS 512
dg_status lusgs_cuda_set_team_threads(lusgs_ctx *ctx, int threads);
dg_status lusgs_cuda_set_tet_asm_threads(lusgs_ctx *ctx, int threads);

/* The threads per block each kernel launches with now: ctx's setting, or
 * less where the kernel's registers allow fewer (team kernels: at most
 * that many per element). names[k], threads[k] (either may be NULL) for k
 * < the returned count (at most cap). */
int lusgs_cuda_kernel_threads(const lusgs_ctx *ctx, const char **names, int *threads, int cap);

/* Device bytes ctx holds: the blocks and pivots (per element: n_e² doubles
 * plus n_e int32; with the cuBLAS factorisation a second n_e² doubles), and
 * everything (blocks, pivots, λ, colours, lists, pointer arrays). */
void lusgs_cuda_memory(const lusgs_ctx *ctx, size_t *block_bytes, size_t *total_bytes);

/* y_e = D_e⁻¹ x_e for every element with what the last assemble stored (x,
 * y: device state vectors of the backend). */
dg_status lusgs_cuda_apply_inverse(lusgs_ctx *ctx, const double *x, double *y);

/* Test helpers. The face flux Jacobians ctx holds (n_faces·nqf·2·nvar²
 * doubles in lusgs_ops.h's layout; host arrays): get copies them out, set
 * replaces them. */
dg_status lusgs_cuda_get_face_jacobians(lusgs_ctx *ctx, double *h_face_jac);
dg_status lusgs_cuda_set_face_jacobians(lusgs_ctx *ctx, const double *h_face_jac);

/* What assemble does after the face Jacobians: D_e of every element from
 * the face Jacobians ctx holds, its factorisation and the singular-block
 * check (U, dt: backend vectors). */
dg_status lusgs_cuda_assemble_blocks(lusgs_ctx *ctx, const double *U, const double *dt);

/* One lusgs_step of a marcher of the CUDA backend with a profile hook
 * attached (lusgs_set_phase_hook) that records a CUDA event at every phase
 * mark: ms[p] (host, [LUSGS_N_PHASES], written) = device milliseconds of
 * phase p (forward/backward: summed over the upward/downward passes);
 * *total_ms = first event to last. The hook is detached afterwards. */
dg_status lusgs_cuda_profile_step(lusgs_marcher *marcher, dg_vec *U, double t, int iteration,
                                  const lusgs_opts *opts, lusgs_info *info, double *ms,
                                  double *total_ms);

/* Benchmark helper: the forward and backward sweeps of every colour
 * (2 n_colors launches) run `reps` times with what the last assemble
 * stored, launched one by one (graph = 0) or as one captured CUDA Graph
 * (graph = 1); *ms_per = mean device milliseconds of one forward + backward
 * pass. dU is overwritten. */
dg_status lusgs_cuda_time_sweeps(lusgs_ctx *ctx, const double *R, double *dU, int graph, int reps,
                                 double *ms_per);

#ifdef __cplusplus
}
#endif
