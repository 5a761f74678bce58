# Sourced by the tools/device_*.sh scripts (GPU machine).
# run_gpu_peak DIR CMD...: runs CMD with its output in DIR/run.log (a failing
# CMD is not an error here: the callers read the log) while nvidia-smi is
# sampled every 0.2 s; the peak of the device's used memory in MiB goes to
# DIR/gpu_mem_peak_mib. GPU_PEAK_INDEX: the device sampled (nvidia-smi -i;
# default the first one listed).
run_gpu_peak() {
  local dir=$1
  shift
  ( peak=0
    while sleep 0.2; do
      m=$(nvidia-smi ${GPU_PEAK_INDEX:+-i "$GPU_PEAK_INDEX"} --query-gpu=memory.used \
        --format=csv,noheader,nounits 2>/dev/null | head -n 1)
      [ -n "$m" ] && [ "$m" -gt "$peak" ] && peak=$m && echo "$peak" > "$dir/gpu_mem_peak_mib"
    done ) &
  local sampler=$!
  "$@" > "$dir/run.log" 2>&1 || true
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
}
