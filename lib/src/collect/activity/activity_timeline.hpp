#pragma once
// What the activity session keeps, without CUPTI: the events of completed buffers (streamed on
// as chunks), the dropped-record count, the window, and the launches of the record by
// correlation id, so each kernel event names the launch it is (launch_sequence) and each
// launch gets its kernel's start and end. Thread-safe: buffers complete on CUPTI's thread.
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "limiter/record.hpp"
#include "limiter/timeline.hpp"

namespace limiter::detail {

class TimelineRecorder {
 public:
  using ChunkSink = std::function<void(const std::vector<TimelineEvent>&)>;
  explicit TimelineRecorder(ChunkSink sink = {}) : sink_(std::move(sink)) {}

  // A launch of the record (KernelLaunch::sequence) issued by the API call CORRELATION_ID.
  void note_launch(std::uint32_t correlation_id, std::uint64_t sequence);
  // A completed buffer's events: kept, and handed to the sink (kernels with their launch
  // sequence where it is known by now).
  void add(std::vector<TimelineEvent> events);
  void count_dropped(std::uint64_t records);
  // The NVTX ranges not kept and those closed at the end (NvtxTimeline's counts, so far).
  void set_nvtx_counts(std::uint64_t dropped, std::uint64_t unclosed);
  // The window holds [START_NS, END_NS] (0: not known).
  void widen(std::uint64_t start_ns, std::uint64_t end_ns);

  std::uint64_t events() const;
  std::uint64_t dropped() const;
  Timeline window() const;  // start, end, dropped; no events
  // Everything so far, sorted and joined to the launches noted.
  Timeline timeline() const;

 private:
  ChunkSink sink_;
  mutable std::mutex mutex_;
  Timeline timeline_;
  std::uint64_t first_start_ns_ = 0, last_end_ns_ = 0;    // of the events (window() reads them, not the events)
  std::multimap<std::uint32_t, std::uint64_t> launches_;  // correlation id -> sequences
};

// Sets each kernel event's launch_sequence from LAUNCHES (correlation id -> sequences): a
// correlation id with as many kernels as launches (one, or a graph launch's nodes) pairs them
// in order; one that does not add up is left unjoined rather than guessed.
void join_kernels(Timeline& timeline, const std::multimap<std::uint32_t, std::uint64_t>& launches);

// Each launch whose kernel event names it gets its start, end and duration_source "activity";
// the others "range" where their counters have a duration (gpu__time_duration.sum).
void apply_kernel_times(const Timeline& timeline, std::vector<KernelLaunch>& launches);

}  // namespace limiter::detail
