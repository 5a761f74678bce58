# Element colouring and colour-major renumbering (src/coloring/).
colordg_add_test(NAME test_coloring SOURCES unit/test_coloring.c LABELS unit coloring)
# `colordg info` reports the colour count and group sizes of both algorithms.
colordg_expect(coloring_info_quad 0 "colors_bfs_wall,2\ncolor_sizes_bfs_wall,32 32\n.*colors_largest_first,2"
               LABELS coloring ARGS info ${COLORDG_TEST_DATA}/mesh_square_quad_8.cdgm --csv)
