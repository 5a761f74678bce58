# Mesh import/export: .cdgm native format, Gmsh .msh/.geo import (parts that
# need Gmsh are compiled only when the SDK was found).
colordg_add_test(NAME test_mesh_io SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_mesh_io.c
                 LABELS mesh)
