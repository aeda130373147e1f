# The program verdict and the timeline export, on the committed gloo ranks with
# synthetic timelines (tests/data/timeline/make_timeline_records.py): rank 0 launch-bound, rank 1
# sync-bound.
set(_timeline tests/data/timeline)
limiter_cli_test(NAME report.program_first
                 MATCH "^program: launch-bound: the GPU is busy 38\\.0% of the 10\\.7 ms window"
                 ARGS report ${_timeline}/h100_gloo_rank0_timeline.json.gz)
limiter_cli_test(NAME report.program_fix_first MATCH "1\\. program: launch-bound — 6\\.6 ms \\(62% of the window\\)"
                 ARGS report ${_timeline}/h100_gloo_rank0_timeline.json.gz)
limiter_cli_test(NAME report.program_sync_bound MATCH "^  - The host waits in synchronisations while the GPU is idle: 10\\.8 ms"
                 ARGS report ${_timeline}/h100_gloo_rank1_timeline.json.gz)
limiter_cli_test(NAME report.program_json MATCH "^    \"verdict\": \"launch\","
                 ARGS report ${_timeline}/h100_gloo_rank0_timeline.json.gz -f json)
limiter_cli_test(NAME report.program_md MATCH "### Program: sync-bound"
                 ARGS report ${_timeline}/h100_gloo_rank1_timeline.json.gz -f md)
limiter_cli_test(NAME report.program_html_first MATCH "<h2>Program: launch-bound</h2>"
                 ARGS report ${_timeline}/h100_gloo_rank0_timeline.json.gz -f html)
# A real --trace record, in a folder of its own (the folder above is exported whole)
# (H100, 2026-11-26, bench/pytorch_workload.py: 84 launches, their
# runtime calls, copies, memsets and synchronisations; the window opens before torch's import,
# and those 3.9 s are a pause, set aside).
limiter_cli_test(NAME report.program_real_trace
                 MATCH "^program: host-bound: the GPU is busy 0\\.3% of the 1\\.2 s window without its pauses.*Set aside: 1 pause of 3\\.9 s"
                 ARGS report tests/data/trace/h100_pytorch_trace.json.gz)
# A PyTorch MLP of 30 steps under --trace (H100, 2026-11-27, bench/workloads/mlp_training.py,
# STEPS=30): 5.6 s of host work between the weights' copies and the first kernel, set aside; the
# 0.54 s left is judged (it read host-bound at 99 % idle over the whole 6.1 s before).
limiter_cli_test(NAME report.program_pause_set_aside
                 MATCH "^program: host-bound: the GPU is busy 3\\.2% of the 537\\.1 ms window without its pauses"
                 ARGS report tests/data/trace/h100_mlp30_trace.json.gz)
limiter_cli_test(NAME report.program_pause_json MATCH "\"paused_ns\": 5592"
                 ARGS report tests/data/trace/h100_mlp30_trace.json.gz -f json)
limiter_cli_test(NAME export.perfetto_real_trace MATCH "234 events of 1 record"
                 ARGS export tests/data/trace/h100_pytorch_trace.json.gz -o ${CMAKE_CURRENT_BINARY_DIR}/pytorch_trace.json)
limiter_cli_test(NAME report.program_per_rank MATCH "^  rank 1: sync-bound, GPU busy 26\\.6% of 15\\.6 ms"
                 ARGS report ${_timeline})
limiter_cli_test(NAME export.perfetto MATCH "events of 2 records -> .*trace\\.json \\(open it in ui\\.perfetto\\.dev"
                 ARGS export ${_timeline} --format perfetto -o ${CMAKE_CURRENT_BINARY_DIR}/trace.json)
limiter_cli_test(NAME export.perfetto_by_extension MATCH "136 events of 1 record"
                 ARGS export ${_timeline}/h100_gloo_rank0_timeline.json.gz -o ${CMAKE_CURRENT_BINARY_DIR}/rank0_trace.json)
limiter_cli_test(NAME export.perfetto_needs_a_timeline EXIT 2
                 MATCH "no timeline in this record.*`limiter run --trace -- APP` records one"
                 ARGS export tests/data/ranks/h100_gloo_rank0.json.gz -f perfetto -o ${CMAKE_CURRENT_BINARY_DIR}/none.json)
limiter_cli_test(NAME export.sqlite_one_record EXIT 2 MATCH "one record; several only with --format perfetto"
                 ARGS export ${_timeline}/h100_gloo_rank0_timeline.json.gz ${_timeline}/h100_gloo_rank1_timeline.json.gz
                      -o ${CMAKE_CURRENT_BINARY_DIR}/two.sqlite)
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  add_test(NAME cli.export.perfetto_format
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_chrome_trace.py $<TARGET_FILE:limiter>
                   ${CMAKE_CURRENT_BINARY_DIR}/checked_trace.json ${_timeline}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli.export.perfetto_format PROPERTIES LABELS "cli")
endif()
