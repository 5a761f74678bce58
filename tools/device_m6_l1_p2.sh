#!/usr/bin/env bash
# ONERA M6 on a given mesh: p = 1 for N1 iterations from free stream, then
# p = 2 from that state (--init) for N2 iterations, both LU-SGS on the GPU
# with the case's settings; history every iteration.
#   tools/device_m6_l1_p2.sh BUILD_DIR MESH OUT_DIR [N1] [N2] [ORDER2]
set -uo pipefail
cd "$(dirname "$0")/.."
build=$1 mesh=$2 out=$3 n1=${4:-300} n2=${5:-400} p2=${6:-2}
mkdir -p "$out"
mk() { # mk NAME ORDER ITERS
  sed -e 's|^file = .*|file = '"$PWD/$mesh"'|' -e "s/^order = .*/order = $2/" -e "s/^max_iters = .*/max_iters = $3/" \
    -e 's/^checkpoint_every = .*/checkpoint_every = 0/' -e 's/^monitor_every = .*/monitor_every = 10/' \
    -e '/^sections = /d' cases/onera_m6/case.ini > "$out/$1.ini"
}
mk p1 1 "$n1"
mk p2 "$p2" "$n2"
"$build/colordg" run "$out/p1.ini" --backend cuda --output "$out/p1" > "$out/p1.log" 2>&1
echo "p1: $(grep -E 'after [0-9]+ iterations|diverged|error' "$out/p1.log" | head -n 1 | cut -c1-300)"
"$build/colordg" run "$out/p2.ini" --backend cuda --init "$out/p1/solution.cdgs" --output "$out/p2" > "$out/p2.log" 2>&1
echo "p$p2: $(grep -E 'after [0-9]+ iterations|diverged|error' "$out/p2.log" | head -n 1 | cut -c1-300)"
