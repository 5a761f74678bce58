#!/usr/bin/env bash
# NLR 7301 (cases/nlr7301 as it is) on the GPU machine after
# tools/device_build.sh: per mesh a p chain, p = 1 from the free stream, then
# p = 2 and p = 3 each from the lower p's solution (colordg run --init),
# each to 10 orders or MAX_ITERS, with the nvidia-smi memory peak.
#   tools/device_nlr7301.sh BUILD_DIR OUT_DIR MAX_ITERS P_MAX NAME:MESH.cdgm...
# Environment: NLR_BACKEND (colordg run --backend, default cuda), NLR_CASE
# (the case file, default cases/nlr7301/case.ini; a variant's copy). Writes
# OUT_DIR/<name>_p<p>/{case.ini, run.log, history.csv, surface_cp.csv,
# solution.cdgs, gpu_mem_peak_mib} and prints one line per run.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/device_gpu_peak.sh
build=$1 out=$2 max_iters=$3 p_max=$4
shift 4
for spec in "$@"; do
  IFS=: read -r name mesh <<<"$spec"
  prev=""
  for p in $(seq 1 "$p_max"); do
    dir=$out/${name}_p$p
    mkdir -p "$dir"
    sed -e "s/^order = .*/order = $p/" -e "s/^max_iters = .*/max_iters = $max_iters/" \
      -e "s/^checkpoint_every = .*/checkpoint_every = 0/" "${NLR_CASE:-cases/nlr7301/case.ini}" \
      >"$dir/case.ini"
    init=()
    [ -n "$prev" ] && init=(--init "$prev/solution.cdgs")
    run_gpu_peak "$dir" "$build/colordg" run "$dir/case.ini" --backend "${NLR_BACKEND:-cuda}" \
      --mesh "$mesh" --output "$dir" "${init[@]}"
    echo "$name p$p: $(grep -E 'after [0-9]+ iterations|error' "$dir/run.log" | head -n 1)" \
      "(GPU memory peak $(cat "$dir/gpu_mem_peak_mib" 2>/dev/null || echo ?) MiB)"
    prev=$dir
    grep -qE 'residual drop reached|iteration limit reached' "$dir/run.log" || break
  done
done
