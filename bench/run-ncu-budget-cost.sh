#!/usr/bin/env bash
# What Nsight Compute costs for the launches a per-kernel budget profiles (issue 13):
# bench/workloads/mlp_training.py bare, under `limiter run --per-kernel-count K`, and under ncu
# with the default plan's metrics on as many launches (-c N, N = the budget's profiled launches:
# the first N launches of the run, as ncu has no per-kernel budget), alternated twice; loop and
# wall times and each ratio against the bare run before it. On the GPU machine, after stage-device.sh:
#   bench/run-ncu-budget-cost.sh build-device $OUT [STEPS] [K]
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/ncu-budget-cost
steps=${3:-205}
k=${4:-3}
mkdir -p "$out"
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
workload=$root/bench/workloads/mlp_training.py
source "$root/bench/wall.sh"
metrics=$("$bin/limiter" metrics --plan default | sed -n 's/^  \([a-z0-9_]*__[^ ]*\)$/\1/p' | paste -sd,)
for round in 1 2; do
  wall "bare_$round" env STEPS="$steps" python3 "$workload"
  wall "budget_$round" env STEPS="$steps" "$bin/limiter" run -q --per-kernel-count "$k" -o "$out/budget_$round.json" -- \
    python3 "$workload"
  count=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sum(1 for _ in r['launches']))" \
    "$out/budget_$round.json" 2> /dev/null || echo 111)
  wall "ncu_$round" env STEPS="$steps" ncu --clock-control none --cache-control none --metrics "$metrics" -c "$count" \
    --csv --page raw --print-units base python3 "$workload"
  echo "round $round: ncu profiled the first $count launches (the budget's count)"
done
python3 - "$out" "$root/bench/bench_times.py" << 'PY'
import os, sys
out = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[2])))
import bench_times
for r in (1, 2):
    bare = bench_times.loop(out, f"bare_{r}")
    bare_wall = bench_times.field(out, f"bare_{r}", "wall", "s")
    for mode in ("budget", "ncu"):
        loop, wall = bench_times.loop(out, f"{mode}_{r}"), bench_times.field(out, f"{mode}_{r}", "wall", "s")
        print(f"round {r} {mode}: loop {loop:.3f} s = {loop / bare:.2f}x bare {bare:.3f} s; "
              f"process {wall:.2f} s = {wall / bare_wall:.2f}x bare {bare_wall:.2f} s")
PY
