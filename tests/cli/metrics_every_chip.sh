#!/usr/bin/env bash
# metrics_every_chip.sh LIMITER
# `limiter metrics --chip X` for every chip the CUPTI host API lists (it names them when asked
# for a chip it does not know): each plan lists what the chip has and names what it leaves out,
# exit 0; a chip CUPTI lists but offers no range profiler for (GV11B) is told so, exit 2.
set -u
limiter=$1
# CUPTI 13.0 leaks ~1 MB inside cuptiProfilerHostInitialize when it refuses GV11B (valgrind: "definitely
# lost", all in libcupti); under AddressSanitizer that leak would turn the exit code into 1.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
chips=$("$limiter" metrics --chip NO_SUCH_CHIP 2>&1 | sed -n 's/.*chips this CUPTI supports: //p' | tr -d ',')
if [ -z "$chips" ]; then echo "FAIL: no chip list in the unknown-chip message"; exit 1; fi
failures=0
for chip in $chips; do
  output=$("$limiter" metrics --chip "$chip" 2>&1); rc=$?
  if [ "$rc" = 0 ] && printf '%s\n' "$output" | grep -Eq "^  sol +[0-9]+ metrics, [0-9]+ pass"; then
    printf '%s: ok%s\n' "$chip" "$(printf '%s\n' "$output" | grep -E ' not on ' | sed 's/, left out:.*//; s/^/; /' | tr -d '\n')"
  elif [ "$rc" = 2 ] && printf '%s\n' "$output" | grep -q "CUPTI knows chip '$chip' but offers no range profiler"; then
    echo "$chip: no range profiler in CUPTI, said so"
  else
    echo "FAIL $chip: exit code $rc"; printf '%s\n' "$output"; failures=$((failures + 1))
  fi
done
[ "$failures" = 0 ]
