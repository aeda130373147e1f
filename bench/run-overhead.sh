#!/usr/bin/env bash
# Per-launch overhead of limiter against the bare app and Nsight Compute with the same
# metrics. Run on the GPU machine from a staged folder (scripts/stage-device.sh):
#   bench/run-overhead.sh build-device $OUT
set -euo pipefail
stage=${1:-build-device}
out=${2:-bench-out}
mkdir -p "$out"
app="$stage/bin/limiter_bench_launch_overhead"
limiter="$stage/bin/limiter"
metrics=$("$limiter" metrics --plan default | sed -n 's/^  \([a-z0-9_]*__[^ ]*\)$/\1/p' | paste -sd,)
{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  ncu --version | tail -1
  echo "metrics ($(echo "$metrics" | tr , '\n' | wc -l)): $metrics"
} > "$out/overhead_env.txt"
run() { echo "$1 $("${@:2}" 2>"$out/$1.stderr" | tail -1)"; }
{
  run bare_2000 "$app" 2000
  run bare_200 "$app" 200
  run limiter_200 "$limiter" run -q -o "$out/bench_run.json" -- "$app" 200
  run limiter_1000 "$limiter" run -q -o "$out/bench_run_1000.json" -- "$app" 1000
  run limiter_sample100_2000 "$limiter" run -q --sample-every 100 -o "$out/bench_sampled.json" -- "$app" 2000
  run limiter_count10_2000 "$limiter" run -q -c 10 -o "$out/bench_count.json" -- "$app" 2000
  run ncu_100 ncu --clock-control none --metrics "$metrics" -o "$out/bench_ncu" -f "$app" 100
} | tee "$out/overhead.txt"
