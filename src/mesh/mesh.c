/* Mesh container: allocation, invariant checks, file dispatch, element
 * renumbering. */
#define _POSIX_C_SOURCE 200809L

#include "mesh/mesh.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void mesh_free(dg_mesh *mesh) {
  if (!mesh) return;
  free(mesh->x);
  free(mesh->elem_shape);
  free(mesh->elem_node_start);
  free(mesh->elem_nodes);
  free(mesh->elem_tag);
  free(mesh->groups);
  free(mesh->bface_shape);
  free(mesh->bface_verts);
  free(mesh->bface_group);
  free(mesh->bface_tag);
  free(mesh->periodic_slave);
  free(mesh->periodic_master);
  memset(mesh, 0, sizeof *mesh);
}

dg_status mesh_alloc(dg_mesh *mesh, int64_t n_nodes, int64_t n_elems, int64_t n_elem_nodes,
                     int n_groups, int64_t n_bfaces, int64_t n_periodic) {
  DG_CHECK(mesh, DG_ERR_ARG, "mesh_alloc: mesh is NULL");
  DG_CHECK(n_nodes >= 0 && n_elems >= 0 && n_elem_nodes >= 0 && n_groups >= 0 && n_bfaces >= 0 &&
               n_periodic >= 0,
           DG_ERR_ARG,
           "mesh_alloc: negative size (nodes %lld, elements %lld, element nodes %lld, groups %d, "
           "boundary faces %lld, periodic links %lld)",
           (long long)n_nodes, (long long)n_elems, (long long)n_elem_nodes, n_groups,
           (long long)n_bfaces, (long long)n_periodic);
  mesh->n_nodes = n_nodes;
  mesh->n_elems = n_elems;
  mesh->n_groups = n_groups;
  mesh->n_bfaces = n_bfaces;
  mesh->n_periodic = n_periodic;
  dg_status status = DG_SUCCESS;
  DG_CALL_GOTO(status, fail, DG_CALLOC(mesh->x, 3 * (size_t)n_nodes));
  DG_CALL_GOTO(status, fail, DG_CALLOC(mesh->elem_shape, (size_t)n_elems));
  DG_CALL_GOTO(status, fail, DG_CALLOC(mesh->elem_node_start, (size_t)n_elems + 1));
  DG_CALL_GOTO(status, fail, DG_CALLOC(mesh->elem_nodes, (size_t)n_elem_nodes));
  DG_CALL_GOTO(status, fail, DG_CALLOC(mesh->elem_tag, (size_t)n_elems));
  DG_CALL_GOTO(status, fail, DG_CALLOC(mesh->groups, (size_t)n_groups));
  DG_CALL_GOTO(status, fail, DG_CALLOC(mesh->bface_shape, (size_t)n_bfaces));
  DG_CALL_GOTO(status, fail, DG_CALLOC(mesh->bface_verts, DG_MAX_FACE_VERTS * (size_t)n_bfaces));
  DG_CALL_GOTO(status, fail, DG_CALLOC(mesh->bface_group, (size_t)n_bfaces));
  DG_CALL_GOTO(status, fail, DG_CALLOC(mesh->bface_tag, (size_t)n_bfaces));
  DG_CALL_GOTO(status, fail, DG_CALLOC(mesh->periodic_slave, (size_t)n_periodic));
  DG_CALL_GOTO(status, fail, DG_CALLOC(mesh->periodic_master, (size_t)n_periodic));
  mesh->elem_node_start[n_elems] = n_elem_nodes;
  return DG_SUCCESS;
fail:
  mesh_free(mesh);
  return status;
}

/* Twice the signed area (2D, z ignored) or six times the signed volume (3D)
 * of an element's straight-sided vertex polytope; > 0 means positively
 * oriented. */
static double mesh_vertex_measure(const dg_mesh *mesh, dg_shape shape, const int64_t *nodes) {
  const double *x = mesh->x;
  if (shape == DG_TET) {
    double a[3][3];
    for (int k = 0; k < 3; ++k)
      for (int d = 0; d < 3; ++d) a[k][d] = x[3 * nodes[k + 1] + d] - x[3 * nodes[0] + d];
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
           a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  }
  /* Shoelace formula: for a triangle it is the cross product of two edges. */
  const int nv = shape_n_verts(shape);
  double area2 = 0.0;
  for (int k = 0; k < nv; ++k) {
    const double *p = x + 3 * nodes[k], *q = x + 3 * nodes[(k + 1) % nv];
    area2 += p[0] * q[1] - q[0] * p[1];
  }
  return area2;
}

dg_status mesh_check(const dg_mesh *mesh) {
  DG_CHECK(mesh, DG_ERR_ARG, "mesh_check: mesh is NULL");
  const char *src = mesh->source[0] ? mesh->source : "(mesh)";
  DG_CHECK(mesh->dim == 2 || mesh->dim == 3, DG_ERR_MESH, "%s: dimension %d is not 2 or 3", src,
           mesh->dim);
  DG_CHECK(mesh->geom_order >= 1 && mesh->geom_order <= DG_MAX_GEOM_ORDER, DG_ERR_MESH,
           "%s: geometric order %d is not in 1..%d", src, mesh->geom_order, DG_MAX_GEOM_ORDER);
  DG_CHECK(mesh->n_nodes >= 0 && mesh->n_elems >= 0 && mesh->n_groups >= 0 && mesh->n_bfaces >= 0 &&
               mesh->n_periodic >= 0,
           DG_ERR_MESH, "%s: negative size in the mesh header", src);
  DG_CHECK(mesh->n_elems > 0, DG_ERR_MESH, "%s: the mesh has no elements", src);

  /* Grouping by shape, each shape allowed for the dimension. */
  DG_CHECK(mesh->shape_offset[0] == 0 && mesh->shape_offset[DG_NUM_SHAPES] == mesh->n_elems,
           DG_ERR_MESH, "%s: shape offsets span [%lld, %lld), not the %lld elements", src,
           (long long)mesh->shape_offset[0], (long long)mesh->shape_offset[DG_NUM_SHAPES],
           (long long)mesh->n_elems);
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int64_t begin = mesh->shape_offset[s], end = mesh->shape_offset[s + 1];
    DG_CHECK(begin <= end, DG_ERR_MESH, "%s: shape offsets decrease at shape %d", src, s);
    DG_CHECK(begin == end || (shape_supported((dg_shape)s) && shape_dim((dg_shape)s) == mesh->dim),
             DG_ERR_MESH, "%s: %lld elements of shape %d in a %dD mesh", src,
             (long long)(end - begin), s, mesh->dim);
    for (int64_t e = begin; e < end; ++e)
      DG_CHECK(mesh->elem_shape[e] == s, DG_ERR_MESH,
               "%s: element %lld (tag %lld) has shape %d but lies in the block of shape %d", src,
               (long long)e, (long long)mesh->elem_tag[e], mesh->elem_shape[e], s);
  }

  /* Node lists: one geometric order, indices in range. */
  DG_CHECK(mesh->elem_node_start[0] == 0, DG_ERR_MESH, "%s: elem_node_start[0] is %lld, not 0", src,
           (long long)mesh->elem_node_start[0]);
  for (int64_t e = 0; e < mesh->n_elems; ++e) {
    const dg_shape shape = (dg_shape)mesh->elem_shape[e];
    const int64_t start = mesh->elem_node_start[e], end = mesh->elem_node_start[e + 1];
    DG_CHECK(end - start == shape_n_nodes(shape, mesh->geom_order), DG_ERR_MESH,
             "%s: element %lld (tag %lld) has %lld nodes; shape %d of order %d needs %d", src,
             (long long)e, (long long)mesh->elem_tag[e], (long long)(end - start), shape,
             mesh->geom_order, shape_n_nodes(shape, mesh->geom_order));
    for (int64_t k = start; k < end; ++k)
      DG_CHECK(mesh->elem_nodes[k] >= 0 && mesh->elem_nodes[k] < mesh->n_nodes, DG_ERR_MESH,
               "%s: element %lld (tag %lld) refers to node %lld, outside [0, %lld)", src,
               (long long)e, (long long)mesh->elem_tag[e], (long long)mesh->elem_nodes[k],
               (long long)mesh->n_nodes);
  }

  if (mesh->dim == 2)
    for (int64_t i = 0; i < mesh->n_nodes; ++i)
      DG_CHECK(mesh->x[3 * i + 2] == 0.0, DG_ERR_MESH,
               "%s: node %lld has z = %g; a 2D mesh must lie in the plane z = 0", src, (long long)i,
               mesh->x[3 * i + 2]);

  for (int64_t e = 0; e < mesh->n_elems; ++e) {
    const double measure = mesh_vertex_measure(mesh, (dg_shape)mesh->elem_shape[e],
                                               mesh->elem_nodes + mesh->elem_node_start[e]);
    DG_CHECK(measure > 0.0, DG_ERR_MESH,
             "%s: element %lld (tag %lld) is not positively oriented (signed %s %g at its "
             "vertices)",
             src, (long long)e, (long long)mesh->elem_tag[e], mesh->dim == 2 ? "area" : "volume",
             mesh->dim == 2 ? measure / 2.0 : measure / 6.0);
  }

  for (int g = 0; g < mesh->n_groups; ++g)
    DG_CHECK(memchr(mesh->groups[g].name, '\0', DG_GROUP_NAME_LEN) != NULL, DG_ERR_MESH,
             "%s: the name of group %d (tag %d) is not terminated", src, g, mesh->groups[g].tag);

  for (int64_t f = 0; f < mesh->n_bfaces; ++f) {
    const dg_shape fs = (dg_shape)mesh->bface_shape[f];
    const int face_ok = mesh->dim == 2 ? fs == DG_LINE : (fs == DG_TRI || fs == DG_QUAD);
    DG_CHECK(face_ok, DG_ERR_MESH, "%s: boundary face %lld (tag %lld) has shape %d in a %dD mesh",
             src, (long long)f, (long long)mesh->bface_tag[f], mesh->bface_shape[f], mesh->dim);
    const int nv = shape_n_verts(fs);
    for (int k = 0; k < DG_MAX_FACE_VERTS; ++k) {
      const int64_t v = mesh->bface_verts[DG_MAX_FACE_VERTS * f + k];
      DG_CHECK(k < nv ? (v >= 0 && v < mesh->n_nodes) : v == -1, DG_ERR_MESH,
               "%s: boundary face %lld (tag %lld) has vertex %d = %lld (expected %s)", src,
               (long long)f, (long long)mesh->bface_tag[f], k, (long long)v,
               k < nv ? "a node index in range" : "-1 padding");
    }
    DG_CHECK(mesh->bface_group[f] >= 0 && mesh->bface_group[f] < mesh->n_groups, DG_ERR_MESH,
             "%s: boundary face %lld (tag %lld) is in group %d, outside [0, %d)", src, (long long)f,
             (long long)mesh->bface_tag[f], mesh->bface_group[f], mesh->n_groups);
  }

  for (int64_t i = 0; i < mesh->n_periodic; ++i) {
    const int64_t s = mesh->periodic_slave[i], m = mesh->periodic_master[i];
    DG_CHECK(s >= 0 && s < mesh->n_nodes && m >= 0 && m < mesh->n_nodes, DG_ERR_MESH,
             "%s: periodic link %lld (node %lld -> %lld) is outside [0, %lld)", src, (long long)i,
             (long long)s, (long long)m, (long long)mesh->n_nodes);
  }
  return DG_SUCCESS;
}

/* 1 when path ends in ext (case-insensitive). */
static int mesh_has_extension(const char *path, const char *ext) {
  const size_t n = strlen(path), m = strlen(ext);
  if (n < m) return 0;
  for (size_t i = 0; i < m; ++i)
    if (tolower((unsigned char)path[n - m + i]) != tolower((unsigned char)ext[i])) return 0;
  return 1;
}

dg_mesh_read_options mesh_read_options_default(void) {
  return (dg_mesh_read_options){.geo_order = 0,
                                .allow_shell = 0,
                                .max_seconds = 600.0,
                                .max_elements = 5e7,
                                .max_memory_mb = 0.0};
}

dg_status mesh_check_regular_file(const char *path, const char *what) {
  struct stat st;
  DG_CHECK(stat(path, &st) == 0, DG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  DG_CHECK(!S_ISDIR(st.st_mode), DG_ERR_IO, "%s: is a directory, not a %s", path, what);
  DG_CHECK(S_ISREG(st.st_mode), DG_ERR_IO,
           "%s: is not a regular file (a device, FIFO or socket); ColorDG reads a %s only from a "
           "regular file",
           path, what);
  return DG_SUCCESS;
}

dg_status mesh_read(const char *path, int geo_order, dg_mesh *mesh) {
  dg_mesh_read_options options = mesh_read_options_default();
  options.geo_order = geo_order;
  DG_CALL(mesh_read_with(path, &options, mesh));
  return DG_SUCCESS;
}

dg_status mesh_read_with(const char *path, const dg_mesh_read_options *options, dg_mesh *mesh) {
  DG_CHECK(path && mesh && options, DG_ERR_ARG, "mesh_read: path, options or mesh is NULL");
  const int geo_order = options->geo_order;
  DG_CHECK(geo_order >= 0 && geo_order <= DG_MAX_GEOM_ORDER, DG_ERR_ARG,
           "%s: geometric order %d is not in 0..%d", path, geo_order, DG_MAX_GEOM_ORDER);
  const int known = mesh_has_extension(path, ".cdgm") || mesh_has_extension(path, ".msh") ||
                    mesh_has_extension(path, ".geo");
  DG_CHECK(known, DG_ERR_ARG,
           "%s: unknown mesh file extension; ColorDG reads .cdgm, .msh (Gmsh 2.2/4.1) and .geo",
           path);
  DG_CALL(mesh_check_regular_file(path, "mesh file"));
  if (mesh_has_extension(path, ".cdgm"))
    DG_CALL(mesh_read_cdgm(path, mesh));
  else
    DG_CALL(mesh_read_gmsh(path, options, mesh));
  return DG_SUCCESS;
}

dg_status mesh_renumber_elements(dg_mesh *mesh, const int64_t *perm) {
  DG_CHECK(mesh && perm, DG_ERR_ARG, "mesh_renumber_elements: mesh or perm is NULL");
  const int64_t n = mesh->n_elems;
  dg_status status = DG_SUCCESS;
  uint8_t *seen = NULL;
  int8_t *new_shape = NULL;
  int64_t *new_start = NULL, *new_nodes = NULL, *new_tag = NULL;
  DG_CALL_GOTO(status, done, DG_CALLOC(seen, (size_t)n));
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    for (int64_t i = mesh->shape_offset[s]; i < mesh->shape_offset[s + 1]; ++i) {
      const int64_t old = perm[i];
      if (old < 0 || old >= n || seen[old]) {
        status = dg_error_set(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                              "%s: element permutation entry %lld = %lld is %s", mesh->source,
                              (long long)i, (long long)old,
                              old < 0 || old >= n ? "out of range" : "repeated");
        goto done;
      }
      if (old < mesh->shape_offset[s] || old >= mesh->shape_offset[s + 1]) {
        status = dg_error_set(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                              "%s: element permutation moves element %lld (tag %lld) out of the "
                              "block of its shape to position %lld",
                              mesh->source, (long long)old, (long long)mesh->elem_tag[old],
                              (long long)i);
        goto done;
      }
      seen[old] = 1;
    }
  }
  DG_CALL_GOTO(status, done, DG_CALLOC(new_shape, (size_t)n));
  DG_CALL_GOTO(status, done, DG_CALLOC(new_start, (size_t)n + 1));
  DG_CALL_GOTO(status, done, DG_CALLOC(new_nodes, (size_t)mesh->elem_node_start[n]));
  DG_CALL_GOTO(status, done, DG_CALLOC(new_tag, (size_t)n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t old = perm[i],
                  count = mesh->elem_node_start[old + 1] - mesh->elem_node_start[old];
    new_shape[i] = mesh->elem_shape[old];
    new_tag[i] = mesh->elem_tag[old];
    new_start[i + 1] = new_start[i] + count;
    memcpy(new_nodes + new_start[i], mesh->elem_nodes + mesh->elem_node_start[old],
           (size_t)count * sizeof *new_nodes);
  }
  free(mesh->elem_shape);
  free(mesh->elem_node_start);
  free(mesh->elem_nodes);
  free(mesh->elem_tag);
  mesh->elem_shape = new_shape;
  mesh->elem_node_start = new_start;
  mesh->elem_nodes = new_nodes;
  mesh->elem_tag = new_tag;
  new_shape = NULL;
  new_start = new_nodes = new_tag = NULL;
done:
  free(seen);
  free(new_shape);
  free(new_start);
  free(new_nodes);
  free(new_tag);
  return status;
}

int mesh_find_group(const dg_mesh *mesh, const char *name) {
  if (!mesh || !name) return -1;
  for (int g = 0; g < mesh->n_groups; ++g)
    if (strncmp(mesh->groups[g].name, name, DG_GROUP_NAME_LEN) == 0) return g;
  return -1;
}
