# The README and every docs page kept true (tests/cli/readme_test.py says what each check does
# and which commands it skips, and why): per page, its example commands run and their output
# compared, its links followed; where it has a section on the kernel suite, every count of the
# suite it states against `limiter kernels --list`; where it holds the table "Subcommands", that
# synopsis against --help.
# Pages are found when CMake configures (CONFIGURE_DEPENDS: a new page registers itself).
find_package(Python3 COMPONENTS Interpreter QUIET)
file(GLOB _limiter_doc_pages CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/*.md ${PROJECT_SOURCE_DIR}/docs/*/*.md)
foreach(_page ${_limiter_doc_pages})
  file(RELATIVE_PATH _relative ${PROJECT_SOURCE_DIR} ${_page})
  file(READ ${_page} _text)
  if(_relative STREQUAL "README.md")
    set(_prefix cli.readme)          # the names the README's tests always had
  else()
    string(REGEX REPLACE "\\.md$" "" _name "${_relative}")
    string(REPLACE "/" "." _name "${_name}")
    set(_prefix cli.${_name})        # cli.docs.guide.running.examples, ...
  endif()
  set(_checks links)
  if(_text MATCHES "```")
    list(APPEND _checks examples)
  endif()
  file(STRINGS ${_page} _suite_headings REGEX "^#+ .*[Kk]ernel suite")
  if(_suite_headings)               # a section on the kernel suite states its counts
    list(APPEND _checks counts)
  endif()
  if(_text MATCHES "\n## Subcommands\n")
    list(APPEND _checks synopsis)
  endif()
  foreach(_check ${_checks})
    if(Python3_Interpreter_FOUND)
      add_test(NAME ${_prefix}.${_check}
               COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/readme_test.py
                       --limiter $<TARGET_FILE:limiter> --repo ${PROJECT_SOURCE_DIR} --readme ${_page} ${_check}
               WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    else()
      # Reported as skipped, with the reason, rather than left out.
      add_test(NAME ${_prefix}.${_check}
               COMMAND sh -c "echo 'python3 not found: the docs test needs it (Debian package python3)'; exit 77")
    endif()
    set_tests_properties(${_prefix}.${_check} PROPERTIES LABELS "cli" SKIP_RETURN_CODE 77 TIMEOUT 120)
  endforeach()
endforeach()

# Nothing in the repository points outside it (tests/cli/no_outside_references.py).
if(Python3_Interpreter_FOUND)
  add_test(NAME cli.no_outside_references
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/no_outside_references.py --repo ${PROJECT_SOURCE_DIR}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(cli.no_outside_references PROPERTIES LABELS "cli" TIMEOUT 60)
endif()
