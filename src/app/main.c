/* colordg: parses the command line (src/app/cli.c) and turns the outcome into
 * the exit code: 0 success, 1 failure (the error on stderr), 2 usage error,
 * 3 a run stopped by SIGINT/SIGTERM after writing its checkpoint. */
#include <stdio.h>

#include "app/cli.h"
#include "app/run.h"
#include "core/dg_error.h"

int main(int argc, char **argv) {
  cli_options options;
  switch (cli_parse(argc, argv, &options, stdout, stderr)) {
  case CLI_PARSE_DONE: return 0;
  case CLI_PARSE_USAGE: return 2;
  case CLI_PARSE_RUN: break;
  }
  if (cli_execute(&options, stdout) == DG_SUCCESS)
    return run_signal_received() ? RUN_EXIT_SIGNAL : 0;
  dg_error_print(stderr, options.verbose);
  return 1;
}
