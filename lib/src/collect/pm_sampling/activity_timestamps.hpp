#pragma once
// Each kernel's start and end on the GPU, from the CUPTI Activity API's concurrent-kernel
// records (the clock PM samples are stamped with), with its name, configuration, resources,
// stream and correlation id. Records arrive in buffers that CUPTI hands back when full or
// flushed; one collector per process (the Activity API's callbacks are process-wide). The PM
// sampler's real KernelTimestamps (pm_sampling_backend.hpp).
#include <atomic>
#include <cstdint>

#include "collect/cupti/activity_backend.hpp"
#include "collect/pm_sampling/pm_sampling_backend.hpp"
#include "limiter/sampling.hpp"

namespace limiter::detail {

class ActivityTimestamps final : public KernelTimestamps, public ActivityBufferClient {
 public:
  // Takes BACKEND's buffers and enables concurrent-kernel records; SINK is called from CUPTI's
  // buffer-completion thread or flush(). Throws SystemError.
  ActivityTimestamps(ActivityBackend& backend, KernelSink sink);
  ~ActivityTimestamps() override;  // disables the records (after a final flush)
  ActivityTimestamps(const ActivityTimestamps&) = delete;
  ActivityTimestamps& operator=(const ActivityTimestamps&) = delete;

  // Hands every completed buffer's records to the sink. FORCED (at the end only, as CUPTI advises)
  // also the buffers that hold unfinished records; those buffers are never freed afterwards, in
  // case CUPTI still completes their records in place (freed, the heap was corrupted on the H100).
  void flush(bool forced) override;
  bool keeps_buffers() const { return forced_; }

  std::uint64_t kernels() const override { return kernels_; }
  std::uint64_t dropped() const override { return dropped_; }  // buffers too small or late

  // A completed buffer: its kernels to the sink, then freed (unless kept: see flush()).
  void buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t valid) override;

 private:
  ActivityBackend& backend_;
  KernelSink sink_;
  std::atomic<std::uint64_t> kernels_{0}, dropped_{0};
  std::atomic<bool> forced_{false};
};

}  // namespace limiter::detail
