#!/usr/bin/env bash
# Ranks (issue 12): a two-rank `torchrun` job that all-reduces every step
# (bench/workloads/ranks_allreduce.py), run bare and under `limiter run`. Each rank writes its
# own record, limiter_rank<N>.json, with its rank, world size, host and GPU UUID; then the
# merged report of the ranks (text, md, json, csv) and rank 1's own report.
#   On nvidia-h200-x2: one GPU a rank, all-reduce through NCCL (its kernels get verdicts too).
#   On one GPU: both ranks share it and all-reduce through gloo, since NCCL refuses two ranks
#   on one GPU (checked first, unprofiled: nccl_one_gpu.log).
# On the GPU machine, after scripts/stage-device.sh:
#   bench/run-ranks.sh build-device $OUT [auto|nccl|gloo] [STEPS]
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=$(mkdir -p "${2:-${OUT:-device-out}}/ranks" && cd "${2:-${OUT:-device-out}}/ranks" && pwd)
backend=${3:-auto}
steps=${4:-10}
ranks=${NPROC:-2}
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
workload=$root/bench/workloads/ranks_allreduce.py
# NVLink multicast stays off (the device machines' rule; NCCL would otherwise use NVLS).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
source "$root/bench/wall.sh"
nvidia-smi -L | tee "$out/gpus.txt"
gpus=$(nvidia-smi -L | grep -c '^GPU')
job=(torchrun --standalone --nproc-per-node "$ranks" "$workload" --steps "$steps" --backend "$backend")
if [ "$gpus" -lt "$ranks" ]; then
  wall nccl_one_gpu torchrun --standalone --nproc-per-node "$ranks" "$workload" --steps 1 --backend nccl
  grep -m3 -E "Duplicate GPU|ncclInvalidUsage|NCCL error" "$out/nccl_one_gpu.log"
fi
wall bare "${job[@]}"
grep -h "^ranks_allreduce:" "$out/bare.log"
mkdir -p "$out/records"
(cd "$out/records" && wall profiled "$bin/limiter" run -q -- "${job[@]}")
grep -h -E "^ranks_allreduce:|^limiter:" "$out/profiled.log"
ls -l "$out/records"
for format in text md json csv; do
  "$bin/limiter" report "$out/records" --format "$format" -o "$out/merged.$format" || echo "merged $format failed"
done
"$bin/limiter" report "$out/records" --rank 1 -o "$out/rank1.txt" || echo "rank 1 report failed"
cat "$out/merged.text"
