#pragma once
/* Surface outputs: wall pressure coefficient at every wall face quadrature
 * point (CSV) and force / moment coefficients (docs/OUTPUTS.md).
 *
 * Nondimensionalisation (src/dg/physics.h): ρ∞ = 1, a∞ = 1, so p∞ = 1/γ,
 * V∞ = M and the dynamic pressure is q∞ = ½ ρ∞ V∞² = ½ M².
 *   Cp = (p − p∞) / q∞
 *   CD = F·d / (q∞ S),  CL = F·l / (q∞ S),  CY = F·s / (q∞ S)
 *   CM = M_pitch / (q∞ S L), positive nose-up
 * with F = ∮ p n dS over the selected walls (n out of the fluid, into the
 * body: the force on the body) and the moment taken about moment_center.
 * Wind axes (as case_force_directions): 2D d = (cos α, sin α),
 * l = (−sin α, cos α); 3D (z up, y along the span) d = (cos α cos β, sin β,
 * sin α cos β), l = (−sin α, 0, cos α), s = l × d. The pitching moment is
 * −M_z in 2D (x downstream, y up: nose-up is clockwise) and M_y in 3D.
 * In 2D the forces are per unit span and S = ref_area should be
 * ref_length × 1 (surface_reference_from_case does that). */
#include <stdint.h>

#include "app/case.h"
#include "core/dg_error.h"
#include "dg/disc.h"
#include "mesh/mesh.h"

/* Reference values for derived fields and coefficients (nondimensional). */
typedef struct dg_flow_reference {
  double mach;             /* freestream Mach number = V∞ (a∞ = 1) */
  double alpha_deg;        /* angle of attack, degrees */
  double beta_deg;         /* sideslip angle, degrees (3D) */
  double gamma;            /* ratio of specific heats */
  double ref_length;       /* moment reference length L (chord), mesh units */
  double ref_area;         /* force reference area S (2D: L × unit span), mesh units² */
  double moment_center[3]; /* moment reference point */
  /* output options of the case (zero = defaults) */
  int vtu_cells;       /* dg_vtu_cells: 0 Lagrange cells, 1 sub-cells (vtu_write with subdiv 0) */
  int vtu_subdivision; /* Lagrange order / sub-cells per edge; 0 = max(p, q, 1) */
  double semispan;     /* [reference] semispan (3D sections) */
  int n_sections;      /* [output] sections: eta = y / semispan of each station */
  double sections[DG_CASE_MAX_SECTIONS];
} dg_flow_reference;

/* Force and moment on the selected walls. */
typedef struct dg_force_coefs {
  double force[3];  /* ∮ p n dS (nondimensional: ρ∞ a∞² L², 2D per unit span) */
  double moment[3]; /* ∮ (x − x_ref) × p n dS (2D: only moment[2]) */
  double cd, cl;    /* drag and lift coefficients */
  double cy;        /* side-force coefficient (3D; 0 in 2D) */
  double cm;        /* pitching-moment coefficient, positive nose-up */
} dg_force_coefs;

/* Reference values of a case: mach, angles, gamma, moment point; ref_length
 * from [reference] length; ref_area = [reference] area in 3D and
 * ref_length × 1 in 2D (forces per unit span). */
void surface_reference_from_case(const dg_case *c, int dim, dg_flow_reference *ref);

/* Unit drag, lift and side directions (wind axes above) for dimension dim. */
void surface_wind_axes(const dg_flow_reference *ref, int dim, double drag[3], double lift[3],
                       double side[3]);

/* Coefficients from a raw force/moment sum raw[0..2] = force, raw[3..5] =
 * moment about ref->moment_center (what residual_face_force and the
 * backend's `forces` operation return). DG_ERR_ARG when mach, ref_area or
 * ref_length is not positive. */
dg_status surface_coefficients(const double raw[6], int dim, const dg_flow_reference *ref,
                               dg_force_coefs *out);

/* Forces on the boundary faces of the groups with group_mask[g] != 0
 * (n_groups entries of disc), from the host state h_U (disc's coefficient
 * layout): the sum of residual_face_force over those faces in face order,
 * then surface_coefficients. */
dg_status surface_forces(const dg_disc *disc, const double *h_U, const uint8_t *group_mask,
                         const dg_flow_reference *ref, dg_force_coefs *out);

/* Writes a CSV file (atomically) with the header "x,y,cp,face,group" (2D)
 * or "x,y,z,cp,face,group" (3D) and one row per quadrature point of every
 * boundary face of a selected group, in face order: the point (side 0's
 * face_x), Cp from the element's trace (residual_trace, physics_pressure),
 * the face index in disc's numbering and the group index. DG_ERR_ARG when
 * mach <= 0 (Cp undefined). */
dg_status surface_write_cp(const char *path, const dg_disc *disc, const double *h_U,
                           const uint8_t *group_mask, const dg_flow_reference *ref);

/* The wall outputs of a run, written into folder (atomically each), from
 * the host state h_U on mesh (the mesh disc was built from) for the
 * groups with group_mask[g] != 0 (docs/OUTPUTS.md):
 *   surface_cp.csv  2D: group,curve,s,x,y,cp,mach,nx,ny,face: groups by
 *                   name, each group's faces chained into curves (a closed
 *                   curve starts at its largest-x face end, the trailing
 *                   edge, and follows the faces, fluid on the left), rows at
 *                   the face Gauss points, s the arc length from the curve's
 *                   start; 3D: group,x,y,z,cp,mach,nx,ny,nz,face at every
 *                   face quadrature point. Normals point out of the fluid.
 *   surface.vtu     one VTK Lagrange curve (2D) or triangle (3D) per wall
 *                   face, order max(p, q, 1) (or ref->vtu_subdivision),
 *                   point fields cp, mach, pressure, density, normal; cell
 *                   fields group (mesh group index), face (disc face index).
 *   section_eta<eta>.csv  3D, one per ref->sections station: the wall cut
 *                   at y = eta * semispan (curved faces: exact points by
 *                   Newton on the face map), curve,x,y,z,x/c,cp,upper, each
 *                   closed curve from the trailing edge over the upper side
 *                   to the leading edge and back along the lower side.
 * DG_ERR_ARG when mach <= 0 (Cp undefined). */
dg_status surface_write_outputs(const char *folder, const dg_mesh *mesh, const dg_disc *disc,
                                const double *h_U, const uint8_t *group_mask,
                                const dg_flow_reference *ref);
