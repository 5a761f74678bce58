#pragma once
/* Element colouring (docs/ARCHITECTURE.md §5).
 *
 * One format for every user (race-free accumulation and LU-SGS sweeps):
 *   n_colors; color[e] in [0, n_colors); and, after colour-major
 *   renumbering, shape_color_offset (below): the contiguous
 *   range of elements of shape t with colour c (elements stay grouped by
 *   shape; inside a shape, colour-major).
 * Valid colouring: no two elements that share a face (periodic faces
 * included) have the same colour. */
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
                                  [off[t*(n_colors+1)+c], off[t*(n_colors+1)+c+1]) */
} dg_coloring;

/* Case-file and report spelling of an algorithm ("bfs_wall",
 * "largest_first"; the index is the enum value); "?" when out of range. */
const char *coloring_algorithm_name(dg_coloring_algorithm algorithm);

/* Colours the elements of a mesh with its topology. seed_group: name of the
 * boundary group to start BFS from ("wall"; NULL, absent or empty group:
 * element 0); ignored by LARGEST_FIRST. Computes color, n_colors and the
 * colour-major permutation perm (which keeps the grouping by shape, so
 * mesh_renumber_elements accepts it); shape_color_offset stays NULL until
 * coloring_apply. Deterministic. DG_ERR_MESH when an element is its own face
 * neighbour (a periodic direction one element wide). On a bipartite face
 * graph (e.g. structured quads) BFS_WALL gives exactly 2 colours. */
dg_status coloring_build(const dg_mesh *mesh, const dg_topology *topo,
                         dg_coloring_algorithm algorithm, const char *seed_group,
                         dg_coloring *coloring);

/* Checks that no two face neighbours share a colour; the error names the
 * face and both element tags. */
dg_status coloring_check(const dg_mesh *mesh, const dg_topology *topo, const int32_t *color);

/* Renumbers mesh elements colour-major (mesh_renumber_elements with perm),
 * permutes coloring->color accordingly (color[i] is then the colour of new
 * element i) and fills shape_color_offset. perm is kept (new i = old
 * perm[i]) to map data of the old numbering. Applies once (DG_ERR_ARG on a
 * second call). The topology must be rebuilt (or renumbered) afterwards. */
dg_status coloring_apply(dg_coloring *coloring, dg_mesh *mesh);

/* Releases every array and zeroes the struct. */
void coloring_free(dg_coloring *coloring);
