/* Element colouring (src/coloring/coloring.c):
 * - BFS_WALL and LARGEST_FIRST give valid colourings (coloring_check) on
 *   every committed mesh tests/data/mesh_*.cdgm
 *   and on structured tri / quad / mixed / tet boxes, periodic or not;
 * - BFS_WALL gives exactly 2 colours on structured quads (bipartite), also
 *   periodic with an even cell count, and at least 3 with an odd one;
 * - BFS starts at the lowest-numbered element of the seed group (colour 0);
 * - colouring is deterministic; the permutation is colour-major, stable
 *   and keeps the grouping by shape; after coloring_apply the colour ranges
 *   are contiguous and agree with color, and the colouring is still valid on
 *   the rebuilt topology;
 * - the DG residual (CPU backend) of a curved mixed mesh is invariant under
 *   the colour-major renumbering (1e-13 relative, element by element);
 * - the per-colour element lists hold each colour's elements ascending,
 *   color_first marks the colours that are one index range, and after
 *   coloring_apply each list is its (shape, colour) ranges;
 * - coloring_from_colors makes the same object from given colours and
 *   refuses invalid ones (DG_ERR_ARG);
 * - coloring_check names the face and both element tags of a conflict;
 * - coloring_reduce removes the last colour of the BFS colouring on the
 *   committed unstructured meshes (hybrid NACA 0012, its elements with no
 *   free lower colour through Kempe-chain interchanges; triangles; NLR 7301;
 *   ONERA M6), keeps the colouring valid, deterministic and colour-major
 *   after coloring_apply, changes nothing where the last colour is too large
 *   or there are two colours, and refuses an applied colouring.
 * Colour counts and group sizes are printed (docs/COLORING.md). */
#define _POSIX_C_SOURCE 200809L /* dirent */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_select.h"
#include "coloring/coloring.h"
#include "dg/backend_cpu.h"
#include "dg/disc.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "test_util.h"

/* Deep copy of the element arrays a test needs to compare against (tags). */
static int64_t *copy_tags(const dg_mesh *mesh) {
  int64_t *tags = malloc((size_t)(mesh->n_elems > 0 ? mesh->n_elems : 1) * sizeof *tags);
  if (tags) memcpy(tags, mesh->elem_tag, (size_t)mesh->n_elems * sizeof *tags);
  return tags;
}

/* Elements per colour: sizes[c] for c < n_colors (sizes has DG_MAX_FACES + 1 slots). */
static void color_sizes(const dg_coloring *col, int64_t *sizes, int64_t *min, int64_t *max) {
  for (int c = 0; c <= DG_MAX_FACES; ++c) sizes[c] = 0;
  for (int64_t e = 0; e < col->n_elems; ++e)
    if (col->color[e] >= 0 && col->color[e] <= DG_MAX_FACES) ++sizes[col->color[e]];
  *min = *max = col->n_colors > 0 ? sizes[0] : 0;
  for (int c = 1; c < col->n_colors; ++c) {
    if (sizes[c] < *min) *min = sizes[c];
    if (sizes[c] > *max) *max = sizes[c];
  }
}

/* Checks the permutation of a built colouring: a permutation, grouping by
 * shape kept, colour-major inside each shape block, stable by old index. */
static void check_permutation(const char *what, const dg_mesh *mesh, const dg_coloring *col) {
  const int64_t n = mesh->n_elems;
  char *seen = calloc((size_t)(n > 0 ? n : 1), 1);
  int ok_perm = 1, ok_shape = 1, ok_major = 1, ok_stable = 1;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    for (int64_t i = mesh->shape_offset[s]; i < mesh->shape_offset[s + 1]; ++i) {
      const int64_t old = col->perm[i];
      if (old < 0 || old >= n || seen[old]) {
        ok_perm = 0;
        continue;
      }
      seen[old] = 1;
      if (old < mesh->shape_offset[s] || old >= mesh->shape_offset[s + 1]) ok_shape = 0;
      if (i > mesh->shape_offset[s]) {
        const int64_t prev = col->perm[i - 1];
        if (prev < 0 || prev >= n) continue;
        if (col->color[prev] > col->color[old]) ok_major = 0;
        if (col->color[prev] == col->color[old] && prev > old) ok_stable = 0;
      }
    }
  }
  free(seen);
  TEST_CHECK(ok_perm, "%s: perm is not a permutation", what);
  TEST_CHECK(ok_shape, "%s: perm moves elements between shape blocks", what);
  TEST_CHECK(ok_major, "%s: perm is not colour-major", what);
  TEST_CHECK(ok_stable, "%s: perm is not stable by old index", what);
}

/* Checks the per-colour element lists against color: colour c's list holds
 * exactly the elements of colour c, ascending; color_first[c] is its first
 * element when the list is one run of consecutive indices, else -1. After
 * coloring_apply (shape_color_offset set), each list is the concatenation
 * over shapes of the (shape, colour) ranges. */
static void check_lists(const char *what, const dg_coloring *col) {
  const int nc = col->n_colors;
  const int64_t n = col->n_elems;
  int ok_start = col->color_start && col->color_elems && col->color_first &&
                 col->color_start[0] == 0 && col->color_start[nc] == n;
  TEST_CHECK(ok_start, "%s: per-colour lists missing or not covering the %lld elements", what,
             (long long)n);
  if (!ok_start) return;
  int ok_members = 1, ok_order = 1, ok_first = 1, ok_ranges = 1;
  int64_t *count = calloc((size_t)nc, sizeof *count);
  for (int64_t e = 0; e < n; ++e) ++count[col->color[e]];
  for (int c = 0; c < nc; ++c) {
    const int64_t a = col->color_start[c], b = col->color_start[c + 1];
    if (b - a != count[c]) ok_members = 0;
    int run = b > a;
    for (int64_t i = a; i < b; ++i) {
      const int64_t e = col->color_elems[i];
      if (e < 0 || e >= n || col->color[e] != c) ok_members = 0;
      if (i > a && e <= col->color_elems[i - 1]) ok_order = 0;
      if (i > a && e != col->color_elems[a] + (i - a)) run = 0;
    }
    if (col->color_first[c] != (run ? col->color_elems[a] : -1)) ok_first = 0;
    if (col->shape_color_offset) {
      int64_t k = a;
      for (int s = 0; s < DG_NUM_SHAPES; ++s) {
        const int64_t *off = col->shape_color_offset + s * (nc + 1);
        for (int64_t e = off[c]; e < off[c + 1]; ++e, ++k)
          if (k >= b || col->color_elems[k] != e) ok_ranges = 0;
      }
      if (k != b) ok_ranges = 0;
    }
  }
  free(count);
  TEST_CHECK(ok_members, "%s: a colour's list does not hold exactly its elements", what);
  TEST_CHECK(ok_order, "%s: a colour's list is not ascending", what);
  TEST_CHECK(ok_first, "%s: color_first disagrees with the lists' contiguity", what);
  TEST_CHECK(ok_ranges, "%s: a colour's list is not its (shape, colour) ranges", what);
}

/* Colours mesh with both algorithms: valid, deterministic, colour-major;
 * expect_bfs > 0: the BFS colour count; min_bfs: a lower bound. The last
 * algorithm's colouring is applied (the mesh is renumbered) and checked on
 * the rebuilt topology. */
static void check_mesh(const char *what, dg_mesh *mesh, int expect_bfs, int min_bfs) {
  dg_topology topo = {0};
  TEST_OK(topology_build(mesh, &topo));
  if (topo.n_elems != mesh->n_elems) return;
  for (int a = 0; a < DG_NUM_COLORINGS; ++a) {
    dg_coloring col = {0}, again = {0};
    const char *alg = coloring_algorithm_name((dg_coloring_algorithm)a);
    TEST_OK(coloring_build(mesh, &topo, (dg_coloring_algorithm)a, "wall", &col));
    if (!col.color) continue;
    TEST_OK(coloring_check(mesh, &topo, col.color));
    TEST_CHECK(col.n_colors >= 1 && col.n_colors <= DG_MAX_FACES + 1,
               "%s %s: %d colours out of range", what, alg, col.n_colors);
    if (a == DG_COLORING_BFS_WALL && expect_bfs > 0)
      TEST_CHECK(col.n_colors == expect_bfs, "%s %s: %d colours, expected %d", what, alg,
                 col.n_colors, expect_bfs);
    if (a == DG_COLORING_BFS_WALL)
      TEST_CHECK(col.n_colors >= min_bfs, "%s %s: %d colours, expected at least %d", what, alg,
                 col.n_colors, min_bfs);
    TEST_CHECK(col.shape_color_offset == NULL, "%s %s: offsets set before apply", what, alg);
    int64_t sizes[DG_MAX_FACES + 1], mn, mx;
    color_sizes(&col, sizes, &mn, &mx);
    printf("%-44s %-13s %lld elements: %d colours, sizes", what, alg, (long long)mesh->n_elems,
           col.n_colors);
    for (int c = 0; c < col.n_colors; ++c) printf(" %lld", (long long)sizes[c]);
    printf(" (min %lld, max %lld)\n", (long long)mn, (long long)mx);
    check_permutation(what, mesh, &col);
    check_lists(what, &col);
    /* deterministic */
    TEST_OK(coloring_build(mesh, &topo, (dg_coloring_algorithm)a, "wall", &again));
    if (again.color)
      TEST_CHECK(again.n_colors == col.n_colors &&
                     !memcmp(again.color, col.color, (size_t)mesh->n_elems * sizeof *col.color) &&
                     !memcmp(again.perm, col.perm, (size_t)mesh->n_elems * sizeof *col.perm),
                 "%s %s: colouring is not deterministic", what, alg);
    coloring_free(&again);
    if (a == DG_NUM_COLORINGS - 1) {
      int32_t *old_color = malloc((size_t)mesh->n_elems * sizeof *old_color);
      int64_t *old_tags = copy_tags(mesh);
      memcpy(old_color, col.color, (size_t)mesh->n_elems * sizeof *old_color);
      TEST_OK(coloring_apply(&col, mesh));
      TEST_FAILS(coloring_apply(&col, mesh), DG_ERR_ARG, "already applied");
      dg_topology topo2 = {0};
      TEST_OK(topology_build(mesh, &topo2));
      TEST_OK(coloring_check(mesh, &topo2, col.color));
      int ok_map = 1, ok_range = 1;
      for (int64_t i = 0; i < mesh->n_elems; ++i)
        if (col.color[i] != old_color[col.perm[i]] || mesh->elem_tag[i] != old_tags[col.perm[i]])
          ok_map = 0;
      const int nc = col.n_colors;
      for (int s = 0; s < DG_NUM_SHAPES; ++s) {
        const int64_t *off = col.shape_color_offset + s * (nc + 1);
        if (off[0] != mesh->shape_offset[s] || off[nc] != mesh->shape_offset[s + 1]) ok_range = 0;
        for (int c = 0; c < nc; ++c) {
          if (off[c] > off[c + 1]) ok_range = 0;
          for (int64_t i = off[c]; i < off[c + 1]; ++i)
            if (col.color[i] != c) ok_range = 0;
        }
      }
      TEST_CHECK(ok_map, "%s %s: colours or tags not permuted with perm", what, alg);
      TEST_CHECK(ok_range, "%s %s: shape_color_offset ranges disagree with color", what, alg);
      check_lists(what, &col);
      /* a colour held by one shape is one range: the sweeps index it directly */
      for (int c = 0; c < nc; ++c) {
        int shapes = 0;
        for (int s = 0; s < DG_NUM_SHAPES; ++s) {
          const int64_t *off = col.shape_color_offset + s * (nc + 1);
          shapes += off[c + 1] > off[c];
        }
        TEST_CHECK(shapes != 1 || col.color_first[c] >= 0,
                   "%s %s: colour %d of one shape is not marked contiguous", what, alg, c);
      }
      topology_free(&topo2);
      free(old_color);
      free(old_tags);
    }
    coloring_free(&col);
  }
  topology_free(&topo);
}

/* Every committed mesh. */
static void check_committed_meshes(void) {
  DIR *dir = opendir(COLORDG_TEST_DATA);
  TEST_CHECK(dir != NULL, "cannot open %s", COLORDG_TEST_DATA);
  if (!dir) return;
  int found = 0;
  struct dirent *ent;
  char names[64][256];
  int n_names = 0;
  while ((ent = readdir(dir)) != NULL && n_names < 64) {
    const char *name = ent->d_name;
    const size_t len = strlen(name);
    const int is_mesh = len > 5 && !strcmp(name + len - 5, ".cdgm") && !strncmp(name, "mesh_", 5);
    if (is_mesh && len < sizeof names[0]) memcpy(names[n_names++], name, len + 1);
  }
  closedir(dir);
  qsort(names, (size_t)n_names, sizeof names[0], (int (*)(const void *, const void *))strcmp);
  for (int i = 0; i < n_names; ++i) {
    char path[sizeof COLORDG_TEST_DATA + sizeof names + 1];
    snprintf(path, sizeof path, "%s/%s", COLORDG_TEST_DATA, names[i]);
    dg_mesh mesh = {0};
    TEST_OK(mesh_read_cdgm(path, &mesh));
    /* square quad meshes are structured: BFS must give red-black */
    const int expect = strstr(names[i], "square_quad") ? 2 : 0;
    if (mesh.n_elems > 0) check_mesh(names[i], &mesh, expect, 2);
    mesh_free(&mesh);
    ++found;
  }
  TEST_CHECK(found >= 9, "only %d committed meshes found in %s", found, COLORDG_TEST_DATA);
}

static void check_structured(void) {
  const char *kind_names[4] = {"tri", "quad", "mixed", "tet"};
  for (int k = 0; k < 4; ++k)
    for (int periodic = 0; periodic <= 1; ++periodic)
      for (int alt = 0; alt <= (k == 0 || k == 2 ? 1 : 0); ++alt) {
        const int dim = k == 3 ? 3 : 2;
        dg_mesh_structured_opts mo = mesh_structured_defaults(dim);
        mo.kind = (dg_mesh_structured_kind)k;
        mo.n[0] = dim == 2 ? 8 : 4;
        mo.n[1] = dim == 2 ? 6 : 4;
        mo.n[2] = 3;
        mo.order = 1 + (periodic + alt) % 2;
        mo.deform = mo.order > 1 ? 0.03 : 0.0;
        mo.alternate_diagonals = alt;
        for (int d = 0; d < dim; ++d) mo.periodic[d] = periodic;
        dg_mesh mesh = {0};
        TEST_OK(dim == 2 ? mesh_structured_2d(&mo, &mesh) : mesh_structured_3d(&mo, &mesh));
        char what[96];
        snprintf(what, sizeof what, "structured %s%s%s %lldx%lld%s", kind_names[k],
                 periodic ? " periodic" : "", alt ? " alt-diag" : "", (long long)mo.n[0],
                 (long long)mo.n[1], dim == 3 ? "x3" : "");
        check_mesh(what, &mesh, k == 1 ? 2 : 0, 2);
        mesh_free(&mesh);
      }
  /* odd periodic quad rows: odd cycles, not bipartite -> at least 3 colours */
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = MESH_STRUCTURED_QUAD;
  mo.n[0] = 5;
  mo.n[1] = 4;
  mo.periodic[0] = 1;
  dg_mesh mesh = {0};
  TEST_OK(mesh_structured_2d(&mo, &mesh));
  check_mesh("structured quad x-periodic 5x4 (odd)", &mesh, 0, 3);
  mesh_free(&mesh);
  /* a larger quad box: still red-black */
  mo = mesh_structured_defaults(2);
  mo.kind = MESH_STRUCTURED_QUAD;
  mo.n[0] = 40;
  mo.n[1] = 25;
  mo.order = 2;
  mo.deform = 0.03;
  TEST_OK(mesh_structured_2d(&mo, &mesh));
  check_mesh("structured quad 40x25 order 2", &mesh, 2, 2);
  mesh_free(&mesh);
}

/* BFS seed: the lowest-numbered element of the seed group gets colour 0
 * (and is the first reached); NULL or an unknown group: element 0. */
static void check_seed(void) {
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = MESH_STRUCTURED_TRI;
  mo.n[0] = 5;
  mo.n[1] = 4;
  dg_mesh mesh = {0};
  dg_topology topo = {0};
  TEST_OK(mesh_structured_2d(&mo, &mesh));
  TEST_OK(topology_build(&mesh, &topo));
  const int g = mesh_find_group(&mesh, "xmax");
  TEST_CHECK(g >= 0, "no xmax group");
  if (g < 0) goto done;
  int64_t seed = -1;
  for (int64_t f = topo.group_face_offset[g]; f < topo.group_face_offset[g + 1]; ++f)
    if (seed < 0 || topo.face_elem[2 * f] < seed) seed = topo.face_elem[2 * f];
  TEST_CHECK(seed > 0, "xmax seed %lld should not be element 0", (long long)seed);
  dg_coloring col = {0};
  TEST_OK(coloring_build(&mesh, &topo, DG_COLORING_BFS_WALL, "xmax", &col));
  /* colour 0 on the seed, and every face neighbour of the seed has a colour > 0 */
  TEST_CHECK(col.color && col.color[seed] == 0, "seed element %lld has colour %d", (long long)seed,
             col.color ? col.color[seed] : -1);
  coloring_free(&col);
  /* seeding at xmax and at xmin gives different colourings of a triangle box */
  dg_coloring a = {0}, b = {0}, c = {0};
  TEST_OK(coloring_build(&mesh, &topo, DG_COLORING_BFS_WALL, NULL, &a));
  TEST_OK(coloring_build(&mesh, &topo, DG_COLORING_BFS_WALL, "no_such_group", &b));
  TEST_OK(coloring_build(&mesh, &topo, DG_COLORING_BFS_WALL, "xmax", &c));
  TEST_CHECK(a.color && b.color && a.color[0] == 0 &&
                 !memcmp(a.color, b.color, (size_t)mesh.n_elems * sizeof *a.color),
             "NULL and absent seed groups should both start at element 0");
  coloring_free(&a);
  coloring_free(&b);
  coloring_free(&c);
  /* a broken colouring is reported with the face and both element tags */
  int32_t *bad = calloc((size_t)mesh.n_elems, sizeof *bad);
  TEST_FAILS(coloring_check(&mesh, &topo, bad), DG_ERR_INTERNAL, "joins elements tag");
  free(bad);
  TEST_FAILS(coloring_build(&mesh, &topo, DG_NUM_COLORINGS, NULL, &a), DG_ERR_ARG,
             "unknown colouring algorithm");
done:
  topology_free(&topo);
  mesh_free(&mesh);
}

/* coloring_from_colors: the colours of coloring_build give the same object
 * (colours, perm, lists); an extra empty colour is allowed; a colour out of
 * range, two face neighbours of one colour or no colours are refused with
 * DG_ERR_ARG; the object applies like a built one. */
static void check_from_colors(void) {
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = MESH_STRUCTURED_MIXED;
  mo.n[0] = 5;
  mo.n[1] = 4;
  dg_mesh mesh = {0};
  dg_topology topo = {0};
  dg_coloring built = {0}, from = {0}, bad = {0};
  TEST_OK(mesh_structured_2d(&mo, &mesh));
  TEST_OK(topology_build(&mesh, &topo));
  TEST_OK(coloring_build(&mesh, &topo, DG_COLORING_BFS_WALL, "ymin", &built));
  const int64_t n = mesh.n_elems;
  if (!built.color) goto done;
  TEST_OK(coloring_from_colors(&mesh, &topo, built.color, built.n_colors + 1, &from));
  if (!from.color) goto done;
  const int nc = built.n_colors;
  TEST_CHECK(from.n_colors == nc + 1 && from.n_elems == n &&
                 !memcmp(from.color, built.color, (size_t)n * sizeof *from.color) &&
                 !memcmp(from.perm, built.perm, (size_t)n * sizeof *from.perm) &&
                 !memcmp(from.color_start, built.color_start, (size_t)(nc + 1) * sizeof(int64_t)) &&
                 !memcmp(from.color_elems, built.color_elems, (size_t)n * sizeof(int64_t)) &&
                 !memcmp(from.color_first, built.color_first, (size_t)nc * sizeof(int64_t)),
             "coloring_from_colors differs from coloring_build on the same colours");
  TEST_CHECK(from.color_start[nc + 1] == n && from.color_first[nc] == -1,
             "the empty colour %d has elements or a first element", nc);
  check_lists("coloring_from_colors", &from);
  int32_t *color = malloc((size_t)n * sizeof *color);
  memcpy(color, built.color, (size_t)n * sizeof *color);
  color[3] = nc;
  TEST_FAILS(coloring_from_colors(&mesh, &topo, color, nc, &bad), DG_ERR_ARG, "outside [0,");
  TEST_CHECK(bad.color == NULL, "a refused colouring holds arrays");
  int64_t a = topo.face_elem[0], b = topo.face_elem[1];
  for (int64_t f = 0; f < topo.n_interior && (a < 0 || b < 0); ++f)
    a = topo.face_elem[2 * f], b = topo.face_elem[2 * f + 1];
  memcpy(color, built.color, (size_t)n * sizeof *color);
  color[b] = color[a];
  TEST_FAILS(coloring_from_colors(&mesh, &topo, color, nc, &bad), DG_ERR_ARG, "joins elements tag");
  TEST_FAILS(coloring_from_colors(&mesh, &topo, built.color, 0, &bad), DG_ERR_ARG, "colours");
  free(color);
  TEST_OK(coloring_apply(&from, &mesh));
  check_lists("coloring_from_colors, applied", &from);
done:
  coloring_free(&built);
  coloring_free(&from);
  topology_free(&topo);
  mesh_free(&mesh);
}

/* Mesh + topology + geometry + disc + CPU context of a curved mixed box. */
typedef struct {
  dg_mesh mesh;
  dg_topology topo;
  dg_geometry geom;
  dg_disc disc;
  dg_backend_ctx *ctx;
} fixture;

static void fixture_free(fixture *fx) {
  if (fx->ctx) dg_backend_destroy(backend_cpu(), fx->ctx);
  disc_free(&fx->disc);
  geometry_free(&fx->geom);
  topology_free(&fx->topo);
  mesh_free(&fx->mesh);
}

/* Builds topology, geometry, disc and context for fx->mesh (degree p, boundary
 * groups cycling through exact, far field, wall, supersonic outflow). */
static int fixture_finish(fixture *fx, int p) {
  const int degree = 2 * p + 1 + 2 * (fx->mesh.geom_order - 1);
  dg_status st = topology_build(&fx->mesh, &fx->topo);
  if (st == DG_SUCCESS) st = geometry_build(&fx->mesh, &fx->topo, degree, degree, &fx->geom);
  if (st == DG_SUCCESS) {
    dg_disc_opts o;
    memset(&o, 0, sizeof o);
    o.p = p;
    o.gamma = 1.4;
    o.flux = DG_FACE_FLUX_ROE;
    physics_freestream_state(2, 1.4, 0.5, 30.0, 0.0, o.freestream);
    o.exact_kind = 1;
    o.vortex.velocity[0] = 0.5 * cos(DG_PI / 6);
    o.vortex.velocity[1] = 0.5 * sin(DG_PI / 6);
    o.vortex.center[0] = o.vortex.center[1] = 0.5;
    o.vortex.strength = 5.0;
    int32_t bc[8];
    physics_bc_data data[8];
    const int kinds[4] = {PHYSICS_BC_EXACT, PHYSICS_BC_FARFIELD, PHYSICS_BC_WALL,
                          PHYSICS_BC_SUPERSONIC_OUTFLOW};
    o.n_groups = fx->mesh.n_groups;
    for (int g = 0; g < fx->mesh.n_groups && g < 8; ++g) {
      bc[g] = kinds[g % 4];
      memset(&data[g], 0, sizeof data[g]);
      for (int v = 0; v < DG_MAX_NVAR; ++v) data[g].state[v] = o.freestream[v];
    }
    o.group_bc = bc;
    o.group_data = data;
    st = disc_build(&fx->mesh, &fx->topo, &fx->geom, &o, &fx->disc);
  }
  if (st == DG_SUCCESS) st = dg_backend_create(backend_cpu(), &fx->disc, &fx->ctx);
  TEST_OK(st);
  return st == DG_SUCCESS;
}

/* Residual before and after colour-major renumbering, element by element. */
static void check_residual_invariance(int p) {
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = MESH_STRUCTURED_MIXED;
  mo.order = 2;
  mo.n[0] = 6;
  mo.n[1] = 5;
  mo.deform = 0.04;
  fixture a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  TEST_OK(mesh_structured_2d(&mo, &a.mesh));
  TEST_OK(mesh_structured_2d(&mo, &b.mesh));
  dg_coloring col = {0};
  {
    dg_topology topo = {0};
    TEST_OK(topology_build(&b.mesh, &topo));
    TEST_OK(coloring_build(&b.mesh, &topo, DG_COLORING_BFS_WALL, "ymin", &col));
    topology_free(&topo);
  }
  if (!col.perm) return;
  TEST_OK(coloring_apply(&col, &b.mesh));
  int64_t moved = 0;
  for (int64_t i = 0; i < b.mesh.n_elems; ++i) moved += col.perm[i] != i;
  TEST_CHECK(moved > b.mesh.n_elems / 2, "renumbering moved only %lld elements", (long long)moved);
  if (!fixture_finish(&a, p) || !fixture_finish(&b, p)) goto done;
  const dg_backend *be = backend_cpu();
  const int64_t n = a.disc.view.n_coefs;
  TEST_CHECK(b.disc.view.n_coefs == n, "coefficient counts differ");
  dg_vec Ua = {0}, Ra = {0}, Ub = {0}, Rb = {0};
  TEST_OK(dg_vec_create(be, a.ctx, DG_VEC_STATE, &Ua));
  TEST_OK(dg_vec_create(be, a.ctx, DG_VEC_STATE, &Ra));
  TEST_OK(dg_vec_create(be, b.ctx, DG_VEC_STATE, &Ub));
  TEST_OK(dg_vec_create(be, b.ctx, DG_VEC_STATE, &Rb));
  TEST_OK(disc_project(&a.disc, 0.2, Ua.data));
  for (int64_t i = 0; i < n; ++i) Ua.data[i] += 1e-3 * sin(0.7 * (double)i + 0.3);
  const int nvar = a.disc.view.nvar;
  for (int64_t e = 0; e < b.mesh.n_elems; ++e) {
    const int nb = b.disc.view.nb[b.disc.view.elem_shape[e]];
    for (int v = 0; v < nvar; ++v)
      for (int m = 0; m < nb; ++m)
        Ub.data[disc_coef_index(&b.disc.view, e, v, m)] =
            Ua.data[disc_coef_index(&a.disc.view, col.perm[e], v, m)];
  }
  TEST_OK(dg_backend_residual(be, a.ctx, &Ua, 0.2, &Ra));
  TEST_OK(dg_backend_residual(be, b.ctx, &Ub, 0.2, &Rb));
  double scale = 0.0, diff = 0.0;
  for (int64_t e = 0; e < b.mesh.n_elems; ++e) {
    const int nb = b.disc.view.nb[b.disc.view.elem_shape[e]];
    for (int v = 0; v < nvar; ++v)
      for (int m = 0; m < nb; ++m) {
        const double rb = Rb.data[disc_coef_index(&b.disc.view, e, v, m)];
        const double ra = Ra.data[disc_coef_index(&a.disc.view, col.perm[e], v, m)];
        scale = fmax(scale, fabs(ra));
        diff = fmax(diff, fabs(ra - rb));
      }
  }
  printf("residual under colour-major renumbering, p = %d: max |diff| %.3g, scale %.3g\n", p, diff,
         scale);
  TEST_CHECK(scale > 1e-3, "p=%d: residual scale %g is suspiciously small", p, scale);
  TEST_CHECK(diff <= 1e-13 * scale, "p=%d: residual changed by %.3g (scale %.3g) on renumbering", p,
             diff, scale);
  dg_vec_destroy(&Ua);
  dg_vec_destroy(&Ra);
  dg_vec_destroy(&Ub);
  dg_vec_destroy(&Rb);
done:
  coloring_free(&col);
  fixture_free(&a);
  fixture_free(&b);
}

/* Elements of the last colour of col for which every lower colour is
 * taken by a face neighbour (only a Kempe-chain interchange frees one). */
static int64_t count_blocked(const dg_topology *topo, const dg_coloring *col) {
  const int top = col->n_colors - 1;
  int64_t blocked = 0;
  for (int64_t e = 0; e < col->n_elems; ++e) {
    if (col->color[e] != top) continue;
    int used[DG_MAX_FACES + 1] = {0}, n_used = 0;
    for (int k = 0; k < DG_MAX_FACES; ++k) {
      const int64_t nb = topo->elem_neighbor[e * DG_MAX_FACES + k];
      if (nb >= 0 && col->color[nb] < top && !used[col->color[nb]]) {
        used[col->color[nb]] = 1;
        ++n_used;
      }
    }
    blocked += n_used == top;
  }
  return blocked;
}

/* Reads the committed mesh `name`, builds its topology and three BFS_WALL
 * colourings of it; 0 when any step failed (reported). */
static int open_colored(const char *name, dg_mesh *mesh, dg_topology *topo, dg_coloring *a,
                        dg_coloring *b, dg_coloring *c) {
  dg_coloring *col[3] = {a, b, c};
  char path[512];
  snprintf(path, sizeof path, "%s/%s", COLORDG_TEST_DATA, name);
  TEST_OK(mesh_read_cdgm(path, mesh));
  TEST_OK(topology_build(mesh, topo));
  for (int k = 0; k < 3; ++k)
    TEST_OK(coloring_build(mesh, topo, DG_COLORING_BFS_WALL, "wall", col[k]));
  return a->color && b->color && c->color;
}

/* After coloring_apply: the colouring is valid in the topology of the
 * renumbered mesh and its lists are right. */
static void check_applied(const char *name, const dg_mesh *mesh, const dg_coloring *col) {
  dg_topology topo2 = {0};
  TEST_OK(topology_build(mesh, &topo2));
  TEST_OK(coloring_check(mesh, &topo2, col->color));
  check_lists(name, col);
  topology_free(&topo2);
}

/* Releases what open_colored made. */
static void close_colored(dg_mesh *mesh, dg_topology *topo, dg_coloring *a, dg_coloring *b,
                          dg_coloring *c) {
  coloring_free(a);
  coloring_free(b);
  coloring_free(c);
  topology_free(topo);
  mesh_free(mesh);
}

/* coloring_reduce on one committed mesh: expect_drop colours removed from
 * BFS_WALL's (0: unchanged, bitwise), need_kempe: the last colour has an
 * element with no free lower colour. */
static void check_reduce_mesh(const char *name, int expect_drop, int need_kempe) {
  dg_mesh mesh = {0};
  dg_topology topo = {0};
  dg_coloring greedy = {0}, col = {0}, again = {0};
  if (!open_colored(name, &mesh, &topo, &greedy, &col, &again)) goto done;
  if (need_kempe)
    TEST_CHECK(count_blocked(&topo, &greedy) > 0,
               "%s: no element of the last colour needs a Kempe interchange", name);
  int dropped = -1, dropped2 = -1;
  TEST_OK(coloring_reduce(&mesh, &topo, &col, &dropped));
  TEST_OK(coloring_reduce(&mesh, &topo, &again, &dropped2));
  TEST_CHECK(dropped == expect_drop && col.n_colors == greedy.n_colors - expect_drop,
             "%s: %d colours dropped (%d -> %d), expected %d", name, dropped, greedy.n_colors,
             col.n_colors, expect_drop);
  TEST_OK(coloring_check(&mesh, &topo, col.color));
  int64_t sizes[DG_MAX_FACES + 1], mn, mx;
  color_sizes(&col, sizes, &mn, &mx);
  printf("%-44s reduced       %lld elements: %d colours, sizes", name, (long long)mesh.n_elems,
         col.n_colors);
  for (int c = 0; c < col.n_colors; ++c) printf(" %lld", (long long)sizes[c]);
  printf(" (min %lld, max %lld)\n", (long long)mn, (long long)mx);
  TEST_CHECK(dropped == dropped2 && again.n_colors == col.n_colors &&
                 !memcmp(again.color, col.color, (size_t)mesh.n_elems * sizeof *col.color) &&
                 !memcmp(again.perm, col.perm, (size_t)mesh.n_elems * sizeof *col.perm),
             "%s: coloring_reduce is not deterministic", name);
  if (expect_drop == 0)
    TEST_CHECK(!memcmp(greedy.color, col.color, (size_t)mesh.n_elems * sizeof *col.color) &&
                   !memcmp(greedy.perm, col.perm, (size_t)mesh.n_elems * sizeof *col.perm),
               "%s: coloring_reduce changed a colouring it could not reduce", name);
  check_permutation(name, &mesh, &col);
  check_lists(name, &col);
  TEST_OK(coloring_apply(&col, &mesh));
  TEST_FAILS(coloring_reduce(&mesh, &topo, &col, NULL), DG_ERR_ARG, "already applied");
  check_applied(name, &mesh, &col);
done:
  close_colored(&mesh, &topo, &greedy, &col, &again);
}

static void check_reduce(void) {
  check_reduce_mesh("mesh_naca0012_hybrid_q2.cdgm", 1, 1); /* 922 923 42 1 -> 922 923 43 */
  check_reduce_mesh("mesh_naca0012_tri_1_q2.cdgm", 1, 0);  /* 3943 3760 1297 4 */
  check_reduce_mesh("mesh_nlr7301_sharp_0_q2.cdgm", 1, 0); /* 1763 1667 675 3 */
  check_reduce_mesh("mesh_onera_m6_0_q2.cdgm", 1, 0);      /* ... 834 5: 834 > 1 %, stays */
  check_reduce_mesh("mesh_square_quad_8.cdgm", 0, 0);      /* 2 colours: nothing to do */
}

/* coloring_order_turns after coloring_reduce on one committed mesh: the
 * colours are the reduced ones relabelled (expect: the sizes after, 0 for
 * the rest), the largest first, the next largest last, the others in their
 * order; still valid, colour-major, deterministic; the updates of a
 * symmetric pass after the first (2 n minus the two turn colours) do not
 * grow. */
static void check_turns_mesh(const char *name, const int64_t *expect) {
  dg_mesh mesh = {0};
  dg_topology topo = {0};
  dg_coloring before = {0}, col = {0}, again = {0};
  if (!open_colored(name, &mesh, &topo, &before, &col, &again)) goto done;
  TEST_OK(coloring_reduce(&mesh, &topo, &before, NULL));
  TEST_OK(coloring_reduce(&mesh, &topo, &col, NULL));
  TEST_OK(coloring_reduce(&mesh, &topo, &again, NULL));
  int moved = -1, moved2 = -1;
  TEST_OK(coloring_order_turns(&mesh, &col, &moved));
  TEST_OK(coloring_order_turns(&mesh, &again, &moved2));
  const int nc = col.n_colors;
  int64_t sb[DG_MAX_FACES + 1], sa[DG_MAX_FACES + 1], mn, mx;
  color_sizes(&before, sb, &mn, &mx);
  color_sizes(&col, sa, &mn, &mx);
  printf("%-44s turns         %d colours, sizes", name, nc);
  for (int c = 0; c < nc; ++c) printf(" %lld", (long long)sa[c]);
  printf(" (updates per pass %lld -> %lld)\n", (long long)(2 * mesh.n_elems - sb[0] - sb[nc - 1]),
         (long long)(2 * mesh.n_elems - sa[0] - sa[nc - 1]));
  TEST_CHECK(nc == before.n_colors, "%s: %d colours after the turns, %d before", name, nc,
             before.n_colors);
  int same = 1;
  for (int c = 0; c < nc && c < DG_MAX_FACES + 1; ++c) {
    TEST_CHECK(sa[c] == expect[c], "%s: colour %d has %lld elements, expected %lld", name, c,
               (long long)sa[c], (long long)expect[c]);
    same = same && sa[c] == sb[c];
  }
  for (int c = 1; c < nc; ++c)
    TEST_CHECK(sa[0] >= sa[c] && (c == nc - 1 || sa[nc - 1] >= sa[c]),
               "%s: colour %d (%lld elements) is larger than a turn colour", name, c,
               (long long)sa[c]);
  TEST_CHECK(2 * mesh.n_elems - sa[0] - sa[nc - 1] <= 2 * mesh.n_elems - sb[0] - sb[nc - 1],
             "%s: the turns add element updates", name);
  TEST_CHECK(moved == !same, "%s: moved = %d, but the colours %s", name, moved,
             same ? "kept their labels" : "were relabelled");
  if (same)
    TEST_CHECK(!memcmp(before.color, col.color, (size_t)mesh.n_elems * sizeof *col.color) &&
                   !memcmp(before.perm, col.perm, (size_t)mesh.n_elems * sizeof *col.perm),
               "%s: coloring_order_turns changed a colouring already in order", name);
  /* a relabelling: elements of one colour before share one colour after */
  int32_t map[DG_MAX_FACES + 1];
  for (int c = 0; c < DG_MAX_FACES + 1; ++c) map[c] = -1;
  for (int64_t e = 0; e < mesh.n_elems; ++e) {
    const int32_t b = before.color[e], a = col.color[e];
    if (map[b] < 0) map[b] = a;
    if (map[b] != a) {
      TEST_CHECK(0, "%s: element %lld of colour %d went to colour %d, another of it to %d", name,
                 (long long)e, b, a, map[b]);
      break;
    }
  }
  TEST_OK(coloring_check(&mesh, &topo, col.color));
  TEST_CHECK(moved == moved2 &&
                 !memcmp(again.color, col.color, (size_t)mesh.n_elems * sizeof *col.color) &&
                 !memcmp(again.perm, col.perm, (size_t)mesh.n_elems * sizeof *col.perm),
             "%s: coloring_order_turns is not deterministic", name);
  check_permutation(name, &mesh, &col);
  check_lists(name, &col);
  /* a second call finds the labels in order */
  TEST_OK(coloring_order_turns(&mesh, &again, &moved2));
  TEST_CHECK(moved2 == 0, "%s: a second coloring_order_turns moved the colours again", name);
  TEST_OK(coloring_apply(&col, &mesh));
  TEST_FAILS(coloring_order_turns(&mesh, &col, NULL), DG_ERR_ARG, "already applied");
  check_applied(name, &mesh, &col);
done:
  close_colored(&mesh, &topo, &before, &col, &again);
}

static void check_turns(void) {
  /* the reduced colourings of check_reduce, relabelled */
  static const int64_t hybrid[] = {923, 43, 922};      /* 922 923 43 */
  static const int64_t naca1[] = {3943, 1301, 3760};   /* 3943 3760 1301 */
  static const int64_t nlr0[] = {1726, 676, 1706};     /* 1706 1726 676 */
  static const int64_t m6[] = {7959, 4953, 835, 7432}; /* 7959 7432 4953 835 */
  static const int64_t quads[] = {32, 32};             /* 2 colours: nothing to do */
  check_turns_mesh("mesh_naca0012_hybrid_q2.cdgm", hybrid);
  check_turns_mesh("mesh_naca0012_tri_1_q2.cdgm", naca1);
  check_turns_mesh("mesh_nlr7301_sharp_0_q2.cdgm", nlr0);
  check_turns_mesh("mesh_onera_m6_0_q2.cdgm", m6);
  check_turns_mesh("mesh_square_quad_8.cdgm", quads);
  /* a given colouring with more colours than a greedy one makes: one per
   * element, all of size 1: colour 0 stays, colour 1 goes last */
  char path[512];
  snprintf(path, sizeof path, "%s/%s", COLORDG_TEST_DATA, "mesh_square_tri_8.cdgm");
  dg_mesh mesh = {0};
  dg_topology topo = {0};
  dg_coloring col = {0};
  int32_t *ident = NULL;
  TEST_OK(mesh_read_cdgm(path, &mesh));
  TEST_OK(topology_build(&mesh, &topo));
  const int n = (int)mesh.n_elems;
  ident = malloc((size_t)(n > 0 ? n : 1) * sizeof *ident);
  if (ident && n > DG_MAX_FACES + 1) {
    for (int e = 0; e < n; ++e) ident[e] = e;
    TEST_OK(coloring_from_colors(&mesh, &topo, ident, n, &col));
    int moved = -1;
    TEST_OK(coloring_order_turns(&mesh, &col, &moved));
    TEST_CHECK(moved == 1 && col.color[0] == 0 && col.color[1] == n - 1 && col.color[2] == 1 &&
                   col.color[n - 1] == n - 2,
               "one colour per element: moved %d, colours %d %d %d ... %d", moved, col.color[0],
               col.color[1], col.color[2], col.color[n - 1]);
    TEST_OK(coloring_check(&mesh, &topo, col.color));
    check_permutation("one colour per element", &mesh, &col);
    check_lists("one colour per element", &col);
  } else {
    TEST_CHECK(0, "mesh_square_tri_8.cdgm: %d elements, or no memory", n);
  }
  free(ident);
  coloring_free(&col);
  topology_free(&topo);
  mesh_free(&mesh);
}

int main(void) {
  check_seed();
  check_from_colors();
  check_structured();
  check_committed_meshes();
  check_reduce();
  check_turns();
  for (int p = 0; p <= 2; ++p) check_residual_invariance(p);
  return test_finish("test_coloring");
}
