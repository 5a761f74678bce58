#pragma once
/* Which backends this build has, each paired with its LU-SGS operations
 * (docs/ARCHITECTURE.md §2): the layer above the solver (src/dg, src/lusgs)
 * and the CUDA kernels (src/kernels) that knows both tables. The tables
 * handed out here are the backends' own (backend_cpu_table,
 * backend_cuda_table) with implicit_ops set to the matching lusgs_backend
 * (lusgs_backend_cpu, lusgs_backend_cuda), so that lusgs_create finds its
 * operations through the dg_backend it is given. */
#include "dg/backend.h"

/* The CPU backend (OpenMP when available) with the CPU LU-SGS operations
 * (static storage, never NULL; the same pointer on every call). */
const dg_backend *backend_cpu(void);

/* The CUDA backend with the CUDA LU-SGS operations, or NULL when this build
 * has no CUDA (static storage; the same pointer on every call). */
const dg_backend *backend_cuda(void);

/* 1 when the CUDA backend is built and a device is present. */
int backend_cuda_available(void);

/* The device a distributed run's rank takes: its rank on the host modulo
 * the host's devices (one rank per GPU; more ranks than GPUs share them,
 * for tests). *device = the index, *shared = 1 when ranks share one.
 * DG_ERR_UNSUPPORTED without CUDA or devices. */
/* How the halo messages of context ctx of backend b travel, for reports:
 * the CUDA backend's transport (backend_cuda_halo_transport), or "through
 * MPI in host memory" for the CPU backend. */
const char *backend_halo_transport(const dg_backend *b, const dg_backend_ctx *ctx);

dg_status backend_cuda_pick_device(int node_rank, int node_size, int *device, int *shared);
