#!/usr/bin/env bash
# Builds everything with warnings as errors and runs every test (unit, cli; gpu tests skip
# with a reason when no GPU is present). Installs missing Debian packages first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh
preset=ci
[ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null || { preset=host-only; echo "host-only build" >&2; }
build_dir=build-ci
[ "$preset" = host-only ] && build_dir=build-host
cmake --preset "$preset" -DLIMITER_WERROR=ON >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)"
