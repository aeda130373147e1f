#!/usr/bin/env bash
# expect.sh EXIT_CODE REGEX -- COMMAND ARGS...
# Runs COMMAND, then checks its exit code and that its stdout+stderr match the extended REGEX.
set -u
want_rc=$1; pattern=$2; shift 3
output=$("$@" 2>&1); rc=$?
printf '%s\n' "$output"
if [ "$rc" != "$want_rc" ]; then echo "FAIL: exit code $rc, expected $want_rc"; exit 1; fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then echo "FAIL: output does not match /$pattern/"; exit 1; fi
