#pragma once
/* Private hooks of the CUDA backend (src/kernels/backend_cuda.cu) for the
 * benchmarks and profiling code outside the library (tools/bench_cuda/,
 * compiled into the benchmarks and the tests that use them). Not part of
 * the backend's interface: the solver never calls these. CUDA translation
 * units only (the hooks take CUDA runtime types).
 *
 * They expose what a timing or graph-capture tool needs and cannot get from
 * the table: the residual bracketed by events, the stream the tuned
 * residual and RK-update kernels launch on, and the tuned face kernel's
 * node in a captured graph (its time argument changes per RK stage). */
#include <cuda_runtime.h>

#include "core/dg_error.h"
#include "dg/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The residual R = residual(U, t) of ctx (a context of backend_cuda_table())
 * exactly as the table's residual runs it, with events recorded on the
 * default stream (events NULL: none): events[0] before the first pass,
 * events[1] before the element passes (the ε, gradient and face passes count
 * as the face time), events[2] after the last. U, R: device state vectors
 * of ctx. */
dg_status backend_cuda_residual_events(dg_backend_ctx *ctx, const double *U, double t, double *R,
                                       cudaEvent_t *events);

/* The table's rk_update of ctx: Uout = a U0 + b (U + dt M⁻¹R) (raw device
 * vectors of ctx; see dg_backend_rk_update). */
dg_status backend_cuda_rk_update_raw(dg_backend_ctx *ctx, double a, const double *U0, double b,
                                     const double *U, const double *dt, const double *R,
                                     double *Uout);

/* The stream the tuned residual and RK-update kernels of ctx launch on (0,
 * the legacy default stream, unless a capture sets another; the portable and
 * artificial-viscosity kernels always use the default stream). */
void backend_cuda_set_stream(dg_backend_ctx *ctx, cudaStream_t stream);

/* While node is not NULL, every launch of the tuned face kernel of ctx
 * (variant TUNED, no viscosity) must be captured on the stream of
 * backend_cuda_set_stream and stores its graph node in *node; NULL stops
 * recording. */
void backend_cuda_capture_face_node(dg_backend_ctx *ctx, cudaGraphNode_t *node);

/* Sets the parameters of a captured tuned face-kernel node (recorded by
 * backend_cuda_capture_face_node) in the executable graph exec to those of
 * the face pass of residual(U, t) of ctx: only U and t may differ from the
 * capture. */
dg_status backend_cuda_face_node_update(const dg_backend_ctx *ctx, cudaGraphExec_t exec,
                                        cudaGraphNode_t node, const double *U, double t);

/* The ghosts' ε coefficients of d_eps_c ([n_elems * DG_AV_NLIN] on the
 * device, e.g. the LU-SGS assembly's) from their owners, through ctx's
 * halo (blocking; nothing in one process or without artificial viscosity). */
dg_status backend_cuda_halo_eps(dg_backend_ctx *ctx, double *d_eps_c);

#ifdef __cplusplus
}
#endif
