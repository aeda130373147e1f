#!/usr/bin/env bash
# Call C (1 GPU, 2026-11-29): after call B, the default run's ends with the samples scenarios at
# CUPTI's period; the PM-sampling test that failed in call B, twice (flaky before: 2026-11-26, -28);
# the ten-launch app at the window's own period (how many samples, what the report says).
cd "$(dirname "$0")/.."
tar xJf .devcmd/bins.tar.xz
export PATH=$PATH:/usr/local/cuda/bin
c=$OUT/c; mkdir -p "$c"; log=$OUT/log.txt
bin=$PWD/build-device/bin
export LIMITER_CLI=$bin/limiter LIMITER_LOST_APP=$bin/limiter_lost_launches_app LIMITER_SAMPLING_APP=$bin/limiter_sampling_app
timeout 150 $bin/limiter_nothing_lost_gpu_tests --gtest_filter='*DefaultRunEnds*' > "$c/nothing_lost.txt" 2>&1
echo "DefaultRunEnds rc $?" >> "$log"; grep -h "PASSED\|FAILED\|Failure" -A2 "$c/nothing_lost.txt" | head -12 >> "$log"
for i in 1 2; do
  timeout 60 $bin/limiter_sampling_gpu_tests --gtest_filter='SamplingGpu.LimiterRunSamplingThenExact*' > "$c/sampling_$i.txt" 2>&1
  echo "SamplingThenExact $i rc $?" >> "$log"; grep -h "PASSED\|FAILED\|NOT sampled" "$c/sampling_$i.txt" | head -4 >> "$log"
done
timeout 30 $bin/limiter run --timing -o "$c/tiny.json" -- $bin/limiter_lost_launches_app phases-exit 10 0 > "$c/tiny_run.txt" 2>&1
echo "tiny rc $?" >> "$log"; grep -h "samples in\|PC samples\|period" "$c/tiny_run.txt" | head -3 >> "$log"
timeout 30 $bin/limiter report "$c/tiny.json" > "$c/tiny_report.txt" 2>&1; echo "report rc $?" >> "$log"
grep -in "stall\|sample" "$c/tiny_report.txt" | head -8 >> "$log"
tar czf "$OUT/c.tgz" -C "$OUT" c 2>/dev/null; rm -rf "$c"
cat "$log"
