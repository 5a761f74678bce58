#!/usr/bin/env bash
# The Newton-Krylov targets of docs/NEWTON_KRYLOV.md on one machine, LU-SGS
# beside them: each case file of cases/ with its [solver] replaced by sed
# (Newton-Krylov: cfl_min 10, CFL -> 1e8 in 20 steps, the case's
# viscosity, coupled after 2 orders), run to its residual drop from the free
# stream, one run at a time. Writes OUT/<run>/{case.ini, run.log,
# history.csv} and OUT/targets.md (the table, with device, date and commit)
# and OUT/targets.csv. Wall time is the run's summary (from the start of
# the run); "solve" subtracts the preprocessing the run prints (mostly the
# CUDA context on a GPU).
#   tools/device_newton_targets.sh BUILD_DIR OUT_DIR [--backend cuda|cpu]
#       [--quick] [--m6-level1 MESH.cdgm] [--sweeps "8 16"] [--drop-each "4 10"]
#       [--only REGEX] [--nk-set "KEY = VALUE"]... [--tag SUFFIX]
# --quick: NACA 0012 M 0.5 (level 0) and M 0.8 at p = 1, and M 0.5
#   p-sequenced 1 -> 2 (a smoke test on a CPU, about a minute on 2 cores);
# --m6-level1: ONERA M6 level 1 (meshes/onera_m6.geo level 1, made with Gmsh
#   beforehand: the GPU machine has none) p-sequenced 1 -> 2;
# --drop-each: [stop] p_sequence_drop of the p-sequenced runs (4:
#   the default hand-over; 10: 10 orders at each level, as issue 17 states
#   its M 0.8 target).
# --only: only the runs whose name matches the (extended) regular expression;
# --nk-set: a [solver] line added to every Newton-Krylov run's case (repeat
#   for several; e.g. --nk-set "newton_forcing_min = 0.05");
# --tag: a suffix for the run names (variants side by side in one OUT).
# COMPARE_COMMIT: the commit to print in the title (the device's copy of the
# tree carries a stale git history; default: git rev-parse).
# On the GPU machine, after tools/device_build.sh build-gpu:
#   run(command='tools/device_build.sh build-gpu && tools/device_newton_targets.sh build-gpu \
#       $OUT/nk --m6-level1 .devmesh/m6_l1_q2.cdgm', carry=['.deps', '.devmesh/m6_l1_q2.cdgm'])
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 out=$2
shift 2
backend=cuda quick=0 m6l1="" sweeps="8 16" drops="4" only="" tag=""
nk_set=()
while [ $# -gt 0 ]; do
  case $1 in
    --backend) backend=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --m6-level1) m6l1=$2; shift 2 ;;
    --sweeps) sweeps=$2; shift 2 ;;
    --drop-each) drops=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --nk-set) nk_set+=("$2"); shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    *) echo "device_newton_targets: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$build/colordg" ] || { echo "device_newton_targets: no $build/colordg" >&2; exit 2; }
mkdir -p "$out"
csv=$out/targets.csv
[ -f "$csv" ] || echo "run,case,scheme,sweeps,order,p_sequence_drop,exit,steps,linear_iterations,wall_s,preprocessing_s,solve_s,cl,cd" > "$csv"

# run NAME CASE MESH SCHEME SWEEPS ORDER PSEQ DROP
run() {
  local name=$1$tag case=$2 mesh=$3 scheme=$4 nsweeps=$5 order=$6 pseq=$7 drop=$8
  if [ -n "$only" ] && ! grep -Eq "$only" <<<"$1"; then return 0; fi
  local dir=$out/$name
  mkdir -p "$dir"
  local edits=(-e "s/^order = .*/order = $order/" -e "s/^checkpoint_every = .*/checkpoint_every = 0/"
    -e "/^sections = /d" -e "s/^sweeps = .*/sweeps = $nsweeps/")
  if [ "$scheme" = newton_krylov ]; then
    # (the case's LU-SGS stage CFL goes too: Newton-Krylov's stages start
    # at its cfl_min unless --nk-set "p_sequence_cfl = C" says otherwise)
    edits+=(-e "s/^scheme = .*/scheme = newton_krylov/" -e "s/^cfl_min = .*/cfl_min = 10/"
      -e "s/^cfl_max = .*/cfl_max = 1e8/" -e "s/^cfl_ramp_iters = .*/cfl_ramp_iters = 20/"
      -e "/^p_sequence_cfl = /d")
  fi
  edits+=(-e "/^p_sequence = /d" -e "/^p_sequence_start = /d" -e "/^p_sequence_drop = /d")
  if [ "$pseq" = yes ]; then
    edits+=(-e "s/^\[discretization\]/[discretization]\np_sequence = yes\np_sequence_start = 1/"
      -e "s/^\[stop\]/[stop]\np_sequence_drop = $drop/")
  fi
  sed "${edits[@]}" "$case" > "$dir/case.ini"
  grep -q "^sweeps = $nsweeps" "$dir/case.ini" ||
    sed -i "s/^\[solver\]/[solver]\nsweeps = $nsweeps/" "$dir/case.ini"
  if [ "$scheme" = newton_krylov ]; then
    local line
    for line in "${nk_set[@]}"; do
      sed -i "/^${line%%[ =]*} *=/d; s/^\[solver\]/[solver]\n$line/" "$dir/case.ini"
    done
  fi
  local rc=0
  COLORDG_NEWTON_LOG=1 "$build/colordg" run "$dir/case.ini" --backend "$backend" --mesh "$mesh" \
    --output "$dir/out" > "$dir/run.log" 2>&1 || rc=$?
  cp "$dir/out/history.csv" "$dir/" 2>/dev/null || true
  rm -rf "$dir/out"
  local summary steps wall pre lin cl cdv
  summary=$(grep -E "(residual drop reached|iteration limit reached|wall-time limit reached) after" "$dir/run.log" | tail -1 || true)
  steps=$(sed -n 's/.* after \([0-9]*\) iterations.*/\1/p' <<<"$summary")
  wall=$(sed -n 's/.* iterations in \([0-9.]*\) s.*/\1/p' <<<"$summary")
  cl=$(sed -n 's/.*CL \([-0-9.]*\),.*/\1/p' <<<"$summary")
  cdv=$(sed -n 's/.*CD \([-0-9.]*\),.*/\1/p' <<<"$summary")
  pre=$(sed -n 's/.*preprocessing \([0-9.]*\) s.*/\1/p' "$dir/run.log" | sed -n 1p)
  lin=$({ grep -o '[0-9]* linear iterations' "$dir/run.log" || true; } | awk '{s += $1} END {print s + 0}')
  local solve=""
  [ -n "$wall" ] && [ -n "$pre" ] && solve=$(awk -v w="$wall" -v p="$pre" 'BEGIN {printf "%.2f", w - p}')
  local status=$rc
  grep -q "residual drop reached" <<<"$summary" && status=converged
  [ "$rc" != 0 ] && status="exit $rc"
  echo "$name,$(basename "$(dirname "$case")"),$scheme,$nsweeps,$order,$([ "$pseq" = yes ] && echo "$drop"),$status,${steps:-},${lin},${wall:-},${pre:-},${solve},${cl:-},${cdv:-}" >> "$csv"
  echo "$name: $status, ${steps:-?} steps, $lin linear, ${wall:-?} s (solve ${solve:-?} s), CL ${cl:-?}"
}

SUB=cases/naca0012_subsonic/case.ini TR=cases/naca0012_transonic/case.ini
NLR=cases/nlr7301/case.ini M6=cases/onera_m6/case.ini
L1=tests/data/mesh_naca0012_tri_1_q2.cdgm HY=tests/data/mesh_naca0012_hybrid_q2.cdgm
NLR0=tests/data/mesh_nlr7301_sharp_0_q2.cdgm M6L0=tests/data/mesh_onera_m6_0_q2.cdgm
if [ "$quick" = 1 ]; then
  L0=tests/data/mesh_naca0012_tri_0_q2.cdgm
  run m05_p1_lusgs $SUB $L0 lusgs 16 1 no 4
  run m05_p1_nk8 $SUB $L0 newton_krylov 8 1 no 4
  run m08_p1_nk8 $TR $HY newton_krylov 8 1 no 4
  run m05_pseq_nk8 $SUB $L0 newton_krylov 8 2 yes 4
else
  run m05_p2_lusgs $SUB $L1 lusgs 16 2 no 4
  run m08_pseq_lusgs $TR $HY lusgs 16 3 yes 4
  run m08_p2_lusgs $TR $HY lusgs 16 2 no 4
  run nlr_pseq_lusgs $NLR $NLR0 lusgs 16 3 yes 4
  run m6l0_p1_lusgs $M6 $M6L0 lusgs 16 1 no 4
  for s in $sweeps; do
    run m05_p2_nk$s $SUB $L1 newton_krylov "$s" 2 no 4
    for d in $drops; do
      run m08_pseq_d${d}_nk$s $TR $HY newton_krylov "$s" 3 yes "$d"
    done
    run m08_p2_nk$s $TR $HY newton_krylov "$s" 2 no 4
    run nlr_pseq_nk$s $NLR $NLR0 newton_krylov "$s" 3 yes 4
    run m6l0_p1_nk$s $M6 $M6L0 newton_krylov "$s" 1 no 4
  done
  if [ -n "$m6l1" ]; then
    run m6l1_pseq_lusgs $M6 "$m6l1" lusgs 16 2 yes 4
    for s in $sweeps; do run m6l1_pseq_nk$s $M6 "$m6l1" newton_krylov "$s" 2 yes 4; done
  fi
fi

device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
[ "$backend" = cpu ] && device="CPU ($(nproc) cores)"
commit=${COMPARE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
{
  echo "Newton-Krylov targets: ${device:-unknown device}, $(date -u +%Y-%m-%d), commit $commit, backend $backend"
  echo
  echo "| run | scheme | sweeps | p-sequence drop | result | steps | linear iterations | wall s | preprocessing s | solve s | CL |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  tail -n +2 "$csv" | awk -F, '{printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $3, $4, $6, $7, $8, $9, $10, $11, $12, $13}'
} > "$out/targets.md"
cat "$out/targets.md"
