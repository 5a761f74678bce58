#pragma once
/* The processes of a run (docs/ARCHITECTURE.md §8, "Distributed runs").
 *
 * One communicator: MPI_COMM_WORLD in a build with MPI (COLORDG_HAVE_MPI)
 * launched by mpirun/mpiexec, else the single process. Everything above this
 * layer talks to other processes only through this header, so a build
 * without MPI compiles the same code with one rank.
 *
 * Determinism: dg_comm_allreduce gathers every rank's values and combines
 * them in rank order on every rank (not through the MPI library's reduction
 * tree), so sums have the same bits on every rank and in every run with the
 * same number of ranks.
 *
 * Neighbour exchange (dg_exchange): a fixed pattern of messages between a
 * rank and its neighbours, each a contiguous block of doubles of a size
 * fixed at creation. start posts the receives and sends (non-blocking);
 * finish waits for them. Buffers are packed by the caller (a backend's pack
 * kernel) in neighbour order; on the GPU they are host buffers (staged) or,
 * when dg_comm_device_aware() says so, device pointers.
 *
 * Errors: a failure on one rank must not leave the others waiting in a
 * collective. Collective steps call dg_comm_agree with their local status:
 * every rank then returns an error when any failed (the failing rank keeps
 * its own message; the others report which rank failed). */
#include <stddef.h>
#include <stdint.h>

#include "core/dg_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dg_comm dg_comm;

/* Starts MPI when this build has it and the process was launched by an MPI
 * launcher (Open MPI, MPICH/PMI or PMIx environment); otherwise the run is
 * one process. Call once, first thing in main; a second call is a no-op. */
dg_status dg_comm_init(int *argc, char ***argv);

/* Ends MPI when dg_comm_init started it (MPI_Finalize). */
void dg_comm_finalize(void);

/* Stops every rank at once (MPI_Abort) with exit code code, after a failure
 * that left the ranks out of step; in one process it is exit(code). */
void dg_comm_abort(int code);

/* The run's communicator (never NULL; one rank before dg_comm_init). */
const dg_comm *dg_comm_world(void);

int dg_comm_rank(const dg_comm *comm);
int dg_comm_size(const dg_comm *comm);

/* This process's rank among the run's processes on the same host, and how
 * many there are (MPI_Comm_split_type shared memory; 0 and 1 in one
 * process): the GPU a rank takes is its node rank modulo the host's
 * devices. */
int dg_comm_node_rank(void);
int dg_comm_node_size(void);

/* 1 when this build has MPI (whether or not the run was launched with it). */
int dg_comm_built_with_mpi(void);

/* 1 when the process looks launched by mpirun/mpiexec (environment), so a
 * build without MPI can refuse such a run instead of running it N times. */
int dg_comm_launched_by_mpi(void);

/* 1 when the MPI library accepts device (CUDA) pointers (Open MPI's
 * MPIX_Query_cuda_support at run time); 0 otherwise and without MPI. */
int dg_comm_device_aware(void);

typedef enum { DG_COMM_SUM = 0, DG_COMM_MIN, DG_COMM_MAX } dg_comm_op;

/* values[0..n) combined over all ranks, in place, in rank order (see top). */
dg_status dg_comm_allreduce(const dg_comm *comm, dg_comm_op op, double *values, int n);

/* dg_comm_allreduce and dg_comm_agree in one collective: every rank passes
 * its local status (its values are ignored when it failed); on success
 * values are combined as dg_comm_allreduce does, otherwise every rank
 * returns as dg_comm_agree says. Every rank must call it. */
dg_status dg_comm_allreduce_checked(const dg_comm *comm, dg_status local, dg_comm_op op,
                                    double *values, int n);

/* Integer sums/maxima (counts, flags), exact. */
dg_status dg_comm_allreduce_i64(const dg_comm *comm, dg_comm_op op, int64_t *values, int n);

/* bytes of buf from root to every rank. */
dg_status dg_comm_bcast(const dg_comm *comm, void *buf, size_t bytes, int root);

/* Gathers `bytes` from every rank into all (size * bytes, rank order) on root;
 * all may be NULL on other ranks. */
dg_status dg_comm_gather(const dg_comm *comm, const void *mine, size_t bytes, void *all, int root);

/* Gathers variable-sized blocks to root: counts[r] bytes from rank r, placed
 * at displs[r] of all (counts, displs and all used on root only). */
dg_status dg_comm_gatherv(const dg_comm *comm, const void *mine, size_t bytes, void *all,
                          const size_t *counts, const size_t *displs, int root);

/* Every rank blocks until all arrive. */
dg_status dg_comm_barrier(const dg_comm *comm);

/* Collective agreement on a status: DG_SUCCESS on every rank when every
 * rank passed DG_SUCCESS. Otherwise a failing rank returns its own status
 * (its message kept) and every other rank returns the status of the lowest
 * failing rank with a message naming that rank. Every rank must call it. */
dg_status dg_comm_agree(const dg_comm *comm, dg_status local);

/* A neighbour exchange pattern (see top). */
typedef struct dg_exchange dg_exchange;

/* n neighbours; neighbor[i] is a rank != this one, listed in ascending order;
 * send_count[i]/recv_count[i] doubles go to/come from it per exchange.
 * Both sides must agree on the counts (a mismatch is an MPI truncation
 * error at the first exchange, reported with the ranks). tag separates
 * patterns that may be in flight at the same time. */
dg_status dg_exchange_create(const dg_comm *comm, int n, const int *neighbor,
                             const int64_t *send_count, const int64_t *recv_count, int tag,
                             dg_exchange **ex);
void dg_exchange_destroy(dg_exchange *ex);

/* Total doubles sent / received per exchange, and the neighbour count. */
int64_t dg_exchange_send_total(const dg_exchange *ex);
int64_t dg_exchange_recv_total(const dg_exchange *ex);
int dg_exchange_neighbors(const dg_exchange *ex);

/* Posts the receives into recv and the sends from send (each the blocks of
 * every neighbour, back to back in neighbour order). send and recv must stay
 * untouched until dg_exchange_finish. DG_ERR_ARG when one is in flight. */
dg_status dg_exchange_start(dg_exchange *ex, const double *send, double *recv);

/* Waits for the exchange started last. A no-op when none is in flight. */
dg_status dg_exchange_finish(dg_exchange *ex);

/* Totals of this process's neighbour exchanges since start-up (every
 * dg_exchange): how many were started, doubles sent, and the wall seconds
 * spent inside dg_exchange_finish waiting for them (what the exchange cost
 * beyond the work done while it was in flight). */
typedef struct {
  int64_t exchanges;
  double doubles_sent;
  double wait_seconds;
} dg_exchange_totals;
dg_exchange_totals dg_exchange_get_totals(void);

/* Adds doubles sent outside MPI (the CUDA backend's GPU-to-GPU copies) to
 * the totals' doubles_sent. */
void dg_exchange_count_payload(double doubles);

#ifdef __cplusplus
}
#endif
