// Before/after comparison: group launches by kernel and configuration, compare each group's
// mean time per launch, mark noise from the launches' spread, apply the gate. Every launch is
// keyed by its kernel and configuration once (compare_groups.hpp), so grouping is linear. With
// launch rows, the k-th launch of a key in BEFORE meets the k-th of the same key in AFTER. Runs
// whose records selected their launches differently meet once per key, by mean time per launch.
#include "limiter/compare.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "analysis/compare_context.hpp"
#include "analysis/compare_groups.hpp"

namespace limiter {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// Each launch of both runs numbered by its kernel and configuration (one numbering for both),
// and each group's first launch on each side (kNone where it has none).
struct Grouping {
  std::vector<std::uint32_t> before, after;  // group of each launch
  std::vector<std::size_t> first_before, first_after;
  std::size_t groups = 0;
  bool matched(std::uint32_t group) const { return first_before[group] != kNone && first_after[group] != kNone; }
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
  const auto firsts = [&](const std::vector<std::uint32_t>& group_of, std::vector<std::size_t>& first) {
    first.assign(grouping.groups, kNone);
    for (std::size_t i = 0; i < group_of.size(); ++i)
      if (first[group_of[i]] == kNone) first[group_of[i]] = i;
  };
  firsts(grouping.before, grouping.first_before);
  firsts(grouping.after, grouping.first_after);
  return grouping;
}

// Durations of each group's launches; a sampled aggregate counts as its launches. And how many
// launches each group has, timed or not.
void group_durations(const ComparedRun& run, const std::vector<std::uint32_t>& group_of, std::size_t groups,
                     std::vector<DurationStats>& stats, std::vector<std::uint64_t>& counts) {
  stats.assign(groups, {});
  counts.assign(groups, 0);
  for (std::size_t i = 0; i < run.launches.size(); ++i) {
    const auto& k = run.launches[i];
    if (k.aggregated_launches > 0)
      stats[group_of[i]].add_aggregate(k.duration_ns, k.aggregated_launches);
    else
      stats[group_of[i]].add(k.duration_ns);
    counts[group_of[i]] += k.aggregated_launches > 0 ? k.aggregated_launches : 1;
  }
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

// One row per kernel and configuration on both sides, in BEFORE's order: its mean time per
// launch, its noise and its gate.
void compare_groups(const ComparedRun& before, const ComparedRun& after, const Grouping& grouping,
                    const CompareOptions& options, RunComparison& result) {
  for (std::size_t i = 0; i < before.launches.size(); ++i) {
    const std::uint32_t group = grouping.before[i];
    if (grouping.first_before[group] != i || !grouping.matched(group)) continue;
    KernelComparison row;
    row.before = before.launches[i];
    row.after = after.launches[grouping.first_after[group]];
    row.group = group;
    row.time = time_change(result.before_spreads[group].mean_ns, result.after_spreads[group].mean_ns);
    row.within_noise = change_is_noise(result.before_spreads[group], result.after_spreads[group]);
    row.verdict_changed = row.before.verdict != row.after.verdict;
    row.slower_than_limit = !row.within_noise && slower_than(row.time, options.max_slowdown);
    result.kernels.push_back(row);
  }
}

// The kernels and configurations of RUN that the other side lacks: their first launch, count and time.
std::vector<UnmatchedKernel> unmatched_groups(const ComparedRun& run, const std::vector<std::uint32_t>& group_of,
                                              const std::vector<std::size_t>& first, const Grouping& grouping,
                                              const std::vector<DurationStats>& spreads,
                                              const std::vector<std::uint64_t>& counts) {
  std::vector<UnmatchedKernel> unmatched;
  for (std::size_t i = 0; i < run.launches.size(); ++i) {
    const std::uint32_t group = group_of[i];
    if (first[group] == i && !grouping.matched(group))
      unmatched.push_back({run.launches[i], counts[group], spreads[group].total_ns});
  }
  return unmatched;
}

// Launch rows (--launches, the same selection): the k-th launch of a kernel and configuration
// against the k-th; each row carries its group's noise and gate.
void match_in_order(const ComparedRun& before, const ComparedRun& after, const Grouping& grouping,
                    RunComparison& result) {
  std::vector<const KernelComparison*> row_of_group(grouping.groups, nullptr);
  for (const auto& row : result.kernels) row_of_group[row.group] = &row;
  // AFTER's launches by group, in launch order: a group's in one run of PARTNERS from its START.
  std::vector<std::size_t> start(grouping.groups + 1, 0);
  for (const std::uint32_t group : grouping.after) ++start[group + 1];
  for (std::size_t g = 0; g < grouping.groups; ++g) start[g + 1] += start[g];
  std::vector<std::uint32_t> partners(after.launches.size());
  {
    std::vector<std::size_t> next(start.begin(), start.end() - 1);
    for (std::size_t j = 0; j < after.launches.size(); ++j)
      partners[next[grouping.after[j]]++] = static_cast<std::uint32_t>(j);
  }
  std::vector<std::size_t> seen(grouping.groups, 0);
  std::vector<bool> after_matched(after.launches.size(), false);
  result.matched.reserve(std::min(before.launches.size(), after.launches.size()));
  TimeSum matched_before, matched_after;
  for (std::size_t i = 0; i < before.launches.size(); ++i) {
    const auto& launch = before.launches[i];
    const std::uint32_t group = grouping.before[i];
    const std::size_t occurrence = seen[group]++;
    if (occurrence >= start[group + 1] - start[group]) {
      result.only_before.push_back({launch, 1, launch.duration_ns});
      continue;
    }
    const std::size_t partner = partners[start[group] + occurrence];
    after_matched[partner] = true;
    KernelComparison row = *row_of_group[group];
    row.occurrence = occurrence;
    row.before = launch;
    row.after = after.launches[partner];
    row.time = time_change(launch.duration_ns, row.after.duration_ns);
    row.verdict_changed = row.before.verdict != row.after.verdict;
    matched_before.add(row.time.before_ns);
    matched_after.add(row.time.after_ns);
    result.matched.push_back(row);
  }
  for (std::size_t j = 0; j < after.launches.size(); ++j)
    if (!after_matched[j]) result.only_after.push_back({after.launches[j], 1, after.launches[j].duration_ns});
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
  const bool holds_every =
      selection.kind == LaunchSelection::Kind::every || selection.kind == LaunchSelection::Kind::sampled;
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
                                      const std::vector<std::optional<double>>& after_seen,
                                      const std::vector<bool>& in) {
  double time = 0, launches = 0;
  for (std::size_t g = 0; g < stats.size(); ++g) {
    if (!in[g] || !stats[g].mean_ns) continue;
    const double weight = before_seen[g].value_or(after_seen[g].value_or(static_cast<double>(stats[g].timed_launches)));
    time += *stats[g].mean_ns * weight;
    launches += weight;
  }
  return launches > 0 ? std::optional<double>(time / launches) : std::nullopt;
}

// Different selections: the totals as means per launch, each group weighted alike on both sides.
void mean_totals(const ComparedRun& before, const ComparedRun& after, const Grouping& grouping, RunComparison& result) {
  std::vector<bool> matched(grouping.groups, false), every(grouping.groups, true);
  for (std::uint32_t g = 0; g < grouping.groups; ++g) matched[g] = grouping.matched(g);
  const auto& before_stats = result.before_spreads;
  const auto& after_stats = result.after_spreads;
  const auto before_seen = launches_seen_by_group(before, result.before_selection, grouping.before, before_stats);
  const auto after_seen = launches_seen_by_group(after, result.after_selection, grouping.after, after_stats);
  result.totals.all = time_change(mean_per_launch(before_stats, before_seen, after_seen, every),
                                  mean_per_launch(after_stats, before_seen, after_seen, every));
  result.totals.matched = time_change(mean_per_launch(before_stats, before_seen, after_seen, matched),
                                      mean_per_launch(after_stats, before_seen, after_seen, matched));
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
  result.before_program = before.program;
  result.after_program = after.program;
  result.before_selection = before.selection ? *before.selection : launch_selection(before);
  result.after_selection = after.selection ? *after.selection : launch_selection(after);
  // A record without launches (PC samples alone) has no totals to make comparable.
  result.per_launch = !before.launches.empty() && !after.launches.empty() &&
                      !same_selection(result.before_selection, result.after_selection);
  if (result.per_launch)
    result.selection_warning = "before " + result.before_selection.description + "; after " +
                               result.after_selection.description + ": totals are not comparable, compared per launch";
  result.launch_rows = options.launch_rows && !result.per_launch;

  TimeSum before_total, after_total;
  for (const auto& k : before.launches) before_total.add(k.duration_ns);
  for (const auto& k : after.launches) after_total.add(k.duration_ns);
  result.totals.before_launches = before.launches.size();
  result.totals.after_launches = after.launches.size();
  result.totals.all = time_change(before_total.value(), after_total.value());

  const Grouping grouping = group_launches(before, after);
  group_durations(before, grouping.before, grouping.groups, result.before_spreads, result.before_counts);
  group_durations(after, grouping.after, grouping.groups, result.after_spreads, result.after_counts);
  compare_groups(before, after, grouping, options, result);
  if (result.launch_rows) {
    match_in_order(before, after, grouping, result);
  } else {
    result.matched = result.kernels;
    result.only_before = unmatched_groups(before, grouping.before, grouping.first_before, grouping,
                                          result.before_spreads, result.before_counts);
    result.only_after = unmatched_groups(after, grouping.after, grouping.first_after, grouping, result.after_spreads,
                                         result.after_counts);
    // AFTER's means at BEFORE's launch counts: the plain sums where the counts agree, and the same
    // mix of launches where one side ran a kernel more often.
    TimeSum matched_before, matched_after;
    for (const auto& row : result.kernels) {
      const auto& b = result.before_spreads[row.group];
      const auto& a = result.after_spreads[row.group];
      matched_before.add(b.total_ns);
      if (a.mean_ns) matched_after.add(*a.mean_ns * static_cast<double>(b.timed_launches));
    }
    result.totals.matched = time_change(matched_before.value(), matched_after.value());
  }
  if (result.per_launch) mean_totals(before, after, grouping, result);
  result.totals.slower_than_limit = slower_than(result.totals.all, options.max_slowdown);
  detail::add_comparison_context(before, after, result);
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

bool RunComparison::failed() const { return totals.slower_than_limit || slower_kernel_count() > 0; }

std::size_t RunComparison::slower_kernel_count() const {
  return static_cast<std::size_t>(
      std::count_if(kernels.begin(), kernels.end(), [](const KernelComparison& k) { return k.slower_than_limit; }));
}

std::vector<const KernelComparison*> RunComparison::slowest_kernels(std::size_t limit) const {
  std::vector<const KernelComparison*> slower;
  for (const auto& k : kernels)
    if (k.slower_than_limit) slower.push_back(&k);
  const std::size_t shown = std::min(limit, slower.size());
  std::partial_sort(
      slower.begin(), slower.begin() + static_cast<std::ptrdiff_t>(shown), slower.end(),
      [](const KernelComparison* a, const KernelComparison* b) { return *a->time.change > *b->time.change; });
  slower.resize(shown);
  return slower;
}

RunComparison compare_runs(ComparedRun before, ComparedRun after, const CompareOptions& options) {
  detail::align_configurations(before, after);
  const std::size_t renamed = detail::align_kernel_names(before, after);
  RunComparison result = compare(before, after, options);
  result.names_matched_by_key = renamed;
  return result;
}

RunComparison compare_runs(const RunAnalysis& before, const RunAnalysis& after, const CompareOptions& options) {
  return compare_runs(compared_run(before), compared_run(after), options);
}

}  // namespace limiter
