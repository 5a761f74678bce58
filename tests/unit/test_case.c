/* Case files: every value of a full file, defaults of a minimal one, each
 * error class with the file, line, section and key in the message, the
 * checks against a mesh, the freestream, and docs/CASE_FILE.md against the
 * schema. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/case.h"
#include "app/info.h"
#include "core/dg_math.h"
#include "dg/physics.h"
#include "element/quadrature.h"
#include "mesh/geometry.h"
#include "mesh/mesh.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "test_util.h"

#define DATA(name) COLORDG_TEST_DATA "/" name

static void test_valid(void) {
  dg_case c;
  TEST_OK(case_read(DATA("case_valid.ini"), &c));
  TEST_CHECK(!strcmp(c.name, "case_valid"), "name %s", c.name);
  TEST_CHECK(!strcmp(c.mesh_file, COLORDG_TEST_DATA "/square.cdgm"), "mesh file %s", c.mesh_file);
  TEST_CHECK(c.geo_order == 2, "geo_order %d", c.geo_order);
  TEST_CLOSE(c.mach, 0.8, 0, "mach");
  TEST_CLOSE(c.alpha_deg, 1.25, 0, "alpha");
  TEST_CLOSE(c.beta_deg, 0, 0, "beta");
  TEST_CLOSE(c.gamma, 1.3, 0, "gamma");
  TEST_CLOSE(c.ref_length, 2.0, 0, "length");
  TEST_CLOSE(c.ref_area, 3.0, 0, "area");
  TEST_CLOSE(c.moment_center[0], 0.5, 0, "moment_x");
  TEST_CLOSE(c.moment_center[1], -0.125, 0, "moment_y");
  TEST_CLOSE(c.moment_center[2], 0.75, 0, "moment_z");
  TEST_CHECK(c.order == 2, "order %d", c.order);
  TEST_CHECK(c.scheme == DG_SCHEME_EXPLICIT_RK3, "scheme %d", c.scheme);
  TEST_CLOSE(c.cfl, 0.8, 0, "cfl");
  TEST_CLOSE(c.cfl_min, 2, 0, "cfl_min");
  TEST_CLOSE(c.cfl_max, 500, 0, "cfl_max");
  TEST_CHECK(c.cfl_ramp_iters == 300, "ramp %d", c.cfl_ramp_iters);
  TEST_CHECK(c.cfl_law == DG_CFL_SER, "cfl_law %d", c.cfl_law);
  TEST_CHECK(c.local_time_step == 0, "local_time_step %d", c.local_time_step);
  TEST_CHECK(c.max_iters == 1234, "max_iters %d", c.max_iters);
  TEST_CLOSE(c.residual_drop, 8.5, 0, "residual_drop");
  TEST_CLOSE(c.max_wall_seconds, 3600, 0, "max_wall_seconds");
  TEST_CHECK(!strcmp(c.output_folder, "results/valid"), "folder %s", c.output_folder);
  TEST_CHECK(c.monitor_every == 5 && c.checkpoint_every == 0 && c.vtu_every == 100,
             "output every %d %d %d", c.monitor_every, c.checkpoint_every, c.vtu_every);
  TEST_CHECK(c.av_enabled == 1 && c.av_continuous == 1, "av flags %d %d", c.av_enabled,
             c.av_continuous);
  TEST_CLOSE(c.av_kappa, 0.5, 0, "kappa");
  TEST_CLOSE(c.av_s0_offset, -0.5, 0, "s0_offset");
  TEST_CLOSE(c.av_c_eps, 2.0, 0, "c_eps");
  TEST_CLOSE(c.br2_eta, 5, 0, "br2_eta");
  TEST_CHECK(c.exact_solution == DG_EXACT_ISENTROPIC_VORTEX, "exact %d", c.exact_solution);
  TEST_CLOSE(c.vortex_strength, 4, 0, "vortex_strength");
  TEST_CLOSE(c.vortex_center[0], 1.5, 0, "vortex_x");
  TEST_CLOSE(c.vortex_center[1], -2.5, 0, "vortex_y");

  TEST_CHECK(c.n_bcs == 4, "n_bcs %d", c.n_bcs);
  if (c.n_bcs == 4) {
    const char *groups[4] = {"wall", "inlet", "outlet", "top"};
    const dg_bc_type types[4] = {DG_BC_WALL, DG_BC_INFLOW_SUBSONIC, DG_BC_OUTFLOW_SUBSONIC,
                                 DG_BC_FARFIELD};
    const int lines[4] = {57, 58, 59, 60};
    for (int i = 0; i < 4; ++i)
      TEST_CHECK(!strcmp(c.bcs[i].group, groups[i]) && c.bcs[i].type == types[i] &&
                     c.bcs[i].line == lines[i],
                 "bc %d: %s %d line %d", i, c.bcs[i].group, c.bcs[i].type, c.bcs[i].line);
    const dg_case_bc *in = case_find_bc(&c, "inlet");
    TEST_CHECK(in == &c.bcs[1], "case_find_bc(inlet)");
    TEST_CLOSE(in->total_pressure, 0.9, 0, "inlet p0");
    TEST_CLOSE(in->total_temperature, 0.8, 0, "inlet T0");
    TEST_CLOSE(in->flow_angle_deg, 10, 0, "inlet angle");
    TEST_CLOSE(case_find_bc(&c, "outlet")->static_pressure, 0.7, 0, "outlet p");
    TEST_CHECK(case_find_bc(&c, "nothing") == NULL, "case_find_bc(nothing)");
  }
  FILE *sink = tmpfile();
  if (sink) {
    case_print(&c, sink);
    TEST_CHECK(ftell(sink) > 200, "case_print wrote %ld bytes", ftell(sink));
    fclose(sink);
  }
  case_free(&c);
  TEST_CHECK(c.bcs == NULL && c.n_bcs == 0, "case_free zeroes");
}

static void test_defaults(void) {
  dg_case c;
  TEST_OK(case_read(DATA("case_minimal.ini"), &c));
  const double gamma = 1.4, m = 0.5;
  TEST_CHECK(!strcmp(c.mesh_file, "/abs/path/mesh.cdgm"), "absolute mesh path %s", c.mesh_file);
  TEST_CHECK(c.geo_order == 0, "geo_order %d", c.geo_order);
  TEST_CLOSE(c.alpha_deg, 0, 0, "alpha");
  TEST_CLOSE(c.beta_deg, 0, 0, "beta");
  TEST_CLOSE(c.gamma, gamma, 0, "gamma");
  TEST_CLOSE(c.ref_length, 1, 0, "length");
  TEST_CLOSE(c.ref_area, 1, 0, "area");
  TEST_CLOSE(c.moment_center[0], 0.25, 0, "moment_x");
  TEST_CLOSE(c.moment_center[1], 0, 0, "moment_y");
  TEST_CLOSE(c.moment_center[2], 0, 0, "moment_z");
  TEST_CHECK(c.scheme == DG_SCHEME_LUSGS, "scheme %d", c.scheme);
  /* the reduced rules; `colordg info` of a bare mesh assumes the same */
  TEST_CHECK(c.affine_rule == 1 && c.face_rule == 1 && c.curved_rule == 1,
             "rules: affine %d, face %d, curved %d", c.affine_rule, c.face_rule, c.curved_rule);
  TEST_CHECK(info_case_rules(&c) == INFO_RULES_DEFAULT, "rule mask %d, INFO_RULES_DEFAULT %d",
             info_case_rules(&c), INFO_RULES_DEFAULT);
  TEST_CLOSE(c.cfl, 0.5, 0, "cfl");
  TEST_CLOSE(c.cfl_min, 1, 0, "cfl_min");
  /* The [solver] defaults converge every shipped 2D steady case without
   * tuning (docs/LUSGS.md, "Defaults"; tests/defaults.cmake runs them). */
  TEST_CLOSE(c.cfl_max, 1000, 0, "cfl_max");
  TEST_CHECK(c.cfl_ramp_iters == 100, "ramp %d", c.cfl_ramp_iters);
  TEST_CHECK(c.cfl_law == DG_CFL_EXPONENTIAL, "law %d", c.cfl_law);
  TEST_CHECK(c.sweeps == 16, "sweeps %d", c.sweeps);
  TEST_CLOSE(c.max_update, 0.2, 0, "max_update");
  TEST_CHECK(c.local_time_step == 1, "local dt %d", c.local_time_step);
  TEST_CHECK(c.max_iters == 10000, "max_iters %d", c.max_iters);
  TEST_CLOSE(c.residual_drop, 10, 0, "residual_drop");
  TEST_CLOSE(c.max_wall_seconds, 0, 0, "max_wall_seconds");
  TEST_CHECK(!strcmp(c.output_folder, "out/case_minimal"), "folder %s", c.output_folder);
  TEST_CHECK(c.monitor_every == 10 && c.checkpoint_every == 1000 && c.vtu_every == 0,
             "output every %d %d %d", c.monitor_every, c.checkpoint_every, c.vtu_every);
  TEST_CHECK(c.av_enabled == 0 && c.av_continuous == 0, "av flags");
  TEST_CLOSE(c.av_kappa, 1, 0, "kappa");
  TEST_CLOSE(c.av_s0_offset, -1.5, 0, "s0_offset");
  TEST_CHECK(c.av_sensor == DG_AV_SENSOR_ENERGY, "sensor %d", c.av_sensor);
  TEST_CLOSE(c.av_c_eps, 1, 0, "c_eps");
  TEST_CLOSE(c.br2_eta, 0, 0, "br2_eta");
  TEST_CLOSE(c.av_relax, 0.1, 0, "relaxation");
  TEST_CHECK(c.exact_solution == DG_EXACT_FREESTREAM, "exact %d", c.exact_solution);
  TEST_CLOSE(c.vortex_strength, 5, 0, "vortex_strength");
  TEST_CHECK(c.p_sequence == 0 && c.p_sequence_start == 1 && c.p_sequence_max_iters == 0,
             "p_sequence %d, start %d, stage limit %d", c.p_sequence, c.p_sequence_start,
             c.p_sequence_max_iters);
  TEST_CLOSE(c.p_sequence_drop, 4, 0, "p_sequence_drop");
  TEST_CHECK(c.quadrature == DG_QUAD_SYMMETRIC, "quadrature default %d", c.quadrature);

  /* [bc.in] came first, so "in" is the first group; unset data take
   * freestream values: T0 = (1/γ)(1 + (γ-1)/2 M²), p = 1/γ. */
  TEST_CHECK(c.n_bcs == 2 && !strcmp(c.bcs[0].group, "in") && !strcmp(c.bcs[1].group, "out"),
             "bcs");
  if (c.n_bcs == 2) {
    TEST_CLOSE(c.bcs[0].total_pressure, 1.0, 0, "in p0 (given)");
    TEST_CLOSE(c.bcs[0].total_temperature, (1 + 0.2 * m * m) / gamma, 1e-15, "in T0 default");
    TEST_CLOSE(c.bcs[0].flow_angle_deg, 0, 0, "in angle default");
    TEST_CLOSE(c.bcs[1].static_pressure, 1 / gamma, 1e-15, "out p default");
  }
  case_free(&c);
}

static void test_errors(void) {
  dg_case c;
  TEST_FAILS(case_read(DATA("case_does_not_exist.ini"), &c), DG_ERR_IO, "case_does_not_exist.ini");
  TEST_FAILS(case_read(DATA("case_bad_unknown_key.ini"), &c), DG_ERR_CASE,
             "case_bad_unknown_key.ini:5: [flow] mahc: unknown key; [flow] accepts: mach, "
             "alpha_deg, beta_deg, gamma");
  TEST_FAILS(case_read(DATA("case_bad_duplicate.ini"), &c), DG_ERR_CASE,
             "case_bad_duplicate.ini:9: [flow] alpha_deg: duplicate key (already set on line 5)");
  TEST_FAILS(case_read(DATA("case_bad_missing.ini"), &c), DG_ERR_CASE,
             "[flow] mach: required key is missing");
  TEST_FAILS(case_read(DATA("case_bad_type.ini"), &c), DG_ERR_CASE,
             "case_bad_type.ini:5: [flow] mach: 'fast' is not a finite number; expected a "
             "number > 0");
  TEST_FAILS(case_read(DATA("case_bad_range.ini"), &c), DG_ERR_CASE,
             "case_bad_range.ini:6: [discretization] order: 4 is out of range; expected an "
             "integer in [0, 3]");
  TEST_FAILS(case_read(DATA("case_bad_enum.ini"), &c), DG_ERR_CASE,
             "case_bad_enum.ini:8: [solver] scheme: unknown value 'rk4'; expected one of: "
             "explicit_rk3, lusgs");
  TEST_FAILS(case_read(DATA("case_bad_section.ini"), &c), DG_ERR_CASE,
             "case_bad_section.ini:6: [discretisation] order: unknown section [discretisation]");
  TEST_FAILS(case_read(DATA("case_bad_bc_type.ini"), &c), DG_ERR_CASE,
             "case_bad_bc_type.ini:8: [boundary] airfoil: unknown value 'no_slip'; expected one "
             "of: wall, symmetry, farfield");
  TEST_FAILS(case_read(DATA("case_bad_bc_data.ini"), &c), DG_ERR_CASE,
             "case_bad_bc_data.ini:10: [bc.wall] static_pressure: not used by boundary "
             "condition 'wall' (line 8); only outflow_subsonic uses it");
  TEST_FAILS(case_read(DATA("case_bad_syntax.ini"), &c), DG_ERR_CASE,
             "case_bad_syntax.ini:4: syntax error in 'mach 0.5'");
  TEST_FAILS(case_read(DATA("case_bad_indent.ini"), &c), DG_ERR_CASE,
             "case_bad_indent.ini:5: [flow] mach: this indented line is read as a continuation");
  TEST_FAILS(case_read(DATA("case_bad_cfl.ini"), &c), DG_ERR_CASE,
             "case_bad_cfl.ini:9: [solver] cfl_max: cfl_max = 5 is below cfl_min = 10");
  TEST_CHECK(c.bcs == NULL && c.n_bcs == 0, "a failed read leaves the case freed");
}

/* Writes text to a case file in the working directory and reads it. */
static dg_status read_text(const char *text, dg_case *c) {
  const char *path = "test_case_tmp.ini";
  FILE *f = fopen(path, "w");
  if (!f) return dg_error_set(DG_ERR_IO, __FILE__, __LINE__, __func__, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
  const dg_status status = case_read(path, c);
  remove(path);
  return status;
}

/* newton_krylov's own defaults where the file leaves the keys out (cfl_max
 * 1e8, cfl_ramp_iters 20, sweeps 8), and a file's values where it sets them. */
static void test_newton_defaults(void) {
  static const char *const texts[2] = {
      "[mesh]\nfile = /abs/mesh.cdgm\n[flow]\nmach = 0.5\n[discretization]\norder = 1\n"
      "[solver]\nscheme = newton_krylov\n[boundary]\nfar = farfield\n",
      "[mesh]\nfile = /abs/mesh.cdgm\n[flow]\nmach = 0.5\n[discretization]\norder = 1\n"
      "[solver]\nscheme = newton_krylov\nsweeps = 16\ncfl_max = 1e4\ncfl_ramp_iters = 7\n"
      "[boundary]\nfar = farfield\n"};
  const int sweeps[2] = {8, 16}, ramp[2] = {20, 7};
  const double cfl_max[2] = {1e8, 1e4};
  for (int i = 0; i < 2; ++i) {
    dg_case c;
    TEST_OK(read_text(texts[i], &c));
    TEST_CHECK(c.scheme == DG_SCHEME_NEWTON_KRYLOV, "%d: scheme %d", i, c.scheme);
    TEST_CHECK(c.sweeps == sweeps[i], "%d: sweeps %d, expected %d", i, c.sweeps, sweeps[i]);
    TEST_CHECK(c.cfl_ramp_iters == ramp[i], "%d: ramp %d", i, c.cfl_ramp_iters);
    TEST_CLOSE(c.cfl_max, cfl_max[i], 0, "cfl_max");
    case_free(&c);
  }
}

static void test_more_errors(void) {
  dg_case c;
  const char *head = "[mesh]\nfile = m.cdgm\n[flow]\nmach = 0.5\n[discretization]\norder = 1\n";
  char text[1024];
  snprintf(text, sizeof text, "%s[flow]\n", head);
  TEST_OK(read_text(text, &c)); /* an empty repeated section is harmless */
  case_free(&c);
  TEST_FAILS(read_text("mach = 0.5\n", &c), DG_ERR_CASE, ":1: [] mach: key outside any section");
  snprintf(text, sizeof text, "%s[flow]\ngamma = 1\n", head);
  TEST_FAILS(read_text(text, &c), DG_ERR_CASE,
             ":8: [flow] gamma: 1 is out of range; expected a "
             "number > 1");
  snprintf(text, sizeof text, "%s[solver]\nlocal_time_step = maybe\n", head);
  TEST_FAILS(read_text(text, &c), DG_ERR_CASE,
             ":8: [solver] local_time_step: 'maybe' is not a bool");
  snprintf(text, sizeof text, "%s[stop]\nmax_iters = 1.5\n", head);
  TEST_FAILS(read_text(text, &c), DG_ERR_CASE, ":8: [stop] max_iters: '1.5' is not an integer");
  snprintf(text, sizeof text, "%s[flow]\nalpha_deg =\n", head);
  TEST_FAILS(read_text(text, &c), DG_ERR_CASE, ":8: [flow] alpha_deg: empty value");
  snprintf(text, sizeof text, "%s[bc.inlet]\ntotal_pressure = 1\n", head);
  TEST_FAILS(read_text(text, &c), DG_ERR_CASE,
             ":8: [bc.inlet]: group 'inlet' has boundary data but no boundary condition");
  snprintf(text, sizeof text, "%s[boundary]\nwall = wall\nwall = symmetry\n", head);
  TEST_FAILS(read_text(text, &c), DG_ERR_CASE,
             ":9: [boundary] wall: duplicate key (already set on line 8)");
  snprintf(text, sizeof text, "%s[bc.x]\nmach = 2\n", head);
  TEST_FAILS(read_text(text, &c), DG_ERR_CASE,
             ":8: [bc.x] mach: unknown key; [bc.<group>] accepts");
  /* [discretization] quadrature: the rule family, or an error naming the
   * line, the key and the choices */
  snprintf(text, sizeof text, "%s[discretization]\nquadrature = collapsed\n", head);
  TEST_OK(read_text(text, &c));
  TEST_CHECK(c.quadrature == DG_QUAD_COLLAPSED, "quadrature = collapsed read as %d", c.quadrature);
  case_free(&c);
  snprintf(text, sizeof text, "%s[discretization]\nquadrature = dunavant\n", head);
  TEST_FAILS(read_text(text, &c), DG_ERR_CASE,
             "test_case_tmp.ini:8: [discretization] quadrature: unknown value 'dunavant'; "
             "expected one of: collapsed, symmetric");
  /* p-sequencing: a start above order (also when order comes later),
   * time-accurate and verification runs are refused, naming the key */
  snprintf(text, sizeof text, "%s[discretization]\np_sequence = yes\np_sequence_start = 2\n", head);
  TEST_FAILS(read_text(text, &c), DG_ERR_CASE,
             ":9: [discretization] p_sequence_start: 2 is above order = 1; expected "
             "p_sequence_start <= order");
  snprintf(text, sizeof text, "%s[discretization]\np_sequence = yes\np_sequence_start = 2\n",
           "[mesh]\nfile = m.cdgm\n[flow]\nmach = 0.5\n[discretization]\norder = 2\n");
  TEST_OK(read_text(text, &c)); /* start = order: one stage */
  TEST_CHECK(c.p_sequence == 1 && c.p_sequence_start == 2, "p_sequence read");
  case_free(&c);
  snprintf(text, sizeof text,
           "%s[discretization]\np_sequence = on\n[solver]\nscheme = explicit_rk3\n"
           "local_time_step = no\n",
           head);
  TEST_FAILS(read_text(text, &c), DG_ERR_CASE,
             ":8: [discretization] p_sequence: needs a steady run");
  snprintf(text, sizeof text,
           "%s[discretization]\np_sequence = on\n[verification]\nexact_solution = "
           "isentropic_vortex\n",
           head);
  TEST_FAILS(read_text(text, &c), DG_ERR_CASE,
             ":8: [discretization] p_sequence: not for verification runs");
  snprintf(text, sizeof text, "%s[discretization]\np_sequence = on\n[stop]\nend_time = 1\n", head);
  TEST_FAILS(read_text(text, &c), DG_ERR_CASE, ":8: [discretization] p_sequence: not for unsteady");
  /* off, the p-sequencing keys are not checked against order */
  snprintf(text, sizeof text, "%s[discretization]\np_sequence_start = 3\n", head);
  TEST_OK(read_text(text, &c));
  case_free(&c);
  /* [solver] face_jacobian = forward: read for lusgs, refused for
   * newton_krylov (its Jacobian products read the face Jacobians) */
  snprintf(text, sizeof text, "%s[solver]\nface_jacobian = forward\n", head);
  TEST_OK(read_text(text, &c));
  TEST_CHECK(c.face_jacobian == 1, "face_jacobian = forward read as %d", c.face_jacobian);
  case_free(&c);
  snprintf(text, sizeof text, "%s[solver]\nscheme = newton_krylov\nface_jacobian = forward\n",
           head);
  TEST_FAILS(read_text(text, &c), DG_ERR_CASE,
             ":9: [solver] face_jacobian = forward is for scheme = lusgs");
  /* A line longer than inih's buffer is reported, not silently split. */
  snprintf(text, sizeof text, "%s[output]\nfolder = %0300d\n", head, 7);
  TEST_FAILS(read_text(text, &c), DG_ERR_CASE, ":8: line is longer than");
}

/* A 2 x 1 quad strip [0,1] x [0,1]: groups bottom "wall", "top", "left",
 * "right"; with periodic = 1 the right nodes are linked to the left ones. */
static dg_status strip_mesh(int periodic, dg_mesh *mesh) {
  memset(mesh, 0, sizeof *mesh);
  DG_CALL(mesh_alloc(mesh, 6, 2, 8, 4, 6, periodic ? 2 : 0));
  mesh->dim = 2;
  mesh->geom_order = 1;
  snprintf(mesh->source, sizeof mesh->source, "strip");
  const double x[6][2] = {{0, 0}, {0.5, 0}, {1, 0}, {0, 1}, {0.5, 1}, {1, 1}};
  for (int n = 0; n < 6; ++n) mesh->x[3 * n] = x[n][0], mesh->x[3 * n + 1] = x[n][1];
  for (int s = 0; s <= DG_NUM_SHAPES; ++s) mesh->shape_offset[s] = s > DG_QUAD ? 2 : 0;
  const int64_t quads[2][4] = {{0, 1, 4, 3}, {1, 2, 5, 4}};
  for (int e = 0; e < 2; ++e) {
    mesh->elem_shape[e] = DG_QUAD;
    mesh->elem_node_start[e] = 4 * e;
    mesh->elem_tag[e] = e + 1;
    for (int k = 0; k < 4; ++k) mesh->elem_nodes[4 * e + k] = quads[e][k];
  }
  const char *names[4] = {"wall", "top", "left", "right"};
  for (int g = 0; g < 4; ++g) {
    snprintf(mesh->groups[g].name, sizeof mesh->groups[g].name, "%s", names[g]);
    mesh->groups[g].tag = g + 1;
  }
  const int64_t faces[6][3] = {{0, 1, 0}, {1, 2, 0}, {4, 3, 1}, {5, 4, 1}, {3, 0, 2}, {2, 5, 3}};
  for (int f = 0; f < 6; ++f) {
    mesh->bface_shape[f] = DG_LINE;
    for (int k = 0; k < DG_MAX_FACE_VERTS; ++k)
      mesh->bface_verts[f * DG_MAX_FACE_VERTS + k] = k < 2 ? faces[f][k] : -1;
    mesh->bface_group[f] = (int32_t)faces[f][2];
    mesh->bface_tag[f] = 10 + f;
  }
  if (periodic) {
    mesh->periodic_slave[0] = 2, mesh->periodic_master[0] = 0;
    mesh->periodic_slave[1] = 5, mesh->periodic_master[1] = 3;
  }
  return DG_SUCCESS;
}

static void test_against_mesh(void) {
  dg_mesh plain, periodic;
  TEST_OK(strip_mesh(0, &plain));
  TEST_OK(strip_mesh(1, &periodic));
  const char *head = "[mesh]\nfile = m.cdgm\n[flow]\nmach = 0.5\n[discretization]\norder = 1\n";
  char text[1024];
  dg_case c;

  snprintf(text, sizeof text,
           "%s[boundary]\nwall = wall\ntop = farfield\nleft = inflow_subsonic\n"
           "right = outflow_subsonic\n",
           head);
  TEST_OK(read_text(text, &c));
  TEST_OK(case_validate_against_mesh(&c, &plain));
  /* On the periodic strip, left/right are paired: a wall-type bc there is an error. */
  TEST_FAILS(case_validate_against_mesh(&c, &periodic), DG_ERR_CASE,
             ":10: [boundary] left: its faces are periodic");
  case_free(&c);

  snprintf(text, sizeof text, "%s[boundary]\nwall = wall\ntop = farfield\n", head);
  TEST_OK(read_text(text, &c));
  TEST_FAILS(case_validate_against_mesh(&c, &plain), DG_ERR_CASE,
             "mesh group 'left' (1 faces in strip) has no boundary condition");
  TEST_FAILS(case_validate_against_mesh(&c, &plain), DG_ERR_CASE,
             "mesh groups: wall, top, left, right");
  TEST_OK(case_validate_against_mesh(&c, &periodic)); /* periodic groups may be left out */
  case_free(&c);

  snprintf(text, sizeof text,
           "%s[boundary]\nwall = wall\ntop = farfield\nleft = periodic\n"
           "right = periodic\n",
           head);
  TEST_OK(read_text(text, &c));
  TEST_OK(case_validate_against_mesh(&c, &periodic));
  TEST_FAILS(case_validate_against_mesh(&c, &plain), DG_ERR_CASE,
             ":10: [boundary] left: mapped to periodic, but the mesh strip has no periodic link");
  case_free(&c);

  snprintf(text, sizeof text, "%s[boundary]\nwall = wall\ntop = farfield\nairfoil = wall\n", head);
  TEST_OK(read_text(text, &c));
  TEST_FAILS(case_validate_against_mesh(&c, &periodic), DG_ERR_CASE,
             ":10: [boundary] airfoil: the mesh strip has no boundary group 'airfoil'; its groups "
             "are: wall, top, left, right");
  case_free(&c);

  snprintf(text, sizeof text, "%s[flow]\nbeta_deg = 2\n[boundary]\nwall = wall\ntop = farfield\n",
           head);
  TEST_OK(read_text(text, &c));
  TEST_FAILS(case_validate_against_mesh(&c, &periodic), DG_ERR_CASE,
             "[flow] beta_deg: 2 on the 2D");
  case_free(&c);

  /* BR2 needs eta above the 4 faces of a quad. */
  snprintf(text, sizeof text,
           "%s[artificial_viscosity]\nbr2_eta = 4\n[boundary]\nwall = wall\ntop = farfield\n",
           head);
  TEST_OK(read_text(text, &c));
  TEST_FAILS(case_validate_against_mesh(&c, &periodic), DG_ERR_CASE,
             "[artificial_viscosity] br2_eta: 4 must exceed the 4 faces");
  c.br2_eta = 4.5;
  TEST_OK(case_validate_against_mesh(&c, &periodic));
  case_free(&c);
  mesh_free(&plain);
  mesh_free(&periodic);
}

static void test_freestream(void) {
  dg_case c;
  memset(&c, 0, sizeof c);
  c.mach = 0.5, c.alpha_deg = 30, c.beta_deg = 0, c.gamma = 1.4;
  double u[3], state[5], drag[3], lift[3];
  case_freestream_velocity(&c, 2, u);
  TEST_CLOSE(u[0], 0.5 * sqrt(3) / 2, 1e-15, "u 2D");
  TEST_CLOSE(u[1], 0.25, 1e-15, "v 2D");
  TEST_CLOSE(u[2], 0, 0, "w 2D");
  physics_freestream_state(2, c.gamma, c.mach, c.alpha_deg, c.beta_deg, state);
  TEST_CLOSE(state[0], 1, 0, "rho");
  TEST_CLOSE(state[1], u[0], 1e-15, "rho u");
  /* ρE = p/(γ-1) + ρ|u|²/2 with p = 1/γ, so the sound speed sqrt(γ p / ρ) is 1. */
  TEST_CLOSE(state[3], 1 / (1.4 * 0.4) + 0.125, 1e-14, "rho E");
  const double p = 0.4 * (state[3] - 0.5 * (state[1] * state[1] + state[2] * state[2]));
  TEST_CLOSE(sqrt(1.4 * p), 1, 1e-14, "a_inf");
  TEST_CLOSE(case_freestream_total_pressure(&c), pow(1 + 0.2 * 0.25, 3.5) / 1.4, 1e-14, "p0");
  physics_wind_axes(2, c.alpha_deg * DG_PI / 180, 0, drag, lift, NULL);
  TEST_CLOSE(drag[0] * lift[0] + drag[1] * lift[1], 0, 1e-15, "lift normal to drag (2D)");
  TEST_CLOSE(lift[1], sqrt(3) / 2, 1e-15, "lift points up");

  c.alpha_deg = 10, c.beta_deg = 5;
  case_freestream_velocity(&c, 3, u);
  TEST_CLOSE(sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), 0.5, 1e-15, "|u| 3D");
  TEST_CLOSE(u[1], 0.5 * sin(5 * DG_PI / 180), 1e-15, "sideslip along +y");
  TEST_CHECK(u[2] > 0, "alpha lifts u towards +z in 3D");
  physics_wind_axes(3, c.alpha_deg * DG_PI / 180, c.beta_deg * DG_PI / 180, drag, lift, NULL);
  TEST_CLOSE(drag[0] * u[0] + drag[1] * u[1] + drag[2] * u[2], 0.5, 1e-15, "drag along u");
  TEST_CLOSE(drag[0] * lift[0] + drag[1] * lift[1] + drag[2] * lift[2], 0, 1e-15, "lift normal");
}

/* docs/CASE_FILE.md must contain the schema table exactly as generated,
 * so a key added to the schema without documentation fails here. */
static void test_docs(void) {
  FILE *f = fopen(COLORDG_SOURCE_DIR "/docs/CASE_FILE.md", "rb");
  TEST_CHECK(f != NULL, "cannot open docs/CASE_FILE.md");
  if (!f) return;
  char *doc = calloc(1 << 20, 1);
  const size_t n = fread(doc, 1, (1 << 20) - 1, f);
  fclose(f);
  doc[n] = '\0';

  FILE *table_file = tmpfile();
  case_schema_write_markdown(table_file);
  const long len = ftell(table_file);
  char *table = calloc((size_t)len + 1, 1);
  rewind(table_file);
  TEST_CHECK(fread(table, 1, (size_t)len, table_file) == (size_t)len, "read back the table");
  fclose(table_file);
  TEST_CHECK(strstr(doc, table) != NULL,
             "docs/CASE_FILE.md does not contain the current key table; regenerate it with "
             "`colordg case-keys`");

  int n_keys = 0;
  const dg_case_key *keys = case_schema(&n_keys);
  TEST_CHECK(n_keys > 40, "schema has %d keys", n_keys);
  for (int i = 0; i < n_keys; ++i) {
    char row[160];
    snprintf(row, sizeof row, "| `[%s]` | `%s` |", keys[i].section, keys[i].key);
    TEST_CHECK(strstr(doc, row) != NULL, "docs/CASE_FILE.md lacks %s", row);
    TEST_CHECK(keys[i].doc && strlen(keys[i].doc) > 10, "[%s] %s has no description",
               keys[i].section, keys[i].key);
    TEST_CHECK(keys[i].required || keys[i].default_value || keys[i].default_doc,
               "[%s] %s has neither a default nor required", keys[i].section, keys[i].key);
  }
  free(table);
  free(doc);
}

/* The memory estimate against the formula of info.h, counted by hand on a
 * 4 x 2 checkerboard: 8 triangles (affine) and 4 quadrilaterals (mapped). */
static void test_memory_estimate(void) {
  dg_mesh_structured_opts opts = mesh_structured_defaults(2);
  opts.kind = MESH_STRUCTURED_MIXED;
  opts.n[0] = 4, opts.n[1] = 2;
  dg_mesh mesh;
  dg_topology topo;
  dg_geometry geom;
  memset(&mesh, 0, sizeof mesh), memset(&topo, 0, sizeof topo), memset(&geom, 0, sizeof geom);
  TEST_OK(mesh_structured_2d(&opts, &mesh));
  TEST_OK(topology_build(&mesh, &topo));
  TEST_OK(geometry_build(&mesh, &topo, 3, 3, &geom));
  if (test_failures == 0) {
    const int p = 1, nvar = 4, ntri = 8, nquad = 4;
    dg_quadrature tri = {0}, quad = {0}, line = {0};
    TEST_OK(quadrature_rule(DG_TRI, info_quadrature_degree(p), &tri));
    TEST_OK(quadrature_rule(DG_QUAD, info_quadrature_degree(p), &quad));
    TEST_OK(quadrature_rule(DG_LINE, info_quadrature_degree(p), &line));
    info_memory m;
    TEST_OK(info_memory_estimate(&mesh, &topo, &geom, p, INFO_RULES_DEFAULT, &m));
    /* the byte counts: test_gpu_memory (backend_cuda_plan_bytes) */
    TEST_CHECK(m.n_dofs == ntri * 3 + nquad * 4, "dofs %lld", (long long)m.n_dofs);
    TEST_CHECK(m.lusgs.bytes[GPU_MEM_LUSGS_BLOCKS] >=
                   8 * (size_t)(ntri * 144 + nquad * 256) + 4 * (size_t)(ntri * 12 + nquad * 16),
               "LU-SGS blocks %zu", m.lusgs.bytes[GPU_MEM_LUSGS_BLOCKS]);
    TEST_CHECK(m.lusgs.bytes[GPU_MEM_FACE_JAC] ==
                   8 * 26 * 2 * (size_t)(nvar * nvar) * (size_t)line.n_points,
               "LU-SGS face Jacobians %zu", m.lusgs.bytes[GPU_MEM_FACE_JAC]);
    TEST_CLOSE(m.total, m.lusgs.total / 1048576.0, 1e-15, "total");
    TEST_FAILS(info_memory_estimate(&mesh, &topo, &geom, 4, INFO_RULES_DEFAULT, &m), DG_ERR_ARG,
               "p = 4");
    quadrature_free(&tri), quadrature_free(&quad), quadrature_free(&line);
  }
  geometry_free(&geom);
  topology_free(&topo);
  mesh_free(&mesh);
}

/* Writes the CLI tests' inputs into dir (tests/app.cmake): app_strip.cdgm,
 * a 4 x 2 checkerboard of quads and triangle pairs on [0,2] x [0,1] (4 quads,
 * 8 triangles, groups xmin xmax ymin ymax), app_strip.ini, a case mapping
 * every group, app_strip_unmapped.ini, which leaves ymax out, and
 * app_square.geo, a unit square with groups wall and farfield for Gmsh. */
static int write_fixture(const char *dir) {
  dg_mesh_structured_opts opts = mesh_structured_defaults(2);
  opts.kind = MESH_STRUCTURED_MIXED;
  opts.n[0] = 4, opts.n[1] = 2;
  opts.hi[0] = 2.0;
  dg_mesh mesh;
  memset(&mesh, 0, sizeof mesh);
  char path[1024];
  snprintf(path, sizeof path, "%s/app_strip.cdgm", dir);
  dg_status status = mesh_structured_2d(&opts, &mesh);
  if (status == DG_SUCCESS) status = mesh_write_cdgm(&mesh, path);
  mesh_free(&mesh);
  const char *head = "[mesh]\nfile = app_strip.cdgm\n[flow]\nmach = 0.5\nalpha_deg = 2\n"
                     "[discretization]\norder = 2\n[boundary]\nxmin = inflow_subsonic\n"
                     "xmax = outflow_subsonic\nymin = wall\n";
  for (int unmapped = 0; unmapped < 2 && status == DG_SUCCESS; ++unmapped) {
    snprintf(path, sizeof path, "%s/app_strip%s.ini", dir, unmapped ? "_unmapped" : "");
    FILE *f = fopen(path, "w");
    if (!f) {
      status = dg_error_set(DG_ERR_IO, __FILE__, __LINE__, __func__, "cannot write %s", path);
      break;
    }
    fprintf(f, "%s%s", head, unmapped ? "" : "ymax = symmetry\n");
    fclose(f);
  }
  snprintf(path, sizeof path, "%s/app_square.geo", dir);
  FILE *geo = status == DG_SUCCESS ? fopen(path, "w") : NULL;
  if (geo) {
    fputs("Point(1) = {0, 0, 0, 0.3}; Point(2) = {1, 0, 0, 0.3};\n"
          "Point(3) = {1, 1, 0, 0.3}; Point(4) = {0, 1, 0, 0.3};\n"
          "Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};\n"
          "Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};\n"
          "Physical Curve(\"wall\") = {1}; Physical Curve(\"farfield\") = {2, 3, 4};\n"
          "Physical Surface(\"fluid\") = {1};\n",
          geo);
    fclose(geo);
  } else if (status == DG_SUCCESS) {
    status = dg_error_set(DG_ERR_IO, __FILE__, __LINE__, __func__, "cannot write %s", path);
  }
  if (status != DG_SUCCESS) {
    dg_error_print(stderr, 1);
    return 1;
  }
  printf("wrote app_strip.cdgm, app_strip.ini, app_strip_unmapped.ini, app_square.geo in %s\n",
         dir);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--write-fixture")) return write_fixture(argv[2]);
  test_valid();
  test_defaults();
  test_newton_defaults();
  test_errors();
  test_more_errors();
  test_against_mesh();
  test_freestream();
  test_docs();
  test_memory_estimate();
  return test_finish("test_case");
}
