#include "app/cli.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/case.h"
#include "app/info.h"
#include "app/run.h"
#include "coloring/coloring.h"
#include "mesh/geometry.h"
#include "mesh/mesh.h"
#include "mesh/topology.h"

/* ---------------------------------------------------------------- help */

static const char cli_usage_main[] =
    "usage: colordg [--verbose] <command> [options]\n"
    "       colordg --help | --version\n"
    "\n"
    "ColorDG: high-order discontinuous Galerkin solver for the compressible Euler\n"
    "equations with a coloured LU-SGS implicit solver.\n"
    "\n"
    "commands:\n"
    "  import     convert a Gmsh mesh (.msh, .geo) to the native .cdgm file\n"
    "  info       report a mesh (or a case's mesh): counts, sizes, memory estimate\n"
    "  run        run a case file\n"
    "  case-keys  print every case-file key (the table of docs/CASE_FILE.md)\n"
    "\n"
    "options:\n"
    "  -h, --help     this help; 'colordg <command> --help' for a command\n"
    "  --version      version and the features this build has\n"
    "  -v, --verbose  on failure, print where in the code the error was found\n"
    "\n"
    "exit codes: 0 success (a run stopped by one of its criteria), 1 failure or\n"
    "divergence (message on stderr), 2 usage error, 3 a run stopped by SIGINT or\n"
    "SIGTERM after writing its checkpoint (continue it with --restart)\n";

static const char cli_usage_import[] =
    "usage: colordg import IN.msh|IN.geo|IN.cdgm -o OUT.cdgm [--order q] [--allow-shell]\n"
    "\n"
    "Reads a mesh (Gmsh .msh 2.2/4.1 or .geo through the Gmsh SDK, or .cdgm),\n"
    "builds its faces to check it, and writes the native binary .cdgm file,\n"
    "which later runs read without Gmsh.\n"
    "\n"
    "options:\n"
    "  -o, --output OUT.cdgm  file to write (required)\n"
    "  --order q              geometric order 1..3 for meshing a .geo (default:\n"
    "                         as the .geo says)\n"
    "  --allow-shell          let a .geo run programs (SystemCall, ...); refused\n"
    "                         by default\n";

static const char cli_usage_info[] =
    "usage: colordg info MESH|CASE.ini [--p P] [--csv] [--partitions N] [--allow-shell]\n"
    "\n"
    "Reports element counts by shape and geometric order, nodes, faces\n"
    "(interior, periodic, per boundary group), element size range, total\n"
    "area/volume and the estimated memory of the solver's main arrays for\n"
    "p = 0..3 (formula: docs/CASE_FILE.md, 'Memory estimate'). Given a case\n"
    "file, reports its mesh and prints the case summary.\n"
    "\n"
    "options:\n"
    "  --p P   estimate memory for degree P (0..3) only\n"
    "  --csv   print key,value lines (for scripts and tests)\n"
    "  --partitions N  also partition the elements into N parts as a distributed\n"
    "                  run would (METIS, weights by shape at the case's p, or --p,\n"
    "                  or p = 1) and report per part elements, weight, ghosts and\n"
    "                  neighbours, and the imbalance, cut faces and halo bytes\n"
    "  --allow-shell  let a .geo run programs (SystemCall, ...); refused by default\n";

static const char cli_usage_run[] =
    "usage: colordg run CASE.ini [--backend cpu|cuda|auto] [--restart FILE.cdgs]\n"
    "                   [--init FILE.cdgs] [--max-iters N] [--mesh FILE] [--output DIR]\n"
    "                   [--quiet]\n"
    "\n"
    "Runs a case: reads the case file and its mesh, builds the discretisation and\n"
    "marches it ([solver] scheme: implicit LU-SGS by default, or explicit SSP-RK3)\n"
    "until the residual has dropped by [stop]\n"
    "residual_drop orders, max_iters or max_wall_seconds is reached, or the run\n"
    "diverges. Prints a monitor line every [output] monitor_every iterations\n"
    "(iteration, wall time, log10 of each equation's residual over its first\n"
    "value, CL, CD, CFL) and writes to the output folder: history.csv,\n"
    "checkpoint.cdgs, solution.cdgs, solution.vtu (under mpirun solution.pvtu\n"
    "and one piece per rank in solution/), surface_cp.csv (walls).\n"
    "\n"
    "options:\n"
    "  --backend B      cpu, cuda or auto (default: cuda when a GPU is present)\n"
    "  --restart FILE   continue from a checkpoint (.cdgs) of this case and mesh\n"
    "  --init FILE      start a fresh run from a solution (.cdgs) of the same mesh\n"
    "                   at a degree p' <= p (prolonged exactly: p-sequencing)\n"
    "  --max-iters N    iteration limit in all (restart included), replacing\n"
    "                   [stop] max_iters\n"
    "  --mesh FILE      mesh replacing the case's [mesh] file (e.g. a .cdgm where\n"
    "                   Gmsh is not installed)\n"
    "  --output DIR     output folder replacing [output] folder\n"
    "  --quiet          no monitor table (history.csv is still written)\n"
    "\n"
    "Ctrl-C (SIGINT) or SIGTERM: the run finishes its iteration, writes\n"
    "checkpoint.cdgs and its outputs and exits with code 3; continue it with\n"
    "--restart OUT/checkpoint.cdgs. A second signal stops it at once.\n";

static const char cli_usage_case_keys[] =
    "usage: colordg case-keys\n"
    "\n"
    "Prints every key a case file accepts (section, key, type, default, range,\n"
    "meaning) as the Markdown table of docs/CASE_FILE.md.\n";

/* ---------------------------------------------------------------- parsing */

static cli_parse_result cli_usage_error(FILE *err, const char *command, const char *fmt,
                                        const char *arg) {
  fprintf(err, "colordg%s%s: ", command ? " " : "", command ? command : "");
  fprintf(err, fmt, arg);
  fprintf(err, "\nRun 'colordg%s%s --help' for usage.\n", command ? " " : "",
          command ? command : "");
  return CLI_PARSE_USAGE;
}

/* Reads an integer option value in [lo, hi]; 1 on success. */
static int cli_int_value(const char *text, int lo, int hi, int *value) {
  char *end = NULL;
  const long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < lo || v > hi) return 0;
  *value = (int)v;
  return 1;
}

/* Matches "--name value" and "--name=value"; advances *i past a separate
 * value. Returns the value, NULL when arg is not this option, and sets
 * *missing when the value is absent. */
static const char *cli_option_value(int argc, char **argv, int *i, const char *name,
                                    const char *short_name, int *missing) {
  const char *arg = argv[*i];
  const size_t n = strlen(name);
  if (!strncmp(arg, name, n) && arg[n] == '=') return arg + n + 1;
  if (strcmp(arg, name) && !(short_name && !strcmp(arg, short_name))) return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

cli_parse_result cli_parse(int argc, char **argv, cli_options *options, FILE *out, FILE *err) {
  memset(options, 0, sizeof *options);
  options->p = -1;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      fputs(cli_usage_main, out);
      return CLI_PARSE_DONE;
    }
    if (!strcmp(argv[i], "--version")) {
      fprintf(out, "colordg %s (Gmsh import: %s, CUDA backend: %s, OpenMP: %s)\n", COLORDG_VERSION,
#ifdef COLORDG_HAVE_GMSH
              "yes",
#else
              "no",
#endif
#ifdef COLORDG_HAVE_CUDA
              "yes",
#else
              "no",
#endif
#ifdef COLORDG_HAVE_OPENMP
              "yes"
#else
              "no"
#endif
      );
      return CLI_PARSE_DONE;
    }
    if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
      options->verbose = 1;
      continue;
    }
    return cli_usage_error(err, NULL, "unknown option '%s'", argv[i]);
  }
  if (i >= argc) return cli_usage_error(err, NULL, "%s", "no command given");

  const char *command = argv[i++];
  const char *usage = NULL;
  if (!strcmp(command, "import")) {
    options->command = CLI_IMPORT, usage = cli_usage_import;
  } else if (!strcmp(command, "info")) {
    options->command = CLI_INFO, usage = cli_usage_info;
  } else if (!strcmp(command, "run")) {
    options->command = CLI_RUN, usage = cli_usage_run;
  } else if (!strcmp(command, "case-keys")) {
    options->command = CLI_CASE_KEYS, usage = cli_usage_case_keys;
  } else {
    return cli_usage_error(err, NULL,
                           "unknown command '%s' (commands: import, info, run, "
                           "case-keys)",
                           command);
  }

  int n_positional = 0;
  for (; i < argc; ++i) {
    const char *arg = argv[i];
    int missing = 0;
    const char *value = NULL;
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      fputs(usage, out);
      return CLI_PARSE_DONE;
    }
    if (!strcmp(arg, "-v") || !strcmp(arg, "--verbose")) {
      options->verbose = 1;
      continue;
    }
    if ((options->command == CLI_IMPORT || options->command == CLI_INFO) &&
        !strcmp(arg, "--allow-shell")) {
      options->allow_shell = 1;
      continue;
    }
    if (options->command == CLI_IMPORT) {
      if ((value = cli_option_value(argc, argv, &i, "--output", "-o", &missing))) {
        options->output = value;
        continue;
      }
      if (missing) return cli_usage_error(err, command, "%s needs a file name", arg);
      if ((value = cli_option_value(argc, argv, &i, "--order", NULL, &missing))) {
        if (!cli_int_value(value, 1, 3, &options->order))
          return cli_usage_error(err, command, "--order expects an integer 1..3, got '%s'", value);
        continue;
      }
      if (missing) return cli_usage_error(err, command, "%s needs a value (1..3)", arg);
    }
    if (options->command == CLI_INFO) {
      if (!strcmp(arg, "--csv")) {
        options->csv = 1;
        continue;
      }
      if ((value = cli_option_value(argc, argv, &i, "--p", NULL, &missing))) {
        if (!cli_int_value(value, 0, 3, &options->p))
          return cli_usage_error(err, command, "--p expects an integer 0..3, got '%s'", value);
        continue;
      }
      if (missing) return cli_usage_error(err, command, "%s needs a value (0..3)", arg);
      if ((value = cli_option_value(argc, argv, &i, "--partitions", NULL, &missing))) {
        if (!cli_int_value(value, 1, 1000000000, &options->partitions))
          return cli_usage_error(err, command, "--partitions expects a positive integer, got '%s'",
                                 value);
        continue;
      }
      if (missing) return cli_usage_error(err, command, "%s needs a value (a part count)", arg);
    }
    if (options->command == CLI_RUN) {
      if (!strcmp(arg, "--quiet")) {
        options->quiet = 1;
        continue;
      }
      if ((value = cli_option_value(argc, argv, &i, "--backend", NULL, &missing))) {
        if (strcmp(value, "cpu") && strcmp(value, "cuda") && strcmp(value, "auto"))
          return cli_usage_error(err, command, "--backend expects cpu, cuda or auto, got '%s'",
                                 value);
        options->backend = value;
        continue;
      }
      if ((value = cli_option_value(argc, argv, &i, "--max-iters", NULL, &missing))) {
        if (!cli_int_value(value, 1, 2000000000, &options->max_iters))
          return cli_usage_error(err, command, "--max-iters expects a positive integer, got '%s'",
                                 value);
        continue;
      }
      const char **file_option[] = {&options->restart, &options->mesh, &options->output_folder,
                                    &options->init};
      static const char *const file_option_name[] = {"--restart", "--mesh", "--output", "--init"};
      int matched = 0;
      for (int k = 0; k < 4 && !matched && !missing; ++k)
        if ((value = cli_option_value(argc, argv, &i, file_option_name[k], NULL, &missing))) {
          *file_option[k] = value;
          matched = 1;
        }
      if (matched) continue;
      if (missing) return cli_usage_error(err, command, "%s needs a value", arg);
    }
    if (arg[0] == '-' && arg[1] != '\0')
      return cli_usage_error(err, command, "unknown option '%s'", arg);
    if (options->command == CLI_CASE_KEYS || n_positional > 0)
      return cli_usage_error(err, command, "unexpected argument '%s'", arg);
    options->input = arg;
    ++n_positional;
  }
  if (options->command != CLI_CASE_KEYS && !options->input)
    return cli_usage_error(err, command, "%s",
                           options->command == CLI_RUN ? "no case file given"
                                                       : "no input file given");
  if (options->command == CLI_IMPORT && !options->output)
    return cli_usage_error(err, command, "%s", "no output file given (-o OUT.cdgm)");
  return CLI_PARSE_RUN;
}

/* ---------------------------------------------------------------- commands */

static double cli_seconds(void) {
  struct timespec ts;
  if (timespec_get(&ts, TIME_UTC) != TIME_UTC) return 0.0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cli_ends_with(const char *s, const char *suffix) {
  const size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

static void cli_print_counts(const dg_mesh *mesh, const dg_topology *topo, FILE *out) {
  static const char *const names[DG_NUM_SHAPES] = {"lines",      "triangles", "quadrilaterals",
                                                   "tetrahedra", "prisms",    "hexahedra"};
  fprintf(out, "  %dD, geometric order %d, %lld nodes, %lld elements (", mesh->dim,
          mesh->geom_order, (long long)mesh->n_nodes, (long long)mesh->n_elems);
  int first = 1;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int64_t n = mesh->shape_offset[s + 1] - mesh->shape_offset[s];
    if (n == 0) continue;
    fprintf(out, "%s%lld %s", first ? "" : ", ", (long long)n, names[s]);
    first = 0;
  }
  fprintf(out, ")\n  %lld faces: %lld interior (%lld periodic), %lld boundary in %d groups\n",
          (long long)topo->n_faces, (long long)topo->n_interior, (long long)topo->n_periodic_faces,
          (long long)(topo->n_faces - topo->n_interior), mesh->n_groups);
  for (int g = 0; g < mesh->n_groups; ++g)
    fprintf(out, "    %-20s %lld faces\n", mesh->groups[g].name,
            (long long)(topo->group_face_offset[g + 1] - topo->group_face_offset[g]));
}

dg_status cli_import(const char *input, const char *output, int order, int allow_shell, FILE *out) {
  dg_mesh mesh = {0};
  dg_topology topo = {0};
  dg_status status = DG_SUCCESS;
  const double start = cli_seconds();
  dg_mesh_read_options read = mesh_read_options_default();
  read.geo_order = order;
  read.allow_shell = allow_shell;
  DG_CALL_GOTO(status, done, mesh_read_with(input, &read, &mesh));
  DG_CALL_GOTO(status, done, geometry_check_jacobians(&mesh));
  const double read_done = cli_seconds();
  DG_CALL_GOTO(status, done, topology_build(&mesh, &topo));
  const double topo_done = cli_seconds();
  DG_CALL_GOTO(status, done, mesh_write_cdgm(&mesh, output));
  const double end = cli_seconds();
  geometry_quality quality;
  DG_CALL_GOTO(status, done, geometry_jacobian_quality(&mesh, GEOMETRY_QUALITY_WARN, &quality));
  fprintf(out, "imported %s\n", input);
  cli_print_counts(&mesh, &topo, out);
  if (mesh.geom_order > 1)
    fprintf(out, "  curved elements: smallest min/max det J %.3g (element %lld)\n", quality.worst,
            (long long)quality.worst_elem);
  geometry_quality_warn(&mesh, &quality, GEOMETRY_QUALITY_WARN, out);
  fprintf(out, "wrote %s in %.3f s (read %.3f s, faces %.3f s, write %.3f s)\n", output,
          end - start, read_done - start, topo_done - read_done, end - topo_done);
done:
  topology_free(&topo);
  mesh_free(&mesh);
  return status;
}

dg_status cli_info(const char *input, int p, int csv, int allow_shell, int partitions, FILE *out) {
  dg_case c = {0};
  dg_mesh mesh = {0};
  dg_topology topo = {0};
  dg_geometry geom = {0};
  info_table table = {0};
  dg_status status = DG_SUCCESS;
  const int is_case = cli_ends_with(input, ".ini");
  if (is_case) {
    DG_CALL_GOTO(status, done, case_read(input, &c));
    DG_CALL_GOTO(status, done, case_read_mesh(&c, NULL, allow_shell, &mesh));
    DG_CALL_GOTO(status, done, case_validate_against_mesh(&c, &mesh));
  } else {
    dg_mesh_read_options read = mesh_read_options_default();
    read.allow_shell = allow_shell;
    DG_CALL_GOTO(status, done, mesh_read_with(input, &read, &mesh));
  }
  DG_CALL_GOTO(status, done, topology_build(&mesh, &topo));
  /* Rules of degree 2q + 1 integrate the area/volume of order-q elements
   * exactly; the case's rule family (a mesh alone: the case default,
   * symmetric), so that the memory estimate counts the points its run will
   * have. */
  const int degree = 2 * mesh.geom_order + 1;
  const dg_quad_family family = is_case ? (dg_quad_family)c.quadrature : DG_QUAD_SYMMETRIC;
  DG_CALL_GOTO(status, done, geometry_build_family(&mesh, &topo, degree, degree, family, &geom));
  if (is_case) {
    DG_CALL_GOTO(status, done, info_table_add(&table, "case", "case", c.name, NULL));
    char order[16];
    snprintf(order, sizeof order, "%d", c.order);
    DG_CALL_GOTO(status, done, info_table_add(&table, "case_order", "case degree p", order, NULL));
    DG_CALL_GOTO(status, done,
                 info_table_add(&table, "case_quadrature", "case quadrature rules",
                                quadrature_family_name(family), NULL));
    if (!csv) {
      case_print(&c, out);
      fputc('\n', out);
    }
  }
  DG_CALL_GOTO(status, done,
               info_collect(&mesh, &topo, &geom, p,
                            is_case ? info_case_rules(&c) : INFO_RULES_DEFAULT, &table));
  if (partitions > 0)
    DG_CALL_GOTO(
        status, done,
        info_add_partitions(&table, &mesh, &topo,
                            p >= 0    ? p
                            : is_case ? c.order
                                      : 1,
                            family, partitions, csv, is_case ? c.coloring : DG_COLORING_BFS_WALL,
                            is_case ? c.coloring_reduce : 1, is_case ? c.coloring_turns : 1,
                            is_case ? run_seed_group(&c, &mesh) : "wall"));
  info_table_print(&table, csv, out);
done:
  info_table_free(&table);
  geometry_free(&geom);
  topology_free(&topo);
  mesh_free(&mesh);
  case_free(&c);
  return status;
}

dg_status cli_run(const cli_options *options, FILE *out) {
  dg_case c = {0};
  DG_CALL(case_read(options->input, &c));
  if (!options->quiet) {
    case_print(&c, out);
    fputc('\n', out);
  }
  const run_options run = {.backend = options->backend,
                           .restart = options->restart,
                           .init = options->init,
                           .mesh = options->mesh,
                           .output_folder = options->output_folder,
                           .max_iters = options->max_iters,
                           .quiet = options->quiet};
  const dg_status status = run_case(&c, &run, out, NULL);
  case_free(&c);
  DG_CALL(status);
  return DG_SUCCESS;
}

dg_status cli_execute(const cli_options *options, FILE *out) {
  switch (options->command) {
  case CLI_IMPORT:
    DG_CALL(cli_import(options->input, options->output, options->order, options->allow_shell, out));
    break;
  case CLI_INFO:
    DG_CALL(cli_info(options->input, options->p, options->csv, options->allow_shell,
                     options->partitions, out));
    break;
  case CLI_RUN: DG_CALL(cli_run(options, out)); break;
  case CLI_CASE_KEYS: case_schema_write_markdown(out); break;
  }
  return DG_SUCCESS;
}
