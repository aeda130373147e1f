#!/usr/bin/env bash
# Call 4 (1 GPU): the Python package again after the fixes (graphs instantiated before a region said
# missed; the JAX tests run the jitted function inside the region), every pytest test with the CLI
# too; the python-profile bench with the collector's --timing on both sides; the kernel suite's GPU
# tests with the CLI they need.
cd "$(dirname "$0")/.."
tar xJf .devcmd/bins.tar.xz
export PATH=$PATH:/usr/local/cuda/bin
e=$OUT/e; mkdir -p "$e"; log=$OUT/log.txt
bin=$PWD/build-device/bin
export PYTHONPATH=$PWD/build-device/python LIMITER_EXECUTABLE=$bin/limiter LIMITER_CLI=$bin/limiter
start=$(date +%s)
lap() { echo "== $* at $(( $(date +%s) - start )) s" | tee -a "$log"; }
t() { local s=$1; shift; timeout "$s" "$@"; local rc=$?; echo "rc $rc: ${*:1:4}" >> "$log"; return $rc; }
lap pytest, every test
t 240 python3 -m pytest -q -rs python/tests > "$e/pytest.txt" 2>&1
tail -12 "$e/pytest.txt" >> "$log"
lap python-profile bench, timings on
LIMITER_TIMING=1 STEPS=2000 ROUNDS=2 LOADS=3 PYTHON=python3 LIMITER_PYTHONPATH=$PYTHONPATH t 200 bench/run.sh python-profile \
  --stage build-device --out "$e/bench" > "$e/bench.txt" 2>&1
tail -14 "$e/bench.txt" >> "$log"
for f in "$e"/bench/limiter_run_1.log "$e"/bench/profile_1.log; do echo "-- $f" >> "$log"; grep -v "^  Stop\|^  PC sampling\|^$" "$f" | head -24 >> "$log"; done
lap kernel suite GPU tests
t 90 "$bin/limiter_kernels_gpu_tests" > "$e/gpu_tests_kernels.txt" 2>&1
tail -3 "$e/gpu_tests_kernels.txt" >> "$log"
lap done
find "$e" -name '*.json' -size +5M -delete
tar czf "$OUT/e.tgz" -C "$OUT" e 2>/dev/null; rm -rf "$e"
cat "$log"
