#!/usr/bin/env bash
# `limiter compare` of 1,000,000 launches against 1,000,000, grouped by kernel (the default) and
# with --launches, in text, md and html: wall time, CPU time and peak memory (/usr/bin/time).
# The records are synthetic (bench/make_synthetic_run.py, 22 kernels, H200 counters): BEFORE with
# seed 11, AFTER with seed 12 and the nvjet GEMM 17 % faster, so that one kernel really changed.
#   bench/compare-by-kernel-1m.sh [BUILD_DIR (build)] [WORK_DIR (/tmp/limiter-compare-1m)]
# LAUNCHES=N: another size (default 1000000; each record is ~1.95 GB at 1,000,000).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
work=${2:-/tmp/limiter-compare-1m}
launches=${LAUNCHES:-1000000}
limiter=$build/cli/limiter
mkdir -p "$work"
before=$work/before_$launches.json
after=$work/after_$launches.json
[ -s "$before" ] || python3 "$root/bench/make_synthetic_run.py" --launches "$launches" -o "$before"
[ -s "$after" ] || python3 "$root/bench/make_synthetic_run.py" --launches "$launches" --seed 12 --scale nvjet=0.83 -o "$after"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1e6}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "limiter: $limiter ($(cd "$root" && git rev-parse --short HEAD))"
measure() {  # NAME ARGS...: one line "NAME  wall s  CPU s  peak MB", the output in WORK/NAME.out
  local name=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/$name.time" "$limiter" compare "$before" "$after" "$@" > "$work/$name.out" || true
  read -r wall user sys rss < "$work/$name.time"
  printf '%-28s %7.2f s wall  %6.2f s CPU  %6.0f MB peak  %9d bytes out\n' "$name" "$wall" "$(echo "$user + $sys" | bc)" \
    "$(echo "$rss / 1024" | bc)" "$(stat -c %s "$work/$name.out")"
}
measure text
measure md --format md
measure html --format html
measure launches-text --launches
grep -m3 -E "^(total|matched|noise)" "$work/text.out"
grep -m1 "nvjet" "$work/text.out"
