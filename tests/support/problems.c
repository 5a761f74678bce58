#include "problems.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dg/physics.h"

void problem_free(problem *pb) {
  free(pb->U);
  coloring_free(&pb->col);
  disc_free(&pb->disc);
  geometry_free(&pb->geom);
  topology_free(&pb->topo);
  mesh_free(&pb->mesh);
  memset(pb, 0, sizeof *pb);
}

dg_status problem_mesh_structured(const dg_mesh_structured_opts *mo, dg_mesh *mesh) {
  if (mo->kind == MESH_STRUCTURED_TET) return mesh_structured_3d(mo, mesh);
  return mesh_structured_2d(mo, mesh);
}

dg_status problem_mesh_vortex_box(dg_mesh_structured_kind kind, int order, int64_t n, int64_t nz,
                                  double box, double deform, dg_mesh *mesh) {
  const int dim = kind == MESH_STRUCTURED_TET ? 3 : 2;
  dg_mesh_structured_opts mo = mesh_structured_defaults(dim);
  mo.kind = kind;
  mo.order = order;
  mo.n[0] = mo.n[1] = n;
  mo.hi[0] = mo.hi[1] = box;
  mo.periodic[0] = mo.periodic[1] = 1;
  mo.deform = deform;
  if (dim == 2) return mesh_structured_2d(&mo, mesh);
  mo.n[2] = nz;
  mo.hi[2] = (double)nz * box / (double)n;
  mo.periodic[2] = 1;
  mo.deform = 0.0;
  DG_CALL(mesh_structured_3d(&mo, mesh));
  mesh_structured_deform_xy(mesh, box, deform);
  return DG_SUCCESS;
}

dg_status problem_color(problem *pb, const char *wall_group) {
  if (!pb->topo.n_faces) DG_CALL(topology_build(&pb->mesh, &pb->topo));
  DG_CALL(coloring_build(&pb->mesh, &pb->topo, DG_COLORING_BFS_WALL, wall_group, &pb->col));
  DG_CALL(coloring_apply(&pb->col, &pb->mesh));
  topology_free(&pb->topo);
  DG_CALL(topology_build(&pb->mesh, &pb->topo));
  return DG_SUCCESS;
}

static int geom_order(const dg_mesh *mesh) { return mesh->geom_order > 0 ? mesh->geom_order : 1; }

int problem_vol_degree(const dg_mesh *mesh, int p) {
  return geometry_volume_degree(p, mesh->dim, geom_order(mesh), 0);
}

int problem_face_degree(const dg_mesh *mesh, int p) {
  return geometry_face_degree(p, mesh->dim, geom_order(mesh), 0);
}

dg_status problem_geometry(problem *pb, int vol_degree, int face_degree) {
  if (!pb->topo.n_faces) DG_CALL(topology_build(&pb->mesh, &pb->topo));
  DG_CALL(geometry_build(&pb->mesh, &pb->topo, vol_degree, face_degree, &pb->geom));
  return DG_SUCCESS;
}

dg_status problem_freestream_opts(const dg_mesh *mesh, int p, double mach, double alpha_deg,
                                  dg_disc_opts *o, problem_bcs *bcs) {
  DG_CHECK(mesh->n_groups <= PROBLEM_MAX_GROUPS, DG_ERR_ARG,
           "problem_freestream_opts: %d mesh groups (at most %d)", mesh->n_groups,
           PROBLEM_MAX_GROUPS);
  memset(o, 0, sizeof *o);
  memset(bcs, 0, sizeof *bcs);
  o->p = p;
  o->gamma = PROBLEM_GAMMA;
  o->flux = DG_FACE_FLUX_ROE;
  physics_freestream_state(mesh->dim, PROBLEM_GAMMA, mach, alpha_deg, 0.0, o->freestream);
  for (int g = 0; g < mesh->n_groups; ++g) {
    const char *name = mesh->groups[g].name;
    bcs->bc[g] = !strcmp(name, "wall")       ? PHYSICS_BC_WALL
                 : !strcmp(name, "symmetry") ? PHYSICS_BC_SYMMETRY
                                             : PHYSICS_BC_FARFIELD;
    memcpy(bcs->data[g].state, o->freestream, sizeof o->freestream);
  }
  o->n_groups = mesh->n_groups;
  o->group_bc = bcs->bc;
  o->group_data = bcs->data;
  return DG_SUCCESS;
}

void problem_smooth_state(const dg_disc *disc, double amplitude, double *U) {
  const dg_disc_view *d = &disc->view;
  for (int64_t e = 0; e < d->n_elems; ++e) {
    const int s = d->elem_shape[e];
    const double phi0 = d->vol_phi[d->vol_table[s]]; /* the constant mode's value */
    for (int v = 0; v < d->nvar; ++v)
      for (int m = 0; m < d->nb[s]; ++m)
        U[disc_coef_index(d, e, v, m)] =
            m == 0 ? d->freestream[v] / phi0 : amplitude * sin(0.37 * (double)(e + 7 * m + 3 * v));
  }
}
