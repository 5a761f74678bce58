#!/bin/sh
# Writes a copy of a case file without its [solver] section, so that the run
# uses the [solver] defaults (tests/defaults.cmake).
#   strip_solver.sh CASE.ini OUT.ini [ORDER]
# ORDER, when given, replaces the [discretization] order.
set -eu
in=$1
out=$2
order=${3:-}
awk -v order="$order" '
  /^[ \t]*\[/ { section = $0; gsub(/[ \t\[\]]/, "", section) }
  section == "solver" { next }
  section == "discretization" && order != "" && $0 ~ /^[ \t]*order[ \t]*=/ { print "order = " order; next }
  { print }
' "$in" > "$out.tmp"
if grep -q '^[ \t]*\[solver\]' "$out.tmp"; then
  echo "strip_solver.sh: [solver] still in $out" >&2
  exit 1
fi
mv "$out.tmp" "$out"
