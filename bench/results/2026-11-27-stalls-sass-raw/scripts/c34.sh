#!/usr/bin/env bash
# Call 34 (1 GPU): the final code's SASS step once on mlp (after the review fixes).
set -u
S=build-device; ROOT=$PWD; export PATH=$ROOT/$S/bin:$PATH
R=/tmp/r34; rm -rf $R; mkdir -p $R
( time STEPS=205 timeout 100 limiter run --stalls --timing -o $R/mlp_stalls.json -- python3 bench/workloads/mlp_training.py ) > $R/mlp_stalls_once.txt 2>&1
tar czf $OUT/r34.tgz -C /tmp r34
grep -E "SASS|real|loop" $R/mlp_stalls_once.txt
