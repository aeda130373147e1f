#pragma once
// Checks for CUDA runtime calls: a failure throws limiter::SystemError naming the call, the
// place and the CUDA error. The _NOTHROW variant is for destructors: it reports and goes on.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "limiter/error.hpp"

namespace limiter::kernels::detail {

inline std::string cuda_error_text(cudaError_t status, const char* call, const char* file, int line) {
  return std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " + cudaGetErrorName(status) + " (" +
         cudaGetErrorString(status) + ")";
}

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw SystemError(cuda_error_text(status, call, file, line));
}

inline void check_cuda_nothrow(cudaError_t status, const char* call, const char* file, int line) noexcept {
  if (status != cudaSuccess) std::fprintf(stderr, "limiter: %s\n", cuda_error_text(status, call, file, line).c_str());
}

}  // namespace limiter::kernels::detail

#define LIMITER_CUDA_CHECK(call) ::limiter::kernels::detail::check_cuda((call), #call, __FILE__, __LINE__)
#define LIMITER_CUDA_CHECK_NOTHROW(call) \
  ::limiter::kernels::detail::check_cuda_nothrow((call), #call, __FILE__, __LINE__)
// After a <<<...>>> launch: configuration errors surface here, not at the launch.
#define LIMITER_CUDA_CHECK_LAUNCH() LIMITER_CUDA_CHECK(cudaGetLastError())
