#include "collect/cupti/cupti_check.hpp"

#include "limiter/error.hpp"

namespace limiter::detail {
namespace {

// What to do about the failures users meet (CUPTI's documentation).
const char* fix_for(CUptiResult status) {
  switch (status) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      return "performance counters are restricted to admin users (ERR_NVGPUCTRPERM): run as root or with "
             "CAP_SYS_ADMIN (CAP_PERFMON from driver R565), or load the driver with "
             "`options nvidia NVreg_RestrictProfilingToAdminUsers=0` (check `grep RmProfilingAdminOnly "
             "/proc/driver/nvidia/params`); containers need --cap-add=SYS_ADMIN";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return "another profiler already holds CUPTI (Nsight Systems, Nsight Compute, compute-sanitizer, "
             "cuda-gdb or a second limiter): run without it";
    case CUPTI_ERROR_HARDWARE_BUSY:
      return "another tool collects this GPU's counters (Nsight Compute, Nsight Systems --gpu-metrics, DCGM "
             "profiling, another CUPTI profiler, or another limiter process's PC-sampling window): stop it, or "
             "profile when it is done; limiter's processes take turns on the exact counters only";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "counters are not available on this virtual GPU unless the hypervisor allows profiling";
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
      return "CMP devices cannot be profiled";
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      return "profile on a full GPU or an isolated MIG compute instance (shared units report nothing)";
    case CUPTI_ERROR_INVALID_METRIC_NAME:
      return "a metric name is unknown to this GPU: `limiter metrics --chip <chip>` lists the plans";
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_INVALID_DEVICE:
      return "no usable GPU or driver: check `nvidia-smi` and CUDA_VISIBLE_DEVICES";
    default:
      return nullptr;
  }
}

}  // namespace

std::string cupti_error_text(CUptiResult status) {
  const char* text = nullptr;
  cuptiGetResultString(status, &text);
  return text ? text : "unknown CUPTI error";
}

void throw_cupti_error(CUptiResult status, const char* call) {
  std::string message = std::string(call) + " failed: " + cupti_error_text(status) + " (" +
                        std::to_string(static_cast<int>(status)) + ")";
  if (const char* fix = fix_for(status)) message += ": " + std::string(fix);
  throw CuptiError(message, status);
}

}  // namespace limiter::detail
