#!/usr/bin/env bash
# Probe 3 (2026-11-29): Stop, GetData and Start every N ms during the default run's window
# (LIMITER_PC_CYCLE_MS, a probe build): do samples arrive during the window, does the 5M-samples
# bound then end it, and what does each Start cost? python_region, 2,000 steps, the same region.
cd "$(dirname "$0")/.."
tar xJf .devcmd/bins.tar.xz
export PATH=$PATH:/usr/local/cuda/bin
e=$OUT/p3; mkdir -p "$e"; log=$OUT/log.txt
bin=$PWD/build-device/bin
export PYTHONPATH=$PWD/build-device/python LIMITER_EXECUTABLE=$bin/limiter PYTHONUNBUFFERED=1 STEPS=2000 LIMITER_TIMING=1
w=bench/workloads/python_region.py
run() { local name=$1; shift; timeout 90 "$@" > "$e/$name.log" 2>&1; echo "$name rc $?: $(grep -h 'python_region: loop' "$e/$name.log") | $(grep -h 'the end (Stop' "$e/$name.log" | sed 's/.*GetData/GetData/' | cut -c1-100) | $(grep -h 'samples in' "$e/$name.log" | head -1 | cut -c1-30) | $(grep -h 'PC sampling phase' "$e/$name.log")" >> "$log"; grep -h "PROBE" "$e/$name.log" | head -6 >> "$log"; }
run bare python3 $w
run profile python3 $w --profile
for ms in 100 25; do
  run "profile_cycle$ms" env LIMITER_PC_CYCLE_MS=$ms python3 $w --profile
  run "region_cycle$ms" env LIMITER_PC_CYCLE_MS=$ms $bin/limiter run -q --capture-range cudaProfilerApi -o "$e/r$ms.json" -- python3 $w --cuda-profiler-api
done
run "profile_cycle25_p11" env LIMITER_PC_CYCLE_MS=25 python3 $w --profile stall_period=11
run "whole_cycle100" env LIMITER_PC_CYCLE_MS=100 $bin/limiter run -q -o "$e/w.json" -- python3 $w
find "$e" -name '*.json' -size +5M -delete
tar czf "$OUT/p3.tgz" -C "$OUT" p3 2>/dev/null; rm -rf "$e"
cat "$log"
