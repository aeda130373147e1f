# bench/'s driver and summariser, no GPU needed (label `unit`; included by tests/CMakeLists.txt):
# the summary of the committed fixture folder, the driver's dry run, and the driver run for real
# on stand-ins of limiter, the launch-overhead app and ncu, and bench/timeline_vs_torch.py's JAX side
# on a hand-written jax.profiler trace (bench/tests/run_tests.sh says how).
# bench.stalls_vs_ncu: bench/stalls_vs_ncu.py on its fixture, and bench/run.sh stalls-vs-ncu --dry-run.
# bench.workflows: bench/run.sh --dry-run of every workflow of bench/workflows/ and of the suites.
# bench.agreement: bench/budget_agreement.py and bench/default_agreement.py on hand-written reports.
find_package(Python3 COMPONENTS Interpreter QUIET)
foreach(_check summary dry-run fake-run workflows timeline-jax stalls-vs-ncu agreement)
  string(REPLACE "-" "_" _name ${_check})
  if(Python3_Interpreter_FOUND)
    add_test(NAME bench.${_name} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_tests.sh ${_check})
  else()
    add_test(NAME bench.${_name}
             COMMAND sh -c "echo 'python3 not found: bench/summarise.py needs it (Debian package python3)'; exit 77")
  endif()
  set_tests_properties(bench.${_name} PROPERTIES LABELS "unit" SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()
