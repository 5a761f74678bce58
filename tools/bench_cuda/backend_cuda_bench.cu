/* Benchmark and profiling helpers of the CUDA backend (backend_cuda_bench.h),
 * outside the library: residual timing with events, the launch floor, the
 * device's peaks and the SSP-RK3 stages as one CUDA graph. They reach the
 * backend's context through src/kernels/backend_cuda_private.h. On the
 * 9k-triangle mesh the RK3 graph saves 8-10 us of a 105-172 us step
 * (docs/PERFORMANCE.md): the step is bound by device time and the time
 * step's copy to the host, not by launches. */
#include "bench_cuda/backend_cuda_bench.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/backend_cuda.h"
#include "kernels/backend_cuda_private.h"
#include "kernels/cuda_check.cuh"

/* Device time of back-to-back residuals run before the timed ones. */
#define TIME_RESIDUAL_WARMUP_MS 100.0f

/* Threads per block of the launch-floor kernels (BACKEND_CUDA_TEAM, the
 * tuned kernels' block, src/kernels/residual_team.cuh). */
#define FLOOR_THREADS 128

/* ------------------------------------------------------------ residual timing */

extern "C" dg_status backend_cuda_time_residual(dg_backend_ctx *ctx, const double *U, double t,
                                                double *R, int n_warmup, int n_timed,
                                                double *face_ms, double *element_ms) {
  DG_CHECK(ctx && U && R && face_ms && element_ms && n_warmup >= 0 && n_timed >= 1, DG_ERR_ARG,
           "CUDA residual timing: NULL argument or n_timed < 1 (got %d)", n_timed);
  for (int i = 0; i < n_warmup; ++i) DG_CALL(backend_cuda_residual_events(ctx, U, t, R, NULL));
  cudaEvent_t events[3] = {NULL, NULL, NULL};
  dg_status status = DG_SUCCESS;
  for (int k = 0; k < 3 && status == DG_SUCCESS; ++k) {
    const cudaError_t error = cudaEventCreate(&events[k]);
    if (error != cudaSuccess)
      status = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "cudaEventCreate: %s",
                            cudaGetErrorString(error));
  }
  /* keep the device busy for TIME_RESIDUAL_WARMUP_MS of back-to-back
   * residuals (device time, measured in batches) so that its clocks have
   * left the idle state the mesh setup on the host leaves them in */
  float busy_ms = 0.0f;
  for (int batch = 0; batch < 1000 && status == DG_SUCCESS && busy_ms < TIME_RESIDUAL_WARMUP_MS;
       ++batch) {
    float ms = 0.0f;
    status = backend_cuda_residual_events(ctx, U, t, R, events);
    for (int i = 0; i < 15 && status == DG_SUCCESS; ++i)
      status = backend_cuda_residual_events(ctx, U, t, R, NULL);
    cudaError_t error = cudaSuccess;
    if (status == DG_SUCCESS) error = cudaEventRecord(events[1], 0);
    if (status == DG_SUCCESS && error == cudaSuccess) error = cudaEventSynchronize(events[1]);
    if (status == DG_SUCCESS && error == cudaSuccess)
      error = cudaEventElapsedTime(&ms, events[0], events[1]);
    if (status == DG_SUCCESS && error != cudaSuccess)
      status = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "warm-up timing: %s",
                            cudaGetErrorString(error));
    busy_ms += ms;
  }
  for (int i = 0; i < n_timed && status == DG_SUCCESS; ++i) {
    status = backend_cuda_residual_events(ctx, U, t, R, events);
    float ms_face = 0.0f, ms_element = 0.0f;
    cudaError_t error = cudaSuccess;
    if (status == DG_SUCCESS) error = cudaEventSynchronize(events[2]);
    if (status == DG_SUCCESS && error == cudaSuccess)
      error = cudaEventElapsedTime(&ms_face, events[0], events[1]);
    if (status == DG_SUCCESS && error == cudaSuccess)
      error = cudaEventElapsedTime(&ms_element, events[1], events[2]);
    if (status == DG_SUCCESS && error != cudaSuccess)
      status = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "event timing: %s",
                            cudaGetErrorString(error));
    face_ms[i] = ms_face;
    element_ms[i] = ms_element;
  }
  for (int k = 0; k < 3; ++k)
    if (events[k]) cudaEventDestroy(events[k]);
  return status;
}

extern "C" dg_status backend_cuda_device_info(char *name, int name_size, double *peak_gbs,
                                              double *peak_fp64_gflops) {
  DG_CHECK(name && name_size > 0 && peak_gbs && peak_fp64_gflops, DG_ERR_ARG,
           "CUDA device info: NULL argument");
  int count = 0;
  const cudaError_t probe = cudaGetDeviceCount(&count);
  if (probe != cudaSuccess) cudaGetLastError(); /* leave no sticky error */
  DG_CHECK(probe == cudaSuccess && count > 0, DG_ERR_CUDA, "CUDA device info: no CUDA device (%s)",
           cudaGetErrorString(probe));
  int device = 0, memory_khz = 0, bus_bits = 0, sm_khz = 0, n_sm = 0, major = 0, minor = 0;
  cudaDeviceProp prop;
  DG_CALL_CUDA(cudaGetDevice(&device));
  DG_CALL_CUDA(cudaGetDeviceProperties(&prop, device));
  DG_CALL_CUDA(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device));
  DG_CALL_CUDA(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
  DG_CALL_CUDA(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device));
  DG_CALL_CUDA(cudaDeviceGetAttribute(&n_sm, cudaDevAttrMultiProcessorCount, device));
  DG_CALL_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  DG_CALL_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  snprintf(name, (size_t)name_size, "%s (sm_%d%d, %d SMs)", prop.name, major, minor, n_sm);
  /* double data rate: 2 transfers per clock */
  *peak_gbs = 2.0 * memory_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  const int fp64_lanes =
      minor == 0 && (major == 6 || major == 7 || major == 8 || major == 9) ? 64 : 2;
  *peak_fp64_gflops = (double)n_sm * sm_khz * 1e3 * fp64_lanes * 2.0 / 1e9;
  return DG_SUCCESS;
}

/* ------------------------------------------------------------ launch floor */

/* Kernels of backend_cuda_launch_floor: nothing, the view by value (as the
 * portable kernels take it), the view through a device pointer. The sink
 * store never happens (n_elems > 0); it keeps the parameter live. */
static __global__ void floor_empty_kernel(void) {}

static __global__ void floor_view_kernel(const __grid_constant__ dg_disc_view view, double *sink) {
  if (threadIdx.x == 0 && blockIdx.x == 0 && view.n_elems < 0) *sink = view.gamma;
}

static __global__ void floor_pointer_kernel(const dg_disc_view *view, double *sink) {
  if (threadIdx.x == 0 && blockIdx.x == 0 && view->n_elems < 0) *sink = view->gamma;
}

static double wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e6 * (double)ts.tv_sec + 1e-3 * (double)ts.tv_nsec;
}

static int compare_float(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* What the floor kernels take: the backend's view (device pointers), a
 * device copy of it, a sink and the multiprocessor count. */
typedef struct {
  dg_disc_view view;
  dg_disc_view *d_view;
  double *d_sink;
  int n_sm;
} floor_args;

/* Launches floor kernel `kind` (0 empty, 1 view by value, 2 view pointer). */
static dg_status floor_launch(const floor_args *f, int kind, unsigned blocks) {
  if (kind == 0)
    floor_empty_kernel<<<blocks, FLOOR_THREADS>>>();
  else if (kind == 1)
    floor_view_kernel<<<blocks, FLOOR_THREADS>>>(f->view, f->d_sink);
  else
    floor_pointer_kernel<<<blocks, FLOOR_THREADS>>>(f->d_view, f->d_sink);
  DG_CHECK_LAUNCH("floor kernel");
  return DG_SUCCESS;
}

/* The three measurements of backend_cuda_launch_floor for one kernel kind;
 * events[2] created, samples[n] scratch. */
static dg_status floor_measure(const floor_args *f, int kind, int n, cudaEvent_t *events,
                               float *samples, double out[3]) {
  const unsigned blocks = (unsigned)(2 * f->n_sm);
  for (int i = 0; i < 10; ++i) DG_CALL(floor_launch(f, kind, blocks));
  for (int i = 0; i < n; ++i) { /* idle device, one launch between events */
    DG_CALL_CUDA(cudaDeviceSynchronize());
    DG_CALL_CUDA(cudaEventRecord(events[0], 0));
    DG_CALL(floor_launch(f, kind, blocks));
    DG_CALL_CUDA(cudaEventRecord(events[1], 0));
    DG_CALL_CUDA(cudaEventSynchronize(events[1]));
    DG_CALL_CUDA(cudaEventElapsedTime(&samples[i], events[0], events[1]));
  }
  qsort(samples, (size_t)n, sizeof *samples, compare_float);
  out[0] = 1e3 * samples[n / 2];
  DG_CALL_CUDA(cudaDeviceSynchronize());
  const double t0 = wall_us();
  DG_CALL_CUDA(cudaEventRecord(events[0], 0));
  for (int i = 0; i < n; ++i) DG_CALL(floor_launch(f, kind, blocks));
  DG_CALL_CUDA(cudaEventRecord(events[1], 0));
  const double t1 = wall_us();
  DG_CALL_CUDA(cudaEventSynchronize(events[1]));
  float ms = 0.0f;
  DG_CALL_CUDA(cudaEventElapsedTime(&ms, events[0], events[1]));
  out[1] = 1e3 * ms / n;
  out[2] = (t1 - t0) / n;
  return DG_SUCCESS;
}

extern "C" dg_status backend_cuda_launch_floor(dg_backend_ctx *ctx, int n, double us[3][3]) {
  DG_CHECK(ctx && us && n >= 1, DG_ERR_ARG, "CUDA launch floor: NULL argument or n < 1 (%d)", n);
  floor_args f;
  memset(&f, 0, sizeof f);
  f.view = *backend_cuda_view(ctx);
  int device = 0;
  DG_CALL_CUDA(cudaGetDevice(&device));
  DG_CALL_CUDA(cudaDeviceGetAttribute(&f.n_sm, cudaDevAttrMultiProcessorCount, device));
  DG_CALL_CUDA(cudaMalloc((void **)&f.d_view, sizeof f.view));
  const cudaError_t copied = cudaMemcpy(f.d_view, &f.view, sizeof f.view, cudaMemcpyHostToDevice);
  const cudaError_t sink = cudaMalloc((void **)&f.d_sink, sizeof(double));
  if (copied != cudaSuccess || sink != cudaSuccess) {
    cudaFree(f.d_view);
    if (f.d_sink) cudaFree(f.d_sink);
    DG_CALL_CUDA(copied != cudaSuccess ? copied : sink);
  }
  float *samples = NULL;
  dg_status alloc = DG_CALLOC(samples, n);
  if (alloc != DG_SUCCESS) {
    cudaFree(f.d_view);
    cudaFree(f.d_sink);
    DG_CALL(alloc);
  }
  cudaEvent_t events[2] = {NULL, NULL};
  dg_status status = DG_SUCCESS;
  for (int k = 0; k < 2 && status == DG_SUCCESS; ++k) {
    const cudaError_t error = cudaEventCreate(&events[k]);
    if (error != cudaSuccess)
      status = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "cudaEventCreate: %s",
                            cudaGetErrorString(error));
  }
  for (int kind = 0; kind < 3 && status == DG_SUCCESS; ++kind)
    status = floor_measure(&f, kind, n, events, samples, us[kind]);
  for (int k = 0; k < 2; ++k)
    if (events[k]) cudaEventDestroy(events[k]);
  free(samples);
  cudaFree(f.d_view);
  cudaFree(f.d_sink);
  return status;
}

extern "C" dg_status backend_cuda_time_residual_stream(dg_backend_ctx *ctx, const double *U,
                                                       double t, double *R, int n,
                                                       double *us_per_residual) {
  DG_CHECK(ctx && U && R && us_per_residual && n >= 1, DG_ERR_ARG,
           "CUDA residual stream timing: NULL argument or n < 1 (%d)", n);
  cudaEvent_t events[2] = {NULL, NULL};
  dg_status status = DG_SUCCESS;
  for (int k = 0; k < 2 && status == DG_SUCCESS; ++k) {
    const cudaError_t error = cudaEventCreate(&events[k]);
    if (error != cudaSuccess)
      status = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "cudaEventCreate: %s",
                            cudaGetErrorString(error));
  }
  cudaError_t error = cudaSuccess;
  if (status == DG_SUCCESS) error = cudaEventRecord(events[0], 0);
  for (int i = 0; i < n && status == DG_SUCCESS && error == cudaSuccess; ++i)
    status = backend_cuda_residual_events(ctx, U, t, R, NULL);
  float ms = 0.0f;
  if (status == DG_SUCCESS && error == cudaSuccess) error = cudaEventRecord(events[1], 0);
  if (status == DG_SUCCESS && error == cudaSuccess) error = cudaEventSynchronize(events[1]);
  if (status == DG_SUCCESS && error == cudaSuccess)
    error = cudaEventElapsedTime(&ms, events[0], events[1]);
  if (status == DG_SUCCESS && error != cudaSuccess)
    status = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "stream timing: %s",
                          cudaGetErrorString(error));
  for (int k = 0; k < 2; ++k)
    if (events[k]) cudaEventDestroy(events[k]);
  *us_per_residual = 1e3 * ms / n;
  return status;
}

/* ------------------------------------------------------------ SSP-RK3 graph */

/* The three SSP-RK3 stages captured as one CUDA graph for fixed vectors (U,
 * U1, R, dt) of one context; the stage times are kernel parameters of the
 * three face-kernel nodes, updated in place. */
struct cuda_rk3_graph {
  dg_backend_ctx *ctx;           /* the context it was captured on */
  cudaStream_t stream;           /* non-blocking stream the capture runs on */
  cudaGraph_t graph;             /* kept: face_node refers to it */
  cudaGraphExec_t exec;          /* NULL until captured */
  const double *U, *U1, *R, *dt; /* vectors the graph was captured for */
  cudaGraphNode_t face_node[3];  /* face kernel of each stage (NULL without face points) */
  double t[3];                   /* stage times the exec holds now */
};

/* The operations of one SSP-RK3 step after the time step, in the order of
 * explicit_rk3_step (src/dg/explicit.c) without norms or limiter; on the
 * context's stream. With g: recording the face node of each stage. */
static dg_status rk3_stage_sequence(dg_backend_ctx *ctx, cuda_rk3_graph *g, double *U, double *U1,
                                    double *R, const double *dt, const double t[3]) {
  if (g) backend_cuda_capture_face_node(ctx, &g->face_node[0]);
  DG_CALL(backend_cuda_residual_events(ctx, U, t[0], R, NULL));
  DG_CALL(backend_cuda_rk_update_raw(ctx, 0.0, U, 1.0, U, dt, R, U1));
  if (g) backend_cuda_capture_face_node(ctx, &g->face_node[1]);
  DG_CALL(backend_cuda_residual_events(ctx, U1, t[1], R, NULL));
  DG_CALL(backend_cuda_rk_update_raw(ctx, 0.75, U, 0.25, U1, dt, R, U1));
  if (g) backend_cuda_capture_face_node(ctx, &g->face_node[2]);
  DG_CALL(backend_cuda_residual_events(ctx, U1, t[2], R, NULL));
  DG_CALL(backend_cuda_rk_update_raw(ctx, 1.0 / 3.0, U, 2.0 / 3.0, U1, dt, R, U));
  return DG_SUCCESS;
}

/* Drops what g holds (keeps the stream). */
static void rk3_graph_clear(cuda_rk3_graph *g) {
  if (g->exec) cudaGraphExecDestroy(g->exec);
  if (g->graph) cudaGraphDestroy(g->graph);
  g->exec = NULL;
  g->graph = NULL;
  g->U = g->U1 = g->R = g->dt = NULL;
  for (int k = 0; k < 3; ++k) g->face_node[k] = NULL;
}

/* Captures rk3_stage_sequence for (U, U1, R, dt, t) into g (any previous
 * graph is dropped). */
static dg_status rk3_graph_build(dg_backend_ctx *ctx, cuda_rk3_graph *g, double *U, double *U1,
                                 double *R, const double *dt, const double t[3]) {
  rk3_graph_clear(g);
  if (!g->stream) DG_CALL_CUDA(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
  DG_CALL_CUDA(cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeThreadLocal));
  backend_cuda_set_stream(ctx, g->stream);
  dg_status status = rk3_stage_sequence(ctx, g, U, U1, R, dt, t);
  backend_cuda_capture_face_node(ctx, NULL);
  backend_cuda_set_stream(ctx, 0);
  cudaGraph_t graph = NULL;
  const cudaError_t end = cudaStreamEndCapture(g->stream, &graph); /* always ends the capture */
  if (status != DG_SUCCESS) {
    if (graph) cudaGraphDestroy(graph);
    dg_error_trace(__FILE__, __LINE__, __func__);
    return status;
  }
  DG_CALL_CUDA(end);
  g->graph = graph;
  DG_CALL_CUDA(cudaGraphInstantiate(&g->exec, graph, 0));
  g->U = U;
  g->U1 = U1;
  g->R = R;
  g->dt = dt;
  for (int k = 0; k < 3; ++k) g->t[k] = t[k];
  return DG_SUCCESS;
}

extern "C" void cuda_rk3_graph_free(cuda_rk3_graph *graph) {
  if (!graph) return;
  rk3_graph_clear(graph);
  if (graph->stream) cudaStreamDestroy(graph->stream);
  free(graph);
}

extern "C" dg_status backend_cuda_rk3_stages(dg_backend_ctx *ctx, cuda_rk3_graph **graph, double *U,
                                             double *U1, double *R, const double *dt,
                                             const double stage_t[3]) {
  DG_CHECK(ctx && graph && U && U1 && R && dt && stage_t, DG_ERR_ARG,
           "CUDA backend rk3_stages: NULL argument");
  DG_CHECK(U != U1 && U != R && U1 != R, DG_ERR_ARG,
           "CUDA backend rk3_stages: U, U1 and R must be distinct vectors");
  DG_CHECK(!*graph || (*graph)->ctx == ctx, DG_ERR_ARG,
           "CUDA backend rk3_stages: the graph was captured on another context");
  if (backend_cuda_get_variant(ctx) != BACKEND_CUDA_TUNED ||
      backend_cuda_view(ctx)->av != DG_AV_OFF)
    return rk3_stage_sequence(ctx, NULL, U, U1, R, dt, stage_t); /* plain launches */
  if (!*graph) {
    cuda_rk3_graph *made = NULL;
    DG_CALL(DG_CALLOC(made, 1));
    made->ctx = ctx;
    *graph = made;
  }
  cuda_rk3_graph *g = *graph;
  if (!g->exec || g->U != U || g->U1 != U1 || g->R != R || g->dt != dt)
    DG_CALL(rk3_graph_build(ctx, g, U, U1, R, dt, stage_t));
  for (int k = 0; k < 3; ++k) {
    if (!g->face_node[k] || g->t[k] == stage_t[k]) continue;
    DG_CALL(
        backend_cuda_face_node_update(ctx, g->exec, g->face_node[k], k == 0 ? U : U1, stage_t[k]));
    g->t[k] = stage_t[k];
  }
  DG_CALL_CUDA(cudaGraphLaunch(g->exec, 0));
  return DG_SUCCESS;
}

extern "C" dg_status backend_cuda_time_timestep(dg_backend_ctx *ctx, const double *U, double cfl,
                                                double *dt, int n, double *us_tuned,
                                                double *us_portable) {
  DG_CHECK(ctx && U && dt && us_tuned && us_portable && n >= 1, DG_ERR_ARG,
           "CUDA time-step timing: NULL argument or n < 1 (%d)", n);
  const backend_cuda_variant was = backend_cuda_get_variant(ctx);
  cudaEvent_t events[2] = {NULL, NULL};
  dg_status status = DG_SUCCESS;
  for (int k = 0; k < 2 && status == DG_SUCCESS; ++k) {
    const cudaError_t error = cudaEventCreate(&events[k]);
    if (error != cudaSuccess)
      status = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "cudaEventCreate: %s",
                            cudaGetErrorString(error));
  }
  for (int v = 0; v < 2 && status == DG_SUCCESS; ++v) {
    double *us = v == 0 ? us_tuned : us_portable;
    const backend_cuda_variant variant = v == 0 ? BACKEND_CUDA_TUNED : BACKEND_CUDA_PORTABLE;
    if (backend_cuda_set_variant(ctx, variant) != DG_SUCCESS) { /* not covered: the other's */
      dg_error_clear();
      *us = -1.0;
      continue;
    }
    const dg_backend *b = backend_cuda_table();
    for (int i = 0; i < 3 && status == DG_SUCCESS; ++i) /* warm-up */
      status = b->timestep(ctx, U, cfl, dt, NULL);
    cudaError_t error = cudaSuccess;
    if (status == DG_SUCCESS) error = cudaEventRecord(events[0], 0);
    for (int i = 0; i < n && status == DG_SUCCESS && error == cudaSuccess; ++i)
      status = b->timestep(ctx, U, cfl, dt, NULL);
    float ms = 0.0f;
    if (status == DG_SUCCESS && error == cudaSuccess) error = cudaEventRecord(events[1], 0);
    if (status == DG_SUCCESS && error == cudaSuccess) error = cudaEventSynchronize(events[1]);
    if (status == DG_SUCCESS && error == cudaSuccess)
      error = cudaEventElapsedTime(&ms, events[0], events[1]);
    if (status == DG_SUCCESS && error != cudaSuccess)
      status = dg_error_set(DG_ERR_CUDA, __FILE__, __LINE__, __func__, "time-step timing: %s",
                            cudaGetErrorString(error));
    *us = 1e3 * ms / n;
  }
  if (*us_tuned < 0.0) *us_tuned = *us_portable;
  for (int k = 0; k < 2; ++k)
    if (events[k]) cudaEventDestroy(events[k]);
  const dg_status restore = backend_cuda_set_variant(ctx, was);
  return status != DG_SUCCESS ? status : restore;
}
