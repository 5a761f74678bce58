#!/usr/bin/env bash
# ONERA M6 level 0, p = 2 from the committed GPU-converged p = 1 state
# (tests/data/onera_m6_0_p1.cdgs), several solver variants at once on the
# GPU (they share it), each for at most MAX_ITERS iterations: which setting
# keeps p = 2 from diverging. Prints one line per variant.
#   tools/device_m6_p2_variants.sh BUILD_DIR OUT_DIR [MAX_ITERS] [av|operator]
set -uo pipefail
cd "$(dirname "$0")/.."
build=$1 out=$2 iters=${3:-150}
mkdir -p "$out"
base=$out/base.ini
sed -e 's|^file = .*|file = '"$PWD"'/tests/data/mesh_onera_m6_0_q2.cdgm|' -e 's/^order = .*/order = 2/' \
  -e "s/^max_iters = .*/max_iters = $iters/" -e 's/^checkpoint_every = .*/checkpoint_every = 0/' \
  -e '/^sections = /d' cases/onera_m6/case.ini > "$base"
variant() { # variant NAME SED_EXPR...
  local name=$1
  shift
  local ini=$out/$name.ini
  [ "$ini" = "$base" ] || cp "$base" "$ini"
  for e in "$@"; do sed -i "$e" "$ini"; done
  "$build/colordg" run "$ini" --backend cuda --init tests/data/onera_m6_0_p1.cdgs \
    --output "$out/$name" > "$out/$name.log" 2>&1
  echo "$name: $(grep -E 'after [0-9]+ iterations|diverged|error' "$out/$name.log" | head -n 1 | cut -c1-220)"
}
set_name=${4:-av}
if [ "$set_name" = av ]; then
  variant base 's/^x=//' &
  variant cfl100 's/^cfl_max = .*/cfl_max = 100/' &
  variant update005 's/^\[solver\]/[solver]\nmax_update = 0.05/' &
  variant ceps3 's/^c_eps = .*/c_eps = 3/' &
  variant s0m25 's/^s0_offset = .*/s0_offset = -2.5/' &
  variant continuous 's/^continuous = .*/continuous = yes/' &
elif [ "$set_name" = hold ]; then # the held viscosity: relaxation, and a long run at CFL 100
  variant relax001 's/^relaxation = .*/relaxation = 0.01/' &
  variant relax1 's/^relaxation = .*/relaxation = 1/' &
  variant cfl100 's/^cfl_max = .*/cfl_max = 100/' &
  variant cfl60 's/^cfl_max = .*/cfl_max = 60/' &
  variant base 's/^x=//' &
else # the implicit operator: sweeps per iteration, ramp length, no shock (M 0.5, no AV)
  variant sweeps1 's/^sweeps = .*/sweeps = 1/' &
  variant sweeps4 's/^sweeps = .*/sweeps = 4/' &
  variant sweeps32 's/^sweeps = .*/sweeps = 32/' &
  variant ramp400 's/^cfl_ramp_iters = .*/cfl_ramp_iters = 400/' &
  variant m05_noav 's/^mach = .*/mach = 0.5/' 's/^enabled = yes/enabled = no/' &
  variant m05_noav_s4 's/^mach = .*/mach = 0.5/' 's/^enabled = yes/enabled = no/' 's/^sweeps = .*/sweeps = 4/' &
fi
wait
