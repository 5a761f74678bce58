#pragma once
/* The `colordg` command line: subcommands import, info, run, case-keys, each
 * with --help; global --help, --version and --verbose.
 *
 * cli_parse() reads argv (printing help, version or a usage error itself);
 * cli_execute() runs the chosen subcommand and returns a status whose error
 * main() prints. Exit codes (decided in main.c): 0 success, 1 failure,
 * 2 usage error. */
#include <stdio.h>

#include "core/dg_error.h"

#ifndef COLORDG_VERSION
#define COLORDG_VERSION "0.1.0"
#endif

typedef enum { CLI_IMPORT = 0, CLI_INFO, CLI_RUN, CLI_CASE_KEYS } cli_command;

typedef enum {
  CLI_PARSE_RUN = 0, /* options are complete: call cli_execute() */
  CLI_PARSE_DONE,    /* help or version was printed: exit 0 */
  CLI_PARSE_USAGE    /* a usage error was printed: exit 2 */
} cli_parse_result;

/* What the command line asked for. Strings point into argv. */
typedef struct {
  cli_command command;
  int verbose;         /* --verbose: print the error trace too */
  const char *input;   /* import: mesh; info: mesh or case; run: case */
  const char *output;  /* import: -o OUT.cdgm */
  int order;           /* import: --order q for .geo files (0 = as the .geo says) */
  int p;               /* info: --p P (-1: every p = 0..3) */
  int csv;             /* info: --csv */
  int partitions;      /* info: --partitions N (0: no partition report) */
  int allow_shell;     /* import, info: --allow-shell (a .geo may run programs) */
  const char *backend; /* run: --backend cpu|cuda|auto (NULL = auto) */
  const char *restart;
  const char *init;          /* run: --init FILE.cdgs (p-sequencing) */
  const char *mesh;          /* run: --mesh FILE (replaces the case's mesh) */
  const char *output_folder; /* run: --output DIR (replaces the case's folder) */
  int max_iters;             /* run: --max-iters N (0 = the case's) */
  int quiet;                 /* run: --quiet (no monitor table) */
} cli_options;

/* Parses argv into options. Help and version go to out, usage errors to err. */
cli_parse_result cli_parse(int argc, char **argv, cli_options *options, FILE *out, FILE *err);

/* Runs the subcommand, writing its report to out. */
dg_status cli_execute(const cli_options *options, FILE *out);

/* `colordg import`: reads a mesh (.msh, .geo, .cdgm), builds its topology to
 * validate it, and writes the native .cdgm file; prints counts and time. */
dg_status cli_import(const char *input, const char *output, int order, int allow_shell, FILE *out);

/* `colordg info`: mesh report (info.h) of a mesh, or of a case's mesh with
 * the case summary; csv selects key,value output; p < 0 estimates p = 0..3.
 * partitions > 0 appends the partition report (info_add_partitions) for
 * that many parts, weighted at p (when >= 0), else the case's degree, else
 * p = 1 for a bare mesh. */
dg_status cli_info(const char *input, int p, int csv, int allow_shell, int partitions, FILE *out);

/* `colordg run`: reads the case and runs it (src/app/run.h) with the run
 * options of `options` (backend, restart, mesh, output, max_iters, quiet). */
dg_status cli_run(const cli_options *options, FILE *out);
