# Messages that name what the user typed: a missing argument by the usage's name, a
# record's field by its name in the file, a file that is neither a run record nor a CSV as such,
# conflicting options refused, an output's extension picking its format. Whole lines are matched
# (^...$) where no library text may follow.
set(_bad tests/data/malformed)
set(_probe tests/data/ncu/h200_probe_raw.csv)

# A missing positional argument is named as the usage names it, not as the hidden option
# (boost said "the option '--run' is required"); a missing option by its flag.
limiter_cli_test(NAME messages.report_no_run EXIT 2
                 MATCH "^limiter: error: no RUN given: limiter report RUN\\.\\.\\. \\[options\\] \\(RUN: a run record .*folder of a job's ranks\\)$"
                 ARGS report)
limiter_cli_test(NAME messages.analyze_no_input EXIT 2
                 MATCH "^limiter: error: no RAW_DIR\\|RUN given: limiter analyze RAW_DIR\\|RUN .*\\(RAW_DIR\\|RUN: a raw data folder"
                 ARGS analyze)
limiter_cli_test(NAME messages.export_no_run EXIT 2 MATCH "^limiter: error: no RUN given: limiter export RUN " ARGS export)
limiter_cli_test(NAME messages.import_no_file EXIT 2 MATCH "^limiter: error: no FILE given: limiter import --from ncu\\|csv FILE"
                 ARGS import --from ncu)
limiter_cli_test(NAME messages.compare_no_runs EXIT 2 MATCH "^limiter: error: name two runs, BEFORE and AFTER" ARGS compare)
limiter_cli_test(NAME messages.export_no_output EXIT 2
                 MATCH "^limiter: error: --output is required: limiter export RUN --format sqlite -o run.sqlite \\(see --help\\)$"
                 ARGS export ${_probe})
limiter_cli_test(NAME messages.argument_too_many EXIT 2 MATCH "^limiter: error: an argument too many: limiter metrics "
                 ARGS metrics GA100)

# A record's missing or mistyped field: which field, in which file (and line, in limiter's
# one-launch-per-line layout), in the user's words.
limiter_cli_test(NAME messages.record_no_device EXIT 2
                 MATCH "^limiter: error: '${_bad}/no_device.json': field \"device\" is missing$" ARGS report ${_bad}/no_device.json)
limiter_cli_test(NAME messages.record_no_launches EXIT 2
                 MATCH "^limiter: error: '${_bad}/no_launches.json': field \"launches\" is missing$"
                 ARGS report ${_bad}/no_launches.json)
limiter_cli_test(NAME messages.record_field_type EXIT 2
                 MATCH "^limiter: error: '${_bad}/sm_count_string.json': field \"device\\.sm_count\" must be a number, not a string \\(\"132\"\\)$"
                 ARGS report ${_bad}/sm_count_string.json)
limiter_cli_test(NAME messages.record_cache_control_value EXIT 2
                 MATCH "^limiter: error: '${_bad}/cache_control_unknown.json': field \"cache_control\" must be \"none\" or \"all\", not \"sometimes\"$"
                 ARGS report ${_bad}/cache_control_unknown.json)
limiter_cli_test(NAME messages.record_schema_version_type EXIT 2
                 MATCH "^limiter: error: '${_bad}/schema_version_string.json': field \"schema_version\" must be a number, not a string \\(\"1\"\\)$"
                 ARGS report ${_bad}/schema_version_string.json)
limiter_cli_test(NAME messages.launch_field_line EXIT 2
                 MATCH "^limiter: error: '${_bad}/sequence_string.json': launch 1: \"sequence\" must be a number \\(line 19\\)$"
                 ARGS report ${_bad}/sequence_string.json)
limiter_cli_test(NAME messages.compare_names_the_field EXIT 2
                 MATCH "^limiter: error: '${_bad}/no_device.json': field \"device\" is missing$"
                 ARGS compare ${_probe} ${_bad}/no_device.json)

# Neither a run record nor an Nsight Compute CSV, and why (not "does not look like an ncu CSV").
foreach(_case "empty.json;an empty file" "empty.json.gz;a compressed empty file" "binary.json;binary data, not JSON"
              "array.json;JSON, but an array: a run record is one JSON object")
  list(GET _case 0 _file)
  list(GET _case 1 _why)
  limiter_cli_test(NAME messages.neither_${_file} EXIT 2
                   MATCH "^limiter: error: '${_bad}/${_file}' is not a limiter run record \\(${_why}\\) and not an Nsight Compute CSV; "
                   ARGS report ${_bad}/${_file})
endforeach()
limiter_cli_test(NAME messages.neither_in_export EXIT 2 MATCH "'${_bad}/empty.json' is not a limiter run record \\(an empty file\\)"
                 ARGS export ${_bad}/empty.json -o ${CMAKE_CURRENT_BINARY_DIR}/neither.sqlite)
limiter_cli_test(NAME messages.neither_in_analyze EXIT 2 MATCH "'${_bad}/binary.json' is not a limiter run record \\(binary data"
                 ARGS analyze ${_bad}/binary.json)

# Conflicting options are refused, not one of them silently ignored.
limiter_cli_test(NAME messages.metrics_plan_and_metrics EXIT 2
                 MATCH "^limiter: error: --plan and --metrics cannot go together: --metrics replaces the plan$"
                 ARGS metrics --plan sol --metrics gpu__time_duration.sum)
limiter_cli_test(NAME messages.run_plan_and_metrics EXIT 2
                 MATCH "^limiter: error: --plan cannot be combined with --metrics: --metrics replaces the plan$"
                 ARGS run --plan sol --metrics gpu__time_duration.sum -- true)
limiter_cli_test(NAME messages.run_two_modes EXIT 2
                 MATCH "^limiter: error: --trace and --stalls each choose one mode; choose one, or none for the default run"
                 ARGS run --trace --stalls -- true)
limiter_cli_test(NAME messages.run_stall_window_with_a_mode EXIT 2
                 MATCH "^limiter: error: --every-launch cannot be combined with --stall-window: --stall-window bounds the default run's PC-sampling phase$"
                 ARGS run --every-launch --stall-window 200 -- true)

# An output's extension picks the format when --format is not given; an explicit --format wins,
# with a warning where another format's extension contradicts it.
function(limiter_output_test)
  cmake_parse_arguments(T "" "NAME;FILE;MATCH" "ARGS" ${ARGN})
  add_test(NAME cli.${T_NAME}
           COMMAND ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/writes_file.sh ${T_FILE} "${T_MATCH}" --
                   $<TARGET_FILE:limiter> ${T_ARGS}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli.${T_NAME} PROPERTIES LABELS "cli")
endfunction()
set(_out ${CMAKE_CURRENT_BINARY_DIR}/by_extension)
file(MAKE_DIRECTORY ${_out})
limiter_output_test(NAME output_format.report_html FILE ${_out}/r.html MATCH "^<!DOCTYPE html>" ARGS report ${_probe} -o ${_out}/r.html)
limiter_output_test(NAME output_format.report_md FILE ${_out}/r.md MATCH "^## limiter report" ARGS report ${_probe} -o ${_out}/r.md)
limiter_output_test(NAME output_format.report_csv FILE ${_out}/r.csv MATCH "^sequence,kernel," ARGS report ${_probe} -o ${_out}/r.csv)
limiter_output_test(NAME output_format.report_json FILE ${_out}/r.json MATCH "\"schema_version\": " ARGS report ${_probe} -o ${_out}/r.json)
limiter_output_test(NAME output_format.report_txt FILE ${_out}/r.txt MATCH "^limiter report — " ARGS report ${_probe} -o ${_out}/r.txt)
limiter_output_test(NAME output_format.report_format_wins FILE ${_out}/md.html MATCH "^## limiter report"
                    ARGS report ${_probe} -f md -o ${_out}/md.html)
limiter_cli_test(NAME output_format.report_contradiction_warns
                 MATCH "^limiter report: warning: writing md to '.*/md2\\.html' as --format md asks, though its extension names html$"
                 ARGS report ${_probe} --format md -o ${_out}/md2.html)
limiter_output_test(NAME output_format.compare_html FILE ${_out}/c.html MATCH "^<!DOCTYPE html>"
                    ARGS compare ${_probe} ${_probe} -o ${_out}/c.html)
limiter_output_test(NAME output_format.compare_json FILE ${_out}/c.json MATCH "\"kind\": \"limiter-compare\""
                    ARGS compare ${_probe} ${_probe} -o ${_out}/c.json)

# limiter kernels -o FILE without a GPU writes the committed recording it shows; never over it.
set(_recording tests/data/kernels/h200_kernels_run.json)
limiter_output_test(NAME kernels.no_gpu_writes_recording FILE ${_out}/kernels.json MATCH "\"kind\": \"limiter-run\""
                    ARGS kernels --only matmul --recording ${_recording} -o ${_out}/kernels.json)
limiter_cli_test(NAME kernels.no_gpu_says_written MATCH "^limiter kernels: the recording shown \\(from NVIDIA H200, not measured here\\) written to .*kernels2\\.json$"
                 ARGS kernels --only matmul --recording ${_recording} -o ${_out}/kernels2.json)
limiter_cli_test(NAME kernels.output_over_recording EXIT 2 MATCH "-o '${_recording}' is the input '${_recording}'"
                 ARGS kernels --recording ${_recording} -o ${_recording})
set_tests_properties(cli.kernels.no_gpu_writes_recording cli.kernels.no_gpu_says_written cli.kernels.output_over_recording
                     PROPERTIES ENVIRONMENT "CUDA_VISIBLE_DEVICES=")

# limiter metrics --chip X: every plan works on every chip, leaving out (and naming) what it lacks.
if(LIMITER_CUPTI_HOST)
  limiter_cli_test(NAME metrics.ga100_leaves_out MATCH "^sol: 3 metrics not on GA100, left out: sm__pipe_fmaheavy_cycles_active\\."
                   ARGS metrics --chip GA100)
  limiter_cli_test(NAME metrics.gb100_leaves_out MATCH "^sol: 3 metrics not on GB100, left out: sm__pipe_tensor_op_dmma_cycles_active\\."
                   ARGS metrics --chip GB100)
  limiter_cli_test(NAME metrics.plan_on_chip MATCH "^sol: 3 metrics not on GA100, left out: " ARGS metrics --chip GA100 --plan sol)
  add_test(NAME cli.metrics.every_chip COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/metrics_every_chip.sh $<TARGET_FILE:limiter>)
  set_tests_properties(cli.metrics.every_chip PROPERTIES LABELS "cli")
endif()
