#include "app/info.h"

#include "newton/newton.h"

#include <stdlib.h>
#include <string.h>

#include "coloring/coloring.h"
#include "element/basis.h"
#include "element/quadrature.h"
#include "element/shape.h"
#include "mesh/geometry.h"
#include "mesh/partition.h"

static const double info_mib = 1048576.0;

int info_quadrature_degree(int p) { return 2 * p + 1; }

int info_case_rules(const dg_case *c) {
  return (c->face_rule == 1 ? INFO_FACE_REDUCED : 0) |
         (c->curved_rule == 1 ? INFO_CURVED_REDUCED : 0);
}

void info_run_degrees(const dg_mesh *mesh, int p, int rules, int *vol_degree, int *face_degree) {
  /* as `colordg run` builds its geometry (src/app/run.c) */
  const int q = mesh->geom_order > 0 ? mesh->geom_order : 1;
  *vol_degree = geometry_mesh_volume_degree(mesh, p, (rules & INFO_CURVED_REDUCED) != 0);
  *face_degree = geometry_face_degree(p, mesh->dim, q, (rules & INFO_FACE_REDUCED) != 0);
}

static int64_t info_find_root(int64_t *parent, int64_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

dg_status info_plan_sizes(const dg_mesh *mesh, const dg_topology *topo, const dg_geometry *geom,
                          int p, int av, int rules, gpu_plan_sizes *sz) {
  DG_CHECK(p >= 0 && p <= DG_MAX_P, DG_ERR_ARG, "degree p = %d is outside 0..%d", p, DG_MAX_P);
  memset(sz, 0, sizeof *sz);
  int vol_degree = 0, face_degree = 0;
  info_run_degrees(mesh, p, rules, &vol_degree, &face_degree);
  int nq[DG_NUM_SHAPES] = {0}, nb[DG_NUM_SHAPES] = {0};
  const int64_t ne = mesh->n_elems;
  sz->dim = mesh->dim;
  sz->nvar = mesh->dim + 2;
  sz->av = p > 0 ? av : DG_AV_OFF; /* disc_build: no viscosity at p = 0 */
  sz->n_groups = mesh->n_groups;
  sz->n_elems = ne;
  sz->n_faces = topo->n_faces;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int64_t count = mesh->shape_offset[s + 1] - mesh->shape_offset[s];
    if (count <= 0) continue;
    dg_quadrature rule = {0}, frule = {0};
    const dg_shape fs = shape_face_shape((dg_shape)s, 0);
    DG_CALL(quadrature_rule_family((dg_shape)s, vol_degree, geom->quad_family, &rule));
    dg_status st = quadrature_rule_family(fs, face_degree, geom->quad_family, &frule);
    nq[s] = rule.n_points;
    quadrature_free(&rule);
    DG_CALL(st);
    sz->nqf = frule.n_points; /* disc_build: one face rule per mesh */
    quadrature_free(&frule);
    nb[s] = basis_count((dg_shape)s, p);
    const int64_t n = (int64_t)nb[s] * sz->nvar;
    sz->n_coefs += count * n;
    sz->n_vol_table += (int64_t)nq[s] * nb[s];
    sz->n_vol_points += nq[s];
    sz->n_face_table += (int64_t)shape_n_faces((dg_shape)s) * shape_n_orient(fs) * sz->nqf * nb[s];
    sz->n_lin_table += (int64_t)shape_n_verts((dg_shape)s) * shape_n_verts((dg_shape)s);
    sz->n_block_doubles += count * n * n;
    sz->n_pivots += count * n;
    if (shape_n_faces((dg_shape)s) > sz->av_nf) sz->av_nf = shape_n_faces((dg_shape)s);
    if (nb[s] > sz->av_nb) sz->av_nb = nb[s];
  }
  sz->n_face_points = sz->n_faces * sz->nqf;
  int n_shapes = 0, last_nb = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    if (mesh->shape_offset[s + 1] > mesh->shape_offset[s]) ++n_shapes, last_nb = nb[s];
  sz->single_nb = n_shapes == 1 ? last_nb : 0;
  for (int64_t e = 0; e < ne; ++e) {
    const int s = mesh->elem_shape[e];
    const int affine = geom->elem_affine[e];
    sz->n_metric += affine ? 1 : nq[s];
    if (!affine) sz->n_minv += (int64_t)nb[s] * nb[s];
  }
  if (sz->av == DG_AV_OFF) {
    sz->n_lin_table = 0;
    return DG_SUCCESS;
  }
  /* element vertices with periodic images joined, as disc_build numbers them */
  const int64_t nn = mesh->n_nodes;
  int64_t *canon = malloc((size_t)(nn > 0 ? nn : 1) * sizeof *canon);
  uint8_t *used = calloc((size_t)(nn > 0 ? nn : 1), 1);
  if (!canon || !used) {
    free(canon);
    free(used);
    DG_ERROR(DG_ERR_MEMORY, "%s: out of memory for the vertex count of %lld nodes", mesh->source,
             (long long)nn);
  }
  for (int64_t i = 0; i < nn; ++i) canon[i] = i;
  for (int64_t l = 0; l < mesh->n_periodic; ++l) {
    const int64_t a = info_find_root(canon, mesh->periodic_slave[l]);
    const int64_t b = info_find_root(canon, mesh->periodic_master[l]);
    if (a < b)
      canon[b] = a;
    else
      canon[a] = b;
  }
  for (int64_t e = 0; e < ne; ++e) {
    const int nvt = shape_n_verts((dg_shape)mesh->elem_shape[e]);
    int64_t v[DG_MAX_VERTS];
    for (int i = 0; i < nvt; ++i) {
      v[i] = info_find_root(canon, mesh->elem_nodes[mesh->elem_node_start[e] + i]);
      int seen = 0;
      for (int j = 0; j < i; ++j) seen |= v[j] == v[i];
      if (!seen) ++sz->n_vert_elem;
      if (!used[v[i]]) {
        used[v[i]] = 1;
        ++sz->n_verts;
      }
    }
  }
  free(canon);
  free(used);
  return DG_SUCCESS;
}

dg_status info_memory_estimate(const dg_mesh *mesh, const dg_topology *topo,
                               const dg_geometry *geom, int p, int rules, info_memory *memory) {
  memset(memory, 0, sizeof *memory);
  gpu_plan_sizes sz;
  DG_CALL(info_plan_sizes(mesh, topo, geom, p, DG_AV_OFF, rules, &sz));
  const gpu_plan_opts explicit_opts = {0, 0, -1, 0}, lusgs_opts = {1, 0, -1, 0};
  backend_cuda_plan_bytes(&sz, &explicit_opts, &memory->explicit_rk3);
  backend_cuda_plan_bytes(&sz, &lusgs_opts, &memory->lusgs);
  DG_CALL(info_plan_sizes(mesh, topo, geom, p, DG_AV_CONTINUOUS, rules, &sz));
  backend_cuda_plan_bytes(&sz, &lusgs_opts, &memory->lusgs_av);
  memory->p = p;
  memory->n_dofs = sz.n_coefs / sz.nvar;
  const double ne = mesh->n_elems > 0 ? (double)mesh->n_elems : 1.0;
  const size_t *b = memory->lusgs.bytes;
  memory->elem_solution = 8.0 * (double)sz.n_coefs / ne;
  memory->elem_geometry = (double)b[GPU_MEM_GEOMETRY] / ne;
  memory->elem_lusgs_blocks = (double)(b[GPU_MEM_LUSGS_BLOCKS] + b[GPU_MEM_FACE_JAC]) / ne;
  /* the other vectors (U_good, stages, R, ΔU, dt) and scratch */
  memory->elem_work = (double)(b[GPU_MEM_VECTORS] + b[GPU_MEM_WORK]) / ne - memory->elem_solution;
  memory->total = (double)memory->lusgs.total / info_mib;
  memory->newton_vectors =
      (double)newton_vector_bytes(sz.n_coefs, mesh->n_elems, NEWTON_INFO_KRYLOV, 0) / info_mib;
  gpu_plan_opts newton_opts = lusgs_opts;
  newton_opts.newton = 1; /* the LU copy of the default factorisation (warp_inverse) */
  gpu_mem_plan newton_plan;
  DG_CALL(info_plan_sizes(mesh, topo, geom, p, DG_AV_OFF, rules, &sz));
  backend_cuda_plan_bytes(&sz, &newton_opts, &newton_plan);
  memory->newton_total = (double)newton_plan.total / info_mib + memory->newton_vectors;
  return DG_SUCCESS;
}

dg_status info_table_add(info_table *table, const char *key, const char *label, const char *value,
                         const char *human) {
  if (table->n_rows == table->capacity) {
    const int capacity = table->capacity ? 2 * table->capacity : 32;
    info_row *rows = realloc(table->rows, (size_t)capacity * sizeof *rows);
    DG_CHECK(rows, DG_ERR_MEMORY, "out of memory growing the info table to %d rows", capacity);
    table->rows = rows;
    table->capacity = capacity;
  }
  info_row *row = &table->rows[table->n_rows++];
  snprintf(row->key, sizeof row->key, "%s", key);
  snprintf(row->label, sizeof row->label, "%s", label);
  snprintf(row->value, sizeof row->value, "%s", value);
  snprintf(row->human, sizeof row->human, "%s", human ? human : "");
  return DG_SUCCESS;
}

static dg_status info_add_int(info_table *table, const char *key, const char *label, int64_t v) {
  char value[32];
  snprintf(value, sizeof value, "%lld", (long long)v);
  return info_table_add(table, key, label, value, NULL);
}

static dg_status info_add_real(info_table *table, const char *key, const char *label, double v) {
  char value[32];
  snprintf(value, sizeof value, "%.9g", v);
  return info_table_add(table, key, label, value, NULL);
}

static const char *const info_shape_key[DG_NUM_SHAPES] = {"line", "tri",   "quad",
                                                          "tet",  "prism", "hex"};
static const char *const info_shape_label[DG_NUM_SHAPES] = {
    "lines", "triangles", "quadrilaterals", "tetrahedra", "prisms", "hexahedra"};

dg_status info_collect(const dg_mesh *mesh, const dg_topology *topo, const dg_geometry *geom,
                       int p_only, int rules, info_table *table) {
  char key[96], label[96], value[192], human[192];
  DG_CALL(info_table_add(table, "source", "mesh", mesh->source, NULL));
  DG_CALL(info_add_int(table, "dim", "dimension", mesh->dim));
  DG_CALL(info_add_int(table, "geom_order", "geometric order", mesh->geom_order));
  DG_CALL(info_add_int(table, "nodes", "nodes", mesh->n_nodes));
  DG_CALL(info_add_int(table, "elements", "elements", mesh->n_elems));
  for (int s = DG_TRI; s < DG_NUM_SHAPES; ++s) {
    const int64_t n = mesh->shape_offset[s + 1] - mesh->shape_offset[s];
    if (!shape_supported((dg_shape)s) && n == 0) continue;
    if (shape_dim((dg_shape)s) != mesh->dim && n == 0) continue;
    snprintf(key, sizeof key, "elements_%s", info_shape_key[s]);
    snprintf(label, sizeof label, "  %s (order %d)", info_shape_label[s], mesh->geom_order);
    DG_CALL(info_add_int(table, key, label, n));
  }
  int64_t affine = 0;
  for (int64_t e = 0; e < mesh->n_elems; ++e) affine += geom->elem_affine[e] ? 1 : 0;
  DG_CALL(info_add_int(table, "elements_affine", "  affine (one Jacobian)", affine));
  DG_CALL(info_add_int(table, "elements_mapped", "  mapped (metrics per point)",
                       mesh->n_elems - affine));
  if (mesh->geom_order > 1) {
    geometry_quality quality;
    DG_CALL(geometry_jacobian_quality(mesh, GEOMETRY_QUALITY_WARN, &quality));
    snprintf(human, sizeof human, "%.3g (element %lld)", quality.worst,
             (long long)quality.worst_elem);
    snprintf(value, sizeof value, "%.9g", quality.worst);
    DG_CALL(info_table_add(table, "jacobian_ratio_min", "  smallest min/max det J", value, human));
    snprintf(label, sizeof label, "  min/max det J below %g", GEOMETRY_QUALITY_WARN);
    DG_CALL(info_add_int(table, "jacobian_ratio_below", label, quality.n_below));
  }

  DG_CALL(info_add_int(table, "faces", "faces", topo->n_faces));
  DG_CALL(info_add_int(table, "faces_interior", "  interior (incl. periodic)", topo->n_interior));
  DG_CALL(info_add_int(table, "faces_periodic", "  periodic pairs", topo->n_periodic_faces));
  DG_CALL(info_add_int(table, "faces_boundary", "  boundary", topo->n_faces - topo->n_interior));
  DG_CALL(info_add_int(table, "groups", "boundary groups", mesh->n_groups));
  for (int g = 0; g < mesh->n_groups; ++g) {
    snprintf(key, sizeof key, "faces_group_%s", mesh->groups[g].name);
    snprintf(label, sizeof label, "  %s (tag %d)", mesh->groups[g].name, mesh->groups[g].tag);
    DG_CALL(info_add_int(table, key, label,
                         topo->group_face_offset[g + 1] - topo->group_face_offset[g]));
  }

  double h_min = 0.0, h_max = 0.0, measure = 0.0;
  for (int64_t e = 0; e < mesh->n_elems; ++e) {
    const double h = geom->elem_h[e];
    if (e == 0 || h < h_min) h_min = h;
    if (e == 0 || h > h_max) h_max = h;
    measure += geom->elem_volume[e];
  }
  DG_CALL(info_add_real(table, "h_min", "smallest element size h", h_min));
  DG_CALL(info_add_real(table, "h_max", "largest element size h", h_max));
  DG_CALL(info_add_real(table, "volume", mesh->dim == 2 ? "total area" : "total volume", measure));

  for (int p = 0; p <= DG_MAX_P; ++p) {
    if (p_only >= 0 && p != p_only) continue;
    info_memory m;
    DG_CALL(info_memory_estimate(mesh, topo, geom, p, rules, &m));
    snprintf(key, sizeof key, "dofs_p%d", p);
    snprintf(label, sizeof label, "p = %d: degrees of freedom x %d", p, mesh->dim + 2);
    DG_CALL(info_add_int(table, key, label, m.n_dofs));
    snprintf(key, sizeof key, "memory_mib_p%d", p);
    snprintf(label, sizeof label, "p = %d: GPU memory estimate (MiB)", p);
    snprintf(value, sizeof value, "%.6f", m.total);
    const size_t *mb = m.lusgs.bytes;
    snprintf(human, sizeof human,
             "LU-SGS %.4g (vectors %.3g, geometry %.3g, blocks %.3g, face Jacobians %.3g, work "
             "%.3g); with AV %.4g; explicit RK3 %.4g",
             m.total, mb[GPU_MEM_VECTORS] / info_mib, mb[GPU_MEM_GEOMETRY] / info_mib,
             mb[GPU_MEM_LUSGS_BLOCKS] / info_mib, mb[GPU_MEM_FACE_JAC] / info_mib,
             mb[GPU_MEM_WORK] / info_mib, m.lusgs_av.total / info_mib,
             m.explicit_rk3.total / info_mib);
    DG_CALL(info_table_add(table, key, label, value, human));
    snprintf(key, sizeof key, "memory_mib_explicit_p%d", p);
    snprintf(label, sizeof label, "p = %d: GPU memory, explicit RK3 (MiB)", p);
    snprintf(value, sizeof value, "%.6f", m.explicit_rk3.total / info_mib);
    DG_CALL(info_table_add(table, key, label, value, NULL));
    snprintf(key, sizeof key, "memory_mib_newton_p%d", p);
    snprintf(label, sizeof label, "p = %d: GPU memory, Newton-Krylov (MiB)", p);
    snprintf(value, sizeof value, "%.6f", m.newton_total);
    snprintf(human, sizeof human,
             "%.4g (LU-SGS + %.3g: Krylov basis of %d, trial state, residuals)", m.newton_total,
             m.newton_vectors, NEWTON_INFO_KRYLOV);
    DG_CALL(info_table_add(table, key, label, value, human));
    snprintf(key, sizeof key, "memory_mib_lusgs_av_p%d", p);
    snprintf(label, sizeof label, "p = %d: GPU memory, LU-SGS + AV (MiB)", p);
    snprintf(value, sizeof value, "%.6f", m.lusgs_av.total / info_mib);
    DG_CALL(info_table_add(table, key, label, value, NULL));
    snprintf(key, sizeof key, "gpu_bytes_per_elem_p%d", p);
    snprintf(label, sizeof label, "p = %d: GPU bytes per element", p);
    snprintf(value, sizeof value, "%.0f",
             m.elem_solution + m.elem_geometry + m.elem_lusgs_blocks + m.elem_work);
    snprintf(human, sizeof human,
             "%.0f (solution %.0f, geometry %.0f, LU-SGS blocks + face Jacobians %.0f, work arrays "
             "%.0f)",
             m.elem_solution + m.elem_geometry + m.elem_lusgs_blocks + m.elem_work, m.elem_solution,
             m.elem_geometry, m.elem_lusgs_blocks, m.elem_work);
    DG_CALL(info_table_add(table, key, label, value, human));
    /* LU-SGS block per element: (Nb Nvar)² doubles of LU factors + Nb Nvar
     * int32 pivots, for each shape the mesh has */
    int64_t most = 0;
    int len = 0;
    human[0] = '\0';
    for (int sh = 0; sh < DG_NUM_SHAPES; ++sh) {
      int present = 0;
      for (int64_t e = 0; e < mesh->n_elems && !present; ++e) present = mesh->elem_shape[e] == sh;
      if (!present) continue;
      const int64_t n = (int64_t)basis_count((dg_shape)sh, p) * (mesh->dim + 2);
      const int64_t bytes = 8 * n * n + 4 * n;
      if (bytes > most) most = bytes;
      if (len >= 0 && (size_t)len < sizeof human)
        len += snprintf(human + len, sizeof human - (size_t)len, "%s%s %lld B", len ? ", " : "",
                        info_shape_key[sh], (long long)bytes);
    }
    snprintf(key, sizeof key, "lusgs_block_bytes_p%d", p);
    snprintf(label, sizeof label, "p = %d: LU-SGS block per element", p);
    snprintf(value, sizeof value, "%lld", (long long)most);
    DG_CALL(info_table_add(table, key, label, value, human));
  }
  DG_CALL(info_add_coloring(table, mesh, topo));
  return DG_SUCCESS;
}

dg_status info_add_coloring(info_table *table, const dg_mesh *mesh, const dg_topology *topo) {
  /* Both algorithms, each reduced and with the largest colours at the
   * turns as runs do by default (coloring_reduce, coloring_order_turns);
   * BFS_WALL seeded at the group called "wall" (element 0 when there is
   * none). Rows colors_<alg>, color_sizes_<alg> (elements per colour,
   * space-separated), color_group_min_<alg>, color_group_max_<alg>. */
  for (int a = 0; a < DG_NUM_COLORINGS; ++a) {
    const char *name = coloring_algorithm_name((dg_coloring_algorithm)a);
    dg_coloring col = {0};
    DG_CALL(coloring_build(mesh, topo, (dg_coloring_algorithm)a, "wall", &col));
    dg_status reduced = coloring_reduce(mesh, topo, &col, NULL);
    if (reduced == DG_SUCCESS) reduced = coloring_order_turns(mesh, &col, NULL);
    if (reduced != DG_SUCCESS) {
      coloring_free(&col);
      return reduced;
    }
    int64_t sizes[DG_MAX_FACES + 1] = {0};
    for (int64_t e = 0; e < col.n_elems; ++e) ++sizes[col.color[e]];
    int64_t lo = col.n_colors > 0 ? sizes[0] : 0, hi = lo;
    char key[96], label[96], value[192], human[192];
    size_t len = 0;
    value[0] = '\0';
    for (int c = 0; c < col.n_colors; ++c) {
      if (sizes[c] < lo) lo = sizes[c];
      if (sizes[c] > hi) hi = sizes[c];
      const int w =
          snprintf(value + len, sizeof value - len, "%s%lld", c ? " " : "", (long long)sizes[c]);
      if (w > 0 && (size_t)w < sizeof value - len) len += (size_t)w;
    }
    const int n_colors = col.n_colors;
    coloring_free(&col);
    snprintf(key, sizeof key, "colors_%s", name);
    snprintf(label, sizeof label, "colouring %s: colours", name);
    DG_CALL(info_add_int(table, key, label, n_colors));
    snprintf(key, sizeof key, "color_sizes_%s", name);
    snprintf(label, sizeof label, "  elements per colour");
    DG_CALL(info_table_add(table, key, label, value, NULL));
    snprintf(key, sizeof key, "color_group_min_%s", name);
    snprintf(label, sizeof label, "  smallest colour group");
    DG_CALL(info_add_int(table, key, label, lo));
    snprintf(key, sizeof key, "color_group_max_%s", name);
    snprintf(label, sizeof label, "  largest colour group");
    snprintf(human, sizeof human, "%lld (max/min %.3g)", (long long)hi,
             lo > 0 ? (double)hi / (double)lo : 0.0);
    snprintf(value, sizeof value, "%lld", (long long)hi);
    DG_CALL(info_table_add(table, key, label, value, human));
  }
  return DG_SUCCESS;
}

dg_status info_add_partitions(info_table *table, dg_mesh *mesh, dg_topology *topo, int p,
                              dg_quad_family family, int n_parts, int per_part_rows, int coloring,
                              int reduce, int turns, const char *seed_group) {
  DG_CHECK(mesh->n_elems > 0, DG_ERR_ARG, "%s: no elements to partition", mesh->source);
  /* as a distributed run: colour, renumber colour-major, then partition */
  dg_coloring col = {0};
  DG_CALL(coloring_build(mesh, topo, (dg_coloring_algorithm)coloring, seed_group, &col));
  dg_status status = reduce ? coloring_reduce(mesh, topo, &col, NULL) : DG_SUCCESS;
  if (status == DG_SUCCESS && turns) status = coloring_order_turns(mesh, &col, NULL);
  if (status == DG_SUCCESS) status = coloring_apply(&col, mesh);
  if (status == DG_SUCCESS) {
    topology_free(topo);
    status = topology_build(mesh, topo);
  }
  const int n_colors = col.n_colors;
  int32_t *color = status == DG_SUCCESS ? col.color : NULL;
  col.color = NULL; /* kept until the balance is computed */
  coloring_free(&col);
  int32_t *part = status == DG_SUCCESS ? malloc((size_t)mesh->n_elems * sizeof *part) : NULL;
  if (status == DG_SUCCESS && !part)
    status = dg_error_set(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                          "%s: out of memory for the partition of %lld elements", mesh->source,
                          (long long)mesh->n_elems);
  if (status != DG_SUCCESS) {
    free(color);
    dg_error_trace(__FILE__, __LINE__, __func__);
    return status;
  }
  dg_partition_stats st = {0};
  status = partition_elements(mesh, topo, p, family, n_parts, part);
  if (status == DG_SUCCESS) status = partition_stats(mesh, topo, p, family, n_parts, part, &st);
  /* the colour steps of LU-SGS across ranks (partition.h) */
  double colour_balance = 1.0;
  if (status == DG_SUCCESS)
    colour_balance = partition_colour_balance(color, n_colors, mesh->n_elems, part, n_parts);
  free(part);
  free(color);
  if (status != DG_SUCCESS) {
    dg_error_trace(__FILE__, __LINE__, __func__);
    return status;
  }
  char key[96], label[96], value[192], human[192];
  const double mean = st.weight_total / n_parts;
  const int64_t state_bytes = 8 * (int64_t)(mesh->dim + 2); /* per mode: nvar doubles */
  DG_CALL_GOTO(status, done, info_add_int(table, "partitions", "partitions", n_parts));
  DG_CALL_GOTO(status, done, info_add_int(table, "partition_p", "  weighted at degree p", p));
  DG_CALL_GOTO(status, done,
               info_table_add(table, "partition_method", "  method",
                              n_parts == 1   ? "none"
                              : n_parts <= 8 ? "metis_recursive"
                                             : "metis_kway",
                              n_parts == 1   ? "none (one part)"
                              : n_parts <= 8 ? "METIS recursive bisection"
                                             : "METIS k-way"));
  int64_t halo_max = 0;
  for (int k = 0; k < n_parts; ++k) {
    if (st.ghost_dofs[k] > halo_max) halo_max = st.ghost_dofs[k];
    if (!per_part_rows) {
      snprintf(label, sizeof label, "  part %d", k);
      snprintf(value, sizeof value, "%lld", (long long)st.elems[k]);
      snprintf(human, sizeof human,
               "%lld elements, weight %.6g (%.4f of mean), %lld face ghosts (%lld by vertex), %d "
               "neighbours",
               (long long)st.elems[k], st.weight[k], mean > 0.0 ? st.weight[k] / mean : 0.0,
               (long long)st.ghosts[k], (long long)st.vertex_ghosts[k], st.neighbors[k]);
      snprintf(key, sizeof key, "part_%d", k);
      DG_CALL_GOTO(status, done, info_table_add(table, key, label, value, human));
      continue;
    }
    snprintf(key, sizeof key, "part_%d_elements", k);
    snprintf(label, sizeof label, "  part %d: elements", k);
    DG_CALL_GOTO(status, done, info_add_int(table, key, label, st.elems[k]));
    snprintf(key, sizeof key, "part_%d_weight", k);
    snprintf(label, sizeof label, "  part %d: weight", k);
    DG_CALL_GOTO(status, done, info_add_real(table, key, label, st.weight[k]));
    snprintf(key, sizeof key, "part_%d_ghosts", k);
    snprintf(label, sizeof label, "  part %d: face ghosts", k);
    DG_CALL_GOTO(status, done, info_add_int(table, key, label, st.ghosts[k]));
    snprintf(key, sizeof key, "part_%d_vertex_ghosts", k);
    snprintf(label, sizeof label, "  part %d: vertex ghosts", k);
    DG_CALL_GOTO(status, done, info_add_int(table, key, label, st.vertex_ghosts[k]));
    snprintf(key, sizeof key, "part_%d_neighbors", k);
    snprintf(label, sizeof label, "  part %d: neighbours", k);
    DG_CALL_GOTO(status, done, info_add_int(table, key, label, st.neighbors[k]));
  }
  snprintf(value, sizeof value, "%.6f", st.imbalance);
  DG_CALL_GOTO(
      status, done,
      info_table_add(table, "partition_imbalance", "  imbalance (max/mean weight)", value, NULL));
  snprintf(value, sizeof value, "%.6f", colour_balance);
  snprintf(human, sizeof human,
           "%.4f (per colour, mean part / largest part, summed: bounds LU-SGS sweeps across "
           "ranks)",
           colour_balance);
  DG_CALL_GOTO(
      status, done,
      info_table_add(table, "partition_colour_balance", "  colour-step balance", value, human));
  DG_CALL_GOTO(status, done,
               info_add_int(table, "partition_cut_faces", "  cut faces", st.cut_faces));
  DG_CALL_GOTO(
      status, done,
      info_add_int(table, "partition_halo_elements", "  face ghosts, all parts", st.halo_elems));
  DG_CALL_GOTO(status, done,
               info_add_int(table, "partition_vertex_halo_elements", "  vertex ghosts, all parts",
                            st.vertex_halo_elems));
  DG_CALL_GOTO(status, done,
               info_add_int(table, "partition_max_neighbors", "  most neighbours of a part",
                            st.max_neighbors));
  snprintf(label, sizeof label, "  halo bytes per state exchange, p=%d", p);
  snprintf(value, sizeof value, "%lld", (long long)(st.halo_dofs * state_bytes));
  snprintf(human, sizeof human, "%lld (all parts; %.4g MiB)",
           (long long)(st.halo_dofs * state_bytes),
           (double)(st.halo_dofs * state_bytes) / info_mib);
  DG_CALL_GOTO(status, done, info_table_add(table, "partition_halo_bytes", label, value, human));
  snprintf(value, sizeof value, "%lld", (long long)(halo_max * state_bytes));
  DG_CALL_GOTO(status, done,
               info_table_add(table, "partition_halo_bytes_max", "    received by one part, most",
                              value, NULL));
done:
  partition_stats_free(&st);
  return status;
}

void info_table_print(const info_table *table, int csv, FILE *out) {
  if (csv) {
    fprintf(out, "key,value\n");
    for (int i = 0; i < table->n_rows; ++i) {
      const info_row *row = &table->rows[i];
      /* Values with commas or quotes are quoted so the CSV stays two columns. */
      if (strpbrk(row->value, ",\"\n")) {
        fprintf(out, "%s,\"", row->key);
        for (const char *c = row->value; *c; ++c) {
          if (*c == '"') fputc('"', out);
          fputc(*c, out);
        }
        fprintf(out, "\"\n");
      } else {
        fprintf(out, "%s,%s\n", row->key, row->value);
      }
    }
    return;
  }
  for (int i = 0; i < table->n_rows; ++i) {
    const info_row *row = &table->rows[i];
    fprintf(out, "%-36s %s\n", row->label, row->human[0] ? row->human : row->value);
  }
}

void info_table_free(info_table *table) {
  if (!table) return;
  free(table->rows);
  memset(table, 0, sizeof *table);
}
