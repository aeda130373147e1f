#!/usr/bin/env bash
# limiter's stall reasons against Nsight Compute's on one workload of bench/workloads.tsv (issue
# 29): the workload once under `limiter run --stalls --timing`, once under ncu's Warp State and
# Source Counters sections (every launch; NCU_COUNT=N: the first N; NCU_ARGS: more ncu words, e.g.
# "--replay-mode application --launch-skip 70", as the 2026-11-26 results used; JAX needs
# "--target-processes application-only", or ncu segfaults), each step bounded by
# `timeout ${STEP_TIMEOUT:-600}` (bench/wall.sh); then the record's JSON report and
# bench/stalls_vs_ncu.py's table.
#
#   bench/run-stalls-vs-ncu.sh WORKLOAD [OUT] [--stage DIR] [--dry-run]
#
# OUT: default $OUT/stalls-WORKLOAD (or a new temporary folder). --stage: staged binaries or a
# build tree, as bench/run.sh (default build-device; LIMITER_CLI wins). --dry-run prints the
# commands and runs nothing. OUT holds limiter.json (the record), limiter.report.json, ncu.csv
# (ncu's --log-file: its ==PROF== lines and the raw page), LABEL.log / LABEL.time of each step,
# meta.tsv, and stalls_vs_ncu.md / .json (the comparison).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/bench
usage() { grep -m1 '^#   bench/run-stalls-vs-ncu.sh ' "$0" | sed 's/^# *//' >&2; exit 2; }
# shellcheck source=bench/tables.sh
source "$bench/tables.sh"  # table_row, split_words, find_binaries

workload='' out='' stage='' dry=0
while [ $# -gt 0 ]; do
  case $1 in
    --stage) stage=${2:?--stage DIR}; shift ;;
    --dry-run) dry=1 ;;
    -h|--help) usage ;;
    -*) echo "bench/run-stalls-vs-ncu.sh: unknown option $1" >&2; usage ;;
    *) if [ -z "$workload" ]; then workload=$1; elif [ -z "$out" ]; then out=$1; else usage; fi ;;
  esac
  shift
done
[ -n "$workload" ] || usage
workload_row=$(table_row "$bench/workloads.tsv" "$workload")
[ -n "$workload_row" ] ||
  { echo "bench/run-stalls-vs-ncu.sh: no workload '$workload' in bench/workloads.tsv (bench/run.sh --list)" >&2; exit 2; }
find_binaries "$stage" "$root"  # stage, bin, limiter, bench_app
[ "$dry" = 1 ] || [ -x "$limiter" ] ||
  { echo "bench/run-stalls-vs-ncu.sh: no limiter at $limiter (--stage, LIMITER_CLI)" >&2; exit 2; }
if [ -z "$out" ]; then
  if [ "$dry" = 1 ]; then out=${OUT:-<new-temporary-folder>}/stalls-$workload  # one word, as a real path
  elif [ -n "${OUT:-}" ]; then out=$OUT/stalls-$workload
  else out=$(mktemp -d "${TMPDIR:-/tmp}/stalls-$workload.XXXXXX"); fi
fi
[ "$dry" = 1 ] || mkdir -p "$out/scratch" || exit 2
out=$(cd "$out" 2> /dev/null && pwd || echo "$out")
# shellcheck disable=SC2034  # scratch: read by the workload's command (eval)
scratch=$out/scratch
export STEP_TIMEOUT=${STEP_TIMEOUT:-600}
source "$bench/wall.sh"
split_words "$(cut -f2- <<< "$workload_row")"
workload_env=("${env_words[@]}") workload_cmd=("${rest_words[@]}")
count=()
[ -n "${NCU_COUNT:-}" ] && count=(-c "$NCU_COUNT")
read -r -a ncu_args <<< "${NCU_ARGS:-}"  # ncu's own options (application replay: no memory restore between passes)

step() {  # label, command...: run it (bench/wall.sh) or print it
  local label=$1; shift
  if [ "$dry" = 1 ]; then printf '%s:' "$label"; printf ' %q' "$@"; echo; return 0; fi
  wall "$label" "$@"
}
if [ "$dry" = 0 ]; then
  {
    printf 'workload\t%s\n' "$workload"
    printf 'command\t%s\n' "${workload_env[*]} ${workload_cmd[*]}"
    printf 'date\t%s\n' "$(date -u +%FT%TZ)"
    printf 'gpu\t%s\n' "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null | head -1)"
    printf 'limiter\t%s\n' "$("$limiter" --version 2> /dev/null | head -1)"
    printf 'ncu\t%s\n' "$(ncu --version 2> /dev/null | tail -1)"
  } > "$out/meta.tsv"
fi
step limiter env "${workload_env[@]}" "$limiter" run --stalls --timing -o "$out/limiter.json" -- "${workload_cmd[@]}"
step ncu env "${workload_env[@]}" ncu --section WarpStateStats --section SourceCounters \
  --metrics gpu__time_duration.sum,smsp__inst_issued.sum --page raw --csv --print-units base \
  --print-kernel-base mangled --cache-control none --clock-control none "${count[@]}" "${ncu_args[@]}" --log-file "$out/ncu.csv" \
  "${workload_cmd[@]}"
step report "$limiter" report "$out/limiter.json" --format json -o "$out/limiter.report.json"
# ncu's table: in its --log-file; in its step's log (with the workload's output) should it go there.
csv=$out/ncu.csv
[ "$dry" = 1 ] || grep -q '"Kernel Name"' "$csv" 2> /dev/null || csv=$out/ncu.log
compare=(python3 "$bench/stalls_vs_ncu.py" "$out/limiter.json" "$csv" --markdown "$out/stalls_vs_ncu.md"
         --json "$out/stalls_vs_ncu.json")
if [ "$dry" = 1 ]; then printf 'compare:'; printf ' %q' "${compare[@]}"; echo; exit 0; fi
rm -rf "$scratch"
timeout 300 "${compare[@]}"
