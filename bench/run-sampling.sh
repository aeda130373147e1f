#!/usr/bin/env bash
# The PM-sampling mode on a kernel-dense training loop (issue 13): bench/workloads/mlp_training.py
# bare, under the exact mode (limiter run) and under `limiter run --sampling` at two intervals,
# then a long run (LONG_STEPS) bare and sampled for the whole-loop slowdown and for memory (max RSS
# of the profiled process at STEPS and LONG_STEPS). Prints wall and loop times, slowdowns, max
# RSS, the sampler's own account (--timing) and the verdict agreement with the exact mode
# (bench/sampling_agreement.py). On the GPU machine, after stage-device.sh:
#   bench/run-sampling.sh build-device $OUT [STEPS] [LONG_STEPS]
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/sampling
steps=${3:-205}
long_steps=${4:-1640}
mkdir -p "$out"
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
workload=$root/bench/workloads/mlp_training.py
source "$root/bench/wall.sh"
sampled() {  # label, interval (us), steps
  wall "$1" env STEPS="$3" LIMITER_DEBUG=1 "$bin/limiter" run -q --timing --sampling --sampling-interval "$2" \
    -o "$out/$1.json" -- python3 "$workload"
  grep -h "PM sampling\|NOT sampled\|launches sampled\|while PM sampling\|could not\|pm: started" "$out/$1.log"
}
wall bare env STEPS="$steps" python3 "$workload"
wall bare_again env STEPS="$steps" python3 "$workload"
sampled sampling_100us 100 "$steps"
sampled sampling_50us 50 "$steps"
wall exact env STEPS="$steps" "$bin/limiter" run -q -o "$out/exact.json" -- python3 "$workload"
wall bare_long env STEPS="$long_steps" python3 "$workload"
sampled sampling_100us_long 100 "$long_steps"
for record in exact sampling_100us sampling_50us sampling_100us_long; do
  [ -f "$out/$record.json" ] || { echo "$record: no record"; continue; }
  "$bin/limiter" report "$out/$record.json" --format json -o "$out/$record.report.json" 2> "$out/$record.report.err"
  "$bin/limiter" report "$out/$record.json" > "$out/$record.report.txt" 2>&1
done
for record in sampling_100us sampling_50us sampling_100us_long; do
  [ -f "$out/$record.report.json" ] && [ -f "$out/exact.report.json" ] || continue
  echo "== agreement of $record with the exact mode"
  python3 "$root/bench/sampling_agreement.py" "$out/$record.report.json" "$out/exact.report.json" \
    | tee "$out/$record.agreement.txt" | head -4
done
python3 - "$out" "$root/bench/bench_times.py" << 'PY'
import os, sys
out = sys.argv[1]
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[2])))
import bench_times
field = lambda label, key, unit: bench_times.field(out, label, key, unit)
loop = lambda label: bench_times.loop(out, label)
bare = min(field("bare", "wall", "s"), field("bare_again", "wall", "s"))
bare_loop = min(loop("bare"), loop("bare_again"))
for label, ref, ref_loop in (("sampling_100us", bare, bare_loop), ("sampling_50us", bare, bare_loop),
                             ("exact", bare, bare_loop),
                             ("sampling_100us_long", field("bare_long", "wall", "s"), loop("bare_long"))):
    print(f"{label}: process {field(label, 'wall', 's'):.2f} s = {field(label, 'wall', 's') / ref:.2f}x the bare "
          f"{ref:.2f} s; loop {loop(label):.3f} s = {loop(label) / ref_loop:.2f}x the bare {ref_loop:.3f} s; "
          f"max RSS {field(label, 'max RSS', 'KB') / 1024:.0f} MB")
for label in ("bare", "bare_again", "sampling_100us", "sampling_50us", "exact", "bare_long", "sampling_100us_long"):
    print(f"{label}: max RSS {field(label, 'max RSS', 'KB') / 1024:.0f} MB, loop {loop(label):.3f} s")
PY
