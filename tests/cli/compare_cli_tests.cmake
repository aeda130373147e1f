# limiter compare (and the md, csv and html formats of limiter report): exit codes, the
# --fail-if-slower gate on a planted 25 % slowdown, noise and unmatched kernels, bad input.
set(_probe tests/data/ncu/h200_probe_raw.csv)
set(_slower tests/data/compare/h200_probe_local_array_slower.csv)
set(_synthetic tests/data/ncu/synthetic_raw.csv)
set(_synthetic_after tests/data/compare/synthetic_after_raw.csv)

# report: every format renders the real recording.
limiter_cli_test(NAME report.md MATCH "^\\| 6 \\| `spill_pressure` \\| 1\\.6 ms \\| 44% \\| bandwidth" ARGS report ${_probe} --format md)
limiter_cli_test(NAME report.csv MATCH "^6,\"spill_pressure\\(const float \\*, float \\*, int\\)\",spill_pressure,2112,1,1,256,1,1,32,"
                 ARGS report ${_probe} --format csv)
limiter_cli_test(NAME report.html MATCH "<svg id=\"utilization-map\"" ARGS report ${_probe} --format html)
limiter_cli_test(NAME report.rollups MATCH "^  1\\. spill_pressure \\[6\\] — 1\\.6 ms \\(44%\\), bandwidth: Local memory is 98\\.6%"
                 ARGS report ${_probe})
limiter_cli_test(NAME report.grouped MATCH "^2 +5% +3\\.02 us +2 +1\\.51 us +1\\.50 us +1\\.52 us +no verdict .*\\(4096,1,1\\)x\\(256,1,1\\) +copy_kernel$"
                 ARGS report ${_synthetic})

# compare: the planted 25 % slowdown of local_array_2k fails a 10 % gate with exit code 4 ...
limiter_cli_test(NAME compare.slowdown_fails EXIT 4
                 MATCH "slower than --fail-if-slower 10\\.0%: local_array_2k \\[5\\] \\+25\\.0%"
                 ARGS compare ${_probe} ${_slower} --fail-if-slower 10)
limiter_cli_test(NAME compare.slowdown_verdict EXIT 4
                 MATCH "^1 +822 us +1\\.03 ms +\\+25\\.0% +1\\.25x slower +SLOWER +bandwidth -> latency \\(changed\\) +\\(528,1,1\\) x \\(256,1,1\\) +local_array_2k$"
                 ARGS compare ${_probe} ${_slower} --fail-if-slower 10)
# --launches: a row per launch, its sequence numbers on each side.
limiter_cli_test(NAME compare.launch_rows EXIT 4
                 MATCH "^5>5 +822 us +1\\.03 ms +\\+25\\.0% +1\\.25x slower +SLOWER +bandwidth -> latency \\(changed\\) .*local_array_2k$"
                 ARGS compare ${_probe} ${_slower} --fail-if-slower 10 --launches)
# ... passes a 30 % gate, and without a gate the comparison alone exits 0.
limiter_cli_test(NAME compare.slowdown_within_limit MATCH "gate passed" ARGS compare ${_probe} ${_slower} --fail-if-slower 30)
limiter_cli_test(NAME compare.no_gate MATCH "total: 3\\.50 ms -> 3\\.70 ms, \\+5\\.9%" ARGS compare ${_probe} ${_slower})
# The reverse is a speed-up with a verdict change, and passes.
limiter_cli_test(NAME compare.speedup_passes
                 MATCH "^1 +1\\.03 ms +822 us +-20\\.0% +1\\.25x faster +latency -> bandwidth \\(changed\\) .*local_array_2k$"
                 ARGS compare ${_slower} ${_probe} --fail-if-slower 10)
# Repeated launches: copy_kernel's mean 1.51 -> 1.55 us is within 2 standard errors of its
# launches' spread (1.50-1.60 us): noise, and the rule in one line. The relaunched 3-D kernel
# (other grid) is unmatched on both sides.
limiter_cli_test(NAME compare.noise MATCH "^2 -> 3 +1\\.51 us +1\\.55 us +\\+2\\.9% +1\\.03x slower +noise .* copy_kernel$"
                 ARGS compare ${_synthetic} ${_synthetic_after})
limiter_cli_test(NAME compare.noise_rule MATCH "^noise: the change of the mean time per launch is within 2 standard errors of the launches' durations"
                 ARGS compare ${_synthetic} ${_synthetic_after})
limiter_cli_test(NAME compare.noise_gate MATCH "gate passed" ARGS compare ${_synthetic} ${_synthetic_after} --fail-if-slower 2)
limiter_cli_test(NAME compare.unmatched MATCH "^ +1 +31\\.4 us +no verdict +\\(32,8,3\\) x \\(32,4,2\\) +fwd_3D_orderX2b$"
                 ARGS compare ${_synthetic} ${_synthetic_after})
# Every format; the exit code does not depend on it.
limiter_cli_test(NAME compare.md EXIT 4 MATCH "\\*\\*Gate failed:\\*\\* slower by more than 10\\.0%: `local_array_2k` \\[5\\]"
                 ARGS compare ${_probe} ${_slower} --fail-if-slower 10 --format md)
limiter_cli_test(NAME compare.csv MATCH "^matched,\"local_array_2k\\(const int \\*, int \\*, int\\)\",local_array_2k,528,1,1,256,1,1,0,5,5,822048,1027560,1\\.25,0\\.25,"
                 ARGS compare ${_probe} ${_slower} --format csv)
limiter_cli_test(NAME compare.json MATCH "\"kind\": \"limiter-compare\"" ARGS compare ${_probe} ${_slower} --format json)
limiter_cli_test(NAME compare.html MATCH "<svg id=\"time-change\"" ARGS compare ${_probe} ${_slower} --format html)
# Bad input.
limiter_cli_test(NAME compare.one_run EXIT 2 MATCH "name two runs, BEFORE and AFTER" ARGS compare ${_probe})
limiter_cli_test(NAME compare.missing_file EXIT 2 MATCH "cannot open 'no/such/after.json'" ARGS compare ${_probe} no/such/after.json)
limiter_cli_test(NAME compare.bad_format EXIT 2 MATCH "unknown --format 'pdf' \\(expected text, md, csv, json or html\\)"
                 ARGS compare ${_probe} ${_slower} --format pdf)
limiter_cli_test(NAME compare.negative_limit EXIT 2 MATCH "--fail-if-slower must be a percentage of at least 0"
                 ARGS compare ${_probe} ${_slower} --fail-if-slower=-5)
limiter_cli_test(NAME compare.help MATCH "--fail-if-slower arg" ARGS compare --help)
# -k and --top select; --names chooses the names shown.
limiter_cli_test(NAME compare.kernel_regex MATCH "total: 3\\.02 us -> 4\\.66 us.*2 -> 3 launches"
                 ARGS compare ${_synthetic} ${_synthetic_after} -k copy)
limiter_cli_test(NAME compare.top EXIT 4 MATCH "^1 +2% +68% -> 54% .*local_array_2k$"
                 ARGS compare ${_probe} ${_slower} --fail-if-slower 10 --top 1)
limiter_cli_test(NAME compare.names_demangled MATCH "local_array_2k\\(const int \\*, int \\*, int\\)$"
                 ARGS compare ${_probe} ${_slower} --names demangled)
# Records that selected their launches differently: the whole MLP loop against the same
# loop with --per-kernel-count 3 (a record from before kernels_seen) and with budgets then PM
# sampling. A warning says how each selected, and the times are means per launch, weighted alike.
set(_mlp_full tests/data/cupti/h100_mlp_training_limiter.json.gz)
set(_mlp_budget3 tests/data/cupti/h100_mlp_training_budget3_limiter.json.gz)
set(_mlp_budgets_sampled tests/data/cupti/h100_mlp_training_budgets_then_sampling_limiter.json.gz)
limiter_cli_test(NAME compare.selection_warning
                 MATCH "^WARNING: before profiled every launch \\(10,071\\); after profiled 111 of 10,071 launches seen: totals are not comparable, compared per launch$"
                 ARGS compare ${_mlp_full} ${_mlp_budget3})
limiter_cli_test(NAME compare.per_launch_mean MATCH "^mean per launch: 12\\.3 us -> 12\\.4 us, \\+0\\.9% \\(1\\.01x slower\\); 10071 -> 111 launches\nmatched: 39 kernels"
                 ARGS compare ${_mlp_full} ${_mlp_budget3})
limiter_cli_test(NAME compare.per_launch_gate EXIT 4 MATCH "slower than --fail-if-slower 0\\.5%: .*the mean per launch \\+0\\.9%"
                 ARGS compare ${_mlp_full} ${_mlp_budget3} --fail-if-slower 0.5)
# The selection is read before -k: a kernel alone still tells the runs apart.
limiter_cli_test(NAME compare.selection_before_kernel_regex MATCH "^WARNING: before profiled every launch"
                 ARGS compare ${_mlp_full} ${_mlp_budget3} -k sgemm_largek)
limiter_cli_test(NAME compare.selection_sampled
                 MATCH "after profiled 3 per kernel and configuration, then sampled 9,834 of 10,071 launches seen \\(PM sampling: 34 kernel aggregates\\)"
                 ARGS compare ${_mlp_full} ${_mlp_budgets_sampled})
limiter_cli_test(NAME compare.selection_md MATCH "^> \\*\\*Warning:\\*\\* before profiled every launch"
                 ARGS compare ${_mlp_full} ${_mlp_budget3} --format md)
limiter_cli_test(NAME compare.selection_json MATCH "\"compared\": \"per launch\""
                 ARGS compare ${_mlp_full} ${_mlp_budget3} --format json)
limiter_cli_test(NAME compare.selection_csv MATCH "^total_per_launch,\"before profiled every launch \\(10,071\\);"
                 ARGS compare ${_mlp_full} ${_mlp_budget3} --format csv)
limiter_cli_test(NAME compare.selection_html MATCH "<p class=\"warning\">Warning: before profiled every launch"
                 ARGS compare ${_mlp_full} ${_mlp_budget3} --format html)
# The same selection on both sides: no warning, launches matched by order.
limiter_cli_test(NAME compare.same_selection MATCH "^total: 124 ms -> 124 ms, 0\\.0% \\(same\\); 10071 -> 10071 launches"
                 ARGS compare ${_mlp_full} ${_mlp_full})

# Records taken under different cache conditions: a warning in the header, in every format.
set(_cache_all tests/data/cache_control/h200_probe_marked_all.json)
set(_cache_none tests/data/cache_control/h200_probe_marked_none.json)
limiter_cli_test(NAME compare.cache_control_differs
                 MATCH "^WARNING: before measured with L2 flushed before each launch \\(--cache-control all\\), after with the app's own caches \\(--cache-control none\\)"
                 ARGS compare ${_cache_all} ${_cache_none})
limiter_cli_test(NAME compare.cache_control_differs_md MATCH "^> \\*\\*Warning:\\*\\* before measured with L2 flushed"
                 ARGS compare ${_cache_all} ${_cache_none} --format md)
limiter_cli_test(NAME compare.cache_control_differs_json MATCH "\"cache_warning\": \"before measured with L2 flushed"
                 ARGS compare ${_cache_all} ${_cache_none} --format json)
limiter_cli_test(NAME compare.cache_control_differs_html MATCH "<p class=\"warning\">Warning: before measured with L2 flushed"
                 ARGS compare ${_cache_all} ${_cache_none} --format html)

# Grouped by kernel and configuration by default (as `limiter report`): the 10,071 launches of the
# MLP training are 39 rows, each with its launches.
set(_mlp30_trace tests/data/trace/h100_mlp30_trace.json.gz)
set(_pytorch_trace tests/data/trace/h100_pytorch_trace.json.gz)
set(_mlp100_default tests/data/default_run/h200_mlp100_default.json.gz)
set(_stalls_only tests/data/stalls/synthetic_stalls_only_run.json)
set(_stalls_probe tests/data/stalls/h100_stalls_probe.json.gz)
set(_other_program tests/data/synthetic/pytorch_jax_2k.json.gz)
limiter_cli_test(NAME compare.by_kernel MATCH "^matched: 39 kernels \\(10,071 -> 10,071 launches\\), 124 ms -> 124 ms"
                 ARGS compare ${_mlp_full} ${_mlp_full})
limiter_cli_test(NAME compare.by_kernel_html MATCH "^<thead><tr><th class=\"text\" title=\"launches before → after\">n</th><th class=\"name\">kernel</th><th>before/launch</th>"
                 ARGS compare ${_mlp_full} ${_mlp_full} --format html)
limiter_cli_test(NAME compare.by_kernel_html_row MATCH "^<tr><td class=\"text\">615</td><td class=\"name\"><code>sm80_xmma_gemm_"
                 ARGS compare ${_mlp_full} ${_mlp_full} --format html)
limiter_cli_test(NAME compare.by_kernel_md MATCH "\\| launches \\| kernel \\| grid × block \\| before/launch \\| after/launch \\|"
                 ARGS compare ${_mlp_full} ${_mlp_full} --format md)
limiter_cli_test(NAME compare.by_kernel_json MATCH "\"rows\": \"kernel\","
                 ARGS compare ${_mlp_full} ${_mlp_full} --format json)
# A failed gate names the totals, the 10 most slower kernels and a count of the rest.
limiter_cli_test(NAME compare.gate_names_ten EXIT 4
                 MATCH "slower than --fail-if-slower 0\\.0%: the total \\+2\\.7%(, [^,]+ \\[[0-9]+\\] \\+[0-9.]+%){10} and 5 more kernels$"
                 ARGS compare tests/data/cupti/h200_pytorch_ncu.csv tests/data/cupti/h200_pytorch_limiter.json --fail-if-slower 0)
limiter_cli_test(NAME compare.gate_names_ten_text EXIT 4
                 MATCH "^gate FAILED: slower by more than 0\\.0%: the total \\(\\+2\\.7%\\)( .+ \\[[0-9]+\\] \\(\\+[0-9.]+%\\)){10} and 5 more kernels$"
                 ARGS compare tests/data/cupti/h200_pytorch_ncu.csv tests/data/cupti/h200_pytorch_limiter.json --fail-if-slower 0)
# --top trims every list, the "only in" lists too, with a count of the rest.
limiter_cli_test(NAME compare.top_trims_only_lists MATCH "^  [0-9,]+ more not shown \\(--top 0 shows all\\)$"
                 ARGS compare ${_mlp_full} ${_other_program} --top 3)
limiter_cli_test(NAME compare.top_trims_only_lists_html MATCH "^<p class=\"muted\">[0-9,]+ more not shown \\(--top 0 shows all\\)</p>$"
                 ARGS compare ${_mlp_full} ${_other_program} --top 3 --format html)
# Two unrelated programs: one line says so.
limiter_cli_test(NAME compare.different_programs
                 MATCH "^WARNING: before ran `python3 bench/workloads/mlp_training.py`, after `python3 bench/pytorch_workload.py`; they share [0-9]+ of [0-9]+ kernel names: they look like different programs"
                 ARGS compare ${_mlp30_trace} ${_pytorch_trace})
limiter_cli_test(NAME compare.different_programs_html MATCH "<p class=\"warning\">Warning: before ran `python3 bench/workloads/mlp_training.py`"
                 ARGS compare ${_mlp30_trace} ${_pytorch_trace} --format html)
# Records of a timeline alone (--trace) and a default run: per-kernel time from the timelines,
# the program verdict before -> after.
limiter_cli_test(NAME compare.timeline_only MATCH "^matched: 32 kernels \\(1,496 -> 1,496 launches\\)"
                 ARGS compare ${_mlp30_trace} ${_mlp30_trace})
limiter_cli_test(NAME compare.timeline_program MATCH "^program: host-bound; GPU busy 3% -> 22% of 537 ms -> 217 ms$"
                 ARGS compare ${_mlp30_trace} ${_mlp100_default})
limiter_cli_test(NAME compare.timeline_by_kernel MATCH "^30 -> 96 +14\\.7 us +10\\.5 us +-28\\.5% +1\\.40x faster +no verdict -> latency"
                 ARGS compare ${_mlp30_trace} ${_mlp100_default})
limiter_cli_test(NAME compare.timeline_program_html MATCH "<p class=\"meta\">program: host-bound; GPU busy 3% → 22% of 537 ms → 217 ms</p>"
                 ARGS compare ${_mlp30_trace} ${_mlp100_default} --format html)
# Records of PC samples alone: each kernel's share of the samples and main stall reason.
limiter_cli_test(NAME compare.samples_only MATCH "^note: neither record holds kernel times \\(records of PC samples\\)"
                 ARGS compare ${_stalls_only} ${_stalls_probe})
limiter_cli_test(NAME compare.samples_only_rows MATCH "^ +33% -> — +Stall Long Scoreboard 79% -> — +pointer_chase$"
                 ARGS compare ${_stalls_only} ${_stalls_probe})
limiter_cli_test(NAME compare.samples_only_html MATCH "<table id=\"samples\">"
                 ARGS compare ${_stalls_only} ${_stalls_probe} --format html)
# An ncu export against limiter's record of the same program: the names each spells its own way.
limiter_cli_test(NAME compare.ncu_against_cupti MATCH "^matched: 40 kernels \\(80 -> 80 launches\\)"
                 ARGS compare tests/data/cupti/h200_pytorch_ncu.csv tests/data/cupti/h200_pytorch_limiter.json)
# ncu input: a .csv.gz, and lines after the table left out with one warning.
limiter_cli_test(NAME compare.csv_gz MATCH "total: 63\\.3 us -> 36\\.1 us" ARGS compare tests/data/ncu/synthetic_raw.csv.gz ${_synthetic_after})
limiter_cli_test(NAME report.csv_gz MATCH "copy_kernel" ARGS report tests/data/ncu/synthetic_raw.csv.gz)
limiter_cli_test(NAME compare.csv_trailing_text
                 MATCH "limiter: warning: 'tests/data/ncu/synthetic_raw_trailing_text\\.csv': 1 line after the CSV table left out, from line 9: \"Done: 3 kernels"
                 ARGS compare tests/data/ncu/synthetic_raw_trailing_text.csv ${_synthetic_after})
