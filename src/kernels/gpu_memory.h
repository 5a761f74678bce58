#pragma once
/* GPU memory of the CUDA backend: the plan (what the backend will allocate,
 * computed on the host, without a GPU) and the tally (what it did allocate).
 *
 * Plain C, built with or without CUDA: `colordg info` and `colordg run` use
 * the plan, and the CUDA modules (backend_cuda.cu, lusgs_cuda.cu,
 * tools/face_accum.cu) route every cudaMalloc / cudaFree through gpu_alloc.cuh,
 * which records here. backend_cuda_plan_bytes reproduces the allocation
 * sizes of those modules one by one (a change there must change it too;
 * test_gpu_memory_gpu checks the two agree on the device).
 *
 * What is not counted: the CUDA context (~500 MiB on an H100, reported by
 * nvidia-smi), the local-memory (stack) reservation the driver makes for
 * kernels with large per-thread arrays, CUDA graphs and cuBLAS's own
 * workspace (cuBLAS factorisation only). docs/PERFORMANCE.md, "GPU memory". */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dg/disc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reduction scratch of the backend (backend_cuda.cu): most first-stage
 * blocks and most components reduced at once. */
#define GPU_PLAN_REDUCE_MAX_BLOCKS 1024
#define GPU_PLAN_REDUCE_MAX_COMPONENTS (2 * DG_MAX_NVAR)

/* What an allocation holds. */
typedef enum {
  GPU_MEM_VECTORS = 0,  /* state and element vectors (vec_alloc: U, R, ΔU, stages, dt) */
  GPU_MEM_GEOMETRY,     /* reference tables, metrics, inverse mass matrices, connectivity */
  GPU_MEM_LUSGS_BLOCKS, /* LU-SGS diagonal blocks, pivots, offsets (and cuBLAS copies) */
  GPU_MEM_FACE_JAC,     /* LU-SGS face flux Jacobians */
  GPU_MEM_WORK,         /* face fluxes, reduction scratch, colours, flags */
  GPU_MEM_AV,           /* artificial viscosity: ε, gradients, liftings, couplings */
  GPU_MEM_N
} gpu_mem_category;

/* Short name of a category ("vectors", "geometry", ...). */
const char *gpu_mem_category_name(gpu_mem_category c);

/* The sizes the plan needs: those of a dg_disc (gpu_plan_sizes_from_disc)
 * or computed from the mesh alone (info.c). */
typedef struct {
  int dim, nvar, av; /* av: DG_AV_OFF, DG_AV_ELEMENT, DG_AV_CONTINUOUS */
  int n_groups;
  int64_t n_elems, n_faces, n_coefs, n_face_points, nqf;
  int64_t n_metric, n_minv, n_vol_table, n_vol_points, n_face_table;
  int64_t n_lin_table, n_verts, n_vert_elem; /* AV only */
  int64_t n_block_doubles, n_pivots;         /* Σ_e (Nb Nvar)², Σ_e Nb Nvar */
  int av_nf, av_nb; /* most faces and modes of an element (LU-SGS AV couplings) */
  int single_nb;    /* every element has one shape: its modes; else 0 */
} gpu_plan_sizes;

/* The CUDA backend's trace path (backend_cuda.cu, face_trace_on): its
 * transposed face tables exist on a mesh of one shape (single_nb > 0: its
 * modes) without AV, with face points (backend_cuda_trace_tables); its
 * traces, 2 nvar doubles per face point, are allocated with the backend
 * where the path runs by default, tetrahedra at p = 3 (nb = 20:
 * backend_cuda_trace_default), and otherwise only when a caller turns it
 * on (backend_cuda_set_face_trace), outside this plan. */
static inline int backend_cuda_trace_tables(int av, int single_nb, int64_t n_face_points) {
  return av == DG_AV_OFF && single_nb > 0 && n_face_points > 0;
}
static inline int backend_cuda_trace_default(int av, int dim, int single_nb,
                                             int64_t n_face_points) {
  return backend_cuda_trace_tables(av, single_nb, n_face_points) && dim == 3 && single_nb == 20;
}

/* Fills s from a built discretisation. */
void gpu_plan_sizes_from_disc(const dg_disc *disc, gpu_plan_sizes *s);

typedef struct {
  int lusgs;         /* LU-SGS marcher (else SSP-RK3 only) */
  int factor_cublas; /* LU-SGS with the cuBLAS factorisation (not the default) */
  /* rows of the LU-SGS AV couplings (grown with the viscous rows, at most
   * n_elems); < 0: the worst case n_elems */
  int64_t av_coupling_rows;
  int newton; /* the Newton-Krylov marcher's LU-SGS (lusgs_keep_factors; the staging vectors
                 of the recorded sweeps) */
} gpu_plan_opts;

/* The CUDA LU-SGS factorisation `colordg run` uses (lusgs_cuda_factor's
 * values, src/kernels/lusgs_cuda.h): 4 (WARP_INVERSE) unless the
 * environment variable COLORDG_LUSGS_FACTOR is thread (0), team (1),
 * cublas (2), team_inverse (3) or warp_inverse (4); −1 for any other
 * value. */
int gpu_lusgs_factor_choice(void);

/* Bytes per category, and per owner (for the checks before allocating). */
typedef struct {
  size_t bytes[GPU_MEM_N];
  size_t backend; /* backend_cuda create */
  size_t vectors; /* vec_alloc of `colordg run` (run.c, explicit.c, lusgs.c) */
  size_t lusgs;   /* lusgs_cuda create + first assembly */
  size_t total;
} gpu_mem_plan;

/* What the CUDA backend allocates for sizes s and options o during
 * `colordg run` (peak: nothing is freed before the end except the AV
 * couplings, which only grow). */
void backend_cuda_plan_bytes(const gpu_plan_sizes *s, const gpu_plan_opts *o, gpu_mem_plan *out);

/* The refusal message when `need` bytes (for `what`) exceed the device's
 * `free_bytes` of `total_bytes`; writes at most size bytes. */
void gpu_mem_refusal_message(const char *what, size_t need, size_t free_bytes, size_t total_bytes,
                             char *msg, size_t size);

/* ---- tally (process-wide; the CUDA modules record, everyone reads) */

typedef struct {
  size_t current, peak;
  size_t bytes[GPU_MEM_N];      /* current per category */
  size_t peak_bytes[GPU_MEM_N]; /* per category at the moment of the total's peak */
  int64_t n_allocs;             /* allocations recorded since the start */
} gpu_mem_tally;

/* Records an allocation / its release (ptr from the matching record;
 * unknown pointers and NULL are ignored). Not thread-safe. */
void gpu_mem_record_alloc(const void *ptr, size_t bytes, gpu_mem_category c);
void gpu_mem_record_free(const void *ptr);
/* A copy of the tally. */
void gpu_mem_get_tally(gpu_mem_tally *t);
/* Zeroes the tally (tests; live allocations are forgotten). */
void gpu_mem_reset_tally(void);

/* Free and total bytes of the current device (cudaMemGetInfo) and the
 * local-memory reservation of the kernels' stacks (per-thread stack limit x
 * resident threads per multiprocessor x multiprocessors; the driver raises
 * the limit for kernels with large per-thread arrays and keeps it);
 * registered by the CUDA backend, NULL without it. Returns 0 on success. */
typedef int (*gpu_mem_query_fn)(size_t *free_bytes, size_t *total_bytes, size_t *stack_bytes);
void gpu_mem_set_query(gpu_mem_query_fn fn);

/* The end-of-run line "GPU memory: peak N MiB allocated by ColorDG
 * (estimate M MiB), device total T MiB; in use now U MiB (these arrays, S
 * MiB kernel stacks, the CUDA context)" for a run of disc
 * (lusgs: the scheme). Returns 0 (and writes nothing) when nothing was
 * allocated on a GPU. */
int gpu_mem_report_line(const dg_disc *disc, int lusgs, char *line, size_t size);

#ifdef __cplusplus
}
#endif
