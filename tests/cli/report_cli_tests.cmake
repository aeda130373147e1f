# limiter report: formats, thresholds and bad input.
set(_probe tests/data/ncu/h200_probe_raw.csv)
limiter_cli_test(NAME report.text MATCH "^6 +1\\.6 ms +44% +bandwidth .* spill_pressure$" ARGS report ${_probe})
limiter_cli_test(NAME report.json_verdict MATCH "\"verdict\": \"instruction\"" ARGS report ${_probe} --format json)
limiter_cli_test(NAME report.json_schema MATCH "\"schema_version\": 2" ARGS report ${_probe} -f json)
limiter_cli_test(NAME report.ncu_agrees MATCH "ncu SOL: SM 97\\.8%, memory 0\\.1% -> instruction \\(agrees\\)" ARGS report ${_probe})
# Raising the latency threshold to 70 % turns the 68 %-L2 local-array kernel into a latency verdict.
limiter_cli_test(NAME report.thresholds MATCH "^5 +822\\.0 us +24% +latency .* local_array_2k$" ARGS report ${_probe} --latency 70)
limiter_cli_test(NAME report.calibrated MATCH "peaks: calibrated" ARGS report ${_probe} --peaks calibrated)
limiter_cli_test(NAME report.missing_file EXIT 2 MATCH "cannot open 'no/such/run.json'" ARGS report no/such/run.json)
limiter_cli_test(NAME report.bad_format EXIT 2 MATCH "unknown --format 'pdf'" ARGS report ${_probe} --format pdf)
limiter_cli_test(NAME report.bad_thresholds EXIT 2 MATCH "thresholds must satisfy" ARGS report ${_probe} --latency 90)
limiter_cli_test(NAME report.bad_peaks EXIT 2 MATCH "unknown peak kind 'guessed'" ARGS report ${_probe} --peaks guessed)
limiter_cli_test(NAME report.not_a_run EXIT 2 MATCH "not a limiter run record" ARGS report tests/data/golden/h200_probe_report.json)
limiter_cli_test(NAME report.truncated_run EXIT 2 MATCH "not valid JSON \\(truncated or corrupt\\?\\)"
                 ARGS report tests/data/truncated_run.json)
limiter_cli_test(NAME report.help MATCH "--peaks arg \\(=theoretical\\)" ARGS report --help)
# A real PyTorch recording: grouped by kernel, names a person recognises, -k, --top, --launches.
set(_pytorch tests/data/cupti/h200_pytorch_limiter.json)
limiter_cli_test(NAME report.pytorch_grouped MATCH "launches +mean.*\n.* vectorized_elementwise_kernel<FillFunctor<float>>"
                 ARGS report ${_pytorch})
limiter_cli_test(NAME report.kernel_regex MATCH "-k 'reduce_kernel' selects 12 launches of 4 kernels"
                 ARGS report ${_pytorch} -k reduce_kernel)
limiter_cli_test(NAME report.top MATCH "top 3 of [0-9]+; --top N for more" ARGS report ${_pytorch} --top 3)
limiter_cli_test(NAME report.launches MATCH "launches by time \\(top 5 of 84\\)" ARGS report ${_pytorch} --launches --top 5)
limiter_cli_test(NAME report.names_mangled MATCH " _ZN2at6native" ARGS report ${_pytorch} --names mangled)
limiter_cli_test(NAME report.bad_names EXIT 2 MATCH "unknown --names 'long'" ARGS report ${_probe} --names long)
limiter_cli_test(NAME report.bad_regex EXIT 2 MATCH "-k '\\(' is not a valid regular expression" ARGS report ${_probe} -k "(")
# limiter export: an SQLite database (read back in the unit tests and, when Python is there, here).
limiter_cli_test(NAME export.sqlite MATCH "84 launches of 31 kernels -> .*pytorch.sqlite"
                 ARGS export ${_pytorch} -o ${CMAKE_CURRENT_BINARY_DIR}/pytorch.sqlite)
limiter_cli_test(NAME export.bad_format EXIT 2 MATCH "unknown --format 'parquet' for export" ARGS export ${_pytorch} -f parquet -o x)
# Which caches the counters saw (limiter run --cache-control), in every header: the probe run with
# the field added by hand (tests/data/cache_control/README.md).
set(_cache_all tests/data/cache_control/h200_probe_marked_all.json)
set(_cache_none tests/data/cache_control/h200_probe_marked_none.json)
limiter_cli_test(NAME report.cache_control_text
                 MATCH "^caches: L2 flushed before each launch \\(--cache-control all, as ncu's default\\)$"
                 ARGS report ${_cache_all})
limiter_cli_test(NAME report.cache_control_md MATCH "\\. Caches: the app's own \\(--cache-control none\\)\\. 7 launches"
                 ARGS report ${_cache_none} --format md)
limiter_cli_test(NAME report.cache_control_html MATCH "<br>caches: L2 flushed before each launch \\(--cache-control all"
                 ARGS report ${_cache_all} --format html)
limiter_cli_test(NAME report.cache_control_json MATCH "^  \"cache_control\": \"all\",$" ARGS report ${_cache_all} --format json)
limiter_cli_test(NAME export.sqlite_cache_control MATCH "7 launches of 6 kernels -> "
                 ARGS export ${_cache_all} -o ${CMAKE_CURRENT_BINARY_DIR}/cache_all.sqlite)
