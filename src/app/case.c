#include "app/case.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dg/physics.h"
#include "element/quadrature.h"

/* ---------------------------------------------------------------- schema */

static const char *const case_bc_names[] = {"wall",
                                            "symmetry",
                                            "farfield",
                                            "inflow_subsonic",
                                            "outflow_subsonic",
                                            "supersonic_inflow",
                                            "supersonic_outflow",
                                            "exact",
                                            "periodic",
                                            NULL};
static const char *const case_scheme_names[] = {"explicit_rk3", "lusgs", "newton_krylov", NULL};
/* index = NEWTON_JACOBIAN_* (src/newton/newton.h) */
static const char *const case_jacobian_names[] = {"analytic", "fd", NULL};
/* index = dg_coloring_algorithm (src/coloring/coloring.h) */
static const char *const case_coloring_names[] = {"bfs_wall", "largest_first", NULL};
static const char *const case_cfl_law_names[] = {"exponential", "ser", NULL};
static const char *const case_residual_norm_names[] = {"equations", "total", NULL};
static const char *const case_av_wall_flux_names[] = {"ghost", "zero", NULL};
static const char *const case_exact_names[] = {"freestream", "isentropic_vortex", NULL};
/* index = dg_av_sensor */
static const char *const case_av_sensor_names[] = {"energy", "density", NULL};
static const char *const case_vtu_cells_names[] = {"lagrange", "subcells", NULL};
/* index = dg_rank_coupling */
static const char *const case_rank_coupling_names[] = {"colour", "pass", NULL};
/* index = dg_vtu_pieces */
static const char *const case_vtu_pieces_names[] = {"auto", "yes", "no", NULL};
/* index = dg_quad_family (src/element/quadrature.h) */
static const char *const case_quadrature_names[] = {"collapsed", "symmetric", NULL};
static const char *const case_affine_rule_names[] = {"mesh", "reduced", NULL};
static const char *const case_face_rule_names[] = {"mesh", "reduced", NULL};
static const char *const case_curved_rule_names[] = {"mesh", "reduced", NULL};
static const char *const case_inverse_precision_names[] = {"double", "single", NULL};
static const char *const case_face_jacobian_names[] = {"central", "forward", NULL};

#define CASE_FIELD(f)                                                                              \
  .scope = DG_CASE_SCOPE_CASE, .offset = offsetof(dg_case, f), .size = sizeof(((dg_case *)0)->f)
#define BC_FIELD(f)                                                                                \
  .scope = DG_CASE_SCOPE_BC, .offset = offsetof(dg_case_bc, f), .size = sizeof(((dg_case_bc *)0)->f)
#define ABOVE(a) .bounds = DG_CASE_HAS_MIN | DG_CASE_MIN_OPEN, .min = (a)
#define AT_LEAST(a) .bounds = DG_CASE_HAS_MIN, .min = (a)
#define BETWEEN(a, b) .bounds = DG_CASE_HAS_MIN | DG_CASE_HAS_MAX, .min = (a), .max = (b)

static const dg_case_key case_keys[] = {
    {.section = "mesh",
     .key = "file",
     .type = DG_CASE_PATH,
     .required = 1,
     CASE_FIELD(mesh_file),
     .doc = "Mesh file: .cdgm (native), or .msh / .geo (read through Gmsh). A relative name is "
            "relative to the folder of the case file."},
    {.section = "mesh",
     .key = "geo_order",
     .type = DG_CASE_INT,
     .default_value = "0",
     BETWEEN(0, 3),
     CASE_FIELD(geo_order),
     .doc = "Geometric (Lagrange) order used when meshing a .geo file; 0 keeps the order the "
            ".geo asks for. Ignored for .msh and .cdgm."},
    {.section = "mesh",
     .key = "allow_shell",
     .type = DG_CASE_BOOL,
     .default_value = "false",
     CASE_FIELD(mesh_allow_shell),
     .doc = "Let a .geo file run programs (SystemCall, System, NonBlockingSystemCall, "
            "OnelabRun). Off: such a .geo is refused before Gmsh runs it."},
    {.section = "mesh",
     .key = "max_seconds",
     .type = DG_CASE_DOUBLE,
     .default_value = "600",
     AT_LEAST(0),
     CASE_FIELD(mesh_max_seconds),
     .doc = "Wall-clock budget for meshing a .geo, in seconds; the meshing process is stopped "
            "when it runs longer. 0 = no limit."},
    {.section = "mesh",
     .key = "max_elements",
     .type = DG_CASE_DOUBLE,
     .default_value = "5e7",
     AT_LEAST(0),
     CASE_FIELD(mesh_max_elements),
     .doc = "Most elements meshing a .geo may make; estimated from the boundary mesh before "
            "the domain is meshed, and checked after. 0 = no limit."},
    {.section = "mesh",
     .key = "max_memory_mb",
     .type = DG_CASE_DOUBLE,
     .default_value = "0",
     AT_LEAST(0),
     CASE_FIELD(mesh_max_memory_mb),
     .doc = "Memory budget (MiB of address space) of the process that meshes a .geo; 0 = 3/4 of "
            "the machine's memory."},

    {.section = "flow",
     .key = "mach",
     .type = DG_CASE_DOUBLE,
     .required = 1,
     ABOVE(0),
     CASE_FIELD(mach),
     .doc = "Freestream Mach number M = |u_inf| / a_inf."},
    {.section = "flow",
     .key = "alpha_deg",
     .type = DG_CASE_DOUBLE,
     .default_value = "0",
     BETWEEN(-180, 180),
     CASE_FIELD(alpha_deg),
     .doc = "Angle of attack in degrees: rotation of u_inf from +x towards +y (2D) or towards +z "
            "(3D)."},
    {.section = "flow",
     .key = "beta_deg",
     .type = DG_CASE_DOUBLE,
     .default_value = "0",
     BETWEEN(-90, 90),
     CASE_FIELD(beta_deg),
     .doc = "Sideslip angle in degrees (3D only, towards +y); must be 0 on a 2D mesh."},
    {.section = "flow",
     .key = "gamma",
     .type = DG_CASE_DOUBLE,
     .default_value = "1.4",
     ABOVE(1),
     CASE_FIELD(gamma),
     .doc = "Ratio of specific heats."},

    {.section = "reference",
     .key = "length",
     .type = DG_CASE_DOUBLE,
     .default_value = "1",
     ABOVE(0),
     CASE_FIELD(ref_length),
     .doc = "Reference length (chord) for moment coefficients, in mesh units."},
    {.section = "reference",
     .key = "area",
     .type = DG_CASE_DOUBLE,
     .default_value = "1",
     ABOVE(0),
     CASE_FIELD(ref_area),
     .doc = "Reference area for force coefficients (2D: length times unit span), in mesh units."},
    {.section = "reference",
     .key = "semispan",
     .type = DG_CASE_DOUBLE,
     .default_value = "0",
     AT_LEAST(0),
     CASE_FIELD(semispan),
     .doc = "3D: wing semispan along y (root at y = 0) for [output] sections, in mesh units; 0 = "
            "not given."},
    {.section = "reference",
     .key = "moment_x",
     .type = DG_CASE_DOUBLE,
     .default_value = "0.25",
     CASE_FIELD(moment_center[0]),
     .doc = "x of the moment reference point, in mesh units."},
    {.section = "reference",
     .key = "moment_y",
     .type = DG_CASE_DOUBLE,
     .default_value = "0",
     CASE_FIELD(moment_center[1]),
     .doc = "y of the moment reference point, in mesh units."},
    {.section = "reference",
     .key = "moment_z",
     .type = DG_CASE_DOUBLE,
     .default_value = "0",
     CASE_FIELD(moment_center[2]),
     .doc = "z of the moment reference point (3D), in mesh units."},

    {.section = "discretization",
     .key = "order",
     .type = DG_CASE_INT,
     .required = 1,
     BETWEEN(0, 3),
     CASE_FIELD(order),
     .doc = "Polynomial degree p of the DG solution (0 = first-order finite volume); "
            "design order of accuracy p + 1."},
    {.section = "discretization",
     .key = "p_sequence",
     .type = DG_CASE_BOOL,
     .default_value = "false",
     CASE_FIELD(p_sequence),
     .doc = "Steady runs: march at p = p_sequence_start first, then raise p one step at a time "
            "up to order, each stage starting from the previous stage's solution prolonged "
            "(exactly, as --init does); a stage hands over at [stop] p_sequence_drop or "
            "p_sequence_max_iters. Not for time-accurate or verification runs."},
    {.section = "discretization",
     .key = "p_sequence_start",
     .type = DG_CASE_INT,
     .default_value = "1",
     BETWEEN(0, 3),
     CASE_FIELD(p_sequence_start),
     .doc = "p_sequence: polynomial degree of the first stage; must be <= order."},
    {.section = "discretization",
     .key = "quadrature",
     .type = DG_CASE_ENUM,
     .default_value = "symmetric",
     .choices = case_quadrature_names,
     CASE_FIELD(quadrature),
     .doc = "Volume and face rules on triangles and tetrahedra: symmetric (fully symmetric "
            "rules, 1.3-2.7x fewer points than collapsed; the residual on curved tetrahedra "
            "1.7-2x faster, CL and CD the same to 4-6 digits on NACA0012 and ONERA M6; collapsed "
            "where no symmetric rule of the degree is tabulated or it has more points) or "
            "collapsed (Gauss-Jacobi products, the default before 2026-11-26). Quads and lines "
            "use tensor Gauss either way (docs/NUMERICS-basis.md)."},
    {.section = "discretization",
     .key = "affine_rule",
     .type = DG_CASE_ENUM,
     .default_value = "reduced",
     .choices = case_affine_rule_names,
     CASE_FIELD(affine_rule),
     .doc = "Volume rule of the affine elements (straight-sided triangles and tetrahedra, "
            "`colordg info` counts them) of a curved mesh: mesh (the curved elements' rule, "
            "degree 2p + 1 + dim (q - 1), on every element) or reduced (degree 2p + 1 on "
            "affine elements, whose map has a constant Jacobian: 7 instead of 15 points on "
            "triangles at p = 2 with q = 2, 14 instead of 46 on tetrahedra; the curved elements "
            "keep theirs). The GPU's tuned residual, artificial-viscosity and LU-SGS kernels "
            "take each element's rule (docs/NUMERICS-basis.md)."},
    {.section = "discretization",
     .key = "face_rule",
     .type = DG_CASE_ENUM,
     .default_value = "reduced",
     .choices = case_face_rule_names,
     CASE_FIELD(face_rule),
     .doc = "Face rule of a curved mesh (geometric order q): mesh (degree 2p + 1 + (dim - 1) "
            "(q - 1), the default before 2026-11-29) or reduced (degree 2p + (dim - 1)(q - 1), "
            "at least 2p + 1: exact for a flux linear in the state times the curved face's "
            "scaled normal; p + 1 Gauss points per edge on P2 triangles instead of p + 2, 12 "
            "instead of 15 symmetric points per face on P2 tetrahedra at p = 2). Straight-sided "
            "meshes take 2p + 1 either way (docs/NUMERICS-basis.md)."},
    {.section = "discretization",
     .key = "curved_rule",
     .type = DG_CASE_ENUM,
     .default_value = "reduced",
     .choices = case_curved_rule_names,
     CASE_FIELD(curved_rule),
     .doc = "Volume rule of a curved mesh (geometric order q; the curved elements, and every "
            "element with affine_rule = mesh): mesh (degree 2p + 1 + dim (q - 1), the default "
            "before 2026-11-29) or reduced (degree 2p + dim (q - 1), at least 2p + 1: the mass "
            "matrix exact, the flux term with the affine rule's margin; on P2 tetrahedra 14 / "
            "35 / 59 instead of 24 / 46 / 81 symmetric points at p = 1 / 2 / 3, on P2 "
            "triangles 6 / 12 / 16 instead of 7 / 15 / 19). Meshes with quadrilaterals keep "
            "the mesh rule (docs/NUMERICS-basis.md)."},

    {.section = "solver",
     .key = "scheme",
     .type = DG_CASE_ENUM,
     .default_value = "lusgs",
     .choices = case_scheme_names,
     CASE_FIELD(scheme),
     .doc = "Time marching: explicit_rk3 (SSP-RK3), lusgs (implicit backward Euler with "
            "coloured LU-SGS sweeps) or newton_krylov (pseudo-transient Newton with FGMRES "
            "preconditioned by the LU-SGS sweeps; docs/NEWTON_KRYLOV.md)."},
    {.section = "solver",
     .key = "coloring",
     .type = DG_CASE_ENUM,
     .default_value = "bfs_wall",
     .choices = case_coloring_names,
     CASE_FIELD(coloring),
     .doc = "Element colouring (docs/COLORING.md) that orders elements colour-major: bfs_wall "
            "(breadth-first from the lowest-numbered wall element, smallest free colour) or "
            "largest_first (greedy by decreasing number of face neighbours)."},
    {.section = "solver",
     .key = "coloring_reduce",
     .type = DG_CASE_BOOL,
     .default_value = "true",
     CASE_FIELD(coloring_reduce),
     .doc = "true: after the greedy colouring, empty its last colour (a handful of elements on "
            "unstructured meshes) by Kempe-chain interchanges while it holds at most 1 % of the "
            "elements (at least 64): one sweep launch and one halo exchange less per colour "
            "removed (docs/COLORING.md). false: the greedy colouring as it is, the element "
            "numbering of restart files written before this key existed (2026-11-27)."},
    {.section = "solver",
     .key = "coloring_turns",
     .type = DG_CASE_BOOL,
     .default_value = "true",
     CASE_FIELD(coloring_turns),
     .doc = "true: relabel the colours so the largest is the first and the next largest the "
            "last, where the symmetric sweeps turn: each pass after the first leaves out one "
            "update of each (it would repeat the update just made), 19 % fewer element updates "
            "per pass on the ONERA M6 wing (docs/COLORING.md). Changes the Gauss-Seidel order "
            "and the element numbering; a restart file written without it (before 2026-11-28) "
            "keeps its own numbering. false: the colours as the algorithm numbers them."},
    {.section = "solver",
     .key = "cfl",
     .type = DG_CASE_DOUBLE,
     .default_value = "0.5",
     ABOVE(0),
     CASE_FIELD(cfl),
     .doc = "CFL number of explicit_rk3 in dt = CFL |cell| / ((2p+1) sum_f (|u.n|+c)|f|)."},
    {.section = "solver",
     .key = "cfl_min",
     .type = DG_CASE_DOUBLE,
     .default_value = "1",
     ABOVE(0),
     CASE_FIELD(cfl_min),
     .doc = "lusgs, newton_krylov: CFL number of the first iteration."},
    {.section = "solver",
     .key = "cfl_max",
     .type = DG_CASE_DOUBLE,
     .default_value = "1000",
     ABOVE(0),
     CASE_FIELD(cfl_max),
     .default_doc = "1000 (newton_krylov: 1e8)",
     .doc = "lusgs, newton_krylov: largest CFL number; must be >= cfl_min. newton_krylov "
            "defaults to 1e8 (Newton's method in the limit: the CFL grows with the residual drop "
            "until the mass term no longer matters)."},
    {.section = "solver",
     .key = "cfl_ramp_iters",
     .type = DG_CASE_INT,
     .default_value = "100",
     AT_LEAST(1),
     CASE_FIELD(cfl_ramp_iters),
     .doc = "lusgs, newton_krylov, exponential law: iterations n_s of CFL_n = cfl_min "
            "(cfl_max/cfl_min)^(n/n_s), capped at cfl_max. newton_krylov defaults to 20."},
    {.section = "solver",
     .key = "p_sequence_cfl",
     .type = DG_CASE_DOUBLE,
     .default_value = "0",
     AT_LEAST(0),
     CASE_FIELD(p_sequence_cfl),
     .default_doc = "cfl_min",
     .doc = "lusgs, newton_krylov with p_sequence: the CFL at which each stage above "
            "p_sequence_start starts (its cfl_min; also the first stage of a run that --init "
            "starts above it), in [cfl_min, cfl_max]; the exponential ramp keeps its rate, "
            "cfl_ramp_iters log(cfl_max/p_sequence_cfl) / log(cfl_max/cfl_min) iterations to "
            "cfl_max. A stage starts from the lower p's state, not from the free stream: ONERA "
            "M6 level 1, p = 1 -> 2, 100 takes 533 iterations where cfl_min = 1 takes 597 "
            "(docs/LUSGS.md). 0: cfl_min."},
    {.section = "solver",
     .key = "cfl_law",
     .type = DG_CASE_ENUM,
     .default_value = "exponential",
     .choices = case_cfl_law_names,
     CASE_FIELD(cfl_law),
     .doc = "lusgs, newton_krylov CFL control: exponential ramp, or ser (switched evolution "
            "relaxation: CFL_n = cfl_min |R_0| / |R_n|, clipped to [cfl_min, cfl_max])."},
    {.section = "solver",
     .key = "sweeps",
     .type = DG_CASE_INT,
     .default_value = "16",
     .default_doc = "16 (newton_krylov: 8)",
     BETWEEN(1, 1000),
     CASE_FIELD(sweeps),
     .doc = "lusgs: symmetric block Gauss-Seidel sweeps (forward + backward over the colours) "
            "per iteration; 1 = classic LU-SGS. 16-24 converge fastest on the NACA0012 meshes "
            "(docs/LUSGS.md). newton_krylov: the sweeps of one preconditioner application; "
            "defaults to 8 (faster than 16 on the NACA 0012 cases and ONERA M6 level 1, and "
            "converges the transonic case from the free stream, where 16 diverges; "
            "docs/NEWTON_KRYLOV.md)."},
    {.section = "solver",
     .key = "jacobian_interval",
     .type = DG_CASE_INT,
     .default_value = "1",
     BETWEEN(1, 1000),
     CASE_FIELD(jacobian_interval),
     .doc = "lusgs: once the CFL is at cfl_max, the implicit blocks (face Jacobians, diagonal "
            "blocks with the artificial viscosity's, their factorisation) are rebuilt at every "
            "jacobian_interval-th iteration of a stage and kept in between (also rebuilt after "
            "each checkpoint, as a restart from it does, so restarts stay bit for bit). The "
            "residual is new at every iteration, so the converged state is the same. 1: rebuilt "
            "every iteration. ONERA M6 level 1, p = 2: the same iterations with 2, 47.5 instead "
            "of 59.8 ms each (docs/LUSGS.md)."},
    {.section = "solver",
     .key = "inverse_precision",
     .type = DG_CASE_ENUM,
     .default_value = "double",
     .choices = case_inverse_precision_names,
     CASE_FIELD(inverse_precision),
     .doc = "lusgs, newton_krylov: precision of the block inverses D_e^-1 the sweeps multiply "
            "by: double, or single (rounded to float after the double assembly and inversion; "
            "the sweeps read half the bytes, the sums and everything else stay double, and the "
            "residual that decides convergence is double; docs/LUSGS.md). On the GPU, single "
            "needs a stored inverse (the default factorisation)."},
    {.section = "solver",
     .key = "face_jacobian",
     .type = DG_CASE_ENUM,
     .default_value = "central",
     .choices = case_face_jacobian_names,
     CASE_FIELD(face_jacobian),
     .doc = "lusgs: the finite differences of the face flux Jacobians in the blocks: central "
            "(two numerical fluxes per column, step 1e-6 relative) or forward (one flux per "
            "column from the flux of the traces, step 1.5e-8 relative: 9 fluxes per face point "
            "instead of 16 in 2D, 11 instead of 20 in 3D; the Jacobians differ by 2e-8 to 5e-8 "
            "relative, and the residual, hence the converged state, not at all; docs/LUSGS.md). "
            "newton_krylov keeps central: its "
            "Jacobian products read these Jacobians."},
    {.section = "solver",
     .key = "rank_coupling",
     .type = DG_CASE_ENUM,
     .default_value = "colour",
     .choices = case_rank_coupling_names,
     CASE_FIELD(rank_coupling),
     .doc = "Distributed runs (MPI), lusgs and newton_krylov: colour = the sweeps exchange the "
            "partition boundary's dU after every colour, so they are those of one process (same "
            "iterations on any number of ranks, about 2 x sweeps x (colours - 1) messages per "
            "iteration: a colour is not updated twice in a row at the turns of the sweeps); "
            "pass = only after each forward or backward pass (2 x sweeps messages), the "
            "neighbour ranks' dU lagging by one pass (block Jacobi between ranks, Gauss-Seidel "
            "inside). One process: no difference."},
    {.section = "solver",
     .key = "partition_viscous",
     .type = DG_CASE_BOOL,
     .default_value = "true",
     CASE_FIELD(partition_viscous),
     .doc = "Distributed runs (MPI) with artificial viscosity that start from a state holding "
            "the LU-SGS viscosity (--restart, --init), and at every p-sequencing hand-over of "
            "such a run (the mesh is partitioned again with the state reached): the partition "
            "spreads the viscous rows (elements whose element or a face neighbour holds "
            "viscosity) evenly over the ranks besides the cost (METIS multi-constraint), since "
            "only they carry the viscous assembly. With colour coupling the result is that of "
            "one process either way. One process, or a state without a held viscosity: no "
            "difference."},
    {.section = "solver",
     .key = "krylov_size",
     .type = DG_CASE_INT,
     .default_value = "30",
     BETWEEN(1, 200),
     CASE_FIELD(krylov_size),
     .doc = "newton_krylov: FGMRES Krylov vectors per cycle (m); 2m + 2 state vectors on the "
            "backend."},
    {.section = "solver",
     .key = "krylov_restarts",
     .type = DG_CASE_INT,
     .default_value = "1",
     BETWEEN(0, 1000),
     CASE_FIELD(krylov_restarts),
     .doc = "newton_krylov: FGMRES restarts after the first cycle (at most (1 + restarts) m "
            "linear iterations per Newton step)."},
    {.section = "solver",
     .key = "newton_forcing",
     .type = DG_CASE_STRING,
     .default_value = "ew",
     CASE_FIELD(newton_forcing_text),
     .doc = "newton_krylov: relative linear tolerance eta of each Newton step: a number in (0, "
            "1), or ew (Eisenstat-Walker choice 2 with safeguards, eta in [newton_forcing_min, "
            "0.5])."},
    {.section = "solver",
     .key = "newton_forcing_min",
     .type = DG_CASE_DOUBLE,
     .default_value = "1e-4",
     .bounds = DG_CASE_HAS_MIN | DG_CASE_MIN_OPEN | DG_CASE_HAS_MAX,
     .min = 0,
     .max = 0.5,
     CASE_FIELD(newton_forcing_min),
     .doc = "newton_krylov, newton_forcing = ew: the smallest forcing term Eisenstat-Walker may "
            "choose. 0.05 saved 5-15 % on the NACA 0012 and NLR 7301 cases and cost 4-15 % on "
            "ONERA M6 (docs/NEWTON_KRYLOV.md)."},
    {.section = "solver",
     .key = "newton_jacobian",
     .type = DG_CASE_ENUM,
     .default_value = "analytic",
     .choices = case_jacobian_names,
     CASE_FIELD(newton_jacobian),
     .doc = "newton_krylov: Jacobian-vector products from the assembled LU-SGS blocks and face "
            "Jacobians (analytic) or by finite differences of the residual (fd, one residual per "
            "product, h = 1e-7 (1 + |U|) / |x|)."},
    {.section = "solver",
     .key = "newton_max_growth",
     .type = DG_CASE_DOUBLE,
     .default_value = "10",
     ABOVE(1),
     CASE_FIELD(newton_max_growth),
     .doc = "newton_krylov: a step whose new residual norm exceeds this factor times the old "
            "one is rejected (and redone from the old state at a smaller CFL)."},
    {.section = "solver",
     .key = "newton_linear_stall",
     .type = DG_CASE_DOUBLE,
     .default_value = "0.9",
     .bounds = DG_CASE_HAS_MIN | DG_CASE_MIN_OPEN | DG_CASE_HAS_MAX,
     .min = 0,
     .max = 1,
     CASE_FIELD(newton_linear_stall),
     .doc = "newton_krylov: a step whose FGMRES solve ends above this relative linear residual "
            "is rejected (and redone at a smaller CFL): the preconditioned Krylov space made no "
            "headway, so the update would barely move the state (docs/NEWTON_KRYLOV.md)."},
    {.section = "solver",
     .key = "newton_cfl_cut",
     .type = DG_CASE_DOUBLE,
     .default_value = "0.25",
     .bounds = DG_CASE_HAS_MIN | DG_CASE_HAS_MAX | DG_CASE_MIN_OPEN | DG_CASE_MAX_OPEN,
     .min = 0,
     .max = 1,
     CASE_FIELD(newton_cfl_cut),
     .doc = "newton_krylov: CFL factor after a rejected step (recovered by 2 per accepted "
            "step)."},
    {.section = "solver",
     .key = "newton_max_cuts",
     .type = DG_CASE_INT,
     .default_value = "10",
     BETWEEN(0, 100),
     CASE_FIELD(newton_max_cuts),
     .doc = "newton_krylov: rejected tries of one step before the run stops as diverged (the "
            "state stays at the last accepted step)."},
    {.section = "solver",
     .key = "max_update",
     .type = DG_CASE_DOUBLE,
     .default_value = "0.2",
     AT_LEAST(0),
     CASE_FIELD(max_update),
     .doc = "lusgs: largest relative change of an element's mean density and pressure in one "
            "iteration; a larger update of the element is scaled down to it (0 = no limit). Keeps "
            "shock transients at CFL 100-1000 physical; converged solutions do not depend on it."},
    {.section = "solver",
     .key = "local_time_step",
     .type = DG_CASE_BOOL,
     .default_value = "true",
     CASE_FIELD(local_time_step),
     .doc = "true: each element marches with its own dt (steady runs); false: one global dt "
            "(time-accurate explicit runs)."},

    {.section = "stop",
     .key = "max_iters",
     .type = DG_CASE_INT,
     .default_value = "10000",
     AT_LEAST(1),
     CASE_FIELD(max_iters),
     .doc = "Stop after this many iterations."},
    {.section = "stop",
     .key = "residual_drop",
     .type = DG_CASE_DOUBLE,
     .default_value = "10",
     ABOVE(0),
     CASE_FIELD(residual_drop),
     .doc = "Stop when the residual L2 norm has dropped by this many orders of magnitude below "
            "its first-iteration value (with p_sequence: below the free-stream residual at "
            "order)."},
    {.section = "stop",
     .key = "residual_norm",
     .type = DG_CASE_ENUM,
     .default_value = "equations",
     .choices = case_residual_norm_names,
     CASE_FIELD(residual_norm),
     .doc = "How residual_drop and p_sequence_drop are measured: equations (every equation's "
            "L2 norm against its own first value, the worst counts) or total (the L2 norm of "
            "all equations together against its first value; an equation whose first residual "
            "is much smaller than the others', as the spanwise momentum of a wing, reaches its "
            "round-off floor before 10 orders)."},
    {.section = "stop",
     .key = "max_wall_seconds",
     .type = DG_CASE_DOUBLE,
     .default_value = "0",
     AT_LEAST(0),
     CASE_FIELD(max_wall_seconds),
     .doc = "Stop (after writing a checkpoint) when the run has taken this many seconds; 0 = no "
            "limit."},
    {.section = "stop",
     .key = "end_time",
     .type = DG_CASE_DOUBLE,
     .default_value = "0",
     AT_LEAST(0),
     CASE_FIELD(end_time),
     .doc = "Unsteady runs (explicit scheme, global time step): stop when the physical time "
            "reaches this value; the last step is shortened to end exactly there. 0 = no end "
            "time."},
    {.section = "stop",
     .key = "p_sequence_drop",
     .type = DG_CASE_DOUBLE,
     .default_value = "4",
     ABOVE(0),
     CASE_FIELD(p_sequence_drop),
     .doc = "p_sequence: a stage below order hands over to the next p when its residual has "
            "dropped this many orders below the free-stream residual at its p (measured as "
            "residual_norm says)."},
    {.section = "stop",
     .key = "p_sequence_max_iters",
     .type = DG_CASE_INT,
     .default_value = "0",
     AT_LEAST(0),
     CASE_FIELD(p_sequence_max_iters),
     .doc = "p_sequence: a stage below order hands over after this many iterations at most; "
            "0 = no limit per stage (max_iters counts the iterations of all stages)."},

    {.section = "output",
     .key = "folder",
     .type = DG_CASE_STRING,
     .default_doc = "out/<case name>",
     CASE_FIELD(output_folder),
     .doc = "Folder for history.csv, checkpoints and VTU files, relative to the working "
            "directory. Case name: the case file's name without extension, or its folder's "
            "name when the file is called case.ini."},
    {.section = "output",
     .key = "monitor_every",
     .type = DG_CASE_INT,
     .default_value = "10",
     AT_LEAST(1),
     CASE_FIELD(monitor_every),
     .doc = "Print a monitor line (and a history.csv row) every this many iterations."},
    {.section = "output",
     .key = "checkpoint_every",
     .type = DG_CASE_INT,
     .default_value = "1000",
     AT_LEAST(0),
     CASE_FIELD(checkpoint_every),
     .doc = "Write a restart checkpoint every this many iterations; 0 = only at the end."},
    {.section = "output",
     .key = "vtu_every",
     .type = DG_CASE_INT,
     .default_value = "0",
     AT_LEAST(0),
     CASE_FIELD(vtu_every),
     .doc = "Write a VTU solution file every this many iterations; 0 = only at the end."},
    {.section = "output",
     .key = "output_interval",
     .type = DG_CASE_DOUBLE,
     .default_value = "0",
     AT_LEAST(0),
     CASE_FIELD(output_interval),
     .doc = "Unsteady runs (explicit scheme, global time step): write a VTU solution file of "
            "the series every this much physical time (steps are shortened to land on the "
            "output times); solution.pvd then holds t = 0, every output time and the final "
            "state. 0 = off."},
    {.section = "output",
     .key = "vtu_cells",
     .type = DG_CASE_ENUM,
     .default_value = "lagrange",
     .choices = case_vtu_cells_names,
     CASE_FIELD(vtu_cells),
     .doc = "VTU cells: lagrange (one high-order VTK Lagrange cell per element, curved, order "
            "vtu_subdivision) or subcells (each element cut into linear cells, vtu_subdivision "
            "per edge)."},
    {.section = "output",
     .key = "vtu_subdivision",
     .type = DG_CASE_INT,
     .default_value = "0",
     BETWEEN(0, 16),
     CASE_FIELD(vtu_subdivision),
     .doc = "Lagrange cell order (vtu_cells = lagrange) or sub-cells per element edge (subcells); "
            "0 = max(p, geometric order, 1)."},
    {.section = "output",
     .key = "vtu_pieces",
     .type = DG_CASE_ENUM,
     .default_value = "auto",
     .choices = case_vtu_pieces_names,
     CASE_FIELD(vtu_pieces),
     .doc = "Volume output of the final state and the series: yes = each MPI rank writes its "
            "own elements to solution/rank_<r>.vtu, in parallel, and solution.pvtu lists them "
            "(open that in ParaView); no = one solution.vtu gathered on rank 0; auto = yes when "
            "the run has several ranks."},
    {.section = "output",
     .key = "sections",
     .type = DG_CASE_STRING,
     .default_doc = "none",
     CASE_FIELD(sections_text),
     .doc = "3D: spanwise stations eta = y / semispan, comma-separated (each in (0, 1]), where "
            "the wall is cut for section_eta<eta>.csv (needs [reference] semispan)."},

    {.section = "artificial_viscosity",
     .key = "enabled",
     .type = DG_CASE_BOOL,
     .default_value = "false",
     CASE_FIELD(av_enabled),
     .doc = "Add Persson-Peraire artificial viscosity div(eps grad U) for shocks (p >= 1)."},
    {.section = "artificial_viscosity",
     .key = "sensor",
     .type = DG_CASE_ENUM,
     .default_value = "energy",
     .choices = case_av_sensor_names,
     CASE_FIELD(av_sensor),
     .doc = "Variable whose modal energy the Persson-Peraire sensor reads: energy (rho E) or "
            "density (rho)."},
    {.section = "artificial_viscosity",
     .key = "kappa",
     .type = DG_CASE_DOUBLE,
     .default_value = "1",
     ABOVE(0),
     CASE_FIELD(av_kappa),
     .doc = "Half-width kappa of the sensor ramp: eps = 0 below s0 - kappa, eps0 above "
            "s0 + kappa."},
    {.section = "artificial_viscosity",
     .key = "s0_offset",
     .type = DG_CASE_DOUBLE,
     .default_value = "-1.5",
     CASE_FIELD(av_s0_offset),
     .doc = "Shift of the sensor threshold: s0 = -4 log10(p) + s0_offset (default -1.5: with 0 "
            "the energy sensor stays below s0 - kappa at the NACA0012 M 0.8 shock at p = 2; with "
            "-1 it leaves the weak lower shock nearly unviscous at p = 3, docs/VALIDATION.md)."},
    {.section = "artificial_viscosity",
     .key = "c_eps",
     .type = DG_CASE_DOUBLE,
     .default_value = "1",
     ABOVE(0),
     CASE_FIELD(av_c_eps),
     .doc = "Constant C of the viscosity scale eps0 = C lambda_max h / p."},
    {.section = "artificial_viscosity",
     .key = "continuous",
     .type = DG_CASE_BOOL,
     .default_value = "false",
     CASE_FIELD(av_continuous),
     .doc = "false: eps constant per element; true: eps averaged to the vertices and "
            "interpolated linearly (smoother)."},
    {.section = "artificial_viscosity",
     .key = "br2_eta",
     .type = DG_CASE_DOUBLE,
     .default_value = "0",
     AT_LEAST(0),
     CASE_FIELD(br2_eta),
     .doc = "BR2 penalty eta_f; must exceed the number of faces of every element; 0 = "
            "automatic (faces + 1)."},
    {.section = "artificial_viscosity",
     .key = "wall_flux",
     .type = DG_CASE_ENUM,
     .default_value = "ghost",
     .choices = case_av_wall_flux_names,
     CASE_FIELD(av_wall_flux),
     .doc = "Artificial viscosity at slip walls and symmetry planes: ghost (the ghost state as "
            "a BR2 neighbour with the interior gradient; the validated results in docs/ use it) "
            "or zero (no viscous flux through them, homogeneous Neumann: dissipative; ghost is "
            "not, and made p = 2 diverge on a strongly curved wing tetrahedron, "
            "docs/NUMERICS-av.md)."},
    {.section = "artificial_viscosity",
     .key = "relaxation",
     .type = DG_CASE_DOUBLE,
     .default_value = "0.1",
     .bounds = DG_CASE_HAS_MIN | DG_CASE_MIN_OPEN | DG_CASE_HAS_MAX,
     .min = 0,
     .max = 1,
     CASE_FIELD(av_relax),
     .doc = "lusgs: relaxation omega of the element viscosity between iterations, eps_n = omega "
            "eps_sensor(U_n) + (1 - omega) eps_(n-1); 1 = the sensor of U_n. Below 1 it damps "
            "the period-two cycle of elements switching their viscosity on and off (converged "
            "solutions are the same; NACA0012 M 0.8 cycled with 0.5 at p = 2 and 0.2 at p = 3, "
            "docs/NUMERICS-av.md)."},
    {.section = "artificial_viscosity",
     .key = "relaxation_adapt",
     .type = DG_CASE_BOOL,
     .default_value = "false",
     CASE_FIELD(av_relax_adapt),
     .doc = "newton_krylov: the relaxation omega adapts to the residual: after a step whose "
            "residual fell below 0.8 of the previous one omega grows by 1.5 (at most 1), after "
            "one whose residual rose it halves (at least relaxation). lusgs ignores it "
            "(docs/NEWTON_KRYLOV.md)."},
    {.section = "artificial_viscosity",
     .key = "coupled_after",
     .type = DG_CASE_DOUBLE,
     .default_value = "2",
     .bounds = DG_CASE_HAS_MIN,
     .min = 0,
     CASE_FIELD(av_couple_drop),
     .doc = "newton_krylov: once the residual of a run or p-sequencing stage has dropped by "
            "this many orders, the element viscosity is no longer held and relaxed but follows "
            "the state, eps = eps_sensor(U), inside the Newton steps (the residual, its "
            "finite-difference Jacobian products; the preconditioner keeps the frozen "
            "blocks), which removes the relaxation's linear rate; 0 = held throughout. lusgs "
            "ignores it (docs/NEWTON_KRYLOV.md)."},

    {.section = "verification",
     .key = "exact_solution",
     .type = DG_CASE_ENUM,
     .default_value = "freestream",
     .choices = case_exact_names,
     CASE_FIELD(exact_solution),
     .doc = "Exact solution imposed by `exact` boundaries: the freestream of [flow], or the "
            "isentropic vortex of Yee, Sandham and Djomehri advected by it (extruded along z in "
            "3D)."},
    {.section = "verification",
     .key = "vortex_strength",
     .type = DG_CASE_DOUBLE,
     .default_value = "5",
     ABOVE(0),
     CASE_FIELD(vortex_strength),
     .doc = "Strength beta of the isentropic vortex (velocity perturbation "
            "beta/(2 pi) exp((1-r^2)/2))."},
    {.section = "verification",
     .key = "vortex_x",
     .type = DG_CASE_DOUBLE,
     .default_value = "0",
     CASE_FIELD(vortex_center[0]),
     .doc = "x of the vortex centre at t = 0, in mesh units."},
    {.section = "verification",
     .key = "vortex_y",
     .type = DG_CASE_DOUBLE,
     .default_value = "0",
     CASE_FIELD(vortex_center[1]),
     .doc = "y of the vortex centre at t = 0, in mesh units."},
    {.section = "verification",
     .key = "entropy_error",
     .type = DG_CASE_BOOL,
     .default_value = "false",
     CASE_FIELD(entropy_error),
     .doc = "At the end of the run, print the L2 entropy error eps_s = sqrt(int ((s - s_inf) / "
            "s_inf)^2 dx / int dx), s = p / rho^gamma (HiOCFD case C1.1), and write it to "
            "errors.csv in the output folder with p, elements, DOFs and h = 1/sqrt(DOFs)."},

    {.section = "boundary",
     .key = "<group name>",
     .type = DG_CASE_ENUM,
     .required = 0,
     .default_doc = "(none)",
     .choices = case_bc_names,
     .scope = DG_CASE_SCOPE_BOUNDARY,
     .offset = offsetof(dg_case_bc, type),
     .size = sizeof(int),
     .doc = "Boundary condition of a mesh physical group: one line per group. Every boundary "
            "group of the mesh must be listed except periodic ones (optional)."},

    {.section = "bc.<group>",
     .key = "total_pressure",
     .type = DG_CASE_DOUBLE,
     .default_doc = "freestream p0",
     ABOVE(0),
     BC_FIELD(total_pressure),
     .bc_type = DG_BC_INFLOW_SUBSONIC,
     .doc = "inflow_subsonic: total pressure p0 / (rho_inf a_inf^2)."},
    {.section = "bc.<group>",
     .key = "total_temperature",
     .type = DG_CASE_DOUBLE,
     .default_doc = "freestream T0",
     ABOVE(0),
     BC_FIELD(total_temperature),
     .bc_type = DG_BC_INFLOW_SUBSONIC,
     .doc = "inflow_subsonic: total temperature T0 = p0/rho0 in units of a_inf^2."},
    {.section = "bc.<group>",
     .key = "flow_angle_deg",
     .type = DG_CASE_DOUBLE,
     .default_doc = "alpha_deg",
     BETWEEN(-180, 180),
     BC_FIELD(flow_angle_deg),
     .bc_type = DG_BC_INFLOW_SUBSONIC,
     .doc = "inflow_subsonic: inflow direction in degrees, measured like alpha_deg."},
    {.section = "bc.<group>",
     .key = "static_pressure",
     .type = DG_CASE_DOUBLE,
     .default_doc = "1/gamma (freestream)",
     ABOVE(0),
     BC_FIELD(static_pressure),
     .bc_type = DG_BC_OUTFLOW_SUBSONIC,
     .doc = "outflow_subsonic: static pressure p / (rho_inf a_inf^2)."},
    {.section = "bc.<group>",
     .key = "vortex_correction",
     .type = DG_CASE_BOOL,
     .default_value = "false",
     BC_FIELD(vortex_correction),
     .bc_type = DG_BC_FARFIELD,
     .doc = "farfield, 2D only: add to the freestream the compressible point vortex of the "
            "current lift, Gamma = 1/2 |u_inf| CL area, centred at (moment_x, moment_y) (Thomas "
            "and Salas 1986), so that a far field a few tens of chords away acts like a distant "
            "one (docs/NUMERICS-physics.md)."},
};

#define CASE_N_KEYS ((int)(sizeof case_keys / sizeof case_keys[0]))
#define CASE_BC_KEYS 5 /* the [bc.<group>] entries, last in the table */
#define CASE_BC_KEY0 (CASE_N_KEYS - CASE_BC_KEYS)

const dg_case_key *case_schema(int *n_keys) {
  *n_keys = CASE_N_KEYS;
  return case_keys;
}

const char *case_bc_type_name(dg_bc_type type) {
  return type >= 0 && type < DG_NUM_BC_TYPES ? case_bc_names[type] : "(unknown)";
}

static const char *case_type_name(dg_case_type type) {
  switch (type) {
  case DG_CASE_STRING: return "string";
  case DG_CASE_INT: return "integer";
  case DG_CASE_DOUBLE: return "number";
  case DG_CASE_BOOL: return "bool";
  case DG_CASE_ENUM: return "enum";
  case DG_CASE_PATH: return "path";
  }
  return "?";
}

/* Appends printf output to buf (size n), truncating. */
static void case_append(char *buf, size_t n, const char *fmt, const char *s) {
  const size_t used = strlen(buf);
  if (used + 1 < n) snprintf(buf + used, n - used, fmt, s);
}

/* The range of a key, as text ("> 0", "0 .. 3", "wall, symmetry, ..."). */
static void case_range_text(const dg_case_key *k, char *buf, size_t n) {
  buf[0] = '\0';
  if (k->type == DG_CASE_ENUM) {
    for (int i = 0; k->choices[i]; ++i) case_append(buf, n, i ? ", %s" : "%s", k->choices[i]);
  } else if (k->type == DG_CASE_BOOL) {
    snprintf(buf, n, "true, false");
  } else if ((k->bounds & DG_CASE_HAS_MIN) && (k->bounds & DG_CASE_HAS_MAX)) {
    snprintf(buf, n, "%g .. %g", k->min, k->max);
  } else if (k->bounds & DG_CASE_HAS_MIN) {
    snprintf(buf, n, "%s %g", (k->bounds & DG_CASE_MIN_OPEN) ? ">" : ">=", k->min);
  } else if (k->bounds & DG_CASE_HAS_MAX) {
    snprintf(buf, n, "%s %g", (k->bounds & DG_CASE_MAX_OPEN) ? "<" : "<=", k->max);
  } else {
    snprintf(buf, n, "%s", k->type == DG_CASE_INT || k->type == DG_CASE_DOUBLE ? "any" : "-");
  }
}

/* What a valid value of k looks like, for error messages. */
static void case_expected_text(const dg_case_key *k, char *buf, size_t n) {
  char range[256];
  case_range_text(k, range, sizeof range);
  switch (k->type) {
  case DG_CASE_STRING: snprintf(buf, n, "a non-empty string"); break;
  case DG_CASE_PATH: snprintf(buf, n, "a file name"); break;
  case DG_CASE_BOOL: snprintf(buf, n, "true or false (also yes/no, on/off, 1/0)"); break;
  case DG_CASE_ENUM: snprintf(buf, n, "one of: %s", range); break;
  case DG_CASE_INT:
  case DG_CASE_DOUBLE:
    if (k->bounds & DG_CASE_HAS_MIN && k->bounds & DG_CASE_HAS_MAX)
      snprintf(buf, n, "%s in [%g, %g]", k->type == DG_CASE_INT ? "an integer" : "a number", k->min,
               k->max);
    else if (k->bounds)
      snprintf(buf, n, "%s %s", k->type == DG_CASE_INT ? "an integer" : "a number", range);
    else
      snprintf(buf, n, "%s", k->type == DG_CASE_INT ? "an integer" : "a number");
    break;
  }
}

void case_schema_write_markdown(FILE *out) {
  fprintf(out, "| section | key | type | default | range | meaning |\n");
  fprintf(out, "| --- | --- | --- | --- | --- | --- |\n");
  for (int i = 0; i < CASE_N_KEYS; ++i) {
    const dg_case_key *k = &case_keys[i];
    char range[256];
    case_range_text(k, range, sizeof range);
    /* Backticks keep "<case name>" and "<group>" from being read as HTML. */
    fprintf(out, "| `[%s]` | `%s` | %s | ", k->section, k->key, case_type_name(k->type));
    if (k->required)
      fprintf(out, "**required**");
    else if (k->default_value)
      fprintf(out, "`%s`", k->default_value);
    else if (strcmp(k->default_doc, "-"))
      fprintf(out, "`%s`", k->default_doc);
    else
      fprintf(out, "-");
    fprintf(out, " | %s | ", range);
    /* A '|' inside a cell would end it. */
    for (const char *ch = k->doc; *ch; ++ch) {
      if (*ch == '|') fputc('\\', out);
      fputc(*ch, out);
    }
    fprintf(out, " |\n");
  }
}

/* ---------------------------------------------------------------- parsing */

/* fgets-style reader for ini_parse_stream that counts lines, so the handler
 * knows where it is (inih does not pass line numbers), and notices lines that
 * inih would silently split or continue. */
typedef struct {
  FILE *file;
  int line;          /* number of the line last returned (1-based) */
  int indented;      /* that line starts with a blank */
  int long_line;     /* first line longer than the reader buffer, 0 when none */
  int long_line_max; /* the limit it broke */
  int nul_line;      /* first line holding a NUL byte, 0 when none */
  int nul_column;    /* its 1-based column */
} case_reader;

static char *case_reader_gets(char *str, int num, void *stream) {
  case_reader *r = stream;
  /* fgets, but a NUL byte (binary content) is noticed instead of cutting
   * the line short and passing for a long line */
  int n = 0, ch = EOF;
  while (n < num - 1 && (ch = fgetc(r->file)) != EOF) {
    if (ch == '\0') {
      if (!r->nul_line) {
        r->nul_line = r->line + 1;
        r->nul_column = n + 1;
      }
      ch = ' ';
    }
    str[n++] = (char)ch;
    if (ch == '\n') break;
  }
  if (n == 0) return NULL;
  str[n] = '\0';
  ++r->line;
  r->indented = str[0] == ' ' || str[0] == '\t';
  size_t len = (size_t)n;
  if (len > 0 && str[len - 1] != '\n' && !feof(r->file)) {
    /* Longer than inih's line buffer: swallow the rest so line counting stays
     * right, and report the line instead of parsing a truncated value. */
    int ch;
    while ((ch = fgetc(r->file)) != EOF && ch != '\n') {
    }
    if (!r->long_line) {
      r->long_line = r->line;
      r->long_line_max = num - 3;
    }
  }
  return str;
}

typedef struct {
  dg_case *c;
  case_reader reader;
  int error_line;                   /* line of the first recorded error, 0 when none */
  int key_line[CASE_N_KEYS];        /* where each case-scope key was set */
  int (*bc_key_line)[CASE_BC_KEYS]; /* [bc][k]: where each [bc.<group>] key was set */
  int *bc_data_line;                /* [bc]: first line of its [bc.<group>] section */
  int bc_capacity;
  char prev_section[128], prev_key[128];
} case_parser;

#define CASE_FAIL(ps, section, key, ...)                                                           \
  case_fail((ps), __FILE__, __LINE__, __func__, (section), (key), __VA_ARGS__)

/* Records the first error of the parse: "<file>:<line>: [section] key: message". */
static int case_fail(case_parser *ps, const char *file, int line, const char *func,
                     const char *section, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;
static int case_fail(case_parser *ps, const char *file, int line, const char *func,
                     const char *section, const char *key, const char *fmt, ...) {
  if (ps->error_line) return 0;
  char message[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  ps->error_line = ps->reader.line > 0 ? ps->reader.line : 1;
  dg_error_set(DG_ERR_CASE, file, line, func, "%s:%d: [%s] %s: %s", ps->c->path, ps->reader.line,
               section, key, message);
  return 0;
}

static int case_is_blank(const char *s) {
  for (; *s; ++s)
    if (!isspace((unsigned char)*s)) return 0;
  return 1;
}

/* Parses value as key k into the field at base + k->offset. Returns 1 on
 * success; on failure writes the reason into why. */
static int case_parse_value(const dg_case *c, const dg_case_key *k, const char *value, char *base,
                            char *why, size_t why_len) {
  char expected[320];
  case_expected_text(k, expected, sizeof expected);
  void *field = base + k->offset;
  if (case_is_blank(value)) {
    snprintf(why, why_len, "empty value; expected %s", expected);
    return 0;
  }
  switch (k->type) {
  case DG_CASE_STRING:
  case DG_CASE_PATH: {
    char *dst = field;
    const int absolute = value[0] == '/';
    const int plain = k->type == DG_CASE_STRING || absolute || strcmp(c->dir, ".") == 0;
    const int n = plain ? snprintf(dst, k->size, "%s", value)
                        : snprintf(dst, k->size, "%s/%s", c->dir, value);
    if (n < 0 || (size_t)n >= k->size) {
      snprintf(why, why_len, "value is too long (at most %zu characters)", k->size - 1);
      return 0;
    }
    return 1;
  }
  case DG_CASE_BOOL: {
    static const char *const yes[] = {"true", "yes", "on", "1"};
    static const char *const no[] = {"false", "no", "off", "0"};
    char lower[8] = "";
    const size_t len = strlen(value);
    for (size_t j = 0; j < len && len < sizeof lower; ++j)
      lower[j] = (char)tolower((unsigned char)value[j]);
    for (int i = 0; i < 4; ++i) {
      if (!strcmp(lower, yes[i])) return *(int *)field = 1, 1;
      if (!strcmp(lower, no[i])) return *(int *)field = 0, 1;
    }
    snprintf(why, why_len, "'%s' is not a bool; expected %s", value, expected);
    return 0;
  }
  case DG_CASE_ENUM:
    for (int i = 0; k->choices[i]; ++i)
      if (!strcmp(value, k->choices[i])) return *(int *)field = i, 1;
    snprintf(why, why_len, "unknown value '%s'; expected %s", value, expected);
    return 0;
  case DG_CASE_INT:
  case DG_CASE_DOUBLE: {
    char *end = NULL;
    double x;
    errno = 0;
    if (k->type == DG_CASE_INT) {
      const long v = strtol(value, &end, 10);
      x = (double)v;
      if (errno == ERANGE || v < -2147483647L || v > 2147483647L) end = (char *)value;
    } else {
      x = strtod(value, &end);
      if (errno == ERANGE || !isfinite(x)) end = (char *)value;
      /* Decimal only: strtod also takes hexadecimal floats (0x10 = 16). */
      if (end != value && strpbrk(value, "xX")) {
        snprintf(why, why_len, "'%s' is a hexadecimal number; write it in decimal (expected %s)",
                 value, expected);
        return 0;
      }
    }
    if (end == value || !case_is_blank(end)) {
      snprintf(why, why_len, "'%s' is not %s; expected %s", value,
               k->type == DG_CASE_INT ? "an integer" : "a finite number", expected);
      return 0;
    }
    const int below = (k->bounds & DG_CASE_HAS_MIN) &&
                      ((k->bounds & DG_CASE_MIN_OPEN) ? !(x > k->min) : !(x >= k->min));
    const int above = (k->bounds & DG_CASE_HAS_MAX) &&
                      ((k->bounds & DG_CASE_MAX_OPEN) ? !(x < k->max) : !(x <= k->max));
    if (below || above) {
      snprintf(why, why_len, "%s is out of range; expected %s", value, expected);
      return 0;
    }
    if (k->type == DG_CASE_INT)
      *(int *)field = (int)x;
    else
      *(double *)field = x;
    return 1;
  }
  }
  snprintf(why, why_len, "internal: unknown key type");
  return 0;
}

static int case_find_bc_index(const dg_case *c, const char *group) {
  for (int i = 0; i < c->n_bcs; ++i)
    if (!strcmp(c->bcs[i].group, group)) return i;
  return -1;
}

/* Index of the boundary entry for group, created (type -1: not mapped yet)
 * when absent; -1 when out of memory or the name is too long. */
static int case_bc_entry(case_parser *ps, const char *section, const char *key, const char *group) {
  dg_case *c = ps->c;
  int i = case_find_bc_index(c, group);
  if (i >= 0) return i;
  if (strlen(group) >= DG_GROUP_NAME_LEN) {
    CASE_FAIL(ps, section, key, "group name is longer than %d characters", DG_GROUP_NAME_LEN - 1);
    return -1;
  }
  if (c->n_bcs == ps->bc_capacity) {
    const int cap = ps->bc_capacity ? 2 * ps->bc_capacity : 8;
    dg_case_bc *bcs = realloc(c->bcs, (size_t)cap * sizeof *bcs);
    if (bcs) c->bcs = bcs;
    int(*lines)[CASE_BC_KEYS] = realloc(ps->bc_key_line, (size_t)cap * sizeof *lines);
    if (lines) ps->bc_key_line = lines;
    int *data_line = realloc(ps->bc_data_line, (size_t)cap * sizeof *data_line);
    if (data_line) ps->bc_data_line = data_line;
    if (!bcs || !lines || !data_line) {
      CASE_FAIL(ps, section, key, "out of memory");
      return -1;
    }
    ps->bc_capacity = cap;
  }
  i = c->n_bcs++;
  memset(&c->bcs[i], 0, sizeof c->bcs[i]);
  snprintf(c->bcs[i].group, sizeof c->bcs[i].group, "%s", group);
  c->bcs[i].type = (dg_bc_type)-1;
  memset(ps->bc_key_line[i], 0, sizeof ps->bc_key_line[i]);
  ps->bc_data_line[i] = 0;
  return i;
}

/* Index of a case-scope key in the schema (the key must exist). */
static int case_key_index(const char *section, const char *key) {
  int k = 0;
  while (k < CASE_N_KEYS - 1 &&
         (strcmp(case_keys[k].section, section) || strcmp(case_keys[k].key, key)))
    ++k;
  return k;
}

static void case_list_sections(char *buf, size_t n) {
  buf[0] = '\0';
  for (int i = 0; i < CASE_N_KEYS; ++i)
    if (i == 0 || strcmp(case_keys[i].section, case_keys[i - 1].section))
      case_append(buf, n, i ? ", [%s]" : "[%s]", case_keys[i].section);
}

static int case_handler(void *user, const char *section, const char *name, const char *value) {
  case_parser *ps = user;
  if (ps->error_line) return 1; /* only the first error is reported */
  dg_case *c = ps->c;
  const int line = ps->reader.line;
  char why[512];

  if (ps->reader.indented && !strcmp(section, ps->prev_section) && !strcmp(name, ps->prev_key))
    return CASE_FAIL(ps, section, name,
                     "this indented line is read as a continuation of '%s'; values fit on one "
                     "line and keys must not be indented",
                     name);
  snprintf(ps->prev_section, sizeof ps->prev_section, "%s", section);
  snprintf(ps->prev_key, sizeof ps->prev_key, "%s", name);

  if (section[0] == '\0')
    return CASE_FAIL(ps, "", name, "key outside any section; put it under a [section] header");

  if (!strcmp(section, "boundary")) {
    const dg_case_key *k = &case_keys[CASE_BC_KEY0 - 1];
    const int i = case_bc_entry(ps, section, name, name);
    if (i < 0) return 0;
    if (c->bcs[i].line)
      return CASE_FAIL(ps, section, name, "duplicate key (already set on line %d)", c->bcs[i].line);
    if (!case_parse_value(c, k, value, (char *)&c->bcs[i], why, sizeof why))
      return CASE_FAIL(ps, section, name, "%s", why);
    c->bcs[i].line = line;
    return 1;
  }

  if (!strncmp(section, "bc.", 3)) {
    const char *group = section + 3;
    int k = CASE_BC_KEY0;
    while (k < CASE_N_KEYS && strcmp(case_keys[k].key, name)) ++k;
    if (k == CASE_N_KEYS)
      return CASE_FAIL(ps, section, name,
                       "unknown key; [bc.<group>] accepts: total_pressure, total_temperature, "
                       "flow_angle_deg (inflow_subsonic), static_pressure (outflow_subsonic), "
                       "vortex_correction (farfield)");
    if (group[0] == '\0')
      return CASE_FAIL(ps, section, name, "section [bc.] names no group; write [bc.<group>]");
    const int i = case_bc_entry(ps, section, name, group);
    if (i < 0) return 0;
    int *seen = &ps->bc_key_line[i][k - CASE_BC_KEY0];
    if (*seen) return CASE_FAIL(ps, section, name, "duplicate key (already set on line %d)", *seen);
    if (!case_parse_value(c, &case_keys[k], value, (char *)&c->bcs[i], why, sizeof why))
      return CASE_FAIL(ps, section, name, "%s", why);
    *seen = line;
    if (!ps->bc_data_line[i]) ps->bc_data_line[i] = line;
    return 1;
  }

  int section_known = 0;
  for (int k = 0; k < CASE_BC_KEY0 - 1; ++k) {
    if (strcmp(case_keys[k].section, section)) continue;
    section_known = 1;
    if (strcmp(case_keys[k].key, name)) continue;
    if (ps->key_line[k])
      return CASE_FAIL(ps, section, name, "duplicate key (already set on line %d)",
                       ps->key_line[k]);
    if (!case_parse_value(c, &case_keys[k], value, (char *)c, why, sizeof why))
      return CASE_FAIL(ps, section, name, "%s", why);
    ps->key_line[k] = line;
    return 1;
  }
  if (!section_known) {
    char sections[512];
    case_list_sections(sections, sizeof sections);
    return CASE_FAIL(ps, section, name, "unknown section [%s]; sections are: %s", section,
                     sections);
  }
  char keys[512] = "";
  for (int k = 0; k < CASE_BC_KEY0 - 1; ++k)
    if (!strcmp(case_keys[k].section, section))
      case_append(keys, sizeof keys, keys[0] ? ", %s" : "%s", case_keys[k].key);
  return CASE_FAIL(ps, section, name, "unknown key; [%s] accepts: %s", section, keys);
}

/* Sets the file's folder and the case name (file stem, or the folder's name
 * for a file called case.ini). */
static void case_set_names(dg_case *c, const char *path) {
  snprintf(c->path, sizeof c->path, "%s", path);
  const char *slash = strrchr(path, '/');
  if (slash) {
    const int n = (int)(slash - path);
    snprintf(c->dir, sizeof c->dir, "%.*s", n > 0 ? n : 1, n > 0 ? path : "/");
  } else {
    snprintf(c->dir, sizeof c->dir, ".");
  }
  const char *base = slash ? slash + 1 : path;
  const char *dot = strrchr(base, '.');
  const int stem = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
  snprintf(c->name, sizeof c->name, "%.*s", stem, base);
  if (!strcmp(c->name, "case") && slash && slash != path) {
    const char *dir_end = slash;
    const char *dir_start = dir_end;
    while (dir_start > path && dir_start[-1] != '/') --dir_start;
    if (dir_end > dir_start && strncmp(dir_start, ".", (size_t)(dir_end - dir_start)) &&
        strncmp(dir_start, "..", (size_t)(dir_end - dir_start)))
      snprintf(c->name, sizeof c->name, "%.*s", (int)(dir_end - dir_start), dir_start);
  }
}

/* Reads line n of the file (for syntax-error messages); "" when unavailable. */
static void case_line_text(const char *path, int n, char *buf, size_t size) {
  buf[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[512];
  for (int i = 1; fgets(line, sizeof line, f); ++i) {
    if (i == n) {
      const size_t len = strcspn(line, "\r\n");
      const size_t keep = len < size - 1 ? len : size - 1;
      memcpy(buf, line, keep);
      buf[keep] = '\0';
      break;
    }
  }
  fclose(f);
}

/* Checks that need the whole file: required keys, bc mappings, derived
 * defaults, relations between keys. */
/* [output] sections: comma- or blank-separated stations eta in (0, 1],
 * which need [reference] semispan > 0. */
static dg_status case_parse_sections(case_parser *ps) {
  dg_case *c = ps->c;
  const int line = ps->key_line[case_key_index("output", "sections")];
  c->n_sections = 0;
  const char *s = c->sections_text;
  while (*s) {
    while (*s == ',' || isspace((unsigned char)*s)) ++s;
    if (!*s) break;
    char *end = NULL;
    errno = 0;
    const double eta = strtod(s, &end);
    DG_CHECK(end != s && errno != ERANGE &&
                 (*end == '\0' || *end == ',' || isspace((unsigned char)*end)),
             DG_ERR_CASE, "%s:%d: [output] sections: '%s' is not a list of numbers", c->path, line,
             c->sections_text);
    DG_CHECK(eta > 0.0 && eta <= 1.0, DG_ERR_CASE,
             "%s:%d: [output] sections: station %g is out of range; expected eta = y / semispan "
             "in (0, 1]",
             c->path, line, eta);
    DG_CHECK(c->n_sections < DG_CASE_MAX_SECTIONS, DG_ERR_CASE,
             "%s:%d: [output] sections: more than %d stations", c->path, line,
             DG_CASE_MAX_SECTIONS);
    c->sections[c->n_sections++] = eta;
    s = end;
  }
  DG_CHECK(c->n_sections == 0 || c->semispan > 0.0, DG_ERR_CASE,
           "%s:%d: [output] sections: needs [reference] semispan > 0 (the wing's half span along "
           "y)",
           c->path, line);
  return DG_SUCCESS;
}

/* [discretization] p_sequence: a start at or below order, and a steady run
 * (p-sequencing marches each order towards its steady state; a
 * time-accurate or verification run has no such state to hand over). */
/* [solver] newton_krylov: the scheme's own defaults of cfl_max (1e8),
 * cfl_ramp_iters (20) and sweeps (8) when the file does not set them, and newton_forcing parsed
 * ("ew" or a number in (0, 1)). */
static dg_status case_check_newton(case_parser *ps) {
  dg_case *c = ps->c;
  const int line = ps->key_line[case_key_index("solver", "newton_forcing")];
  const char *text = c->newton_forcing_text;
  if (!strcmp(text, "ew") || !strcmp(text, "EW")) {
    c->newton_forcing = 0.0;
  } else {
    char *end = NULL;
    errno = 0;
    const double eta = strtod(text, &end);
    DG_CHECK(end != text && *end == '\0' && errno == 0 && eta > 0.0 && eta < 1.0, DG_ERR_CASE,
             "%s:%d: [solver] newton_forcing: '%s' is neither ew nor a number in (0, 1)", c->path,
             line, text);
    c->newton_forcing = eta;
  }
  if (c->scheme != DG_SCHEME_NEWTON_KRYLOV) return DG_SUCCESS;
  /* its assembled Jacobian products read the face Jacobians: central only */
  const int jac_line = ps->key_line[case_key_index("solver", "face_jacobian")];
  DG_CHECK(c->face_jacobian == 0, DG_ERR_CASE,
           "%s:%d: [solver] face_jacobian = forward is for scheme = lusgs; newton_krylov's "
           "Jacobian products read the face Jacobians and keep central differences",
           c->path, jac_line);
  if (!ps->key_line[case_key_index("solver", "cfl_max")]) c->cfl_max = 1e8;
  if (!ps->key_line[case_key_index("solver", "cfl_ramp_iters")]) c->cfl_ramp_iters = 20;
  if (!ps->key_line[case_key_index("solver", "sweeps")]) c->sweeps = 8;
  return DG_SUCCESS;
}

static dg_status case_check_p_sequence(case_parser *ps) {
  const dg_case *c = ps->c;
  if (!c->p_sequence) return DG_SUCCESS;
  const int line = ps->key_line[case_key_index("discretization", "p_sequence")];
  const int start_line = ps->key_line[case_key_index("discretization", "p_sequence_start")];
  DG_CHECK(c->p_sequence_start <= c->order, DG_ERR_CASE,
           "%s:%d: [discretization] p_sequence_start: %d is above order = %d; expected "
           "p_sequence_start <= order",
           c->path, start_line ? start_line : line, c->p_sequence_start, c->order);
  DG_CHECK(c->scheme != DG_SCHEME_EXPLICIT_RK3 || c->local_time_step, DG_ERR_CASE,
           "%s:%d: [discretization] p_sequence: needs a steady run, and [solver] scheme = "
           "explicit_rk3 with local_time_step = false is time-accurate; set local_time_step = "
           "true or p_sequence = false",
           c->path, line);
  DG_CHECK(c->exact_solution == DG_EXACT_FREESTREAM, DG_ERR_CASE,
           "%s:%d: [discretization] p_sequence: not for verification runs ([verification] "
           "exact_solution = %s); set p_sequence = false",
           c->path, line, case_exact_names[c->exact_solution]);
  DG_CHECK(c->end_time <= 0.0 && c->output_interval <= 0.0, DG_ERR_CASE,
           "%s:%d: [discretization] p_sequence: not for unsteady runs ([stop] end_time, [output] "
           "output_interval); set p_sequence = false",
           c->path, line);
  return DG_SUCCESS;
}

static dg_status case_finish(case_parser *ps) {
  dg_case *c = ps->c;
  char expected[320];
  for (int k = 0; k < CASE_BC_KEY0 - 1; ++k) {
    if (!case_keys[k].required || ps->key_line[k]) continue;
    case_expected_text(&case_keys[k], expected, sizeof expected);
    DG_ERROR(DG_ERR_CASE, "%s: [%s] %s: required key is missing; add `%s = ...` (%s) to [%s]",
             c->path, case_keys[k].section, case_keys[k].key, case_keys[k].key, expected,
             case_keys[k].section);
  }
  for (int i = 0; i < c->n_bcs; ++i) {
    dg_case_bc *bc = &c->bcs[i];
    if (!bc->line)
      DG_ERROR(DG_ERR_CASE,
               "%s:%d: [bc.%s]: group '%s' has boundary data but no boundary condition; add "
               "`%s = <type>` to [boundary]",
               c->path, ps->bc_data_line[i], bc->group, bc->group, bc->group);
    for (int k = CASE_BC_KEY0; k < CASE_N_KEYS; ++k) {
      const int seen = ps->bc_key_line[i][k - CASE_BC_KEY0];
      if (seen && (int)bc->type != case_keys[k].bc_type)
        DG_ERROR(DG_ERR_CASE,
                 "%s:%d: [bc.%s] %s: not used by boundary condition '%s' (line %d); only "
                 "%s uses it",
                 c->path, seen, bc->group, case_keys[k].key, case_bc_type_name(bc->type), bc->line,
                 case_bc_type_name((dg_bc_type)case_keys[k].bc_type));
    }
    if (!ps->bc_key_line[i][0]) bc->total_pressure = case_freestream_total_pressure(c);
    if (!ps->bc_key_line[i][1]) bc->total_temperature = case_freestream_total_temperature(c);
    if (!ps->bc_key_line[i][2]) bc->flow_angle_deg = c->alpha_deg;
    if (!ps->bc_key_line[i][3]) bc->static_pressure = case_freestream_pressure(c);
  }
  DG_CALL(case_check_newton(ps));
  if (c->cfl_max < c->cfl_min) {
    const int line_min = ps->key_line[case_key_index("solver", "cfl_min")];
    const int line_max = ps->key_line[case_key_index("solver", "cfl_max")];
    DG_ERROR(DG_ERR_CASE,
             "%s:%d: [solver] %s: cfl_max = %g is below cfl_min = %g; expected cfl_max >= "
             "cfl_min",
             c->path, line_max > line_min ? line_max : line_min,
             line_max > line_min ? "cfl_max" : "cfl_min", c->cfl_max, c->cfl_min);
  }
  if (c->p_sequence_cfl > 0.0 && (c->p_sequence_cfl < c->cfl_min || c->p_sequence_cfl > c->cfl_max))
    DG_ERROR(DG_ERR_CASE,
             "%s:%d: [solver] p_sequence_cfl: %g is outside [cfl_min, cfl_max] = [%g, %g]; "
             "expected a CFL in that range, or 0 for cfl_min",
             c->path, ps->key_line[case_key_index("solver", "p_sequence_cfl")], c->p_sequence_cfl,
             c->cfl_min, c->cfl_max);
  c->mesh_file_line = ps->key_line[case_key_index("mesh", "file")];
  DG_CALL(case_check_p_sequence(ps));
  DG_CALL(case_parse_sections(ps));
  if (c->output_folder[0] == '\0') {
    const int n = snprintf(c->output_folder, sizeof c->output_folder, "out/%s", c->name);
    DG_CHECK(n > 0 && (size_t)n < sizeof c->output_folder, DG_ERR_CASE,
             "%s: [output] folder: the default out/%s is too long; set folder", c->path, c->name);
  }
  return DG_SUCCESS;
}

dg_status case_read(const char *path, dg_case *c) {
  DG_CHECK(path && c, DG_ERR_ARG, "case_read: path and case must not be NULL");
  memset(c, 0, sizeof *c);
  DG_CHECK(strlen(path) < sizeof c->path, DG_ERR_ARG, "case file name too long: %s", path);
  case_set_names(c, path);

  case_parser ps;
  memset(&ps, 0, sizeof ps);
  ps.c = c;
  char why[512];
  for (int k = 0; k < CASE_N_KEYS; ++k) {
    if (case_keys[k].scope != DG_CASE_SCOPE_CASE || !case_keys[k].default_value) continue;
    if (!case_parse_value(c, &case_keys[k], case_keys[k].default_value, (char *)c, why, sizeof why))
      DG_ERROR(DG_ERR_INTERNAL, "default of [%s] %s is invalid: %s", case_keys[k].section,
               case_keys[k].key, why);
  }

  ps.reader.file = fopen(path, "r");
  DG_CHECK(ps.reader.file, DG_ERR_IO, "cannot open case file '%s': %s", path, strerror(errno));
  const int first_error = ini_parse_stream(case_reader_gets, &ps.reader, case_handler, &ps);
  fclose(ps.reader.file);

  dg_status status = DG_SUCCESS;
  if (ps.reader.nul_line) {
    status = dg_error_set(DG_ERR_CASE, __FILE__, __LINE__, __func__,
                          "%s:%d: a NUL byte at column %d: a case file is text", path,
                          ps.reader.nul_line, ps.reader.nul_column);
  } else if (ps.reader.long_line && (!ps.error_line || ps.reader.long_line <= ps.error_line)) {
    status = dg_error_set(DG_ERR_CASE, __FILE__, __LINE__, __func__,
                          "%s:%d: line is longer than %d characters; shorten it", path,
                          ps.reader.long_line, ps.reader.long_line_max);
  } else if (first_error > 0 && (!ps.error_line || first_error < ps.error_line)) {
    char text[200];
    case_line_text(path, first_error, text, sizeof text);
    status = dg_error_set(DG_ERR_CASE, __FILE__, __LINE__, __func__,
                          "%s:%d: syntax error in '%s'; expected `[section]`, `key = value` or a "
                          "comment starting with ; or #",
                          path, first_error, text);
  } else if (ps.error_line) {
    status = DG_ERR_CASE;
  } else if (first_error < 0) {
    status = dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                          "%s: out of memory while parsing", path);
  } else {
    status = case_finish(&ps);
    if (status != DG_SUCCESS) dg_error_trace(__FILE__, __LINE__, __func__);
  }
  free(ps.bc_key_line);
  free(ps.bc_data_line);
  if (status != DG_SUCCESS) case_free(c);
  return status;
}

void case_free(dg_case *c) {
  if (!c) return;
  free(c->bcs);
  memset(c, 0, sizeof *c);
}

const dg_case_bc *case_find_bc(const dg_case *c, const char *group) {
  const int i = case_find_bc_index(c, group);
  return i >= 0 ? &c->bcs[i] : NULL;
}

/* ---------------------------------------------------------------- the mesh */

dg_status case_read_mesh(const dg_case *c, const char *mesh_file, int allow_shell, dg_mesh *mesh) {
  DG_CHECK(c && mesh, DG_ERR_ARG, "case_read_mesh: NULL argument");
  dg_mesh_read_options o = mesh_read_options_default();
  o.geo_order = c->geo_order;
  o.allow_shell = c->mesh_allow_shell || allow_shell;
  o.max_seconds = c->mesh_max_seconds;
  o.max_elements = c->mesh_max_elements;
  o.max_memory_mb = c->mesh_max_memory_mb;
  if (!mesh_file) {
    /* The case names the file: a file that cannot be read is the case's
     * error, told with its line. */
    mesh_file = c->mesh_file;
    const size_t n = strlen(mesh_file);
    const char *dot = strrchr(mesh_file, '.');
    char ext[8] = "";
    for (size_t i = 0; dot && dot[i] && i + 1 < sizeof ext; ++i)
      ext[i] = (char)tolower((unsigned char)dot[i]);
    const int known = !strcmp(ext, ".cdgm") || !strcmp(ext, ".msh") || !strcmp(ext, ".geo");
    DG_CHECK(n > 0 && known, DG_ERR_CASE,
             "%s:%d: [mesh] file: '%s' has an unknown extension; ColorDG reads .cdgm, .msh "
             "(Gmsh 2.2/4.1) and .geo",
             c->path, c->mesh_file_line, mesh_file);
    if (mesh_check_regular_file(mesh_file, "mesh file") != DG_SUCCESS) {
      char why[1024];
      snprintf(why, sizeof why, "%s", dg_error_message());
      DG_ERROR(DG_ERR_CASE, "%s:%d: [mesh] file: %s", c->path, c->mesh_file_line, why);
    }
  }
  DG_CALL(mesh_read_with(mesh_file, &o, mesh));
  return DG_SUCCESS;
}

/* ---------------------------------------------------------------- mesh checks */

/* Faces of each group, and whether all of a group's faces lie on periodic
 * nodes (Gmsh periodic links), i.e. topology will pair them as interior. */
static dg_status case_group_census(const dg_mesh *mesh, int64_t *n_faces, int *periodic) {
  uint8_t *on_link = NULL;
  DG_CALL(DG_CALLOC(on_link, mesh->n_nodes));
  for (int64_t i = 0; i < mesh->n_periodic; ++i) {
    on_link[mesh->periodic_slave[i]] = 1;
    on_link[mesh->periodic_master[i]] = 1;
  }
  for (int g = 0; g < mesh->n_groups; ++g) n_faces[g] = 0, periodic[g] = 1;
  for (int64_t f = 0; f < mesh->n_bfaces; ++f) {
    const int g = mesh->bface_group[f];
    if (g < 0 || g >= mesh->n_groups) continue;
    ++n_faces[g];
    const int nv = shape_n_verts((dg_shape)mesh->bface_shape[f]);
    for (int v = 0; v < nv; ++v)
      if (!on_link[mesh->bface_verts[f * DG_MAX_FACE_VERTS + v]]) periodic[g] = 0;
  }
  for (int g = 0; g < mesh->n_groups; ++g)
    if (n_faces[g] == 0) periodic[g] = 0;
  free(on_link);
  return DG_SUCCESS;
}

static void case_list_groups(const dg_mesh *mesh, char *buf, size_t n) {
  buf[0] = '\0';
  for (int g = 0; g < mesh->n_groups; ++g)
    case_append(buf, n, g ? ", %s" : "%s", mesh->groups[g].name);
  if (!buf[0]) snprintf(buf, n, "(none)");
}

dg_status case_validate_against_mesh(const dg_case *c, const dg_mesh *mesh) {
  DG_CHECK(c && mesh, DG_ERR_ARG, "case_validate_against_mesh: NULL argument");
  char groups[640], types[256] = "";
  case_list_groups(mesh, groups, sizeof groups);
  for (int t = 0; t < DG_NUM_BC_TYPES; ++t)
    case_append(types, sizeof types, t ? ", %s" : "%s", case_bc_names[t]);

  DG_CHECK(mesh->dim == 3 || c->beta_deg == 0.0, DG_ERR_CASE,
           "%s: [flow] beta_deg: %g on the 2D mesh %s; sideslip needs a 3D mesh, set beta_deg = 0",
           c->path, c->beta_deg, mesh->source);
  DG_CHECK(mesh->dim == 3 || c->n_sections == 0, DG_ERR_CASE,
           "%s: [output] sections: spanwise sections need a 3D mesh; %s is 2D (its wall is "
           "surface_cp.csv), remove sections",
           c->path, mesh->source);

  for (int i = 0; i < c->n_bcs; ++i)
    DG_CHECK(mesh->dim == 2 || !c->bcs[i].vortex_correction, DG_ERR_CASE,
             "%s: [bc.%s] vortex_correction: the point-vortex far field is 2D only and %s is a "
             "3D mesh; remove the key",
             c->path, c->bcs[i].group, mesh->source);
  for (int i = 0; i < c->n_bcs; ++i)
    DG_CHECK(mesh_find_group(mesh, c->bcs[i].group) >= 0, DG_ERR_CASE,
             "%s:%d: [boundary] %s: the mesh %s has no boundary group '%s'; its groups are: %s",
             c->path, c->bcs[i].line, c->bcs[i].group, mesh->source, c->bcs[i].group, groups);

  int64_t *n_faces = NULL;
  int *periodic = NULL;
  dg_status status = DG_SUCCESS;
  DG_CALL_GOTO(status, done, DG_CALLOC(n_faces, mesh->n_groups));
  DG_CALL_GOTO(status, done, DG_CALLOC(periodic, mesh->n_groups));
  DG_CALL_GOTO(status, done, case_group_census(mesh, n_faces, periodic));
  for (int g = 0; g < mesh->n_groups; ++g) {
    const char *name = mesh->groups[g].name;
    const dg_case_bc *bc = case_find_bc(c, name);
    if (!bc && n_faces[g] > 0 && !periodic[g]) {
      status =
          dg_error_set(DG_ERR_CASE, __FILE__, __LINE__, __func__,
                       "%s: [boundary]: mesh group '%s' (%lld faces in %s) has no boundary "
                       "condition; add `%s = <type>` to [boundary] (types: %s; mesh groups: "
                       "%s)",
                       c->path, name, (long long)n_faces[g], mesh->source, name, types, groups);
      goto done;
    }
    if (bc && bc->type == DG_BC_PERIODIC && !periodic[g]) {
      status = dg_error_set(DG_ERR_CASE, __FILE__, __LINE__, __func__,
                            "%s:%d: [boundary] %s: mapped to periodic, but the mesh %s has no "
                            "periodic link for its faces (Gmsh 'Periodic' constraint)",
                            c->path, bc->line, name, mesh->source);
      goto done;
    }
    if (bc && bc->type != DG_BC_PERIODIC && periodic[g]) {
      status =
          dg_error_set(DG_ERR_CASE, __FILE__, __LINE__, __func__,
                       "%s:%d: [boundary] %s: its faces are periodic in %s (paired as "
                       "interior faces), so '%s' would never act; write `%s = periodic` or "
                       "leave it out",
                       c->path, bc->line, name, mesh->source, case_bc_type_name(bc->type), name);
      goto done;
    }
  }
  if (c->br2_eta > 0.0) {
    int max_faces = 0;
    for (int s = 0; s < DG_NUM_SHAPES; ++s)
      if (mesh->shape_offset[s + 1] > mesh->shape_offset[s] &&
          shape_n_faces((dg_shape)s) > max_faces)
        max_faces = shape_n_faces((dg_shape)s);
    if (!(c->br2_eta > max_faces)) {
      status = dg_error_set(DG_ERR_CASE, __FILE__, __LINE__, __func__,
                            "%s: [artificial_viscosity] br2_eta: %g must exceed the %d faces of "
                            "the elements of %s (or be 0 for automatic)",
                            c->path, c->br2_eta, max_faces, mesh->source);
      goto done;
    }
  }
done:
  free(n_faces);
  free(periodic);
  return status;
}

/* ---------------------------------------------------------------- freestream */

void case_freestream_velocity(const dg_case *c, int dim, double u[3]) {
  double drag[3];
  physics_wind_axes_deg(dim, c->alpha_deg, c->beta_deg, drag, NULL, NULL);
  for (int d = 0; d < 3; ++d) u[d] = c->mach * drag[d];
}

double case_freestream_pressure(const dg_case *c) { return 1.0 / c->gamma; }

double case_freestream_total_temperature(const dg_case *c) {
  return (1.0 / c->gamma) * (1.0 + 0.5 * (c->gamma - 1.0) * c->mach * c->mach);
}

double case_freestream_total_pressure(const dg_case *c) {
  const double ratio = 1.0 + 0.5 * (c->gamma - 1.0) * c->mach * c->mach;
  return (1.0 / c->gamma) * pow(ratio, c->gamma / (c->gamma - 1.0));
}

/* The colouring steps after the algorithm, for the case summary. */
static const char *case_coloring_steps(const dg_case *c) {
  if (c->coloring_reduce && c->coloring_turns) return " (reduced, turns)";
  if (c->coloring_reduce) return " (reduced)";
  return c->coloring_turns ? " (turns)" : "";
}

/* ---------------------------------------------------------------- summary */

void case_print(const dg_case *c, FILE *out) {
  static const char *const yes_no[] = {"false", "true"};
  fprintf(out, "case %s (%s)\n", c->name, c->path);
  fprintf(out, "  mesh            %s", c->mesh_file);
  if (c->geo_order) fprintf(out, " (geo_order %d)", c->geo_order);
  fprintf(out, "\n  flow            M = %g, alpha = %g deg, beta = %g deg, gamma = %g\n", c->mach,
          c->alpha_deg, c->beta_deg, c->gamma);
  fprintf(out,
          "  freestream      rho = 1, |u| = %g, p = %.6g, p0 = %.6g, T0 = %.6g (rho_inf = "
          "a_inf = 1)\n",
          c->mach, case_freestream_pressure(c), case_freestream_total_pressure(c),
          case_freestream_total_temperature(c));
  fprintf(out, "  reference       length %g, area %g, moment point (%g, %g, %g)\n", c->ref_length,
          c->ref_area, c->moment_center[0], c->moment_center[1], c->moment_center[2]);
  if (c->p_sequence && c->p_sequence_max_iters > 0)
    fprintf(out,
            "  discretization  p = %d, p-sequenced from p = %d (hand-over at %g orders or %d "
            "iterations)\n",
            c->order, c->p_sequence_start, c->p_sequence_drop, c->p_sequence_max_iters);
  else if (c->p_sequence)
    fprintf(out, "  discretization  p = %d, p-sequenced from p = %d (hand-over at %g orders)\n",
            c->order, c->p_sequence_start, c->p_sequence_drop);
  else
    fprintf(out, "  discretization  p = %d\n", c->order);
  if (c->quadrature == DG_QUAD_SYMMETRIC)
    fprintf(out, "  quadrature      symmetric rules on triangles and tetrahedra\n");
  else
    fprintf(out, "  quadrature      collapsed Gauss-Jacobi rules on triangles and tetrahedra\n");
  if (c->affine_rule == 1)
    fprintf(out, "  affine rule     degree 2p + 1 on affine elements (reduced)\n");
  else
    fprintf(out, "  affine rule     the curved elements' rule on every element (mesh)\n");
  if (c->face_rule == 1)
    fprintf(out, "  face rule       degree 2p + (dim - 1)(q - 1), at least 2p + 1 (reduced)\n");
  else
    fprintf(out, "  face rule       degree 2p + 1 + (dim - 1)(q - 1) (mesh)\n");
  if (c->curved_rule == 1)
    fprintf(out, "  curved rule     degree 2p + dim (q - 1), at least 2p + 1 (reduced; a mesh "
                 "with quadrilaterals keeps the mesh rule)\n");
  else
    fprintf(out, "  curved rule     degree 2p + 1 + dim (q - 1) (mesh)\n");
  if (c->inverse_precision == 1 && c->scheme != DG_SCHEME_EXPLICIT_RK3)
    fprintf(out, "  block inverses  single precision in the sweeps\n");
  if (c->face_jacobian == 1 && c->scheme == DG_SCHEME_LUSGS)
    fprintf(out, "  face Jacobians  forward differences\n");
  if (c->scheme == DG_SCHEME_LUSGS)
    fprintf(out,
            "  solver          lusgs, CFL %g -> %g (%s, %d iterations), %d sweeps, max update "
            "%g, local dt %s, colouring %s%s\n",
            c->cfl_min, c->cfl_max, case_cfl_law_names[c->cfl_law], c->cfl_ramp_iters, c->sweeps,
            c->max_update, yes_no[c->local_time_step], case_coloring_names[c->coloring],
            case_coloring_steps(c));
  else if (c->scheme == DG_SCHEME_NEWTON_KRYLOV)
    fprintf(out,
            "  solver          newton_krylov, CFL %g -> %g (%s, %d iterations), FGMRES(%d) with %d "
            "restarts, forcing %s, %s Jacobian, %d preconditioner sweeps, max update %g, "
            "colouring %s%s\n",
            c->cfl_min, c->cfl_max, case_cfl_law_names[c->cfl_law], c->cfl_ramp_iters,
            c->krylov_size, c->krylov_restarts, c->newton_forcing_text,
            case_jacobian_names[c->newton_jacobian], c->sweeps, c->max_update,
            case_coloring_names[c->coloring], case_coloring_steps(c));
  else
    fprintf(out, "  solver          explicit_rk3, CFL %g, local dt %s, colouring %s%s\n", c->cfl,
            yes_no[c->local_time_step], case_coloring_names[c->coloring], case_coloring_steps(c));
  if (c->scheme == DG_SCHEME_LUSGS && c->jacobian_interval > 1)
    fprintf(out, "  jacobians       rebuilt every %d iterations at cfl_max\n",
            c->jacobian_interval);
  if (c->scheme != DG_SCHEME_EXPLICIT_RK3 && c->p_sequence && c->p_sequence_cfl > 0.0)
    fprintf(out, "  stage CFL       the stages above p = %d start at CFL %g\n", c->p_sequence_start,
            c->p_sequence_cfl);
  fprintf(out, "  stop            %d iterations, residual drop %g orders%s", c->max_iters,
          c->residual_drop, c->residual_norm == DG_RESIDUAL_TOTAL ? " (total norm)" : "");
  if (c->max_wall_seconds > 0) fprintf(out, ", %g s", c->max_wall_seconds);
  fprintf(out, "\n  output          %s (monitor %d, checkpoint %d, vtu %d)\n", c->output_folder,
          c->monitor_every, c->checkpoint_every, c->vtu_every);
  if (c->av_enabled)
    fprintf(out,
            "  shock capturing sensor %s, kappa %g, s0 offset %g, C %g, %s, BR2 eta %g%s, "
            "relaxation %g%s, wall flux %s\n",
            case_av_sensor_names[c->av_sensor], c->av_kappa, c->av_s0_offset, c->av_c_eps,
            c->av_continuous ? "continuous" : "per element", c->br2_eta,
            c->br2_eta == 0.0 ? " (automatic)" : "", c->av_relax,
            c->av_relax_adapt ? " (adaptive)" : "", case_av_wall_flux_names[c->av_wall_flux]);
  if (c->av_enabled && c->scheme == DG_SCHEME_NEWTON_KRYLOV) {
    if (c->av_couple_drop > 0.0)
      fprintf(out, "  viscosity       held until the residual dropped %g orders, then eps(U)\n",
              c->av_couple_drop);
    else
      fprintf(out, "  viscosity       held throughout\n");
  }
  if (!c->av_enabled) fprintf(out, "  shock capturing off\n");
  for (int i = 0; i < c->n_bcs; ++i) {
    const dg_case_bc *bc = &c->bcs[i];
    fprintf(out, "  boundary        %-16s %s", bc->group, case_bc_type_name(bc->type));
    if (bc->type == DG_BC_INFLOW_SUBSONIC)
      fprintf(out, " (p0 %.6g, T0 %.6g, angle %g deg)", bc->total_pressure, bc->total_temperature,
              bc->flow_angle_deg);
    if (bc->type == DG_BC_OUTFLOW_SUBSONIC) fprintf(out, " (p %.6g)", bc->static_pressure);
    if (bc->type == DG_BC_FARFIELD && bc->vortex_correction) fprintf(out, " (vortex correction)");
    if (bc->type == DG_BC_EXACT) fprintf(out, " (%s)", case_exact_names[c->exact_solution]);
    fputc('\n', out);
  }
}
