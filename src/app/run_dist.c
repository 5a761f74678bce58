/* The run driver's side of a distributed run (run_dist.h). */
#include "app/run_dist.h"

#include <stdlib.h>
#include <string.h>

#include "mesh/partition.h"

void run_dist_init(run_dist *d) {
  memset(d, 0, sizeof *d);
  d->comm = dg_comm_world();
  d->rank = dg_comm_rank(d->comm);
  d->size = dg_comm_size(d->comm);
}

void run_dist_free(run_dist *d) {
  mesh_part_free(&d->part);
  disc_free(&d->gdisc);
  geometry_free(&d->ggeom);
  topology_free(&d->gtopo);
  mesh_free(&d->gmesh);
  free(d->gh_U);
  free(d->gh_eps);
  free(d->gh_hold);
  free(d->g_owned);
  free(d->g_owned_start);
  free(d->buf);
  const dg_comm *comm = d->comm;
  const int rank = d->rank, size = d->size;
  memset(d, 0, sizeof *d);
  d->comm = comm;
  d->rank = rank;
  d->size = size;
}

/* A packing buffer of at least n doubles. */
static dg_status run_dist_buffer(run_dist *d, size_t n) {
  if (n <= d->buf_len) return DG_SUCCESS;
  double *b = realloc(d->buf, (n ? n : 1) * sizeof *b);
  DG_CHECK(b, DG_ERR_MEMORY, "distributed run: out of memory for a buffer of %zu doubles", n);
  d->buf = b;
  d->buf_len = n;
  return DG_SUCCESS;
}

dg_status run_dist_setup(run_dist *d, dg_mesh *mesh, dg_topology *topo, int p,
                         dg_quad_family family, const uint8_t *viscous, int vertex_ghosts,
                         const int32_t *color, int n_colors) {
  d->g_n_elems = mesh->n_elems;
  for (int s = 0; s <= DG_NUM_SHAPES; ++s) d->g_shape_offset[s] = mesh->shape_offset[s];
  DG_CHECK(d->size <= mesh->n_elems, DG_ERR_ARG,
           "%s: %d MPI ranks for a mesh of %lld elements: use at most one rank per element",
           mesh->source, d->size, (long long)mesh->n_elems);
  int32_t *part = NULL;
  DG_CALL(DG_CALLOC(part, mesh->n_elems));
  dg_status status = DG_SUCCESS;
  if (d->rank == 0)
    status = partition_elements_viscous(mesh, topo, p, family, viscous, d->size, part);
  status = dg_comm_agree(d->comm, status);
  if (status == DG_SUCCESS)
    status = dg_comm_bcast(d->comm, part, (size_t)mesh->n_elems * sizeof *part, 0);
  if (status == DG_SUCCESS && d->rank == 0) {
    dg_partition_stats st;
    memset(&st, 0, sizeof st);
    status = partition_stats(mesh, topo, p, family, d->size, part, &st);
    if (status == DG_SUCCESS) {
      d->imbalance = st.imbalance;
      d->cut_faces = st.cut_faces;
      d->colour_balance =
          color ? partition_colour_balance(color, n_colors, mesh->n_elems, part, d->size) : 1.0;
      d->n_viscous = 0;
      for (int64_t e = 0; viscous && e < mesh->n_elems; ++e) d->n_viscous += viscous[e] != 0;
      d->viscous_balance =
          d->n_viscous > 0 ? partition_viscous_balance(viscous, mesh->n_elems, part, d->size) : 1.0;
      for (int r = 0; r < d->size; ++r)
        if (st.ghosts[r] > d->max_ghosts) d->max_ghosts = st.ghosts[r];
    }
    partition_stats_free(&st);
  }
  if (status == DG_SUCCESS)
    status = mesh_distribute(mesh, topo, part, d->size, d->rank, vertex_ghosts, &d->part);
  free(part);
  DG_CALL(dg_comm_agree(d->comm, status));
  d->part.halo.comm = d->comm;

  /* rank 0: every rank's owned elements (global ids, in its local order) */
  const int64_t n_own = d->part.n_owned_total;
  int64_t *own = NULL;
  DG_CALL(DG_CALLOC(own, n_own > 0 ? n_own : 1));
  int64_t k = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    for (int64_t i = 0; i < d->part.n_owned[s]; ++i)
      own[k++] = d->part.global_elem[d->part.mesh.shape_offset[s] + i];
  int64_t *counts = NULL;
  if (d->rank == 0) {
    status = DG_CALLOC(counts, d->size);
    if (status == DG_SUCCESS) status = DG_CALLOC(d->g_owned_start, d->size + 1);
    if (status == DG_SUCCESS) status = DG_CALLOC(d->g_owned, d->g_n_elems);
  }
  status = dg_comm_agree(d->comm, status);
  if (status == DG_SUCCESS) status = dg_comm_gather(d->comm, &n_own, sizeof n_own, counts, 0);
  size_t *bytes = NULL, *displs = NULL;
  if (status == DG_SUCCESS && d->rank == 0) {
    for (int r = 0; r < d->size; ++r) d->g_owned_start[r + 1] = d->g_owned_start[r] + counts[r];
    bytes = calloc((size_t)(d->size > 1 ? d->size : 1), sizeof *bytes);
    displs = calloc((size_t)(d->size > 1 ? d->size : 1), sizeof *displs);
    if (!bytes || !displs)
      status = dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory");
    for (int r = 0; status == DG_SUCCESS && r < d->size; ++r) {
      bytes[r] = (size_t)counts[r] * sizeof(int64_t);
      displs[r] = (size_t)d->g_owned_start[r] * sizeof(int64_t);
    }
  }
  status = dg_comm_agree(d->comm, status);
  if (status == DG_SUCCESS)
    status =
        dg_comm_gatherv(d->comm, own, (size_t)n_own * sizeof *own, d->g_owned, bytes, displs, 0);
  free(own);
  free(counts);
  free(bytes);
  free(displs);
  DG_CALL(status);

  /* the run continues on the part; rank 0 keeps the whole mesh for outputs */
  if (d->rank == 0) {
    d->gmesh = *mesh;
    d->gtopo = *topo;
  } else {
    mesh_free(mesh);
    topology_free(topo);
  }
  *mesh = d->part.mesh;
  *topo = d->part.topo;
  memset(&d->part.mesh, 0, sizeof d->part.mesh);
  memset(&d->part.topo, 0, sizeof d->part.topo);
  return DG_SUCCESS;
}

dg_status run_dist_geometry(run_dist *d, dg_geometry *geom) {
  return mesh_part_exchange(&d->part, d->comm, geom->elem_h, 1);
}

dg_status run_dist_global_disc(run_dist *d, const dg_disc_opts *opts, int vol_degree,
                               int face_degree, dg_quad_family family) {
  if (d->rank != 0) return DG_SUCCESS;
  disc_free(&d->gdisc);
  geometry_free(&d->ggeom);
  DG_FREE(d->gh_U);
  DG_FREE(d->gh_eps);
  DG_FREE(d->gh_hold);
  DG_CALL(geometry_build_family(&d->gmesh, &d->gtopo, vol_degree, face_degree, family, &d->ggeom));
  dg_disc_opts o = *opts;
  o.n_owned = NULL;
  o.halo = NULL;
  DG_CALL(disc_build(&d->gmesh, &d->gtopo, &d->ggeom, &o, &d->gdisc));
  DG_CALL(DG_CALLOC(d->gh_U, d->gdisc.view.n_coefs > 0 ? d->gdisc.view.n_coefs : 1));
  DG_CALL(DG_CALLOC(d->gh_eps, d->g_n_elems > 0 ? d->g_n_elems : 1));
  DG_CALL(DG_CALLOC(d->gh_hold, d->g_n_elems > 0 ? d->g_n_elems : 1));
  return DG_SUCCESS;
}

/* Doubles a global element contributes to a gather: its coefficients and
 * `extra` per-element values (ε, held viscosity). */
static int64_t run_dist_elem_doubles(const dg_disc_view *v, int shape, int extra) {
  return (int64_t)v->nvar * v->nb[shape] + extra;
}

dg_status run_dist_gather(run_dist *d, const dg_disc *disc, const double *h_U, const double *h_eps,
                          const double *h_hold) {
  if (d->size == 1) return DG_SUCCESS;
  const dg_disc_view *v = &disc->view;
  const int extra = (h_eps != NULL) + (h_hold != NULL); /* per-element doubles */
  /* pack the owned elements in local order */
  int64_t n = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) n += v->n_owned[s] * run_dist_elem_doubles(v, s, extra);
  DG_CALL(run_dist_buffer(d, (size_t)n));
  int64_t k = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    for (int64_t e = v->elem_start[s]; e < v->elem_start[s] + v->n_owned[s]; ++e) {
      for (int var = 0; var < v->nvar; ++var)
        for (int m = 0; m < v->nb[s]; ++m) d->buf[k++] = h_U[disc_coef_index(v, e, var, m)];
      if (h_eps) d->buf[k++] = h_eps[e];
      if (h_hold) d->buf[k++] = h_hold[e];
    }
  /* rank 0: the sizes of every rank's block, then unpack into the whole layout */
  size_t *bytes = NULL, *displs = NULL;
  double *all = NULL;
  dg_status status = DG_SUCCESS;
  if (d->rank == 0) {
    const dg_disc_view *g = &d->gdisc.view;
    bytes = calloc((size_t)(d->size > 1 ? d->size : 1), sizeof *bytes);
    displs = calloc((size_t)(d->size > 1 ? d->size : 1), sizeof *displs);
    size_t total = 0;
    for (int r = 0; bytes && displs && r < d->size; ++r) {
      int64_t nr = 0;
      for (int64_t i = d->g_owned_start[r]; i < d->g_owned_start[r + 1]; ++i)
        nr += run_dist_elem_doubles(g, g->elem_shape[d->g_owned[i]], extra);
      bytes[r] = (size_t)nr * sizeof(double);
      displs[r] = total;
      total += bytes[r];
    }
    all = malloc(total ? total : 1);
    if (!bytes || !displs || !all)
      status = dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                            "distributed run: out of memory gathering the state");
  }
  status = dg_comm_agree(d->comm, status);
  if (status == DG_SUCCESS)
    status = dg_comm_gatherv(d->comm, d->buf, (size_t)n * sizeof(double), all, bytes, displs, 0);
  if (status == DG_SUCCESS && d->rank == 0) {
    const dg_disc_view *g = &d->gdisc.view;
    int64_t j = 0;
    for (int64_t i = 0; i < d->g_n_elems; ++i) {
      const int64_t e = d->g_owned[i];
      const int s = g->elem_shape[e];
      for (int var = 0; var < g->nvar; ++var)
        for (int m = 0; m < g->nb[s]; ++m) d->gh_U[disc_coef_index(g, e, var, m)] = all[j++];
      if (h_eps) d->gh_eps[e] = all[j++];
      if (h_hold) d->gh_hold[e] = all[j++];
    }
  }
  free(bytes);
  free(displs);
  free(all);
  return status;
}

dg_status run_dist_scatter_hold(run_dist *d, const dg_disc *disc, double *h_hold) {
  if (d->size == 1) return DG_SUCCESS;
  const int64_t total = d->g_n_elems;
  DG_CALL(run_dist_buffer(d, (size_t)(total > 0 ? total : 1)));
  if (d->rank == 0) memcpy(d->buf, d->gh_hold, (size_t)total * sizeof(double));
  DG_CALL(dg_comm_bcast(d->comm, d->buf, (size_t)total * sizeof(double), 0));
  for (int64_t l = 0; l < disc->view.n_elems; ++l) h_hold[l] = d->buf[d->part.global_elem[l]];
  return DG_SUCCESS;
}

dg_status run_dist_scatter(run_dist *d, const dg_disc *disc, double *h_U) {
  if (d->size == 1) return DG_SUCCESS;
  const dg_disc_view *v = &disc->view;
  /* the whole layout from the global shape counts (every rank knows them) */
  int64_t coef_start[DG_NUM_SHAPES], n_g[DG_NUM_SHAPES], total = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    n_g[s] = d->g_shape_offset[s + 1] - d->g_shape_offset[s];
    coef_start[s] = total;
    total += (int64_t)v->nvar * v->nb[s] * n_g[s];
  }
  DG_CALL(run_dist_buffer(d, (size_t)total));
  if (d->rank == 0) memcpy(d->buf, d->gh_U, (size_t)total * sizeof(double));
  DG_CALL(dg_comm_bcast(d->comm, d->buf, (size_t)total * sizeof(double), 0));
  for (int64_t l = 0; l < v->n_elems; ++l) {
    const int s = v->elem_shape[l];
    const int64_t e = d->part.global_elem[l] - d->g_shape_offset[s];
    for (int var = 0; var < v->nvar; ++var)
      for (int m = 0; m < v->nb[s]; ++m)
        h_U[disc_coef_index(v, l, var, m)] =
            d->buf[coef_start[s] + ((int64_t)var * v->nb[s] + m) * n_g[s] + e];
  }
  return DG_SUCCESS;
}

dg_status run_dist_any(const run_dist *d, int *flag) {
  if (d->size == 1) return DG_SUCCESS;
  int64_t f = *flag;
  DG_CALL(dg_comm_allreduce_i64(d->comm, DG_COMM_MAX, &f, 1));
  *flag = (int)f;
  return DG_SUCCESS;
}
