#!/usr/bin/env bash
# ONERA M6 (cases/onera_m6 as it is) on the GPU machine after
# tools/device_build.sh, p-sequenced per mesh: p = 1 from the free stream,
# then p = 2 and p = 3 each from the lower p's solution (colordg run --init),
# each to 10 orders or MAX_ITERS. The peak GPU memory of each run is sampled
# with nvidia-smi every 0.2 s.
#   tools/device_m6.sh BUILD_DIR OUT_DIR MAX_ITERS P_MAX MESH...
# MESH = NAME:MESH.cdgm. Environment: M6_P_MIN (first p, default 1) and
# M6_INIT (a .cdgs of that mesh to start the first p from, default the free
# stream), M6_WALL_FLUX ([artificial_viscosity] wall_flux, default the
# case's), M6_CFL_MAX ([solver] cfl_max, default the case's), M6_SCHEME
# ([solver] scheme, default the case's), M6_BACKEND (colordg run
# --backend, default cuda; cpu for a smoke test, tools/studies.sh --quick)
# and M6_CASE (the case file, default cases/onera_m6/case.ini; any steady
# case runs the same chain: tools/device_nlr7301.sh uses it).
# A p that ends without diverging (converged or at MAX_ITERS) starts
# the next one. Writes OUT_DIR/<name>_p<p>/{case.ini, run.log,
# history.csv, surface_cp.csv, solution.cdgs, gpu_mem_peak_mib, ...}.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/device_gpu_peak.sh
build=$1 out=$2 max_iters=$3 p_max=$4
shift 4
for spec in "$@"; do
  IFS=: read -r name mesh <<<"$spec"
  prev=""
  for p in $(seq "${M6_P_MIN:-1}" "$p_max"); do
    dir=$out/${name}_p$p
    mkdir -p "$dir"
    sed -e "s/^order = .*/order = $p/" -e "s/^max_iters = .*/max_iters = $max_iters/" \
      -e "s/^checkpoint_every = .*/checkpoint_every = 0/" \
      "${M6_CASE:-cases/onera_m6/case.ini}" > "$dir/case.ini"
    [ -n "${M6_WALL_FLUX:-}" ] &&
      sed -i "s/^\[artificial_viscosity\]$/[artificial_viscosity]\nwall_flux = $M6_WALL_FLUX/" "$dir/case.ini"
    [ -n "${M6_CFL_MAX:-}" ] && sed -i "s/^cfl_max = .*/cfl_max = $M6_CFL_MAX/" "$dir/case.ini"
    [ -n "${M6_SCHEME:-}" ] && sed -i "s/^scheme = .*/scheme = $M6_SCHEME/" "$dir/case.ini"
    init=()
    [ -n "$prev" ] && init=(--init "$prev/solution.cdgs")
    [ -z "$prev" ] && [ -n "${M6_INIT:-}" ] && init=(--init "$M6_INIT")
    run_gpu_peak "$dir" "$build/colordg" run "$dir/case.ini" --backend "${M6_BACKEND:-cuda}" --mesh "$mesh" \
      --output "$dir" "${init[@]}"
    echo "$name p$p: $(grep -E 'after [0-9]+ iterations|error' "$dir/run.log" | head -n 1)" \
      "(GPU memory peak $(cat "$dir/gpu_mem_peak_mib" 2>/dev/null || echo ?) MiB)"
    prev=$dir
    grep -qE 'residual drop reached|iteration limit reached' "$dir/run.log" || break
  done
done
