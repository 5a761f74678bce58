#pragma once
/* The mesh as read from a file: nodes, elements grouped by shape, boundary
 * faces with their physical group, periodic node links.
 *
 * Conventions
 * - Indices are 0-based int64_t; node coordinates are [n_nodes][3] (z = 0 in 2D).
 * - Every element has the same geometric order (1..3). Its nodes are listed
 *   in Gmsh's node order for that Lagrange element (src/element/shape.h), so
 *   the first shape_n_verts() nodes are its vertices.
 * - Elements are grouped by shape: shape s occupies [shape_offset[s],
 *   shape_offset[s+1]) (line elements never appear as elements).
 * - Every element is positively oriented (det J > 0 at its vertices):
 *   importers reorient 2D surfaces Gmsh meshed clockwise.
 * - Boundary faces ("bfaces") are the (dim-1)-elements of physical groups,
 *   by their vertices only.
 * - Periodic links say node `slave` is the image of node `master` under a
 *   translation (Gmsh periodic entities); topology pairs the faces.
 * All arrays are owned by the mesh and released by mesh_free(). */
#include <stdint.h>
#include <stdio.h>

#include "core/dg_error.h"
#include "element/shape.h"

#define DG_GROUP_NAME_LEN 64

/* A physical group of boundary faces. */
typedef struct {
  char name[DG_GROUP_NAME_LEN]; /* Gmsh physical name ("wall", "farfield") */
  int tag;                      /* Gmsh physical tag (0 when the file has none) */
} dg_mesh_group;

typedef struct dg_mesh {
  int dim;        /* 2 or 3 */
  int geom_order; /* Lagrange order of every element, 1..3 */

  int64_t n_nodes;
  double *x; /* [n_nodes][3] coordinates */

  int64_t n_elems;
  int64_t shape_offset[DG_NUM_SHAPES +
                       1];  /* elements of shape s: [shape_offset[s], shape_offset[s+1]) */
  int8_t *elem_shape;       /* [n_elems] dg_shape */
  int64_t *elem_node_start; /* [n_elems + 1] offsets into elem_nodes */
  int64_t *elem_nodes;      /* node indices, Gmsh order */
  int64_t *elem_tag;        /* [n_elems] element tag in the source file (for messages) */

  int n_groups;
  dg_mesh_group *groups; /* [n_groups] boundary physical groups */

  int64_t n_bfaces;
  int8_t *bface_shape;  /* [n_bfaces] DG_LINE or DG_TRI (DG_QUAD for future hex faces) */
  int64_t *bface_verts; /* [n_bfaces][DG_MAX_FACE_VERTS] vertex node indices, -1 padded */
  int32_t *bface_group; /* [n_bfaces] index into groups */
  int64_t *bface_tag;   /* [n_bfaces] element tag in the source file */

  int64_t n_periodic;
  int64_t *periodic_slave;  /* [n_periodic] node index */
  int64_t *periodic_master; /* [n_periodic] node index */

  char source[256]; /* file the mesh came from (for messages) */
} dg_mesh;

/* Releases every array and zeroes the struct. Safe on a zeroed mesh. */
void mesh_free(dg_mesh *mesh);

/* Number of nodes of element e. */
static inline int mesh_elem_n_nodes(const dg_mesh *mesh, int64_t e) {
  return (int)(mesh->elem_node_start[e + 1] - mesh->elem_node_start[e]);
}

/* Allocates arrays for the given sizes (zeroed); elem_node_start[n_elems] set
 * to n_elem_nodes. The caller fills the rest. */
dg_status mesh_alloc(dg_mesh *mesh, int64_t n_nodes, int64_t n_elems, int64_t n_elem_nodes,
                     int n_groups, int64_t n_bfaces, int64_t n_periodic);

/* Checks the invariants listed above (grouping by shape, node indices in
 * range, one geometric order, groups referenced exist); an error names the
 * element or face by its source tag. */
dg_status mesh_check(const dg_mesh *mesh);

/* How a mesh is read: the geometric order of a meshed .geo and the budgets
 * of .geo meshing (docs/CASE_FILE.md [mesh]). */
typedef struct {
  int geo_order;        /* a .geo is meshed at this order; 0 = as the .geo says */
  int allow_shell;      /* a .geo may run programs (SystemCall, ...) */
  double max_seconds;   /* wall-clock budget of meshing a .geo; 0 = none */
  double max_elements;  /* most elements a meshed .geo may have; 0 = none */
  double max_memory_mb; /* address-space budget of the meshing process; 0 = none */
} dg_mesh_read_options;

/* Defaults: order 0, no shell, 600 s, 5e7 elements, 0 MB (= 3/4 of RAM). */
dg_mesh_read_options mesh_read_options_default(void);

/* Reads a mesh: .cdgm natively; .msh (2.2/4.1, ASCII/binary) and .geo
 * through the Gmsh SDK (a .geo is meshed at geometric order `geo_order`, 0 =
 * as the .geo says), with the default options. Errors name the file. */
dg_status mesh_read(const char *path, int geo_order, dg_mesh *mesh);
dg_status mesh_read_with(const char *path, const dg_mesh_read_options *options, dg_mesh *mesh);

/* DG_SUCCESS when path names a regular file (symbolic links followed);
 * otherwise an error that says it is missing, a directory or a device/FIFO. */
dg_status mesh_check_regular_file(const char *path, const char *what);

/* Reads a .msh or .geo file through the Gmsh SDK (DG_ERR_UNSUPPORTED when
 * ColorDG was built without it). A .msh is scanned first (mesh_msh_check.h);
 * a .geo is scanned, then meshed in a child process within the budgets. */
dg_status mesh_read_gmsh(const char *path, const dg_mesh_read_options *options, dg_mesh *mesh);

/* Writes / reads the native binary format .cdgm (docs/FORMATS.md): versioned
 * header, endianness mark, sizes, FNV-1a checksum; written to a temporary
 * file and renamed, so a failure never leaves a half-written file. */
dg_status mesh_write_cdgm(const dg_mesh *mesh, const char *path);
dg_status mesh_read_cdgm(const char *path, dg_mesh *mesh);

/* Renumbers elements: new element i is old element perm[i]. perm must keep
 * the grouping by shape (DG_ERR_ARG otherwise). Topology and geometry built
 * before are invalid afterwards; rebuild them (or permute them with
 * topology_renumber). */
dg_status mesh_renumber_elements(dg_mesh *mesh, const int64_t *perm);

/* Index of the group called name, or -1. */
int mesh_find_group(const dg_mesh *mesh, const char *name);
