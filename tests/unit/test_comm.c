/* The communicator layer (src/parallel/comm.h) on however many ranks the
 * test was launched with (mpirun -n 1, 2, 3 in tests/parallel.cmake; one
 * process without mpirun or without MPI):
 * - allreduce SUM/MIN/MAX: the same bits on every rank, equal to the sum
 *   taken in rank order here (values chosen so that another order rounds
 *   differently); NaN from one rank reaches every rank; int64 reductions;
 * - bcast, gather, gatherv;
 * - a neighbour exchange with up to four neighbours per rank (r +- 1, r +- 2)
 *   and a different message size per pair, run twice; a second start while
 *   one is in flight is refused;
 * - dg_comm_agree: all passing, and one failing rank named to the others. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parallel/comm.h"
#include "test_util.h"

#define NV 6

/* Rank r's contribution to the double reductions: large and small values
 * so that the sum depends on the order of the additions. */
static double value_of(int r, int i) {
  static const double base[NV] = {1e16, 1.0, -1e16, 3.141592653589793, 1e-3, -7.5};
  return base[i] * (1.0 + 0.1 * r) + (i == 1 ? 0.3 * r : 0.0) + (i == 2 ? 1.0 / (r + 3) : 0.0);
}

static int same_bits(const double *a, const double *b, int n) {
  return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* Every rank's copy of v equals rank 0's, bit for bit (gathered on rank 0
 * and compared there; the verdict broadcast back). */
static void check_same_everywhere(const dg_comm *comm, const double *v, int n, const char *what) {
  const int size = dg_comm_size(comm), rank = dg_comm_rank(comm);
  double *all = malloc((size_t)n * (size_t)size * sizeof *all);
  TEST_OK(dg_comm_gather(comm, v, (size_t)n * sizeof *v, all, 0));
  int ok = 1;
  if (rank == 0)
    for (int r = 1; r < size; ++r) ok &= same_bits(all, all + (size_t)r * (size_t)n, n);
  TEST_OK(dg_comm_bcast(comm, &ok, sizeof ok, 0));
  TEST_CHECK(ok, "rank %d: %s differs between ranks", rank, what);
  free(all);
}

static void check_allreduce(const dg_comm *comm) {
  const int size = dg_comm_size(comm), rank = dg_comm_rank(comm);
  for (int op = DG_COMM_SUM; op <= DG_COMM_MAX; ++op) {
    double v[NV], expect[NV];
    for (int i = 0; i < NV; ++i) {
      v[i] = value_of(rank, i);
      expect[i] = value_of(0, i);
      for (int r = 1; r < size; ++r) {
        const double w = value_of(r, i);
        expect[i] = op == DG_COMM_SUM   ? expect[i] + w
                    : op == DG_COMM_MIN ? (w < expect[i] ? w : expect[i])
                                        : (w > expect[i] ? w : expect[i]);
      }
    }
    TEST_OK(dg_comm_allreduce(comm, (dg_comm_op)op, v, NV));
    TEST_CHECK(same_bits(v, expect, NV),
               "rank %d: allreduce op %d differs from the rank-order "
               "result (first value %.17g vs %.17g)",
               rank, op, v[0], expect[0]);
    check_same_everywhere(comm, v, NV, "allreduce result");

    /* NaN from the last rank, in value 2: NaN everywhere in value 2 only */
    for (int i = 0; i < NV; ++i) v[i] = value_of(rank, i);
    if (rank == size - 1) v[2] = NAN;
    TEST_OK(dg_comm_allreduce(comm, (dg_comm_op)op, v, NV));
    TEST_CHECK(isnan(v[2]), "rank %d: op %d lost the NaN of rank %d", rank, op, size - 1);
    TEST_CHECK(!isnan(v[0]) && !isnan(v[1]) && !isnan(v[3]), "rank %d: op %d spread a NaN", rank,
               op);
  }
  TEST_OK(dg_comm_allreduce(comm, DG_COMM_SUM, NULL, 0));

  /* int64: exact sums beyond 2^53, min, max */
  const int64_t big = (int64_t)1 << 60;
  for (int op = DG_COMM_SUM; op <= DG_COMM_MAX; ++op) {
    int64_t v[3] = {big / 8 + rank, -(int64_t)rank * 1000003, (int64_t)(rank % 2)};
    int64_t expect[3] = {0, 0, 0};
    for (int r = 0; r < size; ++r) {
      const int64_t w[3] = {big / 8 + r, -(int64_t)r * 1000003, (int64_t)(r % 2)};
      for (int i = 0; i < 3; ++i)
        expect[i] = r == 0              ? w[i]
                    : op == DG_COMM_SUM ? expect[i] + w[i]
                    : op == DG_COMM_MIN ? (w[i] < expect[i] ? w[i] : expect[i])
                                        : (w[i] > expect[i] ? w[i] : expect[i]);
    }
    TEST_OK(dg_comm_allreduce_i64(comm, (dg_comm_op)op, v, 3));
    TEST_CHECK(v[0] == expect[0] && v[1] == expect[1] && v[2] == expect[2],
               "rank %d: i64 op %d gives %lld %lld %lld, expected %lld %lld %lld", rank, op,
               (long long)v[0], (long long)v[1], (long long)v[2], (long long)expect[0],
               (long long)expect[1], (long long)expect[2]);
  }
}

static void check_bcast_gather(const dg_comm *comm) {
  const int size = dg_comm_size(comm), rank = dg_comm_rank(comm), root = size - 1;
  double buf[5];
  for (int i = 0; i < 5; ++i) buf[i] = rank == root ? 10.0 * i + 0.25 : -1.0;
  TEST_OK(dg_comm_bcast(comm, buf, sizeof buf, root));
  int ok = 1;
  for (int i = 0; i < 5; ++i) ok &= buf[i] == 10.0 * i + 0.25;
  TEST_CHECK(ok, "rank %d: bcast from rank %d wrong", rank, root);

  /* gather: rank r sends {r, 2r + 1} to root */
  int mine[2] = {rank, 2 * rank + 1};
  int *all = malloc((size_t)size * sizeof mine);
  TEST_OK(dg_comm_gather(comm, mine, sizeof mine, rank == root ? all : NULL, root));
  if (rank == root) {
    ok = 1;
    for (int r = 0; r < size; ++r) ok &= all[2 * r] == r && all[2 * r + 1] == 2 * r + 1;
    TEST_CHECK(ok, "gather on rank %d wrong", root);
  }
  free(all);

  /* gatherv: rank r sends r + 1 bytes of value 'a' + r, placed in reverse
   * rank order on rank 0 */
  size_t *counts = malloc((size_t)size * sizeof *counts);
  size_t *displs = malloc((size_t)size * sizeof *displs);
  size_t total = 0;
  for (int r = size - 1; r >= 0; --r) {
    counts[r] = (size_t)r + 1;
    displs[r] = total;
    total += counts[r];
  }
  char block[64], *gathered = malloc(total + 1);
  memset(block, 'a' + rank, sizeof block);
  memset(gathered, '?', total + 1);
  TEST_OK(dg_comm_gatherv(comm, block, (size_t)rank + 1, gathered, counts, displs, 0));
  if (rank == 0) {
    ok = gathered[total] == '?';
    for (int r = 0; r < size; ++r)
      for (size_t k = 0; k < counts[r]; ++k) ok &= gathered[displs[r] + k] == 'a' + r;
    TEST_CHECK(ok, "gatherv on rank 0 wrong");
  }
  free(gathered);
  free(counts);
  free(displs);
}

/* Doubles rank a sends to rank b per exchange (differs per pair and direction). */
static int64_t pair_count(int a, int b) { return 2 + (3 * a + b) % 5; }
static double pair_value(int from, int to, int64_t k, int round) {
  return 1000.0 * from + to + 0.001 * (double)k + 0.5 * round;
}

static void check_exchange(const dg_comm *comm) {
  const int size = dg_comm_size(comm), rank = dg_comm_rank(comm);
  /* neighbours r +- 1, r +- 2 (mod size), without this rank, ascending: a
   * symmetric pattern (a lists b exactly when b lists a) */
  int nb[4], n = 0;
  for (int r = 0; r < size; ++r) {
    if (r == rank) continue;
    const int d = (r - rank + size) % size;
    if (d == 1 || d == 2 || d == size - 1 || d == size - 2) nb[n++] = r;
  }
  int64_t send_count[4], recv_count[4], n_send = 0, n_recv = 0;
  for (int i = 0; i < n; ++i) {
    send_count[i] = pair_count(rank, nb[i]);
    recv_count[i] = pair_count(nb[i], rank);
    n_send += send_count[i];
    n_recv += recv_count[i];
  }
  dg_exchange *ex = NULL;
  TEST_OK(dg_exchange_create(comm, n, nb, send_count, recv_count, 7, &ex));
  if (!ex) return;
  TEST_CHECK(dg_exchange_neighbors(ex) == n && dg_exchange_send_total(ex) == n_send &&
                 dg_exchange_recv_total(ex) == n_recv,
             "rank %d: exchange sizes %d/%lld/%lld, expected %d/%lld/%lld", rank,
             dg_exchange_neighbors(ex), (long long)dg_exchange_send_total(ex),
             (long long)dg_exchange_recv_total(ex), n, (long long)n_send, (long long)n_recv);
  double *send = malloc((size_t)(n_send + 1) * sizeof *send);
  double *recv = malloc((size_t)(n_recv + 1) * sizeof *recv);
  for (int round = 0; round < 2; ++round) {
    int64_t o = 0;
    for (int i = 0; i < n; ++i)
      for (int64_t k = 0; k < send_count[i]; ++k) send[o++] = pair_value(rank, nb[i], k, round);
    for (int64_t k = 0; k <= n_recv; ++k) recv[k] = -1.0;
    TEST_OK(dg_exchange_start(ex, send, recv));
    if (n > 0) TEST_FAILS(dg_exchange_start(ex, send, recv), DG_ERR_ARG, "already in flight");
    TEST_OK(dg_exchange_finish(ex));
    TEST_OK(dg_exchange_finish(ex)); /* none in flight: no-op */
    int ok = recv[n_recv] == -1.0;
    o = 0;
    for (int i = 0; i < n; ++i)
      for (int64_t k = 0; k < recv_count[i]; ++k)
        ok &= recv[o++] == pair_value(nb[i], rank, k, round);
    TEST_CHECK(ok, "rank %d: exchange round %d received wrong values", rank, round);
  }
  free(send);
  free(recv);
  dg_exchange_destroy(ex);

  /* bad patterns are refused before any message */
  const int self[1] = {rank};
  const int64_t one[1] = {1};
  dg_exchange *bad = NULL;
  TEST_FAILS(dg_exchange_create(comm, 1, self, one, one, 7, &bad), DG_ERR_ARG, "neighbour 0");
  TEST_CHECK(bad == NULL, "rank %d: a refused exchange was returned", rank);
}

static void check_agree(const dg_comm *comm) {
  const int size = dg_comm_size(comm), rank = dg_comm_rank(comm);
  TEST_OK(dg_comm_agree(comm, DG_SUCCESS));
  const int failing = size - 1;
  dg_status local = DG_SUCCESS;
  if (rank == failing)
    local = dg_error_set(DG_ERR_MESH, __FILE__, __LINE__, __func__, "test: rank %d fails", rank);
  const dg_status st = dg_comm_agree(comm, local);
  TEST_CHECK(st == DG_ERR_MESH, "rank %d: agree gave %s, expected DG_ERR_MESH", rank,
             dg_status_name(st));
  char expect[64];
  if (rank == failing)
    snprintf(expect, sizeof expect, "test: rank %d fails", rank);
  else
    snprintf(expect, sizeof expect, "rank %d stopped with DG_ERR_MESH", failing);
  TEST_CHECK(strstr(dg_error_message(), expect) != NULL, "rank %d: message '%s' lacks '%s'", rank,
             dg_error_message(), expect);
  dg_error_clear();
  TEST_OK(dg_comm_agree(comm, DG_SUCCESS)); /* the ranks are still in step */
}

int main(int argc, char **argv) {
  TEST_OK(dg_comm_init(&argc, &argv));
  TEST_OK(dg_comm_init(&argc, &argv)); /* a second call is a no-op */
  const dg_comm *comm = dg_comm_world();
  const int size = dg_comm_size(comm), rank = dg_comm_rank(comm);
  TEST_CHECK(rank >= 0 && rank < size, "rank %d of %d", rank, size);
  /* `test_comm N` (mpirun -n N): the launch gave N ranks to a build with MPI */
  if (argc > 1) {
    const int want = atoi(argv[1]);
    TEST_CHECK(size == want, "rank %d: %d ranks, launched with %d", rank, size, want);
    TEST_CHECK(dg_comm_built_with_mpi() && dg_comm_launched_by_mpi(),
               "rank %d: launched by mpirun but built_with_mpi %d, launched_by_mpi %d", rank,
               dg_comm_built_with_mpi(), dg_comm_launched_by_mpi());
  }
  check_allreduce(comm);
  check_bcast_gather(comm);
  check_exchange(comm);
  check_agree(comm);
  TEST_OK(dg_comm_barrier(comm));
  char name[32];
  snprintf(name, sizeof name, "test_comm rank %d/%d", rank, size);
  const int rc = test_finish(name);
  dg_comm_finalize();
  return rc;
}
