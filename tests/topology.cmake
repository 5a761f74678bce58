# Topology and structured mesh generator tests (no Gmsh needed).
colordg_add_test(NAME test_topology SOURCES unit/test_topology.c LABELS unit mesh)
