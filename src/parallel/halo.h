#pragma once
/* The halo of one partition: which elements this rank sends to each
 * neighbouring rank and which of its ghost elements each neighbour fills
 * (docs/ARCHITECTURE.md §8). Element indices are local (the rank's mesh:
 * owned elements, then ghosts, inside each shape block). For neighbour i
 * (neighbor[i], ascending ranks) the elements sent are
 * send_elem[send_offset[i] .. send_offset[i+1]) and the ghosts received
 * recv_elem[recv_offset[i] .. recv_offset[i+1]); both sides list the same
 * elements in the same order (ascending global element index), so a packed
 * buffer of one is the unpacked buffer of the other. What is exchanged per
 * element (state coefficients, ε coefficients) is the backend's business
 * (dg_exchange of src/parallel/comm.h moves the packed doubles).
 * A halo with n_neighbors = 0 is a single partition. */
#include <stdint.h>

#include "parallel/comm.h"

typedef struct dg_halo {
  const dg_comm *comm; /* the run's communicator (NULL: one process) */
  int n_neighbors;
  int *neighbor;        /* [n_neighbors] ranks, ascending */
  int64_t *send_offset; /* [n_neighbors + 1] */
  int64_t *send_elem;   /* [send_offset[n]] owned local elements */
  int64_t *recv_offset; /* [n_neighbors + 1] */
  int64_t *recv_elem;   /* [recv_offset[n]] ghost local elements */
} dg_halo;

/* Per-element data to the ghosts: values[l * width .. + width) of every
 * local element l; each ghost's entries are overwritten by its owner's
 * (blocking, collective over halo->comm; nothing in one process). tag
 * separates exchanges that may meet (0 .. 32767). */
dg_status halo_exchange(const dg_halo *halo, double *values, int width, int tag);

/* Releases the arrays and zeroes the struct (safe on a zeroed halo). */
void halo_free(dg_halo *halo);
