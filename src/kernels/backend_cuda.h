#pragma once
/* The CUDA backend (docs/ARCHITECTURE.md §3): every operation of dg_backend
 * (src/dg/backend.h) on the device, with the same DG_HD arithmetic as the CPU
 * backend (src/dg/residual_ops.h). src/backends/backend_select.c hands this
 * table out, paired with lusgs_backend_cuda(), as backend_cuda() when the
 * build has CUDA.
 *
 * Reductions (time step
 * minimum, norms, forces) run in two stages with a launch shape that depends
 * only on the problem size, and a fixed summation tree, so two runs give
 * identical bits. Nothing inside residual / rk_update / timestep copies
 * between host and device except the scalars returned.
 *
 * Artificial viscosity (view.av != DG_AV_OFF): residual, timestep and av_eps
 * run the ε passes of src/dg/av_ops.h on the device (sensor and ε per
 * element, ε per vertex when continuous, ε coefficients and the projected
 * gradient), then the BR2 face and element kernels: one thread per element,
 * vertex or face (PORTABLE) or per (element or face, variable) (TUNED), no
 * atomics. */
#include "core/dg_error.h"
#include "dg/backend.h"

/* Threads per block of every kernel of the backend; a compile-time constant
 * so it can be swept (e.g. -DBACKEND_CUDA_BLOCK=256). */
#ifndef BACKEND_CUDA_BLOCK
#define BACKEND_CUDA_BLOCK 128
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The operation table of the CUDA backend (static storage, never NULL). */
const dg_backend *backend_cuda_table(void);

/* The device view of a context of backend_cuda_table() (a host struct whose
 * array pointers are device pointers; valid while ctx lives). For other
 * device modules (the LU-SGS kernels) that launch on the same data. */
const dg_disc_view *backend_cuda_view(const dg_backend_ctx *ctx);

/* The run-time state of a context of backend_cuda_table() (host struct; its
 * av_eps_hold is a device pointer; valid while ctx lives): what the LU-SGS
 * kernels pass by value to the DG_HD functions at each assembly. */
const dg_disc_state *backend_cuda_state(const dg_backend_ctx *ctx);

/* Number of usable CUDA devices (0 when the driver or device is missing;
 * never records an error). */
int backend_cuda_device_count(void);

/* Makes device index (0 .. count-1) the current one of this process, before
 * any context is created (a distributed run: one device per rank). */
dg_status backend_cuda_use_device(int index);

/* How a context's halo messages travel (for the run's report): "none (one
 * process)", GPU to GPU through CUDA IPC, CUDA-aware MPI, or staged through
 * pinned host memory. */
const char *backend_cuda_halo_transport(const dg_backend_ctx *ctx);

/* Kernels of the residual and the RK update. PORTABLE: one thread per face
 * and per element over the DG_HD functions of src/dg/residual_ops.h (the
 * reference). TUNED (default when it covers every shape of the
 * discretisation): src/kernels/residual_team.cuh. With artificial viscosity,
 * PORTABLE runs the one-thread-per-face / per-element kernels over
 * src/dg/av_ops.h (the reference) and TUNED the per-variable kernels of
 * src/kernels/av_team.cuh with the inviscid team kernels (when they cover
 * every shape: backend_cuda_av_team_active; else the portable AV kernels). */
typedef enum { BACKEND_CUDA_PORTABLE = 0, BACKEND_CUDA_TUNED = 1 } backend_cuda_variant;

/* Selects the variant used by later residual, rk_update and time-step
 * calls of ctx (a context of backend_cuda_table(); the time step's terms
 * without viscosity have a tuned kernel on single-shape meshes, with the
 * portable one's bits). Fails with DG_ERR_UNSUPPORTED when
 * TUNED does not cover the discretisation (ctx keeps its variant). */
dg_status backend_cuda_set_variant(dg_backend_ctx *ctx, backend_cuda_variant variant);

/* Threads per block of the portable artificial-viscosity kernels of ctx
 * (and of the ε passes and time step of both variants): 0 for the
 * automatic choice (the default: smaller blocks on small meshes, so the
 * heavy per-thread work spreads over every multiprocessor), else a power of
 * two in [8, 1024]. Changes speed only, never results. */
dg_status backend_cuda_set_av_block(dg_backend_ctx *ctx, int threads);

/* Volume points per chunk of the tuned element kernel
 * (src/kernels/residual_team.cuh: the points whose fluxes a block holds in
 * shared memory at a time): 0 for the automatic choice (every point in 2D;
 * 8 in 3D, 16 above 10 modes), else at least 1 (raised to ceil(nb / dim), capped at the rule's
 * points). Call before the first residual (the recorded SSP-RK3 graphs keep
 * their launches). Changes speed only, never results. */
dg_status backend_cuda_set_team_chunk(dg_backend_ctx *ctx, int points);

/* Modes of one element per thread in phase 2 of the tuned element kernel
 * (src/kernels/residual_team.cuh, residual_element_team_kernel): 1, 2 or
 * 3, or 0 for the automatic choice (2); a shape whose kernel has no such
 * instantiation (2: even nb >= 4; 3: nb = 3 or 9 in 2D) takes 1. Each value
 * read from shared memory then serves that many modes. Changes speed only,
 * never results. */
dg_status backend_cuda_set_team_modes(dg_backend_ctx *ctx, int modes);
/* The same for the element kernel with the fused RK stage alone: 1, 2 or 3
 * (1 where not instantiated), or 0 (the default) for its automatic choice:
 * the residual's where backend_cuda_set_team_modes set it, else 1. Changes
 * speed only, never results. */
dg_status backend_cuda_set_team_modes_rk(dg_backend_ctx *ctx, int modes);

/* The tuned element kernel with one thread per element, its coefficients
 * in registers where it is instantiated so, else in shared memory (1), or
 * in shared memory where it is instantiated so, else in registers (2), or
 * the team kernel (0), or the automatic choice (-1, the default: where a
 * shape has at least 128 owned elements per multiprocessor, the shared
 * form where it exists, else the registers form; in the fused RK stage on
 * triangles at p = 3 the registers form where at least half the elements
 * are affine, else the team kernel):
 * src/kernels/residual_team.cuh, residual_element_thread_kernel; in
 * registers for nb <= 10 in 2D and nb <= 4 in 3D, in shared memory
 * for nb = 10 and 16 in 2D and nb = 10 in 3D (elsewhere the team kernel
 * runs whatever the setting). Call before the first residual (the recorded
 * SSP-RK3 graphs keep their launches). Changes speed only, never results. */
dg_status backend_cuda_set_elem_thread(dg_backend_ctx *ctx, int on);
/* Which element kernel shape runs in the residual (rk = 0) or with the
 * fused RK stage (rk = 1): 1 the thread kernel with its coefficients in
 * registers, 2 in shared memory, 0 the team kernel (also when the shape
 * has none or no team kernel). */
int backend_cuda_elem_thread_active(const dg_backend_ctx *ctx, int shape, int rk);

/* Whether the tuned element kernel keeps the face fluxes in the shared
 * memory of its volume chunk, loaded after the volume part (1), or in
 * their own, loaded with the coefficients (0), or the automatic choice
 * (-1, the default: shared on tetrahedra):
 * src/kernels/residual_team.cuh, residual_element_team_kernel. Sharing
 * makes a block smaller, so more fit a multiprocessor. Call before the
 * first residual (the recorded SSP-RK3 graphs keep their launches).
 * Changes speed only, never results. */
dg_status backend_cuda_set_team_face_share(dg_backend_ctx *ctx, int share);

/* Elements per block of the tuned element kernels
 * (src/kernels/residual_team.cuh): 0 for the automatic choice (the
 * default: the fewest that give the most elements at once on a
 * multiprocessor, then the fewest that keep the number of waves of blocks
 * the launch needs, so that its last wave is as full as the others), else
 * at most elems (> 0; a large value gives the most a block's threads take:
 * 128 times the modes per thread over the modes). Call before the first
 * residual (the recorded SSP-RK3 graphs keep their launches). Changes
 * speed only, never results. */
dg_status backend_cuda_set_team_elems(dg_backend_ctx *ctx, int elems);

/* Elements per block of the tuned element kernel of shape in the residual
 * (0 when the shape has none or no team kernel). */
int backend_cuda_team_elems(const dg_backend_ctx *ctx, int shape);

/* Whether the tuned element kernel of shape shares its face fluxes' shared
 * memory (1) or not (0; also when the shape has none or no team kernel). */
int backend_cuda_team_face_share(const dg_backend_ctx *ctx, int shape);

/* The modes per thread the tuned element kernel of shape uses in the
 * residual (0 when the shape has none or no team kernel). By default its
 * variant with the fused RK stage takes 1 on tetrahedra at p >= 2. */
int backend_cuda_team_modes(const dg_backend_ctx *ctx, int shape);
/* Modes per thread of the fused RK stage's element kernel of shape. */
int backend_cuda_team_modes_rk(const dg_backend_ctx *ctx, int shape);

/* The trace path of the tuned single-shape face pass (1), or the face
 * kernels that form both traces at every face point (0), or the automatic
 * choice (-1, the default: on for tetrahedra at p = 3). The trace path forms each element's state
 * at its faces' points once (src/kernels/residual_team.cuh,
 * residual_trace_kernel, from the coefficients in shared memory), then the
 * fluxes from those traces (residual_face_trace_kernel): the same bits. It
 * exists on a single-shape mesh without AV and runs where the face pass
 * covers every face (one process). Changes speed only, never results. Call
 * before the first residual (the recorded SSP-RK3 graphs keep their
 * launches); setting it on where it does not run by default allocates its
 * traces, 2 nvar doubles per face point (DG_ERR_CUDA when that fails). */
dg_status backend_cuda_set_face_trace(dg_backend_ctx *ctx, int on);
/* Whether the residual's face pass runs the trace path. */
int backend_cuda_face_trace_active(const dg_backend_ctx *ctx);

/* Whether the single-shape tuned face kernel gathers each face's
 * coefficients once into shared memory (1) or each face point gathers its
 * own (0), or the automatic choice (-1, the default: gathering on
 * tetrahedra at p = 3 only): src/kernels/residual_team.cuh,
 * residual_face_gather_kernel. The trace path takes precedence where it
 * runs (backend_cuda_set_face_trace: by default on tetrahedra at p = 3 in
 * one process). The same bits either way. Call before the
 * first residual (the recorded SSP-RK3 graphs keep their launches). */
dg_status backend_cuda_set_face_gather(dg_backend_ctx *ctx, int on);

/* 1 when ctx's residual runs the gathering face kernel (set, a single shape
 * and an instantiated nb, and not the trace path), else 0. */
int backend_cuda_face_gather_active(const dg_backend_ctx *ctx);

/* The variant ctx uses now (PORTABLE for a NULL ctx). */
backend_cuda_variant backend_cuda_get_variant(const dg_backend_ctx *ctx);

/* 1 when residual of ctx runs the tuned artificial-viscosity kernels
 * (src/kernels/av_team.cuh): AV on, variant TUNED and every shape covered;
 * else 0 (also for a NULL ctx). */
int backend_cuda_av_team_active(const dg_backend_ctx *ctx);

/* Benchmarks and profiling (residual timing, launch floor, the SSP-RK3 CUDA
 * graph, device peaks) live outside the library, in tools/bench_cuda/
 * (backend_cuda_bench.h), over the private hooks of backend_cuda_private.h.
 * The variant selectors above stay here: the tests use them to check the
 * tuned kernels against the portable ones. */

#ifdef __cplusplus
}
#endif
