# Distributed runs (src/parallel, src/mesh/partition): the communicator
# under mpirun with 1, 2 and 3 ranks (label mpi, only in a build with MPI:
# colordg_add_mpi_test), and the partitioner (one process; without METIS it
# checks that more than one part is refused).
colordg_add_test(NAME test_partition SOURCES unit/test_partition.c LABELS unit mesh)
# test_comm: one process (no launcher; every build), then under mpirun. The
# argument is the rank count the launch must give.
colordg_add_test(NAME test_comm SOURCES unit/test_comm.c LABELS unit)
foreach(np 1 2 3)
  colordg_add_mpi_test(NAME test_comm_np${np} NP ${np} TARGET test_comm ARGS ${np} TIMEOUT 30)
endforeach()

# `colordg info --partitions N` (docs/CASE_FILE.md, "Partitions"): the
# report's rows, its errors, and the refusal of a build without METIS.
set(D ${COLORDG_TEST_DATA})
colordg_expect(app_info_partitions_one 0
               "partitions,1\npartition_p,2\npartition_method,none\npart_0_elements,96\n.*partition_imbalance,1.000000\npartition_colour_balance,1.000000\npartition_cut_faces,0\n"
               LABELS app ARGS info --csv --p 2 --partitions 1 ${D}/mesh_square_mixed_8.cdgm)
colordg_expect(app_info_partitions_zero 2 "--partitions expects a positive integer, got '0'"
               LABELS app ARGS info --partitions 0 ${D}/mesh_square_mixed_8.cdgm)
colordg_expect(app_info_partitions_missing 2 "--partitions needs a value"
               LABELS app ARGS info ${D}/mesh_square_mixed_8.cdgm --partitions)
if(COLORDG_HAVE_MPI)
  colordg_expect(app_info_partitions 0
                 "partitions +3\n +weighted at degree p +2\n +method +METIS recursive bisection\n +part 0 +[0-9]+ elements, weight [0-9.]+ \\([0-9.]+ of mean\\), [0-9]+ face ghosts \\([0-9]+ by vertex\\), 2 neighbours\n.*imbalance \\(max/mean weight\\) +1\\.0[0-9]+\n +colour-step balance +0\\.[5-9][0-9]+ \\(per colour, mean part / largest part, summed: bounds LU-SGS sweeps across ranks\\)\n +cut faces +[1-9][0-9]*\n.*halo bytes per state exchange, p=2 +[1-9][0-9]* \\(all parts"
                 LABELS app ARGS info --p 2 --partitions 3 ${D}/mesh_square_mixed_8.cdgm)
  colordg_expect(app_info_partitions_kway 0
                 "partitions,9\n.*partition_method,metis_kway\n.*part_8_neighbors,[1-9]\npartition_imbalance,1\\.0[0-9]+\n"
                 LABELS app ARGS info --csv --partitions 9 ${D}/mesh_box_tet_periodic_4.cdgm)
  colordg_expect(app_info_partitions_too_many 1 "97 partitions requested for 96 elements"
                 LABELS app ARGS info --partitions 97 ${D}/mesh_square_mixed_8.cdgm)
  # a case (p = 2): weighted at the case's degree
  colordg_expect(app_info_partitions_case 0 "case_order,2\n.*partitions,2\npartition_p,2\n"
                 LABELS app ARGS info --csv --partitions 2 ${CMAKE_CURRENT_BINARY_DIR}/app_fixture/app_strip.ini)
  set_tests_properties(app_info_partitions_case PROPERTIES FIXTURES_REQUIRED app_strip)
else()
  colordg_expect(app_info_partitions_unsupported 1 "2 partitions requested, but this ColorDG was built without MPI/METIS"
                 LABELS app ARGS info --partitions 2 ${D}/mesh_square_mixed_8.cdgm)
endif()
