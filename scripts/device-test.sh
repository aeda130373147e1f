#!/usr/bin/env bash
# The one command for the GPU machine: GPU tests, the collector against ncu on known-answer
# programs, a real PyTorch program, and the kernel suite when built. Build and stage here
# first (scripts/stage-device.sh), carry build-device/, then run from the repository root:
#   scripts/device-test.sh build-device $OUT
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}
mkdir -p "$out"
bin=$stage/bin
export LIMITER_CLI=$bin/limiter LIMITER_COLLECTOR_APP=$bin/limiter_collector_app
metrics=$("$bin/limiter" metrics --plan default | sed -n 's/^  \([a-z0-9_]*__[^ ]*\)$/\1/p' | paste -sd,)
status=0
step() { echo "== $*"; }

step "GPU tests (separate processes: one CUPTI session per process)"
for suite in CollectorGpu LimiterRunGpu; do
  "$bin/limiter_gpu_tests" --gtest_filter="$suite.*" > "$out/gpu_tests_$suite.txt" 2>&1 || status=1
  tail -3 "$out/gpu_tests_$suite.txt"
done

step "collector vs ncu on the same programs (default plan metrics, production clocks)"
for app in limiter_collector_app verdict_probe; do
  "$bin/limiter" run -q -o "$out/${app}_limiter.json" -- "$bin/$app" > "$out/${app}_run.txt" 2>&1 || status=1
  ncu --clock-control none --metrics "$metrics" --csv --page raw --print-units base "$bin/$app" \
    > "$out/${app}_ncu.csv" 2> "$out/${app}_ncu.log" || status=1
done

if command -v python3 > /dev/null && python3 -c "import torch" 2> /dev/null; then
  step "a real program: PyTorch training steps"
  workload=$(dirname "$0")/../bench/pytorch_workload.py
  "$bin/limiter" run -q -o "$out/pytorch_limiter.json" -- python3 "$workload" > "$out/pytorch_run.txt" 2>&1 || status=1
  ncu --clock-control none --section SpeedOfLight --metrics "$metrics" --csv --page raw --print-units base \
    python3 "$workload" > "$out/pytorch_ncu.csv" 2> "$out/pytorch_ncu.log" || status=1
fi

if [ -x "$bin/limiter_kernels" ] || "$bin/limiter" kernels --help > /dev/null 2>&1; then
  step "kernel suite"
  "$bin/limiter" kernels -o "$out/kernels_run.json" > "$out/kernels.txt" 2>&1 || status=1
  tail -5 "$out/kernels.txt"
fi
exit $status
