#!/usr/bin/env bash
# `limiter run --stalls` on the GPU machine (bench/results/2026-11-26-stalls.md): the stall probe
# (tests/data/stalls/stall_probe.cu) bare and sampled at three periods, its cubin's nvdisasm
# listing, the GPU tests (Range Profiler beside PC sampling), the verdict probe and the collector
# app sampled, and ncu's Warp State / Source Counters on the same probe. Every step bounded.
# Usage: bench/run-stalls-device.sh OUT [BIN]
set -u
out=${1:?output folder}
bin=${2:-build-device/bin}
mkdir -p "$out"
t() { command timeout "${STEP_TIMEOUT:-60}" "$@"; }
wall() { local s e; s=$(date +%s%N); "$@"; local rc=$?; e=$(date +%s%N); echo "wall $(( (e - s) / 1000000 )) ms rc $rc: $*" >> "$out/walls.txt"; }
probe=$out/stall_probe
t nvcc -lineinfo -O3 -arch=sm_90 -o "$probe" tests/data/stalls/stall_probe.cu > "$out/nvcc.txt" 2>&1
t nvcc -lineinfo -O3 -arch=sm_90 -cubin -o "$out/stall_probe.cubin" tests/data/stalls/stall_probe.cu >> "$out/nvcc.txt" 2>&1
t nvdisasm -c "$out/stall_probe.cubin" > "$out/stall_probe.nvdisasm.txt" 2>&1
rounds=${ROUNDS:-20}
for i in 1 2 3; do wall t "$probe" "$rounds" > /dev/null 2>&1; done
wall t "$bin/limiter" run --stalls --timing --save-raw "$out/raw" -o "$out/probe_stalls.json" -- "$probe" "$rounds" \
  > "$out/probe_stalls.txt" 2>&1
for period in 8 11 14; do
  for i in 1 2; do
    wall t "$bin/limiter" run --stalls --stall-period $period --timing -o "$out/probe_stalls_p$period.json" -- "$probe" \
      "$rounds" > "$out/probe_stalls_p$period.txt" 2>&1
  done
done
LIMITER_DEBUG=1 wall t "$bin/limiter" run --stalls --stall-period 8 --timing -o "$out/probe_stalls_p8_debug.json" -- \
  "$probe" "$rounds" > "$out/probe_stalls_p8_debug.txt" 2>&1
wall t "$bin/limiter" run --trace -o "$out/probe_trace.json" -- "$probe" "$rounds" > "$out/probe_trace.txt" 2>&1
ls -la "$out/raw"/*/cubins > "$out/raw_cubins.txt" 2>&1
t "$bin/limiter" report "$out/probe_stalls.json" > "$out/probe_stalls_report.txt" 2>&1
t "$bin/limiter_stalls_gpu_tests" > "$out/gpu_tests_stalls.txt" 2>&1
[ -x "$bin/verdict_probe" ] && wall t "$bin/verdict_probe" > /dev/null 2>&1
[ -x "$bin/verdict_probe" ] && wall t "$bin/limiter" run --stalls --timing -o "$out/verdict_probe_stalls.json" -- "$bin/verdict_probe" \
  > "$out/verdict_probe_stalls.txt" 2>&1
wall t "$bin/limiter" run --stalls --timing -o "$out/collector_app_stalls.json" -- "$bin/limiter_collector_app" \
  > "$out/collector_app_stalls.txt" 2>&1
STEP_TIMEOUT=120 wall t ncu --section WarpStateStats --section SourceCounters --csv "$probe" 1 > "$out/ncu_probe.csv" 2> "$out/ncu_probe.err"
STEP_TIMEOUT=120 wall t ncu --section WarpStateStats --page raw --csv "$probe" 1 > "$out/ncu_probe_raw.csv" 2>> "$out/ncu_probe.err"
gzip -kf "$out"/*.json 2>/dev/null
true
