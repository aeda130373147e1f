# shellcheck shell=bash
# shellcheck disable=SC2154  # bench, root, out, dry, stage, bin, limiter, bench_app: set by bench/run.sh, which sources this
# Usage: bench/run.sh hybrid-sm-side [STEPS (205)] [--out DIR] [--stage DIR] [--timeout S] [--dry-run]
# Which counters of the exact phase stop the PM sampler from seeing the SMs afterwards?
# `limiter run --sampling --per-kernel-count 3` on bench/workloads/mlp_training.py, with the exact
# phase limited to one metric set per run (--metrics), each recorded raw (--save-raw); then the
# largest value and non-zero count of every sampled column (bench/pm_sample_columns.py) into
# LABEL.columns.txt. A run with sampling alone is the control. A workflow, not modes: what it
# measures is in the raw recordings (kept on the machine, ~2 MB a run), not in wall times.
# Results: default $OUT/hybrid-sm-side.
workflow_hybrid_sm_side() {  # [steps]
  [ $# -le 1 ] || workflow_usage
  local steps=${1:-205} raw label workload=$bench/workloads/mlp_training.py
  need_limiter
  results_folder hybrid-sm-side
  if live; then raw=$(mktemp -d); else raw='<a new temporary folder>'; fi
  # shellcheck disable=SC2054  # commas: each value is one --metrics list
  local -A sets=(
    [time_dram_l2]=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors.sum
    [l1_local_lookups]=l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum
    [sm_cycles_elapsed]=sm__cycles_elapsed.avg
    [sm_cycles_active]=sm__cycles_active.avg
    [inst_issued]=smsp__inst_issued.sum
  )
  sampled() {  # label, limiter run options...
    local label=$1; shift
    wall "$label" env STEPS="$steps" "$limiter" run -q --save-raw "$raw/$label" "$@" -o "$out/$label.json" -- \
      python3 "$workload"
    live || return 0
    grep -h "NOT sampled\|launches sampled\|could not" "$out/$label.log" | head -3
    python3 "$bench/pm_sample_columns.py" "$raw/$label"/* 2>&1 |
      grep -E "samples|inst_issued|wavefronts|srcunit_tex|tensor|dram__bytes_read" | tee "$out/$label.columns.txt"
  }
  sampled sampling_alone --sampling
  for label in time_dram_l2 l1_local_lookups sm_cycles_elapsed sm_cycles_active inst_issued; do
    sampled "$label" --sampling --per-kernel-count 3 --metrics "${sets[$label]}"
  done
  sampled default_plan --sampling --per-kernel-count 3
}
