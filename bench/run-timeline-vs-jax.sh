#!/usr/bin/env bash
# Issue 28's JAX program: limiter's activity timeline against JAX's own profiler, on the GPU
# machine after scripts/stage-device.sh:
#   bench/run-timeline-vs-jax.sh OUT [STAGE]
# STAGE (default build-device) holds bin/limiter; LIMITER_CLI wins. bench/workloads/jax_training.py
# runs twice, each step bounded by `timeout` (STEP_TIMEOUT, default 600 s), its output in OUT/*.log:
#   1. limiter run --trace -o OUT/jax_trace.json -- python3 jax_training.py
#   2. bench/timeline_vs_torch.py profile-jax jax_training.py OUT/jax_profiler.json (the whole
#      program under jax.profiler, as `profile` runs it under torch.profiler; its own folder in
#      OUT/jax_profiler.json.logdir/)
#   3. bench/timeline_vs_torch.py compare: each side over its own kernel window (first kernel to
#      last), so the warm-up steps are in both; OUT/timeline_vs_jax.md.
# TRACE_FLAGS: more `limiter run` words for step 1 (e.g. --no-nvtx).
# Both runs get the same STEPS (default 200), WARMUP (5), DTYPE (float32) and XLA_FLAGS. XLA_FLAGS
# defaults to "--xla_gpu_enable_command_buffer= --xla_gpu_autotune_level=0": XLA replays its
# command buffers (CUDA graphs) op by op while its own profiler is on (and only then), so both runs
# launch op by op; and the autotuner, which times candidate kernels while it compiles and may
# choose differently in each run, stays off, so both runs have the same kernels. XLA_FLAGS= (set,
# empty) keeps XLA's defaults in both.
set -uo pipefail
[ $# -ge 1 ] || { sed -n '2,4p' "$0" | sed 's/^# \{0,2\}//' >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd) || exit 2
stage=${2:-build-device}
root=$(cd "$(dirname "$0")/.." && pwd)
limiter=${LIMITER_CLI:-$stage/bin/limiter}
[ -x "$limiter" ] || { echo "run-timeline-vs-jax.sh: no limiter at $limiter (STAGE, LIMITER_CLI)" >&2; exit 2; }
limiter=$(cd "$(dirname "$limiter")" && pwd)/$(basename "$limiter")
python3 -c "import jax" 2> /dev/null || { echo "run-timeline-vs-jax.sh: python3 cannot import jax" >&2; exit 2; }
export STEPS=${STEPS:-200} WARMUP=${WARMUP:-5} DTYPE=${DTYPE:-float32}
export XLA_FLAGS=${XLA_FLAGS---xla_gpu_enable_command_buffer= --xla_gpu_autotune_level=0}
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
workload=$root/bench/workloads/jax_training.py
tool=$root/bench/timeline_vs_torch.py
step() {  # label, command...: output in $out/label.log
  local label=$1; shift
  timeout "${STEP_TIMEOUT:-600}" "$@" > "$out/$label.log" 2>&1
  local status=$?
  echo "$label: exit $status; $(grep -h -E '^(jax_training|jax profiler|limiter):|Error|error:' "$out/$label.log" | tail -3 | paste -sd'|')"
  return $status
}
{ echo "date: $(date -u +%FT%TZ)"; echo "STEPS=$STEPS WARMUP=$WARMUP DTYPE=$DTYPE XLA_FLAGS=$XLA_FLAGS TRACE_FLAGS=${TRACE_FLAGS:-}"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
  python3 -c "import jax, jaxlib; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__)" 2>&1 | tail -1
  "$limiter" --version 2>&1 | head -1; } > "$out/meta.txt"
cat "$out/meta.txt"
# shellcheck disable=SC2086  # TRACE_FLAGS: words
step limiter_trace "$limiter" run --trace ${TRACE_FLAGS:-} -o "$out/jax_trace.json" -- python3 "$workload"
step jax_profiler python3 "$tool" profile-jax "$workload" "$out/jax_profiler.json"
if [ -s "$out/jax_trace.json" ] && [ -s "$out/jax_profiler.json" ]; then
  python3 "$tool" compare "$out/jax_trace.json" "$out/jax_profiler.json" --theirs "JAX profiler" \
    --markdown "$out/timeline_vs_jax.md"
else
  echo "run-timeline-vs-jax.sh: a side is missing (jax_trace.json, jax_profiler.json): see $out/*.log" >&2
  exit 1
fi
