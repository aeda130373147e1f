#pragma once
// The CUPTI collector, in-process. By default (CollectorOptions{}) the same run as `limiter run`
// with no mode flag: PC sampling for a window (stall_window_ms), then exact counters of each kernel
// and configuration's first launches (a budget), then the activity timeline to the end; take_run()
// ends the phases and returns one record with all three and each phase's window
// (RunRecord::phases). A region shorter than the window holds samples alone.
// `every_launch`: one range per selected launch (Range Profiler), counters evaluated through the
// Profiler Host API. `trace`: the timeline alone. `stalls`: PC sampling alone. `sampling`: PM
// sampling, GPU-wide counters at a fixed interval attributed to kernels by their Activity-API
// times and aggregated per kernel and configuration (RunRecord::sampling set); with a per-kernel
// budget each kernel's first launches exactly before sampling, with `exact_undecided_count` the
// other order. Each mode is a list of phases, each phase a session (lib/src/collect/phases.cpp).
// No CUDA or CUPTI type appears here (pimpl); the implementation is lib/src/collect/.
//
//   limiter::CollectorOptions options;
//   options.every_launch = true;                    // each launch's counters
//   limiter::Collector collector(options);
//   {
//     limiter::ProfiledRegion region(collector);   // launches inside are profiled
//     my_kernel<<<grid, block>>>(...);
//   }
//   limiter::RunRecord run = collector.take_run();
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "limiter/collector_options.hpp"
#include "limiter/record.hpp"

namespace limiter {

namespace detail {
struct LaunchSink;
}

// Where the collector's host time went (`limiter run --timing`): each session's account, in
// the order its phase ran.
struct CollectorTimings {
  struct Part {
    std::string session;  // "exact", "PM sampling"
    std::string text;     // its lines
  };
  std::vector<Part> parts;
  std::string to_text() const;
};

class Collector {
 public:
  // Subscribes to CUPTI. Throws SystemError naming the fix when there is no GPU or driver,
  // the device is unsupported, counters need admin rights, or another profiler holds CUPTI.
  // OPTIONS are checked first (validate_collector_options).
  explicit Collector(const CollectorOptions& options);
  // OPTIONS that validate_collector_options accepted already: limiter run's, read back in the
  // injected process, which does not check them again.
  struct AlreadyValidated {};
  Collector(const CollectorOptions& options, AlreadyValidated);
  ~Collector();
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  void start();          // launches after this are profiled (nested calls count)
  void stop() noexcept;  // and before this; decodes what was launched (errors go to stderr)

  // Decodes launches still waiting in a user-replay batch (synchronises their contexts).
  void flush();

  // At the end of the process (exit handler, fatal signal): decodes what is pending, waiting
  // at most WAIT for another thread's launch to finish, and counts what could not be decoded
  // as missed. False when launches were lost. Never throws.
  bool flush_before_exit(std::chrono::milliseconds wait) noexcept;

  // Launches seen but not profiled, by reason (also in take_run()).
  std::vector<MissedLaunches> missed() const;
  // Launches seen in profiled regions, selected or not (also in take_run()).
  std::uint64_t launches_seen() const;
  // With per-kernel budgets: the launches seen of each kernel and configuration (empty otherwise).
  std::vector<KernelSeen> kernels_seen() const;

  // Writes the raw counter images not yet on disk (--save-raw). Makes no CUDA call, so it is
  // safe in an exit handler.
  void write_raw_files();

  CollectorTimings timings() const;

  // A run of several phases (the default run): each phase's window so far, the current one open
  // (empty in the single-answer modes; gives up rather than wait: a fatal signal's handler may
  // call it, after at most 2 s for an ended phase's record to reach disk), and the current
  // phase's name ("counters", "samples", "timeline").
  std::vector<PhaseWindow> phase_windows() const;
  std::string current_phase() const;

  // The launches profiled so far, in order, with evaluated counters; clears them.
  // Sampling mode: stops sampling and returns the per-kernel aggregates (once). The default run:
  // ends its phases and returns the record (once; a second call returns the windows alone).
  RunRecord take_run();
  // A record of aggregates, written whole at the end (PM sampling, PC sampling), not streamed.
  bool sampling() const { return options_.sampling || options_.stalls; }

  struct Impl;  // the orchestrator (lib/src/collect/orchestrator.hpp)
  // Where the injection library streams launches to disk as they complete.
  detail::LaunchSink& impl_sink();

 private:
  CollectorOptions options_;
  std::unique_ptr<Impl> impl_;
};

// Profiles the launches of a scope.
class ProfiledRegion {
 public:
  explicit ProfiledRegion(Collector& collector) : collector_(collector) { collector_.start(); }
  ~ProfiledRegion() { collector_.stop(); }
  ProfiledRegion(const ProfiledRegion&) = delete;
  ProfiledRegion& operator=(const ProfiledRegion&) = delete;

 private:
  Collector& collector_;
};

}  // namespace limiter
