#!/usr/bin/env bash
# render_in_chromium.sh LIMITER
# Renders the HTML report of the committed H200 probe recording and the HTML comparison of the
# planted 25 % slowdown in headless Chromium (Debian's `chromium` package), then checks that
# the charts exist in the rendered DOM and that a screenshot has content. Exit 77 (skip) when
# no Chromium is installed. With LIMITER_SCREENSHOT_DIR set, the screenshots are kept there
# (reports/screenshots/ holds the layout test's screenshots of real programs).
set -euo pipefail
limiter=$(realpath "$1")
cd "$(dirname "$0")/../.."

browser=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null; then browser=$candidate; break; fi
done
if [ -z "$browser" ]; then
  echo "SKIP: no Chromium found (scripts/install-deps.sh --tests installs Debian's chromium)"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$limiter" report tests/data/ncu/h200_probe_raw.csv --format html -o "$work/report.html"
# A program that repeats kernels (2,000 launches of 22): the page shows groups, one point each.
"$limiter" report tests/data/synthetic/pytorch_jax_2k.json.gz --format html -o "$work/grouped.html"
status=0
"$limiter" compare tests/data/ncu/h200_probe_raw.csv tests/data/compare/h200_probe_local_array_slower.csv \
  --fail-if-slower 10 --format html -o "$work/compare.html" || status=$?
[ "$status" -eq 4 ] || { echo "FAIL: compare exited with $status, expected 4 (planted slowdown)"; exit 1; }

# Flags for a quiet, offline, throw-away browser; --no-sandbox because CI runs as root.
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --hide-scrollbars)
# Headless Chromium now and then never exits after --dump-dom (seen once in CI on a loaded 2-core
# machine: 45 s, then the timeout). Such a hang is the browser's, not the page's: a second try with
# a fresh profile is allowed, and said; a page that fails twice fails the test. A try counts when
# the browser exits well and wrote what it was asked for; each try starts from nothing (a try that
# wrote and then hung leaves nothing behind).
run_browser() {  # run_browser PROFILE_DIR STDOUT_FILE WRITTEN_FILE ARGS...: WRITTEN_FILE is what the browser writes itself ("" for its stdout)
  local profile=$1 output=$2 written=$3; shift 3
  local attempt
  for attempt in 1 2; do
    rm -f "$output" "$output.try" ${written:+"$written"}
    if timeout 45 "$browser" "${flags[@]}" --user-data-dir="$profile-$attempt" "$@" >"$output.try" 2>>"$work/browser.log" &&
       [ -s "${written:-$output.try}" ]; then
      mv "$output.try" "$output"
      return 0
    fi
    echo "note: $browser did not finish (try $attempt of 2): $*" >&2
  done
  return 1
}

failures=0
expect_count() {  # expect_count FILE WHAT MINIMUM [MAXIMUM] PATTERN
  local file=$1 what=$2 minimum=$3 maximum=$4 pattern=$5 count
  count=$( (grep -o -- "$pattern" "$file" || true) | wc -l)
  if [ "$count" -lt "$minimum" ] || [ "$count" -gt "$maximum" ]; then
    echo "FAIL: $what: $count in the rendered DOM, expected $minimum..$maximum ($pattern)"
    failures=$((failures + 1))
  else
    echo "ok: $what: $count"
  fi
}

for page in report compare grouped; do
  run_browser "$work/profile-dom-$page" "$work/$page.dom" "" --dump-dom "file://$work/$page.html" ||
    { echo "FAIL: $browser --dump-dom $page.html"; cat "$work/browser.log"; exit 1; }
  run_browser "$work/profile-shot-$page" "$work/$page.shot.log" "$work/$page.png" --window-size=1400,2000 \
    --screenshot="$work/$page.png" "file://$work/$page.html" ||
    { echo "FAIL: $browser --screenshot $page.html"; cat "$work/browser.log"; exit 1; }
  # A PNG, and not a blank page: an empty 1400x2000 page compresses to a few kB.
  if [ "$(head -c 8 "$work/$page.png" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
    echo "FAIL: $page.png is not a PNG"; failures=$((failures + 1))
  fi
  size=$(stat -c %s "$work/$page.png")
  if [ "$size" -lt 40000 ]; then echo "FAIL: $page.png has $size bytes: blank?"; failures=$((failures + 1)); fi
  echo "ok: $page.png, $size bytes"
done

dom=$work/report.dom
expect_count "$dom" "SVG charts" 4 4 '<svg id="[a-z-]*"'
expect_count "$dom" "kernels on the utilisation map" 7 7 '<circle class="kernel [a-z]*"'
expect_count "$dom" "bandwidth-limited points" 4 4 '<circle class="kernel bandwidth"'
expect_count "$dom" "instruction-limited points" 1 1 '<circle class="kernel instruction"'
expect_count "$dom" "latency-limited points" 2 2 '<circle class="kernel latency"'
expect_count "$dom" "threshold lines" 5 99 'class="threshold"'
expect_count "$dom" "legend entries" 4 4 'class="legend-item"'
expect_count "$dom" "time-share bars" 7 7 '<rect class="bar [a-z]*"'
expect_count "$dom" "LMEM bars (the 2 kernels with local memory)" 4 4 '<rect class="bar lmem-[a-z0-9]*"'
expect_count "$dom" "point labels" 7 7 'class="point-label"'
expect_count "$dom" "per-kernel sections" 7 7 '<article class="kernel"'
expect_count "$dom" "scripts" 0 0 '<script'

dom=$work/grouped.dom
expect_count "$dom" "groups on the utilisation map" 22 22 '<circle class="kernel [a-z]*"'
expect_count "$dom" "group sections" 20 20 '<article class="kernel"'
expect_count "$dom" "launch tables" 0 0 '<table id="kernels"'
expect_count "$dom" "full names on hover" 20 99 '<code title="void '

dom=$work/compare.dom
expect_count "$dom" "SVG charts" 2 2 '<svg id="[a-z-]*"'
expect_count "$dom" "slower bars" 1 1 '<rect class="bar slower"'
expect_count "$dom" "moved kernels" 1 1 '<line class="move"'
expect_count "$dom" "failed gate" 1 1 'class="gate failed"'

if [ -n "${LIMITER_SCREENSHOT_DIR:-}" ]; then
  cp "$work/report.png" "$LIMITER_SCREENSHOT_DIR/h200_probe_report_screenshot.png"
  cp "$work/compare.png" "$LIMITER_SCREENSHOT_DIR/h200_probe_compare_screenshot.png"
  echo "screenshots written to $LIMITER_SCREENSHOT_DIR"
fi
if [ "$failures" -gt 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "rendered in $($browser --version 2>/dev/null || echo "$browser")"
