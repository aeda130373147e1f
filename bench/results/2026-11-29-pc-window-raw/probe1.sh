#!/usr/bin/env bash
# Probe (2026-11-29): the default run's PC-sampling window, with and without CUPTI's start/stop
# control, the worker's sleep span, the period: python_region (2,000 steps) under limiter run and
# limiter.profile(), --timing on.
cd "$(dirname "$0")/.."
tar xJf .devcmd/bins.tar.xz
export PATH=$PATH:/usr/local/cuda/bin
e=$OUT/e; mkdir -p "$e"; log=$OUT/log.txt
bin=$PWD/build-device/bin
export PYTHONPATH=$PWD/build-device/python LIMITER_EXECUTABLE=$bin/limiter PYTHONUNBUFFERED=1 STEPS=2000 SIZE=2048 LIMITER_TIMING=1
w=bench/workloads/python_region.py
start=$(date +%s)
lap() { echo "== $* at $(( $(date +%s) - start )) s" | tee -a "$log"; }
run() { local name=$1; shift; timeout 90 "$@" > "$e/$name.log" 2>&1; echo "$name rc $?: $(grep -h 'python_region: loop' "$e/$name.log") | $(grep -h 'the end (Stop' "$e/$name.log" | sed 's/.*GetData/GetData/') | $(grep -h 'samples in' "$e/$name.log" | head -1 | cut -c1-60) | $(grep -h 'PC sampling phase' "$e/$name.log")" >> "$log"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$log"
lap start
run bare_1 python3 $w
for v in base nostop nostop_sleep10 base_p13 nostop_p13; do
  envs=(); flags=(); rflags=()
  case $v in
    nostop) envs=(LIMITER_PC_START_STOP=0);;
    nostop_sleep10) envs=(LIMITER_PC_START_STOP=0 LIMITER_PC_SLEEP_MS=10);;
    base_p13) flags=(stall_period=13); rflags=(--stall-period 13);;
    nostop_p13) envs=(LIMITER_PC_START_STOP=0); flags=(stall_period=13); rflags=(--stall-period 13);;
  esac
  run "run_$v" env "${envs[@]}" $bin/limiter run -q "${rflags[@]}" -o "$e/run_$v.json" -- python3 $w
  run "profile_$v" env "${envs[@]}" python3 $w --profile "${flags[@]}"
done
lap trace
LIMITER_DEBUG=1 LIMITER_PC_START_STOP=0 timeout 90 $bin/limiter run -q -o "$e/run_trace.json" -- python3 $w > "$e/trace.log" 2>&1
grep -c "GetData:" "$e/trace.log" >> "$log"; grep "GetData:" "$e/trace.log" | head -12 >> "$log"; grep "GetData:" "$e/trace.log" | tail -4 >> "$log"
run bare_2 python3 $w
for v in base nostop; do timeout 60 $bin/limiter report "$e/run_$v.json" > "$e/report_$v.txt" 2>&1; done
lap done
find "$e" -name '*.json' -size +5M -delete
tar czf "$OUT/e.tgz" -C "$OUT" e 2>/dev/null; rm -rf "$e"
cat "$log"
