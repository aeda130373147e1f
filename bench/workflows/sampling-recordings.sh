# shellcheck shell=bash
# shellcheck disable=SC2154  # bench, root, out, dry, stage, bin, limiter, bench_app: set by bench/run.sh, which sources this
# Usage: bench/run.sh sampling-recordings [STEPS (205)] [LONG_STEPS (1640)] [--out DIR] [--stage DIR] [--timeout S] [--dry-run]
# Decoded PM-sampling recordings of bench/workloads/mlp_training.py: `limiter run --sampling
# --save-raw` at 100 and 50 us, STEPS and LONG_STEPS, each folder (meta.json, samples.tsv,
# kernels.jsonl) packed as LABEL.raw.tgz for re-attribution offline (`limiter analyze DIR`). A
# workflow, not modes: its product is the packed recordings. Results: default $OUT/sampling-recordings.
workflow_sampling_recordings() {  # [steps] [long steps]
  [ $# -le 2 ] || workflow_usage
  local steps=${1:-205} long_steps=${2:-1640} work interval n label dir workload=$bench/workloads/mlp_training.py
  need_limiter
  results_folder sampling-recordings
  if live; then work=$(mktemp -d); else work='<a new temporary folder>'; fi
  for interval in 100 50; do
    for n in "$steps" "$long_steps"; do
      label=s${interval}_$n
      wall "$label" env STEPS="$n" "$limiter" run -q --timing --sampling --sampling-interval "$interval" \
        --save-raw "$work/$label" -o "$out/$label.json" -- python3 "$workload"
      if ! live; then print_step "pack $label" - tar -C "$work/$label/<its folder>" -czf "$out/$label.raw.tgz" \
        meta.json samples.tsv kernels.jsonl; continue; fi
      grep -h "PM sampling\|lost" "$out/$label.log" | head -3 | sed 's/^/    /'
      dir=$(find "$work/$label" -name samples.tsv -printf '%h\n' | head -1)
      [ -n "$dir" ] && tar -C "$dir" -czf "$out/$label.raw.tgz" meta.json samples.tsv kernels.jsonl && ls -la "$out/$label.raw.tgz"
    done
  done
  live && rm -rf "$work"
  return 0
}
