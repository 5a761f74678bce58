# Reference-shape tables (shape.h) and geometry (src/mesh/geometry.c).
colordg_add_test(NAME test_shape SOURCES unit/test_shape.c LABELS unit mesh)
colordg_add_test(NAME test_geometry SOURCES unit/test_geometry.c LABELS unit mesh)
