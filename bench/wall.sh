# shellcheck shell=bash
# Sourced by bench/run.sh and its workflows (bench/workflows/): wall LABEL COMMAND... runs the
# command under /usr/bin/time with a timeout (STEP_TIMEOUT, default 240 s), its output in
# $out/LABEL.log and its wall time and max RSS in $out/LABEL.time, and prints both with the
# workload's last "loop" line if it has one; returns the command's exit status (124: timed out).
# Under --dry-run (dry=1) it prints the step instead (print_step) and runs nothing.
# shellcheck disable=SC2154  # out: the caller's results folder
wall() {
  local label=$1; shift
  if [ "${dry:-0}" = 1 ]; then print_step "$label" "${STEP_TIMEOUT:-240}" "$@"; return 0; fi
  /usr/bin/time -f "$label wall %e s, max RSS %M KB" -o "$out/$label.time" timeout "${STEP_TIMEOUT:-240}" "$@" \
    > "$out/$label.log" 2>&1
  local status=$? loop
  loop=$(grep -h 'loop ' "$out/$label.log" | tail -1)
  echo "$label exit $status: $(tail -1 "$out/$label.time")${loop:+ | $loop}"
  return "$status"
}

# The dry run's line of a step: "LABEL (timeout S s): COMMAND", the words quoted as bash reads
# them; a TIMEOUT of - (a step with no timeout of its own) prints "LABEL (no timeout): ...".
print_step() {  # label, timeout, command...
  local label=$1 limit=$2; shift 2
  if [ "$limit" = - ]; then printf '%s (no timeout):' "$label"; else printf '%s (timeout %s s):' "$label" "$limit"; fi
  printf ' %q' "$@"; echo
}

# True when the steps really run: the lines that read their logs are skipped under --dry-run.
live() { [ "${dry:-0}" = 0 ]; }
