#!/usr/bin/env bash
# Decoded PM-sampling recordings of bench/workloads/mlp_training.py (issue 13): `limiter run
# --sampling --save-raw` at 100 and 50 us, STEPS and LONG_STEPS, each folder (meta.json,
# samples.tsv, kernels.jsonl) packed as a .tgz under $OUT for re-attribution offline
# (`limiter analyze DIR`). On the GPU machine, after stage-device.sh:
#   bench/run-sampling-recordings.sh build-device $OUT [STEPS] [LONG_STEPS]
set -uo pipefail
stage=$(cd "${1:-build-device}" && pwd)
out=${2:-${OUT:-device-out}}/sampling-recordings
steps=${3:-205}
long_steps=${4:-1640}
mkdir -p "$out"
bin=$stage/bin
root=$(cd "$(dirname "$0")/.." && pwd)
workload=$root/bench/workloads/mlp_training.py
source "$root/bench/wall.sh"
work=$(mktemp -d)
for interval in 100 50; do
  for n in "$steps" "$long_steps"; do
    label=s${interval}_$n
    wall "$label" env STEPS="$n" "$bin/limiter" run -q --timing --sampling --sampling-interval "$interval" \
      --save-raw "$work/$label" -o "$out/$label.json" -- python3 "$workload"
    grep -h "PM sampling\|lost" "$out/$label.log" | head -3 | sed 's/^/    /'
    dir=$(find "$work/$label" -name samples.tsv -printf '%h\n' | head -1)
    [ -n "$dir" ] && tar -C "$dir" -czf "$out/$label.raw.tgz" meta.json samples.tsv kernels.jsonl && ls -la "$out/$label.raw.tgz"
  done
done
rm -rf "$work"
