#pragma once
// The app's NVTX ranges as CUPTI's NVTX callbacks carry them (CUPTI_CB_DOMAIN_NVTX), whether
// CUPTI delivers them or limiter's own NVTX tool (collect/nvtx/nvtx_dispatch.hpp, the NVTX_INJECTION64_PATH
// of `limiter run`) builds the same data: a push/pop stack per thread and domain, the
// process's open start/end ranges, domain names and registered strings. A launch's ranges are
// read on its launching thread, in its ENTER callback. Each range call is also given back as a
// plain NvtxEvent, for the sessions that record the ranges themselves (the activity timeline).
#include <cupti.h>

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "collect/nvtx/nvtx_event.hpp"
#include "limiter/nvtx_ranges.hpp"

namespace limiter::detail {

class NvtxTracker {
 public:
  // Push/pop ranges on one stack per domain for all threads, not one per thread (Nsight
  // Compute's --nvtx-push-pop-scope process): PyTorch pushes "backward" on the main thread while
  // its autograd thread launches the kernels. Set before the first NVTX call.
  void set_process_scope(bool process) { process_scope_ = process; }
  // One NVTX call (CUPTI's callback id and data); never throws into the app. A push, pop, start
  // or end comes back as a plain event (not stamped: see stamp); other calls (domains, strings) none.
  std::optional<NvtxEvent> on_call(CUpti_CallbackId cbid, const CUpti_NvtxData& data) noexcept;
  // EVENT's time (cuptiGetTimestamp, the activity records' clock) and calling thread (as CUPTI's
  // API records name it): only where a session wants the events.
  static void stamp(NvtxEvent& event) noexcept;
  // The ranges around a launch made now on this thread.
  NvtxRanges current() const;
  // True once the app made an NVTX range call (else current() is empty, at no cost).
  bool seen() const { return seen_.load(std::memory_order_relaxed); }
  // Start/end ranges whose id CUPTI did not give back: they cannot be ended, so are not kept.
  std::uint64_t unmatched() const { return unmatched_.load(std::memory_order_relaxed); }

 private:
  std::string domain_name(const void* domain) const;     // caller holds mutex_
  std::string message_of(const void* attributes) const;  // nvtxEventAttributes_t*; caller holds mutex_

  mutable std::mutex mutex_;  // domains, strings and start/end ranges (any thread)
  std::map<const void*, std::string> domains_;
  std::map<const void*, std::string> strings_;       // registered strings
  std::map<std::uint64_t, NvtxStartEnd> start_end_;  // by range id, in start order (ids grow)
  bool process_scope_ = false;
  std::map<const void*, std::vector<std::string>> process_stacks_;  // push/pop, process scope
  std::atomic<bool> seen_{false};
  std::atomic<std::uint64_t> unmatched_{0};
};

}  // namespace limiter::detail
