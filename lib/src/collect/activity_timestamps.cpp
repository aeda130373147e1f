// Kernel start/end from CUPTI's concurrent-kernel activity records (activity_timestamps.hpp).
#include "collect/activity_timestamps.hpp"

#include <cupti.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "collect/cupti_check.hpp"
#include "collect/demangle.hpp"

namespace limiter::detail {

namespace {

// Small buffers complete often, so kernels reach the attributor while the app runs and the
// samples waiting for them stay few (memory stays flat). ~1,000 kernel records each.
constexpr std::size_t kBufferBytes = 256u << 10;

ActivityTimestamps* active = nullptr;  // CUPTI's callbacks carry no user pointer
std::mutex active_mutex;

void CUPTIAPI on_buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  ActivityTimestamps::request_buffer(buffer, size, max_records);
}

void CUPTIAPI on_buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                                  std::size_t valid) {
  bool release = true;
  {
    std::lock_guard lock(active_mutex);
    if (active) {
      active->complete_buffer(buffer, valid);
      std::size_t dropped = 0;
      if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) active->count_dropped(dropped);
      release = !active->keeps_buffers();
    }
  }
  if (release) std::free(buffer);  // else a few buffers of the final flush stay: see flush()
}


}  // namespace

ActivityTimestamps::ActivityTimestamps(KernelSink sink) : sink_(std::move(sink)) {
  {
    std::lock_guard lock(active_mutex);
    if (active) throw SystemError("one kernel-timestamp collector per process (one Collector in sampling mode at a time)");
    active = this;
  }
  try {
    LIMITER_CUPTI_CHECK(cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed));
    LIMITER_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  } catch (...) {
    std::lock_guard lock(active_mutex);
    active = nullptr;
    throw;
  }
}

ActivityTimestamps::~ActivityTimestamps() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  std::lock_guard lock(active_mutex);
  active = nullptr;
}

void ActivityTimestamps::flush(bool forced) {
  if (forced) forced_ = true;
  cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void ActivityTimestamps::request_buffer(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void ActivityTimestamps::complete_buffer(std::uint8_t* buffer, std::size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
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
}

}  // namespace limiter::detail
