#!/usr/bin/env bash
# ONERA M6 strong scaling on a machine of 4 GPUs (docs/PERFORMANCE.md,
# "Multi-GPU scaling"), after tools/device_build.sh BUILD_DIR:
#   tools/device_scaling_m6.sh BUILD_DIR OUT_DIR MESH.cdgm STEP...
# STEP is one of
#   strong     cases/scaling/onera_m6_p2.ini, ITERS (default 11) LU-SGS
#              iterations from the free stream on 1, 2 and 4 GPUs
#              (tools/scaling_mpi.py, with each rank's phase profile,
#              COLORDG_LUSGS_PHASES=1) -> OUT_DIR/strong/
#   converge4  the ONERA M6 case at p = 2, p-sequenced from p = 1
#              (cases/onera_m6/case.ini with order = 2, p_sequence = yes), to
#              10 orders on 4 GPUs -> OUT_DIR/conv_4/
#   converge12 the same on 1 GPU (GPU 0) and on 2 GPUs (GPUs 2 and 3) at the
#              same time: separate GPUs, so the two runs share only the host
#              -> OUT_DIR/conv_1/, OUT_DIR/conv_2/
#   strong4    the strong step on 4 GPUs only -> OUT_DIR/strong4/
# Environment: ITERS, WALL (max_wall_seconds of the converge runs, default
# 560; a run stopped by it writes its checkpoint and says so in run.log),
# COUPLING ([solver] rank_coupling of every run, default the cases' colour),
# PARTITION_VISCOUS ([solver] partition_viscous, default the cases' yes),
# RUN_ARGS (more `colordg run` options of the strong runs, e.g. '--init
# STATE.cdgs': the per-iteration cost near convergence, with the state's
# viscous rows spread by the partition) and TAG (appended to the output
# folders' names).
# Each converge folder gets case.ini, run.log, history.csv and the
# nvidia-smi memory peak of the first GPU it uses (gpu_mem_peak_mib).
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_gpu_peak.sh
build=$1 out=$2 mesh=$3
shift 3
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

tag=${TAG:-}
coupling() { # coupling FILE: [solver] rank_coupling and partition_viscous from the environment
  [ -n "${COUPLING:-}" ] && sed -i "s/^\[solver\]/[solver]\nrank_coupling = $COUPLING/" "$1"
  [ -n "${PARTITION_VISCOUS:-}" ] &&
    sed -i "s/^\[solver\]/[solver]\npartition_viscous = $PARTITION_VISCOUS/" "$1"
  return 0
}
case_for() { # case_for DIR: the M6 case at p = 2, p-sequenced
  mkdir -p "$1"
  sed -e 's/^order = .*/order = 2\np_sequence = yes/' -e 's/^checkpoint_every = .*/checkpoint_every = 0/' \
    -e "s/^\[stop\]/[stop]\nmax_wall_seconds = ${WALL:-560}/" cases/onera_m6/case.ini > "$1/case.ini"
  coupling "$1/case.ini"
}
strong() { # strong DIR RANKS...
  local dir=$1
  shift
  mkdir -p "$dir"
  cp cases/scaling/onera_m6_p2.ini "$dir/case.ini"
  sed -i "s|^file = \.\./\.\./|file = $PWD/|" "$dir/case.ini"
  coupling "$dir/case.ini"
  COLORDG_LUSGS_PHASES=1 python3 tools/scaling_mpi.py --cores "$(nproc)" --backend cuda \
    --colordg "$build/colordg" --ranks "$@" --case "$dir/case.ini" --mesh "$mesh" \
    --iters "${ITERS:-11}" --out "$dir" --run-args "${RUN_ARGS:-}"
}
# converge DIR GPUS RANKS: one run on the GPUs listed (CUDA_VISIBLE_DEVICES),
# the memory peak of the first of them (run_gpu_peak)
converge() {
  local dir=$1 gpus=$2 ranks=$3 t0 t1
  case_for "$dir"
  t0=$(date +%s.%N)
  CUDA_VISIBLE_DEVICES=$gpus OMP_NUM_THREADS=4 GPU_PEAK_INDEX=${gpus%%,*} run_gpu_peak "$dir" \
    mpirun -n "$ranks" --bind-to none "$build/colordg" run "$dir/case.ini" --backend cuda \
    --mesh "$mesh" --output "$dir"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' > "$dir/process_wall_s"
  echo "$(basename "$dir") ($ranks GPUs): $(grep -E 'p-sequencing|after [0-9]+ iterations|error|wall' "$dir/run.log" |
    tr '\n' ' ' | cut -c1-600) (process $(cat "$dir/process_wall_s") s, peak $(cat "$dir/gpu_mem_peak_mib" 2>/dev/null) MiB)"
}

for step in "$@"; do
  case $step in
    strong) strong "$out/strong$tag" 1 2 4 ;;
    strong4) strong "$out/strong4$tag" 4 ;;
    converge4) converge "$out/conv_4$tag" 0,1,2,3 4 ;;
    converge12)
      converge "$out/conv_1$tag" 0 1 &
      converge "$out/conv_2$tag" 2,3 2 &
      wait ;;
    *) echo "device_scaling_m6.sh: unknown step '$step'" >&2; exit 2 ;;
  esac
done
