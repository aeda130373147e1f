#!/usr/bin/env bash
# GPU checks of "nothing lost", on the GPU machine after scripts/stage-device.sh:
#   scripts/nothing-lost.sh build-device $OUT
# The launch-by-launch GPU tests (kills, crashes, signals, 2 and 4 processes), the same on real
# PyTorch programs (bench/workloads/kill_points.py), another tool holding the counters (ncu),
# and what taking turns costs. Logs and records go to $OUT/nothing-lost/.
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/nothing-lost
mkdir -p "$out"
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
export LIMITER_CLI=$bin/limiter LIMITER_LOST_APP=$bin/limiter_lost_launches_app
bounded() { command timeout "${STEP_TIMEOUT:-180}" "$@"; }
step() { echo "== $*"; }
status=0

step "launch-by-launch GPU tests"
bounded "$bin/limiter_nothing_lost_gpu_tests" > "$out/gpu_tests.txt" 2>&1 || status=1
grep -E "^\[ +(OK|FAILED|PASSED) |^\[ [a-z0-9-]+ \]|Failure|Expected|Which is|missed" "$out/gpu_tests.txt" | head -60

count_launches() {  # record... -> "file: N launches, missed M, ended E"
  python3 - "$@" << 'PY'
import json, sys
for path in sys.argv[1:]:
    run = json.load(open(path))
    missed = sum(m["launches"] for m in run.get("missed", []))
    print(f"{path.split('/')[-1]}: {len(run['launches'])} launches, missed {missed}, ended {run.get('ended')}")
    for m in run.get("missed", []):
        print(f"   missed {m['launches']}: {m['reason']}")
PY
}

if python3 -c "import torch" 2> /dev/null; then
  for mode in sync-kill segv; do
    step "PyTorch: $mode after 202 launches"
    rm -rf "$out/pt_$mode" && mkdir -p "$out/pt_$mode"
    bounded "$bin/limiter" run -q -o "$out/pt_$mode/rec_%p.json" -- python3 "$root/bench/workloads/kill_points.py" "$mode" \
      > "$out/pt_$mode/log.txt" 2>&1
    echo "exit $?"; tail -3 "$out/pt_$mode/log.txt"; count_launches "$out/pt_$mode"/rec_*.json
  done
  for processes in 2 4; do
    step "PyTorch: $processes processes on one GPU (torch.multiprocessing), 32 launches each"
    rm -rf "$out/pt_mp$processes" && mkdir -p "$out/pt_mp$processes"
    /usr/bin/time -f "wall %e s" timeout "${STEP_TIMEOUT:-180}" "$bin/limiter" run -q --timing --fail-on-missed -o "$out/pt_mp$processes/rec_%p.json" -- \
      python3 "$root/bench/workloads/kill_points.py" mp "$processes" > "$out/pt_mp$processes/log.txt" 2>&1
    echo "exit $?"; grep -E "processes done|wall|turns on the counters|NOT profiled" "$out/pt_mp$processes/log.txt"
    count_launches "$out/pt_mp$processes"/rec_*.json
  done
fi

step "4 processes traced (LIMITER_DEBUG=1): turns, busy retries"
rm -rf "$out/trace4" && mkdir -p "$out/trace4"
LIMITER_DEBUG=1 bounded "$bin/limiter" run -q --timing -o "$out/trace4/rec_%p.json" -- "$bin/limiter_lost_launches_app" processes 300 4 \
  > "$out/trace4/stdout.txt" 2> "$out/trace4/trace.txt"
echo "exit $?"; cat "$out/trace4/stdout.txt"
grep -E "busy|yielding|turns on the counters|NOT profiled|error" "$out/trace4/trace.txt" | sort | uniq -c | sort -rn | head -20
count_launches "$out/trace4"/rec_*.json
gzip -f "$out/trace4/trace.txt"

step "what taking turns costs: 1200 launches in 1, 2 and 4 processes (sync every 16 launches)"
for processes in 1 2 4; do
  rm -rf "$out/turns$processes" && mkdir -p "$out/turns$processes"
  bare=$(bounded "$bin/limiter_lost_launches_app" processes $((1200 / processes)) "$processes")
  profiled=$(bounded "$bin/limiter" run -q --timing -o "$out/turns$processes/rec_%p.json" -- \
    "$bin/limiter_lost_launches_app" processes $((1200 / processes)) "$processes" 2> "$out/turns$processes/timing.txt")
  echo "bare: $bare | limiter run: $profiled"
  grep -h -E "turns on the counters|time per launch|NOT profiled" "$out/turns$processes/timing.txt"
done

if command -v ncu > /dev/null; then
  step "another tool holds the counters: ncu profiles one app while limiter profiles another"
  rm -rf "$out/busy" && mkdir -p "$out/busy"
  bounded ncu --metrics gpu__time_duration.sum "$bin/limiter_lost_launches_app" exit 300 > "$out/busy/ncu.txt" 2>&1 &
  ncu_pid=$!
  sleep 5
  bounded "$bin/limiter" run -q -o "$out/busy/rec_%p.json" -- "$bin/limiter_lost_launches_app" exit 300 \
    > "$out/busy/limiter.txt" 2>&1
  echo "limiter run exit $?"; grep -E "NOT profiled|warning" "$out/busy/limiter.txt" | head -5
  count_launches "$out/busy"/rec_*.json
  wait $ncu_pid; echo "ncu exit $?"; grep -E "==ERROR==|==WARNING==" "$out/busy/ncu.txt" | sort | uniq -c | head -5
fi
exit $status
