#!/usr/bin/env bash
# Stands alone, not a bench/run.sh workflow: a host-side benchmark of this machine (no GPU, no
# stage) that writes ~8 GB of synthetic records in WORK_DIR and waits for a quiet machine (quiet.sh).
# The report-scale benchmark: `limiter report` of records of 123,250 and
# 1,000,000 launches in the three layouts a valid record has — a launch per line as `limiter run`
# writes it, all on one line (as `jq -c` writes it) and indented — against Python's json.load on
# the same 123,250-launch file, in one run so the ratios are measured under the same load. Peak
# memory from /usr/bin/time -v. Not a test: it writes ~8 GB of records and takes many minutes.
#   bench/report-scale.sh [BUILD_DIR (build)] [WORK_DIR (/tmp/limiter-scale)]
# ONLY_RATIO=1: only the 123,250-launch measurements. REPEAT=N: each measurement N times (the
# machine is shared: take the least). QUIET=S: before each measurement, wait up to S seconds for
# the machine to be idle (under 10 % busy over 2 s), and say whether it was.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
work=${2:-/tmp/limiter-scale}
limiter=$build/cli/limiter
repeat=${REPEAT:-1}
mkdir -p "$work"

source "$(dirname "$0")/quiet.sh"

measure() {  # NAME COMMAND...: prints "NAME  elapsed s  CPU s  peak RSS MB  (load)"
  local name=$1; shift
  for _ in $(seq "$repeat"); do
    local load
    load=$(wait_quiet)
    /usr/bin/time -v "$@" > "$work/$name.out" 2> "$work/$name.time"
    local elapsed cpu rss
    elapsed=$(awk -F': ' '/Elapsed \(wall clock\)/ {split($2, t, ":"); print (length(t) == 3 ? t[1]*3600 + t[2]*60 + t[3] : t[1]*60 + t[2])}' "$work/$name.time")
    cpu=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {print u + s}' "$work/$name.time")
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$work/$name.time")
    printf '%-44s %7.2f s  %6.2f s CPU  %6s MB  (%s)\n' "$name" "$elapsed" "$cpu" "$rss" "$load"
  done
}

# The records: a launch per line (bench/make_synthetic_run.py), then the same record on one line
# and indented, written by Python's json module.
for launches in 123250 1000000; do
  [ -n "${ONLY_RATIO:-}" ] && [ "$launches" != 123250 ] && continue
  lines=$work/run_$launches.json
  [ -s "$lines" ] || python3 "$root/bench/make_synthetic_run.py" --launches "$launches" -o "$lines"
  [ -s "$work/run_$launches.oneline.json" ] && [ -s "$work/run_$launches.indented.json" ] ||
    python3 - "$lines" "$work/run_$launches.oneline.json" "$work/run_$launches.indented.json" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
json.dump(run, open(sys.argv[2], "w"), separators=(",", ":"))
json.dump(run, open(sys.argv[3], "w"), indent=1)
EOF
done
ls -l "$work"/run_*.json | awk '{printf "%s %.0f MB\n", $NF, $5 / 1e6}'
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1e6}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"

measure "python json.load 123250" python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$work/run_123250.json"
for layout in "" .oneline .indented; do
  measure "limiter report 123250${layout:-.lines}" "$limiter" report "$work/run_123250$layout.json"
done
[ -n "${ONLY_RATIO:-}" ] && exit 0
for layout in "" .oneline .indented; do
  measure "limiter report 1000000${layout:-.lines}" "$limiter" report "$work/run_1000000$layout.json"
done
measure "limiter report 1000000 --format md" "$limiter" report "$work/run_1000000.json" --format md
measure "limiter report 123250 --format html" "$limiter" report "$work/run_123250.json" --format html -o "$work/run_123250.html"
measure "limiter export 123250 sqlite" "$limiter" export "$work/run_123250.json" -o "$work/run_123250.sqlite"
wc -l "$work/limiter report 1000000.lines.out" | awk '{print "report of 1000000 launches:", $1, "lines"}'
for layout in .oneline .indented; do  # the same report, whatever the layout
  cmp -s "$work/limiter report 1000000.lines.out" "$work/limiter report 1000000$layout.out" &&
    echo "report of 1000000$layout: identical to the line layout's" || echo "report of 1000000$layout: DIFFERS"
done
ls -l "$work/run_123250.html" | awk '{printf "html report of 123250 launches: %.0f kB\n", $5 / 1e3}'
