#pragma once
/* Status codes and error reporting (docs/ARCHITECTURE.md §2).
 *
 * Library functions return a dg_status. DG_CHECK records where and why a check
 * failed; DG_CALL passes a failure up and appends the caller to the trace.
 * Only main() decides the exit code. The error record is thread-local. */
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  DG_SUCCESS = 0,
  DG_ERR_ARG,         /* a caller passed an invalid argument */
  DG_ERR_IO,          /* a file could not be opened, read or written */
  DG_ERR_FORMAT,      /* a file's contents are malformed, truncated or corrupted */
  DG_ERR_MESH,        /* the mesh is invalid (topology, inverted element, ...) */
  DG_ERR_CASE,        /* the case file is invalid */
  DG_ERR_MEMORY,      /* an allocation failed */
  DG_ERR_GMSH,        /* the Gmsh SDK reported an error */
  DG_ERR_CUDA,        /* the CUDA runtime reported an error */
  DG_ERR_CUBLAS,      /* cuBLAS reported an error */
  DG_ERR_UNSUPPORTED, /* a feature this build or this mesh does not support */
  DG_ERR_DIVERGED,    /* a run diverged (NaN, negative density/pressure) */
  DG_ERR_INTERNAL     /* a broken invariant: a bug in ColorDG */
} dg_status;

/* Records an error (code, location, printf-style message); returns code. */
dg_status dg_error_set(dg_status code, const char *file, int line, const char *func,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* Appends a caller frame to the current error's trace. */
void dg_error_trace(const char *file, int line, const char *func);
/* Short name of a status code ("DG_ERR_MESH"). */
const char *dg_status_name(dg_status code);
/* The last recorded message (empty string when none). */
const char *dg_error_message(void);
/* Prints "error: <message>" and, when verbose, the trace to stream. */
void dg_error_print(FILE *stream, int verbose);
/* Forgets the recorded error (tests that expect a failure call this). */
void dg_error_clear(void);

#define DG_ERROR(code, ...) return dg_error_set((code), __FILE__, __LINE__, __func__, __VA_ARGS__)

#define DG_CHECK(cond, code, ...)                                                                  \
  do {                                                                                             \
    if (!(cond)) return dg_error_set((code), __FILE__, __LINE__, __func__, __VA_ARGS__);           \
  } while (0)

#define DG_CALL(expr)                                                                              \
  do {                                                                                             \
    dg_status dg_call_status_ = (expr);                                                            \
    if (dg_call_status_ != DG_SUCCESS) {                                                           \
      dg_error_trace(__FILE__, __LINE__, __func__);                                                \
      return dg_call_status_;                                                                      \
    }                                                                                              \
  } while (0)

/* Like DG_CALL but jumps to a cleanup label, keeping the status in `status_var`. */
#define DG_CALL_GOTO(status_var, label, expr)                                                      \
  do {                                                                                             \
    (status_var) = (expr);                                                                         \
    if ((status_var) != DG_SUCCESS) {                                                              \
      dg_error_trace(__FILE__, __LINE__, __func__);                                                \
      goto label;                                                                                  \
    }                                                                                              \
  } while (0)

/* Allocation helpers: zeroed memory, failures recorded with the byte count. */
dg_status dg_calloc_impl(void **ptr, size_t count, size_t size, const char *what, const char *file,
                         int line, const char *func);

#ifdef __cplusplus
}
#endif
#define DG_CALLOC(ptr, count)                                                                      \
  dg_calloc_impl((void **)&(ptr), (size_t)(count), sizeof(*(ptr)), #ptr, __FILE__, __LINE__,       \
                 __func__)
/* free() and set the pointer to NULL. */
#define DG_FREE(ptr)                                                                               \
  do {                                                                                             \
    free(ptr);                                                                                     \
    (ptr) = NULL;                                                                                  \
  } while (0)
