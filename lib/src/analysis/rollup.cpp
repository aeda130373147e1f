// Roll-ups for the reports: groups of identical launches, time by verdict, what to fix first.
#include "limiter/rollup.hpp"

#include <algorithm>
#include <array>

namespace limiter {

void VerdictCounts::add(const std::optional<Verdict>& verdict) {
  if (!verdict) {
    ++none;
    return;
  }
  switch (*verdict) {
    case Verdict::bandwidth:
      ++bandwidth;
      break;
    case Verdict::instruction:
      ++instruction;
      break;
    case Verdict::latency:
      ++latency;
      break;
  }
}

std::size_t VerdictCounts::of(const std::optional<Verdict>& verdict) const {
  if (!verdict) return none;
  switch (*verdict) {
    case Verdict::bandwidth:
      return bandwidth;
    case Verdict::instruction:
      return instruction;
    case Verdict::latency:
      return latency;
  }
  return none;
}

void DurationStats::add(const std::optional<double>& duration_ns) {
  if (!duration_ns) return;
  const double old_mean = mean_ns.value_or(0);
  ++timed_launches;
  squared_deviations += (*duration_ns - old_mean) *
                        (*duration_ns - (old_mean + (*duration_ns - old_mean) / static_cast<double>(timed_launches)));
  total_ns = total_ns.value_or(0) + *duration_ns;
  min_ns = min_ns ? std::min(*min_ns, *duration_ns) : *duration_ns;
  max_ns = max_ns ? std::max(*max_ns, *duration_ns) : *duration_ns;
  mean_ns = *total_ns / static_cast<double>(timed_launches);
}

void DurationStats::add_aggregate(const std::optional<double>& total, std::uint64_t launches) {
  if (!total || launches == 0) return;
  const double mean = *total / static_cast<double>(launches);
  // Chan et al.'s update for merging LAUNCHES values all at MEAN into the stats so far.
  if (timed_launches > 0) {
    const double delta = mean - mean_ns.value_or(0);
    const double n = static_cast<double>(timed_launches), m = static_cast<double>(launches);
    squared_deviations += delta * delta * n * m / (n + m);
  }
  timed_launches += launches;
  total_ns = total_ns.value_or(0) + *total;
  min_ns = min_ns ? std::min(*min_ns, mean) : mean;
  max_ns = max_ns ? std::max(*max_ns, mean) : mean;
  mean_ns = *total_ns / static_cast<double>(timed_launches);
}

std::optional<double> DurationStats::variance_ns2() const {
  if (timed_launches < 2) return std::nullopt;
  return std::max(0.0, squared_deviations) / static_cast<double>(timed_launches - 1);
}

bool same_kernel_and_configuration(const KernelAnalysis& a, const KernelAnalysis& b) {
  return a.name == b.name && a.grid == b.grid && a.block == b.block;
}

bool RunRollup::has_repeated_launches() const {
  return std::any_of(groups.begin(), groups.end(), [](const KernelGroup& g) { return g.launches() > 1; });
}

bool is_actionable_advice(const std::string& advice) {
  // advise() words its "leave it alone" conclusions this way (seed 001: spills under 5 % of
  // instructions are not worth fixing); such an item must not head the fix-first list.
  return advice.find("not worth fixing") == std::string::npos && advice.find("not what limits") == std::string::npos;
}

std::string advice_headline(const std::string& advice) {
  // The diagnosis runs to the first ": "; the first remedy ends at its first aside or clause.
  const std::size_t colon = advice.find(": ");
  const std::size_t remedy_start = colon == std::string::npos ? 0 : colon + 2;
  std::size_t end = advice.size();
  for (const char* stop : {" (", ", ", "; ", ". "}) {
    const std::size_t at = advice.find(stop, remedy_start);
    if (at != std::string::npos) end = std::min(end, at);
  }
  std::string headline = advice.substr(0, end);
  if (!headline.empty() && headline.back() == '.') headline.pop_back();
  return headline;
}

namespace {

std::vector<KernelGroup> group_launches(const RunAnalysis& analysis) {
  std::vector<KernelGroup> groups;
  for (std::size_t index = 0; index < analysis.kernels.size(); ++index) {
    const auto& kernel = analysis.kernels[index];
    auto group = std::find_if(groups.begin(), groups.end(), [&](const KernelGroup& g) {
      return same_kernel_and_configuration(analysis.kernels[g.launch_indices.front()], kernel);
    });
    if (group == groups.end()) {
      groups.push_back({});
      group = std::prev(groups.end());
      group->name = kernel.name;
      group->grid = kernel.grid;
      group->block = kernel.block;
      group->stalls = kernel.stalls;
    }
    group->launch_indices.push_back(index);
    group->durations.add(kernel.duration_ns);
    group->verdicts.add(kernel.verdict);
  }
  return groups;
}

// The verdict that holds for most of the group's time (by count when nothing is timed).
std::optional<Verdict> main_verdict_of(const KernelGroup& group, const RunAnalysis& analysis) {
  const std::array<std::optional<Verdict>, 4> candidates = {Verdict::bandwidth, Verdict::instruction, Verdict::latency,
                                                            std::nullopt};
  std::optional<Verdict> best;
  double best_weight = -1;
  for (const auto& candidate : candidates) {
    double weight = 0;
    for (std::size_t index : group.launch_indices) {
      const auto& kernel = analysis.kernels[index];
      if (kernel.verdict == candidate)
        weight += group.durations.timed_launches > 0 ? kernel.duration_ns.value_or(0) : 1.0;
    }
    if (weight > best_weight) {
      best_weight = weight;
      best = candidate;
    }
  }
  return best;
}

std::size_t longest_launch(const KernelGroup& group, const RunAnalysis& analysis) {
  return *std::max_element(group.launch_indices.begin(), group.launch_indices.end(), [&](std::size_t a, std::size_t b) {
    return analysis.kernels[a].duration_ns.value_or(-1) < analysis.kernels[b].duration_ns.value_or(-1);
  });
}

}  // namespace

RunRollup rollup_run(const RunAnalysis& analysis, std::size_t fix_first_limit) {
  RunRollup rollup;
  rollup.launches = analysis.kernels.size();
  for (const auto& kernel : analysis.kernels) {
    if (!kernel.duration_ns) continue;
    ++rollup.timed_launches;
    rollup.total_ns += *kernel.duration_ns;
  }
  const auto share_of_run = [&](double duration_ns) -> std::optional<double> {
    if (rollup.total_ns <= 0) return std::nullopt;
    return duration_ns / rollup.total_ns;
  };

  rollup.groups = group_launches(analysis);
  for (auto& group : rollup.groups) {
    if (group.durations.total_ns) group.time_share = share_of_run(*group.durations.total_ns);
    group.main_verdict = main_verdict_of(group, analysis);
  }
  // stable: equal times keep launch order, so the output does not depend on the sort.
  std::stable_sort(rollup.groups.begin(), rollup.groups.end(), [](const KernelGroup& a, const KernelGroup& b) {
    return a.durations.total_ns.value_or(-1) > b.durations.total_ns.value_or(-1);
  });

  for (const auto& verdict : {std::optional<Verdict>(Verdict::bandwidth), std::optional<Verdict>(Verdict::instruction),
                              std::optional<Verdict>(Verdict::latency), std::optional<Verdict>()}) {
    VerdictTime entry;
    entry.verdict = verdict;
    for (const auto& kernel : analysis.kernels) {
      if (kernel.verdict != verdict) continue;
      ++entry.launches;
      entry.duration_ns += kernel.duration_ns.value_or(0);
    }
    entry.time_share = share_of_run(entry.duration_ns);
    rollup.time_by_verdict.push_back(entry);
  }

  for (std::size_t group_index = 0; group_index < rollup.groups.size(); ++group_index) {
    if (rollup.fix_first.size() >= fix_first_limit) break;
    const auto& group = rollup.groups[group_index];
    const std::size_t representative = longest_launch(group, analysis);
    const auto& kernel = analysis.kernels[representative];
    const auto advice = std::find_if(kernel.advice.begin(), kernel.advice.end(), is_actionable_advice);
    if (advice == kernel.advice.end()) continue;
    FixFirstItem item;
    item.group = group_index;
    item.representative = representative;
    item.verdict = kernel.verdict;
    item.limiting_unit = kernel.limiting_unit;
    item.headline = advice_headline(*advice);
    item.advice = *advice;
    rollup.fix_first.push_back(item);
  }
  return rollup;
}

}  // namespace limiter
