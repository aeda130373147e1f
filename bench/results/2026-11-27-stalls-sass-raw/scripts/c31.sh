#!/usr/bin/env bash
# Call 31 (1 GPU): --stalls on mlp: the sampling period against the loop's cost; nvdisasm's cost split; the exit traced; torch.compile against ncu (application replay).
set -u
S=build-device; ROOT=$PWD; export PATH=$ROOT/$S/bin:$PATH; bin=$ROOT/$S/bin
R=/tmp/r31; rm -rf $R; mkdir -p $R
save() { find $R -name '*.json' -size +3M -delete; find $R -name '*.cubin' -delete; tar czf $OUT/r31.tgz -C /tmp r31; }
W=$ROOT/bench/workloads
ph() { echo "phase shell_start $(date +%s.%N)"; "$@"; echo "phase shell_end $(date +%s.%N)"; }
for i in 1 2; do
  PHASE_TIMES=1 STEPS=205 ph timeout 120 python3 $W/mlp_training.py > $R/bare_$i.txt 2>&1
  for p in 11 13 15; do PHASE_TIMES=1 STEPS=205 ph timeout 150 limiter run --stalls --stall-period $p --timing -o $R/p${p}_$i.json -- python3 $W/mlp_training.py > $R/p${p}_$i.txt 2>&1; done
done
PHASE_TIMES=1 STEPS=205 LIMITER_DEBUG=1 ph timeout 150 limiter run --stalls --timing --save-raw $R/raw -o $R/traced.json -- python3 $W/mlp_training.py > $R/traced.txt 2>&1
timeout 120 python3 build-me/sass_split_probe.py $R/traced.json $R/raw > $R/split.txt 2>&1
save
STEP_TIMEOUT=400 NCU_ARGS="--replay-mode application --launch-skip 130" NCU_COUNT=70 STEPS=4 \
  timeout 460 bench/run-stalls-vs-ncu.sh compile_training $R/compile_app --stage $S > $R/compile_app.txt 2>&1; save
python3 - $R << 'PY'
import sys, re, glob, os
R = sys.argv[1]
order = ['shell_start', 'start', 'imported', 'loop', 'looped', 'exit', 'shell_end']
for f in sorted(glob.glob(f'{R}/*_[12].txt')):
    t = {m.group(1): float(m.group(2)) for m in re.finditer(r'^phase (\S+) ([0-9.]+)', open(f).read(), re.M)}
    if 'shell_end' not in t or 'looped' not in t: print(os.path.basename(f), 'incomplete'); continue
    print(os.path.basename(f)[:-4], f'loop {t["looped"]-t["loop"]:.3f}', f'exit->end {t["shell_end"]-t["exit"]:.2f}', f'total {t["shell_end"]-t["shell_start"]:.2f}',
          ' '.join(re.findall(r'(\d+) PC samples', open(f).read())))
PY
cat $R/split.txt
grep -v "GetData\|PC sampling reason" $R/traced.txt | tail -25 | cut -c1-220
echo "== compile app"; tail -26 $R/compile_app.txt | cut -c1-250
