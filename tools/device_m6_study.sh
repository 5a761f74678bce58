#!/usr/bin/env bash
# The ONERA M6 measurements of docs/VALIDATION_ONERA_M6.md in one call on the
# GPU machine, after tools/device_build.sh BUILD_DIR:
#   1. the case p-sequenced (p_sequence = yes, from p = 1) to P on each mesh,
#      LU-SGS on the GPU, with the nvidia-smi memory peak;
#   2. explicit SSP-RK3 on the first mesh at P_EXPLICIT, p-sequenced the same
#      way, for EXPLICIT_SECONDS of wall time (its rate is fitted from the
#      history by tools/study_explicit_implicit.py or by hand);
#   3. tools/bench_lusgs on the last mesh: the per-phase cost of one LU-SGS
#      iteration on the GPU and on 1 and all CPU threads (p = 1, 2), GPU only
#      at p = 3. Without AV, at M 0.5 and a constant CFL 1 from the free
#      stream: the timed iterations must stay finite, and at M 0.8395 without
#      AV they do not (the cost of an iteration does not depend on M).
# (M6_BACKEND=cpu runs the cases on the CPU, for a smoke test.)
#   tools/device_m6_study.sh BUILD_DIR OUT_DIR P P_EXPLICIT EXPLICIT_SECONDS NAME:MESH.cdgm...
# Writes OUT_DIR/<name>_p<P>/{case.ini,run.log,history.csv,...},
# OUT_DIR/<name>_explicit_p<P_EXPLICIT>/..., OUT_DIR/bench_m6_*.csv and .log.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_gpu_peak.sh
build=$1 out=$2 p_max=$3 p_exp=$4 exp_seconds=$5
shift 5
mkdir -p "$out"
case_for() { # case_for DIR ORDER SCHEME
  mkdir -p "$1"
  sed -e "s/^order = .*/order = $2\np_sequence = yes/" -e 's/^checkpoint_every = .*/checkpoint_every = 0/' \
    -e "s/^scheme = .*/scheme = $3/" cases/onera_m6/case.ini > "$1/case.ini"
}
run_case() { # run_case DIR MESH [extra colordg args]
  local dir=$1 mesh=$2
  shift 2
  run_gpu_peak "$dir" "$build/colordg" run "$dir/case.ini" --backend "${M6_BACKEND:-cuda}" \
    --mesh "$mesh" --output "$dir" "$@"
  echo "$(basename "$dir"): $(grep -E 'p-sequencing|after [0-9]+ iterations|error' "$dir/run.log" | tr '\n' ' ' | cut -c1-400)" \
    "(GPU memory peak $(cat "$dir/gpu_mem_peak_mib" 2>/dev/null || echo ?) MiB)"
}
first=""
last=""
for spec in "$@"; do
  IFS=: read -r name mesh <<<"$spec"
  [ -z "$first" ] && first=$spec
  last=$spec
  case_for "$out/${name}_p$p_max" "$p_max" lusgs
  run_case "$out/${name}_p$p_max" "$mesh"
done
IFS=: read -r name mesh <<<"$first"
dir=$out/${name}_explicit_p$p_exp
case_for "$dir" "$p_exp" explicit_rk3
sed -i -e "s/^\[stop\]/[stop]\nmax_wall_seconds = $exp_seconds/" -e 's/^max_iters = .*/max_iters = 10000000/' \
  "$dir/case.ini"
run_case "$dir" "$mesh"
IFS=: read -r name mesh <<<"$last"
"$build/tests/bench_lusgs" --csv "$out/bench_m6_cpu_gpu.csv" --mesh "$mesh" --p-min 1 --p-max 2 \
  --iters 10 --cpu-iters 1 --mach 0.5 --alpha 3.06 --cfl 1 > "$out/bench_m6_cpu_gpu.log" 2>&1
echo "bench p = 1, 2 (GPU, CPU 1 and all threads): rc $?"
"$build/tests/bench_lusgs" --csv "$out/bench_m6_p3.csv" --mesh "$mesh" --p-min 3 --p-max 3 \
  --iters 10 --no-cpu --mach 0.5 --alpha 3.06 --cfl 1 > "$out/bench_m6_p3.log" 2>&1
echo "bench p = 3 (GPU): rc $?"
