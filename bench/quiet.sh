# Sourced by the host-side scale benchmarks (compare-scale.sh, report-scale.sh): how busy the
# shared machine is, and a wait (QUIET=seconds at most) for it to calm down before a measurement.
busy_percent() {  # the machine's busy share over 2 s
  local a b c d e f g t1 i1
  read -r _ a b c d e f g _ < /proc/stat; t1=$((a + b + c + d + e + f + g)); i1=$d
  sleep 2
  read -r _ a b c d e f g _ < /proc/stat
  echo $((100 - 100 * (d - i1) / (a + b + c + d + e + f + g - t1)))
}

wait_quiet() {  # prints how busy the machine was before the measurement
  local waited=0 busy
  busy=$(busy_percent)
  while [ -n "${QUIET:-}" ] && [ "$busy" -ge 10 ] && [ "$waited" -lt "$QUIET" ]; do
    sleep 8; waited=$((waited + 10)); busy=$(busy_percent)
  done
  echo "busy ${busy}% before, load $(cut -d' ' -f1 /proc/loadavg)"
}
