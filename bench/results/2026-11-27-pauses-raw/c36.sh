#!/usr/bin/env bash
# Call 36 (1 GPU), final code (7e238ca): --trace on the collector app and on PyTorch (the activity
# session's bounded take), then the quick device suite. Saved after each step.
set -u
R=/tmp/r36; rm -rf $R; mkdir -p $R
save() { tar czf $OUT/r36.tgz -C /tmp r36; }
B=build-device/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
timeout 60 $B/limiter run --trace --timing -o $R/app_trace.json -- $B/limiter_collector_app > $R/app_trace.txt 2>&1; echo "app trace rc $?" >> $R/app_trace.txt
STEPS=30 timeout 90 $B/limiter run --trace --timing -o $R/mlp_trace.json -- python3 bench/workloads/mlp_training.py > $R/mlp_trace.txt 2>&1; echo "mlp trace rc $?" >> $R/mlp_trace.txt
python3 - $R/app_trace.json $R/mlp_trace.json > $R/trace_check.txt 2>&1 <<'PY'
import json, sys
for f in sys.argv[1:]:
    r = json.load(open(f)); t = r.get("timeline") or {}
    ev = t.get("events", [])
    kinds = {}
    for e in ev: kinds[e.get("kind")] = kinds.get(e.get("kind"), 0) + 1
    joined = sum(1 for e in ev if e.get("launch_sequence") is not None)
    print(f, "events", len(ev), kinds, "dropped", t.get("dropped"), "joined", joined, "ended", r.get("ended"))
PY
save
LIMITER_DEVICE_QUICK=1 LIMITER_FORK_MODES=default timeout 330 scripts/device-test.sh build-device $R/dt > $R/dt.txt 2>&1; echo "device-test rc $?" >> $R/dt.txt
save
tail -3 $R/app_trace.txt $R/mlp_trace.txt; cat $R/trace_check.txt; grep "^==\|rc " $R/dt.txt | tail -20
