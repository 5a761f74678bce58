#pragma once
/* Test hooks of the CUDA LU-SGS operations (tests/support/lusgs_cuda_check.cu,
 * compiled only into test_lusgs_gpu): read and replace the face Jacobians a
 * context holds, and assemble the blocks from them, so the GPU blocks can be
 * built from the CPU's face Jacobians and compared. Over the private hooks
 * of src/kernels/lusgs_cuda_private.h; not part of the library. */
#include "core/dg_error.h"
#include "kernels/lusgs_cuda.h" /* lusgs/lusgs.h with C linkage in C++ */

#ifdef __cplusplus
extern "C" {
#endif

/* The face flux Jacobians ctx (a context of lusgs_backend_cuda()) holds
 * (n_faces·nqf·2·nvar² doubles in lusgs_ops.h's layout; host arrays): get
 * copies them out, set replaces them. */
dg_status lusgs_cuda_get_face_jacobians(lusgs_ctx *ctx, double *h_face_jac);
dg_status lusgs_cuda_set_face_jacobians(lusgs_ctx *ctx, const double *h_face_jac);

/* What assemble does after the face Jacobians: D_e of every element from
 * the face Jacobians the marcher's context holds, its factorisation and the
 * singular-block check; through the checked entry point
 * lusgs_backend_assemble (marcher: a lusgs_create marcher of the CUDA
 * backend; U state-sized, dt element-sized vectors of its context; time 0). */
dg_status lusgs_cuda_assemble_blocks(lusgs_marcher *marcher, const dg_vec *U, const dg_vec *dt);

#ifdef __cplusplus
}
#endif
