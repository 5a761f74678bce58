/* The checked entry points of the LU-SGS table (src/lusgs/lusgs.c,
 * lusgs_backend_assemble, _sweep_forward, _sweep_backward, _relax, _update,
 * _av_offdiag) on every backend (--backend cpu|cuda: test_lusgs_entry_cpu and
 * _cuda; the table implementations trust their arguments, so these are the
 * only checks on either backend): a NULL or destroyed marcher, vectors of
 * the wrong kind, length or context, a colour out of range, aliasing,
 * non-finite scalars, viscous products without viscosity and a table
 * without an operation (DG_ERR_UNSUPPORTED), each with the operation and the
 * backend named in the message; and that valid calls still work after
 * refused ones. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_select.h"
#include "coloring/coloring.h"
#include "dg/backend.h"
#include "limiter_problem.h"
#include "lusgs/lusgs.h"
#include "lusgs/lusgs_ops.h"
#include "test_util.h"

/* msg with "%s" replaced by the backend's name (a rotating buffer). */
static const char *named(const char *fmt) {
  static char buf[4][200];
  static int k = 0;
  char *out = buf[k++ % 4];
  snprintf(out, sizeof buf[0], fmt, test_backend_name);
  return out;
}

static void check_errors(const dg_backend *b, dg_backend_ctx *ctx, lp_problem *pb,
                         const dg_coloring *col) {
  lusgs_marcher lm;
  TEST_OK(lusgs_create(b, ctx, &pb->disc, col, &lm));
  if (!lm.lctx) return;
  const int nc = col->n_colors;
  dg_vec U = {0}, E = {0}, W = {0};
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &U));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_ELEM, &E));
  TEST_OK(dg_vec_create(b, ctx, DG_VEC_STATE, &W));
  TEST_OK(dg_vec_upload(pb->U, &U));
  double dt_min = 0.0;
  TEST_OK(dg_backend_residual(b, ctx, &U, 0.0, &lm.R));
  TEST_OK(dg_backend_timestep(b, ctx, &U, 10.0, 0, &lm.dt, &dt_min));

  /* the marcher */
  TEST_FAILS(lusgs_backend_assemble(NULL, &U, 0.0, &lm.dt), DG_ERR_ARG,
             "lusgs_backend_assemble: NULL marcher");
  lusgs_marcher dead;
  memset(&dead, 0, sizeof dead);
  TEST_FAILS(lusgs_backend_relax(&dead, 0, &U, &lm.R, &lm.dU), DG_ERR_ARG,
             "lusgs_backend_relax: the marcher was not made by lusgs_create");
  /* vector kinds, lengths, NULL, another context */
  TEST_FAILS(lusgs_backend_assemble(&lm, &U, 0.0, &W), DG_ERR_ARG,
             named("lusgs_backend_assemble (backend %s): vector dt is state-sized; expected "
                   "element-sized"));
  TEST_FAILS(lusgs_backend_sweep_forward(&lm, 0, &U, &E, &lm.dU), DG_ERR_ARG,
             named("lusgs_backend_sweep_forward (backend %s): vector R is element-sized; expected "
                   "state-sized"));
  dg_vec short_dU = lm.dU;
  short_dU.n -= 1;
  TEST_FAILS(lusgs_backend_sweep_backward(&lm, 0, &U, &short_dU), DG_ERR_ARG,
             named("lusgs_backend_sweep_backward (backend %s): vector dU has length"));
  TEST_FAILS(lusgs_backend_update(&lm, NULL, &lm.dU, 0.0), DG_ERR_ARG,
             named("lusgs_backend_update (backend %s): vector U is NULL"));
  dg_backend_ctx *other = NULL;
  dg_vec O = {0};
  TEST_OK(dg_backend_create(b, &pb->disc, &other));
  TEST_OK(dg_vec_create(b, other, DG_VEC_STATE, &O));
  TEST_FAILS(
      lusgs_backend_relax(&lm, 0, &U, &O, &lm.dU), DG_ERR_ARG,
      named("lusgs_backend_relax (backend %s): vector R belongs to another backend context"));
  /* colours */
  char want[160];
  snprintf(want, sizeof want, "lusgs_backend_sweep_forward (backend %s): colour %d outside [0, %d)",
           test_backend_name, nc, nc);
  TEST_FAILS(lusgs_backend_sweep_forward(&lm, nc, &U, &lm.R, &lm.dU), DG_ERR_ARG, want);
  snprintf(want, sizeof want, "lusgs_backend_relax (backend %s): colour -1 outside [0, %d)",
           test_backend_name, nc);
  TEST_FAILS(lusgs_backend_relax(&lm, -1, &U, &lm.R, &lm.dU), DG_ERR_ARG, want);
  TEST_FAILS(lusgs_backend_sweep_backward(&lm, nc, &U, &lm.dU), DG_ERR_ARG, "outside [0,");
  /* aliasing and scalars */
  TEST_FAILS(lusgs_backend_sweep_forward(&lm, 0, &U, &lm.R, &lm.R), DG_ERR_ARG,
             named("lusgs_backend_sweep_forward (backend %s): dU and R are the same vector"));
  TEST_FAILS(lusgs_backend_relax(&lm, 0, &U, &lm.R, &U), DG_ERR_ARG,
             "dU and U are the same vector");
  TEST_FAILS(lusgs_backend_update(&lm, &U, &U, 0.0), DG_ERR_ARG,
             named("lusgs_backend_update (backend %s): U and dU are the same vector"));
  TEST_FAILS(
      lusgs_backend_update(&lm, &U, &lm.dU, -0.1), DG_ERR_ARG,
      named("lusgs_backend_update (backend %s): max_change -0.1 must be a finite number >= 0"));
  TEST_FAILS(lusgs_backend_update(&lm, &U, &lm.dU, NAN), DG_ERR_ARG, "max_change nan");
  TEST_FAILS(lusgs_backend_assemble(&lm, &U, INFINITY, &lm.dt), DG_ERR_ARG,
             named("lusgs_backend_assemble (backend %s): time inf is not finite"));
  /* viscous products need artificial viscosity */
  TEST_FAILS(lusgs_backend_av_offdiag(&lm, 0, LUSGS_LOWER, &lm.R, &lm.dU, &W), DG_ERR_ARG,
             named("lusgs_backend_av_offdiag (backend %s): the discretisation has no artificial "
                   "viscosity"));

  /* valid calls work after the refused ones: one forward and backward pass
   * gives a finite, non-zero dU */
  TEST_OK(lusgs_backend_assemble(&lm, &U, 0.0, &lm.dt));
  for (int c = 0; c < nc; ++c) TEST_OK(lusgs_backend_sweep_forward(&lm, c, &U, &lm.R, &lm.dU));
  for (int c = nc - 1; c >= 0; --c) TEST_OK(lusgs_backend_sweep_backward(&lm, c, &U, &lm.dU));
  double norm = 0.0;
  TEST_OK(dg_vec_norm2(&lm.dU, &norm));
  TEST_CHECK(isfinite(norm) && norm > 0.0, "|dU| = %g after one sweep", norm);
  TEST_OK(lusgs_backend_update(&lm, &U, &lm.dU, 0.2));

  /* a table without an operation: DG_ERR_UNSUPPORTED, named */
  lusgs_backend bare = *lm.ops;
  bare.name = "bare";
  bare.relax = NULL;
  bare.sweep_backward = NULL;
  const lusgs_backend *saved = lm.ops;
  lm.ops = &bare;
  TEST_FAILS(lusgs_backend_relax(&lm, 0, &U, &lm.R, &lm.dU), DG_ERR_UNSUPPORTED,
             "lusgs_backend_relax (backend bare): this backend has no LU-SGS relax operation");
  TEST_FAILS(lusgs_backend_sweep_backward(&lm, 0, &U, &lm.dU), DG_ERR_UNSUPPORTED,
             "no LU-SGS sweep_backward operation");
  TEST_OK(lusgs_backend_sweep_forward(&lm, 0, &U, &lm.R, &lm.dU)); /* what it has still works */
  lm.ops = saved;
  /* ... and one without create: lusgs_create refuses it */
  lusgs_backend no_create = *saved;
  no_create.create = NULL;
  dg_backend paired = *b;
  paired.implicit_ops = &no_create;
  lusgs_marcher lm2;
  TEST_FAILS(
      lusgs_create(&paired, ctx, &pb->disc, col, &lm2), DG_ERR_UNSUPPORTED,
      named("lusgs_create (backend %s): this backend has no LU-SGS create or destroy operation"));

  dg_vec_destroy(&O);
  dg_backend_destroy(b, other);
  dg_vec_destroy(&U);
  dg_vec_destroy(&E);
  dg_vec_destroy(&W);
  lusgs_destroy(&lm);
}

int main(int argc, char **argv) {
  const int rc = test_backend_args(&argc, argv);
  if (rc) return rc;
  printf("backend %s\n", test_backend_name);
  lp_problem pb;
  TEST_OK(lp_build(MESH_STRUCTURED_MIXED, 8, 1, 0.0, 1, LP_SMOOTH, &pb));
  dg_coloring col;
  memset(&col, 0, sizeof col);
  TEST_OK(coloring_build(&pb.mesh, &pb.topo, DG_COLORING_LARGEST_FIRST, NULL, &col));
  const dg_backend *b = test_backend;
  dg_backend_ctx *ctx = NULL;
  TEST_OK(dg_backend_create(b, &pb.disc, &ctx));
  if (ctx && col.n_colors > 0) check_errors(b, ctx, &pb, &col);
  dg_backend_destroy(b, ctx);
  coloring_free(&col);
  lp_free(&pb);
  return test_finish("test_lusgs_entry");
}
