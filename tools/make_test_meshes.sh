#!/usr/bin/env bash
# Regenerates the small meshes committed under tests/data/mesh_*.cdgm, which
# let tests run on machines without Gmsh (the GPU node). Each is meshed from
# meshes/*.geo with the gmsh CLI (-format msh41) and converted with
# `colordg import`; meshes/README.md lists them and their counts.
#
# usage: tools/make_test_meshes.sh [--colordg PATH] [--gmsh PATH] [--out DIR]
#   --colordg  colordg binary (default: $COLORDG, else build/colordg, else the
#              newest build*/colordg)
#   --gmsh     gmsh binary (default: $GMSH, else gmsh on PATH)
#   --out      where to write (default: tests/data)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
colordg=${COLORDG:-}
gmsh=${GMSH:-gmsh}
out=$root/tests/data
while [[ $# -gt 0 ]]; do
  case $1 in
    --colordg) colordg=$2; shift 2 ;;
    --gmsh) gmsh=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "make_test_meshes.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
if [[ -z $colordg ]]; then
  if [[ -x $root/build/colordg ]]; then
    colordg=$root/build/colordg
  else
    for candidate in "$root"/build*/colordg; do
      if [[ -x $candidate && (-z $colordg || $candidate -nt $colordg) ]]; then
        colordg=$candidate
      fi
    done
  fi
fi
[[ -n $colordg && -x $colordg ]] || {
  echo "make_test_meshes.sh: no colordg binary; build the 'colordg' target or pass --colordg PATH" >&2
  exit 1
}
command -v "$gmsh" >/dev/null || {
  echo "make_test_meshes.sh: gmsh not found; install Gmsh or pass --gmsh PATH" >&2
  exit 1
}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# mesh NAME DIM ORDER GEO [gmsh options...]
mesh() {
  local name=$1 dim=$2 order=$3 geo=$4
  shift 4
  "$gmsh" "-$dim" -order "$order" "$@" -format msh41 -o "$work/$name.msh" \
    "$root/meshes/$geo" >"$work/$name.log" 2>&1 || {
    cat "$work/$name.log" >&2
    echo "make_test_meshes.sh: gmsh failed on $geo $*" >&2
    exit 1
  }
  "$colordg" import "$work/$name.msh" -o "$out/$name.cdgm" >/dev/null
  printf '%-34s %8d bytes  %s\n' "$name.cdgm" "$(stat -c %s "$out/$name.cdgm")" \
    "$("$colordg" info "$out/$name.cdgm" --csv --p 0 |
      awk -F, '/^elements_(tri|quad|tet),/ && $2 > 0 {sub("elements_", "", $1); printf "%s %s  ", $1, $2}')"
}

mesh mesh_naca0012_hybrid_q1 2 1 naca0012_hybrid.geo
mesh mesh_naca0012_hybrid_q2 2 2 naca0012_hybrid.geo
mesh mesh_naca0012_tri_0_q2 2 2 naca0012_tri.geo -setnumber level 0
mesh mesh_naca0012_ends_0_q2 2 2 naca0012_tri.geo -setnumber level 0 -setnumber end_ratio 0.05 \
  -setnumber n_side0 62
mesh mesh_nlr7301_sharp_0_q2 2 2 nlr7301_sharp.geo -setnumber level 0
mesh mesh_gaussian_bump_0_q3 2 3 gaussian_bump.geo -setnumber level 0
mesh mesh_gaussian_bump_1_q3 2 3 gaussian_bump.geo -setnumber level 1
mesh mesh_square_tri_8 2 1 square_periodic.geo -setnumber kind 0 -setnumber n 8
mesh mesh_square_quad_8 2 1 square_periodic.geo -setnumber kind 1 -setnumber n 8
mesh mesh_square_mixed_8 2 1 square_periodic.geo -setnumber kind 2 -setnumber n 8
mesh mesh_square_quad_8_q2 2 2 square_periodic.geo -setnumber kind 1 -setnumber n 8
mesh mesh_box_tet_3 3 1 box_tet.geo -setnumber n 3
mesh mesh_box_tet_periodic_4 3 1 box_tet.geo -setnumber n 4 -setnumber periodic 1
echo "total $(du -cb "$out"/mesh_*.cdgm | tail -n 1 | cut -f1) bytes in $out/mesh_*.cdgm"
