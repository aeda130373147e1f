#!/usr/bin/env bash
# Everything the PM-sampling mode needs from one GPU-machine call: its GPU tests (and limiter
# run's, which the mode shares code with), a small recording for tests/data, a short PyTorch
# check with the sampler's debug trace, then the bench (bench/run.sh: mlp and mlp_long sampled).
# Results in one tarball.
#   bench/run-sampling-device.sh STAGE OUT     (STAGE: from scripts/stage-device.sh; OUT: $OUT)
set -uo pipefail
stage=$(cd "${1:?stage folder}" && pwd)
final=${2:?output folder}
root=$(cd "$(dirname "$0")/.." && pwd)
work=/tmp/sampling-results
rm -rf "$work" && mkdir -p "$work"
bin=$stage/bin
export LIMITER_CLI=$bin/limiter LIMITER_COLLECTOR_APP=$bin/limiter_collector_app \
  LIMITER_SAMPLING_APP=$bin/limiter_sampling_app LIMITER_NVTX_APP=$bin/limiter_nvtx_app \
  LIMITER_BENCH_APP=$bin/limiter_bench_launch_overhead
workload=$root/bench/workloads/mlp_training.py
samples() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['sampling']['samples'])" "$1" 2>/dev/null || echo 0; }
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "== GPU tests: sampling mode (LIMITER_DEBUG=1)"
  LIMITER_DEBUG=1 timeout 120 "$bin/limiter_sampling_gpu_tests" > "$work/gpu_tests_sampling.txt" 2>&1
  echo "exit $?"; grep -E "^\[ +(OK|FAILED) +\]|PASSED|FAILED TEST" "$work/gpu_tests_sampling.txt"
  echo "== GPU tests: limiter run (exact mode, NVTX)"
  timeout 120 "$bin/limiter_gpu_tests" --gtest_filter='LimiterRunGpu.*' > "$work/gpu_tests_limiter_run.txt" 2>&1
  echo "exit $?"; grep -E "^\[ +(OK|FAILED) +\]|PASSED|FAILED TEST" "$work/gpu_tests_limiter_run.txt"
  echo "== recording: limiter run --sampling --save-raw on limiter_sampling_app"
  timeout 60 "$bin/limiter" run -q --timing --sampling --sampling-interval 200 --save-raw "$work/recording" \
    -o "$work/recording.json" -- "$bin/limiter_sampling_app" > "$work/recording.txt" 2>&1
  echo "exit $?"; cat "$work/recording.txt"
  gzip -9 "$work"/recording/*/pm_image_*.bin 2>/dev/null; ls -la "$work"/recording/*/
  "$bin/limiter" report "$work/recording.json" > "$work/recording.report.txt" 2>&1; head -30 "$work/recording.report.txt"
  "$bin/limiter" analyze "$work"/recording/*/ --record "$work/recording.offline.json" > /dev/null 2>&1
  echo "offline re-analysis exit $?"
  echo "== PyTorch, 20 steps, debug trace"
  timeout 90 env STEPS=20 LIMITER_DEBUG=1 "$bin/limiter" run -q --timing --sampling -o "$work/quick.json" \
    -- python3 "$workload" > "$work/quick.txt" 2>&1
  echo "exit $?, samples $(samples "$work/quick.json")"; grep -v "^mlp_training" "$work/quick.txt" | head -40
  if [ "$(samples "$work/quick.json")" = 0 ]; then
    nvperf=$(ls /usr/local/cuda/lib64/libnvperf_host.so /usr/local/cuda/targets/x86_64-linux/lib/libnvperf_host.so 2>/dev/null | head -1)
    echo "== no samples: again with the toolkit's $nvperf preloaded (as the probe had it)"
    timeout 90 env STEPS=20 LIMITER_DEBUG=1 LD_PRELOAD="$nvperf" "$bin/limiter" run -q --timing --sampling \
      -o "$work/quick_preload.json" -- python3 "$workload" > "$work/quick_preload.txt" 2>&1
    echo "exit $?, samples $(samples "$work/quick_preload.json")"; grep -v "^mlp_training" "$work/quick_preload.txt" | head -40
    [ "$(samples "$work/quick_preload.json")" != 0 ] && export LD_PRELOAD=$nvperf && echo "bench runs with LD_PRELOAD=$nvperf"
  fi
  echo "== bench/run.sh: the sampling mode at 100 and 50 us against the exact mode, then a long loop sampled"
  timeout "${BENCH_TIMEOUT:-400}" "$root/bench/run.sh" mlp sampling sampling_50us exact --stage "$stage" --out "$work/sampling"
  echo "bench exit $?"
  timeout "${BENCH_TIMEOUT:-400}" "$root/bench/run.sh" mlp_long sampling --stage "$stage" --out "$work/sampling_long"
  echo "bench exit $?"
} 2>&1 | tee "$work/run.log"
rm -f "$work"/sampling*/*.partial
tar -C /tmp -czf "$final/sampling-results.tgz" sampling-results
cp "$work/run.log" "$final/run.log"
ls -la "$final"
