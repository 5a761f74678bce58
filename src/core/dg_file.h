#pragma once
/* File helpers shared by every binary or text output: atomic writes, the
 * FNV-1a checksum of the native formats (.cdgm meshes, .cdgs solutions) and
 * unaligned native-order field reads from a header buffer. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/dg_error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DG_FNV_OFFSET_BASIS 0xcbf29ce484222325ull
#define DG_FNV_PRIME 0x100000001b3ull

/* FNV-1a 64-bit hash of n bytes, continuing from h (start with
 * DG_FNV_OFFSET_BASIS). */
uint64_t dg_fnv1a(uint64_t h, const void *data, size_t n);

/* Native-order fields at byte offset off of a buffer (no alignment needed). */
uint32_t dg_bytes_u32(const unsigned char *buffer, int off);
int64_t dg_bytes_i64(const unsigned char *buffer, int off);
double dg_bytes_f64(const unsigned char *buffer, int off);

/* A file being written atomically: data goes to "<path>.tmp.<pid>", and
 * dg_file_commit flushes, fsyncs and renames it over path, then fsyncs the
 * folder, so a reader (or a crash) sees either the old file or the complete
 * new one. */
typedef struct dg_atomic_file {
  FILE *file;      /* write through this (binary mode) */
  char path[4096]; /* final name */
  char tmp[4128];  /* temporary name */
} dg_atomic_file;

/* Creates the temporary file for path. DG_ERR_IO when it cannot be created
 * (the message names it and the reason). */
dg_status dg_file_open(dg_atomic_file *af, const char *path);

/* Flushes, fsyncs, closes and renames the temporary over path; any write
 * error seen since dg_file_open (stdio error flag) fails the commit. On
 * failure the temporary is removed and path is untouched (DG_ERR_IO). */
dg_status dg_file_commit(dg_atomic_file *af);

/* Closes and removes the temporary; path is untouched. Safe after a failed
 * open or commit. */
void dg_file_abort(dg_atomic_file *af);

#ifdef __cplusplus
}
#endif
