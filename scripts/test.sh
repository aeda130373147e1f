#!/usr/bin/env bash
# Builds everything with warnings as errors and runs every test (unit, cli; gpu tests skip
# with a reason when no GPU is present); then the unit and CLI tests again under AddressSanitizer
# and UBSan (preset asan), and each libFuzzer target for LIMITER_FUZZ_SECONDS (scripts/fuzz.sh).
# Installs missing Debian packages first.
#
# Time on a 2-core machine (measured, sharing it with another build): normal build and tests
# ~11 min, asan build 5.6 min, its tests 3.4 min, fuzz build ~4 min, fuzzing 5 targets x 30 s
# 2.6 min: ~27 min in all, under the 30-minute CI budget; raise LIMITER_FUZZ_SECONDS locally.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh --tests
preset=ci
[ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null || { preset=host-only; echo "host-only build" >&2; }
build_dir=build-ci
[ "$preset" = host-only ] && build_dir=build-host
cmake --preset "$preset" -DLIMITER_WERROR=ON >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)"
# The host side under AddressSanitizer and UBSan, with the CUPTI host API when the toolkit is there.
cupti=ON
[ "$preset" = host-only ] && cupti=OFF
cmake --preset asan -DLIMITER_WITH_CUPTI=$cupti >/dev/null
cmake --build build-asan -j"$(nproc)"
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -L 'unit|cli'
LIMITER_WITH_CUPTI=$cupti scripts/fuzz.sh "${LIMITER_FUZZ_SECONDS:-30}"
