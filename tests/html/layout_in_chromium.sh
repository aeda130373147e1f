#!/usr/bin/env bash
# layout_in_chromium.sh LIMITER
# Writes the HTML reports of the committed real-program recordings (10,071 launches of a PyTorch
# MLP training, torch.compile and JAX programs, a capture range, the H200 probe, comparisons of
# counters, launch rows, timelines and PC samples, of changes up to 3x either way, each under 1 MB,
# and a job's ranks) and opens each in Debian's Chromium at 1,280, 1,600 and 1,920 px through
# playwright-core (tests/html/package.json), failing on overlapping or clipped text, sideways
# scrolling, boxes that spill, charts that name two kernels alike and all-zero charts
# (check_layout.mjs). Exit 77 (skip) with the reason when Chromium, Node.js or the npm package
# is missing, except under CI=true, where that fails. With LIMITER_SCREENSHOT_DIR set, a PNG of
# each page's charts at each width is written there (reports/screenshots/ is made that way).
set -euo pipefail
limiter=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."

skip() {
  if [ "${CI:-}" = true ]; then echo "FAIL: $1 (CI must run the browser test: scripts/install-deps.sh --tests installs it)"; exit 1; fi
  echo "SKIP: $1"
  exit 77
}
chromium=${LIMITER_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$chromium" ] && [ -x "$chromium" ] || skip "no Chromium found (Debian package chromium; scripts/install-deps.sh --tests installs it)"
command -v node >/dev/null || skip "no Node.js found (scripts/install-deps.sh --tests installs it)"
if [ ! -f "$here/node_modules/playwright-core/package.json" ]; then
  command -v npm >/dev/null || skip "no npm to install tests/html/package.json"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || skip "npm ci in tests/html failed (no registry?)"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
report() {  # report NAME RECORD...: the HTML report of RECORD as NAME.html
  local name=$1; shift
  "$limiter" report "$@" --format html -o "$work/$name.html"
}
report mlp_training_10k tests/data/cupti/h100_mlp_training_limiter.json.gz
report pytorch_h200 tests/data/cupti/h200_pytorch_limiter.json
report pytorch_jax_2k tests/data/synthetic/pytorch_jax_2k.json.gz
report capture_range tests/data/cupti/h100_capture_range_limiter.json.gz
report probe_h200 tests/data/ncu/h200_probe_raw.csv
report ranks_h200x2 tests/data/ranks/h200x2_nccl
report ranks_stalls tests/data/ranks/stalls  # the hot lines summed over the ranks
status=0
"$limiter" compare tests/data/ncu/h200_probe_raw.csv tests/data/compare/h200_probe_local_array_slower.csv \
  --fail-if-slower 10 --format html -o "$work/compare_probe.html" || status=$?
[ "$status" -eq 4 ] || { echo "FAIL: compare exited with $status, expected 4 (planted slowdown)"; exit 1; }

# Two recordings of the MLP training (3 launches per kernel, then all 10,071): 39 kernels matched.
"$limiter" compare tests/data/cupti/h100_mlp_training_budget3_limiter.json.gz \
  tests/data/cupti/h100_mlp_training_limiter.json.gz --format html -o "$work/compare_mlp.html"
# An ncu export against limiter's record of the same PyTorch step, a row per launch.
"$limiter" compare tests/data/cupti/h200_pytorch_ncu.csv tests/data/cupti/h200_pytorch_limiter.json \
  --launches --format html -o "$work/compare_pytorch_launches.html"
# Timelines (a --trace record against a default run): times from the timelines, the program verdicts.
"$limiter" compare tests/data/trace/h100_mlp30_trace.json.gz tests/data/default_run/h200_mlp100_default.json.gz \
  --format html -o "$work/compare_timelines.html"
# Records of PC samples alone.
"$limiter" compare tests/data/stalls/synthetic_stalls_only_run.json tests/data/stalls/h100_stalls_probe.json.gz \
  --format html -o "$work/compare_samples.html"
# A kernel 3x slower (+200 %) and one 3x faster (-67 %): the change chart's ticks stand apart.
"$limiter" compare tests/data/ncu/h200_probe_raw.csv tests/data/compare/h200_probe_3x_slower_and_faster.csv \
  --format html -o "$work/compare_3x.html"
for page in "$work"/compare_*.html; do
  size=$(stat -c %s "$page")
  [ "$size" -lt 1000000 ] || { echo "FAIL: $page is $size bytes, over 1 MB"; exit 1; }
done

shots=()
if [ -n "${LIMITER_SCREENSHOT_DIR:-}" ]; then
  mkdir -p "$LIMITER_SCREENSHOT_DIR"
  shots=(--shots "$LIMITER_SCREENSHOT_DIR")
fi
echo "$("$chromium" --version 2>/dev/null || echo "$chromium"), node $(node --version)"
LIMITER_CHROMIUM=$chromium node "$here/check_layout.mjs" "${shots[@]}" "$work"/*.html
