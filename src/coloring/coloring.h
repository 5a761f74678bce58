#pragma once
/* Element colouring (docs/ARCHITECTURE.md §5, docs/COLORING.md): the one
 * colouring object, built here and read by every user (the LU-SGS sweeps of
 * both backends, the run driver, the outputs).
 *
 *   n_colors; color[e] in [0, n_colors);
 *   the elements of each colour, ascending (color_start, color_elems) and,
 *   for a colour whose elements are one contiguous index range, its first
 *   element (color_first): what a sweep loops or launches over;
 *   after colour-major renumbering (coloring_apply), shape_color_offset: the
 *   contiguous range of elements of shape t with colour c (elements stay
 *   grouped by shape; inside a shape, colour-major).
 * Every dg_coloring is made by coloring_build or coloring_from_colors, which
 * check it (no two elements that share a face, periodic faces included, have
 * the same colour); users take it as it is and do not check it again. The
 * lists always describe the numbering `color` refers to (coloring_apply
 * rebuilds them for the new one). Read-only for users. */
#include <stdint.h>

#include "core/dg_error.h"
#include "mesh/mesh.h"
#include "mesh/topology.h"

typedef enum {
  DG_COLORING_BFS_WALL = 0,  /* the reference study: breadth-first from the lowest-numbered
                                wall element, smallest colour not used by face neighbours */
  DG_COLORING_LARGEST_FIRST, /* greedy, largest degree first (ties by index) */
  DG_NUM_COLORINGS
} dg_coloring_algorithm;

typedef struct dg_coloring {
  int n_colors;
  int64_t n_elems;
  int32_t *color;              /* [n_elems] */
  int64_t *perm;               /* [n_elems] new element i = old perm[i] (colour-major) */
  int64_t *shape_color_offset; /* [DG_NUM_SHAPES * (n_colors + 1)]: elements of
                                  shape t, colour c (after renumbering) are
                                  [off[t*(n_colors+1)+c], off[t*(n_colors+1)+c+1]);
                                  NULL before coloring_apply */
  int64_t *color_start;        /* [n_colors + 1]: the elements of colour c are
                                  color_elems[color_start[c] .. color_start[c+1]) */
  int64_t *color_elems;        /* [n_elems] elements of each colour, ascending */
  int64_t *color_first;        /* [n_colors]: when the elements of colour c are the one
                                  range [first, first + count), first; else -1 (also
                                  for an empty colour). After coloring_apply: every
                                  colour held by a single shape */
} dg_coloring;

/* Case-file and report spelling of an algorithm ("bfs_wall",
 * "largest_first"; the index is the enum value); "?" when out of range. */
const char *coloring_algorithm_name(dg_coloring_algorithm algorithm);

/* Colours the elements of a mesh with its topology. seed_group: name of the
 * boundary group to start BFS from ("wall"; NULL, absent or empty group:
 * element 0); ignored by LARGEST_FIRST. Computes color, n_colors, the
 * per-colour element lists and the colour-major permutation perm (which
 * keeps the grouping by shape, so mesh_renumber_elements accepts it), and
 * checks the colouring (coloring_check); shape_color_offset stays NULL until
 * coloring_apply. Deterministic. DG_ERR_MESH when an element is its own face
 * neighbour (a periodic direction one element wide). On a bipartite face
 * graph (e.g. structured quads) BFS_WALL gives exactly 2 colours. */
dg_status coloring_build(const dg_mesh *mesh, const dg_topology *topo,
                         dg_coloring_algorithm algorithm, const char *seed_group,
                         dg_coloring *coloring);

/* Fewer colours (docs/COLORING.md, "The last colour"): while the last
 * colour of a built colouring (before coloring_apply) holds at most
 * max(COLORING_REDUCE_MIN, 1 % of the elements) and n_colors > 2, gives each
 * of its elements, in index order, the smallest colour below it that no
 * face neighbour uses, or else one made free by a Kempe-chain interchange
 * (two lower colours swapped along a chain of at most 4096 elements that
 * holds none of the element's neighbours of the other colour). A colour
 * goes only when all of its elements find one; otherwise the colouring is
 * left as it was. Every step keeps the colouring valid; it is checked
 * again, and perm and the per-colour lists are rebuilt. Deterministic.
 * *dropped (may be NULL): the number of colours removed. */
#define COLORING_REDUCE_MIN 64
dg_status coloring_reduce(const dg_mesh *mesh, const dg_topology *topo, dg_coloring *coloring,
                          int *dropped);

/* The turn colours of the symmetric sweeps (docs/COLORING.md, "The turn
 * colours"): each symmetric pass after the first leaves out the update of
 * colour 0 at its start and of the last colour at the start of its
 * backward half (each would repeat the update just made), so the largest
 * colours belong there. Relabels the colours of a built colouring (before
 * coloring_apply, after coloring_reduce): the largest colour (the lowest
 * label of equal sizes) becomes 0, the largest of the others the last, and
 * the rest keep their order in between; rebuilds perm and the per-colour
 * lists. Nothing changes with fewer than 3 colours or when the labels are
 * already so. Deterministic. *moved (may be NULL): 1 when a label changed. */
dg_status coloring_order_turns(const dg_mesh *mesh, dg_coloring *coloring, int *moved);

/* A colouring from given element colours (tests, tools, other colouring
 * algorithms): color [mesh->n_elems] in [0, n_colors) (copied), n_colors >= 1
 * (colours may be empty). Checks it as coloring_build does (DG_ERR_ARG for
 * a colour out of range or two face neighbours of one colour, with
 * coloring_check's message) and fills the same fields: the per-colour element
 * lists and perm (colour-major, stable; coloring_apply accepts it). */
dg_status coloring_from_colors(const dg_mesh *mesh, const dg_topology *topo, const int32_t *color,
                               int n_colors, dg_coloring *coloring);

/* Checks that no two face neighbours share a colour; the error names the
 * face and both element tags. */
dg_status coloring_check(const dg_mesh *mesh, const dg_topology *topo, const int32_t *color);

/* Renumbers mesh elements colour-major (mesh_renumber_elements with perm),
 * permutes coloring->color accordingly (color[i] is then the colour of new
 * element i), rebuilds the per-colour lists for the new numbering and fills
 * shape_color_offset (validity is kept: one permutation renumbers the mesh
 * and the colours). perm is kept (new i = old
 * perm[i]) to map data of the old numbering. Applies once (DG_ERR_ARG on a
 * second call). The topology must be rebuilt (or renumbered) afterwards. */
dg_status coloring_apply(dg_coloring *coloring, dg_mesh *mesh);

/* A partition's sweeps (docs/ARCHITECTURE.md §8): keeps color for every
 * element of the rank's mesh (ghosts included: the sweeps compare the
 * colours of face neighbours) but lists only the owned elements of each
 * shape block, [shape_offset[s], shape_offset[s] + n_owned[s]), in the
 * per-colour lists (color_start, color_elems, color_first), which is what
 * the sweeps loop over: ghosts are swept by their owners. */
dg_status coloring_list_owned(dg_coloring *coloring, const dg_mesh *mesh,
                              const int64_t n_owned[DG_NUM_SHAPES]);

/* Releases every array and zeroes the struct. */
void coloring_free(dg_coloring *coloring);
