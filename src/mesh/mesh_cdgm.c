/* The native mesh file .cdgm (docs/FORMATS.md): fixed header, raw arrays in
 * native byte order, FNV-1a 64-bit checksum of everything before it.
 * Readers trust nothing: every size is checked against the file length
 * before anything is allocated, and every index after the checksum. */
#define _POSIX_C_SOURCE 200809L

#include "mesh/mesh.h"

#include "core/dg_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CDGM_MAGIC "CDGM"
#define CDGM_VERSION 1u
#define CDGM_ENDIAN_MARK 0x01020304u
#define CDGM_ENDIAN_MARK_SWAPPED 0x04030201u
#define CDGM_HEADER_BYTES 120
#define CDGM_GROUP_BYTES (DG_GROUP_NAME_LEN + 4)

/* Header field offsets (docs/FORMATS.md keeps the same table). */
enum {
  CDGM_OFF_MAGIC = 0,
  CDGM_OFF_VERSION = 4,
  CDGM_OFF_ENDIAN = 8,
  CDGM_OFF_DIM = 12,
  CDGM_OFF_ORDER = 16,
  CDGM_OFF_N_GROUPS = 20,
  CDGM_OFF_N_NODES = 24,
  CDGM_OFF_N_ELEMS = 32,
  CDGM_OFF_SHAPE_OFFSET = 40, /* DG_NUM_SHAPES + 1 int64 */
  CDGM_OFF_N_ELEM_NODES = 96,
  CDGM_OFF_N_BFACES = 104,
  CDGM_OFF_N_PERIODIC = 112
};

_Static_assert(CDGM_OFF_SHAPE_OFFSET + 8 * (DG_NUM_SHAPES + 1) == CDGM_OFF_N_ELEM_NODES,
               "the .cdgm header holds DG_NUM_SHAPES + 1 shape offsets");
_Static_assert(CDGM_OFF_N_PERIODIC + 8 == CDGM_HEADER_BYTES, "header size");

/* ---------------------------------------------------------------- writing */

typedef struct {
  FILE *file;
  uint64_t hash;
  int failed;
} cdgm_writer;

static void cdgm_put(cdgm_writer *w, const void *data, size_t n) {
  if (n == 0 || w->failed) return;
  w->hash = dg_fnv1a(w->hash, data, n);
  if (fwrite(data, 1, n, w->file) != n) w->failed = errno ? errno : EIO;
}

dg_status mesh_write_cdgm(const dg_mesh *mesh, const char *path) {
  DG_CHECK(mesh && path, DG_ERR_ARG, "mesh_write_cdgm: mesh or path is NULL");
  DG_CALL(mesh_check(mesh));

  int64_t n_elem_nodes = mesh->elem_node_start[mesh->n_elems];
  unsigned char header[CDGM_HEADER_BYTES];
  memset(header, 0, sizeof header);
  const uint32_t version = CDGM_VERSION, mark = CDGM_ENDIAN_MARK;
  const uint32_t dim = (uint32_t)mesh->dim, order = (uint32_t)mesh->geom_order,
                 n_groups = (uint32_t)mesh->n_groups;
  memcpy(header + CDGM_OFF_MAGIC, CDGM_MAGIC, 4);
  memcpy(header + CDGM_OFF_VERSION, &version, 4);
  memcpy(header + CDGM_OFF_ENDIAN, &mark, 4);
  memcpy(header + CDGM_OFF_DIM, &dim, 4);
  memcpy(header + CDGM_OFF_ORDER, &order, 4);
  memcpy(header + CDGM_OFF_N_GROUPS, &n_groups, 4);
  memcpy(header + CDGM_OFF_N_NODES, &mesh->n_nodes, 8);
  memcpy(header + CDGM_OFF_N_ELEMS, &mesh->n_elems, 8);
  memcpy(header + CDGM_OFF_SHAPE_OFFSET, mesh->shape_offset, 8 * (DG_NUM_SHAPES + 1));
  memcpy(header + CDGM_OFF_N_ELEM_NODES, &n_elem_nodes, 8);
  memcpy(header + CDGM_OFF_N_BFACES, &mesh->n_bfaces, 8);
  memcpy(header + CDGM_OFF_N_PERIODIC, &mesh->n_periodic, 8);

  /* Written beside the target and renamed over it (dg_file_commit), so
   * readers see either the old file or the complete new one. */
  dg_atomic_file af;
  DG_CALL(dg_file_open(&af, path));
  cdgm_writer w = {af.file, DG_FNV_OFFSET_BASIS, 0};

  const size_t ne = (size_t)mesh->n_elems, nb = (size_t)mesh->n_bfaces,
               np = (size_t)mesh->n_periodic;
  cdgm_put(&w, header, sizeof header);
  cdgm_put(&w, mesh->x, 3 * (size_t)mesh->n_nodes * sizeof(double));
  cdgm_put(&w, mesh->elem_shape, ne * sizeof(int8_t));
  cdgm_put(&w, mesh->elem_node_start, (ne + 1) * sizeof(int64_t));
  cdgm_put(&w, mesh->elem_nodes, (size_t)n_elem_nodes * sizeof(int64_t));
  cdgm_put(&w, mesh->elem_tag, ne * sizeof(int64_t));
  for (int g = 0; g < mesh->n_groups; ++g) {
    unsigned char record[CDGM_GROUP_BYTES];
    memset(record, 0, sizeof record);
    /* Bytes after the terminator are zero so identical meshes give identical files. */
    memcpy(record, mesh->groups[g].name, strnlen(mesh->groups[g].name, DG_GROUP_NAME_LEN - 1));
    const int32_t tag = mesh->groups[g].tag;
    memcpy(record + DG_GROUP_NAME_LEN, &tag, 4);
    cdgm_put(&w, record, sizeof record);
  }
  cdgm_put(&w, mesh->bface_shape, nb * sizeof(int8_t));
  cdgm_put(&w, mesh->bface_verts, DG_MAX_FACE_VERTS * nb * sizeof(int64_t));
  cdgm_put(&w, mesh->bface_group, nb * sizeof(int32_t));
  cdgm_put(&w, mesh->bface_tag, nb * sizeof(int64_t));
  cdgm_put(&w, mesh->periodic_slave, np * sizeof(int64_t));
  cdgm_put(&w, mesh->periodic_master, np * sizeof(int64_t));
  const uint64_t checksum = w.hash;
  if (!w.failed && fwrite(&checksum, 1, 8, w.file) != 8) w.failed = errno ? errno : EIO;
  if (w.failed) {
    dg_file_abort(&af);
    DG_ERROR(DG_ERR_IO, "%s: writing the temporary file failed: %s (the previous file is kept)",
             path, strerror(w.failed));
  }
  DG_CALL(dg_file_commit(&af));
  return DG_SUCCESS;
}

/* ---------------------------------------------------------------- reading */

typedef struct {
  FILE *file;
  const char *path;
  uint64_t hash;
  int64_t offset; /* bytes consumed so far */
} cdgm_reader;

/* Reads n bytes (already known to lie inside the file) and hashes them. */
static dg_status cdgm_get(cdgm_reader *r, void *data, size_t n, const char *what) {
  if (n == 0) return DG_SUCCESS;
  if (fread(data, 1, n, r->file) != n)
    DG_ERROR(DG_ERR_IO, "%s: read of %s (%zu bytes at byte offset %lld) failed", r->path, what, n,
             (long long)r->offset);
  r->hash = dg_fnv1a(r->hash, data, n);
  r->offset += (int64_t)n;
  return DG_SUCCESS;
}

/* Adds count * size bytes to *total unless the result would exceed limit:
 * with limit = the file length no product can overflow. */
static int cdgm_add_section(int64_t *total, int64_t count, int64_t size, int64_t limit) {
  if (count < 0 || count > (limit - *total) / size) return 0;
  *total += count * size;
  return 1;
}

/* Section byte offsets of a file with the sizes of mesh (FORMATS.md order). */
typedef struct {
  int64_t x, elem_shape, elem_node_start, elem_nodes, elem_tag, groups, bface_shape, bface_verts,
      bface_group, bface_tag, periodic_slave, periodic_master, checksum;
} cdgm_layout;

/* Checks the contents now that the checksum matched: a file can still be
 * wrong if a buggy writer produced it. Errors give the byte offset. */
static int cdgm_compare_group_name(const void *a, const void *b) {
  const dg_mesh_group *x = *(const dg_mesh_group *const *)a, *y = *(const dg_mesh_group *const *)b;
  return strcmp(x->name, y->name);
}

static dg_status cdgm_check_content(const dg_mesh *m, int64_t n_elem_nodes, const cdgm_layout *at,
                                    const char *path) {
  DG_CHECK(m->elem_node_start[m->n_elems] == n_elem_nodes, DG_ERR_FORMAT,
           "%s: elem_node_start[%lld] = %lld (byte offset %lld) differs from the header's %lld "
           "element nodes",
           path, (long long)m->n_elems, (long long)m->elem_node_start[m->n_elems],
           (long long)(at->elem_node_start + 8 * m->n_elems), (long long)n_elem_nodes);
  for (int64_t e = 0; e < m->n_elems; ++e)
    DG_CHECK(m->elem_shape[e] >= 0 && m->elem_shape[e] < DG_NUM_SHAPES, DG_ERR_FORMAT,
             "%s: element %lld has shape code %d (byte offset %lld), not a valid shape", path,
             (long long)e, m->elem_shape[e], (long long)(at->elem_shape + e));
  for (int64_t e = 0; e <= m->n_elems; ++e) {
    const int64_t v = m->elem_node_start[e];
    const int64_t lo = e == 0 ? 0 : m->elem_node_start[e - 1];
    const int64_t hi = e == 0 ? 0 : m->elem_node_start[m->n_elems];
    DG_CHECK(v >= lo && v <= hi, DG_ERR_FORMAT,
             "%s: elem_node_start[%lld] = %lld (byte offset %lld) is outside [%lld, %lld]", path,
             (long long)e, (long long)v, (long long)(at->elem_node_start + 8 * e), (long long)lo,
             (long long)hi);
  }
  for (int64_t k = 0; k < m->elem_node_start[m->n_elems]; ++k)
    DG_CHECK(m->elem_nodes[k] >= 0 && m->elem_nodes[k] < m->n_nodes, DG_ERR_FORMAT,
             "%s: element node entry %lld = %lld (byte offset %lld) is outside [0, %lld)", path,
             (long long)k, (long long)m->elem_nodes[k], (long long)(at->elem_nodes + 8 * k),
             (long long)m->n_nodes);
  for (int g = 0; g < m->n_groups; ++g)
    DG_CHECK(memchr(m->groups[g].name, '\0', DG_GROUP_NAME_LEN) != NULL, DG_ERR_FORMAT,
             "%s: group name %d (byte offset %lld) is not NUL-terminated", path, g,
             (long long)(at->groups + (int64_t)CDGM_GROUP_BYTES * g));
  if (m->n_groups > 1) {
    /* Unique names: sorted, duplicates are neighbours. */
    const dg_mesh_group **sorted = NULL;
    DG_CALL(DG_CALLOC(sorted, m->n_groups));
    for (int g = 0; g < m->n_groups; ++g) sorted[g] = &m->groups[g];
    qsort(sorted, (size_t)m->n_groups, sizeof *sorted, cdgm_compare_group_name);
    for (int g = 1; g < m->n_groups; ++g)
      if (strcmp(sorted[g]->name, sorted[g - 1]->name) == 0) {
        const int a = (int)(sorted[g - 1] - m->groups), b = (int)(sorted[g] - m->groups);
        free(sorted);
        DG_ERROR(DG_ERR_FORMAT,
                 "%s: boundary groups %d and %d (byte offsets %lld and %lld) are both named "
                 "\"%s\"; group names must be unique (a case line maps a group by name)",
                 path, a < b ? a : b, a < b ? b : a,
                 (long long)(at->groups + (int64_t)CDGM_GROUP_BYTES * (a < b ? a : b)),
                 (long long)(at->groups + (int64_t)CDGM_GROUP_BYTES * (a < b ? b : a)),
                 m->groups[a].name);
      }
    free(sorted);
  }
  for (int64_t f = 0; f < m->n_bfaces; ++f) {
    DG_CHECK(m->bface_shape[f] >= 0 && m->bface_shape[f] < DG_NUM_SHAPES, DG_ERR_FORMAT,
             "%s: boundary face %lld has shape code %d (byte offset %lld)", path, (long long)f,
             m->bface_shape[f], (long long)(at->bface_shape + f));
    for (int k = 0; k < DG_MAX_FACE_VERTS; ++k) {
      const int64_t v = m->bface_verts[DG_MAX_FACE_VERTS * f + k];
      DG_CHECK(v >= -1 && v < m->n_nodes, DG_ERR_FORMAT,
               "%s: boundary face %lld vertex %d = %lld (byte offset %lld) is outside [-1, %lld)",
               path, (long long)f, k, (long long)v,
               (long long)(at->bface_verts + 8 * (DG_MAX_FACE_VERTS * f + k)),
               (long long)m->n_nodes);
    }
    DG_CHECK(m->bface_group[f] >= 0 && m->bface_group[f] < m->n_groups, DG_ERR_FORMAT,
             "%s: boundary face %lld group %d (byte offset %lld) is outside [0, %d)", path,
             (long long)f, m->bface_group[f], (long long)(at->bface_group + 4 * f), m->n_groups);
  }
  for (int64_t i = 0; i < m->n_periodic; ++i) {
    DG_CHECK(m->periodic_slave[i] >= 0 && m->periodic_slave[i] < m->n_nodes, DG_ERR_FORMAT,
             "%s: periodic slave %lld = %lld (byte offset %lld) is outside [0, %lld)", path,
             (long long)i, (long long)m->periodic_slave[i], (long long)(at->periodic_slave + 8 * i),
             (long long)m->n_nodes);
    DG_CHECK(m->periodic_master[i] >= 0 && m->periodic_master[i] < m->n_nodes, DG_ERR_FORMAT,
             "%s: periodic master %lld = %lld (byte offset %lld) is outside [0, %lld)", path,
             (long long)i, (long long)m->periodic_master[i],
             (long long)(at->periodic_master + 8 * i), (long long)m->n_nodes);
  }
  /* The remaining invariants (shape blocks, node counts per order,
   * orientation, z = 0 in 2D) are mesh_check's. */
  if (mesh_check(m) != DG_SUCCESS) {
    char reason[1024];
    snprintf(reason, sizeof reason, "%s", dg_error_message());
    DG_ERROR(DG_ERR_FORMAT, "%s: the checksum matches but the mesh is invalid: %s", path, reason);
  }
  return DG_SUCCESS;
}

static dg_status cdgm_read_open(cdgm_reader *r, dg_mesh *mesh) {
  const char *path = r->path;
  struct stat st;
  DG_CHECK(fstat(fileno(r->file), &st) == 0, DG_ERR_IO, "%s: cannot stat: %s", path,
           strerror(errno));
  const int64_t file_bytes = (int64_t)st.st_size;

  unsigned char header[CDGM_HEADER_BYTES];
  const size_t got = fread(header, 1, sizeof header, r->file);
  DG_CHECK(got >= 4 && memcmp(header, CDGM_MAGIC, 4) == 0, DG_ERR_FORMAT,
           "%s: not a ColorDG mesh file (bytes 0-3 are not \"CDGM\")", path);
  DG_CHECK(got == sizeof header, DG_ERR_FORMAT,
           "%s: truncated: the file is %lld bytes, shorter than the %d-byte header", path,
           (long long)file_bytes, CDGM_HEADER_BYTES);
  r->hash = dg_fnv1a(r->hash, header, sizeof header);
  r->offset = CDGM_HEADER_BYTES;

  const uint32_t version = dg_bytes_u32(header, CDGM_OFF_VERSION);
  const uint32_t mark = dg_bytes_u32(header, CDGM_OFF_ENDIAN);
  if (mark == CDGM_ENDIAN_MARK_SWAPPED)
    DG_ERROR(DG_ERR_FORMAT,
             "%s: the endianness mark (byte offset %d) is byte-swapped: the file was written on a "
             "machine of the other byte order; re-import the mesh on this machine",
             path, CDGM_OFF_ENDIAN);
  DG_CHECK(mark == CDGM_ENDIAN_MARK, DG_ERR_FORMAT,
           "%s: corrupted endianness mark 0x%08x at byte offset %d (expected 0x%08x)", path, mark,
           CDGM_OFF_ENDIAN, CDGM_ENDIAN_MARK);
  DG_CHECK(version == CDGM_VERSION, DG_ERR_FORMAT,
           "%s: format version %u (byte offset %d) is not supported; this ColorDG reads version %u",
           path, version, CDGM_OFF_VERSION, CDGM_VERSION);

  const uint32_t dim = dg_bytes_u32(header, CDGM_OFF_DIM),
                 order = dg_bytes_u32(header, CDGM_OFF_ORDER);
  const uint32_t n_groups = dg_bytes_u32(header, CDGM_OFF_N_GROUPS);
  DG_CHECK(dim == 2 || dim == 3, DG_ERR_FORMAT, "%s: dimension %u at byte offset %d is not 2 or 3",
           path, dim, CDGM_OFF_DIM);
  DG_CHECK(order >= 1 && order <= DG_MAX_GEOM_ORDER, DG_ERR_FORMAT,
           "%s: geometric order %u at byte offset %d is not in 1..%d", path, order, CDGM_OFF_ORDER,
           DG_MAX_GEOM_ORDER);

  const int64_t n_nodes = dg_bytes_i64(header, CDGM_OFF_N_NODES);
  const int64_t n_elems = dg_bytes_i64(header, CDGM_OFF_N_ELEMS);
  const int64_t n_elem_nodes = dg_bytes_i64(header, CDGM_OFF_N_ELEM_NODES);
  const int64_t n_bfaces = dg_bytes_i64(header, CDGM_OFF_N_BFACES);
  const int64_t n_periodic = dg_bytes_i64(header, CDGM_OFF_N_PERIODIC);
  int64_t shape_offset[DG_NUM_SHAPES + 1];
  memcpy(shape_offset, header + CDGM_OFF_SHAPE_OFFSET, sizeof shape_offset);

  /* Every size must fit in the file before anything is allocated. */
  cdgm_layout at;
  int64_t total = CDGM_HEADER_BYTES;
  int fits = 1;
  int bad_offset = -1;
#define CDGM_SECTION(field, count, size, header_offset)                                            \
  do {                                                                                             \
    at.field = total;                                                                              \
    if (fits && !cdgm_add_section(&total, (count), (size), file_bytes)) {                          \
      fits = 0;                                                                                    \
      bad_offset = (header_offset);                                                                \
    }                                                                                              \
  } while (0)
  CDGM_SECTION(x, n_nodes, 24, CDGM_OFF_N_NODES);
  CDGM_SECTION(elem_shape, n_elems, 1, CDGM_OFF_N_ELEMS);
  CDGM_SECTION(elem_node_start, n_elems < 0 ? -1 : n_elems + 1, 8, CDGM_OFF_N_ELEMS);
  CDGM_SECTION(elem_nodes, n_elem_nodes, 8, CDGM_OFF_N_ELEM_NODES);
  CDGM_SECTION(elem_tag, n_elems, 8, CDGM_OFF_N_ELEMS);
  CDGM_SECTION(groups, (int64_t)n_groups, CDGM_GROUP_BYTES, CDGM_OFF_N_GROUPS);
  CDGM_SECTION(bface_shape, n_bfaces, 1, CDGM_OFF_N_BFACES);
  CDGM_SECTION(bface_verts, n_bfaces, 8 * DG_MAX_FACE_VERTS, CDGM_OFF_N_BFACES);
  CDGM_SECTION(bface_group, n_bfaces, 4, CDGM_OFF_N_BFACES);
  CDGM_SECTION(bface_tag, n_bfaces, 8, CDGM_OFF_N_BFACES);
  CDGM_SECTION(periodic_slave, n_periodic, 8, CDGM_OFF_N_PERIODIC);
  CDGM_SECTION(periodic_master, n_periodic, 8, CDGM_OFF_N_PERIODIC);
  CDGM_SECTION(checksum, 1, 8, CDGM_OFF_N_PERIODIC);
#undef CDGM_SECTION
  DG_CHECK(fits, DG_ERR_FORMAT,
           "%s: the size field at byte offset %d is negative or needs more bytes than the file's "
           "%lld: the file is truncated or its header is corrupted",
           path, bad_offset, (long long)file_bytes);
  DG_CHECK(total == file_bytes, DG_ERR_FORMAT,
           "%s: the header sizes describe a %lld-byte file but the file has %lld bytes (%s)", path,
           (long long)total, (long long)file_bytes,
           total < file_bytes ? "trailing bytes after the checksum" : "truncated");
  DG_CHECK(shape_offset[0] == 0 && shape_offset[DG_NUM_SHAPES] == n_elems, DG_ERR_FORMAT,
           "%s: shape offsets (byte offset %d) span [%lld, %lld), not the %lld elements", path,
           CDGM_OFF_SHAPE_OFFSET, (long long)shape_offset[0],
           (long long)shape_offset[DG_NUM_SHAPES], (long long)n_elems);
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    DG_CHECK(shape_offset[s] <= shape_offset[s + 1], DG_ERR_FORMAT,
             "%s: shape offsets decrease at byte offset %d", path,
             CDGM_OFF_SHAPE_OFFSET + 8 * (s + 1));

  DG_CALL(mesh_alloc(mesh, n_nodes, n_elems, n_elem_nodes, (int)n_groups, n_bfaces, n_periodic));
  mesh->dim = (int)dim;
  mesh->geom_order = (int)order;
  memcpy(mesh->shape_offset, shape_offset, sizeof shape_offset);
  snprintf(mesh->source, sizeof mesh->source, "%s", path);

  const size_t ne = (size_t)n_elems, nb = (size_t)n_bfaces, np = (size_t)n_periodic;
  DG_CALL(cdgm_get(r, mesh->x, 3 * (size_t)n_nodes * sizeof(double), "x"));
  DG_CALL(cdgm_get(r, mesh->elem_shape, ne, "elem_shape"));
  DG_CALL(cdgm_get(r, mesh->elem_node_start, (ne + 1) * 8, "elem_node_start"));
  DG_CALL(cdgm_get(r, mesh->elem_nodes, (size_t)n_elem_nodes * 8, "elem_nodes"));
  DG_CALL(cdgm_get(r, mesh->elem_tag, ne * 8, "elem_tag"));
  for (uint32_t g = 0; g < n_groups; ++g) {
    unsigned char record[CDGM_GROUP_BYTES];
    DG_CALL(cdgm_get(r, record, sizeof record, "groups"));
    memcpy(mesh->groups[g].name, record, DG_GROUP_NAME_LEN);
    int32_t tag;
    memcpy(&tag, record + DG_GROUP_NAME_LEN, 4);
    mesh->groups[g].tag = tag;
  }
  DG_CALL(cdgm_get(r, mesh->bface_shape, nb, "bface_shape"));
  DG_CALL(cdgm_get(r, mesh->bface_verts, nb * 8 * DG_MAX_FACE_VERTS, "bface_verts"));
  DG_CALL(cdgm_get(r, mesh->bface_group, nb * 4, "bface_group"));
  DG_CALL(cdgm_get(r, mesh->bface_tag, nb * 8, "bface_tag"));
  DG_CALL(cdgm_get(r, mesh->periodic_slave, np * 8, "periodic_slave"));
  DG_CALL(cdgm_get(r, mesh->periodic_master, np * 8, "periodic_master"));

  const uint64_t computed = r->hash;
  uint64_t stored;
  DG_CHECK(fread(&stored, 1, 8, r->file) == 8, DG_ERR_IO,
           "%s: read of the checksum at byte offset %lld failed", path, (long long)at.checksum);
  DG_CHECK(stored == computed, DG_ERR_FORMAT,
           "%s: checksum mismatch (stored 0x%016llx at byte offset %lld, computed 0x%016llx): the "
           "file is corrupted",
           path, (unsigned long long)stored, (long long)at.checksum, (unsigned long long)computed);
  DG_CALL(cdgm_check_content(mesh, n_elem_nodes, &at, path));
  return DG_SUCCESS;
}

dg_status mesh_read_cdgm(const char *path, dg_mesh *mesh) {
  DG_CHECK(path && mesh, DG_ERR_ARG, "mesh_read_cdgm: path or mesh is NULL");
  memset(mesh, 0, sizeof *mesh);
  DG_CALL(mesh_check_regular_file(path, "mesh file"));
  errno = 0;
  cdgm_reader r = {fopen(path, "rb"), path, DG_FNV_OFFSET_BASIS, 0};
  DG_CHECK(r.file, DG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  const dg_status status = cdgm_read_open(&r, mesh);
  fclose(r.file);
  if (status != DG_SUCCESS) {
    dg_error_trace(__FILE__, __LINE__, __func__);
    mesh_free(mesh);
  }
  return status;
}
