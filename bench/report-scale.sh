#!/usr/bin/env bash
# The report-scale benchmark (issue 11): `limiter report` of records of 123,250 and 1,000,000
# launches, against Python's json.load on the same 123,250-launch file, in one run so the
# ratio is measured under the same load. Peak memory from /usr/bin/time -v. Not a test: it
# writes ~2.3 GB of records and takes minutes.
#   bench/report-scale.sh [BUILD_DIR (build-host)] [WORK_DIR (/tmp/limiter-scale)]
# ONLY_RATIO=1 measures only the 123,250-launch ratio (repeat it: the machine is shared).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-host}
work=${2:-/tmp/limiter-scale}
limiter=$build/cli/limiter
mkdir -p "$work"

measure() {  # NAME COMMAND...: prints "NAME  elapsed s  peak RSS MB"
  local name=$1; shift
  /usr/bin/time -v "$@" > "$work/$name.out" 2> "$work/$name.time"
  local elapsed rss
  elapsed=$(awk -F': ' '/Elapsed \(wall clock\)/ {split($2, t, ":"); print (length(t) == 3 ? t[1]*3600 + t[2]*60 + t[3] : t[1]*60 + t[2])}' "$work/$name.time")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$work/$name.time")
  printf '%-34s %8.2f s %8s MB\n' "$name" "$elapsed" "$rss"
}

for launches in 123250 1000000; do
  [ -s "$work/run_$launches.json" ] || python3 "$root/bench/make_synthetic_run.py" --launches "$launches" -o "$work/run_$launches.json"
done
ls -l "$work"/run_*.json | awk '{printf "%s %.0f MB\n", $NF, $5 / 1e6}'
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1e6}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"

measure "python json.load 123250" python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$work/run_123250.json"
measure "limiter report 123250" "$limiter" report "$work/run_123250.json"
[ -n "${ONLY_RATIO:-}" ] && exit 0
measure "limiter report 1000000" "$limiter" report "$work/run_1000000.json"
measure "limiter report 1000000 --format md" "$limiter" report "$work/run_1000000.json" --format md
measure "limiter report 123250 --format html" "$limiter" report "$work/run_123250.json" --format html -o "$work/run_123250.html"
measure "limiter export 123250 sqlite" "$limiter" export "$work/run_123250.json" -o "$work/run_123250.sqlite"
wc -l "$work/limiter report 1000000.out" | awk '{print "report of 1000000 launches:", $1, "lines"}'
ls -l "$work/run_123250.html" | awk '{printf "html report of 123250 launches: %.0f kB\n", $5 / 1e3}'
