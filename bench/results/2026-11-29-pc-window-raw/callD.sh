#!/usr/bin/env bash
# Call D (1 GPU, 2026-11-29): limiter.profile()'s hot PCs get SASS (cubins to a scratch folder,
# nvdisasm at the block's end); kernels loaded before the region are said, with the fix. The
# Python tests, the PC-sampling GPU tests, LimiterRunGpu, and two region records with reports.
cd "$(dirname "$0")/.."
tar xJf .devcmd/bins.tar.xz
export PATH=$PATH:/usr/local/cuda/bin
d=$OUT/d; mkdir -p "$d"; log=$OUT/log.txt
bin=$PWD/build-device/bin
export PYTHONPATH=$PWD/build-device/python LIMITER_EXECUTABLE=$bin/limiter LIMITER_CLI=$bin/limiter PYTHONUNBUFFERED=1
export LIMITER_COLLECTOR_APP=$bin/limiter_collector_app LIMITER_NVTX_APP=$bin/limiter_nvtx_app
start=$(date +%s)
lap() { echo "== $* at $(( $(date +%s) - start )) s" | tee -a "$log"; }
lap pytest
timeout 240 python3 -m pytest -q -rs python/tests > "$d/pytest.txt" 2>&1; echo "rc $?" >> "$log"; tail -8 "$d/pytest.txt" >> "$log"
lap region records, early and late
cat > "$d/regions.py" <<'PY'
import sys, time, torch, limiter
early = sys.argv[1] == "early"
x, w = (torch.randn(2048, 2048, device="cuda") for _ in range(2))
step = lambda: torch.nn.functional.gelu(x @ w).sum().item()
region = limiter.profile(output=sys.argv[2]) if early else None
for _ in range(3):
    step()
region = region or limiter.profile(output=sys.argv[2])
with region as p:
    start = time.perf_counter()
    while time.perf_counter() - start < 2.5:
        step()
print(sys.argv[1], len(p.hot_pcs), int((p.hot_pcs["sass"].fillna("") != "").sum()))
PY
for k in early late; do
  timeout 90 python3 "$d/regions.py" $k "$d/region_$k.json" > "$d/region_$k.txt" 2>&1; echo "$k rc $?: $(tail -1 $d/region_$k.txt)" >> "$log"
  timeout 30 $bin/limiter report "$d/region_$k.json" > "$d/region_${k}_report.txt" 2>&1
  timeout 30 $bin/limiter report "$d/region_$k.json" --format html -o "$d/region_${k}_report.html" >> "$d/region_$k.txt" 2>&1
  grep -n "WARNING\|+0x\|hot" "$d/region_${k}_report.txt" | head -8 >> "$log"
done
lap PC sampling GPU tests
timeout 120 $bin/limiter_stalls_gpu_tests > "$d/gpu_tests_stalls.txt" 2>&1; echo "rc $?" >> "$log"; grep -h "PASSED\|FAILED" "$d/gpu_tests_stalls.txt" >> "$log"
lap LimiterRunGpu
timeout 200 $bin/limiter_gpu_tests --gtest_filter='LimiterRunGpu*' > "$d/gpu_tests_LimiterRunGpu.txt" 2>&1; echo "rc $?" >> "$log"
grep -h "PASSED\|FAILED" "$d/gpu_tests_LimiterRunGpu.txt" >> "$log"
lap done
find "$d" -name '*.json' -size +5M -delete
tar czf "$OUT/d.tgz" -C "$OUT" d 2>/dev/null; rm -rf "$d"
cat "$log"
