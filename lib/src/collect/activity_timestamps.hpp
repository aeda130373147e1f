#pragma once
// Each kernel's start and end on the GPU, from the CUPTI Activity API's concurrent-kernel
// records (the clock PM samples are stamped with), with its name, configuration, resources,
// stream and correlation id. Records arrive in buffers that CUPTI hands back when full or
// flushed; one collector per process (the Activity API's callbacks are process-wide).
#include <atomic>
#include <cstdint>
#include <functional>

#include "limiter/sampling.hpp"

namespace limiter::detail {

class ActivityTimestamps {
 public:
  using KernelSink = std::function<void(KernelSpan&&)>;  // from CUPTI's buffer-completion thread or flush()

  // Registers the buffer callbacks and enables concurrent-kernel records. Throws SystemError.
  explicit ActivityTimestamps(KernelSink sink);
  ~ActivityTimestamps();  // disables the records (after a final flush)
  ActivityTimestamps(const ActivityTimestamps&) = delete;
  ActivityTimestamps& operator=(const ActivityTimestamps&) = delete;

  // Hands every completed buffer's records to the sink. FORCED (at the end only, as CUPTI advises)
  // also the buffers that hold unfinished records; those buffers are never freed afterwards, in
  // case CUPTI still completes their records in place (freed, the heap was corrupted on the H100).
  void flush(bool forced);
  bool keeps_buffers() const { return forced_; }

  std::uint64_t kernels() const { return kernels_; }
  std::uint64_t dropped() const { return dropped_; }  // records CUPTI dropped (buffers too small or late)

  // CUPTI's buffer callbacks (C linkage wrappers call these).
  static void request_buffer(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records);
  void complete_buffer(std::uint8_t* buffer, std::size_t valid);
  void count_dropped(std::uint64_t records) { dropped_ += records; }

 private:
  KernelSink sink_;
  std::atomic<std::uint64_t> kernels_{0}, dropped_{0};
  std::atomic<bool> forced_{false};
};

}  // namespace limiter::detail
