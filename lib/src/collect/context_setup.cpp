// Setting up a context for profiling, at its first selected launch: the device as the record
// describes it, the config image for the plan, and the first turn on the GPU's counters.
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include "collect/collector_impl.hpp"
#include "collect/cupti_check.hpp"
#include "collect/device_description.hpp"
#include "collect/driver_api.hpp"
#include "collect/sampling_mode.hpp"
#include "limiter/error.hpp"

namespace limiter {

using detail::Clock;
using detail::driver_api;
using detail::ProfilerHost;

// The context's profiler, set up at its first use; nullptr while it cannot be profiled (the
// LAUNCHES are then counted as missed, with the reason).
Collector::Impl::ContextProfiler* Collector::Impl::context_profiler(CUcontext context, std::size_t launches) {
  if (auto failed = failed_contexts.find(context); failed != failed_contexts.end()) {
    if (Clock::now() < failed->second.retry_at) {
      miss(failed->second.reason, launches, failed->second.detail);
      return nullptr;
    }
    failed_contexts.erase(failed);
  }
  auto& slot = contexts[context];
  if (!slot) {
    slot = std::make_unique<ContextProfiler>();
    slot->context = context;
    try {
      set_up(*slot);
    } catch (const std::exception& e) {
      // Reported once; a busy GPU is tried again later, anything else never: the app runs on unprofiled.
      detail::FailedContext failed;
      failed.detail = e.what();
      const auto* cupti = dynamic_cast<const detail::CuptiError*>(&e);
      if (cupti && cupti->status == CUPTI_ERROR_HARDWARE_BUSY) {
        failed.reason = detail::MissReason::counters_busy;
        failed.detail.clear();
        failed.retry_at = Clock::now() + detail::kBusyRetry;
      } else {
        std::fprintf(stderr, "limiter: profiling disabled in this context: %s\n", e.what());
      }
      slot->paused = true;
      end_turn(*slot);
      contexts.erase(context);
      miss(failed.reason, launches, failed.detail);
      failed_contexts[context] = std::move(failed);
      return nullptr;
    }
  }
  return slot.get();
}

void Collector::Impl::set_up(ContextProfiler& p) {
  LIMITER_TRACE("set up context %p", static_cast<void*>(p.context));
  p.paused = true;  // until the launch starts it (resume)
  const auto& cu = driver_api();
  if (cu.ctx_get_device(&p.device) != CUDA_SUCCESS) throw SystemError("cuCtxGetDevice failed in a launch callback");
  p.device_uuid = detail::device_uuid_text(p.device);
  // The counters' turn before any profiler call: while another process profiles, even the
  // availability query can meet CUPTI_ERROR_HARDWARE_BUSY. Kept for the launch that follows.
  const bool turn = take_turn(p, 0);
  // Not in the constructor: inside InitializeInjection the driver is still initialising, and
  // cuptiProfilerInitialize fails there with CUPTI_ERROR_UNKNOWN (seen on an H200).
  static const bool profiler_initialized = [] {
    CUpti_Profiler_Initialize_Params initialize{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    LIMITER_CUPTI_CHECK(cuptiProfilerInitialize(&initialize));
    return true;
  }();
  (void)profiler_initialized;

  CUpti_Profiler_DeviceSupported_Params supported{CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
  supported.cuDevice = p.device;
  supported.api = CUPTI_PROFILER_RANGE_PROFILING;
  LIMITER_CUPTI_CHECK(cuptiProfilerDeviceSupported(&supported));
  if (supported.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
    std::string why;
    if (supported.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " the architecture (needs Volta or newer);";
    if (supported.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " vGPU without profiling enabled;";
    if (supported.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " confidential computing;";
    if (supported.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " a CMP device;";
    if (supported.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " SLI;";
    if (supported.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " WSL;";
    throw SystemError("this GPU cannot be profiled with the range profiler because of" + why +
                      " run on a supported, non-virtualised GPU");
  }

  p.description = detail::describe_device(p.device);  // as the record describes it
  last_device = p.description;

  // The availability image lets the host API refuse counters this device cannot give (MIG,
  // vGPU); evaluation does not need it (CUPTI.md §6). Best effort: it has been seen to fail
  // with CUPTI_ERROR_HARDWARE_BUSY inside a launch callback, and profiling works without it.
  CUpti_Profiler_GetCounterAvailability_Params availability{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  availability.ctx = p.context;
  if (turn && cuptiProfilerGetCounterAvailability(&availability) == CUPTI_SUCCESS) {
    p.availability.resize(availability.counterAvailabilityImageSize);
    availability.pCounterAvailabilityImage = p.availability.data();
    if (const CUptiResult status = cuptiProfilerGetCounterAvailability(&availability); status != CUPTI_SUCCESS) {
      LIMITER_TRACE("no counter availability image: %s", detail::cupti_error_text(status).c_str());
      p.availability.clear();
    }
  }

  LIMITER_TRACE("device %s chip %s, availability %zu bytes", p.description.name.c_str(), p.description.chip.c_str(),
                p.availability.size());
  p.host = std::make_unique<ProfilerHost>(p.description.chip, p.availability);
  p.config = p.host->config_image(metrics);
  p.passes = ProfilerHost::pass_count(p.config);

  p.ranges_per_image = options.ranges_per_image ? options.ranges_per_image : detail::kDefaultRangesPerImage;
  // Started by the launch (resume): that is where a turn that does not come is counted.
  p.user_replay = wants_user_replay(p);
  if (!raw_dir.empty()) {
    detail::write_raw_context(raw_dir, p.description, metrics, p.passes, p.user_replay ? "user" : "kernel",
                              p.availability, p.config);
  }
  if (sink.on_device) sink.on_device(p.description);
  // --sampling after budgets: the sampler's host side is prepared while the exact phase runs.
  if (sampling_after_budgets && !sampling_first) sampling_after_budgets->prepare_ahead(static_cast<int>(p.device), p.description.chip);
}

}  // namespace limiter
