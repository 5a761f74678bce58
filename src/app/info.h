#pragma once
/* `colordg info`: what a mesh holds and what a run on it will cost.
 *
 * The report is a table of rows (key, label, value) printed either for
 * people (label: value) or as CSV (key,value) that tests and scripts check.
 *
 * GPU memory estimate for degree p (docs/PERFORMANCE.md, "GPU memory"):
 * what the CUDA backend allocates during `colordg run`, computed by
 * backend_cuda_plan_bytes (src/kernels/gpu_memory.h) from the sizes the
 * discretisation will have (info_plan_sizes: the quadrature rules of
 * `colordg run`, affine elements from the geometry). Without the CUDA
 * context and driver reservations (see the docs). */
#include <stdint.h>
#include <stdio.h>

#include "app/case.h"
#include "core/dg_error.h"
#include "kernels/gpu_memory.h"
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

/* GPU memory of a run at degree p (bytes: gpu_mem_plan; totals in MiB,
 * 2^20 bytes). */
typedef struct {
  int p;
  int64_t n_dofs;                             /* sum over elements of Nb (per variable) */
  gpu_mem_plan explicit_rk3, lusgs, lusgs_av; /* AV: continuous ε, every row viscous */
  double total;                               /* lusgs.total in MiB */
  /* bytes per element of the LU-SGS run without AV, averaged over the mesh:
   * one state vector, geometry, LU-SGS blocks and face Jacobians, the other
   * vectors and scratch (the four add up to lusgs.total / elements) */
  double elem_solution, elem_geometry, elem_lusgs_blocks, elem_work;
  /* Newton-Krylov (src/newton/newton.h): the LU-SGS run plus the marcher's
   * own vectors (Krylov basis of NEWTON_INFO_KRYLOV vectors, the trial state
   * and residuals), MiB */
  double newton_total, newton_vectors;
} info_memory;

/* The Krylov size of the Newton-Krylov estimate (the krylov_size default). */
#define NEWTON_INFO_KRYLOV 30

/* Exactness degree 2p + 1 of the rules on affine meshes (docs/ARCHITECTURE.md §5). */
int info_quadrature_degree(int p);

/* The rule choices of a case, a bit mask: INFO_FACE_REDUCED
 * ([discretization] face_rule = reduced), INFO_CURVED_REDUCED (curved_rule
 * = reduced); INFO_RULES_DEFAULT, those of a case that names neither. */
#define INFO_FACE_REDUCED 1
#define INFO_CURVED_REDUCED 2
#define INFO_RULES_DEFAULT (INFO_FACE_REDUCED | INFO_CURVED_REDUCED)

/* The rule choices of case c ([discretization] face_rule, curved_rule) as
 * the bit mask above; a case that names neither gives INFO_RULES_DEFAULT
 * (test_case checks it). */
int info_case_rules(const dg_case *c);

/* The volume and face rule degrees `colordg run` uses at degree p on mesh
 * (src/app/run.c) with the rule choices `rules`:
 * geometry_mesh_volume_degree and geometry_face_degree. */
void info_run_degrees(const dg_mesh *mesh, int p, int rules, int *vol_degree, int *face_degree);

/* The sizes (gpu_plan_sizes) disc_build will give for degree p and AV mode
 * av (DG_AV_*; off at p = 0), from the mesh, its topology and geometry
 * (only elem_affine and the rule family quad_family are read from it), with
 * the rule choices `rules` (info_run_degrees). */
dg_status info_plan_sizes(const dg_mesh *mesh, const dg_topology *topo, const dg_geometry *geom,
                          int p, int av, int rules, gpu_plan_sizes *sizes);

/* Estimates the GPU memory for degree p (0..3) with the rule choices
 * `rules` (info_run_degrees). */
dg_status info_memory_estimate(const dg_mesh *mesh, const dg_topology *topo,
                               const dg_geometry *geom, int p, int rules, info_memory *memory);

/* Appends a row; value and human are printf results ("" human: same as value). */
dg_status info_table_add(info_table *table, const char *key, const char *label, const char *value,
                         const char *human);

/* Fills the table: element counts by shape and geometric order, nodes,
 * faces (interior, periodic, boundary, per group), h range, total area or
 * volume, and the memory estimate for p = p_only, or for p = 0..3 when
 * p_only < 0, with the rule choices `rules` (info_run_degrees). */
dg_status info_collect(const dg_mesh *mesh, const dg_topology *topo, const dg_geometry *geom,
                       int p_only, int rules, info_table *table);

/* Colouring report (src/coloring, docs/COLORING.md): for each algorithm
 * (bfs_wall seeded at the group "wall", largest_first), reduced and with
 * the largest colours at the turns as runs do by default (coloring_reduce,
 * coloring_order_turns), the colour count and
 * the elements per colour (rows colors_<alg>, color_sizes_<alg>,
 * color_group_min_<alg>, color_group_max_<alg>). */
dg_status info_add_coloring(info_table *table, const dg_mesh *mesh, const dg_topology *topo);

/* Partition report (src/mesh/partition.h) for n_parts parts weighted at
 * degree p with the rules of `family`: rows partitions, partition_p, partition_method, per part k
 * (part_<k>_elements, _weight, _ghosts, _vertex_ghosts, _neighbors; for
 * people, when per_part_rows is 0, one row per part instead) and totals
 * partition_imbalance (max / mean weight), partition_cut_faces,
 * partition_halo_elements, partition_vertex_halo_elements,
 * partition_max_neighbors, partition_halo_bytes (one exchange of the state
 * at p: ghost elements x nvar x Nb x 8 bytes, all parts) and
 * partition_halo_bytes_max (the part receiving most), and
 * partition_colour_balance (partition_colour_balance of mesh/partition.h).
 * As a distributed run does, it first colours the mesh (algorithm
 * coloring, a dg_coloring_algorithm, seeded at seed_group; reduced by
 * coloring_reduce when reduce is non-zero, turns by coloring_order_turns
 * when turns is non-zero) and renumbers
 * mesh and topo colour-major (both are changed), then partitions. Errors
 * of partition_elements (too many parts, a build without METIS). */
dg_status info_add_partitions(info_table *table, dg_mesh *mesh, dg_topology *topo, int p,
                              dg_quad_family family, int n_parts, int per_part_rows, int coloring,
                              int reduce, int turns, const char *seed_group);

/* Prints the rows: "key,value" lines under a "key,value" header when csv,
 * else aligned "label  value" lines. */
void info_table_print(const info_table *table, int csv, FILE *out);

/* Releases the rows. Safe on a zeroed table. */
void info_table_free(info_table *table);
