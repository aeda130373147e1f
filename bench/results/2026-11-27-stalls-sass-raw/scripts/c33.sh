#!/usr/bin/env bash
# Call 33 (1 GPU): the quick device suite on the final code.
set -u
R=/tmp/r33; rm -rf $R; mkdir -p $R
LIMITER_DEVICE_QUICK=1 LIMITER_FORK_MODES=default timeout 420 scripts/device-test.sh build-device $R/dt > $R/device_test.txt 2>&1; echo "device-test rc $?"
find $R -name '*.json' -size +3M -delete; tar czf $OUT/r33.tgz -C /tmp r33
grep -E "PASSED|FAILED|fork tests|graphs|ok$|rc " $R/device_test.txt | tail -24
