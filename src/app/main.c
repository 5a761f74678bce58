/* colordg: parses the command line (src/app/cli.c) and turns the outcome into
 * the exit code: 0 success, 1 failure (the error on stderr), 2 usage error,
 * 3 a run stopped by SIGINT/SIGTERM after writing its checkpoint.
 *
 * Under mpirun (src/parallel/comm.h) `colordg run` is distributed over the
 * ranks; a failure on any rank prints its error (with the rank) and stops
 * every rank (MPI_Abort), so no rank waits forever; every file is written
 * whole or not at all (src/core/dg_file.h). */
#include <stdio.h>

#include "app/cli.h"
#include "app/run.h"
#include "core/dg_error.h"
#include "parallel/comm.h"

int main(int argc, char **argv) {
  if (dg_comm_init(&argc, &argv) != DG_SUCCESS) { /* e.g. mpirun with a build without MPI */
    dg_error_print(stderr, 0);
    return 1;
  }
  const dg_comm *comm = dg_comm_world();
  const int rank = dg_comm_rank(comm), size = dg_comm_size(comm);
  /* help, version, usage errors and reports: rank 0 speaks */
  FILE *sink = rank == 0 ? NULL : fopen("/dev/null", "w");
  FILE *out = sink ? sink : stdout, *err = sink ? sink : stderr;
  cli_options options;
  int rc = 1;
  switch (cli_parse(argc, argv, &options, out, err)) {
  case CLI_PARSE_DONE: rc = 0; break;
  case CLI_PARSE_USAGE: rc = 2; break;
  case CLI_PARSE_RUN:
    if (size > 1 && options.command != CLI_RUN) {
      if (rank == 0)
        fprintf(stderr,
                "colordg: only `colordg run` runs on several MPI ranks (launched with %d); run "
                "the other commands without mpirun\n",
                size);
      rc = 2;
      break;
    }
    if (cli_execute(&options, out) == DG_SUCCESS) {
      rc = run_signal_received() ? RUN_EXIT_SIGNAL : 0;
    } else {
      if (size > 1) fprintf(stderr, "colordg (MPI rank %d of %d): ", rank, size);
      dg_error_print(stderr, options.verbose);
      rc = 1;
      if (size > 1) {
        fflush(stderr);
        dg_comm_abort(1); /* the other ranks may be waiting in a collective */
      }
    }
    break;
  }
  if (sink) fclose(sink);
  dg_comm_finalize();
  return rc;
}
