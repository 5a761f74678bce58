#include "core/dg_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

uint64_t dg_fnv1a(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = (const unsigned char *)data;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= DG_FNV_PRIME;
  }
  return h;
}

uint32_t dg_bytes_u32(const unsigned char *buffer, int off) {
  uint32_t v;
  memcpy(&v, buffer + off, 4);
  return v;
}

int64_t dg_bytes_i64(const unsigned char *buffer, int off) {
  int64_t v;
  memcpy(&v, buffer + off, 8);
  return v;
}

double dg_bytes_f64(const unsigned char *buffer, int off) {
  double v;
  memcpy(&v, buffer + off, 8);
  return v;
}

dg_status dg_file_open(dg_atomic_file *af, const char *path) {
  DG_CHECK(af && path && path[0], DG_ERR_ARG, "dg_file_open: no file name given");
  memset(af, 0, sizeof *af);
  DG_CHECK(strlen(path) < sizeof af->path, DG_ERR_ARG, "%s: path too long (%zu characters)", path,
           strlen(path));
  snprintf(af->path, sizeof af->path, "%s", path);
  snprintf(af->tmp, sizeof af->tmp, "%s.tmp.%ld", path, (long)getpid());
  errno = 0;
  af->file = fopen(af->tmp, "wb");
  DG_CHECK(af->file, DG_ERR_IO, "%s: cannot create the temporary file %s: %s", path, af->tmp,
           strerror(errno ? errno : EIO));
  return DG_SUCCESS;
}

void dg_file_abort(dg_atomic_file *af) {
  if (!af || !af->tmp[0]) return;
  if (af->file) fclose(af->file);
  af->file = NULL;
  remove(af->tmp);
  af->tmp[0] = '\0';
}

/* fsync the folder holding path so the rename itself is durable; a failure
 * cannot corrupt the file, so it is not an error. */
static void file_sync_folder(const char *path) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash == dir)
    slash[1] = '\0';
  else if (slash)
    *slash = '\0';
  else
    snprintf(dir, sizeof dir, ".");
  const int dir_fd = open(dir, O_RDONLY);
  if (dir_fd >= 0) {
    (void)fsync(dir_fd);
    close(dir_fd);
  }
}

dg_status dg_file_commit(dg_atomic_file *af) {
  DG_CHECK(af && af->file, DG_ERR_ARG, "dg_file_commit: the file is not open");
  int err = 0;
  errno = 0;
  if (ferror(af->file)) err = errno ? errno : EIO;
  if (!err && fflush(af->file) != 0) err = errno ? errno : EIO;
  if (!err && fsync(fileno(af->file)) != 0) err = errno ? errno : EIO;
  if (fclose(af->file) != 0 && !err) err = errno ? errno : EIO;
  af->file = NULL;
  if (err) {
    remove(af->tmp);
    DG_ERROR(DG_ERR_IO, "%s: writing the temporary file %s failed: %s (the previous file is kept)",
             af->path, af->tmp, strerror(err));
  }
  if (rename(af->tmp, af->path) != 0) {
    err = errno;
    remove(af->tmp);
    DG_ERROR(DG_ERR_IO, "%s: cannot rename %s over it: %s (the previous file is kept)", af->path,
             af->tmp, strerror(err));
  }
  af->tmp[0] = '\0';
  file_sync_folder(af->path);
  return DG_SUCCESS;
}
