#!/usr/bin/env bash
# Per-kernel budgets on a real training loop (issue 13): bench/workloads/mlp_training.py run bare,
# under `limiter run` profiling every launch, and with --per-kernel-count 3. Prints wall times,
# slowdowns, launches seen and profiled, and whether every kernel holding >= 1 % of the time
# (in the full run) got a verdict with the budget. On the GPU machine, after stage-device.sh:
#   bench/run-per-kernel-budget.sh build-device $OUT [STEPS]
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/per-kernel-budget
steps=${3:-205}
mkdir -p "$out"
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
workload=$root/bench/workloads/mlp_training.py
source "$root/bench/wall.sh"
export STEPS=$steps
wall bare python3 "$workload"
wall full "$bin/limiter" run -q --timing -o "$out/full.json" -- python3 "$workload"
wall budget3 "$bin/limiter" run -q --timing --per-kernel-count 3 -o "$out/budget3.json" -- python3 "$workload"
wall budget3_skip2 "$bin/limiter" run -q --timing --per-kernel-skip 2 --per-kernel-count 3 -o "$out/budget3_skip2.json" -- python3 "$workload"
grep -h -E "time per launch|pauses after|turns on" "$out"/*.log
for record in full budget3 budget3_skip2; do
  [ -f "$out/$record.json" ] && "$bin/limiter" report "$out/$record.json" --format json -o "$out/$record.report.json" 2> /dev/null
done
python3 - "$out" << 'PY'
import json, os, sys
out = sys.argv[1]
def wall(label):
    text = open(os.path.join(out, label + ".time")).read().split("wall ")[1]
    return float(text.split(" s")[0])
def loop(label):  # the training loop alone, as the workload measures it (after set-up, synchronised)
    for line in open(os.path.join(out, label + ".log")):
        if "loop " in line:
            return float(line.split("loop ")[1].split(" s")[0])
    return float("nan")
bare, bare_loop = wall("bare"), loop("bare")
for label in ("full", "budget3", "budget3_skip2"):
    print(f"{label}: process {wall(label):.2f} s = {wall(label) / bare:.2f}x the bare {bare:.2f} s; "
          f"training loop {loop(label):.3f} s = {loop(label) / bare_loop:.2f}x the bare {bare_loop:.3f} s")
def groups(label):
    report = json.load(open(os.path.join(out, label + ".report.json")))
    return report, {(g["name"], str(g["grid"]), str(g["block"])): g for g in report["rollup"]["groups"]}
try:
    full_report, full = groups("full")
    print(f"full: {full_report.get('launches_seen')} launches seen, {full_report['rollup']['launches']} profiled, "
          f"{len(full)} kernels (name and configuration)")
    big = [k for k, g in full.items() if (g.get("time_share") or 0) >= 0.01]
    big_time = sum(full[k]["time_share"] for k in big)
    for label in ("budget3", "budget3_skip2"):
        report, budget = groups(label)
        covered = [k for k in big if k in budget and budget[k].get("main_verdict") not in (None, "none")]
        same = [k for k in covered if budget[k]["main_verdict"] == full[k]["main_verdict"]]
        same_time = sum(full[k]["time_share"] for k in same)
        print(f"{label}: {report.get('launches_seen')} launches seen, {report['rollup']['launches']} profiled, "
              f"{len(budget)} kernels; kernels >= 1 % of the time: {len(big)} ({big_time:.1%} of it), with a verdict: "
              f"{len(covered)}, the full run's verdict: {len(same)} ({same_time:.1%} of the time)")
        for k in big:
            if k not in same:
                print(f"   differs: {full[k]['display_name']} {k[1]} full {full[k]['main_verdict']} "
                      f"budget {budget.get(k, {}).get('main_verdict')}")
except Exception as error:
    print("comparison failed:", repr(error))
PY
