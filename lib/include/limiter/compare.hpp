#pragma once
// Before/after comparison of two analysed runs. Launches are matched by kernel name and
// launch configuration (grid, block), and by order among equals: the k-th launch of a kernel
// and configuration in BEFORE is compared with the k-th one in AFTER. Plain structs; the
// renderers in reports/ print them.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "limiter/analysis.hpp"
#include "limiter/rollup.hpp"

namespace limiter {

// A time change: ratio after / before, and change = ratio - 1 (-0.2 is 20 % faster).
struct TimeChange {
  std::optional<double> before_ns, after_ns;
  std::optional<double> ratio, change;
};
TimeChange time_change(std::optional<double> before_ns, std::optional<double> after_ns);

struct KernelComparison {
  std::size_t occurrence = 0;  // 0-based, among launches of the same name and configuration
  KernelAnalysis before, after;
  TimeChange time;
  // All launches of this name and configuration on each side: their count and min..max.
  DurationStats before_launches, after_launches;
  // The kernel has several launches on a side and one side's time lies within the other
  // side's min..max: the change cannot be told apart from launch-to-launch variation.
  bool within_noise = false;
  bool verdict_changed = false;
  bool slower_than_limit = false;  // counted against --fail-if-slower (never when within_noise)
};

struct ComparisonTotals {
  std::size_t before_launches = 0, after_launches = 0;
  TimeChange all;      // every timed launch of each run
  TimeChange matched;  // matched launches only
  bool slower_than_limit = false;
};

struct CompareOptions {
  std::string before_label = "before";  // what the reports call each run (a file name)
  std::string after_label = "after";
  // --fail-if-slower PCT as a fraction (0.10): a matched kernel or the total slower by more
  // than this fails the comparison. Empty: nothing fails.
  std::optional<double> max_slowdown;
};

struct RunComparison {
  std::string before_label, after_label;
  DeviceDescription before_device, after_device;
  std::string before_source, after_source;
  std::optional<double> max_slowdown;
  Thresholds thresholds;  // BEFORE's; both runs are analysed with the same options
  std::vector<KernelComparison> matched;     // in BEFORE's launch order
  std::vector<KernelAnalysis> only_before;   // launch order
  std::vector<KernelAnalysis> only_after;
  ComparisonTotals totals;
  bool failed() const;  // some matched kernel or the total is slower than max_slowdown
  std::size_t slower_kernel_count() const;
};

RunComparison compare_runs(const RunAnalysis& before, const RunAnalysis& after, const CompareOptions& options = {});

}  // namespace limiter
