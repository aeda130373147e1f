#!/usr/bin/env bash
# Installs the Debian packages limiter needs, if any is missing; idempotent and quiet when
# everything is there. The CUDA toolkit (nvcc, CUPTI) is expected at /usr/local/cuda.
#   scripts/install-deps.sh           what building and running need (scripts/limiter)
#   scripts/install-deps.sh --tests   and what the tests need too (scripts/test.sh): GoogleTest,
#                                     Chromium and Node.js for the HTML tests, clang's fuzzer runtime,
#                                     clang-format, and the Python package's build and tests
#                                     (pybind11, pandas, pytest)
set -euo pipefail
packages=(cmake g++ make libboost-program-options-dev nlohmann-json3-dev libsimdjson-dev zlib1g-dev libsqlite3-dev)
tests=0
[ "${1:-}" = --tests ] && tests=1
if [ "$tests" = 1 ]; then
  packages+=(libgtest-dev libgmock-dev)
  packages+=(python3)  # tests/cli/readme_test.py
  # The Python package (python/, docs/python.md): its module's build and its pytest tests.
  packages+=(python3-dev pybind11-dev python3-pandas python3-pytest python3-venv)
  packages+=(chromium)  # headless, for the HTML report tests (tests/html/*_in_chromium.sh)
  packages+=(fonts-dejavu-core)  # the sans-serif the HTML reports' chart labels are measured against
  command -v node >/dev/null || packages+=(nodejs npm)  # drives Chromium in tests/html/check_layout.mjs
  packages+=(clang libclang-rt-14-dev)  # scripts/fuzz.sh: clang's -fsanitize=fuzzer (libFuzzer) and ASan runtimes
  packages+=(clang-format)  # scripts/check-format.sh (clang-format 14 in Debian bookworm)
fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "limiter: installing Debian packages: ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
    { $sudo apt-get update >/dev/null && $sudo apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
fi
# playwright-core for the browser layout test, at the version tests/html/package-lock.json pins.
html_tests=$(cd "$(dirname "$0")/../tests/html" && pwd)
if [ "$tests" = 1 ] && [ ! -f "$html_tests/node_modules/playwright-core/package.json" ] && command -v npm >/dev/null; then
  echo "limiter: npm ci in tests/html (playwright-core for the browser layout test)" >&2
  (cd "$html_tests" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
    echo "note: npm ci in tests/html failed; the browser layout test will say why it skips" >&2
fi
if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  echo "note: no CUDA toolkit found; building the host side only (analysis, import, reports)." >&2
  echo "      Install CUDA 13 at /usr/local/cuda for the kernel suite and the collector." >&2
fi
