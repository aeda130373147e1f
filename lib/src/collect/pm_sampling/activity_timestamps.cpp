// Kernel start/end from CUPTI's concurrent-kernel activity records (activity_timestamps.hpp).
#include "collect/pm_sampling/activity_timestamps.hpp"

#include <cstdlib>
#include <string>

#include "collect/cupti/cupti_check.hpp"
#include "collect/demangle.hpp"

namespace limiter::detail {

namespace {

// Small buffers complete often, so kernels reach the attributor while the app runs and the
// samples waiting for them stay few (memory stays flat). ~1,000 kernel records each.
constexpr std::size_t kBufferBytes = 256u << 10;

}  // namespace

ActivityTimestamps::ActivityTimestamps(ActivityBackend& backend, KernelSink sink)
    : backend_(backend), sink_(std::move(sink)) {
  if (!backend_.attach(*this, kBufferBytes))
    throw SystemError("one kernel-timestamp collector per process (one Collector in sampling mode at a time)");
  try {
    backend_.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  } catch (...) {
    backend_.detach(*this);
    throw;
  }
}

ActivityTimestamps::~ActivityTimestamps() {
  backend_.flush_all(true);
  backend_.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  backend_.detach(*this);
}

void ActivityTimestamps::flush(bool forced) {
  if (forced) forced_ = true;
  backend_.flush_all(forced);
}

void ActivityTimestamps::buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer,
                                          std::size_t valid) {
  CUpti_Activity* record = nullptr;
  while (backend_.next_record(buffer, valid, record)) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    if (k->end <= k->start) continue;  // no timestamps (a kernel that never ran)
    KernelSpan span;
    span.start_ns = k->start;
    span.end_ns = k->end;
    KernelLaunch& launch = span.launch;
    launch.sequence = k->correlationId;  // renumbered per aggregate by the attributor
    launch.mangled_name = k->name ? k->name : "";
    launch.name = demangle(k->name);
    launch.grid = Dim3{static_cast<std::uint32_t>(k->gridX), static_cast<std::uint32_t>(k->gridY),
                       static_cast<std::uint32_t>(k->gridZ)};
    launch.block = Dim3{static_cast<std::uint32_t>(k->blockX), static_cast<std::uint32_t>(k->blockY),
                        static_cast<std::uint32_t>(k->blockZ)};
    launch.registers_per_thread = k->registersPerThread;
    launch.static_shared_bytes = static_cast<std::uint64_t>(k->staticSharedMemory);
    launch.dynamic_shared_bytes = static_cast<std::uint64_t>(k->dynamicSharedMemory);
    launch.local_bytes_per_thread = k->localMemoryPerThread;
    launch.stream_id = k->streamId;
    launch.context_id = k->contextId;
    launch.device = static_cast<int>(k->deviceId);
    ++kernels_;
    if (sink_) sink_(std::move(span));
  }
  dropped_ += backend_.dropped_records(context, stream);
  if (!keeps_buffers()) std::free(buffer);  // else a few buffers of the final flush stay: see flush()
}

}  // namespace limiter::detail
