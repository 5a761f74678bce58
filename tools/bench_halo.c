/* Point-to-point cost of a halo message between two MPI ranks
 * (docs/PERFORMANCE.md, "Distributed runs"): ping-pong through the same
 * dg_exchange the solver uses (src/parallel/comm.h), host buffers, for
 * message sizes 8 B .. 8 MiB; prints one CSV line per size (bytes, one-way
 * microseconds, GB/s) and the latency alpha (the 8-byte time) and the
 * bandwidth beta (of the largest message) of t(bytes) = alpha + bytes / beta.
 *   mpirun -n 2 bench_halo [--reps N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parallel/comm.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (dg_comm_init(&argc, &argv) != DG_SUCCESS) {
    dg_error_print(stderr, 0);
    return 1;
  }
  const dg_comm *comm = dg_comm_world();
  const int rank = dg_comm_rank(comm), size = dg_comm_size(comm);
  int reps = 200;
  for (int i = 1; i + 1 < argc; ++i)
    if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "bench_halo: run it on 2 ranks (mpirun -n 2), not %d\n", size);
    dg_comm_finalize();
    return 2;
  }
  const int other = 1 - rank;
  double alpha = 0.0, beta = 0.0;
  if (rank == 0) printf("bytes,one_way_us,GB_s\n");
  for (int64_t n = 1; n <= (1 << 20); n *= 4) { /* doubles: 8 B .. 8 MiB */
    double *send = calloc((size_t)n, sizeof *send), *recv = calloc((size_t)n, sizeof *recv);
    dg_exchange *ex = NULL;
    if (!send || !recv || dg_exchange_create(comm, 1, &other, &n, &n, 11, &ex) != DG_SUCCESS) {
      dg_error_print(stderr, 0);
      dg_comm_abort(1);
    }
    const int r = n >= 65536 ? reps / 10 + 1 : reps;
    double t = 0.0;
    for (int k = -5; k < r; ++k) { /* 5 warm-up exchanges */
      dg_comm_barrier(comm);
      const double t0 = now();
      dg_exchange_start(ex, send, recv);
      dg_exchange_finish(ex);
      if (k >= 0) t += now() - t0;
    }
    double tmax = t / r; /* both directions at once: each rank sends and receives n */
    dg_comm_allreduce(comm, DG_COMM_MAX, &tmax, 1);
    const double bytes = 8.0 * (double)n;
    if (rank == 0) printf("%.0f,%.3f,%.3f\n", bytes, 1e6 * tmax, bytes / tmax * 1e-9);
    if (n == 1) alpha = tmax;
    beta = bytes / tmax;
    dg_exchange_destroy(ex);
    free(send);
    free(recv);
  }
  if (rank == 0)
    printf("# fit: alpha %.2f us, beta %.2f GB/s (t = alpha + bytes / beta)\n", 1e6 * alpha,
           1e-9 * beta);
  dg_comm_finalize();
  return 0;
}
