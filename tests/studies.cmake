# tools/studies.sh --quick: every study of docs/ (order of accuracy 2D, 3D and
# the Gaussian bump; NACA0012 M 0.5 explicit, LU-SGS and explicit vs
# implicit; NACA0012 M 0.8 p-chains, viscosity variants, report; NLR 7301;
# ONERA M6 sections) end to end on the CPU with tiny settings, into the build
# tree (never docs/). The script fails unless every stage rewrote its files
# (the PNGs when a python3 with matplotlib is found, else the runs' csv
# files) and recorded itself in studies_quick/STUDIES.md. About a minute on
# 2 loaded cores in Release. Not in sanitizer builds (tools/test.sh runs the
# suite again under ASan in Debug, where the 21 k-tetrahedra ONERA M6 runs
# are many times slower; the scripts are what this test checks, and the
# solver's paths are covered by the other tests there).
if(NOT COLORDG_SANITIZE)
  add_test(NAME studies_quick
           COMMAND ${COLORDG_SOURCE_DIR}/tools/studies.sh --quick --build-dir ${CMAKE_BINARY_DIR}
                   --out ${CMAKE_CURRENT_BINARY_DIR}/studies_quick --jobs 2)
  set_tests_properties(studies_quick PROPERTIES LABELS "study" TIMEOUT 300
                       RESOURCE_LOCK studies_quick)
  # --gpus 2: two stage groups side by side (on the CPU here), their files
  # and STUDIES.md blocks merged into one OUT
  add_test(NAME studies_quick_groups COMMAND bash -c
           "set -e; out=$1/studies_quick_groups; rm -rf $out;
            \"$0/tools/studies.sh\" --quick --gpus 2 --only nlr7301,naca_lift --build-dir $2 --out $out --work $out/work --jobs 1;
            for s in naca_lift nlr7301; do grep -q \"^<!-- stage:$s end -->$\" $out/STUDIES.md; done;
            test $(grep -c -- '--gpus 2 --only nlr7301,naca_lift' $out/STUDIES.md) = 2;
            test -s $out/NACA0012_LIFT.md; test ! -e $out/.gpu0; test ! -e $out/.gpu1"
           ${COLORDG_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR} ${CMAKE_BINARY_DIR})
  set_tests_properties(studies_quick_groups PROPERTIES LABELS "study" TIMEOUT 300)
endif()

# docs/STUDIES.md begins with the head tools/studies.sh writes (its table of
# which stage makes which file), so the doc and the script agree.
add_test(NAME studies_doc_header COMMAND bash -c
         "diff <(\"$0/tools/studies.sh\" header) <(awk '/^## Last runs/{exit} {print}' \"$0/docs/STUDIES.md\" | sed '$d')"
         ${COLORDG_SOURCE_DIR})
set_tests_properties(studies_doc_header PROPERTIES LABELS "study;docs" TIMEOUT 60)

# tools/panel_lift.py (the potential-flow reference of the NACA0012 lift
# study's low-Mach limit): on a Joukowski airfoil at 4 deg the lift
# extrapolated from 400, 800 and 1,600 panels is the exact one to 1e-4
# relative (measured 2.2e-5; the finest count alone is 1.5e-3 off)
add_test(NAME tools_panel_lift_joukowski
         COMMAND ${COLORDG_SYSTEM_PYTHON} ${COLORDG_SOURCE_DIR}/tools/panel_lift.py
                 --section joukowski --alpha 4 --panels 400,800,1600 --max-error 1e-4)
set_tests_properties(tools_panel_lift_joukowski PROPERTIES LABELS "study" TIMEOUT 120)

# tools/residual_rate.py (the explicit run's extrapolated time to 10 orders
# in docs/VALIDATION_ONERA_M6.md): synthetic histories with known rates
add_test(NAME tools_residual_rate
         COMMAND ${COLORDG_SYSTEM_PYTHON} ${COLORDG_SOURCE_DIR}/tests/scripts/check_residual_rate.py
                 ${COLORDG_SOURCE_DIR}/tools/residual_rate.py ${CMAKE_CURRENT_BINARY_DIR}/residual_rate_work)
set_tests_properties(tools_residual_rate PROPERTIES LABELS "study" TIMEOUT 60)
