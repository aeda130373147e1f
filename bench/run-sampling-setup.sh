#!/usr/bin/env bash
# What sampling after per-kernel budgets costs the loop it starts in (issue 13): the PM sampler's
# set-up falls inside the training loop, not in the app's set-up. bench/workloads/mlp_training.py
# bare, then `limiter run --sampling --per-kernel-count K` with the sampler's hardware buffer at
# each size in BUFFERS (MiB, LIMITER_PM_BUFFER_MIB), each after a bare run of its own; prints the
# loop's slowdown and the set-up's parts (--timing: host side, Enable, SetConfig, Start, kernel
# timestamps). On the GPU machine, after stage-device.sh:
#   bench/run-sampling-setup.sh build-device $OUT [STEPS] [K] [BUFFERS]
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/sampling-setup
steps=${3:-205}
k=${4:-3}
buffers=${5:-512 64 512 64}
mkdir -p "$out"
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
workload=$root/bench/workloads/mlp_training.py
source "$root/bench/wall.sh"
i=0
for mib in $buffers; do
  i=$((i + 1))
  wall "bare_$i" env STEPS="$steps" python3 "$workload"
  wall "hybrid_${mib}mib_$i" env STEPS="$steps" LIMITER_PM_BUFFER_MIB="$mib" "$bin/limiter" run -q --timing --sampling \
    --per-kernel-count "$k" -o "$out/hybrid_${mib}mib_$i.json" -- python3 "$workload"
  grep -h "PM sampling:\|lost\|could not" "$out/hybrid_${mib}mib_$i.log" | head -3
done
python3 - "$out" << 'PY'
import glob, os, sys
out = sys.argv[1]
def loop(path):
    for line in open(path):
        if "loop " in line:
            return float(line.split("loop ")[1].split(" s")[0])
    return float("nan")
for path in sorted(glob.glob(os.path.join(out, "hybrid_*.log")), key=lambda p: p.rsplit("_", 1)[1]):
    i = path.rsplit("_", 1)[1].split(".")[0]
    bare = loop(os.path.join(out, f"bare_{i}.log"))
    print(f"{os.path.basename(path)[:-4]}: loop {loop(path):.3f} s = {loop(path) / bare:.2f}x the bare {bare:.3f} s")
PY
