# Defaults that converge (docs/LUSGS.md, "Defaults"): every shipped steady 2D
# case, run with its [solver] section removed, must reach its residual target
# within its own [stop] max_iters. The stripped case file is written at test
# time (tests/scripts/strip_solver.sh), so a change of a shipped case file is
# tested without reconfiguring. The committed .cdgm meshes stand in for the
# cases' .geo meshes (no Gmsh needed).
#
# cases/vortex is not among them: it is an unsteady verification run (a
# vortex advected through a periodic box, explicit SSP-RK3 with one global
# time step, stopped by max_iters at t ~ 20); there is no steady state for
# the implicit pseudo-time defaults to converge to, so its [solver] section
# is part of the problem, not a tuning.
#
# CI (2 CPU cores): p = 1, the coarsest setting of each case. p = 2 runs
# (2.5-5.5 min each on 2 loaded cores) are labelled slow and long:
# tools/test.sh runs them with COLORDG_LONG_TESTS=1 (ctest -L long alone).
set(DEFAULTS_DIR ${CMAKE_CURRENT_BINARY_DIR}/defaults)
file(MAKE_DIRECTORY ${DEFAULTS_DIR})

# defaults_case(NAME case_dir mesh.cdgm order labels...)
#   defaults_strip_NAME writes DEFAULTS_DIR/NAME.ini (the case without
#   [solver], at the given order); defaults_converge_NAME runs it and requires
#   the run to stop on the residual drop with the default solver settings.
function(defaults_case name case_dir mesh order)
  set(ini ${DEFAULTS_DIR}/${name}.ini)
  add_test(NAME defaults_strip_${name}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/strip_solver.sh
                   ${COLORDG_SOURCE_DIR}/cases/${case_dir}/case.ini ${ini} ${order})
  set_tests_properties(defaults_strip_${name} PROPERTIES FIXTURES_SETUP defaults_${name}
                       LABELS "app;defaults;${ARGN}")
  colordg_expect(defaults_converge_${name} 0
                 "solver +lusgs, CFL 1 -> 1000 .exponential, 100 iterations., 16 sweeps, max update 0\\.2.*p = ${order}, [0-9]+ elements.*residual drop reached after [0-9]+ iterations"
                 LABELS app run defaults ${ARGN}
                 ARGS run ${ini} --backend cpu --mesh ${COLORDG_TEST_DATA}/${mesh}
                      --output ${DEFAULTS_DIR}/out_${name})
  # A few hundred implicit iterations: about 10-40 s in Release on 2 idle
  # cores; the limit leaves room for a loaded machine. Under the sanitizers
  # (Debug, ~20x slower) they join the slow tests, which tools/test.sh skips
  # there; the same arithmetic runs under ASan in the short LU-SGS tests.
  set(labels app run defaults ${ARGN})
  if(COLORDG_SANITIZE)
    list(APPEND labels slow)
  endif()
  set_tests_properties(defaults_converge_${name} PROPERTIES FIXTURES_REQUIRED defaults_${name}
                       TIMEOUT 1800 LABELS "cli;${labels}")
endfunction()

defaults_case(naca0012_subsonic_p1 naca0012_subsonic mesh_naca0012_tri_0_q2.cdgm 1)
defaults_case(naca0012_transonic_p1 naca0012_transonic mesh_naca0012_hybrid_q2.cdgm 1)
defaults_case(naca0012_subsonic_p2 naca0012_subsonic mesh_naca0012_tri_0_q2.cdgm 2 slow long)
defaults_case(naca0012_transonic_p2 naca0012_transonic mesh_naca0012_hybrid_q2.cdgm 2 slow long)

# `colordg run --help` names the default scheme (LU-SGS, [solver] scheme), not
# SSP-RK3.
colordg_expect(defaults_run_help 0 "marches it \\(\\[solver\\] scheme: implicit LU-SGS by default, or explicit SSP-RK3\\)"
               LABELS app defaults ARGS run --help)

# The documents a newcomer reads first stand alone: no reference to files
# outside the repository (../shared, DESIGN.md) and no README link to a
# missing docs/ page (tests/scripts/check_docs.sh).
add_test(NAME docs_stand_alone
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_docs.sh ${COLORDG_SOURCE_DIR})
set_tests_properties(docs_stand_alone PROPERTIES LABELS "app;defaults;docs")
