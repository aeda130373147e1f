#!/usr/bin/env bash
# The Speed-of-Light measurements on one GPU, side by side with Nsight Compute's Speed of Light:
# the kernel suite (ML patterns included) and a real PyTorch program (bench/workloads/ml_ops.py)
# under limiter's default plan, the `sol` plan and ncu (production clocks), plus calibration.
# Run on the GPU machine from a staged build (scripts/stage-device.sh):
#   scripts/validate-sol.sh build-device $OUT TAG [steps]
# Everything lands in $OUT/TAG.tgz (the device tool returns few files); steps default to all:
# suite,ncu-suite,ml-ops,ncu-ml-ops,sol-ml-ops,calibrate,mlp,overhead
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}
tag=${3:-gpu}
steps=${4:-suite,ncu-suite,ml-ops,ncu-ml-ops,sol-ml-ops,calibrate,mlp,overhead}
root=$(cd "$(dirname "$0")/.." && pwd)
work=/tmp/validate-$tag
mkdir -p "$work" "$out"
bin=$stage/bin
limiter=$bin/limiter
metrics=$("$limiter" metrics --plan default | sed -n 's/^  \([a-z0-9_]*__[^ ]*\)$/\1/p' | paste -sd,)
ncu_sol=(ncu --clock-control none --section SpeedOfLight --metrics "$metrics" --csv --page raw --print-units base)
want() { [[ ",$steps," == *",$1,"* ]]; }
pack() { tar czf "$out/$tag.tgz" -C "$work" . ; }
step() { echo "== $(date -u +%T) $*"; }
bounded() { local limit=$1; shift; timeout "$limit" "$@"; echo "   exit $? ($*)" | cut -c1-160 >&2; }
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader
  ncu --version | tail -1
  python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name())'
  "$limiter" metrics --plan default | head -1
} > "$work/env.txt" 2>&1
cat "$work/env.txt"
if want suite; then
  step "kernel suite under limiter's collector (default plan)"
  bounded 300 "$limiter" kernels -o "$work/kernels_run.json" > "$work/kernels.txt" 2>&1
  tail -25 "$work/kernels.txt"; pack
fi
if want ncu-suite; then
  step "ncu on the ML-pattern kernels of the suite"
  bounded 240 "${ncu_sol[@]}" --kernel-name "regex:tensor_mma|shared_bank|atomic_hist|random_gather" \
    "$limiter" kernels --only ml_patterns --timing-only --runs 1 --warmup 0 > "$work/ml_patterns_ncu.csv" 2> "$work/ml_patterns_ncu.log"
  pack
fi
if want ml-ops; then
  step "real program: ml_ops.py under limiter run"
  bounded 180 "$limiter" run -q -o "$work/ml_ops_limiter.json" -- python3 "$root/bench/workloads/ml_ops.py" > "$work/ml_ops_run.txt" 2>&1
  tail -3 "$work/ml_ops_run.txt"; pack
fi
if want ncu-ml-ops; then
  step "real program: ml_ops.py under ncu (SpeedOfLight + default plan metrics)"
  bounded 420 "${ncu_sol[@]}" python3 "$root/bench/workloads/ml_ops.py" > "$work/ml_ops_ncu.csv" 2> "$work/ml_ops_ncu.log"
  tail -2 "$work/ml_ops_ncu.log"; pack
fi
if want sol-ml-ops; then
  step "real program: ml_ops.py under limiter run --plan sol (every SOL sub-unit, kernel replay)"
  bounded 300 "$limiter" run -q --plan sol -o "$work/ml_ops_sol.json" -- python3 "$root/bench/workloads/ml_ops.py" > "$work/ml_ops_sol.txt" 2>&1
  tail -3 "$work/ml_ops_sol.txt"; pack
fi
if want calibrate; then
  step "calibration (achieved DRAM, L2, FMA peaks)"
  bounded 120 "$limiter" calibrate -o "$work/calibration.json" > "$work/calibration.txt" 2>&1
  cat "$work/calibration.txt"; pack
fi
if want mlp; then
  step "real program: 200-step MLP training loop (~12,000 launches) under limiter run"
  ( time python3 "$root/bench/workloads/mlp_training.py" ) > "$work/mlp_bare.txt" 2>&1
  ( time bounded 240 "$limiter" run -q -o "$work/mlp_training_limiter.json" -- python3 "$root/bench/workloads/mlp_training.py" ) \
    > "$work/mlp_run.txt" 2>&1
  tail -5 "$work/mlp_bare.txt" "$work/mlp_run.txt"
  gzip -9 -f "$work/mlp_training_limiter.json"; pack
fi
if want overhead; then
  step "per-launch overhead: default plan vs the previous plan vs bare"
  mkdir -p "$work/overhead"
  bounded 300 env LAUNCHES=2000 "$root/bench/run.sh" plan_overhead --stage "$stage" --out "$work/overhead" \
    > "$work/overhead/plan_overhead.log" 2>&1
  rm -f "$work/overhead/"*.json
  cat "$work/overhead/summary.md" 2> /dev/null || tail -20 "$work/overhead/plan_overhead.log"; pack
fi
ls -la "$work" | head -30
