#pragma once
/* Private hooks of the CUDA LU-SGS operations (src/kernels/lusgs_cuda.cu)
 * for the profiling and benchmark code of tools/bench_cuda/ and the test
 * support of tests/support/ (outside the library). Not part of the
 * interface: the solver never calls these. CUDA translation units only. */
#include <cuda_runtime.h>
#include <stddef.h>

#include "core/dg_error.h"
#include "kernels/lusgs_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Colours of ctx's sweeps. */
int lusgs_cuda_n_colors(const lusgs_ctx *ctx);

/* One colour's forward sweep (which = LUSGS_LOWER), relaxation (LUSGS_ALL)
 * or backward sweep (LUSGS_UPPER; R unused), as the table's sweep ops
 * launch it, but on `stream` (for a graph capture); R, dU: device state
 * vectors of the backend. */
dg_status lusgs_cuda_sweep_colour(lusgs_ctx *ctx, int color, int which, const double *R, double *dU,
                                  cudaStream_t stream);

/* The device array of face flux Jacobians ctx holds (n_faces·nqf·2·nvar²
 * doubles in lusgs_ops.h's layout; *count set when count is not NULL). */
double *lusgs_cuda_face_jacobians(lusgs_ctx *ctx, size_t *count);

/* keep != 0: later assemble calls of ctx keep the stored face Jacobians
 * (assemble the blocks from them) instead of computing them from U; 0: the
 * normal assemble. */
void lusgs_cuda_keep_face_jacobians(lusgs_ctx *ctx, int keep);

#ifdef __cplusplus
}
#endif
