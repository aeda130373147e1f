# shellcheck shell=bash
# shellcheck disable=SC2154  # bench, root, out, dry, stage, limiter: set by bench/run.sh, which sources this
# Usage: bench/run.sh python-profile [--out DIR] [--stage DIR] [--timeout S] [--dry-run]
# The Python package's two targets, each step bounded (default 300 s), its output in OUT/LABEL.log:
#   1. load: limiter.load of the largest committed PyTorch record
#      (tests/data/cupti/h100_mlp_training_limiter.json.gz, 10,071 launches), LOADS (3) times in a
#      row, each load's wall and CPU seconds (target: under 1 s). No GPU needed.
#   2. with a GPU and torch: bench/workloads/python_region.py's loop (STEPS 200, SIZE 2048) bare,
#      under `limiter run` (the default run, the whole program), under `limiter run --capture-range
#      cudaProfilerApi` with the loop between cudaProfilerStart and Stop (limiter_run_region: the
#      same region as limiter.profile's) and inside `with limiter.profile():` (the default run),
#      ROUNDS (3) rounds; the loop's time each way and its ratio to the round's bare loop, in
#      OUT/python_profile.tsv (mode, round, loop_s, block_s, ratio).
# The package: PYTHONPATH=LIMITER_PYTHONPATH, default STAGE/python (a build tree's module beside
# links to the package's files); PYTHON: the interpreter (default python3).
# Results: default $OUT/python-profile (meta.txt, the logs, the tsv).
workflow_python_profile() {
  [ $# = 0 ] || workflow_usage
  local record=$root/tests/data/cupti/h100_mlp_training_limiter.json.gz workload=$bench/workloads/python_region.py
  local pythonpath=${LIMITER_PYTHONPATH:-$stage/python} python=${PYTHON:-python3}
  need_limiter
  live && ! PYTHONPATH=$pythonpath "$python" -c "import limiter" 2> /dev/null &&
    { echo "bench/run.sh python-profile: $python cannot import limiter from $pythonpath (LIMITER_PYTHONPATH, PYTHON)" >&2; return 2; }
  results_folder python-profile
  export STEP_TIMEOUT=${STEP_TIMEOUT:-300}
  export_env PYTHONPATH="$pythonpath" STEPS="${STEPS:-200}" SIZE="${SIZE:-2048}" PYTHONUNBUFFERED=1
  logged() {  # label, command...: output in $out/label.log and printed
    local label=$1 status; shift
    if ! live; then print_step "$label" "$STEP_TIMEOUT" "$@"; return 0; fi
    timeout "$STEP_TIMEOUT" "$@" > "$out/$label.log" 2>&1
    status=$?
    sed "s/^/$label: /" "$out/$label.log" | grep -E 'load|python_region|rror' | tail -4
    return $status
  }
  if live; then
    { echo "date: $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1
      "$limiter" --version 2>&1 | head -1; nproc; uptime; } > "$out/meta.txt"
  fi
  logged load "$python" -c "import sys, time, limiter
for n in range(int(sys.argv[2])):
    wall, cpu = time.perf_counter(), time.process_time()
    run = limiter.load(sys.argv[1])
    print(f'load {n + 1}: {time.perf_counter() - wall:.3f} s wall, {time.process_time() - cpu:.3f} s CPU, {len(run.launches)} launches')" \
    "$record" "${LOADS:-3}"
  if live && ! { nvidia-smi -L > /dev/null 2>&1 && "$python" -c "import torch; assert torch.cuda.is_available()" 2> /dev/null; }; then
    echo "bench/run.sh python-profile: no GPU or no torch here: the load measured, the profiling costs not" >&2
    return 0
  fi
  local round
  for round in $(seq "${ROUNDS:-3}"); do
    logged "bare_$round" "$python" "$workload"
    logged "limiter_run_$round" "$limiter" run -q -o "$out/limiter_run_$round.json" -- "$python" "$workload"
    logged "limiter_run_region_$round" "$limiter" run -q --capture-range cudaProfilerApi \
      -o "$out/limiter_run_region_$round.json" -- "$python" "$workload" --cuda-profiler-api
    logged "profile_$round" "$python" "$workload" --profile
  done
  live || return 0
  { printf 'mode\tround\tloop_s\tblock_s\tratio\n'
    for round in $(seq "${ROUNDS:-3}"); do
      local bare
      bare=$(sed -n 's/^python_region: loop \([0-9.]*\) s.*/\1/p' "$out/bare_$round.log")
      for mode in bare limiter_run limiter_run_region profile; do
        sed -n 's/^python_region: loop \([0-9.]*\) s, block \([0-9.]*\) s$/\1 \2/p' "$out/${mode}_$round.log" |
          awk -v m="$mode" -v r="$round" -v b="$bare" '{ printf "%s\t%s\t%s\t%s\t%.2f\n", m, r, $1, $2, (b > 0 ? $1 / b : 0) }'
      done
    done; } > "$out/python_profile.tsv"
  cat "$out/python_profile.tsv"  # (no column(1) on the GPU machine)
}
