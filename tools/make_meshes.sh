#!/usr/bin/env bash
# Generates every mesh of meshes/*.geo (all levels and sizes) with the gmsh
# CLI as MSH 4.1 and, when a colordg binary is there, converts each to the
# native .cdgm with `colordg import`. Prints element counts and timings.
#
# usage: tools/make_meshes.sh [OUTDIR] [options]
#   OUTDIR              where to write (default: build/meshes)
#   --levels "0 1 2 3"  naca0012_tri levels (each halves the mesh size; 4 is
#                       about 537k triangles: 34 s at order 1, 51 s at order 2)
#   --orders "1 2"      geometric orders to mesh at
#   --m6-levels "0 1"   ONERA M6 levels (order 2 only: 21.2k, 73k, then about
#                       4x per level (estimated); level 2 takes minutes, level 3
#                       tens of minutes and several GB)
#   --nlr-levels "0 1 2"  NLR 7301 levels (order 2 only: 4.1k, 15.6k, 60.7k
#                       triangles; 0.4, 1.0, 3.9 s)
#   --naca-radii "10 25 50 200 400"  naca0012_tri level 1 at order 2 with
#                       the far field at these radii (chords; 100 is
#                       naca0012_tri_1_q2): naca0012_tri_1_r<R>_q2
#                       (tools/study_naca0012_lift.py)
#   --naca-vj-levels "1 2"  naca0012_tri levels at order 2 of Vassberg and
#                       Jameson's section (meshes/naca0012_airfoil.inc,
#                       section 1): naca0012_vj_<L>_q2
#   --naca-ends-levels "1 2"  naca0012_tri levels at order 2 with wall
#                       elements 4x smaller at the leading and trailing
#                       edges (end_ratio 0.05, and n_side0 62 for about the
#                       same mid-side size): naca0012_ends_<L>_q2
#   --only NAME         only meshes whose name starts with NAME (e.g. onera_m6)
#   --force             remesh even when the .msh is newer than its .geo
#   --colordg PATH      colordg binary (default: $COLORDG, else build/colordg,
#                       else the newest build*/colordg); --no-cdgm skips it
#   --gmsh PATH         gmsh binary (default: $GMSH, else gmsh on PATH)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$root/build/meshes
levels="0 1 2 3"
orders="1 2"
m6_levels="0 1"
nlr_levels="0 1 2"
naca_radii="10 25 50 200 400"
naca_vj_levels="1 2"
naca_ends_levels="1 2"
only=""
force=0
colordg=${COLORDG:-}
gmsh=${GMSH:-gmsh}
cdgm=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --levels) levels=$2; shift 2 ;;
    --orders) orders=$2; shift 2 ;;
    --m6-levels) m6_levels=$2; shift 2 ;;
    --nlr-levels) nlr_levels=$2; shift 2 ;;
    --naca-radii) naca_radii=$2; shift 2 ;;
    --naca-vj-levels) naca_vj_levels=$2; shift 2 ;;
    --naca-ends-levels) naca_ends_levels=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --force) force=1; shift ;;
    --colordg) colordg=$2; shift 2 ;;
    --gmsh) gmsh=$2; shift 2 ;;
    --no-cdgm) cdgm=0; shift ;;
    -h | --help) sed -n '2,31p' "$0"; exit 0 ;;
    -*) echo "make_meshes.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
command -v "$gmsh" >/dev/null || {
  echo "make_meshes.sh: gmsh not found; install Gmsh or pass --gmsh PATH" >&2
  exit 1
}
if [[ $cdgm == 1 && -z $colordg ]]; then
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
if [[ $cdgm == 1 && ! -x $colordg ]]; then
  echo "make_meshes.sh: no colordg binary, writing .msh only (build the 'colordg' target or pass --colordg)" >&2
  cdgm=0
fi
mkdir -p "$out"

# Element counts of the top dimension of an MSH 4.1 ASCII file.
count_msh() {
  awk '
    $0 == "$Elements" { getline; blocks = $1; inside = 1; next }
    inside && blocks > 0 {
      type = $3; n = $4; blocks--
      if (type == 2 || type == 9 || type == 21) tri += n
      else if (type == 3 || type == 10 || type == 36) quad += n
      else if (type == 4 || type == 11 || type == 29) tet += n
      for (i = 0; i < n; i++) getline
      next
    }
    END {
      if (tet) printf "tet %d", tet
      else printf "tri %d  quad %d", tri, quad
    }' "$1"
}

now() { date +%s.%N; }
printf '%-32s %-26s %9s %9s\n' "mesh" "elements" "gmsh [s]" "import [s]"

# mesh NAME DIM ORDER GEO [gmsh options...]
mesh() {
  local name=$1 dim=$2 order=$3 geo=$4
  shift 4
  [[ -n $only && $name != "$only"* ]] && return 0
  # cached: a mesh newer than its .geo (and its includes) is kept
  if [[ $force == 0 && -s $out/$name.msh && $out/$name.msh -nt $root/meshes/$geo &&
    ($cdgm == 0 || -s $out/$name.cdgm) ]]; then
    local newer=0 inc
    for inc in "$root"/meshes/*.inc; do [[ $inc -nt $out/$name.msh ]] && newer=1; done
    if [[ $newer == 0 ]]; then
      printf '%-32s %-26s %9s %9s\n' "$name" "$(count_msh "$out/$name.msh")" "cached" "-"
      return 0
    fi
  fi
  local t0 t1 t2
  t0=$(now)
  "$gmsh" "-$dim" -order "$order" "$@" -format msh41 -o "$out/$name.msh" \
    "$root/meshes/$geo" >"$out/$name.log" 2>&1 || {
    tail -n 20 "$out/$name.log" >&2
    echo "make_meshes.sh: gmsh failed on $geo $* (log: $out/$name.log)" >&2
    exit 1
  }
  t1=$(now)
  local import="-"
  if [[ $cdgm == 1 ]]; then
    "$colordg" import "$out/$name.msh" -o "$out/$name.cdgm" >>"$out/$name.log" 2>&1 || {
      tail -n 20 "$out/$name.log" >&2
      echo "make_meshes.sh: colordg import failed on $out/$name.msh" >&2
      exit 1
    }
    t2=$(now)
    import=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", b - a }')
  fi
  printf '%-32s %-26s %9.2f %9s\n' "$name" "$(count_msh "$out/$name.msh")" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$import"
}

for q in $orders; do
  mesh "naca0012_hybrid_q$q" 2 "$q" naca0012_hybrid.geo
  for level in $levels; do
    mesh "naca0012_tri_${level}_q$q" 2 "$q" naca0012_tri.geo -setnumber level "$level"
  done
  for n in 4 8 16 32; do
    mesh "square_tri_${n}_q$q" 2 "$q" square_periodic.geo -setnumber kind 0 -setnumber n "$n"
    mesh "square_quad_${n}_q$q" 2 "$q" square_periodic.geo -setnumber kind 1 -setnumber n "$n"
    mesh "square_mixed_${n}_q$q" 2 "$q" square_periodic.geo -setnumber kind 2 -setnumber n "$n"
  done
  for n in 2 3 4 6 8; do
    mesh "box_tet_${n}_q$q" 3 "$q" box_tet.geo -setnumber n "$n"
  done
  for n in 4 6 8; do
    mesh "box_tet_periodic_${n}_q$q" 3 "$q" box_tet.geo -setnumber n "$n" -setnumber periodic 1
  done
done
for r in $naca_radii; do
  mesh "naca0012_tri_1_r${r}_q2" 2 2 naca0012_tri.geo -setnumber level 1 -setnumber r_far "$r"
done
for level in $naca_vj_levels; do
  mesh "naca0012_vj_${level}_q2" 2 2 naca0012_tri.geo -setnumber level "$level" -setnumber section 1
done
for level in $naca_ends_levels; do
  mesh "naca0012_ends_${level}_q2" 2 2 naca0012_tri.geo -setnumber level "$level" \
    -setnumber end_ratio 0.05 -setnumber n_side0 62
done
for level in $nlr_levels; do
  mesh "nlr7301_sharp_${level}_q2" 2 2 nlr7301_sharp.geo -setnumber level "$level"
done
for level in $m6_levels; do
  mesh "onera_m6_${level}_q2" 3 2 onera_m6.geo -setnumber level "$level"
done
