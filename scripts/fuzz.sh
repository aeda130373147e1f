#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
# Builds the libFuzzer targets (preset fuzz: clang, ASan + UBSan, host side) and runs each on
# its seed corpus (tests/fuzz/corpus/<target>) for SECONDS. Fails on any finding: a crash, a
# sanitizer report, an input slower than 30 s, more than 2 GB of memory, an unexpected exception.
# Findings and the inputs found along the way are kept in build-fuzz/findings/<target>/;
# reproduce one with `build-fuzz/tests/fuzz/<target> FILE`.
set -euo pipefail
seconds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# LIMITER_WITH_CUPTI=OFF (no CUDA toolkit): without fuzz_raw_dir.
cmake --preset fuzz ${LIMITER_WITH_CUPTI:+-DLIMITER_WITH_CUPTI=$LIMITER_WITH_CUPTI} >/dev/null
cmake --build build-fuzz --target fuzz_targets -j"$(nproc)" >/dev/null
failed=()
for corpus in tests/fuzz/corpus/*/; do
  target=$(basename "$corpus")
  binary=$root/build-fuzz/tests/fuzz/$target
  [ -x "$binary" ] || { echo "$target: not built (no CUPTI?), skipped"; continue; }
  work=build-fuzz/findings/$target
  rm -rf "$work" && mkdir -p "$work/found"
  start=$SECONDS
  rc=0
  # fuzz_raw_dir runs NVIDIA's libnvperf_host: LeakSanitizer's end-of-run tracer has crashed on
  # its threads ("Tracer caught signal 11" after "Done", CI 2026-11-23), and its leaks are not
  # ours to fix, so leaks are checked in our own readers only.
  leaks=1
  [ "$target" = fuzz_raw_dir ] && leaks=0
  (cd "$work" && ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=$leaks" "$binary" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
     found "$root/$corpus" >log 2>&1) || rc=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
  printf '%-18s %8s executions in %3d s\n' "$target" "${executions:-?}" $((SECONDS - start))
  if [ "$rc" -ne 0 ]; then
    failed+=("$target")
    grep -E "ERROR|runtime error|what\(\)|SUMMARY" "$work/log" | head -5 || true
    ls "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-* 2>/dev/null || true
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing found problems in: ${failed[*]} (logs in build-fuzz/findings/)" >&2
  exit 1
fi
