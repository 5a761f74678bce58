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

/* Kernels of the residual and the RK update. PORTABLE: one thread per face
 * and per element over the DG_HD functions of src/dg/residual_ops.h (the
 * reference). TUNED (default when it covers every shape of the
 * discretisation): src/kernels/residual_team.cuh. With artificial viscosity,
 * PORTABLE runs the one-thread-per-face / per-element kernels over
 * src/dg/av_ops.h (the reference) and TUNED the per-variable kernels of
 * src/kernels/av_team.cuh with the inviscid team kernels (when they cover
 * every shape: backend_cuda_av_team_active; else the portable AV kernels). */
typedef enum { BACKEND_CUDA_PORTABLE = 0, BACKEND_CUDA_TUNED = 1 } backend_cuda_variant;

/* Selects the variant used by later residual and rk_update calls of ctx
 * (a context of backend_cuda_table()). Fails with DG_ERR_UNSUPPORTED when
 * TUNED does not cover the discretisation (ctx keeps its variant). */
dg_status backend_cuda_set_variant(dg_backend_ctx *ctx, backend_cuda_variant variant);

/* Threads per block of the portable artificial-viscosity kernels of ctx
 * (and of the ε passes and time step of both variants): 0 for the
 * automatic choice (the default: smaller blocks on small meshes, so the
 * heavy per-thread work spreads over every multiprocessor), else a power of
 * two in [8, 1024]. Changes speed only, never results. */
dg_status backend_cuda_set_av_block(dg_backend_ctx *ctx, int threads);

/* The variant ctx uses now (PORTABLE for a NULL ctx). */
backend_cuda_variant backend_cuda_get_variant(const dg_backend_ctx *ctx);

/* 1 when residual of ctx runs the tuned artificial-viscosity kernels
 * (src/kernels/av_team.cuh): AV on, variant TUNED and every shape covered;
 * else 0 (also for a NULL ctx). */
int backend_cuda_av_team_active(const dg_backend_ctx *ctx);

/* Benchmark helper: runs n_warmup residual evaluations R = residual(U, t)
 * and then back-to-back ones for at least 100 ms of device time (so clocks
 * leave their idle state),
 * then n_timed more, each timed with CUDA events around its face kernel and
 * its element kernel (with artificial viscosity, face_ms also holds the ε
 * and gradient passes that precede the face kernel). Outputs (host,
 * caller-allocated, [n_timed]): face_ms[i], element_ms[i] in milliseconds;
 * total per call = the sum.
 * ctx must come from backend_cuda_table()->create; U, R are its vectors. */
dg_status backend_cuda_time_residual(dg_backend_ctx *ctx, const double *U, double t, double *R,
                                     int n_warmup, int n_timed, double *face_ms,
                                     double *element_ms);

/* Name and peaks of the current device, for benchmark reports: memory
 * bandwidth in GB/s (memory clock x bus width x 2, as the driver reports
 * them) and FP64 vector throughput in GFLOP/s (SMs x clock x FP64 FMA lanes
 * per SM x 2; 64 lanes on compute capability 6.0, 7.0, 8.0 and 9.0, else 2).
 * name gets at most name_size bytes including the terminator. */
dg_status backend_cuda_device_info(char *name, int name_size, double *peak_gbs,
                                   double *peak_fp64_gflops);

/* Launch-floor micro-benchmark (tools/bench_residual --floor): for three
 * kernels that do nothing over 2 blocks per multiprocessor -- [0] no
 * parameters, [1] the ~3 KB view by value (as the portable and AV kernels
 * take it), [2] a pointer to a device copy of the view -- us[k][0] = median
 * µs between events around one launch on an idle device (n samples),
 * us[k][1] = device µs per launch of n back-to-back launches, us[k][2] = host
 * µs per launch call in that loop. ctx from backend_cuda_table()->create. */
dg_status backend_cuda_launch_floor(dg_backend_ctx *ctx, int n, double us[3][3]);

/* Benchmark helper: n back-to-back residual evaluations R = residual(U, t)
 * between two events (no synchronisation between them, so the host's launch
 * calls overlap the device's work); *us_per_residual = elapsed µs / n. */
dg_status backend_cuda_time_residual_stream(dg_backend_ctx *ctx, const double *U, double t,
                                            double *R, int n, double *us_per_residual);

/* The three stages of one SSP-RK3 step after the time step, with the same
 * operations, in the same order and with the same bits as
 * explicit_rk3_step (src/dg/explicit.c) without norms or limiter:
 *   R = residual(U, t[0]);  U1 = U + dt M⁻¹R;
 *   R = residual(U1, t[1]); U1 = 3/4 U + 1/4 (U1 + dt M⁻¹R);
 *   R = residual(U1, t[2]); U = 1/3 U + 2/3 (U1 + dt M⁻¹R).
 * With the tuned variant and no artificial viscosity they run as one CUDA
 * graph (captured on a private stream at the first call for these vectors,
 * then launched on the default stream, stage times updated in place), one
 * launch instead of 9. Otherwise the same operations are launched one by
 * one. U, U1, R: distinct state vectors of ctx; dt: an element vector. */
dg_status backend_cuda_rk3_stages(dg_backend_ctx *ctx, double *U, double *U1, double *R,
                                  const double *dt, const double stage_t[3]);

#ifdef __cplusplus
}
#endif
