#!/usr/bin/env bash
# Call 35 (1 GPU): --trace on mlp after the pending-calls change (events and dropped as before).
set -u
S=build-device; ROOT=$PWD; export PATH=$ROOT/$S/bin:$PATH
R=/tmp/r35; rm -rf $R; mkdir -p $R
( time STEPS=205 timeout 100 limiter run --trace --timing -o $R/mlp_trace.json -- python3 bench/workloads/mlp_training.py ) > $R/mlp_trace.txt 2>&1
timeout 60 limiter report $R/mlp_trace.json > $R/report.txt 2>&1
python3 - $R/mlp_trace.json >> $R/mlp_trace.txt << 'PY'
import json, sys, collections
r = json.load(open(sys.argv[1])); t = r.get('timeline', {})
ev = t.get('events', []); c = collections.Counter(e.get('kind') for e in ev)
calls = [e for e in ev if e.get('kind') == 'api_call' and e.get('name') == 'cuLaunchKernel']
print('events', len(ev), dict(c), 'cuLaunchKernel calls', len(calls), 'dropped', t.get('dropped_records'))
PY
tar czf $OUT/r35.tgz -C /tmp r35
tail -4 $R/mlp_trace.txt; grep -i -m3 "verdict\|bound" $R/report.txt
