# Outputs never destroy inputs (cli/output_guard.cpp): an output that is one of the command's
# inputs (same path, a symlink, "./", a record of a folder of ranks) exits 2 and keeps every byte.
foreach(_command report import export compare analyze)
  add_test(NAME cli.output_over_input.${_command}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/output_over_input.sh $<TARGET_FILE:limiter> ${_command}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli.output_over_input.${_command} PROPERTIES LABELS "cli")
endforeach()
