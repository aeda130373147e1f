# Why kernels wait, on the synthetic stall record (tests/data/stalls/README.md): the
# sampling condition and its dropped samples, each kernel's dominant stall reasons and hot lines in
# every format, the stalls and hot_pcs tables of the export, a malformed "stalls" named.
set(_stalls tests/data/stalls/synthetic_stalls_run.json)
limiter_cli_test(NAME report.stalls_sampling
                 MATCH "^PC sampling: a sample every 4,096 cycles per SM \\(continuous\\), 24,000 samples of 5 kernels$"
                 ARGS report ${_stalls})
limiter_cli_test(NAME report.stalls_dropped MATCH "^WARNING: PC sampling dropped 120 samples"
                 ARGS report ${_stalls})
limiter_cli_test(NAME report.stalls_why_it_waits
                 MATCH "^  why it waits: Stall Long Scoreboard 86% of stalled samples; 9% issued; 8,000 samples$"
                 ARGS report ${_stalls})
limiter_cli_test(NAME report.stalls_hot_line MATCH "^    probe\\.cu:77  BAR\\.SYNC\\.DEFER_BLOCKING 0x0  60% \\(Stall Barrier\\)$"
                 ARGS report ${_stalls})
limiter_cli_test(NAME report.stalls_fix_first
                 MATCH "pointer_chase \\[1\\] .*latency: Warps wait on global or local memory \\(Stall Long Scoreboard"
                 ARGS report ${_stalls})
limiter_cli_test(NAME report.stalls_grouped MATCH "^  block_reduce \\(#5, latency\\): Stall Barrier 74% of stalled samples"
                 ARGS report ${_stalls})
limiter_cli_test(NAME report.stalls_md MATCH "^\\| `transpose_shared` \\| #3 latency \\| Stall Short Scoreboard 55%, Stall MIO Throttle 34%"
                 ARGS report ${_stalls} -f md)
limiter_cli_test(NAME report.stalls_csv MATCH ",8000,0\\.0875,long_scoreboard,0\\.863013698630137,,,\"probe\\.cu:41  LDG\\.E"
                 ARGS report ${_stalls} -f csv)
limiter_cli_test(NAME report.stalls_json MATCH "^    \"dropped_samples\": 120,"
                 ARGS report ${_stalls} -f json)
limiter_cli_test(NAME report.stalls_html MATCH "<table class=\"hot-lines\">"
                 ARGS report ${_stalls} -f html)
limiter_cli_test(NAME export.stalls_sqlite MATCH "^limiter export: 6 launches of 5 kernels, 24000 PC samples of 5 kernels -> .*stalls\\.sqlite$"
                 ARGS export ${_stalls} -o ${CMAKE_CURRENT_BINARY_DIR}/stalls.sqlite)
limiter_cli_test(NAME messages.stalls_malformed EXIT 2
                 MATCH "^limiter: error: 'tests/data/malformed/stalls_negative_line\\.json': stalls\\.kernels\\[0\\]\\.hot_pcs\\[0\\]: \"line\" must be a whole number from 0 to 4294967295, not -3$"
                 ARGS report tests/data/malformed/stalls_negative_line.json)
limiter_cli_test(NAME report.stalls_per_launch MATCH "^  why it waits: Stall Barrier 74% of stalled samples; 12% issued; 6,000 samples$"
                 ARGS report ${_stalls} --launches)
# A record of samples alone (no launches), as `limiter run --stalls` writes it.
set(_stalls_only tests/data/stalls/synthetic_stalls_only_run.json)
limiter_cli_test(NAME report.stalls_only
                 MATCH "^  block_reduce \\(no launch in the record\\): Stall Barrier 74% of stalled samples"
                 ARGS report ${_stalls_only})
limiter_cli_test(NAME report.stalls_only_advice MATCH "^    - Warps wait on global or local memory \\(Stall Long Scoreboard, 86%"
                 ARGS report ${_stalls_only})
# What the database holds: its samples, not "0 launches of 0 kernels".
limiter_cli_test(NAME export.stalls_only_sqlite MATCH "^limiter export: 24000 PC samples of 5 kernels -> .*stalls_only\\.sqlite$"
                 ARGS export ${_stalls_only} -o ${CMAKE_CURRENT_BINARY_DIR}/stalls_only.sqlite)
