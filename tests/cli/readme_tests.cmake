# The README kept true: its example commands and their output, its synopsis of every
# subcommand against --help, and its counts of the kernel suite against `limiter kernels --list`
# (tests/cli/readme_test.py says what each checks and which commands it skips, and why).
find_package(Python3 COMPONENTS Interpreter QUIET)
foreach(_check examples synopsis counts)
  if(Python3_Interpreter_FOUND)
    add_test(NAME cli.readme.${_check}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/readme_test.py
                     --limiter $<TARGET_FILE:limiter> --repo ${PROJECT_SOURCE_DIR} ${_check}
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  else()
    # Reported as skipped, with the reason, rather than left out.
    add_test(NAME cli.readme.${_check}
             COMMAND sh -c "echo 'python3 not found: the README test needs it (Debian package python3)'; exit 77")
  endif()
  set_tests_properties(cli.readme.${_check} PROPERTIES LABELS "cli" SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()
