/* Solution / restart files .cdgs (docs/OUTPUTS.md, docs/FORMATS.md): fixed
 * header (160 bytes in version 1, 256 in version 2), the state in native
 * byte order (version 2: then the held element viscosity), FNV-1a 64
 * checksum of everything before it. Readers trust nothing: sizes are checked against the file
 * length before allocating, and nothing reaches the caller before the checksum and the
 * discretisation checks pass. */
#define _POSIX_C_SOURCE 200809L

#include "app/solution_io.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/case.h"
#include "element/basis.h"

#define CDGS_MAGIC "CDGS"
#define CDGS_VERSION 3u /* written; versions 1 and 2 are still read */
#define CDGS_ENDIAN_MARK 0x01020304u
#define CDGS_ENDIAN_MARK_SWAPPED 0x04030201u
#define CDGS_HEADER_BYTES 160    /* version 1 */
#define CDGS_HEADER_BYTES_V2 256 /* version 2 */
#define CDGS_MAX_ITERATION 2147483647LL
#define DG_FNV_OFFSET_BASIS 0xcbf29ce484222325ull
#define DG_FNV_PRIME 0x100000001b3ull

/* Header field offsets (docs/OUTPUTS.md keeps the same table). */
enum {
  CDGS_OFF_MAGIC = 0,
  CDGS_OFF_VERSION = 4,
  CDGS_OFF_ENDIAN = 8,
  CDGS_OFF_DIM = 12,
  CDGS_OFF_NVAR = 16,
  CDGS_OFF_P = 20,
  CDGS_OFF_N_ELEMS = 24,
  CDGS_OFF_N_SHAPE = 32, /* DG_NUM_SHAPES int64 */
  CDGS_OFF_N_COEFS = 80,
  CDGS_OFF_FINGERPRINT = 88,
  CDGS_OFF_ITERATION = 96,
  CDGS_OFF_TIME = 104,
  CDGS_OFF_CFL = 112,
  CDGS_OFF_REF_NORMS = 120, /* DG_MAX_NVAR double */
  /* version 2 */
  CDGS_OFF_SCHEME = 160,
  CDGS_OFF_CFL_LAW = 164,
  CDGS_OFF_GAMMA = 168,
  CDGS_OFF_MACH = 176,
  CDGS_OFF_ALPHA = 184,
  CDGS_OFF_BETA = 192,
  CDGS_OFF_WALL = 200,
  CDGS_OFF_SER_RES0 = 208,
  CDGS_OFF_N_HOLD = 216,      /* int64: 0 or n_elems held ε values after U */
  CDGS_OFF_N_ORDER = 224,     /* int64: 0 or n_elems mesh indices after them */
  CDGS_OFF_STAGE_START = 232, /* int64: iteration the p-sequencing stage began */
  /* version 3 */
  CDGS_OFF_N_STATE = 240 /* int64: 0..DG_SOLUTION_STATE_MAX marcher-state doubles after the
                            element order; 248..255 zero */
};

_Static_assert(CDGS_OFF_N_SHAPE + 8 * DG_NUM_SHAPES == CDGS_OFF_N_COEFS,
               "the .cdgs header holds DG_NUM_SHAPES element counts");
_Static_assert(CDGS_OFF_REF_NORMS + 8 * DG_MAX_NVAR == CDGS_HEADER_BYTES, "header size");

static uint64_t cdgs_hash_i64(uint64_t h, int64_t v) { return dg_fnv1a(h, &v, sizeof v); }

uint64_t solution_mesh_fingerprint_permuted(const dg_mesh *mesh, const int64_t *perm) {
  uint64_t h = DG_FNV_OFFSET_BASIS;
  if (!mesh) return h;
  h = cdgs_hash_i64(h, mesh->dim);
  h = cdgs_hash_i64(h, mesh->geom_order);
  h = cdgs_hash_i64(h, mesh->n_nodes);
  h = cdgs_hash_i64(h, mesh->n_elems);
  if (mesh->x) h = dg_fnv1a(h, mesh->x, 3 * (size_t)mesh->n_nodes * sizeof(double));
  if (!mesh->elem_shape || !mesh->elem_node_start || !mesh->elem_nodes) return h;
  const int64_t n = mesh->n_elems, *start = mesh->elem_node_start;
  if (!perm) {
    h = dg_fnv1a(h, mesh->elem_shape, (size_t)n);
    h = dg_fnv1a(h, start, ((size_t)n + 1) * sizeof(int64_t));
    return dg_fnv1a(h, mesh->elem_nodes, (size_t)start[n] * sizeof(int64_t));
  }
  /* the arrays mesh_renumber_elements would make, hashed element by element
   * (FNV-1a runs over the bytes in order) */
  for (int64_t i = 0; i < n; ++i) h = dg_fnv1a(h, mesh->elem_shape + perm[i], 1);
  int64_t next = start[0];
  h = cdgs_hash_i64(h, next);
  for (int64_t i = 0; i < n; ++i) {
    next += start[perm[i] + 1] - start[perm[i]];
    h = cdgs_hash_i64(h, next);
  }
  for (int64_t i = 0; i < n; ++i)
    h = dg_fnv1a(h, mesh->elem_nodes + start[perm[i]],
                 (size_t)(start[perm[i] + 1] - start[perm[i]]) * sizeof(int64_t));
  return h;
}

uint64_t solution_mesh_fingerprint(const dg_mesh *mesh) {
  return solution_mesh_fingerprint_permuted(mesh, NULL);
}

/* ---------------------------------------------------------------- writing */

/* Expected n_coefs for the sizes of a header: Σ_s n_shape[s] nvar nb(s, p);
 * -1 when a shape is not supported at p or the sum overflows limit. */
static int64_t cdgs_expected_coefs(const int64_t n_shape[DG_NUM_SHAPES], int nvar, int p,
                                   int64_t limit) {
  int64_t total = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (n_shape[s] == 0) continue;
    const int nb = basis_count((dg_shape)s, p);
    if (nb <= 0) return -1;
    const int64_t per = (int64_t)nb * nvar;
    if (n_shape[s] < 0 || n_shape[s] > (limit - total) / per) return -1;
    total += n_shape[s] * per;
  }
  return total;
}

dg_status solution_write(const char *path, const dg_mesh *mesh, const dg_disc *disc,
                         const double *h_U, const dg_solution_meta *meta) {
  DG_CHECK(path && mesh && disc && h_U && meta, DG_ERR_ARG,
           "solution_write: path, mesh, disc, U or meta is NULL");
  const dg_disc_view *d = &disc->view;
  DG_CHECK(mesh->n_elems == d->n_elems && mesh->dim == d->dim, DG_ERR_ARG,
           "%s: the mesh (%lld elements, %dD) is not the one the discretisation was built from "
           "(%lld elements, %dD)",
           path, (long long)mesh->n_elems, mesh->dim, (long long)d->n_elems, d->dim);

  unsigned char header[CDGS_HEADER_BYTES_V2];
  memset(header, 0, sizeof header);
  const uint32_t version = CDGS_VERSION, mark = CDGS_ENDIAN_MARK;
  const uint32_t dim = (uint32_t)d->dim, nvar = (uint32_t)d->nvar, p = (uint32_t)d->p;
  const uint64_t fingerprint = solution_mesh_fingerprint(mesh);
  memcpy(header + CDGS_OFF_MAGIC, CDGS_MAGIC, 4);
  memcpy(header + CDGS_OFF_VERSION, &version, 4);
  memcpy(header + CDGS_OFF_ENDIAN, &mark, 4);
  memcpy(header + CDGS_OFF_DIM, &dim, 4);
  memcpy(header + CDGS_OFF_NVAR, &nvar, 4);
  memcpy(header + CDGS_OFF_P, &p, 4);
  memcpy(header + CDGS_OFF_N_ELEMS, &d->n_elems, 8);
  memcpy(header + CDGS_OFF_N_SHAPE, d->n_shape, 8 * DG_NUM_SHAPES);
  memcpy(header + CDGS_OFF_N_COEFS, &d->n_coefs, 8);
  memcpy(header + CDGS_OFF_FINGERPRINT, &fingerprint, 8);
  memcpy(header + CDGS_OFF_ITERATION, &meta->iteration, 8);
  memcpy(header + CDGS_OFF_TIME, &meta->time, 8);
  memcpy(header + CDGS_OFF_CFL, &meta->cfl, 8);
  memcpy(header + CDGS_OFF_REF_NORMS, meta->ref_norms, 8 * DG_MAX_NVAR);
  const uint32_t scheme = (uint32_t)meta->scheme, law = (uint32_t)meta->cfl_law;
  const int64_t n_hold = meta->av_hold ? d->n_elems : 0;
  const int64_t n_order = meta->elem_order ? d->n_elems : 0;
  memcpy(header + CDGS_OFF_SCHEME, &scheme, 4);
  memcpy(header + CDGS_OFF_CFL_LAW, &law, 4);
  memcpy(header + CDGS_OFF_GAMMA, &meta->gamma, 8);
  memcpy(header + CDGS_OFF_MACH, &meta->mach, 8);
  memcpy(header + CDGS_OFF_ALPHA, &meta->alpha_deg, 8);
  memcpy(header + CDGS_OFF_BETA, &meta->beta_deg, 8);
  memcpy(header + CDGS_OFF_WALL, &meta->wall_seconds, 8);
  memcpy(header + CDGS_OFF_SER_RES0, &meta->ser_res0, 8);
  memcpy(header + CDGS_OFF_N_HOLD, &n_hold, 8);
  memcpy(header + CDGS_OFF_N_ORDER, &n_order, 8);
  memcpy(header + CDGS_OFF_STAGE_START, &meta->stage_start, 8);
  DG_CHECK(meta->n_marcher_state >= 0 && meta->n_marcher_state <= DG_SOLUTION_STATE_MAX, DG_ERR_ARG,
           "%s: %d marcher-state values; at most %d", path, meta->n_marcher_state,
           DG_SOLUTION_STATE_MAX);
  const int64_t n_state = meta->n_marcher_state;
  memcpy(header + CDGS_OFF_N_STATE, &n_state, 8);

  dg_atomic_file af;
  DG_CALL(dg_file_open(&af, path));
  const size_t data_bytes = (size_t)d->n_coefs * sizeof(double);
  const size_t hold_bytes = (size_t)n_hold * sizeof(double);
  const size_t order_bytes = (size_t)n_order * sizeof(int64_t);
  const size_t state_bytes = (size_t)n_state * sizeof(double);
  uint64_t checksum = dg_fnv1a(DG_FNV_OFFSET_BASIS, header, sizeof header);
  checksum = dg_fnv1a(checksum, h_U, data_bytes);
  if (n_hold) checksum = dg_fnv1a(checksum, meta->av_hold, hold_bytes);
  if (n_order) checksum = dg_fnv1a(checksum, meta->elem_order, order_bytes);
  if (n_state) checksum = dg_fnv1a(checksum, meta->marcher_state, state_bytes);
  if (fwrite(header, 1, sizeof header, af.file) != sizeof header ||
      fwrite(h_U, 1, data_bytes, af.file) != data_bytes ||
      (n_hold && fwrite(meta->av_hold, 1, hold_bytes, af.file) != hold_bytes) ||
      (n_order && fwrite(meta->elem_order, 1, order_bytes, af.file) != order_bytes) ||
      (n_state && fwrite(meta->marcher_state, 1, state_bytes, af.file) != state_bytes) ||
      fwrite(&checksum, 1, sizeof checksum, af.file) != sizeof checksum) {
    const int err = errno ? errno : EIO;
    dg_file_abort(&af);
    DG_ERROR(DG_ERR_IO, "%s: writing the temporary file failed: %s (the previous file is kept)",
             path, strerror(err));
  }
  DG_CALL(dg_file_commit(&af));
  return DG_SUCCESS;
}

/* ---------------------------------------------------------------- reading */

/* Reads and checks the whole file; on success *U (allocated, n_coefs
 * doubles; may be NULL when want_data is 0) and *hdr are filled. */
static dg_status cdgs_load(const char *path, int want_data, dg_solution_header *hdr, double **U) {
  DG_CHECK(path, DG_ERR_ARG, "solution_read: path is NULL");
  DG_CALL(mesh_check_regular_file(path, "solution file"));
  *U = NULL;
  errno = 0;
  FILE *file = fopen(path, "rb");
  DG_CHECK(file, DG_ERR_IO, "cannot open restart file %s: %s", path, strerror(errno ? errno : EIO));
  dg_status status = DG_SUCCESS;
  double *data = NULL;
  struct stat st;
  if (fstat(fileno(file), &st) != 0) {
    status = dg_error_set(DG_ERR_IO, __FILE__, __LINE__, __func__, "%s: cannot stat: %s", path,
                          strerror(errno));
    goto done;
  }
  const int64_t file_bytes = (int64_t)st.st_size;
  unsigned char h[CDGS_HEADER_BYTES_V2];
  memset(h, 0, sizeof h);
  size_t got = fread(h, 1, CDGS_HEADER_BYTES, file);
#define CDGS_FAIL(code, ...)                                                                       \
  do {                                                                                             \
    status = dg_error_set((code), __FILE__, __LINE__, __func__, __VA_ARGS__);                      \
    goto done;                                                                                     \
  } while (0)
  if (got < 4 || memcmp(h, CDGS_MAGIC, 4) != 0)
    CDGS_FAIL(DG_ERR_FORMAT, "%s: not a ColorDG solution file (bytes 0-3 are not \"CDGS\")", path);
  if (got < CDGS_HEADER_BYTES)
    CDGS_FAIL(DG_ERR_FORMAT,
              "%s: truncated: the file is %lld bytes, shorter than the %d-byte header", path,
              (long long)file_bytes, CDGS_HEADER_BYTES);
  const uint32_t mark = dg_bytes_u32(h, CDGS_OFF_ENDIAN);
  if (mark == CDGS_ENDIAN_MARK_SWAPPED)
    CDGS_FAIL(DG_ERR_FORMAT,
              "%s: the endianness mark (byte offset %d) is byte-swapped: the file was written on a "
              "machine of the other byte order",
              path, CDGS_OFF_ENDIAN);
  if (mark != CDGS_ENDIAN_MARK)
    CDGS_FAIL(DG_ERR_FORMAT, "%s: corrupted endianness mark 0x%08x at byte offset %d", path, mark,
              CDGS_OFF_ENDIAN);
  hdr->version = dg_bytes_u32(h, CDGS_OFF_VERSION);
  if (hdr->version < 1u || hdr->version > CDGS_VERSION)
    CDGS_FAIL(DG_ERR_FORMAT,
              "%s: format version %u (byte offset %d) is not supported; this ColorDG reads "
              "versions 1 to %u",
              path, hdr->version, CDGS_OFF_VERSION, CDGS_VERSION);
  const int header_bytes = hdr->version == 1u ? CDGS_HEADER_BYTES : CDGS_HEADER_BYTES_V2;
  if (header_bytes > CDGS_HEADER_BYTES) {
    got += fread(h + CDGS_HEADER_BYTES, 1, (size_t)(header_bytes - CDGS_HEADER_BYTES), file);
    if (got < (size_t)header_bytes)
      CDGS_FAIL(DG_ERR_FORMAT,
                "%s: truncated: the file is %lld bytes, shorter than the %d-byte header", path,
                (long long)file_bytes, header_bytes);
  }
  const uint32_t dim = dg_bytes_u32(h, CDGS_OFF_DIM), nvar = dg_bytes_u32(h, CDGS_OFF_NVAR),
                 p = dg_bytes_u32(h, CDGS_OFF_P);
  if (dim != 2 && dim != 3)
    CDGS_FAIL(DG_ERR_FORMAT, "%s: dimension %u at byte offset %d is not 2 or 3", path, dim,
              CDGS_OFF_DIM);
  if (nvar != dim + 2)
    CDGS_FAIL(DG_ERR_FORMAT, "%s: %u variables at byte offset %d, expected %u for %uD", path, nvar,
              CDGS_OFF_NVAR, dim + 2, dim);
  if (p > 3)
    CDGS_FAIL(DG_ERR_FORMAT, "%s: polynomial degree %u at byte offset %d is not in 0..3", path, p,
              CDGS_OFF_P);
  hdr->dim = (int)dim, hdr->nvar = (int)nvar, hdr->p = (int)p;
  hdr->n_elems = dg_bytes_i64(h, CDGS_OFF_N_ELEMS);
  int64_t sum = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    hdr->n_shape[s] = dg_bytes_i64(h, CDGS_OFF_N_SHAPE + 8 * s);
    if (hdr->n_shape[s] < 0 || hdr->n_shape[s] > file_bytes)
      CDGS_FAIL(DG_ERR_FORMAT, "%s: element count %lld of shape %d (byte offset %d) is invalid",
                path, (long long)hdr->n_shape[s], s, CDGS_OFF_N_SHAPE + 8 * s);
    sum += hdr->n_shape[s];
  }
  if (hdr->n_elems != sum)
    CDGS_FAIL(DG_ERR_FORMAT,
              "%s: %lld elements (byte offset %d) but the per-shape counts sum to %lld", path,
              (long long)hdr->n_elems, CDGS_OFF_N_ELEMS, (long long)sum);
  hdr->n_coefs = dg_bytes_i64(h, CDGS_OFF_N_COEFS);
  int64_t n_hold = 0, n_order = 0;
  if (hdr->version >= 2u) {
    n_hold = dg_bytes_i64(h, CDGS_OFF_N_HOLD);
    if (n_hold != 0 && n_hold != hdr->n_elems)
      CDGS_FAIL(DG_ERR_FORMAT,
                "%s: %lld held viscosity values (byte offset %d), expected 0 or the %lld elements",
                path, (long long)n_hold, CDGS_OFF_N_HOLD, (long long)hdr->n_elems);
    n_order = dg_bytes_i64(h, CDGS_OFF_N_ORDER);
    if (n_order != 0 && n_order != hdr->n_elems)
      CDGS_FAIL(DG_ERR_FORMAT,
                "%s: %lld mesh indices (byte offset %d), expected 0 or the %lld elements", path,
                (long long)n_order, CDGS_OFF_N_ORDER, (long long)hdr->n_elems);
  }
  int64_t n_state = 0;
  if (hdr->version >= 3u) {
    n_state = dg_bytes_i64(h, CDGS_OFF_N_STATE);
    if (n_state < 0 || n_state > DG_SOLUTION_STATE_MAX)
      CDGS_FAIL(DG_ERR_FORMAT, "%s: %lld marcher-state values (byte offset %d), expected 0 to %d",
                path, (long long)n_state, CDGS_OFF_N_STATE, DG_SOLUTION_STATE_MAX);
  }
  /* the mesh indices are not needed to continue a run (the run renumbers the
   * mesh the same way): they are read for the checksum only */
  const int64_t max_coefs =
      (file_bytes - header_bytes - 8 - 8 * n_hold - 8 * n_order - 8 * n_state) / 8;
  if (hdr->n_coefs < 0 || hdr->n_coefs > max_coefs)
    CDGS_FAIL(DG_ERR_FORMAT,
              "%s: truncated or corrupted: the header announces %lld coefficients (byte offset "
              "%d), the %lld-byte file holds at most %lld",
              path, (long long)hdr->n_coefs, CDGS_OFF_N_COEFS, (long long)file_bytes,
              (long long)(max_coefs < 0 ? 0 : max_coefs));
  const int64_t expect_bytes =
      header_bytes + 8 * hdr->n_coefs + 8 * n_hold + 8 * n_order + 8 * n_state + 8;
  if (file_bytes != expect_bytes)
    CDGS_FAIL(DG_ERR_FORMAT, "%s: the file is %lld bytes, the header announces %lld", path,
              (long long)file_bytes, (long long)expect_bytes);
  const int64_t expect_coefs = cdgs_expected_coefs(hdr->n_shape, hdr->nvar, hdr->p, max_coefs);
  if (expect_coefs != hdr->n_coefs)
    CDGS_FAIL(DG_ERR_FORMAT,
              "%s: %lld coefficients (byte offset %d) do not match the element counts at p = %d "
              "(%lld expected)",
              path, (long long)hdr->n_coefs, CDGS_OFF_N_COEFS, hdr->p, (long long)expect_coefs);
  memcpy(&hdr->mesh_fingerprint, h + CDGS_OFF_FINGERPRINT, 8);
  hdr->meta.iteration = dg_bytes_i64(h, CDGS_OFF_ITERATION);
  hdr->meta.time = dg_bytes_f64(h, CDGS_OFF_TIME);
  hdr->meta.cfl = dg_bytes_f64(h, CDGS_OFF_CFL);
  for (int v = 0; v < DG_MAX_NVAR; ++v)
    hdr->meta.ref_norms[v] = dg_bytes_f64(h, CDGS_OFF_REF_NORMS + 8 * v);
  /* a forged iteration count or time would pass the checksum of a file
   * written on purpose; the run counts iterations in an int */
  if (hdr->meta.iteration < 0 || hdr->meta.iteration > CDGS_MAX_ITERATION)
    CDGS_FAIL(DG_ERR_FORMAT, "%s: iteration count %lld (byte offset %d) is not in 0..%lld", path,
              (long long)hdr->meta.iteration, CDGS_OFF_ITERATION, CDGS_MAX_ITERATION);
  if (!isfinite(hdr->meta.time) || hdr->meta.time < 0.0)
    CDGS_FAIL(DG_ERR_FORMAT, "%s: time %g (byte offset %d) is not a finite number >= 0", path,
              hdr->meta.time, CDGS_OFF_TIME);
  if (hdr->version >= 2u) {
    dg_solution_meta *m = &hdr->meta;
    m->scheme = (int)dg_bytes_u32(h, CDGS_OFF_SCHEME);
    m->cfl_law = (int)dg_bytes_u32(h, CDGS_OFF_CFL_LAW);
    m->gamma = dg_bytes_f64(h, CDGS_OFF_GAMMA);
    m->mach = dg_bytes_f64(h, CDGS_OFF_MACH);
    m->alpha_deg = dg_bytes_f64(h, CDGS_OFF_ALPHA);
    m->beta_deg = dg_bytes_f64(h, CDGS_OFF_BETA);
    m->wall_seconds = dg_bytes_f64(h, CDGS_OFF_WALL);
    m->ser_res0 = dg_bytes_f64(h, CDGS_OFF_SER_RES0);
    m->stage_start = dg_bytes_i64(h, CDGS_OFF_STAGE_START);
    m->has_av_hold = n_hold > 0;
    m->has_run = m->gamma > 0.0;
    if (m->scheme < 0 || m->scheme >= DG_NUM_SCHEMES || m->cfl_law < 0 || m->cfl_law > 1)
      CDGS_FAIL(DG_ERR_FORMAT, "%s: scheme %d / CFL law %d (byte offsets %d, %d) are unknown", path,
                m->scheme, m->cfl_law, CDGS_OFF_SCHEME, CDGS_OFF_CFL_LAW);
    if (!(m->gamma == 0.0 || (m->gamma > 1.0 && isfinite(m->gamma))) || !isfinite(m->mach) ||
        !isfinite(m->alpha_deg) || !isfinite(m->beta_deg) ||
        !(m->wall_seconds >= 0.0 && isfinite(m->wall_seconds)) ||
        !(m->ser_res0 >= 0.0 && isfinite(m->ser_res0)))
      CDGS_FAIL(DG_ERR_FORMAT,
                "%s: the run fields (gamma, Mach, angles, wall time, SER reference at byte "
                "offsets %d..%d) are not finite or out of range",
                path, CDGS_OFF_GAMMA, CDGS_OFF_N_HOLD - 1);
    if (m->stage_start < 0 || m->stage_start > hdr->meta.iteration)
      CDGS_FAIL(DG_ERR_FORMAT,
                "%s: p-sequencing stage start %lld (byte offset %d) is not in 0..%lld (the "
                "iteration)",
                path, (long long)m->stage_start, CDGS_OFF_STAGE_START,
                (long long)hdr->meta.iteration);
  }

  /* The data is read (and hashed) even when only the header is wanted:
   * the checksum covers everything. */
  const size_t n = (size_t)hdr->n_coefs + (size_t)n_hold + (size_t)n_order + (size_t)n_state;
  status = DG_CALLOC(data, n > 0 ? n : 1);
  if (status != DG_SUCCESS) goto done;
  uint64_t stored;
  if (fread(data, sizeof(double), n, file) != n || fread(&stored, 1, 8, file) != 8)
    CDGS_FAIL(DG_ERR_IO, "%s: read failed after the header", path);
  uint64_t checksum = dg_fnv1a(DG_FNV_OFFSET_BASIS, h, (size_t)header_bytes);
  checksum = dg_fnv1a(checksum, data, n * sizeof(double));
  if (checksum != stored)
    CDGS_FAIL(DG_ERR_FORMAT,
              "%s: checksum mismatch (stored 0x%016llx, computed 0x%016llx): the file is "
              "corrupted",
              path, (unsigned long long)stored, (unsigned long long)checksum);
  if (n_state > 0) {
    const double *state = data + hdr->n_coefs + n_hold + n_order;
    for (int64_t i = 0; i < n_state; ++i)
      if (!isfinite(state[i]))
        CDGS_FAIL(DG_ERR_FORMAT,
                  "%s: marcher-state value %lld (after the element order) is not "
                  "finite",
                  path, (long long)i);
    memcpy(hdr->meta.marcher_state, state, (size_t)n_state * sizeof *state);
    hdr->meta.n_marcher_state = (int)n_state;
  }
#undef CDGS_FAIL
done:
  fclose(file);
  if (status != DG_SUCCESS || !want_data) {
    free(data);
    return status;
  }
  *U = data;
  return DG_SUCCESS;
}

dg_status solution_read_header(const char *path, dg_solution_header *header) {
  DG_CHECK(header, DG_ERR_ARG, "solution_read_header: header is NULL");
  dg_solution_header h;
  memset(&h, 0, sizeof h);
  double *U = NULL;
  DG_CALL(cdgs_load(path, 0, &h, &U));
  *header = h;
  return DG_SUCCESS;
}

dg_status solution_read_av_hold(const char *path, int64_t n_elems, double *hold, int *found) {
  DG_CHECK(hold && found, DG_ERR_ARG, "solution_read_av_hold: NULL argument");
  *found = 0;
  dg_solution_header h;
  memset(&h, 0, sizeof h);
  double *data = NULL;
  DG_CALL(cdgs_load(path, 1, &h, &data));
  if (h.meta.has_av_hold && h.n_elems == n_elems) {
    memcpy(hold, data + h.n_coefs, (size_t)n_elems * sizeof *hold);
    *found = 1;
  }
  free(data);
  return DG_SUCCESS;
}

static const char *cdgs_shape_plural(int s) {
  static const char *const names[DG_NUM_SHAPES] = {"lines",      "triangles", "quadrilaterals",
                                                   "tetrahedra", "prisms",    "hexahedra"};
  return names[s];
}

/* Compares a checked header with the discretisation (prolong: the file's
 * p may be below the discretisation's). */
static dg_status cdgs_compare_p(const char *path, const dg_solution_header *h, const dg_mesh *mesh,
                                const dg_disc_view *d, int prolong) {
  DG_CHECK(h->dim == d->dim, DG_ERR_ARG,
           "restart file %s was written for a %dD mesh, the case's mesh is %dD", path, h->dim,
           d->dim);
  if (prolong) {
    DG_CHECK(h->p <= d->p && h->nvar == d->nvar, DG_ERR_ARG,
             "initial solution %s was written for p = %d, above the case's p = %d", path, h->p,
             d->p);
  } else {
    DG_CHECK(h->p == d->p, DG_ERR_ARG,
             "restart file %s was written for p = %d, the case asks p = %d", path, h->p, d->p);
  }
  DG_CHECK(h->n_elems == d->n_elems, DG_ERR_ARG,
           "restart file %s was written for a mesh of %lld elements, the case's mesh has %lld",
           path, (long long)h->n_elems, (long long)d->n_elems);
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    DG_CHECK(h->n_shape[s] == d->n_shape[s], DG_ERR_ARG,
             "restart file %s was written for a mesh of %lld %s, the case's mesh has %lld", path,
             (long long)h->n_shape[s], cdgs_shape_plural(s), (long long)d->n_shape[s]);
  DG_CHECK(prolong || h->n_coefs == d->n_coefs, DG_ERR_ARG,
           "restart file %s holds %lld coefficients, the discretisation has %lld", path,
           (long long)h->n_coefs, (long long)d->n_coefs);
  const uint64_t fingerprint = solution_mesh_fingerprint(mesh);
  DG_CHECK(h->mesh_fingerprint == fingerprint, DG_ERR_ARG,
           "restart file %s was written for a different mesh of the same sizes (mesh fingerprint "
           "0x%016llx, the case's mesh %s has 0x%016llx: other node coordinates, connectivity "
           "or element numbering)",
           path, (unsigned long long)h->mesh_fingerprint, mesh->source[0] ? mesh->source : "",
           (unsigned long long)fingerprint);
  return DG_SUCCESS;
}

static dg_status cdgs_compare(const char *path, const dg_solution_header *h, const dg_mesh *mesh,
                              const dg_disc_view *d) {
  return cdgs_compare_p(path, h, mesh, d, 0);
}

dg_status solution_read_prolong(const char *path, const dg_mesh *mesh, const dg_disc *disc,
                                double *h_U) {
  DG_CHECK(path && mesh && disc && h_U, DG_ERR_ARG,
           "solution_read_prolong: path, mesh, disc or U is NULL");
  dg_solution_header h;
  memset(&h, 0, sizeof h);
  double *U = NULL;
  DG_CALL(cdgs_load(path, 1, &h, &U));
  const dg_disc_view *d = &disc->view;
  const dg_status status = cdgs_compare_p(path, &h, mesh, d, 1);
  if (status != DG_SUCCESS) {
    free(U);
    dg_error_trace(__FILE__, __LINE__, __func__);
    return status;
  }
  /* the file's layout is the discretisation's at the file's p */
  const dg_status prolong_status = disc_prolong(d, h.p, U, h_U);
  free(U);
  DG_CALL(prolong_status);
  return DG_SUCCESS;
}

dg_status solution_read(const char *path, const dg_mesh *mesh, const dg_disc *disc, double *h_U,
                        dg_solution_meta *meta) {
  DG_CHECK(path && mesh && disc && h_U, DG_ERR_ARG, "solution_read: path, mesh, disc or U is NULL");
  dg_solution_header h;
  memset(&h, 0, sizeof h);
  double *U = NULL;
  DG_CALL(cdgs_load(path, 1, &h, &U));
  const dg_status status = cdgs_compare(path, &h, mesh, &disc->view);
  if (status != DG_SUCCESS) {
    free(U);
    dg_error_trace(__FILE__, __LINE__, __func__);
    return status;
  }
  memcpy(h_U, U, (size_t)h.n_coefs * sizeof(double));
  if (meta) {
    double *hold = meta->av_hold;
    *meta = h.meta;
    meta->av_hold = hold;
    if (hold && h.meta.has_av_hold)
      memcpy(hold, U + h.n_coefs, (size_t)h.n_elems * sizeof(double));
    else
      meta->has_av_hold = 0;
  }
  free(U);
  return DG_SUCCESS;
}
