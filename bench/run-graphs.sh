#!/usr/bin/env bash
# CUDA graphs at eager cost (issue 12), on the GPU machine after scripts/stage-device.sh:
#   bench/run-graphs.sh build-device $OUT
# bench/workloads/graph_replay.py (a 10-kernel graph replayed 50 times between 50 eager
# iterations before and after the capture) bare and under `limiter run` (the default since
# 2026-11-24: graph kernels node by node in user ranges): the graph PyTorch destroyed (kept alive
# by limiter, kept_graphs.cpp), the graph kept by PyTorch (keep_graph=True), one range per graph
# launch (--graph-profiling graph), --per-kernel-count 3, and a LIMITER_DEBUG trace with
# timestamps; torch.compile(mode="reduce-overhead") bare and profiled; Nsight Compute on the same
# graph program (5 iterations a phase, the default plan's metrics, --graph-profiling node).
# GRAPHS_EXTRA=1 adds the measurements behind the design choices (a
# synchronise before a graph range's PopRange, 512 ranges per batch).
# Prints each phase's cost per kernel, checks the programs' outputs equal the bare ones, and
# compares counters: graph nodes and user-ranged launches against auto-ranged eager launches.
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/graphs
mkdir -p "$out"
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
run() {  # label, command...: output in $out/label.log, wall time in $out/label.time
  local label=$1; shift
  /usr/bin/time -f "$label wall %e s" -o "$out/$label.time" timeout "${STEP_TIMEOUT:-240}" "$@" > "$out/$label.log" 2>&1
  echo "$label exit $?: $(tail -1 "$out/$label.time")"
}
export TORCHINDUCTOR_CACHE_DIR=$out/inductor-cache  # the profiled run reuses the bare run's compilation
graph=$root/bench/workloads/graph_replay.py
compiled=$root/bench/workloads/compile_reduce_overhead.py
limiter=("$bin/limiter" run -q --timing)
run graph_bare python3 "$graph"
run graph_full "${limiter[@]}" -o "$out/graph_full.json" -- python3 "$graph"
KEEP_GRAPH=1 run graph_keep_bare python3 "$graph"
KEEP_GRAPH=1 run graph_keep_full "${limiter[@]}" -o "$out/graph_keep_full.json" -- python3 "$graph"
run graph_whole "${limiter[@]}" --graph-profiling graph -o "$out/graph_whole.json" -- python3 "$graph"
run graph_budget3 "${limiter[@]}" --per-kernel-count 3 -o "$out/graph_budget3.json" -- python3 "$graph"
PHASE_ITERATIONS=10 LIMITER_DEBUG=1 run graph_trace "${limiter[@]}" -o "$out/graph_trace.json" -- python3 "$graph"
grep -h -E "graph exec|graph .*(kept|ignored|released)|user-range mode" "$out/graph_trace.log" | sed 's/\[[0-9.]*\] //' |
  sed 's/0x[0-9a-f]*/0x.../' | sort | uniq -c | head -20
if command -v ncu > /dev/null && [ "${GRAPHS_NCU:-1}" = 1 ]; then  # the same program under Nsight Compute
  metrics=$("$bin/limiter" metrics --plan default | sed -n 's/^  \([a-z0-9_]*__[^ ]*\)$/\1/p' | paste -sd,)
  PHASE_ITERATIONS=5 run graph_bare5 python3 "$graph"
  PHASE_ITERATIONS=5 run graph_full5 "${limiter[@]}" -o "$out/graph_full5.json" -- python3 "$graph"
  PHASE_ITERATIONS=5 run graph_ncu5 ncu --clock-control none --graph-profiling node --metrics "$metrics" -o "$out/graph_ncu5" \
    python3 "$graph"
  rm -f "$out/graph_ncu5.ncu-rep"
fi
if [ "${GRAPHS_EXTRA:-0}" = 1 ]; then  # measured on 2026-11-23, not needed again
  KEEP_GRAPH=1 LIMITER_RANGE_SYNC=graph run graph_keep_sync "${limiter[@]}" -o "$out/graph_keep_sync.json" -- python3 "$graph"
  LIMITER_RANGES_PER_IMAGE=512 run graph_full512 "${limiter[@]}" -o "$out/graph_full512.json" -- python3 "$graph"
fi
run compile_bare python3 "$compiled"
run compile_full "${limiter[@]}" -o "$out/compile_full.json" -- python3 "$compiled"
for record in graph_full graph_whole graph_budget3 graph_keep_full graph_trace graph_full5 compile_full; do
  [ -f "$out/$record.json" ] && "$bin/limiter" report "$out/$record.json" --format json -o "$out/$record.report.json" 2> "$out/$record.report.err"
done
python3 "$root/bench/graphs_summary.py" "$out"
