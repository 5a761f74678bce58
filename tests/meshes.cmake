# Mesh sources (meshes/*.geo) and the committed test meshes
# (tests/data/mesh_*.cdgm): `colordg info --csv` must report the counts the
# recipes promise (meshes/README.md).
#
# This file is both the test registration (included by tests/CMakeLists.txt)
# and the check each test runs (`cmake -P tests/meshes.cmake`, script mode):
#   -DCOLORDG=path        colordg binary
#   -DMESH=path           .cdgm, .msh or .geo
#   -DGMSH=path           optional: mesh the .geo first with the gmsh CLI
#   -DDIM=2|3             with GMSH: gmsh -2 or -3
#   -DORDER=q             optional geometric order: gmsh -order q, or
#                         `colordg import --order q` for a .geo without GMSH
#   -DSETNUMBER=a=1,b=2   with GMSH: gmsh -setnumber a 1 -setnumber b 2
#   -DWORK=dir            where generated files go
#   -DEXPECT=k=v,...      keys that must equal v exactly
#   -DRANGE=k=lo:hi,...   keys that must lie in [lo, hi] (unstructured counts,
#                         which may move a little with the Gmsh version)
#   -DVOLUME=lo:hi        total area/volume in [lo, hi]
# and always the relations every mesh satisfies:
#   elements = sum of elements_<shape>,
#   faces = faces_interior + faces_boundary,
#   faces_boundary = sum of faces_group_<name>,
#   element faces: 3 tri + 4 quad + 4 tet + 5 prism + 6 hex
#                  = 2 faces_interior + faces_boundary,
#   faces_periodic <= faces_interior.

if(CMAKE_SCRIPT_MODE_FILE)
  set(failures "")
  set(input "${MESH}")
  if(GMSH)
    get_filename_component(stem "${MESH}" NAME_WE)
    set(input "${WORK}/${stem}.msh")
    set(args -${DIM})
    if(ORDER)
      list(APPEND args -order ${ORDER})
    endif()
    if(SETNUMBER)
      string(REPLACE "," ";" pairs "${SETNUMBER}")
      foreach(pair ${pairs})
        string(REPLACE "=" ";" nv "${pair}")
        list(GET nv 0 name)
        list(GET nv 1 value)
        list(APPEND args -setnumber ${name} ${value})
        set(input "${WORK}/${stem}_${name}${value}.msh")
      endforeach()
    endif()
    file(MAKE_DIRECTORY "${WORK}")
    execute_process(COMMAND "${GMSH}" ${args} -format msh41 -o "${input}" "${MESH}"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "gmsh ${args} ${MESH} failed (${rc}):\n${log}")
    endif()
  elseif(ORDER)
    get_filename_component(stem "${MESH}" NAME_WE)
    set(input "${WORK}/${stem}_q${ORDER}.cdgm")
    file(MAKE_DIRECTORY "${WORK}")
    execute_process(COMMAND "${COLORDG}" import "${MESH}" -o "${input}" --order ${ORDER}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "colordg import ${MESH} --order ${ORDER} failed (${rc}):\n${log}")
    endif()
  endif()

  execute_process(COMMAND "${COLORDG}" info "${input}" --csv --p 0
                  RESULT_VARIABLE rc OUTPUT_VARIABLE csv ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "colordg info ${input} failed (${rc}):\n${csv}${err}")
  endif()
  message("${csv}")

  # key,value lines -> info_<key>; group and shape keys remembered for sums.
  string(REPLACE "\n" ";" lines "${csv}")
  set(group_keys "")
  foreach(line ${lines})
    if(line MATCHES "^([a-z0-9_]+),(.*)$")
      set(key "${CMAKE_MATCH_1}")
      set(info_${key} "${CMAKE_MATCH_2}")
      if(key MATCHES "^faces_group_")
        list(APPEND group_keys ${key})
      endif()
    endif()
  endforeach()
  foreach(key elements faces faces_interior faces_boundary faces_periodic)
    if(NOT DEFINED info_${key})
      message(FATAL_ERROR "colordg info ${input} --csv printed no '${key}' line")
    endif()
  endforeach()

  string(REPLACE "," ";" expects "${EXPECT}")
  foreach(item ${expects})
    string(REGEX MATCH "^([a-z0-9_]+)=(.*)$" ok "${item}")
    set(key "${CMAKE_MATCH_1}")
    set(want "${CMAKE_MATCH_2}")
    if(NOT "${info_${key}}" STREQUAL "${want}")
      list(APPEND failures "${key} is '${info_${key}}', expected ${want}")
    endif()
  endforeach()
  string(REPLACE "," ";" ranges "${RANGE}")
  foreach(item ${ranges})
    string(REGEX MATCH "^([a-z0-9_]+)=([0-9.]+):([0-9.]+)$" ok "${item}")
    set(key "${CMAKE_MATCH_1}")
    if(NOT DEFINED info_${key})
      list(APPEND failures "${key} missing, expected in [${CMAKE_MATCH_2}, ${CMAKE_MATCH_3}]")
    elseif(info_${key} LESS CMAKE_MATCH_2 OR info_${key} GREATER CMAKE_MATCH_3)
      list(APPEND failures
           "${key} is ${info_${key}}, expected in [${CMAKE_MATCH_2}, ${CMAKE_MATCH_3}]")
    endif()
  endforeach()
  if(VOLUME)
    # if() compares numbers as doubles, so a band needs no arithmetic.
    string(REPLACE ":" ";" band "${VOLUME}")
    list(GET band 0 lo)
    list(GET band 1 hi)
    if(NOT info_volume GREATER_EQUAL lo OR NOT info_volume LESS_EQUAL hi)
      list(APPEND failures "volume is ${info_volume}, expected in [${lo}, ${hi}]")
    endif()
  endif()

  # Relations.
  set(shape_sum 0)
  set(element_faces 0)
  foreach(shape_faces tri:3 quad:4 tet:4 prism:5 hex:6)
    string(REPLACE ":" ";" sf "${shape_faces}")
    list(GET sf 0 shape)
    list(GET sf 1 nf)
    if(DEFINED info_elements_${shape})
      math(EXPR shape_sum "${shape_sum} + ${info_elements_${shape}}")
      math(EXPR element_faces "${element_faces} + ${nf} * ${info_elements_${shape}}")
    endif()
  endforeach()
  if(NOT shape_sum EQUAL info_elements)
    list(APPEND failures "elements ${info_elements} != sum over shapes ${shape_sum}")
  endif()
  math(EXPR faces "${info_faces_interior} + ${info_faces_boundary}")
  if(NOT faces EQUAL info_faces)
    list(APPEND failures "faces ${info_faces} != interior + boundary ${faces}")
  endif()
  set(group_sum 0)
  foreach(key ${group_keys})
    math(EXPR group_sum "${group_sum} + ${info_${key}}")
  endforeach()
  if(NOT group_sum EQUAL info_faces_boundary)
    list(APPEND failures "faces_boundary ${info_faces_boundary} != sum over groups ${group_sum}")
  endif()
  math(EXPR sides "2 * ${info_faces_interior} + ${info_faces_boundary}")
  if(NOT sides EQUAL element_faces)
    list(APPEND failures
         "element faces ${element_faces} != 2 interior + boundary ${sides} (faces lost or doubled)")
  endif()
  if(info_faces_periodic GREATER info_faces_interior)
    list(APPEND failures "faces_periodic ${info_faces_periodic} > faces_interior")
  endif()

  if(failures)
    string(REPLACE ";" "\n  " failures "${failures}")
    message(FATAL_ERROR "${input}:\n  ${failures}")
  endif()
  message("${input}: all checks passed")
  return()
endif()

# ---------------------------------------------------------------- registration

# meshes_add_check(NAME MESH path [GMSH] [DIM d] [ORDER q] [SETNUMBER a=1,b=2]
#                  [EXPECT k=v,...] [RANGE k=lo:hi,...] [VOLUME lo:hi])
function(meshes_add_check)
  cmake_parse_arguments(M "GMSH" "NAME;MESH;DIM;ORDER;SETNUMBER;EXPECT;RANGE;VOLUME" "" ${ARGN})
  set(defs -DCOLORDG=$<TARGET_FILE:colordg> -DMESH=${M_MESH}
           -DWORK=${CMAKE_CURRENT_BINARY_DIR}/meshes/${M_NAME})
  set(labels mesh)
  if(M_GMSH)
    list(APPEND defs -DGMSH=${COLORDG_GMSH_EXECUTABLE} -DDIM=${M_DIM})
    list(APPEND labels gmsh)
  endif()
  foreach(opt ORDER SETNUMBER EXPECT RANGE VOLUME)
    if(DEFINED M_${opt})
      list(APPEND defs "-D${opt}=${M_${opt}}")
    endif()
  endforeach()
  colordg_add_cli_test(NAME ${M_NAME} COMMAND ${CMAKE_COMMAND} ${defs} -P ${CMAKE_CURRENT_LIST_FILE}
                       LABELS ${labels})
endfunction()

set(meshes_src ${PROJECT_SOURCE_DIR}/meshes)
set(meshes_data ${CMAKE_CURRENT_SOURCE_DIR}/data)
set(unit_volume 0.999999999:1.000000001)

# Committed meshes: run everywhere (no Gmsh needed). Counts exact: these files
# do not change unless tools/make_test_meshes.sh is rerun.
meshes_add_check(NAME meshes_data_naca0012_hybrid_q1 MESH ${meshes_data}/mesh_naca0012_hybrid_q1.cdgm
  EXPECT "dim=2,geom_order=1,elements_tri=188,elements_quad=1700,faces=3726,faces_interior=3638,faces_periodic=0,faces_group_wall=68,faces_group_farfield=20")
meshes_add_check(NAME meshes_data_naca0012_hybrid_q2 MESH ${meshes_data}/mesh_naca0012_hybrid_q2.cdgm
  EXPECT "dim=2,geom_order=2,elements_tri=188,elements_quad=1700,faces=3726,faces_interior=3638,faces_group_wall=68,faces_group_farfield=20")
meshes_add_check(NAME meshes_data_gaussian_bump_0_q3 MESH ${meshes_data}/mesh_gaussian_bump_0_q3.cdgm
  EXPECT "dim=2,geom_order=3,elements_tri=0,elements_quad=48,faces=112,faces_group_wall=12,faces_group_top=12,faces_group_inflow=4,faces_group_outflow=4"
  VOLUME 2.377859:2.377861)
meshes_add_check(NAME meshes_data_gaussian_bump_1_q3 MESH ${meshes_data}/mesh_gaussian_bump_1_q3.cdgm
  EXPECT "dim=2,geom_order=3,elements_quad=192,faces=416,faces_group_wall=24,faces_group_inflow=8"
  VOLUME 2.3778442:2.3778446)
meshes_add_check(NAME meshes_data_naca0012_tri_0_q2 MESH ${meshes_data}/mesh_naca0012_tri_0_q2.cdgm
  EXPECT "dim=2,geom_order=2,elements_tri=2402,elements_quad=0,faces_group_wall=88,faces_group_farfield=24")
# leading and trailing edges refined (end_ratio 0.05, n_side0 62): 124 wall
# faces, smallest element 0.0013 against 0.0066 in mesh_naca0012_tri_0_q2
meshes_add_check(NAME meshes_data_naca0012_ends_0_q2 MESH ${meshes_data}/mesh_naca0012_ends_0_q2.cdgm
  EXPECT "dim=2,geom_order=2,elements_tri=2940,elements_quad=0,faces_group_wall=124,faces_group_farfield=24"
  RANGE "h_min=0.0009:0.0018")
meshes_add_check(NAME meshes_data_nlr7301_sharp_0_q2 MESH ${meshes_data}/mesh_nlr7301_sharp_0_q2.cdgm
  EXPECT "dim=2,geom_order=2,elements_tri=4108,elements_quad=0,faces=6295,faces_interior=6029,faces_group_main=140,faces_group_flap=102,faces_group_farfield=24")
# Periodic n x n squares: tri 2n^2 (3n^2 faces), quad n^2 (2n^2), mixed n^2/2
# quads + n^2 tris (5n^2/2); all faces interior, 2n of them periodic pairs.
meshes_add_check(NAME meshes_data_square_tri_8 MESH ${meshes_data}/mesh_square_tri_8.cdgm
  EXPECT "dim=2,elements_tri=128,elements_quad=0,faces=192,faces_interior=192,faces_periodic=16,faces_boundary=0"
  VOLUME ${unit_volume})
meshes_add_check(NAME meshes_data_square_quad_8 MESH ${meshes_data}/mesh_square_quad_8.cdgm
  EXPECT "dim=2,elements_tri=0,elements_quad=64,faces=128,faces_interior=128,faces_periodic=16,faces_boundary=0"
  VOLUME ${unit_volume})
meshes_add_check(NAME meshes_data_square_mixed_8 MESH ${meshes_data}/mesh_square_mixed_8.cdgm
  EXPECT "dim=2,elements_tri=64,elements_quad=32,faces=160,faces_interior=160,faces_periodic=16,faces_boundary=0"
  VOLUME ${unit_volume})
meshes_add_check(NAME meshes_data_square_quad_8_q2 MESH ${meshes_data}/mesh_square_quad_8_q2.cdgm
  EXPECT "dim=2,geom_order=2,elements_quad=64,faces=128,faces_periodic=16,faces_boundary=0"
  VOLUME ${unit_volume})
# Structured box: 6 n^3 tets, 2 n^2 triangles per side.
meshes_add_check(NAME meshes_data_box_tet_3 MESH ${meshes_data}/mesh_box_tet_3.cdgm
  EXPECT "dim=3,elements_tet=162,faces=378,faces_interior=270,faces_periodic=0,faces_group_xmin=18,faces_group_xmax=18,faces_group_ymin=18,faces_group_ymax=18,faces_group_zmin=18,faces_group_zmax=18"
  VOLUME ${unit_volume})
meshes_add_check(NAME meshes_data_box_tet_periodic_4 MESH ${meshes_data}/mesh_box_tet_periodic_4.cdgm
  EXPECT "dim=3,elements_tet=380,faces=760,faces_interior=760,faces_periodic=130,faces_boundary=0"
  VOLUME ${unit_volume})

# The .geo sources themselves, coarse levels only (the whole set runs in a few
# seconds). Structured counts exact; unstructured ones in a band.
if(COLORDG_HAVE_GMSH)
  find_program(COLORDG_GMSH_EXECUTABLE gmsh)
  # Read directly through the SDK (default parameters), and at order 3.
  meshes_add_check(NAME meshes_geo_naca0012_hybrid MESH ${meshes_src}/naca0012_hybrid.geo
    EXPECT "dim=2,geom_order=1,elements_quad=1700,faces_group_wall=68,faces_group_farfield=20"
    RANGE "elements_tri=150:230")
  meshes_add_check(NAME meshes_geo_naca0012_hybrid_q3 MESH ${meshes_src}/naca0012_hybrid.geo
    ORDER 3 EXPECT "geom_order=3,elements_quad=1700,faces_group_wall=68,faces_group_farfield=20"
    RANGE "elements_tri=150:230")
  meshes_add_check(NAME meshes_geo_box_tet MESH ${meshes_src}/box_tet.geo
    EXPECT "dim=3,elements_tet=162,faces=378,faces_group_xmin=18,faces_group_zmax=18"
    VOLUME ${unit_volume})
  if(COLORDG_GMSH_EXECUTABLE)
    foreach(level 0 1)
      math(EXPR wall "88 << ${level}")
      math(EXPR far "24 << ${level}")
      if(level EQUAL 0)
        set(band 2100:2700)
      else()
        set(band 8100:9900)
      endif()
      meshes_add_check(NAME meshes_geo_naca0012_tri_${level}_q2 MESH ${meshes_src}/naca0012_tri.geo
        GMSH DIM 2 ORDER 2 SETNUMBER level=${level}
        EXPECT "dim=2,geom_order=2,elements_quad=0,faces_group_wall=${wall},faces_group_farfield=${far}"
        RANGE "elements_tri=${band}")
    endforeach()
    # Vassberg and Jameson's section (naca0012_airfoil.inc, section 1): the
    # same far field as section 0, whose area `colordg info` prints as
    # 31415.538, and an airfoil 0.00093 smaller in area (0.080772 against
    # 0.081706, integrated from the two formulas), so the domain is 31415.5389:
    # the band holds the thinner section and not the default one
    meshes_add_check(NAME meshes_geo_naca0012_vj_0_q2 MESH ${meshes_src}/naca0012_tri.geo
      GMSH DIM 2 ORDER 2 SETNUMBER level=0,section=1
      EXPECT "dim=2,geom_order=2,elements_quad=0,faces_group_wall=88,faces_group_farfield=24"
      RANGE "elements_tri=2100:2700" VOLUME 31415.5386:31415.5393)
    # leading and trailing edges refined (tools/make_meshes.sh
    # --naca-ends-levels): wall elements there 4x smaller, so the smallest
    # element is 0.0013 against 0.0066 on the default level 0
    meshes_add_check(NAME meshes_geo_naca0012_ends_0_q2 MESH ${meshes_src}/naca0012_tri.geo
      GMSH DIM 2 ORDER 2 SETNUMBER level=0,end_ratio=0.05,n_side0=62
      EXPECT "dim=2,geom_order=2,elements_quad=0,faces_group_wall=124,faces_group_farfield=24"
      RANGE "elements_tri=2600:3300,h_min=0.0009:0.0018")
    meshes_add_check(NAME meshes_geo_nlr7301_0_q2 MESH ${meshes_src}/nlr7301.geo
      GMSH DIM 2 ORDER 2 SETNUMBER level=0
      EXPECT "dim=2,geom_order=2,elements_quad=0,faces_group_farfield=24"
      RANGE "elements_tri=3700:4600")
    # the sharp-trailing-edge variant (the case's mesh)
    meshes_add_check(NAME meshes_geo_nlr7301_sharp_0_q2 MESH ${meshes_src}/nlr7301_sharp.geo
      GMSH DIM 2 ORDER 2 SETNUMBER level=0
      EXPECT "dim=2,geom_order=2,elements_quad=0,faces_group_farfield=24"
      RANGE "elements_tri=3700:4600")
    # Gaussian bump (HiOCFD C1.1): structured, exact counts; the area of the
    # channel is 2.4 - 0.0625 sqrt(pi/25) = 2.3778443 (order 2 at level 0
    # overestimates it by 4e-5, order 3 at level 1 by 1e-7).
    meshes_add_check(NAME meshes_geo_gaussian_bump_0_q2 MESH ${meshes_src}/gaussian_bump.geo
      GMSH DIM 2 ORDER 2 SETNUMBER level=0
      EXPECT "dim=2,geom_order=2,elements_tri=0,elements_quad=48,elements_mapped=48,faces=112,faces_interior=80,faces_group_wall=12,faces_group_top=12,faces_group_inflow=4,faces_group_outflow=4"
      VOLUME 2.37784:2.37789)
    meshes_add_check(NAME meshes_geo_gaussian_bump_tri_1_q3 MESH ${meshes_src}/gaussian_bump.geo
      GMSH DIM 2 ORDER 3 SETNUMBER level=1,tri=1
      EXPECT "dim=2,geom_order=3,elements_tri=384,elements_quad=0,faces=608,faces_interior=544,faces_group_wall=24,faces_group_top=24,faces_group_inflow=8,faces_group_outflow=8"
      VOLUME 2.3778442:2.3778446)
    meshes_add_check(NAME meshes_geo_gaussian_bump_1_q3 MESH ${meshes_src}/gaussian_bump.geo
      GMSH DIM 2 ORDER 3 SETNUMBER level=1
      EXPECT "dim=2,geom_order=3,elements_tri=0,elements_quad=192,faces=416,faces_interior=352,faces_group_wall=24,faces_group_top=24,faces_group_inflow=8,faces_group_outflow=8"
      VOLUME 2.3778442:2.3778446)
    meshes_add_check(NAME meshes_geo_naca0012_tri_0_q3 MESH ${meshes_src}/naca0012_tri.geo
      GMSH DIM 2 ORDER 3 SETNUMBER level=0
      EXPECT "geom_order=3,faces_group_wall=88,faces_group_farfield=24" RANGE "elements_tri=2100:2700")
    foreach(n 4 6)
      math(EXPR tri "2 * ${n} * ${n}")
      math(EXPR quad "${n} * ${n}")
      math(EXPR tri_faces "3 * ${n} * ${n}")
      math(EXPR quad_faces "2 * ${n} * ${n}")
      math(EXPR mixed_quad "${n} * ${n} / 2")
      math(EXPR mixed_faces "5 * ${n} * ${n} / 2")
      math(EXPR periodic "2 * ${n}")
      foreach(order 1 2)
        meshes_add_check(NAME meshes_geo_square_tri_${n}_q${order} MESH ${meshes_src}/square_periodic.geo
          GMSH DIM 2 ORDER ${order} SETNUMBER kind=0,n=${n}
          EXPECT "elements_tri=${tri},elements_quad=0,faces=${tri_faces},faces_periodic=${periodic},faces_boundary=0"
          VOLUME ${unit_volume})
        meshes_add_check(NAME meshes_geo_square_quad_${n}_q${order} MESH ${meshes_src}/square_periodic.geo
          GMSH DIM 2 ORDER ${order} SETNUMBER kind=1,n=${n}
          EXPECT "elements_tri=0,elements_quad=${quad},faces=${quad_faces},faces_periodic=${periodic},faces_boundary=0"
          VOLUME ${unit_volume})
        meshes_add_check(NAME meshes_geo_square_mixed_${n}_q${order} MESH ${meshes_src}/square_periodic.geo
          GMSH DIM 2 ORDER ${order} SETNUMBER kind=2,n=${n}
          EXPECT "elements_tri=${quad},elements_quad=${mixed_quad},faces=${mixed_faces},faces_periodic=${periodic},faces_boundary=0"
          VOLUME ${unit_volume})
      endforeach()
    endforeach()
    foreach(n 2 4)
      math(EXPR tets "6 * ${n} * ${n} * ${n}")
      math(EXPR side "2 * ${n} * ${n}")
      math(EXPR faces "(4 * ${tets} + 6 * ${side}) / 2")
      meshes_add_check(NAME meshes_geo_box_tet_${n} MESH ${meshes_src}/box_tet.geo
        GMSH DIM 3 SETNUMBER n=${n}
        EXPECT "elements_tet=${tets},faces=${faces},faces_group_xmin=${side},faces_group_xmax=${side},faces_group_ymin=${side},faces_group_ymax=${side},faces_group_zmin=${side},faces_group_zmax=${side}"
        VOLUME ${unit_volume})
    endforeach()
    # Periodic box: unstructured, so only relations, no boundary, and some
    # periodic pairs; at order 2 as well.
    foreach(order 1 2)
      meshes_add_check(NAME meshes_geo_box_tet_periodic_4_q${order} MESH ${meshes_src}/box_tet.geo
        GMSH DIM 3 ORDER ${order} SETNUMBER n=4,periodic=1
        EXPECT "geom_order=${order},faces_boundary=0,groups=0" RANGE "elements_tet=250:600,faces_periodic=60:250"
        VOLUME ${unit_volume})
    endforeach()
    # Parameters the .geo files refuse, with a message rather than a bad mesh.
    colordg_add_cli_test(NAME meshes_geo_square_rejects_n2
      COMMAND ${COLORDG_GMSH_EXECUTABLE} -2 -setnumber n 2 -o ${CMAKE_CURRENT_BINARY_DIR}/meshes/rejected.msh
              ${meshes_src}/square_periodic.geo
      WILL_FAIL LABELS mesh gmsh)
    colordg_add_cli_test(NAME meshes_geo_box_rejects_periodic_n3
      COMMAND ${COLORDG_GMSH_EXECUTABLE} -3 -setnumber n 3 -setnumber periodic 1 -o
              ${CMAKE_CURRENT_BINARY_DIR}/meshes/rejected.msh ${meshes_src}/box_tet.geo
      WILL_FAIL LABELS mesh gmsh)
  endif()
endif()
