#include "dg/disc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dg/residual_ops.h"
#include "element/basis.h"

/* Dense inverse of the SPD matrix M (nb x nb, row-major) through its
 * Cholesky factor M = L Lᵀ: M⁻¹ = L⁻ᵀ L⁻¹. Returns 0 when M is not positive
 * definite (a pivot <= 0). */
static int disc_invert_spd(int nb, const double *M, double *Minv) {
  double L[DG_MAX_BASIS * DG_MAX_BASIS], Li[DG_MAX_BASIS * DG_MAX_BASIS];
  for (int i = 0; i < nb * nb; ++i) L[i] = Li[i] = 0.0;
  for (int j = 0; j < nb; ++j) {
    double diag = M[j * nb + j];
    for (int k = 0; k < j; ++k) diag -= L[j * nb + k] * L[j * nb + k];
    if (!(diag > 0.0)) return 0;
    L[j * nb + j] = sqrt(diag);
    for (int i = j + 1; i < nb; ++i) {
      double sum = M[i * nb + j];
      for (int k = 0; k < j; ++k) sum -= L[i * nb + k] * L[j * nb + k];
      L[i * nb + j] = sum / L[j * nb + j];
    }
  }
  /* L⁻¹ by forward substitution, column by column */
  for (int c = 0; c < nb; ++c)
    for (int i = c; i < nb; ++i) {
      double sum = i == c ? 1.0 : 0.0;
      for (int k = c; k < i; ++k) sum -= L[i * nb + k] * Li[k * nb + c];
      Li[i * nb + c] = sum / L[i * nb + i];
    }
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < nb; ++j) {
      double sum = 0.0;
      for (int k = i > j ? i : j; k < nb; ++k) sum += Li[k * nb + i] * Li[k * nb + j];
      Minv[i * nb + j] = sum;
    }
  return 1;
}

static const char *disc_shape_name(dg_shape s) {
  switch (s) {
  case DG_TRI: return "triangle";
  case DG_QUAD: return "quadrilateral";
  case DG_TET: return "tetrahedron";
  case DG_PRISM: return "prism";
  case DG_HEX: return "hexahedron";
  default: return "line";
  }
}

static dg_status disc_check_opts(const dg_mesh *mesh, const dg_topology *topo,
                                 const dg_geometry *geom, const dg_disc_opts *opts) {
  DG_CHECK(opts->p >= 0 && opts->p <= DG_MAX_P, DG_ERR_ARG,
           "disc_build: polynomial degree p = %d is outside 0..%d", opts->p, DG_MAX_P);
  DG_CHECK(opts->gamma > 1.0, DG_ERR_ARG, "disc_build: gamma = %g must be > 1", opts->gamma);
  DG_CHECK(opts->flux == DG_FACE_FLUX_ROE || opts->flux == DG_FACE_FLUX_RUSANOV, DG_ERR_ARG,
           "disc_build: unknown face flux %d (0 Roe, 1 Rusanov)", opts->flux);
  DG_CHECK(opts->exact_kind == 0 || opts->exact_kind == 1, DG_ERR_ARG,
           "disc_build: exact_kind %d is not 0 (freestream) or 1 (vortex)", opts->exact_kind);
  DG_CHECK(mesh->dim == 2 || mesh->dim == 3, DG_ERR_ARG, "%s: mesh dimension %d is not 2 or 3",
           mesh->source, mesh->dim);
  DG_CHECK(topo->n_elems == mesh->n_elems && geom->n_elems == mesh->n_elems &&
               geom->n_faces == topo->n_faces,
           DG_ERR_ARG,
           "%s: mesh (%lld elements), topology (%lld elements, %lld faces) and geometry (%lld "
           "elements, %lld faces) do not match",
           mesh->source, (long long)mesh->n_elems, (long long)topo->n_elems,
           (long long)topo->n_faces, (long long)geom->n_elems, (long long)geom->n_faces);
  DG_CHECK(geom->vol_degree >= 2 * opts->p + 1 && geom->face_degree >= 2 * opts->p + 1, DG_ERR_ARG,
           "%s: geometry rules are exact to degree %d (volume) and %d (faces); p = %d needs at "
           "least %d for both",
           mesh->source, geom->vol_degree, geom->face_degree, opts->p, 2 * opts->p + 1);
  DG_CHECK(opts->n_groups == mesh->n_groups, DG_ERR_ARG,
           "%s: %d boundary conditions given for %d mesh groups", mesh->source, opts->n_groups,
           mesh->n_groups);
  for (int g = 0; g < mesh->n_groups; ++g) {
    const int bc = opts->group_bc ? opts->group_bc[g] : -1;
    const int64_t n_faces = topo->group_face_offset[g + 1] - topo->group_face_offset[g];
    DG_CHECK(bc >= 0 || n_faces == 0, DG_ERR_ARG,
             "%s: boundary group '%s' (tag %d) has %lld faces but no boundary condition",
             mesh->source, mesh->groups[g].name, mesh->groups[g].tag, (long long)n_faces);
    DG_CHECK(bc < PHYSICS_NUM_BC, DG_ERR_ARG,
             "%s: boundary group '%s' (tag %d) has unknown boundary condition %d", mesh->source,
             mesh->groups[g].name, mesh->groups[g].tag, bc);
    DG_CHECK(bc < 0 || opts->group_data, DG_ERR_ARG,
             "%s: boundary group '%s' has a boundary condition but group_data is NULL",
             mesh->source, mesh->groups[g].name);
    DG_CHECK(bc < 0 || !opts->group_data[g].vortex_correction ||
                 (bc == PHYSICS_BC_FARFIELD && mesh->dim == 2),
             DG_ERR_ARG,
             "%s: boundary group '%s' asks for the far-field vortex correction, which needs a "
             "2D mesh and a farfield condition (dimension %d, condition %d)",
             mesh->source, mesh->groups[g].name, mesh->dim, bc);
  }
  DG_CHECK(opts->av == DG_AV_OFF || opts->av == DG_AV_ELEMENT || opts->av == DG_AV_CONTINUOUS,
           DG_ERR_ARG,
           "disc_build: unknown artificial viscosity mode %d (0 off, 1 per element, 2 continuous)",
           opts->av);
  if (opts->av == DG_AV_OFF || opts->p == 0) return DG_SUCCESS;
  const int nvar = physics_nvar(mesh->dim);
  DG_CHECK(opts->av_sensor_var >= 0 && opts->av_sensor_var < nvar, DG_ERR_ARG,
           "disc_build: artificial viscosity sensor variable %d is outside 0..%d (0 density, %d "
           "energy)",
           opts->av_sensor_var, nvar - 1, nvar - 1);
  DG_CHECK(opts->av_kappa > 0.0 && isfinite(opts->av_kappa), DG_ERR_ARG,
           "disc_build: artificial viscosity kappa = %g must be a positive number (the half-width "
           "of the sensor ramp)",
           opts->av_kappa);
  DG_CHECK(opts->av_c > 0.0 && isfinite(opts->av_c), DG_ERR_ARG,
           "disc_build: artificial viscosity constant c = %g must be a positive number",
           opts->av_c);
  DG_CHECK(isfinite(opts->av_s0_offset), DG_ERR_ARG,
           "disc_build: artificial viscosity s0 offset = %g is not a finite number",
           opts->av_s0_offset);
  DG_CHECK(opts->br2_eta == 0.0 || (opts->br2_eta > 0.0 && isfinite(opts->br2_eta)), DG_ERR_ARG,
           "disc_build: BR2 penalty eta = %g must be 0 (automatic) or a positive number",
           opts->br2_eta);
  if (opts->br2_eta > 0.0)
    for (int s = 0; s < DG_NUM_SHAPES; ++s) {
      const int n_faces = shape_n_faces((dg_shape)s);
      DG_CHECK(mesh->shape_offset[s + 1] == mesh->shape_offset[s] || opts->br2_eta > n_faces,
               DG_ERR_ARG,
               "%s: BR2 penalty eta = %g does not exceed %d, the face count of the mesh's %s "
               "elements (BR2 needs eta > faces of every element; 0 = automatic, faces + 1)",
               mesh->source, opts->br2_eta, n_faces, disc_shape_name((dg_shape)s));
    }
  return DG_SUCCESS;
}

/* Reference tables: basis values/gradients at volume points and at face
 * points of every local face and orientation. */
static dg_status disc_build_tables(const dg_mesh *mesh, const dg_geometry *geom,
                                   const dg_quadrature *affine_rule, dg_disc *disc) {
  dg_disc_view *v = &disc->view;
  const int dim = v->dim, p = v->p;
  int64_t n_vol = 0, n_points = 0, n_face = 0;
  v->nqf = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (v->n_shape[s] == 0) continue;
    const int nb = basis_count((dg_shape)s, p);
    const dg_quadrature *rule = &geom->vol_rule[s];
    DG_CHECK(nb > 0 && rule->n_points > 0, DG_ERR_UNSUPPORTED,
             "%s: elements of shape %d have no basis or volume rule", mesh->source, s);
    v->nq_affine[s] = rule->n_points; /* the shape's rule unless a lower one is built below */
    v->vol_table_affine[s] = n_vol;
    v->vol_point_affine[s] = n_points;
    const dg_shape fs = shape_face_shape((dg_shape)s, 0);
    const int nqf = geom->face_rule[fs].n_points;
    DG_CHECK(v->nqf == 0 || v->nqf == nqf, DG_ERR_UNSUPPORTED,
             "%s: faces of different shapes or rules (%d and %d points) in one mesh", mesh->source,
             v->nqf, nqf);
    v->nqf = nqf;
    v->nb[s] = nb;
    v->nq[s] = rule->n_points;
    v->vol_table[s] = n_vol;
    v->vol_point[s] = n_points;
    n_vol += (int64_t)rule->n_points * nb;
    n_points += rule->n_points;
    for (int f = 0; f < shape_n_faces((dg_shape)s); ++f)
      for (int o = 0; o < shape_n_orient(fs); ++o) {
        v->face_table[s][f][o] = n_face;
        n_face += (int64_t)nqf * nb;
      }
    if (affine_rule && affine_rule[s].n_points > 0) { /* appended after the shape's own rule */
      v->nq_affine[s] = affine_rule[s].n_points;
      v->vol_table_affine[s] = n_vol;
      v->vol_point_affine[s] = n_points;
      n_vol += (int64_t)affine_rule[s].n_points * nb;
      n_points += affine_rule[s].n_points;
    }
  }
  disc->n_vol_table = n_vol;
  disc->n_vol_points = n_points;
  disc->n_face_table = n_face;
  DG_CALL(DG_CALLOC(disc->vol_phi, n_vol > 0 ? n_vol : 1));
  DG_CALL(DG_CALLOC(disc->vol_dphi, n_vol * dim > 0 ? n_vol * dim : 1));
  DG_CALL(DG_CALLOC(disc->vol_w, n_points > 0 ? n_points : 1));
  DG_CALL(DG_CALLOC(disc->face_phi, n_face > 0 ? n_face : 1));

  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (v->n_shape[s] == 0) continue;
    const int nb = v->nb[s];
    for (int affine = 0; affine < 2; ++affine) {
      if (affine && v->vol_table_affine[s] == v->vol_table[s]) continue; /* the same rule */
      const dg_quadrature *rule = affine ? &affine_rule[s] : &geom->vol_rule[s];
      const int64_t table = affine ? v->vol_table_affine[s] : v->vol_table[s];
      const int64_t point = affine ? v->vol_point_affine[s] : v->vol_point[s];
      for (int q = 0; q < rule->n_points; ++q) {
        double phi[DG_MAX_BASIS], dphi[DG_MAX_BASIS * 3];
        basis_eval_grad((dg_shape)s, p, rule->xi + 3 * q, phi, dphi);
        disc->vol_w[point + q] = rule->w[q];
        for (int m = 0; m < nb; ++m) {
          const int64_t k = table + (int64_t)q * nb + m;
          disc->vol_phi[k] = phi[m];
          for (int d = 0; d < dim; ++d) disc->vol_dphi[k * dim + d] = dphi[3 * m + d];
        }
      }
    }
    const dg_shape fs = shape_face_shape((dg_shape)s, 0);
    const dg_quadrature *frule = &geom->face_rule[fs];
    for (int f = 0; f < shape_n_faces((dg_shape)s); ++f)
      for (int o = 0; o < shape_n_orient(fs); ++o)
        for (int q = 0; q < frule->n_points; ++q) {
          double xi[3], phi[DG_MAX_BASIS];
          quadrature_face_to_elem((dg_shape)s, f, o, frule->xi + 3 * q, xi);
          basis_eval((dg_shape)s, p, xi, phi);
          for (int m = 0; m < nb; ++m)
            disc->face_phi[v->face_table[s][f][o] + (int64_t)q * nb + m] = phi[m];
        }
  }
  return DG_SUCCESS;
}

/* Element arrays: shapes, metrics (compacted to dim x dim), volumes, face
 * lists, dense inverse mass matrices of non-affine elements, volume points. */
static dg_status disc_build_elements(const dg_mesh *mesh, const dg_topology *topo,
                                     const dg_geometry *geom, dg_disc *disc) {
  dg_disc_view *v = &disc->view;
  const int dim = v->dim;
  const int64_t ne = v->n_elems;
  DG_CALL(DG_CALLOC(disc->elem_shape, ne));
  DG_CALL(DG_CALLOC(disc->elem_affine, ne));
  DG_CALL(DG_CALLOC(disc->metric_offset, ne + 1));
  DG_CALL(DG_CALLOC(disc->minv_offset, ne));
  DG_CALL(DG_CALLOC(disc->elem_volume, ne));
  DG_CALL(DG_CALLOC(disc->elem_face, ne * DG_MAX_FACES));
  DG_CALL(DG_CALLOC(disc->vol_x_offset, ne + 1));
  memcpy(disc->elem_shape, mesh->elem_shape, (size_t)ne * sizeof *disc->elem_shape);
  memcpy(disc->elem_affine, geom->elem_affine, (size_t)ne * sizeof *disc->elem_affine);
  memcpy(disc->metric_offset, geom->metric_offset, (size_t)(ne + 1) * sizeof(int64_t));
  memcpy(disc->elem_volume, geom->elem_volume, (size_t)ne * sizeof(double));
  memcpy(disc->elem_face, topo->elem_face, (size_t)ne * DG_MAX_FACES * sizeof(int64_t));
  memcpy(disc->vol_x_offset, geom->vol_offset, (size_t)(ne + 1) * sizeof(int64_t));

  const int64_t nm = geom->metric_offset[ne];
  disc->n_metric = nm;
  DG_CALL(DG_CALLOC(disc->metric_detJ, nm > 0 ? nm : 1));
  DG_CALL(DG_CALLOC(disc->metric_invJ, nm * dim * dim > 0 ? nm * dim * dim : 1));
  memcpy(disc->metric_detJ, geom->metric_detJ, (size_t)nm * sizeof(double));
  for (int64_t k = 0; k < nm; ++k)
    for (int i = 0; i < dim; ++i)
      for (int j = 0; j < dim; ++j)
        disc->metric_invJ[(k * dim + i) * dim + j] = geom->metric_invJ[9 * k + 3 * i + j];

  const int64_t nvp = geom->vol_offset[ne];
  DG_CALL(DG_CALLOC(disc->vol_x, nvp * dim > 0 ? nvp * dim : 1));
  for (int64_t k = 0; k < nvp; ++k)
    for (int d = 0; d < dim; ++d) disc->vol_x[k * dim + d] = geom->vol_x[3 * k + d];

  int64_t n_minv = 0;
  for (int64_t e = 0; e < ne; ++e) {
    const int s = mesh->elem_shape[e];
    DG_CHECK(geom->vol_offset[e + 1] - geom->vol_offset[e] == v->nq[s], DG_ERR_INTERNAL,
             "%s: element %lld (tag %lld) has %lld volume points, its shape's rule %d",
             mesh->source, (long long)e, (long long)mesh->elem_tag[e],
             (long long)(geom->vol_offset[e + 1] - geom->vol_offset[e]), v->nq[s]);
    if (geom->elem_affine[e]) {
      disc->minv_offset[e] = -1;
    } else {
      disc->minv_offset[e] = n_minv;
      n_minv += (int64_t)v->nb[s] * v->nb[s];
    }
  }
  disc->n_minv = n_minv;
  DG_CALL(DG_CALLOC(disc->minv, n_minv > 0 ? n_minv : 1));

  int64_t first_bad = ne;
#ifdef COLORDG_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 64) reduction(min : first_bad)
#endif
  for (int64_t e = 0; e < ne; ++e) {
    if (geom->elem_affine[e]) continue;
    const int s = mesh->elem_shape[e], nb = v->nb[s], nq = v->nq[s];
    double M[DG_MAX_BASIS * DG_MAX_BASIS];
    for (int i = 0; i < nb * nb; ++i) M[i] = 0.0;
    for (int q = 0; q < nq; ++q) {
      const double *phi = disc->vol_phi + v->vol_table[s] + (int64_t)q * nb;
      const double wdetJ =
          disc->vol_w[v->vol_point[s] + q] * disc->metric_detJ[geom->metric_offset[e] + q];
      for (int i = 0; i < nb; ++i)
        for (int j = 0; j < nb; ++j) M[i * nb + j] += wdetJ * phi[i] * phi[j];
    }
    if (!disc_invert_spd(nb, M, disc->minv + disc->minv_offset[e]) && e < first_bad) first_bad = e;
  }
  DG_CHECK(first_bad == ne, DG_ERR_MESH,
           "%s: the mass matrix of element %lld (tag %lld) is not positive definite (degenerate "
           "or inverted element?)",
           mesh->source, (long long)first_bad,
           (long long)(first_bad < ne ? mesh->elem_tag[first_bad] : -1));
  return DG_SUCCESS;
}

/* Face arrays: neighbours from the topology, points compacted to dim. */
static dg_status disc_build_faces(const dg_mesh *mesh, const dg_topology *topo,
                                  const dg_geometry *geom, dg_disc *disc) {
  dg_disc_view *v = &disc->view;
  const int dim = v->dim, nqf = v->nqf;
  const int64_t nf = v->n_faces;
  DG_CALL(DG_CALLOC(disc->face_elem, 2 * nf > 0 ? 2 * nf : 1));
  DG_CALL(DG_CALLOC(disc->face_local, 2 * nf > 0 ? 2 * nf : 1));
  DG_CALL(DG_CALLOC(disc->face_orient, nf > 0 ? nf : 1));
  DG_CALL(DG_CALLOC(disc->face_group, nf > 0 ? nf : 1));
  memcpy(disc->face_elem, topo->face_elem, (size_t)(2 * nf) * sizeof(int64_t));
  memcpy(disc->face_local, topo->face_local, (size_t)(2 * nf) * sizeof(int8_t));
  memcpy(disc->face_orient, topo->face_orient, (size_t)nf * sizeof(int8_t));
  memcpy(disc->face_group, topo->face_group, (size_t)nf * sizeof(int32_t));

  const int64_t np = nf * nqf;
  disc->n_face_points = np;
  DG_CALL(DG_CALLOC(disc->face_normal, np * dim > 0 ? np * dim : 1));
  DG_CALL(DG_CALLOC(disc->face_wsJ, np > 0 ? np : 1));
  DG_CALL(DG_CALLOC(disc->face_x, np * dim > 0 ? np * dim : 1));
  for (int64_t f = 0; f < nf; ++f) {
    const int64_t k0 = geom->face_offset[f];
    DG_CHECK(geom->face_offset[f + 1] - k0 == nqf, DG_ERR_INTERNAL,
             "%s: face %lld has %lld quadrature points, expected %d", mesh->source, (long long)f,
             (long long)(geom->face_offset[f + 1] - k0), nqf);
    for (int q = 0; q < nqf; ++q) {
      const int64_t k = f * nqf + q;
      disc->face_wsJ[k] = geom->face_wsJ[k0 + q];
      for (int d = 0; d < dim; ++d) {
        disc->face_normal[k * dim + d] = geom->face_normal[3 * (k0 + q) + d];
        disc->face_x[k * dim + d] = geom->face_x[3 * (k0 + q) + d];
      }
    }
  }
  return DG_SUCCESS;
}

/* Hat function of reference vertex i of shape s at xi: barycentric on
 * simplices, bilinear on the quad. */
static double disc_hat(dg_shape s, int i, const double xi[3]) {
  if (s == DG_QUAD) {
    double xv[3];
    shape_vertex_ref(s, i, xv);
    return 0.25 * (1.0 + xv[0] * xi[0]) * (1.0 + xv[1] * xi[1]);
  }
  const int dim = shape_dim(s);
  if (i > 0) return xi[i - 1];
  double lam = 1.0;
  for (int k = 0; k < dim; ++k) lam -= xi[k];
  return lam;
}

/* Canonical node id under the periodic links (smallest index of the class,
 * path-halving union-find as the topology's). */
static int64_t disc_find_root(int64_t *parent, int64_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* Artificial-viscosity arrays (av on, p >= 1): sensor and BR2 constants,
 * linear-field tables, element sizes, dense vertex ids (periodic images
 * joined) and the vertex -> element CSR. */
static dg_status disc_build_av(const dg_mesh *mesh, const dg_geometry *geom,
                               const dg_disc_opts *opts, dg_disc *disc) {
  dg_disc_view *v = &disc->view;
  v->av = opts->p > 0 ? opts->av : DG_AV_OFF;
  if (v->av == DG_AV_OFF) return DG_SUCCESS;
  v->av_sensor_var = opts->av_sensor_var;
  v->av_s0 = -4.0 * log10((double)opts->p) + opts->av_s0_offset;
  v->av_kappa = opts->av_kappa;
  v->av_c = opts->av_c;
  v->br2_eta = opts->br2_eta;
  v->av_wall_zero = opts->av_wall_zero != 0;

  int64_t n_lin_table = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (v->n_shape[s] == 0) continue;
    v->nb_low[s] = basis_count((dg_shape)s, opts->p - 1);
    v->n_lin[s] = shape_n_verts((dg_shape)s);
    DG_CHECK(v->n_lin[s] <= DG_AV_NLIN && basis_count((dg_shape)s, 1) == v->n_lin[s],
             DG_ERR_UNSUPPORTED,
             "%s: artificial viscosity needs a linear space of one mode per vertex; %s elements "
             "have %d vertices",
             mesh->source, disc_shape_name((dg_shape)s), v->n_lin[s]);
    v->lin_table[s] = n_lin_table;
    n_lin_table += (int64_t)v->n_lin[s] * v->n_lin[s];
  }
  disc->n_lin_table = n_lin_table;
  DG_CALL(DG_CALLOC(disc->lin_coef, n_lin_table > 0 ? n_lin_table : 1));
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    if (v->n_shape[s] == 0) continue;
    const int nl = v->n_lin[s];
    const dg_quadrature *rule = &geom->vol_rule[s];
    double *L = disc->lin_coef + v->lin_table[s];
    for (int q = 0; q < rule->n_points; ++q) {
      double phi[DG_MAX_BASIS];
      basis_eval((dg_shape)s, 1, rule->xi + 3 * q, phi);
      for (int i = 0; i < nl; ++i) {
        const double wN = rule->w[q] * disc_hat((dg_shape)s, i, rule->xi + 3 * q);
        for (int m = 0; m < nl; ++m) L[m * nl + i] += wN * phi[m];
      }
    }
  }

  const int64_t ne = v->n_elems, nn = mesh->n_nodes;
  DG_CALL(DG_CALLOC(disc->elem_h, ne > 0 ? ne : 1));
  memcpy(disc->elem_h, geom->elem_h, (size_t)ne * sizeof(double));

  /* dense vertex ids: canonical nodes (periodic images joined) that are an
   * element vertex, numbered in ascending node order */
  int64_t *canon = NULL, *dense = NULL;
  dg_status status = DG_CALLOC(canon, nn > 0 ? nn : 1);
  if (status == DG_SUCCESS) status = DG_CALLOC(dense, nn > 0 ? nn : 1);
  if (status == DG_SUCCESS)
    status = DG_CALLOC(disc->elem_vert, ne * DG_MAX_VERTS > 0 ? ne * DG_MAX_VERTS : 1);
  if (status != DG_SUCCESS) {
    free(canon);
    free(dense);
    DG_CALL(status);
  }
  for (int64_t i = 0; i < nn; ++i) {
    canon[i] = i;
    dense[i] = -1;
  }
  for (int64_t l = 0; l < mesh->n_periodic; ++l) {
    const int64_t a = disc_find_root(canon, mesh->periodic_slave[l]);
    const int64_t b = disc_find_root(canon, mesh->periodic_master[l]);
    if (a < b)
      canon[b] = a;
    else
      canon[a] = b;
  }
  for (int64_t i = 0; i < nn; ++i) canon[i] = disc_find_root(canon, i);
  for (int64_t e = 0; e < ne; ++e) {
    const int nvt = shape_n_verts((dg_shape)mesh->elem_shape[e]);
    for (int i = 0; i < nvt; ++i) dense[canon[mesh->elem_nodes[mesh->elem_node_start[e] + i]]] = 0;
  }
  int64_t n_verts = 0;
  for (int64_t i = 0; i < nn; ++i)
    if (dense[i] == 0) dense[i] = n_verts++;
  for (int64_t e = 0; e < ne; ++e) {
    const int nvt = shape_n_verts((dg_shape)mesh->elem_shape[e]);
    for (int i = 0; i < DG_MAX_VERTS; ++i)
      disc->elem_vert[e * DG_MAX_VERTS + i] =
          i < nvt ? dense[canon[mesh->elem_nodes[mesh->elem_node_start[e] + i]]] : -1;
  }
  free(canon);
  free(dense);
  v->n_verts = n_verts;

  /* vertex -> elements, each element once per vertex, ascending */
  DG_CALL(DG_CALLOC(disc->vert_elem_start, n_verts + 1));
  for (int64_t e = 0; e < ne; ++e) {
    const int64_t *ev = disc->elem_vert + e * DG_MAX_VERTS;
    for (int i = 0; i < DG_MAX_VERTS && ev[i] >= 0; ++i) {
      int seen = 0;
      for (int j = 0; j < i; ++j) seen |= ev[j] == ev[i];
      if (!seen) ++disc->vert_elem_start[ev[i] + 1];
    }
  }
  for (int64_t i = 0; i < n_verts; ++i) disc->vert_elem_start[i + 1] += disc->vert_elem_start[i];
  disc->n_vert_elem = disc->vert_elem_start[n_verts];
  DG_CALL(DG_CALLOC(disc->vert_elem, disc->n_vert_elem > 0 ? disc->n_vert_elem : 1));
  int64_t *fill = NULL;
  DG_CALL(DG_CALLOC(fill, n_verts > 0 ? n_verts : 1));
  for (int64_t e = 0; e < ne; ++e) {
    const int64_t *ev = disc->elem_vert + e * DG_MAX_VERTS;
    for (int i = 0; i < DG_MAX_VERTS && ev[i] >= 0; ++i) {
      int seen = 0;
      for (int j = 0; j < i; ++j) seen |= ev[j] == ev[i];
      if (!seen) disc->vert_elem[disc->vert_elem_start[ev[i]] + fill[ev[i]]++] = e;
    }
  }
  free(fill);
  return DG_SUCCESS;
}

/* Points the view at the owned host arrays. */
static void disc_bind_view(dg_disc *disc) {
  dg_disc_view *v = &disc->view;
  v->vol_phi = disc->vol_phi;
  v->vol_dphi = disc->vol_dphi;
  v->vol_w = disc->vol_w;
  v->face_phi = disc->face_phi;
  v->elem_shape = disc->elem_shape;
  v->elem_affine = disc->elem_affine;
  v->metric_offset = disc->metric_offset;
  v->metric_detJ = disc->metric_detJ;
  v->metric_invJ = disc->metric_invJ;
  v->minv_offset = disc->minv_offset;
  v->minv = disc->minv;
  v->elem_volume = disc->elem_volume;
  v->elem_face = disc->elem_face;
  v->face_elem = disc->face_elem;
  v->face_local = disc->face_local;
  v->face_orient = disc->face_orient;
  v->face_group = disc->face_group;
  v->face_normal = disc->face_normal;
  v->face_wsJ = disc->face_wsJ;
  v->face_x = disc->face_x;
  v->group_bc = disc->group_bc;
  v->group_data = disc->group_data;
  v->lin_coef = disc->lin_coef;
  v->elem_h = disc->elem_h;
  v->elem_vert = disc->elem_vert;
  v->vert_elem_start = disc->vert_elem_start;
  v->vert_elem = disc->vert_elem;
}

static dg_status disc_build_impl(const dg_mesh *mesh, const dg_topology *topo,
                                 const dg_geometry *geom, const dg_disc_opts *opts, dg_disc *disc) {
  DG_CALL(disc_check_opts(mesh, topo, geom, opts));
  dg_disc_view *v = &disc->view;
  v->dim = mesh->dim;
  v->nvar = physics_nvar(mesh->dim);
  v->p = opts->p;
  v->gamma = opts->gamma;
  v->flux = opts->flux;
  v->n_elems = mesh->n_elems;
  v->n_faces = topo->n_faces;
  v->n_interior = topo->n_interior;
  int64_t n_coefs = 0;
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    v->elem_start[s] = mesh->shape_offset[s];
    v->n_shape[s] = mesh->shape_offset[s + 1] - mesh->shape_offset[s];
    v->n_owned[s] = opts->n_owned ? opts->n_owned[s] : v->n_shape[s];
    DG_CHECK(v->n_owned[s] >= 0 && v->n_owned[s] <= v->n_shape[s], DG_ERR_ARG,
             "disc_build: shape %d has %lld owned elements of %lld", s, (long long)v->n_owned[s],
             (long long)v->n_shape[s]);
    v->coef_start[s] = n_coefs;
    n_coefs += (int64_t)v->nvar * basis_count((dg_shape)s, opts->p) * v->n_shape[s];
  }
  v->n_coefs = n_coefs;
  /* the leading interior faces whose both sides are owned */
  v->n_inner = 0;
  for (int64_t f = 0; f < topo->n_interior; ++f) {
    int owned = 1;
    for (int side = 0; side < 2; ++side) {
      const int64_t e = topo->face_elem[2 * f + side];
      int s = 0;
      while (s < DG_NUM_SHAPES - 1 && e >= mesh->shape_offset[s + 1]) ++s;
      owned &= e - v->elem_start[s] < v->n_owned[s];
    }
    if (!owned) break;
    v->n_inner = f + 1;
  }
  for (int i = 0; i < DG_MAX_NVAR; ++i) v->freestream[i] = opts->freestream[i];
  v->vortex = opts->vortex;
  v->exact_kind = opts->exact_kind;
  v->farfield_center[0] = opts->farfield_center[0];
  v->farfield_center[1] = opts->farfield_center[1];

  /* the lower rule of affine elements ([discretization] affine_rule = reduced) */
  dg_quadrature affine_rule[DG_NUM_SHAPES];
  memset(affine_rule, 0, sizeof affine_rule);
  const int reduce = opts->affine_degree > 0 && opts->affine_degree < geom->vol_degree;
  dg_status status = DG_SUCCESS;
  for (int s = 0; reduce && s < DG_NUM_SHAPES && status == DG_SUCCESS; ++s) {
    int any_affine = 0; /* simplices only (geometry.c: quads are never affine) */
    for (int64_t e = v->elem_start[s]; e < v->elem_start[s] + v->n_shape[s] && !any_affine; ++e)
      any_affine = geom->elem_affine[e] != 0;
    if (any_affine)
      status = quadrature_rule_family((dg_shape)s, opts->affine_degree, geom->quad_family,
                                      &affine_rule[s]);
  }
  if (status == DG_SUCCESS)
    status = disc_build_tables(mesh, geom, reduce ? affine_rule : NULL, disc);
  for (int s = 0; s < DG_NUM_SHAPES; ++s) quadrature_free(&affine_rule[s]);
  if (status != DG_SUCCESS) {
    dg_error_trace(__FILE__, __LINE__, __func__);
    return status;
  }
  DG_CALL(disc_build_elements(mesh, topo, geom, disc));
  DG_CALL(disc_build_faces(mesh, topo, geom, disc));
  DG_CALL(disc_build_av(mesh, geom, opts, disc));

  v->n_groups = mesh->n_groups;
  const int ng = mesh->n_groups > 0 ? mesh->n_groups : 1;
  DG_CALL(DG_CALLOC(disc->group_bc, ng));
  DG_CALL(DG_CALLOC(disc->group_data, ng));
  for (int g = 0; g < mesh->n_groups; ++g) {
    disc->group_bc[g] = opts->group_bc ? opts->group_bc[g] : -1;
    if (disc->group_bc[g] >= 0) disc->group_data[g] = opts->group_data[g];
  }
  disc_bind_view(disc);
  return DG_SUCCESS;
}

dg_status disc_build(const dg_mesh *mesh, const dg_topology *topo, const dg_geometry *geom,
                     const dg_disc_opts *opts, dg_disc *disc) {
  memset(disc, 0, sizeof *disc);
  const dg_status status = disc_build_impl(mesh, topo, geom, opts, disc);
  if (status == DG_SUCCESS) disc->halo = opts->halo;
  if (status != DG_SUCCESS) {
    dg_error_trace(__FILE__, __LINE__, __func__);
    disc_free(disc);
  }
  return status;
}

void disc_free(dg_disc *disc) {
  free(disc->vol_phi);
  free(disc->vol_dphi);
  free(disc->vol_w);
  free(disc->face_phi);
  free(disc->elem_shape);
  free(disc->elem_affine);
  free(disc->metric_offset);
  free(disc->minv_offset);
  free(disc->elem_face);
  free(disc->metric_detJ);
  free(disc->metric_invJ);
  free(disc->minv);
  free(disc->elem_volume);
  free(disc->face_elem);
  free(disc->face_local);
  free(disc->face_orient);
  free(disc->face_group);
  free(disc->group_bc);
  free(disc->face_normal);
  free(disc->face_wsJ);
  free(disc->face_x);
  free(disc->group_data);
  free(disc->vol_x_offset);
  free(disc->vol_x);
  free(disc->lin_coef);
  free(disc->elem_h);
  free(disc->elem_vert);
  free(disc->vert_elem_start);
  free(disc->vert_elem);
  memset(disc, 0, sizeof *disc);
}

/* w detJ at volume point q of element e. */
static double disc_wdetJ(const dg_disc_view *v, int64_t e, int q) {
  const int s = v->elem_shape[e];
  const int64_t mk = v->elem_affine[e] ? v->metric_offset[e] : v->metric_offset[e] + q;
  return v->vol_w[v->vol_point[s] + q] * v->metric_detJ[mk];
}

static dg_status disc_check_built(const dg_disc *disc, const void *h_U, const void *out) {
  DG_CHECK(disc && disc->vol_x && h_U && out, DG_ERR_ARG,
           "disc: called with a discretisation that was not built or a NULL array");
  return DG_SUCCESS;
}

dg_status disc_project(const dg_disc *disc, double t, double *h_U) {
  DG_CALL(disc_check_built(disc, h_U, h_U));
  const dg_disc_view *v = &disc->view;
  const int nv = v->nvar, dim = v->dim;
#ifdef COLORDG_HAVE_OPENMP
#pragma omp parallel for schedule(static)
#endif
  for (int64_t e = 0; e < v->n_elems; ++e) {
    const int s = v->elem_shape[e], nb = v->nb[s];
    double b[DG_MAX_NVAR * DG_MAX_BASIS], Ue[DG_MAX_NVAR * DG_MAX_BASIS];
    for (int i = 0; i < nv * nb; ++i) b[i] = 0.0;
    for (int q = 0; q < v->nq[s]; ++q) {
      const double *phi = v->vol_phi + v->vol_table[s] + (int64_t)q * nb;
      double U[DG_MAX_NVAR];
      residual_exact_state(v, disc->vol_x + (disc->vol_x_offset[e] + q) * dim, t, U);
      const double wdetJ = disc_wdetJ(v, e, q);
      for (int k = 0; k < nv; ++k)
        for (int m = 0; m < nb; ++m) b[k * nb + m] += wdetJ * U[k] * phi[m];
    }
    residual_apply_minv(v, e, b, Ue);
    for (int k = 0; k < nv; ++k)
      for (int m = 0; m < nb; ++m) h_U[disc_coef_index(v, e, k, m)] = Ue[k * nb + m];
  }
  return DG_SUCCESS;
}

dg_status disc_prolong(const dg_disc_view *d, int p_from, const double *U_from, double *h_U) {
  DG_CHECK(d && U_from && h_U, DG_ERR_ARG, "disc_prolong: view, source or target is NULL");
  DG_CHECK(p_from >= 0 && p_from <= d->p, DG_ERR_ARG,
           "disc_prolong: the source degree %d is not in 0..%d (the target's p)", p_from, d->p);
  int64_t start = 0; /* first coefficient of the shape's block in U_from */
  for (int s = 0; s < DG_NUM_SHAPES; ++s) {
    const int64_t n = d->n_shape[s];
    if (n == 0) continue;
    const int nbf = basis_count((dg_shape)s, p_from), nb = d->nb[s];
    for (int v = 0; v < d->nvar; ++v)
      for (int m = 0; m < nb; ++m)
        for (int64_t i = 0; i < n; ++i) {
          const int64_t e = d->elem_start[s] + i;
          h_U[disc_coef_index(d, e, v, m)] =
              m < nbf ? U_from[start + ((int64_t)v * nbf + m) * n + i] : 0.0;
        }
    start += (int64_t)d->nvar * nbf * n;
  }
  return DG_SUCCESS;
}

/* The state at volume point phi (the basis values there) of an element
 * whose coefficients Ue (residual_load's layout) has nb modes: U[k] for k <
 * nv. */
static void disc_point_state(int nv, int nb, const double *phi, const double *Ue, double *U) {
  for (int k = 0; k < nv; ++k) {
    double uh = 0.0;
    for (int m = 0; m < nb; ++m) uh += phi[m] * Ue[k * nb + m];
    U[k] = uh;
  }
}

dg_status disc_error_l2(const dg_disc *disc, const double *h_U, double t, double *err) {
  DG_CALL(disc_check_built(disc, h_U, err));
  const dg_disc_view *v = &disc->view;
  const int nv = v->nvar, dim = v->dim;
  double sum[DG_MAX_NVAR] = {0};
  for (int64_t e = 0; e < v->n_elems; ++e) {
    const int s = v->elem_shape[e], nb = v->nb[s];
    double Ue[DG_MAX_NVAR * DG_MAX_BASIS];
    residual_load(v, h_U, e, Ue);
    for (int q = 0; q < v->nq[s]; ++q) {
      const double *phi = v->vol_phi + v->vol_table[s] + (int64_t)q * nb;
      double U[DG_MAX_NVAR], uh[DG_MAX_NVAR];
      residual_exact_state(v, disc->vol_x + (disc->vol_x_offset[e] + q) * dim, t, U);
      disc_point_state(nv, nb, phi, Ue, uh);
      const double wdetJ = disc_wdetJ(v, e, q);
      for (int k = 0; k < nv; ++k) sum[k] += wdetJ * (uh[k] - U[k]) * (uh[k] - U[k]);
    }
  }
  for (int k = 0; k < nv; ++k) err[k] = sqrt(sum[k]);
  return DG_SUCCESS;
}

dg_status disc_entropy_error(const dg_disc *disc, const double *h_U, double *err) {
  DG_CALL(disc_check_built(disc, h_U, err));
  const dg_disc_view *v = &disc->view;
  const int nv = v->nvar, dim = v->dim;
  const double s_inf = physics_entropy(dim, v->gamma, v->freestream);
  DG_CHECK(isfinite(s_inf) && s_inf > 0.0, DG_ERR_ARG,
           "disc_entropy_error: the freestream entropy p/rho^gamma = %g is not positive", s_inf);
  double sum = 0.0, volume = 0.0;
  for (int64_t e = 0; e < v->n_elems; ++e) {
    const int s = v->elem_shape[e], nb = v->nb[s];
    double Ue[DG_MAX_NVAR * DG_MAX_BASIS];
    residual_load(v, h_U, e, Ue);
    for (int q = 0; q < v->nq[s]; ++q) {
      const double *phi = v->vol_phi + v->vol_table[s] + (int64_t)q * nb;
      double U[DG_MAX_NVAR];
      disc_point_state(nv, nb, phi, Ue, U);
      const double wdetJ = disc_wdetJ(v, e, q);
      const double ds = physics_admissible(dim, v->gamma, U)
                            ? physics_entropy(dim, v->gamma, U) / s_inf - 1.0
                            : NAN;
      sum += wdetJ * ds * ds;
      volume += wdetJ;
    }
  }
  DG_CHECK(volume > 0.0, DG_ERR_ARG, "disc_entropy_error: the domain has no volume (%g)", volume);
  *err = sqrt(sum / volume);
  return DG_SUCCESS;
}

dg_status disc_integral(const dg_disc *disc, const double *h_U, double *total) {
  DG_CALL(disc_check_built(disc, h_U, total));
  const dg_disc_view *v = &disc->view;
  const int nv = v->nvar;
  for (int k = 0; k < nv; ++k) total[k] = 0.0;
  for (int64_t e = 0; e < v->n_elems; ++e) {
    const int s = v->elem_shape[e], nb = v->nb[s];
    double Ue[DG_MAX_NVAR * DG_MAX_BASIS];
    residual_load(v, h_U, e, Ue);
    for (int q = 0; q < v->nq[s]; ++q) {
      const double *phi = v->vol_phi + v->vol_table[s] + (int64_t)q * nb;
      double uh[DG_MAX_NVAR];
      disc_point_state(nv, nb, phi, Ue, uh);
      const double wdetJ = disc_wdetJ(v, e, q);
      for (int k = 0; k < nv; ++k) total[k] += wdetJ * uh[k];
    }
  }
  return DG_SUCCESS;
}

void disc_opts_periodic_vortex(int dim, int p, double box, dg_disc_opts *opts) {
  memset(opts, 0, sizeof *opts);
  opts->p = p;
  opts->gamma = 1.4;
  opts->flux = DG_FACE_FLUX_ROE;
  opts->exact_kind = 1;
  opts->vortex.velocity[0] = 0.5;
  opts->vortex.velocity[1] = 0.25;
  opts->vortex.center[0] = opts->vortex.center[1] = 0.5 * box;
  opts->vortex.strength = 5.0;
  opts->vortex.period[0] = opts->vortex.period[1] = box;
  opts->vortex.images = 2;
  physics_vortex far = opts->vortex;
  far.strength = 0.0;
  const double x_far[3] = {0.0, 0.0, 0.0};
  physics_vortex_state(dim, opts->gamma, &far, x_far, 0.0, opts->freestream);
}
