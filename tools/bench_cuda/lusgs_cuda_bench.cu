/* Profiling and benchmark helpers of the CUDA LU-SGS operations
 * (lusgs_cuda_bench.h), outside the library. */
#include "bench_cuda/lusgs_cuda_bench.h"

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cuda_check.cuh"
#include "kernels/lusgs_cuda.h"
#include "kernels/lusgs_cuda_private.h"
#include "lusgs/lusgs_ops.h"

/* ------------------------------------------------------------ per-phase profile */

/* The events of lusgs_cuda_profile_step: one per phase mark, made as the
 * marks need them and kept for later calls (so a second profiled step makes
 * none inside its timed region). */
typedef struct {
  cudaEvent_t *events; /* [n_events] */
  int *phase;          /* [n_events] the phase of each recorded mark */
  int n_events, n_marks;
} profile_events;

static profile_events profile;

/* The profile hook: records an event on the default stream for every mark
 * (the events and phases grow as needed). */
static dg_status profile_mark(void *user, lusgs_phase phase) {
  profile_events *p = (profile_events *)user;
  if (p->n_marks == p->n_events) {
    const int n = p->n_events ? 2 * p->n_events : 32;
    cudaEvent_t *ev = (cudaEvent_t *)realloc(p->events, (size_t)n * sizeof *ev);
    DG_CHECK(ev != NULL, DG_ERR_MEMORY, "lusgs cuda profile: out of host memory for %d events", n);
    p->events = ev;
    int *ph = (int *)realloc(p->phase, (size_t)n * sizeof *ph);
    DG_CHECK(ph != NULL, DG_ERR_MEMORY, "lusgs cuda profile: out of host memory for %d marks", n);
    p->phase = ph;
    while (p->n_events < n) {
      DG_CALL_CUDA(cudaEventCreate(&p->events[p->n_events]));
      ++p->n_events;
    }
  }
  DG_CALL_CUDA(cudaEventRecord(p->events[p->n_marks], 0));
  p->phase[p->n_marks++] = (int)phase;
  return DG_SUCCESS;
}

extern "C" dg_status lusgs_cuda_profile_step(lusgs_marcher *marcher, dg_vec *U, double t,
                                             int iteration, const lusgs_opts *opts,
                                             lusgs_info *info, double *ms, double *total_ms) {
  DG_CHECK(marcher && marcher->ops == lusgs_backend_cuda() && U && opts && ms && total_ms,
           DG_ERR_ARG, "lusgs cuda: profile_step needs a marcher of the CUDA backend and outputs");
  profile_events *p = &profile;
  const lusgs_phase_hook hook = {profile_mark, p};
  p->n_marks = 0;
  lusgs_set_phase_hook(marcher, &hook);
  const dg_status status = lusgs_step(marcher, U, t, iteration, opts, info);
  lusgs_set_phase_hook(marcher, NULL);
  DG_CALL(status);
  DG_CHECK(p->n_marks >= 2 && p->phase[p->n_marks - 1] == LUSGS_N_PHASES, DG_ERR_INTERNAL,
           "lusgs cuda: the profiled iteration marked %d phases and no end", p->n_marks);
  DG_CALL_CUDA(cudaEventSynchronize(p->events[p->n_marks - 1]));
  for (int k = 0; k < LUSGS_N_PHASES; ++k) ms[k] = 0.0;
  /* a phase lasts from its mark to the next one */
  for (int k = 0; k + 1 < p->n_marks; ++k) {
    float value = 0.0f;
    DG_CALL_CUDA(cudaEventElapsedTime(&value, p->events[k], p->events[k + 1]));
    ms[p->phase[k]] += value;
  }
  float all = 0.0f;
  DG_CALL_CUDA(cudaEventElapsedTime(&all, p->events[0], p->events[p->n_marks - 1]));
  *total_ms = all;
  return DG_SUCCESS;
}

/* ------------------------------------------------------------ sweep timing */

/* The forward and backward sweeps of every colour on `stream`. */
static dg_status sweep_pass(lusgs_ctx *ctx, const double *R, double *dU, cudaStream_t stream) {
  const int n_colors = lusgs_cuda_n_colors(ctx);
  for (int c = 0; c < n_colors; ++c)
    DG_CALL(lusgs_cuda_sweep_colour(ctx, c, LUSGS_LOWER, R, dU, stream));
  for (int c = n_colors - 1; c >= 0; --c)
    DG_CALL(lusgs_cuda_sweep_colour(ctx, c, LUSGS_UPPER, NULL, dU, stream));
  return DG_SUCCESS;
}

/* Captures sweep_pass on stream into *exec. */
static dg_status capture_sweeps(lusgs_ctx *ctx, const double *R, double *dU, cudaStream_t stream,
                                cudaGraphExec_t *exec) {
  DG_CALL_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const dg_status status = sweep_pass(ctx, R, dU, stream);
  cudaGraph_t graph = NULL;
  const cudaError_t end = cudaStreamEndCapture(stream, &graph); /* always ends the capture */
  if (status != DG_SUCCESS) {
    if (graph) cudaGraphDestroy(graph);
    dg_error_trace(__FILE__, __LINE__, __func__);
    return status;
  }
  DG_CALL_CUDA(end);
  const cudaError_t inst = cudaGraphInstantiate(exec, graph, 0);
  cudaGraphDestroy(graph);
  DG_CALL_CUDA(inst);
  return DG_SUCCESS;
}

/* The timing of lusgs_cuda_time_sweeps with events[2], stream and (graph)
 * exec made. */
static dg_status time_passes(lusgs_ctx *ctx, const double *R, double *dU, cudaGraphExec_t exec,
                             cudaStream_t stream, int reps, cudaEvent_t *events, double *ms_per) {
  /* the sweeps on the non-blocking stream follow earlier default-stream work */
  DG_CALL_CUDA(cudaDeviceSynchronize());
  DG_CALL_CUDA(cudaEventRecord(events[0], stream));
  for (int r = 0; r < reps; ++r) {
    if (exec)
      DG_CALL_CUDA(cudaGraphLaunch(exec, stream));
    else
      DG_CALL(sweep_pass(ctx, R, dU, stream));
  }
  DG_CALL_CUDA(cudaEventRecord(events[1], stream));
  DG_CALL_CUDA(cudaEventSynchronize(events[1]));
  float value = 0.0f;
  DG_CALL_CUDA(cudaEventElapsedTime(&value, events[0], events[1]));
  *ms_per = value / reps;
  return DG_SUCCESS;
}

extern "C" dg_status lusgs_cuda_time_sweeps(lusgs_ctx *ctx, const double *R, double *dU, int graph,
                                            int reps, double *ms_per) {
  DG_CHECK(ctx && R && dU && ms_per && reps >= 1, DG_ERR_ARG,
           "lusgs cuda: time_sweeps needs a context, vectors, reps >= 1 and an output");
  cudaEvent_t events[2] = {NULL, NULL};
  cudaStream_t stream = 0;
  cudaGraphExec_t exec = NULL;
  dg_status status = DG_SUCCESS;
  for (int k = 0; k < 2 && status == DG_SUCCESS; ++k) {
    const cudaError_t error = cudaEventCreate(&events[k]);
    if (error != cudaSuccess)
      status = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "cudaEventCreate: %s",
                            cudaGetErrorString(error));
  }
  if (status == DG_SUCCESS && graph) {
    const cudaError_t error = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (error != cudaSuccess)
      status = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "cudaStreamCreate: %s",
                            cudaGetErrorString(error));
    if (status == DG_SUCCESS) status = capture_sweeps(ctx, R, dU, stream, &exec);
  }
  if (status == DG_SUCCESS) status = time_passes(ctx, R, dU, exec, stream, reps, events, ms_per);
  if (exec) cudaGraphExecDestroy(exec);
  if (stream) cudaStreamDestroy(stream);
  for (int k = 0; k < 2; ++k)
    if (events[k]) cudaEventDestroy(events[k]);
  return status;
}
