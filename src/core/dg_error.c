#include "core/dg_error.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DG_ERROR_MSG_LEN 1024
#define DG_ERROR_TRACE_MAX 16

typedef struct {
  dg_status code;
  char message[DG_ERROR_MSG_LEN];
  int n_frames;
  char frames[DG_ERROR_TRACE_MAX][160];
} dg_error_record;

static _Thread_local dg_error_record g_error;

static const char *base_name(const char *path) {
  const char *s = strstr(path, "src/");
  if (!s) s = strstr(path, "tests/");
  return s ? s : path;
}

dg_status dg_error_set(dg_status code, const char *file, int line, const char *func,
                       const char *fmt, ...) {
  g_error.code = code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_error.message, sizeof g_error.message, fmt, ap);
  va_end(ap);
  g_error.n_frames = 0;
  dg_error_trace(file, line, func);
  return code;
}

void dg_error_trace(const char *file, int line, const char *func) {
  if (g_error.n_frames >= DG_ERROR_TRACE_MAX) return;
  snprintf(g_error.frames[g_error.n_frames++], sizeof g_error.frames[0], "%s:%d in %s()",
           base_name(file), line, func);
}

const char *dg_status_name(dg_status code) {
  switch (code) {
  case DG_SUCCESS: return "DG_SUCCESS";
  case DG_ERR_ARG: return "DG_ERR_ARG";
  case DG_ERR_IO: return "DG_ERR_IO";
  case DG_ERR_FORMAT: return "DG_ERR_FORMAT";
  case DG_ERR_MESH: return "DG_ERR_MESH";
  case DG_ERR_CASE: return "DG_ERR_CASE";
  case DG_ERR_MEMORY: return "DG_ERR_MEMORY";
  case DG_ERR_GMSH: return "DG_ERR_GMSH";
  case DG_ERR_CUDA: return "DG_ERR_CUDA";
  case DG_ERR_CUBLAS: return "DG_ERR_CUBLAS";
  case DG_ERR_UNSUPPORTED: return "DG_ERR_UNSUPPORTED";
  case DG_ERR_DIVERGED: return "DG_ERR_DIVERGED";
  case DG_ERR_INTERNAL: return "DG_ERR_INTERNAL";
  }
  return "DG_ERR_UNKNOWN";
}

const char *dg_error_message(void) { return g_error.message; }

void dg_error_print(FILE *stream, int verbose) {
  fprintf(stream, "error: %s\n", g_error.message[0] ? g_error.message : "(no message)");
  if (verbose) {
    fprintf(stream, "  [%s]\n", dg_status_name(g_error.code));
    for (int i = 0; i < g_error.n_frames; ++i) fprintf(stream, "  at %s\n", g_error.frames[i]);
  }
}

void dg_error_clear(void) { memset(&g_error, 0, sizeof g_error); }

dg_status dg_calloc_impl(void **ptr, size_t count, size_t size, const char *what, const char *file,
                         int line, const char *func) {
  *ptr = NULL;
  if (count == 0) count = 1;
  if (size != 0 && count > SIZE_MAX / size)
    return dg_error_set(DG_ERR_MEMORY, file, line, func,
                        "allocation of %s overflows (%zu x %zu bytes)", what, count, size);
  *ptr = calloc(count, size);
  if (!*ptr)
    return dg_error_set(DG_ERR_MEMORY, file, line, func, "out of memory allocating %s (%.3g MiB)",
                        what, (double)count * (double)size / 1048576.0);
  return DG_SUCCESS;
}
