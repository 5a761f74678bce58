/* A fully periodic box of Kuhn tetrahedra (6 per cube) as a .cdgm mesh, for
 * the scaling runs of cases/scaling/ (weak scaling needs meshes of a chosen
 * size on machines without Gmsh):
 *
 *   colordg_box_mesh NX NY NZ OUT.cdgm
 *
 * The box is [-5, 5] x [-5, 5] x [0, 10 NZ / NX] with NX x NY x NZ cells
 * (cubes when NX = NY), periodic along every axis (each axis needs >= 3
 * cells), straight-sided (geometric order 1): 6 NX NY NZ tetrahedra. The
 * isentropic vortex of cases/scaling/box_vortex_*.ini (centred at the
 * origin, extruded along z) fits in it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dg_error.h"
#include "mesh/mesh.h"
#include "mesh/mesh_structured.h"

static int box_usage(const char *why) {
  fprintf(stderr,
          "colordg_box_mesh: %s\nusage: colordg_box_mesh NX NY NZ OUT.cdgm   (cells along x, y, "
          "z; each >= 3)\n",
          why);
  return 2;
}

int main(int argc, char **argv) {
  if (argc != 5) return box_usage("expected 4 arguments");
  int64_t n[3];
  for (int k = 0; k < 3; ++k) {
    char *end = NULL;
    const long long v = strtoll(argv[1 + k], &end, 10);
    if (!end || *end || v < 3 || v > 4096)
      return box_usage("cell counts must be whole numbers in [3, 4096]");
    n[k] = v;
  }
  if (6.0 * (double)n[0] * (double)n[1] * (double)n[2] > 2e9)
    return box_usage("more than 2e9 tetrahedra");
  dg_mesh_structured_opts o = mesh_structured_defaults(3);
  o.kind = MESH_STRUCTURED_TET;
  o.order = 1;
  for (int k = 0; k < 3; ++k) {
    o.n[k] = n[k];
    o.periodic[k] = 1;
  }
  o.lo[0] = o.lo[1] = -5.0;
  o.hi[0] = o.hi[1] = 5.0;
  o.lo[2] = 0.0;
  o.hi[2] = 10.0 * (double)n[2] / (double)n[0];
  dg_mesh mesh;
  memset(&mesh, 0, sizeof mesh);
  dg_status st = mesh_structured_3d(&o, &mesh);
  if (st == DG_SUCCESS) st = mesh_write_cdgm(&mesh, argv[4]);
  if (st != DG_SUCCESS) {
    dg_error_print(stderr, 0);
    mesh_free(&mesh);
    return 1;
  }
  printf("%s: %lld tetrahedra, %lld x %lld x %lld periodic cells of [-5,5]^2 x [0,%g]\n", argv[4],
         (long long)mesh.n_elems, (long long)n[0], (long long)n[1], (long long)n[2], o.hi[2]);
  mesh_free(&mesh);
  return 0;
}
