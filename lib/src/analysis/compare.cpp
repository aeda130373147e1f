// Before/after comparison: match launches, measure time changes, mark noise, apply the gate.
#include "limiter/compare.hpp"

#include <algorithm>

namespace limiter {
namespace {

DurationStats launches_like(const KernelAnalysis& kernel, const RunAnalysis& run) {
  DurationStats stats;
  for (const auto& other : run.kernels)
    if (same_kernel_and_configuration(kernel, other)) stats.add(other.duration_ns);
  return stats;
}

bool within(double value, const DurationStats& spread) {
  return spread.min_ns && spread.max_ns && value >= *spread.min_ns && value <= *spread.max_ns;
}

// A single launch per side has no spread to compare with: only repeated launches tell noise.
bool is_noise(const KernelComparison& k) {
  if (!k.time.before_ns || !k.time.after_ns) return false;
  if (k.before_launches.timed_launches < 2 && k.after_launches.timed_launches < 2) return false;
  return within(*k.time.after_ns, k.before_launches) || within(*k.time.before_ns, k.after_launches);
}

bool slower_than(const TimeChange& time, const std::optional<double>& max_slowdown) {
  return max_slowdown && time.change && *time.change > *max_slowdown;
}

// Index of the `occurrence`-th launch in `run` with the same name and configuration as `kernel`.
std::optional<std::size_t> find_occurrence(const RunAnalysis& run, const KernelAnalysis& kernel, std::size_t occurrence) {
  std::size_t seen = 0;
  for (std::size_t index = 0; index < run.kernels.size(); ++index) {
    if (!same_kernel_and_configuration(run.kernels[index], kernel)) continue;
    if (seen++ == occurrence) return index;
  }
  return std::nullopt;
}

std::size_t occurrence_of(const RunAnalysis& run, std::size_t index) {
  std::size_t earlier = 0;
  for (std::size_t other = 0; other < index; ++other)
    if (same_kernel_and_configuration(run.kernels[other], run.kernels[index])) ++earlier;
  return earlier;
}

double timed_sum(const std::vector<std::optional<double>>& durations, bool& any) {
  double sum = 0;
  for (const auto& duration : durations) {
    if (!duration) continue;
    any = true;
    sum += *duration;
  }
  return sum;
}

TimeChange total_change(const std::vector<std::optional<double>>& before, const std::vector<std::optional<double>>& after) {
  bool before_timed = false, after_timed = false;
  const double before_ns = timed_sum(before, before_timed);
  const double after_ns = timed_sum(after, after_timed);
  return time_change(before_timed ? std::optional<double>(before_ns) : std::nullopt,
                     after_timed ? std::optional<double>(after_ns) : std::nullopt);
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
      std::count_if(matched.begin(), matched.end(), [](const KernelComparison& k) { return k.slower_than_limit; }));
}

RunComparison compare_runs(const RunAnalysis& before, const RunAnalysis& after, const CompareOptions& options) {
  RunComparison result;
  result.before_label = options.before_label;
  result.after_label = options.after_label;
  result.before_device = before.device;
  result.after_device = after.device;
  result.before_source = before.source;
  result.after_source = after.source;
  result.max_slowdown = options.max_slowdown;
  result.thresholds = before.thresholds;

  std::vector<bool> after_matched(after.kernels.size(), false);
  std::vector<std::optional<double>> matched_before_ns, matched_after_ns;
  for (std::size_t index = 0; index < before.kernels.size(); ++index) {
    const auto& kernel = before.kernels[index];
    const std::size_t occurrence = occurrence_of(before, index);
    const auto partner = find_occurrence(after, kernel, occurrence);
    if (!partner) {
      result.only_before.push_back(kernel);
      continue;
    }
    after_matched[*partner] = true;
    KernelComparison comparison;
    comparison.occurrence = occurrence;
    comparison.before = kernel;
    comparison.after = after.kernels[*partner];
    comparison.time = time_change(kernel.duration_ns, comparison.after.duration_ns);
    comparison.before_launches = launches_like(kernel, before);
    comparison.after_launches = launches_like(kernel, after);
    comparison.within_noise = is_noise(comparison);
    comparison.verdict_changed = comparison.before.verdict != comparison.after.verdict;
    comparison.slower_than_limit = !comparison.within_noise && slower_than(comparison.time, options.max_slowdown);
    matched_before_ns.push_back(comparison.time.before_ns);
    matched_after_ns.push_back(comparison.time.after_ns);
    result.matched.push_back(std::move(comparison));
  }
  for (std::size_t index = 0; index < after.kernels.size(); ++index)
    if (!after_matched[index]) result.only_after.push_back(after.kernels[index]);

  std::vector<std::optional<double>> all_before_ns, all_after_ns;
  for (const auto& kernel : before.kernels) all_before_ns.push_back(kernel.duration_ns);
  for (const auto& kernel : after.kernels) all_after_ns.push_back(kernel.duration_ns);
  result.totals.before_launches = before.kernels.size();
  result.totals.after_launches = after.kernels.size();
  result.totals.all = total_change(all_before_ns, all_after_ns);
  result.totals.matched = total_change(matched_before_ns, matched_after_ns);
  result.totals.slower_than_limit = slower_than(result.totals.all, options.max_slowdown);
  return result;
}

}  // namespace limiter
