#!/usr/bin/env bash
# GPU run of the NACA0012 subsonic study (cases/naca0012_subsonic): explicit
# SSP-RK3 with local time steps, p = 1..3, on the meshes given, each run
# stopped at 10 orders or its wall-time budget. Meant for the GPU machine
# after tools/device_build.sh; the meshes are .cdgm (no Gmsh there).
#   tools/device_naca_study.sh BUILD_DIR OUT_DIR SECONDS_PER_RUN MESH.cdgm...
# Writes OUT_DIR/<mesh stem>_p<p>/{history.csv, surface_cp.csv, run.log, ...}.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 out=$2 budget=$3
shift 3
declare -A cfl=([1]=2.0 [2]=1.8 [3]=1.5)
for mesh in "$@"; do
  stem=$(basename "$mesh" .cdgm)
  for p in 1 2 3; do
    dir=$out/${stem}_p$p
    mkdir -p "$dir"
    sed -e "s/^order = .*/order = $p/" -e "s/^scheme = .*/scheme = explicit_rk3/" -e "s/^cfl = .*/cfl = ${cfl[$p]}/" \
      -e "s/^max_iters = .*/max_iters = 400000/" -e "s/^residual_drop = .*/residual_drop = 10/" \
      -e "s/^monitor_every = .*/monitor_every = 1000/" -e "s/^checkpoint_every = .*/checkpoint_every = 0/" \
      -e "s/^\[stop\]/[stop]\nmax_wall_seconds = $budget/" \
      cases/naca0012_subsonic/case.ini > "$dir/case.ini"
    "$build/colordg" run "$dir/case.ini" --backend cuda --mesh "$mesh" --output "$dir" \
      > "$dir/run.log" 2>&1 || true
    tail -2 "$dir/run.log"
  done
done
