#pragma once
/* GPU evaluation of the DG_HD basis functions of src/element/basis.h, so that a
 * test can compare the device's arithmetic with the host's (docs/ARCHITECTURE.md §3). */
#include "core/dg_error.h"
#include "element/shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Evaluates the degree-p basis on shape s at n_points reference points on
 * the GPU, with both basis_eval and basis_eval_grad.
 * h_xi: [n_points][3] host input. Host outputs, caller-allocated, with
 * n_modes = basis_count(s, p): h_phi [n_points][n_modes] (basis_eval),
 * h_phi_grad [n_points][n_modes] (the values basis_eval_grad returns) and
 * h_dphi [n_points][n_modes][3] (its gradients). Device outputs are filled
 * with NaN before the launch, so anything the kernel fails to write shows.
 * Returns DG_ERR_UNSUPPORTED when no CUDA device is present (tests skip),
 * DG_ERR_ARG for a bad shape/degree/size, DG_ERR_CUDA for runtime errors. */
dg_status basis_check_eval_cuda(dg_shape s, int p, int n_points, const double *h_xi, double *h_phi,
                                double *h_phi_grad, double *h_dphi);

#ifdef __cplusplus
}
#endif
