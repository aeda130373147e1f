#!/usr/bin/env bash
# The bench driver's tests, no GPU needed (ctest: bench.summary, bench.dry_run, bench.fake_run):
#   bench/tests/run_tests.sh summary   bench/summarise.py on the committed fixture folder
#                                      against expected_summary.md
#   bench/tests/run_tests.sh dry-run   bench/run.sh --dry-run's commands against expected_dry_run.txt
#                                      (the checkout's path as ROOT), and its refusals
#   bench/tests/run_tests.sh fake-run  bench/run.sh for real on stand-ins of limiter, the launch-overhead
#                                      app and ncu (fake_stage/): every step ran, the summary has them
#   bench/tests/run_tests.sh timeline-jax  bench/timeline_vs_torch.py's JAX side (timeline_jax_test.py) on
#                                      a hand-written jax.profiler trace, no JAX needed (bench.timeline_jax)
# UPDATE=1 rewrites the expected file instead (review the diff before committing it).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
case ${1:-} in
  summary)
    expected=$here/expected_summary.md
    python3 "$root/bench/summarise.py" table "$here/fixture" > "$actual" || exit 1 ;;
  dry-run)
    expected=$here/expected_dry_run.txt
    # A clean environment: LIMITER_CLI, OUT, STEPS... of the caller would change the commands.
    clean=(env -i PATH="$PATH" bash "$root/bench/run.sh")
    "${clean[@]}" mlp exact budget hybrid budget5='--per-kernel-count 5' --rounds 2 --ncu --dry-run \
      --stage /nonexistent/stage --out /nonexistent/out 2>&1 | sed "s#$root#ROOT#g" > "$actual" || exit 1
    # Refusals: a workload or mode not in the tables, a bad mode name, a bad --rounds.
    for args in "no_such_workload exact" "mlp no_such_mode" "mlp bare=--sampling" "mlp exact --rounds 0"; do
      # shellcheck disable=SC2086  # the words are the arguments
      "${clean[@]}" $args --dry-run > /dev/null 2>> "$actual"
      echo "exit $? for: $args" >> "$actual"
    done
    # Every workload with every mode of the tables: each row reads (a typo in a table fails here).
    mapfile -t all_modes < <(grep -v '^#' "$root/bench/modes.tsv" | cut -f1)
    for workload in $(grep -v '^#' "$root/bench/workloads.tsv" | cut -f1); do
      "${clean[@]}" "$workload" "${all_modes[@]}" --ncu --dry-run --stage /s --out /o > /dev/null 2>&1 ||
        echo "the dry run of $workload with every mode failed" >> "$actual"
    done ;;
  fake-run)
    work=$(mktemp -d)
    trap 'rm -f "$actual"; rm -rf "$work"' EXIT
    env -i PATH="$here/fake_stage/path:$PATH" K=4 bash "$root/bench/run.sh" launch_overhead exact budget hybrid sampling \
      --rounds 2 --ncu --timeout 30 --stage "$here/fake_stage" --out "$work/out" > "$work/log" 2>&1 || {
      cat "$work/log"; exit 1; }
    status=0
    for pattern in '^\| bare \| - \| 2/2 \|' '^\| exact \| `\(none\)` \| 2/2 \|.* 3 profiled \| 12\.5 \|' \
                   '^\| budget \| `--per-kernel-count 4` \| 2/2 \|' '^\| hybrid \| `--sampling --per-kernel-count 4` \| 2/2 \|' \
                   'ncu own x bare \|$' '^\| hybrid \| 1/1 \| 100\.0% \|' '^Exact phase of hybrid against budget'; do
      grep -Eq "$pattern" "$work/out/summary.md" || { echo "summary.md lacks /$pattern/"; status=1; }
    done
    # 2 rounds of bare, 4 modes, ncu after 3 of them (--sampling alone profiles no launch exactly)
    [ "$(grep -c $'\t0$' "$work/out/runs.tsv")" = 16 ] || { echo "runs.tsv: not 16 steps with exit 0"; status=1; }
    grep -q "ncu_sampling_1: skipped" "$work/log" || { echo "ncu not skipped for --sampling alone"; status=1; }
    [ $status = 0 ] || { cat "$work/log"; exit 1; }
    echo "bench fake-run: as expected"; exit 0 ;;
  timeline-jax)
    python3 "$here/timeline_jax_test.py" && echo "bench timeline-jax: as expected"; exit $? ;;
  *) echo "usage: $0 summary|dry-run|fake-run|timeline-jax" >&2; exit 2 ;;
esac
if [ "${UPDATE:-0}" = 1 ]; then cp "$actual" "$expected"; echo "wrote $expected"; exit 0; fi
diff -u "$expected" "$actual" && echo "bench $1: as expected"
