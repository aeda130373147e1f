#!/usr/bin/env bash
# keeps_good_output.sh LIMITER
# Every output path of the CLI goes through the atomic writer: a command that fails on a corrupt
# input must leave an existing good output file byte for byte, and no temp file beside it.
set -u
limiter=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
corrupt=tests/data/truncated_run.json
good=tests/data/ncu/synthetic_raw.csv
failures=0

# expect_kept NAME OUTPUT COMMAND...: OUTPUT holds a good file; COMMAND must fail (exit 2) and keep it.
expect_kept() {
  local name=$1 output=$2
  shift 2
  printf 'previous good output of %s\n' "$name" >"$output"
  cp "$output" "$dir/before"
  "$@" >"$dir/log" 2>&1
  local rc=$?
  if [ "$rc" -ne 2 ]; then  # 2: bad input, the answer to a corrupt file
    echo "FAIL $name: exit code $rc, expected 2"; cat "$dir/log"; failures=$((failures + 1)); return
  fi
  if ! cmp -s "$dir/before" "$output"; then
    echo "FAIL $name: replaced the good $output"; cat "$dir/log"; failures=$((failures + 1)); return
  fi
  if ls "$output".tmp* >/dev/null 2>&1; then
    echo "FAIL $name: left a temp file"; failures=$((failures + 1)); return
  fi
  echo "ok   $name kept $output ($(head -1 "$dir/log"))"
}

expect_kept "report -o" "$dir/report.txt" "$limiter" report "$corrupt" -o "$dir/report.txt"
expect_kept "report -f json -o" "$dir/report.json" "$limiter" report "$corrupt" -f json -o "$dir/report.json"
expect_kept "export" "$dir/run.sqlite" "$limiter" export "$corrupt" -o "$dir/run.sqlite"
expect_kept "compare -o" "$dir/compare.md" "$limiter" compare "$good" "$corrupt" -f md -o "$dir/compare.md"
expect_kept "import -o" "$dir/run.json" "$limiter" import --from ncu "$corrupt" -o "$dir/run.json"
expect_kept "analyze --record" "$dir/record.json" "$limiter" analyze "$corrupt" --record "$dir/record.json"
exit $((failures > 0))
