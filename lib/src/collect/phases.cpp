// The collector's modes as phase lists (phases.hpp): the one place where options combine.
#include "collect/phases.hpp"

#include <algorithm>

#include "collect/activity/activity_session.hpp"
#include "collect/forked_child.hpp"
#include "collect/handover.hpp"
#include "collect/pc_sampling/pc_sampling_session.hpp"
#include "collect/pm_sampling/pm_sampling_session.hpp"
#include "collect/range/range_session.hpp"
#include "collect/timeline_phase.hpp"
#include "limiter/metric_plans.hpp"

namespace limiter::detail {

Phases::Phases(PhaseList list, PhaseClock clock)
    : sessions_(std::move(list.phases)),
      background_(std::move(list.background)),
      background_from_(std::move(list.background_from)),
      handovers_(std::move(list.handovers)),
      clock_(std::move(clock)) {
  background_from_.resize(background_.size(), 0);
  for (auto& name : list.names) windows_.push_back({std::move(name), 0, 0, 0, ""});
  windows_.resize(windows_.empty() ? 0 : sessions_.size());
}

void Phases::note_launch() {
  ++phase_launches_;
  // The first phase's window opens at the first launch, not at cuInit: the app's set-up is no phase's.
  if (windows_.empty() || first_launch_seen_.load(std::memory_order_relaxed) || first_launch_seen_.exchange(true)) return;
  std::lock_guard lock(windows_mutex_);
  if (windows_[0].start_ns == 0) windows_[0].start_ns = now();
}

void Phases::begin_region() {
  for (std::size_t i = index_.load(); i < sessions_.size(); ++i) sessions_[i]->begin_region();
  for (const auto& session : background_) session->begin_region();
}

void Phases::end_region() {
  for (std::size_t i = index_.load(); i < sessions_.size(); ++i) sessions_[i]->end_region();
  for (const auto& session : background_) session->end_region();
}

void Phases::close_window(std::size_t index, std::string ended_by) {
  if (index >= windows_.size()) return;
  std::lock_guard lock(windows_mutex_);
  PhaseWindow& window = windows_[index];
  window.end_ns = now();
  if (window.start_ns == 0) window.start_ns = window.end_ns;  // no launch ran in it
  window.launches = phase_launches_.exchange(0);
  window.ended_by = std::move(ended_by);
}

void Phases::advance() {
  if (last() || finished_) return;
  const std::size_t ending_index = index_.load();
  Session& ending = current();
  close_window(ending_index, ending.phase_over_reason());
  RunRecord record = finish_phase(ending_index);
  if (!windows_.empty()) {
    std::lock_guard lock(windows_mutex_);
    windows_[ending_index + 1].start_ns = windows_[ending_index].end_ns;
    record.phases = windows_;
  }
  // The ended phase's slow part and its record's way to disk run beside the next phase: a sampling
  // window's source lines and cubin files cost the app's thread ~0.2 s (H200, a PyTorch loop).
  join_completer();  // a phase before this one's (none in the lists there are)
  handed_over_ = false;
  try {
    completer_ = std::thread([this, &ending, handed = record]() mutable { hand_over(ending, std::move(handed)); });
  } catch (const std::system_error&) {  // no thread: on the app's
    hand_over(ending, record);
  }
  begin_phase(ending_index + 1, std::move(record), /*follows=*/true);
  index_.store(ending_index + 1);
  for (std::size_t i = 0; i < background_.size(); ++i)
    if (background_from_[i] == ending_index + 1) background_[i]->on_phase_begun(ending_index + 1);
}

PhaseHandover* Phases::handover(std::size_t i) const { return i < handovers_.size() ? handovers_[i].get() : nullptr; }

void Phases::begin_phase(std::size_t i, RunRecord before, bool follows) {
  if (PhaseHandover* rule = handover(i)) rule->begin(std::move(before), follows);
  else sessions_[i]->begin_after(std::move(before), follows);
}

RunRecord Phases::finish_phase(std::size_t i) {
  RunRecord record = sessions_[i]->finish();
  PhaseHandover* rule = handover(i);
  return rule ? rule->join(std::move(record)) : record;
}

std::string Phases::timings(std::size_t i) const {
  const PhaseHandover* rule = handover(i);
  return (rule ? rule->timings() : std::string()) + sessions_[i]->timings();
}

void Phases::hand_over(Session& ended, RunRecord handed) noexcept {
  ended.complete_record(handed);
  if (!handed.stalls) handed.stalls = completed_stalls_;  // an earlier phase's, completed (joined before)
  completed_stalls_ = handed.stalls;
  if (on_handover && !windows_.empty()) {
    try {
      on_handover(handed);
    } catch (const std::exception&) {  // the record still goes on in memory
    }
  }
  handed_over_ = true;
}

bool Phases::wait_handed_over(std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (!handed_over_.load()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void Phases::join_completer() {
  if (!completer_.joinable()) return;
  if (in_forked_child_by_pid()) {  // the parent's thread: never in this process
    completer_.detach();
    return;
  }
  completer_.join();
}

RunRecord Phases::finish() {
  join_completer();
  if (finished_) {  // a second take_run: the run is over, its record was handed out
    RunRecord done;
    done.phases = windows_;
    return done;
  }
  // A run of phases ends once; a single session's take_run gives what it holds so far (the
  // in-process API's launches since the last take_run, --every-launch).
  finished_ = sessions_.size() > 1;
  std::size_t i = index_.load();
  close_window(i, "the app ended");
  RunRecord record = finish_phase(i);
  sessions_[i]->complete_record(record);
  for (++i; i < sessions_.size(); ++i) {
    if (i < windows_.size()) {
      std::lock_guard lock(windows_mutex_);
      windows_[i].ended_by = "never began";
    }
    begin_phase(i, std::move(record), /*follows=*/false);
    record = finish_phase(i);
    sessions_[i]->complete_record(record);
  }
  for (const auto& session : background_) record = session->finish_beside(std::move(record));
  if (!record.stalls && completed_stalls_) record.stalls = std::move(completed_stalls_);
  if (!windows_.empty()) {
    std::lock_guard lock(windows_mutex_);
    record.phases = windows_;
  }
  return record;
}

std::vector<PhaseWindow> Phases::windows() const {
  std::unique_lock lock(windows_mutex_, std::chrono::milliseconds(100));
  if (!lock.owns_lock()) return {};
  std::vector<PhaseWindow> windows = windows_;
  const std::size_t i = index_.load();
  if (i < windows.size() && windows[i].ended_by.empty()) {  // the current one, still open
    windows[i].end_ns = now();
    windows[i].launches = phase_launches_.load();
    windows[i].ended_by = "running";
    for (std::size_t later = i + 1; later < windows.size(); ++later) windows[later].ended_by = "never began";
  }
  return windows;
}

SessionCallbacks Phases::callbacks() const {
  SessionCallbacks all;
  for (const auto* list : {&sessions_, &background_}) {
    for (const auto& session : *list) {
      const SessionCallbacks wanted = session->callbacks();
      all.launch_exit |= wanted.launch_exit;
      all.sync_points |= wanted.sync_points;
      all.graphs |= wanted.graphs;
      all.graph_destroy |= wanted.graph_destroy;
      all.modules |= wanted.modules;
      all.contexts |= wanted.contexts;
      all.nvtx |= wanted.nvtx;
    }
  }
  return all;
}

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
                         RangeBackend& backend, NvtxTracker& nvtx, LaunchSink* sink,
                         const PcSamplingBackendFactory& pc_sampling) {
  PhaseList list;
  PcSamplingPhase window;
  window.window = std::chrono::milliseconds(options.stall_window_ms);
  window.window_samples = options.stall_window_samples;
  window.quiet_launches = kWindowQuietLaunches;
  window.min_window = std::min(kMinWindow, window.window);
  list.phases.push_back(std::make_unique<PcSamplingSession>(options, pc_sampling(), window));
  CollectorOptions exact = options;
  if (exact.per_kernel_count == CollectorOptions{}.per_kernel_count) {  // no budget given: the measured default
    exact.per_kernel_count = kDefaultBudgetCount;
    if (exact.per_kernel_skip == 0) exact.per_kernel_skip = kDefaultBudgetSkip;
  }
  exact.prepare_ahead = false;  // its set-up's CUPTI calls would run beside PC sampling
  auto counters = std::make_unique<RangeSession>(exact, metrics, backend, nvtx, sink, /*ends_when_budgets_spent=*/true);
  counters->decode_at_every_wait = false;  // a Start per sync otherwise (range_record.cpp, on_sync)
  list.handovers.resize(3);
  list.handovers[1] = std::make_unique<ExactHandover>(*counters, exact);
  list.phases.push_back(std::move(counters));
  list.phases.push_back(std::make_unique<TimelinePhase>());
  // The timeline in the last phase only: kernel records instrument the kernels, which changes their
  // counters and, beside PC sampling, left every sample without its kernel (H200, 2026-11-28).
  list.background.push_back(std::make_unique<ActivitySession>(options, sink, /*alone=*/false, /*from_phase=*/2));
  list.background_from.push_back(2);
  list.names = {"samples", "counters", "timeline"};
  return list;
}

}  // namespace

PhaseList sessions_for(const CollectorOptions& options, RangeBackend& backend, NvtxTracker& nvtx, LaunchSink* sink,
                       const PcSamplingBackendFactory& pc_sampling) {
  PhaseList list;
  auto& sessions = list.phases;
  if (options.trace) {  // no range profiler at all: the timeline alone
    sessions.push_back(std::make_unique<ActivitySession>(options, sink, /*alone=*/true));
    return list;
  }
  if (options.stalls) {  // PC sampling alone: the Range Profiler and PM sampling are refused beside it
    sessions.push_back(std::make_unique<PcSamplingSession>(options, pc_sampling()));
    return list;
  }
  const std::vector<std::string> metrics = options.metrics.empty() ? metric_plan(options.plan).metrics : options.metrics;
  if (runs_default_phases(options)) return default_phases(options, metrics, backend, nvtx, sink, pc_sampling);
  const bool budgets = options.per_kernel_count != CollectorOptions{}.per_kernel_count || options.per_kernel_skip > 0;
  if (!options.sampling) {
    auto range = std::make_unique<RangeSession>(options, metrics, backend, nvtx, sink);
    if (!options.timeline) {
      sessions.push_back(std::move(range));
      return list;
    }
    auto activity = std::make_unique<ActivitySession>(options, sink, /*alone=*/false);
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
        std::make_unique<PmSamplingSession>(options, sink, SamplingRole::before_exact, cupti_pm_sampling_backend()),
        std::make_unique<RangeSession>(exact, metrics, backend, nvtx, sink), exact);
  }
  if (!budgets) {  // no range profiler at all: the sampler and kernel timestamps
    sessions.push_back(std::make_unique<PmSamplingSession>(options, sink, SamplingRole::alone,
                                                          cupti_pm_sampling_backend()));
    return list;
  }
  // Each kernel's first launches exactly, then sampling from where a budget run would pause.
  CollectorOptions exact = options;
  exact.sampling = false;
  exact.keep_launches = true;
  exact.raw_dir.clear();
  auto range = std::make_unique<RangeSession>(exact, metrics, backend, nvtx, sink, /*ends_when_budgets_spent=*/true);
  auto sampler = std::make_unique<PmSamplingSession>(options, sink, SamplingRole::after_exact,
                                                          cupti_pm_sampling_backend());
  // The sampler's host side is prepared while the exact phase runs, off the app's path.
  range->on_context_ready = [sampler = sampler.get()](int device, const std::string& chip) {
    sampler->prepare_ahead(device, chip);
  };
  sessions.push_back(std::move(range));
  sessions.push_back(std::move(sampler));
  return list;
}

}  // namespace limiter::detail
