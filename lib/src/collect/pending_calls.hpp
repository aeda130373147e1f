#pragma once
// The launch calls the activity session keeps on the app's thread until its flusher hands them
// to the recorder in batches (activity_session.hpp). Bounded: a flusher that stalls (its thread
// starved, the disk full) would otherwise let them grow without end; calls past the bound are
// counted as dropped, never lost silently.
#include <cstdint>
#include <mutex>
#include <vector>

#include "collect/activity_timeline.hpp"

namespace limiter::detail {

class PendingCalls {
 public:
  // Launch calls per batch; at most kBatches batches wait.
  static constexpr std::size_t kBatch = 4096, kBatches = 64;

  // Keeps CALL (or counts it dropped when kBatch * kBatches wait); true when a batch is full
  // (time to wake the flusher).
  bool add(TimelineEvent&& call) {
    std::lock_guard lock(mutex_);
    if (calls_.size() >= kBatch * kBatches) {
      ++dropped_;
      return false;
    }
    calls_.push_back(std::move(call));
    return calls_.size() % kBatch == 0;
  }
  // The calls kept so far, and the count dropped since the last take.
  std::vector<TimelineEvent> take(std::uint64_t& dropped) {
    std::vector<TimelineEvent> out;
    std::lock_guard lock(mutex_);
    out.swap(calls_);
    dropped = dropped_;
    dropped_ = 0;
    return out;
  }

 private:
  std::mutex mutex_;
  std::vector<TimelineEvent> calls_;
  std::uint64_t dropped_ = 0;
};

}  // namespace limiter::detail
