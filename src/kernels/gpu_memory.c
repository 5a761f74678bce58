#include "kernels/gpu_memory.h"

#include <stdlib.h>
#include <string.h>

#include "lusgs/lusgs.h"

static const char *const gpu_mem_names[GPU_MEM_N] = {"vectors",        "geometry", "LU-SGS blocks",
                                                     "face Jacobians", "work",     "AV"};

const char *gpu_mem_category_name(gpu_mem_category c) {
  return c >= 0 && c < GPU_MEM_N ? gpu_mem_names[c] : "?";
}

void gpu_plan_sizes_from_disc(const dg_disc *disc, gpu_plan_sizes *s) {
  const dg_disc_view *v = &disc->view;
  memset(s, 0, sizeof *s);
  s->dim = v->dim;
  s->nvar = v->nvar;
  s->av = v->av;
  s->n_groups = v->n_groups;
  s->n_elems = v->n_elems;
  s->n_faces = v->n_faces;
  s->n_coefs = v->n_coefs;
  s->n_face_points = disc->n_face_points;
  s->nqf = v->nqf;
  s->n_metric = disc->n_metric;
  s->n_minv = disc->n_minv;
  s->n_vol_table = disc->n_vol_table;
  s->n_vol_points = disc->n_vol_points;
  s->n_face_table = disc->n_face_table;
  s->n_lin_table = disc->n_lin_table;
  s->n_verts = v->n_verts;
  s->single_nb = disc_single_shape(v) >= 0 ? v->nb[disc_single_shape(v)] : 0;
  s->n_vert_elem = disc->n_vert_elem;
  for (int sh = 0; sh < DG_NUM_SHAPES; ++sh) {
    if (v->n_shape[sh] <= 0) continue;
    const int64_t n = (int64_t)v->nb[sh] * v->nvar;
    s->n_block_doubles += v->n_shape[sh] * n * n;
    s->n_pivots += v->n_shape[sh] * n;
    if (shape_n_faces((dg_shape)sh) > s->av_nf) s->av_nf = shape_n_faces((dg_shape)sh);
    if (v->nb[sh] > s->av_nb) s->av_nb = v->nb[sh];
  }
}

/* upload_array (backend_cuda.cu): nothing for an empty array. */
static size_t up(int64_t count, size_t size) { return count > 0 ? (size_t)count * size : 0; }
/* device_zeros, device_alloc, the scratch: at least one entry. */
static size_t at_least_one(int64_t count, size_t size) {
  return (size_t)(count > 0 ? count : 1) * size;
}

int gpu_lusgs_factor_choice(void) {
  static const char *const names[] = {"thread", "team", "cublas", "team_inverse", "warp_inverse"};
  const char *v = getenv("COLORDG_LUSGS_FACTOR");
  if (!v || !*v) return 4;
  for (int i = 0; i < 5; ++i)
    if (strcmp(v, names[i]) == 0) return i;
  return -1;
}

void backend_cuda_plan_bytes(const gpu_plan_sizes *s, const gpu_plan_opts *o, gpu_mem_plan *out) {
  memset(out, 0, sizeof *out);
  size_t *b = out->bytes;
  const int64_t ne = s->n_elems, nf = s->n_faces, nfp = s->n_face_points, dim = s->dim;
  const size_t d = sizeof(double), i64 = sizeof(int64_t);
  /* backend_cuda.cu cuda_create_arrays */
  size_t g = up(s->n_vol_table, d) + up(s->n_vol_table * dim, d) + up(s->n_vol_points, d) +
             up(s->n_face_table, d);
  g += up(ne, 1) + up(ne, 1) + up(ne + 1, i64) + up(s->n_metric, d) +
       up(s->n_metric * dim * dim, d) + up(ne, i64) + up(s->n_minv, d) + up(ne, d) +
       up(ne * DG_MAX_FACES, i64);
  g += up(2 * nf, i64) + up(2 * nf, 1) + up(nf, 1) + up(nf, sizeof(int32_t)) + up(nfp * dim, d) +
       up(nfp, d) + up(nfp * dim, d);
  g += up(s->n_groups, sizeof(int32_t)) + up(s->n_groups, sizeof(physics_bc_data));
  g += sizeof(dg_disc_view);  /* team_setup: the device copy of the view */
  g += sizeof(dg_disc_state); /* cuda_create_arrays: the device copy of the run-time state */
  size_t w = (nfp * s->nvar > 0 ? (size_t)(nfp * s->nvar) * d : 8) + at_least_one(nf, 6 * d) +
             (size_t)GPU_PLAN_REDUCE_MAX_COMPONENTS * GPU_PLAN_REDUCE_MAX_BLOCKS * d +
             (size_t)GPU_PLAN_REDUCE_MAX_COMPONENTS * d + at_least_one(s->n_groups, 1);
  /* cuda_create_trace_arrays: the transposed face tables, the traces */
  if (backend_cuda_trace_tables(s->av, s->single_nb, nfp)) g += up(s->n_face_table, d);
  if (backend_cuda_trace_default(s->av, s->dim, s->single_nb, nfp))
    w += (size_t)(nfp * 2 * s->nvar) * d;
  size_t av = 0;
  if (s->av != DG_AV_OFF) {
    av += up(s->n_lin_table, d) + up(ne, d) + up(ne * DG_MAX_VERTS, i64) + up(s->n_verts + 1, i64) +
          up(s->n_vert_elem, i64);
    av += 2 * at_least_one(ne, d); /* eps_elem, eps_hold */
    if (s->av == DG_AV_CONTINUOUS) av += at_least_one(s->n_verts, d);
    av += at_least_one(ne * DG_AV_NLIN, d) + 2 * at_least_one(dim * s->n_coefs, d) +
          at_least_one(nfp * s->nvar, d);
  }
  b[GPU_MEM_GEOMETRY] += g;
  b[GPU_MEM_WORK] += w;
  b[GPU_MEM_AV] += av;
  out->backend = g + w + av;

  /* vec_alloc: run.c U, U_good, U_candidate (+ eps with AV); explicit.c
   * U1, R, dt, limit_count (always made); lusgs.c R, dU, dt (+ R_av,
   * limit_count with AV) */
  const size_t state = (size_t)s->n_coefs * d, elem = (size_t)ne * d;
  size_t vec = 3 * state + (s->av != DG_AV_OFF ? elem : 0) + 2 * state + 2 * elem;
  if (o->lusgs) vec += 2 * state + elem + (s->av != DG_AV_OFF ? state + elem : 0);
  /* lusgs.c: the staging vectors of the recorded sweeps, for a Krylov
   * solver's right-hand sides and outputs (Newton-Krylov) */
  if (o->lusgs && o->newton) vec += LUSGS_STAGING_VECTORS * state;
  b[GPU_MEM_VECTORS] += vec;
  out->vectors = vec;

  if (o->lusgs) {
    /* lusgs_cuda.cu: colours, block offsets, blocks, pivots, face
     * Jacobians, the failure flag */
    const size_t work = at_least_one(ne, sizeof(int32_t)) + at_least_one(ne, i64) + 8;
    size_t blocks = 2 * at_least_one(ne + 1, i64) + at_least_one(s->n_block_doubles, d) +
                    at_least_one(s->n_pivots, sizeof(int32_t));
    const size_t jac = at_least_one(nf * s->nqf * 2 * s->nvar * s->nvar, d);
    const int factor = gpu_lusgs_factor_choice();
    if (o->factor_cublas || factor == 2)
      blocks += at_least_one(s->n_block_doubles, d) + 2 * at_least_one(ne, sizeof(double *)) +
                at_least_one(2 * ne, sizeof(int));
    else if ((factor == 3 || factor == 4) && o->newton) /* the LU copy the matvec reads */
      blocks += at_least_one(s->n_block_doubles, d);
    size_t lav = 0;
    if (s->av != DG_AV_OFF) {
      lav += at_least_one(ne, d) + at_least_one(s->n_verts, d) + at_least_one(ne * DG_AV_NLIN, d);
      lav += 2 * at_least_one(ne, sizeof(int32_t)) + at_least_one(ne, i64);
      const int64_t rows =
          o->av_coupling_rows < 0 || o->av_coupling_rows > ne ? ne : o->av_coupling_rows;
      if (rows > 0) lav += at_least_one(rows * s->av_nf * (int64_t)s->av_nb * s->av_nb, d);
    }
    b[GPU_MEM_WORK] += work;
    b[GPU_MEM_LUSGS_BLOCKS] += blocks;
    b[GPU_MEM_FACE_JAC] += jac;
    b[GPU_MEM_AV] += lav;
    out->lusgs = work + blocks + jac + lav;
  }
  out->total = out->backend + out->vectors + out->lusgs;
}

void gpu_mem_refusal_message(const char *what, size_t need, size_t free_bytes, size_t total_bytes,
                             char *msg, size_t size) {
  const double mib = 1048576.0;
  snprintf(msg, size,
           "%s needs %.1f MiB of GPU memory, but only %.1f MiB of the device's %.1f MiB are free "
           "(use a coarser mesh, a lower p, the explicit scheme, or --backend cpu)",
           what, (double)need / mib, (double)free_bytes / mib, (double)total_bytes / mib);
}

/* ---- tally */

typedef struct {
  const void *ptr;
  size_t bytes;
  int category;
} gpu_mem_entry;

static gpu_mem_tally tally;
static gpu_mem_entry *entries;
static int64_t n_entries, cap_entries;
static gpu_mem_query_fn query;

void gpu_mem_record_alloc(const void *ptr, size_t bytes, gpu_mem_category c) {
  if (!ptr || c < 0 || c >= GPU_MEM_N) return;
  if (n_entries == cap_entries) {
    const int64_t cap = cap_entries ? 2 * cap_entries : 128;
    gpu_mem_entry *grown = (gpu_mem_entry *)realloc(entries, (size_t)cap * sizeof *grown);
    if (!grown) return; /* the tally is a report; an allocation failure here stays silent */
    entries = grown;
    cap_entries = cap;
  }
  entries[n_entries++] = (gpu_mem_entry){ptr, bytes, (int)c};
  tally.current += bytes;
  tally.bytes[c] += bytes;
  ++tally.n_allocs;
  if (tally.current > tally.peak) {
    tally.peak = tally.current;
    memcpy(tally.peak_bytes, tally.bytes, sizeof tally.bytes);
  }
}

void gpu_mem_record_free(const void *ptr) {
  if (!ptr) return;
  for (int64_t i = n_entries - 1; i >= 0; --i)
    if (entries[i].ptr == ptr) {
      tally.current -= entries[i].bytes;
      tally.bytes[entries[i].category] -= entries[i].bytes;
      entries[i] = entries[--n_entries];
      return;
    }
}

void gpu_mem_get_tally(gpu_mem_tally *t) { *t = tally; }

void gpu_mem_reset_tally(void) {
  memset(&tally, 0, sizeof tally);
  n_entries = 0;
}

void gpu_mem_set_query(gpu_mem_query_fn fn) { query = fn; }

int gpu_mem_report_line(const dg_disc *disc, int lusgs, char *line, size_t size) {
  if (tally.n_allocs == 0) return 0;
  gpu_plan_sizes s;
  gpu_plan_sizes_from_disc(disc, &s);
  const gpu_plan_opts o = {lusgs, 0, -1, 0};
  gpu_mem_plan plan;
  backend_cuda_plan_bytes(&s, &o, &plan);
  const double mib = 1048576.0;
  size_t free_bytes = 0, total_bytes = 0, stack_bytes = 0;
  const int have = query && query(&free_bytes, &total_bytes, &stack_bytes) == 0;
  if (have)
    snprintf(line, size,
             "GPU memory: peak %.1f MiB allocated by ColorDG (estimate %.1f MiB), device total "
             "%.0f MiB; in use now %.0f MiB (these arrays, %.0f MiB kernel stacks, the CUDA "
             "context)",
             (double)tally.peak / mib, (double)plan.total / mib, (double)total_bytes / mib,
             (double)(total_bytes - free_bytes) / mib, (double)stack_bytes / mib);
  else
    snprintf(line, size, "GPU memory: peak %.1f MiB allocated by ColorDG (estimate %.1f MiB)",
             (double)tally.peak / mib, (double)plan.total / mib);
  return 1;
}
