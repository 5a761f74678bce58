/* Which backends this build has (backend_select.h). The CPU tables live in
 * src/dg/backend_cpu.c and src/lusgs/lusgs_cpu.c; the CUDA tables in
 * src/kernels/backend_cuda.cu and src/kernels/lusgs_cuda.cu, linked only when
 * the build has CUDA (COLORDG_HAVE_CUDA). This file is the one place that
 * pairs a dg_backend with its lusgs_backend. */
#include "backends/backend_select.h"

#include "dg/backend_cpu.h"
#include "lusgs/lusgs.h"

#ifdef COLORDG_HAVE_CUDA
#include "kernels/backend_cuda.h"
#include "kernels/lusgs_cuda.h"
#endif

/* A copy of a backend's table with its implicit operations set. The tables
 * are made on the first call, from the set-up code of one thread (before any
 * solver runs), and never change afterwards. */
static const dg_backend *backend_paired(dg_backend *copy, int *made, const dg_backend *table,
                                        const void *implicit_ops) {
  if (!*made) {
    *copy = *table;
    copy->implicit_ops = implicit_ops;
    *made = 1;
  }
  return copy;
}

const dg_backend *backend_cpu(void) {
  static dg_backend table;
  static int made;
  return backend_paired(&table, &made, backend_cpu_table(), lusgs_backend_cpu());
}

#ifdef COLORDG_HAVE_CUDA

const dg_backend *backend_cuda(void) {
  static dg_backend table;
  static int made;
  return backend_paired(&table, &made, backend_cuda_table(), lusgs_backend_cuda());
}

int backend_cuda_available(void) { return backend_cuda_device_count() > 0; }

const char *backend_halo_transport(const dg_backend *b, const dg_backend_ctx *ctx) {
  return b && b == backend_cuda() && ctx ? backend_cuda_halo_transport(ctx)
                                         : "through MPI in host memory";
}

dg_status backend_cuda_pick_device(int node_rank, int node_size, int *device, int *shared) {
  const int count = backend_cuda_device_count();
  DG_CHECK(count > 0, DG_ERR_UNSUPPORTED, "backend cuda: no CUDA device found");
  *device = node_rank % count;
  *shared = node_size > count;
  DG_CALL(backend_cuda_use_device(*device));
  return DG_SUCCESS;
}

#else

const dg_backend *backend_cuda(void) { return NULL; }

int backend_cuda_available(void) { return 0; }

const char *backend_halo_transport(const dg_backend *b, const dg_backend_ctx *ctx) {
  (void)b;
  (void)ctx;
  return "through MPI in host memory";
}

dg_status backend_cuda_pick_device(int node_rank, int node_size, int *device, int *shared) {
  (void)node_rank;
  (void)node_size;
  *device = -1;
  *shared = 0;
  DG_ERROR(DG_ERR_UNSUPPORTED, "backend cuda: this colordg was built without CUDA");
}

#endif
