#!/usr/bin/env bash
# Builds everything with warnings as errors and runs every test (unit, cli; gpu tests skip
# with a reason when no GPU is present); then the unit and CLI tests again under AddressSanitizer
# and UBSan (preset asan), and each libFuzzer target for LIMITER_FUZZ_SECONDS (scripts/fuzz.sh).
# Installs missing Debian packages first.
#
# Time on a 2-core machine without a GPU: about 40 minutes (39 on a clean clone, 2026-11-29); raise
# LIMITER_FUZZ_SECONDS locally. The fuzz targets have a tree of their own: built in the asan tree
# (LIMITER_FUZZ=ON instruments everything for coverage), its tests ran several times slower.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh --tests
scripts/check-format.sh  # every C++ and CUDA source as .clang-format has it (--fix formats them)
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
