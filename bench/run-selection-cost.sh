#!/usr/bin/env bash
# What selected profiling costs on a real training loop when most launches are not selected
# (issue 13): bench/workloads/mlp_training.py bare, with --per-kernel-count 3 and with
# --sample-every 50, each at two lengths so that memory growth over the run shows; optionally
# a second staged build beside the first, run the same way in the same call (before/after).
# On the GPU machine, after stage-device.sh:
#   bench/run-selection-cost.sh build-device $OUT [STEPS] [OTHER-STAGE]
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/selection-cost
steps=${3:-205}
other=${4:-}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
workload=$root/bench/workloads/mlp_training.py
run() {  # label, steps, command...: wall time and max RSS of the process, the loop's own time
  local label=$1 n=$2; shift 2
  STEPS=$n /usr/bin/time -f "%e %M" -o "$out/$label.time" timeout "${STEP_TIMEOUT:-300}" "$@" > "$out/$label.log" 2>&1
  local rc=$? loop
  loop=$(grep -o "loop [0-9.]* s" "$out/$label.log" | tail -1)
  read -r wall rss < "$out/$label.time"
  printf '%-28s steps %5s exit %s  process %6.2f s  max RSS %5d MB  %s\n' "$label" "$n" "$rc" "$wall" $((rss / 1024)) "$loop"
  grep -h -E "pauses after|launches ranged|turns on|time per launch" "$out/$label.log" | sed 's/^/    /'
}
long=$((steps * 10))
for round in 1 2; do  # twice: the machine is shared and the first run warms caches
  run "bare-$round" "$steps" python3 "$workload"
  for build in "$stage" ${other:+"$other"}; do
    tag=$(basename "$build")
    run "$tag-budget3-$round" "$steps" "$build/bin/limiter" run -q --timing --per-kernel-count 3 -o "$out/$tag-budget3.json" -- python3 "$workload"
    run "$tag-every50-$round" "$steps" "$build/bin/limiter" run -q --timing --sample-every 50 -o "$out/$tag-every50.json" -- python3 "$workload"
  done
done
run "bare-long" "$long" python3 "$workload"
run "budget3-long" "$long" "$stage/bin/limiter" run -q --timing --per-kernel-count 3 -o "$out/budget3-long.json" -- python3 "$workload"
run "every50-long" "$long" "$stage/bin/limiter" run -q --timing --sample-every 50 -o "$out/every50-long.json" -- python3 "$workload"
