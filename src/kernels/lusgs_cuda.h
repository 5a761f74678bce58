#pragma once
/* The CUDA LU-SGS operations (lusgs_backend_cuda(),
 * src/kernels/lusgs_cuda.cu) and their selectors: the kernel variants and
 * the launch sizes, with which the tests check the tuned kernels against
 * the reference ones and the benchmarks compare them. The per-phase profile
 * and the CUDA Graph of the colour sweeps live in tools/bench_cuda/
 * (lusgs_cuda_bench.h), the test hooks in tests/support/ (lusgs_cuda_check.h),
 * both over lusgs_cuda_private.h.
 *
 * Storage (device, per element e, n_e = nvar·nb): n_e² doubles (D_e⁻¹,
 * column-major, with the default WARP_INVERSE and with TEAM_INVERSE; row-major LU
 * factors of D_e with TEAM and THREAD; row-major D_e⁻¹ with cuBLAS) and n_e
 * int32 pivots; the flux Jacobians of both sides at every face point
 * (2·nvar² doubles, lusgs_ops.h); the colours and a CSR of the elements of
 * each colour (a colour whose elements are one index range — colour-major
 * numbering — is launched over that range). The cuBLAS factorisation keeps a
 * second n_e² doubles per element for the LU factors it inverts, and so does
 * TEAM_INVERSE after lusgs_keep_factors (the LU factors the matvec reads). */
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
 *   element shape) store D_e⁻¹; the sweeps multiply by it;
 * TEAM_INVERSE: the TEAM factorisation, then in the same kernel the rows of
 *   D_e⁻¹ (one thread per row, from the factors in shared memory), stored
 *   column-major so that the team sweep's lanes read them coalesced; the
 *   sweeps multiply by it. The LU factors are kept (a second n_e² doubles
 *   per element) only after lusgs_keep_factors (the Newton-Krylov matvec).
 * WARP_INVERSE: D_e⁻¹ by Gauss–Jordan elimination, one warp per element
 *   with the rows in registers (lusgs_team.h, "Warp inverse"), stored
 *   column-major as TEAM_INVERSE's; with the TEAM assembly and no
 *   artificial viscosity the warp also assembles D_e (the team assembly's
 *   arithmetic), so D_e never reaches global memory
 *   (lusgs_cuda_set_fused_assembly). Blocks larger than a warp's registers
 *   hold (quadrilaterals p = 3, tetrahedra p = 3), and every block after
 *   lusgs_keep_factors, take TEAM_INVERSE. D_e⁻¹ agrees with TEAM_INVERSE's
 *   to rounding (other operations).
 * The default is WARP_INVERSE (docs/LUSGS.md); the environment variable
 * COLORDG_LUSGS_FACTOR (thread, team, cublas, team_inverse, warp_inverse)
 * selects another for every LU-SGS context (gpu_lusgs_factor_choice,
 * src/kernels/gpu_memory.h). */
typedef enum {
  LUSGS_CUDA_FACTOR_THREAD = 0,
  LUSGS_CUDA_FACTOR_TEAM = 1,
  LUSGS_CUDA_FACTOR_CUBLAS = 2,
  LUSGS_CUDA_FACTOR_TEAM_INVERSE = 3,
  LUSGS_CUDA_FACTOR_WARP_INVERSE = 4
} lusgs_cuda_factor;

#define LUSGS_CUDA_N_FACTORS 5

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

/* Whether WARP_INVERSE assembles D_e in its own kernel where it can (1,
 * the default) or always after the separate assembly (0: the benchmarks'
 * comparison; the same bits either way). */
dg_status lusgs_cuda_set_fused_assembly(lusgs_ctx *ctx, int fuse);

/* The team assembly's second phase by rows (default, rows = 1): one thread
 * forms the nb entries of a row in one variable's columns, so each volume
 * point's contraction with the row mode's gradient serves nb entries; 0:
 * one thread per entry. The same operations per entry in the same order,
 * so the same bits (tests/unit/test_lusgs_gpu.c). */
dg_status lusgs_cuda_set_assembly_rows(lusgs_ctx *ctx, int rows);
/* Whether later assemble calls compute the face flux Jacobians with the
 * tuned kernel where the mesh allows it (1, the default: a mesh of one
 * shape, every degree p <= 3) or with the generic one (0: the tests'
 * reference; the same bits either way). */
dg_status lusgs_cuda_set_face_jac_team(lusgs_ctx *ctx, int team);
/* 1 when the next assemble of ctx computes the face Jacobians with the
 * tuned kernel. */
int lusgs_cuda_face_jac_team(const lusgs_ctx *ctx);
/* Viscous rows at the last TEAM assembly (0 without AV or with THREAD). */
int64_t lusgs_cuda_av_rows(const lusgs_ctx *ctx);

/* Selects the assembly and factorisation of later assemble calls of ctx (a
 * context of lusgs_backend_cuda()) and the sweeps; the stored blocks are
 * invalid until the next assemble. DG_ERR_ARG for an unknown value.
 * Defaults: TEAM, WARP_INVERSE (COLORDG_LUSGS_FACTOR), TEAM. */
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
 * (its p >= 2 blocks are 50x50 and larger; the thread sweep that chose 512
 * is in docs/PERFORMANCE.md, "LU-SGS on tetrahedra"), set by
 * lusgs_cuda_set_tet_asm_threads. The results do not depend on the thread
 * counts (every block entry is summed by one thread in a fixed order). */
#define LUSGS_CUDA_DEFAULT_TEAM_THREADS 128
#define LUSGS_CUDA_DEFAULT_TET_ASM_THREADS 512
dg_status lusgs_cuda_set_team_threads(lusgs_ctx *ctx, int threads);
dg_status lusgs_cuda_set_tet_asm_threads(lusgs_ctx *ctx, int threads);

/* Threads per row of the TEAM_INVERSE sweep (each row of D⁻¹ b is summed
 * in 4 fixed column ranges, added in order; `split` threads form them):
 * 1, 2 or 4, or 0, the default, for a choice by the colour's size
 * (lusgs_cuda_sweep_split in lusgs_cuda.cu). The results do not depend on
 * it; they agree with the CPU's sweeps to rounding. */
dg_status lusgs_cuda_set_sweep_split(lusgs_ctx *ctx, int split);
/* Elements per block of the stored-inverse sweep where it runs one thread
 * per row (large colours): 0 (the default: by colour size), 1, 2, 4 or 8;
 * fewer where the kernel's threads or shared memory do not allow them.
 * Changes speed only, never results. */
dg_status lusgs_cuda_set_sweep_elems(lusgs_ctx *ctx, int elems);
/* The stored-inverse sweep on a mesh whose elements all have one shape
 * (triangles at p = 1, 2 and tetrahedra at p = 1, where it measured
 * faster; lusgs_cuda.cu LUSGS_SWEEP_SHAPES): 1 (the default) the kernel
 * built for its modes and variables (loops unrolled), 0 the generic one;
 * the same sums in the same order, so the same bits either way. */
dg_status lusgs_cuda_set_sweep_tuned(lusgs_ctx *ctx, int on);
/* Whether that kernel is built for ctx's mesh (0 on mixed meshes and the
 * shapes and degrees it is not built for: the generic kernel either way). */
int lusgs_cuda_sweep_tuned_built(const lusgs_ctx *ctx);
/* WARP_INVERSE on blocks too large for a warp (n <= 128: tetrahedra at
 * p = 3, quadrilaterals at p = 3): 1 (the default) the team Gauss-Jordan
 * inverse in shared memory (lusgs_gj_team_kernel), 0 TEAM_INVERSE's LU and
 * inverse rows. */
dg_status lusgs_cuda_set_gj_team(lusgs_ctx *ctx, int on);

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

#ifdef __cplusplus
}
#endif
