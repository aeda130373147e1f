# shellcheck shell=bash
# shellcheck disable=SC2154  # bench, root, out, dry, stage, bin, limiter, bench_app: set by bench/run.sh, which sources this
# Usage: bench/run.sh sampling-device [--out DIR] [--stage DIR] [--dry-run]
# Everything the PM-sampling mode needs from one GPU-machine call: its GPU tests (and limiter
# run's, which the mode shares code with), a small recording for tests/data, a short PyTorch check
# with the sampler's debug trace (again with the toolkit's libnvperf_host preloaded should it get
# no sample), then the driver itself: mlp sampled at 100 and 50 us against the exact mode, and
# mlp_long sampled (each bounded by BENCH_TIMEOUT, default 400 s). A workflow, not modes: a whole
# device session of tests, recordings and benches. Results (default $OUT itself): run.log and
# sampling-results.tgz (the folder /tmp/sampling-results: every step's output).
workflow_sampling_device() {
  [ $# = 0 ] || workflow_usage
  need_limiter
  results_folder ''
  local final=$out work=/tmp/sampling-results workload=$bench/workloads/mlp_training.py nvperf
  out=$work
  live && { rm -rf "$work" && mkdir -p "$work"; }
  export_env LIMITER_CLI="$limiter" LIMITER_COLLECTOR_APP="$bin/limiter_collector_app" \
    LIMITER_SAMPLING_APP="$bin/limiter_sampling_app" LIMITER_NVTX_APP="$bin/limiter_nvtx_app" \
    LIMITER_BENCH_APP="$bench_app"
  samples() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['sampling']['samples'])" "$1" 2>/dev/null || echo 0; }
  bounded() {  # label, seconds, command...: output in $work/label.txt, its exit status in status
    local label=$1 limit=$2; shift 2
    if ! live; then print_step "$label" "$limit" "$@"; return 0; fi
    timeout "$limit" "$@" > "$work/$label.txt" 2>&1
    status=$?
  }
  local status=0
  tests_passed() { live && grep -E "^\[ +(OK|FAILED) +\]|PASSED|FAILED TEST" "$work/$1.txt"; }
  {
    live && { date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; }
    echo "== GPU tests: sampling mode (LIMITER_DEBUG=1)"
    bounded gpu_tests_sampling 120 env LIMITER_DEBUG=1 "$bin/limiter_sampling_gpu_tests"
    live && echo "exit $status"
    tests_passed gpu_tests_sampling
    echo "== GPU tests: limiter run (exact mode, NVTX)"
    bounded gpu_tests_limiter_run 120 "$bin/limiter_gpu_tests" --gtest_filter='LimiterRunGpu.*'
    live && echo "exit $status"
    tests_passed gpu_tests_limiter_run
    echo "== recording: limiter run --sampling --save-raw on limiter_sampling_app"
    bounded recording 60 "$limiter" run -q --timing --sampling --sampling-interval 200 --save-raw "$work/recording" \
      -o "$work/recording.json" -- "$bin/limiter_sampling_app"
    if live; then
      echo "exit $status"; cat "$work/recording.txt"
      gzip -9 "$work"/recording/*/pm_image_*.bin 2>/dev/null; ls -la "$work"/recording/*/
      "$limiter" report "$work/recording.json" > "$work/recording.report.txt" 2>&1; head -30 "$work/recording.report.txt"
      "$limiter" analyze "$work"/recording/*/ --record "$work/recording.offline.json" > /dev/null 2>&1
      echo "offline re-analysis exit $?"
    else
      print_step recording.report - "$limiter" report "$work/recording.json"
      print_step offline - "$limiter" analyze "$work/recording/<its folder>/" --record "$work/recording.offline.json"
    fi
    echo "== PyTorch, 20 steps, debug trace"
    bounded quick 90 env STEPS=20 LIMITER_DEBUG=1 "$limiter" run -q --timing --sampling -o "$work/quick.json" -- python3 "$workload"
    live && { echo "exit $status, samples $(samples "$work/quick.json")"; grep -v "^mlp_training" "$work/quick.txt" | head -40; }
    if live && [ "$(samples "$work/quick.json")" = 0 ]; then
      nvperf=$(ls /usr/local/cuda/lib64/libnvperf_host.so /usr/local/cuda/targets/x86_64-linux/lib/libnvperf_host.so 2>/dev/null | head -1)
      echo "== no samples: again with the toolkit's $nvperf preloaded (as the probe had it)"
      bounded quick_preload 90 env STEPS=20 LIMITER_DEBUG=1 LD_PRELOAD="$nvperf" "$limiter" run -q --timing --sampling \
        -o "$work/quick_preload.json" -- python3 "$workload"
      echo "exit $status, samples $(samples "$work/quick_preload.json")"; grep -v "^mlp_training" "$work/quick_preload.txt" | head -40
      [ "$(samples "$work/quick_preload.json")" != 0 ] && export LD_PRELOAD=$nvperf && echo "bench runs with LD_PRELOAD=$nvperf"
    fi
    echo "== bench/run.sh: the sampling mode at 100 and 50 us against the exact mode, then a long loop sampled"
    driver() {  # the driver's own call, printed under --dry-run
      if ! live; then print_step bench "${BENCH_TIMEOUT:-400}" "$bench/run.sh" "$@"; return 0; fi
      timeout "${BENCH_TIMEOUT:-400}" "$bench/run.sh" "$@"; echo "bench exit $?"
    }
    driver mlp sampling sampling_50us exact --stage "$stage" --out "$work/sampling"
    driver mlp_long sampling --stage "$stage" --out "$work/sampling_long"
  } 2>&1 | if live; then tee "$work/run.log"; else cat; fi
  if ! live; then print_step pack - tar -C /tmp -czf "$final/sampling-results.tgz" sampling-results; return 0; fi
  rm -f "$work"/sampling*/*.partial
  tar -C /tmp -czf "$final/sampling-results.tgz" sampling-results
  cp "$work/run.log" "$final/run.log"
  ls -la "$final"
}
