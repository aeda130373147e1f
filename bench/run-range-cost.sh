#!/usr/bin/env bash
# Where the ~0.8 ms of CUPTI range work inside each profiled launch goes (issue 13, exact-mode
# cost): the same launch loop bare and under `limiter run --timing`, varying what the range
# measures (the default plan, one counter of one unit, two memory counters) and how long the kernel
# runs (4 MiB, 64 MiB, 256 MiB). `--timing` splits the launch call into the launching thread's CPU
# time and its blocking waits (voluntary context switches), so busy work and waiting show apart.
# The second set, `counters`, times one counter at a time, then the plan's memory-side and SM-side
# halves, to find which of the plan's counters carry the cost.
#   bench/run-range-cost.sh build-device $OUT [launches] [lengths|counters]
set -uo pipefail
stage=${1:-build-device}
out=${2:-bench-out}/range-cost
launches=${3:-2000}
set_name=${4:-lengths}
mkdir -p "$out"
app="$stage/bin/limiter_bench_launch_overhead"
limiter="$stage/bin/limiter"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader > "$out/env.txt"
one() {  # label, elements, limiter options... (none: bare)
  local label=$1 elements=$2; shift 2
  if [ "$label" = bare ] || [[ "$label" == bare_* ]]; then
    echo "$label $(timeout 60 "$app" "$launches" "$elements" | tail -1)"
  else
    echo "$label $(timeout 120 "$limiter" run -q --timing "$@" -o "$out/$label.json" -- "$app" "$launches" "$elements" \
      2> "$out/$label.timing" | tail -1)"
    grep -A1 "launch call" "$out/$label.timing" | sed 's/^/    /'
  fi
}
small=$((1 << 20)); mid=$((1 << 24)); big=$((1 << 26))
memory_side=$("$limiter" metrics --plan default | sed -n 's/^  \(\(dram\|fbpa\|lts\)__[^ ]*\)$/\1/p' | paste -sd,)
sm_side=$("$limiter" metrics --plan default | sed -n 's/^  \(\(sm\|smsp\|l1tex\)__[^ ]*\)$/\1/p' | paste -sd,)
if [ "$set_name" = lengths ]; then
  {
    one bare_4MiB $small
    one default_4MiB $small
    one time_only_4MiB $small --metrics gpu__time_duration.sum
    one inst_only_4MiB $small --metrics smsp__inst_issued.sum
    one memory_two_4MiB $small --metrics dram__bytes_read.sum,lts__t_sectors.sum
    one bare_64MiB $mid
    one default_64MiB $mid
    one bare_256MiB $big
    one default_256MiB $big
    one default_4MiB_again $small
  } 2>&1 | tee "$out/range_cost.txt"
else
  {
    one bare $small
    one default $small
    one time_only $small --metrics gpu__time_duration.sum
    one memory_side $small --metrics "$memory_side"
    one sm_side $small --metrics "$sm_side"
    for metric in sm__cycles_elapsed.avg sm__cycles_active.avg sm__issue_active.avg.pct_of_peak_sustained_elapsed \
                  sm__warps_active.avg.pct_of_peak_sustained_active sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed \
                  smsp__inst_issued.sum smsp__inst_executed_op_local_ld.sum sm__inst_executed.sum \
                  l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed; do
      one "$metric" $small --metrics "$metric"
    done
  } 2>&1 | tee "$out/counters.txt"
fi
gzip -f "$out"/time_only*.json 2>/dev/null; rm -f "$out"/*.json
