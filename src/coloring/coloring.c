/* Element colouring and colour-major renumbering (coloring.h, docs/COLORING.md). */
#include "coloring/coloring.h"

#include <stdlib.h>
#include <string.h>

const char *coloring_algorithm_name(dg_coloring_algorithm algorithm) {
  switch (algorithm) {
  case DG_COLORING_BFS_WALL: return "bfs_wall";
  case DG_COLORING_LARGEST_FIRST: return "largest_first";
  default: return "?";
  }
}

/* Neighbour of element e across local face k, or -1 (boundary / past the faces). */
static int64_t coloring_neighbor(const dg_topology *topo, int64_t e, int k) {
  return topo->elem_neighbor[e * DG_MAX_FACES + k];
}

/* Rejects an element that is its own face neighbour (a periodic direction one
 * element wide): no colouring can separate it from itself. */
static dg_status coloring_check_self_neighbors(const dg_mesh *mesh, const dg_topology *topo) {
  for (int64_t e = 0; e < topo->n_elems; ++e) {
    for (int k = 0; k < DG_MAX_FACES; ++k) {
      DG_CHECK(coloring_neighbor(topo, e, k) != e, DG_ERR_MESH,
               "%s: element %lld (tag %lld) is its own neighbour across its local face %d "
               "(periodic direction one element wide); it cannot be coloured",
               mesh->source, (long long)e, (long long)mesh->elem_tag[e], k);
    }
  }
  return DG_SUCCESS;
}

/* Gives element e the smallest colour not used by its coloured face
 * neighbours (color < 0 = not coloured yet); returns that colour. */
static int32_t coloring_smallest_free(const dg_topology *topo, const int32_t *color, int64_t e) {
  /* An element has at most DG_MAX_FACES neighbours, so a colour in
   * [0, DG_MAX_FACES] is always free. */
  int used[DG_MAX_FACES + 1] = {0};
  for (int k = 0; k < DG_MAX_FACES; ++k) {
    const int64_t nb = coloring_neighbor(topo, e, k);
    if (nb >= 0 && color[nb] >= 0 && color[nb] <= DG_MAX_FACES) used[color[nb]] = 1;
  }
  int32_t c = 0;
  while (used[c]) ++c;
  return c;
}

/* Lowest-numbered element with a face in the boundary group called seed_group;
 * 0 when the name is NULL, the group is absent or has no faces. */
static int64_t coloring_seed_element(const dg_mesh *mesh, const dg_topology *topo,
                                     const char *seed_group) {
  int64_t seed = 0;
  if (!seed_group) return seed;
  const int g = mesh_find_group(mesh, seed_group);
  if (g < 0 || g >= topo->n_groups) return seed;
  int64_t best = -1;
  for (int64_t f = topo->group_face_offset[g]; f < topo->group_face_offset[g + 1]; ++f) {
    const int64_t e = topo->face_elem[2 * f];
    if (e >= 0 && (best < 0 || e < best)) best = e;
  }
  return best >= 0 ? best : seed;
}

/* BFS from the seed; colours in the order elements leave the queue. On a
 * bipartite face graph this gives exactly 2 colours (colour = BFS level
 * parity): when an element of level L is coloured, its only coloured
 * neighbours are of level L - 1 (a bipartite graph has no edge inside a level). */
static dg_status coloring_bfs(const dg_mesh *mesh, const dg_topology *topo, const char *seed_group,
                              int32_t *color) {
  const int64_t n = topo->n_elems;
  dg_status status = DG_SUCCESS;
  int64_t *queue = NULL;
  uint8_t *queued = NULL;
  DG_CALL_GOTO(status, done, DG_CALLOC(queue, (size_t)n));
  DG_CALL_GOTO(status, done, DG_CALLOC(queued, (size_t)n));
  for (int64_t e = 0; e < n; ++e) color[e] = -1;
  int64_t head = 0, tail = 0;
  int64_t next_start = 0; /* lowest element possibly not yet queued */
  int64_t start = n > 0 ? coloring_seed_element(mesh, topo, seed_group) : 0;
  while (head < n) {
    if (head == tail) { /* new component: the seed first, then the lowest unvisited element */
      if (start < 0 || queued[start]) {
        while (next_start < n && queued[next_start]) ++next_start;
        start = next_start;
      }
      queue[tail++] = start;
      queued[start] = 1;
      start = -1;
    }
    const int64_t e = queue[head++];
    color[e] = coloring_smallest_free(topo, color, e);
    for (int k = 0; k < DG_MAX_FACES; ++k) {
      const int64_t nb = coloring_neighbor(topo, e, k);
      if (nb >= 0 && !queued[nb]) {
        queued[nb] = 1;
        queue[tail++] = nb;
      }
    }
  }
done:
  DG_FREE(queue);
  DG_FREE(queued);
  return status;
}

/* Sort key of the largest-first order. */
typedef struct {
  int degree;
  int64_t elem;
} coloring_degree_key;

static int coloring_compare_degree(const void *a, const void *b) {
  const coloring_degree_key *x = a, *y = b;
  if (x->degree != y->degree) return x->degree > y->degree ? -1 : 1;
  return (x->elem > y->elem) - (x->elem < y->elem);
}

/* Greedy colouring in order of decreasing number of face neighbours (ties by index). */
static dg_status coloring_largest_first(const dg_topology *topo, int32_t *color) {
  const int64_t n = topo->n_elems;
  coloring_degree_key *order = NULL;
  DG_CALL(DG_CALLOC(order, (size_t)n));
  for (int64_t e = 0; e < n; ++e) {
    int degree = 0;
    for (int k = 0; k < DG_MAX_FACES; ++k) degree += coloring_neighbor(topo, e, k) >= 0;
    order[e].degree = degree;
    order[e].elem = e;
    color[e] = -1;
  }
  qsort(order, (size_t)n, sizeof(*order), coloring_compare_degree);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t e = order[i].elem;
    color[e] = coloring_smallest_free(topo, color, e);
  }
  DG_FREE(order);
  return DG_SUCCESS;
}

/* Largest Kempe chain coloring_drop_top grows (elements): a longer chain
 * counts as a failed interchange, which bounds the work of one element. */
#define COLORING_CHAIN_MAX 4096

/* Kempe-chain interchange for element e (colour top; no colour below top is
 * free): for the colour pairs (a, b) below top in order, the (a, b) chain
 * grown from e's neighbours of colour a through face neighbours of colour a
 * or b; when it holds none of e's neighbours of colour b (and at most
 * COLORING_CHAIN_MAX elements), a and b swap along it and e takes a, which
 * keeps the colouring valid. Returns 1 on success, 0 (color unchanged) when
 * no pair works. stamp [n_elems] (zeroed once; *epoch counts its uses) and
 * queue [COLORING_CHAIN_MAX] are work arrays. */
static int coloring_kempe(const dg_topology *topo, int32_t *color, int64_t e, int top,
                          int32_t *stamp, int32_t *epoch, int64_t *queue) {
  for (int a = 0; a < top; ++a)
    for (int b = 0; b < top; ++b) {
      if (b == a) continue;
      const int32_t mark = ++*epoch;
      int64_t tail = 0;
      int ok = 1;
      for (int k = 0; k < DG_MAX_FACES && ok; ++k) {
        const int64_t nb = coloring_neighbor(topo, e, k);
        if (nb < 0 || color[nb] != a || stamp[nb] == mark) continue;
        stamp[nb] = mark;
        queue[tail++] = nb;
      }
      for (int64_t head = 0; head < tail && ok; ++head) {
        const int64_t x = queue[head];
        for (int k = 0; k < DG_MAX_FACES; ++k) {
          const int64_t y = coloring_neighbor(topo, x, k);
          if (y < 0 || stamp[y] == mark || (color[y] != a && color[y] != b)) continue;
          if (tail == COLORING_CHAIN_MAX) {
            ok = 0;
            break;
          }
          stamp[y] = mark;
          queue[tail++] = y;
        }
      }
      for (int k = 0; k < DG_MAX_FACES && ok; ++k) {
        const int64_t nb = coloring_neighbor(topo, e, k);
        if (nb >= 0 && color[nb] == b && stamp[nb] == mark) ok = 0; /* the chain reaches b */
      }
      if (!ok || tail == 0) continue;
      for (int64_t i = 0; i < tail; ++i) color[queue[i]] = color[queue[i]] == a ? b : a;
      color[e] = a;
      return 1;
    }
  return 0;
}

/* Removes the last colour (top = n_colors - 1) when every element of it can
 * take a colour below: the smallest free one, else a Kempe-chain
 * interchange (coloring_kempe), element by element in index order. Works
 * on a copy; *dropped = 1 and color updated when the whole colour went, else
 * *dropped = 0 and color unchanged. */
static dg_status coloring_drop_top(const dg_topology *topo, int32_t *color, int top, int *dropped) {
  const int64_t n = topo->n_elems;
  int32_t *trial = NULL, *stamp = NULL;
  int64_t *queue = NULL;
  dg_status status = DG_SUCCESS;
  *dropped = 0;
  DG_CALL_GOTO(status, done, DG_CALLOC(trial, (size_t)n));
  DG_CALL_GOTO(status, done, DG_CALLOC(stamp, (size_t)n));
  DG_CALL_GOTO(status, done, DG_CALLOC(queue, COLORING_CHAIN_MAX));
  memcpy(trial, color, (size_t)n * sizeof *trial);
  int32_t epoch = 0;
  for (int64_t e = 0; e < n; ++e) {
    if (trial[e] != top) continue;
    const int32_t c = coloring_smallest_free(topo, trial, e);
    if (c < top) {
      trial[e] = c;
      continue;
    }
    if (!coloring_kempe(topo, trial, e, top, stamp, &epoch, queue)) goto done;
  }
  memcpy(color, trial, (size_t)n * sizeof *color);
  *dropped = 1;
done:
  DG_FREE(trial);
  DG_FREE(stamp);
  DG_FREE(queue);
  return status;
}

/* coloring_check with the status of a failure: DG_ERR_INTERNAL for a
 * colouring made here (a bug), DG_ERR_ARG for one a caller handed in. */
static dg_status coloring_check_as(const dg_mesh *mesh, const dg_topology *topo,
                                   const int32_t *color, dg_status code) {
  DG_CHECK(mesh && topo && color, DG_ERR_ARG, "coloring_check: NULL argument");
  for (int64_t e = 0; e < topo->n_elems; ++e)
    DG_CHECK(color[e] >= 0, code, "%s: element %lld (tag %lld) has no colour (%d)", mesh->source,
             (long long)e, (long long)mesh->elem_tag[e], (int)color[e]);
  for (int64_t f = 0; f < topo->n_interior; ++f) {
    const int64_t a = topo->face_elem[2 * f], b = topo->face_elem[2 * f + 1];
    if (a < 0 || b < 0) continue;
    const double *shift = topo->face_shift ? topo->face_shift + 3 * f : NULL;
    const int periodic = shift && (shift[0] != 0.0 || shift[1] != 0.0 || shift[2] != 0.0);
    DG_CHECK(color[a] != color[b], code,
             "%s: invalid colouring: %sface %lld joins elements tag %lld and tag %lld, both of "
             "colour %d",
             mesh->source, periodic ? "periodic " : "", (long long)f, (long long)mesh->elem_tag[a],
             (long long)mesh->elem_tag[b], (int)color[a]);
  }
  return DG_SUCCESS;
}

dg_status coloring_check(const dg_mesh *mesh, const dg_topology *topo, const int32_t *color) {
  return coloring_check_as(mesh, topo, color, DG_ERR_INTERNAL);
}

/* The per-colour element lists of coloring->color (counting sort: each
 * colour's elements ascending) and the contiguous-range test, replacing the
 * lists of an earlier numbering on success. With mesh and n_owned, only the
 * owned elements of each shape block are listed. */
static dg_status coloring_index_owned(dg_coloring *coloring, const dg_mesh *mesh,
                                      const int64_t *n_owned) {
  const int64_t n = coloring->n_elems;
  const int nc = coloring->n_colors;
  const int32_t *color = coloring->color;
  int64_t *start = NULL, *elems = NULL, *first = NULL, *fill = NULL;
  dg_status status = DG_SUCCESS;
  DG_CALL_GOTO(status, done, DG_CALLOC(start, (size_t)nc + 1));
  DG_CALL_GOTO(status, done, DG_CALLOC(elems, (size_t)n));
  DG_CALL_GOTO(status, done, DG_CALLOC(first, (size_t)nc));
  DG_CALL_GOTO(status, done, DG_CALLOC(fill, (size_t)nc));
#define COLORING_LISTED(e)                                                                         \
  (!n_owned || (e)-mesh->shape_offset[mesh->elem_shape[e]] < n_owned[mesh->elem_shape[e]])
  for (int64_t e = 0; e < n; ++e)
    if (COLORING_LISTED(e)) ++start[color[e] + 1];
  for (int c = 0; c < nc; ++c) start[c + 1] += start[c];
  for (int64_t e = 0; e < n; ++e) {
    if (!COLORING_LISTED(e)) continue;
    const int c = color[e];
    elems[start[c] + fill[c]++] = e;
  }
#undef COLORING_LISTED
  for (int c = 0; c < nc; ++c) {
    const int64_t a = start[c], b = start[c + 1];
    first[c] = b > a && elems[b - 1] - elems[a] == b - 1 - a ? elems[a] : -1;
  }
  DG_FREE(coloring->color_start);
  DG_FREE(coloring->color_elems);
  DG_FREE(coloring->color_first);
  coloring->color_start = start;
  coloring->color_elems = elems;
  coloring->color_first = first;
  start = elems = first = NULL;
done:
  DG_FREE(start);
  DG_FREE(elems);
  DG_FREE(first);
  DG_FREE(fill);
  return status;
}

static dg_status coloring_index(dg_coloring *coloring) {
  return coloring_index_owned(coloring, NULL, NULL);
}

dg_status coloring_list_owned(dg_coloring *coloring, const dg_mesh *mesh,
                              const int64_t n_owned[DG_NUM_SHAPES]) {
  DG_CHECK(coloring && mesh && n_owned && coloring->n_elems == mesh->n_elems, DG_ERR_ARG,
           "coloring_list_owned: a colouring of %lld elements for a mesh of %lld",
           coloring ? (long long)coloring->n_elems : -1LL, mesh ? (long long)mesh->n_elems : -1LL);
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    DG_CHECK(n_owned[s] >= 0 && n_owned[s] <= mesh->shape_offset[s + 1] - mesh->shape_offset[s],
             DG_ERR_ARG, "coloring_list_owned: shape %d: %lld owned of %lld", s,
             (long long)n_owned[s], (long long)(mesh->shape_offset[s + 1] - mesh->shape_offset[s]));
  return coloring_index_owned(coloring, mesh, n_owned);
}

/* The colour-major permutation inside each shape block, stable by old index
 * (coloring->perm, allocated by the caller). */
static dg_status coloring_permutation(const dg_mesh *mesh, dg_coloring *coloring) {
  const int64_t n = coloring->n_elems;
  int64_t next = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    for (int c = 0; c < coloring->n_colors; ++c)
      for (int64_t e = mesh->shape_offset[s]; e < mesh->shape_offset[s + 1]; ++e)
        if (coloring->color[e] == c) coloring->perm[next++] = e;
  DG_CHECK(next == n, DG_ERR_INTERNAL,
           "coloring: colour-major permutation has %lld of %lld elements (mesh %s not "
           "grouped by shape?)",
           (long long)next, (long long)n, mesh->source);
  return DG_SUCCESS;
}

dg_status coloring_build(const dg_mesh *mesh, const dg_topology *topo,
                         dg_coloring_algorithm algorithm, const char *seed_group,
                         dg_coloring *coloring) {
  DG_CHECK(mesh && topo && coloring, DG_ERR_ARG, "coloring_build: NULL argument");
  DG_CHECK(topo->n_elems == mesh->n_elems, DG_ERR_ARG,
           "coloring_build: topology has %lld elements, mesh %s has %lld (rebuild the topology)",
           (long long)topo->n_elems, mesh->source, (long long)mesh->n_elems);
  DG_CHECK(algorithm >= 0 && algorithm < DG_NUM_COLORINGS, DG_ERR_ARG,
           "coloring_build: unknown colouring algorithm %d", (int)algorithm);
  memset(coloring, 0, sizeof(*coloring));
  DG_CALL(coloring_check_self_neighbors(mesh, topo));
  const int64_t n = mesh->n_elems;
  dg_status status = DG_SUCCESS;
  DG_CALL_GOTO(status, fail, DG_CALLOC(coloring->color, (size_t)n));
  DG_CALL_GOTO(status, fail, DG_CALLOC(coloring->perm, (size_t)n));
  coloring->n_elems = n;
  if (algorithm == DG_COLORING_BFS_WALL)
    DG_CALL_GOTO(status, fail, coloring_bfs(mesh, topo, seed_group, coloring->color));
  else
    DG_CALL_GOTO(status, fail, coloring_largest_first(topo, coloring->color));
  int n_colors = 0;
  for (int64_t e = 0; e < n; ++e)
    if (coloring->color[e] + 1 > n_colors) n_colors = coloring->color[e] + 1;
  coloring->n_colors = n_colors;
  DG_CALL_GOTO(status, fail, coloring_check(mesh, topo, coloring->color));
  DG_CALL_GOTO(status, fail, coloring_permutation(mesh, coloring));
  DG_CALL_GOTO(status, fail, coloring_index(coloring));
  return DG_SUCCESS;
fail:
  coloring_free(coloring);
  return status;
}

dg_status coloring_reduce(const dg_mesh *mesh, const dg_topology *topo, dg_coloring *coloring,
                          int *dropped) {
  DG_CHECK(mesh && topo && coloring && coloring->color && coloring->perm, DG_ERR_ARG,
           "coloring_reduce: NULL argument or colouring not built");
  DG_CHECK(!coloring->shape_color_offset, DG_ERR_ARG,
           "coloring_reduce: the colouring of mesh %s was already applied", mesh->source);
  DG_CHECK(topo->n_elems == coloring->n_elems && mesh->n_elems == coloring->n_elems, DG_ERR_ARG,
           "coloring_reduce: a colouring of %lld elements for mesh %s of %lld",
           (long long)coloring->n_elems, mesh->source, (long long)mesh->n_elems);
  const int64_t n = coloring->n_elems;
  const int64_t max_size = n / 100 > COLORING_REDUCE_MIN ? n / 100 : COLORING_REDUCE_MIN;
  int n_colors = coloring->n_colors, gone = 0;
  while (n_colors > 2) {
    const int top = n_colors - 1;
    int64_t size = 0;
    for (int64_t e = 0; e < n; ++e) size += coloring->color[e] == top;
    if (size > max_size) break;
    int ok = 0;
    DG_CALL(coloring_drop_top(topo, coloring->color, top, &ok));
    if (!ok) break;
    --n_colors;
    ++gone;
  }
  if (dropped) *dropped = gone;
  if (!gone) return DG_SUCCESS;
  coloring->n_colors = n_colors;
  DG_CALL(coloring_check(mesh, topo, coloring->color));
  DG_CALL(coloring_permutation(mesh, coloring));
  return coloring_index(coloring);
}

dg_status coloring_order_turns(const dg_mesh *mesh, dg_coloring *coloring, int *moved) {
  DG_CHECK(mesh && coloring && coloring->color && coloring->perm, DG_ERR_ARG,
           "coloring_order_turns: NULL argument or colouring not built");
  DG_CHECK(!coloring->shape_color_offset, DG_ERR_ARG,
           "coloring_order_turns: the colouring of mesh %s was already applied", mesh->source);
  DG_CHECK(mesh->n_elems == coloring->n_elems && coloring->color_start, DG_ERR_ARG,
           "coloring_order_turns: a colouring of %lld elements for mesh %s of %lld",
           (long long)coloring->n_elems, mesh->source, (long long)mesh->n_elems);
  if (moved) *moved = 0;
  const int nc = coloring->n_colors;
  if (nc < 3) return DG_SUCCESS; /* both colours are turn colours already */
  /* the elements per colour, from the per-colour lists (every element is
   * listed before coloring_apply) */
  const int64_t *start = coloring->color_start;
#define TURNS_SIZE(c) (start[(c) + 1] - start[c])
  /* the largest colour (the lowest of equal sizes) and the largest of the
   * others */
  int first = 0;
  for (int c = 1; c < nc; ++c)
    if (TURNS_SIZE(c) > TURNS_SIZE(first)) first = c;
  int last = first == 0 ? 1 : 0;
  for (int c = 0; c < nc; ++c)
    if (c != first && TURNS_SIZE(c) > TURNS_SIZE(last)) last = c;
#undef TURNS_SIZE
  if (first == 0 && last == nc - 1) return DG_SUCCESS; /* already so */
  /* new label of each colour: first -> 0, last -> nc - 1, the others in
   * their order in between */
  int32_t *label = NULL;
  DG_CALL(DG_CALLOC(label, (size_t)nc));
  int next = 1;
  for (int c = 0; c < nc; ++c) label[c] = c == first ? 0 : c == last ? nc - 1 : next++;
  for (int64_t e = 0; e < coloring->n_elems; ++e) coloring->color[e] = label[coloring->color[e]];
  free(label);
  if (moved) *moved = 1;
  /* a relabelling keeps the colouring valid */
  DG_CALL(coloring_permutation(mesh, coloring));
  return coloring_index(coloring);
}

dg_status coloring_from_colors(const dg_mesh *mesh, const dg_topology *topo, const int32_t *color,
                               int n_colors, dg_coloring *coloring) {
  DG_CHECK(mesh && topo && color && coloring, DG_ERR_ARG, "coloring_from_colors: NULL argument");
  DG_CHECK(topo->n_elems == mesh->n_elems, DG_ERR_ARG,
           "coloring_from_colors: topology has %lld elements, mesh %s has %lld (rebuild the "
           "topology)",
           (long long)topo->n_elems, mesh->source, (long long)mesh->n_elems);
  DG_CHECK(n_colors >= 1, DG_ERR_ARG,
           "coloring_from_colors: %d colours for mesh %s; expected at "
           "least 1",
           n_colors, mesh->source);
  memset(coloring, 0, sizeof(*coloring));
  const int64_t n = mesh->n_elems;
  for (int64_t e = 0; e < n; ++e)
    DG_CHECK(color[e] >= 0 && color[e] < n_colors, DG_ERR_ARG,
             "%s: element %lld (tag %lld) has colour %d, outside [0, %d)", mesh->source,
             (long long)e, (long long)mesh->elem_tag[e], (int)color[e], n_colors);
  DG_CALL(coloring_check_as(mesh, topo, color, DG_ERR_ARG));
  dg_status status = DG_SUCCESS;
  DG_CALL_GOTO(status, fail, DG_CALLOC(coloring->color, (size_t)n));
  DG_CALL_GOTO(status, fail, DG_CALLOC(coloring->perm, (size_t)n));
  memcpy(coloring->color, color, (size_t)n * sizeof(*color));
  coloring->n_elems = n;
  coloring->n_colors = n_colors;
  DG_CALL_GOTO(status, fail, coloring_permutation(mesh, coloring));
  DG_CALL_GOTO(status, fail, coloring_index(coloring));
  return DG_SUCCESS;
fail:
  coloring_free(coloring);
  return status;
}

dg_status coloring_apply(dg_coloring *coloring, dg_mesh *mesh) {
  DG_CHECK(coloring && mesh && coloring->color && coloring->perm, DG_ERR_ARG,
           "coloring_apply: NULL argument or colouring not built");
  DG_CHECK(coloring->n_elems == mesh->n_elems, DG_ERR_ARG,
           "coloring_apply: colouring has %lld elements, mesh %s has %lld",
           (long long)coloring->n_elems, mesh->source, (long long)mesh->n_elems);
  DG_CHECK(!coloring->shape_color_offset, DG_ERR_ARG,
           "coloring_apply: the colouring of mesh %s was already applied (perm refers to the "
           "numbering before it)",
           mesh->source);
  const int64_t n = mesh->n_elems;
  const int nc = coloring->n_colors;
  int32_t *new_color = NULL, *old_color = coloring->color;
  int64_t *offset = NULL;
  dg_status status = DG_SUCCESS;
  DG_CALL_GOTO(status, done, DG_CALLOC(new_color, (size_t)n));
  DG_CALL_GOTO(status, done, DG_CALLOC(offset, (size_t)DG_NUM_SHAPES * (size_t)(nc + 1)));
  DG_CALL_GOTO(status, done, mesh_renumber_elements(mesh, coloring->perm));
  for (int64_t i = 0; i < n; ++i) new_color[i] = coloring->color[coloring->perm[i]];
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    int64_t *off = offset + (size_t)s * (size_t)(nc + 1);
    const int64_t lo = mesh->shape_offset[s], hi = mesh->shape_offset[s + 1];
    int64_t i = lo;
    for (int c = 0; c < nc; ++c) {
      off[c] = i;
      while (i < hi && new_color[i] == c) ++i;
    }
    off[nc] = i;
    if (i != hi) {
      status = dg_error_set(DG_ERR_INTERNAL, __FILE__, __LINE__, __func__,
                            "%s: after renumbering, element %lld (tag %lld) of shape %d is not "
                            "colour-major (colour %d)",
                            mesh->source, (long long)i, (long long)mesh->elem_tag[i], s,
                            (int)new_color[i]);
      goto done;
    }
  }
  /* the lists of the new numbering first, so that a failure leaves the old ones */
  coloring->color = new_color;
  status = coloring_index(coloring);
  if (status != DG_SUCCESS) {
    coloring->color = old_color;
    goto done;
  }
  DG_FREE(old_color);
  new_color = NULL;
  DG_FREE(coloring->shape_color_offset);
  coloring->shape_color_offset = offset;
  offset = NULL;
done:
  DG_FREE(new_color);
  DG_FREE(offset);
  return status;
}

void coloring_free(dg_coloring *coloring) {
  if (!coloring) return;
  DG_FREE(coloring->color);
  DG_FREE(coloring->perm);
  DG_FREE(coloring->shape_color_offset);
  DG_FREE(coloring->color_start);
  DG_FREE(coloring->color_elems);
  DG_FREE(coloring->color_first);
  memset(coloring, 0, sizeof(*coloring));
}
