#include "lusgs/lusgs.h"
#include "dg/explicit.h"
#include "lusgs/lusgs_ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parallel/comm.h"

const lusgs_backend *lusgs_backend_for(const dg_backend *backend) {
  return backend ? (const lusgs_backend *)backend->implicit_ops : NULL;
}

dg_status lusgs_create(const dg_backend *backend, dg_backend_ctx *ctx, const dg_disc *disc,
                       const dg_coloring *coloring, lusgs_marcher *marcher) {
  DG_CHECK(backend && ctx && disc && coloring && marcher, DG_ERR_ARG,
           "lusgs_create: NULL backend, context, discretisation, colouring or output");
  /* the colouring was checked where it was made (src/coloring); only that it
   * is one of this discretisation */
  DG_CHECK(coloring->n_colors >= 1 && coloring->color && coloring->color_start &&
               coloring->color_elems && coloring->color_first,
           DG_ERR_ARG,
           "lusgs_create: a colouring with %d colours and no element lists; expected one made by "
           "coloring_build or coloring_from_colors",
           coloring->n_colors);
  DG_CHECK(coloring->n_elems == disc->view.n_elems, DG_ERR_ARG,
           "lusgs_create: the colouring has %lld elements, the discretisation %lld",
           (long long)coloring->n_elems, (long long)disc->view.n_elems);
  memset(marcher, 0, sizeof *marcher);
  const lusgs_backend *ops = lusgs_backend_for(backend);
  DG_CHECK(ops, DG_ERR_UNSUPPORTED,
           "lusgs: backend %s has no LU-SGS operations (this build has no CUDA?); use --backend "
           "cpu or scheme = explicit_rk3",
           backend->name ? backend->name : "?");
  marcher->backend = backend;
  marcher->ctx = ctx;
  marcher->ops = ops;
  marcher->coloring = coloring;
  marcher->n_colors = coloring->n_colors;
  marcher->nvar = disc->view.nvar;
  marcher->n_elems = disc->view.n_elems;
  dg_status status = dg_vec_create(backend, ctx, DG_VEC_STATE, &marcher->R);
  if (status == DG_SUCCESS) status = dg_vec_create(backend, ctx, DG_VEC_STATE, &marcher->dU);
  if (status == DG_SUCCESS) status = dg_vec_create(backend, ctx, DG_VEC_ELEM, &marcher->dt);
  marcher->av = disc->view.av != DG_AV_OFF;
  if (status == DG_SUCCESS && marcher->av) {
    if (!ops->av_offdiag)
      status = dg_error_set(DG_ERR_UNSUPPORTED, __FILE__, __LINE__, __func__,
                            "lusgs: backend %s has no artificial-viscosity LU-SGS operations",
                            backend->name);
    else
      status = dg_vec_create(backend, ctx, DG_VEC_STATE, &marcher->R_av);
    if (status == DG_SUCCESS)
      status = dg_vec_create(backend, ctx, DG_VEC_ELEM, &marcher->limit_count);
  }
  if (status == DG_SUCCESS && !(ops->create && ops->destroy))
    status = dg_error_set(DG_ERR_UNSUPPORTED, __FILE__, __LINE__, __func__,
                          "lusgs_create (backend %s): this backend has no LU-SGS create or destroy "
                          "operation",
                          backend->name);
  if (status == DG_SUCCESS) status = ops->create(ctx, disc, coloring, &marcher->lctx);
  const char *graph = getenv("COLORDG_LUSGS_GRAPH");
  /* a partition of several processes exchanges halos between the colours
   * (host synchronisation): launched colour by colour */
  const dg_halo *halo = disc->halo;
  const int partitioned = halo && halo->comm && dg_comm_size(halo->comm) > 1;
  marcher->graph_off = !(ops->graph_begin && ops->graph_end && ops->graph_launch) || partitioned ||
                       (graph && strcmp(graph, "0") == 0);
  if (status != DG_SUCCESS) {
    lusgs_destroy(marcher);
    DG_CALL(status);
  }
  return DG_SUCCESS;
}

void lusgs_destroy(lusgs_marcher *marcher) {
  if (!marcher || !marcher->backend) return;
  if (marcher->lctx && marcher->ops->destroy) marcher->ops->destroy(marcher->lctx);
  dg_vec_destroy(&marcher->R);
  dg_vec_destroy(&marcher->dU);
  dg_vec_destroy(&marcher->dt);
  dg_vec_destroy(&marcher->R_av);
  dg_vec_destroy(&marcher->limit_count);
  dg_vec_destroy(&marcher->graph_rhs);
  dg_vec_destroy(&marcher->graph_dU);
  memset(marcher, 0, sizeof *marcher);
}

double lusgs_cfl(const lusgs_opts *opts, int iteration, double res0, double res) {
  const double lo = opts->cfl_min, hi = opts->cfl_max;
  if (opts->cfl_law == LUSGS_CFL_SER) {
    if (!(res0 > 0.0 && res0 < INFINITY && res > 0.0 && res < INFINITY)) return lo;
    const double cfl = lo * res0 / res;
    return cfl < lo ? lo : (cfl > hi ? hi : cfl);
  }
  const int ns = opts->cfl_ramp_iters > 0 ? opts->cfl_ramp_iters : 1;
  double x = (double)(iteration - 1) / (double)ns;
  x = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
  return lo * pow(hi / lo, x);
}

void lusgs_set_reference(lusgs_marcher *marcher, double res0) { marcher->res0 = res0; }

double lusgs_reference(const lusgs_marcher *marcher) { return marcher ? marcher->res0 : 0.0; }

dg_status lusgs_limit_count(lusgs_marcher *marcher, double *total, int64_t *n_bad) {
  DG_CHECK(marcher && marcher->backend && marcher->limit_count.data && total, DG_ERR_ARG,
           "lusgs_limit_count: NULL marcher or total, or a marcher without artificial viscosity");
  return limiter_count_download(&marcher->limit_count, total, n_bad);
}

const char *lusgs_phase_name(lusgs_phase phase) {
  static const char *names[LUSGS_N_PHASES + 1] = {"av_hold",  "residual", "norms",       "timestep",
                                                  "face_jac", "assembly", "av_assembly", "factor",
                                                  "forward",  "backward", "update",      "end"};
  return phase >= 0 && phase <= LUSGS_N_PHASES ? names[phase] : "?";
}

void lusgs_set_phase_hook(lusgs_marcher *marcher, const lusgs_phase_hook *hook) {
  if (!marcher) return;
  memset(&marcher->hook, 0, sizeof marcher->hook);
  if (hook && hook->mark) marcher->hook = *hook;
  if (marcher->ops && marcher->ops->set_phase_hook && marcher->lctx)
    marcher->ops->set_phase_hook(marcher->lctx, marcher->hook.mark ? &marcher->hook : NULL);
}

/* ------------------------------------------------ checked entry points */

/* The checked entry points of the lusgs_backend table (lusgs.h): each
 * checks its arguments once and calls the table; the implementations trust
 * them. A new operation is one more function like these. */

static const char *lusgs_name(const lusgs_marcher *m) {
  return m && m->ops && m->ops->name ? m->ops->name : "?";
}

/* The marcher is live (made by lusgs_create, not destroyed). */
static dg_status lusgs_enter(const char *what, const lusgs_marcher *m) {
  DG_CHECK(m, DG_ERR_ARG, "%s: NULL marcher", what);
  DG_CHECK(m->backend && m->ctx && m->ops && m->lctx, DG_ERR_ARG,
           "%s: the marcher was not made by lusgs_create (or was destroyed)", what);
  return DG_SUCCESS;
}

/* The table member op of the marcher's lusgs_backend, or DG_ERR_UNSUPPORTED. */
#define LUSGS_NEED(m, member, what)                                                                \
  DG_CHECK((m)->ops->member, DG_ERR_UNSUPPORTED,                                                   \
           "%s (backend %s): this backend has no LU-SGS %s operation", what, lusgs_name(m),        \
           #member)

static dg_status lusgs_check_color(const char *what, const lusgs_marcher *m, int color) {
  DG_CHECK(color >= 0 && color < m->n_colors, DG_ERR_ARG,
           "%s (backend %s): colour %d outside [0, %d)", what, lusgs_name(m), color, m->n_colors);
  return DG_SUCCESS;
}

/* v is a live vector of the marcher's backend context, of the given kind. */
static dg_status lusgs_check_vec(const char *what, const lusgs_marcher *m, const dg_vec *v,
                                 const char *name, dg_vec_kind kind) {
  return dg_vec_check(what, m->backend, m->ctx, v, name, kind);
}

/* An output (out) must not share memory with an input (in). */
static dg_status lusgs_check_distinct(const char *what, const lusgs_marcher *m, const dg_vec *out,
                                      const char *out_name, const dg_vec *in, const char *in_name) {
  DG_CHECK(out->data != in->data || out->n == 0, DG_ERR_ARG,
           "%s (backend %s): %s and %s are the same vector", what, lusgs_name(m), out_name,
           in_name);
  return DG_SUCCESS;
}

dg_status lusgs_backend_assemble(lusgs_marcher *marcher, const dg_vec *U, double t,
                                 const dg_vec *dt) {
  const char *what = "lusgs_backend_assemble";
  DG_CALL(lusgs_enter(what, marcher));
  DG_CALL(lusgs_check_vec(what, marcher, U, "U", DG_VEC_STATE));
  DG_CALL(lusgs_check_vec(what, marcher, dt, "dt", DG_VEC_ELEM));
  DG_CHECK(isfinite(t), DG_ERR_ARG, "%s (backend %s): time %g is not finite", what,
           lusgs_name(marcher), t);
  LUSGS_NEED(marcher, assemble, what);
  return marcher->ops->assemble(marcher->lctx, U->data, t, dt->data);
}

dg_status lusgs_backend_sweep_forward(lusgs_marcher *marcher, int color, const dg_vec *U,
                                      const dg_vec *R, dg_vec *dU) {
  const char *what = "lusgs_backend_sweep_forward";
  DG_CALL(lusgs_enter(what, marcher));
  DG_CALL(lusgs_check_color(what, marcher, color));
  DG_CALL(lusgs_check_vec(what, marcher, U, "U", DG_VEC_STATE));
  DG_CALL(lusgs_check_vec(what, marcher, R, "R", DG_VEC_STATE));
  DG_CALL(lusgs_check_vec(what, marcher, dU, "dU", DG_VEC_STATE));
  DG_CALL(lusgs_check_distinct(what, marcher, dU, "dU", R, "R"));
  DG_CALL(lusgs_check_distinct(what, marcher, dU, "dU", U, "U"));
  LUSGS_NEED(marcher, sweep_forward, what);
  return marcher->ops->sweep_forward(marcher->lctx, color, U->data, R->data, dU->data);
}

dg_status lusgs_backend_sweep_backward(lusgs_marcher *marcher, int color, const dg_vec *U,
                                       dg_vec *dU) {
  const char *what = "lusgs_backend_sweep_backward";
  DG_CALL(lusgs_enter(what, marcher));
  DG_CALL(lusgs_check_color(what, marcher, color));
  DG_CALL(lusgs_check_vec(what, marcher, U, "U", DG_VEC_STATE));
  DG_CALL(lusgs_check_vec(what, marcher, dU, "dU", DG_VEC_STATE));
  DG_CALL(lusgs_check_distinct(what, marcher, dU, "dU", U, "U"));
  LUSGS_NEED(marcher, sweep_backward, what);
  return marcher->ops->sweep_backward(marcher->lctx, color, U->data, dU->data);
}

dg_status lusgs_backend_relax(lusgs_marcher *marcher, int color, const dg_vec *U, const dg_vec *R,
                              dg_vec *dU) {
  const char *what = "lusgs_backend_relax";
  DG_CALL(lusgs_enter(what, marcher));
  DG_CALL(lusgs_check_color(what, marcher, color));
  DG_CALL(lusgs_check_vec(what, marcher, U, "U", DG_VEC_STATE));
  DG_CALL(lusgs_check_vec(what, marcher, R, "R", DG_VEC_STATE));
  DG_CALL(lusgs_check_vec(what, marcher, dU, "dU", DG_VEC_STATE));
  DG_CALL(lusgs_check_distinct(what, marcher, dU, "dU", R, "R"));
  DG_CALL(lusgs_check_distinct(what, marcher, dU, "dU", U, "U"));
  LUSGS_NEED(marcher, relax, what);
  return marcher->ops->relax(marcher->lctx, color, U->data, R->data, dU->data);
}

dg_status lusgs_backend_update(lusgs_marcher *marcher, dg_vec *U, const dg_vec *dU,
                               double max_change) {
  const char *what = "lusgs_backend_update";
  DG_CALL(lusgs_enter(what, marcher));
  DG_CALL(lusgs_check_vec(what, marcher, U, "U", DG_VEC_STATE));
  DG_CALL(lusgs_check_vec(what, marcher, dU, "dU", DG_VEC_STATE));
  DG_CALL(lusgs_check_distinct(what, marcher, U, "U", dU, "dU"));
  DG_CHECK(max_change >= 0.0 && isfinite(max_change), DG_ERR_ARG,
           "%s (backend %s): max_change %g must be a finite number >= 0", what, lusgs_name(marcher),
           max_change);
  LUSGS_NEED(marcher, update, what);
  return marcher->ops->update(marcher->lctx, U->data, dU->data, max_change);
}

dg_status lusgs_backend_av_offdiag(lusgs_marcher *marcher, int color, int which, const dg_vec *R,
                                   const dg_vec *dU, dg_vec *R_out) {
  const char *what = "lusgs_backend_av_offdiag";
  DG_CALL(lusgs_enter(what, marcher));
  DG_CHECK(marcher->av, DG_ERR_ARG,
           "%s (backend %s): the discretisation has no artificial viscosity", what,
           lusgs_name(marcher));
  DG_CALL(lusgs_check_color(what, marcher, color));
  DG_CHECK(which == LUSGS_LOWER || which == LUSGS_UPPER || which == LUSGS_ALL, DG_ERR_ARG,
           "%s (backend %s): neighbour selection %d; expected LUSGS_LOWER, LUSGS_UPPER or "
           "LUSGS_ALL",
           what, lusgs_name(marcher), which);
  DG_CALL(lusgs_check_vec(what, marcher, R, "R", DG_VEC_STATE));
  DG_CALL(lusgs_check_vec(what, marcher, dU, "dU", DG_VEC_STATE));
  DG_CALL(lusgs_check_vec(what, marcher, R_out, "R_out", DG_VEC_STATE));
  DG_CALL(lusgs_check_distinct(what, marcher, R_out, "R_out", R, "R"));
  DG_CALL(lusgs_check_distinct(what, marcher, R_out, "R_out", dU, "dU"));
  LUSGS_NEED(marcher, av_offdiag, what);
  return marcher->ops->av_offdiag(marcher->lctx, color, which, R->data, dU->data, R_out->data);
}

dg_status lusgs_backend_matvec(lusgs_marcher *marcher, const dg_vec *U, const dg_vec *x,
                               dg_vec *y) {
  const char *what = "lusgs_backend_matvec";
  DG_CALL(lusgs_enter(what, marcher));
  DG_CALL(lusgs_check_vec(what, marcher, U, "U", DG_VEC_STATE));
  DG_CALL(lusgs_check_vec(what, marcher, x, "x", DG_VEC_STATE));
  DG_CALL(lusgs_check_vec(what, marcher, y, "y", DG_VEC_STATE));
  DG_CALL(lusgs_check_distinct(what, marcher, y, "y", x, "x"));
  DG_CALL(lusgs_check_distinct(what, marcher, y, "y", U, "U"));
  LUSGS_NEED(marcher, matvec, what);
  return marcher->ops->matvec(marcher->lctx, U->data, x->data, y->data);
}

dg_status lusgs_backend_mass(lusgs_marcher *marcher, const dg_vec *dt, const dg_vec *x, dg_vec *y) {
  const char *what = "lusgs_backend_mass";
  DG_CALL(lusgs_enter(what, marcher));
  DG_CALL(lusgs_check_vec(what, marcher, dt, "dt", DG_VEC_ELEM));
  DG_CALL(lusgs_check_vec(what, marcher, x, "x", DG_VEC_STATE));
  DG_CALL(lusgs_check_vec(what, marcher, y, "y", DG_VEC_STATE));
  DG_CALL(lusgs_check_distinct(what, marcher, y, "y", x, "x"));
  LUSGS_NEED(marcher, mass, what);
  return marcher->ops->mass(marcher->lctx, dt->data, x->data, y->data);
}

/* ------------------------------------------------ the marcher */

/* Tells the profile hook (if any) that phase begins. */
static dg_status lusgs_mark(const lusgs_marcher *marcher, lusgs_phase phase) {
  return marcher->hook.mark ? marcher->hook.mark(marcher->hook.user, phase) : DG_SUCCESS;
}

/* lusgs_apply's operations, launched (or recorded) one colour at a time. */
static dg_status lusgs_apply_launches(lusgs_marcher *marcher, const dg_vec *U, const dg_vec *rhs,
                                      int passes, dg_vec *dU) {
  const int n_colors = marcher->n_colors;
  /* partitions: after each colour the ghosts' dU from their owners, so the
   * next colour reads what one process would (docs/ARCHITECTURE.md §8);
   * with halo_per_pass only after each pass: the ghosts' dU lags by one
   * pass (zero in the first), block Jacobi between the ranks */
  const dg_backend *b = marcher->backend;
  dg_backend_ctx *ctx = marcher->ctx;
  const int per_pass = marcher->halo_per_pass;
  /* repeat = 1: a colour's update that would follow an update of the same
   * colour is left out, with its halo exchange. Such a pair occurs at each
   * turn of the symmetric sweeps (the last colour at the end of a forward
   * pass, the first at the start of the next pass). An update reads only
   * the right-hand side and the other colours' dU (never its own), so the
   * second would write the same bits as the first: of the 2 C launches of
   * a pass with C colours, 2 C - 2 remain (33 % fewer with 3 colours). Not
   * with halo_per_pass: the ghosts change between the two. The backward
   * sweep of the first pass's last colour subtracts D⁻¹ times an empty
   * sum (no neighbour of the last colour is upper), zero. */
  const int repeat = !per_pass;
  /* the first pass reads only colours it has written, and ghosts */
  if (per_pass) DG_CALL(dg_vec_set(0.0, dU));
  if (marcher->av) {
    /* viscous coupling (lusgs_av.h): each colour relaxes against rhs minus
     * the viscous products of its neighbours' current dU; the backward pass
     * is a downward relaxation (equal to sweep_backward after a forward
     * pass) */
    dg_vec *Rv = &marcher->R_av;
    for (int sweep = 0; sweep < passes; ++sweep) {
      DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_FORWARD));
      /* after the first pass, colour 0 was just relaxed by the backward pass
       * before (see `repeat` above) */
      for (int c = repeat && sweep ? 1 : 0; c < n_colors; ++c) {
        DG_CALL(lusgs_backend_av_offdiag(marcher, c, sweep ? LUSGS_ALL : LUSGS_LOWER, rhs, dU, Rv));
        if (sweep)
          DG_CALL(lusgs_backend_relax(marcher, c, U, Rv, dU));
        else
          DG_CALL(lusgs_backend_sweep_forward(marcher, c, U, Rv, dU));
        if (!per_pass) DG_CALL(dg_backend_halo(b, ctx, dU));
      }
      if (per_pass) DG_CALL(dg_backend_halo(b, ctx, dU));
      DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_BACKWARD));
      /* the first pass's forward sweep of the last colour is another kernel */
      for (int c = n_colors - 1 - (repeat && sweep); c >= 0; --c) {
        DG_CALL(lusgs_backend_av_offdiag(marcher, c, LUSGS_ALL, rhs, dU, Rv));
        DG_CALL(lusgs_backend_relax(marcher, c, U, Rv, dU));
        if (!per_pass) DG_CALL(dg_backend_halo(b, ctx, dU));
      }
      if (per_pass) DG_CALL(dg_backend_halo(b, ctx, dU));
    }
    return DG_SUCCESS;
  }
  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_FORWARD));
  for (int c = 0; c < n_colors; ++c) {
    DG_CALL(lusgs_backend_sweep_forward(marcher, c, U, rhs, dU));
    if (!per_pass) DG_CALL(dg_backend_halo(b, ctx, dU));
  }
  if (per_pass) DG_CALL(dg_backend_halo(b, ctx, dU));
  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_BACKWARD));
  for (int c = n_colors - 1 - repeat; c >= 0; --c) {
    DG_CALL(lusgs_backend_sweep_backward(marcher, c, U, dU));
    if (!per_pass) DG_CALL(dg_backend_halo(b, ctx, dU));
  }
  if (per_pass) DG_CALL(dg_backend_halo(b, ctx, dU));
  /* extra symmetric block Gauss–Seidel sweeps on (D + L + U) dU = rhs */
  for (int sweep = 1; sweep < passes; ++sweep) {
    DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_FORWARD));
    /* colour 0 after a relaxation of it (the first pass ends with the
     * backward sweep's kernel, whose bits differ) */
    for (int c = repeat && sweep > 1 ? 1 : 0; c < n_colors; ++c) {
      DG_CALL(lusgs_backend_relax(marcher, c, U, rhs, dU));
      if (!per_pass) DG_CALL(dg_backend_halo(b, ctx, dU));
    }
    if (per_pass) DG_CALL(dg_backend_halo(b, ctx, dU));
    DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_BACKWARD));
    for (int c = n_colors - 1 - repeat; c >= 0; --c) {
      DG_CALL(lusgs_backend_relax(marcher, c, U, rhs, dU));
      if (!per_pass) DG_CALL(dg_backend_halo(b, ctx, dU));
    }
    if (per_pass) DG_CALL(dg_backend_halo(b, ctx, dU));
  }
  return DG_SUCCESS;
}

/* lusgs_apply by the backend's recording: replayed when one exists for
 * these arguments, else recorded first. A right-hand side and output other
 * than the marcher's own R and dU (a Krylov solver's vectors) go through
 * two staging vectors, so one recording serves every call. *done = 0 when
 * the recording failed: lusgs_apply then launches the operations itself
 * from now on (the warning says why). */
static dg_status lusgs_apply_graph(lusgs_marcher *marcher, const dg_vec *U, const dg_vec *rhs,
                                   int passes, dg_vec *dU, int *done) {
  *done = 0;
  const dg_vec *in = rhs;
  dg_vec *out = dU;
  if (rhs->data != marcher->R.data || dU->data != marcher->dU.data) {
    if (!marcher->graph_rhs.data)
      DG_CALL(dg_vec_create(marcher->backend, marcher->ctx, DG_VEC_STATE, &marcher->graph_rhs));
    if (!marcher->graph_dU.data)
      DG_CALL(dg_vec_create(marcher->backend, marcher->ctx, DG_VEC_STATE, &marcher->graph_dU));
    DG_CALL(dg_vec_copy(rhs, &marcher->graph_rhs));
    in = &marcher->graph_rhs;
    out = &marcher->graph_dU;
  }
  int launched = 0;
  if (marcher->graph_have && marcher->graph_U == U->data && marcher->graph_in == in->data &&
      marcher->graph_out == out->data && marcher->graph_passes == passes)
    DG_CALL(marcher->ops->graph_launch(marcher->lctx, &launched));
  if (!launched) {
    marcher->graph_have = 0;
    dg_status st = marcher->ops->graph_begin(marcher->lctx);
    if (st == DG_SUCCESS) {
      st = lusgs_apply_launches(marcher, U, in, passes, out);
      const dg_status end = marcher->ops->graph_end(marcher->lctx, st != DG_SUCCESS);
      if (st == DG_SUCCESS) st = end;
    }
    if (st == DG_SUCCESS) st = marcher->ops->graph_launch(marcher->lctx, &launched);
    if (st != DG_SUCCESS || !launched) {
      fprintf(stderr,
              "lusgs (backend %s): the recording of the sweeps failed (%s); the sweeps are "
              "launched colour by colour from now on\n",
              lusgs_name(marcher), st != DG_SUCCESS ? dg_error_message() : "not replayable");
      dg_error_clear();
      marcher->graph_off = 1;
      return DG_SUCCESS;
    }
    marcher->graph_have = 1;
    marcher->graph_U = U->data;
    marcher->graph_in = in->data;
    marcher->graph_out = out->data;
    marcher->graph_passes = passes;
  } else {
    ++marcher->graph_replays;
  }
  if (out != dU) DG_CALL(dg_vec_copy(out, dU));
  *done = 1;
  return DG_SUCCESS;
}

dg_status lusgs_apply(lusgs_marcher *marcher, const dg_vec *U, const dg_vec *rhs, int n_sweeps,
                      dg_vec *dU) {
  DG_CHECK(marcher && marcher->backend && U && rhs && dU, DG_ERR_ARG,
           "lusgs_apply: NULL marcher, state, right-hand side or output");
  DG_CHECK(U->data && U->kind == DG_VEC_STATE && rhs->data && rhs->kind == DG_VEC_STATE &&
               dU->data && dU->kind == DG_VEC_STATE,
           DG_ERR_ARG, "lusgs_apply: U, rhs and dU must be live state-sized vectors");
  DG_CHECK(n_sweeps >= 0 && n_sweeps <= LUSGS_MAX_SWEEPS, DG_ERR_ARG,
           "lusgs_apply: %d symmetric sweeps; expected 1 to %d (0 means 1)", n_sweeps,
           LUSGS_MAX_SWEEPS);
  DG_CHECK(dU->data != rhs->data && dU->data != U->data &&
               (!marcher->R_av.data ||
                (dU->data != marcher->R_av.data && rhs->data != marcher->R_av.data)),
           DG_ERR_ARG, "lusgs_apply: dU aliases the right-hand side, the state or the scratch");
  const int passes = n_sweeps > 1 ? n_sweeps : 1;
  if (!marcher->graph_off && !marcher->hook.mark) {
    int done = 0;
    DG_CALL(lusgs_apply_graph(marcher, U, rhs, passes, dU, &done));
    if (done) return DG_SUCCESS;
  }
  return lusgs_apply_launches(marcher, U, rhs, passes, dU);
}

dg_status lusgs_matvec(lusgs_marcher *marcher, const dg_vec *U, const dg_vec *x, dg_vec *y) {
  DG_CHECK(marcher && x, DG_ERR_ARG, "lusgs_matvec: NULL marcher or x");
  /* partitions: the off-diagonal products read the ghosts' x (a ghost entry
   * of a vector is a copy of its owner's, so refreshing it changes nothing
   * the caller owns) */
  dg_vec xg = *x;
  DG_CALL(dg_backend_halo(marcher->backend, marcher->ctx, &xg));
  return lusgs_backend_matvec(marcher, U, x, y);
}

dg_status lusgs_keep_factors(lusgs_marcher *marcher) {
  DG_CALL(lusgs_enter("lusgs_keep_factors", marcher));
  if (marcher->ops->keep_factors) DG_CALL(marcher->ops->keep_factors(marcher->lctx));
  return DG_SUCCESS;
}

dg_status lusgs_set_inverse_single(lusgs_marcher *marcher, int single) {
  DG_CALL(lusgs_enter("lusgs_set_inverse_single", marcher));
  if (!marcher->ops->set_inverse_single) {
    DG_CHECK(!single, DG_ERR_UNSUPPORTED,
             "lusgs_set_inverse_single (backend %s): no single-precision inverse blocks on this "
             "backend",
             marcher->ops->name);
    return DG_SUCCESS;
  }
  return marcher->ops->set_inverse_single(marcher->lctx, single != 0);
}

dg_status lusgs_set_face_jacobian_forward(lusgs_marcher *marcher, int forward) {
  DG_CALL(lusgs_enter("lusgs_set_face_jacobian_forward", marcher));
  if (!marcher->ops->set_face_jacobian_forward) {
    DG_CHECK(!forward, DG_ERR_UNSUPPORTED,
             "lusgs_set_face_jacobian_forward (backend %s): no forward-difference face "
             "Jacobians on this backend",
             marcher->ops->name);
    return DG_SUCCESS;
  }
  return marcher->ops->set_face_jacobian_forward(marcher->lctx, forward != 0);
}

dg_status lusgs_sync(lusgs_marcher *marcher) {
  DG_CALL(lusgs_enter("lusgs_sync", marcher));
  return marcher->ops->sync ? marcher->ops->sync(marcher->lctx) : DG_SUCCESS;
}

dg_status lusgs_mass(lusgs_marcher *marcher, const dg_vec *dt, const dg_vec *x, dg_vec *y) {
  return lusgs_backend_mass(marcher, dt, x, y);
}

dg_status lusgs_update(lusgs_marcher *marcher, dg_vec *U, const dg_vec *dU, double max_change) {
  return lusgs_backend_update(marcher, U, dU, max_change);
}

dg_status lusgs_assemble(lusgs_marcher *marcher, const dg_vec *U, double t, const dg_vec *dt) {
  DG_CALL(lusgs_enter("lusgs_assemble", marcher));
  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_FACE_JAC));
  marcher->blocks_cfl = 0.0; /* the next lusgs_step assembles its own */
  return lusgs_backend_assemble(marcher, U, t, dt);
}

dg_status lusgs_step(lusgs_marcher *marcher, dg_vec *U, double t, int iteration,
                     const lusgs_opts *opts, lusgs_info *info) {
  DG_CHECK(marcher && marcher->backend && U && opts, DG_ERR_ARG,
           "lusgs_step: NULL marcher, state or options");
  DG_CHECK(opts->cfl_min > 0.0 && opts->cfl_max >= opts->cfl_min, DG_ERR_ARG,
           "lusgs_step: CFL range [%g, %g] is not positive and ordered", opts->cfl_min,
           opts->cfl_max);
  DG_CHECK(opts->n_sweeps >= 0 && opts->n_sweeps <= LUSGS_MAX_SWEEPS, DG_ERR_ARG,
           "lusgs_step: %d symmetric sweeps per iteration; expected 1 to %d (0 means 1)",
           opts->n_sweeps, LUSGS_MAX_SWEEPS);
  const dg_backend *b = marcher->backend;
  dg_backend_ctx *ctx = marcher->ctx;
  lusgs_info local;
  lusgs_info *out = info ? info : &local;
  memset(out, 0, sizeof *out);

  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_AV_HOLD));
  if (marcher->av) {
    /* ε of this iteration, held for the residual, the blocks and the sweeps */
    const double omega = opts->av_relax > 0.0 ? opts->av_relax : 1.0;
    DG_CHECK(omega <= 1.0, DG_ERR_ARG, "lusgs_step: viscosity relaxation %g outside (0, 1]", omega);
    DG_CALL(dg_backend_av_hold(b, ctx, U, omega));
  }
  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_RESIDUAL));
  DG_CALL(dg_backend_residual(b, ctx, U, t, &marcher->R));
  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_NORMS));
  int finite = 1;
  DG_CALL(dg_backend_norms(b, ctx, &marcher->R, out->res_norm, &finite));
  out->finite = finite;
  DG_CHECK(finite, DG_ERR_DIVERGED, "lusgs: the residual of iteration %d is not finite", iteration);
  double total = 0.0;
  for (int v = 0; v < marcher->nvar; ++v) total += out->res_norm[v] * out->res_norm[v];
  out->res_total = sqrt(total);
  if (!(marcher->res0 > 0.0)) marcher->res0 = out->res_total;

  out->cfl = lusgs_cfl(opts, iteration, marcher->res0, out->res_total);
  /* the blocks of an earlier iteration at the same (largest) CFL are kept
   * between the rebuilds of opts->jacobian_interval */
  const int keep = opts->jacobian_interval > 1 && out->cfl == opts->cfl_max &&
                   marcher->blocks_cfl == out->cfl && iteration % opts->jacobian_interval != 0;
  if (keep) {
    out->dt_min = marcher->blocks_dt_min;
  } else {
    DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_TIMESTEP));
    DG_CALL(dg_backend_timestep(b, ctx, U, out->cfl, 0, &marcher->dt, &out->dt_min));
    DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_FACE_JAC));
    marcher->blocks_cfl = 0.0; /* until the assembly succeeds */
    DG_CALL(lusgs_backend_assemble(marcher, U, t, &marcher->dt));
    marcher->blocks_cfl = out->cfl;
    marcher->blocks_dt_min = out->dt_min;
  }
  DG_CALL(lusgs_apply(marcher, U, &marcher->R, opts->n_sweeps, &marcher->dU));
  DG_CALL(lusgs_mark(marcher, LUSGS_PHASE_UPDATE));
  DG_CALL(lusgs_backend_update(marcher, U, &marcher->dU, opts->max_change));
  /* the positivity guard of the explicit path (limiter.h) on the new state */
  if (marcher->av) DG_CALL(dg_backend_limit(b, ctx, U, &marcher->limit_count));
  DG_CALL(lusgs_mark(marcher, LUSGS_N_PHASES));
  return DG_SUCCESS;
}

/* ------------------------------------------------- marcher interface */

/* The phase profile of a run (environment variable COLORDG_LUSGS_PHASES
 * set): a phase hook that waits for the device at every mark (ops->sync)
 * and adds the host time since the previous mark, and the halo wait in it
 * (dg_exchange_get_totals), to the running phase. Each rank prints its
 * totals to stderr when the marcher is destroyed (the end of a run or of a
 * p-sequencing stage). The waits change the overlap of phases a little. */
typedef struct lusgs_profile {
  lusgs_marcher *m;
  int phase;      /* running phase; -1 between iterations */
  double t, wait; /* host seconds and halo wait seconds at its mark */
  double s[LUSGS_N_PHASES], w[LUSGS_N_PHASES];
  int64_t iterations;
} lusgs_profile;

static double lusgs_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static dg_status lusgs_profile_mark(void *user, lusgs_phase phase) {
  lusgs_profile *p = user;
  if (p->m->ops->sync) DG_CALL(p->m->ops->sync(p->m->lctx));
  const double now = lusgs_seconds(), wait = dg_exchange_get_totals().wait_seconds;
  if (p->phase >= 0) {
    p->s[p->phase] += now - p->t;
    p->w[p->phase] += wait - p->wait;
  }
  p->phase = phase == LUSGS_N_PHASES ? -1 : (int)phase;
  if (phase == LUSGS_N_PHASES) ++p->iterations;
  p->t = now, p->wait = wait;
  return DG_SUCCESS;
}

/* One line per rank: ms per iteration of each phase that took time, with
 * the halo wait inside it in brackets. */
static void lusgs_profile_print(const lusgs_profile *p) {
  if (p->iterations == 0) return;
  char line[1024];
  int n =
      snprintf(line, sizeof line,
               "lusgs phases rank %d (%lld elements, %lld iterations), ms per iteration "
               "[halo wait]:",
               dg_comm_rank(dg_comm_world()), (long long)p->m->n_elems, (long long)p->iterations);
  double total = 0.0;
  for (int k = 0; k < LUSGS_N_PHASES && n > 0 && n < (int)sizeof line; ++k) {
    total += p->s[k];
    if (p->s[k] <= 0.0) continue;
    n += snprintf(line + n, sizeof line - (size_t)n, " %s %.2f [%.2f]",
                  lusgs_phase_name((lusgs_phase)k), 1e3 * p->s[k] / (double)p->iterations,
                  1e3 * p->w[k] / (double)p->iterations);
  }
  fprintf(stderr, "%s; total %.2f\n", line, 1e3 * total / (double)p->iterations);
}

/* The LU-SGS marcher behind dg_marcher (src/dg/marcher.h). */
typedef struct lusgs_marcher_impl {
  lusgs_marcher lusgs;
  lusgs_opts opts;
  int64_t steps, residuals;
  lusgs_profile *profile; /* COLORDG_LUSGS_PHASES; NULL: none */
} lusgs_marcher_impl;

static void lusgs_marcher_if_destroy(dg_marcher *m) {
  if (!m || !m->impl) return;
  lusgs_marcher_impl *x = m->impl;
  if (x->profile) {
    lusgs_profile_print(x->profile);
    lusgs_set_phase_hook(&x->lusgs, NULL);
    free(x->profile);
  }
  lusgs_destroy(&x->lusgs);
  free(x);
  m->impl = NULL;
  m->ops = NULL;
}

static dg_status lusgs_marcher_if_create(const dg_backend *backend, dg_backend_ctx *ctx,
                                         const dg_disc *disc, const dg_marcher_settings *settings,
                                         dg_marcher *m) {
  DG_CHECK(settings && m, DG_ERR_ARG, "lusgs: NULL settings or output");
  m->ops = NULL;
  m->impl = NULL;
  lusgs_marcher_impl *x = NULL;
  DG_CALL(DG_CALLOC(x, 1));
  dg_status status = lusgs_create(backend, ctx, disc, settings->coloring, &x->lusgs);
  if (status == DG_SUCCESS && settings->inverse_single) {
    status = lusgs_set_inverse_single(&x->lusgs, 1);
    if (status != DG_SUCCESS) lusgs_destroy(&x->lusgs);
  }
  if (status == DG_SUCCESS && settings->jacobian_forward) {
    status = lusgs_set_face_jacobian_forward(&x->lusgs, 1);
    if (status != DG_SUCCESS) lusgs_destroy(&x->lusgs);
  }
  if (status != DG_SUCCESS) {
    free(x);
    DG_CALL(status);
  }
  const lusgs_opts opts = {settings->cfl_law,        settings->cfl_min,          settings->cfl_max,
                           settings->cfl_ramp_iters, settings->n_sweeps,         settings->av_relax,
                           settings->max_change,     settings->jacobian_interval};
  x->opts = opts;
  lusgs_set_reference(&x->lusgs, settings->res_reference);
  x->lusgs.halo_per_pass = settings->rank_coupling;
  if (getenv("COLORDG_LUSGS_PHASES")) {
    const dg_status st = DG_CALLOC(x->profile, 1);
    if (st != DG_SUCCESS) {
      lusgs_destroy(&x->lusgs);
      free(x);
      DG_CALL(st);
    }
    x->profile->m = &x->lusgs;
    x->profile->phase = -1;
    const lusgs_phase_hook hook = {lusgs_profile_mark, x->profile};
    lusgs_set_phase_hook(&x->lusgs, &hook);
  }
  m->ops = lusgs_marcher_ops();
  m->impl = x;
  return DG_SUCCESS;
}

static dg_status lusgs_marcher_if_step(dg_marcher *m, dg_vec *U, const dg_marcher_step_opts *opts,
                                       dg_marcher_info *info) {
  DG_CHECK(m && m->impl && opts && info, DG_ERR_ARG, "lusgs: NULL marcher, options or info");
  lusgs_marcher_impl *x = m->impl;
  memset(info, 0, sizeof *info);
  info->iteration = opts->iteration;
  info->bad_equation = -1;
  lusgs_info li;
  ++x->steps;
  if (opts->fresh_blocks) x->lusgs.blocks_cfl = 0.0; /* none kept */
  const dg_status status = lusgs_step(&x->lusgs, U, opts->t, opts->iteration, &x->opts, &li);
  /* steady: the time stays; norms every iteration */
  info->dt = 0.0;
  info->dt_min = li.dt_min;
  info->cfl = li.cfl;
  info->has_norms = 1;
  info->finite = li.finite;
  for (int v = 0; v < x->lusgs.nvar; ++v) {
    info->res_norm[v] = li.res_norm[v];
    if (info->bad_equation < 0 && !isfinite(li.res_norm[v])) info->bad_equation = v;
  }
  info->res_total = li.res_total;
  info->diverged = status == DG_ERR_DIVERGED;
  if (status == DG_SUCCESS) ++x->residuals;
  return status;
}

static dg_status lusgs_marcher_if_stats(dg_marcher *m, int with_limiter, dg_marcher_stats *stats) {
  DG_CHECK(m && m->impl && stats, DG_ERR_ARG, "lusgs: NULL marcher or output");
  lusgs_marcher_impl *x = m->impl;
  memset(stats, 0, sizeof *stats);
  stats->steps = x->steps;
  stats->residuals = x->residuals;
  stats->res_reference = lusgs_reference(&x->lusgs);
  stats->has_limiter = x->lusgs.av;
  if (with_limiter && stats->has_limiter)
    DG_CALL(lusgs_limit_count(&x->lusgs, &stats->limit_total, &stats->limit_bad));
  return DG_SUCCESS;
}

const dg_marcher_ops *lusgs_marcher_ops(void) {
  static const dg_marcher_ops ops = {
      .name = "lusgs",
      .cfl_key = "cfl_max",
      .time_accurate = 0,
      .holds_av = 1,
      .stop_any_step = 1,
      .create = lusgs_marcher_if_create,
      .step = lusgs_marcher_if_step,
      .stable_step = NULL,
      .stats = lusgs_marcher_if_stats,
      .destroy = lusgs_marcher_if_destroy,
  };
  return &ops;
}

lusgs_marcher *lusgs_marcher_of(dg_marcher *m) {
  return m && m->ops == lusgs_marcher_ops() && m->impl ? &((lusgs_marcher_impl *)m->impl)->lusgs
                                                       : NULL;
}
