#pragma once
// What every GPU test binary (label `gpu`) starts with: a backtrace on a crash, and a skip with
// the reason on a machine without a GPU (scripts/device-test.sh runs them on one).
#include <cuda_runtime.h>
#include <execinfo.h>
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <string>

namespace limiter::gpu_test {

// A crash in a CUPTI callback or a collector thread is otherwise silent: print where it happened.
[[maybe_unused]] inline const bool crash_handler_installed = [] {
  std::signal(SIGSEGV, [](int) {
    void* frames[64];
    const int count = backtrace(frames, 64);
    backtrace_symbols_fd(frames, count, 2);
    std::_Exit(139);
  });
  return true;
}();

// A binary's build path, unless the environment says where it went (device-test.sh stages them).
inline std::string from_env(const char* name, const char* built) {
  const char* path = std::getenv(name);
  return path ? path : built;
}

inline bool have_gpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace limiter::gpu_test

#define REQUIRE_GPU()                 \
  if (!limiter::gpu_test::have_gpu()) \
  GTEST_SKIP() << "no CUDA device visible (runs on the GPU machine: scripts/device-test.sh)"
