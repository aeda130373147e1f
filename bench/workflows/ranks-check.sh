# shellcheck shell=bash
# shellcheck disable=SC2154  # bench, root, out, dry, stage, bin, limiter, bench_app: set by bench/run.sh, which sources this
# Usage: bench/run.sh ranks-check [auto|nccl|gloo] [STEPS (10)] [--out DIR] [--stage DIR] [--timeout S] [--dry-run]
# Ranks: a `torchrun` job of NPROC (2) ranks that all-reduces every step
# (bench/workloads/ranks_allreduce.py), run bare and under `limiter run`. Each rank writes its
# own record, records/limiter_rank<N>.json, with its rank, world size, host and GPU UUID; then the
# merged report of the ranks (merged.text, .md, .json, .csv) and rank 1's own (rank1.txt).
#   On nvidia-h200-x2: one GPU a rank, all-reduce through NCCL (its kernels get verdicts too).
#   On one GPU: both ranks share it and all-reduce through gloo, since NCCL refuses two ranks on
#   one GPU (checked first, unprofiled: nccl_one_gpu.log).
# A workflow, not modes: a feature check of rank records over torchrun, not a mode comparison
# (the timing alone: bench/run.sh ranks exact). Results: default $OUT/ranks.
workflow_ranks_check() {  # [backend] [steps]
  [ $# -le 2 ] || workflow_usage
  local backend=${1:-auto} steps=${2:-10} ranks=${NPROC:-2} gpus format
  local workload=$bench/workloads/ranks_allreduce.py
  need_limiter
  results_folder ranks
  # NVLink multicast stays off (the device machines' rule; NCCL would otherwise use NVLS).
  export_env NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
  local job=(torchrun --standalone --nproc-per-node "$ranks" "$workload" --steps "$steps" --backend "$backend")
  if live; then
    nvidia-smi -L | tee "$out/gpus.txt"
    gpus=$(nvidia-smi -L | grep -c '^GPU')
  else print_step gpus - nvidia-smi -L; gpus=0; fi
  if [ "$gpus" -lt "$ranks" ]; then  # under --dry-run: shown as if on one GPU
    wall nccl_one_gpu torchrun --standalone --nproc-per-node "$ranks" "$workload" --steps 1 --backend nccl
    live && grep -m3 -E "Duplicate GPU|ncclInvalidUsage|NCCL error" "$out/nccl_one_gpu.log"
  fi
  wall bare "${job[@]}"
  live && grep -h "^ranks_allreduce:" "$out/bare.log"
  live && mkdir -p "$out/records"
  if live; then (cd "$out/records" && wall profiled "$limiter" run -q -- "${job[@]}")
  else echo "(in $out/records)"; wall profiled "$limiter" run -q -- "${job[@]}"; fi
  live && grep -h -E "^ranks_allreduce:|^limiter:" "$out/profiled.log"
  live && ls -l "$out/records"
  for format in text md json csv; do
    if live; then "$limiter" report "$out/records" --format "$format" -o "$out/merged.$format" || echo "merged $format failed"
    else print_step "merged $format" - "$limiter" report "$out/records" --format "$format" -o "$out/merged.$format"; fi
  done
  if live; then
    "$limiter" report "$out/records" --rank 1 -o "$out/rank1.txt" || echo "rank 1 report failed"
    cat "$out/merged.text"
  else print_step "rank 1" - "$limiter" report "$out/records" --rank 1 -o "$out/rank1.txt"; fi
}
