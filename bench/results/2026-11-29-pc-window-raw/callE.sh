#!/usr/bin/env bash
# Call E (1 GPU, 2026-11-29): the default run's stall reasons at its window's 2^13 against --stalls
# (CUPTI's 2^11 over the whole run) on the 200-step MLP training loop: bench/default_agreement.py's
# dominant-reason agreement and bench/stall_shares_agree.py's shares; the default run at 2^11 too.
cd "$(dirname "$0")/.."
tar xJf .devcmd/bins.tar.xz
export PATH=$PATH:/usr/local/cuda/bin
e=$OUT/e; mkdir -p "$e"; log=$OUT/log.txt
bin=$PWD/build-device/bin
export PYTHONPATH=$PWD/build-device/python LIMITER_CLI=$bin/limiter PYTHONUNBUFFERED=1 STEPS=200
w=bench/workloads/mlp_training.py
start=$(date +%s)
lap() { echo "== $* at $(( $(date +%s) - start )) s" | tee -a "$log"; }
lap runs
timeout 120 $bin/limiter run -q --timing -o "$e/default.json" -- python3 $w > "$e/default.log" 2>&1; echo "default rc $?: $(grep -h 'loop\|samples in' $e/default.log | cut -c1-120 | tr '\n' '|')" >> "$log"
timeout 120 $bin/limiter run -q --timing --stall-period 11 -o "$e/default_p11.json" -- python3 $w > "$e/default_p11.log" 2>&1; echo "default p11 rc $?: $(grep -h 'loop\|samples in' $e/default_p11.log | cut -c1-120 | tr '\n' '|')" >> "$log"
timeout 120 $bin/limiter run -q --timing --stalls -o "$e/stalls.json" -- python3 $w > "$e/stalls.log" 2>&1; echo "stalls rc $?: $(grep -h 'loop\|samples in' $e/stalls.log | cut -c1-120 | tr '\n' '|')" >> "$log"
lap agreement
for d in default default_p11; do
  echo "-- $d against --stalls" >> "$log"
  timeout 120 python3 bench/default_agreement.py --default "$e/$d.json" --stalls "$e/stalls.json" --limiter $bin/limiter > "$e/agree_$d.txt" 2>&1
  cat "$e/agree_$d.txt" | head -30 >> "$log"
  timeout 60 python3 bench/stall_shares_agree.py "$e/$d.json" "$e/stalls.json" --top 2 > "$e/shares_$d.md" 2>&1
  tail -1 "$e/shares_$d.md" >> "$log"
done
lap done
find "$e" -name '*.json' -size +5M -delete
tar czf "$OUT/e.tgz" -C "$OUT" e 2>/dev/null; rm -rf "$e"
cat "$log"
