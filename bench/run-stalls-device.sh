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
wall() { local s e; s=$(date +%s.%N); "$@"; local rc=$?; e=$(date +%s.%N); echo "wall $(echo "$e - $s" | bc) s rc $rc: $*" >> "$out/walls.txt"; }
probe=$out/stall_probe
t nvcc -lineinfo -O3 -arch=sm_90 -o "$probe" tests/data/stalls/stall_probe.cu > "$out/nvcc.txt" 2>&1
t nvcc -lineinfo -O3 -arch=sm_90 -cubin -o "$out/stall_probe.cubin" tests/data/stalls/stall_probe.cu >> "$out/nvcc.txt" 2>&1
t nvdisasm -c "$out/stall_probe.cubin" > "$out/stall_probe.nvdisasm.txt" 2>&1
for i in 1 2 3; do wall t "$probe" 5 > /dev/null 2>&1; done
wall t "$bin/limiter" run --stalls --timing --save-raw "$out/raw" -o "$out/probe_stalls.json" -- "$probe" 5 > "$out/probe_stalls.txt" 2>&1
for period in 8 14; do
  wall t "$bin/limiter" run --stalls --stall-period $period --timing -o "$out/probe_stalls_p$period.json" -- "$probe" 5 \
    > "$out/probe_stalls_p$period.txt" 2>&1
done
wall t "$bin/limiter" run --stalls --timing -o "$out/probe_stalls_again.json" -- "$probe" 5 > "$out/probe_stalls_again.txt" 2>&1
ls -la "$out/raw"/*/cubins > "$out/raw_cubins.txt" 2>&1
t "$bin/limiter_stalls_gpu_tests" > "$out/gpu_tests_stalls.txt" 2>&1
[ -x "$bin/verdict_probe" ] && wall t "$bin/limiter" run --stalls --timing -o "$out/verdict_probe_stalls.json" -- "$bin/verdict_probe" \
  > "$out/verdict_probe_stalls.txt" 2>&1
wall t "$bin/limiter" run --stalls --timing -o "$out/collector_app_stalls.json" -- "$bin/limiter_collector_app" \
  > "$out/collector_app_stalls.txt" 2>&1
wall t "$bin/limiter" run --plan default -o "$out/probe_exact.json" -- "$probe" 1 > "$out/probe_exact.txt" 2>&1
STEP_TIMEOUT=120 wall t ncu --section WarpStateStats --section SourceCounters --csv "$probe" 1 > "$out/ncu_probe.csv" 2> "$out/ncu_probe.err"
gzip -kf "$out"/*.json 2>/dev/null
true
