#pragma once
/* The residual plan: the passes of one residual evaluation, in order, each
 * over an index range, written once for every backend
 * (docs/ARCHITECTURE.md §3, "Residual plan").
 *
 * residual_plan_build turns a view into the list
 *
 *   HALO_START                                  start the exchange of the ghosts' U
 *   FACES_INTERIOR faces [0, n_inner)           the faces between owned elements, while the
 *                                               messages fly (ghosts and no viscosity only)
 *   HALO_FINISH                                 ghost U valid from here (one process: none)
 *   AV_EPS        elements [0, n_elems)         ε_e: sensor or held value   } view.av on
 *   AV_VERTEX_EPS vertices [0, n_verts)         ε_v (continuous ε only)     }
 *   AV_COEFS      elements [0, n_elems)         ε coefficients eps_c        }
 *   HALO_EPS                                    the ghosts' eps_c from their }
 *                                               owners (continuous ε, ghosts) }
 *   AV_GRADIENT   elements of shape s           projected gradient G        } (per shape)
 *   FACES_INTERIOR faces [0 or n_inner, n_interior) face fluxes (+ BR2 jumps, viscous flux)
 *   FACES_BOUNDARY faces [n_interior, n_faces)  the same on boundary faces (ghost states)
 *   ELEMENTS      owned elements of shape s     element residuals (gather, volume terms)
 *
 * Passes that produce what faces read (ε, G) run over every element of a
 * shape block, ghosts included; ELEMENTS, whose output is the owned
 * residual, over [elem_start, elem_start + n_owned) (disc.h). Empty passes
 * (a shape with no elements, no boundary faces) are left out.
 *
 * A backend supplies the kernel of each kind over a range: the CPU backend
 * runs every pass as one OpenMP loop; the CUDA backend runs residual_plan_run's
 * runs (adjacent passes of one family merged into one launch) with its
 * portable, tuned or AV team kernels, and its RK3 graph capture records the
 * same launches. Every pass writes only its own outputs for its own range
 * (no atomics), so passes of one kind commute and the bits never depend on
 * how a backend splits or merges ranges.
 *
 * The halo markers show where a partitioned run exchanges the ghost
 * elements' U: everything after HALO_FINISH may read ghost data (the
 * backends pack and send at HALO_START, wait and unpack at HALO_FINISH:
 * docs/ARCHITECTURE.md §8). Between them runs work that reads owned data
 * only: without viscosity, the interior faces between owned elements (a
 * partition's topology numbers them first, disc.h n_inner), so the exchange
 * overlaps them; with viscosity the ε passes need the ghosts' U first and
 * nothing is overlapped. In one process the plan is the one without ghosts
 * (one face run). A new residual pass is a new
 * kind here, its place in residual_plan_build, and its kernel in each
 * backend's pass function (backend_cpu_pass, cuda_run_pass). */
#include <stdint.h>

#include "core/dg_error.h"
#include "dg/disc.h"

#ifdef __cplusplus
extern "C" { /* called from the CUDA backend (.cu) */
#endif

typedef enum {
  DG_PASS_HALO_START = 0, /* start the exchange of the ghosts' U (nothing in one process) */
  DG_PASS_HALO_FINISH,    /* finish it: ghost U valid after this pass (nothing in one process) */
  DG_PASS_AV_EPS,         /* eps_elem of the elements [begin, end) (av_element_eps) */
  DG_PASS_AV_VERTEX_EPS,  /* eps_vert of the vertices [begin, end) (av_vertex_eps) */
  DG_PASS_AV_COEFS,       /* eps_c of the elements [begin, end) (av_element_coefs) */
  DG_PASS_AV_GRADIENT,    /* G of the elements [begin, end) of one shape (av_element_gradient) */
  DG_PASS_FACES_INTERIOR, /* face_flux (and face_jump) of the interior faces [begin, end) */
  DG_PASS_FACES_BOUNDARY, /* face_flux (and face_jump) of the boundary faces [begin, end) */
  DG_PASS_ELEMENTS,       /* R of the owned elements [begin, end) of one shape */
  DG_PASS_HALO_EPS,       /* exchange the ghosts' eps_c (continuous ε with ghosts; no range) */
  DG_PASS_KIND_COUNT
} dg_pass_kind;

/* One pass: a kind over the index range [begin, end) of elements, vertices
 * or faces (none for the halo markers). shape: the shape whose block holds
 * an element range of AV_GRADIENT and ELEMENTS; -1 otherwise (and for a
 * merged run over several shapes). */
typedef struct {
  dg_pass_kind kind;
  int shape;
  int64_t begin, end;
} dg_pass;

#define DG_PLAN_MAX_PASSES (8 + 2 * DG_NUM_SHAPES)

typedef struct {
  int n_passes;
  dg_pass pass[DG_PLAN_MAX_PASSES];
} dg_residual_plan;

/* Builds the plan of view d (see the top of this file). DG_ERR_ARG when an
 * owned count is outside [0, n_shape] or the face counts are inconsistent. */
dg_status residual_plan_build(const dg_disc_view *d, dg_residual_plan *plan);

/* The run of passes that starts at plan->pass[i]: that pass merged with the
 * following ones of its family (the two face kinds; AV_GRADIENT; ELEMENTS)
 * whose ranges continue it without a gap, so that a backend can cover them
 * with one launch. run: the kind of the first pass, shape -1 when the run
 * spans several shapes, the union range. Returns the index after the run
 * (i + 1 for a halo marker or a pass with no continuation). */
int residual_plan_run(const dg_residual_plan *plan, int i, dg_pass *run);

/* Name of a pass kind ("faces_interior", ...), for messages and tests. */
const char *residual_plan_pass_name(dg_pass_kind kind);

#ifdef __cplusplus
}
#endif
