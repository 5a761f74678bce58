# Layers (docs/ARCHITECTURE.md §2): tools/check_layers.py fails on an include
# from a lower src/ folder to a higher one, or on an upward link or a link
# cycle between the libraries of CMakeLists.txt. The two fixtures show that
# the check fails: an upward include (mesh -> dg) and a link cycle.
set(COLORDG_CHECK_LAYERS ${PROJECT_SOURCE_DIR}/tools/check_layers.py)
set(COLORDG_LAYER_FIXTURES ${CMAKE_CURRENT_SOURCE_DIR}/data/check_layers)
colordg_add_cli_test(NAME check_layers COMMAND python3 ${COLORDG_CHECK_LAYERS} LABELS unit)
foreach(fixture IN ITEMS
    "check_layers_upward_include|--src|${COLORDG_LAYER_FIXTURES}/src_upward|mesh/cell.h:4: upward include: mesh includes dg"
    "check_layers_link_cycle|--cmake|${COLORDG_LAYER_FIXTURES}/cmake_cycle.txt|cmake_cycle.txt:[0-9]+: link cycle")
  string(REPLACE "|" ";" parts "${fixture}")
  list(GET parts 0 name)
  list(GET parts 1 flag)
  list(GET parts 2 path)
  list(GET parts 3 regex)
  colordg_add_cli_test(NAME ${name} LABELS unit COMMAND ${CMAKE_COMMAND} -DCHECK_RC=1
    "-DCHECK_REGEX=${regex}" "-DCHECK_ARGS=python3|${COLORDG_CHECK_LAYERS}|${flag}|${path}"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/scripts/cli_check.cmake)
endforeach()
