/* The processes of a run: MPI or one process (comm.h). */
#include "parallel/comm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef COLORDG_HAVE_MPI
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#endif

struct dg_comm {
  int rank, size;
#ifdef COLORDG_HAVE_MPI
  MPI_Comm mpi;
#endif
};

static dg_comm comm_world = {0, 1
#ifdef COLORDG_HAVE_MPI
                             ,
                             0
#endif
};
#ifdef COLORDG_HAVE_MPI
static int comm_started = 0; /* dg_comm_init started MPI */
#endif
static int comm_init_done = 0;

int dg_comm_built_with_mpi(void) {
#ifdef COLORDG_HAVE_MPI
  return 1;
#else
  return 0;
#endif
}

/* the process's place on its host (dg_comm_node_rank) */
static int comm_node_rank = 0, comm_node_size = 1;

int dg_comm_launched_by_mpi(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                                     "MPI_LOCALNRANKS", NULL};
  for (int i = 0; vars[i]; ++i)
    if (getenv(vars[i])) return 1;
  return 0;
}

dg_status dg_comm_init(int *argc, char ***argv) {
  if (comm_init_done) return DG_SUCCESS;
  comm_init_done = 1;
#ifdef COLORDG_HAVE_MPI
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    if (!dg_comm_launched_by_mpi()) return DG_SUCCESS;
    DG_CHECK(MPI_Init(argc, argv) == MPI_SUCCESS, DG_ERR_UNSUPPORTED, "MPI_Init failed");
    comm_started = 1;
  }
  comm_world.mpi = MPI_COMM_WORLD;
  /* errors come back as codes, so a failure is reported, not a silent abort */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &comm_world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &comm_world.size);
  MPI_Comm node = MPI_COMM_NULL;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, comm_world.rank, MPI_INFO_NULL,
                          &node) == MPI_SUCCESS &&
      node != MPI_COMM_NULL) {
    MPI_Comm_rank(node, &comm_node_rank);
    MPI_Comm_size(node, &comm_node_size);
    MPI_Comm_free(&node);
  }
#else
  (void)argc;
  (void)argv;
  DG_CHECK(!dg_comm_launched_by_mpi() || !getenv("OMPI_COMM_WORLD_SIZE") ||
               strcmp(getenv("OMPI_COMM_WORLD_SIZE"), "1") == 0,
           DG_ERR_UNSUPPORTED,
           "launched by mpirun with %s ranks, but this ColorDG was built without MPI "
           "(install libopenmpi-dev and libmetis-dev and rebuild: tools/setup.sh)",
           getenv("OMPI_COMM_WORLD_SIZE"));
#endif
  return DG_SUCCESS;
}

void dg_comm_finalize(void) {
#ifdef COLORDG_HAVE_MPI
  if (comm_started) {
    int done = 0;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
    comm_started = 0;
  }
#endif
}

void dg_comm_abort(int code) {
#ifdef COLORDG_HAVE_MPI
  if (comm_world.size > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  exit(code);
}

const dg_comm *dg_comm_world(void) { return &comm_world; }
int dg_comm_rank(const dg_comm *comm) { return comm ? comm->rank : 0; }
int dg_comm_size(const dg_comm *comm) { return comm ? comm->size : 1; }

int dg_comm_node_rank(void) { return comm_node_rank; }
int dg_comm_node_size(void) { return comm_node_size; }

int dg_comm_device_aware(void) {
#if defined(COLORDG_HAVE_MPI) && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return comm_world.size > 1 && MPIX_Query_cuda_support() == 1;
#else
  return 0;
#endif
}

#ifdef COLORDG_HAVE_MPI
/* The text of an MPI error code. */
static const char *comm_mpi_error(int code) {
  static char text[MPI_MAX_ERROR_STRING + 1];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "unknown MPI error";
  text[len] = '\0';
  return text;
}
#define COMM_MPI(call, what)                                                                       \
  do {                                                                                             \
    const int comm_rc_ = (call);                                                                   \
    DG_CHECK(comm_rc_ == MPI_SUCCESS, DG_ERR_IO, "rank %d: %s failed: %s", comm_world.rank, what,  \
             comm_mpi_error(comm_rc_));                                                            \
  } while (0)
#endif

#ifdef COLORDG_HAVE_MPI
static double comm_combine(dg_comm_op op, double a, double b) {
  switch (op) {
  case DG_COMM_MIN: return b < a ? b : a;
  case DG_COMM_MAX: return b > a ? b : a;
  default: return a + b;
  }
}
#endif

#ifdef COLORDG_HAVE_MPI
/* The error of a collective that rank `failed` (the lowest failing one)
 * left with status code `code`, on a rank whose own status was local. */
static dg_status comm_failed_elsewhere(const dg_comm *comm, dg_status local, int failed, int code) {
  if (local != DG_SUCCESS) return local;
  (void)comm;
  DG_ERROR((dg_status)code, "rank %d stopped with %s (its message is above)", failed,
           dg_status_name((dg_status)code));
}
#endif

dg_status dg_comm_allreduce_checked(const dg_comm *comm, dg_status local, dg_comm_op op,
                                    double *values, int n) {
  DG_CHECK(comm && n >= 0 && (values || n == 0), DG_ERR_ARG, "dg_comm_allreduce: bad arguments");
  if (comm->size == 1) return local;
#ifdef COLORDG_HAVE_MPI
  /* each rank's n values and its status code, gathered on every rank */
  const size_t m = (size_t)n + 1;
  double *all = malloc(m * (size_t)comm->size * sizeof *all);
  double *mine = malloc(m * sizeof *mine);
  if (!all || !mine) {
    free(all);
    free(mine);
    DG_ERROR(DG_ERR_MEMORY, "dg_comm_allreduce: out of memory (%d values x %d ranks)", n,
             comm->size);
  }
  for (int i = 0; i < n; ++i) mine[i] = local == DG_SUCCESS ? values[i] : 0.0;
  mine[n] = (double)local;
  const int rc = MPI_Allgather(mine, (int)m, MPI_DOUBLE, all, (int)m, MPI_DOUBLE, comm->mpi);
  free(mine);
  if (rc != MPI_SUCCESS) {
    free(all);
    if (local != DG_SUCCESS) return local;
    DG_ERROR(DG_ERR_IO, "rank %d: MPI_Allgather failed: %s", comm->rank, comm_mpi_error(rc));
  }
  for (int r = 0; r < comm->size; ++r) {
    const int code = (int)all[(size_t)r * m + (size_t)n];
    if (code != DG_SUCCESS) {
      free(all);
      return comm_failed_elsewhere(comm, local, r, code);
    }
  }
  /* rank order, the same on every rank; a NaN anywhere makes the result NaN */
  for (int i = 0; i < n; ++i) {
    double v = all[i];
    int nan = v != v;
    for (int r = 1; r < comm->size; ++r) {
      const double w = all[(size_t)r * m + (size_t)i];
      nan |= w != w;
      v = comm_combine(op, v, w);
    }
    values[i] = nan ? (double)NAN : v;
  }
  free(all);
  return DG_SUCCESS;
#else
  (void)op;
  DG_ERROR(DG_ERR_INTERNAL, "dg_comm_allreduce: %d ranks without MPI", comm->size);
#endif
}

dg_status dg_comm_allreduce(const dg_comm *comm, dg_comm_op op, double *values, int n) {
  DG_CHECK(comm && n >= 0 && (values || n == 0), DG_ERR_ARG, "dg_comm_allreduce: bad arguments");
  if (comm->size == 1 || n == 0) return DG_SUCCESS;
  return dg_comm_allreduce_checked(comm, DG_SUCCESS, op, values, n);
}

dg_status dg_comm_allreduce_i64(const dg_comm *comm, dg_comm_op op, int64_t *values, int n) {
  DG_CHECK(comm && n >= 0 && (values || n == 0), DG_ERR_ARG,
           "dg_comm_allreduce_i64: bad arguments");
  if (comm->size == 1 || n == 0) return DG_SUCCESS;
#ifdef COLORDG_HAVE_MPI
  const MPI_Op mop = op == DG_COMM_MIN ? MPI_MIN : op == DG_COMM_MAX ? MPI_MAX : MPI_SUM;
  COMM_MPI(MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_INT64_T, mop, comm->mpi), "MPI_Allreduce");
  return DG_SUCCESS;
#else
  (void)op;
  DG_ERROR(DG_ERR_INTERNAL, "dg_comm_allreduce_i64: %d ranks without MPI", comm->size);
#endif
}

dg_status dg_comm_bcast(const dg_comm *comm, void *buf, size_t bytes, int root) {
  DG_CHECK(comm && (buf || bytes == 0) && root >= 0 && root < comm->size, DG_ERR_ARG,
           "dg_comm_bcast: bad arguments");
  if (comm->size == 1 || bytes == 0) return DG_SUCCESS;
#ifdef COLORDG_HAVE_MPI
  /* in chunks below INT_MAX bytes */
  const size_t chunk = (size_t)1 << 30;
  for (size_t off = 0; off < bytes; off += chunk) {
    const size_t len = bytes - off < chunk ? bytes - off : chunk;
    COMM_MPI(MPI_Bcast((char *)buf + off, (int)len, MPI_BYTE, root, comm->mpi), "MPI_Bcast");
  }
  return DG_SUCCESS;
#else
  DG_ERROR(DG_ERR_INTERNAL, "dg_comm_bcast: %d ranks without MPI", comm->size);
#endif
}

dg_status dg_comm_gather(const dg_comm *comm, const void *mine, size_t bytes, void *all, int root) {
  DG_CHECK(comm && (mine || bytes == 0) && root >= 0 && root < comm->size &&
               bytes < (size_t)1 << 30 && (all || comm->rank != root),
           DG_ERR_ARG, "dg_comm_gather: bad arguments");
  if (comm->size == 1) {
    if (bytes) memcpy(all, mine, bytes);
    return DG_SUCCESS;
  }
#ifdef COLORDG_HAVE_MPI
  COMM_MPI(MPI_Gather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, root, comm->mpi),
           "MPI_Gather");
  return DG_SUCCESS;
#else
  DG_ERROR(DG_ERR_INTERNAL, "dg_comm_gather: %d ranks without MPI", comm->size);
#endif
}

dg_status dg_comm_gatherv(const dg_comm *comm, const void *mine, size_t bytes, void *all,
                          const size_t *counts, const size_t *displs, int root) {
  DG_CHECK(comm && (mine || bytes == 0) && root >= 0 && root < comm->size &&
               bytes < (size_t)1 << 31,
           DG_ERR_ARG, "dg_comm_gatherv: bad arguments");
  if (comm->size == 1) {
    if (bytes) memcpy((char *)all + displs[0], mine, bytes);
    return DG_SUCCESS;
  }
#ifdef COLORDG_HAVE_MPI
  int *ic = NULL, *id = NULL;
  if (comm->rank == root) {
    ic = malloc((size_t)comm->size * sizeof *ic);
    id = malloc((size_t)comm->size * sizeof *id);
    if (!ic || !id) {
      free(ic);
      free(id);
      DG_ERROR(DG_ERR_MEMORY, "dg_comm_gatherv: out of memory");
    }
    for (int r = 0; r < comm->size; ++r) {
      if (counts[r] >= (size_t)1 << 31 || displs[r] >= (size_t)1 << 31) {
        free(ic);
        free(id);
        DG_ERROR(DG_ERR_UNSUPPORTED, "dg_comm_gatherv: block of rank %d beyond 2 GiB", r);
      }
      ic[r] = (int)counts[r];
      id[r] = (int)displs[r];
    }
  }
  const int rc = MPI_Gatherv(mine, (int)bytes, MPI_BYTE, all, ic, id, MPI_BYTE, root, comm->mpi);
  free(ic);
  free(id);
  DG_CHECK(rc == MPI_SUCCESS, DG_ERR_IO, "rank %d: MPI_Gatherv failed: %s", comm->rank,
           comm_mpi_error(rc));
  return DG_SUCCESS;
#else
  (void)counts;
  DG_ERROR(DG_ERR_INTERNAL, "dg_comm_gatherv: %d ranks without MPI", comm->size);
#endif
}

dg_status dg_comm_barrier(const dg_comm *comm) {
  DG_CHECK(comm, DG_ERR_ARG, "dg_comm_barrier: NULL communicator");
  if (comm->size == 1) return DG_SUCCESS;
#ifdef COLORDG_HAVE_MPI
  COMM_MPI(MPI_Barrier(comm->mpi), "MPI_Barrier");
#endif
  return DG_SUCCESS;
}

dg_status dg_comm_agree(const dg_comm *comm, dg_status local) {
  if (!comm || comm->size == 1) return local;
  /* the statuses ride alone through the checked reduction (no values) */
  return dg_comm_allreduce_checked(comm, local, DG_COMM_SUM, NULL, 0);
}

/* ---- neighbour exchange ---- */

static dg_exchange_totals comm_totals;

dg_exchange_totals dg_exchange_get_totals(void) { return comm_totals; }

void dg_exchange_count_payload(double doubles) { comm_totals.doubles_sent += doubles; }

struct dg_exchange {
  const dg_comm *comm;
  int n, tag, in_flight;
  int *neighbor;
  int64_t *send_count, *recv_count, *send_offset, *recv_offset;
#ifdef COLORDG_HAVE_MPI
  MPI_Request *req; /* [2n] */
#endif
};

void dg_exchange_destroy(dg_exchange *ex) {
  if (!ex) return;
  if (ex->in_flight) (void)dg_exchange_finish(ex);
  free(ex->neighbor);
  free(ex->send_count);
  free(ex->recv_count);
  free(ex->send_offset);
  free(ex->recv_offset);
#ifdef COLORDG_HAVE_MPI
  free(ex->req);
#endif
  free(ex);
}

dg_status dg_exchange_create(const dg_comm *comm, int n, const int *neighbor,
                             const int64_t *send_count, const int64_t *recv_count, int tag,
                             dg_exchange **out) {
  DG_CHECK(comm && out && n >= 0 && (n == 0 || (neighbor && send_count && recv_count)) &&
               tag >= 0 && tag < 32768,
           DG_ERR_ARG, "dg_exchange_create: bad arguments");
  *out = NULL;
  for (int i = 0; i < n; ++i) {
    DG_CHECK(neighbor[i] >= 0 && neighbor[i] < comm->size && neighbor[i] != comm->rank &&
                 (i == 0 || neighbor[i] > neighbor[i - 1]),
             DG_ERR_ARG,
             "dg_exchange_create: neighbour %d is rank %d (ranks 0..%d, this is %d, ascending "
             "order)",
             i, neighbor[i], comm->size - 1, comm->rank);
    DG_CHECK(send_count[i] >= 0 && recv_count[i] >= 0 && send_count[i] < ((int64_t)1 << 31) &&
                 recv_count[i] < ((int64_t)1 << 31),
             DG_ERR_ARG, "dg_exchange_create: counts %lld/%lld for rank %d out of range",
             (long long)send_count[i], (long long)recv_count[i], neighbor[i]);
  }
  dg_exchange *ex = calloc(1, sizeof *ex);
  DG_CHECK(ex, DG_ERR_MEMORY, "dg_exchange_create: out of memory");
  const size_t m = (size_t)n + 1;
  ex->comm = comm;
  ex->n = n;
  ex->tag = tag;
  ex->neighbor = malloc(m * sizeof *ex->neighbor);
  ex->send_count = malloc(m * sizeof *ex->send_count);
  ex->recv_count = malloc(m * sizeof *ex->recv_count);
  ex->send_offset = malloc(m * sizeof *ex->send_offset);
  ex->recv_offset = malloc(m * sizeof *ex->recv_offset);
#ifdef COLORDG_HAVE_MPI
  ex->req = malloc(2 * m * sizeof *ex->req);
  if (!ex->req) {
    dg_exchange_destroy(ex);
    DG_ERROR(DG_ERR_MEMORY, "dg_exchange_create: out of memory");
  }
#endif
  if (!ex->neighbor || !ex->send_count || !ex->recv_count || !ex->send_offset || !ex->recv_offset) {
    dg_exchange_destroy(ex);
    DG_ERROR(DG_ERR_MEMORY, "dg_exchange_create: out of memory");
  }
  ex->send_offset[0] = ex->recv_offset[0] = 0;
  for (int i = 0; i < n; ++i) {
    ex->neighbor[i] = neighbor[i];
    ex->send_count[i] = send_count[i];
    ex->recv_count[i] = recv_count[i];
    ex->send_offset[i + 1] = ex->send_offset[i] + send_count[i];
    ex->recv_offset[i + 1] = ex->recv_offset[i] + recv_count[i];
  }
  *out = ex;
  return DG_SUCCESS;
}

int64_t dg_exchange_send_total(const dg_exchange *ex) { return ex ? ex->send_offset[ex->n] : 0; }
int64_t dg_exchange_recv_total(const dg_exchange *ex) { return ex ? ex->recv_offset[ex->n] : 0; }
int dg_exchange_neighbors(const dg_exchange *ex) { return ex ? ex->n : 0; }

dg_status dg_exchange_start(dg_exchange *ex, const double *send, double *recv) {
  DG_CHECK(ex, DG_ERR_ARG, "dg_exchange_start: NULL exchange");
  DG_CHECK(!ex->in_flight, DG_ERR_ARG, "dg_exchange_start: an exchange is already in flight");
  if (ex->n == 0) return DG_SUCCESS;
  DG_CHECK((send || ex->send_offset[ex->n] == 0) && (recv || ex->recv_offset[ex->n] == 0),
           DG_ERR_ARG, "dg_exchange_start: NULL buffer");
#ifdef COLORDG_HAVE_MPI
  for (int i = 0; i < ex->n; ++i)
    COMM_MPI(MPI_Irecv(recv + ex->recv_offset[i], (int)ex->recv_count[i], MPI_DOUBLE,
                       ex->neighbor[i], ex->tag, ex->comm->mpi, &ex->req[i]),
             "MPI_Irecv");
  for (int i = 0; i < ex->n; ++i)
    COMM_MPI(MPI_Isend(send + ex->send_offset[i], (int)ex->send_count[i], MPI_DOUBLE,
                       ex->neighbor[i], ex->tag, ex->comm->mpi, &ex->req[ex->n + i]),
             "MPI_Isend");
  ex->in_flight = 1;
  comm_totals.exchanges += 1;
  comm_totals.doubles_sent += (double)ex->send_offset[ex->n];
  return DG_SUCCESS;
#else
  DG_ERROR(DG_ERR_INTERNAL, "dg_exchange_start: neighbours without MPI");
#endif
}

dg_status dg_exchange_finish(dg_exchange *ex) {
  DG_CHECK(ex, DG_ERR_ARG, "dg_exchange_finish: NULL exchange");
  if (!ex->in_flight) return DG_SUCCESS;
  ex->in_flight = 0;
#ifdef COLORDG_HAVE_MPI
  MPI_Status st[2 * 64];
  MPI_Status *status = 2 * ex->n <= 128 ? st : MPI_STATUSES_IGNORE;
  const double t0 = MPI_Wtime();
  const int rc = MPI_Waitall(2 * ex->n, ex->req, status);
  comm_totals.wait_seconds += MPI_Wtime() - t0;
  if (rc != MPI_SUCCESS) {
    for (int i = 0; status != MPI_STATUSES_IGNORE && i < 2 * ex->n; ++i)
      if (status[i].MPI_ERROR != MPI_SUCCESS)
        DG_ERROR(DG_ERR_IO, "rank %d: halo exchange with rank %d failed: %s", ex->comm->rank,
                 ex->neighbor[i % ex->n], comm_mpi_error(status[i].MPI_ERROR));
    DG_ERROR(DG_ERR_IO, "rank %d: halo exchange failed: %s", ex->comm->rank, comm_mpi_error(rc));
  }
#endif
  return DG_SUCCESS;
}
