#!/usr/bin/env bash
# Call 30 (1 GPU): where --stalls' wall goes on mlp (phase times, bare and --stalls x2 interleaved); JAX against ncu with application replay.
set -u
S=build-device; ROOT=$PWD; export PATH=$ROOT/$S/bin:$PATH; bin=$ROOT/$S/bin
R=/tmp/r30; rm -rf $R; mkdir -p $R
save() { find $R -name '*.json' -size +3M -delete; find $R -name '*.cubin' -delete; tar czf $OUT/r30.tgz -C /tmp r30; }
W=$ROOT/bench/workloads
for i in 1 2; do
  { echo "phase shell_start $(date +%s.%N)"; PHASE_TIMES=1 STEPS=205 timeout 120 python3 $W/mlp_training.py; echo "phase shell_end $(date +%s.%N)"; } > $R/bare_$i.txt 2>&1
  { echo "phase shell_start $(date +%s.%N)"; PHASE_TIMES=1 STEPS=205 timeout 150 limiter run --stalls --timing -o $R/stalls_$i.json -- python3 $W/mlp_training.py; echo "phase shell_end $(date +%s.%N)"; } > $R/stalls_$i.txt 2>&1
done
save
export XLA_FLAGS="--xla_gpu_enable_command_buffer= --xla_gpu_autotune_level=0"
STEP_TIMEOUT=330 NCU_ARGS="--replay-mode application --target-processes application-only --launch-skip 300" NCU_COUNT=128 STEPS=20 \
  timeout 420 bench/run-stalls-vs-ncu.sh jax $R/jax_app --stage $S > $R/jax_app.txt 2>&1; save
python3 - $R << 'PY'
import sys, re
R = sys.argv[1]
for kind in ('bare', 'stalls'):
    for i in (1, 2):
        t = {m.group(1): float(m.group(2)) for m in re.finditer(r'^phase (\S+) ([0-9.]+)', open(f'{R}/{kind}_{i}.txt').read(), re.M)}
        order = ['shell_start', 'start', 'imported', 'loop', 'looped', 'exit', 'shell_end']
        print(kind, i, ' '.join(f'{a}->{b} {t[b]-t[a]:.2f}' for a, b in zip(order, order[1:]) if a in t and b in t), f'total {t["shell_end"]-t["shell_start"]:.2f}')
PY
grep -h "SASS after" $R/stalls_*.txt | cut -c1-250
echo "== jax app"; tail -22 $R/jax_app.txt | cut -c1-250
