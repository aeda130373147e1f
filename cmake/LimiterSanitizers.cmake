# LIMITER_SANITIZE (e.g. "address,undefined") instruments every target; LIMITER_FUZZ adds
# libFuzzer's coverage instrumentation (clang only). UB aborts instead of printing and going on,
# so a test or a fuzz run fails on it.
if(LIMITER_FUZZ AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "LIMITER_FUZZ needs clang (-fsanitize=fuzzer): configure with the fuzz preset")
endif()
# Build type Sanitize (presets asan, fuzz): -O1 and line tables only, for stack traces; a
# RelWithDebInfo sanitizer build takes 3x as long on the 2-core CI machine.
set(CMAKE_CXX_FLAGS_SANITIZE "-O1 -g1" CACHE STRING "Flags of the Sanitize build type")
if(LIMITER_SANITIZE)
  add_compile_options(-fsanitize=${LIMITER_SANITIZE} -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${LIMITER_SANITIZE} -fno-sanitize-recover=undefined)
endif()
if(LIMITER_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
if(LIMITER_SANITIZE OR LIMITER_FUZZ)
  # The sanitizer runtimes replace malloc and operator new: link libstdc++ as usual.
  set_target_properties(limiter_static_runtime PROPERTIES INTERFACE_LINK_OPTIONS "")
endif()
# Consumers of the CUPTI host API get the dlopen shim (cmake/sanitizers/) compiled in: it must
# be in the executable to take the place of ASan's dlopen.
add_library(limiter_sanitizer_dlopen INTERFACE)
if(LIMITER_SANITIZE MATCHES "address")
  target_sources(limiter_sanitizer_dlopen INTERFACE ${CMAKE_CURRENT_LIST_DIR}/sanitizers/dlopen_without_deepbind.cpp)
endif()
