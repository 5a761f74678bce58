/* The residual plan (src/dg/residual_plan.h), the run-time state split from
 * the discretisation view (dg_disc_state, src/dg/disc.h) and the owned /
 * ghost element ranges (docs/ARCHITECTURE.md §3, §4), on the CPU backend:
 * - the plan lists the passes in order (halo markers, ε passes with AV,
 *   interior faces, boundary faces, owned elements per shape) with ranges
 *   that cover the faces and the owned elements once; topology numbers the
 *   interior faces first, which the face range split relies on;
 *   residual_plan_run merges adjacent passes of one family and stops at gaps;
 * - set_circulation and av_hold change the backend's state, never its view,
 *   and the circulation reaches the residual through the state;
 * - with ghost elements at the end of each shape block (n_owned < n_shape),
 *   the residual, time step, norms, forces and RK update touch the owned
 *   elements only, and the owned values are the bits of the run without
 *   ghosts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_select.h"
#include "dg/backend_cpu.h"
#include "dg/disc.h"
#include "dg/residual_ops.h"
#include "dg/residual_plan.h"
#include "mesh/geometry.h"
#include "mesh/mesh_structured.h"
#include "mesh/topology.h"
#include "test_util.h"

typedef struct {
  dg_mesh mesh;
  dg_topology topo;
  dg_geometry geom;
  dg_disc disc;
} fixture;

static void fixture_free(fixture *fx) {
  disc_free(&fx->disc);
  geometry_free(&fx->geom);
  topology_free(&fx->topo);
  mesh_free(&fx->mesh);
  memset(fx, 0, sizeof *fx);
}

/* A 4 x 4 mixed (triangles and quadrilaterals) mesh of [-2, 2]², periodic
 * in x when periodic, far field with the point-vortex correction on every
 * group, degree p, artificial viscosity av. */
static int fixture_build(fixture *fx, int p, int av, int periodic) {
  memset(fx, 0, sizeof *fx);
  dg_mesh_structured_opts mo = mesh_structured_defaults(2);
  mo.kind = MESH_STRUCTURED_MIXED;
  mo.n[0] = mo.n[1] = 4;
  mo.lo[0] = mo.lo[1] = -2.0;
  mo.hi[0] = mo.hi[1] = 2.0;
  mo.deform = 0.05;
  mo.periodic[0] = periodic;
  dg_status st = mesh_structured_2d(&mo, &fx->mesh);
  if (st == DG_SUCCESS) st = topology_build(&fx->mesh, &fx->topo);
  if (st == DG_SUCCESS) st = geometry_build(&fx->mesh, &fx->topo, 2 * p + 1, 2 * p + 1, &fx->geom);
  if (st == DG_SUCCESS) {
    int32_t bc[8];
    physics_bc_data data[8];
    dg_disc_opts o = {0};
    o.p = p;
    o.gamma = 1.4;
    physics_freestream_state(2, 1.4, 0.5, 3.0, 0.0, o.freestream);
    o.n_groups = fx->mesh.n_groups;
    for (int g = 0; g < o.n_groups; ++g) {
      bc[g] = PHYSICS_BC_FARFIELD;
      memset(&data[g], 0, sizeof data[g]);
      for (int v = 0; v < DG_MAX_NVAR; ++v) data[g].state[v] = o.freestream[v];
      data[g].vortex_correction = 1;
    }
    o.group_bc = bc;
    o.group_data = data;
    o.farfield_center[0] = 0.1;
    o.farfield_center[1] = -0.2;
    o.av = av;
    o.av_sensor_var = 3;
    o.av_s0_offset = -8.0; /* the sensor switches ε on in most elements */
    o.av_kappa = 2.0;
    o.av_c = 1.0;
    st = disc_build(&fx->mesh, &fx->topo, &fx->geom, &o, &fx->disc);
  }
  TEST_OK(st);
  return st == DG_SUCCESS;
}

/* A state with every mode excited: the free stream plus a perturbation. */
static void fill_state(const dg_disc *disc, double *U) {
  TEST_OK(disc_project(disc, 0.0, U));
  for (int64_t i = 0; i < disc->view.n_coefs; ++i) U[i] += 1e-2 * sin(0.37 * (double)i + 0.1);
}

static void test_plan_layout(void) {
  for (int av = 0; av <= DG_AV_CONTINUOUS; ++av)
    for (int periodic = 0; periodic <= 1; ++periodic) {
      fixture fx;
      if (!fixture_build(&fx, 1, av, periodic)) return;
      const dg_disc_view *d = &fx.disc.view;
      /* interior faces first: the face range split is exact */
      int64_t bad = 0;
      for (int64_t f = 0; f < d->n_faces; ++f)
        bad += (f < d->n_interior) != (d->face_elem[2 * f + 1] >= 0 && d->face_group[f] < 0);
      TEST_CHECK(bad == 0 && d->n_interior > 0 && d->n_interior < d->n_faces,
                 "av %d periodic %d: %lld faces out of the interior-first order", av, periodic,
                 (long long)bad);
      int n_shapes = 0;
      for (int s = 0; s < DG_NUM_SHAPES; ++s) {
        TEST_CHECK(d->n_owned[s] == d->n_shape[s], "shape %d: %lld owned of %lld", s,
                   (long long)d->n_owned[s], (long long)d->n_shape[s]);
        n_shapes += d->n_shape[s] > 0;
      }
      TEST_CHECK(n_shapes == 2, "the mixed mesh has %d shapes", n_shapes);

      dg_residual_plan plan;
      TEST_OK(residual_plan_build(d, &plan));
      dg_pass_kind want[DG_PLAN_MAX_PASSES];
      int n = 0;
      want[n++] = DG_PASS_HALO_START;
      want[n++] = DG_PASS_HALO_FINISH;
      if (av != DG_AV_OFF) {
        want[n++] = DG_PASS_AV_EPS;
        if (av == DG_AV_CONTINUOUS) want[n++] = DG_PASS_AV_VERTEX_EPS;
        want[n++] = DG_PASS_AV_COEFS;
        for (int s = 0; s < n_shapes; ++s) want[n++] = DG_PASS_AV_GRADIENT;
      }
      want[n++] = DG_PASS_FACES_INTERIOR;
      want[n++] = DG_PASS_FACES_BOUNDARY;
      for (int s = 0; s < n_shapes; ++s) want[n++] = DG_PASS_ELEMENTS;
      int same = plan.n_passes == n;
      for (int i = 0; same && i < n; ++i) same = plan.pass[i].kind == want[i];
      TEST_CHECK(same, "av %d: the plan has %d passes, not the %d expected in order", av,
                 plan.n_passes, n);
      if (!same) {
        for (int i = 0; i < plan.n_passes; ++i)
          fprintf(stderr, "  pass %d: %s [%lld, %lld)\n", i,
                  residual_plan_pass_name(plan.pass[i].kind), (long long)plan.pass[i].begin,
                  (long long)plan.pass[i].end);
        fixture_free(&fx);
        continue;
      }
      /* ranges: faces split at n_interior, owned elements shape by shape */
      int64_t faces_next = 0, elems_next = 0;
      for (int i = 0; i < plan.n_passes; ++i) {
        const dg_pass *p = &plan.pass[i];
        if (p->kind == DG_PASS_FACES_INTERIOR || p->kind == DG_PASS_FACES_BOUNDARY) {
          TEST_CHECK(p->begin == faces_next && p->shape == -1, "face pass %d starts at %lld", i,
                     (long long)p->begin);
          TEST_CHECK(p->end == (p->kind == DG_PASS_FACES_INTERIOR ? d->n_interior : d->n_faces),
                     "face pass %d ends at %lld", i, (long long)p->end);
          faces_next = p->end;
        }
        if (p->kind == DG_PASS_ELEMENTS) {
          const int s = p->shape;
          TEST_CHECK(s >= 0 && p->begin == d->elem_start[s] && p->begin == elems_next &&
                         p->end == d->elem_start[s] + d->n_owned[s],
                     "element pass %d: shape %d [%lld, %lld)", i, s, (long long)p->begin,
                     (long long)p->end);
          elems_next = p->end;
        }
        if (p->kind == DG_PASS_AV_EPS || p->kind == DG_PASS_AV_COEFS)
          TEST_CHECK(p->begin == 0 && p->end == d->n_elems, "%s over [%lld, %lld)",
                     residual_plan_pass_name(p->kind), (long long)p->begin, (long long)p->end);
        if (p->kind == DG_PASS_AV_VERTEX_EPS)
          TEST_CHECK(p->begin == 0 && p->end == d->n_verts, "vertex pass over [%lld, %lld)",
                     (long long)p->begin, (long long)p->end);
      }
      TEST_CHECK(faces_next == d->n_faces && elems_next == d->n_elems,
                 "the passes cover %lld faces and %lld elements", (long long)faces_next,
                 (long long)elems_next);
      /* runs: the face passes and the element passes merge into one each */
      int n_runs = 0, n_face_runs = 0, n_elem_runs = 0;
      for (int i = 0; i < plan.n_passes; ++n_runs) {
        dg_pass run;
        const int next = residual_plan_run(&plan, i, &run);
        TEST_CHECK(next > i && next <= plan.n_passes, "run at %d ends at %d", i, next);
        if (run.kind == DG_PASS_FACES_INTERIOR) {
          ++n_face_runs;
          TEST_CHECK(run.begin == 0 && run.end == d->n_faces && next - i == 2,
                     "face run [%lld, %lld) of %d passes", (long long)run.begin, (long long)run.end,
                     next - i);
        }
        if (run.kind == DG_PASS_ELEMENTS) {
          ++n_elem_runs;
          TEST_CHECK(run.begin == 0 && run.end == d->n_elems && run.shape == -1,
                     "element run [%lld, %lld) shape %d", (long long)run.begin, (long long)run.end,
                     run.shape);
        }
        i = next;
      }
      TEST_CHECK(n_face_runs == 1 && n_elem_runs == 1, "%d face runs, %d element runs", n_face_runs,
                 n_elem_runs);

      /* ghosts: element passes end at the owned count, runs stop at the gap */
      dg_disc_view g = *d;
      for (int s = 0; s < DG_NUM_SHAPES; ++s)
        if (g.n_shape[s] > 0) g.n_owned[s] = g.n_shape[s] - 2;
      TEST_OK(residual_plan_build(&g, &plan));
      n_elem_runs = 0;
      for (int i = 0; i < plan.n_passes;) {
        dg_pass run;
        const int next = residual_plan_run(&plan, i, &run);
        if (run.kind == DG_PASS_ELEMENTS) {
          ++n_elem_runs;
          TEST_CHECK(run.shape >= 0 && run.end == g.elem_start[run.shape] + g.n_owned[run.shape],
                     "element run with ghosts: shape %d [%lld, %lld)", run.shape,
                     (long long)run.begin, (long long)run.end);
        }
        i = next;
      }
      TEST_CHECK(n_elem_runs == 2, "with ghosts: %d element runs, not one per shape", n_elem_runs);
      /* ghosts without viscosity: the inner faces run between the halo
       * markers (overlapping the exchange), the rest after them */
      g.n_inner = g.n_interior / 2;
      TEST_OK(residual_plan_build(&g, &plan));
      if (g.av == DG_AV_OFF) {
        TEST_CHECK(plan.n_passes >= 5 && plan.pass[0].kind == DG_PASS_HALO_START &&
                       plan.pass[1].kind == DG_PASS_FACES_INTERIOR && plan.pass[1].begin == 0 &&
                       plan.pass[1].end == g.n_inner && plan.pass[2].kind == DG_PASS_HALO_FINISH &&
                       plan.pass[3].kind == DG_PASS_FACES_INTERIOR &&
                       plan.pass[3].begin == g.n_inner && plan.pass[3].end == g.n_interior,
                   "with ghosts and no viscosity: the inner faces [0, %lld) are not overlapped",
                   (long long)g.n_inner);
      } else {
        TEST_CHECK(plan.pass[0].kind == DG_PASS_HALO_START &&
                       plan.pass[1].kind == DG_PASS_HALO_FINISH,
                   "with viscosity: the ε passes need the ghosts first");
      }
      g.n_inner = g.n_interior + 1;
      TEST_FAILS(residual_plan_build(&g, &plan), DG_ERR_ARG, "inner faces");
      g.n_inner = g.n_interior;
      g.n_owned[0] = g.n_shape[0] + 1;
      TEST_FAILS(residual_plan_build(&g, &plan), DG_ERR_ARG, "owned elements");
      fixture_free(&fx);
    }
}

/* set_circulation and av_hold change the state, not the view; Γ reaches the
 * residual through the state and setting it back restores the bits. */
static void test_state_split(void) {
  fixture fx;
  if (!fixture_build(&fx, 2, DG_AV_ELEMENT, 0)) return;
  const dg_backend *b = backend_cpu();
  dg_backend_ctx *ctx = NULL;
  TEST_OK(b->create(&fx.disc, &ctx));
  if (!ctx) {
    fixture_free(&fx);
    return;
  }
  const int64_t n = fx.disc.view.n_coefs;
  double *U = NULL, *R0 = NULL, *R1 = NULL, *R2 = NULL;
  TEST_OK(b->vec_alloc(ctx, DG_VEC_STATE, &U));
  TEST_OK(b->vec_alloc(ctx, DG_VEC_STATE, &R0));
  TEST_OK(b->vec_alloc(ctx, DG_VEC_STATE, &R1));
  TEST_OK(b->vec_alloc(ctx, DG_VEC_STATE, &R2));
  fill_state(&fx.disc, U);
  dg_disc_view before = *backend_cpu_view(ctx);
  const dg_disc_state *st = backend_cpu_state(ctx);
  TEST_CHECK(st->farfield_circulation == 0.0 && st->av_eps_hold != NULL,
             "start state: circulation %g, held ε %p", st->farfield_circulation,
             (const void *)st->av_eps_hold);
  TEST_OK(b->residual(ctx, U, 0.0, R0));
  TEST_OK(b->set_circulation(ctx, 0.75));
  TEST_OK(b->av_hold(ctx, U, 1.0));
  TEST_CHECK(st->farfield_circulation == 0.75, "the state's circulation is %g after set 0.75",
             st->farfield_circulation);
  TEST_CHECK(memcmp(&before, backend_cpu_view(ctx), sizeof before) == 0,
             "set_circulation or av_hold changed the backend's discretisation view");
  TEST_OK(b->residual(ctx, U, 0.0, R1));
  double diff = 0.0;
  for (int64_t i = 0; i < n; ++i) diff = fmax(diff, fabs(R1[i] - R0[i]));
  TEST_CHECK(diff > 1e-6, "the circulation changes the residual by only %.3g", diff);
  TEST_OK(b->set_circulation(ctx, 0.0));
  TEST_OK(b->residual(ctx, U, 0.0, R2));
  TEST_CHECK(memcmp(R0, R2, (size_t)n * sizeof *R0) == 0,
             "Γ = 0 again (ε held at the sensor's value of U) does not give the first residual");
  b->vec_free(ctx, U);
  b->vec_free(ctx, R0);
  b->vec_free(ctx, R1);
  b->vec_free(ctx, R2);
  b->destroy(ctx);
  fixture_free(&fx);
}

/* Ghosts at the end of each shape block: owned results are the bits of the
 * run without ghosts, ghost entries are never written. */
static void check_owned(int av) {
  fixture fx;
  if (!fixture_build(&fx, 2, av, 1)) return;
  const dg_backend *b = backend_cpu();
  dg_backend_ctx *full = NULL, *part = NULL;
  TEST_OK(b->create(&fx.disc, &full));
  dg_disc ghosted = fx.disc; /* the same arrays, two ghosts per shape block */
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    if (ghosted.view.n_shape[s] > 0) ghosted.view.n_owned[s] = ghosted.view.n_shape[s] - 2;
  TEST_OK(b->create(&ghosted, &part));
  if (!full || !part) {
    if (full) b->destroy(full);
    if (part) b->destroy(part);
    fixture_free(&fx);
    return;
  }
  const dg_disc_view *d = &ghosted.view;
  const int64_t n = d->n_coefs, ne = d->n_elems;
  double *U = calloc((size_t)n, sizeof *U), *Rf = calloc((size_t)n, sizeof *Rf);
  double *Rp = malloc((size_t)n * sizeof *Rp), *dtf = calloc((size_t)ne, sizeof *dtf);
  double *dtp = malloc((size_t)ne * sizeof *dtp), *Uf = calloc((size_t)n, sizeof *Uf);
  double *Up = malloc((size_t)n * sizeof *Up);
  fill_state(&fx.disc, U);
  const double sentinel = -12345.0;
  for (int64_t i = 0; i < n; ++i) Rp[i] = Up[i] = sentinel;
  for (int64_t e = 0; e < ne; ++e) dtp[e] = sentinel;
  TEST_OK(b->residual(full, U, 0.0, Rf));
  TEST_OK(b->residual(part, U, 0.0, Rp));
  double dt_full = 0.0, dt_part = 0.0;
  /* local steps: the ghosts' entries are not written */
  TEST_OK(b->timestep(part, U, 0.5, dtp, &dt_part));
  int64_t dt_ghost_bad = 0;
  for (int64_t e = 0; e < ne; ++e) {
    const int s = d->elem_shape[e];
    if (e - d->elem_start[s] >= d->n_owned[s]) dt_ghost_bad += dtp[e] != sentinel;
  }
  TEST_CHECK(dt_ghost_bad == 0, "av %d: %lld ghost time steps written by a local step", av,
             (long long)dt_ghost_bad);
  /* the global step (entry point: local minimum, reduction, fill) */
  TEST_OK(dg_backend_timestep(b, full, BACKEND_CPU_VEC(b, full, DG_VEC_STATE, U), 0.5, 1,
                              BACKEND_CPU_VEC(b, full, DG_VEC_ELEM, dtf), &dt_full));
  TEST_OK(dg_backend_timestep(b, part, BACKEND_CPU_VEC(b, part, DG_VEC_STATE, U), 0.5, 1,
                              BACKEND_CPU_VEC(b, part, DG_VEC_ELEM, dtp), &dt_part));
  TEST_OK(b->rk_update(full, 0.0, U, 1.0, U, dtf, Rf, Uf));
  TEST_OK(b->rk_update(part, 0.0, U, 1.0, U, dtf, Rf, Up));
  int64_t owned_bad = 0, ghost_bad = 0, dt_bad = 0;
  double dt_owned_min = INFINITY;
  for (int64_t e = 0; e < ne; ++e) {
    const int s = d->elem_shape[e];
    const int owned = e - d->elem_start[s] < d->n_owned[s];
    for (int v = 0; v < d->nvar; ++v)
      for (int m = 0; m < d->nb[s]; ++m) {
        const int64_t i = disc_coef_index(d, e, v, m);
        if (owned)
          owned_bad += Rp[i] != Rf[i] || Up[i] != Uf[i];
        else
          ghost_bad += Rp[i] != sentinel || Up[i] != sentinel;
      }
    if (owned) dt_bad += !(dtp[e] > 0.0) || dtp[e] != dt_part; /* the global step */
  }
  /* the smallest step of the owned elements, from a local-step run */
  TEST_OK(b->timestep(full, U, 0.5, dtf, &dt_full));
  for (int64_t e = 0; e < ne; ++e) {
    const int s = d->elem_shape[e];
    if (e - d->elem_start[s] < d->n_owned[s] && dtf[e] < dt_owned_min) dt_owned_min = dtf[e];
  }
  TEST_CHECK(owned_bad == 0, "av %d: %lld owned entries differ from the run without ghosts", av,
             (long long)owned_bad);
  TEST_CHECK(ghost_bad == 0, "av %d: %lld ghost entries written by residual or rk_update", av,
             (long long)ghost_bad);
  TEST_CHECK(dt_bad == 0 && dt_part == dt_owned_min,
             "av %d: time step: %lld bad entries, global %g vs owned minimum %g", av,
             (long long)dt_bad, dt_part, dt_owned_min);
  /* norms over the owned elements, summed in element order */
  double norms[DG_MAX_NVAR], want[DG_MAX_NVAR] = {0};
  int finite = 0;
  TEST_OK(dg_backend_norms(b, part, BACKEND_CPU_VEC(b, part, DG_VEC_STATE, Rf), norms, &finite));
  for (int64_t e = 0; e < ne; ++e) {
    const int s = d->elem_shape[e];
    if (e - d->elem_start[s] >= d->n_owned[s]) continue;
    for (int v = 0; v < d->nvar; ++v) {
      double sum = 0.0;
      for (int m = 0; m < d->nb[s]; ++m) {
        const double r = Rf[disc_coef_index(d, e, v, m)];
        sum += r * r;
      }
      want[v] += sum;
    }
  }
  int norms_ok = finite;
  for (int v = 0; v < d->nvar; ++v) norms_ok &= norms[v] == sqrt(want[v]);
  TEST_CHECK(norms_ok, "av %d: the norms are not those of the owned elements", av);
  /* forces over the boundary faces of owned elements, in face order */
  uint8_t mask[8];
  memset(mask, 1, sizeof mask);
  const double x_ref[3] = {0.25, 0.0, 0.0};
  double forces[6], fwant[6] = {0}, fall[6];
  int64_t n_ghost_faces = 0;
  TEST_OK(
      dg_backend_forces(b, part, BACKEND_CPU_VEC(b, part, DG_VEC_STATE, U), mask, x_ref, forces));
  TEST_OK(dg_backend_forces(b, full, BACKEND_CPU_VEC(b, full, DG_VEC_STATE, U), mask, x_ref, fall));
  for (int64_t f = d->n_interior; f < d->n_faces; ++f) {
    const int64_t e0 = d->face_elem[2 * f];
    const int s = d->elem_shape[e0];
    double out[6] = {0};
    if (e0 - d->elem_start[s] < d->n_owned[s])
      residual_face_force(d, f, U, x_ref, out);
    else
      ++n_ghost_faces;
    for (int c = 0; c < 6; ++c) fwant[c] += out[c];
  }
  int forces_ok = n_ghost_faces > 0;
  for (int c = 0; c < 6; ++c) forces_ok &= forces[c] == fwant[c];
  TEST_CHECK(forces_ok && forces[1] != fall[1],
             "av %d: the forces are not those of the owned elements' %lld boundary faces "
             "(%lld faces of ghosts)",
             av, (long long)(d->n_faces - d->n_interior - n_ghost_faces), (long long)n_ghost_faces);
  free(U);
  free(Rf);
  free(Rp);
  free(dtf);
  free(dtp);
  free(Uf);
  free(Up);
  b->destroy(full);
  b->destroy(part);
  fixture_free(&fx);
}

static void test_owned_elements(void) {
  check_owned(DG_AV_OFF);
  check_owned(DG_AV_CONTINUOUS);
}

int main(void) {
  test_plan_layout();
  test_state_split();
  test_owned_elements();
  return test_finish("test_residual_plan");
}
