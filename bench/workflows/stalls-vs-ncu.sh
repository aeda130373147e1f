# shellcheck shell=bash
# shellcheck disable=SC2154  # bench, root, out, dry, stage, bin, limiter, bench_app: set by bench/run.sh, which sources this
# Usage: bench/run.sh stalls-vs-ncu WORKLOAD [--out DIR] [--stage DIR] [--timeout S] [--dry-run]
# limiter's stall reasons against Nsight Compute's on one workload of bench/workloads.tsv: the
# workload once under `limiter run --stalls --timing`, once under ncu's Warp State and Source
# Counters sections (every launch; NCU_COUNT=N: the first N; NCU_ARGS: more ncu words, e.g.
# "--replay-mode application --launch-skip 70", as the 2026-11-26 results used; JAX needs
# "--target-processes application-only", or ncu segfaults), each step bounded (default 600 s);
# then the record's JSON report and bench/stalls_vs_ncu.py's table. Its own workflow, not a mode:
# ncu runs every section on every launch and the comparer reads both sides.
# Results (default $OUT/stalls-WORKLOAD): limiter.json, limiter.report.json, ncu.csv (ncu's
# --log-file: its ==PROF== lines and the raw page), LABEL.log / LABEL.time of each step, meta.tsv,
# and stalls_vs_ncu.md / .json (the comparison).
workflow_stalls_vs_ncu() {  # workload
  local workload=${1:-} workload_row csv count=() ncu_args=() compare
  [ $# = 1 ] || workflow_usage
  workload_row=$(table_row "$bench/workloads.tsv" "$workload")
  [ -n "$workload_row" ] ||
    { echo "bench/run.sh stalls-vs-ncu: no workload '$workload' in bench/workloads.tsv (bench/run.sh --list)" >&2; return 2; }
  need_limiter
  results_folder "stalls-$workload"
  [ "$dry" = 1 ] || mkdir -p "$out/scratch" || return 2
  # shellcheck disable=SC2034  # scratch: read by the workload's command (eval)
  scratch=$out/scratch
  export STEP_TIMEOUT=${STEP_TIMEOUT:-600}
  split_words "$(cut -f2- <<< "$workload_row")"
  local workload_env=("${env_words[@]}") workload_cmd=("${rest_words[@]}")
  [ -n "${NCU_COUNT:-}" ] && count=(-c "$NCU_COUNT")
  read -r -a ncu_args <<< "${NCU_ARGS:-}"  # ncu's own options (application replay: no memory restore between passes)
  if live; then
    {
      printf 'workload\t%s\n' "$workload"
      printf 'command\t%s\n' "${workload_env[*]} ${workload_cmd[*]}"
      printf 'date\t%s\n' "$(date -u +%FT%TZ)"
      printf 'gpu\t%s\n' "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null | head -1)"
      printf 'limiter\t%s\n' "$("$limiter" --version 2> /dev/null | head -1)"
      printf 'ncu\t%s\n' "$(ncu --version 2> /dev/null | tail -1)"
    } > "$out/meta.tsv"
  fi
  wall limiter env "${workload_env[@]}" "$limiter" run --stalls --timing -o "$out/limiter.json" -- "${workload_cmd[@]}"
  wall ncu env "${workload_env[@]}" ncu --section WarpStateStats --section SourceCounters \
    --metrics gpu__time_duration.sum,smsp__inst_issued.sum --page raw --csv --print-units base \
    --print-kernel-base mangled --cache-control none --clock-control none "${count[@]}" "${ncu_args[@]}" --log-file "$out/ncu.csv" \
    "${workload_cmd[@]}"
  wall report "$limiter" report "$out/limiter.json" --format json -o "$out/limiter.report.json"
  # ncu's table: in its --log-file; in its step's log (with the workload's output) should it go there.
  csv=$out/ncu.csv
  live && ! grep -q '"Kernel Name"' "$csv" 2> /dev/null && csv=$out/ncu.log
  compare=(python3 "$bench/stalls_vs_ncu.py" "$out/limiter.json" "$csv" --markdown "$out/stalls_vs_ncu.md"
           --json "$out/stalls_vs_ncu.json")
  if ! live; then print_step compare 300 "${compare[@]}"; return 0; fi
  rm -rf "$scratch"
  timeout 300 "${compare[@]}"
}
