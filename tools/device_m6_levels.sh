#!/usr/bin/env bash
# The ONERA M6 runs of docs/VALIDATION_ONERA_M6.md, "Levels 1 and 2 at
# p = 1, 2, 3", one step at a time, so that the steps can be spread over
# several GPU-machine calls of at most 10 minutes (the run folders stay on
# a machine between calls while it is held). After tools/device_build.sh:
#   tools/device_m6_levels.sh BUILD_DIR RUNS_DIR STEP NAME:MESH.cdgm [SECONDS]
#   tools/device_m6_levels.sh BUILD_DIR RUNS_DIR pack OUT.tgz
# Steps (each writes RUNS_DIR/<NAME>_<step>/{case.ini,run.log,history.csv,
# section_eta*.csv,solution.cdgs,gpu_mem_peak_mib,...}; the case is
# cases/onera_m6/case.ini with checkpoint_every = 0):
#   p1          p = 1 from the free stream to 10 orders
#   p12         the case as committed, p-sequenced 1 -> 2 from the free stream
#   p2_from_p1  p = 2 from <NAME>_p1's state, at the case's stage CFL (CFL 100
#               -> 1000 over 33 iterations, what p_sequence_cfl = 100 gives)
#   p3          p = 3 from <NAME>_p12's state, the same stage CFL; SECONDS: a
#               wall-time limit (the run then stops with its checkpoint)
#   p3_restart  continues <NAME>_p3 from its checkpoint (SECONDS: the limit)
#   explicit    SSP-RK3 at p = 2, CFL 1, local steps, from <NAME>_p1's state,
#               for SECONDS of wall time (tools/residual_rate.py fits its rate
#               and sets it against <NAME>_p2_from_p1)
#   pack        the small files of every run folder (not the states) in one
#               tarball (the device returns only a few files per call)
# Sections and shocks: tools/plot_sections.py and tools/m6_shocks.py on the
# run folders (p1, p12, p3).
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_gpu_peak.sh
build=$1 runs=$2 step=$3
mkdir -p "$runs"
if [ "$step" = pack ]; then
  tmp=$(mktemp -d)
  for d in "$runs"/*/; do
    n=$(basename "$d")
    mkdir -p "$tmp/$n"
    cp "$d"/run.log "$d"/history.csv "$d"/case.ini "$d"/gpu_mem_peak_mib "$d"/section_eta*.csv \
      "$tmp/$n/" 2>/dev/null
  done
  tar czf "$4" -C "$tmp" . && rm -rf "$tmp"
  exit 0
fi
IFS=: read -r name mesh <<<"$4"
seconds=${5:-}
# m6case ORDER P_SEQUENCE CFL_MIN RAMP_ITERS
m6case() {
  sed -e "s/^order = .*/order = $1\np_sequence = $2/" -e 's/^checkpoint_every = .*/checkpoint_every = 0/' \
    -e "s/^cfl_min = .*/cfl_min = $3/" -e "s/^cfl_ramp_iters = .*/cfl_ramp_iters = $4/" \
    cases/onera_m6/case.ini
}
with_limit() { # with_limit SECONDS: a wall-time limit in [stop] (none when empty)
  if [ -n "$1" ]; then sed -e "s/^\[stop\]/[stop]\nmax_wall_seconds = $1/"; else cat; fi
}
need() { [ -f "$1" ] || { echo "$step: $1 is missing (run its step first, on this machine)" >&2; exit 1; }; }
dir=$runs/${name}_$step
mkdir -p "$dir"
args=()
case $step in
  p1) m6case 1 no 1 100 > "$dir/case.ini" ;;
  p12) m6case 2 yes 1 100 > "$dir/case.ini" ;;
  p2_from_p1)
    need "$runs/${name}_p1/solution.cdgs"
    m6case 2 no 100 33 > "$dir/case.ini"
    args=(--init "$runs/${name}_p1/solution.cdgs") ;;
  p3)
    need "$runs/${name}_p12/solution.cdgs"
    m6case 3 no 100 33 | with_limit "$seconds" > "$dir/case.ini"
    args=(--init "$runs/${name}_p12/solution.cdgs") ;;
  p3_restart)
    need "$runs/${name}_p3/checkpoint.cdgs"
    sed -e '/^max_wall_seconds = /d' "$runs/${name}_p3/case.ini" | with_limit "$seconds" > "$dir/case.ini"
    args=(--restart "$runs/${name}_p3/checkpoint.cdgs") ;;
  explicit)
    need "$runs/${name}_p1/solution.cdgs"
    [ -n "$seconds" ] || { echo "explicit: give SECONDS" >&2; exit 1; }
    m6case 2 no 1 100 | sed -e 's/^scheme = .*/scheme = explicit_rk3\ncfl = 1.0/' \
      -e 's/^max_iters = .*/max_iters = 100000000/' | with_limit "$seconds" > "$dir/case.ini"
    args=(--init "$runs/${name}_p1/solution.cdgs") ;;
  *) echo "unknown step '$step' (p1, p12, p2_from_p1, p3, p3_restart, explicit, pack)" >&2; exit 1 ;;
esac
run_gpu_peak "$dir" "$build/colordg" run "$dir/case.ini" --mesh "$mesh" --backend "${M6_BACKEND:-cuda}" \
  --output "$dir" "${args[@]}"
echo "${name}_$step: $(grep -E 'p-sequencing: p = . reached|reached after|error' "$dir/run.log" |
  tr '\n' ' ' | cut -c1-400) (GPU memory peak $(cat "$dir/gpu_mem_peak_mib" 2>/dev/null || echo ?) MiB)"
