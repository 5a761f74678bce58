/* Built instead of mesh_gmsh.c when the Gmsh SDK is absent: .msh/.geo import
 * reports that this build cannot read them; .cdgm files still work. */
#include "mesh/mesh.h"

dg_status mesh_read_gmsh(const char *path, const dg_mesh_read_options *options, dg_mesh *mesh) {
  (void)options;
  (void)mesh;
  DG_ERROR(DG_ERR_UNSUPPORTED,
           "%s: this ColorDG was built without the Gmsh SDK, so it reads only .cdgm meshes; "
           "convert the mesh with 'colordg import' on a machine with Gmsh (libgmsh-dev)",
           path);
}
