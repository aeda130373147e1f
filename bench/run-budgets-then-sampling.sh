#!/usr/bin/env bash
# `limiter run --sampling --per-kernel-count K` on a kernel-dense training loop (issue 13): each
# kernel's first K launches exactly, then PM sampling for the rest of the run.
# bench/workloads/mlp_training.py bare and budgets-then-sampling alternated (two pairs), then the
# budget alone, K = 1 after a bare run of its own, sampling alone and the exact mode (every launch: the reference verdicts), and a
# long run (LONG_STEPS) bare and budgets-then-sampling for the slowdown and memory over a longer
# loop. Prints wall and loop times, slowdowns, max RSS, the collector's own account (--timing)
# and the verdict agreement of every mode with the exact one (bench/sampling_agreement.py).
# On the GPU machine, after stage-device.sh:
#   bench/run-budgets-then-sampling.sh build-device $OUT [STEPS] [LONG_STEPS] [K]
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/budgets-then-sampling
steps=${3:-205}
long_steps=${4:-1640}
k=${5:-3}
mkdir -p "$out"
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
workload=$root/bench/workloads/mlp_training.py
source "$root/bench/wall.sh"
run() {  # label, steps, limiter run options...
  local label=$1 n=$2; shift 2
  wall "$label" env STEPS="$n" "$bin/limiter" run -q --timing "$@" -o "$out/$label.json" -- python3 "$workload"
  grep -h "exact phase\|PM sampling\|NOT sampled\|launches sampled\|could not\|never began" "$out/$label.log" | head -6
}
wall bare env STEPS="$steps" python3 "$workload"
run hybrid "$steps" --sampling --per-kernel-count "$k"
wall bare_again env STEPS="$steps" python3 "$workload"
run hybrid_again "$steps" --sampling --per-kernel-count "$k"
run budget "$steps" --per-kernel-count "$k"
wall bare_k1 env STEPS="$steps" python3 "$workload"
run hybrid_k1 "$steps" --sampling --per-kernel-count 1
run sampling "$steps" --sampling
run exact "$steps"
wall bare_long env STEPS="$long_steps" python3 "$workload"
run hybrid_long "$long_steps" --sampling --per-kernel-count "$k"
for record in exact hybrid hybrid_again budget hybrid_k1 sampling hybrid_long; do
  [ -f "$out/$record.json" ] || { echo "$record: no record"; continue; }
  "$bin/limiter" report "$out/$record.json" --format json -o "$out/$record.report.json" 2> "$out/$record.report.err"
  "$bin/limiter" report "$out/$record.json" > "$out/$record.report.txt" 2>&1
done
for record in hybrid hybrid_again budget hybrid_k1 sampling hybrid_long; do
  [ -f "$out/$record.report.json" ] && [ -f "$out/exact.report.json" ] || continue
  echo "== agreement of $record with the exact mode"
  python3 "$root/bench/sampling_agreement.py" "$out/$record.report.json" "$out/exact.report.json" \
    > "$out/$record.agreement.txt" 2>&1
  head -4 "$out/$record.agreement.txt"
done
for record in hybrid hybrid_again; do  # the exact phase measures what the budget alone does
  [ -f "$out/$record.json" ] && [ -f "$out/budget.json" ] || continue
  echo "== exact phase of $record against the budget alone"
  python3 "$root/bench/exact_phase_check.py" "$out/$record.json" "$out/budget.json"
done
python3 - "$out" "$root/bench/bench_times.py" << 'PY'
import os, sys
out = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[2])))
import bench_times
field = lambda label, key, unit: bench_times.field(out, label, key, unit)
loop = lambda label: bench_times.loop(out, label)
pairs = (("hybrid", "bare"), ("hybrid_again", "bare_again"), ("budget", "bare_again"), ("hybrid_k1", "bare_k1"),
         ("sampling", "bare_k1"),
         ("exact", "bare_again"), ("hybrid_long", "bare_long"))
for label, ref in pairs:
    print(f"{label}: process {field(label, 'wall', 's'):.2f} s = {field(label, 'wall', 's') / field(ref, 'wall', 's'):.2f}x "
          f"{ref} {field(ref, 'wall', 's'):.2f} s; loop {loop(label):.3f} s = {loop(label) / loop(ref):.2f}x {ref} "
          f"{loop(ref):.3f} s; max RSS {field(label, 'max RSS', 'KB') / 1024:.0f} MB (bare {field(ref, 'max RSS', 'KB') / 1024:.0f} MB)")
PY
