#pragma once
/* The discretisation: everything the time loop reads, as flat arrays that a
 * backend mirrors on its device (docs/ARCHITECTURE.md §4).
 *
 * dg_disc owns host arrays; dg_disc_view is the same set of pointers and
 * sizes as plain data (passed by value to kernels), pointing either at the
 * host arrays (disc->view) or at a backend's device copies. The view is
 * immutable after disc_build: what a run changes (far-field circulation,
 * held element viscosity) is dg_disc_state, owned by the backend.
 *
 * Owned and ghost elements: inside the block of shape s, the elements
 * [elem_start[s], elem_start[s] + n_owned[s]) are owned and the rest of the
 * block (up to n_shape[s]) are ghosts, copies of another partition's
 * elements appended at the end of the block so that the layout below holds
 * unchanged. Passes that compute what faces read (ε, gradients) and the
 * face passes cover ghosts too; element passes whose results are owned
 * (residual elements, time step, norms, RK update) loop over owned
 * elements, forces over the boundary faces of owned elements
 * (src/dg/residual_plan.h). disc_build takes n_owned from its options
 * (dg_disc_opts.n_owned; NULL: n_owned = n_shape, one partition).
 *
 * Coefficient layout ("element-minor" structure of arrays): elements are
 * grouped by shape (mesh order, later colour-major inside a shape); for the
 * elements of shape s, coefficient m of variable v of element e is
 *   U[coef_start[s] + (v * nb[s] + m) * n_shape[s] + (e - elem_start[s])]
 * so consecutive elements read consecutive addresses (coalesced on a GPU
 * with one thread per element). disc_coef_index() is the one place that
 * knows this. Per-element quantities (time step) are [n_elems].
 *
 * Reference tables (per shape s, rule of the shape):
 *   vol_phi  [vol_table[s] + q*nb + m]              basis at volume point q
 *   vol_dphi [(vol_table[s] + q*nb + m)*dim + d]     reference gradient
 *   vol_w    [vol_point[s] + q]                      reference weight
 *   face_phi [face_table[s][f][o] + q*nb + m]        basis at face point q of
 *            local face f seen with orientation code o (quadrature_face_to_elem)
 * Geometry:
 *   elements: elem_affine[e]; metric entries [metric_offset[e] ...): one when
 *     affine, else one per volume point: metric_detJ[k], metric_invJ[k*dim*dim
 *     + i*dim + j] = dξ_i/dx_j. Mass inverse: affine -> 1/detJ (orthonormal
 *     basis), else a dense nb x nb matrix at minv[minv_offset[e]] (row-major).
 *   faces: nqf points per face (one face shape per mesh); point (f, q) is
 *     k = f*nqf + q: face_normal[k*dim + d] (unit, outward from side 0),
 *     face_wsJ[k], face_x[k*dim + d] (side 0).
 * Face flux scratch (race-free accumulation, see residual_ops.h):
 *   face_flux[k*nvar + v] = H·n wsJ at face point k. */
#include <stdint.h>

#include "core/dg_error.h"
#include "dg/physics.h"
#include "element/shape.h"
#include "mesh/geometry.h"
#include "mesh/mesh.h"
#include "mesh/topology.h"
#include "parallel/halo.h"

#define DG_FACE_FLUX_ROE 0
#define DG_FACE_FLUX_RUSANOV 1

/* Artificial viscosity (src/dg/av_ops.h, docs/NUMERICS-av.md). */
#define DG_AV_OFF 0        /* no viscosity (always at p = 0) */
#define DG_AV_ELEMENT 1    /* eps constant per element */
#define DG_AV_CONTINUOUS 2 /* eps averaged to the vertices, linear inside elements */
#define DG_AV_NLIN 4       /* most modes of a linear (P1 / Q1) field: one per vertex */

/* Plain-data view of a discretisation (host or device pointers). */
typedef struct dg_disc_view {
  int dim, nvar, p;
  double gamma;
  int flux; /* DG_FACE_FLUX_ROE or DG_FACE_FLUX_RUSANOV */
  int64_t n_elems, n_faces, n_interior;
  int64_t n_inner; /* interior faces [0, n_inner) join two owned elements (a partition's
                      topology lists them first: the residual computes them while the
                      ghosts' data is in flight); n_interior in one process */
  int64_t n_coefs; /* total doubles of one state vector */

  /* per shape */
  int nb[DG_NUM_SHAPES];             /* modes */
  int nq[DG_NUM_SHAPES];             /* volume points */
  int64_t elem_start[DG_NUM_SHAPES]; /* first element of the shape */
  int64_t n_shape[DG_NUM_SHAPES];    /* elements of the shape (owned, then ghosts) */
  int64_t n_owned[DG_NUM_SHAPES];    /* owned elements of the shape: [elem_start, elem_start +
                                        n_owned); ghosts fill the rest of the block */
  int64_t coef_start[DG_NUM_SHAPES]; /* first coefficient of the shape's block */
  int64_t vol_table[DG_NUM_SHAPES];  /* offset into vol_phi (vol_dphi: times dim) */
  int64_t vol_point[DG_NUM_SHAPES];  /* offset into vol_w */
  /* the volume rule of affine elements of shape s (disc_elem_rule): the
   * shape's own (nq, vol_table, vol_point) unless dg_disc_opts.affine_degree
   * asked for a lower one and the shape has affine elements; tabulated after
   * the shape's own */
  int nq_affine[DG_NUM_SHAPES];
  int64_t vol_table_affine[DG_NUM_SHAPES], vol_point_affine[DG_NUM_SHAPES];
  int64_t face_table[DG_NUM_SHAPES][DG_MAX_FACES][DG_MAX_FACE_ORIENT]; /* into face_phi */
  int nqf;                                                             /* points per face */

  const double *vol_phi, *vol_dphi, *vol_w, *face_phi;

  /* elements */
  const int8_t *elem_shape;     /* [n_elems] */
  const uint8_t *elem_affine;   /* [n_elems] */
  const int64_t *metric_offset; /* [n_elems + 1] */
  const double *metric_detJ;    /* [n_metric] */
  const double *metric_invJ;    /* [n_metric * dim*dim] */
  const int64_t *minv_offset;   /* [n_elems] (-1 when affine) */
  const double *minv;           /* dense inverse mass matrices of non-affine elements */
  const double *elem_volume;    /* [n_elems] */
  const int64_t *elem_face;     /* [n_elems * DG_MAX_FACES] */

  /* faces */
  const int64_t *face_elem;  /* [n_faces * 2] */
  const int8_t *face_local;  /* [n_faces * 2] */
  const int8_t *face_orient; /* [n_faces] */
  const int32_t *face_group; /* [n_faces] -1 interior */
  const double *face_normal; /* [n_faces*nqf*dim] */
  const double *face_wsJ;    /* [n_faces*nqf] */
  const double *face_x;      /* [n_faces*nqf*dim] */

  /* boundary conditions, per group */
  int n_groups;
  const int32_t *group_bc;           /* [n_groups] physics_bc_kind */
  const physics_bc_data *group_data; /* [n_groups] */
  double freestream[DG_MAX_NVAR];    /* conservative freestream state */
  physics_vortex vortex;             /* exact solution for PHYSICS_BC_EXACT and initial states */
  int exact_kind;                    /* 0 freestream, 1 isentropic vortex */
  /* centre of the far-field point vortex (2D, groups with
   * group_data[g].vortex_correction); its circulation is run-time state
   * (dg_disc_state.farfield_circulation) */
  double farfield_center[2];

  /* artificial viscosity (src/dg/av_ops.h); every field below is zero / NULL
   * when av == DG_AV_OFF */
  int av;                       /* DG_AV_OFF, DG_AV_ELEMENT, DG_AV_CONTINUOUS */
  int av_sensor_var;            /* conservative variable the sensor reads (0 ρ, nvar-1 ρE) */
  double av_s0, av_kappa, av_c; /* s0 = -4 log10 p + offset; ramp half-width; eps0 constant */
  double br2_eta;               /* BR2 penalty; 0: faces of the element + 1 */
  int av_wall_zero; /* 1: no viscous flux and no lifting at slip walls and symmetry planes; 0: the
                       ghost state as a BR2 neighbour there (av_face_viscous) */
  int nb_low[DG_NUM_SHAPES];        /* basis_count(s, p - 1): modes below the top degree */
  int n_lin[DG_NUM_SHAPES];         /* vertices of shape s = modes of its linear space */
  int64_t lin_table[DG_NUM_SHAPES]; /* offset into lin_coef */
  /* lin_coef[lin_table[s] + m*n_lin[s] + i] = ∫_ref N_i φ_m dξ: mode m of the
   * linear hat function N_i of vertex i (exact: P1 / Q1 is the span of the
   * first n_lin modes of the hierarchical basis) */
  const double *lin_coef;
  const double *elem_h;           /* [n_elems] h_e: the geometry's elem_h (geometry.h) */
  int64_t n_verts;                /* element vertices, periodic images joined (dense ids) */
  const int64_t *elem_vert;       /* [n_elems * DG_MAX_VERTS] vertex ids, -1 padded */
  const int64_t *vert_elem_start; /* [n_verts + 1] CSR of the elements around a vertex */
  const int64_t *vert_elem;       /* element ids, ascending per vertex */
} dg_disc_view;

/* The run-time state the DG_HD arithmetic reads besides the view: what a
 * marcher or its caller changes during a run. A backend owns one (host
 * memory on the CPU; on CUDA a host copy, passed by value to the portable
 * kernels, and a device copy read by the tuned ones) and passes it to the
 * functions that need it: the boundary states (residual_boundary_data and
 * its callers) and the element viscosity (av_element_eps). A NULL state
 * means the start state: Γ = 0 and nothing held. */
typedef struct dg_disc_state {
  /* circulation Γ of the far-field point vortex (2D, groups with
   * group_data[g].vortex_correction), set by the marcher's caller from the
   * lift (backend op set_circulation); 0 at the start */
  double farfield_circulation;
  /* [n_elems] ε held by the marcher (backend op av_hold): entry >= 0 is
   * element e's ε; -1 (the start) lets the sensor compute it from U. Backend
   * memory (NULL when the view's av is off). */
  const double *av_eps_hold;
} dg_disc_state;

/* Owning discretisation (host arrays) and its host view. */
typedef struct dg_disc {
  dg_disc_view view;
  int64_t n_metric, n_minv, n_face_points;
  int64_t n_vol_table, n_face_table, n_vol_points;
  /* owned host arrays (the view's const pointers alias these) */
  double *vol_phi, *vol_dphi, *vol_w, *face_phi;
  int8_t *elem_shape;
  uint8_t *elem_affine;
  int64_t *metric_offset, *minv_offset, *elem_face;
  double *metric_detJ, *metric_invJ, *minv, *elem_volume;
  int64_t *face_elem;
  int8_t *face_local, *face_orient;
  int32_t *face_group, *group_bc;
  double *face_normal, *face_wsJ, *face_x;
  physics_bc_data *group_data;
  double *lin_coef, *elem_h;
  int64_t *elem_vert, *vert_elem_start, *vert_elem;
  int64_t n_lin_table, n_vert_elem;
  /* host only (projections, error norms; not mirrored by backends): the
   * physical volume points of element e are [vol_x_offset[e], vol_x_offset[e+1])
   * into vol_x (dim doubles each), in the order of the shape's volume rule */
  int64_t *vol_x_offset;
  double *vol_x;
  /* a partition's halo (not owned; NULL: one partition); backends exchange
   * the ghosts' data through it (src/parallel/halo.h) */
  const dg_halo *halo;
} dg_disc;

/* Index of coefficient m of variable v of element e (layout above). */
DG_HD int64_t disc_coef_index(const dg_disc_view *d, int64_t e, int v, int m) {
  const int s = d->elem_shape[e];
  return d->coef_start[s] + ((int64_t)v * d->nb[s] + m) * d->n_shape[s] + (e - d->elem_start[s]);
}

/* The volume rule of element e's volume integrals (residual, artificial
 * viscosity, LU-SGS blocks): returns its number of points; *table: its
 * offset into vol_phi (vol_dphi: times dim), *point: into vol_w. Affine
 * elements take the affine rule of their shape (the shape's own rule
 * unless the discretisation was built with a lower affine_degree);
 * projections, norms and the limiter's point values keep the shape's rule
 * (vol_x holds its points). */
DG_HD int disc_elem_rule(const dg_disc_view *d, int64_t e, int64_t *table, int64_t *point) {
  const int s = d->elem_shape[e];
  if (d->elem_affine[e]) {
    *table = d->vol_table_affine[s];
    *point = d->vol_point_affine[s];
    return d->nq_affine[s];
  }
  *table = d->vol_table[s];
  *point = d->vol_point[s];
  return d->nq[s];
}

/* The shape of every element of a discretisation of one shape; -1 when it
 * has several (a mixed mesh) or none. */
DG_HD int disc_single_shape(const dg_disc_view *d) {
  int shape = -1;
  for (int s = 0; s < DG_NUM_SHAPES; ++s)
    if (d->n_shape[s] > 0) {
      if (shape >= 0) return -1;
      shape = s;
    }
  return shape;
}

/* The most volume points an element of shape s integrates with: its own
 * rule's or its affine elements' (disc_elem_rule), the larger; what a
 * kernel sizes per-element point storage by. */
DG_HD int disc_shape_max_points(const dg_disc_view *d, int s) {
  return d->nq_affine[s] > d->nq[s] ? d->nq_affine[s] : d->nq[s];
}

/* 1 when every element of shape s integrates with the shape's own rule
 * (what the tuned GPU kernels, which take one rule per shape, need). */
DG_HD int disc_shape_rule_uniform(const dg_disc_view *d, int s) {
  return d->vol_table_affine[s] == d->vol_table[s];
}

/* 1 when element e is owned by this partition (always in one process), 0
 * for a ghost. */
DG_HD int disc_elem_owned(const dg_disc_view *d, int64_t e) {
  const int s = d->elem_shape[e];
  return e - d->elem_start[s] < d->n_owned[s];
}

/* Options for disc_build beyond the mesh. */
typedef struct dg_disc_opts {
  int p; /* polynomial degree 0..3 */
  double gamma;
  int flux; /* DG_FACE_FLUX_ROE (default) or DG_FACE_FLUX_RUSANOV */
  int n_groups;
  const int32_t *group_bc;           /* [n_groups] physics_bc_kind per mesh group */
  const physics_bc_data *group_data; /* [n_groups] */
  double freestream[DG_MAX_NVAR];    /* conservative */
  physics_vortex vortex;
  int exact_kind;            /* 0 freestream, 1 isentropic vortex */
  double farfield_center[2]; /* centre of the far-field point vortex (2D; groups with
                                group_data[g].vortex_correction); the circulation starts at 0 */
  /* artificial viscosity (ignored, i.e. DG_AV_OFF, at p = 0) */
  int av;            /* DG_AV_OFF (default), DG_AV_ELEMENT, DG_AV_CONTINUOUS */
  int av_sensor_var; /* conservative variable of the sensor: 0 (ρ) .. nvar-1 (ρE) */
  double av_s0_offset, av_kappa, av_c; /* kappa, c > 0 when av is on */
  double br2_eta;                      /* 0 automatic, else > faces of every element */
  /* > 0 and below the geometry's volume degree: affine elements
   * (straight-sided simplices, geometry.h elem_affine) integrate their volume
   * terms with the rule of this degree (the geometry's family; [discretization]
   * affine_rule = reduced: 2p + 1), the others with the geometry's; 0: every
   * element the geometry's rule */
  int affine_degree;
  int av_wall_zero; /* 1: no artificial viscous flux through slip walls and symmetry planes
                       (homogeneous Neumann); 0 (default): the ghost state as a BR2 neighbour there
                     */
  /* partitions (src/mesh/distribute.h): owned elements at the start of each
   * shape block, the rest ghosts; NULL: every element owned */
  const int64_t *n_owned; /* [DG_NUM_SHAPES] */
  const dg_halo *halo;    /* the exchange lists of the ghosts (kept by the caller); NULL: none */
} dg_disc_opts;

/* Builds the discretisation from a mesh, its topology and a geometry whose
 * rules are exact to degree >= 2p+1 (volume) and 2p+1 (faces); the rules
 * of geom are the ones used. Fails when a group has no BC. */
dg_status disc_build(const dg_mesh *mesh, const dg_topology *topo, const dg_geometry *geom,
                     const dg_disc_opts *opts, dg_disc *disc);

/* Releases every array and zeroes the struct. Safe on a zeroed struct. */
void disc_free(dg_disc *disc);

/* Options of the order-of-accuracy vortex (isentropic vortex of strength 5
 * advected by (0.5, 0.25) through a box periodic in x and y with period
 * `box`, centred in it, 2 image rings) at degree p, gamma = 1.4, Roe flux;
 * freestream = the vortex-free state. Zeroes every other option. */
void disc_opts_periodic_vortex(int dim, int p, double box, dg_disc_opts *opts);

/* L2 projection of the exact solution at time t (view.exact_kind: the
 * freestream or the isentropic vortex) onto the basis, element by element,
 * with the volume rule: U_e = M_e⁻¹ ∫_e u_exact φ dx. h_U: [view.n_coefs]
 * host array in the coefficient layout, written. */
dg_status disc_project(const dg_disc *disc, double t, double *h_U);

/* Prolongs a state of the same elements at degree p_from <= view.p into the
 * view's layout: U_from is in the coefficient layout above built at p_from
 * (shapes in order, element-minor blocks of nb(s, p_from) modes; the
 * layout of a dg_disc of the same mesh at p_from and of a .cdgs file). The
 * bases are hierarchical and orthonormal, so the modes of degree <= p_from
 * are copied and the others set to 0: the same function, exactly. h_U:
 * [view.n_coefs] host array, written. DG_ERR_ARG when p_from is not in
 * 0..view.p. */
dg_status disc_prolong(const dg_disc_view *view, int p_from, const double *U_from, double *h_U);

/* L2 norm of (U_h − u_exact(t)) per variable over the domain, with the
 * volume rule: err[v] = sqrt(Σ_e Σ_q w detJ (U_h,v − u_v)²). h_U: host state
 * [view.n_coefs] (read); err: [view.nvar] (written). Summed in element order. */
dg_status disc_error_l2(const dg_disc *disc, const double *h_U, double t, double *err);

/* L2 entropy error of HiOCFD case C1.1 (and the other subsonic workshop
 * cases): eps_s = sqrt(∫_Ω ((s − s_∞)/s_∞)² dx / ∫_Ω dx) with the entropy
 * s = p / ρ^γ of the state and s_∞ that of view.freestream, by the volume rule
 * (w detJ at every point: curved elements included). h_U: host state
 * [view.n_coefs] (read); err: the error (written), NaN when a point's state
 * has ρ <= 0 or p <= 0. Summed in element order. */
dg_status disc_entropy_error(const dg_disc *disc, const double *h_U, double *err);

/* Domain integral of each conservative variable, ∫_Ω U_h,v dx, with the
 * volume rule (total mass, momentum, energy). h_U: host state (read);
 * total: [view.nvar] (written). Summed in element order. */
dg_status disc_integral(const dg_disc *disc, const double *h_U, double *total);
