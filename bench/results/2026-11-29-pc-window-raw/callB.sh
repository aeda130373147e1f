#!/usr/bin/env bash
# Call B (1 GPU, 2026-11-29): the quick device suite with the default run's fork scenarios, after
# the default run's window period (2^13) and limiter.profile() reading LIMITER_* variables.
cd "$(dirname "$0")/.."
tar xJf .devcmd/bins.tar.xz
export PATH=$PATH:/usr/local/cuda/bin
a=$OUT/b; mkdir -p "$a"; log=$OUT/log.txt
start=$(date +%s)
lap() { echo "== $* at $(( $(date +%s) - start )) s" | tee -a "$log"; }
lap device-test quick
LIMITER_DEVICE_QUICK=1 LIMITER_FORK_MODES=default timeout 480 scripts/device-test.sh build-device "$a/dt" > "$a/device_test.txt" 2>&1
echo "device-test rc $?" >> "$log"
lap done
grep -h "PASSED\|FAILED\|SKIPPED \]" "$a"/dt/gpu_tests_*.txt >> "$log" 2>/dev/null
grep -E "^== |ok$|FAILED|default run:|graphs|scenario|passed|failed" "$a/device_test.txt" | head -60 >> "$log"
find "$a" -name '*.json' -size +5M -delete; find "$a" -name scratch -type d -prune -exec rm -rf {} +
tar czf "$OUT/b.tgz" -C "$OUT" b 2>/dev/null; rm -rf "$a"
cat "$log"
