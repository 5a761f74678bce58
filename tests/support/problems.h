#pragma once
/* Problem builders shared by the tests (tests/unit/) and the benchmarks and
 * drivers of tools/ (bench_residual, bench_lusgs, bench_face_accum,
 * colordg_study_order): a mesh (structured or read from a file), optionally
 * coloured and renumbered, its topology and geometry, a free-stream
 * discretisation with boundary conditions by group name, and a smooth
 * admissible state. Built as the static library colordg_problems
 * (tests/CMakeLists.txt); not part of the solver library. */
#include <stdint.h>

#include "coloring/coloring.h"
#include "core/dg_error.h"
#include "dg/disc.h"
#include "mesh/geometry.h"
#include "mesh/mesh.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"

#define PROBLEM_GAMMA 1.4     /* air */
#define PROBLEM_MAX_GROUPS 16 /* boundary groups problem_freestream_opts handles */

/* A problem: every member zeroed or owned; problem_free releases them. */
typedef struct {
  dg_mesh mesh;
  dg_topology topo;
  dg_geometry geom;
  dg_coloring col; /* filled by problem_color only */
  dg_disc disc;
  double *U; /* [n_coefs] host state, or NULL */
} problem;

void problem_free(problem *pb);

/* mesh_structured_2d, or mesh_structured_3d for MESH_STRUCTURED_TET. */
dg_status problem_mesh_structured(const dg_mesh_structured_opts *mo, dg_mesh *mesh);

/* The periodic box of the isentropic vortex studies (tools/study_order_driver.c):
 * [0, box]² with n x n cells of `kind`, geometric order `order`, periodic
 * in x and y; 2D: the generator's deformation `deform`; 3D (TET): nz
 * cells of the same size along z (depth nz box / n, periodic) and the
 * z-independent deformation mesh_structured_deform_xy(box, deform). */
dg_status problem_mesh_vortex_box(dg_mesh_structured_kind kind, int order, int64_t n, int64_t nz,
                                  double box, double deform, dg_mesh *mesh);

/* Colours pb->mesh (DG_COLORING_BFS_WALL from `wall_group`) into pb->col,
 * renumbers the mesh colour-major and (re)builds pb->topo for it. */
dg_status problem_color(problem *pb, const char *wall_group);

/* Volume and face quadrature degrees for degree p on a mesh of geometric
 * order q: 2p + 1 + dim (q - 1) and 2p + 1 + (dim - 1)(q - 1) (the face
 * rule of [discretization] face_rule = mesh, geometry_face_degree). */
int problem_vol_degree(const dg_mesh *mesh, int p);
int problem_face_degree(const dg_mesh *mesh, int p);

/* Builds pb->topo (unless built: n_faces > 0 or a colouring made it) and
 * pb->geom at the given degrees. */
dg_status problem_geometry(problem *pb, int vol_degree, int face_degree);

/* Boundary data that disc options point into (keep it alive until disc_build). */
typedef struct {
  int32_t bc[PROBLEM_MAX_GROUPS];
  physics_bc_data data[PROBLEM_MAX_GROUPS];
} problem_bcs;

/* Discretisation options of degree p: γ 1.4, Roe flux, free stream at Mach
 * `mach` and angle of attack `alpha_deg`, no artificial viscosity; boundary
 * group "wall" a slip wall, "symmetry" a symmetry plane, every other group
 * far field at the free stream. DG_ERR_ARG for more than
 * PROBLEM_MAX_GROUPS groups. */
dg_status problem_freestream_opts(const dg_mesh *mesh, int p, double mach, double alpha_deg,
                                  dg_disc_opts *o, problem_bcs *bcs);

/* A smooth admissible state: the free-stream mean plus
 * amplitude sin(0.37 (e + 7 m + 3 v)) in every mode m > 0. */
void problem_smooth_state(const dg_disc *disc, double amplitude, double *U);
