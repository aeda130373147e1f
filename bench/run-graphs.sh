#!/usr/bin/env bash
# CUDA graphs at eager cost (issue 12), on the GPU machine after scripts/stage-device.sh:
#   bench/run-graphs.sh build-device $OUT
# bench/workloads/graph_replay.py (a 10-kernel graph replayed 50 times between 50 eager
# iterations before and after the capture) bare, under `limiter run --replay graphs` profiling
# everything (also with keep_graph=True), and
# with --per-kernel-count 3; torch.compile(mode="reduce-overhead") bare and profiled. Prints
# each phase's cost per kernel, checks the programs' outputs equal the bare ones, and compares
# the graph nodes' counters with the same kernels launched eagerly.
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
run graph_bare python3 "$graph"
run graph_full "$bin/limiter" run -q --timing --replay graphs -o "$out/graph_full.json" -- python3 "$graph"
run graph_budget3 "$bin/limiter" run -q --timing --replay graphs --per-kernel-count 3 -o "$out/graph_budget3.json" -- python3 "$graph"
KEEP_GRAPH=1 run graph_keep_bare python3 "$graph"
KEEP_GRAPH=1 run graph_keep_full "$bin/limiter" run -q --timing --replay graphs -o "$out/graph_keep_full.json" -- python3 "$graph"
KEEP_GRAPH=1 PHASE_ITERATIONS=2 LIMITER_DEBUG=1 run graph_trace "$bin/limiter" run -q --replay graphs -o "$out/graph_trace.json" -- python3 "$graph"
grep -h -E "graph exec|graph mode" "$out/graph_trace.log" | sort | uniq -c | head -20
run compile_bare python3 "$compiled"
run compile_full "$bin/limiter" run -q --timing --replay graphs -o "$out/compile_full.json" -- python3 "$compiled"
# compile_trace: LIMITER_DEBUG run, only when diagnosing
[ "${GRAPHS_TRACE_COMPILE:-0}" = 1 ] && PHASE_ITERATIONS=2 LIMITER_DEBUG=1 STEPS=2 run compile_trace "$bin/limiter" run -q --replay graphs -o "$out/compile_trace.json" -- python3 "$compiled"
[ -f "$out/compile_trace.log" ] && grep -h -E "graph exec|graph mode" "$out/compile_trace.log" | sort | uniq -c | head -20
for record in graph_full graph_budget3 graph_keep_full graph_trace compile_full; do
  [ -f "$out/$record.json" ] && "$bin/limiter" report "$out/$record.json" --format json -o "$out/$record.report.json" 2> "$out/$record.report.err"
done
python3 "$root/bench/graphs_summary.py" "$out"
