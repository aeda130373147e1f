#!/usr/bin/env bash
# Call A (1 GPU, 2026-11-29): the default run's PC-sampling window at ~40M samples a second (2^13
# on an H200) against CUPTI's 2^11 (--stall-period 11, the build before's behaviour), in one call:
# the python-profile bench (bare, limiter run, the same region under limiter run, limiter.profile),
# both periods' stall shares on the same region, the 1,000-step MLP, and the Python GPU tests.
cd "$(dirname "$0")/.."
tar xJf .devcmd/bins.tar.xz
export PATH=$PATH:/usr/local/cuda/bin
a=$OUT/a; mkdir -p "$a"; log=$OUT/log.txt
bin=$PWD/build-device/bin
export PYTHONPATH=$PWD/build-device/python LIMITER_EXECUTABLE=$bin/limiter LIMITER_CLI=$bin/limiter PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$a/gpu.txt" 2>&1; cat "$a/gpu.txt" >> "$log"
start=$(date +%s)
lap() { echo "== $* at $(( $(date +%s) - start )) s" | tee -a "$log"; }
lap python-profile bench
LIMITER_TIMING=1 STEPS=2000 ROUNDS=2 LOADS=3 PYTHON=python3 LIMITER_PYTHONPATH=$PYTHONPATH timeout 200 bench/run.sh python-profile \
  --stage build-device --out "$a/bench" > "$a/bench.txt" 2>&1
echo "rc $?" >> "$log"; tail -16 "$a/bench.txt" >> "$log"
for f in "$a"/bench/*_1.log; do echo "-- $(basename $f): $(grep -h 'PC sampling phase\|the end (Stop\|samples in' $f | sed 's/.*GetData calls/GetData calls/' | cut -c1-110 | tr '\n' '|')" >> "$log"; done
lap CUPTI period 2^11 on the same region
w=bench/workloads/python_region.py
STEPS=2000 LIMITER_TIMING=1 timeout 60 $bin/limiter run -q --capture-range cudaProfilerApi --stall-period 11 -o "$a/region_p11.json" \
  -- python3 $w --cuda-profiler-api > "$a/region_p11.log" 2>&1; echo "region p11 rc $?: $(grep -h 'python_region: loop' $a/region_p11.log)" >> "$log"
STEPS=2000 LIMITER_TIMING=1 timeout 60 python3 $w --profile stall_period=11 > "$a/profile_p11.log" 2>&1
echo "profile p11 rc $?: $(grep -h 'python_region: loop' $a/profile_p11.log)" >> "$log"
lap stall shares, 2^13 against 2^11
timeout 60 python3 bench/stall_shares_agree.py "$a/bench/limiter_run_region_1.json" "$a/region_p11.json" --top 4 > "$a/stall_shares.md" 2>&1
echo "rc $?" >> "$log"; cat "$a/stall_shares.md" >> "$log"
lap mlp1000
timeout 150 bench/run.sh mlp1000 "p11_default=--stall-period 11" "after_default=-" --rounds 2 --stage build-device \
  --out "$a/mlp" > "$a/bench_mlp.txt" 2>&1
echo "rc $?" >> "$log"; tail -12 "$a/bench_mlp.txt" >> "$log"
lap pytest
timeout 240 python3 -m pytest -q -rs python/tests > "$a/pytest.txt" 2>&1
echo "rc $?" >> "$log"; tail -6 "$a/pytest.txt" >> "$log"
lap done
find "$a" -name '*.json' -size +5M -delete; find "$a" -name scratch -type d -prune -exec rm -rf {} +
tar czf "$OUT/a.tgz" -C "$OUT" a 2>/dev/null; rm -rf "$a"
cat "$log"
