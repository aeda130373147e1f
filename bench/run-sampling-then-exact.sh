#!/usr/bin/env bash
# `limiter run --sampling --exact-undecided K` (issue 13): PM sampling for the first
# --sampling-phase launches, then the next K launches of each kernel the samples could not judge
# exactly. On bench/workloads/mlp_training.py: a long loop (LONG_STEPS, default 1,640 = 80,386
# launches) bare, with this mode and with --sampling alone; a short one (STEPS, default 205 =
# 10,071 launches) bare and with this mode at --sampling-phase SHORT_PHASE; the exact mode on the
# short loop as the reference for the verdicts (bench/sampling_agreement.py, by kernel time).
# On the GPU machine, after stage-device.sh:
#   bench/run-sampling-then-exact.sh build-device $OUT [LONG_STEPS] [STEPS] [K] [SHORT_PHASE]
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/sampling-then-exact
long_steps=${3:-1640}
steps=${4:-205}
k=${5:-3}
short_phase=${6:-5000}
mkdir -p "$out"
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
workload=$root/bench/workloads/mlp_training.py
source "$root/bench/wall.sh"
run() {  # label, steps, limiter run options...
  local label=$1 n=$2; shift 2
  wall "$label" env STEPS="$n" "$bin/limiter" run -q --timing "$@" -o "$out/$label.json" -- python3 "$workload"
  grep -h "sampling phase over\|NOT sampled\|never began\|could not" "$out/$label.log" | head -4
}
wall bare_long env STEPS="$long_steps" python3 "$workload"
run then_exact_long "$long_steps" --sampling --exact-undecided "$k"
run sampling_long "$long_steps" --sampling
wall bare_long_again env STEPS="$long_steps" python3 "$workload"
run then_exact_long_again "$long_steps" --sampling --exact-undecided "$k"
wall bare env STEPS="$steps" python3 "$workload"
run then_exact "$steps" --sampling --exact-undecided "$k" --sampling-phase "$short_phase"
run exact "$steps"
for record in exact then_exact_long sampling_long then_exact_long_again then_exact; do
  [ -f "$out/$record.json" ] || { echo "$record: no record"; continue; }
  "$bin/limiter" report "$out/$record.json" --format json -o "$out/$record.report.json" 2> "$out/$record.report.err"
  "$bin/limiter" report "$out/$record.json" > "$out/$record.report.txt" 2>&1
done
for record in then_exact_long sampling_long then_exact_long_again then_exact; do
  [ -f "$out/$record.report.json" ] && [ -f "$out/exact.report.json" ] || continue
  echo "== agreement of $record with the exact mode"
  python3 "$root/bench/sampling_agreement.py" "$out/$record.report.json" "$out/exact.report.json" \
    > "$out/$record.agreement.txt" 2>&1
  head -4 "$out/$record.agreement.txt"
done
python3 - "$out" "$root/bench/bench_times.py" << 'PY'
import os, sys
out = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[2])))
import bench_times
for label, ref in (("then_exact_long", "bare_long"), ("sampling_long", "bare_long"),
                   ("then_exact_long_again", "bare_long_again"), ("then_exact", "bare"), ("exact", "bare")):
    loop, bare = bench_times.loop(out, label), bench_times.loop(out, ref)
    rss = bench_times.field(out, label, "max RSS", "KB") / 1024
    print(f"{label}: loop {loop:.3f} s = {loop / bare:.2f}x {ref} {bare:.3f} s; max RSS {rss:.0f} MB")
PY
