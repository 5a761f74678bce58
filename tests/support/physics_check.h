#pragma once
/* GPU evaluation of the DG_HD Euler physics of src/dg/physics.h, so that a
 * test can compare the device's arithmetic with the host's (docs/ARCHITECTURE.md §3).
 * physics_check_record() is the one definition both sides run: the kernel
 * calls it per state, the test calls it on the host. */
#include "core/dg_error.h"
#include "dg/physics.h"

/* Offsets (in doubles) of the pieces of one record. Vectors have stride
 * DG_MAX_NVAR and matrices DG_MAX_NVAR² whatever dim is; a matrix is stored
 * compact (row stride dim + 2) at the start of its slot; unused slots are 0. */
enum {
  PHYSICS_CHECK_FLUX = 0,                                        /* F(UL)·n */
  PHYSICS_CHECK_ROE = PHYSICS_CHECK_FLUX + DG_MAX_NVAR,          /* Roe H(UL, UR, n), default fix */
  PHYSICS_CHECK_RUSANOV = PHYSICS_CHECK_ROE + DG_MAX_NVAR,       /* Rusanov H(UL, UR, n) */
  PHYSICS_CHECK_PRIMITIVE = PHYSICS_CHECK_RUSANOV + DG_MAX_NVAR, /* W(UL) */
  PHYSICS_CHECK_SCALARS = PHYSICS_CHECK_PRIMITIVE + DG_MAX_NVAR, /* p, c, |u·n|+c, p0, T0 of UL */
  PHYSICS_CHECK_FLUX_JACOBIAN = PHYSICS_CHECK_SCALARS + 5,       /* A_n(UL) */
  PHYSICS_CHECK_ROE_JACOBIAN_LEFT = PHYSICS_CHECK_FLUX_JACOBIAN + DG_MAX_NVAR * DG_MAX_NVAR,
  PHYSICS_CHECK_ROE_JACOBIAN_RIGHT = PHYSICS_CHECK_ROE_JACOBIAN_LEFT + DG_MAX_NVAR * DG_MAX_NVAR,
  /* ghost state of UL for bc kind k at PHYSICS_CHECK_GHOST + k DG_MAX_NVAR */
  PHYSICS_CHECK_GHOST = PHYSICS_CHECK_ROE_JACOBIAN_RIGHT + DG_MAX_NVAR * DG_MAX_NVAR,
  /* its Jacobian at PHYSICS_CHECK_GHOST_JACOBIAN + k DG_MAX_NVAR² */
  PHYSICS_CHECK_GHOST_JACOBIAN = PHYSICS_CHECK_GHOST + PHYSICS_NUM_BC * DG_MAX_NVAR,
  PHYSICS_CHECK_VORTEX = PHYSICS_CHECK_GHOST_JACOBIAN + PHYSICS_NUM_BC * DG_MAX_NVAR * DG_MAX_NVAR,
  PHYSICS_CHECK_RECORD_SIZE = PHYSICS_CHECK_VORTEX + DG_MAX_NVAR
};

/* Evaluates every physics.h function on one (UL, UR, n, x) and writes a
 * record of PHYSICS_CHECK_RECORD_SIZE doubles (layout above). n is a unit
 * normal, x a point (3 components) where the vortex is evaluated at time t;
 * the EXACT ghost state is that vortex state, the other kinds use bc. */
DG_HD void physics_check_record(int dim, double gamma, const physics_bc_data *bc,
                                const physics_vortex *vortex, double t, const double *UL,
                                const double *UR, const double *n, const double *x, double *out) {
  for (int k = 0; k < PHYSICS_CHECK_RECORD_SIZE; ++k) out[k] = 0.0;
  physics_flux_normal(dim, gamma, UL, n, out + PHYSICS_CHECK_FLUX);
  physics_roe_flux(dim, gamma, UL, UR, n, PHYSICS_ROE_ENTROPY_FIX, out + PHYSICS_CHECK_ROE);
  physics_rusanov_flux(dim, gamma, UL, UR, n, out + PHYSICS_CHECK_RUSANOV);
  physics_conservative_to_primitive(dim, gamma, UL, out + PHYSICS_CHECK_PRIMITIVE);
  double *scalar = out + PHYSICS_CHECK_SCALARS;
  scalar[0] = physics_pressure(dim, gamma, UL);
  scalar[1] = physics_sound_speed(dim, gamma, UL);
  scalar[2] = physics_max_wave_speed(dim, gamma, UL, n);
  scalar[3] = physics_total_pressure(dim, gamma, UL);
  scalar[4] = physics_total_temperature(dim, gamma, UL);
  physics_flux_jacobian(dim, gamma, UL, n, out + PHYSICS_CHECK_FLUX_JACOBIAN);
  physics_roe_flux_jacobian_approx(dim, gamma, UL, UR, n, out + PHYSICS_CHECK_ROE_JACOBIAN_LEFT,
                                   out + PHYSICS_CHECK_ROE_JACOBIAN_RIGHT);
  physics_bc_data local = *bc;
  physics_vortex_state(dim, gamma, vortex, x, t, out + PHYSICS_CHECK_VORTEX);
  for (int k = 0; k < dim + 2; ++k) local.state[k] = out[PHYSICS_CHECK_VORTEX + k];
  for (int kind = 0; kind < PHYSICS_NUM_BC; ++kind)
    physics_ghost_state_jacobian(dim, gamma, kind, kind == PHYSICS_BC_EXACT ? &local : bc, UL, n,
                                 out + PHYSICS_CHECK_GHOST + kind * DG_MAX_NVAR,
                                 out + PHYSICS_CHECK_GHOST_JACOBIAN +
                                     kind * DG_MAX_NVAR * DG_MAX_NVAR);
}

#ifdef __cplusplus
extern "C" {
#endif

/* Runs physics_check_record on the GPU for n_states states, one thread each.
 * Host inputs: h_left, h_right [n_states][DG_MAX_NVAR] conservative states,
 * h_normal [n_states][3] unit normals, h_point [n_states][3] points; bc and
 * vortex are shared by all. Host output, caller-allocated:
 * h_record [n_states][PHYSICS_CHECK_RECORD_SIZE]. Device outputs are filled
 * with NaN before the launch, so a record the kernel fails to write shows.
 * Returns DG_ERR_UNSUPPORTED when no CUDA device is present (tests skip),
 * DG_ERR_ARG for bad arguments, DG_ERR_CUDA for runtime errors. */
dg_status physics_check_evaluate_cuda(int dim, double gamma, const physics_bc_data *bc,
                                      const physics_vortex *vortex, double t, int n_states,
                                      const double *h_left, const double *h_right,
                                      const double *h_normal, const double *h_point,
                                      double *h_record);

#ifdef __cplusplus
}
#endif
