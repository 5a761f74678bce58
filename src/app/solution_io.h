#pragma once
/* Solution / restart files (.cdgs, docs/OUTPUTS.md) and the atomic file
 * writer every output of ColorDG uses.
 *
 * A .cdgs file holds one state vector U in the discretisation's coefficient
 * layout (src/dg/disc.h), the sizes that identify that discretisation
 * (dim, nvar, p, elements per shape, n_coefs, a fingerprint of the mesh),
 * where the run stood (iteration, time, CFL) and the monitor's reference
 * residual norms, so a restarted run continues with the same CFL and
 * normalises its residuals the same way. The whole file is covered by an
 * FNV-1a 64-bit checksum.
 *
 * The coefficient layout depends on the element numbering (colour-major
 * renumbering included): the fingerprint is taken of the mesh in the
 * numbering the discretisation was built from, so a restart must renumber
 * the mesh the same way (colouring is deterministic) before reading. */
#include <stdint.h>
#include <stdio.h>

#include "core/dg_error.h"
#include "core/dg_file.h"
#include "dg/disc.h"
#include "mesh/mesh.h"

#define DG_SOLUTION_STATE_MAX 8 /* marcher-state doubles a file holds at most */

/* Where a run stood when the file was written. */
typedef struct dg_solution_meta {
  int64_t iteration;             /* completed iterations (time steps) */
  double time;                   /* physical time (nondimensional); 0 for steady runs */
  double cfl;                    /* CFL number in use */
  double ref_norms[DG_MAX_NVAR]; /* monitor's reference residual norms per variable (0 = unset) */
  /* version 2 (0 / NULL when read from a version-1 file, see has_run) */
  int has_run;     /* 1: the run fields below were stored (a run wrote the file: gamma > 0) */
  int scheme;      /* dg_scheme of the run */
  int cfl_law;     /* dg_cfl_law of the run */
  int has_av_hold; /* reading: 1 when the file held a viscosity and av_hold was filled */
  double gamma;    /* ratio of specific heats (0 = not stored) */
  double mach, alpha_deg, beta_deg; /* free stream */
  double wall_seconds; /* wall time of the run so far (history.csv wall_s goes on from it) */
  double ser_res0;     /* LU-SGS SER reference |R_0| (0 = unset) */
  /* iteration at which the run's p-sequencing stage (the file's p) began:
   * the CFL ramp counts from it ([discretization] p_sequence); 0 in runs
   * without p-sequencing and in files written before it was stored */
  int64_t stage_start;
  /* held (relaxed) element viscosity of LU-SGS (backend av_hold): n_elems
   * doubles after U. Writing: stored when av_hold is not NULL. Reading:
   * av_hold (caller-owned, n_elems doubles) is filled when the file holds
   * one (has_av_hold = 1). */
  double *av_hold;
  /* writing: the index in the mesh file of each element of the run's
   * numbering (the colouring's perm; n_elems int64, stored after av_hold) so
   * that tools can pair the state with the .cdgm; NULL = not stored. The
   * reader checks it with the checksum and does not return it. */
  const int64_t *elem_order;
  /* version 3: the marcher's own state at the end of the last iteration
   * (dg_marcher_ops.get_state: Newton-Krylov's CFL cut, forcing history,
   * viscosity switch), n_marcher_state doubles after the element order, so
   * that a restart continues the same iterations; 0 = none */
  int n_marcher_state;
  double marcher_state[DG_SOLUTION_STATE_MAX];
} dg_solution_meta;

/* Everything in a .cdgs header (what solution_read_header returns). */
typedef struct dg_solution_header {
  uint32_t version;
  int dim, nvar, p;
  int64_t n_elems;
  int64_t n_shape[DG_NUM_SHAPES]; /* elements of each dg_shape */
  int64_t n_coefs;                /* doubles in U */
  uint64_t mesh_fingerprint;      /* solution_mesh_fingerprint of the mesh it was written for */
  dg_solution_meta meta;
} dg_solution_header;

/* FNV-1a 64-bit hash of the mesh's identity: dim, geometric order, node and
 * element counts, node coordinates (bitwise), element shapes, node offsets
 * and element nodes. Two meshes with the same fingerprint have the same
 * nodes and elements in the same numbering (up to hash collisions). */
uint64_t solution_mesh_fingerprint(const dg_mesh *mesh);

/* The fingerprint mesh would have after mesh_renumber_elements(mesh, perm)
 * (new element i = old perm[i]; perm NULL: as it is), without renumbering
 * it: run.c compares a restart file with the numbering of another
 * colouring. */
uint64_t solution_mesh_fingerprint_permuted(const dg_mesh *mesh, const int64_t *perm);

/* Writes U (host, disc->view.n_coefs doubles in disc's layout) with meta to
 * path, atomically (solution_file_open): a failure at any point leaves the
 * previous file at path untouched. mesh is the mesh disc was built from (for
 * the fingerprint). Errors: DG_ERR_ARG (NULL, sizes), DG_ERR_IO. */
dg_status solution_write(const char *path, const dg_mesh *mesh, const dg_disc *disc,
                         const double *h_U, const dg_solution_meta *meta);

/* Reads path into h_U (disc->view.n_coefs doubles, caller-owned) and *meta
 * (may be NULL). Checks, in order: the format (magic, version, byte order,
 * sizes against the file length before allocating; DG_ERR_FORMAT), the
 * checksum (DG_ERR_FORMAT), then the discretisation (dim, p, elements per
 * shape, n_coefs, mesh fingerprint; DG_ERR_ARG, the message names what
 * differs, e.g. "written for p = 2, the case asks p = 3"). h_U and *meta
 * are only written when every check passed. */
dg_status solution_read(const char *path, const dg_mesh *mesh, const dg_disc *disc, double *h_U,
                        dg_solution_meta *meta);

/* Reads a solution of the same mesh written at degree p_file <= disc's p
 * and prolongs it into h_U (disc's layout): the bases are hierarchical, so
 * the modes of degree <= p_file are copied and the others set to 0 (exact).
 * The file's meta data are not returned (a fresh run starts from it).
 * DG_ERR_ARG names the mismatch (mesh, dimension, p_file > p). */
dg_status solution_read_prolong(const char *path, const dg_mesh *mesh, const dg_disc *disc,
                                double *h_U);

/* Reads and fully checks (format and checksum) a .cdgs file without a
 * discretisation to compare with; returns its header. */
dg_status solution_read_header(const char *path, dg_solution_header *header);

/* Reads and fully checks a .cdgs file and copies its held LU-SGS viscosity
 * (n_elems doubles, the file's element numbering) into hold (caller-owned)
 * when the file holds one for n_elems elements: *found = 1; otherwise
 * *found = 0 and hold is untouched. Errors as solution_read_header. */
dg_status solution_read_av_hold(const char *path, int64_t n_elems, double *hold, int *found);
