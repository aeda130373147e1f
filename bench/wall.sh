# Sourced by the bench scripts: wall LABEL COMMAND... runs the command under /usr/bin/time with
# a timeout (STEP_TIMEOUT, default 240 s), its output in $out/LABEL.log and its wall time and max
# RSS in $out/LABEL.time, and prints both with the workload's last "loop" line if it has one;
# returns the command's exit status (124: timed out).
wall() {
  local label=$1; shift
  /usr/bin/time -f "$label wall %e s, max RSS %M KB" -o "$out/$label.time" timeout "${STEP_TIMEOUT:-240}" "$@" \
    > "$out/$label.log" 2>&1
  local status=$? loop
  loop=$(grep -h 'loop ' "$out/$label.log" | tail -1)
  echo "$label exit $status: $(tail -1 "$out/$label.time")${loop:+ | $loop}"
  return "$status"
}
