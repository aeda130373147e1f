# shellcheck shell=bash
# shellcheck disable=SC2154  # bench, root, out, dry, stage, bin, limiter, bench_app: set by bench/run.sh, which sources this
# Usage: bench/run.sh timeline-vs-jax [--out DIR] [--stage DIR] [--timeout S] [--dry-run]
# limiter's activity timeline against JAX's own profiler on bench/workloads/jax_training.py, run
# twice, each step bounded (default 600 s), its output in OUT/LABEL.log:
#   1. limiter run --trace -o OUT/jax_trace.json -- python3 jax_training.py
#   2. bench/timeline_vs_torch.py profile-jax jax_training.py OUT/jax_profiler.json (the whole
#      program under jax.profiler; its own folder in OUT/jax_profiler.json.logdir/)
#   3. bench/timeline_vs_torch.py compare: each side over its own kernel window (first kernel to
#      last), so the warm-up steps are in both; OUT/timeline_vs_jax.md.
# TRACE_FLAGS: more `limiter run` words for step 1 (e.g. --no-nvtx). Both runs get the same STEPS
# (200), WARMUP (5), DTYPE (float32) and XLA_FLAGS, which defaults to
# "--xla_gpu_enable_command_buffer= --xla_gpu_autotune_level=0": XLA replays its command buffers
# (CUDA graphs) op by op while its own profiler is on (and only then), so both runs launch op by
# op; and the autotuner, which may choose other kernels in each run, stays off. XLA_FLAGS= (set,
# empty) keeps XLA's defaults in both. A workflow, not modes: the other side is JAX's profiler.
# Results: default $OUT/timeline-vs-jax (meta.txt, the two logs and records, timeline_vs_jax.md).
workflow_timeline_vs_jax() {
  [ $# = 0 ] || workflow_usage
  local workload=$bench/workloads/jax_training.py tool=$bench/timeline_vs_torch.py
  need_limiter
  live && ! python3 -c "import jax" 2> /dev/null && { echo "bench/run.sh timeline-vs-jax: python3 cannot import jax" >&2; return 2; }
  results_folder timeline-vs-jax
  export STEP_TIMEOUT=${STEP_TIMEOUT:-600}
  export_env STEPS="${STEPS:-200}" WARMUP="${WARMUP:-5}" DTYPE="${DTYPE:-float32}" \
    XLA_FLAGS="${XLA_FLAGS---xla_gpu_enable_command_buffer= --xla_gpu_autotune_level=0}" \
    XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
  logged() {  # label, command...: output in $out/label.log, one line of it printed
    local label=$1 status; shift
    if ! live; then print_step "$label" "$STEP_TIMEOUT" "$@"; return 0; fi
    timeout "$STEP_TIMEOUT" "$@" > "$out/$label.log" 2>&1
    status=$?
    echo "$label: exit $status; $(grep -h -E '^(jax_training|jax profiler|limiter):|Error|error:' "$out/$label.log" | tail -3 | paste -sd'|')"
    return $status
  }
  if live; then
    { echo "date: $(date -u +%FT%TZ)"; echo "STEPS=$STEPS WARMUP=$WARMUP DTYPE=$DTYPE XLA_FLAGS=$XLA_FLAGS TRACE_FLAGS=${TRACE_FLAGS:-}"
      nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
      python3 -c "import jax, jaxlib; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__)" 2>&1 | tail -1
      "$limiter" --version 2>&1 | head -1; } > "$out/meta.txt"
    cat "$out/meta.txt"
  fi
  local trace_flags=()
  read -r -a trace_flags <<< "${TRACE_FLAGS:-}"
  logged limiter_trace "$limiter" run --trace "${trace_flags[@]}" -o "$out/jax_trace.json" -- python3 "$workload"
  logged jax_profiler python3 "$tool" profile-jax "$workload" "$out/jax_profiler.json"
  local compare=(python3 "$tool" compare "$out/jax_trace.json" "$out/jax_profiler.json" --theirs "JAX profiler"
                 --markdown "$out/timeline_vs_jax.md")
  if ! live; then print_step compare - "${compare[@]}"
  elif [ -s "$out/jax_trace.json" ] && [ -s "$out/jax_profiler.json" ]; then "${compare[@]}"
  else
    echo "bench/run.sh timeline-vs-jax: a side is missing (jax_trace.json, jax_profiler.json): see $out/*.log" >&2
    return 1
  fi
}
