#pragma once
/* Faces and neighbours of a mesh.
 *
 * Faces are numbered interior first (periodic pairs included), then the
 * boundary faces of each group in group order:
 *   interior faces      [0, n_interior)
 *   faces of group g    [group_face_offset[g], group_face_offset[g+1])
 * with group_face_offset[0] = n_interior and group_face_offset[n_groups] = n_faces.
 * Side 0 of every face is an element, side 1 the neighbour (-1 on boundary).
 * Geometry on a face is parametrised by side 0's local face; side 1 sees the
 * same points through the orientation code (shape_orient_perm). On a
 * periodic face, a point x seen from side 0 is x + face_shift seen from side 1.
 * All arrays are owned by the topology and released by topology_free(). */
#include <stdint.h>

#include "core/dg_error.h"
#include "mesh/mesh.h"

typedef struct dg_topology {
  int64_t n_elems;
  int64_t n_faces;
  int64_t n_interior;         /* interior faces (incl. periodic) come first */
  int64_t n_periodic_faces;   /* how many interior faces are periodic pairs */
  int n_groups;               /* = mesh->n_groups */
  int64_t *group_face_offset; /* [n_groups + 1] */

  int64_t *face_elem;  /* [n_faces][2] element on each side; [f][1] = -1 on boundary */
  int8_t *face_local;  /* [n_faces][2] local face number in each element; -1 on boundary */
  int8_t *face_orient; /* [n_faces] orientation code of side 1 relative to side 0 (0 on boundary) */
  int32_t *face_group; /* [n_faces] boundary group, -1 for interior faces */
  int64_t *face_bface; /* [n_faces] index of the mesh bface, -1 for interior faces */
  double *face_shift; /* [n_faces][3] periodic translation (side 1 = side 0 + shift), 0 otherwise */

  int64_t *elem_face; /* [n_elems][DG_MAX_FACES] face index of each local face, -1 past the shape's
                         faces */
  int64_t *elem_neighbor; /* [n_elems][DG_MAX_FACES] neighbour element, -1 on boundary or past the
                             faces */
} dg_topology;

/* Builds faces from the mesh's elements, matches boundary faces to their
 * groups and pairs periodic faces. Errors (DG_ERR_MESH) name the element or
 * face by source tag: a face shared by more than two elements, a boundary
 * face in no physical group, a bface that matches no element face, a
 * periodic face without a partner. */
dg_status topology_build(const dg_mesh *mesh, dg_topology *topo);

/* Permutes faces inside their kind (interior / group): new face i is old face
 * perm[i]; perm must keep every face in its range (DG_ERR_ARG otherwise). */
dg_status topology_renumber_faces(dg_topology *topo, const int64_t *perm);

/* Releases every array and zeroes the struct. Safe on a zeroed topology. */
void topology_free(dg_topology *topo);
