#!/usr/bin/env bash
# Call G (1 GPU, 2026-11-29): the review fixes (save_raw keeps the cubins, SASS failures keep the
# record): the Python GPU tests, and a region with save_raw.
cd "$(dirname "$0")/.."
tar xJf .devcmd/bins.tar.xz
export PATH=$PATH:/usr/local/cuda/bin
g=$OUT/g; mkdir -p "$g"; log=$OUT/log.txt
bin=$PWD/build-device/bin
export PYTHONPATH=$PWD/build-device/python LIMITER_EXECUTABLE=$bin/limiter PYTHONUNBUFFERED=1
timeout 200 python3 -m pytest -q python/tests/test_profile_gpu.py > "$g/pytest.txt" 2>&1; echo "pytest rc $?" >> "$log"; tail -2 "$g/pytest.txt" >> "$log"
timeout 90 python3 -c "
import time, torch, limiter
x, w = (torch.randn(2048, 2048, device='cuda') for _ in range(2))
region = limiter.profile(stalls=True, save_raw='$g/raw', output='$g/r.json')
for _ in range(3): torch.nn.functional.gelu(x @ w).sum().item()
with region as p:
    t = time.perf_counter()
    while time.perf_counter() - t < 1.0: torch.nn.functional.gelu(x @ w).sum().item()
print('hot', len(p.hot_pcs), 'with sass', int((p.hot_pcs['sass'].fillna('') != '').sum()))
" > "$g/save_raw.txt" 2>&1; echo "save_raw rc $?: $(tail -1 $g/save_raw.txt)" >> "$log"; ls "$g/raw/cubins" 2>&1 | head -3 >> "$log"
find "$g" -name '*.json' -size +5M -delete; find "$g" -name '*.cubin' -delete
tar czf "$OUT/g.tgz" -C "$OUT" g 2>/dev/null; rm -rf "$g"
cat "$log"
