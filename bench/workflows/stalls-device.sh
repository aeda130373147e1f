# shellcheck shell=bash
# shellcheck disable=SC2154  # bench, root, out, dry, stage, bin, limiter, bench_app: set by bench/run.sh, which sources this
# Usage: bench/run.sh stalls-device [--out DIR] [--stage DIR] [--timeout S (60)] [--dry-run]
# `limiter run --stalls` on the GPU machine (bench/results/2026-11-26-stalls.md): the stall probe
# (tests/data/stalls/stall_probe.cu, built here with nvcc for sm_90) bare and sampled at three
# periods, its cubin's nvdisasm listing, the GPU tests (Range Profiler beside PC sampling), the
# verdict probe and the collector app sampled, and ncu's Warp State / Source Counters on the same
# probe (120 s each). ROUNDS: the probe's rounds (20). A workflow, not modes: it builds its own
# probe and keeps each step's output under its own name. Results (default $OUT itself): every
# step's .txt / .json / .csv, walls.txt (wall ms and exit status of the timed steps), raw/.
workflow_stalls_device() {
  [ $# = 0 ] || workflow_usage
  need_limiter
  results_folder ''
  local probe=$out/stall_probe source=$root/tests/data/stalls/stall_probe.cu rounds=${ROUNDS:-20} limit=${STEP_TIMEOUT:-60}
  local period
  # timed (walls.txt or not), seconds, stdout, stderr (+FILE: appended to), command...
  to_files() {
    local timed=$1 seconds=$2 stdout=$3 stderr=$4 start rc label; shift 4
    if ! live; then  # labelled by where its output goes
      label="> ${stdout#+}" && [[ $stdout == +* ]] && label=">$label"
      [ "$stderr" = "$stdout" ] || { label+=" 2> ${stderr#+}" && [[ $stderr == +* ]] && label=${label/ 2> / 2>> }; }
      [ "$timed" = 0 ] || label+=" (walls.txt)"
      print_step "${label//"$out"\//}" "$seconds" "$@"; return 0
    fi
    if [[ $stdout == +* ]]; then stdout=${stdout#+}; else : > "$stdout"; fi
    if [[ $stderr == +* ]]; then stderr=${stderr#+}; elif [ "$stderr" != "$stdout" ]; then : > "$stderr"; fi
    start=$(date +%s%N)
    timeout "$seconds" "$@" >> "$stdout" 2>> "$stderr"; rc=$?
    [ "$timed" = 0 ] || echo "wall $(( ($(date +%s%N) - start) / 1000000 )) ms rc $rc: t $*" >> "$out/walls.txt"
    return $rc
  }
  to_files 0 "$limit" "$out/nvcc.txt" "$out/nvcc.txt" nvcc -lineinfo -O3 -arch=sm_90 -o "$probe" "$source"
  to_files 0 "$limit" "+$out/nvcc.txt" "+$out/nvcc.txt" nvcc -lineinfo -O3 -arch=sm_90 -cubin -o "$out/stall_probe.cubin" "$source"
  to_files 0 "$limit" "$out/stall_probe.nvdisasm.txt" "$out/stall_probe.nvdisasm.txt" nvdisasm -c "$out/stall_probe.cubin"
  for _ in 1 2 3; do to_files 1 "$limit" /dev/null /dev/null "$probe" "$rounds"; done
  to_files 1 "$limit" "$out/probe_stalls.txt" "$out/probe_stalls.txt" \
    "$limiter" run --stalls --timing --save-raw "$out/raw" -o "$out/probe_stalls.json" -- "$probe" "$rounds"
  for period in 8 11 14; do
    for _ in 1 2; do
      to_files 1 "$limit" "$out/probe_stalls_p$period.txt" "$out/probe_stalls_p$period.txt" \
        "$limiter" run --stalls --stall-period $period --timing -o "$out/probe_stalls_p$period.json" -- "$probe" "$rounds"
    done
  done
  to_files 1 "$limit" "$out/probe_stalls_p8_debug.txt" "$out/probe_stalls_p8_debug.txt" env LIMITER_DEBUG=1 \
    "$limiter" run --stalls --stall-period 8 --timing -o "$out/probe_stalls_p8_debug.json" -- "$probe" "$rounds"
  to_files 1 "$limit" "$out/probe_trace.txt" "$out/probe_trace.txt" \
    "$limiter" run --trace -o "$out/probe_trace.json" -- "$probe" "$rounds"
  live && ls -la "$out/raw"/*/cubins > "$out/raw_cubins.txt" 2>&1
  to_files 0 "$limit" "$out/probe_stalls_report.txt" "$out/probe_stalls_report.txt" "$limiter" report "$out/probe_stalls.json"
  to_files 0 "$limit" "$out/gpu_tests_stalls.txt" "$out/gpu_tests_stalls.txt" "$bin/limiter_stalls_gpu_tests"
  if ! live || [ -x "$bin/verdict_probe" ]; then
    to_files 1 "$limit" /dev/null /dev/null "$bin/verdict_probe"
    to_files 1 "$limit" "$out/verdict_probe_stalls.txt" "$out/verdict_probe_stalls.txt" \
      "$limiter" run --stalls --timing -o "$out/verdict_probe_stalls.json" -- "$bin/verdict_probe"
  fi
  to_files 1 "$limit" "$out/collector_app_stalls.txt" "$out/collector_app_stalls.txt" \
    "$limiter" run --stalls --timing -o "$out/collector_app_stalls.json" -- "$bin/limiter_collector_app"
  to_files 1 120 "$out/ncu_probe.csv" "$out/ncu_probe.err" ncu --section WarpStateStats --section SourceCounters --csv "$probe" 1
  to_files 1 120 "$out/ncu_probe_raw.csv" "+$out/ncu_probe.err" ncu --section WarpStateStats --page raw --csv "$probe" 1
  live && gzip -kf "$out"/*.json 2>/dev/null
  return 0
}
