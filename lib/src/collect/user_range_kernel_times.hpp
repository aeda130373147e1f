#pragma once
// The kernels' own GPU durations for launches profiled in user ranges (--replay graphs), from
// CUPTI's concurrent-kernel activity records (activity_timestamps.hpp), matched by the
// correlation ID of the launch call: the app's eager launch, or our launch of a graph with one
// node enabled (graph_replay.cpp). A user range spans the host's work between push and pop too,
// so its counters are rescaled to these durations (limiter/user_range_time.hpp).
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace limiter::detail {

class ActivityTimestamps;

class UserRangeKernelTimes {
 public:
  UserRangeKernelTimes();  // enables the activity records; throws SystemError (one per process)
  ~UserRangeKernelTimes();
  UserRangeKernelTimes(const UserRangeKernelTimes&) = delete;
  UserRangeKernelTimes& operator=(const UserRangeKernelTimes&) = delete;

  void expect(std::uint32_t correlation);  // a ranged launch: keep its kernels' span
  void flush();                            // hands over the records of kernels that have completed
  // The span (first kernel's start to last kernel's end: one kernel, or a graph as one range) of
  // an expected launch, forgotten once taken; none when its records have not arrived.
  std::optional<double> take(std::uint32_t correlation);

  std::uint64_t matched() const { return matched_; }
  std::uint64_t unmatched() const { return unmatched_; }

 private:
  struct Span {
    std::uint64_t start = 0, end = 0;
  };
  std::mutex mutex_;  // CUPTI's buffer thread against the launch thread; never the collector's lock
  std::unordered_map<std::uint32_t, Span> spans_;  // expected launches; empty span until a record arrives
  std::uint64_t matched_ = 0, unmatched_ = 0;
  std::unique_ptr<ActivityTimestamps> activity_;  // last: destroyed (final flush) before the map
};

}  // namespace limiter::detail
