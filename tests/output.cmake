# Outputs (src/app/solution_io, vtu, surface): restart files, VTU/PVD for
# ParaView, wall Cp and force coefficients.
colordg_add_test(NAME test_output SOURCES unit/test_output.c LABELS unit app)

# VTU files other tools open: a short run of the transonic case on the
# committed curved hybrid mesh (quadratic triangles and quadrilaterals,
# p = 2) read back with meshio and with VTK's XML reader (Debian
# python3-meshio, python3-vtk9; the system /usr/bin/python3, exit 77 when
# they are missing): counts, Lagrange cell types, VTK's node order, the same
# points and density as the sub-cell layout.
set(OUT_WORK ${CMAKE_CURRENT_BINARY_DIR}/output_work)
file(MAKE_DIRECTORY ${OUT_WORK})
colordg_add_cli_test(NAME output_vtu_readers
  COMMAND ${COLORDG_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_vtu.py
          $<TARGET_FILE:colordg> ${COLORDG_SOURCE_DIR}/cases/naca0012_transonic/case.ini
          ${COLORDG_TEST_DATA}/mesh_naca0012_hybrid_q2.cdgm ${OUT_WORK}
  LABELS app output)
# The same for tetrahedra: a box of straight tets (every cell checks VTK's
# node order) at Lagrange order 5, which has face and interior nodes.
file(WRITE ${OUT_WORK}/box_tet.ini "[mesh]\nfile = ${COLORDG_TEST_DATA}/mesh_box_tet_3.cdgm\n\n[flow]\nmach = 0.3\n\n[discretization]\norder = 2\n\n[solver]\nscheme = explicit_rk3\ncfl = 0.3\n\n[output]\n\n[boundary]\nxmin = farfield\nxmax = farfield\nymin = farfield\nymax = farfield\nzmin = wall\nzmax = farfield\n")
colordg_add_cli_test(NAME output_vtu_readers_tet
  COMMAND ${COLORDG_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_vtu.py
          $<TARGET_FILE:colordg> ${OUT_WORK}/box_tet.ini
          ${COLORDG_TEST_DATA}/mesh_box_tet_3.cdgm ${OUT_WORK} "vtu_subdivision = 5"
  LABELS app output)

# Wall outputs (src/app/surface.c: surface_cp.csv, surface.vtu, sections).
# 2D: the NACA0012 wall is one curve from the trailing edge, ordered, with
# an arc length that adds up to the perimeter and normals out of the fluid.
colordg_add_cli_test(NAME output_surface_2d
  COMMAND ${COLORDG_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_surface.py 2d
          $<TARGET_FILE:colordg> ${COLORDG_SOURCE_DIR}/cases/naca0012_transonic/case.ini
          ${COLORDG_TEST_DATA}/mesh_naca0012_hybrid_q2.cdgm ${OUT_WORK}
  LABELS app output)
# 3D: the unit sphere (quadratic tetrahedra, meshed by Gmsh) cut at three
# stations: circles at the right y, closed, from the trailing edge over the
# upper side.
if(COLORDG_HAVE_GMSH)
  file(WRITE ${OUT_WORK}/sphere.ini "[mesh]\nfile = ${COLORDG_TEST_DATA}/sphere_box.geo\ngeo_order = 2\n\n[flow]\nmach = 0.3\n\n[reference]\nsemispan = 1\n\n[discretization]\norder = 1\n\n[solver]\nscheme = explicit_rk3\ncfl = 0.3\n\n[output]\nsections = 0.2, 0.5 0.9\n\n[boundary]\nwall = wall\nfarfield = farfield\n")
  colordg_add_cli_test(NAME output_surface_3d
    COMMAND ${COLORDG_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_surface.py 3d
            $<TARGET_FILE:colordg> ${OUT_WORK}/sphere.ini ${OUT_WORK}
    LABELS app output)
  set_tests_properties(output_surface_3d PROPERTIES FIXTURES_SETUP output_sphere)
  # tools/plot_sections.py on that run with a small "experiment" file
  file(WRITE ${OUT_WORK}/experiment.csv "eta,x/c,cp\n0.5,0.0,0.9\n0.5,0.5,-0.3\n0.9,0.2,-0.5\n")
  file(REMOVE ${OUT_WORK}/sections_cp.png)
  colordg_add_cli_test(NAME output_plot_sections
    COMMAND sh -c "'${COLORDG_SYSTEM_PYTHON}' -c 'import matplotlib' 2>/dev/null || exit 77 && '${COLORDG_SYSTEM_PYTHON}' '${COLORDG_SOURCE_DIR}/tools/plot_sections.py' '${OUT_WORK}/surface_3d' --experiment '${OUT_WORK}/experiment.csv' -o '${OUT_WORK}/sections_cp.png' | grep -q '3 stations, with experiment' && test -s '${OUT_WORK}/sections_cp.png'"
    LABELS app output)
  set_tests_properties(output_plot_sections PROPERTIES FIXTURES_REQUIRED output_sphere)
  # several runs overlaid (p = 1, 2, 3 of one mesh in the M6 validation): the
  # same run twice, labelled; a --label count that does not match is refused
  file(REMOVE ${OUT_WORK}/sections_two.png)
  colordg_add_cli_test(NAME output_plot_sections_overlay
    COMMAND sh -c "'${COLORDG_SYSTEM_PYTHON}' -c 'import matplotlib' 2>/dev/null || exit 77 && '${COLORDG_SYSTEM_PYTHON}' '${COLORDG_SOURCE_DIR}/tools/plot_sections.py' '${OUT_WORK}/surface_3d' '${OUT_WORK}/surface_3d' --label 'p = 1' --label 'p = 2' --experiment '${OUT_WORK}/experiment.csv' -o '${OUT_WORK}/sections_two.png' | grep -q '3 stations, with experiment, 2 runs' && test -s '${OUT_WORK}/sections_two.png'"
    LABELS app output)
  set_tests_properties(output_plot_sections_overlay PROPERTIES FIXTURES_REQUIRED output_sphere)
  colordg_add_cli_test(NAME output_plot_sections_labels
    COMMAND sh -c "'${COLORDG_SYSTEM_PYTHON}' '${COLORDG_SOURCE_DIR}/tools/plot_sections.py' '${OUT_WORK}/surface_3d' '${OUT_WORK}/surface_3d' --label one 2>&1 | grep -q '1 --label for 2 run folders' && ! '${COLORDG_SYSTEM_PYTHON}' '${COLORDG_SOURCE_DIR}/tools/plot_sections.py' '${OUT_WORK}/surface_3d' '${OUT_WORK}/surface_3d' --label one >/dev/null 2>&1"
    LABELS app output)
  set_tests_properties(output_plot_sections_labels PROPERTIES FIXTURES_REQUIRED output_sphere)
  # runs whose stations differ are refused, naming both lists
  colordg_add_cli_test(NAME output_plot_sections_stations
    COMMAND sh -c "rm -rf '${OUT_WORK}/one_station' && mkdir -p '${OUT_WORK}/one_station' && cp '${OUT_WORK}/surface_3d/section_eta0.5.csv' '${OUT_WORK}/one_station/' && ! '${COLORDG_SYSTEM_PYTHON}' '${COLORDG_SOURCE_DIR}/tools/plot_sections.py' '${OUT_WORK}/surface_3d' '${OUT_WORK}/one_station' > '${OUT_WORK}/one_station/log' 2>&1 && grep -q 'one_station has the stations \\[0.5\\]' '${OUT_WORK}/one_station/log'"
    LABELS app output)
  set_tests_properties(output_plot_sections_stations PROPERTIES FIXTURES_REQUIRED output_sphere)
endif()

# [output] sections: stations need [reference] semispan, and are numbers in
# (0, 1]; the errors name the file, line and key.
set(sections_case "[mesh]\nfile = ${COLORDG_TEST_DATA}/mesh_box_tet_3.cdgm\n\n[flow]\nmach = 0.3\n\n[discretization]\norder = 1\n\n[output]\n")
file(WRITE ${OUT_WORK}/sections_no_semispan.ini "${sections_case}sections = 0.5\n")
file(WRITE ${OUT_WORK}/sections_range.ini "[reference]\nsemispan = 2\n${sections_case}sections = 0.5, 1.5\n")
file(WRITE ${OUT_WORK}/sections_text.ini "[reference]\nsemispan = 2\n${sections_case}sections = 0.5, root\n")
colordg_expect(output_sections_no_semispan 1
  "sections_no_semispan.ini:11: \\[output\\] sections: needs \\[reference\\] semispan > 0"
  LABELS output ARGS run ${OUT_WORK}/sections_no_semispan.ini)
colordg_expect(output_sections_range 1
  "sections_range.ini:13: \\[output\\] sections: station 1.5 is out of range. expected eta = y / semispan in .0, 1."
  LABELS output ARGS run ${OUT_WORK}/sections_range.ini)
colordg_expect(output_sections_text 1
  "sections_text.ini:13: \\[output\\] sections: '0.5, root' is not a list of numbers"
  LABELS output ARGS run ${OUT_WORK}/sections_text.ini)
file(WRITE ${OUT_WORK}/sections_2d.ini "[mesh]\nfile = ${COLORDG_TEST_DATA}/mesh_naca0012_tri_0_q2.cdgm\n\n[flow]\nmach = 0.5\n\n[reference]\nsemispan = 1\n\n[discretization]\norder = 1\n\n[output]\nsections = 0.5\n\n[boundary]\nwall = wall\nfarfield = farfield\n")
colordg_expect(output_sections_2d 1
  "sections_2d.ini: \\[output\\] sections: spanwise sections need a 3D mesh"
  LABELS output ARGS run ${OUT_WORK}/sections_2d.ini)
