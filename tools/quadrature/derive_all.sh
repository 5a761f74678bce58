#!/bin/sh
# Re-derives every symmetric quadrature rule that ColorDG ships and writes
# tools/quadrature/symmetric_rules.txt and src/element/quadrature_symmetric.c
# (docs/NUMERICS-basis.md, "Quadrature").
#   tools/quadrature/derive_all.sh [BUILD_DIR]        (default build; ~10 min on 2 cores)
#
# Each rule is derived on the orbit structure listed below (counts of
# S3,S21,S111 orbits on triangles; S4,S31,S22,S211,S1111 on tetrahedra).
# The structures come from scans, `derive_symmetric search --shape S
# --degree D` (tetrahedra of degree 10-13 with --tries 100 and --min-points
# 72, 90, 110, 120), which try the structures in order of increasing point
# count and stop at the first that gives a valid rule; the list keeps, per
# degree, the structure with the fewest points that any scan found (some
# scans ran with earlier versions of the tool, whose random starts differ,
# so a scan today may stop at another structure). A search with --config
# repeats one structure's random starts exactly (they depend only on the
# seed, the shape, the degree and the structure), so this script reproduces
# the records without the scans.
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
tool=$build/tests/derive_symmetric
[ -x "$tool" ] || { echo "derive_all.sh: build $tool first (cmake --build $build --target derive_symmetric)" >&2; exit 1; }
records=tools/quadrature/symmetric_rules.txt
tmp=$records.tmp

# shape degree structure
list="
tri 1 1,0,0
tri 2 0,1,0
tri 3 0,0,1
tri 4 0,2,0
tri 5 1,2,0
tri 6 0,2,1
tri 7 0,1,2
tri 8 1,3,1
tri 9 1,4,1
tri 10 1,2,3
tri 11 1,5,2
tri 12 0,5,3
tri 13 1,4,4
tet 1 1,0,0,0,0
tet 2 0,1,0,0,0
tet 3 0,2,0,0,0
tet 4 0,2,1,0,0
tet 5 0,2,1,0,0
tet 6 0,3,0,1,0
tet 7 1,1,1,2,0
tet 8 0,4,1,2,0
tet 9 1,4,1,3,0
tet 10 1,2,2,5,0
tet 11 1,1,1,6,1
tet 12 0,3,0,8,1
tet 13 0,3,1,9,1
"

{
  echo "# Fully symmetric quadrature rules on the reference triangle and tetrahedron,"
  echo "# derived by tools/quadrature/derive_symmetric.c; written by"
  echo "# tools/quadrature/derive_all.sh (each record names the command that found it)."
  echo "# Per orbit: TYPE a b c weight-of-each-point (barycentric orbit parameters; see"
  echo "# src/element/quadrature_symmetric.h). Turned into src/element/quadrature_symmetric.c"
  echo "# by: derive_symmetric emit tools/quadrature/symmetric_rules.txt"
} > "$tmp"
echo "$list" | while read -r shape degree config; do
  [ -n "$shape" ] || continue
  echo "derive_all.sh: $shape degree $degree on $config" >&2
  echo >> "$tmp"
  "$tool" search --shape "$shape" --degree "$degree" --config "$config" --tries 5000 --quiet >> "$tmp"
done
mv "$tmp" "$records"
"$tool" emit "$records" > src/element/quadrature_symmetric.c
echo "derive_all.sh: wrote $records and src/element/quadrature_symmetric.c" >&2
