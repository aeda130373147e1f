#pragma once
// The CUPTI collector, in-process: one range per kernel launch (Range Profiler, auto range),
// launch metadata from driver callbacks, counters evaluated through the Profiler Host API.
// With `sampling` set, the PM-sampling mode instead: GPU-wide counters sampled at a fixed
// interval (no replay, no serialisation), attributed to kernels by their Activity-API times and
// aggregated per kernel and configuration; take_run() then stops sampling and returns the
// aggregates (a sampled record: RunRecord::sampling is set). With `sampling` and a per-kernel
// budget, each kernel's first launches are profiled exactly before sampling begins, and join
// their kernel's aggregate (SampleSupport::exact_launches): a verdict where the samples cannot
// decide, and LMEM shares for every kernel. With `sampling` and `exact_undecided_count`, the
// other order: sampling first, then the next launches of each kernel its samples could not
// judge exactly (sampling_then_exact.cpp).
// No CUDA or CUPTI type appears here (pimpl); the implementation is lib/src/collect/.
//
//   limiter::Collector collector({.plan = "default"});
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
class SamplingMode;
}

// Where the collector's host time went, summed over threads (`limiter run --timing`).
struct CollectorTimings {
  std::uint64_t launches = 0;  // launch calls seen while a profiler ran (graph launches count once)
  std::uint64_t batches = 0;   // user-replay batches decoded (and pauses)
  double set_up_s = 0;         // per context, at its first launch: CUPTI, chip, config, images
  double metadata_s = 0;       // our launch-ENTER work: names, attributes, capture check
  double launch_call_s = 0;    // from our ENTER to our EXIT: the driver's launch with CUPTI's range work
                               // (with kernel replay, the save/restore and the replays)
  double launch_call_cpu_s = 0;  // of it, CPU time of the launching thread: the rest it slept or waited
  std::uint64_t launch_call_switches = 0;  // voluntary context switches in it (blocking waits)
  double synchronize_s = 0;    // user replay: waiting for a batch's kernels before Stop
  double stop_s = 0;           // cuptiRangeProfilerStop
  double decode_s = 0;         // cuptiRangeProfilerDecodeData
  double evaluate_s = 0;       // host evaluation of the ranges (Profiler Host API) and the sinks
  double image_init_s = 0;     // counter-data image (re-)initialisation
  double set_config_s = 0;     // SetConfig: per context, per batch, after a pause
  double start_s = 0;          // Start: likewise
  double enable_s = 0;         // Enable, counter-data size and first image init: per context and turn
  double turn_wait_s = 0;      // waiting for the GPU's counters while another process had its turn
  double yield_s = 0;          // handing the counters over: the batch decoded, Stop, Disable
  std::uint64_t turns_yielded = 0;  // turns handed to a waiting process
  std::uint64_t busy_retries = 0;   // Starts refused with CUPTI_ERROR_HARDWARE_BUSY, tried again
  std::uint64_t filter_pauses = 0;  // pauses after long runs of unselected launches
  std::uint64_t unranged_launches = 0;  // unselected, run unranged while a user-range profiler ran
  // User ranges (user replay once a graph was launched): graph kernel nodes run one at a time, and every launch's range
  // once the context has launched a graph.
  std::uint64_t range_mode_switches = 0;  // a context's profiler re-created in user-range mode
  std::uint64_t user_ranges = 0;          // ranges pushed
  double push_pop_s = 0;                  // PushRange and PopRange
  double range_sync_s = 0;                // stream synchronise before a PopRange
  std::uint64_t graph_nodes = 0;          // runnable graph nodes launched one at a time
  double graph_toggle_s = 0;              // cuGraphNodeSetEnabled
  double graph_node_launch_s = 0;         // our launches of the graph with one node enabled
  std::string sampling;             // sampling mode: the sampler's own account (replaces the above)
  std::string sampling_phase;       // sampling then exact: what ended the sampling phase
  std::string to_text() const;  // a few lines: per-launch microseconds of each part
};

class Collector {
 public:
  // Subscribes to CUPTI. Throws SystemError naming the fix when there is no GPU or driver,
  // the device is unsupported, counters need admin rights, or another profiler holds CUPTI.
  explicit Collector(const CollectorOptions& options);
  ~Collector();
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  void start();  // launches after this are profiled (nested calls count)
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

  // The launches profiled so far, in order, with evaluated counters; clears them.
  // Sampling mode: stops sampling and returns the per-kernel aggregates (once).
  RunRecord take_run();
  bool sampling() const { return sampling_ != nullptr; }

  struct Impl;
  // Where the injection library streams launches to disk as they complete.
  detail::LaunchSink& impl_sink();

 private:
  void stop_exact_mode();  // the range profilers finished, the callbacks unsubscribed

  std::unique_ptr<Impl> impl_;
  // Set in sampling mode: then impl_ stays idle, or, with per-kernel budgets, runs the exact
  // phase first and hands the launches over to it (budgets_then_sampling.cpp).
  std::unique_ptr<detail::SamplingMode> sampling_;
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
