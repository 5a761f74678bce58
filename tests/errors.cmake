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

  # Issue 12: malformed .msh files end in a clear error naming file and element
  # (Gmsh itself crashed on node tag -1 and allocated gigabytes for one bit).
  colordg_expect(errors_msh_node_minus1 1
                 "node_minus1.msh:[0-9]+: element 5 \\(Gmsh type 2\\) uses node tag -1" LABELS errors
                 ARGS import ${B}/node_minus1.msh -o ${B}/x.cdgm)
  colordg_expect(errors_msh_bnode_max 1
                 "bnode_max.msh:[0-9]+: element 1 .*18446744073709551615 as unsigned" LABELS errors
                 ARGS info ${B}/bnode_max.msh)
  colordg_expect(errors_msh_huge_count 1
                 "huge_nodes.msh:[0-9]+: the \\$Nodes count is 4000000000000, but the [0-9]+ bytes left"
                 LABELS errors ARGS info ${B}/huge_nodes.msh)
  colordg_expect(errors_msh_version 1 "version40.msh:[0-9]+: MSH format version 4.0" LABELS errors
                 ARGS info ${B}/version40.msh)
  colordg_expect(errors_msh_bitflip_bin41 1
                 "bitflip_bin.msh \\(near byte [0-9]+\\): node tag 1073741825 is not in 1\\.\\.[0-9]+"
                 LABELS errors ARGS info ${B}/bitflip_bin.msh)
  colordg_expect(errors_msh_bitflip_bin22 1
                 "bitflip_bin22.msh \\(near byte [0-9]+\\): an element block declares 1073741825 elements"
                 LABELS errors ARGS info ${B}/bitflip_bin22.msh)
  colordg_expect(errors_msh_bin41_control 0 "triangles \\(order 1\\) +2" LABELS errors
                 ARGS info ${COLORDG_TEST_DATA}/square2_msh41_bin.msh)
  colordg_expect(errors_msh_bin22_control 0 "triangles \\(order 1\\) +2" LABELS errors
                 ARGS info ${COLORDG_TEST_DATA}/square2_msh22_bin.msh)
  colordg_expect(errors_msh_ascii22_control 0 "triangles \\(order 1\\) +2" LABELS errors
                 ARGS info ${COLORDG_TEST_DATA}/square2_msh22.msh)
  colordg_expect(errors_quad_repeated_node 1
                 "quad_repeat.msh: face [0-9] of element 5, .* uses node [0-9]+ twice: the element is degenerate"
                 LABELS errors ARGS info ${B}/quad_repeat.msh)
  # Inputs that are not regular files: refused at once, not read forever.
  colordg_expect(errors_mesh_fifo 1 "fifo.msh: is not a regular file" LABELS errors
                 ARGS info ${B}/fifo.msh)
  colordg_expect(errors_mesh_devzero_link 1 "zero.msh: is not a regular file" LABELS errors
                 ARGS import ${B}/zero.msh -o ${B}/x.cdgm)
  colordg_expect(errors_mesh_directory 1 "dir.msh: is a directory, not a mesh file" LABELS errors
                 ARGS info ${B}/dir.msh)
  colordg_expect(errors_cdgm_directory 1 "dir.cdgm: is a directory, not a mesh file" LABELS errors
                 ARGS info ${B}/dir.cdgm)
  # .geo files: shell commands off by default, includes of devices refused,
  # meshing within a time, size and memory budget.
  colordg_expect(errors_geo_shell_refused 1
                 "shell.geo:1: the .geo command 'SystemCall' runs a program.*allow_shell" LABELS errors
                 ARGS info ${B}/shell.geo)
  colordg_expect(errors_geo_shell_allowed 0 "triangles \\(order 1\\) +[1-9]" LABELS errors
                 ARGS info ${B}/shell.geo --allow-shell)
  colordg_expect(errors_geo_include_devzero 1
                 "include_zero.geo:1: Include \"/dev/zero\": .* not a regular file" LABELS errors
                 ARGS import ${B}/include_zero.geo -o ${B}/x.cdgm)
  colordg_expect(errors_geo_too_many_elements 1
                 "fine.geo: meshing would make about [0-9.e+]+ elements or more .*max_elements = 5e\\+07"
                 LABELS errors ARGS info ${B}/fine.geo)
  colordg_expect(errors_geo_time_budget 1
                 "loop.geo: meshing took longer than \\[mesh\\] max_seconds = 1 s and was stopped"
                 LABELS errors ARGS info ${B}/loop.ini)
  colordg_expect(errors_geo_memory_budget 1 "mid.geo: .*max_memory_mb = 30 MB" LABELS errors
                 ARGS info ${B}/memory.ini)
  colordg_expect(errors_geo_control 0 "triangles \\(order 1\\) +[1-9]" LABELS errors
                 ARGS info ${B}/square.geo)
  # A bad [mesh] file names the case file, its line and the key.
  colordg_expect(errors_case_missing_mesh 1
                 "missing_mesh.ini:3: \\[mesh\\] file: .*does_not_exist.msh: cannot open" LABELS errors
                 ARGS info ${B}/missing_mesh.ini)
  colordg_expect(errors_case_directory_mesh 1
                 "dir_mesh.ini:3: \\[mesh\\] file: .*dir.msh: is a directory" LABELS errors
                 ARGS info ${B}/dir_mesh.ini)
  list(APPEND errors_tests errors_msh_node_minus1 errors_msh_bnode_max errors_msh_huge_count
       errors_msh_version errors_msh_bitflip_bin41 errors_msh_bitflip_bin22
       errors_quad_repeated_node errors_mesh_fifo errors_mesh_devzero_link
       errors_mesh_directory errors_cdgm_directory errors_geo_shell_refused
       errors_geo_shell_allowed errors_geo_include_devzero errors_geo_too_many_elements
       errors_geo_time_budget errors_geo_memory_budget errors_geo_control
       errors_case_missing_mesh errors_case_directory_mesh)
endif()
colordg_expect(errors_case_hex_float 1
               "case_bad_hex.ini:6: \\[flow\\] mach: '0x10' is a hexadecimal number" LABELS errors
               ARGS info ${COLORDG_TEST_DATA}/case_bad_hex.ini)
colordg_expect(errors_case_bad_mesh_file 1
               "case_bad_mesh_file.ini:3: \\[mesh\\] file: .*does_not_exist.msh: cannot open"
               LABELS errors ARGS info ${COLORDG_TEST_DATA}/case_bad_mesh_file.ini)
set_tests_properties(${errors_tests} PROPERTIES FIXTURES_REQUIRED bad_inputs)

# Checks that stay (issue 12): a short mutation fuzz round with a fixed seed
# over case files, .msh and .cdgm files; every run must end in exit 0 or a
# clean error (no signal, sanitizer report or hang). tools/fuzz.sh runs
# longer rounds with other seeds.
add_executable(fuzz_inputs ${CMAKE_CURRENT_SOURCE_DIR}/unit/fuzz_inputs.c)
target_compile_options(fuzz_inputs PRIVATE ${COLORDG_C_WARNINGS})
target_compile_definitions(fuzz_inputs PRIVATE COLORDG_TEST_DATA="${COLORDG_TEST_DATA}")
if(COLORDG_HAVE_GMSH)
  set(COLORDG_FUZZ_MUTANTS 200 CACHE STRING "mutants of the fuzz_inputs test")
  add_test(NAME errors_fuzz_inputs
           COMMAND fuzz_inputs $<TARGET_FILE:colordg> ${CMAKE_CURRENT_BINARY_DIR}/fuzz_work
                   ${COLORDG_FUZZ_MUTANTS} 20261125 60)
  set_tests_properties(errors_fuzz_inputs PROPERTIES LABELS "errors;fuzz" TIMEOUT 600)
  colordg_test_environment(errors_fuzz_inputs)
endif()
