#!/usr/bin/env bash
# ONERA M6 level 0, p = 2 from the committed p = 1 state: the LU-SGS run to
# its divergence with a history row every iteration, the state at iteration
# 60 and the last finite one, and an explicit SSP-RK3 run from the same
# start (is the steady state itself unstable?). Files for tools/m6_probe.py.
#   tools/device_m6_p2_probe.sh BUILD_DIR OUT_DIR [EXPLICIT_ITERS]
set -uo pipefail
cd "$(dirname "$0")/.."
build=$1 out=$2 nexp=${3:-3000}
mkdir -p "$out"
base=$out/base.ini
sed -e 's|^file = .*|file = '"$PWD"'/tests/data/mesh_onera_m6_0_q2.cdgm|' -e 's/^order = .*/order = 2/' \
  -e 's/^checkpoint_every = .*/checkpoint_every = 0/' -e 's/^monitor_every = .*/monitor_every = 1/' \
  -e '/^sections = /d' cases/onera_m6/case.ini > "$base"
go() { # go NAME MAX_ITERS [SED_EXPR...]
  local name=$1 iters=$2
  shift 2
  local ini=$out/$name.ini
  sed -e "s/^max_iters = .*/max_iters = $iters/" "$base" > "$ini"
  for e in "$@"; do sed -i "$e" "$ini"; done
  "$build/colordg" run "$ini" --backend cuda --init tests/data/onera_m6_0_p1.cdgs \
    --output "$out/$name" > "$out/$name.log" 2>&1
  echo "$name: $(grep -E 'after [0-9]+ iterations|diverged|error' "$out/$name.log" | head -n 1 | cut -c1-300)"
}
go it60 60
go diverge 200
go explicit "$nexp" 's/^scheme = .*/scheme = explicit_rk3/' 's/^monitor_every = .*/monitor_every = 50/'
