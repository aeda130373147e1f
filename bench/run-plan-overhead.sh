#!/usr/bin/env bash
# Per-launch cost of the default metric plan against the plan it replaced (bench/plan-2026-11-22.txt,
# 26 metrics) and the bare app, in one run on one GPU, alternating so that drift hits both.
#   bench/run-plan-overhead.sh build-device $OUT [launches]
set -uo pipefail
stage=${1:-build-device}
out=${2:-bench-out}
launches=${3:-2000}
mkdir -p "$out"
app="$stage/bin/limiter_bench_launch_overhead"
limiter="$stage/bin/limiter"
old_plan=$(cat "${PREVIOUS_PLAN:-$(dirname "$0")/plan-2026-11-22.txt}")  # PREVIOUS_PLAN: another plan file
{
  echo "date: $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  "$limiter" metrics --plan default | head -1
  echo "previous plan: $(echo "$old_plan" | tr , '\n' | wc -l) metrics"
} > "$out/plan_overhead_env.txt"
run() { echo "$1 $(timeout 120 "${@:2}" 2>"$out/$1.stderr" | grep '^{"launches"' | tail -1)"; }
{
  for repeat in 1 2 3; do
    run "bare_$repeat" "$app" "$launches"
    run "previous_plan_$repeat" "$limiter" run -q --metrics "$old_plan" -o "$out/previous.json" -- "$app" "$launches"
    run "default_plan_$repeat" "$limiter" run -q -o "$out/default.json" -- "$app" "$launches"
  done
} | tee "$out/plan_overhead.txt"
