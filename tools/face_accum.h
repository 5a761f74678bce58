#pragma once
/* Study of the face accumulation of the residual on the GPU (not used by the
 * solver; docs/PERFORMANCE.md, "Face accumulation"). Three ways to add the
 * face terms  −Σ_faces ∫ H(U⁻, U⁺, n) φ_m ds  into R, each over the device
 * view of a CUDA backend context (backend_cuda_view), each giving the residual
 * of src/dg/residual_ops.h (to rounding):
 *
 *   GATHER  the backend's tuned path (src/kernels/residual_team.cuh): one
 *           thread per face point writes H·n wsJ into a face-flux array, then
 *           the team element kernel gathers the signed fluxes of its faces
 *           while it projects (two kernels, no atomics).
 *   ATOMIC  a volume-only team kernel writes R (the team element kernel
 *           without its gather), then one face kernel: a block of F faces
 *           computes H·n wsJ at every face point into shared memory (one
 *           thread per face point, the same residual_point_flux), then one
 *           thread per (face, side, mode) projects Σ_q φ_m(q) (∓H_q) and
 *           atomicAdds the nvar sums onto R of that side's element.
 *   COLOR   the same volume kernel and the same face kernel with plain
 *           read-modify-write adds instead of atomics, launched once per face
 *           colour: faces are coloured (greedy, in face order) so that no two
 *           faces of one colour share an element; a launch walks its colour's
 *           list of face indices (ascending).
 *
 * Kernel arguments: U read; R written (GATHER, the volume kernel) or
 * incremented (face kernels of ATOMIC and COLOR). ATOMIC's (and
 * COLOR_ATOMIC's) sums land in an order that varies between runs (bits may
 * differ); GATHER and COLOR are
 * bitwise reproducible. No artificial viscosity: the views must have
 * av == DG_AV_OFF. */
#include <stdint.h>

#include "core/dg_error.h"
#include "dg/disc.h"
#include "mesh/topology.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  FACE_ACCUM_GATHER = 0,
  FACE_ACCUM_ATOMIC = 1,
  FACE_ACCUM_COLOR = 2,
  FACE_ACCUM_COLOR_ATOMIC = 3, /* COLOR's launches with ATOMIC's atomicAdd (isolates the cost
                                  of one launch per colour from that of plain adds) */
  /* timing only (R is not the residual): */
  FACE_ACCUM_VOLUME = 4,       /* the volume kernel of ATOMIC / COLOR alone */
  FACE_ACCUM_GATHER_FACES = 5, /* the face-flux kernel of GATHER alone (writes the array) */
  FACE_ACCUM_ATOMIC_FACES = 6, /* the face kernel of ATOMIC alone (increments R) */
  FACE_ACCUM_N_VARIANTS
} face_accum_variant;

/* Short name of a variant ("gather", "atomic", "color", "c-atomic", "volume",
 * "g-faces", "a-faces"; "?" out of range). */
const char *face_accum_variant_name(face_accum_variant variant);

/* Greedy face colouring: faces in index order, each gets the smallest colour
 * used by no other face of its element(s) (boundary faces: side 0 only).
 * face_elem: [n_faces][2] (side 1 is -1 on a boundary); face_color:
 * [n_faces] written; *n_colors written. At most 2 DG_MAX_FACES - 1 colours.
 * DG_ERR_MESH when a face names an element outside [0, n_elems). */
dg_status face_accum_color_faces(int64_t n_elems, int64_t n_faces, const int64_t *face_elem,
                                 int32_t *face_color, int *n_colors);

/* Face orderings of the study (host; topology_renumber_faces takes perm:
 * new face i = old face perm[i], faces stay in their kind's range).
 * by_color: faces sorted by their face_accum_color_faces colour (stable:
 * ascending index inside a colour) inside the interior range and inside each
 * boundary group. perm: [n_faces] written. */
dg_status face_accum_face_perm_by_color(const dg_topology *topo, int64_t *perm);

/* old_order: the faces of new_topo, built on a mesh renumbered with
 * mesh_renumber_elements(elem_perm) (new element i = old element
 * elem_perm[i]), put back in the order old_topo (built before the
 * renumbering) had them: new face i of the result is old_topo's face i. */
dg_status face_accum_face_perm_old_order(const dg_topology *old_topo, const dg_topology *new_topo,
                                         const int64_t *elem_perm, int64_t *perm);

typedef struct face_accum_ctx face_accum_ctx;

/* Sets up the study on a discretisation: host (host arrays, for the face
 * colouring) and device (the device view of a CUDA backend context created
 * from the same disc; it must outlive the study). Allocates the face-flux
 * array and the face-colour lists on the device, picks the team kernels.
 * DG_ERR_UNSUPPORTED when a shape has no team kernel or av is on. */
dg_status face_accum_create(const dg_disc *host, const dg_disc_view *device, face_accum_ctx **out);

/* Releases the study (NULL is fine). */
void face_accum_destroy(face_accum_ctx *ctx);

/* Face colours of the study (from face_accum_color_faces on the disc's face order). */
int face_accum_n_colors(const face_accum_ctx *ctx);

/* One residual R (device, [n_coefs], written) of U (device, read) at time t
 * with a variant (the timing-only variants leave R incomplete). Asynchronous
 * on the default stream. */
dg_status face_accum_residual(face_accum_ctx *ctx, face_accum_variant variant, const double *U,
                              double t, double *R);

/* Timing: back-to-back residuals for at least 100 ms of device time (clocks
 * leave idle), then n_timed residuals, each bracketed by CUDA events and
 * waited for. us: [n_timed] (host, written) microseconds per residual. */
dg_status face_accum_time(face_accum_ctx *ctx, face_accum_variant variant, const double *U,
                          double t, double *R, int n_timed, double *us);

#ifdef __cplusplus
}
#endif
