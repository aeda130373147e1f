#!/usr/bin/env bash
# Copies the binaries the GPU machine needs into build-device/ (stripped, small enough to
# carry): bin/limiter, lib/liblimiter_inject.so (found by `limiter run` at bin/../lib),
# the GPU tests and their app, the probe and the kernel suite when built.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
stage=$root/build-device
mkdir -p "$stage/bin" "$stage/lib"
copy() { [ -f "$1" ] && strip -o "$2" "$1" 2>/dev/null || { [ -f "$1" ] && cp "$1" "$2"; } || true; }
copy "$build/cli/limiter" "$stage/bin/limiter"
copy "$build/lib/liblimiter_inject.so" "$stage/lib/liblimiter_inject.so"
# Debian's libsimdjson (the record reader) is not on the GPU machine: carried, found via $ORIGIN/../lib.
simdjson_so=$(ldd "$build/cli/limiter" | awk '/libsimdjson/ {print $3}')
[ -n "$simdjson_so" ] && cp -L "$simdjson_so" "$stage/lib/$(basename "$simdjson_so")"
# Debug info dropped, symbols kept: crash backtraces still name functions, and the carry stays under 64 MiB.
strip --strip-debug -o "$stage/bin/limiter_gpu_tests" "$build/tests/gpu/limiter_gpu_tests"
copy "$build/tests/gpu/limiter_collector_app" "$stage/bin/limiter_collector_app"
strip --strip-debug -o "$stage/bin/limiter_sampling_gpu_tests" "$build/tests/gpu/limiter_sampling_gpu_tests"  # PM-sampling mode
copy "$build/tests/gpu/limiter_sampling_app" "$stage/bin/limiter_sampling_app"
strip --strip-debug -o "$stage/bin/limiter_stalls_gpu_tests" "$build/tests/gpu/limiter_stalls_gpu_tests"  # PC sampling
copy "$build/tests/gpu/limiter_nvtx_app" "$stage/bin/limiter_nvtx_app"
copy "$build/tests/gpu/limiter_lost_launches_app" "$stage/bin/limiter_lost_launches_app"
copy "$build/tests/gpu/limiter_nothing_lost_gpu_tests" "$stage/bin/limiter_nothing_lost_gpu_tests"
for extra in "$build"/kernels/limiter_* "$build"/bench/limiter_*; do
  [ -f "$extra" ] && [ -x "$extra" ] && copy "$extra" "$stage/bin/$(basename "$extra")"
done
copy "$build/tests/gpu/limiter_kernels_gpu_tests" "$stage/bin/limiter_kernels_gpu_tests"  # kernel suite GPU tests
[ -f "$stage/verdict_probe" ] && mv "$stage/verdict_probe" "$stage/bin/verdict_probe"
nvcc -O3 -std=c++17 -arch=sm_90 -o "$stage/bin/verdict_probe" "$root/kernels/probe/verdict_probe.cu"
du -sh "$stage"
