#pragma once
/* The run driver's side of a distributed run (docs/ARCHITECTURE.md §8):
 * partitioning at start-up, the rank's part, and what outputs and restarts
 * need from every rank. Used by src/app/run.c only.
 *
 * Start-up: rank 0 reads the mesh and broadcasts it; every rank builds the
 * same topology and colouring (deterministic); rank 0 partitions the
 * elements with METIS (partition_elements, weights at the case's order)
 * and broadcasts the parts; each rank cuts its part out (mesh_distribute)
 * and continues on it: its discretisation has owned elements and ghosts.
 *
 * Outputs are single files written by rank 0 in the one-process formats
 * (.cdgs, .vtu, surface files), so a restart may use any number of ranks:
 * rank 0 keeps the whole mesh and a discretisation of it at the stage's p
 * (gdisc) and gathers every rank's owned coefficients into gh_U. A restart
 * or --init file is read by rank 0 into gh_U and broadcast; each rank takes
 * its elements (owned and ghosts). Rank 0 thus holds one copy of the whole
 * problem on the host (docs/ARCHITECTURE.md §7). */
#include <stdint.h>

#include "core/dg_error.h"
#include "dg/disc.h"
#include "mesh/distribute.h"
#include "mesh/geometry.h"
#include "parallel/comm.h"

typedef struct {
  const dg_comm *comm;
  int rank, size;    /* size 1: one process; nothing below is used */
  dg_mesh_part part; /* this rank's part (its mesh and topology moved to the run) */
  int64_t g_n_elems; /* elements of the whole mesh */
  int64_t g_shape_offset[DG_NUM_SHAPES + 1];
  double imbalance;       /* of the partition (max / mean weight) */
  double colour_balance;  /* of the partition's colour steps (partition_colour_balance) */
  int64_t n_viscous;      /* viscous rows the partition was weighted with (0: none) */
  double viscous_balance; /* their largest part over the mean (partition_viscous_balance) */
  int64_t cut_faces, max_ghosts;
  /* rank 0 only */
  dg_mesh gmesh;
  dg_topology gtopo;
  dg_geometry ggeom;
  dg_disc gdisc;          /* the whole mesh at the stage's p (built with the rank's disc) */
  double *gh_U, *gh_eps;  /* [gdisc n_coefs], [g_n_elems]: gathered states */
  double *gh_hold;        /* [g_n_elems]: the gathered LU-SGS held viscosity */
  int64_t *g_owned;       /* global ids of the owned elements of rank 0, 1, ... in turn */
  int64_t *g_owned_start; /* [size + 1] */
  double *buf;            /* packing buffer */
  size_t buf_len;
} run_dist;

/* Rank and size from the run's communicator (size 1 without MPI). */
void run_dist_init(run_dist *d);

/* Partitions the whole mesh (every rank holds it, topology built) into
 * d->size parts weighted at degree p with the rules of `family` (and, with
 * viscous, read on rank 0 only: the viscous rows of a restart state spread
 * evenly, partition_elements_viscous), cuts this rank's part out and
 * moves its mesh and topology into *mesh and *topo (rank 0 keeps the whole ones in d->gmesh,
 * d->gtopo; the others free them). vertex_ghosts: ghosts by vertex (continuous artificial
 * viscosity). Collective. */
dg_status run_dist_setup(run_dist *d, dg_mesh *mesh, dg_topology *topo, int p,
                         dg_quad_family family, const uint8_t *viscous, int vertex_ghosts,
                         const int32_t *color, int n_colors);

/* After geometry_build of the rank's part: the ghosts' length scales from
 * their owners (mesh_part_exchange). */
dg_status run_dist_geometry(run_dist *d, dg_geometry *geom);

/* Rank 0: the whole mesh's geometry and discretisation with opts (n_owned
 * and halo ignored) at the degrees and rule family given, replacing the previous stage's,
 * and the gather arrays. Others: nothing. Not collective. */
dg_status run_dist_global_disc(run_dist *d, const dg_disc_opts *opts, int vol_degree,
                               int face_degree, dg_quad_family family);

/* Gathers every rank's owned coefficients of h_U (and with h_eps its
 * per-element ε, with h_hold its held LU-SGS viscosity) into rank 0's gh_U
 * (gh_eps, gh_hold). Collective. */
dg_status run_dist_gather(run_dist *d, const dg_disc *disc, const double *h_U, const double *h_eps,
                          const double *h_hold);

/* Rank 0's gh_hold to every rank: h_hold (n_elems of the rank's part) gets
 * its owned and ghost elements' values. Collective. */
dg_status run_dist_scatter_hold(run_dist *d, const dg_disc *disc, double *h_hold);

/* Rank 0's gh_U to every rank: h_U (the rank's layout) gets its owned and
 * ghost elements' coefficients. Collective. */
dg_status run_dist_scatter(run_dist *d, const dg_disc *disc, double *h_U);

/* Combines a flag over the ranks: the largest value (stop requests,
 * failures). Collective. */
dg_status run_dist_any(const run_dist *d, int *flag);

void run_dist_free(run_dist *d);
