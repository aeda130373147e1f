#!/usr/bin/env bash
# The PM-sampling mode on a kernel-dense training loop (issue 13): bench/workloads/mlp_training.py
# run bare and under `limiter run --sampling` at two intervals, and at two lengths for memory
# (max RSS of the profiled process at STEPS and 4x STEPS). Prints wall and loop times, the
# slowdowns, max RSS, and the sampled reports. Agreement with the exact mode is computed offline
# by bench/sampling_agreement.py against the committed exact record of the same program.
# On the GPU machine, after stage-device.sh:
#   bench/run-sampling.sh build-device $OUT [STEPS]
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/sampling
steps=${3:-205}
mkdir -p "$out"
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
workload=$root/bench/workloads/mlp_training.py
wall() {  # label, command...: runs it, prints and records the wall time and max RSS
  local label=$1; shift
  /usr/bin/time -f "$label wall %e s, max RSS %M KB" -o "$out/$label.time" timeout "${STEP_TIMEOUT:-240}" "$@" \
    > "$out/$label.log" 2>&1
  echo "$label exit $?: $(tail -1 "$out/$label.time") | $(grep -h 'loop ' "$out/$label.log" | tail -1)"
}
# SAMPLING_METRICS: a comma-separated list instead of the default sampling plan.
extra=()
[ -n "${SAMPLING_METRICS:-}" ] && extra=(--metrics "$SAMPLING_METRICS")
export STEPS=$steps
wall bare python3 "$workload"
wall bare_again python3 "$workload"
wall sampling_100us "$bin/limiter" run -q --timing --sampling "${extra[@]}" --sampling-interval 100 -o "$out/sampling_100us.json" -- python3 "$workload"
wall sampling_50us "$bin/limiter" run -q --timing --sampling "${extra[@]}" --sampling-interval 50 -o "$out/sampling_50us.json" -- python3 "$workload"
export STEPS=$((steps * 4))
wall bare_long python3 "$workload"
wall sampling_100us_long "$bin/limiter" run -q --timing --sampling "${extra[@]}" --sampling-interval 100 -o "$out/sampling_100us_long.json" -- python3 "$workload"
grep -h "PM sampling" "$out"/*.log
for record in sampling_100us sampling_50us sampling_100us_long; do
  [ -f "$out/$record.json" ] || continue
  "$bin/limiter" report "$out/$record.json" --format json -o "$out/$record.report.json" 2> "$out/$record.report.err"
  "$bin/limiter" report "$out/$record.json" > "$out/$record.report.txt" 2>&1
done
python3 - "$out" << 'PY'
import os, sys
out = sys.argv[1]
def field(label, key, unit):
    text = open(os.path.join(out, label + ".time")).read().split(key + " ")[1]
    return float(text.split(" " + unit)[0])
def loop(label):
    for line in open(os.path.join(out, label + ".log")):
        if "loop " in line:
            return float(line.split("loop ")[1].split(" s")[0])
    return float("nan")
bare = min(field("bare", "wall", "s"), field("bare_again", "wall", "s"))
bare_loop = min(loop("bare"), loop("bare_again"))
for label in ("sampling_100us", "sampling_50us"):
    print(f"{label}: process {field(label, 'wall', 's'):.2f} s = {field(label, 'wall', 's') / bare:.2f}x the bare "
          f"{bare:.2f} s; loop {loop(label):.3f} s = {loop(label) / bare_loop:.2f}x the bare {bare_loop:.3f} s; "
          f"max RSS {field(label, 'max RSS', 'KB') / 1024:.0f} MB")
long_bare = field("bare_long", "max RSS", "KB") / 1024
for label in ("bare", "sampling_100us", "bare_long", "sampling_100us_long"):
    print(f"{label}: max RSS {field(label, 'max RSS', 'KB') / 1024:.0f} MB, loop {loop(label):.3f} s")
PY
