#!/usr/bin/env bash
# writes_file.sh FILE REGEX -- COMMAND ARGS...
# Runs COMMAND, which must exit 0 and write FILE (removed first), and checks that FILE's first
# 20 lines match the extended REGEX: what a command wrote, not only what it said.
set -u
file=$1; pattern=$2; shift 3
rm -f "$file"
"$@"; rc=$?
if [ "$rc" != 0 ]; then echo "FAIL: exit code $rc, expected 0"; exit 1; fi
if [ ! -f "$file" ]; then echo "FAIL: $file was not written"; exit 1; fi
if ! head -n 20 "$file" | grep -Eq -- "$pattern"; then
  echo "FAIL: $file does not match /$pattern/; it begins:"; head -n 5 "$file"; exit 1
fi
