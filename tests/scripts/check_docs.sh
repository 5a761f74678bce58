#!/bin/sh
# The documents stand alone (tests/defaults.cmake, docs_stand_alone): no
# reference to files outside the repository (../shared, DESIGN.md,
# CONVENTIONS.md) in README.md, docs/, cases/, tools/ or src/, and every
# docs/*.md that README.md names exists.
#   check_docs.sh SOURCE_DIR
set -u
cd "$1" || exit 1
status=0
hits=$(grep -rnE '\.\./shared|(^|[^/A-Za-z_])(DESIGN|CONVENTIONS)\.md' README.md docs cases tools src \
  --include='*.md' --include='*.py' --include='*.sh' --include='*.ini' --include='*.c' \
  --include='*.h' --include='*.cu' --include='*.cuh' 2>/dev/null)
if [ -n "$hits" ]; then
  echo "references outside the repository:"
  echo "$hits"
  status=1
fi
for doc in $(grep -oE 'docs/[A-Za-z0-9_.-]+\.md' README.md | sort -u); do
  if [ ! -f "$doc" ]; then
    echo "README.md names $doc, which does not exist"
    status=1
  fi
done
[ $status -eq 0 ] && echo "documents stand alone"
exit $status
