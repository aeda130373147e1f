#!/usr/bin/env bash
# Call 29 (1 GPU): the raw-binary SASS path: mlp --stalls once traced (its SASS against -fun), then 3 rounds bare/--stalls;
# JAX stall reasons against ncu (application-only, autotuning off).
set -u
S=build-device; ROOT=$PWD; export PATH=$ROOT/$S/bin:$PATH; bin=$ROOT/$S/bin
R=/tmp/r29; rm -rf $R; mkdir -p $R
save() { find $R -name '*.json' -size +3M -delete; find $R -name '*.cubin' -delete; tar czf $OUT/r29.tgz -C /tmp r29; }
W=$ROOT/bench/workloads
( time STEPS=205 timeout 150 limiter run --stalls --timing --save-raw $R/raw -o $R/mlp_stalls.json -- python3 $W/mlp_training.py ) > $R/mlp_stalls_once.txt 2>&1
timeout 120 python3 build-me/sass_check.py $R/mlp_stalls.json $R/raw > $R/sass_check.txt 2>&1
save
timeout 240 bench/run.sh mlp stalls --rounds 3 --stage $S --out $R/mlp_stalls --timeout 90 > $R/mlp_stalls.txt 2>&1; save
export XLA_FLAGS="--xla_gpu_enable_command_buffer= --xla_gpu_autotune_level=0"
STEP_TIMEOUT=150 NCU_ARGS="--target-processes application-only --launch-skip 300" NCU_COUNT=128 STEPS=20 \
  timeout 330 bench/run-stalls-vs-ncu.sh jax $R/jax_kernel --stage $S > $R/jax_kernel.txt 2>&1; save
echo "== sass"; cat $R/sass_check.txt; grep -E "SASS|real" $R/mlp_stalls_once.txt
echo "== mlp"; tail -3 $R/mlp_stalls.txt; grep -h "SASS after" $R/mlp_stalls/*.log | cut -c1-200
echo "== jax"; tail -25 $R/jax_kernel.txt | cut -c1-250
