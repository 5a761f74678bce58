#!/usr/bin/env bash
# Runs on the GPU machine: builds with the CUDA backend (tools/device_build.sh),
# runs the CTest label `gpu`, the bitwise restart check on the CUDA backend
# (tools/device_restart_check.sh) and the ONERA M6 p chain on the committed
# level-0 mesh (tools/device_m6.sh, with the extrema of a diverged run's last
# good state). Writes one summary to OUT_DIR/summary.txt (and the full logs
# beside it); each stage has a time limit so that a slow one does not starve
# the next.
#   tools/device_check.sh OUT_DIR [M6_MAX_ITERS] [M6_P_MAX]
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1 m6_iters=${2:-400} m6_p=${3:-2}
mkdir -p "$out"
work=$(mktemp -d)
sum=$out/summary.txt
{
  echo "== $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader) / $(git rev-parse --short HEAD 2>/dev/null) / $(date -u +%F)"
  start=$(date +%s)
  if ! tools/device_build.sh build-gpu > "$out/build.log" 2>&1; then
    echo "build failed:"; tail -n 30 "$out/build.log"; exit 1
  fi
  echo "build: $(( $(date +%s) - start )) s"
  (cd build-gpu && timeout 300 ctest -L gpu --output-on-failure > "$out/ctest_gpu.log" 2>&1)
  echo "ctest -L gpu (rc $?):"
  grep -E "tests passed|Test +#|\*\*\*" "$out/ctest_gpu.log" | tail -n 25
  timeout 150 tools/device_restart_check.sh build-gpu "$work/restart" 20 15 > "$out/restart.log" 2>&1
  echo "device_restart_check (rc $?):"
  tail -n 12 "$out/restart.log"
  timeout 120 tools/device_m6.sh build-gpu "$work/m6" "$m6_iters" "$m6_p" l0:tests/data/mesh_onera_m6_0_q2.cdgm
  for d in "$work"/m6/*; do
    echo "-- $d"
    grep -E "GPU memory|diverged|error" "$d/run.log" | head -n 5
    tail -n 4 "$d/run.log"
    if grep -q diverged "$d/run.log" && [ -f "$d/solution.cdgs" ]; then
      python3 tools/state_extrema.py tests/data/mesh_onera_m6_0_q2.cdgm "$d/solution.cdgs" --count 4
      cp "$d/av_field.csv" "$out/$(basename "$d")_av_field.csv" 2>/dev/null
    fi
  done
  echo "total: $(( $(date +%s) - start )) s"
} 2>&1 | tee "$sum"
rm -rf "$work"
