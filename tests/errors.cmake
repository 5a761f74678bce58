# Malformed inputs through the command line: each must exit 1 with a message
# that says what is wrong and where (file, element, face, key, byte). The
# inputs are written at test time by bad_inputs (tests/unit/bad_inputs.c).
set(B ${CMAKE_CURRENT_BINARY_DIR}/bad_inputs_data)
file(MAKE_DIRECTORY ${B})
add_executable(bad_inputs ${CMAKE_CURRENT_SOURCE_DIR}/unit/bad_inputs.c)
target_compile_options(bad_inputs PRIVATE ${COLORDG_C_WARNINGS})
target_compile_definitions(bad_inputs PRIVATE COLORDG_TEST_DATA="${COLORDG_TEST_DATA}")
add_test(NAME errors_fixture COMMAND bad_inputs ${B})
set_tests_properties(errors_fixture PROPERTIES FIXTURES_SETUP bad_inputs LABELS "errors;cli")

set(errors_tests errors_corrupted_cdgm errors_unknown_case_key)
colordg_expect(errors_corrupted_cdgm 1 "corrupted.cdgm: .*checksum" LABELS errors
               ARGS info ${B}/corrupted.cdgm)
colordg_expect(errors_unknown_case_key 1
               "case_bad_unknown_key.ini:5: \\[flow\\] mahc: unknown key" LABELS errors
               ARGS info ${COLORDG_TEST_DATA}/case_bad_unknown_key.ini)
if(COLORDG_HAVE_GMSH)
  colordg_expect(errors_good_control 0 "triangles \\(order 1\\) +2" LABELS errors
                 ARGS info ${B}/good.msh)
  colordg_expect(errors_truncated_msh 1 "truncated.msh:[0-9]+: .*(truncated|corrupt)" LABELS errors
                 ARGS import ${B}/truncated.msh -o ${B}/truncated.cdgm)
  colordg_expect(errors_missing_group 1
                 "missing_group.msh: face .* of element 6 lies on the boundary but is in no physical group"
                 LABELS errors ARGS info ${B}/missing_group.msh)
  colordg_expect(errors_inverted_element 1
                 "inverted.msh: element 6 of surface 1 is inverted" LABELS errors
                 ARGS info ${B}/inverted.msh)
  colordg_expect(errors_degenerate_element 1
                 "degenerate.msh: element 5 of surface 1 is degenerate" LABELS errors
                 ARGS info ${B}/degenerate.msh)
  list(APPEND errors_tests errors_good_control errors_truncated_msh errors_missing_group
       errors_inverted_element errors_degenerate_element)
endif()
set_tests_properties(${errors_tests} PROPERTIES FIXTURES_REQUIRED bad_inputs)
