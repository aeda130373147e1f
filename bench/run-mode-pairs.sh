#!/usr/bin/env bash
# Whole-loop slowdown of the cheap modes (issue 13), measured in rounds so that the bare loop's
# own spread (0.5-1.0 s on 205 steps, 2026-11-25) shows: each round runs
# bench/workloads/mlp_training.py bare, with --per-kernel-count K, with --sampling and with
# --sampling --per-kernel-count K, and each ratio is against that round's bare run. Prints every
# round and the median ratio of each mode; then one exact run (every launch) and the first
# round's verdict agreement with it (bench/sampling_agreement.py). On the GPU machine, after stage-device.sh:
#   bench/run-mode-pairs.sh build-device $OUT [STEPS] [ROUNDS] [K]
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/mode-pairs
steps=${3:-205}
rounds=${4:-3}
k=${5:-3}
mkdir -p "$out"
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
workload=$root/bench/workloads/mlp_training.py
source "$root/bench/wall.sh"
for round in $(seq 1 "$rounds"); do
  wall "bare_$round" env STEPS="$steps" python3 "$workload"
  wall "budget_$round" env STEPS="$steps" "$bin/limiter" run -q --per-kernel-count "$k" -o "$out/budget_$round.json" -- python3 "$workload"
  wall "sampling_$round" env STEPS="$steps" "$bin/limiter" run -q --sampling -o "$out/sampling_$round.json" -- python3 "$workload"
  wall "hybrid_$round" env STEPS="$steps" "$bin/limiter" run -q --sampling --per-kernel-count "$k" -o "$out/hybrid_$round.json" -- python3 "$workload"
done
wall exact env STEPS="$steps" "$bin/limiter" run -q -o "$out/exact.json" -- python3 "$workload"
for record in exact budget_1 sampling_1 hybrid_1; do
  "$bin/limiter" report "$out/$record.json" --format json -o "$out/$record.report.json" 2> "$out/$record.report.err"
done
for record in budget_1 sampling_1 hybrid_1; do
  echo "== agreement of $record with the exact mode (every launch)"
  python3 "$root/bench/sampling_agreement.py" "$out/$record.report.json" "$out/exact.report.json" 2>&1 | head -4
done
python3 - "$out" "$root/bench/bench_times.py" "$rounds" << 'PY'
import os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[3])
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[2])))
import bench_times
for mode in ("budget", "sampling", "hybrid"):
    ratios = []
    for r in range(1, rounds + 1):
        bare, run = bench_times.loop(out, f"bare_{r}"), bench_times.loop(out, f"{mode}_{r}")
        rss = bench_times.field(out, f"{mode}_{r}", "max RSS", "KB") / 1024
        ratios.append(run / bare)
        print(f"round {r} {mode}: loop {run:.3f} s against bare {bare:.3f} s = {run / bare:.2f}x; max RSS {rss:.0f} MB")
    print(f"{mode}: median {statistics.median(ratios):.2f}x of {rounds} rounds (range {min(ratios):.2f}-{max(ratios):.2f}x)")
PY
