/* Import of Gmsh .msh (2.2 / 4.1, ASCII / binary) and .geo files through the
 * Gmsh SDK C API. Gmsh parses the file; this file turns its model into a
 * dg_mesh: compact node numbering, elements grouped by shape and sorted by
 * tag, boundary faces of the (dim-1) physical groups, periodic node links,
 * positively oriented elements.
 *
 * Gmsh is global state: every read initialises and finalises it once, so a
 * read is not thread-safe and must not run while the caller itself holds an
 * initialised Gmsh. */
#define _POSIX_C_SOURCE 200809L

#include "mesh/mesh.h"

#include <errno.h>
#include <fcntl.h>
#include <gmshc.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef COLORDG_HAVE_OPENMP
#include <omp.h>
#endif

#include "mesh/mesh_msh_check.h"

/* ------------------------------------------------------------ growable arrays */

typedef struct {
  void *data;
  size_t n, cap, item;
} gmsh_array;

static dg_status gmsh_array_push(gmsh_array *a, const void *items, size_t count) {
  if (a->n + count > a->cap) {
    size_t cap = a->cap ? a->cap : 64;
    while (cap < a->n + count) cap *= 2;
    void *data = realloc(a->data, cap * a->item);
    DG_CHECK(data, DG_ERR_MEMORY, "out of memory growing an import array to %zu items", cap);
    a->data = data;
    a->cap = cap;
  }
  memcpy((char *)a->data + a->n * a->item, items, count * a->item);
  a->n += count;
  return DG_SUCCESS;
}

/* ---------------------------------------------------------------- records */

/* One element of dimension dim as Gmsh gave it (node tags, not indices). */
typedef struct {
  int64_t tag;
  int64_t node_start; /* into the node-tag array */
  int32_t entity;
  int8_t shape;
} gmsh_elem;

typedef struct {
  int64_t tag;
  int64_t verts[DG_MAX_FACE_VERTS]; /* node indices, -1 padded */
  int32_t group;
  int8_t shape;
} gmsh_bface;

typedef struct {
  int64_t slave, master;
} gmsh_link;

typedef struct {
  const char *path;
  int dim, order;
  gmsh_array elems;     /* gmsh_elem */
  gmsh_array node_tags; /* size_t, element nodes in Gmsh order */
  gmsh_array entities;  /* int32 entity tag for each [entity_start[i], entity_start[i+1]) */
  gmsh_array ent_start; /* int64 */
  size_t *used_tags;    /* sorted unique node tags of the elements: index = compact node id */
  size_t n_used;
  double *x;             /* [n_used][3] */
  gmsh_array bfaces;     /* gmsh_bface */
  gmsh_array links;      /* gmsh_link */
  gmsh_array group_list; /* dg_mesh_group */
} gmsh_import;

static void gmsh_import_free(gmsh_import *im) {
  free(im->elems.data);
  free(im->node_tags.data);
  free(im->entities.data);
  free(im->ent_start.data);
  free(im->used_tags);
  free(im->x);
  free(im->bfaces.data);
  free(im->links.data);
  free(im->group_list.data);
}

/* Records a DG_ERR_GMSH naming the file, the failed step and Gmsh's message. */
static dg_status gmsh_report(const char *path, const char *what, int line, const char *func) {
  char *last = NULL;
  int ierr = 0;
  gmshLoggerGetLastError(&last, &ierr);
  const dg_status status = dg_error_set(
      DG_ERR_GMSH, __FILE__, line, func, "%s: Gmsh failed to %s: %s", path, what,
      (!ierr && last && last[0])
          ? last
          : "Gmsh stopped without a message; most often it ran out of memory (a count in the "
            "file too large for this machine) or met data it could not parse");
  if (last) gmshFree(last);
  return status;
}

#define GMSH_CHECK(what)                                                                           \
  do {                                                                                             \
    if (ierr) {                                                                                    \
      status = gmsh_report(im->path, (what), __LINE__, __func__);                                  \
      goto done;                                                                                   \
    }                                                                                              \
  } while (0)

/* Shape and order of a Gmsh element type; 0 when ColorDG does not handle it. */
static int gmsh_type_shape(int type, dg_shape *shape, int *order) {
  for (int s = DG_LINE; s <= DG_TET; ++s)
    for (int q = 1; q <= DG_MAX_GEOM_ORDER; ++q)
      if (shape_gmsh_type((dg_shape)s, q) == type) {
        *shape = (dg_shape)s;
        *order = q;
        return 1;
      }
  return 0;
}

static dg_status gmsh_unsupported_type(const char *path, int type, const char *role) {
  char *name = NULL;
  int dim = 0, order = 0, n_nodes = 0, n_primary = 0, ierr = 0;
  double *coords = NULL;
  size_t n_coords = 0;
  gmshModelMeshGetElementProperties(type, &name, &dim, &order, &n_nodes, &coords, &n_coords,
                                    &n_primary, &ierr);
  const dg_status status = dg_error_set(
      DG_ERR_UNSUPPORTED, __FILE__, __LINE__, __func__,
      "%s: %s of Gmsh element type %d (%s) are not supported: ColorDG reads complete "
      "(non-serendipity) Lagrange triangles, quadrangles and tetrahedra of order 1 to %d",
      path, role, type, (!ierr && name) ? name : "unknown", DG_MAX_GEOM_ORDER);
  if (name) gmshFree(name);
  if (coords) gmshFree(coords);
  return status;
}

static void gmsh_free_elements(int *types, size_t n_types, size_t **elem_tags, size_t *elem_tags_n,
                               size_t **node_tags, size_t *node_tags_n) {
  for (size_t i = 0; i < n_types; ++i) {
    if (elem_tags) gmshFree(elem_tags[i]);
    if (node_tags) gmshFree(node_tags[i]);
  }
  gmshFree(types);
  gmshFree(elem_tags);
  gmshFree(elem_tags_n);
  gmshFree(node_tags);
  gmshFree(node_tags_n);
}

/* ------------------------------------------------------------- the steps */

/* Highest dimension with elements, and the one geometric order of those. */
static dg_status gmsh_find_dimension(gmsh_import *im) {
  dg_status status = DG_SUCCESS;
  int ierr = 0, *types = NULL;
  size_t n_types = 0;
  im->dim = 0;
  for (int d = 3; d >= 1 && im->dim == 0; --d) {
    gmshModelMeshGetElementTypes(&types, &n_types, d, -1, &ierr);
    GMSH_CHECK("list element types");
    if (n_types > 0) {
      im->dim = d;
      break;
    }
    gmshFree(types);
    types = NULL;
  }
  if (im->dim < 2) {
    status = dg_error_set(DG_ERR_MESH, __FILE__, __LINE__, __func__,
                          "%s: the file holds no 2D or 3D elements (a truncated or empty mesh, or "
                          "a .geo that was not meshed)",
                          im->path);
    goto done;
  }
  im->order = 0;
  for (size_t i = 0; i < n_types; ++i) {
    dg_shape shape;
    int order;
    if (!gmsh_type_shape(types[i], &shape, &order) || shape_dim(shape) != im->dim) {
      status = gmsh_unsupported_type(im->path, types[i], "elements");
      goto done;
    }
    if (im->order && order != im->order) {
      status = dg_error_set(DG_ERR_UNSUPPORTED, __FILE__, __LINE__, __func__,
                            "%s: elements of geometric orders %d and %d are mixed; ColorDG needs "
                            "one order for the whole mesh",
                            im->path, im->order, order);
      goto done;
    }
    im->order = order;
  }
done:
  gmshFree(types);
  return status;
}

/* Collects every element of dimension dim, entity by entity. */
static dg_status gmsh_collect_elements(gmsh_import *im) {
  dg_status status = DG_SUCCESS;
  int ierr = 0, *dim_tags = NULL;
  size_t n_dim_tags = 0;
  int *types = NULL;
  size_t n_types = 0, **etags = NULL, *etags_n = NULL, n_etags = 0, **ntags = NULL, *ntags_n = NULL,
         n_ntags = 0;
  im->elems.item = sizeof(gmsh_elem);
  im->node_tags.item = sizeof(size_t);
  im->entities.item = sizeof(int32_t);
  im->ent_start.item = sizeof(int64_t);
  gmshModelGetEntities(&dim_tags, &n_dim_tags, im->dim, &ierr);
  GMSH_CHECK("list entities");
  const int64_t zero = 0;
  DG_CALL_GOTO(status, done, gmsh_array_push(&im->ent_start, &zero, 1));
  for (size_t i = 0; i + 1 < n_dim_tags; i += 2) {
    const int32_t entity = dim_tags[i + 1];
    gmshModelMeshGetElements(&types, &n_types, &etags, &etags_n, &n_etags, &ntags, &ntags_n,
                             &n_ntags, im->dim, entity, &ierr);
    GMSH_CHECK("get the elements of an entity");
    for (size_t t = 0; t < n_types; ++t) {
      dg_shape shape;
      int order;
      if (!gmsh_type_shape(types[t], &shape, &order)) {
        status = gmsh_unsupported_type(im->path, types[t], "elements");
        goto done;
      }
      const int nn = shape_n_nodes(shape, order);
      if (ntags_n[t] != etags_n[t] * (size_t)nn) {
        status = dg_error_set(DG_ERR_GMSH, __FILE__, __LINE__, __func__,
                              "%s: Gmsh returned %zu node tags for %zu elements of type %d",
                              im->path, ntags_n[t], etags_n[t], types[t]);
        goto done;
      }
      for (size_t e = 0; e < etags_n[t]; ++e) {
        const gmsh_elem rec = {(int64_t)etags[t][e], (int64_t)im->node_tags.n, entity,
                               (int8_t)shape};
        DG_CALL_GOTO(status, done, gmsh_array_push(&im->elems, &rec, 1));
        DG_CALL_GOTO(status, done, gmsh_array_push(&im->node_tags, ntags[t] + e * nn, nn));
      }
    }
    gmsh_free_elements(types, n_types, etags, etags_n, ntags, ntags_n);
    types = NULL;
    etags = ntags = NULL;
    etags_n = ntags_n = NULL;
    n_types = 0;
    const int64_t end = (int64_t)im->elems.n;
    DG_CALL_GOTO(status, done, gmsh_array_push(&im->entities, &entity, 1));
    DG_CALL_GOTO(status, done, gmsh_array_push(&im->ent_start, &end, 1));
  }
done:
  gmsh_free_elements(types, n_types, etags, etags_n, ntags, ntags_n);
  gmshFree(dim_tags);
  return status;
}

static int gmsh_compare_size(const void *a, const void *b) {
  const size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

/* Compact index of a Gmsh node tag, -1 when no element uses it. */
static int64_t gmsh_node_index(const gmsh_import *im, size_t tag) {
  const size_t *hit = bsearch(&tag, im->used_tags, im->n_used, sizeof tag, gmsh_compare_size);
  return hit ? (int64_t)(hit - im->used_tags) : -1;
}

/* Numbers the nodes the elements use 0..n-1 in increasing Gmsh tag order
 * (format-independent) and fetches their coordinates. */
static dg_status gmsh_collect_nodes(gmsh_import *im) {
  dg_status status = DG_SUCCESS;
  int ierr = 0;
  size_t *tags = NULL, n_tags = 0, n_coord = 0, n_param = 0;
  double *coord = NULL, *param = NULL;
  uint8_t *found = NULL;
  const size_t n = im->node_tags.n;
  DG_CALL_GOTO(status, done, DG_CALLOC(im->used_tags, n));
  if (n > 0) memcpy(im->used_tags, im->node_tags.data, n * sizeof(size_t));
  qsort(im->used_tags, n, sizeof(size_t), gmsh_compare_size);
  size_t m = 0;
  for (size_t i = 0; i < n; ++i)
    if (m == 0 || im->used_tags[i] != im->used_tags[m - 1]) im->used_tags[m++] = im->used_tags[i];
  im->n_used = m;
  DG_CALL_GOTO(status, done, DG_CALLOC(im->x, 3 * m));
  DG_CALL_GOTO(status, done, DG_CALLOC(found, m));
  gmshModelMeshGetNodes(&tags, &n_tags, &coord, &n_coord, &param, &n_param, -1, -1, 0, 0, &ierr);
  GMSH_CHECK("get the nodes");
  for (size_t i = 0; i < n_tags; ++i) {
    const int64_t k = gmsh_node_index(im, tags[i]);
    if (k < 0) continue;
    memcpy(im->x + 3 * k, coord + 3 * i, 3 * sizeof(double));
    found[k] = 1;
  }
  for (size_t k = 0; k < m; ++k)
    if (!found[k]) {
      status = dg_error_set(DG_ERR_FORMAT, __FILE__, __LINE__, __func__,
                            "%s: elements use node %zu, which the file does not define", im->path,
                            im->used_tags[k]);
      goto done;
    }
done:
  free(found);
  gmshFree(tags);
  gmshFree(coord);
  gmshFree(param);
  return status;
}

/* Twice the signed area (2D, z ignored) or six times the signed volume (tet)
 * at the element's vertices. */
static double gmsh_vertex_measure(const gmsh_import *im, dg_shape shape, const size_t *tags) {
  const double *p[4];
  const int nv = shape_n_verts(shape);
  for (int k = 0; k < nv; ++k) p[k] = im->x + 3 * gmsh_node_index(im, tags[k]);
  if (shape == DG_TET) {
    double a[3][3];
    for (int k = 0; k < 3; ++k)
      for (int d = 0; d < 3; ++d) a[k][d] = p[k + 1][d] - p[0][d];
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
           a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  }
  double area2 = 0.0;
  for (int k = 0; k < nv; ++k) area2 += p[k][0] * p[(k + 1) % nv][1] - p[(k + 1) % nv][0] * p[k][1];
  return area2;
}

/* Node permutation that mirrors an element across xi = eta: node i of the
 * flipped element is node perm[i] of the original. Found by matching the
 * reference coordinates, so it holds for every order shape.h tabulates. */
static dg_status gmsh_flip_permutation(dg_shape shape, int order, int *perm) {
  const int nn = shape_n_nodes(shape, order);
  for (int i = 0; i < nn; ++i) {
    double xi[3], target[3];
    shape_node_ref(shape, order, i, xi);
    target[0] = xi[1];
    target[1] = xi[0];
    perm[i] = -1;
    for (int j = 0; j < nn && perm[i] < 0; ++j) {
      double yj[3];
      shape_node_ref(shape, order, j, yj);
      if (fabs(yj[0] - target[0]) < 1e-12 && fabs(yj[1] - target[1]) < 1e-12) perm[i] = j;
    }
    DG_CHECK(perm[i] >= 0, DG_ERR_INTERNAL,
             "node %d of shape %d order %d has no mirror image among the reference nodes", i, shape,
             order);
  }
  return DG_SUCCESS;
}

/* 2D: z = 0, and every surface entity either all counter-clockwise or all
 * clockwise (then flipped). 3D: every tet positive. */
static dg_status gmsh_orient(gmsh_import *im) {
  double extent = 0.0;
  for (size_t k = 0; k < im->n_used; ++k)
    for (int d = 0; d < 3; ++d) extent = fmax(extent, fabs(im->x[3 * k + d]));
  if (im->dim == 2) {
    for (size_t k = 0; k < im->n_used; ++k) {
      /* Rounding noise from CAD kernels is snapped; a real offset is an error. */
      DG_CHECK(fabs(im->x[3 * k + 2]) <= 1e-12 * extent, DG_ERR_MESH,
               "%s: node %zu has z = %g; a 2D mesh must lie in the plane z = 0", im->path,
               im->used_tags[k], im->x[3 * k + 2]);
      im->x[3 * k + 2] = 0.0;
    }
  }
  gmsh_elem *elems = im->elems.data;
  size_t *tags = im->node_tags.data;
  const int32_t *entities = im->entities.data;
  const int64_t *ent_start = im->ent_start.data;
  const char *what = im->dim == 2 ? "area" : "volume";
  for (size_t i = 0; i < im->entities.n; ++i) {
    int64_t first_negative = -1, n_negative = 0;
    const int64_t begin = ent_start[i], end = ent_start[i + 1];
    for (int64_t e = begin; e < end; ++e) {
      const double measure =
          gmsh_vertex_measure(im, (dg_shape)elems[e].shape, tags + elems[e].node_start);
      DG_CHECK(measure != 0.0 && isfinite(measure), DG_ERR_MESH,
               "%s: element %lld of %s %d is degenerate (zero %s at its vertices)", im->path,
               (long long)elems[e].tag, im->dim == 2 ? "surface" : "volume", entities[i], what);
      if (measure < 0.0) {
        if (first_negative < 0) first_negative = e;
        ++n_negative;
      }
    }
    if (n_negative == 0) continue;
    DG_CHECK(im->dim == 2, DG_ERR_MESH,
             "%s: tetrahedron %lld of volume %d is inverted (negative volume at its vertices)",
             im->path, (long long)elems[first_negative].tag, entities[i]);
    DG_CHECK(n_negative == end - begin, DG_ERR_MESH,
             "%s: element %lld of surface %d is inverted (negative area) while others in the "
             "surface are not",
             im->path, (long long)elems[first_negative].tag, entities[i]);
    for (int64_t e = begin; e < end; ++e) {
      int perm[DG_MAX_NODES];
      size_t old[DG_MAX_NODES];
      const dg_shape shape = (dg_shape)elems[e].shape;
      const int nn = shape_n_nodes(shape, im->order);
      DG_CALL(gmsh_flip_permutation(shape, im->order, perm));
      memcpy(old, tags + elems[e].node_start, nn * sizeof(size_t));
      for (int k = 0; k < nn; ++k) tags[elems[e].node_start + k] = old[perm[k]];
    }
  }
  return DG_SUCCESS;
}

static int gmsh_compare_bface(const void *a, const void *b) {
  const gmsh_bface *x = a, *y = b;
  if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
  return (x->group > y->group) - (x->group < y->group);
}

/* Boundary faces: the elements of every physical group of dimension dim-1. */
static dg_status gmsh_collect_bfaces(gmsh_import *im) {
  dg_status status = DG_SUCCESS;
  int ierr = 0, *groups = NULL, *ents = NULL;
  size_t n_groups = 0, n_ents = 0;
  char *name = NULL;
  int *types = NULL;
  size_t n_types = 0, **etags = NULL, *etags_n = NULL, n_etags = 0, **ntags = NULL, *ntags_n = NULL,
         n_ntags = 0;
  const int fdim = im->dim - 1;
  im->bfaces.item = sizeof(gmsh_bface);
  im->group_list.item = sizeof(dg_mesh_group);
  gmshModelGetPhysicalGroups(&groups, &n_groups, fdim, &ierr);
  GMSH_CHECK("list the physical groups");
  for (size_t g = 0; g + 1 < n_groups; g += 2) {
    const int ptag = groups[g + 1];
    const int32_t index = (int32_t)im->group_list.n;
    dg_mesh_group group;
    memset(&group, 0, sizeof group);
    group.tag = ptag;
    gmshModelGetPhysicalName(fdim, ptag, &name, &ierr);
    GMSH_CHECK("get a physical group's name");
    if (!name || !name[0]) {
      snprintf(group.name, sizeof group.name, "group%d", ptag);
    } else if (strlen(name) >= DG_GROUP_NAME_LEN) {
      status = dg_error_set(DG_ERR_MESH, __FILE__, __LINE__, __func__,
                            "%s: physical group name \"%s\" (tag %d) is longer than %d characters",
                            im->path, name, ptag, DG_GROUP_NAME_LEN - 1);
      goto done;
    } else {
      snprintf(group.name, sizeof group.name, "%s", name);
    }
    gmshFree(name);
    name = NULL;
    DG_CALL_GOTO(status, done, gmsh_array_push(&im->group_list, &group, 1));

    gmshModelGetEntitiesForPhysicalGroup(fdim, ptag, &ents, &n_ents, &ierr);
    GMSH_CHECK("get the entities of a physical group");
    for (size_t i = 0; i < n_ents; ++i) {
      gmshModelMeshGetElements(&types, &n_types, &etags, &etags_n, &n_etags, &ntags, &ntags_n,
                               &n_ntags, fdim, ents[i], &ierr);
      GMSH_CHECK("get the elements of a boundary entity");
      for (size_t t = 0; t < n_types; ++t) {
        dg_shape shape;
        int order;
        if (!gmsh_type_shape(types[t], &shape, &order) || shape_dim(shape) != fdim) {
          status = gmsh_unsupported_type(im->path, types[t], "boundary faces");
          goto done;
        }
        const int nn = shape_n_nodes(shape, order), nv = shape_n_verts(shape);
        for (size_t e = 0; e < etags_n[t]; ++e) {
          gmsh_bface face = {(int64_t)etags[t][e], {-1, -1, -1, -1}, index, (int8_t)shape};
          for (int k = 0; k < nv; ++k) {
            face.verts[k] = gmsh_node_index(im, ntags[t][e * nn + k]);
            if (face.verts[k] < 0) {
              status =
                  dg_error_set(DG_ERR_MESH, __FILE__, __LINE__, __func__,
                               "%s: boundary face %zu of group \"%s\" uses node %zu, which "
                               "no %dD element has",
                               im->path, etags[t][e], group.name, ntags[t][e * nn + k], im->dim);
              goto done;
            }
          }
          DG_CALL_GOTO(status, done, gmsh_array_push(&im->bfaces, &face, 1));
        }
      }
      gmsh_free_elements(types, n_types, etags, etags_n, ntags, ntags_n);
      types = NULL;
      etags = ntags = NULL;
      etags_n = ntags_n = NULL;
      n_types = 0;
    }
    gmshFree(ents);
    ents = NULL;
  }

  /* Sorted by tag, a face listed by two groups shows up as neighbours. */
  gmsh_bface *faces = im->bfaces.data;
  const dg_mesh_group *glist = im->group_list.data;
  if (im->bfaces.n > 1) qsort(faces, im->bfaces.n, sizeof *faces, gmsh_compare_bface);
  size_t m = 0;
  for (size_t f = 0; f < im->bfaces.n; ++f) {
    if (m > 0 && faces[f].tag == faces[m - 1].tag) {
      if (faces[f].group == faces[m - 1].group) continue;
      status = dg_error_set(DG_ERR_MESH, __FILE__, __LINE__, __func__,
                            "%s: boundary face %lld is in two physical groups, \"%s\" and \"%s\"; "
                            "put each boundary curve/surface in one group only",
                            im->path, (long long)faces[f].tag, glist[faces[m - 1].group].name,
                            glist[faces[f].group].name);
      goto done;
    }
    faces[m++] = faces[f];
  }
  im->bfaces.n = m;
done:
  gmsh_free_elements(types, n_types, etags, etags_n, ntags, ntags_n);
  gmshFree(groups);
  gmshFree(ents);
  gmshFree(name);
  return status;
}

static dg_status gmsh_add_link(gmsh_import *im, size_t slave, size_t master) {
  const gmsh_link link = {gmsh_node_index(im, slave), gmsh_node_index(im, master)};
  /* A node no element uses lies on no face, so topology cannot need it. */
  if (link.slave < 0 || link.master < 0 || link.slave == link.master) return DG_SUCCESS;
  return gmsh_array_push(&im->links, &link, 1);
}

/* Periodic node links of the (dim-1) entities Gmsh knows as periodic:
 * vertices only, as .msh files store them, so a .geo and the .msh saved
 * from it give the same links. */
static dg_status gmsh_collect_periodic(gmsh_import *im) {
  dg_status status = DG_SUCCESS;
  int ierr = 0, *dim_tags = NULL;
  size_t n_dim_tags = 0, *slaves = NULL, n_slaves = 0, *masters = NULL, n_masters = 0;
  double *affine = NULL;
  size_t n_affine = 0;
  im->links.item = sizeof(gmsh_link);
  gmshModelGetEntities(&dim_tags, &n_dim_tags, im->dim - 1, &ierr);
  GMSH_CHECK("list boundary entities");
  for (size_t i = 0; i + 1 < n_dim_tags; i += 2) {
    int master_tag = 0;
    gmshModelMeshGetPeriodicNodes(im->dim - 1, dim_tags[i + 1], &master_tag, &slaves, &n_slaves,
                                  &masters, &n_masters, &affine, &n_affine, 0, &ierr);
    GMSH_CHECK("get periodic nodes");
    if (master_tag != dim_tags[i + 1]) {
      if (n_slaves != n_masters) {
        status = dg_error_set(DG_ERR_GMSH, __FILE__, __LINE__, __func__,
                              "%s: Gmsh returned %zu periodic nodes but %zu masters for entity %d",
                              im->path, n_slaves, n_masters, dim_tags[i + 1]);
        goto done;
      }
      for (size_t k = 0; k < n_slaves; ++k)
        DG_CALL_GOTO(status, done, gmsh_add_link(im, slaves[k], masters[k]));
    }
    gmshFree(slaves);
    gmshFree(masters);
    gmshFree(affine);
    slaves = masters = NULL;
    affine = NULL;
  }
done:
  gmshFree(dim_tags);
  gmshFree(slaves);
  gmshFree(masters);
  gmshFree(affine);
  return status;
}

/* Gmsh 4.8 keeps no periodic information when it reads an MSH 2.x file, so
 * its $Periodic section (ASCII even in binary files) is parsed here:
 *   n_links, then per link "dim slave master", an optional "Affine" line,
 *   n_nodes and n_nodes "slave_node master_node" pairs. */
static dg_status gmsh_read_msh2_periodic(gmsh_import *im) {
  FILE *file = fopen(im->path, "rb");
  DG_CHECK(file, DG_ERR_IO, "%s: cannot open: %s", im->path, strerror(errno));
  dg_status status = DG_SUCCESS;
  char line[256];
  double version = 0.0;
  int at_line_start = 1, found = 0;
  if (!fgets(line, sizeof line, file) || strncmp(line, "$MeshFormat", 11) != 0 ||
      fscanf(file, "%lf", &version) != 1 || version >= 3.0)
    goto done;
  while (fgets(line, sizeof line, file)) {
    if (at_line_start && strncmp(line, "$Periodic", 9) == 0) {
      found = 1;
      break;
    }
    at_line_start = strchr(line, '\n') != NULL;
  }
  if (!found) goto done;
  long n_links = 0;
  if (fscanf(file, "%ld", &n_links) != 1 || n_links < 0) goto malformed;
  for (long l = 0; l < n_links; ++l) {
    int dim = 0, slave = 0, master = 0;
    long n_nodes = 0;
    char word[16];
    if (fscanf(file, "%d %d %d %15s", &dim, &slave, &master, word) != 4) goto malformed;
    if (strcmp(word, "Affine") == 0) {
      for (int k = 0; k < 16; ++k) {
        double value;
        if (fscanf(file, "%lf", &value) != 1) goto malformed;
      }
      if (fscanf(file, "%ld", &n_nodes) != 1) goto malformed;
    } else {
      char *end = NULL;
      n_nodes = strtol(word, &end, 10);
      if (*end != '\0') goto malformed;
    }
    if (n_nodes < 0) goto malformed;
    for (long k = 0; k < n_nodes; ++k) {
      size_t s = 0, m = 0;
      if (fscanf(file, "%zu %zu", &s, &m) != 2) goto malformed;
      if (dim == im->dim - 1) DG_CALL_GOTO(status, done, gmsh_add_link(im, s, m));
    }
  }
  if (fscanf(file, "%255s", line) != 1 || strcmp(line, "$EndPeriodic") != 0) goto malformed;
  goto done;
malformed:
  status = dg_error_set(DG_ERR_FORMAT, __FILE__, __LINE__, __func__,
                        "%s: the $Periodic section is truncated or malformed", im->path);
done:
  fclose(file);
  return status;
}

static int gmsh_compare_link(const void *a, const void *b) {
  const gmsh_link *x = a, *y = b;
  if (x->slave != y->slave) return x->slave < y->slave ? -1 : 1;
  return (x->master > y->master) - (x->master < y->master);
}

typedef struct {
  int64_t tag;
  int64_t index;
  int8_t shape;
} gmsh_order_key;

static int gmsh_compare_order(const void *a, const void *b) {
  const gmsh_order_key *x = a, *y = b;
  if (x->shape != y->shape) return x->shape < y->shape ? -1 : 1;
  return (x->tag > y->tag) - (x->tag < y->tag);
}

/* Moves the collected data into the mesh: elements by shape then tag. */
static dg_status gmsh_build_mesh(gmsh_import *im, dg_mesh *mesh) {
  const size_t ne = im->elems.n;
  const gmsh_elem *elems = im->elems.data;
  const size_t *tags = im->node_tags.data;
  gmsh_order_key *keys = NULL;
  DG_CALL(DG_CALLOC(keys, ne));
  for (size_t e = 0; e < ne; ++e)
    keys[e] = (gmsh_order_key){elems[e].tag, (int64_t)e, elems[e].shape};
  qsort(keys, ne, sizeof *keys, gmsh_compare_order);

  gmsh_link *links = im->links.data;
  if (im->links.n > 1) qsort(links, im->links.n, sizeof *links, gmsh_compare_link);
  size_t n_links = 0;
  for (size_t i = 0; i < im->links.n; ++i)
    if (n_links == 0 || gmsh_compare_link(&links[i], &links[n_links - 1]) != 0)
      links[n_links++] = links[i];

  const dg_status status =
      mesh_alloc(mesh, (int64_t)im->n_used, (int64_t)ne, (int64_t)im->node_tags.n,
                 (int)im->group_list.n, (int64_t)im->bfaces.n, (int64_t)n_links);
  if (status != DG_SUCCESS) {
    free(keys);
    DG_CALL(status);
  }
  mesh->dim = im->dim;
  mesh->geom_order = im->order;
  snprintf(mesh->source, sizeof mesh->source, "%s", im->path);
  memcpy(mesh->x, im->x, 3 * im->n_used * sizeof(double));
  memset(mesh->shape_offset, 0, sizeof mesh->shape_offset);
  for (size_t i = 0; i < ne; ++i) {
    const gmsh_elem *rec = &elems[keys[i].index];
    const int nn = shape_n_nodes((dg_shape)rec->shape, im->order);
    mesh->elem_shape[i] = rec->shape;
    mesh->elem_tag[i] = rec->tag;
    mesh->elem_node_start[i + 1] = mesh->elem_node_start[i] + nn;
    for (int k = 0; k < nn; ++k)
      mesh->elem_nodes[mesh->elem_node_start[i] + k] =
          gmsh_node_index(im, tags[rec->node_start + k]);
    mesh->shape_offset[rec->shape + 1] = (int64_t)i + 1;
  }
  for (int s = 1; s <= DG_NUM_SHAPES; ++s)
    if (mesh->shape_offset[s] < mesh->shape_offset[s - 1])
      mesh->shape_offset[s] = mesh->shape_offset[s - 1];
  free(keys);

  if (im->group_list.n > 0)
    memcpy(mesh->groups, im->group_list.data, im->group_list.n * sizeof(dg_mesh_group));
  const gmsh_bface *faces = im->bfaces.data;
  for (size_t f = 0; f < im->bfaces.n; ++f) {
    mesh->bface_shape[f] = faces[f].shape;
    mesh->bface_group[f] = faces[f].group;
    mesh->bface_tag[f] = faces[f].tag;
    memcpy(mesh->bface_verts + DG_MAX_FACE_VERTS * f, faces[f].verts, sizeof faces[f].verts);
  }
  for (size_t i = 0; i < n_links; ++i) {
    mesh->periodic_slave[i] = links[i].slave;
    mesh->periodic_master[i] = links[i].master;
  }
  return DG_SUCCESS;
}

static int gmsh_is_geo(const char *path) {
  const size_t n = strlen(path);
  return n >= 4 && (strcmp(path + n - 4, ".geo") == 0 || strcmp(path + n - 4, ".GEO") == 0);
}

/* Nodes of a Gmsh element type (0 when Gmsh does not know it), cached. */
static int gmsh_nodes_of_type(int type) {
  static int cache[1000];
  if (type <= 0 || type >= 1000) return 0;
  if (cache[type] == 0) {
    char *name = NULL;
    int dim = 0, order = 0, n_nodes = 0, n_primary = 0, ierr = 0;
    double *coords = NULL;
    size_t n_coords = 0;
    gmshModelMeshGetElementProperties(type, &name, &dim, &order, &n_nodes, &coords, &n_coords,
                                      &n_primary, &ierr);
    gmshFree(name);
    gmshFree(coords);
    cache[type] = (!ierr && n_nodes > 0 && n_nodes <= 1000) ? n_nodes : -1;
  }
  return cache[type] > 0 ? cache[type] : 0;
}

/* Everything between gmshInitialize and gmshFinalize for a .msh (a .geo was
 * meshed into a .msh by gmsh_mesh_geo first; im->path names the file the
 * user gave). */
static dg_status gmsh_import_file(gmsh_import *im, const char *file, int geo_order, int is_geo,
                                  dg_mesh *mesh) {
  dg_status status = DG_SUCCESS;
  int ierr = 0;
  /* Gmsh reports problems through ierr and the logger, not the terminal. */
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  GMSH_CHECK("set General.Terminal");
  gmshOptionSetNumber("General.Verbosity", 1, &ierr);
  GMSH_CHECK("set General.Verbosity");
  /* Gmsh trusts the counts and tags of a file; ours does not. */
  DG_CALL_GOTO(status, done, mesh_msh_check(file, gmsh_nodes_of_type));
  gmshOpen(file, &ierr);
  GMSH_CHECK("read the file");
  DG_CALL_GOTO(status, done, gmsh_find_dimension(im));
  if (!is_geo && geo_order > 0 && geo_order != im->order) {
    status = dg_error_set(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                          "%s: the mesh has geometric order %d but order %d was asked for; the "
                          "order of a .msh is fixed (re-mesh the .geo at that order)",
                          im->path, im->order, geo_order);
    goto done;
  }
  DG_CALL_GOTO(status, done, gmsh_collect_elements(im));
  DG_CALL_GOTO(status, done, gmsh_collect_nodes(im));
  DG_CALL_GOTO(status, done, gmsh_orient(im));
  DG_CALL_GOTO(status, done, gmsh_collect_bfaces(im));
  DG_CALL_GOTO(status, done, gmsh_collect_periodic(im));
  if (!is_geo && im->links.n == 0) DG_CALL_GOTO(status, done, gmsh_read_msh2_periodic(im));
  DG_CALL_GOTO(status, done, gmsh_build_mesh(im, mesh));
done:
  return status;
}

/* ------------------------------------------------------- meshing a .geo */

/* Gmsh's initialisation sets the OpenMP thread count to its own option
 * (General.NumThreads, 1): the caller's count is saved and restored. */
static int gmsh_omp_threads(void) {
#ifdef COLORDG_HAVE_OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

static void gmsh_omp_restore(int threads) {
#ifdef COLORDG_HAVE_OPENMP
  if (threads > 0) omp_set_num_threads(threads);
#else
  (void)threads;
#endif
}

/* Total elements of dimension dim in the current model. */
static double gmsh_count_elements(int dim) {
  int ierr = 0, *types = NULL;
  size_t n_types = 0, **etags = NULL, *etags_n = NULL, n_etags = 0, **ntags = NULL, *ntags_n = NULL,
         n_ntags = 0;
  gmshModelMeshGetElements(&types, &n_types, &etags, &etags_n, &n_etags, &ntags, &ntags_n, &n_ntags,
                           dim, -1, &ierr);
  double n = 0.0;
  if (!ierr)
    for (size_t t = 0; t < n_types; ++t) n += (double)etags_n[t];
  gmsh_free_elements(types, n_types, etags, etags_n, ntags, ntags_n);
  return n;
}

/* The meshing child: opens the .geo, meshes it dimension by dimension with
 * an element estimate before the last (expensive) one, writes MSH 4.1.
 * Returns 0, or 1 with a message in msg. */
static int gmsh_geo_child(const char *path, const dg_mesh_read_options *o, const char *out,
                          char *msg, size_t n) {
  int ierr = 0;
  char *last = NULL;
  const char *step = "initialise";
  gmshInitialize(0, NULL, 0, &ierr);
  if (ierr) goto gmsh_failed;
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  gmshOptionSetNumber("General.Verbosity", 1, &ierr);
  step = "read the file";
  gmshOpen(path, &ierr);
  if (ierr) goto gmsh_failed;
  step = "get the model dimension";
  const int dim = gmshModelGetDimension(&ierr);
  if (ierr) goto gmsh_failed;
  if (dim < 2) {
    snprintf(msg, n, "%s: the geometry has dimension %d; ColorDG meshes 2D or 3D domains", path,
             dim);
    return 1;
  }
  step = "generate the mesh";
  gmshModelMeshGenerate(dim - 1, &ierr);
  if (ierr) goto gmsh_failed;
  /* Elements of a (near-)uniform mesh from its boundary: a 2D domain with
   * N boundary edges holds ~0.15 N^2 triangles, a 3D one with N boundary
   * triangles ~0.14 N^1.5 tets; graded meshes hold fewer, so a factor 1/5
   * of that is the estimate that refuses only clearly hopeless sizes. */
  const double n_bound = gmsh_count_elements(dim - 1);
  const double estimate = dim == 2 ? 0.03 * n_bound * n_bound : 0.03 * pow(n_bound, 1.5);
  if (o->max_elements > 0 && estimate > o->max_elements) {
    snprintf(msg, n,
             "%s: meshing would make about %.3g elements or more (%.0f boundary %s), above "
             "[mesh] max_elements = %.3g; coarsen the mesh sizes or raise max_elements",
             path, estimate, n_bound, dim == 2 ? "edges" : "triangles", o->max_elements);
    return 1;
  }
  if (o->geo_order > 0) {
    /* the order through the option, not gmshModelMeshSetOrder afterwards:
     * meshing then applies the .geo's Mesh.HighOrderOptimize as `gmsh
     * -order q` does (with SetOrder the ONERA M6 mesh kept a tetrahedron with
     * det J < 0 at the leading edge) */
    step = "set the geometric order";
    gmshOptionSetNumber("Mesh.ElementOrder", o->geo_order, &ierr);
    if (ierr) goto gmsh_failed;
  }
  step = "generate the mesh";
  gmshModelMeshGenerate(dim, &ierr);
  if (ierr) goto gmsh_failed;
  const double n_elems = gmsh_count_elements(dim);
  if (o->max_elements > 0 && n_elems > o->max_elements) {
    snprintf(msg, n,
             "%s: meshing made %.0f elements, above [mesh] max_elements = %.3g; coarsen the "
             "mesh sizes or raise max_elements",
             path, n_elems, o->max_elements);
    return 1;
  }
  step = "write the mesh";
  gmshOptionSetNumber("Mesh.MshFileVersion", 4.1, &ierr);
  gmshOptionSetNumber("Mesh.Binary", 1, &ierr);
  gmshOptionSetNumber("Mesh.SaveAll", 1, &ierr);
  gmshWrite(out, &ierr);
  if (ierr) goto gmsh_failed;
  gmshFinalize(&ierr);
  return 0;
gmsh_failed:
  gmshLoggerGetLastError(&last, &ierr);
  snprintf(msg, n, "%s: Gmsh failed to %s: %s", path, step,
           (last && last[0]) ? last
                             : "Gmsh stopped without a message (it may have run out of memory)");
  return 1;
}

/* Address-space size of this process in bytes (0 when unknown). */
static double gmsh_address_space(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f) return 0.0;
  double pages = 0.0;
  if (fscanf(f, "%lf", &pages) != 1) pages = 0.0;
  fclose(f);
  return pages * (double)sysconf(_SC_PAGESIZE);
}

/* Meshes the .geo at path in a child process within the budgets of o and
 * writes it to out (MSH 4.1). A child that overruns max_seconds is killed;
 * one that overruns max_memory_mb fails its allocations. */
static dg_status gmsh_mesh_geo(const char *path, const dg_mesh_read_options *o, const char *out) {
  double memory_mb = o->max_memory_mb;
  if (memory_mb <= 0.0)
    memory_mb = 0.75 * (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
  int fds[2];
  DG_CHECK(pipe(fds) == 0, DG_ERR_IO, "%s: cannot create a pipe: %s", path, strerror(errno));
  fflush(NULL);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    DG_ERROR(DG_ERR_IO, "%s: cannot start the meshing process: %s", path, strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    /* Gmsh's own messages come back through the pipe; C++ runtime noise
     * (an uncaught bad_alloc) is not for the user. */
    const int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      dup2(devnull, STDERR_FILENO);
      dup2(devnull, STDOUT_FILENO);
      close(devnull);
    }
    if (memory_mb > 0.0) {
      /* On top of what the process already maps (sanitizers map a lot). */
      const double limit = gmsh_address_space() + memory_mb * 1048576.0;
      struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
      setrlimit(RLIMIT_AS, &rl);
    }
    char msg[1024] = "";
    const int rc = gmsh_geo_child(path, o, out, msg, sizeof msg);
    if (rc) {
      const ssize_t w = write(fds[1], msg, strlen(msg));
      (void)w;
    }
    close(fds[1]);
    _exit(rc);
  }
  close(fds[1]);
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int wstatus = 0, timed_out = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &wstatus, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) {
      wstatus = -1;
      break;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    const double elapsed = (double)(now.tv_sec - t0.tv_sec) + 1e-9 * (now.tv_nsec - t0.tv_nsec);
    if (o->max_seconds > 0.0 && elapsed > o->max_seconds) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
      }
      timed_out = 1;
      break;
    }
    const struct timespec pause = {0, elapsed < 1.0 ? 5000000L : 50000000L};
    nanosleep(&pause, NULL);
  }
  char msg[1025];
  size_t len = 0;
  for (;;) {
    const ssize_t r = read(fds[0], msg + len, sizeof msg - 1 - len);
    if (r > 0) {
      len += (size_t)r;
      if (len + 1 >= sizeof msg) break;
    } else if (!(r < 0 && errno == EINTR)) {
      break;
    }
  }
  msg[len] = '\0';
  close(fds[0]);
  DG_CHECK(!timed_out, DG_ERR_MESH,
           "%s: meshing took longer than [mesh] max_seconds = %g s and was stopped (an endless "
           "loop in the .geo, an Include of a file that never ends, or a mesh too fine); raise "
           "max_seconds if the mesh is meant to be this large",
           path, o->max_seconds);
  if (wstatus != -1 && WIFSIGNALED(wstatus))
    DG_ERROR(DG_ERR_MESH,
             "%s: the meshing process was stopped by signal %d (%s), most likely because it ran "
             "out of its memory budget [mesh] max_memory_mb = %.0f MB; coarsen the mesh or raise "
             "max_memory_mb",
             path, WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)), memory_mb);
  if (wstatus == -1 || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    if (len > 0) DG_ERROR(DG_ERR_GMSH, "%s", msg);
    DG_ERROR(DG_ERR_GMSH,
             "%s: the meshing process failed without a message (exit status %d); it may have "
             "run out of its memory budget [mesh] max_memory_mb = %.0f MB",
             path, WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1, memory_mb);
  }
  return DG_SUCCESS;
}

dg_status mesh_read_gmsh(const char *path, const dg_mesh_read_options *options, dg_mesh *mesh) {
  DG_CHECK(path && mesh && options, DG_ERR_ARG, "mesh_read_gmsh: path, options or mesh is NULL");
  const int geo_order = options->geo_order;
  DG_CHECK(geo_order >= 0 && geo_order <= DG_MAX_GEOM_ORDER, DG_ERR_ARG,
           "%s: geometric order %d is not in 0..%d", path, geo_order, DG_MAX_GEOM_ORDER);
  memset(mesh, 0, sizeof *mesh);
  /* Gmsh silently opens nothing when the file is missing; a FIFO or device
   * would be read forever. */
  DG_CALL(mesh_check_regular_file(path, "mesh file"));

  const int is_geo = gmsh_is_geo(path);
  char tmpdir[4096] = "", file[4200];
  snprintf(file, sizeof file, "%s", path);
  if (is_geo) {
    DG_CALL(mesh_geo_check(path, options->allow_shell));
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/colordg-geo-XXXXXX", base && base[0] ? base : "/tmp");
    DG_CHECK(mkdtemp(tmpdir), DG_ERR_IO, "%s: cannot create a temporary folder %s: %s", path,
             tmpdir, strerror(errno));
    snprintf(file, sizeof file, "%s/mesh.msh", tmpdir);
    const dg_status meshed = gmsh_mesh_geo(path, options, file);
    if (meshed != DG_SUCCESS) {
      remove(file);
      rmdir(tmpdir);
      DG_CALL(meshed);
    }
  }

  const int threads = gmsh_omp_threads();
  int ierr = 0;
  gmshInitialize(0, NULL, 0, &ierr);
  gmsh_omp_restore(threads);
  dg_status status = DG_SUCCESS;
  if (ierr) {
    char *last = NULL;
    int ierr2 = 0;
    gmshLoggerGetLastError(&last, &ierr2);
    status = dg_error_set(DG_ERR_GMSH, __FILE__, __LINE__, __func__,
                          "%s: Gmsh failed to initialise: %s", path, last ? last : "(no message)");
    gmshFree(last);
  } else {
    gmsh_import im;
    memset(&im, 0, sizeof im);
    im.path = path;
    status = gmsh_import_file(&im, file, geo_order, is_geo, mesh);
    gmsh_import_free(&im);
    gmshFinalize(&ierr);
    gmsh_omp_restore(threads);
    if (status == DG_SUCCESS && ierr)
      status = dg_error_set(DG_ERR_GMSH, __FILE__, __LINE__, __func__,
                            "%s: Gmsh failed to finalise", path);
  }
  if (is_geo) {
    remove(file);
    rmdir(tmpdir);
  }
  if (status == DG_SUCCESS) status = mesh_check(mesh);
  if (status != DG_SUCCESS) {
    dg_error_trace(__FILE__, __LINE__, __func__);
    mesh_free(mesh);
  }
  return status;
}
