/* Distributed residual (run with mpirun -np N): every rank builds the
 * one-process discretisation of a mesh, cuts its own part out of it
 * (mesh_distribute, a partition by element index blocks or interleaved so
 * that the parts are ragged), builds the part's discretisation with ghosts
 * and halo, and compares on its owned elements: the residual (ghost
 * coefficients poisoned with NaN before the call, so only the halo
 * exchange can fill them), the global time step, the residual norms and
 * the wall forces against the one-process values. Cases: a curved 2D
 * hybrid mesh (p = 2, no viscosity), the same with continuous artificial
 * viscosity (vertex ghosts, ε exchange), and tetrahedra (p = 1, element
 * viscosity). With --backend cuda the same comparisons run on the GPU (one
 * process's CUDA residual against the partitioned CUDA residual: pack and
 * unpack kernels, staged or CUDA-aware messages); every rank takes the
 * host's GPU of its node rank (several ranks share one GPU when there are
 * more ranks than GPUs) and the test is skipped (77) without a device.
 * --expect-transport WORD checks how the CUDA halo travels (the
 * description of backend_halo_transport contains WORD: IPC for GPU-to-GPU
 * copies, staged for pinned host memory, which COLORDG_HALO_TRANSPORT=staged
 * forces).
 *   test_mpi_residual [--partition blocks|stripes] [--backend cpu|cuda]
 *                     [--expect-transport WORD] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_select.h"
#include "dg/backend.h"
#include "dg/explicit.h"
#include "dg/marcher.h"
#include "mesh/distribute.h"
#include "parallel/comm.h"
#include "support/problems.h"
#include "test_util.h"

/* ragged parts: blocks of the element range with uneven sizes, or
 * element e to rank (e / 7) % n (many cut faces) */
static void make_partition(int64_t n_elems, int n, int stripes, int32_t *part) {
  for (int64_t e = 0; e < n_elems; ++e) {
    if (stripes) {
      part[e] = (int32_t)((e / 7) % n);
    } else {
      /* rank r gets a share proportional to r + 1 */
      const double w = (double)n * (n + 1) / 2.0;
      double acc = 0.0;
      int r = 0;
      const double x = (double)e / (double)n_elems * w;
      while (r < n - 1 && x >= acc + (r + 1)) acc += ++r;
      part[e] = r;
    }
  }
}

/* The global element's state: free stream plus a smooth function of the
 * global element index (identical on every rank). */
static void global_state(const dg_disc *disc, double *U) { problem_smooth_state(disc, 0.02, U); }

/* the backend of both sides (--backend), and the halo transport the
 * partitioned context must use (--expect-transport: a word of its
 * description, e.g. IPC or staged; NULL: any) */
static const dg_backend *mpi_backend;
static const char *mpi_expect_transport;

static void run_case(const char *file, int p, int av, double s0_offset, int stripes) {
  const dg_comm *comm = dg_comm_world();
  const int rank = dg_comm_rank(comm), size = dg_comm_size(comm);
  char path[512];
  snprintf(path, sizeof path, "%s/%s", COLORDG_TEST_DATA, file);
  problem g;
  memset(&g, 0, sizeof g);
  TEST_OK(mesh_read(path, 0, &g.mesh));
  TEST_OK(problem_geometry(&g, problem_vol_degree(&g.mesh, p), problem_face_degree(&g.mesh, p)));
  dg_disc_opts o;
  problem_bcs bcs;
  TEST_OK(problem_freestream_opts(&g.mesh, p, 0.5, 2.0, &o, &bcs));
  if (av) {
    o.av = av;
    o.av_sensor_var = 0;
    o.av_s0_offset = s0_offset; /* a low threshold: ε is on in part of the elements */
    o.av_kappa = 1.0;
    o.av_c = 1.0;
  }
  TEST_OK(disc_build(&g.mesh, &g.topo, &g.geom, &o, &g.disc));
  const dg_disc_view *gv = &g.disc.view;
  double *Ug = calloc((size_t)gv->n_coefs, sizeof *Ug);
  double *Rg = calloc((size_t)gv->n_coefs, sizeof *Rg);
  global_state(&g.disc, Ug);

  /* one process */
  const dg_backend *b = mpi_backend;
  dg_backend_ctx *gctx = NULL;
  TEST_OK(dg_backend_create(b, &g.disc, &gctx));
  dg_vec gU, gR, gdt;
  TEST_OK(dg_vec_create(b, gctx, DG_VEC_STATE, &gU));
  TEST_OK(dg_vec_create(b, gctx, DG_VEC_STATE, &gR));
  TEST_OK(dg_vec_create(b, gctx, DG_VEC_ELEM, &gdt));
  TEST_OK(dg_vec_upload(Ug, &gU));
  TEST_OK(dg_backend_residual(b, gctx, &gU, 0.0, &gR));
  TEST_OK(dg_vec_download(&gR, Rg));
  double gnorm[DG_MAX_NVAR], gdtmin = 0.0, gforce[6];
  int gfinite = 0;
  TEST_OK(dg_backend_norms(b, gctx, &gR, gnorm, &gfinite));
  TEST_OK(dg_backend_timestep(b, gctx, &gU, 0.5, 0, &gdt, &gdtmin));
  uint8_t mask[PROBLEM_MAX_GROUPS] = {0};
  for (int i = 0; i < g.mesh.n_groups; ++i) mask[i] = bcs.bc[i] == PHYSICS_BC_WALL;
  const double xref[3] = {0.25, 0.0, 0.0};
  TEST_OK(dg_backend_forces(b, gctx, &gU, mask, xref, gforce));

  int64_t n_visc = 0; /* elements with ε > 0 (the viscous terms are exercised) */
  if (av) {
    dg_vec eps;
    TEST_OK(dg_vec_create(b, gctx, DG_VEC_ELEM, &eps));
    TEST_OK(dg_backend_av_eps(b, gctx, &gU, &eps));
    double *h = calloc((size_t)gv->n_elems, sizeof *h);
    TEST_OK(dg_vec_download(&eps, h));
    for (int64_t e = 0; e < gv->n_elems; ++e) n_visc += h[e] > 0.0;
    free(h);
    dg_vec_destroy(&eps);
    TEST_CHECK(n_visc > gv->n_elems / 10,
               "%s: %lld of %lld elements have viscosity (want more than a tenth)", file,
               (long long)n_visc, (long long)gv->n_elems);
  }

  /* this rank's part */
  int32_t *part = calloc((size_t)g.mesh.n_elems, sizeof *part);
  make_partition(g.mesh.n_elems, size, stripes, part);
  dg_mesh_part mp;
  TEST_OK(mesh_distribute(&g.mesh, &g.topo, part, size, rank, av == DG_AV_CONTINUOUS, &mp));
  mp.halo.comm = comm;
  dg_geometry lg;
  memset(&lg, 0, sizeof lg);
  TEST_OK(geometry_build(&mp.mesh, &mp.topo, problem_vol_degree(&mp.mesh, p),
                         problem_face_degree(&mp.mesh, p), &lg));
  /* a ghost's faces beyond the halo are not local: its length scale comes
   * from its owner */
  TEST_OK(mesh_part_exchange(&mp, comm, lg.elem_h, 1));
  dg_disc ld;
  o.n_owned = mp.n_owned;
  o.halo = &mp.halo;
  TEST_OK(disc_build(&mp.mesh, &mp.topo, &lg, &o, &ld));
  const dg_disc_view *lv = &ld.view;
  double *Ul = calloc((size_t)lv->n_coefs, sizeof *Ul);
  double *Rl = calloc((size_t)lv->n_coefs, sizeof *Rl);
  for (int64_t l = 0; l < lv->n_elems; ++l) {
    const int64_t e = mp.global_elem[l];
    const int owned = l - lv->elem_start[lv->elem_shape[l]] < lv->n_owned[lv->elem_shape[l]];
    for (int v = 0; v < lv->nvar; ++v)
      for (int m = 0; m < lv->nb[lv->elem_shape[l]]; ++m)
        Ul[disc_coef_index(lv, l, v, m)] = owned ? Ug[disc_coef_index(gv, e, v, m)] : NAN;
  }
  dg_backend_ctx *lctx = NULL;
  TEST_OK(dg_backend_create(b, &ld, &lctx));
  const char *transport = backend_halo_transport(b, lctx);
  if (rank == 0 && strcmp(file, "mesh_naca0012_hybrid_q2.cdgm") == 0 && p == 2)
    printf("halo messages: %s\n", transport);
  TEST_CHECK(!mpi_expect_transport || strstr(transport, mpi_expect_transport),
             "rank %d: halo transport '%s', expected one with '%s'", rank, transport,
             mpi_expect_transport ? mpi_expect_transport : "");
  dg_vec lU, lR, ldt;
  TEST_OK(dg_vec_create(b, lctx, DG_VEC_STATE, &lU));
  TEST_OK(dg_vec_create(b, lctx, DG_VEC_STATE, &lR));
  TEST_OK(dg_vec_create(b, lctx, DG_VEC_ELEM, &ldt));
  TEST_OK(dg_vec_upload(Ul, &lU));
  TEST_OK(dg_backend_residual(b, lctx, &lU, 0.0, &lR));
  TEST_OK(dg_vec_download(&lR, Rl));
  TEST_OK(dg_vec_download(&lU, Ul));

  /* owned residuals against the one-process residual; ghosts filled */
  double worst = 0.0, scale = 0.0;
  int64_t bad_ghost = -1, n_owned = 0;
  for (int64_t l = 0; l < lv->n_elems; ++l) {
    const int s = lv->elem_shape[l];
    const int64_t e = mp.global_elem[l];
    const int owned = l - lv->elem_start[s] < lv->n_owned[s];
    n_owned += owned;
    for (int v = 0; v < lv->nvar; ++v)
      for (int m = 0; m < lv->nb[s]; ++m) {
        const double ul = Ul[disc_coef_index(lv, l, v, m)], ug = Ug[disc_coef_index(gv, e, v, m)];
        if (ul != ug && bad_ghost < 0) bad_ghost = l;
        if (!owned) continue;
        const double rl = Rl[disc_coef_index(lv, l, v, m)], rg = Rg[disc_coef_index(gv, e, v, m)];
        const double d = fabs(rl - rg);
        if (!(d <= worst)) worst = d;
        if (fabs(rg) > scale) scale = fabs(rg);
      }
  }
  TEST_CHECK(bad_ghost < 0,
             "%s rank %d: local element %lld differs from its global copy after "
             "the exchange",
             file, rank, (long long)bad_ghost);
  TEST_CHECK(worst <= 1e-13 * scale,
             "%s p=%d av=%d rank %d/%d: owned residual differs by %.3g "
             "(scale %.3g)",
             file, p, av, rank, size, worst, scale);
  int64_t total_owned = n_owned;
  TEST_OK(dg_comm_allreduce_i64(comm, DG_COMM_SUM, &total_owned, 1));
  TEST_CHECK(total_owned == g.mesh.n_elems, "owned elements sum to %lld of %lld",
             (long long)total_owned, (long long)g.mesh.n_elems);

  double lnorm[DG_MAX_NVAR], ldtmin = 0.0, lforce[6];
  int lfinite = 0;
  TEST_OK(dg_backend_norms(b, lctx, &lR, lnorm, &lfinite));
  TEST_CHECK(lfinite == gfinite, "finite flag %d vs %d", lfinite, gfinite);
  for (int v = 0; v < lv->nvar; ++v)
    TEST_CLOSE(lnorm[v], gnorm[v], 1e-12 * gnorm[v], "residual norm");
  TEST_OK(dg_backend_timestep(b, lctx, &lU, 0.5, 0, &ldt, &ldtmin));
  /* bitwise, but with continuous ε the vertex means add in another order */
  TEST_CHECK(fabs(ldtmin - gdtmin) <= (av == DG_AV_CONTINUOUS ? 1e-13 * gdtmin : 0.0),
             "%s rank %d: global time step %.17g vs %.17g", file, rank, ldtmin, gdtmin);
  TEST_OK(dg_backend_forces(b, lctx, &lU, mask, xref, lforce));
  for (int c = 0; c < 6; ++c) TEST_CLOSE(lforce[c], gforce[c], 1e-13, "wall force component");

  /* the same bits on every rank */
  double mine[DG_MAX_NVAR + 7], all_min[DG_MAX_NVAR + 7];
  for (int v = 0; v < DG_MAX_NVAR; ++v) mine[v] = v < lv->nvar ? lnorm[v] : 0.0;
  for (int c = 0; c < 6; ++c) mine[DG_MAX_NVAR + c] = lforce[c];
  mine[DG_MAX_NVAR + 6] = ldtmin;
  memcpy(all_min, mine, sizeof mine);
  double all_max[DG_MAX_NVAR + 7];
  memcpy(all_max, mine, sizeof mine);
  TEST_OK(dg_comm_allreduce(comm, DG_COMM_MIN, all_min, DG_MAX_NVAR + 7));
  TEST_OK(dg_comm_allreduce(comm, DG_COMM_MAX, all_max, DG_MAX_NVAR + 7));
  TEST_CHECK(memcmp(all_min, all_max, sizeof all_min) == 0,
             "reduced norms, forces and time step differ between ranks");
  if (rank == 0)
    printf("%s p=%d av=%d %s: %d ranks, rank 0 owns %lld of %lld elements with %lld ghosts, "
           "%d neighbours, %lld viscous; owned residual |diff| %.3g of %.3g\n",
           file, p, av, stripes ? "stripes" : "blocks", size, (long long)n_owned,
           (long long)g.mesh.n_elems, (long long)(lv->n_elems - n_owned), mp.halo.n_neighbors,
           (long long)n_visc, worst, scale);

  /* ten SSP-RK3 steps (local time steps; with viscosity the positivity
   * guard) from the same state: the owned states agree to round-off */
  for (int pass = 0; pass < 2; ++pass) {
    const int local_dt = pass == 0;
    TEST_OK(dg_vec_upload(Ug, &gU));
    TEST_OK(dg_vec_upload(Ul, &lU));
    dg_marcher_settings ms;
    memset(&ms, 0, sizeof ms);
    ms.cfl = 0.3;
    ms.local_dt = local_dt;
    ms.positivity = av != DG_AV_OFF;
    dg_marcher gm, lm;
    TEST_OK(dg_marcher_create(explicit_rk3_marcher_ops(), b, gctx, &g.disc, &ms, &gm));
    TEST_OK(dg_marcher_create(explicit_rk3_marcher_ops(), b, lctx, &ld, &ms, &lm));
    double t = 0.0;
    for (int it = 1; it <= 10; ++it) {
      dg_marcher_step_opts so;
      memset(&so, 0, sizeof so);
      so.t = t;
      so.iteration = it;
      so.compute_norms = 1;
      dg_marcher_info gi, li;
      TEST_OK(dg_marcher_step(&gm, &gU, &so, &gi));
      TEST_OK(dg_marcher_step(&lm, &lU, &so, &li));
      TEST_CLOSE(li.dt, gi.dt, 1e-12 * gi.dt, "RK3 global step");
      TEST_CLOSE(li.res_total, gi.res_total, 1e-11 * gi.res_total, "RK3 residual norm");
      t += gi.dt;
    }
    dg_marcher_destroy(&gm);
    dg_marcher_destroy(&lm);
    double *Ug2 = calloc((size_t)gv->n_coefs, sizeof *Ug2);
    TEST_OK(dg_vec_download(&gU, Ug2));
    TEST_OK(dg_vec_download(&lU, Rl));
    double diff = 0.0, mag = 0.0;
    for (int64_t l = 0; l < lv->n_elems; ++l) {
      const int s = lv->elem_shape[l];
      if (l - lv->elem_start[s] >= lv->n_owned[s]) continue;
      const int64_t e = mp.global_elem[l];
      for (int v = 0; v < lv->nvar; ++v)
        for (int m = 0; m < lv->nb[s]; ++m) {
          const double a = Rl[disc_coef_index(lv, l, v, m)], c = Ug2[disc_coef_index(gv, e, v, m)];
          if (!(fabs(a - c) <= diff)) diff = fabs(a - c);
          if (fabs(c) > mag) mag = fabs(c);
        }
    }
    free(Ug2);
    TEST_CHECK(diff <= 1e-12 * mag,
               "%s rank %d: after 10 RK3 steps (%s steps) the owned states "
               "differ by %.3g (scale %.3g)",
               file, rank, local_dt ? "local" : "global", diff, mag);
    if (rank == 0)
      printf("  10 SSP-RK3 steps, %s time steps: owned state |diff| %.3g of %.3g\n",
             local_dt ? "local" : "global", diff, mag);
  }

  dg_vec_destroy(&lU);
  dg_vec_destroy(&lR);
  dg_vec_destroy(&ldt);
  dg_backend_destroy(b, lctx);
  dg_vec_destroy(&gU);
  dg_vec_destroy(&gR);
  dg_vec_destroy(&gdt);
  dg_backend_destroy(b, gctx);
  disc_free(&ld);
  geometry_free(&lg);
  mesh_part_free(&mp);
  free(part);
  free(Ug);
  free(Rg);
  free(Ul);
  free(Rl);
  problem_free(&g);
}

int main(int argc, char **argv) {
  if (dg_comm_init(&argc, &argv) != DG_SUCCESS) {
    dg_error_print(stderr, 1);
    return 1;
  }
  int stripes = 0, cuda = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--partition")) stripes = !strcmp(argv[i + 1], "stripes");
    if (!strcmp(argv[i], "--backend")) cuda = !strcmp(argv[i + 1], "cuda");
    if (!strcmp(argv[i], "--expect-transport")) mpi_expect_transport = argv[i + 1];
  }
  mpi_backend = backend_cpu();
  if (cuda) {
    if (!backend_cuda_available()) {
      if (dg_comm_rank(dg_comm_world()) == 0)
        printf("test_mpi_residual: no CUDA device (skipped)\n");
      dg_comm_finalize();
      return 77;
    }
    int device = 0, shared = 0;
    TEST_OK(backend_cuda_pick_device(dg_comm_node_rank(), dg_comm_node_size(), &device, &shared));
    mpi_backend = backend_cuda();
    if (dg_comm_rank(dg_comm_world()) == 0)
      printf("backend cuda: %d ranks on this host, rank 0 on device %d%s\n", dg_comm_node_size(),
             device, shared ? " (ranks share GPUs)" : "");
  }
  run_case("mesh_naca0012_hybrid_q2.cdgm", 2, DG_AV_OFF, 0.0, stripes);
  run_case("mesh_naca0012_hybrid_q2.cdgm", 1, DG_AV_CONTINUOUS, -2.2, stripes);
  run_case("mesh_box_tet_3.cdgm", 1, DG_AV_ELEMENT, -1.5, stripes);
  run_case("mesh_box_tet_periodic_4.cdgm", 2, DG_AV_CONTINUOUS, -0.1, stripes);
  const int rc = test_finish("test_mpi_residual");
  int64_t worst = rc;
  dg_comm_allreduce_i64(dg_comm_world(), DG_COMM_MAX, &worst, 1);
  dg_comm_finalize();
  return (int)worst;
}
