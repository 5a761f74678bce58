# Basis functions and quadrature rules (src/element/basis.h, src/element/quadrature.c).
colordg_add_test(NAME test_quadrature SOURCES unit/test_quadrature.c LABELS unit)
colordg_add_test(NAME test_basis SOURCES unit/test_basis.c LABELS unit)
# The DG_HD basis maths run on the GPU against the host (exit 77 without a GPU).
# tests/support/basis_check.cu: the device side of the comparison (test only).
colordg_add_test(NAME test_basis_gpu SOURCES unit/test_basis_gpu.c support/basis_check.cu
                 LABELS gpu CUDA)
# tools/quadrature/derive_symmetric.c: the derivation of the symmetric
# triangle and tetrahedron rules (src/element/quadrature_symmetric.c). CI
# runs it only briefly: `check` re-verifies every shipped record (positive
# weights, interior points, moments to 1e-15), the table must be what `emit`
# writes from the records, and two quick searches must find the 12-point
# degree-6 triangle and the 14-point degree-5 tetrahedron rules.
add_executable(derive_symmetric ${PROJECT_SOURCE_DIR}/tools/quadrature/derive_symmetric.c)
target_compile_options(derive_symmetric PRIVATE ${COLORDG_C_WARNINGS})
if(M_LIBRARY)
  target_link_libraries(derive_symmetric PRIVATE ${M_LIBRARY})
endif()
set(quadrature_records ${PROJECT_SOURCE_DIR}/tools/quadrature/symmetric_rules.txt)
add_test(NAME tool_derive_symmetric_check
         COMMAND derive_symmetric check ${quadrature_records})
add_test(NAME tool_derive_symmetric_table
         COMMAND sh -c "$<TARGET_FILE:derive_symmetric> emit ${quadrature_records} > quadrature_symmetric.c && cmp quadrature_symmetric.c ${PROJECT_SOURCE_DIR}/src/element/quadrature_symmetric.c")
add_test(NAME tool_derive_symmetric_search
         COMMAND sh -c "$<TARGET_FILE:derive_symmetric> search --shape tri --degree 6 --quiet > tri6.txt && grep -q '^# tri degree 6: 12 points' tri6.txt && $<TARGET_FILE:derive_symmetric> search --shape tet --degree 5 --quiet > tet5.txt && grep -q '^# tet degree 5: 14 points' tet5.txt")
set_tests_properties(tool_derive_symmetric_check tool_derive_symmetric_table
                     tool_derive_symmetric_search PROPERTIES LABELS "tools" TIMEOUT 300)
