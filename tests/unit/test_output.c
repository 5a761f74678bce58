/* Outputs (src/app/solution_io, vtu, surface): restart files round trip
 * bitwise and refuse every truncation, byte flip and mismatched
 * discretisation; atomic writes keep the old file; VTU files parse back with
 * the right counts, a sub-cell partition of every element and exact values
 * of a field the basis holds; wall forces vanish for uniform pressure and
 * equal the volume integral of a linear pressure gradient. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/case.h"
#include "app/solution_io.h"
#include "app/surface.h"
#include "app/vtu.h"
#include "backends/backend_select.h"
#include "dg/backend.h"
#include "dg/disc.h"
#include "dg/physics.h"
#include "dg/residual_ops.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "test_util.h"

static const double gamma_air = 1.4;
static char tmpdir[512];
/* Damaged copies are many small files: on tmpfs when there is one (a slow
 * disk takes milliseconds per file), else beside the others. */
static char scratch[512];

/* ---------------------------------------------------------------- fixtures */

typedef struct {
  dg_mesh mesh;
  dg_topology topo;
  dg_geometry geom;
  dg_disc disc;
} fixture;

static void fixture_free(fixture *fx) {
  disc_free(&fx->disc);
  geometry_free(&fx->geom);
  topology_free(&fx->topo);
  mesh_free(&fx->mesh);
}

/* A box mesh whose every side is a slip wall, discretised at degree p. */
static dg_status fixture_build(fixture *fx, int dim, dg_mesh_structured_kind kind, int order, int n,
                               double deform, int p) {
  memset(fx, 0, sizeof *fx);
  dg_mesh_structured_opts o = mesh_structured_defaults(dim);
  o.kind = kind;
  o.order = order;
  o.n[0] = n, o.n[1] = n, o.n[2] = n;
  o.hi[0] = 2.0; /* [0,2] x [0,1] (x [0,1]) */
  o.deform = deform;
  DG_CALL(dim == 2 ? mesh_structured_2d(&o, &fx->mesh) : mesh_structured_3d(&o, &fx->mesh));
  DG_CALL(topology_build(&fx->mesh, &fx->topo));
  DG_CALL(geometry_build(&fx->mesh, &fx->topo, 2 * p + 2, 2 * p + 2, &fx->geom));
  dg_disc_opts d;
  memset(&d, 0, sizeof d);
  d.p = p;
  d.gamma = gamma_air;
  d.flux = DG_FACE_FLUX_ROE;
  const double W[DG_MAX_NVAR] = {1.0, 0.0, 0.0, dim == 3 ? 0.0 : 1.0 / gamma_air, 1.0 / gamma_air};
  physics_primitive_to_conservative(dim, gamma_air, W, d.freestream);
  int32_t bc[6];
  physics_bc_data data[6];
  memset(data, 0, sizeof data);
  for (int g = 0; g < 6; ++g) bc[g] = PHYSICS_BC_WALL;
  d.n_groups = fx->mesh.n_groups;
  d.group_bc = bc;
  d.group_data = data;
  DG_CALL(disc_build(&fx->mesh, &fx->topo, &fx->geom, &d, &fx->disc));
  return DG_SUCCESS;
}

/* Primitive state W = (ρ, u, v[, w], p) of a test field at x. */
typedef void (*test_field)(int dim, const double *x, double *W);

/* L2 projection of the conservative form of `field`, which the tests choose
 * so that the projected conservative variables are polynomials the basis
 * holds (then the projection is exact to round-off). */
static void project(const fixture *fx, test_field field, double *U) {
  const dg_disc_view *v = &fx->disc.view;
  const int nv = v->nvar, dim = v->dim;
  for (int64_t e = 0; e < v->n_elems; ++e) {
    const int s = v->elem_shape[e], nb = v->nb[s];
    double b[DG_MAX_NVAR * DG_MAX_BASIS] = {0}, Ue[DG_MAX_NVAR * DG_MAX_BASIS];
    for (int q = 0; q < v->nq[s]; ++q) {
      const double *phi = v->vol_phi + v->vol_table[s] + (int64_t)q * nb;
      const double *x = fx->disc.vol_x + (fx->disc.vol_x_offset[e] + q) * dim;
      double W[DG_MAX_NVAR], Uq[DG_MAX_NVAR];
      field(dim, x, W);
      physics_primitive_to_conservative(dim, gamma_air, W, Uq);
      const int64_t mk = v->elem_affine[e] ? v->metric_offset[e] : v->metric_offset[e] + q;
      const double wdetJ = v->vol_w[v->vol_point[s] + q] * v->metric_detJ[mk];
      for (int k = 0; k < nv; ++k)
        for (int m = 0; m < nb; ++m) b[k * nb + m] += wdetJ * Uq[k] * phi[m];
    }
    residual_apply_minv(v, e, b, Ue);
    for (int k = 0; k < nv; ++k)
      for (int m = 0; m < nb; ++m) U[disc_coef_index(v, e, k, m)] = Ue[k * nb + m];
  }
}

/* ρ, ρu and ρE linear in x (constant velocity, so p is linear too). */
static const double lin_u[3] = {0.3, -0.1, 0.2};
static void field_linear(int dim, const double *x, double *W) {
  const double z = dim == 3 ? x[2] : 0.0;
  W[0] = 1.0 + 0.1 * x[0] - 0.2 * x[1] + 0.05 * z;
  for (int d = 0; d < dim; ++d) W[1 + d] = lin_u[d];
  /* p linear: (γ-1)(ρE − ½ρ|u|²) with ρE linear */
  W[dim + 1] = 0.7 + 0.05 * x[0] + 0.03 * x[1] - 0.04 * z;
}

/* At rest, ρ = 1, linear pressure p0 + g·x. */
static const double grad_p[3] = {0.11, -0.07, 0.05};
static void field_pressure(int dim, const double *x, double *W) {
  W[0] = 1.0;
  double p = 0.9;
  for (int d = 0; d < dim; ++d) {
    W[1 + d] = 0.0;
    p += grad_p[d] * x[d];
  }
  W[dim + 1] = p;
}

/* Uniform moving state. */
static void field_uniform(int dim, const double *x, double *W) {
  (void)x;
  W[0] = 1.2;
  for (int d = 0; d < dim; ++d) W[1 + d] = 0.3 - 0.2 * d;
  W[dim + 1] = 0.8;
}

static int64_t file_read_all(const char *path, unsigned char **data) {
  FILE *f = fopen(path, "rb");
  *data = NULL;
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  *data = malloc((size_t)n + 1);
  const size_t got = fread(*data, 1, (size_t)n, f);
  fclose(f);
  (*data)[n] = 0;
  return got == (size_t)n ? n : -1;
}

static void file_write_all(const char *path, const unsigned char *data, int64_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return;
  fwrite(data, 1, (size_t)n, f);
  fclose(f);
}

/* ---------------------------------------------------------------- restart files */

static void test_solution_roundtrip(int dim) {
  fixture fx, other;
  TEST_OK(fixture_build(&fx, dim, dim == 2 ? MESH_STRUCTURED_MIXED : MESH_STRUCTURED_TET, 1,
                        dim == 2 ? 3 : 2, 0.0, 2));
  const int64_t n = fx.disc.view.n_coefs;
  double *U = calloc((size_t)n, sizeof *U), *V = calloc((size_t)n, sizeof *V);
  for (int64_t i = 0; i < n; ++i)
    U[i] = sin(1.0 + 0.37 * (double)i) * pow(10.0, (double)(i % 7) - 3);
  U[n / 2] = -0.0; /* bitwise: the sign of zero survives */
  dg_solution_meta meta = {.iteration = 1234,
                           .time = 0.625,
                           .cfl = 37.5,
                           .ref_norms = {1e-3, 2e-3, 3e-3, 4e-3, 5e-3}},
                   got;
  memset(&got, 0, sizeof got);
  char path[600];
  snprintf(path, sizeof path, "%s/sol%d.cdgs", tmpdir, dim);
  TEST_OK(solution_write(path, &fx.mesh, &fx.disc, U, &meta));
  TEST_OK(solution_read(path, &fx.mesh, &fx.disc, V, &got));
  TEST_CHECK(memcmp(U, V, (size_t)n * sizeof *U) == 0, "%dD: state round trip is not bitwise", dim);
  TEST_CHECK(memcmp(&meta, &got, sizeof meta) == 0, "%dD: meta round trip differs", dim);
  dg_solution_header h;
  TEST_OK(solution_read_header(path, &h));
  TEST_CHECK(h.p == 2 && h.dim == dim && h.n_coefs == n && h.n_elems == fx.mesh.n_elems &&
                 h.mesh_fingerprint == solution_mesh_fingerprint(&fx.mesh) &&
                 h.meta.iteration == 1234,
             "%dD: header fields", dim);
  unsigned char *bytes = NULL;
  const int64_t size = file_read_all(path, &bytes);
  TEST_CHECK(size == 256 + 8 * n + 8, "%dD: file size %lld", dim, (long long)size);

  /* truncations and single-byte changes are refused (every offset of the
   * 2D file, every 37th of the larger 3D one; test_solution_exhaustive
   * covers every byte of a small file) and leave the caller's array alone */
  char bad[640];
  snprintf(bad, sizeof bad, "%s/bad%d.cdgs", scratch, dim);
  for (int64_t i = 0; i < n; ++i) V[i] = 42.0;
  const int64_t stride = dim == 2 ? 1 : 37;
  int64_t tried = 0, refused_truncation = 0, refused_flip = 0;
  for (int64_t len = 0; len < size; len += stride, ++tried) {
    file_write_all(bad, bytes, len);
    refused_truncation += solution_read(bad, &fx.mesh, &fx.disc, V, NULL) == DG_ERR_FORMAT;
    bytes[len] ^= (unsigned char)(1u << (len % 8));
    file_write_all(bad, bytes, size);
    refused_flip += solution_read(bad, &fx.mesh, &fx.disc, V, NULL) == DG_ERR_FORMAT;
    bytes[len] ^= (unsigned char)(1u << (len % 8));
  }
  dg_error_clear();
  TEST_CHECK(refused_truncation == tried, "%dD: %lld of %lld truncations refused", dim,
             (long long)refused_truncation, (long long)tried);
  TEST_CHECK(refused_flip == tried, "%dD: %lld of %lld byte flips refused", dim,
             (long long)refused_flip, (long long)tried);
  int untouched = 1;
  for (int64_t i = 0; i < n; ++i) untouched &= V[i] == 42.0;
  TEST_CHECK(untouched, "%dD: a refused read wrote into the state", dim);
  /* one longer file is refused too */
  unsigned char *longer = malloc((size_t)size + 1);
  memcpy(longer, bytes, (size_t)size);
  longer[size] = 0;
  file_write_all(bad, longer, size + 1);
  TEST_FAILS(solution_read(bad, &fx.mesh, &fx.disc, V, NULL), DG_ERR_FORMAT, "bytes");
  free(longer);
  file_write_all(bad, bytes, 100);
  TEST_FAILS(solution_read(bad, &fx.mesh, &fx.disc, V, NULL), DG_ERR_FORMAT, "truncated");
  TEST_FAILS(solution_read_header(bad, &h), DG_ERR_FORMAT, "truncated");
  bytes[size - 1] ^= 0x10;
  file_write_all(bad, bytes, size);
  TEST_FAILS(solution_read(bad, &fx.mesh, &fx.disc, V, NULL), DG_ERR_FORMAT, "checksum");
  bytes[size - 1] ^= 0x10;

  /* mismatched discretisations: another p, another mesh of other or of the same sizes */
  TEST_OK(fixture_build(&other, dim, dim == 2 ? MESH_STRUCTURED_MIXED : MESH_STRUCTURED_TET, 1,
                        dim == 2 ? 3 : 2, 0.0, 1));
  double *W = calloc((size_t)other.disc.view.n_coefs, sizeof *W);
  TEST_FAILS(solution_read(path, &other.mesh, &other.disc, W, NULL), DG_ERR_ARG,
             "was written for p = 2, the case asks p = 1");
  free(W);
  fixture_free(&other);
  TEST_OK(fixture_build(&other, dim, dim == 2 ? MESH_STRUCTURED_MIXED : MESH_STRUCTURED_TET, 1,
                        dim == 2 ? 4 : 3, 0.0, 2));
  W = calloc((size_t)other.disc.view.n_coefs, sizeof *W);
  TEST_FAILS(solution_read(path, &other.mesh, &other.disc, W, NULL), DG_ERR_ARG,
             "was written for a mesh of");
  free(W);
  fixture_free(&other);
  /* the same mesh with one coordinate moved by 1e-12 */
  TEST_OK(fixture_build(&other, dim, dim == 2 ? MESH_STRUCTURED_MIXED : MESH_STRUCTURED_TET, 1,
                        dim == 2 ? 3 : 2, 0.0, 2));
  TEST_CHECK(other.disc.view.n_coefs == n, "same sizes");
  TEST_CHECK(solution_mesh_fingerprint(&other.mesh) == solution_mesh_fingerprint(&fx.mesh),
             "equal meshes have equal fingerprints");
  other.mesh.x[3 * (other.mesh.n_nodes / 2)] += 1e-12;
  W = calloc((size_t)n, sizeof *W);
  TEST_FAILS(solution_read(path, &other.mesh, &other.disc, W, NULL), DG_ERR_ARG,
             "different mesh of the same sizes");
  free(W);
  fixture_free(&other);
  if (dim == 2) {
    /* other shapes: the message names the shape whose count differs */
    TEST_OK(fixture_build(&other, 2, MESH_STRUCTURED_TRI, 1, 3, 0.0, 2));
    W = calloc((size_t)other.disc.view.n_coefs, sizeof *W);
    TEST_FAILS(solution_read(path, &other.mesh, &other.disc, W, NULL), DG_ERR_ARG, "elements");
    free(W);
    fixture_free(&other);
  }
  TEST_FAILS(solution_read(bad, &fx.mesh, &fx.disc, NULL, NULL), DG_ERR_ARG, "NULL");
  char missing[640];
  snprintf(missing, sizeof missing, "%s/missing.cdgs", tmpdir);
  TEST_FAILS(solution_read(missing, &fx.mesh, &fx.disc, V, NULL), DG_ERR_IO, "cannot open");

  remove(bad);
  remove(path);
  free(bytes);
  free(U);
  free(V);
  fixture_free(&fx);
}

/* Every truncation and every bit position of every byte of a small file. */
static void test_solution_exhaustive(void) {
  fixture fx;
  TEST_OK(fixture_build(&fx, 2, MESH_STRUCTURED_TRI, 1, 1, 0.0, 1));
  const int64_t n = fx.disc.view.n_coefs;
  double *U = calloc((size_t)n, sizeof *U);
  for (int64_t i = 0; i < n; ++i) U[i] = 1.0 / (1.0 + (double)i);
  const dg_solution_meta meta = {
      .iteration = 3, .time = 0.5, .cfl = 2.0, .ref_norms = {1, 2, 3, 4, 0}};
  char path[600], bad[640];
  snprintf(path, sizeof path, "%s/small.cdgs", tmpdir);
  snprintf(bad, sizeof bad, "%s/small_bad.cdgs", scratch);
  TEST_OK(solution_write(path, &fx.mesh, &fx.disc, U, &meta));
  unsigned char *bytes = NULL;
  const int64_t size = file_read_all(path, &bytes);
  TEST_CHECK(size == 256 + 8 * n + 8, "small file size %lld", (long long)size);
  int64_t refused = 0, tried = 0;
  for (int64_t len = 0; len < size; ++len, ++tried) {
    file_write_all(bad, bytes, len);
    refused += solution_read(bad, &fx.mesh, &fx.disc, U, NULL) == DG_ERR_FORMAT;
  }
  for (int64_t i = 0; i < size; ++i)
    for (int bit = 0; bit < 8; ++bit, ++tried) {
      bytes[i] ^= (unsigned char)(1u << bit);
      file_write_all(bad, bytes, size);
      refused += solution_read(bad, &fx.mesh, &fx.disc, U, NULL) == DG_ERR_FORMAT;
      bytes[i] ^= (unsigned char)(1u << bit);
    }
  dg_error_clear();
  TEST_CHECK(refused == tried, "%lld of %lld damaged small files refused", (long long)refused,
             (long long)tried);
  remove(bad);
  remove(path);
  free(bytes);
  free(U);
  fixture_free(&fx);
}

/* A failed write keeps the previous file byte for byte and leaves no
 * temporary behind. Two failures that work as root too: the temporary
 * cannot be created (its name is taken by a folder), and the disk "fills"
 * mid-write (RLIMIT_FSIZE makes write() fail with EFBIG). */
static void test_solution_atomic(void) {
  fixture fx;
  TEST_OK(fixture_build(&fx, 2, MESH_STRUCTURED_QUAD, 1, 4, 0.0, 3));
  const int64_t n = fx.disc.view.n_coefs;
  double *U = calloc((size_t)n, sizeof *U);
  for (int64_t i = 0; i < n; ++i) U[i] = (double)i;
  dg_solution_meta meta = {.iteration = 7, .time = 0.0, .cfl = 1.0};
  char path[600], tmp[700];
  snprintf(path, sizeof path, "%s/atomic.cdgs", tmpdir);
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  TEST_OK(solution_write(path, &fx.mesh, &fx.disc, U, &meta));
  unsigned char *before = NULL, *after = NULL;
  const int64_t n_before = file_read_all(path, &before);
  for (int64_t i = 0; i < n; ++i) U[i] = -(double)i;
  meta.iteration = 8;

  TEST_CHECK(mkdir(tmp, 0700) == 0, "mkdir %s: %s", tmp, strerror(errno));
  TEST_FAILS(solution_write(path, &fx.mesh, &fx.disc, U, &meta), DG_ERR_IO,
             "cannot create the temporary file");
  rmdir(tmp);
  const int64_t n_after = file_read_all(path, &after);
  TEST_CHECK(n_after == n_before && memcmp(before, after, (size_t)n_before) == 0,
             "old file changed by a write whose temporary could not be created");
  free(after);

  struct rlimit old_limit, limit;
  getrlimit(RLIMIT_FSIZE, &old_limit);
  limit = old_limit;
  limit.rlim_cur = (rlim_t)(n_before / 2);
  void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
  TEST_CHECK(setrlimit(RLIMIT_FSIZE, &limit) == 0, "setrlimit: %s", strerror(errno));
  const dg_status status = solution_write(path, &fx.mesh, &fx.disc, U, &meta);
  setrlimit(RLIMIT_FSIZE, &old_limit);
  signal(SIGXFSZ, old_handler);
  TEST_CHECK(status == DG_ERR_IO, "write past the file size limit returned %s",
             dg_status_name(status));
  TEST_CHECK(strstr(dg_error_message(), "previous file is kept") != NULL, "message: %s",
             dg_error_message());
  dg_error_clear();
  TEST_CHECK(access(tmp, F_OK) != 0, "temporary %s left behind", tmp);
  file_read_all(path, &after);
  TEST_CHECK(memcmp(before, after, (size_t)n_before) == 0, "old file changed by a failed write");
  free(after);
  double *V = calloc((size_t)n, sizeof *V);
  dg_solution_meta got;
  TEST_OK(solution_read(path, &fx.mesh, &fx.disc, V, &got));
  TEST_CHECK(got.iteration == 7 && V[5] == 5.0, "the old file still reads");
  /* and a successful write replaces it */
  TEST_OK(solution_write(path, &fx.mesh, &fx.disc, U, &meta));
  TEST_OK(solution_read(path, &fx.mesh, &fx.disc, V, &got));
  TEST_CHECK(got.iteration == 8 && V[5] == -5.0, "the new file reads");
  remove(path);
  free(V);
  free(before);
  free(U);
  fixture_free(&fx);
}

/* ---------------------------------------------------------------- VTU */

typedef struct {
  unsigned char *text;
  int64_t size;
  void *copies[32]; /* decoded arrays handed out */
  int n_copies;
} vtu_file;

static void vtu_file_free(vtu_file *f) {
  for (int i = 0; i < f->n_copies; ++i) free(f->copies[i]);
  free(f->text);
  memset(f, 0, sizeof *f);
}

/* The decoded data (owned by f) of the inline base64 DataArray whose
 * content starts after the '>' at or after p: a UInt64 byte count, then
 * the bytes, in one base64 stream. NULL when malformed. */
static const void *vtu_block(vtu_file *f, const char *p, uint64_t *bytes) {
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const char *start = p ? strchr(p, '>') : NULL;
  const char *end = start ? strstr(start, "</DataArray>") : NULL;
  if (!end || f->n_copies == 32) return NULL;
  unsigned char *out = malloc((size_t)(end - start) * 3 / 4 + 8);
  size_t n = 0;
  unsigned v = 0;
  int bits = 0;
  for (const char *c = start + 1; c < end; ++c) {
    const char *d = *c ? strchr(digits, *c) : NULL;
    if (!d) continue; /* blanks and '=' padding */
    v = v << 6 | (unsigned)(d - digits);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (unsigned char)(v >> bits & 255u);
    }
  }
  f->copies[f->n_copies++] = out;
  if (n < 8) return NULL;
  memcpy(bytes, out, 8);
  if (*bytes != n - 8) return NULL;
  return out + 8;
}

static int64_t vtu_attr(const vtu_file *f, const char *key) {
  const char *p = strstr((const char *)f->text, key);
  return p ? atoll(p + strlen(key)) : -1;
}

/* Data of the array called name (NULL when absent); *bytes its length. */
static const void *vtu_array_data(vtu_file *f, const char *name, uint64_t *bytes) {
  char key[128];
  snprintf(key, sizeof key, "Name=\"%s\"", name);
  const char *p = strstr((const char *)f->text, key);
  if (!p) return NULL;
  return vtu_block(f, p, bytes);
}

static int vtu_parse(const char *path, vtu_file *f) {
  memset(f, 0, sizeof *f);
  f->size = file_read_all(path, &f->text);
  if (f->size < 0) return 0;
  return strstr((const char *)f->text, "format=\"binary\"") != NULL &&
         strstr((const char *)f->text, "AppendedData") == NULL;
}

/* Checks a written VTU: counts, a positive partition of the domain by the
 * sub-cells (their measures sum to the domain's), and, when `exact`, the
 * fields of field_linear at every point to round-off. */
static void check_vtu(const fixture *fx, const char *path, int subdiv, int exact,
                      const int32_t *colour, const double *av_eps, double mach) {
  const int dim = fx->mesh.dim;
  vtu_file f;
  TEST_CHECK(vtu_parse(path, &f), "%s: not parsed", path);
  int64_t np, nc;
  vtu_counts(&fx->mesh, subdiv, &np, &nc);
  TEST_CHECK(vtu_attr(&f, "NumberOfPoints=\"") == np, "%s: NumberOfPoints %lld, expected %lld",
             path, (long long)vtu_attr(&f, "NumberOfPoints=\""), (long long)np);
  TEST_CHECK(vtu_attr(&f, "NumberOfCells=\"") == nc, "%s: NumberOfCells", path);
  int64_t sub = 1;
  for (int d = 0; d < dim; ++d) sub *= subdiv;
  TEST_CHECK(nc == fx->mesh.n_elems * sub, "%lld cells for %lld elements at subdiv %d",
             (long long)nc, (long long)fx->mesh.n_elems, subdiv);
  TEST_CHECK(strstr((const char *)f.text, "header_type=\"UInt64\"") &&
                 strstr((const char *)f.text, "byte_order=\"LittleEndian\""),
             "header type and byte order");
  uint64_t bx = 0, bc = 0, bo = 0, bt = 0, bd = 0, btag = 0, bcol = 0, bcp = 0;
  const double *x = vtu_array_data(&f, "Points", &bx);
  const int64_t *conn = vtu_array_data(&f, "connectivity", &bc);
  const int64_t *offs = vtu_array_data(&f, "offsets", &bo);
  const uint8_t *types = vtu_array_data(&f, "types", &bt);
  const double *rho = vtu_array_data(&f, "density", &bd);
  const int64_t *tag = vtu_array_data(&f, "element_tag", &btag);
  const int32_t *col = vtu_array_data(&f, "colour", &bcol);
  const double *cp = vtu_array_data(&f, "cp", &bcp);
  uint64_t bav = 0;
  const double *av = vtu_array_data(&f, "artificial_viscosity", &bav);
  TEST_CHECK((av != NULL) == (av_eps != NULL), "artificial_viscosity present iff given");
  TEST_CHECK(!av || bav == (uint64_t)(8 * nc), "artificial_viscosity block size");
  TEST_CHECK(x && conn && offs && types && rho && tag, "%s: arrays missing", path);
  TEST_CHECK((col != NULL) == (colour != NULL), "colour present iff given");
  TEST_CHECK((cp != NULL) == (mach > 0.0), "cp present iff mach > 0");
  if (!(x && conn && offs && types && rho && tag)) {
    vtu_file_free(&f);
    return;
  }
  TEST_CHECK(bx == (uint64_t)(24 * np) && bd == (uint64_t)(8 * np) && bt == (uint64_t)nc &&
                 bo == (uint64_t)(8 * nc),
             "%s: block sizes", path);
  TEST_CHECK(strstr((const char *)f.text + f.size - 40, "</VTKFile>") != NULL, "file ends");

  /* partition: positive sub-cell measures summing to the box's */
  double total = 0.0, min_measure = 1e300;
  int64_t start = 0;
  for (int64_t c = 0; c < nc; ++c) {
    const int64_t end = offs[c];
    const int nvert = (int)(end - start);
    const double *a = x + 3 * conn[start], *b = x + 3 * conn[start + 1],
                 *cc = x + 3 * conn[start + 2];
    double m = 0.0;
    if (types[c] == 5 || types[c] == 9) {
      m = 0.5 * ((b[0] - a[0]) * (cc[1] - a[1]) - (b[1] - a[1]) * (cc[0] - a[0]));
      if (types[c] == 9) {
        const double *dd = x + 3 * conn[start + 3];
        m += 0.5 * ((cc[0] - a[0]) * (dd[1] - a[1]) - (cc[1] - a[1]) * (dd[0] - a[0]));
      }
    } else {
      const double *dd = x + 3 * conn[start + 3];
      double e[3][3];
      for (int k = 0; k < 3; ++k) {
        e[0][k] = b[k] - a[k];
        e[1][k] = cc[k] - a[k];
        e[2][k] = dd[k] - a[k];
      }
      m = (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
           e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
           e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) /
          6.0;
    }
    TEST_CHECK(nvert == (types[c] == 5 ? 3 : 4), "cell %lld has %d vertices", (long long)c, nvert);
    total += m;
    if (m < min_measure) min_measure = m;
    start = end;
  }
  TEST_CLOSE(total, 2.0, 1e-12, "sub-cells fill the box [0,2]x[0,1](x[0,1])");
  TEST_CHECK(min_measure > 0.0, "a sub-cell is inverted or degenerate (%g)", min_measure);

  /* element tags per cell and point values */
  int tags_ok = 1;
  for (int64_t e = 0, c = 0; e < fx->mesh.n_elems; ++e)
    for (int64_t k = 0; k < nc / fx->mesh.n_elems; ++k, ++c) {
      tags_ok &= tag[c] == fx->mesh.elem_tag[e];
      if (col) tags_ok &= col[c] == colour[e];
      if (av) tags_ok &= av[c] == av_eps[e];
    }
  TEST_CHECK(tags_ok, "element tags / colours / artificial viscosity per cell");
  if (exact) {
    uint64_t b1, b2, b3, b4, b5;
    const double *vel = vtu_array_data(&f, "velocity", &b1);
    const double *pr = vtu_array_data(&f, "pressure", &b2);
    const double *ma = vtu_array_data(&f, "mach", &b3);
    const double *en = vtu_array_data(&f, "entropy_deviation", &b5);
    (void)b4;
    double err_rho = 0.0, err_vel = 0.0, err_p = 0.0, err_mach = 0.0, err_cp = 0.0, err_s = 0.0;
    for (int64_t i = 0; i < np; ++i) {
      double W[DG_MAX_NVAR];
      field_linear(dim, x + 3 * i, W);
      double U[DG_MAX_NVAR];
      physics_primitive_to_conservative(dim, gamma_air, W, U);
      err_rho = fmax(err_rho, fabs(rho[i] - W[0]));
      for (int d = 0; d < 3; ++d)
        err_vel = fmax(err_vel, fabs(vel[3 * i + d] - (d < dim ? lin_u[d] : 0.0)));
      err_p = fmax(err_p, fabs(pr[i] - W[dim + 1]));
      err_mach = fmax(err_mach, fabs(ma[i] - physics_mach(dim, gamma_air, U)));
      if (cp)
        err_cp = fmax(err_cp, fabs(cp[i] - (W[dim + 1] - 1.0 / gamma_air) / (0.5 * mach * mach)));
      err_s = fmax(err_s, fabs(en[i] - (gamma_air * W[dim + 1] / pow(W[0], gamma_air) - 1.0)));
    }
    TEST_CHECK(err_rho < 1e-13 && err_vel < 1e-13 && err_p < 1e-13 && err_mach < 1e-12 &&
                   err_cp < 1e-11 && err_s < 1e-12,
               "%s: point values off: rho %.2g vel %.2g p %.2g mach %.2g cp %.2g s %.2g", path,
               err_rho, err_vel, err_p, err_mach, err_cp, err_s);
  }
  vtu_file_free(&f);
}

/* Lagrange cells (the default layout): one cell per element of the VTK
 * type of its shape with (n+1)(n+2)/2, (n+1)^2 or (n+1)(n+2)(n+3)/6 points,
 * n = max(p, q, 1) or vtu_subdivision; the points are those of the
 * sub-cell lattice of the same n (as a set, element by element) with the
 * same values, and, for the exact linear field, the field at the point. */
static void test_vtu_lagrange(void) {
  char path[600], path_sub[600];
  const struct {
    int dim, kind, order, n, p, subdivision;
    double deform;
  } runs[] = {{2, MESH_STRUCTURED_MIXED, 1, 2, 2, 0, 0.0},
              {2, MESH_STRUCTURED_MIXED, 2, 2, 1, 4, 0.03},
              {3, MESH_STRUCTURED_TET, 1, 1, 3, 0, 0.0},
              {3, MESH_STRUCTURED_TET, 2, 1, 1, 5, 0.03},
              {2, MESH_STRUCTURED_QUAD, 1, 2, 0, 0, 0.0}};
  for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
    fixture fx;
    TEST_OK(fixture_build(&fx, runs[r].dim, (dg_mesh_structured_kind)runs[r].kind, runs[r].order,
                          runs[r].n, runs[r].deform, runs[r].p));
    double *U = calloc((size_t)fx.disc.view.n_coefs, sizeof *U);
    project(&fx, field_linear, U);
    dg_flow_reference ref = {.mach = 0.5,
                             .alpha_deg = 2.0,
                             .beta_deg = 0.0,
                             .gamma = gamma_air,
                             .ref_length = 1.0,
                             .ref_area = 1.0,
                             .moment_center = {0.25, 0, 0}};
    ref.vtu_subdivision = runs[r].subdivision;
    const int n = runs[r].subdivision > 0 ? runs[r].subdivision
                                          : vtu_default_subdiv(runs[r].p, runs[r].order);
    snprintf(path, sizeof path, "%s/lagrange%zu.vtu", tmpdir, r);
    snprintf(path_sub, sizeof path_sub, "%s/lagrange_sub%zu.vtu", tmpdir, r);
    TEST_OK(vtu_write(path, &fx.mesh, &fx.disc, U, 0, &ref, NULL, NULL));
    TEST_OK(vtu_write(path_sub, &fx.mesh, &fx.disc, U, n, &ref, NULL, NULL));
    vtu_file f, g;
    TEST_CHECK(vtu_parse(path, &f) && vtu_parse(path_sub, &g), "%s: not parsed", path);
    const int64_t ne = fx.mesh.n_elems;
    int64_t np_sub, nc_sub;
    vtu_counts(&fx.mesh, n, &np_sub, &nc_sub);
    TEST_CHECK(vtu_attr(&f, "NumberOfCells=\"") == ne &&
                   vtu_attr(&f, "NumberOfPoints=\"") == np_sub,
               "%s: %lld cells, %lld points; expected %lld, %lld", path,
               (long long)vtu_attr(&f, "NumberOfCells=\""),
               (long long)vtu_attr(&f, "NumberOfPoints=\""), (long long)ne, (long long)np_sub);
    uint64_t bx, bo, bt, bd, bc, gx, gd;
    const double *x = vtu_array_data(&f, "Points", &bx);
    const int64_t *offs = vtu_array_data(&f, "offsets", &bo);
    const int64_t *conn = vtu_array_data(&f, "connectivity", &bc);
    const uint8_t *types = vtu_array_data(&f, "types", &bt);
    const double *rho = vtu_array_data(&f, "density", &bd);
    const double *y = vtu_array_data(&g, "Points", &gx);
    const double *rho_sub = vtu_array_data(&g, "density", &gd);
    TEST_CHECK(x && offs && conn && types && rho && y && rho_sub, "%s: arrays missing", path);
    if (!(x && offs && conn && types && rho && y && rho_sub)) {
      vtu_file_free(&f), vtu_file_free(&g), free(U), fixture_free(&fx);
      continue;
    }
    TEST_CHECK(bt == (uint64_t)ne && bo == (uint64_t)(8 * ne) && bc == (uint64_t)(8 * np_sub),
               "%s: block sizes", path);
    int64_t start = 0, bad_type = 0, bad_conn = 0, unmatched = 0;
    double err_rho = 0.0;
    for (int64_t e = 0; e < ne; ++e) {
      const dg_shape s = (dg_shape)fx.mesh.elem_shape[e];
      const int want = s == DG_TRI    ? (n + 1) * (n + 2) / 2
                       : s == DG_QUAD ? (n + 1) * (n + 1)
                                      : (n + 1) * (n + 2) * (n + 3) / 6;
      bad_type += types[e] != (s == DG_TRI ? 69 : s == DG_QUAD ? 70 : 71);
      bad_type += offs[e] - start != want;
      for (int k = 0; k < want; ++k) bad_conn += conn[start + k] != start + k;
      for (int k = 0; k < want; ++k) {
        const double *a = x + 3 * (start + k);
        int hit = 0;
        for (int j = 0; j < want && !hit; ++j) {
          const double *b = y + 3 * (start + j);
          hit = fabs(a[0] - b[0]) + fabs(a[1] - b[1]) + fabs(a[2] - b[2]) < 1e-13 &&
                fabs(rho[start + k] - rho_sub[start + j]) < 1e-13;
        }
        unmatched += !hit;
        if (runs[r].deform == 0.0 && runs[r].p >= 1) {
          double W[DG_MAX_NVAR];
          field_linear(fx.mesh.dim, a, W);
          err_rho = fmax(err_rho, fabs(rho[start + k] - W[0]));
        }
      }
      start += want;
    }
    TEST_CHECK(bad_type == 0 && bad_conn == 0,
               "%s: %lld cell types / sizes, %lld connectivity wrong", path, (long long)bad_type,
               (long long)bad_conn);
    TEST_CHECK(unmatched == 0, "%s: %lld Lagrange points are not sub-cell lattice points", path,
               (long long)unmatched);
    TEST_CHECK(err_rho < 1e-13, "%s: density off by %.2g", path, err_rho);
    vtu_file_free(&f);
    vtu_file_free(&g);
    remove(path);
    remove(path_sub);
    free(U);
    fixture_free(&fx);
  }
}

static void test_vtu(void) {
  char path[600];
  /* exact linear field at p = 1 and p = 3 on mixed and tet meshes */
  const struct {
    int dim, kind, order, n, p, subdiv;
    double deform;
  } runs[] = {
      {2, MESH_STRUCTURED_MIXED, 1, 3, 1, 0, 0.0}, {2, MESH_STRUCTURED_MIXED, 2, 3, 3, 5, 0.0},
      {3, MESH_STRUCTURED_TET, 1, 2, 1, 0, 0.0},   {3, MESH_STRUCTURED_TET, 1, 1, 2, 4, 0.0},
      {2, MESH_STRUCTURED_QUAD, 2, 2, 2, 0, 0.03}, {3, MESH_STRUCTURED_TET, 2, 2, 1, 0, 0.03}};
  for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
    fixture fx;
    TEST_OK(fixture_build(&fx, runs[r].dim, (dg_mesh_structured_kind)runs[r].kind, runs[r].order,
                          runs[r].n, runs[r].deform, runs[r].p));
    double *U = calloc((size_t)fx.disc.view.n_coefs, sizeof *U);
    project(&fx, field_linear, U);
    int32_t *colour = calloc((size_t)fx.mesh.n_elems, sizeof *colour);
    double *av_eps = calloc((size_t)fx.mesh.n_elems, sizeof *av_eps);
    for (int64_t e = 0; e < fx.mesh.n_elems; ++e) {
      colour[e] = (int32_t)(e % 3) + 1;
      av_eps[e] = 1e-3 * (double)(e % 7);
    }
    dg_flow_reference ref = {.mach = 0.5,
                             .alpha_deg = 2.0,
                             .beta_deg = 0.0,
                             .gamma = gamma_air,
                             .ref_length = 1.0,
                             .ref_area = 1.0,
                             .moment_center = {0.25, 0, 0}};
    ref.vtu_cells = DG_VTU_CELLS_SUBCELLS;
    dg_flow_reference still = ref;
    still.mach = 0.0;
    snprintf(path, sizeof path, "%s/out%zu.vtu", tmpdir, r);
    const int exact = runs[r].deform == 0.0;
    const int subdiv =
        runs[r].subdiv > 0 ? runs[r].subdiv : vtu_default_subdiv(runs[r].p, runs[r].order);
    TEST_OK(vtu_write(path, &fx.mesh, &fx.disc, U, runs[r].subdiv, &ref, r % 2 ? colour : NULL,
                      r % 2 ? av_eps : NULL));
    /* the curved runs' area is not exactly the box's */
    if (exact)
      check_vtu(&fx, path, subdiv, exact, r % 2 ? colour : NULL, r % 2 ? av_eps : NULL, ref.mach);
    else {
      /* curved: every point of a subdiv = geometric-order lattice is a mesh node */
      vtu_file f;
      TEST_CHECK(vtu_parse(path, &f), "parse");
      uint64_t bx = 0;
      const double *x = vtu_array_data(&f, "Points", &bx);
      int64_t np, nc;
      vtu_counts(&fx.mesh, subdiv, &np, &nc);
      TEST_CHECK(subdiv == runs[r].order, "default subdivision %d = geometric order", subdiv);
      int64_t i = 0, unmatched = 0;
      for (int64_t e = 0; e < fx.mesh.n_elems; ++e) {
        const int nn = mesh_elem_n_nodes(&fx.mesh, e);
        for (int64_t k = 0; k < np / fx.mesh.n_elems; ++k, ++i) {
          int hit = 0;
          for (int a = 0; a < nn; ++a) {
            const double *xn = fx.mesh.x + 3 * fx.mesh.elem_nodes[fx.mesh.elem_node_start[e] + a];
            hit |=
                fabs(xn[0] - x[3 * i]) + fabs(xn[1] - x[3 * i + 1]) + fabs(xn[2] - x[3 * i + 2]) <
                1e-14;
          }
          unmatched += !hit;
        }
      }
      TEST_CHECK(unmatched == 0, "%s: %lld points are not curved-mesh nodes", path,
                 (long long)unmatched);
      vtu_file_free(&f);
    }
    TEST_OK(vtu_write(path, &fx.mesh, &fx.disc, U, runs[r].subdiv, &still, NULL, NULL));
    if (exact) check_vtu(&fx, path, subdiv, exact, NULL, NULL, 0.0);
    TEST_FAILS(vtu_write(path, &fx.mesh, &fx.disc, U, VTU_MAX_SUBDIV + 1, &ref, NULL, NULL),
               DG_ERR_ARG, "subdivision");
    remove(path);
    free(colour);
    free(av_eps);
    free(U);
    fixture_free(&fx);
  }
  /* mesh and discretisation must match */
  fixture a, b;
  TEST_OK(fixture_build(&a, 2, MESH_STRUCTURED_TRI, 1, 2, 0.0, 1));
  TEST_OK(fixture_build(&b, 2, MESH_STRUCTURED_QUAD, 1, 2, 0.0, 1));
  double *U = calloc((size_t)a.disc.view.n_coefs, sizeof *U);
  const dg_flow_reference ref = {.mach = 0.5,
                                 .alpha_deg = 0.0,
                                 .beta_deg = 0.0,
                                 .gamma = gamma_air,
                                 .ref_length = 1.0,
                                 .ref_area = 1.0,
                                 .moment_center = {0, 0, 0}};
  TEST_FAILS(vtu_write(path, &b.mesh, &a.disc, U, 0, &ref, NULL, NULL), DG_ERR_ARG,
             "not the one the discretisation was built from");
  free(U);
  fixture_free(&a);
  fixture_free(&b);
  remove(path);

  /* series */
  snprintf(path, sizeof path, "%s/series.pvd", tmpdir);
  const char *files[2] = {"run_0001.vtu", "a&b<1>.vtu"};
  const double times[2] = {0.0, 0.5};
  TEST_OK(vtu_write_pvd(path, 2, files, times));
  unsigned char *text = NULL;
  TEST_CHECK(file_read_all(path, &text) > 0, "pvd read");
  TEST_CHECK(
      text && strstr((char *)text, "timestep=\"0\" group=\"\" part=\"0\" file=\"run_0001.vtu\"") &&
          strstr((char *)text,
                 "timestep=\"0.5\" group=\"\" part=\"0\" file=\"a&amp;b&lt;1&gt;.vtu\"") &&
          strstr((char *)text, "<VTKFile type=\"Collection\""),
      "pvd content:\n%s", text ? (char *)text : "");
  free(text);
  remove(path);
}

/* ---------------------------------------------------------------- surface */

/* Wall outputs on the box [0,2] x [0,1] (x [0,1]) with the linear pressure
 * at rest: 2D surface_cp.csv on the walls xmax and ymin (sorted by name:
 * xmax first), each an open straight curve starting at its free end with
 * the largest x, s the distance from there, Cp exact, normals out of the
 * box; 3D: the wall xmin cut at y = 0.5 (a plane through mesh vertices and
 * along face edges) is one open segment x = 0, y = 0.5, z from end to end. */
static void test_wall_outputs(void) {
  char dir[600], path[700], line[512];
  snprintf(dir, sizeof dir, "%s/walls", tmpdir);
  mkdir(dir, 0700);
  fixture fx;
  TEST_OK(fixture_build(&fx, 2, MESH_STRUCTURED_MIXED, 2, 4, 0.0, 1));
  double *U = calloc((size_t)fx.disc.view.n_coefs, sizeof *U);
  project(&fx, field_pressure, U);
  dg_flow_reference ref = {.mach = 0.5, .gamma = gamma_air, .ref_length = 1.0, .ref_area = 1.0};
  uint8_t mask[6] = {0, 1, 1, 0, 0, 0}; /* xmax, ymin */
  TEST_OK(surface_write_outputs(dir, &fx.mesh, &fx.disc, U, mask, &ref));
  snprintf(path, sizeof path, "%s/surface_cp.csv", dir);
  FILE *f = fopen(path, "r");
  TEST_CHECK(f && fgets(line, sizeof line, f) &&
                 !strcmp(line, "group,curve,s,x,y,cp,mach,nx,ny,face\n"),
             "2D wall header");
  int rows[2] = {0, 0}, order_ok = 1, seen_ymin = 0;
  double err_s = 0.0, err_cp = 0.0, err_n = 0.0, s_prev = -1.0;
  while (f && fgets(line, sizeof line, f)) {
    char group[64];
    int curve;
    long long face;
    double s, x[2], cp, mach, n[2];
    if (sscanf(line, "%63[^,],%d,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lld", group, &curve, &s, &x[0], &x[1],
               &cp, &mach, &n[0], &n[1], &face) != 10) {
      order_ok = 0;
      break;
    }
    const int ymin = !strcmp(group, "ymin");
    if (ymin && !seen_ymin) s_prev = -1.0;
    order_ok &= curve == 0 && (ymin || !seen_ymin) && (ymin || !strcmp(group, "xmax"));
    seen_ymin |= ymin;
    ++rows[ymin];
    order_ok &= s > s_prev;
    s_prev = s;
    /* xmax (x = 2): from either end, s = y or 1 - y; ymin: from x = 2, s = 2 - x */
    err_s = fmax(err_s, ymin ? fabs(s - (2.0 - x[0])) : fmin(fabs(s - x[1]), fabs(s - 1 + x[1])));
    const double p = 0.9 + grad_p[0] * x[0] + grad_p[1] * x[1];
    err_cp = fmax(err_cp, fabs(cp - (p - 1.0 / gamma_air) / (0.5 * 0.25)) + fabs(mach));
    err_n = fmax(err_n, ymin ? fabs(n[0]) + fabs(n[1] + 1.0) : fabs(n[0] - 1.0) + fabs(n[1]));
  }
  if (f) fclose(f);
  const int nq = fx.disc.view.nqf;
  TEST_CHECK(order_ok && rows[0] == 4 * nq && rows[1] == 4 * nq,
             "2D wall rows: groups by name, one curve each, s increasing (%d, %d rows)", rows[0],
             rows[1]);
  TEST_CHECK(err_s < 1e-12 && err_cp < 1e-12 && err_n < 1e-14,
             "2D wall: s off by %.2g, cp / mach by %.2g, normals by %.2g", err_s, err_cp, err_n);
  snprintf(path, sizeof path, "%s/surface.vtu", dir);
  unsigned char *text = NULL;
  TEST_CHECK(file_read_all(path, &text) > 0 && strstr((char *)text, "NumberOfCells=\"8\""),
             "surface.vtu: one cell per wall face");
  free(text);
  free(U);
  fixture_free(&fx);

  TEST_OK(fixture_build(&fx, 3, MESH_STRUCTURED_TET, 1, 2, 0.0, 1));
  U = calloc((size_t)fx.disc.view.n_coefs, sizeof *U);
  project(&fx, field_pressure, U);
  ref.semispan = 1.0, ref.n_sections = 1, ref.sections[0] = 0.5;
  const uint8_t xmin[6] = {1, 0, 0, 0, 0, 0};
  TEST_OK(surface_write_outputs(dir, &fx.mesh, &fx.disc, U, xmin, &ref));
  snprintf(path, sizeof path, "%s/section_eta0.5.csv", dir);
  f = fopen(path, "r");
  TEST_CHECK(f && fgets(line, sizeof line, f) && !strcmp(line, "curve,x,y,z,x/c,cp,upper\n"),
             "section header");
  int n_pts = 0, ok = 1;
  double z_first = -1.0, z_prev = 0.0, err_cp3 = 0.0;
  while (f && fgets(line, sizeof line, f)) {
    int curve, upper;
    double x[3], xc, cp;
    ok &= sscanf(line, "%d,%lf,%lf,%lf,%lf,%lf,%d", &curve, &x[0], &x[1], &x[2], &xc, &cp,
                 &upper) == 7;
    ok &= curve == 0 && fabs(x[0]) < 1e-14 && fabs(x[1] - 0.5) < 1e-14;
    if (n_pts == 0)
      z_first = x[2];
    else
      ok &= z_first == 0.0 ? x[2] > z_prev : x[2] < z_prev; /* monotone, no repeats */
    z_prev = x[2];
    const double p = 0.9 + grad_p[1] * 0.5 + grad_p[2] * x[2];
    err_cp3 = fmax(err_cp3, fabs(cp - (p - 1.0 / gamma_air) / (0.5 * 0.25)));
    ++n_pts;
  }
  if (f) fclose(f);
  TEST_CHECK(ok && n_pts >= 3 && (z_first == 0.0 || z_first == 1.0) && z_prev == 1.0 - z_first,
             "section at y = 0.5 of the wall x = 0: one segment from z = 0 to 1 (%d points)",
             n_pts);
  TEST_CHECK(err_cp3 < 1e-12, "section cp off by %.2g", err_cp3);
  const char *const written[3] = {"surface_cp.csv", "surface.vtu", "section_eta0.5.csv"};
  for (int i = 0; i < 3; ++i) {
    snprintf(path, sizeof path, "%s/%s", dir, written[i]);
    remove(path);
  }
  rmdir(dir);
  free(U);
  fixture_free(&fx);
}

static void test_surface(int dim) {
  fixture fx;
  TEST_OK(fixture_build(&fx, dim, dim == 2 ? MESH_STRUCTURED_MIXED : MESH_STRUCTURED_TET, 1,
                        dim == 2 ? 4 : 2, 0.03, 1));
  const dg_disc_view *d = &fx.disc.view;
  double *U = calloc((size_t)d->n_coefs, sizeof *U);
  uint8_t all[6] = {1, 1, 1, 1, 1, 1};
  dg_flow_reference ref = {.mach = 0.5,
                           .alpha_deg = 3.0,
                           .beta_deg = dim == 3 ? 2.0 : 0.0,
                           .gamma = gamma_air,
                           .ref_length = 1.5,
                           .ref_area = 1.5,
                           .moment_center = {0.3, 0.2, 0.1}};
  dg_force_coefs c;

  /* uniform pressure on a closed surface: no net force or moment */
  project(&fx, field_uniform, U);
  TEST_OK(surface_forces(&fx.disc, U, all, &ref, &c));
  for (int i = 0; i < 3; ++i) {
    TEST_CLOSE(c.force[i], 0.0, 1e-13, "uniform pressure: net force");
    TEST_CLOSE(c.moment[i], 0.0, 1e-13, "uniform pressure: net moment");
  }

  /* linear pressure: F = ∫ ∇p dV = g |Ω|, M = |Ω| (x_c − x_ref) × g */
  project(&fx, field_pressure, U);
  TEST_OK(surface_forces(&fx.disc, U, all, &ref, &c));
  const double volume = 2.0;
  const double xc[3] = {1.0, 0.5, dim == 3 ? 0.5 : 0.0};
  double r[3], g[3] = {grad_p[0], grad_p[1], dim == 3 ? grad_p[2] : 0.0};
  for (int i = 0; i < 3; ++i) r[i] = xc[i] - (i < dim ? ref.moment_center[i] : 0.0);
  const double M[3] = {volume * (r[1] * g[2] - r[2] * g[1]), volume * (r[2] * g[0] - r[0] * g[2]),
                       volume * (r[0] * g[1] - r[1] * g[0])};
  for (int i = 0; i < 3; ++i) {
    TEST_CLOSE(c.force[i], volume * g[i], 1e-12, "linear pressure: force = g |Omega|");
    TEST_CLOSE(c.moment[i], dim == 2 && i < 2 ? 0.0 : M[i], 1e-12, "linear pressure: moment");
  }
  /* coefficients in wind axes */
  double drag[3], lift[3], side[3];
  surface_wind_axes(&ref, dim, drag, lift, side);
  const double qs = 0.5 * ref.mach * ref.mach * ref.ref_area;
  double fd = 0.0, fl = 0.0;
  for (int i = 0; i < 3; ++i) fd += volume * g[i] * drag[i], fl += volume * g[i] * lift[i];
  TEST_CLOSE(c.cd, fd / qs, 1e-11, "CD");
  TEST_CLOSE(c.cl, fl / qs, 1e-11, "CL");
  TEST_CLOSE(c.cm, (dim == 2 ? -M[2] : M[1]) / (qs * ref.ref_length), 1e-11, "CM nose-up");
  if (dim == 2) {
    const double a = 3.0 * DG_PI / 180.0;
    TEST_CLOSE(c.cl, volume * (-sin(a) * g[0] + cos(a) * g[1]) / qs, 1e-11, "CL 2D by hand");
  }
  /* the same sum as the CPU backend's forces operation */
  const dg_backend *cpu = backend_cpu();
  dg_backend_ctx *ctx = NULL;
  TEST_OK(dg_backend_create(cpu, &fx.disc, &ctx));
  dg_vec dU = {0};
  TEST_OK(dg_vec_create(cpu, ctx, DG_VEC_STATE, &dU));
  TEST_OK(dg_vec_upload(U, &dU));
  double raw[6];
  TEST_OK(dg_backend_forces(cpu, ctx, &dU, all, ref.moment_center, raw));
  for (int i = 0; i < 3; ++i) {
    TEST_CLOSE(raw[i], c.force[i], 1e-13, "backend forces agree");
    TEST_CLOSE(raw[3 + i], c.moment[i], 1e-13, "backend moments agree");
  }
  dg_vec_destroy(&dU);
  dg_backend_destroy(cpu, ctx);

  /* the drag axis is the free-stream direction of the boundary states, the
   * lift axis is normal to it, and the side axis completes them */
  dg_case cs;
  memset(&cs, 0, sizeof cs);
  cs.alpha_deg = ref.alpha_deg, cs.beta_deg = ref.beta_deg, cs.mach = 0.5, cs.gamma = gamma_air;
  cs.ref_length = 1.5, cs.ref_area = 7.0;
  double dir[3], u_inf[3], dot = 0.0;
  physics_direction(dim, ref.alpha_deg, ref.beta_deg, dir);
  case_freestream_velocity(&cs, dim, u_inf);
  for (int i = 0; i < 3; ++i) {
    TEST_CLOSE(drag[i], dir[i], 1e-15, "drag direction = physics_direction");
    TEST_CLOSE(u_inf[i], 0.5 * drag[i], 1e-15, "free-stream velocity = M drag direction");
    dot += drag[i] * lift[i];
  }
  TEST_CLOSE(dot, 0.0, 1e-15, "lift normal to drag");
  dg_flow_reference from_case;
  surface_reference_from_case(&cs, dim, &from_case);
  TEST_CLOSE(from_case.ref_area, dim == 2 ? 1.5 : 7.0, 0.0, "S_ref: 2D length x 1, 3D area");

  /* Cp on one wall: rows = faces x points, values from the linear pressure */
  const int g_sel = 2; /* ymin */
  uint8_t one[6] = {0, 0, 0, 0, 0, 0};
  one[g_sel] = 1;
  char path[600];
  snprintf(path, sizeof path, "%s/cp%d.csv", tmpdir, dim);
  TEST_OK(surface_write_cp(path, &fx.disc, U, one, &ref));
  FILE *f = fopen(path, "r");
  char line[512];
  TEST_CHECK(f && fgets(line, sizeof line, f), "cp file");
  TEST_CHECK(strcmp(line, dim == 2 ? "x,y,cp,face,group\n" : "x,y,z,cp,face,group\n") == 0,
             "cp header: %s", line);
  int64_t rows = 0, expect_rows = 0;
  for (int64_t fc = d->n_interior; fc < d->n_faces; ++fc) expect_rows += d->face_group[fc] == g_sel;
  expect_rows *= d->nqf;
  double max_err = 0.0, min_y = 1e300, max_y = -1e300;
  int groups_ok = 1;
  while (f && fgets(line, sizeof line, f)) {
    double x[3] = {0, 0, 0}, cpv;
    long long face;
    int group;
    const int got =
        dim == 2
            ? sscanf(line, "%lf,%lf,%lf,%lld,%d", &x[0], &x[1], &cpv, &face, &group)
            : sscanf(line, "%lf,%lf,%lf,%lf,%lld,%d", &x[0], &x[1], &x[2], &cpv, &face, &group);
    if (got != dim + 3) break;
    double W[DG_MAX_NVAR];
    field_pressure(dim, x, W);
    max_err =
        fmax(max_err, fabs(cpv - (W[dim + 1] - 1.0 / gamma_air) / (0.5 * ref.mach * ref.mach)));
    groups_ok &= group == g_sel && d->face_group[face] == g_sel;
    min_y = fmin(min_y, x[1]), max_y = fmax(max_y, x[1]);
    ++rows;
  }
  if (f) fclose(f);
  TEST_CHECK(rows == expect_rows, "cp rows %lld, expected %lld", (long long)rows,
             (long long)expect_rows);
  TEST_CHECK(max_err < 1e-11, "cp off by %.3g", max_err);
  TEST_CHECK(groups_ok && min_y == 0.0 && max_y == 0.0, "cp rows lie on ymin");
  remove(path);
  ref.mach = 0.0;
  TEST_FAILS(surface_write_cp(path, &fx.disc, U, one, &ref), DG_ERR_ARG, "positive Mach");
  TEST_FAILS(surface_forces(&fx.disc, U, one, &ref, &c), DG_ERR_ARG, "positive Mach");
  free(U);
  fixture_free(&fx);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "test_output_tmp_%ld", (long)getpid());
  mkdir(tmpdir, 0700);
  snprintf(scratch, sizeof scratch, "/dev/shm/colordg_test_output_%ld", (long)getpid());
  if (mkdir(scratch, 0700) != 0) snprintf(scratch, sizeof scratch, "%s", tmpdir);
  test_solution_roundtrip(2);
  test_solution_roundtrip(3);
  test_solution_exhaustive();
  test_solution_atomic();
  test_vtu();
  test_vtu_lagrange();
  test_surface(2);
  test_surface(3);
  test_wall_outputs();
  rmdir(scratch);
  rmdir(tmpdir);
  return test_finish("test_output");
}
