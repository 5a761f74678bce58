#pragma once
/* CPU backend extras beyond the dg_backend table (src/dg/backend.h).
 * The CPU context aliases the host arrays of the dg_disc given to create (no
 * copy), so that dg_disc must outlive the context. */
#include "dg/backend.h"

/* The operation table of the CPU backend (OpenMP when available; static
 * storage, never NULL). Its implicit_ops is NULL: the run, tests and tools
 * take backend_cpu() (src/backends/backend_select.h), the same operations
 * paired with the CPU LU-SGS table. */
const dg_backend *backend_cpu_table(void);

/* Reference residual (docs/ARCHITECTURE.md §3: the atomics version that checks the
 * race-free one): R = residual of U at time t, computed with volume terms
 * per element and every face's flux contribution added directly into R of
 * both neighbours with `#pragma omp atomic`, instead of the face-flux
 * scratch plus per-element gather of backend_cpu_table()->residual. Same maths,
 * another summation order: results agree to round-off, not bit for bit.
 * ctx: a context made by backend_cpu_table()->create; U read, R written (state
 * vectors of that context). */
dg_status backend_cpu_residual_atomic(dg_backend_ctx *ctx, const double *U, double t, double *R);

/* The host view of the discretisation the CPU context works on (valid while
 * ctx lives). */
const dg_disc_view *backend_cpu_view(const dg_backend_ctx *ctx);

/* A dg_vec of the CPU backend over host memory the caller owns (n_coefs or
 * n_elems doubles by kind): the CPU backend's vectors are host arrays, so a
 * test or tool can hand its own arrays to the entry points. b: the table
 * ctx was made with (backend_cpu()). Never dg_vec_destroy it. */
dg_vec backend_cpu_vec_wrap(const dg_backend *b, dg_backend_ctx *ctx, dg_vec_kind kind,
                            double *host);
/* The same as a `dg_vec *` for one call (a compound literal). */
#define BACKEND_CPU_VEC(b, ctx, kind, host)                                                        \
  ((dg_vec[]){backend_cpu_vec_wrap((b), (ctx), (kind), (host))})
/* The run-time state (far-field circulation, held ε) the CPU context's
 * residual passes read (valid while ctx lives; changed by set_circulation
 * and av_hold). */
const dg_disc_state *backend_cpu_state(const dg_backend_ctx *ctx);
