# limiter report: formats, thresholds and bad input.
set(_probe tests/data/ncu/h200_probe_raw.csv)
limiter_cli_test(NAME report.text MATCH "spill_pressure +1\\.6 ms +44% +bandwidth" ARGS report ${_probe})
limiter_cli_test(NAME report.json_verdict MATCH "\"verdict\": \"instruction\"" ARGS report ${_probe} --format json)
limiter_cli_test(NAME report.json_schema MATCH "\"schema_version\": 1" ARGS report ${_probe} -f json)
limiter_cli_test(NAME report.ncu_agrees MATCH "ncu SOL: SM 97\\.8%, memory 0\\.1% -> instruction \\(agrees\\)" ARGS report ${_probe})
# Raising the latency threshold to 70 % turns the 68 %-L2 local-array kernel into a latency verdict.
limiter_cli_test(NAME report.thresholds MATCH "local_array_2k +822\\.0 us +24% +latency" ARGS report ${_probe} --latency 70)
limiter_cli_test(NAME report.calibrated MATCH "peaks: calibrated" ARGS report ${_probe} --peaks calibrated)
limiter_cli_test(NAME report.missing_file EXIT 2 MATCH "cannot open 'no/such/run.json'" ARGS report no/such/run.json)
limiter_cli_test(NAME report.bad_format EXIT 2 MATCH "unknown --format 'pdf'" ARGS report ${_probe} --format pdf)
limiter_cli_test(NAME report.bad_thresholds EXIT 2 MATCH "thresholds must satisfy" ARGS report ${_probe} --latency 90)
limiter_cli_test(NAME report.bad_peaks EXIT 2 MATCH "unknown peak kind 'guessed'" ARGS report ${_probe} --peaks guessed)
limiter_cli_test(NAME report.not_a_run EXIT 2 MATCH "not a limiter run record" ARGS report tests/data/golden/h200_probe_report.json)
limiter_cli_test(NAME report.truncated_run EXIT 2 MATCH "not valid JSON \\(truncated or corrupt\\?\\)"
                 ARGS report tests/data/truncated_run.json)
limiter_cli_test(NAME report.help MATCH "--peaks arg \\(=theoretical\\)" ARGS report --help)
