/* colordg: parses the command line (src/app/cli.c) and turns the outcome into
 * the exit code: 0 success, 1 failure (the error on stderr), 2 usage error,
 * 3 a run stopped by SIGINT/SIGTERM after writing its checkpoint. */
#include <stdio.h>

#include "app/cli.h"
#include "app/run.h"
#include "core/dg_error.h"
#include "parallel/comm.h"

int main(int argc, char **argv) {
  /* MPI when launched by mpirun (src/parallel/comm.h) */
  if (dg_comm_init(&argc, &argv) != DG_SUCCESS) {
    dg_error_print(stderr, 0);
    return 1;
  }
  const dg_comm *comm = dg_comm_world();
  if (dg_comm_size(comm) > 1) {
    /* the distributed residual, reductions and SSP-RK3 are in the library
     * (tests/parallel); the run driver (partition, outputs, restarts) is
     * not yet: refuse on every rank, say it once */
    if (dg_comm_rank(comm) == 0)
      fprintf(stderr,
              "colordg: launched with %d MPI ranks, but the colordg command runs on one rank for "
              "now (distributed runs reach the library first: src/mesh/distribute.h); run it "
              "without mpirun\n",
              dg_comm_size(comm));
    dg_comm_finalize();
    return 1;
  }
  cli_options options;
  int rc = 1;
  switch (cli_parse(argc, argv, &options, stdout, stderr)) {
  case CLI_PARSE_DONE: rc = 0; break;
  case CLI_PARSE_USAGE: rc = 2; break;
  case CLI_PARSE_RUN:
    if (cli_execute(&options, stdout) == DG_SUCCESS) {
      rc = run_signal_received() ? RUN_EXIT_SIGNAL : 0;
    } else {
      dg_error_print(stderr, options.verbose);
      rc = 1;
    }
    break;
  }
  dg_comm_finalize();
  return rc;
}
