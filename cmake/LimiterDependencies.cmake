# Dependencies come from Debian packages (Boost, nlohmann-json, GoogleTest) and the CUDA
# toolkit. Boost and GoogleTest are linked statically, and libstdc++ too, so the binaries
# built here also run on the GPU machine, which has no package registry.
set(_limiter_apt "run scripts/install-deps.sh (apt-get install libboost-program-options-dev nlohmann-json3-dev libsimdjson-dev zlib1g-dev libsqlite3-dev; for the tests scripts/install-deps.sh --tests adds libgtest-dev)")

set(Boost_USE_STATIC_LIBS ON)
find_package(Boost 1.74 QUIET COMPONENTS program_options)
if(NOT Boost_FOUND)
  message(FATAL_ERROR "Boost.Program_options not found: ${_limiter_apt}")
endif()

find_package(nlohmann_json 3.10 QUIET)
if(NOT nlohmann_json_FOUND)
  message(FATAL_ERROR "nlohmann-json not found: ${_limiter_apt}")
endif()

# simdjson reads records a launch per line, ~15x faster than nlohmann-json's lexer
# (bench/results/2026-11-23-report-scale.md). Debian ships it only as a shared library (200 kB,
# libc and libstdc++ only): scripts/stage-device.sh carries it to the GPU machine, found there
# through the binaries' $ORIGIN/../lib run path.
find_package(simdjson QUIET)
if(NOT simdjson_FOUND)
  message(FATAL_ERROR "simdjson not found: ${_limiter_apt}")
endif()

# zlib (compressed records, run.json.gz; libz.so.1 is on every machine) and SQLite (limiter
# export; Debian's static library, so the GPU machine needs no libsqlite3).
find_path(LIMITER_ZLIB_INCLUDE_DIR zlib.h)
find_library(LIMITER_ZLIB_LIBRARY NAMES z)  # libz.so.1 is on every machine
find_path(LIMITER_SQLITE3_INCLUDE_DIR sqlite3.h)
find_library(LIMITER_SQLITE3_LIBRARY NAMES libsqlite3.a sqlite3)
if(NOT LIMITER_ZLIB_INCLUDE_DIR OR NOT LIMITER_ZLIB_LIBRARY OR NOT LIMITER_SQLITE3_INCLUDE_DIR OR NOT LIMITER_SQLITE3_LIBRARY)
  message(FATAL_ERROR "zlib or SQLite not found: ${_limiter_apt}")
endif()
find_package(Threads REQUIRED)
add_library(limiter_zlib INTERFACE)
target_include_directories(limiter_zlib INTERFACE ${LIMITER_ZLIB_INCLUDE_DIR})
target_link_libraries(limiter_zlib INTERFACE ${LIMITER_ZLIB_LIBRARY})
add_library(limiter_sqlite3 INTERFACE)
target_include_directories(limiter_sqlite3 INTERFACE ${LIMITER_SQLITE3_INCLUDE_DIR})
target_link_libraries(limiter_sqlite3 INTERFACE ${LIMITER_SQLITE3_LIBRARY} Threads::Threads ${CMAKE_DL_LIBS} m)

if(LIMITER_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    message(FATAL_ERROR "GoogleTest not found: ${_limiter_apt}, or pass -DLIMITER_BUILD_TESTS=OFF")
  endif()
endif()

if(LIMITER_WITH_CUDA)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  find_package(CUDAToolkit 12.0 QUIET)
  if(NOT CUDAToolkit_FOUND OR NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "CUDA toolkit not found. Install CUDA 13 at /usr/local/cuda (or set "
                        "CUDAToolkit_ROOT), or configure with -DLIMITER_WITH_CUDA=OFF to build "
                        "only the host side (analysis, import, reports).")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES ${LIMITER_CUDA_ARCHITECTURES})
  enable_language(CUDA)
  string(APPEND CMAKE_CUDA_FLAGS " -std=c++20")
  if(NOT TARGET CUDA::cupti)
    message(FATAL_ERROR "CUPTI not found under ${CUDAToolkit_LIBRARY_ROOT}: install the toolkit's "
                        "CUPTI component (cuda-cupti-13-0) or set CUDAToolkit_ROOT.")
  endif()
endif()

# The CUPTI host API alone: the toolkit's libraries, no CUDA language (no nvcc, no kernels).
set(LIMITER_CUPTI_HOST ${LIMITER_WITH_CUDA})
if(LIMITER_WITH_CUPTI AND NOT LIMITER_WITH_CUDA)
  find_package(CUDAToolkit 12.0 QUIET)
  if(NOT TARGET CUDA::cupti)
    message(FATAL_ERROR "LIMITER_WITH_CUPTI: CUPTI not found; install CUDA 13 at /usr/local/cuda or turn it off.")
  endif()
  set(LIMITER_CUPTI_HOST ON)
endif()

# Binaries must run on a machine without Debian's libstdc++ of this version.
add_library(limiter_static_runtime INTERFACE)
target_link_options(limiter_static_runtime INTERFACE -static-libstdc++ -static-libgcc)
