# Distributed runs (src/mesh/distribute.*, the backends' halo exchange,
# src/app/run_dist.c): the partitioned residual and SSP-RK3 against one
# process, and `colordg run` under mpirun.
colordg_build_test(test_mpi_residual ${CMAKE_CURRENT_SOURCE_DIR}/parallel/test_mpi_residual.c)
# two ranks with a few large parts, three with many small ones (stripes of
# 7 elements: most faces cut, ghosts on every side)
colordg_add_mpi_test(NAME test_mpi_residual_np2_blocks NP 2 TARGET test_mpi_residual
                     ARGS --partition blocks TIMEOUT 300)
colordg_add_mpi_test(NAME test_mpi_residual_np3_stripes NP 3 TARGET test_mpi_residual
                     ARGS --partition stripes TIMEOUT 300 LABELS slow)
# (stripes: label slow, left out of the sanitizer run for time, 118 s there
# on 2 cores; the blocks partition runs the same halo code under it)
# the same on the GPU (label gpu; 77 = skipped without a device): 2 and 3
# ranks sharing the machine's GPU(s) exercise the CUDA halo path (pack and
# unpack kernels, pinned staging or CUDA-aware MPI), owned-only element
# kernels and masked reductions
# (IPC: GPU-to-GPU copies into the neighbours' buffers, the default on one
# host; staged: through pinned host memory and MPI, forced by
# COLORDG_HALO_TRANSPORT=staged)
colordg_add_mpi_test(NAME test_mpi_residual_np2_blocks_cuda NP 2 TARGET test_mpi_residual
                     ARGS --partition blocks --backend cuda --expect-transport IPC TIMEOUT 300
                     LABELS gpu)
colordg_add_mpi_test(NAME test_mpi_residual_np3_stripes_cuda NP 3 TARGET test_mpi_residual
                     ARGS --partition stripes --backend cuda --expect-transport IPC TIMEOUT 300
                     LABELS gpu)
colordg_add_mpi_test(NAME test_mpi_residual_np3_stripes_cuda_staged NP 3 TARGET test_mpi_residual
                     ARGS --partition stripes --backend cuda --expect-transport staged
                     TIMEOUT 300 LABELS gpu)
if(TEST test_mpi_residual_np3_stripes_cuda_staged)
  set_property(TEST test_mpi_residual_np3_stripes_cuda_staged APPEND PROPERTY ENVIRONMENT
               COLORDG_HALO_TRANSPORT=staged)
endif()

if(COLORDG_HAVE_MPI)
  set(mpi_env "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_mpi_yield_when_idle=1;OMP_NUM_THREADS=1")
  # under ASan the same as colordg_add_mpi_test: Open MPI's own allocations
  # suppressed by library name, its components kept loaded and the slow
  # unwinder, so that the frames carry those names
  if(COLORDG_SANITIZE)
    list(APPEND mpi_env
         "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/sanitizer/lsan.supp"
         "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
         ASAN_OPTIONS=fast_unwind_on_malloc=0 OMPI_MCA_mca_base_component_disable_dlclose=1)
  endif()
  # 1 rank vs 2 ranks + a restart on 3: the same solution, byte for byte,
  # with SSP-RK3 and with LU-SGS (colour-synchronous sweeps: the ghosts' dU
  # after every colour, so the sweeps are those of one process)
  foreach(scheme rk3 lusgs)
    add_test(NAME run_mpi_restart_${scheme}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mpi_run_check.sh $<TARGET_FILE:colordg>
                     ${MPIEXEC_EXECUTABLE} ${COLORDG_TEST_DATA}/case_mpi_${scheme}.ini
                     ${CMAKE_CURRENT_BINARY_DIR}/run_mpi_restart_${scheme})
    # (LU-SGS: label slow, left out of the sanitizer run for time; SSP-RK3
    # covers the same distributed paths there)
    set(labels "mpi;app")
    if(scheme STREQUAL "lusgs")
      set(labels "mpi;app;slow")
    endif()
    set_tests_properties(run_mpi_restart_${scheme} PROPERTIES LABELS "${labels}" TIMEOUT 300
                         PROCESSORS 3 ENVIRONMENT "${mpi_env}")
  endforeach()
  # the same on the GPU (label gpu; 77 = skipped without a device): ranks
  # share the machine's GPU(s), so the CUDA halo path runs on one GPU
  foreach(scheme rk3 lusgs)
    add_test(NAME run_mpi_restart_${scheme}_cuda
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mpi_run_check.sh $<TARGET_FILE:colordg>
                     ${MPIEXEC_EXECUTABLE} ${COLORDG_TEST_DATA}/case_mpi_${scheme}.ini
                     ${CMAKE_CURRENT_BINARY_DIR}/run_mpi_restart_${scheme}_cuda cuda)
    set_tests_properties(run_mpi_restart_${scheme}_cuda PROPERTIES LABELS "mpi;app;gpu" TIMEOUT 300
                         PROCESSORS 3 SKIP_RETURN_CODE 77 ENVIRONMENT "${mpi_env}")
  endforeach()
  # the same with artificial viscosity (LU-SGS, NACA 0012 M 0.8, p = 1):
  # the 2-rank checkpoint holds the viscosity gathered from the ranks, the
  # 3-rank restart scatters it back and its partition spreads the viscous
  # rows over the ranks ([solver] partition_viscous, METIS
  # multi-constraint); the run must say so and still give the one-process
  # solution byte for byte (label slow, left out of the sanitizer run for
  # time, 90 s there on 2 cores: run_mpi_repartition_pseq below gathers and
  # scatters the held viscosity and spreads its viscous rows there too)
  add_test(NAME run_mpi_partition_viscous
           COMMAND sh -c "sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mpi_run_check.sh $<TARGET_FILE:colordg> ${MPIEXEC_EXECUTABLE} ${COLORDG_TEST_DATA}/case_mpi_lusgs_av.ini ${CMAKE_CURRENT_BINARY_DIR}/run_mpi_partition_viscous && grep 'viscous rows of the start state spread over the ranks' ${CMAKE_CURRENT_BINARY_DIR}/run_mpi_partition_viscous/three.log && ! grep -q 'viscous rows' ${CMAKE_CURRENT_BINARY_DIR}/run_mpi_partition_viscous/two.log")
  set_tests_properties(run_mpi_partition_viscous PROPERTIES LABELS "mpi;app;slow" TIMEOUT 300
                       PROCESSORS 3 ENVIRONMENT "${mpi_env}")
  # the same p-sequenced 1 -> 2 (p = 1 cut at iteration 10): the 2-rank run
  # partitions again at the hand-over with the viscous rows of the p = 1
  # state and must say so; 1 rank (30 iterations) against 2 (20) + 3
  # (restart at p = 2, to 30) byte for byte (not slow: the sanitizer run
  # covers the part torn down and cut again)
  add_test(NAME run_mpi_repartition_pseq
           COMMAND sh -c "MPI_CHECK_ITERS='30 20' sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mpi_run_check.sh $<TARGET_FILE:colordg> ${MPIEXEC_EXECUTABLE} ${COLORDG_TEST_DATA}/case_mpi_lusgs_av_pseq.ini ${CMAKE_CURRENT_BINARY_DIR}/run_mpi_repartition_pseq && grep 'p-sequencing: partitioned again with the' ${CMAKE_CURRENT_BINARY_DIR}/run_mpi_repartition_pseq/two.log")
  set_tests_properties(run_mpi_repartition_pseq PROPERTIES LABELS "mpi;app" TIMEOUT 300
                       PROCESSORS 3 ENVIRONMENT "${mpi_env}")
  add_test(NAME run_mpi_repartition_pseq_cuda
           COMMAND sh -c "MPI_CHECK_ITERS='30 20' sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mpi_run_check.sh $<TARGET_FILE:colordg> ${MPIEXEC_EXECUTABLE} ${COLORDG_TEST_DATA}/case_mpi_lusgs_av_pseq.ini ${CMAKE_CURRENT_BINARY_DIR}/run_mpi_repartition_pseq_cuda cuda && grep 'p-sequencing: partitioned again with the' ${CMAKE_CURRENT_BINARY_DIR}/run_mpi_repartition_pseq_cuda/two.log")
  set_tests_properties(run_mpi_repartition_pseq_cuda PROPERTIES LABELS "mpi;app;gpu" TIMEOUT 300
                       PROCESSORS 3 SKIP_RETURN_CODE 77 ENVIRONMENT "${mpi_env}")
  # more ranks than elements: the error from every rank, non-zero exit,
  # nothing written in the output folder
  add_test(NAME run_mpi_refuses_more_ranks_than_elements
           COMMAND sh -c "rm -rf tiny_out; ${MPIEXEC_EXECUTABLE} -n 3 --oversubscribe $<TARGET_FILE:colordg> run ${COLORDG_TEST_DATA}/case_mpi_tiny.ini --backend cpu --output tiny_out > tiny.txt 2>&1; rc=$?; cat tiny.txt; [ $rc -ne 0 ] && grep -q '3 MPI ranks for a mesh of 2 elements: use at most one rank per element' tiny.txt && [ -z \"$(ls -A tiny_out 2>/dev/null)\" ]")
  set_tests_properties(run_mpi_refuses_more_ranks_than_elements PROPERTIES LABELS "mpi;app" TIMEOUT 60
                       ENVIRONMENT "${mpi_env}")
  # Newton-Krylov: 1 rank vs 2, forces to 1e-8 (Krylov sums in rank order)
  add_test(NAME run_mpi_newton
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mpi_close_check.sh $<TARGET_FILE:colordg>
                   ${MPIEXEC_EXECUTABLE} ${COLORDG_TEST_DATA}/case_mpi_newton.ini
                   ${CMAKE_CURRENT_BINARY_DIR}/run_mpi_newton 12)
  set_tests_properties(run_mpi_newton PROPERTIES LABELS "mpi;app;slow" TIMEOUT 300 PROCESSORS 2
                       ENVIRONMENT "${mpi_env}")
  # LU-SGS with [solver] rank_coupling = pass (dU exchanged once per pass:
  # block Jacobi between the ranks): 1 rank vs 2, both converged 10 orders,
  # the same forces to 1e-8
  add_test(NAME run_mpi_lusgs_pass
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mpi_close_check.sh $<TARGET_FILE:colordg>
                   ${MPIEXEC_EXECUTABLE} ${COLORDG_TEST_DATA}/case_mpi_lusgs_pass.ini
                   ${CMAKE_CURRENT_BINARY_DIR}/run_mpi_lusgs_pass 400)
  set_tests_properties(run_mpi_lusgs_pass PROPERTIES LABELS "mpi;app;slow" TIMEOUT 300 PROCESSORS 2
                       ENVIRONMENT "${mpi_env}")
  add_test(NAME run_mpi_lusgs_pass_cuda
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mpi_close_check.sh $<TARGET_FILE:colordg>
                   ${MPIEXEC_EXECUTABLE} ${COLORDG_TEST_DATA}/case_mpi_lusgs_pass.ini
                   ${CMAKE_CURRENT_BINARY_DIR}/run_mpi_lusgs_pass_cuda 400 cuda)
  set_tests_properties(run_mpi_lusgs_pass_cuda PROPERTIES LABELS "mpi;app;gpu" TIMEOUT 300
                       PROCESSORS 2 SKIP_RETURN_CODE 77 ENVIRONMENT "${mpi_env}")
  add_test(NAME run_mpi_newton_cuda
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mpi_close_check.sh $<TARGET_FILE:colordg>
                   ${MPIEXEC_EXECUTABLE} ${COLORDG_TEST_DATA}/case_mpi_newton.ini
                   ${CMAKE_CURRENT_BINARY_DIR}/run_mpi_newton_cuda 12 cuda)
  set_tests_properties(run_mpi_newton_cuda PROPERTIES LABELS "mpi;app;gpu" TIMEOUT 300 PROCESSORS 2
                       SKIP_RETURN_CODE 77 ENVIRONMENT "${mpi_env}")
  # the volume output in pieces (solution.pvtu, one .vtu per rank, written
  # in parallel; [output] vtu_pieces = auto) read back with VTK's readers
  # and compared with one process's solution.vtu element by element, bit
  # for bit, final state and series (system python3 with python3-vtk9;
  # 77 = skipped without it): NACA0012 on 3 ranks, and tetrahedra with
  # artificial viscosity (the per-element field) on 2
  set(pvtu_work ${CMAKE_CURRENT_BINARY_DIR}/run_mpi_pvtu)
  file(MAKE_DIRECTORY ${pvtu_work})
  file(WRITE ${pvtu_work}/box_tet_av.ini "[mesh]\nfile = ${COLORDG_TEST_DATA}/mesh_box_tet_3.cdgm\n\n[flow]\nmach = 0.3\n\n[discretization]\norder = 2\n\n[solver]\nscheme = explicit_rk3\ncfl = 0.3\n\n[artificial_viscosity]\nenabled = yes\n\n[output]\n\n[boundary]\nxmin = farfield\nxmax = farfield\nymin = farfield\nymax = farfield\nzmin = wall\nzmax = farfield\n")
  add_test(NAME run_mpi_pvtu_2d
           COMMAND ${COLORDG_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_pvtu.py
                   $<TARGET_FILE:colordg> ${MPIEXEC_EXECUTABLE} ${COLORDG_TEST_DATA}/case_mpi_rk3.ini
                   ${pvtu_work}/naca 3)
  add_test(NAME run_mpi_pvtu_tet
           COMMAND ${COLORDG_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_pvtu.py
                   $<TARGET_FILE:colordg> ${MPIEXEC_EXECUTABLE} ${pvtu_work}/box_tet_av.ini
                   ${pvtu_work}/tet 2)
  set_tests_properties(run_mpi_pvtu_2d run_mpi_pvtu_tet PROPERTIES LABELS "mpi;app;output"
                       TIMEOUT 180 PROCESSORS 3 SKIP_RETURN_CODE 77 ENVIRONMENT "${mpi_env}")
  # what a distributed run refuses: commands other than run; the failing
  # rank's message, non-zero exit
  set(refusals
      "info|info ${COLORDG_TEST_DATA}/mesh_square_mixed_8.cdgm|only `colordg run` runs on several MPI ranks")
  foreach(item ${refusals})
    string(REPLACE "|" ";" parts "${item}")
    list(GET parts 0 name)
    list(GET parts 1 args)
    list(GET parts 2 needle)
    add_test(NAME run_mpi_refuses_${name}
             COMMAND sh -c "${MPIEXEC_EXECUTABLE} -n 2 --oversubscribe $<TARGET_FILE:colordg> ${args} > refuse_${name}.txt 2>&1; rc=$?; cat refuse_${name}.txt; [ $rc -ne 0 ] && grep -q '${needle}' refuse_${name}.txt")
    set_tests_properties(run_mpi_refuses_${name} PROPERTIES LABELS "mpi;app" TIMEOUT 60
                         ENVIRONMENT "${mpi_env}")
  endforeach()
endif()

# the scaling tool (tools/scaling_mpi.py) on 1 and 2 ranks, a few iterations
find_package(Python3 COMPONENTS Interpreter)
if(COLORDG_HAVE_MPI AND Python3_Interpreter_FOUND)
  add_test(NAME tool_scaling_mpi
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/scaling_mpi.py
                   --case ${COLORDG_TEST_DATA}/case_mpi_rk3.ini --ranks 1 2 --iters 5 --cores 2
                   --colordg $<TARGET_FILE:colordg> --out ${CMAKE_CURRENT_BINARY_DIR}/tool_scaling_mpi)
  set_tests_properties(tool_scaling_mpi PROPERTIES LABELS "mpi;tools" TIMEOUT 120 PROCESSORS 2
                       PASS_REGEX "strong_2 \\| 2 x 1 \\| 2402 \\| 5 \\| [-0-9.]+ \\| 0\\.[0-9]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| [1-9]"
                       ENVIRONMENT "${mpi_env}")
endif()

# tools/bench_halo.c: ping-pong of halo messages (latency, bandwidth), and a
# smoke run of it
if(COLORDG_HAVE_MPI)
  add_executable(bench_halo ${PROJECT_SOURCE_DIR}/tools/bench_halo.c)
  target_compile_options(bench_halo PRIVATE ${COLORDG_C_WARNINGS})
  target_link_libraries(bench_halo PRIVATE colordg_lib)
  add_test(NAME bench_halo_smoke
           COMMAND ${MPIEXEC_EXECUTABLE} -n 2 --oversubscribe $<TARGET_FILE:bench_halo> --reps 3)
  set_tests_properties(bench_halo_smoke PROPERTIES LABELS "mpi;tools" TIMEOUT 60 PROCESSORS 2
                       PASS_REGEX "# fit: alpha [-0-9.]+ us, beta [0-9.]+ GB/s"
                       ENVIRONMENT "${mpi_env}")
endif()

# tools/make_box_mesh.c: periodic tetrahedral boxes of any size for the
# scaling runs (cases/scaling/), and a smoke run of the scaling case on two
# ranks
add_executable(colordg_box_mesh ${PROJECT_SOURCE_DIR}/tools/make_box_mesh.c)
target_compile_options(colordg_box_mesh PRIVATE ${COLORDG_C_WARNINGS})
target_link_libraries(colordg_box_mesh PRIVATE colordg_lib)
# (the checks are the commands' exit status: every step must succeed and
# every grep find its line)
add_test(NAME tool_box_mesh
         COMMAND sh -c "$<TARGET_FILE:colordg_box_mesh> 8 8 4 box_884.cdgm > box.txt && $<TARGET_FILE:colordg> info box_884.cdgm >> box.txt; rc=$?; cat box.txt; [ $rc -eq 0 ] && grep -q '1536 tetrahedra, 8 x 8 x 4 periodic cells' box.txt && grep -Eq 'tetrahedra \\(order 1\\) +1536$' box.txt")
set_tests_properties(tool_box_mesh PROPERTIES LABELS "tools" TIMEOUT 60)
if(COLORDG_HAVE_MPI)
  add_test(NAME run_mpi_box_vortex
           COMMAND sh -c "$<TARGET_FILE:colordg_box_mesh> 8 8 4 box_884_np2.cdgm && ${MPIEXEC_EXECUTABLE} -n 2 --oversubscribe $<TARGET_FILE:colordg> run ${PROJECT_SOURCE_DIR}/cases/scaling/box_vortex_rk3.ini --backend cpu --mesh box_884_np2.cdgm --max-iters 4 --output box_vortex_np2 > box_np2.txt 2>&1; rc=$?; cat box_np2.txt; [ $rc -eq 0 ] && grep -q 'distributed: 2 MPI ranks' box_np2.txt && grep -q 'after 4 iterations' box_np2.txt && grep -Eq 'halo wait per rank [(]s[)]: [0-9.]+ [0-9.]+$' box_np2.txt")
  set_tests_properties(run_mpi_box_vortex PROPERTIES LABELS "mpi;app" TIMEOUT 120 PROCESSORS 2
                       ENVIRONMENT "${mpi_env}")
endif()
