#!/usr/bin/env bash
# The bench driver's tests, no GPU needed (ctest: bench.summary, bench.dry_run, bench.fake_run, bench.workflows, ...):
#   bench/tests/run_tests.sh summary   bench/summarise.py on the committed fixture folder
#                                      against expected_summary.md
#   bench/tests/run_tests.sh dry-run   bench/run.sh --dry-run's commands against expected_dry_run.txt
#                                      (the checkout's path as ROOT), and its refusals
#   bench/tests/run_tests.sh fake-run  bench/run.sh for real on stand-ins of limiter, the launch-overhead
#                                      app and ncu (fake_stage/): every step ran, the summary has them
#   bench/tests/run_tests.sh workflows  bench/run.sh --dry-run of every workflow (bench/workflows/) and
#                                      suite (bench/suites.tsv), against expected_workflows_dry_run.txt
#   bench/tests/run_tests.sh timeline-jax  bench/timeline_vs_torch.py's JAX side (timeline_jax_test.py) on
#                                      a hand-written jax.profiler trace, no JAX needed (bench.timeline_jax)
#   bench/tests/run_tests.sh stalls-vs-ncu  bench/stalls_vs_ncu.py on stalls_fixture/ (a record and a
#                                      report written by hand, ncu's raw CSV mangled and demangled) and
#                                      bench/run.sh stalls-vs-ncu --dry-run, against expected_stalls_vs_ncu.md
#   bench/tests/run_tests.sh agreement  bench/budget_agreement.py and bench/default_agreement.py on
#                                      hand-written reports and a stand-in limiter (agreement_test.py)
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
    for pattern in '^\| bare \| - \| 2/2 \|' '^\| exact \| `--every-launch` \| 2/2 \|.* 3 profiled \| 12\.5 \|' \
                   '^\| budget \| `--every-launch --per-kernel-count 4` \| 2/2 \|' '^\| hybrid \| `--sampling --per-kernel-count 4` \| 2/2 \|' \
                   'ncu own x bare \|$' '^\| hybrid \| 1/1 \| 100\.0% \|' '^Exact phase of hybrid against budget'; do
      grep -Eq "$pattern" "$work/out/summary.md" || { echo "summary.md lacks /$pattern/"; status=1; }
    done
    # 2 rounds of bare, 4 modes, ncu after 3 of them (--sampling alone profiles no launch exactly)
    [ "$(grep -c $'\t0$' "$work/out/runs.tsv")" = 16 ] || { echo "runs.tsv: not 16 steps with exit 0"; status=1; }
    grep -q "ncu_sampling_1: skipped" "$work/log" || { echo "ncu not skipped for --sampling alone"; status=1; }
    [ $status = 0 ] || { cat "$work/log"; exit 1; }
    echo "bench fake-run: as expected"; exit 0 ;;
  workflows)
    expected=$here/expected_workflows_dry_run.txt
    # Every workflow of bench/workflows/ and the suite, as `bench/run.sh --list` names them, under
    # --dry-run in a clean environment (no GPU, no binaries), then the refusals of extra words.
    clean=(env -i PATH="$PATH" OUT=/nonexistent/out bash "$root/bench/run.sh")
    {
      for file in "$root"/bench/workflows/*.sh; do
        name=$(basename "$file" .sh) args=()
        [ "$name" = stalls-vs-ncu ] && args=(mlp)
        echo "## bench/run.sh $name ${args[*]} --dry-run"
        "${clean[@]}" "$name" "${args[@]}" --stage /nonexistent/stage --dry-run 2>&1 || echo "exit $?"
      done
      echo "## bench/run.sh plan_overhead --dry-run"
      "${clean[@]}" plan_overhead --stage /nonexistent/stage --dry-run 2>&1 || echo "exit $?"
      "${clean[@]}" graphs-check extra --dry-run 2>&1; echo "exit $? for: graphs-check extra"
      "${clean[@]}" ranks-check gloo 10 extra --dry-run 2>&1; echo "exit $? for: ranks-check gloo 10 extra"
      echo "## bench/run.sh --list: the suites and workflows"
      "${clean[@]}" --list | sed -n '/^suites/,$p' | cut -c1-40
    } 2>&1 | sed "s#$root#ROOT#g" > "$actual" ;;
  timeline-jax)
    python3 "$here/timeline_jax_test.py" && echo "bench timeline-jax: as expected"; exit $? ;;
  agreement)
    python3 "$here/agreement_test.py" && echo "bench agreement: as expected"; exit $? ;;
  stalls-vs-ncu)
    expected=$here/expected_stalls_vs_ncu.md
    work=$(mktemp -d)
    trap 'rm -f "$actual"; rm -rf "$work"' EXIT
    compare() { (cd "$here/stalls_fixture" && python3 "$root/bench/stalls_vs_ncu.py" "$@"); }
    {
      echo "## record, ncu --print-kernel-base mangled (PC sampling and Warp State)"
      compare limiter_record.json ncu_mangled.csv --markdown "$work/out.md" --json "$work/out.json" || exit 1
      compare limiter_record.json ncu_mangled.csv | cmp -s - "$work/out.md" || echo "--markdown differs from stdout"
      python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print("json:", {k: s[k] for k in (
        "agreement", "agreement_ok", "compared", "within_5_points", "max_diff_points", "shares_ok")})' "$work/out.json"
      echo; echo "## report, ncu --print-kernel-base demangled (Warp State only, durations in us)"
      compare limiter_report.json ncu_demangled.csv || exit 1
      echo; echo "## --with-selected --min-share 10 --min-samples 500"
      compare limiter_record.json ncu_mangled.csv --with-selected --min-share 10 --min-samples 500 || exit 1
      echo; echo "## bench/run.sh stalls-vs-ncu --dry-run"
      env -i PATH="$PATH" NCU_COUNT=100 bash "$root/bench/run.sh" stalls-vs-ncu mlp --out /nonexistent/out \
        --stage /nonexistent/stage --dry-run 2>&1 | sed "s#$root#ROOT#g"
      env -i PATH="$PATH" bash "$root/bench/run.sh" stalls-vs-ncu no_such_workload --dry-run 2>&1
      echo "exit $? for: no_such_workload"
      # Real data (H100, 2026-11-26): our --stalls record of a PyTorch loop and ncu's application
      # replay of the same launches; the result the note reports stays what this prints.
      raw=$root/bench/results/2026-11-26-stalls-vs-ncu-raw
      echo; echo "## real: PyTorch eager against ncu's application replay (bench/results/2026-11-26-stalls-vs-ncu-raw)"
      python3 "$root/bench/stalls_vs_ncu.py" "$raw/pytorch_eager_stalls.json.gz" \
        "$raw/pytorch_eager_ncu_application_replay.csv.gz" 2>&1 | sed "s#$root#ROOT#g"
      # JAX (H200) and torch.compile (H100), 2026-11-27, against application replay of the app process.
      raw=$root/bench/results/2026-11-27-stalls-sass-raw
      for real in r30/jax_application_replay r32/compile_application_replay; do
        echo; echo "## real: $real (bench/results/2026-11-27-stalls-sass-raw)"
        python3 "$root/bench/stalls_vs_ncu.py" "$raw/$real/limiter.json.gz" "$raw/$real/ncu.csv.gz" 2>&1 | sed "s#$root#ROOT#g"
      done
    } > "$actual" 2>&1 ;;
  *) echo "usage: $0 summary|dry-run|fake-run|workflows|timeline-jax|stalls-vs-ncu|agreement" >&2; exit 2 ;;
esac
if [ "${UPDATE:-0}" = 1 ]; then cp "$actual" "$expected"; echo "wrote $expected"; exit 0; fi
diff -u "$expected" "$actual" && echo "bench $1: as expected"
