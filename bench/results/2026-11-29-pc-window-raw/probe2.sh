#!/usr/bin/env bash
# Probe 2 (2026-11-29): the same region (the loop) under limiter run --capture-range cudaProfilerApi
# and limiter.profile(); the window's launches traced in-process; start/stop control and period.
cd "$(dirname "$0")/.."
tar xJf .devcmd/bins.tar.xz
export PATH=$PATH:/usr/local/cuda/bin
e=$OUT/e; mkdir -p "$e"; log=$OUT/log.txt
bin=$PWD/build-device/bin
export PYTHONPATH=$PWD/build-device/python LIMITER_EXECUTABLE=$bin/limiter PYTHONUNBUFFERED=1 STEPS=2000 SIZE=2048 LIMITER_TIMING=1
w=bench/workloads/python_region.py
start=$(date +%s)
lap() { echo "== $* at $(( $(date +%s) - start )) s" | tee -a "$log"; }
run() { local name=$1; shift; timeout 90 "$@" > "$e/$name.log" 2>&1; echo "$name rc $?: $(grep -h 'python_region: loop' "$e/$name.log") | $(grep -h 'the end (Stop' "$e/$name.log" | sed 's/.*GetData/GetData/') | $(grep -h 'samples in' "$e/$name.log" | head -1 | cut -c1-40) | $(grep -h 'PC sampling phase' "$e/$name.log") | $(grep -h 'then exact phase' "$e/$name.log")" >> "$log"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$log"
lap start
run bare_1 python3 $w
run trace_profile_base env LIMITER_DEBUG=1 python3 $w --profile
for v in base nostop p13 nostop_p13; do
  envs=(); flags=(); rflags=()
  case $v in
    nostop) envs=(LIMITER_PC_START_STOP=0);;
    p13) flags=(stall_period=13); rflags=(--stall-period 13);;
    nostop_p13) envs=(LIMITER_PC_START_STOP=0); flags=(stall_period=13); rflags=(--stall-period 13);;
  esac
  run "region_$v" env "${envs[@]}" $bin/limiter run -q --capture-range cudaProfilerApi "${rflags[@]}" -o "$e/region_$v.json" -- python3 $w --cuda-profiler-api
  run "profile_$v" env "${envs[@]}" python3 $w --profile "${flags[@]}"
done
run trace_region_base env LIMITER_DEBUG=1 $bin/limiter run -q --capture-range cudaProfilerApi -o "$e/trace_region.json" -- python3 $w --cuda-profiler-api
run bare_2 python3 $w
lap done
find "$e" -name '*.json' -size +5M -delete
tar czf "$OUT/e.tgz" -C "$OUT" e 2>/dev/null; rm -rf "$e"
cat "$log"
