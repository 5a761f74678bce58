#!/usr/bin/env bash
# README command (1): install what is missing, build, run the default case
# (NACA0012, M 0.5, alpha 2 deg, p = 1; cases/naca0012_subsonic) on the GPU
# when one is present, else on the CPU, then plot its residual history.
# Outputs: out/naca0012_subsonic/ (history.csv, solution.vtu, surface_cp.csv,
# solution.cdgs, residual_history.png).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh build
out=out/naca0012_subsonic
build/colordg run cases/naca0012_subsonic/case.ini --backend auto --output "$out"

# The first python3 that has matplotlib (a pyenv or venv python3 may shadow
# the Debian one that tools/setup.sh installed it for).
for py in python3 /usr/bin/python3; do
  if "$py" -c "import matplotlib" >/dev/null 2>&1; then
    "$py" tools/plot_history.py "$out/history.csv" -o "$out/residual_history.png" \
      --title "NACA0012 M 0.5, alpha 2 deg, p = 1"
    echo "quickstart: residual history plotted in $out/residual_history.png"
    exit 0
  fi
done
echo "quickstart: no python3 with matplotlib found; skipped the residual plot" >&2
