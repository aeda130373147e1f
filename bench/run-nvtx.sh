#!/usr/bin/env bash
# NVTX capture ranges on a real training loop (issue 12): bench/workloads/nvtx_training.py
# (WARMUP steps outside any range, then STEPS steps in "train_step" holding forward, backward and
# optimizer) run bare, under `limiter run` profiling every launch, with --nvtx-include
# train_step/, with a per-kernel budget per range, without backward (an exclude), and with a
# start/end range.
# Prints wall times, the warm-up's time (outside the selection) against the bare run's, launches
# profiled per range, and writes the reports of the budget run in every format. On the GPU
# machine, after stage-device.sh:   bench/run-nvtx.sh build-device $OUT
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/nvtx
mkdir -p "$out"
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
workload=${WORKLOAD:-$root/bench/workloads/nvtx_training.py}
STEP_TIMEOUT=${STEP_TIMEOUT:-120}
source "$root/bench/wall.sh"
export WARMUP=${WARMUP:-100} STEPS=${STEPS:-20}
run() { local label=$1; shift; wall "$label" "$bin/limiter" run -q --timing -o "$out/$label.json" "$@" -- python3 "$workload"; }
wall bare python3 "$workload"
wall bare2 python3 "$workload"
run full
run include --nvtx-include train_step/
run budget --nvtx-include train_step/ --per-kernel-count 1 --budget-by-range
run exclude --nvtx-include train_step/ --nvtx-exclude train_step/backward/
START_END=1 run startend --nvtx-include epoch -c 100
grep -h -E "time per launch|pauses after" "$out"/*.log
for format in text md csv json html; do
  "$bin/limiter" report "$out/budget.json" --format "$format" -o "$out/budget.report.$format" 2> /dev/null
done
"$bin/limiter" report "$out/full.json" -o "$out/full.report.text" 2> /dev/null
python3 - "$out" << 'PY'
import collections, json, os, sys
out = sys.argv[1]
def field(label, word):  # "loop 0.123 s" / "warm-up steps 0.456 s" from the workload's line
    for line in open(os.path.join(out, label + ".log")):
        if line.startswith("nvtx_training:"):
            return float(line.split(word)[1].split(" s")[0])
    return float("nan")
def wall(label):
    return float(open(os.path.join(out, label + ".time")).read().split("wall ")[1].split(" s")[0])
bare_warm, bare_loop = field("bare2", "warm-up steps "), field("bare2", "loop ")
print(f"bare2: process {wall('bare2'):.2f} s, warm-up {bare_warm:.3f} s, loop {bare_loop:.3f} s "
      f"(bare: warm-up {field('bare', 'warm-up steps '):.3f} s, loop {field('bare', 'loop '):.3f} s)")
for label in ("full", "include", "budget", "exclude", "startend"):
    path = os.path.join(out, label + ".json")
    if not os.path.exists(path):
        print(f"{label}: no record"); continue
    record = json.load(open(path))
    by_range = collections.Counter(" + ".join(l.get("nvtx", [])) or "(none)" for l in record["launches"])
    print(f"{label}: process {wall(label):.2f} s; warm-up (outside the selection for include/budget) "
          f"{field(label, 'warm-up steps '):.3f} s = {field(label, 'warm-up steps ') / bare_warm:.2f}x bare; "
          f"loop {field(label, 'loop '):.3f} s = {field(label, 'loop ') / bare_loop:.2f}x bare; "
          f"{record.get('launches_seen')} launches seen, {len(record['launches'])} profiled: {dict(by_range)}")
PY
