#pragma once
/* VTK XML unstructured-grid output (.vtu) of a DG solution for ParaView,
 * .pvtu files of a distributed run's pieces, and .pvd collections for time
 * series (docs/OUTPUTS.md).
 *
 * Cells ([output] vtu_cells, ref->vtu_cells): by default each element is
 * one high-order VTK Lagrange cell (VTK_LAGRANGE_TRIANGLE 69,
 * _QUADRILATERAL 70, _TETRAHEDRON 71) of order n = max(p, q, 1) (or
 * [output] vtu_subdivision), its (n+1)(n+2)/2, (n+1)² or (n+1)(n+2)(n+3)/6
 * equispaced points in VTK's node order; with vtu_cells = subcells it is
 * drawn as n^dim linear sub-cells (triangles, quads or tetrahedra) on the
 * same lattice. Points are mapped through the element's
 * geometric map (geometry_map, so curved elements show curved) and are not
 * shared between elements (the DG field is discontinuous across faces; use
 * ParaView's "Clean to Grid" to merge them for contours). Fields are the
 * high-order solution evaluated at the points.
 *
 * Point fields (Float64): density ρ; velocity (3 components, w = 0 in 2D);
 * pressure p; mach |u|/c; cp = (p − p∞)/(½ρ∞V∞²) (only when ref->mach > 0);
 * entropy_deviation (p/ρ^γ)/(p∞/ρ∞^γ) − 1, with ρ∞ = 1, p∞ = 1/γ.
 * Cell fields: element_tag (Int64, the element's tag in the mesh file),
 * element_index (Int64, index in the mesh/discretisation numbering), shape
 * (Int32, dg_shape), colour (Int32, only when a colouring is given),
 * artificial_viscosity (Float64, the element's mean ε, only when given).
 *
 * Encoding: inline base64 binary (format="binary", header_type UInt64: the
 * byte count and the data in one base64 stream, native byte order declared
 * in byte_order), which VTK's XML reader, ParaView and meshio all read
 * (meshio cannot read raw appended data). */
#include <stdint.h>

#include "app/surface.h"
#include "core/dg_error.h"
#include "dg/disc.h"
#include "mesh/mesh.h"

#define VTU_MAX_SUBDIV 16
#define VTU_MAX_LAGRANGE_POINTS 969 /* tetrahedron of order 16 */

/* Reference coordinates xi[3k..3k+2] of the points of a VTK Lagrange cell
 * of order n (1..VTU_MAX_SUBDIV) in VTK's node order: DG_LINE on [0, 1]
 * (0, 1, then the interior increasing), DG_TRI and DG_TET on the unit
 * simplex, DG_QUAD on [-1, 1]² (as vtu_write places them). xi holds
 * 3 * VTU_MAX_LAGRANGE_POINTS doubles. Returns the count, 0 for a bad
 * shape or order. Not thread-safe (static scratch). */
int vtu_lagrange_points(dg_shape s, int n, double *xi);

/* Default subdivision: max(p, geometric order, 1) sub-cells per element
 * edge, so a degree-p field is sampled at p + 1 points per edge (enough to
 * determine it) and a curved edge of order q has q segments. */
int vtu_default_subdiv(int p, int geom_order);

/* Number of points and cells vtu_write writes for this mesh in the
 * sub-cell layout with subdiv (>= 1) sub-cells per edge (the Lagrange
 * layout of order subdiv has the same points and one cell per element). */
void vtu_counts(const dg_mesh *mesh, int subdiv, int64_t *n_points, int64_t *n_cells);

/* Writes the solution h_U (host, disc's coefficient layout) on mesh (the
 * mesh disc was built from, same element numbering) to path, atomically.
 * subdiv: sub-cells per element edge, 1..VTU_MAX_SUBDIV (sub-cell layout),
 * or 0 for the case's layout in ref (vtu_cells, vtu_subdivision; 0 =
 * vtu_default_subdiv). ref: gamma and Mach for the derived fields. colour:
 * [n_elems] element colours, or NULL to omit the field. av_eps: [n_elems]
 * mean artificial viscosity per element, or NULL to omit. DG_ERR_ARG on
 * mismatched mesh/disc or bad arguments, DG_ERR_IO on write failure. */
dg_status vtu_write(const char *path, const dg_mesh *mesh, const dg_disc *disc, const double *h_U,
                    int subdiv, const dg_flow_reference *ref, const int32_t *colour,
                    const double *av_eps);

/* One rank's piece of a distributed solution: like vtu_write in the case's
 * layout (subdiv 0), but only the owned elements of disc
 * (disc_elem_owned), with element_index = global_elem[e] (the element's
 * index in the whole mesh; NULL: e) and colour / av_eps indexed by local
 * element. */
dg_status vtu_write_piece(const char *path, const dg_mesh *mesh, const dg_disc *disc,
                          const double *h_U, const dg_flow_reference *ref, const int32_t *colour,
                          const double *av_eps, const int64_t *global_elem);

/* The parallel file (.pvtu) that lists n_pieces piece files (paths as
 * ParaView reads them: relative to the .pvtu's folder) written by
 * vtu_write_piece with the same ref and with colour / av_eps given
 * (with_colour, with_av) or not: it declares the pieces' arrays. Atomic. */
dg_status vtu_write_pvtu(const char *path, int n_pieces, const char *const *pieces,
                         const dg_flow_reference *ref, int with_colour, int with_av);

/* Writes a ParaView collection (.pvd) listing n .vtu files with their times
 * (files are written as given; paths relative to the .pvd's folder are what
 * ParaView expects). Atomic. */
dg_status vtu_write_pvd(const char *path, int n, const char *const *files, const double *times);
