// The program verdict (docs/design.md §7): where the profiled window's time went, from the activity
// timeline alone.
//
// Definitions (docs/method.md §The program verdict):
// - window: Timeline::start_ns..end_ns, the profiled window; every interval is clipped to it.
// - GPU busy: the union over all streams and devices of kernel, memcpy and memset intervals.
//   Kernel time is the union of the kernel intervals; "copies alone" is copy or memset time with
//   no kernel running: copies on the critical path.
// - idle = window - busy, split by what the host was doing (any of its threads; a sync wins over
//   a copy, a copy over a launch): inside a synchronisation (synchronization records, or an API
//   call whose name holds "Synchronize") -> sync; inside a memcpy call ("cuMemcpy*",
//   "cudaMemcpy*": the host stages pageable copies, or waits for a blocking one) -> copy; inside
//   any other CUDA call (cuLaunchKernel, cuGraphLaunch, cuMemsetAsync, ...: the queue ran dry
//   while the host was still issuing work), or between two such calls less than
//   ProgramThresholds::issue_gap_ns apart (the loop around the launches, and the tracer's own work per call, which
//   falls outside the call's record: on an H100, 20,000 launches of a tiny kernel took 6.3 us each under
//   --trace, ~3 us of it between the records) -> launch; in no CUDA call -> host. A timeline with no
//   API call and no synchronisation at all leaves its idle time unattributed.
// - verdict: GPU-bound when kernels are busy >= 80 % of the window, or >= 50 % and more than
//   any idle cause; else the largest of launch, sync, copy (idle in copies + copies alone),
//   host; "unknown" where unattributed idle time is the largest.
// - pauses: unbroken stretches of host time (GPU idle, no CUDA call on any host thread) of at
//   least ProgramThresholds::min_pause_ns. One-off pauses are set aside: the split and the
//   verdict are of the window without them (NVTX ranges keep theirs whole). They are one-off
//   when there are at most max_pauses of them and at least min_judged_ns is left; otherwise
//   they repeat (data loading on the main thread, a CPU phase per step) and are judged.
// - a program-level fix is listed in "what to fix first" when its time is >= 5 % of the window,
//   and ranked with the kernels by the time it can save: that idle time.
#include "limiter/program_verdict.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace limiter {
namespace {

struct Interval {
  std::uint64_t start = 0, end = 0;
};

// INTERVALS merged into disjoint, sorted ones, clipped to [LOW, HIGH).
std::vector<Interval> union_of(std::vector<Interval> intervals, std::uint64_t low, std::uint64_t high) {
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> merged;
  for (auto i : intervals) {
    i.start = std::max(i.start, low);
    i.end = std::min(i.end, high);
    if (i.end <= i.start) continue;
    if (!merged.empty() && i.start <= merged.back().end)
      merged.back().end = std::max(merged.back().end, i.end);
    else
      merged.push_back(i);
  }
  return merged;
}

// Sorted disjoint INTERVALS with the gaps shorter than GAP closed.
std::vector<Interval> bridged(std::vector<Interval> intervals, std::uint64_t gap) {
  std::vector<Interval> out;
  for (const auto& i : intervals) {
    if (!out.empty() && i.start - out.back().end < gap)
      out.back().end = std::max(out.back().end, i.end);
    else
      out.push_back(i);
  }
  return out;
}

bool is_sync_call(const std::string& name) { return name.find("Synchronize") != std::string::npos; }
bool is_copy_call(const std::string& name) { return name.starts_with("cuMemcpy") || name.starts_with("cudaMemcpy"); }

// What the window's time was at each moment, by priority: kernel > copies alone > idle causes.
enum class State { kernel, copy_only, sync, copy_call, launch, host, unattributed };
constexpr std::size_t kStates = 7;

struct Segment {
  std::uint64_t start = 0, end = 0;
  State state = State::host;
};

// The window cut into segments of one state each.
class Segmentation {
 public:
  Segmentation(const Timeline& timeline, bool host_activity, std::uint64_t issue_gap_ns) {
    const std::uint64_t low = timeline.start_ns, high = timeline.end_ns;
    std::vector<Interval> lists[5];  // kernel, gpu copy, sync, copy call, other call
    for (const auto& e : timeline.events) {
      const Interval i{e.start_ns, e.end_ns};
      switch (e.kind) {
        case ActivityKind::kernel:
          lists[0].push_back(i);
          break;
        case ActivityKind::memcpy:
        case ActivityKind::memset:
          lists[1].push_back(i);
          break;
        case ActivityKind::synchronization:
          lists[2].push_back(i);
          break;
        case ActivityKind::api_call:
          lists[is_sync_call(e.name) ? 2 : is_copy_call(e.name) ? 3 : 4].push_back(i);
          break;
        case ActivityKind::nvtx_range:
          break;
      }
    }
    std::vector<std::uint64_t> points{low, high};
    for (auto& list : lists) {
      list = union_of(std::move(list), low, high);
      if (&list == &lists[4]) list = bridged(std::move(list), issue_gap_ns);
      for (const auto& i : list) {
        points.push_back(i.start);
        points.push_back(i.end);
      }
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    std::size_t next[5] = {0, 0, 0, 0, 0};
    for (std::size_t p = 0; p + 1 < points.size(); ++p) {
      const std::uint64_t start = points[p], end = points[p + 1];
      if (start < low || end > high) continue;
      bool in[5];
      for (int l = 0; l < 5; ++l) {  // each list is sorted and disjoint: its cursor only moves on
        while (next[l] < lists[l].size() && lists[l][next[l]].end <= start) ++next[l];
        in[l] = next[l] < lists[l].size() && lists[l][next[l]].start <= start;
      }
      const State state = in[0]           ? State::kernel
                          : in[1]         ? State::copy_only
                          : in[2]         ? State::sync
                          : in[3]         ? State::copy_call
                          : in[4]         ? State::launch
                          : host_activity ? State::host
                                          : State::unattributed;
      if (!segments_.empty() && segments_.back().state == state && segments_.back().end == start)
        segments_.back().end = end;
      else
        segments_.push_back({start, end, state});
    }
  }

  // The host stretches in [START, END) of at least MIN_NS.
  std::vector<ProgramPause> pauses(std::uint64_t start, std::uint64_t end, double min_ns) const {
    std::vector<ProgramPause> out;
    for (const auto& s : segments_) {
      if (s.state != State::host) continue;
      const std::uint64_t from = std::max(s.start, start), to = std::min(s.end, end);
      if (to > from && static_cast<double>(to - from) >= min_ns) out.push_back({from, to});
    }
    return out;
  }

  // The split of [START, END).
  TimeSplit split(std::uint64_t start, std::uint64_t end) const {
    double by_state[kStates] = {};
    auto it =
        std::partition_point(segments_.begin(), segments_.end(), [&](const Segment& s) { return s.end <= start; });
    for (; it != segments_.end() && it->start < end; ++it) {
      const std::uint64_t from = std::max(it->start, start), to = std::min(it->end, end);
      if (to > from) by_state[static_cast<std::size_t>(it->state)] += static_cast<double>(to - from);
    }
    TimeSplit s;
    s.wall_ns = end > start ? static_cast<double>(end - start) : 0;
    s.kernel_ns = by_state[0];
    s.copy_only_ns = by_state[1];
    s.gpu_busy_ns = s.kernel_ns + s.copy_only_ns;
    s.idle_sync_ns = by_state[2];
    s.idle_copy_ns = by_state[3];
    s.idle_launch_ns = by_state[4];
    s.idle_host_ns = by_state[5];
    s.idle_unattributed_ns = by_state[6];
    s.idle_ns = s.wall_ns - s.gpu_busy_ns;
    return s;
  }

 private:
  std::vector<Segment> segments_;
};

void add_to(TimeSplit& sum, const TimeSplit& part) {
  sum.wall_ns += part.wall_ns;
  sum.gpu_busy_ns += part.gpu_busy_ns;
  sum.kernel_ns += part.kernel_ns;
  sum.copy_only_ns += part.copy_only_ns;
  sum.idle_ns += part.idle_ns;
  sum.idle_launch_ns += part.idle_launch_ns;
  sum.idle_sync_ns += part.idle_sync_ns;
  sum.idle_copy_ns += part.idle_copy_ns;
  sum.idle_host_ns += part.idle_host_ns;
  sum.idle_unattributed_ns += part.idle_unattributed_ns;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

ProgramEvidence evidence_of(const Timeline& timeline) {
  ProgramEvidence ev;
  ev.dropped_records = timeline.dropped_records;
  double kernel_total = 0, launch_call_total = 0;
  std::vector<Interval> kernels;
  Interval runtime_call;  // the last runtime API call (events come sorted by start)
  for (const auto& e : timeline.events) {
    const double ns = static_cast<double>(e.duration_ns());
    switch (e.kind) {
      case ActivityKind::kernel:
        ++ev.kernels;
        kernel_total += ns;
        kernels.push_back({e.start_ns, e.end_ns});
        break;
      case ActivityKind::memcpy:
        ++ev.copies;
        ev.copy_bytes += e.bytes.value_or(0);
        if (e.pageable.value_or(false)) {
          ++ev.pageable_copies;
          ev.pageable_copy_bytes += e.bytes.value_or(0);
        }
        break;
      case ActivityKind::memset:
        ++ev.memsets;
        break;
      case ActivityKind::synchronization:
        ++ev.synchronizations;
        ev.sync_call_ns += ns;
        break;
      case ActivityKind::api_call:
        // The driver's call inside the runtime's (cuLaunchKernel inside cudaLaunchKernel: the
        // collector records both where it can) is one call.
        if (!e.name.starts_with("cuda") && e.start_ns >= runtime_call.start && e.end_ns <= runtime_call.end) break;
        if (e.name.starts_with("cuda")) runtime_call = {e.start_ns, e.end_ns};
        ++ev.api_calls;
        if (is_sync_call(e.name)) {
          ev.sync_call_ns += ns;
        } else if (!is_copy_call(e.name)) {
          ++ev.launch_calls;
          launch_call_total += ns;
        }
        break;
      case ActivityKind::nvtx_range:
        ++ev.nvtx_ranges;
        break;
    }
  }
  ev.host_activity = ev.api_calls + ev.synchronizations > 0;
  if (ev.kernels) ev.mean_kernel_ns = kernel_total / static_cast<double>(ev.kernels);
  if (ev.launch_calls) ev.mean_launch_call_ns = launch_call_total / static_cast<double>(ev.launch_calls);
  if (timeline.duration_ns() > 0)
    ev.launches_per_second = static_cast<double>(ev.kernels) * 1e9 / static_cast<double>(timeline.duration_ns());
  // Gaps between consecutive kernels on the GPU as a whole (kernels merged over streams).
  const auto merged = union_of(std::move(kernels), timeline.start_ns, std::max(timeline.end_ns, timeline.start_ns));
  std::vector<double> gaps;
  for (std::size_t i = 1; i < merged.size(); ++i)
    gaps.push_back(static_cast<double>(merged[i].start - merged[i - 1].end));
  ev.median_kernel_gap_ns = median(std::move(gaps));
  return ev;
}

}  // namespace

std::string_view to_string(ProgramBound bound) {
  switch (bound) {
    case ProgramBound::gpu:
      return "GPU-bound";
    case ProgramBound::launch:
      return "launch-bound";
    case ProgramBound::sync:
      return "sync-bound";
    case ProgramBound::copy:
      return "copy-bound";
    case ProgramBound::host:
      return "host-bound";
    case ProgramBound::unknown:
      return "idle (cause unknown)";
  }
  return "GPU-bound";
}

std::string_view program_bound_key(ProgramBound bound) {
  switch (bound) {
    case ProgramBound::gpu:
      return "gpu";
    case ProgramBound::launch:
      return "launch";
    case ProgramBound::sync:
      return "sync";
    case ProgramBound::copy:
      return "copy";
    case ProgramBound::host:
      return "host";
    case ProgramBound::unknown:
      return "unknown";
  }
  return "gpu";
}

double TimeSplit::time_of(ProgramBound bound) const {
  switch (bound) {
    case ProgramBound::gpu:
      return kernel_ns;
    case ProgramBound::launch:
      return idle_launch_ns;
    case ProgramBound::sync:
      return idle_sync_ns;
    case ProgramBound::copy:
      return idle_copy_ns + copy_only_ns;
    case ProgramBound::host:
      return idle_host_ns;
    case ProgramBound::unknown:
      return idle_unattributed_ns;
  }
  return 0;
}

ProgramBound program_bound_of(const TimeSplit& split, bool host_activity, const ProgramThresholds& thresholds) {
  (void)host_activity;  // unattributed time is zero wherever the host was recorded
  if (split.wall_ns <= 0) return ProgramBound::gpu;
  ProgramBound largest = ProgramBound::launch;
  for (const auto bound :
       {ProgramBound::launch, ProgramBound::sync, ProgramBound::copy, ProgramBound::host, ProgramBound::unknown})
    if (split.time_of(bound) > split.time_of(largest)) largest = bound;
  const double kernels = split.kernel_share();
  if (kernels >= thresholds.gpu_bound_share) return ProgramBound::gpu;
  if (kernels >= thresholds.gpu_majority_share && split.kernel_ns >= split.time_of(largest)) return ProgramBound::gpu;
  return split.time_of(largest) > 0 ? largest : ProgramBound::gpu;
}

ProgramVerdict judge_program(const Timeline& timeline, const ProgramThresholds& thresholds) {
  ProgramVerdict program;
  program.thresholds = thresholds;
  program.window_start_ns = timeline.start_ns;
  program.window_end_ns = std::max(timeline.end_ns, timeline.start_ns);
  program.evidence = evidence_of(timeline);
  const Segmentation segments(timeline, program.evidence.host_activity,
                              static_cast<std::uint64_t>(thresholds.issue_gap_ns));
  program.split = segments.split(program.window_start_ns, program.window_end_ns);
  program.pauses = segments.pauses(program.window_start_ns, program.window_end_ns, thresholds.min_pause_ns);
  for (const auto& pause : program.pauses) program.paused_ns += pause.duration_ns();
  if (program.pauses.size() > thresholds.max_pauses ||
      program.split.wall_ns - program.paused_ns < thresholds.min_judged_ns) {
    program.pauses.clear();  // not one-off: judged with the rest
    program.paused_ns = 0;
  }
  program.split.wall_ns -= program.paused_ns;
  program.split.idle_ns -= program.paused_ns;
  program.split.idle_host_ns -= program.paused_ns;
  if (program.split.wall_ns > 0)  // launches a second while the program runs, not while it pauses
    program.evidence.launches_per_second = static_cast<double>(program.evidence.kernels) * 1e9 / program.split.wall_ns;
  program.verdict = program_bound_of(program.split, program.evidence.host_activity, thresholds);
  // Per NVTX range path: its instances' splits summed.
  std::map<std::string, RangeProgramVerdict> ranges;
  for (const auto& e : timeline.events) {
    if (e.kind != ActivityKind::nvtx_range) continue;
    auto& range = ranges[e.name];
    range.range = e.name;
    ++range.instances;
    add_to(range.split,
           segments.split(std::max(e.start_ns, program.window_start_ns), std::min(e.end_ns, program.window_end_ns)));
  }
  for (auto& [name, range] : ranges) {
    range.verdict = program_bound_of(range.split, program.evidence.host_activity, thresholds);
    program.ranges.push_back(std::move(range));
  }
  std::stable_sort(program.ranges.begin(), program.ranges.end(),
                   [](const auto& a, const auto& b) { return a.split.wall_ns > b.split.wall_ns; });
  detail::word_program_verdict(program);
  return program;
}

}  // namespace limiter
