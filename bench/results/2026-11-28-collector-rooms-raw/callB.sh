#!/usr/bin/env bash
# Call B (1 GPU, ~250 s of device time left): issue 41's rooms. Costs before (build-before:
# 0636a3b) and after (build-device) in one call, then the collector's GPU suites, the default run
# and graphs on PyTorch, a fork subset; nvdisasm -b SM90a. Most important first; each step bounded.
cd "$(dirname "$0")/.."
tar xJf .devcmd/bins.tar.xz
export PATH=$PATH:/usr/local/cuda/bin
b=$OUT/b; mkdir -p "$b"; log=$OUT/log.txt
bin=$PWD/build-device/bin; before=$PWD/build-before/bin/limiter
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$b/gpu.txt" 2>&1
start=$(date +%s)
lap() { echo "== $* at $(( $(date +%s) - start )) s" | tee -a "$log"; }
t() { local s=$1; shift; timeout "$s" "$@"; local rc=$?; echo "rc $rc: $*" >> "$log"; return $rc; }
lap nvdisasm
nvdisasm -b SM90a -c .devcmd/sm90a_raw.bin > "$b/nvdisasm_sm90a.txt" 2>&1; echo "nvdisasm SM90a rc $?" >> "$log"
nvdisasm -b SM90 -c .devcmd/sm90a_raw.bin > "$b/nvdisasm_sm90.txt" 2>&1; echo "nvdisasm SM90 rc $?" >> "$log"
lap bench
t 40 bench/run.sh launch_overhead "before=LIMITER_CLI=$before --every-launch" "after=--every-launch" \
  "before_default=LIMITER_CLI=$before" "after_default=-" --rounds 2 --out "$b/overhead" > "$b/bench.txt" 2>&1
lap gpu tests
for suite in $("$bin/limiter_gpu_tests" --gtest_list_tests | grep -v '^ ' | tr -d .); do
  t 40 "$bin/limiter_gpu_tests" --gtest_filter="$suite.*" > "$b/gpu_$suite.txt" 2>&1
done
t 30 "$bin/limiter_sampling_gpu_tests" > "$b/gpu_sampling.txt" 2>&1
t 20 "$bin/limiter_stalls_gpu_tests" > "$b/gpu_stalls.txt" 2>&1
lap default run on PyTorch
STEPS=100 t 60 "$bin/limiter" run -q --timing --stall-window 300 -o "$b/pytorch_default.json" \
  -- python3 bench/workloads/mlp_training.py > "$b/pytorch_default.txt" 2>&1
python3 -c "
import json,sys; r=json.load(open('$b/pytorch_default.json'))
k=sum(1 for e in (r.get('timeline') or {}).get('events',[]) if e['kind']=='kernel')
print('default run:',len(r['launches']),'launches,',r.get('stalls',{}).get('samples'),'samples,',k,'timeline kernels, phases',[(p['name'],p['ended_by']) for p in r.get('phases',[])],'missed',r.get('missed'))
" >> "$log" 2>&1
lap nothing lost
LIMITER_LOST_APP=$bin/limiter_lost_launches_app t 80 "$bin/limiter_nothing_lost_gpu_tests" > "$b/gpu_nothing_lost.txt" 2>&1
lap graphs
PHASE_ITERATIONS=5 t 40 "$bin/limiter" run -q --every-launch -o "$b/graphs.json" -- python3 bench/workloads/graph_replay.py > "$b/graphs.txt" 2>&1
python3 -c "
import json; r=json.load(open('$b/graphs.json')); print('graphs:',len(r['launches']),'launches, missed',r.get('missed'))" >> "$log" 2>&1
lap forks
t 60 python3 tests/gpu/fork_test.py "$bin/limiter" "$bin/limiter_lost_launches_app" "$b/fork" --modes default \
  --scenarios fork_exec,fork_sigkill > "$b/fork.txt" 2>&1; tail -1 "$b/fork.txt" >> "$log"
lap done
grep -h "PASSED\|FAILED\|SKIPPED \]" "$b"/gpu_*.txt >> "$log"
cat $(find "$b/overhead" -name "*.md" | head -2) >> "$log" 2>/dev/null
find "$b" -name '*.json' -size +5M -delete; find "$b" -name scratch -type d -prune -exec rm -rf {} +
tar czf "$OUT/b.tgz" -C "$OUT" b 2>/dev/null; rm -rf "$b"
cat "$log"
