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

#include "collect/activity/activity_timeline.hpp"

namespace limiter::detail {

class PendingCalls {
  // This thread is inside add() or take(), from before the lock until after it: a signal
  // handled anywhere in there sees it.
  static inline thread_local bool inside_ = false;
  struct Inside {
    Inside() { inside_ = true; }
    ~Inside() { inside_ = false; }
    Inside(const Inside&) = delete;
    Inside& operator=(const Inside&) = delete;
  };

 public:
  // Launch calls per batch; at most kBatches batches wait.
  static constexpr std::size_t kBatch = 4096, kBatches = 64;
  // How long take() waits for another thread's hold of the lock. add() holds it only for a
  // push_back: a longer hold means the holder was stopped there (a signal).
  static constexpr std::chrono::milliseconds kTakeWait{100};

  explicit PendingCalls(std::chrono::milliseconds take_wait = kTakeWait) : take_wait_(take_wait) {}

  // Keeps CALL (or counts it dropped when kBatch * kBatches wait); true when a batch is full
  // (time to wake the flusher).
  bool add(TimelineEvent&& call) {
    const Inside inside;
    std::lock_guard lock(mutex_);
    if (calls_.size() >= kBatch * kBatches) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    calls_.push_back(std::move(call));
    waiting_.store(calls_.size(), std::memory_order_relaxed);
    return calls_.size() % kBatch == 0;
  }
  // The calls kept so far, and the count dropped since the last take; nullopt (the calls stay)
  // when this thread is inside add() or take() already, i.e. a fatal signal handled on the
  // thread it stopped there (locking again would hang it, and is undefined), or when another
  // thread holds the lock for the take wait.
  std::optional<std::vector<TimelineEvent>> take(std::uint64_t& dropped) {
    dropped = 0;
    if (inside_) return std::nullopt;
    const Inside inside;
    std::unique_lock lock(mutex_, std::defer_lock);
    if (!lock.try_lock_for(take_wait_)) return std::nullopt;
    std::vector<TimelineEvent> out;
    out.swap(calls_);
    waiting_.store(0, std::memory_order_relaxed);
    dropped = dropped_.exchange(0, std::memory_order_relaxed);
    return out;
  }
  // Where take() could not be: the calls kept and not taken, and those dropped over the bound
  // since the last take, read without the lock (the process ends: they are counted, not written).
  std::uint64_t waiting() const { return waiting_.load(std::memory_order_relaxed); }
  std::uint64_t take_dropped() { return dropped_.exchange(0, std::memory_order_relaxed); }

  // The lock as add() holds it (tests stand in for a signal that stops a thread inside add()).
  class Hold {
   public:
    explicit Hold(PendingCalls& calls) : lock_(calls.mutex_) {}

   private:
    Inside inside_;  // set before the lock is taken, cleared after it is given back
    std::unique_lock<std::timed_mutex> lock_;
  };

 private:
  std::chrono::milliseconds take_wait_;
  std::timed_mutex mutex_;
  std::vector<TimelineEvent> calls_;
  std::atomic<std::size_t> waiting_{0};
  std::atomic<std::uint64_t> dropped_{0};
};

}  // namespace limiter::detail
