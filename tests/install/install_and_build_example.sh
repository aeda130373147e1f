#!/usr/bin/env bash
# cmake --install of the build into a fresh prefix, then examples/find_package configured against
# it with find_package(limiter), built, and its report_record run on a committed record.
# Usage: install_and_build_example.sh BUILD_DIR SOURCE_DIR RECORD
set -euo pipefail
build=$1 source=$2 record=$3
work=$(mktemp -d /tmp/limiter-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -x "$work/prefix/bin/limiter"
test -f "$work/prefix/include/limiter/collector.hpp"
cmake -S "$source/examples/find_package" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" > "$work/configure.log"
cmake --build "$work/build" -j2 > "$work/build.log"
"$work/build/report_record" "$record" | head -5
