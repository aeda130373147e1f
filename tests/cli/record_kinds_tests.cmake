# One committed record of each kind, and the ranks of each, in text and HTML: counters only (the
# PyTorch recording), timeline only (a --trace record), PC samples only (a --stalls record), and
# the ranks of each (tests/data/ranks/: counters, trace/, stalls/). What they check: names that
# tell kernels apart, -k on the printed names, the stall titles, the hint of a record without a
# timeline, ranks only when the rank fields say so, and the merged timelines and samples.
set(_counters tests/data/cupti/h200_pytorch_limiter.json)
set(_trace tests/data/trace/h100_pytorch_trace.json.gz)
set(_samples tests/data/ranks/stalls/h200_gemm_stalls_rank0.json)

# Names: a generic name carries its class; -k matches the printed name; a -k that selects nothing fails.
limiter_cli_test(NAME kinds.counters_generic_name MATCH "  Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>$"
                 ARGS report tests/data/ranks/h100_gloo_rank0.json.gz)
limiter_cli_test(NAME kinds.counters_k_printed_name MATCH "-k 'reduce_kernel<sum' selects 6 launches of 2 kernels"
                 ARGS report ${_counters} -k "reduce_kernel<sum")
limiter_cli_test(NAME kinds.counters_k_selects_nothing EXIT 2
                 MATCH "^limiter: error: -k 'reduce_kernel<summ' selects none of the 31 kernels of '.*'; closest: 'reduce_kernel<"
                 ARGS report ${_counters} -k "reduce_kernel<summ")
limiter_cli_test(NAME kinds.trace_k_selects_nothing EXIT 2 MATCH "selects none of the 31 kernels of .*; closest: 'max_pool_"
                 ARGS report ${_trace} -k max_pool_fwd)
limiter_cli_test(NAME kinds.samples_k_selects_nothing EXIT 2 MATCH "selects none of the 2 kernels .*; closest: 'device_kernel<GemmUniversal>'"
                 ARGS report ${_samples} -k device_kernel<Gemm_Universal)
limiter_cli_test(NAME kinds.samples_generic_name MATCH "^  device_kernel<GemmUniversal> \\(no launch in the record\\): Stall GMMA"
                 ARGS report ${_samples})
# Stalls: Hopper's wgmma waits have ncu's title and advice.
limiter_cli_test(NAME kinds.samples_gmma_advice MATCH "^    - Warps wait for their warpgroup's tensor-core MMA \\(wgmma\\) to complete \\(Stall GMMA, "
                 ARGS report ${_samples})
limiter_cli_test(NAME kinds.samples_gmma_html MATCH "Stall GMMA" ARGS report ${_samples} -f html)
# The hint of a record without a timeline, last, in every text-like format.
limiter_cli_test(NAME kinds.counters_hint_text MATCH "^hint: no timeline in this record, so no program verdict .*`limiter run --trace -- APP` records one$"
                 ARGS report ${_counters})
limiter_cli_test(NAME kinds.counters_hint_md MATCH "^> hint: no timeline in this record" ARGS report ${_counters} -f md)
limiter_cli_test(NAME kinds.counters_hint_html MATCH "<p class=\"note\">hint: no timeline in this record"
                 ARGS report ${_counters} -f html)
limiter_cli_test(NAME kinds.samples_hint_text MATCH "^hint: no timeline in this record" ARGS report ${_samples})
# The ranks of each kind.
limiter_cli_test(NAME kinds.ranks_counters MATCH "^limiter report — 2 ranks of a torchrun job \\(world size 2\\)"
                 ARGS report tests/data/ranks)
limiter_cli_test(NAME kinds.ranks_counters_hint MATCH "^hint: no timeline in these records" ARGS report tests/data/ranks)
limiter_cli_test(NAME kinds.ranks_counters_hint_html MATCH "<p class=\"note\">hint: no timeline" ARGS report tests/data/ranks -f html)
limiter_cli_test(NAME kinds.ranks_trace_kernel_time MATCH "^limiter report — 2 ranks of a torchrun job \\(world size 2\\) on 1 host, [1-9][0-9.]* ms of kernel time$"
                 ARGS report tests/data/ranks/trace)
limiter_cli_test(NAME kinds.ranks_trace_program MATCH "^  rank 1: sync-bound, GPU busy" ARGS report tests/data/ranks/trace)
limiter_cli_test(NAME kinds.ranks_trace_html MATCH "<li>rank 0: launch-bound, GPU busy" ARGS report tests/data/ranks/trace -f html)
limiter_cli_test(NAME kinds.ranks_samples MATCH "^  device_kernel<GemmUniversal> \\(2/2 ranks\\): Stall GMMA [0-9]+%"
                 ARGS report tests/data/ranks/stalls)
limiter_cli_test(NAME kinds.ranks_samples_html MATCH "<li>device_kernel&lt;GemmUniversal&gt; \\(2/2 ranks\\): Stall GMMA"
                 ARGS report tests/data/ranks/stalls -f html)
# The hot lines summed over the ranks: the job's hottest (the HGMMA) is not rank 0's (the wait).
limiter_cli_test(NAME kinds.ranks_samples_hot_line
                 MATCH "^    cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized\\.hpp:398  HGMMA\\.64x128x16\\.F32\\.BF16 R24, gdesc\\[UR4\\], R24, gsb0  40% \\(Stall GMMA\\)$"
                 ARGS report tests/data/ranks/stalls)
limiter_cli_test(NAME kinds.ranks_samples_hot_line_md MATCH "^  - `cutlass/epilogue/collective/default_epilogue\\.hpp:151  LDG"
                 ARGS report tests/data/ranks/stalls -f md)
limiter_cli_test(NAME kinds.ranks_samples_hot_line_html
                 MATCH "^<tr><td class=\"text\"><code>cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized\\.hpp:398</code>.*<td>40%</td>"
                 ARGS report tests/data/ranks/stalls -f html)
limiter_cli_test(NAME kinds.ranks_samples_hot_line_csv MATCH ",warpgroup_arrive,0\\.84[0-9]*,,,\"cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized\\.hpp:398  HGMMA"
                 ARGS report tests/data/ranks/stalls -f csv)
limiter_cli_test(NAME kinds.rank0_hot_line MATCH "^      cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized\\.hpp:412  WARPGROUP\\.DEPBAR\\.LE gsb0, 0x0  40% "
                 ARGS report ${_samples})
# Records of unrelated runs: records, not ranks; no shared GPU.
limiter_cli_test(NAME kinds.unrelated_records MATCH "^limiter report — 2 records on 1 host, "
                 ARGS report tests/data/trace)
limiter_cli_test(NAME kinds.unrelated_records_why MATCH "^WARNING: not the ranks of one job \\(2 records name no rank"
                 ARGS report tests/data/trace)
limiter_cli_test(NAME kinds.unrelated_records_html MATCH "<h2>Records</h2>" ARGS report tests/data/trace -f html)
add_test(NAME cli.kinds.unrelated_records_no_shared_gpu
         COMMAND sh -c "! \"$1\" report tests/data/trace tests/data/cupti/h200_pytorch_limiter.json | grep 'shared one GPU'" _ $<TARGET_FILE:limiter>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(cli.kinds.unrelated_records_no_shared_gpu PROPERTIES LABELS "cli")

# Small things: -o a folder; the timeline export's word for a record without one; an export
# whose extension names another format.
limiter_cli_test(NAME messages.output_is_a_folder EXIT 2 MATCH "^limiter: error: -o 'tests/data' is a folder: name a file in it, e.g. -o tests/data/FILE$"
                 ARGS report ${_counters} -o tests/data)
limiter_cli_test(NAME messages.export_output_is_a_folder EXIT 2 MATCH "-o 'tests/data' is a folder"
                 ARGS export ${_counters} -o tests/data)
limiter_cli_test(NAME messages.perfetto_without_timeline EXIT 2 MATCH "no timeline in this record.*`limiter run --trace -- APP` records one"
                 ARGS export ${_counters} -f perfetto -o ${CMAKE_CURRENT_BINARY_DIR}/no_timeline.json)
limiter_cli_test(NAME messages.sqlite_named_json MATCH "^limiter export: warning: writing SQLite to '.*x\\.json', whose extension does not match: name it \\.sqlite$"
                 ARGS export ${_counters} --format sqlite -o ${CMAKE_CURRENT_BINARY_DIR}/x.json)

# Every format of each kind of record, as a reader checks it (check_every_format.py): the header
# counts what the records hold, no section prints empty, the hint without a timeline, no two
# kernels named alike, a -k that selects nothing names the closest; the HTML as Chromium renders it.
set(_every_kind
    counters ${_counters}
    trace ${_trace}
    samples ${_samples}
    default_run tests/data/default_run/h200_mlp100_default.json.gz
    ranks_counters tests/data/ranks/h100_gloo_rank0.json.gz|tests/data/ranks/h100_gloo_rank1.json.gz
    ranks_trace tests/data/ranks/trace/h100_gloo_rank0_trace.json.gz|tests/data/ranks/trace/h100_gloo_rank1_trace.json.gz
    ranks_samples tests/data/ranks/stalls/h200_gemm_stalls_rank0.json|tests/data/ranks/stalls/h200_gemm_stalls_rank1.json)  # ranks: "|" between records
find_package(Python3 COMPONENTS Interpreter QUIET)
set(_python ${Python3_EXECUTABLE})
if(NOT Python3_Interpreter_FOUND)  # reported as skipped, with the reason
  set(_python sh -c "echo 'python3 not found: check_every_format.py needs it (Debian package python3)'; exit 77" _)
endif()
list(LENGTH _every_kind _count)
math(EXPR _last "${_count} - 1")
foreach(_index RANGE 0 ${_last} 2)
  math(EXPR _records_index "${_index} + 1")
  list(GET _every_kind ${_index} _kind)
  list(GET _every_kind ${_records_index} _records)
  string(REPLACE "|" ";" _records "${_records}")
  add_test(NAME cli.kinds.every_format.${_kind}
           COMMAND ${_python} ${CMAKE_CURRENT_SOURCE_DIR}/check_every_format.py $<TARGET_FILE:limiter> ${_records}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli.kinds.every_format.${_kind} PROPERTIES LABELS "cli" SKIP_RETURN_CODE 77 TIMEOUT 240)
  add_test(NAME html.kinds.${_kind}
           COMMAND ${_python} ${CMAKE_CURRENT_SOURCE_DIR}/check_every_format.py $<TARGET_FILE:limiter> --html-in-chromium ${_records}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(html.kinds.${_kind} PROPERTIES LABELS "html" SKIP_RETURN_CODE 77 TIMEOUT 240 RESOURCE_LOCK chromium)
endforeach()
# The export's line says what the database holds: a timeline alone is no "0 launches of 0 kernels".
limiter_cli_test(NAME kinds.trace_export_says_the_timeline MATCH "^limiter export: a timeline of 234 events -> .*trace_only\\.sqlite$"
                 ARGS export ${_trace} -o ${CMAKE_CURRENT_BINARY_DIR}/trace_only.sqlite)
