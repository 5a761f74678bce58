/* The DG_HD basis maths on the GPU agree with the host: basis_eval and
 * basis_eval_grad at the quadrature points (and vertices) of every shape and
 * p = 0..DG_MAX_P. Exits 77 (skipped) when no CUDA device is present. */
#include <math.h>
#include <stdlib.h>

#include "element/basis.h"
#include "element/quadrature.h"
#include "support/basis_check.h"
#include "test_util.h"

/* |gpu - cpu| <= 1e-14 max(1, |cpu|): both sides are the same recurrences,
 * differing only by FMA contraction on the device. */
static int close_enough(double gpu, double cpu) {
  return fabs(gpu - cpu) <= 1e-14 * fmax(1.0, fabs(cpu));
}

/* Returns 1 when the GPU is absent (caller skips). */
static int check_shape(dg_shape s, int p) {
  dg_quadrature rule = {0};
  TEST_OK(quadrature_rule(s, 2 * p + 1, &rule));
  const int nv = shape_n_verts(s);
  const int n = rule.n_points + nv;
  const int nb = basis_count(s, p);
  double *xi = calloc((size_t)n * 3, sizeof *xi);
  double *gpu_phi = calloc((size_t)n * nb, sizeof *gpu_phi);
  double *gpu_phi_grad = calloc((size_t)n * nb, sizeof *gpu_phi_grad);
  double *gpu_dphi = calloc((size_t)n * nb * 3, sizeof *gpu_dphi);
  double *cpu_phi = calloc((size_t)nb, sizeof *cpu_phi);
  double *cpu_dphi = calloc((size_t)nb * 3, sizeof *cpu_dphi);
  int skipped = 0;
  for (int i = 0; i < 3 * rule.n_points; ++i) xi[i] = rule.xi[i];
  for (int v = 0; v < nv; ++v) shape_vertex_ref(s, v, xi + 3 * (rule.n_points + v));

  const dg_status status = basis_check_eval_cuda(s, p, n, xi, gpu_phi, gpu_phi_grad, gpu_dphi);
  if (status == DG_ERR_UNSUPPORTED) {
    printf("test_basis_gpu: skipped: %s\n", dg_error_message());
    skipped = 1;
    goto done;
  }
  TEST_CHECK(status == DG_SUCCESS, "basis_check_eval_cuda: %s", dg_error_message());
  if (status != DG_SUCCESS) goto done;
  double worst = 0.0;
  int mismatches = 0;
  for (int k = 0; k < n; ++k) {
    basis_eval_grad(s, p, xi + 3 * k, cpu_phi, cpu_dphi);
    for (int m = 0; m < nb; ++m) {
      const double g = gpu_phi[k * nb + m], gg = gpu_phi_grad[k * nb + m];
      mismatches += !close_enough(g, cpu_phi[m]) + !close_enough(gg, cpu_phi[m]);
      worst = fmax(worst, fabs(g - cpu_phi[m]));
      for (int d = 0; d < 3; ++d) {
        const double gd = gpu_dphi[(k * nb + m) * 3 + d];
        mismatches += !close_enough(gd, cpu_dphi[3 * m + d]);
        worst = fmax(worst, fabs(gd - cpu_dphi[3 * m + d]) / fmax(1.0, fabs(cpu_dphi[3 * m + d])));
      }
    }
  }
  TEST_CHECK(mismatches == 0, "shape %d p %d: %d GPU values differ from the CPU (worst %.3g)",
             (int)s, p, mismatches, worst);
  printf("  shape %d p %d: %d points, worst GPU-CPU difference %.2e\n", (int)s, p, n, worst);
done:
  free(xi);
  free(gpu_phi);
  free(gpu_phi_grad);
  free(gpu_dphi);
  free(cpu_phi);
  free(cpu_dphi);
  quadrature_free(&rule);
  return skipped;
}

int main(void) {
  const dg_shape shapes[] = {DG_LINE, DG_QUAD, DG_TRI, DG_TET};
  for (int k = 0; k < 4; ++k)
    for (int p = 0; p <= DG_MAX_P; ++p)
      if (check_shape(shapes[k], p)) return TEST_SKIP;
  /* a bad request is refused before touching the device */
  double xi[3] = {0, 0, 0}, out[3];
  TEST_FAILS(basis_check_eval_cuda(DG_PRISM, 1, 1, xi, out, out, out), DG_ERR_ARG, "shape 4");
  return test_finish("test_basis_gpu");
}
