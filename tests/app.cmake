# Case files and the colordg command line (src/app).
#
colordg_add_test(NAME test_case SOURCES unit/test_case.c LABELS unit app)

# app_expect(NAME RC REGEX ARGS...): colordg ARGS must exit with RC and print
# output matching REGEX ("" = any output); see colordg_expect().
function(app_expect name rc regex)
  colordg_expect(${name} ${rc} "${regex}" LABELS app ARGS ${ARGN})
endfunction()

set(D ${COLORDG_TEST_DATA})
app_expect(app_help 0 "usage: colordg" --help)
app_expect(app_version 0 "colordg [0-9]+\\.[0-9]+\\.[0-9]+" --version)
foreach(command import info run case-keys)
  app_expect(app_help_${command} 0 "usage: colordg ${command}" ${command} --help)
endforeach()
app_expect(app_no_command 2 "no command given")
app_expect(app_unknown_command 2 "unknown command 'frobnicate'" frobnicate)
app_expect(app_unknown_option 2 "unknown option '--fast'" run --fast ${D}/case_valid.ini)
app_expect(app_info_bad_p 2 "--p expects an integer 0..3, got '7'" info --p 7 ${D}/x.cdgm)
app_expect(app_import_no_output 2 "no output file given" import ${D}/x.msh)
app_expect(app_case_keys 0 "\\| `\\[flow\\]` \\| `mach` \\| number \\| \\*\\*required\\*\\*" case-keys)
# Malformed case files: exit 1 with file:line: [section] key in the message.
app_expect(app_run_bad_type 1 "case_bad_type.ini:5: \\[flow\\] mach: 'fast' is not a finite number"
           run ${D}/case_bad_type.ini)
app_expect(app_run_bad_key 1 "case_bad_unknown_key.ini:5: \\[flow\\] mahc: unknown key"
           run ${D}/case_bad_unknown_key.ini)
app_expect(app_run_missing_case 1 "cannot open case file" run ${D}/case_missing.ini)
# A small mesh and cases on it, written by test_case (no Gmsh needed): counts
# checked through --csv, the case checked against the mesh, run up to the
# solver, import round trip.
set(F ${CMAKE_CURRENT_BINARY_DIR}/app_fixture)
file(MAKE_DIRECTORY ${F})
add_test(NAME app_fixture COMMAND test_case --write-fixture ${F})
set_tests_properties(app_fixture PROPERTIES FIXTURES_SETUP app_strip LABELS "app;cli")
app_expect(app_info_csv 0
           "elements,12\nelements_tri,8\nelements_quad,4\n.*faces,26\nfaces_interior,14\nfaces_periodic,0\nfaces_boundary,12\ngroups,4\nfaces_group_xmin,2\nfaces_group_xmax,2\nfaces_group_ymin,4\nfaces_group_ymax,4\n.*volume,2\n.*dofs_p0,12\n.*dofs_p3,144\n"
           info --csv ${F}/app_strip.cdgm)
app_expect(app_info_p 0 "memory_mib_p1,[0-9.]+\n" info --csv --p 1 ${F}/app_strip.cdgm)
app_expect(app_info_case 0 "case app_strip.*boundary +xmax +outflow_subsonic.*total area +2\n"
           info ${F}/app_strip.ini)
# The strip case keeps the default scheme (lusgs, CPU); the unmapped group
# is found by info.
app_expect(app_run_case 0 "case app_strip.*LU-SGS, local time steps.*iteration limit reached after 3 iterations"
           run ${F}/app_strip.ini --max-iters 3 --output ${F}/app_strip_run)
app_expect(app_run_unmapped 1 "app_strip_unmapped.ini: \\[boundary\\]: mesh group 'ymax' \\(4 faces in .*app_strip.cdgm\\) has no boundary condition"
           info ${F}/app_strip_unmapped.ini)
app_expect(app_import 0 "wrote .*app_strip_copy.cdgm"
           import ${F}/app_strip.cdgm -o ${F}/app_strip_copy.cdgm)
set(app_fixture_tests app_info_csv app_info_p app_info_case app_run_case app_run_unmapped
                      app_import)
if(COLORDG_HAVE_GMSH)
  app_expect(app_import_geo 0 "geometric order 2.*wall +[1-9][0-9]* faces.*wrote .*app_square.cdgm"
             import ${F}/app_square.geo -o ${F}/app_square.cdgm --order 2)
  list(APPEND app_fixture_tests app_import_geo)
else()
  app_expect(app_import_geo_unsupported 1 "built without the Gmsh SDK"
             import ${F}/app_square.geo -o ${F}/app_square.cdgm)
  list(APPEND app_fixture_tests app_import_geo_unsupported)
endif()
set_tests_properties(${app_fixture_tests} PROPERTIES FIXTURES_REQUIRED app_strip)
