#!/usr/bin/env bash
# Runs of the NACA0012 transonic study (cases/naca0012_transonic, M 0.8,
# alpha 1.25 deg, artificial viscosity) on the GPU machine after
# tools/device_build.sh: explicit SSP-RK3 with local time steps and the bare
# freestream at the far field (the case's LU-SGS and vortex correction are
# switched off: this is the explicit study of docs/VALIDATION.md), each run
# stopped at 10 orders of residual drop or its wall-time budget.
#   tools/device_transonic_study.sh BUILD_DIR OUT_DIR SECONDS_PER_RUN JOBS RUN...
# RUN = MESH_NAME:MESH.cdgm:P:VARIANT:CFL[:S0_OFFSET] (VARIANT elem or cont;
# with S0_OFFSET the folder's variant becomes e.g. elem-o0 and the case's
# [artificial_viscosity] s0_offset is replaced), e.g.
#   hybrid:tests/data/mesh_naca0012_hybrid_q2.cdgm:2:elem:1.0
# JOBS runs share the GPU at a time (small meshes leave it mostly idle; wall
# times of concurrent runs are then upper bounds). Writes
# OUT_DIR/<mesh>_p<p>_<variant>/{case.ini, run.log, history.csv, surface_cp.csv,
# av_field.csv, ...}; tools/report_naca0012_transonic.py turns them into
# docs/VALIDATION.md.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 out=$2 budget=$3 jobs=$4
shift 4
run_one() {
  IFS=: read -r name mesh p variant cfl offset <<<"$1"
  local cont=no
  [ "$variant" = cont ] && cont=yes
  local edit_offset=()
  if [ -n "${offset:-}" ]; then
    variant=$variant-o$offset
    edit_offset=(-e "s/^s0_offset = .*/s0_offset = $offset/")
  fi
  local dir=$out/${name}_p${p}_${variant}
  mkdir -p "$dir"
  sed -e "s/^order = .*/order = $p/" -e "s/^cfl = .*/cfl = $cfl/" \
    -e "s/^scheme = .*/scheme = explicit_rk3/" -e "s/^vortex_correction = .*/vortex_correction = no/" \
    -e "s/^continuous = .*/continuous = $cont/" "${edit_offset[@]}" \
    -e "s/^checkpoint_every = .*/checkpoint_every = 0/" \
    -e "s/^\[stop\]/[stop]\nmax_wall_seconds = $budget/" \
    cases/naca0012_transonic/case.ini > "$dir/case.ini"
  "$build/colordg" run "$dir/case.ini" --backend cuda --mesh "$mesh" --output "$dir" \
    > "$dir/run.log" 2>&1 || true
  echo "$name p$p $variant: $(tail -n 3 "$dir/run.log" | head -n 2 | tr '\n' ' ')"
}
running=0
for spec in "$@"; do
  run_one "$spec" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait
