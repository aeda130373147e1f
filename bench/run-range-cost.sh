#!/usr/bin/env bash
# Where the ~0.8 ms of CUPTI range work inside each profiled launch goes (issue 13, exact-mode
# cost): the same launch loop bare and under `limiter run --timing`, varying what the range
# measures (the default plan, one counter of one unit, two memory counters) and how long the kernel
# runs (4 MiB, 64 MiB, 256 MiB). `--timing` splits the launch call into the launching thread's CPU
# time and its blocking waits (voluntary context switches), so busy work and waiting show apart.
#   bench/run-range-cost.sh build-device $OUT [launches]
set -uo pipefail
stage=${1:-build-device}
out=${2:-bench-out}/range-cost
launches=${3:-2000}
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
rm -f "$out"/*.json
