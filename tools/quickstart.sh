#!/usr/bin/env bash
# README command (1): install what is missing, build, run the default case.
# Until the Euler solver lands, the default job is `colordg info` on the
# NACA0012 hybrid mesh (the default case's mesh).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh build
mkdir -p out/naca0012
build/colordg import meshes/naca0012_hybrid.geo -o out/naca0012/naca0012_hybrid.cdgm --order 2
build/colordg info out/naca0012/naca0012_hybrid.cdgm
