#pragma once
/* Partitioning the elements of a mesh over the ranks of a distributed run
 * (docs/ARCHITECTURE.md, "Partitioning").
 *
 * Graph: the element dual graph. Vertices are elements; two elements are
 * joined when they share a face of the topology, periodic pairs included.
 * Elements sharing several faces (thin periodic meshes) get one edge whose
 * weight is the number of shared faces, and an element that is its own
 * periodic neighbour gets no self-loop, so the edge cut METIS minimises is
 * the number of cut faces.
 *
 * Vertex weights (partition_shape_costs): the cost of an element's residual
 * at degree p, modelled as basis functions x quadrature points of the shape,
 *   cost(s, p) = Nb(s, p) * (Nq_vol(s) + n_faces(s) * Nq_face(s)),
 * with the rules `colordg run` uses (volume degree 2p + 1 + dim (q - 1), face
 * degree 2p + 1 + (dim - 1)(q - 1) for geometric order q, of the run's rule
 * family: [discretization] quadrature). The residual's
 * dense work is these basis-by-point products (evaluating the state at the
 * points and testing the fluxes against the basis), so this ratio is what
 * differs between a triangle and a quadrilateral of the same p (at p = 2 on
 * straight elements a quad has 9 modes and 9 + 4 x 3 points, cost 189,
 * against a triangle's 6 modes and 9 + 3 x 3 points, cost 108: ratio 1.75;
 * a tet costs 630). The LU-SGS block solves grow as Nb^2 and would weigh
 * quads more still; the residual model is the one every scheme runs. Only
 * ratios matter: METIS gets integers scaled so the heaviest shape weighs at
 * most 1000 and the total stays below 2^30 (on a mesh of more than ~10^6
 * elements weights coarsen towards 1 per element: all shapes alike).
 *
 * Method (METIS 5 manual, section 5): multilevel recursive bisection
 * (METIS_PartGraphRecursive) for n_parts <= 8, multilevel k-way
 * (METIS_PartGraphKway, which the manual advises for more parts: faster and
 * with a smaller cut there) above. Imbalance tolerance: METIS' defaults,
 * ufactor 1 for recursive bisection (1.001 per bisection) and 30 for k-way
 * (1.03), here set explicitly. Determinism: the options are fixed (seed 1,
 * 0-based numbering, no randomised refinement beyond the seed) and the graph
 * is built in element order, so the same mesh, p and n_parts give the same
 * parts on every call and every run of the same build (METIS itself may
 * differ between METIS versions or platforms).
 *
 * A part METIS leaves empty (tiny graphs with n_parts close to n_elems) is
 * given an element of the heaviest part, its highest-numbered one, so every
 * part has at least one element.
 *
 * A build without MPI/METIS (COLORDG_HAVE_MPI undefined) partitions into one
 * part only: n_parts > 1 is DG_ERR_UNSUPPORTED. */
#include <stdint.h>

#include "core/dg_error.h"
#include "element/quadrature.h"
#include "mesh/mesh.h"
#include "mesh/topology.h"

/* 1 when this build partitions with METIS (n_parts > 1 possible). */
int partition_available(void);

/* The modelled residual cost of one element of each shape at degree p
 * (0..DG_MAX_P) on this mesh's geometric order with the rules of `family`
 * (see top; 0 for shapes
 * without a rule). */
dg_status partition_shape_costs(const dg_mesh *mesh, int p, dg_quad_family family,
                                double cost[DG_NUM_SHAPES]);

/* Splits the elements into n_parts parts weighted by their cost at degree p
 * with the rules of `family`:
 * part[e] in [0, n_parts) for e in [0, n_elems) (caller's array). n_parts ==
 * 1 gives all zeros without METIS. Errors: DG_ERR_ARG for n_parts < 1 or
 * n_parts > the number of elements, or a topology of another mesh;
 * DG_ERR_UNSUPPORTED without METIS (n_parts > 1) or for meshes beyond
 * METIS' 32-bit indices; DG_ERR_INTERNAL with METIS' return code when it
 * fails. */
dg_status partition_elements(const dg_mesh *mesh, const dg_topology *topo, int p,
                             dg_quad_family family, int n_parts, int32_t *part);

/* partition_elements with a second constraint (METIS multi-constraint
 * partitioning, each constraint balanced on its own): viscous (n_elems
 * entries, 1 = the element's LU-SGS row carries the artificial viscosity,
 * partition_viscous_rows) spread evenly over the parts (tolerance 5 %)
 * besides the modelled cost. The viscous part of an LU-SGS iteration
 * exists only for those rows, so without it a shock on a few parts makes
 * them wait for the others (docs/PERFORMANCE.md, "Where the M6 time
 * goes"). viscous NULL or all zero: partition_elements. */
dg_status partition_elements_viscous(const dg_mesh *mesh, const dg_topology *topo, int p,
                                     dg_quad_family family, const uint8_t *viscous, int n_parts,
                                     int32_t *part);

/* viscous[e] (written, n_elems entries) = 1 when element e or a face
 * neighbour holds an artificial viscosity (hold > 0: the LU-SGS held ε of a
 * restart file, -1 = not held yet), else 0: the rows whose viscous block
 * and couplings LU-SGS assembles (lusgs_av_row_inviscid = 0 at that ε).
 * Returns the number of such rows. */
int64_t partition_viscous_rows(const dg_mesh *mesh, const dg_topology *topo, const double *hold,
                               uint8_t *viscous);

/* The largest part's viscous rows over the mean part's (1 = even; 1 when
 * there are none). viscous, part: n entries; -1 when out of memory. */
double partition_viscous_balance(const uint8_t *viscous, int64_t n, const int32_t *part,
                                 int n_parts);

/* Quality of a partition. Per-part arrays have n_parts entries and are owned
 * by the struct (partition_stats_free). */
typedef struct {
  int n_parts;
  int p;                     /* degree the weights and halo sizes are for */
  int64_t *elems;            /* elements of the part */
  double *weight;            /* sum of partition_shape_costs over its elements */
  int64_t *ghosts;           /* distinct elements of other parts sharing a face with the part
                                (what the residual's halo exchange receives) */
  int64_t *vertex_ghosts;    /* distinct elements of other parts sharing a vertex with the
                                part, periodic images joined (what the continuous artificial
                                viscosity needs); a superset of the face ghosts */
  int64_t *ghost_dofs;       /* sum of Nb(shape, p) over the part's face ghosts */
  int *neighbors;            /* distinct other parts sharing a face with the part */
  int64_t cut_faces;         /* interior faces (periodic included) whose sides are in two parts */
  double weight_total;       /* sum of weight[] */
  double imbalance;          /* max weight / mean weight (1 = perfect) */
  int max_neighbors;         /* max of neighbors[] */
  int64_t halo_elems;        /* sum of ghosts[] */
  int64_t halo_dofs;         /* sum of ghost_dofs[]: x nvar x 8 = bytes of one state exchange */
  int64_t vertex_halo_elems; /* sum of vertex_ghosts[] */
} dg_partition_stats;

/* Computes the quality of `part` (n_parts parts, every entry in range:
 * DG_ERR_ARG otherwise, naming the element) at degree p, rules of `family`. */
dg_status partition_stats(const dg_mesh *mesh, const dg_topology *topo, int p,
                          dg_quad_family family, int n_parts, const int32_t *part,
                          dg_partition_stats *stats);

/* Releases the arrays and zeroes the struct. Safe on a zeroed struct. */
void partition_stats_free(dg_partition_stats *stats);

/* The colour-step balance of a partition: for each colour c < n_colors,
 * the mean part's elements of colour c over the largest part's, the
 * numerators and denominators summed over the colours (1 = every colour
 * split evenly). LU-SGS sweeps one colour at a time across the ranks, each
 * step waiting for the part with most of it, so with a sweep's time
 * proportional to its elements this bounds their parallel efficiency.
 * color, part: n entries; 1 when n_parts is 1 or there are no elements;
 * -1 when out of memory. */
double partition_colour_balance(const int32_t *color, int n_colors, int64_t n, const int32_t *part,
                                int n_parts);
