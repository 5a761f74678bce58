#!/usr/bin/env bash
# The converged NACA0012 M 0.8 study (cases/naca0012_transonic as it is:
# LU-SGS, held viscosity relaxed by 0.1, far-field vortex correction) on
# the GPU machine after tools/device_build.sh, p-sequenced per mesh: p = 1
# from the free stream, then p = 2 from the p = 1 solution and p = 3 from
# the p = 2 one (colordg run --init), each to 10 orders or MAX_ITERS.
#   tools/device_transonic_lusgs.sh BUILD_DIR OUT_DIR MAX_ITERS JOBS MESH...
# MESH = NAME:MESH.cdgm[:VARIANT[:P_MAX]], e.g.
# hybrid:tests/data/mesh_naca0012_hybrid_q2.cdgm. VARIANT lusgs (default:
# the case as it is) or one [artificial_viscosity] setting changed: cont
# (continuous = yes), density (sensor = density), s0<X> (s0_offset = X,
# e.g. s0-1), c<X> (c_eps = X) or kappa<X> (kappa = X);
# P_MAX the last p of the chain (default 3; a p that diverges or fails ends
# its chain). TRANSONIC_BACKEND: colordg run
# --backend (default cuda; cpu for a smoke test, tools/studies.sh --quick).
# JOBS meshes run at a time (their p chains in sequence), sharing the GPU;
# wall times of concurrent runs are then upper bounds. Writes
# OUT_DIR/<name>_p<p>_<variant>/{case.ini, run.log, history.csv, surface_cp.csv,
# av_field.csv, solution.cdgs, ...} for tools/report_naca0012_transonic.py.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 out=$2 max_iters=$3 jobs=$4
shift 4
chain() {
  local name mesh variant p_max
  IFS=: read -r name mesh variant p_max <<<"$1"
  variant=${variant:-lusgs}
  local cont=()
  case $variant in
    lusgs) ;;
    cont) cont=(-e "s/^continuous = .*/continuous = yes/") ;;
    density) cont=(-e "s/^sensor = .*/sensor = density/") ;;
    s0-[0-9]* | s0[0-9]*) cont=(-e "s/^s0_offset = .*/s0_offset = ${variant#s0}/") ;;
    c[0-9]*) cont=(-e "s/^c_eps = .*/c_eps = ${variant#c}/") ;;
    kappa[0-9]*) cont=(-e "s/^kappa = .*/kappa = ${variant#kappa}/") ;;
    *)
      echo "device_transonic_lusgs.sh: variant '$variant' is not lusgs, cont, density, s0<X>, c<X> or kappa<X>" >&2
      return 1
      ;;
  esac
  local prev=""
  for p in $(seq 1 "${p_max:-3}"); do
    local dir=$out/${name}_p${p}_$variant
    mkdir -p "$dir"
    sed -e "s/^order = .*/order = $p/" -e "s/^max_iters = .*/max_iters = $max_iters/" \
      -e "s/^checkpoint_every = .*/checkpoint_every = 0/" "${cont[@]}" \
      cases/naca0012_transonic/case.ini > "$dir/case.ini"
    local init=()
    [ -n "$prev" ] && init=(--init "$prev/solution.cdgs")
    "$build/colordg" run "$dir/case.ini" --backend "${TRANSONIC_BACKEND:-cuda}" --mesh "$mesh" --output "$dir" \
      "${init[@]}" > "$dir/run.log" 2>&1 || true
    echo "$name p$p $variant: $(grep -E 'after [0-9]+ iterations|error' "$dir/run.log" | head -n 1)"
    # a p that diverged or failed ends the chain (its state is no start)
    grep -q '^error' "$dir/run.log" && break
    prev=$dir
  done
}
running=0
for spec in "$@"; do
  chain "$spec" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait
