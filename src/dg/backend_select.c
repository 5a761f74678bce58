/* Which backends this build has (src/dg/backend.h). The CPU table lives in
 * backend_cpu.c; the CUDA table in src/kernels/backend_cuda.cu, linked only
 * when the build has CUDA (COLORDG_HAVE_CUDA). */
#include "dg/backend.h"

#ifdef COLORDG_HAVE_CUDA
#include "kernels/backend_cuda.h"

const dg_backend *backend_cuda(void) { return backend_cuda_table(); }

int backend_cuda_available(void) { return backend_cuda_device_count() > 0; }

#else

const dg_backend *backend_cuda(void) { return NULL; }

int backend_cuda_available(void) { return 0; }

#endif
