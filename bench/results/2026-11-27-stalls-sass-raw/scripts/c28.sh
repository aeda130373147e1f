#!/usr/bin/env bash
# Call 28 (1 GPU, 2026-11-27 session): nvdisasm's raw-binary mode probed on real cubins; --stalls on mlp traced (where the wall goes);
# the budgets-then-sampling test x6 plain and x3 traced after the empty-full fix; ncu on JAX with --target-processes application-only.
set -u
S=build-device; ROOT=$PWD; export PATH=$ROOT/$S/bin:$PATH; bin=$ROOT/$S/bin
R=/tmp/r28; rm -rf $R; mkdir -p $R
save() { find $R -name '*.json' -size +3M -delete; find $R -name '*.cubin' -delete; tar czf $OUT/r28.tgz -C /tmp r28; }
W=$ROOT/bench/workloads
# 1. the probe cubin
timeout 60 python3 build-me/sass_raw_probe.py - tests/data/stalls/stall_probe.sm_90.cubin > $R/raw_probe_small.txt 2>&1
# 2. mlp bare, then --stalls traced with its cubins kept
( time STEPS=205 timeout 120 python3 $W/mlp_training.py ) > $R/mlp_bare.txt 2>&1
( time LIMITER_DEBUG=1 STEPS=205 timeout 150 limiter run --stalls --timing --save-raw $R/raw -o $R/mlp_stalls.json -- python3 $W/mlp_training.py ) > $R/mlp_stalls_traced.txt 2>&1
ls -la $R/raw/cubins > $R/cubins_ls.txt 2>&1
timeout 200 python3 build-me/sass_raw_probe.py $R/mlp_stalls.json $R/raw/cubins/*.cubin > $R/raw_probe_mlp.txt 2>&1
save
# 3. the PM-sampling test
timeout 150 $bin/limiter_sampling_gpu_tests --gtest_filter='SamplingGpu.InProcessApiBudgetsThenSampling' --gtest_repeat=6 > $R/sampling_repeat.txt 2>&1
export LD_LIBRARY_PATH=$ROOT/build-device/lib:${LD_LIBRARY_PATH:-}
for i in 1 2 3; do VARIANT_DEBUG=1 timeout 60 $ROOT/build-me/sampling_debug --gtest_filter=SamplingGpu.InProcessApiBudgetsThenSampling > $R/traced_$i.txt 2>&1; done
save
# 4. ncu on JAX, only the application process (not ptxas or other children)
( time XLA_FLAGS=--xla_gpu_enable_command_buffer= STEPS=5 WARMUP=2 timeout 200 ncu --target-processes application-only --section WarpStateStats \
   --metrics gpu__time_duration.sum --page raw --csv --print-kernel-base mangled --cache-control none --clock-control none \
   --launch-skip 100 -c 20 python3 $W/jax_training.py ) > $R/jax_ncu.txt 2>&1
tail -c 3000 $R/jax_ncu.txt > $R/jax_ncu_tail.txt
save
echo "== raw probe small"; cat $R/raw_probe_small.txt | head -30
echo "== raw probe mlp"; tail -25 $R/raw_probe_mlp.txt
echo "== mlp"; grep -E "loop|real" $R/mlp_bare.txt; grep -E "loop|real|SASS|PC sampling|samples in" $R/mlp_stalls_traced.txt | cut -c1-200
echo "== sampling"; grep -cE "^\[       OK \]" $R/sampling_repeat.txt; grep -hE "FAILED  \]|empty|overflow" $R/sampling_repeat.txt | head -5
for i in 1 2 3; do echo "traced $i: $(grep -cE '^\[       OK' $R/traced_$i.txt) ok; $(grep -c 'fresh image' $R/traced_$i.txt) empty-full; $(grep -c 'hole of' $R/traced_$i.txt) holes"; done
echo "== jax ncu"; grep -E "==PROF==|==ERROR==|Segmentation|real|\"ID\"" $R/jax_ncu.txt | head -12; grep -c '^"' $R/jax_ncu.txt
