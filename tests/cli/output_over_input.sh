#!/usr/bin/env bash
# output_over_input.sh LIMITER COMMAND
# Outputs never destroy inputs (cli/output_guard.cpp): COMMAND with an output that is one of its
# inputs (the same path, a symlink to it, "./" before it, an absolute path, a hard link, a record
# of a folder or glob of ranks) must exit 2 with one line naming both paths, and leave every file
# as it was. An output that is no input (a new file, a report beside the ranks) is still written.
# Works on copies of committed recordings in a temporary folder, never on tests/data itself.
set -u
limiter=$(realpath "$1")  # the script works in a temporary folder
command=$2
data=$(pwd)/tests/data
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/work"
cd "$dir/work" || exit 1
failures=0

# Every path, file checksum and symlink target under the work folder.
snapshot() {
  find . -printf '%p %y %l\n' | LC_ALL=C sort
  find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
}

# refused NAME OPTION OUTPUT INPUT ARGS...: limiter ARGS must exit 2 with the one line naming
# OUTPUT (given to OPTION) and INPUT, and change nothing.
refused() {
  local name=$1 option=$2 output=$3 input=$4
  shift 4
  local want="limiter: error: $option '$output' is the input '$input' (the same file): writing it would destroy the input; choose another output path"
  snapshot >"$dir/before"
  "$limiter" "$@" >"$dir/log" 2>&1
  local rc=$?
  snapshot >"$dir/after"
  if [ "$rc" -ne 2 ]; then
    echo "FAIL $name: exit code $rc, expected 2"; cat "$dir/log"; failures=$((failures + 1)); return
  fi
  if [ "$(cat "$dir/log")" != "$want" ]; then
    echo "FAIL $name: expected the one line"; echo "  $want"; echo "got"; cat "$dir/log"
    failures=$((failures + 1)); return
  fi
  if ! diff "$dir/before" "$dir/after" >"$dir/diff"; then
    echo "FAIL $name: files changed"; cat "$dir/diff"; failures=$((failures + 1)); return
  fi
  echo "ok   $name: $want"
}

# written NAME OUTPUT ARGS...: limiter ARGS must succeed and write OUTPUT (no input: not refused).
written() {
  local name=$1 output=$2
  shift 2
  "$limiter" "$@" >"$dir/log" 2>&1
  local rc=$?
  if [ "$rc" -ne 0 ] || [ ! -s "$output" ]; then
    echo "FAIL $name: exit code $rc, $output $( [ -s "$output" ] && echo written || echo missing)"; cat "$dir/log"
    failures=$((failures + 1)); return
  fi
  echo "ok   $name: wrote $output"
  rm -f "$output"
}

# The output named four ways as the input FILE: OPTION (-o, --output, --record) FILE ARGS (the rest).
same_file_four_ways() {
  local option=$1 file=$2
  shift 2
  local label=$option  # the message names -o however it was spelt
  [ "$option" = --output ] && label=-o
  ln -sf "$file" "link-$file"
  refused "$command $option same path" "$label" "$file" "$file" "$@" "$option" "$file"
  refused "$command $option symlink to the input" "$label" "link-$file" "$file" "$@" "$option" "link-$file"
  refused "$command $option ./input" "$label" "./$file" "$file" "$@" "$option" "./$file"
  refused "$command $option absolute path" "$label" "$PWD/$file" "$file" "$@" "$option" "$PWD/$file"
}

cp "$data/cupti/h200_probe_run.json" run.json
cp "$data/ncu/synthetic_raw.csv" in.csv
cp "$data/compare/synthetic_after_raw.csv" after.csv
mkdir ranks
cp "$data"/ranks/*.json* ranks/
chmod -R u+w .

case $command in
report)
  for file in run.json in.csv; do
    same_file_four_ways -o "$file" report "$file"
    same_file_four_ways --output "$file" report "$file" -f json
  done
  refused "report: the input through a symlink" -o run.json link-run.json report link-run.json -o run.json
  ln run.json hard.json
  refused "report: a hard link" -o hard.json run.json report run.json -o hard.json
  refused "report: a record of a folder" -o ranks/h100_gloo_rank1.json.gz ranks/h100_gloo_rank1.json.gz \
    report ranks -o ranks/h100_gloo_rank1.json.gz
  refused "report: a record of a glob" -o ./ranks/h100_gloo_rank0.json.gz ranks/h100_gloo_rank0.json.gz \
    report 'ranks/h100_gloo_rank*.json.gz' -o ./ranks/h100_gloo_rank0.json.gz
  refused "report: one of several files" -o ranks/h100_gloo_rank1.json.gz ranks/h100_gloo_rank1.json.gz \
    report ranks/h100_gloo_rank0.json.gz ranks/h100_gloo_rank1.json.gz -f json -o ranks/h100_gloo_rank1.json.gz
  refused "report --rank: a record it only looks at" -o ranks/h100_gloo_torchrun_agent.json \
    ranks/h100_gloo_torchrun_agent.json report ranks --rank 1 -o ranks/h100_gloo_torchrun_agent.json
  written "report: a new file" report.txt report run.json -o report.txt
  written "report: a new report beside the ranks" ranks/report.json report ranks -f json -o ranks/report.json
  ;;
import)
  same_file_four_ways -o in.csv import --from ncu in.csv
  cp "$data/seed001_fermi_case_study.csv" plain.csv
  same_file_four_ways -o plain.csv import --from csv --arch sm_20 --sms 16 plain.csv
  written "import: a new file" imported.json import --from ncu in.csv -o imported.json
  ;;
export)
  for file in run.json in.csv; do same_file_four_ways -o "$file" export "$file"; done
  written "export: a new file" run.sqlite export run.json -o run.sqlite
  ;;
compare)
  same_file_four_ways -o in.csv compare in.csv after.csv
  same_file_four_ways -o after.csv compare in.csv after.csv -f md
  cp -r ranks ranks_after
  refused "compare: a record of the AFTER folder" -o ranks_after/h100_gloo_rank0.json.gz \
    ranks_after/h100_gloo_rank0.json.gz compare ranks ranks_after -o ranks_after/h100_gloo_rank0.json.gz
  written "compare: a new file" compare.md compare in.csv after.csv -f md -o compare.md
  ;;
analyze)
  same_file_four_ways -o run.json analyze run.json
  same_file_four_ways --record run.json analyze run.json
  cp -r "$data/cupti/h200_probe_raw" raw
  chmod -R u+w raw
  refused "analyze: a file of the raw data set" -o raw/meta.json raw/meta.json analyze raw -o raw/meta.json
  refused "analyze --record: a file of the raw data set" --record ./raw/launches.jsonl raw/launches.jsonl \
    analyze raw --record ./raw/launches.jsonl
  written "analyze: a new file" analysis.json analyze run.json -o analysis.json
  written "analyze --record: a new file" record.json analyze run.json --record record.json
  ;;
*)
  echo "unknown command '$command'"; exit 1 ;;
esac
exit $((failures > 0))
