#!/usr/bin/env bash
# Call 32 (1 GPU): the hot-instruction SASS path: mlp --stalls once (its SASS against -fun), 3 rounds bare/--stalls;
# torch.compile against ncu, application replay of the app process only, Warp State and PC sampling metrics only.
set -u
S=build-device; ROOT=$PWD; export PATH=$ROOT/$S/bin:$PATH; bin=$ROOT/$S/bin
R=/tmp/r32; rm -rf $R; mkdir -p $R
save() { find $R -name '*.json' -size +3M -delete; find $R -name '*.cubin' -delete; tar czf $OUT/r32.tgz -C /tmp r32; }
W=$ROOT/bench/workloads
( time STEPS=205 timeout 150 limiter run --stalls --timing --save-raw $R/raw -o $R/mlp_stalls.json -- python3 $W/mlp_training.py ) > $R/mlp_stalls_once.txt 2>&1
timeout 120 python3 build-me/sass_check.py $R/mlp_stalls.json $R/raw > $R/sass_check.txt 2>&1
save
timeout 240 bench/run.sh mlp stalls --rounds 3 --stage $S --out $R/mlp_stalls --timeout 90 > $R/mlp_stalls.txt 2>&1; save
mkdir -p $R/compile_app/scratch
export TORCHINDUCTOR_CACHE_DIR=$R/compile_app/scratch/inductor-cache
STEPS=4 timeout 150 limiter run --stalls --timing -o $R/compile_app/limiter.json -- python3 $W/compile_training.py > $R/compile_app/limiter.log 2>&1
( time STEPS=4 timeout 270 ncu --replay-mode application --target-processes application-only --section WarpStateStats \
   --metrics gpu__time_duration.sum,smsp__inst_issued.sum,regex:smsp__pcsamp_.* --page raw --csv --print-units base \
   --print-kernel-base mangled --cache-control none --clock-control none --launch-skip 130 -c 70 --log-file $R/compile_app/ncu.csv \
   python3 $W/compile_training.py ) > $R/compile_app/ncu.log 2>&1
timeout 60 python3 bench/stalls_vs_ncu.py $R/compile_app/limiter.json $R/compile_app/ncu.csv --markdown $R/compile_app/stalls_vs_ncu.md > $R/compile_app/compare.txt 2>&1
rm -rf $R/compile_app/scratch; save
echo "== sass"; cat $R/sass_check.txt; grep -E "SASS|real" $R/mlp_stalls_once.txt
echo "== mlp"; tail -3 $R/mlp_stalls.txt; grep -h "SASS after" $R/mlp_stalls/*.log | cut -c1-250
echo "== compile"; grep -E "real|ERROR" $R/compile_app/ncu.log $R/compile_app/ncu.csv | head -5; tail -8 $R/compile_app/compare.txt | cut -c1-250
