#!/usr/bin/env bash
# Call 3 (1 GPU): the Python package on the GPU (its modules built on the build machine against this
# machine's Python 3.12 headers and torch's pybind11): limiter.profile() GPU tests (PyTorch default
# run and every launch, JAX, under torch.profiler), the python-profile bench (load; the loop bare,
# under limiter run, inside limiter.profile()); then device-test's long steps, each bounded.
cd "$(dirname "$0")/.."
tar xJf .devcmd/bins.tar.xz
export PATH=$PATH:/usr/local/cuda/bin
d=$OUT/d; mkdir -p "$d"; log=$OUT/log.txt
bin=$PWD/build-device/bin
export PYTHONPATH=$PWD/build-device/python
start=$(date +%s)
lap() { echo "== $* at $(( $(date +%s) - start )) s" | tee -a "$log"; }
t() { local s=$1; shift; timeout "$s" "$@"; local rc=$?; echo "rc $rc: ${*:1:4}" >> "$log"; return $rc; }
lap python: pyconfig and import
diff /usr/include/x86_64-linux-gnu/python3.12/pyconfig.h .devcmd/pyconfig_used.h > "$d/pyconfig.diff" 2>&1; echo "pyconfig diff lines: $(grep -c '^[<>]' "$d/pyconfig.diff")" >> "$log"
t 60 python3 -c "import limiter; r = limiter.load('tests/data/ncu/h200_probe_raw.csv'); print('load', r.kernels.shape); from limiter import profiling; print('collector', profiling._collector)" >> "$log" 2>&1
t 30 python3 -m limiter --version >> "$log" 2>&1
lap python: pytest, GPU tests included
t 240 python3 -m pytest -q -rs python/tests > "$d/pytest.txt" 2>&1
tail -15 "$d/pytest.txt" >> "$log"
lap python-profile bench
STEPS=2000 ROUNDS=2 LOADS=3 PYTHON=python3 LIMITER_PYTHONPATH=$PYTHONPATH t 200 bench/run.sh python-profile --stage build-device \
  --out "$d/bench" > "$d/bench.txt" 2>&1
cat "$d/bench.txt" | tail -20 >> "$log"; cat "$d"/bench/python-profile/python_profile.tsv >> "$log" 2>/dev/null
lap known-answer programs
t 80 "$bin/limiter" kernels --programs -q -o "$d/programs" > "$d/programs.txt" 2>&1
cat "$d/programs.txt" >> "$log"
lap kernel suite GPU tests
t 80 "$bin/limiter_kernels_gpu_tests" > "$d/gpu_tests_kernels.txt" 2>&1
tail -3 "$d/gpu_tests_kernels.txt" >> "$log"
lap calibrate
t 40 "$bin/limiter" calibrate -o "$d/calibration.json" > "$d/calibration.txt" 2>&1
tail -5 "$d/calibration.txt" >> "$log"
lap done
find "$d" -name '*.json' -size +5M -delete; find "$d" -name scratch -type d -prune -exec rm -rf {} +
tar czf "$OUT/d.tgz" -C "$OUT" d 2>/dev/null; rm -rf "$d"
cat "$log"
