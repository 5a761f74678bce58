#pragma once
/* `colordg info`: what a mesh holds and what a run on it will cost.
 *
 * The report is a table of rows (key, label, value) printed either for
 * people (label: value) or as CSV (key,value) that tests and scripts check.
 *
 * Memory estimate for degree p (docs/CASE_FILE.md, "Memory estimate"):
 *   Nb = basis_count(shape, p), Nvar = dim + 2, 8-byte doubles,
 *   state U, residual R:     Nb Nvar each, per element
 *   RK stages / LU-SGS ΔU*:  2 Nb Nvar per element
 *   LU-SGS diagonal blocks:  (Nb Nvar)^2 per element
 *   LU-SGS face Jacobians:   2 Nvar^2 per face point (both sides' ∂H/∂U)
 *   geometry:                per element 4 nv + 10 m + 2 (points, weights x
 *                            detJ, metrics, volume and h), per face 7 nf + 1,
 *   with nv, nf the points of the volume and face rules exact to degree
 *   info_quadrature_degree(p) and m = 1 for affine elements, nv otherwise. */
#include <stdint.h>
#include <stdio.h>

#include "core/dg_error.h"
#include "mesh/geometry.h"
#include "mesh/mesh.h"
#include "mesh/topology.h"

/* One row of the report. */
typedef struct {
  char key[96];    /* CSV key: lowercase, no spaces ("faces_interior") */
  char label[96];  /* what people read ("interior faces") */
  char value[192]; /* CSV value */
  char human[192]; /* value for people when it differs from value ("" otherwise) */
} info_row;

typedef struct {
  int n_rows, capacity;
  info_row *rows; /* owned; info_table_free */
} info_table;

/* Memory of the solver's main arrays for one degree p, in MiB (2^20 bytes). */
typedef struct {
  int p;
  int64_t n_dofs; /* sum over elements of Nb (per variable) */
  double state, residual, stages, lusgs_diagonal, lusgs_faces, geometry, total;
} info_memory;

/* Exactness degree of the volume and face rules the estimate (and
 * `colordg run`) assumes for degree p: 2p + 1 (docs/ARCHITECTURE.md §5). */
int info_quadrature_degree(int p);

/* Estimates the memory for degree p (0..3) from the mesh, its topology and
 * its geometry (for which elements are affine). */
dg_status info_memory_estimate(const dg_mesh *mesh, const dg_topology *topo,
                               const dg_geometry *geom, int p, info_memory *memory);

/* Appends a row; value and human are printf results ("" human: same as value). */
dg_status info_table_add(info_table *table, const char *key, const char *label, const char *value,
                         const char *human);

/* Fills the table: element counts by shape and geometric order, nodes,
 * faces (interior, periodic, boundary, per group), h range, total area or
 * volume, and the memory estimate for p = p_only, or for p = 0..3 when
 * p_only < 0. */
dg_status info_collect(const dg_mesh *mesh, const dg_topology *topo, const dg_geometry *geom,
                       int p_only, info_table *table);

/* Colouring report (src/coloring, docs/COLORING.md): for each algorithm
 * (bfs_wall seeded at the group "wall", largest_first) the colour count and
 * the elements per colour (rows colors_<alg>, color_sizes_<alg>,
 * color_group_min_<alg>, color_group_max_<alg>). */
dg_status info_add_coloring(info_table *table, const dg_mesh *mesh, const dg_topology *topo);

/* Prints the rows: "key,value" lines under a "key,value" header when csv,
 * else aligned "label  value" lines. */
void info_table_print(const info_table *table, int csv, FILE *out);

/* Releases the rows. Safe on a zeroed table. */
void info_table_free(info_table *table);
