#pragma once
/* Profiling and benchmark helpers of the CUDA LU-SGS operations (not part
 * of the library): compiled from tools/bench_cuda/lusgs_cuda_bench.cu into
 * tools/bench_lusgs.c. The profile is a phase hook (lusgs_set_phase_hook)
 * on the ordinary lusgs_step; the sweep timing reaches the context through
 * src/kernels/lusgs_cuda_private.h. */
#include "core/dg_error.h"
#include "dg/backend.h"
#include "kernels/lusgs_cuda.h" /* lusgs/lusgs.h with C linkage in C++ */

#ifdef __cplusplus
extern "C" {
#endif

/* One lusgs_step of a marcher of the CUDA backend with a profile hook
 * attached (lusgs_set_phase_hook) that records a CUDA event at every phase
 * mark: ms[p] (host, [LUSGS_N_PHASES], written) = device milliseconds of
 * phase p (forward/backward: summed over the upward/downward passes);
 * *total_ms = first event to last. The hook is detached afterwards. The
 * events are made at the first marks and kept for later calls. */
dg_status lusgs_cuda_profile_step(lusgs_marcher *marcher, dg_vec *U, double t, int iteration,
                                  const lusgs_opts *opts, lusgs_info *info, double *ms,
                                  double *total_ms);

/* The forward and backward sweeps of every colour (2 n_colors launches)
 * run `reps` times with what the last assemble stored, launched one by one
 * (graph = 0) or as one captured CUDA Graph (graph = 1, captured before the
 * timing); *ms_per = mean device milliseconds of one forward + backward
 * pass. dU is overwritten. ctx: a context of lusgs_backend_cuda(). */
dg_status lusgs_cuda_time_sweeps(lusgs_ctx *ctx, const double *R, double *dU, int graph, int reps,
                                 double *ms_per);

#ifdef __cplusplus
}
#endif
