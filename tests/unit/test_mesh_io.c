/* Mesh I/O: the .cdgm native format (round trip, truncation and corruption
 * refused, golden file), mesh_check, mesh_renumber_elements and, when the
 * Gmsh SDK is present, .geo/.msh import (counts, orientation, periodic links,
 * formats 2.2/4.1 ASCII/binary identical, errors).
 *
 * Usage: test_mesh_io                 run the tests
 *        test_mesh_io --write-fixtures DIR
 *                                     rewrite the committed fixtures in DIR
 *                                     (tools/make_io_fixtures.sh) */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef COLORDG_HAVE_OPENMP
#include <omp.h>
#endif
#include <sys/stat.h>
#include <unistd.h>

#include "mesh/mesh.h"
#include "test_util.h"

#ifdef COLORDG_HAVE_GMSH
#include <gmshc.h>
#endif

/* Gmsh 4.8's MSH 2 reader leaks the elements it had read when it meets a
 * truncated file, and the sanitizer build (COLORDG_SANITIZE) would fail on
 * it. Only allocations with libgmsh on their stack are ignored; ColorDG's
 * own never have it. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libgmsh\n"; }

static const char *g_dir = "mesh_io_work";

static void work_path(char *out, size_t size, const char *name) {
  snprintf(out, size, "%s/%s", g_dir, name);
}

static unsigned char *read_bytes(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *data = malloc(n > 0 ? (size_t)n : 1);
  *size = fread(data, 1, (size_t)n, f);
  fclose(f);
  return data;
}

static void write_bytes(const char *path, const unsigned char *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    test_fail(__FILE__, __LINE__, "cannot write %s", path);
    return;
  }
  fwrite(data, 1, size, f);
  fclose(f);
}

/* Every array of a and b equal, coordinates within x_tol (0: bitwise);
 * reports the first difference. */
static int mesh_equal_tol(const dg_mesh *a, const dg_mesh *b, double x_tol, const char *what) {
#define DIFF(cond, ...)                                                                            \
  do {                                                                                             \
    if (cond) {                                                                                    \
      test_fail(__FILE__, __LINE__, __VA_ARGS__);                                                  \
      return 0;                                                                                    \
    }                                                                                              \
  } while (0)
  ++test_checks;
  DIFF(a->dim != b->dim || a->geom_order != b->geom_order, "%s: dim/order differ", what);
  DIFF(a->n_nodes != b->n_nodes || a->n_elems != b->n_elems || a->n_groups != b->n_groups ||
           a->n_bfaces != b->n_bfaces || a->n_periodic != b->n_periodic,
       "%s: sizes differ (nodes %lld/%lld elems %lld/%lld groups %d/%d bfaces %lld/%lld periodic "
       "%lld/%lld)",
       what, (long long)a->n_nodes, (long long)b->n_nodes, (long long)a->n_elems,
       (long long)b->n_elems, a->n_groups, b->n_groups, (long long)a->n_bfaces,
       (long long)b->n_bfaces, (long long)a->n_periodic, (long long)b->n_periodic);
  DIFF(memcmp(a->shape_offset, b->shape_offset, sizeof a->shape_offset), "%s: shape offsets", what);
  if (x_tol == 0.0)
    DIFF(memcmp(a->x, b->x, 3 * (size_t)a->n_nodes * sizeof(double)), "%s: coordinates", what);
  for (int64_t i = 0; i < 3 * a->n_nodes; ++i)
    DIFF(fabs(a->x[i] - b->x[i]) > x_tol, "%s: coordinate %lld: %.17g vs %.17g", what, (long long)i,
         a->x[i], b->x[i]);
  DIFF(memcmp(a->elem_shape, b->elem_shape, (size_t)a->n_elems), "%s: elem_shape", what);
  DIFF(memcmp(a->elem_node_start, b->elem_node_start, ((size_t)a->n_elems + 1) * 8),
       "%s: elem_node_start", what);
  DIFF(memcmp(a->elem_nodes, b->elem_nodes, (size_t)a->elem_node_start[a->n_elems] * 8),
       "%s: elem_nodes", what);
  DIFF(memcmp(a->elem_tag, b->elem_tag, (size_t)a->n_elems * 8), "%s: elem_tag", what);
  for (int g = 0; g < a->n_groups; ++g)
    DIFF(strcmp(a->groups[g].name, b->groups[g].name) || a->groups[g].tag != b->groups[g].tag,
         "%s: group %d (%s/%s)", what, g, a->groups[g].name, b->groups[g].name);
  DIFF(memcmp(a->bface_shape, b->bface_shape, (size_t)a->n_bfaces), "%s: bface_shape", what);
  DIFF(memcmp(a->bface_verts, b->bface_verts, (size_t)a->n_bfaces * 8 * DG_MAX_FACE_VERTS),
       "%s: bface_verts", what);
  DIFF(memcmp(a->bface_group, b->bface_group, (size_t)a->n_bfaces * 4), "%s: bface_group", what);
  DIFF(memcmp(a->bface_tag, b->bface_tag, (size_t)a->n_bfaces * 8), "%s: bface_tag", what);
  DIFF(memcmp(a->periodic_slave, b->periodic_slave, (size_t)a->n_periodic * 8),
       "%s: periodic_slave", what);
  DIFF(memcmp(a->periodic_master, b->periodic_master, (size_t)a->n_periodic * 8),
       "%s: periodic_master", what);
#undef DIFF
  return 1;
}

static int mesh_equal(const dg_mesh *a, const dg_mesh *b, const char *what) {
  return mesh_equal_tol(a, b, 0.0, what);
}

/* A 2x1 rectangle: quad [0,1]x[0,1] (tag 10) and triangles (tags 20, 21)
 * in [1,2]x[0,1]; groups "wall" (bottom), "farfield" (the rest); the right
 * side periodic with the left. Built by hand so it needs no Gmsh. */
static void build_small_mesh(dg_mesh *m) {
  memset(m, 0, sizeof *m);
  TEST_OK(mesh_alloc(m, 6, 3, 10, 2, 6, 2));
  m->dim = 2;
  m->geom_order = 1;
  snprintf(m->source, sizeof m->source, "small mesh");
  const double x[6][2] = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}};
  for (int i = 0; i < 6; ++i) {
    m->x[3 * i] = x[i][0];
    m->x[3 * i + 1] = x[i][1];
  }
  m->shape_offset[DG_TRI] = 0;
  m->shape_offset[DG_QUAD] = 2;
  for (int s = DG_TET; s <= DG_NUM_SHAPES; ++s) m->shape_offset[s] = 3;
  const int64_t nodes[10] = {1, 2, 5, 1, 5, 4, 0, 1, 4, 3};
  memcpy(m->elem_nodes, nodes, sizeof nodes);
  const int64_t start[4] = {0, 3, 6, 10};
  memcpy(m->elem_node_start, start, sizeof start);
  m->elem_shape[0] = m->elem_shape[1] = DG_TRI;
  m->elem_shape[2] = DG_QUAD;
  m->elem_tag[0] = 20;
  m->elem_tag[1] = 21;
  m->elem_tag[2] = 10;
  snprintf(m->groups[0].name, DG_GROUP_NAME_LEN, "wall");
  m->groups[0].tag = 3;
  snprintf(m->groups[1].name, DG_GROUP_NAME_LEN, "farfield");
  m->groups[1].tag = 4;
  const int64_t faces[6][2] = {{0, 1}, {1, 2}, {2, 5}, {5, 4}, {4, 3}, {3, 0}};
  for (int f = 0; f < 6; ++f) {
    m->bface_shape[f] = DG_LINE;
    m->bface_verts[4 * f] = faces[f][0];
    m->bface_verts[4 * f + 1] = faces[f][1];
    m->bface_verts[4 * f + 2] = m->bface_verts[4 * f + 3] = -1;
    m->bface_group[f] = f < 2 ? 0 : 1;
    m->bface_tag[f] = 100 + f;
  }
  m->periodic_slave[0] = 2;
  m->periodic_master[0] = 0;
  m->periodic_slave[1] = 5;
  m->periodic_master[1] = 3;
}

static uint64_t fnv1a(const unsigned char *data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= data[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* Rewrites the trailing checksum so a test can reach the content checks. */
static void fix_checksum(unsigned char *data, size_t size) {
  const uint64_t h = fnv1a(data, size - 8);
  memcpy(data + size - 8, &h, 8);
}

static void test_cdgm_round_trip(void) {
  dg_mesh a, b;
  build_small_mesh(&a);
  TEST_OK(mesh_check(&a));
  char path[512], path2[512];
  work_path(path, sizeof path, "small.cdgm");
  work_path(path2, sizeof path2, "small_again.cdgm");
  TEST_OK(mesh_write_cdgm(&a, path));
  TEST_OK(mesh_read_cdgm(path, &b));
  mesh_equal(&a, &b, "cdgm round trip");
  TEST_CHECK(strcmp(b.source, path) == 0, "source is %s", b.source);
  mesh_free(&b);
  TEST_OK(mesh_read(path, 0, &b));
  mesh_equal(&a, &b, "mesh_read dispatch");
  /* Same mesh, same bytes: the writer leaves nothing uninitialised. */
  TEST_OK(mesh_write_cdgm(&b, path2));
  size_t n1 = 0, n2 = 0;
  unsigned char *d1 = read_bytes(path, &n1), *d2 = read_bytes(path2, &n2);
  TEST_CHECK(d1 && d2 && n1 == n2 && memcmp(d1, d2, n1) == 0, "rewritten file differs");
  /* No temporary file is left behind. */
  char tmp[600];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  TEST_CHECK(access(tmp, F_OK) != 0, "temporary file %s left behind", tmp);
  free(d1);
  free(d2);
  mesh_free(&a);
  mesh_free(&b);
  TEST_FAILS(mesh_read("mesh.vtk", 0, &b), DG_ERR_ARG, "unknown mesh file extension");
  TEST_FAILS(mesh_read_cdgm("does/not/exist.cdgm", &b), DG_ERR_IO, "does/not/exist.cdgm");
}

/* Every truncation and every single-byte change must be refused with
 * DG_ERR_FORMAT (the checksum catches any one-byte change; the header
 * checks catch size fields before anything is allocated). */
static void test_cdgm_corruption(void) {
  dg_mesh a, b;
  build_small_mesh(&a);
  char path[512], bad[512];
  work_path(path, sizeof path, "corrupt_source.cdgm");
  work_path(bad, sizeof bad, "corrupt.cdgm");
  TEST_OK(mesh_write_cdgm(&a, path));
  size_t size = 0;
  unsigned char *good = read_bytes(path, &size);
  TEST_CHECK(good && size > 200, "written file has %zu bytes", size);
  if (!good) return;
  unsigned char *copy = malloc(size + 16);

  int accepted = 0, wrong_code = 0;
  for (size_t cut = 0; cut < size; ++cut) {
    write_bytes(bad, good, cut);
    const dg_status s = mesh_read_cdgm(bad, &b);
    if (s == DG_SUCCESS)
      ++accepted;
    else if (s != DG_ERR_FORMAT)
      ++wrong_code;
    if (s == DG_SUCCESS) mesh_free(&b);
    dg_error_clear();
  }
  TEST_CHECK(accepted == 0 && wrong_code == 0,
             "truncations: %d accepted, %d refused with another code than DG_ERR_FORMAT", accepted,
             wrong_code);

  const unsigned char flips[3] = {0x01, 0x80, 0xff};
  accepted = wrong_code = 0;
  for (size_t at = 0; at < size; ++at)
    for (int k = 0; k < 3; ++k) {
      memcpy(copy, good, size);
      copy[at] ^= flips[k];
      write_bytes(bad, copy, size);
      const dg_status s = mesh_read_cdgm(bad, &b);
      if (s == DG_SUCCESS) {
        ++accepted;
        mesh_free(&b);
      } else if (s != DG_ERR_FORMAT) {
        ++wrong_code;
      }
      dg_error_clear();
    }
  TEST_CHECK(accepted == 0 && wrong_code == 0,
             "byte flips: %d accepted, %d refused with another code than DG_ERR_FORMAT", accepted,
             wrong_code);

  /* Trailing garbage. */
  memcpy(copy, good, size);
  memset(copy + size, 0, 16);
  write_bytes(bad, copy, size + 16);
  TEST_FAILS(mesh_read_cdgm(bad, &b), DG_ERR_FORMAT, "trailing bytes");

  /* The byte order mark of a big-endian writer. */
  memcpy(copy, good, size);
  const uint32_t swapped = 0x04030201u;
  memcpy(copy + 8, &swapped, 4);
  write_bytes(bad, copy, size);
  TEST_FAILS(mesh_read_cdgm(bad, &b), DG_ERR_FORMAT, "other byte order");

  /* A huge node count (checksum fixed) is refused before any allocation. */
  memcpy(copy, good, size);
  const int64_t huge = INT64_MAX / 2;
  memcpy(copy + 24, &huge, 8);
  fix_checksum(copy, size);
  write_bytes(bad, copy, size);
  TEST_FAILS(mesh_read_cdgm(bad, &b), DG_ERR_FORMAT, "byte offset 24");

  /* Future version. */
  memcpy(copy, good, size);
  const uint32_t version = 2;
  memcpy(copy + 4, &version, 4);
  write_bytes(bad, copy, size);
  TEST_FAILS(mesh_read_cdgm(bad, &b), DG_ERR_FORMAT, "version 2");

  /* Content a buggy writer could produce: checksum right, node index out of
   * range. elem_nodes starts after header (120), x (6*24), elem_shape (3)
   * and elem_node_start (4*8). */
  memcpy(copy, good, size);
  const int64_t far_node = 99;
  const size_t elem_nodes_at = 120 + 6 * 24 + 3 + 4 * 8;
  memcpy(copy + elem_nodes_at + 8, &far_node, 8);
  fix_checksum(copy, size);
  write_bytes(bad, copy, size);
  char expect[64];
  snprintf(expect, sizeof expect, "byte offset %zu", elem_nodes_at + 8);
  TEST_FAILS(mesh_read_cdgm(bad, &b), DG_ERR_FORMAT, expect);

  /* Checksum right, an element turned inside out: mesh_check's verdict. */
  memcpy(copy, good, size);
  int64_t swap[2];
  memcpy(swap, copy + elem_nodes_at + 8, 16);
  const int64_t swapped_nodes[2] = {swap[1], swap[0]};
  memcpy(copy + elem_nodes_at + 8, swapped_nodes, 16);
  fix_checksum(copy, size);
  write_bytes(bad, copy, size);
  TEST_FAILS(mesh_read_cdgm(bad, &b), DG_ERR_FORMAT, "tag 20");

  free(copy);
  free(good);
  mesh_free(&a);
}

static void test_mesh_check(void) {
  dg_mesh m;
  build_small_mesh(&m);
  TEST_OK(mesh_check(&m));
  m.elem_nodes[4] = 6;
  TEST_FAILS(mesh_check(&m), DG_ERR_MESH, "tag 21");
  m.elem_nodes[4] = 5;
  m.x[3 * 4 + 2] = 1e-3;
  TEST_FAILS(mesh_check(&m), DG_ERR_MESH, "z = ");
  m.x[3 * 4 + 2] = 0.0;
  m.elem_shape[1] = DG_QUAD;
  TEST_FAILS(mesh_check(&m), DG_ERR_MESH, "block of shape 1");
  m.elem_shape[1] = DG_TRI;
  m.bface_group[3] = 2;
  TEST_FAILS(mesh_check(&m), DG_ERR_MESH, "tag 103");
  m.bface_group[3] = 1;
  m.geom_order = 2;
  TEST_FAILS(mesh_check(&m), DG_ERR_MESH, "order 2 needs 6");
  m.geom_order = 1;
  /* Clockwise quad: 0 4 1 3 would self-intersect; 0 3 4 1 is the mirror. */
  const int64_t cw[4] = {0, 3, 4, 1};
  memcpy(m.elem_nodes + 6, cw, sizeof cw);
  TEST_FAILS(mesh_check(&m), DG_ERR_MESH, "tag 10");
  mesh_free(&m);
}

static void test_renumber_and_groups(void) {
  dg_mesh m;
  build_small_mesh(&m);
  TEST_CHECK(mesh_find_group(&m, "farfield") == 1, "farfield group");
  TEST_CHECK(mesh_find_group(&m, "wall") == 0, "wall group");
  TEST_CHECK(mesh_find_group(&m, "inlet") == -1, "missing group");
  const int64_t across[3] = {2, 0, 1};
  TEST_FAILS(mesh_renumber_elements(&m, across), DG_ERR_ARG, "out of the block");
  const int64_t repeated[3] = {0, 0, 2};
  TEST_FAILS(mesh_renumber_elements(&m, repeated), DG_ERR_ARG, "repeated");
  const int64_t outside[3] = {1, 0, 3};
  TEST_FAILS(mesh_renumber_elements(&m, outside), DG_ERR_ARG, "out of range");
  const int64_t swap[3] = {1, 0, 2};
  TEST_OK(mesh_renumber_elements(&m, swap));
  TEST_CHECK(m.elem_tag[0] == 21 && m.elem_tag[1] == 20 && m.elem_tag[2] == 10, "tags %lld %lld",
             (long long)m.elem_tag[0], (long long)m.elem_tag[1]);
  TEST_CHECK(m.elem_nodes[0] == 1 && m.elem_nodes[1] == 5 && m.elem_nodes[2] == 4 &&
                 m.elem_nodes[3] == 1 && m.elem_nodes[6] == 0,
             "nodes after renumbering");
  TEST_OK(mesh_check(&m));
  mesh_free(&m);
}

/* The committed fixture is the small mesh written by version 1 of the
 * format: reading it checks that the format did not change by accident. */
static void test_cdgm_fixture(void) {
  const uint32_t probe = 0x01020304u;
  if (*(const unsigned char *)&probe != 0x04) {
    printf("  big-endian host: the little-endian fixture is refused by design; skipped\n");
    return;
  }
  dg_mesh a, b;
  build_small_mesh(&a);
  TEST_OK(mesh_read_cdgm(COLORDG_TEST_DATA "/io_small_mixed.cdgm", &b));
  mesh_equal(&a, &b, "committed fixture io_small_mixed.cdgm");
  mesh_free(&a);
  mesh_free(&b);
}

/* Issue 12: two boundary groups with one name would both be mapped by one
 * case line; the reader refuses the file. */
static void test_cdgm_duplicate_group_names(void) {
  dg_mesh a, b;
  build_small_mesh(&a);
  if (a.n_groups < 2) {
    TEST_CHECK(0, "the small mesh has %d groups", a.n_groups);
    mesh_free(&a);
    return;
  }
  snprintf(a.groups[1].name, sizeof a.groups[1].name, "%s", a.groups[0].name);
  char path[512];
  work_path(path, sizeof path, "dup_groups.cdgm");
  TEST_OK(mesh_write_cdgm(&a, path));
  TEST_FAILS(mesh_read(path, 0, &b), DG_ERR_FORMAT, "are both named");
  mesh_free(&a);
}

#ifdef COLORDG_HAVE_GMSH
/* ------------------------------------------------------------- Gmsh import */

static const char *square_points =
    "Point(1) = {0, 0, 0, 0.3}; Point(2) = {1, 0, 0, 0.3};\n"
    "Point(3) = {1, 1, 0, 0.3}; Point(4) = {0, 1, 0, 0.3};\n"
    "Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};\n";

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) {
    test_fail(__FILE__, __LINE__, "cannot write %s", path);
    return;
  }
  fputs(text, f);
  fclose(f);
}

/* Writes name.geo in the work dir from a printf format; returns its path. */
static const char *make_geo(char *path, size_t size, const char *name, const char *body) {
  work_path(path, size, name);
  write_text(path, body);
  return path;
}

static double elem_area(const dg_mesh *m, int64_t e) {
  const int64_t *n = m->elem_nodes + m->elem_node_start[e];
  const int nv = shape_n_verts((dg_shape)m->elem_shape[e]);
  double a = 0.0;
  for (int k = 0; k < nv; ++k) {
    const double *p = m->x + 3 * n[k], *q = m->x + 3 * n[(k + 1) % nv];
    a += 0.5 * (p[0] * q[1] - q[0] * p[1]);
  }
  return a;
}

static double tet_volume(const dg_mesh *m, int64_t e) {
  const int64_t *n = m->elem_nodes + m->elem_node_start[e];
  double a[3][3];
  for (int k = 0; k < 3; ++k)
    for (int d = 0; d < 3; ++d) a[k][d] = m->x[3 * n[k + 1] + d] - m->x[3 * n[0] + d];
  return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
          a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
          a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])) /
         6.0;
}

static int64_t count_shape(const dg_mesh *m, dg_shape s) {
  return m->shape_offset[s + 1] - m->shape_offset[s];
}

/* On a straight-sided planar mesh every high-order node sits at the image of
 * its reference coordinates under the vertex map (affine tri, bilinear
 * quad): checks Gmsh's node order and the flip permutation together. */
static double max_node_misplacement(const dg_mesh *m) {
  double worst = 0.0;
  for (int64_t e = 0; e < m->n_elems; ++e) {
    const dg_shape s = (dg_shape)m->elem_shape[e];
    const int64_t *n = m->elem_nodes + m->elem_node_start[e];
    for (int i = 0; i < mesh_elem_n_nodes(m, e); ++i) {
      double xi[3], w[4];
      shape_node_ref(s, m->geom_order, i, xi);
      int nv = 3;
      if (s == DG_TRI) {
        w[0] = 1 - xi[0] - xi[1];
        w[1] = xi[0];
        w[2] = xi[1];
      } else {
        nv = 4;
        w[0] = 0.25 * (1 - xi[0]) * (1 - xi[1]);
        w[1] = 0.25 * (1 + xi[0]) * (1 - xi[1]);
        w[2] = 0.25 * (1 + xi[0]) * (1 + xi[1]);
        w[3] = 0.25 * (1 - xi[0]) * (1 + xi[1]);
      }
      for (int d = 0; d < 2; ++d) {
        double x = 0.0;
        for (int k = 0; k < nv; ++k) x += w[k] * m->x[3 * n[k] + d];
        worst = fmax(worst, fabs(x - m->x[3 * n[i] + d]));
      }
    }
  }
  return worst;
}

/* Sign of the area of the first 2D element exactly as Gmsh stores it. */
static double raw_gmsh_first_area(const char *path) {
  int ierr = 0;
  gmshInitialize(0, NULL, 0, &ierr);
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  gmshOpen(path, &ierr);
  gmshModelMeshGenerate(2, &ierr);
  size_t *tags = NULL, n_tags = 0, *nodes = NULL, n_nodes = 0;
  gmshModelMeshGetElementsByType(2, &tags, &n_tags, &nodes, &n_nodes, -1, 0, 1, &ierr);
  double area = 0.0;
  if (!ierr && n_nodes >= 3) {
    double p[3][3];
    for (int k = 0; k < 3; ++k) {
      double *c = NULL, *pc = NULL;
      size_t nc = 0, npc = 0;
      gmshModelMeshGetNode(nodes[k], &c, &nc, &pc, &npc, &ierr);
      if (!ierr && nc == 3) memcpy(p[k], c, 3 * sizeof(double));
      gmshFree(c);
      gmshFree(pc);
    }
    area = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]);
  }
  gmshFree(tags);
  gmshFree(nodes);
  gmshFinalize(&ierr);
  return area;
}

static void check_round_trip(const dg_mesh *m, const char *name) {
  char path[512];
  work_path(path, sizeof path, name);
  dg_mesh b;
  TEST_OK(mesh_write_cdgm(m, path));
  TEST_OK(mesh_read_cdgm(path, &b));
  mesh_equal(m, &b, name);
  mesh_free(&b);
}

#ifdef COLORDG_HAVE_GMSH
/* Issue 12 item 13: Gmsh's initialisation set the OpenMP thread count to 1,
 * so a run whose mesh was a .geo (or .msh) used one thread. */
static void test_gmsh_keeps_thread_count(void) {
#ifdef COLORDG_HAVE_OPENMP
  char geo[512], body[2048];
  snprintf(body, sizeof body,
           "%s Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};\n"
           "Physical Curve(\"wall\") = {1, 2, 3, 4}; Physical Surface(\"fluid\") = {1};\n",
           square_points);
  make_geo(geo, sizeof geo, "io_threads.geo", body);
  omp_set_num_threads(3);
  dg_mesh m;
  TEST_OK(mesh_read(geo, 0, &m));
  TEST_CHECK(omp_get_max_threads() == 3, "after reading a .geo: %d OpenMP threads, set 3",
             omp_get_max_threads());
  mesh_free(&m);
#else
  printf("  built without OpenMP: thread count test skipped\n");
#endif
}
#endif

static void test_gmsh_square_tri(void) {
  char geo[512], body[2048];
  snprintf(body, sizeof body,
           "%s Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};\n"
           "Physical Curve(\"wall\") = {1}; Physical Curve(\"farfield\") = {2, 3};\n"
           "Physical Curve(7) = {4}; Physical Surface(\"fluid\") = {1};\n",
           square_points);
  make_geo(geo, sizeof geo, "io_square_tri.geo", body);
  dg_mesh m;
  TEST_OK(mesh_read(geo, 0, &m));
  TEST_CHECK(m.dim == 2 && m.geom_order == 1, "dim %d order %d", m.dim, m.geom_order);
  TEST_CHECK(count_shape(&m, DG_TRI) == m.n_elems && m.n_elems > 10, "%lld triangles",
             (long long)m.n_elems);
  TEST_CHECK(m.n_groups == 3, "%d groups", m.n_groups);
  if (m.n_groups == 3) {
    TEST_CHECK(strcmp(m.groups[0].name, "wall") == 0, "group 0 is %s", m.groups[0].name);
    TEST_CHECK(strcmp(m.groups[1].name, "farfield") == 0, "group 1 is %s", m.groups[1].name);
    TEST_CHECK(strcmp(m.groups[2].name, "group7") == 0 && m.groups[2].tag == 7, "group 2 is %s",
               m.groups[2].name);
  }
  double area = 0.0, perimeter[3] = {0, 0, 0};
  for (int64_t e = 0; e < m.n_elems; ++e) area += elem_area(&m, e);
  for (int64_t f = 0; f < m.n_bfaces; ++f) {
    const double *p = m.x + 3 * m.bface_verts[4 * f], *q = m.x + 3 * m.bface_verts[4 * f + 1];
    perimeter[m.bface_group[f]] += hypot(q[0] - p[0], q[1] - p[1]);
  }
  TEST_CLOSE(area, 1.0, 1e-12, "area of the unit square");
  TEST_CLOSE(perimeter[0], 1.0, 1e-12, "length of wall");
  TEST_CLOSE(perimeter[1], 2.0, 1e-12, "length of farfield");
  TEST_CLOSE(perimeter[2], 1.0, 1e-12, "length of group7");
  TEST_CHECK(m.n_periodic == 0, "no periodic links");
  for (int64_t e = 1; e < m.n_elems; ++e)
    TEST_CHECK(m.elem_tag[e] > m.elem_tag[e - 1], "elements sorted by tag");
  check_round_trip(&m, "io_square_tri.cdgm");
  mesh_free(&m);
}

static void test_gmsh_structured(void) {
  char geo[512], body[4096];
  dg_mesh m;
  /* 4 x 3 quads: exact counts. */
  snprintf(body, sizeof body,
           "%s Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};\n"
           "Transfinite Curve{1, 3} = 5; Transfinite Curve{2, 4} = 4;\n"
           "Transfinite Surface{1}; Recombine Surface{1};\n"
           "Physical Curve(\"wall\") = {1, 2, 3, 4}; Physical Surface(\"fluid\") = {1};\n",
           square_points);
  TEST_OK(mesh_read(make_geo(geo, sizeof geo, "io_quad.geo", body), 0, &m));
  TEST_CHECK(m.n_elems == 12 && count_shape(&m, DG_QUAD) == 12, "%lld elements",
             (long long)m.n_elems);
  TEST_CHECK(m.n_nodes == 20 && m.n_bfaces == 14, "%lld nodes %lld bfaces", (long long)m.n_nodes,
             (long long)m.n_bfaces);
  check_round_trip(&m, "io_quad.cdgm");
  mesh_free(&m);

  /* Mixed: 2x2 quads on [0,1]^2 beside 2x2x2 triangles on [1,2]x[0,1]. */
  snprintf(body, sizeof body,
           "%s Point(5) = {2, 0, 0}; Point(6) = {2, 1, 0};\n"
           "Line(5) = {2, 5}; Line(6) = {5, 6}; Line(7) = {6, 3};\n"
           "Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};\n"
           "Curve Loop(2) = {5, 6, 7, -2}; Plane Surface(2) = {2};\n"
           "Transfinite Curve{1:7} = 3; Transfinite Surface{1, 2}; Recombine Surface{1};\n"
           "Physical Curve(\"wall\") = {1, 5}; Physical Curve(\"farfield\") = {6, 7, 3, 4};\n"
           "Physical Surface(\"fluid\") = {1, 2};\n",
           square_points);
  TEST_OK(mesh_read(make_geo(geo, sizeof geo, "io_mixed.geo", body), 0, &m));
  TEST_CHECK(count_shape(&m, DG_TRI) == 8 && count_shape(&m, DG_QUAD) == 4,
             "%lld triangles %lld quads", (long long)count_shape(&m, DG_TRI),
             (long long)count_shape(&m, DG_QUAD));
  TEST_CHECK(m.shape_offset[DG_TRI] == 0 && m.shape_offset[DG_QUAD] == 8, "tri block first");
  TEST_CHECK(m.n_nodes == 15 && m.n_bfaces == 12, "%lld nodes %lld bfaces", (long long)m.n_nodes,
             (long long)m.n_bfaces);
  double area = 0.0;
  for (int64_t e = 0; e < m.n_elems; ++e) area += elem_area(&m, e);
  TEST_CLOSE(area, 2.0, 1e-12, "area of the mixed mesh");
  check_round_trip(&m, "io_mixed.cdgm");
  mesh_free(&m);

  /* Tetrahedra in the unit cube. */
  snprintf(body, sizeof body,
           "Point(1) = {0, 0, 0, 0.4}; Point(2) = {1, 0, 0, 0.4}; Point(3) = {1, 1, 0, 0.4};\n"
           "Point(4) = {0, 1, 0, 0.4}; Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4};\n"
           "Line(4) = {4, 1}; Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};\n"
           "Extrude {0, 0, 1} { Surface{1}; }\n"
           "Physical Surface(\"wall\") = {1}; Physical Surface(\"farfield\") = {13, 17, 21, 25, "
           "26};\nPhysical Volume(\"fluid\") = {1};\n");
  TEST_OK(mesh_read(make_geo(geo, sizeof geo, "io_cube.geo", body), 0, &m));
  TEST_CHECK(m.dim == 3 && count_shape(&m, DG_TET) == m.n_elems && m.n_elems > 20,
             "dim %d, %lld elements", m.dim, (long long)m.n_elems);
  double volume = 0.0, min_volume = 1.0;
  for (int64_t e = 0; e < m.n_elems; ++e) {
    volume += tet_volume(&m, e);
    min_volume = fmin(min_volume, tet_volume(&m, e));
  }
  TEST_CLOSE(volume, 1.0, 1e-12, "volume of the cube");
  TEST_CHECK(min_volume > 0.0, "smallest tet volume %g", min_volume);
  double face_area = 0.0;
  for (int64_t f = 0; f < m.n_bfaces; ++f) {
    TEST_CHECK(m.bface_shape[f] == DG_TRI && m.bface_verts[4 * f + 3] == -1, "triangle faces");
    const double *p = m.x + 3 * m.bface_verts[4 * f], *q = m.x + 3 * m.bface_verts[4 * f + 1],
                 *r = m.x + 3 * m.bface_verts[4 * f + 2];
    const double u[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    const double v[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
    face_area += 0.5 * sqrt(pow(u[1] * v[2] - u[2] * v[1], 2) + pow(u[2] * v[0] - u[0] * v[2], 2) +
                            pow(u[0] * v[1] - u[1] * v[0], 2));
  }
  TEST_CLOSE(face_area, 6.0, 1e-12, "area of the cube's boundary");
  check_round_trip(&m, "io_cube.cdgm");
  mesh_free(&m);
}

/* Orders 2 and 3, a disc (curved) and a clockwise square (flipped). */
static void test_gmsh_high_order(void) {
  char geo[512], body[4096];
  dg_mesh m;
  snprintf(body, sizeof body,
           "Point(1) = {0, 0, 0, 0.4}; Point(2) = {1, 0, 0, 0.4}; Point(3) = {0, 1, 0, 0.4};\n"
           "Point(4) = {-1, 0, 0, 0.4}; Point(5) = {0, -1, 0, 0.4};\n"
           "Circle(1) = {2, 1, 3}; Circle(2) = {3, 1, 4}; Circle(3) = {4, 1, 5};\n"
           "Circle(4) = {5, 1, 2}; Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};\n"
           "Physical Curve(\"wall\") = {1, 2, 3, 4}; Physical Surface(\"fluid\") = {1};\n");
  make_geo(geo, sizeof geo, "io_disc.geo", body);
  for (int order = 2; order <= 3; ++order) {
    TEST_OK(mesh_read(geo, order, &m));
    TEST_CHECK(m.geom_order == order, "order %d", m.geom_order);
    TEST_CHECK(mesh_elem_n_nodes(&m, 0) == shape_n_nodes(DG_TRI, order), "nodes per element");
    double worst = 0.0;
    for (int64_t e = 0; e < m.n_elems; ++e) {
      const int64_t *n = m.elem_nodes + m.elem_node_start[e];
      /* Nodes on the boundary edges must be on the circle: edge nodes of
       * elements whose two vertices are on it. */
      for (int edge = 0; edge < 3; ++edge) {
        const int a = edge, b = (edge + 1) % 3;
        const double ra = hypot(m.x[3 * n[a]], m.x[3 * n[a] + 1]);
        const double rb = hypot(m.x[3 * n[b]], m.x[3 * n[b] + 1]);
        if (fabs(ra - 1) > 1e-9 || fabs(rb - 1) > 1e-9) continue;
        for (int k = 0; k < order - 1; ++k) {
          const int64_t node = n[3 + edge * (order - 1) + k];
          worst = fmax(worst, fabs(hypot(m.x[3 * node], m.x[3 * node + 1]) - 1.0));
        }
      }
    }
    TEST_CHECK(worst < 1e-9, "order %d: boundary edge node off the circle by %g", order, worst);
    char name[64];
    snprintf(name, sizeof name, "io_disc_p%d.cdgm", order);
    check_round_trip(&m, name);
    mesh_free(&m);
  }

  /* The same square meshed clockwise (reversed curve loop), triangles and
   * quads, orders 1..3: imported elements are positive and their
   * high-order nodes sit where the flipped reference element says. */
  for (int recombine = 0; recombine <= 1; ++recombine) {
    snprintf(body, sizeof body,
             "%s Curve Loop(1) = {-4, -3, -2, -1}; Plane Surface(1) = {1};\n"
             "Transfinite Curve{1:4} = 4; Transfinite Surface{1};%s\n"
             "Physical Curve(\"wall\") = {1, 2, 3, 4}; Physical Surface(\"fluid\") = {1};\n",
             square_points, recombine ? " Recombine Surface{1};" : "");
    make_geo(geo, sizeof geo, recombine ? "io_cw_quad.geo" : "io_cw_tri.geo", body);
    TEST_CHECK(raw_gmsh_first_area(geo) != 0.0 || recombine,
               "Gmsh meshed the reversed loop with a zero-area first triangle");
    if (!recombine)
      TEST_CHECK(raw_gmsh_first_area(geo) < 0.0, "Gmsh did not mesh the reversed loop clockwise");
    for (int order = 1; order <= 3; ++order) {
      TEST_OK(mesh_read(geo, order, &m));
      double min_area = 1.0, area = 0.0;
      for (int64_t e = 0; e < m.n_elems; ++e) {
        min_area = fmin(min_area, elem_area(&m, e));
        area += elem_area(&m, e);
      }
      TEST_CHECK(min_area > 0.0, "clockwise %s order %d: smallest area %g",
                 recombine ? "quads" : "triangles", order, min_area);
      TEST_CLOSE(area, 1.0, 1e-12, "area of the flipped square");
      TEST_CHECK(max_node_misplacement(&m) < 1e-12, "%s order %d: node misplaced by %g",
                 recombine ? "quads" : "triangles", order, max_node_misplacement(&m));
      mesh_free(&m);
    }
  }
}

/* One geometry saved as MSH 2.2/4.1, ASCII/binary: all four import to the
 * same mesh, periodic links included. */
static void test_gmsh_formats(void) {
  char geo[512], body[8192], files[4][512];
  const char *names[4] = {"io_per_22a.msh", "io_per_22b.msh", "io_per_41a.msh", "io_per_41b.msh"};
  for (int i = 0; i < 4; ++i) {
    work_path(files[i], sizeof files[i], names[i]);
    remove(files[i]);
  }
  snprintf(body, sizeof body,
           "%s Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};\n"
           "Periodic Curve {3} = {-1} Translate {0, 1, 0};\n"
           "Physical Curve(\"bottom\") = {1}; Physical Curve(\"top\") = {3};\n"
           "Physical Curve(\"sides\") = {2, 4}; Physical Surface(\"fluid\") = {1};\n"
           "Mesh.ElementOrder = 2; Mesh 2;\n"
           "Mesh.MshFileVersion = 2.2; Mesh.Binary = 0; Save \"%s\";\n"
           "Mesh.Binary = 1; Save \"%s\";\n"
           "Mesh.MshFileVersion = 4.1; Mesh.Binary = 0; Save \"%s\";\n"
           "Mesh.Binary = 1; Save \"%s\";\n",
           square_points, names[0], names[1], names[2], names[3]);
  dg_mesh ref, m;
  TEST_OK(mesh_read(make_geo(geo, sizeof geo, "io_periodic.geo", body), 0, &ref));
  TEST_CHECK(ref.geom_order == 2, "the .geo's own order is kept: %d", ref.geom_order);
  TEST_CHECK(ref.n_periodic > 0, "periodic links read");
  for (int64_t i = 0; i < ref.n_periodic; ++i) {
    const double *s = ref.x + 3 * ref.periodic_slave[i], *t = ref.x + 3 * ref.periodic_master[i];
    TEST_CHECK(fabs(s[1] - 1.0) < 1e-12 && fabs(t[1]) < 1e-12 && fabs(s[0] - t[0]) < 1e-9,
               "periodic link %lld: (%g %g) -> (%g %g)", (long long)i, s[0], s[1], t[0], t[1]);
  }
  /* Links join vertices (as .msh files store them): one per top vertex. */
  int64_t top_faces = 0;
  for (int64_t f = 0; f < ref.n_bfaces; ++f)
    top_faces += strcmp(ref.groups[ref.bface_group[f]].name, "top") == 0;
  TEST_CHECK(ref.n_periodic == top_faces + 1, "%lld links for %lld top faces",
             (long long)ref.n_periodic, (long long)top_faces);
  for (int i = 0; i < 4; ++i) {
    if (mesh_read(files[i], 0, &m) != DG_SUCCESS) {
      dg_error_print(stderr, 1);
      test_fail(__FILE__, __LINE__, "reading %s failed", files[i]);
      continue;
    }
    /* Gmsh writes ASCII coordinates with 16 significant digits, one short
     * of an exact round trip; everything else must match bit for bit. */
    mesh_equal_tol(&ref, &m, i % 2 == 0 ? 1e-15 : 0.0, names[i]);
    mesh_free(&m);
  }
  TEST_FAILS(mesh_read(files[2], 3, &m), DG_ERR_ARG, "order 3 was asked");

  /* Truncated files fail cleanly, and Gmsh is usable afterwards. */
  char cut[512];
  work_path(cut, sizeof cut, "io_truncated.msh");
  const double fractions[] = {0.02, 0.1, 0.3, 0.5, 0.7, 0.85, 0.95, 0.99};
  for (int i = 0; i < 4; ++i) {
    size_t size = 0;
    unsigned char *data = read_bytes(files[i], &size);
    if (!data) continue;
    for (size_t k = 0; k < sizeof fractions / sizeof fractions[0]; ++k) {
      write_bytes(cut, data, (size_t)(fractions[k] * (double)size));
      const dg_status s = mesh_read(cut, 0, &m);
      TEST_CHECK(s != DG_SUCCESS, "%s cut at %.0f%% was accepted", names[i], 100 * fractions[k]);
      if (s == DG_SUCCESS) mesh_free(&m);
      TEST_CHECK(strstr(dg_error_message(), "io_truncated.msh") != NULL,
                 "message does not name the file: %s", dg_error_message());
      dg_error_clear();
    }
    free(data);
  }
  TEST_OK(mesh_read(files[3], 0, &m));
  mesh_free(&m);
  mesh_free(&ref);
}

static void test_gmsh_errors(void) {
  char path[512], body[4096];
  dg_mesh m;
  /* Two triangles of one surface, the second clockwise. */
  work_path(path, sizeof path, "io_mixed_orientation.msh");
  write_text(path, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n"
                   "3 1 1 0\n4 0 1 0\n$EndNodes\n$Elements\n2\n1 2 2 0 1 1 2 3\n"
                   "2 2 2 0 1 1 4 3\n$EndElements\n");
  TEST_FAILS(mesh_read(path, 0, &m), DG_ERR_MESH,
             "element 2 of surface 1 is inverted (negative area) while others in the surface are "
             "not");

  /* A clockwise tetrahedron. */
  work_path(path, sizeof path, "io_inverted_tet.msh");
  write_text(path, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n"
                   "3 0 1 0\n4 0 0 1\n$EndNodes\n$Elements\n1\n5 4 2 0 1 1 3 2 4\n$EndElements\n");
  TEST_FAILS(mesh_read(path, 0, &m), DG_ERR_MESH, "tetrahedron 5");

  /* Serendipity quads (type 16). */
  snprintf(body, sizeof body,
           "%s Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1}; Recombine Surface{1};\n"
           "Mesh.SecondOrderIncomplete = 1; Mesh.ElementOrder = 2;\n",
           square_points);
  TEST_FAILS(mesh_read(make_geo(path, sizeof path, "io_quad8.geo", body), 0, &m),
             DG_ERR_UNSUPPORTED, "type 16");

  /* Hexahedra. */
  snprintf(body, sizeof body,
           "%s Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};\n"
           "Transfinite Curve{1:4} = 3; Transfinite Surface{1}; Recombine Surface{1};\n"
           "Extrude {0, 0, 1} { Surface{1}; Layers{2}; Recombine; }\n",
           square_points);
  TEST_FAILS(mesh_read(make_geo(path, sizeof path, "io_hex.geo", body), 0, &m), DG_ERR_UNSUPPORTED,
             "io_hex.geo");

  /* A curve in two physical groups. */
  snprintf(body, sizeof body,
           "%s Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};\n"
           "Physical Curve(\"wall\") = {1, 2}; Physical Curve(\"inlet\") = {2, 3, 4};\n",
           square_points);
  TEST_FAILS(mesh_read(make_geo(path, sizeof path, "io_two_groups.geo", body), 0, &m), DG_ERR_MESH,
             "\"wall\" and \"inlet\"");

  /* A 2D mesh off the plane z = 0. */
  snprintf(body, sizeof body,
           "Point(1) = {0, 0, 1}; Point(2) = {1, 0, 1}; Point(3) = {0, 1, 1};\n"
           "Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 1};\n"
           "Curve Loop(1) = {1, 2, 3}; Plane Surface(1) = {1};\n");
  TEST_FAILS(mesh_read(make_geo(path, sizeof path, "io_offplane.geo", body), 0, &m), DG_ERR_MESH,
             "plane z = 0");

  /* Gmsh's own errors name the file. */
  TEST_FAILS(mesh_read(make_geo(path, sizeof path, "io_syntax.geo", "Point(1) = {0, 0;\n"), 0, &m),
             DG_ERR_GMSH, "io_syntax.geo");
  TEST_FAILS(mesh_read("no/such/file.msh", 0, &m), DG_ERR_IO, "no/such/file.msh");
}
#endif

/* Rewrites the committed fixtures (tools/make_io_fixtures.sh). */
static int write_fixtures(const char *dir) {
  char path[1024];
  dg_mesh m;
  build_small_mesh(&m);
  snprintf(path, sizeof path, "%s/io_small_mixed.cdgm", dir);
  const dg_status s = mesh_write_cdgm(&m, path);
  mesh_free(&m);
  if (s != DG_SUCCESS) {
    dg_error_print(stderr, 1);
    return 1;
  }
  printf("wrote %s\n", path);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write-fixtures") == 0) return write_fixtures(argv[2]);
  if (mkdir(g_dir, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "cannot create %s\n", g_dir);
    return 1;
  }
  test_cdgm_round_trip();
  test_cdgm_corruption();
  test_mesh_check();
  test_renumber_and_groups();
  test_cdgm_fixture();
  test_cdgm_duplicate_group_names();
#ifdef COLORDG_HAVE_GMSH
  test_gmsh_keeps_thread_count();
  test_gmsh_square_tri();
  test_gmsh_structured();
  test_gmsh_high_order();
  test_gmsh_formats();
  test_gmsh_errors();
#else
  dg_mesh m;
  TEST_FAILS(mesh_read("square.msh", 0, &m), DG_ERR_UNSUPPORTED, "without the Gmsh SDK");
  printf("  built without Gmsh: .msh/.geo import tests skipped\n");
#endif
  return test_finish("test_mesh_io");
}
