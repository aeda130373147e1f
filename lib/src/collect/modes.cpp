// The collector's modes as phase lists (modes.hpp): the one place where options combine.
#include "collect/modes.hpp"

#include <algorithm>

#include "collect/activity/activity_session.hpp"
#include "collect/handover.hpp"
#include "collect/pc_sampling/pc_sampling_session.hpp"
#include "collect/pm_sampling/pm_sampling_session.hpp"
#include "collect/range/range_session.hpp"
#include "collect/timeline_phase.hpp"
#include "limiter/metric_plans.hpp"

namespace limiter::detail {

namespace {

// The sampling window ends once this many launches in a row brought no new kernel (each of a
// loop's kernels then sampled in several steps), after at least kMinWindow; --stall-window is
// its longest. A PyTorch training step is ~50 launches (bench/workloads/mlp_training.py).
constexpr std::uint64_t kWindowQuietLaunches = 256;
constexpr std::chrono::milliseconds kMinWindow{100};

// The default run: PC sampling for a window, then each kernel and configuration's first launches
// exactly, then the app at its own pace with the timeline. PC sampling goes first: after the range
// profiler had run in the process, its samples came without their kernels (all counted in "the
// driver's kernels", H200, 2026-11-28), as PM sampling's miss the SMs (range_record.cpp).
PhaseList default_phases(const CollectorOptions& options, const std::vector<std::string>& metrics,
                         SessionBackends& backends, NvtxTracker& nvtx, LaunchSink* sink) {
  PhaseList list;
  PcSamplingPhase window;
  window.window = std::chrono::milliseconds(options.stall_window_ms);
  window.window_samples = options.stall_window_samples;
  window.quiet_launches = kWindowQuietLaunches;
  window.min_window = std::min(kMinWindow, window.window);
  list.phases.push_back(std::make_unique<PcSamplingSession>(options, backends.pc_sampling(), window));
  CollectorOptions exact = options;
  if (exact.per_kernel_count == CollectorOptions{}.per_kernel_count) {  // no budget given: the measured default
    exact.per_kernel_count = kDefaultBudgetCount;
    if (exact.per_kernel_skip == 0) exact.per_kernel_skip = kDefaultBudgetSkip;
  }
  exact.prepare_ahead = false;  // its set-up's CUPTI calls would run beside PC sampling
  auto counters =
      std::make_unique<RangeSession>(exact, metrics, backends.range(), nvtx, sink, /*ends_when_budgets_spent=*/true);
  counters->decode_at_every_wait = false;  // a Start per sync otherwise (range_record.cpp, on_sync)
  list.handovers.resize(3);
  list.handovers[1] = std::make_unique<ExactHandover>(*counters, exact);
  list.phases.push_back(std::move(counters));
  list.phases.push_back(std::make_unique<TimelinePhase>());
  // The timeline in the last phase only: kernel records instrument the kernels, which changes their
  // counters and, beside PC sampling, left every sample without its kernel (H200, 2026-11-28).
  list.background.push_back(
      std::make_unique<ActivitySession>(options, sink, /*alone=*/false, /*from_phase=*/2, backends.activity()));
  list.background_from.push_back(2);
  list.names = {"samples", "counters", "timeline"};
  return list;
}

}  // namespace

PhaseList sessions_for(const CollectorOptions& options, SessionBackends& backends, NvtxTracker& nvtx,
                       LaunchSink* sink) {
  PhaseList list;
  auto& sessions = list.phases;
  if (options.trace) {  // no range profiler at all: the timeline alone
    sessions.push_back(std::make_unique<ActivitySession>(options, sink, /*alone=*/true, 0, backends.activity()));
    return list;
  }
  if (options.stalls) {  // PC sampling alone: the Range Profiler and PM sampling are refused beside it
    sessions.push_back(std::make_unique<PcSamplingSession>(options, backends.pc_sampling()));
    return list;
  }
  const std::vector<std::string> metrics =
      options.metrics.empty() ? metric_plan(options.plan).metrics : options.metrics;
  if (runs_default_phases(options)) return default_phases(options, metrics, backends, nvtx, sink);
  const bool budgets = options.per_kernel_count != CollectorOptions{}.per_kernel_count || options.per_kernel_skip > 0;
  if (!options.sampling) {
    auto range = std::make_unique<RangeSession>(options, metrics, backends.range(), nvtx, sink);
    if (!options.timeline) {
      sessions.push_back(std::move(range));
      return list;
    }
    auto activity = std::make_unique<ActivitySession>(options, sink, /*alone=*/false, 0, backends.activity());
    range->on_launch_completed = [activity = activity.get()](std::uint32_t correlation_id, std::uint64_t sequence) {
      activity->note_launch(correlation_id, sequence);
    };
    sessions.push_back(std::move(range));
    list.background.push_back(std::move(activity));
    return list;
  }
  if (options.exact_undecided_count > 0) {
    // The exact phase is a budget of exact_undecided_count launches per undecided kernel.
    CollectorOptions exact = options;
    exact.sampling = false;
    exact.keep_launches = true;  // until they join the sampler's aggregates
    exact.per_kernel_count = options.exact_undecided_count;
    exact.raw_dir.clear();  // --save-raw keeps the samples; the record holds the exact counters
    return sampling_then_exact(
        std::make_unique<PmSamplingSession>(options, sink, SamplingRole::before_exact, backends.pm_sampling()),
        std::make_unique<RangeSession>(exact, metrics, backends.range(), nvtx, sink), exact);
  }
  if (!budgets) {  // no range profiler at all: the sampler and kernel timestamps
    sessions.push_back(std::make_unique<PmSamplingSession>(options, sink, SamplingRole::alone, backends.pm_sampling()));
    return list;
  }
  // Each kernel's first launches exactly, then sampling from where a budget run would pause.
  CollectorOptions exact = options;
  exact.sampling = false;
  exact.keep_launches = true;
  exact.raw_dir.clear();
  auto range =
      std::make_unique<RangeSession>(exact, metrics, backends.range(), nvtx, sink, /*ends_when_budgets_spent=*/true);
  auto sampler = std::make_unique<PmSamplingSession>(options, sink, SamplingRole::after_exact, backends.pm_sampling());
  // The sampler's host side is prepared while the exact phase runs, off the app's path.
  range->on_context_ready = [sampler = sampler.get()](int device, const std::string& chip) {
    sampler->prepare_ahead(device, chip);
  };
  sessions.push_back(std::move(range));
  sessions.push_back(std::move(sampler));
  return list;
}

}  // namespace limiter::detail
