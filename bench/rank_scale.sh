#!/usr/bin/env bash
# Stands alone, not a bench/run.sh workflow: a host-side benchmark of this machine (no GPU, no
# stage) whose product is OUTDIR/results.md, on simulated ranks it keeps for the next run.
# The ranks-scale benchmark: `limiter report` of a job's ranks merged, RANKS records of LAUNCHES
# launches each (bench/rank_scale.py: a real recording as every rank), elapsed time, CPU time
# and peak memory from /usr/bin/time -v, into OUTDIR/results.md. Targets on 16 cores: 256 ranks
# of 12,000 launches in 10 s, 1,000 ranks in 30 s, under 2 GiB.
#   bench/rank_scale.sh OUTDIR [BUILD_DIR (build)]
# RANK_COUNTS="256 1000" (the sets measured), LAUNCHES=12000 (per rank). The records stay in
# OUTDIR/ranks_N for another run (~1.5 MB a rank, gzipped).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: bench/rank_scale.sh OUTDIR [BUILD_DIR]}
build=${2:-$root/build}
limiter=$build/cli/limiter
counts=${RANK_COUNTS:-256 1000}
launches=${LAUNCHES:-12000}
mkdir -p "$out"
results=$out/results.md
[ -x "$limiter" ] || { echo "no limiter at $limiter: build it or give BUILD_DIR" >&2; exit 2; }

{
  echo "# limiter report of a job's ranks, merged"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2 / 1e6}' /proc/meminfo),"\
       "load $(cut -d' ' -f1-3 /proc/loadavg); limiter $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo
  echo "| ranks | launches per rank | launches | elapsed s | CPU s | peak RSS MB | report says |"
  echo "|---:|---:|---:|---:|---:|---:|---|"
} > "$results"

for ranks in $counts; do
  dir=$out/ranks_$ranks
  if [ "$(ls "$dir" 2>/dev/null | wc -l)" != "$ranks" ]; then
    rm -rf "$dir"
    python3 "$root/bench/rank_scale.py" "$dir" --ranks "$ranks" --launches "$launches"
  fi
  /usr/bin/time -v "$limiter" report "$dir" > "$out/report_$ranks.txt" 2> "$out/time_$ranks.txt"
  elapsed=$(awk -F': ' '/Elapsed \(wall clock\)/ {split($2, t, ":"); print (length(t) == 3 ? t[1]*3600 + t[2]*60 + t[3] : t[1]*60 + t[2])}' "$out/time_$ranks.txt")
  cpu=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {print u + s}' "$out/time_$ranks.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$out/time_$ranks.txt")
  says=$(head -1 "$out/report_$ranks.txt" | sed 's/^limiter report — //')
  printf '| %s | %s | %s | %s | %.1f | %s | %s |\n' "$ranks" "$launches" "$((ranks * launches))" "$elapsed" "$cpu" "$rss" "$says" >> "$results"
  echo "$ranks ranks: ${elapsed} s, ${cpu} s CPU, ${rss} MB"
done
echo "-> $results"
