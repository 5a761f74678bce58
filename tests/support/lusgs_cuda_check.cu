/* Test hooks of the CUDA LU-SGS operations (lusgs_cuda_check.h). */
#include "support/lusgs_cuda_check.h"

#include <cuda_runtime.h>

#include "kernels/cuda_check.cuh"
#include "kernels/lusgs_cuda.h"
#include "kernels/lusgs_cuda_private.h"

extern "C" dg_status lusgs_cuda_get_face_jacobians(lusgs_ctx *ctx, double *h_face_jac) {
  DG_CHECK(ctx && h_face_jac, DG_ERR_ARG, "lusgs cuda: get_face_jacobians called with NULL");
  size_t count = 0;
  const double *d_face_jac = lusgs_cuda_face_jacobians(ctx, &count);
  DG_CALL_CUDA(cudaMemcpy(h_face_jac, d_face_jac, count * sizeof(double), cudaMemcpyDeviceToHost));
  return DG_SUCCESS;
}

extern "C" dg_status lusgs_cuda_set_face_jacobians(lusgs_ctx *ctx, const double *h_face_jac) {
  DG_CHECK(ctx && h_face_jac, DG_ERR_ARG, "lusgs cuda: set_face_jacobians called with NULL");
  size_t count = 0;
  double *d_face_jac = lusgs_cuda_face_jacobians(ctx, &count);
  DG_CALL_CUDA(cudaMemcpy(d_face_jac, h_face_jac, count * sizeof(double), cudaMemcpyHostToDevice));
  return DG_SUCCESS;
}

extern "C" dg_status lusgs_cuda_assemble_blocks(lusgs_marcher *marcher, const dg_vec *U,
                                                const dg_vec *dt) {
  DG_CHECK(marcher && marcher->lctx, DG_ERR_ARG,
           "lusgs cuda: assemble_blocks needs a marcher made by lusgs_create");
  DG_CHECK(marcher->ops == lusgs_backend_cuda(), DG_ERR_ARG,
           "lusgs cuda: assemble_blocks needs a marcher of the CUDA backend (got backend %s)",
           marcher->ops && marcher->ops->name ? marcher->ops->name : "?");
  /* the assemble operation, keeping the stored face Jacobians */
  lusgs_cuda_keep_face_jacobians(marcher->lctx, 1);
  const dg_status status = lusgs_backend_assemble(marcher, U, 0.0, dt);
  lusgs_cuda_keep_face_jacobians(marcher->lctx, 0);
  DG_CALL(status);
  return DG_SUCCESS;
}
