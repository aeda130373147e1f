#!/usr/bin/env bash
# Call C: call B's three suites again with the variables device-test.sh exports (call B ran them
# without: "limiter: not found"): limiter run on the GPU, PM sampling modes, nothing lost.
cd "$(dirname "$0")/.."
tar xJf .devcmd/bins.tar.xz build-device
b=$OUT/c; mkdir -p "$b"; log=$OUT/log.txt
bin=$PWD/build-device/bin
export LIMITER_CLI=$bin/limiter LIMITER_COLLECTOR_APP=$bin/limiter_collector_app LIMITER_NVTX_APP=$bin/limiter_nvtx_app \
  LIMITER_BENCH_APP=$bin/limiter_bench_launch_overhead LIMITER_SAMPLING_APP=$bin/limiter_sampling_app
start=$(date +%s)
lap() { echo "== $* at $(( $(date +%s) - start )) s" | tee -a "$log"; }
lap LimiterRunGpu
timeout 30 "$bin/limiter_gpu_tests" --gtest_filter='LimiterRunGpu.*' > "$b/gpu_LimiterRunGpu.txt" 2>&1; echo "rc $?" >> "$log"
lap sampling
timeout 30 "$bin/limiter_sampling_gpu_tests" > "$b/gpu_sampling.txt" 2>&1; echo "rc $?" >> "$log"
lap nothing lost
LIMITER_LOST_APP=$bin/limiter_lost_launches_app timeout 75 "$bin/limiter_nothing_lost_gpu_tests" > "$b/gpu_nothing_lost.txt" 2>&1; echo "rc $?" >> "$log"
lap done
grep -h "PASSED\|FAILED\|SKIPPED \]" "$b"/gpu_*.txt >> "$log"
tar czf "$OUT/c.tgz" -C "$OUT" c; rm -rf "$b"
cat "$log"
