#pragma once
/* Case files: an INI file (parsed by libinih) that says which mesh to read,
 * the freestream, the discretisation, the solver settings, the boundary
 * conditions of every mesh physical group and what to write.
 *
 * Every key is described once, in a schema table (case_schema()); parsing,
 * defaults, range checks and the key table of docs/CASE_FILE.md all come
 * from that table (`colordg case-keys` prints it, a test compares it with the
 * docs). Errors are DG_ERR_CASE with the message
 *   "<file>:<line>: [section] key: what is wrong; what is expected".
 *
 * Nondimensionalisation (docs/CASE_FILE.md): freestream density ρ∞ = 1,
 * freestream speed of sound a∞ = 1, reference length = 1. Hence p∞ = 1/γ,
 * T = p/ρ (T∞ = 1/γ), |u∞| = M. Freestream direction:
 *   2D  u∞ = M (cos α, sin α)
 *   3D  u∞ = M (cos α cos β, sin β, sin α cos β)   (x downstream, y span, z up)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/dg_error.h"
#include "mesh/mesh.h"

#define DG_CASE_PATH_LEN 1024
#define DG_CASE_MAX_SECTIONS 32
#define DG_CASE_SECTIONS_TEXT 512

/* [output] vtu_cells: one high-order VTK Lagrange cell per element, or
 * linear sub-cells (src/app/vtu.h). */
typedef enum { DG_VTU_CELLS_LAGRANGE = 0, DG_VTU_CELLS_SUBCELLS = 1 } dg_vtu_cells;

/* [solver] rank_coupling: how the LU-SGS sweeps of a distributed run see
 * the other ranks' elements (src/lusgs/lusgs.h, lusgs_apply). */
typedef enum { DG_RANK_COUPLING_COLOUR = 0, DG_RANK_COUPLING_PASS = 1 } dg_rank_coupling;

/* [output] vtu_pieces: the volume output as one .vtu per rank listed by a
 * .pvtu (auto: when the run has several MPI ranks), or one solution.vtu. */
typedef enum { DG_VTU_PIECES_AUTO = 0, DG_VTU_PIECES_YES = 1, DG_VTU_PIECES_NO = 2 } dg_vtu_pieces;

/* Boundary condition types; the case file spells them as case_bc_type_name(). */
typedef enum {
  DG_BC_WALL = 0,           /* slip wall: reflect the normal velocity */
  DG_BC_SYMMETRY,           /* symmetry plane: same ghost state as a slip wall */
  DG_BC_FARFIELD,           /* characteristic far field (Riemann invariants, freestream) */
  DG_BC_INFLOW_SUBSONIC,    /* total pressure, total temperature and flow angle imposed */
  DG_BC_OUTFLOW_SUBSONIC,   /* static pressure imposed */
  DG_BC_SUPERSONIC_INFLOW,  /* the whole freestream state imposed */
  DG_BC_SUPERSONIC_OUTFLOW, /* everything extrapolated from inside */
  DG_BC_EXACT,              /* the exact solution of [verification] imposed */
  DG_BC_PERIODIC,           /* faces paired by periodicity (interior faces; optional to list) */
  DG_NUM_BC_TYPES
} dg_bc_type;

typedef enum {
  DG_SCHEME_EXPLICIT_RK3 = 0,
  DG_SCHEME_LUSGS,
  DG_SCHEME_NEWTON_KRYLOV,
  DG_NUM_SCHEMES
} dg_scheme;

typedef enum { DG_CFL_EXPONENTIAL = 0, DG_CFL_SER, DG_NUM_CFL_LAWS } dg_cfl_law;
/* [stop] residual_norm: the largest per-equation drop, or the whole residual's */
typedef enum { DG_RESIDUAL_EQUATIONS = 0, DG_RESIDUAL_TOTAL } dg_residual_norm;

typedef enum {
  DG_EXACT_FREESTREAM = 0,    /* the uniform freestream of [flow] */
  DG_EXACT_ISENTROPIC_VORTEX, /* isentropic vortex advected by the freestream (physics.h) */
  DG_NUM_EXACT_SOLUTIONS
} dg_exact_solution;

/* Variable the shock sensor reads ([artificial_viscosity] sensor). */
typedef enum { DG_AV_SENSOR_ENERGY = 0, DG_AV_SENSOR_DENSITY, DG_NUM_AV_SENSORS } dg_av_sensor;

/* Boundary condition of one mesh physical group. Data are nondimensional
 * (ρ∞ = a∞ = 1); keys a type does not use are rejected by case_read. */
typedef struct {
  char group[DG_GROUP_NAME_LEN]; /* mesh physical group name */
  dg_bc_type type;
  int line;                 /* line of `group = type` in the case file (for messages) */
  double total_pressure;    /* inflow_subsonic: p0 / (ρ∞ a∞²) */
  double total_temperature; /* inflow_subsonic: T0 = p0/ρ0 in units of a∞² */
  double flow_angle_deg;    /* inflow_subsonic: inflow direction, degrees, in the plane of alpha */
  double static_pressure;   /* outflow_subsonic: p / (ρ∞ a∞²) */
  int vortex_correction;    /* farfield (2D): freestream corrected by the lift's point vortex */
} dg_case_bc;

/* A parsed, validated case. Strings are NUL-terminated; mesh_file is
 * resolved against the case file's folder. bcs is owned (case_free). */
typedef struct dg_case {
  char path[DG_CASE_PATH_LEN]; /* the case file as given */
  char dir[DG_CASE_PATH_LEN];  /* its folder ("." when none) */
  char name[256];              /* case name: file stem, or the folder name for case.ini */

  /* [mesh] */
  char mesh_file[DG_CASE_PATH_LEN];
  int mesh_file_line; /* line of [mesh] file in the case file */
  int geo_order;
  int mesh_allow_shell;                                           /* a .geo may run programs */
  double mesh_max_seconds, mesh_max_elements, mesh_max_memory_mb; /* .geo meshing budgets */

  /* [flow] */
  double mach, alpha_deg, beta_deg, gamma;

  /* [reference] */
  double ref_length, ref_area;
  double moment_center[3];
  double semispan; /* wing semispan along y for [output] sections; 0 = not given */

  /* [discretization] */
  int order;
  int p_sequence;       /* steady runs: march at p_sequence_start, ..., order in turn */
  int p_sequence_start; /* p of the first stage (<= order) */
  int quadrature;       /* dg_quad_family (src/element/quadrature.h) */
  int affine_rule;      /* 0 mesh: every element the curved mesh's rule; 1 reduced: affine
                           elements the rule of degree 2p + 1 (dg_disc_opts.affine_degree) */
  int face_rule;        /* 0 mesh: faces of degree 2p + 1 + (dim - 1)(q - 1); 1 reduced:
                           2p + (dim - 1)(q - 1), at least 2p + 1 (geometry_face_degree) */
  int curved_rule;      /* 0 mesh: volume rule of degree 2p + 1 + dim (q - 1); 1 reduced:
                           2p + dim (q - 1), at least 2p + 1 (geometry_volume_degree) */

  /* [solver] */
  int scheme;          /* dg_scheme */
  int coloring;        /* dg_coloring_algorithm (src/coloring/coloring.h) */
  int coloring_reduce; /* coloring_reduce after the greedy colouring */
  int coloring_turns;  /* coloring_order_turns after coloring_reduce */
  double cfl, cfl_min, cfl_max;
  int cfl_ramp_iters;
  double p_sequence_cfl; /* p_sequence: cfl_min of the stages above p_sequence_start (0: cfl_min) */
  int sweeps;            /* lusgs: symmetric Gauss-Seidel sweeps per iteration */
  int jacobian_interval; /* lusgs: at cfl_max the blocks are rebuilt every this many iterations */
  int inverse_precision; /* 0 double, 1 single: the D_e⁻¹ the sweeps multiply by */
  int face_jacobian;     /* 0 central, 1 forward differences (lusgs) */
  int rank_coupling;     /* dg_rank_coupling: the sweeps' halo exchanges between MPI ranks */
  int partition_viscous; /* [solver] partition_viscous: weigh the viscous rows of the start state */
  double max_update;     /* lusgs: largest relative change of an element's mean ρ, p; 0 = none */
  int cfl_law;           /* dg_cfl_law */
  int local_time_step;
  /* newton_krylov (src/newton/newton.h) */
  int krylov_size, krylov_restarts;
  char newton_forcing_text[32]; /* [solver] newton_forcing as written: "ew" or a number */
  double newton_forcing;        /* parsed: > 0 fixed forcing term, 0 = Eisenstat-Walker */
  double newton_forcing_min;    /* Eisenstat-Walker floor, (0, 0.5] */
  int newton_jacobian;          /* NEWTON_JACOBIAN_ANALYTIC / _FD */
  double newton_max_growth, newton_cfl_cut;
  double newton_linear_stall; /* reject a try whose linear solve ends above this */
  int newton_max_cuts;

  /* [stop] */
  int max_iters;
  double residual_drop; /* orders of magnitude */
  int residual_norm;    /* dg_residual_norm: how the drop is measured */
  double max_wall_seconds;
  double end_time;          /* > 0: stop at this physical time (global time step only) */
  double p_sequence_drop;   /* p_sequence: orders a lower stage drops before it hands over */
  int p_sequence_max_iters; /* p_sequence: most iterations of a lower stage; 0 = no limit */

  /* [output] */
  char output_folder[DG_CASE_PATH_LEN];
  int monitor_every, checkpoint_every, vtu_every;
  double output_interval; /* > 0: a VTU of the series every this much physical time */
  int vtu_cells;          /* dg_vtu_cells */
  int vtu_subdivision;    /* Lagrange order or sub-cells per edge; 0 = max(p, q, 1) */
  int vtu_pieces;         /* dg_vtu_pieces */
  char sections_text[DG_CASE_SECTIONS_TEXT]; /* [output] sections as written */
  int n_sections;                            /* spanwise stations parsed from it */
  double sections[DG_CASE_MAX_SECTIONS];     /* eta = y / semispan of each station */

  /* [artificial_viscosity] */
  int av_enabled;
  int av_sensor; /* dg_av_sensor */
  double av_kappa, av_s0_offset, av_c_eps;
  int av_continuous;
  double br2_eta;        /* 0 = automatic: (faces of the element) + 1 */
  int av_wall_flux;      /* 0 ghost (default), 1 zero: no viscous flux through slip walls, symmetry
                            planes */
  double av_relax;       /* lusgs: relaxation of ε between iterations, (0, 1] */
  int av_relax_adapt;    /* newton_krylov: ω adapts to the residual (from av_relax up to 1) */
  double av_couple_drop; /* newton_krylov: orders of drop after which ε = ε(U) (0: held) */

  /* [verification] */
  int exact_solution; /* dg_exact_solution */
  double vortex_strength, vortex_center[2];
  int entropy_error; /* report the L2 entropy error at the end (errors.csv) */

  /* [boundary] and [bc.<group>] */
  int n_bcs;
  dg_case_bc *bcs; /* [n_bcs] in case-file order */
} dg_case;

/* ---- schema ---- */

typedef enum {
  DG_CASE_STRING = 0,
  DG_CASE_INT,
  DG_CASE_DOUBLE,
  DG_CASE_BOOL,
  DG_CASE_ENUM,
  DG_CASE_PATH /* a file name, resolved against the case file's folder */
} dg_case_type;

/* Where a key's value is stored. */
typedef enum {
  DG_CASE_SCOPE_CASE = 0, /* a field of dg_case */
  DG_CASE_SCOPE_BOUNDARY, /* [boundary] <group> = <bc type>: dg_case_bc.type */
  DG_CASE_SCOPE_BC        /* [bc.<group>] key: a field of that group's dg_case_bc */
} dg_case_scope;

enum { DG_CASE_HAS_MIN = 1, DG_CASE_HAS_MAX = 2, DG_CASE_MIN_OPEN = 4, DG_CASE_MAX_OPEN = 8 };

/* One key of the case file. */
typedef struct {
  const char *section;        /* "flow"; "bc.<group>" for boundary data */
  const char *key;            /* "mach"; "<group name>" for [boundary] */
  dg_case_type type;          /* how the value is read */
  int required;               /* 1 when the key has no default */
  const char *default_value;  /* text read like a user value; NULL when required or derived */
  const char *default_doc;    /* the default as the docs say it (derived defaults) */
  unsigned bounds;            /* DG_CASE_HAS_MIN | ... */
  double min, max;            /* range of int and double keys */
  const char *const *choices; /* enum spellings, NULL-terminated (index = stored int) */
  dg_case_scope scope;
  int bc_type;   /* DG_CASE_SCOPE_BC: the dg_bc_type that uses the key */
  size_t offset; /* into dg_case or dg_case_bc */
  size_t size;   /* bytes of a string/path field */
  const char *doc;
} dg_case_key;

/* The schema: every key the case file accepts, in documentation order. */
const dg_case_key *case_schema(int *n_keys);

/* Writes the schema as the Markdown table of docs/CASE_FILE.md (columns:
 * section, key, type, default, range, meaning). */
void case_schema_write_markdown(FILE *out);

/* ---- reading and checking ---- */

/* Reads and validates a case file. On success c owns its arrays (case_free);
 * on failure c is freed and the error (DG_ERR_CASE, DG_ERR_IO) names file,
 * line, section and key. */
dg_status case_read(const char *path, dg_case *c);

/* Releases the arrays and zeroes the case. Safe on a zeroed case. */
void case_free(dg_case *c);

/* Reads the case's mesh with its [mesh] options (geometric order, shell
 * opt-in, meshing budgets); allow_shell also lets a .geo run programs.
 * mesh_file overrides [mesh] file when not NULL. A [mesh] file that is
 * missing, not a regular file or of an unknown kind is a DG_ERR_CASE that
 * names the case file, the line and the key. */
dg_status case_read_mesh(const dg_case *c, const char *mesh_file, int allow_shell, dg_mesh *mesh);

/* Checks the case against its mesh (DG_ERR_CASE): every boundary group of
 * the mesh that has faces is mapped (periodic groups may be left out),
 * every mapped group exists in the mesh, periodic mappings are periodic,
 * 2D meshes have beta_deg = 0, br2_eta (when set) exceeds the element's
 * face count. Errors name the group and list the mesh's groups. */
dg_status case_validate_against_mesh(const dg_case *c, const dg_mesh *mesh);

/* Writes a human-readable summary (every section, resolved values). */
void case_print(const dg_case *c, FILE *out);

/* Case-file spelling of a bc type ("farfield"). */
const char *case_bc_type_name(dg_bc_type type);

/* The boundary condition of a group, or NULL. */
const dg_case_bc *case_find_bc(const dg_case *c, const char *group);

/* ---- freestream (nondimensional: ρ∞ = a∞ = 1) ---- */

/* Freestream velocity u∞ (3 components, |u∞| = M) for a dim-D mesh. */
void case_freestream_velocity(const dg_case *c, int dim, double u[3]);

/* Freestream static pressure 1/γ, and total pressure and total temperature
 * p0∞ = p∞ (1 + (γ-1)/2 M²)^(γ/(γ-1)), T0∞ = T∞ (1 + (γ-1)/2 M²), T∞ = 1/γ. */
double case_freestream_pressure(const dg_case *c);
double case_freestream_total_pressure(const dg_case *c);
double case_freestream_total_temperature(const dg_case *c);
