# Outputs (src/app/solution_io, vtu, surface): restart files, VTU/PVD for
# ParaView, wall Cp and force coefficients.
colordg_add_test(NAME test_output SOURCES unit/test_output.c LABELS unit app)
