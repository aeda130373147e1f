# limiter import: the seed case study (plain legacy CSV), Nsight Compute exports, and the
# errors a user meets first. Outputs go to the build tree.
limiter_cli_test(NAME import_seed_csv
  MATCH "imported 1 launch of 1 kernel from tests/data/seed001_fermi_case_study.csv \\(plain CSV, legacy counters, sm_20, 16 SMs\\)"
  ARGS import --from csv tests/data/seed001_fermi_case_study.csv --arch sm_20 --sms 16
       -o ${CMAKE_BINARY_DIR}/import_seed001.json)
limiter_cli_test(NAME import_seed_csv_to_stdout
  MATCH "\"counter_model\": ?\"legacy\""
  ARGS import --from csv tests/data/seed001_fermi_case_study.csv --arch sm_20 --sms 16)
limiter_cli_test(NAME import_ncu_raw
  MATCH "imported 3 launches of 2 kernels .*perfworks counters, sm_90, 132 SMs"
  ARGS import --from ncu tests/data/ncu/synthetic_raw.csv -o ${CMAKE_BINARY_DIR}/import_synthetic_raw.json)
limiter_cli_test(NAME import_ncu_details_overrides_device
  MATCH "imported 7 launches of 6 kernels .*sm_90, 114 SMs"
  ARGS import --from ncu tests/data/ncu/h200_probe_details.csv --sms 114
       -o ${CMAKE_BINARY_DIR}/import_h200_probe_details.json)
limiter_cli_test(NAME import_missing_file EXIT 2
  MATCH "cannot open 'tests/data/no_such_export.csv': no such file"
  ARGS import --from ncu tests/data/no_such_export.csv -o ${CMAKE_BINARY_DIR}/import_missing.json)
limiter_cli_test(NAME import_csv_needs_arch EXIT 2
  MATCH "--from csv needs --arch:"
  ARGS import --from csv tests/data/seed001_fermi_case_study.csv --sms 16
       -o ${CMAKE_BINARY_DIR}/import_no_arch.json)
limiter_cli_test(NAME import_csv_needs_arch_and_sms EXIT 2
  MATCH "--from csv needs --arch and --sms"
  ARGS import --from csv tests/data/seed001_fermi_case_study.csv)
limiter_cli_test(NAME import_plain_csv_is_not_ncu EXIT 2
  MATCH "does not look like an Nsight Compute CSV.*--page raw"
  ARGS import --from ncu tests/data/seed001_fermi_case_study.csv -o ${CMAKE_BINARY_DIR}/import_not_ncu.json)
limiter_cli_test(NAME import_bad_from EXIT 2
  MATCH "--from must be 'ncu' or 'csv', not 'nvprof'"
  ARGS import --from nvprof tests/data/seed001_fermi_case_study.csv)
limiter_cli_test(NAME import_help MATCH "usage: limiter import --from ncu\\|csv FILE" ARGS import --help)
