#pragma once
// The launch calls the activity session keeps on the app's thread until its flusher hands them
// to the recorder in batches (activity_session.hpp). Bounded: a flusher that stalls (its thread
// starved, the disk full) would otherwise let them grow without end; calls past the bound are
// counted as dropped, never lost silently.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "collect/activity_timeline.hpp"

namespace limiter::detail {

class PendingCalls {
 public:
  // Launch calls per batch; at most kBatches batches wait.
  static constexpr std::size_t kBatch = 4096, kBatches = 64;

  // How long take() waits for the lock. add() holds it only for a push_back, so a longer hold
  // means a fatal signal is handled on the thread it interrupted inside add(): waiting there
  // would hang the handler until its 20 s alarm.
  static constexpr std::chrono::milliseconds kTakeWait{100};

  // Keeps CALL (or counts it dropped when kBatch * kBatches wait); true when a batch is full
  // (time to wake the flusher).
  bool add(TimelineEvent&& call) {
    std::lock_guard lock(mutex_);
    if (calls_.size() >= kBatch * kBatches) {
      ++dropped_;
      return false;
    }
    calls_.push_back(std::move(call));
    waiting_.store(calls_.size(), std::memory_order_relaxed);
    return calls_.size() % kBatch == 0;
  }
  // The calls kept so far, and the count dropped since the last take; nullopt when the lock
  // stayed held for kTakeWait (the calls stay; waiting() says about how many).
  std::optional<std::vector<TimelineEvent>> take(std::uint64_t& dropped) {
    std::unique_lock lock(mutex_, std::defer_lock);
    if (!lock.try_lock_for(kTakeWait)) return std::nullopt;
    std::vector<TimelineEvent> out;
    out.swap(calls_);
    waiting_.store(0, std::memory_order_relaxed);
    dropped = dropped_;
    dropped_ = 0;
    return out;
  }
  // The calls kept and not yet taken, read without the lock (for the count of those lost).
  std::size_t waiting() const { return waiting_.load(std::memory_order_relaxed); }
  // What add() holds: tests stand in for a signal that interrupts it.
  std::unique_lock<std::timed_mutex> hold() { return std::unique_lock(mutex_); }

 private:
  std::timed_mutex mutex_;
  std::vector<TimelineEvent> calls_;
  std::atomic<std::size_t> waiting_{0};
  std::uint64_t dropped_ = 0;
};

}  // namespace limiter::detail
