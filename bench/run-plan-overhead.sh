#!/usr/bin/env bash
# Kept for scripts/validate-sol.sh's "overhead" step, which calls it and shows plan_overhead.txt:
# the default plan against the previous one (bench/plan-2026-11-22.txt; PREVIOUS_PLAN: another
# plan file) and the bare launch-overhead app, three rounds, through the driver (bench/run.sh).
#   bench/run-plan-overhead.sh build-device $OUT [launches]
set -uo pipefail
out=${2:-bench-out}
mkdir -p "$out"
LAUNCHES=${3:-2000} "$(dirname "$0")/run.sh" launch_overhead previous_plan exact --rounds 3 --no-timing --timeout 120 \
  --stage "${1:-build-device}" --out "$out" > "$out/plan_overhead.log" 2>&1
status=$?
cp "$out/summary.md" "$out/plan_overhead.txt" 2> /dev/null || tail -20 "$out/plan_overhead.log" > "$out/plan_overhead.txt"
exit $status
