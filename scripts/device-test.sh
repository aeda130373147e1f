#!/usr/bin/env bash
# The one command for the GPU machine: GPU tests, the collector against ncu on known-answer
# programs, a real PyTorch program, and the kernel suite when built. Build and stage here
# first (scripts/stage-device.sh), carry build-device/, then run from the repository root:
#   scripts/device-test.sh build-device $OUT
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}
mkdir -p "$out"
bin=$stage/bin
export LIMITER_CLI=$bin/limiter LIMITER_COLLECTOR_APP=$bin/limiter_collector_app LIMITER_NVTX_APP=$bin/limiter_nvtx_app \
  LIMITER_BENCH_APP=$bin/limiter_bench_launch_overhead LIMITER_SAMPLING_APP=$bin/limiter_sampling_app
metrics=$("$bin/limiter" metrics --plan default | sed -n 's/^  \([a-z0-9_]*__[^ ]*\)$/\1/p' | paste -sd,)
status=0
step() { echo "== $*"; }
# Every step is bounded, so a hang costs one step, not the whole (metered) device session.
timeout() { command timeout "${STEP_TIMEOUT:-120}" "$@"; }
quick=${LIMITER_DEVICE_QUICK:-0}  # 1: skip the long steps (ncu on PyTorch, the kernel suite)

step "GPU tests (separate processes: one CUPTI session per process)"
for suite in CollectorGpu CollectorBudgetGpu CollectorDefaultGpu LimiterRunGpu; do
  timeout "$bin/limiter_gpu_tests" --gtest_filter="$suite.*" > "$out/gpu_tests_$suite.txt" 2>&1 || status=1
  tail -3 "$out/gpu_tests_$suite.txt"
done

step "PM-sampling mode: in-process API and limiter run --sampling"
timeout "$bin/limiter_sampling_gpu_tests" > "$out/gpu_tests_sampling.txt" 2>&1 || status=1
tail -3 "$out/gpu_tests_sampling.txt"

step "PC sampling (--stalls): the real seam, the in-process API, the Range Profiler beside it; limiter run on the collector app"
timeout "$bin/limiter_stalls_gpu_tests" > "$out/gpu_tests_stalls.txt" 2>&1 || status=1
tail -3 "$out/gpu_tests_stalls.txt"
timeout "$bin/limiter" run -q --stalls --timing -o "$out/collector_app_stalls.json" -- "$bin/limiter_collector_app" \
  > "$out/collector_app_stalls.txt" 2>&1 || status=1
grep -q '"stalls"' "$out/collector_app_stalls.json" || { echo "no stalls in the --stalls record"; status=1; }

step "nothing lost: kills, crashes, signals, 2 and 4 processes on one GPU (record checked launch by launch)"
LIMITER_LOST_APP=$bin/limiter_lost_launches_app STEP_TIMEOUT=300 timeout "$bin/limiter_nothing_lost_gpu_tests" \
  > "$out/gpu_tests_nothing_lost.txt" 2>&1 || status=1
tail -3 "$out/gpu_tests_nothing_lost.txt"

step "raw counter images re-evaluated offline (limiter analyze) must give the same numbers"
LIMITER_RANGES_PER_IMAGE=8 timeout "$bin/limiter" run -q --every-launch --save-raw "$out/raw" -o "$out/probe_raw_run.json" -- "$bin/verdict_probe" \
  > "$out/probe_raw_run.txt" 2>&1 || status=1
timeout "$bin/limiter" analyze "$out/raw" --record "$out/probe_raw_analyzed.json" > "$out/probe_raw_analyze.txt" 2>&1 || status=1

step "a three-pass plan (kernel replay) and launches skipped before the profiler starts"
timeout "$bin/limiter" run -q --every-launch --timing --plan sol -o "$out/probe_sol.json" -- "$bin/verdict_probe" \
  > "$out/probe_sol.txt" 2>&1 || status=1
tail -3 "$out/probe_sol.txt"
timeout "$bin/limiter" run -q --every-launch --timing -s 5 -o "$out/probe_skip5.json" -- "$bin/verdict_probe" > "$out/probe_skip5.txt" 2>&1 || status=1
tail -3 "$out/probe_skip5.txt"

step "kernel replay against user replay on the same program"
timeout "$bin/limiter" run -q --every-launch --replay kernel -o "$out/collector_app_kernel_replay.json" -- "$bin/limiter_collector_app" \
  > "$out/collector_app_kernel_replay.txt" 2>&1 || status=1

step "collector vs ncu on the same programs (default plan metrics, production clocks)"
for app in limiter_collector_app verdict_probe; do
  timeout "$bin/limiter" run -q --every-launch -o "$out/${app}_limiter.json" -- "$bin/$app" > "$out/${app}_run.txt" 2>&1 || status=1
  # --cache-control none: ncu must not flush caches between kernels, as limiter does not.
  timeout ncu --clock-control none --cache-control none --metrics "$metrics" --csv --page raw --print-units base "$bin/$app" \
    > "$out/${app}_ncu.csv" 2> "$out/${app}_ncu.log" || status=1
done

if command -v python3 > /dev/null && python3 -c "import torch" 2> /dev/null; then
  step "a real program: PyTorch training steps"
  workload=$(dirname "$0")/../bench/pytorch_workload.py
  timeout "$bin/limiter" run -q --every-launch -o "$out/pytorch_limiter.json" -- python3 "$workload" > "$out/pytorch_run.txt" 2>&1 || status=1
  [ "$quick" = 1 ] || timeout ncu --clock-control none --section SpeedOfLight --metrics "$metrics" --csv --page raw --print-units base \
    python3 "$workload" > "$out/pytorch_ncu.csv" 2> "$out/pytorch_ncu.log" || status=1

  step "the default run on a real program: counters for each kernel's first launches, PC samples, the timeline"
  # 100 training steps (~5,000 launches): long enough for every phase (2 steps end in the counters phase).
  STEPS=100 timeout "$bin/limiter" run -q --timing --stall-window 300 -o "$out/pytorch_default.json" \
    -- python3 "$(dirname "$0")/../bench/workloads/mlp_training.py" > "$out/pytorch_default.txt" 2>&1 || status=1
  python3 - "$out/pytorch_default.json" << 'PY' || status=1
import json, sys
record = json.load(open(sys.argv[1]))
phases = {p["name"]: p for p in record.get("phases", [])}
kernels = sum(1 for e in (record.get("timeline") or {}).get("events", []) if e["kind"] == "kernel")
ok = (len(record["launches"]) > 0 and record.get("stalls", {}).get("samples", 0) > 0 and kernels > 0
      and list(phases) == ["samples", "counters", "timeline"] and not record.get("missed"))
print(f"default run: {len(record['launches'])} launches with counters, {record.get('stalls', {}).get('samples')} PC samples, "
      f"{kernels} timeline kernels, phases {[(p['name'], p['ended_by']) for p in record.get('phases', [])]}, "
      f"missed {record.get('missed')}: {'ok' if ok else 'FAILED'}")
sys.exit(0 if ok else 1)
PY
  "$bin/limiter" report "$out/pytorch_default.json" > "$out/pytorch_default_report.txt" 2>&1 || status=1

  step "programs that fork: DataLoader workers, os.fork() ended every way, Pool.terminate, fork + exec, torch.compile;" \
    "bare against every mode, launch by launch"
  STEP_TIMEOUT=1500 timeout python3 "$(dirname "$0")/../tests/gpu/fork_test.py" "$bin/limiter" \
    "$bin/limiter_lost_launches_app" "$out/fork" ${LIMITER_FORK_MODES:+--modes "$LIMITER_FORK_MODES"} \
    > "$out/fork_tests.txt" 2>&1 || status=1
  tail -1 "$out/fork_tests.txt"

  step "CUDA graphs: a PyTorch graph (destroyed by PyTorch, kept alive by limiter) profiled node by node," \
    "outputs as bare"
  graphs=$(dirname "$0")/../bench/workloads/graph_replay.py
  PHASE_ITERATIONS=5 timeout python3 "$graphs" > "$out/graphs_bare.txt" 2>&1 || status=1
  PHASE_ITERATIONS=5 timeout "$bin/limiter" run -q --every-launch -o "$out/graphs_limiter.json" -- python3 "$graphs" \
    > "$out/graphs_run.txt" 2>&1 || status=1
  python3 - "$out" << 'PY' || status=1
import json, sys
def result(name):
    return json.loads(next(l for l in open(f"{sys.argv[1]}/{name}") if l.startswith("graph_replay "))[13:])
bare, run = result("graphs_bare.txt"), result("graphs_run.txt")
record = json.load(open(f"{sys.argv[1]}/graphs_limiter.json"))
# 1 + PHASE_ITERATIONS replays (the first timed alone), 10 kernel nodes each
nodes = [l["graph_node"] for l in record["launches"] if l.get("graph_node") is not None]
digests = [k for k in bare if k.endswith("_digest")]
ok = all(bare[k] == run[k] for k in digests) and nodes == list(range(10)) * 6 and not record.get("missed")
print(f"graphs: outputs equal bare {all(bare[k] == run[k] for k in digests)}, {len(nodes)} nodes profiled one by one, "
      f"missed {record.get('missed')}: {'ok' if ok else 'FAILED'}")
sys.exit(0 if ok else 1)
PY
  # Budgets exhaust before the graph runs: its launches select nothing, and must not run inside
  # an auto-range session (Stop failed with CUPTI_ERROR_UNKNOWN there, 2026-11-24).
  PHASE_ITERATIONS=10 timeout "$bin/limiter" run -q --every-launch --per-kernel-count 3 -o "$out/graphs_budget.json" \
    -- python3 "$graphs" > "$out/graphs_budget.txt" 2>&1 || status=1
  python3 - "$out/graphs_budget.json" << 'PY' || status=1
import json, sys
record = json.load(open(sys.argv[1]))
ok = len(record["launches"]) > 0 and not record.get("missed")
print(f"graphs with --per-kernel-count 3: {len(record['launches'])} launches, missed {record.get('missed')}: {'ok' if ok else 'FAILED'}")
sys.exit(0 if ok else 1)
PY
fi

if [ "$quick" != 1 ] && "$bin/limiter" kernels --help > /dev/null 2>&1; then
  step "kernel suite"
  timeout "$bin/limiter" kernels -o "$out/kernels_run.json" > "$out/kernels.txt" 2>&1 || status=1
  tail -5 "$out/kernels.txt"
  step "known-answer programs: launch-, GPU-, sync-, copy- and host-bound, each verdict checked"
  timeout "$bin/limiter" kernels --programs -q -o "$out/programs" > "$out/programs.txt" 2>&1 || status=1
  cat "$out/programs.txt"
  if [ -x "$bin/limiter_kernels_gpu_tests" ]; then  # every family, small sizes, with its checks
    "$bin/limiter_kernels_gpu_tests" > "$out/gpu_tests_kernels.txt" 2>&1 || status=1
    tail -3 "$out/gpu_tests_kernels.txt"
  fi
  "$bin/limiter" calibrate -o "$out/calibration.json" > "$out/calibration.txt" 2>&1 || status=1
  cat "$out/calibration.txt"
fi
exit $status
