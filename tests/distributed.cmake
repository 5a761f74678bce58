# Distributed runs (src/mesh/distribute.*, the backends' halo exchange,
# src/app/run.c with MPI): the partitioned residual against one process.
if(COLORDG_HAVE_MPI)
  colordg_build_test(test_mpi_residual ${CMAKE_CURRENT_SOURCE_DIR}/parallel/test_mpi_residual.c)
  # two ranks with a few large parts, three with many small ones (stripes
  # of 7 elements: most faces cut, ghosts on every side)
  foreach(variant "2;blocks" "3;stripes")
    list(GET variant 0 np)
    list(GET variant 1 kind)
    add_test(NAME test_mpi_residual_np${np}_${kind}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} --oversubscribe
                     $<TARGET_FILE:test_mpi_residual> --partition ${kind})
    set_tests_properties(test_mpi_residual_np${np}_${kind} PROPERTIES LABELS mpi TIMEOUT 300
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMP_NUM_THREADS=1")
  endforeach()
endif()

# Until the run driver is distributed, `mpirun -np 2 colordg run` refuses on
# every rank with one message and exit code 1.
if(COLORDG_HAVE_MPI)
  add_test(NAME cli_mpi_run_refused
           COMMAND sh -c "${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 --oversubscribe $<TARGET_FILE:colordg> run ${PROJECT_SOURCE_DIR}/cases/naca0012_subsonic/case.ini > out.txt 2>&1; rc=$?; cat out.txt; [ $rc -ne 0 ] && [ $(grep -c 'launched with 2 MPI ranks' out.txt) -eq 1 ]")
  set_tests_properties(cli_mpi_run_refused PROPERTIES LABELS "mpi;cli" TIMEOUT 60
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endif()
