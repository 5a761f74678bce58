#pragma once
/* One rank's part of a partitioned mesh (docs/ARCHITECTURE.md §8).
 *
 * mesh_distribute cuts the part of rank `rank` out of the global mesh, its
 * topology and an element partition (part[e] = the rank that owns global
 * element e, e.g. from partition_elements):
 *
 * - Elements: inside each shape block, the owned elements in global order,
 *   then the ghosts (elements of other ranks that the residual of owned
 *   elements reads) in global order, so the element-minor layout of the
 *   discretisation holds with n_owned[s] owned elements per block (dg_disc_opts).
 *   Ghosts are the face neighbours of owned elements; with vertex_ghosts,
 *   every element that shares a vertex (periodic images joined) with an
 *   owned element, which the continuous artificial viscosity needs (the
 *   vertex mean of ε over the elements around an owned element's vertices).
 * - Nodes: those of the local elements, in global order; periodic links
 *   whose two nodes are both local.
 * - Boundary faces: those of owned elements only (a ghost's boundary face
 *   is its owner's), in the global topology's face order.
 * - Topology: the global faces that touch an owned element, in global face
 *   order (so the local interior faces, then each group's, keep their
 *   global relative order and sides), with local element and boundary-face
 *   indices. Faces between two ghosts, and a ghost's faces to elements that
 *   are not local, are left out: in the local topology those local faces of
 *   a ghost have elem_face = -1 and elem_neighbor = -1 (nothing owned reads
 *   them).
 * - Halo: per neighbouring rank, the owned elements it needs and the ghosts
 *   it fills (src/parallel/halo.h), computed from the partition alone, so
 *   every rank derives both sides without communication.
 *
 * With n_parts = 1 the part is the whole mesh with no ghosts and no halo.
 * Errors: DG_ERR_ARG for a partition outside [0, n_parts), a rank outside
 * it, or a rank that owns no element. */
#include <stdint.h>

#include "core/dg_error.h"
#include "mesh/mesh.h"
#include "mesh/topology.h"
#include "parallel/halo.h"

typedef struct {
  int rank, n_parts;
  dg_mesh mesh;                   /* local mesh (owned, then ghosts per shape block) */
  dg_topology topo;               /* local topology (see the top) */
  int64_t n_owned[DG_NUM_SHAPES]; /* owned elements at the start of each shape block */
  int64_t n_owned_total;          /* sum of n_owned */
  int64_t n_global_elems;         /* elements of the global mesh */
  int64_t *global_elem;           /* [mesh.n_elems] global index of each local element */
  int64_t *global_face;           /* [topo.n_faces] global face of each local face */
  dg_halo halo;                   /* exchange lists (halo.comm left NULL: the caller sets it) */
} dg_mesh_part;

dg_status mesh_distribute(const dg_mesh *global, const dg_topology *global_topo,
                          const int32_t *part, int n_parts, int rank, int vertex_ghosts,
                          dg_mesh_part *out);

/* Copies per-element data of owned elements to the ghosts that other ranks
 * hold of them: values[l * width .. + width) of every local element l; the
 * ghosts' entries are overwritten by their owners' (collective over comm;
 * one process: nothing to do). For what a ghost cannot compute itself
 * because its faces beyond the halo are not local (geometry's elem_h). */
dg_status mesh_part_exchange(const dg_mesh_part *p, const dg_comm *comm, double *values, int width);

/* Sends rank root's mesh to every rank (collective): on the other ranks
 * *mesh (zeroed or freed before) becomes a copy. One process: nothing. */
dg_status mesh_bcast(const dg_comm *comm, int root, dg_mesh *mesh);

/* Releases everything and zeroes the struct (safe on a zeroed part). */
void mesh_part_free(dg_mesh_part *p);
