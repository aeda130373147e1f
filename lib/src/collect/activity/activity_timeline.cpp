// The activity session's timeline and its join to the record's launches (activity_timeline.hpp).
#include "collect/activity/activity_timeline.hpp"

#include <algorithm>
#include <unordered_map>

namespace limiter::detail {

namespace {
constexpr const char* kRangeDuration = "gpu__time_duration.sum";
}

void TimelineRecorder::note_launch(std::uint32_t correlation_id, std::uint64_t sequence) {
  if (correlation_id == 0) return;
  std::lock_guard lock(mutex_);
  launches_.emplace(correlation_id, sequence);
}

void TimelineRecorder::add(std::vector<TimelineEvent> events) {
  if (events.empty()) return;
  std::lock_guard lock(mutex_);
  // Streamed joined where the launch is known already (one launch per correlation id); the
  // final timeline() joins the rest.
  for (auto& e : events) {
    if (e.kind != ActivityKind::kernel || e.launch_sequence) continue;
    if (launches_.count(e.correlation_id) == 1) e.launch_sequence = launches_.find(e.correlation_id)->second;
  }
  for (const auto& e : events) {
    if (!first_start_ns_ || e.start_ns < first_start_ns_) first_start_ns_ = e.start_ns;
    last_end_ns_ = std::max(last_end_ns_, e.end_ns);
  }
  // Under the lock: chunks reach the sink whole and one at a time.
  if (sink_) sink_(events);
  timeline_.events.insert(timeline_.events.end(), std::make_move_iterator(events.begin()),
                          std::make_move_iterator(events.end()));
}

void TimelineRecorder::count_dropped(std::uint64_t records) {
  if (records == 0) return;
  std::lock_guard lock(mutex_);
  timeline_.dropped_records += records;
}

void TimelineRecorder::set_nvtx_counts(std::uint64_t dropped, std::uint64_t unclosed) {
  std::lock_guard lock(mutex_);
  timeline_.nvtx_ranges_dropped = dropped;
  timeline_.nvtx_ranges_unclosed = unclosed;
}

void TimelineRecorder::widen(std::uint64_t start_ns, std::uint64_t end_ns) {
  std::lock_guard lock(mutex_);
  if (start_ns && (!timeline_.start_ns || start_ns < timeline_.start_ns)) timeline_.start_ns = start_ns;
  if (end_ns > timeline_.end_ns) timeline_.end_ns = end_ns;
}

std::uint64_t TimelineRecorder::events() const {
  std::lock_guard lock(mutex_);
  return timeline_.events.size();
}

std::uint64_t TimelineRecorder::dropped() const {
  std::lock_guard lock(mutex_);
  return timeline_.dropped_records;
}

Timeline TimelineRecorder::window() const {
  std::lock_guard lock(mutex_);
  Timeline out;
  out.start_ns = timeline_.start_ns;
  out.end_ns = timeline_.end_ns;
  out.dropped_records = timeline_.dropped_records;
  out.nvtx_ranges_dropped = timeline_.nvtx_ranges_dropped;
  out.nvtx_ranges_unclosed = timeline_.nvtx_ranges_unclosed;
  if (!out.start_ns || !out.end_ns) {  // widened to the events, as normalize_timeline does
    if (first_start_ns_ && (!out.start_ns || first_start_ns_ < out.start_ns)) out.start_ns = first_start_ns_;
    out.end_ns = std::max(out.end_ns, last_end_ns_);
  }
  return out;
}

Timeline TimelineRecorder::timeline() const {
  Timeline out;
  {
    std::lock_guard lock(mutex_);
    out = timeline_;
    join_kernels(out, launches_);
  }
  normalize_timeline(out);
  return out;
}

void join_kernels(Timeline& timeline, const std::multimap<std::uint32_t, std::uint64_t>& launches) {
  if (launches.empty()) return;
  std::unordered_map<std::uint32_t, std::vector<TimelineEvent*>> kernels;
  for (auto& e : timeline.events)
    if (e.kind == ActivityKind::kernel && e.correlation_id != 0) kernels[e.correlation_id].push_back(&e);
  for (auto& [correlation, events] : kernels) {
    const auto [first, last] = launches.equal_range(correlation);
    std::vector<std::uint64_t> sequences;
    for (auto it = first; it != last; ++it) sequences.push_back(it->second);
    if (sequences.size() != events.size()) continue;
    std::sort(sequences.begin(), sequences.end());
    std::stable_sort(events.begin(), events.end(),
                     [](const TimelineEvent* a, const TimelineEvent* b) { return a->start_ns < b->start_ns; });
    for (std::size_t i = 0; i < events.size(); ++i) events[i]->launch_sequence = sequences[i];
  }
}

void apply_kernel_times(const Timeline& timeline, std::vector<KernelLaunch>& launches) {
  std::unordered_map<std::uint64_t, const TimelineEvent*> by_sequence;
  for (const auto& e : timeline.events)
    if (e.kind == ActivityKind::kernel && e.launch_sequence) by_sequence[*e.launch_sequence] = &e;
  for (auto& launch : launches) {
    if (launch.sampled) continue;  // an aggregate, not one launch
    if (auto it = by_sequence.find(launch.sequence); it != by_sequence.end()) {
      launch.start_ns = it->second->start_ns;
      launch.end_ns = it->second->end_ns;
      launch.duration_source = "activity";
    } else if (!launch.duration_source && launch.counter(kRangeDuration)) {
      launch.duration_source = "range";
    }
  }
}

}  // namespace limiter::detail
