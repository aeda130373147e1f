// Before/after comparison: match launches, measure time changes, mark noise, apply the gate.
// Every launch is keyed by its kernel and configuration once (compare_groups.hpp), so matching is
// linear: the k-th launch of a key in BEFORE meets the k-th of the same key in AFTER. Runs whose records
// selected their launches differently meet once per key instead, by mean time per launch.
#include "limiter/compare.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "analysis/compare_groups.hpp"

namespace limiter {
namespace {

// Each launch of both runs numbered by its kernel and configuration (one numbering for both).
struct Grouping {
  std::vector<std::uint32_t> before, after;  // group of each launch
  std::size_t groups = 0;
};

Grouping group_launches(const ComparedRun& before, const ComparedRun& after) {
  detail::LaunchGroups groups;
  Grouping grouping;
  const auto number = [&](const ComparedRun& run, std::vector<std::uint32_t>& out) {
    out.reserve(run.launches.size());
    for (const auto& k : run.launches) out.push_back(groups.of(k.name, k.grid, k.block));
  };
  number(before, grouping.before);
  number(after, grouping.after);
  grouping.groups = groups.size();
  return grouping;
}

// Durations of each group's launches. A sampled aggregate counts as its launches when
// AGGREGATES_AS_LAUNCHES (per launch), as one entry otherwise (the order match, as it was).
std::vector<DurationStats> group_durations(const ComparedRun& run, const std::vector<std::uint32_t>& group_of,
                                           std::size_t groups, bool aggregates_as_launches) {
  std::vector<DurationStats> stats(groups);
  for (std::size_t i = 0; i < run.launches.size(); ++i) {
    const auto& k = run.launches[i];
    if (aggregates_as_launches && k.aggregated_launches > 0) stats[group_of[i]].add_aggregate(k.duration_ns, k.aggregated_launches);
    else stats[group_of[i]].add(k.duration_ns);
  }
  return stats;
}

bool within(double value, const DurationStats& spread) {
  return spread.min_ns && spread.max_ns && value >= *spread.min_ns && value <= *spread.max_ns;
}

// A single launch per side has no spread to compare with: only repeated launches tell noise.
bool is_noise(const TimeChange& time, const DurationStats& before, const DurationStats& after) {
  if (!time.before_ns || !time.after_ns) return false;
  if (before.timed_launches < 2 && after.timed_launches < 2) return false;
  return within(*time.after_ns, before) || within(*time.before_ns, after);
}

bool slower_than(const TimeChange& time, const std::optional<double>& max_slowdown) {
  return max_slowdown && time.change && *time.change > *max_slowdown;
}

// Sums of durations; empty when no launch is timed.
struct TimeSum {
  double ns = 0;
  bool timed = false;
  void add(const std::optional<double>& duration) {
    if (!duration) return;
    ns += *duration;
    timed = true;
  }
  std::optional<double> value() const { return timed ? std::optional<double>(ns) : std::nullopt; }
};

KernelComparison compared(const ComparedLaunch& before, const ComparedLaunch& after, std::size_t occurrence, TimeChange time,
                          std::uint32_t group, const RunComparison& result, const std::optional<double>& max_slowdown) {
  KernelComparison comparison;
  comparison.occurrence = occurrence;
  comparison.before = before;
  comparison.after = after;
  comparison.time = time;
  comparison.group = group;
  comparison.within_noise = is_noise(time, result.before_spreads[group], result.after_spreads[group]);
  comparison.verdict_changed = comparison.before.verdict != comparison.after.verdict;
  comparison.slower_than_limit = !comparison.within_noise && slower_than(comparison.time, max_slowdown);
  return comparison;
}

// The same selection: the k-th launch of a kernel and configuration against the k-th.
void match_in_order(const ComparedRun& before, const ComparedRun& after, const Grouping& grouping, const CompareOptions& options,
                    RunComparison& result) {
  result.before_spreads = group_durations(before, grouping.before, grouping.groups, false);
  result.after_spreads = group_durations(after, grouping.after, grouping.groups, false);
  // AFTER's launches by group, in launch order: a group's in one run of PARTNERS from its START.
  std::vector<std::size_t> start(grouping.groups + 1, 0);
  for (const std::uint32_t group : grouping.after) ++start[group + 1];
  for (std::size_t g = 0; g < grouping.groups; ++g) start[g + 1] += start[g];
  std::vector<std::uint32_t> partners(after.launches.size());
  {
    std::vector<std::size_t> next(start.begin(), start.end() - 1);
    for (std::size_t j = 0; j < after.launches.size(); ++j) partners[next[grouping.after[j]]++] = static_cast<std::uint32_t>(j);
  }
  std::vector<std::size_t> seen(grouping.groups, 0);
  std::vector<bool> after_matched(after.launches.size(), false);
  result.matched.reserve(std::min(before.launches.size(), after.launches.size()));
  TimeSum matched_before, matched_after;
  for (std::size_t i = 0; i < before.launches.size(); ++i) {
    const std::uint32_t group = grouping.before[i];
    const std::size_t occurrence = seen[group]++;
    if (occurrence >= start[group + 1] - start[group]) {
      result.only_before.push_back(before.launches[i]);
      continue;
    }
    const std::size_t partner = partners[start[group] + occurrence];
    after_matched[partner] = true;
    const TimeChange time = time_change(before.launches[i].duration_ns, after.launches[partner].duration_ns);
    matched_before.add(time.before_ns);
    matched_after.add(time.after_ns);
    result.matched.push_back(
        compared(before.launches[i], after.launches[partner], occurrence, time, group, result, options.max_slowdown));
  }
  for (std::size_t j = 0; j < after.launches.size(); ++j)
    if (!after_matched[j]) result.only_after.push_back(after.launches[j]);
  result.totals.matched = time_change(matched_before.value(), matched_after.value());
}

// How many launches of each group the run saw, where it knows: kernels_seen (per-kernel
// budgets), or the launches it holds when it holds every one (aggregates count theirs).
std::vector<std::optional<double>> launches_seen_by_group(const ComparedRun& run, const LaunchSelection& selection,
                                                          const std::vector<std::uint32_t>& group_of,
                                                          const std::vector<DurationStats>& stats) {
  std::vector<std::optional<double>> seen_by_group(stats.size());
  detail::LaunchGroups groups;  // of kernels_seen
  std::vector<std::uint64_t> seen;
  for (const auto& k : run.kernels_seen) {
    const std::uint32_t group = groups.of(k.name, k.grid, k.block);
    if (group == seen.size()) seen.push_back(0);
    seen[group] += k.launches;
  }
  const bool holds_every = selection.kind == LaunchSelection::Kind::every || selection.kind == LaunchSelection::Kind::sampled;
  for (std::size_t i = 0; i < run.launches.size(); ++i) {
    const auto& k = run.launches[i];
    if (const std::uint32_t* found = groups.find(k.name, k.grid, k.block))
      seen_by_group[group_of[i]] = static_cast<double>(seen[*found]);
    else if (holds_every && seen.empty())
      seen_by_group[group_of[i]] = static_cast<double>(stats[group_of[i]].timed_launches);
  }
  return seen_by_group;
}

// Mean time per launch over the groups IN, each weighted by its launches seen: BEFORE's count
// where known, else AFTER's, else the side's own launches. Both sides then average the same
// mix of launches, however few of each they profiled.
std::optional<double> mean_per_launch(const std::vector<DurationStats>& stats,
                                      const std::vector<std::optional<double>>& before_seen,
                                      const std::vector<std::optional<double>>& after_seen, const std::vector<bool>& in) {
  double time = 0, launches = 0;
  for (std::size_t g = 0; g < stats.size(); ++g) {
    if (!in[g] || !stats[g].mean_ns) continue;
    const double weight =
        before_seen[g].value_or(after_seen[g].value_or(static_cast<double>(stats[g].timed_launches)));
    time += *stats[g].mean_ns * weight;
    launches += weight;
  }
  return launches > 0 ? std::optional<double>(time / launches) : std::nullopt;
}

// Different selections: each kernel and configuration once, by its mean time per launch.
void match_per_launch(const ComparedRun& before, const ComparedRun& after, const Grouping& grouping, const CompareOptions& options,
                      RunComparison& result) {
  result.before_spreads = group_durations(before, grouping.before, grouping.groups, true);
  result.after_spreads = group_durations(after, grouping.after, grouping.groups, true);
  const auto& before_stats = result.before_spreads;
  const auto& after_stats = result.after_spreads;
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> first_after(grouping.groups, kNone), first_before(grouping.groups, kNone);
  for (std::size_t j = 0; j < after.launches.size(); ++j)
    if (first_after[grouping.after[j]] == kNone) first_after[grouping.after[j]] = j;
  for (std::size_t i = 0; i < before.launches.size(); ++i)
    if (first_before[grouping.before[i]] == kNone) first_before[grouping.before[i]] = i;
  std::vector<bool> matched(grouping.groups, false), every(grouping.groups, true);
  for (std::size_t g = 0; g < grouping.groups; ++g) matched[g] = first_before[g] != kNone && first_after[g] != kNone;
  const auto before_seen = launches_seen_by_group(before, result.before_selection, grouping.before, before_stats);
  const auto after_seen = launches_seen_by_group(after, result.after_selection, grouping.after, after_stats);
  result.totals.all = time_change(mean_per_launch(before_stats, before_seen, after_seen, every),
                                  mean_per_launch(after_stats, before_seen, after_seen, every));
  result.totals.matched = time_change(mean_per_launch(before_stats, before_seen, after_seen, matched),
                                      mean_per_launch(after_stats, before_seen, after_seen, matched));

  for (std::size_t i = 0; i < before.launches.size(); ++i) {
    const std::uint32_t group = grouping.before[i];
    if (!matched[group]) {
      result.only_before.push_back(before.launches[i]);
      continue;
    }
    if (first_before[group] != i) continue;
    const auto& b = before_stats[group];
    const auto& a = after_stats[group];
    result.matched.push_back(compared(before.launches[i], after.launches[first_after[group]], 0,
                                      time_change(b.mean_ns, a.mean_ns), group, result, options.max_slowdown));
  }
  for (std::size_t j = 0; j < after.launches.size(); ++j)
    if (!matched[grouping.after[j]]) result.only_after.push_back(after.launches[j]);
}

std::string caches_words(const std::string& cache_control) {
  return cache_control == "all" ? "L2 flushed before each launch (--cache-control all)"
                                : "the app's own caches (--cache-control " + cache_control + ")";
}

std::string cache_warning(const std::optional<std::string>& before, const std::optional<std::string>& after) {
  if (!before || !after || *before == *after) return "";
  return "before measured with " + caches_words(*before) + ", after with " + caches_words(*after) +
         ": times and memory traffic differ by the caches as well as by the change";
}

RunComparison compare(const ComparedRun& before, const ComparedRun& after, const CompareOptions& options) {
  RunComparison result;
  result.before_label = options.before_label;
  result.after_label = options.after_label;
  result.before_device = before.device;
  result.after_device = after.device;
  result.before_source = before.source;
  result.after_source = after.source;
  result.before_cache_control = before.cache_control;
  result.after_cache_control = after.cache_control;
  result.cache_warning = cache_warning(before.cache_control, after.cache_control);
  result.max_slowdown = options.max_slowdown;
  result.thresholds = before.thresholds;
  result.names = {before.names, after.names};
  result.before_selection = before.selection ? *before.selection : launch_selection(before);
  result.after_selection = after.selection ? *after.selection : launch_selection(after);
  result.per_launch = !same_selection(result.before_selection, result.after_selection);
  if (result.per_launch)
    result.selection_warning = "before " + result.before_selection.description + "; after " +
                               result.after_selection.description + ": totals are not comparable, compared per launch";

  TimeSum before_total, after_total;
  for (const auto& k : before.launches) before_total.add(k.duration_ns);
  for (const auto& k : after.launches) after_total.add(k.duration_ns);
  result.totals.before_launches = before.launches.size();
  result.totals.after_launches = after.launches.size();
  result.totals.all = time_change(before_total.value(), after_total.value());

  const Grouping grouping = group_launches(before, after);
  if (result.per_launch) match_per_launch(before, after, grouping, options, result);
  else match_in_order(before, after, grouping, options, result);
  result.totals.slower_than_limit = slower_than(result.totals.all, options.max_slowdown);
  return result;
}

}  // namespace

TimeChange time_change(std::optional<double> before_ns, std::optional<double> after_ns) {
  TimeChange change;
  change.before_ns = before_ns;
  change.after_ns = after_ns;
  if (before_ns && after_ns && *before_ns > 0) {
    change.ratio = *after_ns / *before_ns;
    change.change = *change.ratio - 1.0;
  }
  return change;
}

std::string_view NameTable::intern(std::string_view text) {
  auto found = names_.find(text);
  if (found == names_.end()) found = names_.emplace(text).first;
  return *found;
}

void ComparedRun::add(const KernelAnalysis& k) {
  ComparedLaunch launch;
  launch.sequence = k.sequence;
  launch.name = names->intern(k.name);
  launch.grid = k.grid;
  launch.block = k.block;
  launch.duration_ns = k.duration_ns;
  launch.verdict = k.verdict;
  launch.balanced = k.balanced;
  launch.limiting_unit = names->intern(k.limiting_unit);
  if (k.sampled) {
    launch.aggregated_launches = k.sampled->launches;
    launch.exact_launches = k.sampled->exact_launches;
  }
  launch.utilization = {k.utilization.issue, k.utilization.l2, k.utilization.dram, k.utilization.compute(),
                        k.utilization.memory()};
  launch.lmem = {k.lmem.l2_share, k.lmem.instruction_share};
  launches.push_back(launch);
}

ComparedRun compared_run(const RunAnalysis& analysis) {
  ComparedRun run;
  run.device = analysis.device;
  run.source = analysis.source;
  run.thresholds = analysis.thresholds;
  run.launches_seen = analysis.launches_seen;
  run.kernels_seen = analysis.kernels_seen;
  run.cache_control = analysis.cache_control;
  for (const auto& m : analysis.missed) run.missed_launches += m.launches;
  run.launches.reserve(analysis.kernels.size());
  for (const auto& k : analysis.kernels) run.add(k);
  return run;
}

bool RunComparison::failed() const { return totals.slower_than_limit || slower_kernel_count() > 0; }

std::size_t RunComparison::slower_kernel_count() const {
  return static_cast<std::size_t>(
      std::count_if(matched.begin(), matched.end(), [](const KernelComparison& k) { return k.slower_than_limit; }));
}

RunComparison compare_runs(ComparedRun before, ComparedRun after, const CompareOptions& options) {
  return compare(before, after, options);
}

RunComparison compare_runs(const RunAnalysis& before, const RunAnalysis& after, const CompareOptions& options) {
  return compare(compared_run(before), compared_run(after), options);
}

}  // namespace limiter
