#!/usr/bin/env bash
# The one bench driver, one entry point for a GPU-machine call. By default a workload bare and
# under each mode, in rounds, each mode against its own round's bare run (the bare loop's own
# spread shows that way), optionally Nsight Compute on as many launches as each mode profiled
# exactly; then every record's JSON report and the summary (bench/summarise.py). Workloads:
# bench/workloads.tsv; modes: bench/modes.tsv; suites (named driver calls): bench/suites.tsv.
#
#   bench/run.sh WORKLOAD MODE... [--rounds N] [--ncu] [--out DIR] [--stage DIR] [--timeout S]
#                [--no-timing] [--dry-run]
#   bench/run.sh SUITE [options]    bench/run.sh WORKFLOW [ARGS...] [options]    bench/run.sh --list
#
# MODE is a name from bench/modes.tsv or NAME='FLAGS' (e.g. budget5='--per-kernel-count 5').
# WORKFLOW: a file of bench/workflows/ (hyphenated names, so none is a workload's), sourced here:
# it shares the options, bench/wall.sh's bounded and logged steps and the results layout.
# --stage: staged binaries (scripts/stage-device.sh; default build-device) or a build tree;
# LIMITER_CLI and LIMITER_BENCH_APP win, as in scripts/device-test.sh. --out: default $OUT/WORKLOAD
# (a workflow: $OUT/its folder; else a new temporary folder). --timeout: seconds per step
# (STEP_TIMEOUT, default 240; a workflow may have its own default).
# --no-timing: without limiter run --timing (the collector's own account, on by default).
# --dry-run prints every step's command instead of running it. Each step leaves LABEL.log,
# LABEL.time (bench/wall.sh) and LABEL.json; runs.tsv and meta.tsv say what ran.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/bench
usage() { sed -n '8,10p' "$0" | sed 's/^# \{0,2\}//' >&2; exit 2; }

# shellcheck source=bench/tables.sh
source "$bench/tables.sh"  # table_row, split_words, find_binaries
# shellcheck source=bench/wall.sh
source "$bench/wall.sh"  # wall, print_step, live
if [ "${1:-}" = --list ]; then
  echo "workloads (bench/workloads.tsv):"; grep -v '^#' "$bench/workloads.tsv" | cut -f1,3 | sed 's/^/  /'
  echo "modes (bench/modes.tsv):"; grep -v '^#' "$bench/modes.tsv" | sed 's/^/  /'
  echo "suites (bench/suites.tsv):"; grep -v '^#' "$bench/suites.tsv" | sed 's/^/  /'
  echo "workflows (bench/workflows/):"
  for file in "$bench"/workflows/*.sh; do sed -n 's/^# Usage: bench\/run.sh /  /p' "$file"; done
  exit 0
fi

# A suite: its row's words (leading VAR=value: the environment) stand for the first argument.
suite_row=$(table_row "$bench/suites.tsv" "${1:-}")
if [ -n "$suite_row" ]; then
  split_words "$suite_row"
  [ ${#env_words[@]} = 0 ] || export "${env_words[@]}"
  set -- "${rest_words[@]}" "${@:2}"
fi
workflow=''
if [[ "${1:-}" == *-* ]] && [ -f "$bench/workflows/$1.sh" ]; then workflow=$1; shift; fi

workload='' modes=() args=() rounds=1 ncu=0 out='' stage='' dry=0 timing=--timing
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=${2:?--rounds N}; shift ;;
    --ncu) ncu=1 ;;
    --out) out=${2:?--out DIR}; shift ;;
    --stage) stage=${2:?--stage DIR}; shift ;;
    --timeout) export STEP_TIMEOUT=${2:?--timeout S}; shift ;;
    --dry-run) dry=1 ;;
    --no-timing) timing= ;;
    -h|--help) usage ;;
    -*) echo "bench/run.sh: unknown option $1" >&2; usage ;;
    *) args+=("$1"); if [ -z "$workload" ]; then workload=$1; else modes+=("$1"); fi ;;
  esac
  shift
done
# The helpers of the workflows (bench/workflows/), beside bench/wall.sh's.
# A workflow's results folder: --out, else $OUT/FOLDER (the folder its results always had; no
# FOLDER: $OUT itself), else a new temporary one; sets out (absolute), made unless --dry-run.
# shellcheck disable=SC2317  # called by the sourced workflow
results_folder() {  # [folder]
  if [ -z "$out" ]; then
    if [ "$dry" = 1 ]; then out=${OUT:-<a new temporary folder>}${1:+/$1}  # one word, as a real path
    elif [ -n "${OUT:-}" ]; then out=$OUT${1:+/$1}
    else out=$(mktemp -d "${TMPDIR:-/tmp}/bench-$workflow.XXXXXX"); fi
  fi
  [ "$dry" = 1 ] || mkdir -p "$out" || exit 2
  out=$(cd "$out" 2> /dev/null && pwd || echo "$out")
}
# shellcheck disable=SC2317
export_env() {  # VAR=value...: the environment of every later step, printed under --dry-run
  # shellcheck disable=SC2163  # the words are VAR=value
  export "$@"
  [ "$dry" = 0 ] || { printf 'environment:'; printf ' %q' "$@"; echo; }
}
# shellcheck disable=SC2317
workflow_usage() {  # the workflow's usage line, and out
  sed -n 's/^# Usage: //p' "$bench/workflows/$workflow.sh" >&2; exit 2
}
# shellcheck disable=SC2317
need_limiter() {  # refuses to run without limiter (a dry run needs none)
  [ "$dry" = 1 ] || [ -x "$limiter" ] || { echo "bench/run.sh $workflow: no limiter at $limiter (--stage, LIMITER_CLI)" >&2; exit 2; }
}
if [ -n "$workflow" ]; then
  find_binaries "$stage" "$root"  # stage, bin, limiter, bench_app
  # shellcheck source=/dev/null  # one of bench/workflows/*.sh
  source "$bench/workflows/$workflow.sh"
  "workflow_${workflow//-/_}" "${args[@]}"
  exit $?
fi
[ -n "$workload" ] || usage
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "bench/run.sh: --rounds takes a positive number" >&2; exit 2; }
workload_row=$(table_row "$bench/workloads.tsv" "$workload")
[ -n "$workload_row" ] || { echo "bench/run.sh: no workload '$workload' in bench/workloads.tsv (--list)" >&2; exit 2; }

find_binaries "$stage" "$root"  # stage, bin, limiter, bench_app
[ "$dry" = 1 ] || [ -x "$limiter" ] || { echo "bench/run.sh: no limiter at $limiter (--stage, LIMITER_CLI)" >&2; exit 2; }

if [ -z "$out" ]; then
  if [ "$dry" = 1 ]; then out=${OUT:-<a new temporary folder>}/$workload
  elif [ -n "${OUT:-}" ]; then
    out=$OUT/$workload n=2
    while [ -e "$out" ]; do out=$OUT/$workload-$n; n=$((n + 1)); done
  else out=$(mktemp -d "${TMPDIR:-/tmp}/bench-$workload.XXXXXX"); fi
fi
[ "$dry" = 1 ] || mkdir -p "$out" || exit 2
out=$(cd "$out" 2> /dev/null && pwd || echo "$out")
# shellcheck disable=SC2034  # scratch: read by the tables' commands (eval)
scratch=$out/scratch
[ "$dry" = 1 ] || mkdir -p "$scratch"

# The default plan's metrics matching REGEX, comma-separated (modes.tsv and ncu use it).
plan_metrics() {
  if [ "$dry" = 1 ]; then echo "<default-plan-metrics:${1:-.}>"; return; fi  # one word, as the real list
  timeout 60 "$limiter" metrics --plan default | sed -n 's/^  \([a-z0-9_]*__[^ ]*\)$/\1/p' | grep -E "^(${1:-.})" |
    paste -sd,
}
words_text() { local IFS=' '; echo "$*"; }
timer=$(cut -f1 <<< "$workload_row")
split_words "$(cut -f2- <<< "$workload_row")"
workload_env=("${env_words[@]}") workload_cmd=("${rest_words[@]}")

# Each mode: its name, environment, limiter binary and `limiter run` flags, kept by index.
names=() flags_text=()
for spec in "${modes[@]}"; do
  if [[ "$spec" == *=* ]]; then name=${spec%%=*} text=${spec#*=}
  else name=$spec text=$(table_row "$bench/modes.tsv" "$spec")
    [ -n "$text" ] || { echo "bench/run.sh: no mode '$spec' in bench/modes.tsv (--list), nor NAME='FLAGS'" >&2; exit 2; }
  fi
  [[ "$name" =~ ^[A-Za-z0-9_.-]+$ ]] && [ "$name" != bare ] && [[ "$name" != ncu_* ]] ||
    { echo "bench/run.sh: '$name' cannot name a mode (letters, digits, _ . -; not bare, not ncu_*)" >&2; exit 2; }
  names+=("$name") flags_text+=("$text")
done

# One step: run it (bench/wall.sh: /usr/bin/time, timeout) and note it in runs.tsv, or print it.
step() {  # round, mode, label, command...
  local round=$1 mode=$2 label=$3 rc; shift 3
  if [ "$dry" = 1 ]; then printf '%s:' "$label"; printf ' %q' "$@"; echo; return 0; fi
  wall "$label" "$@"; rc=$?
  printf '%s\t%s\t%s\t%s\n' "$round" "$mode" "$label" "$rc" >> "$out/runs.tsv"
  grep -h '^limiter:' "$out/$label.log" | cut -c1-160 | head -3 | sed 's/^/    /'  # what limiter made of it
}
if [ "$dry" = 0 ]; then
  printf 'round\tmode\tlabel\texit\n' > "$out/runs.tsv"
  {
    printf 'workload\t%s\n' "$workload"
    printf 'timer\t%s\n' "$timer"
    printf 'command\t%s\n' "$(words_text "${workload_env[@]}" "${workload_cmd[@]}")"
    printf 'rounds\t%s\n' "$rounds"
    [ -z "$timing" ] && printf 'timing\toff (--no-timing)\n'
    for i in "${!names[@]}"; do  # the flags as run (${K:-3} as 3)
      split_words "${flags_text[$i]}"
      printf 'mode\t%s\t%s\n' "${names[$i]}" "$(words_text "${env_words[@]}" "${rest_words[@]}")"
    done
    printf 'date\t%s\n' "$(date -u +%FT%TZ)"
    printf 'gpu\t%s\n' "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null | head -1)"
    printf 'limiter\t%s\n' "$("$limiter" --version 2> /dev/null | head -1)"
    [ "$ncu" = 1 ] && printf 'ncu\t%s\n' "$(ncu --version 2> /dev/null | tail -1)"
  } > "$out/meta.tsv"
fi
ncu_default_metrics=
[ "$ncu" = 1 ] && ncu_default_metrics=$(plan_metrics .)

for round in $(seq 1 "$rounds"); do
  step "$round" bare "bare_$round" env "${workload_env[@]}" "${workload_cmd[@]}"
  for i in "${!names[@]}"; do
    name=${names[$i]} label=${names[$i]}_$round
    split_words "${flags_text[$i]}"
    run_env=() run_limiter=$limiter metrics=$ncu_default_metrics
    for word in "${env_words[@]}"; do
      if [[ "$word" == LIMITER_CLI=* ]]; then run_limiter=${word#LIMITER_CLI=}; else run_env+=("$word"); fi
    done
    step "$round" "$name" "$label" env "${workload_env[@]}" "${run_env[@]}" "$run_limiter" run -q $timing \
      "${rest_words[@]}" -o "$out/$label.json" -- "${workload_cmd[@]}"
    [ "$ncu" = 1 ] || continue
    # Nsight Compute on the first N launches, N = the launches this mode profiled exactly (ncu has
    # no per-kernel budget), with the mode's --metrics if it names some, else the default plan's.
    for j in "${!rest_words[@]}"; do [ "${rest_words[$j]}" = --metrics ] && metrics=${rest_words[$((j + 1))]:-$metrics}; done
    if [ "$dry" = 1 ]; then count="<exact launches of $label.json>"
    else count=$(timeout 120 python3 "$bench/summarise.py" count "$out/$label.json" 2> /dev/null) || count=0; fi
    if [ "$count" = 0 ]; then echo "ncu_$label: skipped, $label profiled no launch exactly"; continue; fi
    step "$round" "ncu_$name" "ncu_$label" env "${workload_env[@]}" ncu --clock-control none --cache-control "${NCU_CACHE_CONTROL:-none}" \
      --metrics "$metrics" -c "$count" --csv --page raw --print-units base "${workload_cmd[@]}"
  done
done

# Every record's JSON report: the summary's verdict agreement reads them.
for i in "${!names[@]}"; do
  for round in $(seq 1 "$rounds"); do
    label=${names[$i]}_$round
    if [ "$dry" = 1 ]; then printf 'report:'; printf ' %q' "$limiter" report "$out/$label.json" --format json -o "$out/$label.report.json"; echo
    elif [ -f "$out/$label.json" ]; then
      timeout "${STEP_TIMEOUT:-240}" "$limiter" report "$out/$label.json" --format json -o "$out/$label.report.json" \
        2> "$out/$label.report.err" || echo "$label: limiter report failed (exit $?, $label.report.err)"
    fi
  done
done
if [ "$dry" = 1 ]; then printf 'summary:'; printf ' %q' python3 "$bench/summarise.py" table "$out"; echo; exit 0; fi
rm -rf "$scratch"
timeout 300 python3 "$bench/summarise.py" table "$out" | tee "$out/summary.md"
