#!/usr/bin/env bash
# Which counters of the exact phase stop the PM sampler from seeing the SMs afterwards (issue 13)?
# `limiter run --sampling --per-kernel-count 3` on bench/workloads/mlp_training.py, with the exact
# phase limited to one metric set per run (--metrics), each recorded raw (--save-raw); then the
# largest value and non-zero count of every sampled column (bench/pm_sample_columns.py). A run with
# sampling alone is the control. On the GPU machine, after stage-device.sh:
#   bench/run-hybrid-sm-side.sh build-device $OUT [STEPS]
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/hybrid-sm-side
steps=${3:-205}
raw=$(mktemp -d)  # the raw samples stay on the machine (~2 MB a run)
mkdir -p "$out"
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
workload=$root/bench/workloads/mlp_training.py
source "$root/bench/wall.sh"
declare -A sets=(
  [time_dram_l2]=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors.sum
  [l1_local_lookups]=l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum
  [sm_cycles_elapsed]=sm__cycles_elapsed.avg
  [sm_cycles_active]=sm__cycles_active.avg
  [inst_issued]=smsp__inst_issued.sum
)
run() {  # label, limiter run options...
  local label=$1; shift
  wall "$label" env STEPS="$steps" "$bin/limiter" run -q --save-raw "$raw/$label" "$@" -o "$out/$label.json" -- \
    python3 "$workload"
  grep -h "NOT sampled\|launches sampled\|could not" "$out/$label.log" | head -3
  python3 "$root/bench/pm_sample_columns.py" "$raw/$label"/* 2>&1 | grep -E "samples|inst_issued|wavefronts|srcunit_tex|tensor|dram__bytes_read" | tee "$out/$label.columns.txt"
}
run sampling_alone --sampling
for label in time_dram_l2 l1_local_lookups sm_cycles_elapsed sm_cycles_active inst_issued; do
  run "$label" --sampling --per-kernel-count 3 --metrics "${sets[$label]}"
done
run default_plan --sampling --per-kernel-count 3
