#!/usr/bin/env bash
# Call 1 (1 GPU): the narrow Session interface and backend factory (975ab03). Costs before
# (build-before: 0636a3b) and after (build-device) in one call, then the quick device suite with
# the default run's fork scenarios. Each step bounded; logs under $OUT.
cd "$(dirname "$0")/.."
tar xJf .devcmd/bins.tar.xz
export PATH=$PATH:/usr/local/cuda/bin
a=$OUT/a; mkdir -p "$a"; log=$OUT/log.txt
before=$PWD/build-before/bin/limiter
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$a/gpu.txt" 2>&1
start=$(date +%s)
lap() { echo "== $* at $(( $(date +%s) - start )) s" | tee -a "$log"; }
lap bench launch_overhead
timeout 60 bench/run.sh launch_overhead "before=LIMITER_CLI=$before --every-launch" "after=--every-launch" \
  "before_default=LIMITER_CLI=$before" "after_default=-" --rounds 2 --stage build-device --out "$a/overhead" > "$a/bench_overhead.txt" 2>&1
echo "rc $?" >> "$log"
lap bench mlp1000
timeout 100 bench/run.sh mlp1000 "before_default=LIMITER_CLI=$before" "after_default=-" "after_trace=--trace" \
  --rounds 2 --stage build-device --out "$a/mlp" > "$a/bench_mlp.txt" 2>&1
echo "rc $?" >> "$log"
lap device-test quick
LIMITER_DEVICE_QUICK=1 LIMITER_FORK_MODES=default timeout 400 scripts/device-test.sh build-device "$a/dt" > "$a/device_test.txt" 2>&1
echo "device-test rc $?" >> "$log"
lap done
grep -h "PASSED\|FAILED\|SKIPPED \]" "$a"/dt/gpu_tests_*.txt >> "$log" 2>/dev/null
grep -E "^== |ok$|FAILED|default run:|graphs" "$a/device_test.txt" >> "$log"
cat $(find "$a/overhead" "$a/mlp" -name "*.md" | head -4) >> "$log" 2>/dev/null
find "$a" -name '*.json' -size +5M -delete; find "$a" -name scratch -type d -prune -exec rm -rf {} +
tar czf "$OUT/a.tgz" -C "$OUT" a 2>/dev/null; rm -rf "$a"
cat "$log"
