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
# The app prints one JSON line (tools may print more): keep that line.
run() { echo "$1 $(timeout "${limit:-120}" "${@:2}" 2>"$out/$1.stderr" | grep '^{"launches"' | tail -1)"; }
{
  run bare_2000 "$app" 2000
  run bare_200 "$app" 200
  # --timing: where the collector's time goes (stderr, kept in $out/<name>.stderr)
  run limiter_2000 "$limiter" run -q --timing -o "$out/bench_run.json" -- "$app" 2000
  LIMITER_RANGES_PER_IMAGE=256 run limiter_2000_batch256 "$limiter" run -q --timing -o "$out/bench_256.json" -- "$app" 2000
  LIMITER_RANGES_PER_IMAGE=128 run limiter_2000_batch128 "$limiter" run -q --timing -o "$out/bench_128.json" -- "$app" 2000
  run limiter_20000 "$limiter" run -q --timing -o "$out/bench_run_20000.json" -- "$app" 20000
  # Memory must stay bounded: 100,000 profiled launches (~3 minutes)
  [ "${BENCH_LONG:-1}" = 1 ] && limit=400 run limiter_100000 "$limiter" run -q --timing -o "$out/bench_run_100000.json" -- "$app" 100000
  run limiter_kernel_replay_50 "$limiter" run -q --timing --replay kernel -o "$out/bench_kernel.json" -- "$app" 50
  run limiter_count10_2000 "$limiter" run -q -c 10 -o "$out/bench_count.json" -- "$app" 2000
  run ncu_50 ncu --clock-control none --metrics "$metrics" -o "$out/bench_ncu" -f "$app" 50
} | tee "$out/overhead.txt"
