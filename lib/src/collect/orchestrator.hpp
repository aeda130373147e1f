#pragma once
// The orchestrator (docs/design.md §4): the collector's one CUPTI subscriber, its phases — an
// ordered list of sessions and the rule that ends each (phases.hpp) — and the process's
// lifecycle seen from the collector (a forked child does nothing of ours). Callbacks are decoded
// once (subscriber.cpp) and handed to the current phase's session as plain values.
#include <cupti.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "collect/collector_internal.hpp"
#include "collect/nvtx/nvtx_tracker.hpp"
#include "collect/phases.hpp"
#include "collect/session_backends.hpp"
#include "limiter/collector.hpp"

namespace limiter {

struct Collector::Impl {
  explicit Impl(const CollectorOptions& options);
  ~Impl();

  CollectorOptions options;
  detail::NvtxTracker nvtx;                           // the app's NVTX ranges (options.nvtx), for every session
  detail::LaunchSink sink;                            // injection: each completed launch goes to disk at once
  std::unique_ptr<detail::SessionBackends> backends;  // CUPTI's
  detail::Phases phases;
  CUpti_SubscriberHandle subscriber = nullptr;
  bool nvtx_to_sessions = false;  // a session wants the NVTX calls (SessionCallbacks::nvtx); set by subscribe()

  // At a launch's ENTER: the current phase's work is done, so the next one begins (once).
  void switch_phase_if_over();
  // Ends the run: the current phase finished, later phases told they never ran; the record.
  RunRecord finish_phases();
  void subscribe();    // subscriber.cpp
  void unsubscribe();  // subscriber.cpp

 private:
  std::mutex switch_mutex_;
};

}  // namespace limiter
