/* The residual plan (residual_plan.h): the one place that orders the
 * residual's passes. */
#include "dg/residual_plan.h"

#include <string.h>

static dg_status plan_add(dg_residual_plan *plan, dg_pass_kind kind, int shape, int64_t begin,
                          int64_t end) {
  if (end <= begin && kind != DG_PASS_HALO_START && kind != DG_PASS_HALO_FINISH &&
      kind != DG_PASS_HALO_EPS)
    return DG_SUCCESS; /* nothing to do: left out */
  DG_CHECK(plan->n_passes < DG_PLAN_MAX_PASSES, DG_ERR_INTERNAL,
           "residual plan: more than %d passes", DG_PLAN_MAX_PASSES);
  dg_pass *p = &plan->pass[plan->n_passes++];
  p->kind = kind;
  p->shape = shape;
  p->begin = begin;
  p->end = end;
  return DG_SUCCESS;
}

dg_status residual_plan_build(const dg_disc_view *d, dg_residual_plan *plan) {
  DG_CHECK(d && plan, DG_ERR_ARG, "residual plan: build needs a view and an output");
  memset(plan, 0, sizeof *plan);
  DG_CHECK(d->n_interior >= 0 && d->n_interior <= d->n_faces, DG_ERR_ARG,
           "residual plan: %lld interior faces of %lld", (long long)d->n_interior,
           (long long)d->n_faces);
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    DG_CHECK(d->n_owned[s] >= 0 && d->n_owned[s] <= d->n_shape[s], DG_ERR_ARG,
             "residual plan: shape %d has %lld owned elements of %lld", s, (long long)d->n_owned[s],
             (long long)d->n_shape[s]);
  DG_CHECK(d->n_inner >= 0 && d->n_inner <= d->n_interior, DG_ERR_ARG,
           "residual plan: %lld inner faces of %lld interior faces", (long long)d->n_inner,
           (long long)d->n_interior);
  int ghosts = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) ghosts |= d->n_owned[s] < d->n_shape[s];
  /* a partitioned run exchanges the ghosts' U here (docs/ARCHITECTURE.md
   * §8); without viscosity the faces between owned elements are computed
   * while the messages are in flight */
  const int overlap = ghosts && d->av == DG_AV_OFF;
  DG_CALL(plan_add(plan, DG_PASS_HALO_START, -1, 0, 0));
  if (overlap) DG_CALL(plan_add(plan, DG_PASS_FACES_INTERIOR, -1, 0, d->n_inner));
  DG_CALL(plan_add(plan, DG_PASS_HALO_FINISH, -1, 0, 0));
  if (d->av != DG_AV_OFF) {
    DG_CALL(plan_add(plan, DG_PASS_AV_EPS, -1, 0, d->n_elems));
    if (d->av == DG_AV_CONTINUOUS)
      DG_CALL(plan_add(plan, DG_PASS_AV_VERTEX_EPS, -1, 0, d->n_verts));
    DG_CALL(plan_add(plan, DG_PASS_AV_COEFS, -1, 0, d->n_elems));
    /* a ghost's vertex means miss the elements beyond the ghosts: its eps_c
     * comes from its owner, who has them all */
    if (d->av == DG_AV_CONTINUOUS && ghosts) DG_CALL(plan_add(plan, DG_PASS_HALO_EPS, -1, 0, 0));
    for (int s = 0; s < DG_NUM_SHAPES; ++s)
      DG_CALL(plan_add(plan, DG_PASS_AV_GRADIENT, s, d->elem_start[s],
                       d->elem_start[s] + d->n_shape[s]));
  }
  /* topology numbers the interior faces (periodic pairs included) first */
  DG_CALL(plan_add(plan, DG_PASS_FACES_INTERIOR, -1, overlap ? d->n_inner : 0, d->n_interior));
  DG_CALL(plan_add(plan, DG_PASS_FACES_BOUNDARY, -1, d->n_interior, d->n_faces));
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    DG_CALL(
        plan_add(plan, DG_PASS_ELEMENTS, s, d->elem_start[s], d->elem_start[s] + d->n_owned[s]));
  return DG_SUCCESS;
}

/* Family of a kind for residual_plan_run: passes of one family run one
 * kernel; -1: never merged. */
static int plan_family(dg_pass_kind kind) {
  switch (kind) {
  case DG_PASS_FACES_INTERIOR:
  case DG_PASS_FACES_BOUNDARY: return 1;
  case DG_PASS_AV_GRADIENT: return 2;
  case DG_PASS_ELEMENTS: return 3;
  default: return -1;
  }
}

int residual_plan_run(const dg_residual_plan *plan, int i, dg_pass *run) {
  *run = plan->pass[i];
  const int family = plan_family(run->kind);
  int j = i + 1;
  if (family < 0) return j;
  for (; j < plan->n_passes; ++j) {
    const dg_pass *p = &plan->pass[j];
    if (plan_family(p->kind) != family || p->begin != run->end) break;
    if (p->shape != run->shape) run->shape = -1;
    run->end = p->end;
  }
  return j;
}

const char *residual_plan_pass_name(dg_pass_kind kind) {
  switch (kind) {
  case DG_PASS_HALO_START: return "halo_start";
  case DG_PASS_HALO_FINISH: return "halo_finish";
  case DG_PASS_AV_EPS: return "av_eps";
  case DG_PASS_AV_VERTEX_EPS: return "av_vertex_eps";
  case DG_PASS_AV_COEFS: return "av_coefs";
  case DG_PASS_AV_GRADIENT: return "av_gradient";
  case DG_PASS_FACES_INTERIOR: return "faces_interior";
  case DG_PASS_FACES_BOUNDARY: return "faces_boundary";
  case DG_PASS_ELEMENTS: return "elements";
  case DG_PASS_HALO_EPS: return "halo_eps";
  default: return "unknown";
  }
}
