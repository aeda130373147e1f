# cmake --install: the limiter executable, liblimiter_inject.so beside it in lib/ (limiter run
# looks for it in <prefix>/bin/../lib), the public headers, and the libraries as a CMake package:
# find_package(limiter) gives limiter::core (records, analysis), limiter::reports and, with CUDA,
# limiter::collect (the in-process Collector). examples/find_package shows a consumer.
# Sanitized builds (presets asan, fuzz) are for tests only: nothing to install.
if(LIMITER_SANITIZE)
  return()
endif()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS limiter RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET limiter_inject)
  install(TARGETS limiter_inject LIBRARY DESTINATION lib)
endif()
install(DIRECTORY lib/include/limiter reports/include/limiter DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# The package's names are the build's aliases (limiter::core, ...). The INTERFACE helpers travel
# because the static libraries name them as link-only dependencies.
set_target_properties(limiter_core PROPERTIES EXPORT_NAME core)
set_target_properties(limiter_reports PROPERTIES EXPORT_NAME reports)
set(_limiter_exported limiter_core limiter_reports limiter_zlib limiter_sqlite3 limiter_warnings
    limiter_static_runtime)
if(TARGET limiter_cupti_host)
  set_target_properties(limiter_cupti_host PROPERTIES EXPORT_NAME cupti_host)
  list(APPEND _limiter_exported limiter_cupti_host limiter_sanitizer_dlopen)
endif()
if(TARGET limiter_collect)
  set_target_properties(limiter_collect PROPERTIES EXPORT_NAME collect)
  set_target_properties(limiter_range_session PROPERTIES EXPORT_NAME range_session)
  list(APPEND _limiter_exported limiter_collect limiter_range_session)
endif()
install(TARGETS ${_limiter_exported} EXPORT limiterTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
set(_limiter_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/limiter)
install(EXPORT limiterTargets NAMESPACE limiter:: DESTINATION ${_limiter_cmake_dir})
set(LIMITER_PACKAGE_HAS_CUPTI ${LIMITER_CUPTI_HOST})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/limiterConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/limiterConfig.cmake INSTALL_DESTINATION ${_limiter_cmake_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/limiterConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/limiterConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/limiterConfigVersion.cmake
        DESTINATION ${_limiter_cmake_dir})
