# shellcheck shell=bash
# shellcheck disable=SC2154  # bench, root, out, dry, stage, bin, limiter, bench_app: set by bench/run.sh, which sources this
# Usage: bench/run.sh compare-1m --stage BUILD_DIR [--out DIR] [--dry-run]
# `limiter compare` of 1,000,000 launches against 1,000,000, grouped by kernel (the default) and
# with --launches, in text, md and html: wall time, CPU time and peak memory (/usr/bin/time). No
# GPU: it runs here, on a build tree (--stage build). The records are synthetic
# (bench/make_synthetic_run.py, 22 kernels, H200 counters): BEFORE with seed 11, AFTER with seed 12
# and the nvjet GEMM 17 % faster, so that one kernel really changed; they stay in the results
# folder (default $OUT/compare-1m; --out /tmp/limiter-compare-1m as before) for the next run.
# LAUNCHES=N: another size (default 1000000; each record is ~1.95 GB at 1,000,000). A workflow,
# not modes: one host-side command measured in four forms.
workflow_compare_1m() {
  [ $# = 0 ] || workflow_usage
  local launches=${LAUNCHES:-1000000} before after
  need_limiter
  results_folder compare-1m
  before=$out/before_$launches.json after=$out/after_$launches.json
  made() {  # record, make_synthetic_run.py options...: made unless it is there
    local record=$1; shift
    if ! live; then print_step "make ${record##*/}" - python3 "$bench/make_synthetic_run.py" --launches "$launches" "$@" -o "$record"
    elif [ ! -s "$record" ]; then python3 "$bench/make_synthetic_run.py" --launches "$launches" "$@" -o "$record" || exit 1; fi
  }
  made "$before"
  made "$after" --seed 12 --scale nvjet=0.83
  if live; then
    echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1e6}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "limiter: $limiter ($(cd "$root" && git rev-parse --short HEAD))"
  fi
  measure() {  # NAME ARGS...: one line "NAME  wall s  CPU s  peak MB", the output in OUT/NAME.out
    local name=$1 wall user sys rss; shift
    if ! live; then print_step "$name" - "$limiter" compare "$before" "$after" "$@"; return 0; fi
    /usr/bin/time -f "%e %U %S %M" -o "$out/$name.time" "$limiter" compare "$before" "$after" "$@" > "$out/$name.out" || true
    read -r wall user sys rss < "$out/$name.time"
    printf '%-28s %7.2f s wall  %6.2f s CPU  %6.0f MB peak  %9d bytes out\n' "$name" "$wall" "$(echo "$user + $sys" | bc)" \
      "$(echo "$rss / 1024" | bc)" "$(stat -c %s "$out/$name.out")"
  }
  measure text
  measure md --format md
  measure html --format html
  measure launches-text --launches
  live || return 0
  grep -m3 -E "^(total|matched|noise)" "$out/text.out"
  grep -m1 "nvjet" "$out/text.out"
}
