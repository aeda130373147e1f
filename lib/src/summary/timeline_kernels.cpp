// The summary's kernels by their time on the record's timeline, as `nsys stats -r
// cuda_gpu_kern_sum` gives it. A default run profiles each kernel's first launches (their
// counters give the verdict) and then records every launch at the app's own pace: that time is
// what a kernel costs the program, so the groups are ranked by it.
#include "summary/timeline_kernels.hpp"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "summary/display_names.hpp"
#include "summary/group_index.hpp"

namespace limiter::detail {
namespace {

// The configuration of a kernel event that has none (records before it): "—" in the reports.
constexpr Dim3 kNoConfiguration{0, 0, 0};

bool has_phase(const RunRecord& run, std::string_view name) {
  return std::any_of(run.phases.begin(), run.phases.end(), [&](const PhaseWindow& p) { return p.name == name; });
}

bool seen_while_profiling(const RunRecord& run, const KernelSummary& group) {
  return std::any_of(run.kernels_seen.begin(), run.kernels_seen.end(), [&](const KernelSeen& k) {
    return k.name == group.name && k.grid == group.grid && k.block == group.block;
  });
}

// Why GROUP, a kernel of the timeline, has no launch in the record: what the user can do about it.
std::string no_counters_reason(const RunRecord& run, const RunSummary& summary, const KernelSummary& group) {
  if (has_phase(run, "counters")) {
    if (seen_while_profiling(run, group))
      return "no counters: seen in the counters phase but not profiled (a filter, or the launches not profiled above)";
    return "no counters: first seen after the counters phase (`limiter run --every-launch` or a larger "
           "--per-kernel-count profiles it)";
  }
  if (summary.launches == 0)
    return "no counters: the record holds the timeline alone (`limiter run` without --trace profiles it)";
  return "no counters: none of its launches was profiled (a filter or a budget left them out)";
}

}  // namespace

void add_timeline_kernels(RunSummary& summary, const RunRecord& header, std::size_t fix_first_limit) {
  if (!header.timeline) return;
  const auto& events = header.timeline->events;
  TimelineKernelTotals totals;
  totals.window_ns = header.timeline->duration_ns();
  std::unordered_set<std::string_view> names;
  for (const auto& e : events) {
    if (e.kind != ActivityKind::kernel) continue;
    ++totals.launches;
    totals.kernel_ns += static_cast<double>(e.duration_ns());
    names.insert(e.name);
  }
  if (totals.launches == 0) return;  // a timeline of copies alone: the groups stay as they were
  totals.kernels = names.size();

  KernelSelection selection(summary.kernel_regex);
  GroupIndex index;  // the groups by name and configuration, looked up with each event's own name
  std::unordered_map<std::string, std::size_t>
      first_named;  // an event without its configuration joins its name's first
  auto& groups = summary.groups;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    index.slots.emplace(GroupIndex::Key{groups[i].name, groups[i].grid, groups[i].block}, i);
    first_named.try_emplace(groups[i].name, i);
  }
  const std::size_t profiled_groups = groups.size();
  std::vector<TimelineKernelTime> times(groups.size());
  for (const auto& e : events) {
    if (e.kind != ActivityKind::kernel) continue;
    if (!first_named.count(e.name) && !selection.selects(e.name)) continue;  // its launches' names decided first
    const bool configured = e.grid && e.block;
    const Dim3 grid = configured ? *e.grid : kNoConfiguration, block = configured ? *e.block : kNoConfiguration;
    auto slot = index.slots.find(GroupIndex::KeyView{e.name, grid, block});
    std::size_t group = 0;
    if (slot != index.slots.end()) {
      group = slot->second;
    } else if (const auto named = first_named.find(e.name); !configured && named != first_named.end()) {
      group = named->second;
    } else {  // a kernel, or a configuration, with no launch in the record: a group of its own
      KernelSummary added;
      added.name = e.name;
      added.grid = grid;
      added.block = block;
      groups.push_back(std::move(added));
      times.emplace_back();
      group = groups.size() - 1;
      index.slots.emplace(GroupIndex::Key{e.name, grid, block}, group);
      first_named.try_emplace(e.name, group);
    }
    ++times[group].launches;
    times[group].durations.add(static_cast<double>(e.duration_ns()));
  }
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (times[i].durations.total_ns && totals.kernel_ns > 0)
      times[i].time_share = *times[i].durations.total_ns / totals.kernel_ns;
    groups[i].timeline = std::move(times[i]);
    if (i < profiled_groups) continue;
    groups[i].no_counters = no_counters_reason(header, summary, groups[i]);
    ++totals.without_counters;
  }
  name_kernels(summary);  // the kernels first seen on the timeline too
  note_unselected(summary, selection);
  // Most timeline time first; stable: a kernel profiled but not on the timeline keeps its place
  // among those, by its counters' time.
  std::stable_sort(groups.begin(), groups.end(),
                   [](const KernelSummary& a, const KernelSummary& b) { return a.ranked_ns() > b.ranked_ns(); });
  summary.group_index.clear();
  for (std::size_t i = 0; i < groups.size(); ++i)
    summary.group_index[RunSummary::group_key(groups[i].name, groups[i].grid, groups[i].block)] = i;
  choose_fix_first(summary, fix_first_limit);
  summary.timeline_kernels = totals;
}

}  // namespace limiter::detail
