# Sourced by the Newton-Krylov app tests on the NACA 0012 M 0.8 case
# (run_newton_relax_adapt.sh, run_newton_coupled.sh):
#   newton_p1_case CASE_IN CASE_OUT MAX_ITERS
# writes CASE_IN as a Newton-Krylov run at p = 1 from CFL 10 (cfl_max and
# cfl_ramp_iters removed: the scheme's defaults), without checkpoints,
# stopping after MAX_ITERS steps; returns 1 when the scheme line was not
# replaced.
newton_p1_case() {
  sed -e 's/^scheme = lusgs/scheme = newton_krylov/' -e '/^cfl_max/d' -e '/^cfl_ramp_iters/d' \
      -e 's/^cfl_min = .*/cfl_min = 10/' -e 's/^order = .*/order = 1/' \
      -e 's/^checkpoint_every = .*/checkpoint_every = 0/' -e "s/^max_iters = .*/max_iters = $3/" \
      "$1" > "$2" && grep -q '^scheme = newton_krylov' "$2"
}
