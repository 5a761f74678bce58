#pragma once
/* Benchmark and profiling helpers of the CUDA backend (not part of the
 * library): compiled from tools/bench_cuda/backend_cuda_bench.cu into the
 * benchmarks (tools/bench_residual.c, bench_lusgs.c, bench_face_accum.c)
 * and the GPU tests that use them (test_backend_gpu: the SSP-RK3 graph;
 * test_av_gpu --bench: residual timing). They reach the backend's context
 * through the private hooks of src/kernels/backend_cuda_private.h. */
#include "core/dg_error.h"
#include "dg/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs n_warmup residual evaluations R = residual(U, t) and then
 * back-to-back ones for at least 100 ms of device time (so clocks leave
 * their idle state), then n_timed more, each timed with CUDA events around
 * its face kernel and its element kernel (with artificial viscosity,
 * face_ms also holds the ε and gradient passes that precede the face
 * kernel). Outputs (host, caller-allocated, [n_timed]): face_ms[i],
 * element_ms[i] in milliseconds; total per call = the sum. ctx must come
 * from the CUDA backend (backend_cuda()); U, R are its device vectors. */
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
 * µs per launch call in that loop. ctx: a CUDA backend context. */
dg_status backend_cuda_launch_floor(dg_backend_ctx *ctx, int n, double us[3][3]);

/* n back-to-back residual evaluations R = residual(U, t) between two events
 * (no synchronisation between them, so the host's launch calls overlap the
 * device's work); *us_per_residual = elapsed µs / n. */
dg_status backend_cuda_time_residual_stream(dg_backend_ctx *ctx, const double *U, double t,
                                            double *R, int n, double *us_per_residual);

/* n back-to-back local time steps dt = timestep(U, cfl) (no minimum, no
 * copy to the host) between two events with each kernel variant, then the
 * variant ctx had restored: *us_tuned and *us_portable in µs per time step
 * (*us_tuned = *us_portable where the tuned variant does not cover the
 * discretisation). */
dg_status backend_cuda_time_timestep(dg_backend_ctx *ctx, const double *U, double cfl, double *dt,
                                     int n, double *us_tuned, double *us_portable);

/* The captured SSP-RK3 stages of backend_cuda_rk3_stages (one per context
 * and vector set; made at the first call, freed by cuda_rk3_graph_free
 * before the context is destroyed). */
typedef struct cuda_rk3_graph cuda_rk3_graph;

/* The three stages of one SSP-RK3 step after the time step, with the same
 * operations, in the same order and with the same bits as
 * explicit_rk3_step (src/dg/explicit.c) without norms or limiter:
 *   R = residual(U, t[0]);  U1 = U + dt M⁻¹R;
 *   R = residual(U1, t[1]); U1 = 3/4 U + 1/4 (U1 + dt M⁻¹R);
 *   R = residual(U1, t[2]); U = 1/3 U + 2/3 (U1 + dt M⁻¹R).
 * With the tuned variant and no artificial viscosity they run as one CUDA
 * graph (captured on a private stream at the first call for these vectors,
 * into *graph, which starts NULL; then launched on the default stream,
 * stage times updated in place), one launch instead of 9. Otherwise the
 * same operations are launched one by one. U, U1, R: distinct state vectors
 * of ctx; dt: an element vector. */
dg_status backend_cuda_rk3_stages(dg_backend_ctx *ctx, cuda_rk3_graph **graph, double *U,
                                  double *U1, double *R, const double *dt, const double stage_t[3]);

/* Releases a graph of backend_cuda_rk3_stages (NULL: no-op). */
void cuda_rk3_graph_free(cuda_rk3_graph *graph);

#ifdef __cplusplus
}
#endif
