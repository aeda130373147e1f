#!/usr/bin/env bash
# Stands alone, not a bench/run.sh workflow: a host-side benchmark of this machine (no GPU, no
# stage), on records it synthesises and keeps in WORK_DIR between runs; it waits for a quiet
# machine (quiet.sh) and times an older build beside this one.
# The compare-scale benchmark: `limiter compare A A` of synthetic records of 1,000,
# 10,000 and 100,000 launches (bench/make_synthetic_run.py), wall time, CPU time and peak memory
# from /usr/bin/time -v (else wall and memory from Python's resource module). The 100,000 also in
# csv and json (every matched launch written) and against a copy with 3 launches per kernel and
# configuration, as `--per-kernel-count 3` records it (kernels_seen): the comparison per launch.
#   bench/compare-scale.sh [BUILD_DIR (build)] [WORK_DIR (/tmp/limiter-compare-scale)]
# SIZES="1000 10000 100000 1000000": the sizes compared (a 1,000,000-launch record is 1.9 GB).
# BEFORE=path/to/an/older/limiter times it too, right after this one at each size, on records of
# up to BEFORE_MAX launches (default: every size). REPEAT=N: each measurement N times (the machine
# is shared: take the least, give the spread). QUIET=S: before each measurement, wait up to S
# seconds for the machine to be idle (under 10 % busy over 2 s), and say whether it was.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
work=${2:-/tmp/limiter-compare-scale}
limiter=$build/cli/limiter
before=${BEFORE:-}
before_max=${BEFORE_MAX:-1000000000}
sizes=${SIZES:-1000 10000 100000}
repeat=${REPEAT:-1}
mkdir -p "$work"

source "$(dirname "$0")/quiet.sh"

measure() {  # NAME COMMAND...: prints "NAME  elapsed s  CPU s  peak RSS MB  (load)"; the output goes to WORK/NAME.out
  local name=$1; shift
  for _ in $(seq "${times:-$repeat}"); do
    local load elapsed cpu rss
    load=$(wait_quiet)
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -v "$@" > "$work/$name.out" 2> "$work/$name.time"
      elapsed=$(awk -F': ' '/Elapsed \(wall clock\)/ {split($2, t, ":"); print (length(t) == 3 ? t[1]*3600 + t[2]*60 + t[3] : t[1]*60 + t[2])}' "$work/$name.time")
      cpu=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {print u + s}' "$work/$name.time")
      rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$work/$name.time")
    else
      cpu=0
      read -r elapsed rss < <(python3 - "$work/$name.out" "$@" <<'EOF'
import resource, subprocess, sys, time
start = time.monotonic()
with open(sys.argv[1], "w") as out:
    subprocess.run(sys.argv[2:], stdout=out, check=True)
print(f"{time.monotonic() - start:.2f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f}")
EOF
)
    fi
    printf '%-50s %7.2f s  %6.2f s CPU  %6s MB  (%s)\n' "$name" "$elapsed" "$cpu" "$rss" "$load"
  done
}

# RUN's first 3 launches of each kernel and configuration, with the launches seen of each.
budget_copy() {  # RUN OUT
  python3 - "$1" "$2" <<'EOF'
import collections, json, sys
seen, kept = collections.Counter(), []
with open(sys.argv[1]) as run:
    header = []
    for line in run:
        if line.startswith('  {'):
            launch = json.loads(line.rstrip().rstrip(','))
            key = (launch["name"], tuple(launch["grid"]), tuple(launch["block"]))
            seen[key] += 1
            if seen[key] <= 3: kept.append(line.rstrip().rstrip(','))
        elif not kept:
            header.append(line)
text = "".join(header)
text = text[: text.rfind('"launches"')]
kernels_seen = [{"name": n, "grid": list(g), "block": list(b), "launches": c} for (n, g, b), c in seen.items()]
with open(sys.argv[2], "w") as out:
    out.write(text + '"launches_seen": %d,\n "kernels_seen": %s,\n "launches": [\n' % (sum(seen.values()), json.dumps(kernels_seen)))
    out.write(",\n".join(kept) + "\n ]\n}\n")
EOF
}

for launches in $sizes 100000; do
  [ -s "$work/run_$launches.json" ] || python3 "$root/bench/make_synthetic_run.py" --launches "$launches" -o "$work/run_$launches.json"
done
[ -s "$work/run_100000_budget3.json" ] || budget_copy "$work/run_100000.json" "$work/run_100000_budget3.json"
ls -l "$work"/run_*.json | awk '{printf "%s %.1f MB\n", $NF, $5 / 1e6}'
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1e6}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "limiter: $limiter ($(cd "$root" && git rev-parse --short HEAD)$(cd "$root" && git diff --quiet HEAD -- lib cli reports || echo ', with uncommitted changes'))"

# NAME ARGS...: `limiter compare ARGS`, and BEFORE's right after it, REPEAT times in turn, so
# that both see the same load.
compare_both() {
  local name=$1 launches=$2; shift 2
  for _ in $(seq "$repeat"); do
    times=1 measure "$name" "$limiter" compare "$@"
    if [ -n "$before" ] && [ "$launches" -le "$before_max" ]; then
      times=1 measure "$name (BEFORE)" "$before" compare "$@"
      cmp -s "$work/$name.out" "$work/$name (BEFORE).out" || echo "  (the outputs differ: $work/$name.out)"
    fi
  done
}

for launches in $sizes; do
  run=$work/run_$launches.json
  compare_both "compare $launches x $launches" "$launches" "$run" "$run"
done
run=$work/run_100000.json
compare_both "compare 100000 x 100000 --format csv" 100000 "$run" "$run" --format csv
compare_both "compare 100000 x 100000 --format json" 100000 "$run" "$run" --format json
compare_both "compare 100000 x its budget of 3" 100000 "$run" "$work/run_100000_budget3.json"
grep -m1 '^WARNING' "$work/compare 100000 x its budget of 3.out"
grep -m1 '^mean per launch' "$work/compare 100000 x its budget of 3.out"
