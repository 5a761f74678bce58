# Distributed runs (src/mesh/distribute.*, the backends' halo exchange,
# src/app/run.c with MPI): the partitioned residual against one process.
if(COLORDG_HAVE_MPI)
  colordg_build_test(test_mpi_residual ${CMAKE_CURRENT_SOURCE_DIR}/parallel/test_mpi_residual.c)
  foreach(np 2 3)
    foreach(kind blocks stripes)
      add_test(NAME test_mpi_residual_np${np}_${kind}
               COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} --oversubscribe
                       $<TARGET_FILE:test_mpi_residual> --partition ${kind})
      set_tests_properties(test_mpi_residual_np${np}_${kind} PROPERTIES LABELS mpi TIMEOUT 300
        ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMP_NUM_THREADS=1")
    endforeach()
  endforeach()
endif()
