/* Pre-scan of a Gmsh .msh file before the Gmsh SDK reads it.
 *
 * Gmsh trusts the counts and node tags a file declares: a node tag of -1 in
 * an element crashes its getElements, and a count or tag flipped by one bit
 * makes it allocate gigabytes before it notices the file ends. This scan
 * reads the whole file (MSH 2.2 and 4.1, ASCII and binary) with our own
 * bounded parser and refuses, with the file, the element and the line (or
 * byte offset), everything Gmsh would mishandle:
 *   - versions other than 2.2 / 4.1, data sizes other than 8;
 *   - counts larger than the bytes left in the file can hold;
 *   - fewer items than declared, declared tag ranges the data contradict;
 *   - node tags 0, negative or above 8 x the file size (Gmsh sizes dense
 *     caches by the largest tag);
 *   - elements, boundary elements and periodic links that use a node tag the
 *     file does not define, element types Gmsh does not know;
 *   - post-processing sections ($NodeData, ...) that Gmsh would load.
 * Memory used here grows only with items actually read. */
#define _POSIX_C_SOURCE 200809L

#include "mesh/mesh_msh_check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *path;
  const unsigned char *buf;
  size_t size, pos;
  int binary, swap;
  int (*nodes_of_type)(int type); /* nodes per element type, <= 0 when unknown */
  uint64_t *tags;                 /* node tags read so far */
  size_t n_tags, cap_tags;
  uint64_t max_tag; /* largest node or element tag accepted */
} msh_scan;

/* Line of byte offset pos (ASCII) for messages. */
static long msh_line(const msh_scan *s, size_t pos) {
  long line = 1;
  for (size_t i = 0; i < pos && i < s->size; ++i) line += s->buf[i] == '\n';
  return line;
}

static dg_status msh_fail(const msh_scan *s, const char *file, int line, const char *func,
                          const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static dg_status msh_fail(const msh_scan *s, const char *file, int line, const char *func,
                          const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (s->binary)
    return dg_error_set(DG_ERR_FORMAT, file, line, func, "%s (near byte %zu): %s", s->path, s->pos,
                        what);
  return dg_error_set(DG_ERR_FORMAT, file, line, func, "%s:%ld: %s", s->path, msh_line(s, s->pos),
                      what);
}

#define FAIL(...) return msh_fail(s, __FILE__, __LINE__, __func__, __VA_ARGS__)

static void msh_skip_space(msh_scan *s) {
  while (s->pos < s->size && (s->buf[s->pos] == ' ' || s->buf[s->pos] == '\t' ||
                              s->buf[s->pos] == '\n' || s->buf[s->pos] == '\r'))
    ++s->pos;
}

/* Next whitespace-delimited ASCII token into tok (NUL-terminated). */
static dg_status msh_token(msh_scan *s, char *tok, size_t n, const char *what) {
  msh_skip_space(s);
  size_t k = 0;
  while (s->pos < s->size && s->buf[s->pos] > ' ' && s->buf[s->pos] < 127) {
    if (k + 1 >= n) FAIL("%s is not a number (a token of more than %zu characters)", what, n - 1);
    tok[k++] = (char)s->buf[s->pos++];
  }
  tok[k] = '\0';
  if (k == 0) {
    if (s->pos >= s->size) FAIL("the file ends where %s was expected (truncated)", what);
    FAIL("unexpected byte 0x%02x where %s was expected", s->buf[s->pos], what);
  }
  return DG_SUCCESS;
}

/* An integer: ASCII token, or `bytes` (4 or 8) binary bytes, signed. */
static dg_status msh_int(msh_scan *s, int bytes, int64_t *out, const char *what) {
  if (s->binary) {
    if (s->size - s->pos < (size_t)bytes) FAIL("the file ends inside %s (truncated)", what);
    unsigned char b[8] = {0};
    memcpy(b, s->buf + s->pos, (size_t)bytes);
    if (s->swap)
      for (int i = 0; i < bytes / 2; ++i) {
        const unsigned char t = b[i];
        b[i] = b[bytes - 1 - i];
        b[bytes - 1 - i] = t;
      }
    if (bytes == 4) {
      int32_t v;
      memcpy(&v, b, 4);
      *out = v;
    } else {
      int64_t v;
      memcpy(&v, b, 8);
      *out = v;
    }
    s->pos += (size_t)bytes;
    return DG_SUCCESS;
  }
  char tok[40];
  DG_CALL(msh_token(s, tok, sizeof tok, what));
  char *end = NULL;
  errno = 0;
  long long v = strtoll(tok, &end, 10);
  if (*end != '\0') FAIL("%s: '%s' is not an integer", what, tok);
  if (errno == ERANGE && tok[0] != '-') {
    /* Gmsh reads tags as size_t: 2^64-1 is the -1 of the element checks. */
    errno = 0;
    const unsigned long long u = strtoull(tok, &end, 10);
    v = (long long)u;
  }
  if (errno == ERANGE) FAIL("%s: %s is out of range", what, tok);
  *out = v;
  return DG_SUCCESS;
}

static dg_status msh_double(msh_scan *s, const char *what) {
  if (s->binary) {
    if (s->size - s->pos < 8) FAIL("the file ends inside %s (truncated)", what);
    s->pos += 8;
    return DG_SUCCESS;
  }
  char tok[64];
  DG_CALL(msh_token(s, tok, sizeof tok, what));
  char *end = NULL;
  (void)strtod(tok, &end);
  if (*end != '\0' || end == tok) FAIL("%s: '%s' is not a number", what, tok);
  return DG_SUCCESS;
}

/* A count that `min_bytes` bytes per item of what is left must be able to hold. */
static dg_status msh_count(msh_scan *s, int bytes, size_t min_bytes, int64_t *n, const char *what) {
  DG_CALL(msh_int(s, bytes, n, what));
  if (*n < 0) FAIL("%s is negative (%lld)", what, (long long)*n);
  const size_t left = s->size - s->pos;
  if ((uint64_t)*n > left / (min_bytes ? min_bytes : 1) + 1)
    FAIL("%s is %lld, but the %zu bytes left in the file hold at most %zu; the count is corrupt or "
         "the file truncated",
         what, (long long)*n, left, left / (min_bytes ? min_bytes : 1) + 1);
  return DG_SUCCESS;
}

/* Skips the rest of the current line (ASCII; binary data is followed by "\n"). */
static void msh_skip_line(msh_scan *s) {
  while (s->pos < s->size && s->buf[s->pos] != '\n') ++s->pos;
  if (s->pos < s->size) ++s->pos;
}

/* Expects the line "$End<name>". */
static dg_status msh_end(msh_scan *s, const char *name) {
  char tok[64], want[64];
  snprintf(want, sizeof want, "$End%s", name);
  msh_skip_space(s);
  const size_t at = s->pos;
  size_t k = 0;
  while (s->pos < s->size && s->buf[s->pos] > ' ' && k + 1 < sizeof tok)
    tok[k++] = (char)s->buf[s->pos++];
  tok[k] = '\0';
  if (strcmp(tok, want) != 0) {
    s->pos = at;
    FAIL("expected %s here (the section holds more or less data than it declares)", want);
  }
  return DG_SUCCESS;
}

static dg_status msh_add_node(msh_scan *s, int64_t tag) {
  if (tag <= 0 || (uint64_t)tag > s->max_tag)
    FAIL("node tag %lld is not in 1..%llu (8 x the file size; Gmsh sizes its tables by the "
         "largest tag)",
         (long long)tag, (unsigned long long)s->max_tag);
  if (s->n_tags == s->cap_tags) {
    const size_t cap = s->cap_tags ? 2 * s->cap_tags : 1024;
    uint64_t *t = realloc(s->tags, cap * sizeof *t);
    DG_CHECK(t, DG_ERR_MEMORY, "%s: out of memory scanning the node tags", s->path);
    s->tags = t;
    s->cap_tags = cap;
  }
  s->tags[s->n_tags++] = (uint64_t)tag;
  return DG_SUCCESS;
}

static int msh_cmp_u64(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Sorts the node tags; refuses duplicates. */
static dg_status msh_finish_nodes(msh_scan *s) {
  qsort(s->tags, s->n_tags, sizeof *s->tags, msh_cmp_u64);
  for (size_t i = 1; i < s->n_tags; ++i)
    DG_CHECK(s->tags[i] != s->tags[i - 1], DG_ERR_FORMAT, "%s: node %llu is defined twice", s->path,
             (unsigned long long)s->tags[i]);
  return DG_SUCCESS;
}

static int msh_has_node(const msh_scan *s, int64_t tag) {
  if (tag <= 0) return 0;
  const uint64_t t = (uint64_t)tag;
  return bsearch(&t, s->tags, s->n_tags, sizeof t, msh_cmp_u64) != NULL;
}

/* Node tag k of element `elem` (of type `type`) must be a node of the file. */
static dg_status msh_check_node(msh_scan *s, int64_t elem, int type, int64_t tag) {
  if (!msh_has_node(s, tag))
    FAIL("element %lld (Gmsh type %d) uses node tag %lld (%llu as unsigned), which is not a node "
         "of the file",
         (long long)elem, type, (long long)tag, (unsigned long long)tag);
  return DG_SUCCESS;
}

static dg_status msh_elem_tag(msh_scan *s, int64_t tag) {
  if (tag <= 0 || (uint64_t)tag > s->max_tag)
    FAIL("element tag %lld is not in 1..%llu (8 x the file size)", (long long)tag,
         (unsigned long long)s->max_tag);
  return DG_SUCCESS;
}

static dg_status msh_type(msh_scan *s, int64_t type, int64_t elem, int *nn) {
  *nn = (type > 0 && type < 1000) ? s->nodes_of_type((int)type) : 0;
  if (*nn <= 0)
    FAIL("element %lld has Gmsh element type %lld, which Gmsh does not know", (long long)elem,
         (long long)type);
  return DG_SUCCESS;
}

/* ------------------------------------------------------------------ MSH 2.2 */

static dg_status msh2_nodes(msh_scan *s) {
  int64_t n = 0;
  /* The count line is ASCII even in binary files. */
  const int binary = s->binary;
  s->binary = 0;
  const dg_status st = msh_count(s, 0, binary ? 28 : 8, &n, "the $Nodes count");
  s->binary = binary;
  DG_CALL(st);
  if (s->binary) msh_skip_line(s);
  for (int64_t i = 0; i < n; ++i) {
    int64_t tag = 0;
    DG_CALL(msh_int(s, 4, &tag, "a node tag"));
    DG_CALL(msh_add_node(s, tag));
    for (int d = 0; d < 3; ++d) DG_CALL(msh_double(s, "a node coordinate"));
  }
  DG_CALL(msh_end(s, "Nodes"));
  return msh_finish_nodes(s);
}

static dg_status msh2_elements(msh_scan *s) {
  int64_t n = 0;
  if (s->binary) {
    /* The count line is ASCII even in binary files. */
    s->binary = 0;
    const dg_status st = msh_count(s, 0, 16, &n, "the $Elements count");
    s->binary = 1;
    DG_CALL(st);
    msh_skip_line(s);
    int64_t done = 0;
    while (done < n) {
      int64_t type = 0, count = 0, ntags = 0;
      int nn = 0;
      DG_CALL(msh_int(s, 4, &type, "an element block's type"));
      DG_CALL(msh_int(s, 4, &count, "an element block's count"));
      DG_CALL(msh_int(s, 4, &ntags, "an element block's tag count"));
      if (count <= 0 || count > n - done)
        FAIL("an element block declares %lld elements; %lld are left of the %lld the section "
             "declares",
             (long long)count, (long long)(n - done), (long long)n);
      if (ntags < 0 || ntags > 64) FAIL("an element block declares %lld tags", (long long)ntags);
      DG_CALL(msh_type(s, type, -1, &nn));
      if ((uint64_t)count * (uint64_t)(1 + ntags + nn) * 4 > s->size - s->pos)
        FAIL("an element block declares %lld elements, more than the file holds", (long long)count);
      for (int64_t e = 0; e < count; ++e) {
        int64_t tag = 0, v = 0;
        DG_CALL(msh_int(s, 4, &tag, "an element tag"));
        DG_CALL(msh_elem_tag(s, tag));
        for (int64_t k = 0; k < ntags; ++k) DG_CALL(msh_int(s, 4, &v, "an element tag"));
        for (int k = 0; k < nn; ++k) {
          DG_CALL(msh_int(s, 4, &v, "an element node"));
          DG_CALL(msh_check_node(s, tag, (int)type, v));
        }
      }
      done += count;
    }
  } else {
    DG_CALL(msh_count(s, 0, 8, &n, "the $Elements count"));
    for (int64_t e = 0; e < n; ++e) {
      int64_t tag = 0, type = 0, ntags = 0, v = 0;
      int nn = 0;
      DG_CALL(msh_int(s, 0, &tag, "an element tag"));
      DG_CALL(msh_elem_tag(s, tag));
      DG_CALL(msh_int(s, 0, &type, "an element type"));
      DG_CALL(msh_type(s, type, tag, &nn));
      DG_CALL(msh_int(s, 0, &ntags, "an element's tag count"));
      if (ntags < 0 || ntags > 64)
        FAIL("element %lld declares %lld tags", (long long)tag, (long long)ntags);
      for (int64_t k = 0; k < ntags; ++k) DG_CALL(msh_int(s, 0, &v, "an element tag"));
      for (int k = 0; k < nn; ++k) {
        DG_CALL(msh_int(s, 0, &v, "an element node"));
        DG_CALL(msh_check_node(s, tag, (int)type, v));
      }
    }
  }
  return msh_end(s, "Elements");
}

/* $Periodic of MSH 2.2: ASCII even in binary files. */
static dg_status msh2_periodic(msh_scan *s) {
  const int binary = s->binary;
  s->binary = 0;
  int64_t n = 0;
  dg_status st = msh_count(s, 0, 6, &n, "the $Periodic link count");
  for (int64_t l = 0; st == DG_SUCCESS && l < n; ++l) {
    int64_t v = 0, nn = 0;
    char tok[40];
    for (int k = 0; k < 3 && st == DG_SUCCESS; ++k) st = msh_int(s, 0, &v, "a periodic entity");
    if (st == DG_SUCCESS) st = msh_token(s, tok, sizeof tok, "a periodic node count");
    if (st != DG_SUCCESS) break;
    if (strcmp(tok, "Affine") == 0) {
      for (int k = 0; k < 16 && st == DG_SUCCESS; ++k) st = msh_double(s, "an affine value");
      if (st == DG_SUCCESS) st = msh_count(s, 0, 4, &nn, "a periodic node count");
    } else {
      char *end = NULL;
      nn = strtoll(tok, &end, 10);
      if (*end != '\0' || nn < 0 || (uint64_t)nn > (s->size - s->pos) / 4 + 1) {
        s->binary = binary;
        FAIL("a periodic node count '%s' is not a plausible count", tok);
      }
    }
    for (int64_t k = 0; st == DG_SUCCESS && k < 2 * nn; ++k) {
      st = msh_int(s, 0, &v, "a periodic node");
      if (st == DG_SUCCESS && !msh_has_node(s, v)) {
        s->binary = binary;
        FAIL("periodic link %lld uses node tag %lld, which is not a node of the file",
             (long long)l + 1, (long long)v);
      }
    }
  }
  if (st == DG_SUCCESS) st = msh_end(s, "Periodic");
  s->binary = binary;
  return st;
}

/* ------------------------------------------------------------------ MSH 4.1 */

/* $Entities: counts, then per entity tag, coordinates, physical tags and
 * (curves and up) bounding entities. */
static dg_status msh4_entities(msh_scan *s) {
  int64_t counts[4];
  for (int d = 0; d < 4; ++d)
    DG_CALL(msh_count(s, 8, s->binary ? 36 : 8, &counts[d], "an $Entities count"));
  for (int d = 0; d < 4; ++d)
    for (int64_t i = 0; i < counts[d]; ++i) {
      int64_t v = 0, np = 0;
      DG_CALL(msh_int(s, 4, &v, "an entity tag"));
      for (int k = 0; k < (d == 0 ? 3 : 6); ++k) DG_CALL(msh_double(s, "an entity coordinate"));
      DG_CALL(msh_count(s, 8, s->binary ? 4 : 2, &np, "an entity's physical tag count"));
      for (int64_t k = 0; k < np; ++k) DG_CALL(msh_int(s, 4, &v, "a physical tag"));
      if (d > 0) {
        DG_CALL(msh_count(s, 8, s->binary ? 4 : 2, &np, "an entity's bounding entity count"));
        for (int64_t k = 0; k < np; ++k) DG_CALL(msh_int(s, 4, &v, "a bounding entity"));
      }
    }
  return msh_end(s, "Entities");
}

static dg_status msh4_nodes(msh_scan *s) {
  int64_t n_blocks = 0, n_nodes = 0, min_tag = 0, max_tag = 0;
  DG_CALL(msh_count(s, 8, s->binary ? 20 : 8, &n_blocks, "the $Nodes block count"));
  DG_CALL(msh_count(s, 8, s->binary ? 32 : 8, &n_nodes, "the $Nodes count"));
  DG_CALL(msh_int(s, 8, &min_tag, "the smallest node tag"));
  DG_CALL(msh_int(s, 8, &max_tag, "the largest node tag"));
  int64_t seen = 0, lo = INT64_MAX, hi = 0;
  for (int64_t b = 0; b < n_blocks; ++b) {
    int64_t dim = 0, v = 0, param = 0, count = 0;
    DG_CALL(msh_int(s, 4, &dim, "a node block's dimension"));
    DG_CALL(msh_int(s, 4, &v, "a node block's entity"));
    DG_CALL(msh_int(s, 4, &param, "a node block's parametric flag"));
    if (dim < 0 || dim > 3) FAIL("a node block has dimension %lld", (long long)dim);
    if (param != 0 && param != 1) FAIL("a node block has parametric flag %lld", (long long)param);
    DG_CALL(msh_count(s, 8, s->binary ? 32 : 8, &count, "a node block's count"));
    if (count > n_nodes - seen)
      FAIL("node blocks hold more than the %lld nodes the section declares", (long long)n_nodes);
    for (int64_t i = 0; i < count; ++i) {
      DG_CALL(msh_int(s, 8, &v, "a node tag"));
      DG_CALL(msh_add_node(s, v));
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    const int per = 3 + (param ? (int)dim : 0);
    for (int64_t i = 0; i < count * per; ++i) DG_CALL(msh_double(s, "a node coordinate"));
    seen += count;
  }
  if (seen != n_nodes)
    FAIL("$Nodes declares %lld nodes but its blocks hold %lld", (long long)n_nodes,
         (long long)seen);
  if (n_nodes > 0 && (min_tag != lo || max_tag != hi))
    FAIL("$Nodes declares node tags %lld..%lld but holds %lld..%lld", (long long)min_tag,
         (long long)max_tag, (long long)lo, (long long)hi);
  DG_CALL(msh_end(s, "Nodes"));
  return msh_finish_nodes(s);
}

static dg_status msh4_elements(msh_scan *s) {
  int64_t n_blocks = 0, n_elems = 0, min_tag = 0, max_tag = 0;
  DG_CALL(msh_count(s, 8, s->binary ? 20 : 8, &n_blocks, "the $Elements block count"));
  DG_CALL(msh_count(s, 8, s->binary ? 16 : 4, &n_elems, "the $Elements count"));
  DG_CALL(msh_int(s, 8, &min_tag, "the smallest element tag"));
  DG_CALL(msh_int(s, 8, &max_tag, "the largest element tag"));
  int64_t seen = 0, lo = INT64_MAX, hi = 0;
  for (int64_t b = 0; b < n_blocks; ++b) {
    int64_t dim = 0, ent = 0, type = 0, count = 0;
    int nn = 0;
    DG_CALL(msh_int(s, 4, &dim, "an element block's dimension"));
    DG_CALL(msh_int(s, 4, &ent, "an element block's entity"));
    DG_CALL(msh_int(s, 4, &type, "an element block's type"));
    if (dim < 0 || dim > 3) FAIL("an element block has dimension %lld", (long long)dim);
    DG_CALL(msh_type(s, type, -1, &nn));
    DG_CALL(msh_count(s, 8, (size_t)(s->binary ? 8 * (1 + nn) : 2 * (1 + nn)), &count,
                      "an element block's count"));
    if (count > n_elems - seen)
      FAIL("element blocks hold more than the %lld elements the section declares",
           (long long)n_elems);
    for (int64_t e = 0; e < count; ++e) {
      int64_t tag = 0, v = 0;
      DG_CALL(msh_int(s, 8, &tag, "an element tag"));
      DG_CALL(msh_elem_tag(s, tag));
      if (tag < lo) lo = tag;
      if (tag > hi) hi = tag;
      for (int k = 0; k < nn; ++k) {
        DG_CALL(msh_int(s, 8, &v, "an element node"));
        DG_CALL(msh_check_node(s, tag, (int)type, v));
      }
    }
    seen += count;
  }
  if (seen != n_elems)
    FAIL("$Elements declares %lld elements but its blocks hold %lld", (long long)n_elems,
         (long long)seen);
  if (n_elems > 0 && (min_tag != lo || max_tag != hi))
    FAIL("$Elements declares element tags %lld..%lld but holds %lld..%lld", (long long)min_tag,
         (long long)max_tag, (long long)lo, (long long)hi);
  return msh_end(s, "Elements");
}

static dg_status msh4_periodic(msh_scan *s) {
  int64_t n = 0;
  DG_CALL(msh_count(s, 8, s->binary ? 36 : 8, &n, "the $Periodic link count"));
  for (int64_t l = 0; l < n; ++l) {
    int64_t v = 0, na = 0, nn = 0;
    for (int k = 0; k < 3; ++k) DG_CALL(msh_int(s, 4, &v, "a periodic entity"));
    DG_CALL(msh_count(s, 8, s->binary ? 8 : 2, &na, "a periodic affine count"));
    if (na != 0 && na != 16)
      FAIL("periodic link %lld has %lld affine values (0 or 16)", (long long)l + 1, (long long)na);
    for (int64_t k = 0; k < na; ++k) DG_CALL(msh_double(s, "an affine value"));
    DG_CALL(msh_count(s, 8, s->binary ? 16 : 4, &nn, "a periodic node count"));
    for (int64_t k = 0; k < 2 * nn; ++k) {
      DG_CALL(msh_int(s, 8, &v, "a periodic node"));
      if (!msh_has_node(s, v))
        FAIL("periodic link %lld uses node tag %lld, which is not a node of the file",
             (long long)l + 1, (long long)v);
    }
  }
  return msh_end(s, "Periodic");
}

/* ---------------------------------------------------------------- sections */

/* $PhysicalNames (ASCII in every variant): n, then `dim tag "name"` lines. */
static dg_status msh_physical_names(msh_scan *s) {
  const int binary = s->binary;
  s->binary = 0;
  int64_t n = 0;
  dg_status st = msh_count(s, 0, 6, &n, "the $PhysicalNames count");
  for (int64_t i = 0; st == DG_SUCCESS && i < n; ++i) {
    msh_skip_space(s);
    msh_skip_line(s);
  }
  if (st == DG_SUCCESS) st = msh_end(s, "PhysicalNames");
  s->binary = binary;
  return st;
}

/* Skips an unknown section to its $End line. */
static dg_status msh_skip_section(msh_scan *s, const char *name) {
  char want[80];
  const int n = snprintf(want, sizeof want, "$End%s", name);
  while (s->pos < s->size) {
    msh_skip_line(s);
    if (s->size - s->pos >= (size_t)n && memcmp(s->buf + s->pos, want, (size_t)n) == 0) {
      s->pos += (size_t)n;
      return DG_SUCCESS;
    }
  }
  FAIL("section $%s has no %s (truncated)", name, want);
}

dg_status mesh_msh_check(const char *path, int (*nodes_of_type)(int type)) {
  FILE *f = fopen(path, "rb");
  DG_CHECK(f, DG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  dg_status status = DG_SUCCESS;
  unsigned char *buf = NULL;
  long size = -1;
  if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  rewind(f);
  if (size < 0) {
    status = dg_error_set(DG_ERR_IO, __FILE__, __LINE__, __func__, "%s: cannot seek: %s", path,
                          strerror(errno));
  } else if (size == 0) {
    status =
        dg_error_set(DG_ERR_FORMAT, __FILE__, __LINE__, __func__, "%s: the file is empty", path);
  } else if (!(buf = malloc((size_t)size))) {
    status = dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                          "%s: out of memory reading %ld bytes", path, size);
  } else if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
    status = dg_error_set(DG_ERR_IO, __FILE__, __LINE__, __func__, "%s: cannot read: %s", path,
                          strerror(errno));
  } else {
    status = mesh_msh_check_buffer(path, buf, (size_t)size, nodes_of_type);
  }
  free(buf);
  fclose(f);
  return status;
}

static dg_status msh_scan_all(msh_scan *s) {
  char tok[64];
  DG_CALL(msh_token(s, tok, sizeof tok, "$MeshFormat"));
  if (strcmp(tok, "$MeshFormat") != 0)
    FAIL("not a Gmsh mesh file (it does not start with $MeshFormat)");
  DG_CALL(msh_token(s, tok, sizeof tok, "the format version"));
  int version;
  if (strcmp(tok, "2.2") == 0)
    version = 2;
  else if (strcmp(tok, "4.1") == 0)
    version = 4;
  else
    FAIL("MSH format version %s: ColorDG reads versions 2.2 and 4.1 (save the mesh from Gmsh "
         "with Mesh.MshFileVersion = 4.1)",
         tok);
  int64_t file_type = 0, data_size = 0;
  DG_CALL(msh_int(s, 0, &file_type, "the file type"));
  DG_CALL(msh_int(s, 0, &data_size, "the data size"));
  if (file_type != 0 && file_type != 1)
    FAIL("file type %lld is not 0 (ASCII) or 1 (binary)", (long long)file_type);
  if (data_size != 8) FAIL("data size %lld is not 8", (long long)data_size);
  if (file_type == 1) {
    msh_skip_line(s);
    if (s->size - s->pos < 4) FAIL("the file ends inside the endianness mark");
    int32_t one;
    memcpy(&one, s->buf + s->pos, 4);
    if (one != 1) {
      const uint32_t u = (uint32_t)one;
      if (((u >> 24) | ((u >> 8) & 0xff00u) | ((u << 8) & 0xff0000u) | (u << 24)) != 1u)
        FAIL("the endianness mark is %d, not 1", one);
      s->swap = 1;
    }
    s->pos += 4;
  }
  DG_CALL(msh_end(s, "MeshFormat"));
  s->binary = file_type == 1;
  int have_nodes = 0, have_elements = 0;
  for (;;) {
    msh_skip_space(s);
    if (s->pos >= s->size) break;
    const size_t at = s->pos;
    const int binary = s->binary;
    s->binary = 0; /* section headers are text */
    const dg_status st = msh_token(s, tok, sizeof tok, "a section name");
    s->binary = binary;
    DG_CALL(st);
    if (tok[0] != '$') {
      s->pos = at;
      FAIL("expected a section ($Name), found '%.20s'", tok);
    }
    const char *name = tok + 1;
    if (s->binary) msh_skip_line(s);
    if (strcmp(name, "PhysicalNames") == 0) {
      DG_CALL(msh_physical_names(s));
    } else if (strcmp(name, "Entities") == 0 && version == 4) {
      DG_CALL(msh4_entities(s));
    } else if (strcmp(name, "Nodes") == 0) {
      if (have_nodes) FAIL("a second $Nodes section");
      have_nodes = 1;
      DG_CALL(version == 4 ? msh4_nodes(s) : msh2_nodes(s));
    } else if (strcmp(name, "Elements") == 0) {
      if (!have_nodes) FAIL("$Elements comes before $Nodes");
      if (have_elements) FAIL("a second $Elements section");
      have_elements = 1;
      DG_CALL(version == 4 ? msh4_elements(s) : msh2_elements(s));
    } else if (strcmp(name, "Periodic") == 0) {
      if (!have_nodes) FAIL("$Periodic comes before $Nodes");
      DG_CALL(version == 4 ? msh4_periodic(s) : msh2_periodic(s));
    } else if (!strcmp(name, "NodeData") || !strcmp(name, "ElementData") ||
               !strcmp(name, "ElementNodeData") || !strcmp(name, "PartitionedEntities") ||
               !strcmp(name, "Parametrizations") || !strcmp(name, "GhostElements") ||
               !strcmp(name, "InterpolationScheme") || !strcmp(name, "MeshFormat")) {
      s->pos = at;
      FAIL("section $%s: ColorDG reads only meshes ($PhysicalNames, $Entities, $Nodes, "
           "$Elements, $Periodic); save the mesh without post-processing data or partitions",
           name);
    } else {
      char copy[64];
      snprintf(copy, sizeof copy, "%s", name);
      DG_CALL(msh_skip_section(s, copy));
    }
  }
  if (!have_nodes || !have_elements)
    DG_CHECK(0, DG_ERR_FORMAT, "%s: the file has no %s section (truncated or not a mesh)", s->path,
             have_nodes ? "$Elements" : "$Nodes");
  return DG_SUCCESS;
}

dg_status mesh_msh_check_buffer(const char *path, const unsigned char *buf, size_t size,
                                int (*nodes_of_type)(int type)) {
  msh_scan scan = {.path = path, .buf = buf, .size = size, .nodes_of_type = nodes_of_type};
  scan.max_tag = 8 * (uint64_t)size;
  const dg_status status = msh_scan_all(&scan);
  free(scan.tags);
  return status;
}
