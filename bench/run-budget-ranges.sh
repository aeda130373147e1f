#!/usr/bin/env bash
# What selective profiling costs once unselected launches are not ranged at all (issue 13):
# under a filter (per-kernel budgets, --sample-every) the profiler runs in user-range mode, so
# only selected launches get a range and the profiler never pauses; LIMITER_FILTER_RANGES=auto
# gives the earlier behaviour (auto range: every launch ranged until 64 unselected in a row
# pause it) in the same call. bench/workloads/mlp_training.py at STEPS and LONG_STEPS.
# On the GPU machine, after stage-device.sh:
#   bench/run-budget-ranges.sh build-device $OUT [STEPS] [LONG_STEPS]
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/budget-ranges
steps=${3:-205}
long_steps=${4:-2050}
mkdir -p "$out"
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
workload=$root/bench/workloads/mlp_training.py
source "$root/bench/wall.sh"
profiled() {  # label, steps, env assignment or "-", limiter options...
  local label=$1 n=$2 mode=$3; shift 3
  [ "$mode" = - ] && mode=LIMITER_FILTER_RANGES=user
  wall "$label" env STEPS="$n" "$mode" "$bin/limiter" run -q --timing "$@" -o "$out/$label.json" -- python3 "$workload"
  grep -h -A6 "time per launch" "$out/$label.log" | sed 's/^/    /'
}
wall bare env STEPS="$steps" python3 "$workload"
profiled budget3_user "$steps" - --per-kernel-count 3
profiled budget3_auto "$steps" LIMITER_FILTER_RANGES=auto --per-kernel-count 3
wall bare_again env STEPS="$steps" python3 "$workload"
profiled budget3_user_again "$steps" - --per-kernel-count 3
profiled every50_user "$steps" - --sample-every 50
profiled every50_auto "$steps" LIMITER_FILTER_RANGES=auto --sample-every 50
wall bare_long env STEPS="$long_steps" python3 "$workload"
profiled budget3_user_long "$long_steps" - --per-kernel-count 3
profiled every50_user_long "$long_steps" - --sample-every 50
"$bin/limiter" report "$root/tests/data/cupti/h100_mlp_training_limiter.json.gz" --format json -o "$out/exact.report.json" 2> /dev/null
for record in budget3_user budget3_auto every50_user every50_auto budget3_user_long every50_user_long; do
  [ -f "$out/$record.json" ] || { echo "$record: no record"; continue; }
  "$bin/limiter" report "$out/$record.json" --format json -o "$out/$record.report.json" 2> /dev/null
  echo "== $record against the exact record of the same program (tests/data): kernels >= 1 % judged, same verdict"
  python3 "$root/bench/sampling_agreement.py" "$out/$record.report.json" "$out/exact.report.json" 2> /dev/null | head -3
done
