# shellcheck shell=bash
# shellcheck disable=SC2154  # bench, root, out, dry, stage, bin, limiter, bench_app: set by bench/run.sh, which sources this
# Usage: bench/run.sh graphs-check [--out DIR] [--stage DIR] [--timeout S] [--dry-run]
# CUDA graphs at eager cost: bench/workloads/graph_replay.py (a 10-kernel graph replayed 50 times
# between 50 eager iterations before and after the capture) bare and under `limiter run` (graph
# kernels node by node in user ranges): the graph PyTorch destroyed (kept alive by limiter), the
# graph kept by PyTorch (KEEP_GRAPH=1), one range per graph launch (--graph-profiling graph),
# --per-kernel-count 3, and a LIMITER_DEBUG trace; torch.compile(mode="reduce-overhead") bare and
# profiled; Nsight Compute on the same graph program (5 iterations a phase, the default plan's
# metrics, --graph-profiling node; GRAPHS_NCU=0: not). GRAPHS_EXTRA=1 adds the measurements
# behind the design choices (a synchronise before a graph range's PopRange, 512 ranges a batch).
# Then bench/graphs_summary.py: each phase's cost per kernel, the programs' outputs against the
# bare ones (digests), and graph-node and user-ranged counters against auto-ranged eager
# launches. A workflow, not modes: the summary reads pairs of runs, not one mode's rounds (the
# timing alone: bench/run.sh graphs exact graph_whole budget). Results: default $OUT/graphs.
workflow_graphs_check() {
  [ $# = 0 ] || workflow_usage
  need_limiter
  results_folder graphs
  local graph=$bench/workloads/graph_replay.py compiled=$bench/workloads/compile_reduce_overhead.py
  local run=("$limiter" run -q --timing) metrics record
  export_env TORCHINDUCTOR_CACHE_DIR="$out/inductor-cache"  # the profiled run reuses the bare run's compilation
  wall graph_bare python3 "$graph"
  wall graph_full "${run[@]}" -o "$out/graph_full.json" -- python3 "$graph"
  wall graph_keep_bare env KEEP_GRAPH=1 python3 "$graph"
  wall graph_keep_full env KEEP_GRAPH=1 "${run[@]}" -o "$out/graph_keep_full.json" -- python3 "$graph"
  wall graph_whole "${run[@]}" --graph-profiling graph -o "$out/graph_whole.json" -- python3 "$graph"
  wall graph_budget3 "${run[@]}" --per-kernel-count 3 -o "$out/graph_budget3.json" -- python3 "$graph"
  wall graph_trace env PHASE_ITERATIONS=10 LIMITER_DEBUG=1 "${run[@]}" -o "$out/graph_trace.json" -- python3 "$graph"
  live && grep -h -E "graph exec|graph .*(kept|ignored|released)|user-range mode" "$out/graph_trace.log" |
    sed 's/\[[0-9.]*\] //' | sed 's/0x[0-9a-f]*/0x.../' | sort | uniq -c | head -20
  if { ! live || command -v ncu > /dev/null; } && [ "${GRAPHS_NCU:-1}" = 1 ]; then  # the same program under Nsight Compute
    if live; then metrics=$("$limiter" metrics --plan default | sed -n 's/^  \([a-z0-9_]*__[^ ]*\)$/\1/p' | paste -sd,)
    else metrics='<default-plan-metrics>'; fi
    wall graph_bare5 env PHASE_ITERATIONS=5 python3 "$graph"
    wall graph_full5 env PHASE_ITERATIONS=5 "${run[@]}" -o "$out/graph_full5.json" -- python3 "$graph"
    wall graph_ncu5 env PHASE_ITERATIONS=5 ncu --clock-control none --graph-profiling node --metrics "$metrics" \
      -o "$out/graph_ncu5" python3 "$graph"
    live && rm -f "$out/graph_ncu5.ncu-rep"
  fi
  if [ "${GRAPHS_EXTRA:-0}" = 1 ]; then  # measured on 2026-11-23, not needed again
    wall graph_keep_sync env KEEP_GRAPH=1 LIMITER_RANGE_SYNC=graph "${run[@]}" -o "$out/graph_keep_sync.json" -- python3 "$graph"
    wall graph_full512 env LIMITER_RANGES_PER_IMAGE=512 "${run[@]}" -o "$out/graph_full512.json" -- python3 "$graph"
  fi
  wall compile_bare python3 "$compiled"
  wall compile_full "${run[@]}" -o "$out/compile_full.json" -- python3 "$compiled"
  for record in graph_full graph_whole graph_budget3 graph_keep_full graph_trace graph_full5 compile_full; do
    if ! live; then print_step "report $record" - "$limiter" report "$out/$record.json" --format json -o "$out/$record.report.json"
    elif [ -f "$out/$record.json" ]; then
      "$limiter" report "$out/$record.json" --format json -o "$out/$record.report.json" 2> "$out/$record.report.err"
    fi
  done
  if live; then python3 "$bench/graphs_summary.py" "$out"; else print_step summary - python3 "$bench/graphs_summary.py" "$out"; fi
}
