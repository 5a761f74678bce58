#!/usr/bin/env bash
# NLR 7301 (cases/nlr7301 as it is) on the GPU machine after
# tools/device_build.sh: per mesh a p chain, p = 1 from the free stream, then
# p = 2 and p = 3 each from the lower p's solution (colordg run --init),
# each to 10 orders or MAX_ITERS, with the nvidia-smi memory peak. The chain
# is tools/device_m6.sh's, run on this case.
#   tools/device_nlr7301.sh BUILD_DIR OUT_DIR MAX_ITERS P_MAX NAME:MESH.cdgm...
# Environment: NLR_BACKEND (colordg run --backend, default cuda), NLR_CASE
# (the case file, default cases/nlr7301/case.ini; a variant's copy). Writes
# OUT_DIR/<name>_p<p>/{case.ini, run.log, history.csv, surface_cp.csv,
# solution.cdgs, gpu_mem_peak_mib} and prints one line per run.
set -euo pipefail
cd "$(dirname "$0")/.."
M6_CASE=${NLR_CASE:-cases/nlr7301/case.ini} M6_BACKEND=${NLR_BACKEND:-cuda} \
  exec tools/device_m6.sh "$@"
