// Counters of a user range rescaled to its kernel's own duration (user_range_time.hpp).
#include "limiter/user_range_time.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace limiter {

namespace {

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }
bool ends_with(std::string_view text, std::string_view end) {
  return text.size() >= end.size() && text.substr(text.size() - end.size()) == end;
}

}  // namespace

std::optional<double> engine_active_ns(const KernelLaunch& launch) {
  // A launch already rescaled keeps its range's own duration in user_range_ns: idempotent.
  const auto range_ns = launch.user_range_ns ? launch.user_range_ns : launch.counter("gpu__time_duration.sum");
  const auto active = launch.counter(kEngineActiveCycles);
  const auto elapsed = launch.counter(kEngineElapsedCycles);
  if (!range_ns || !active || !elapsed || !(*elapsed > 0)) return std::nullopt;
  return *range_ns * std::min(*active / *elapsed, 1.0);
}

std::optional<double> user_range_kernel_ns(const KernelLaunch& launch) {
  const auto active = engine_active_ns(launch);
  const auto work = launch.counter(kRangeWorkCounter);
  if (!active || !work || !(*work > 0)) return active;
  const double kernel = *active - *work;
  return kernel >= 0.1 * *active ? kernel : *active;
}

bool time_user_range(KernelLaunch& launch) {
  const auto kernel_ns = user_range_kernel_ns(launch);
  if (!kernel_ns) {
    if (!launch.user_range_ns) launch.user_range_ns = launch.counter("gpu__time_duration.sum");
    return false;
  }
  time_user_range_by_kernel(launch, *kernel_ns);
  return true;
}

void time_user_range_by_kernel(KernelLaunch& launch, double kernel_ns) {
  const auto range_ns = launch.counter("gpu__time_duration.sum");  // the range's, unless rescaled before
  // Rescaled before and read back from a record: its duration is its kernel time already, to the
  // last digits the record kept; the kernel time derived again may differ in those.
  if (range_ns && launch.user_range_ns && launch.kernel_active_ns &&
      std::abs(*range_ns - *launch.kernel_active_ns) <= 1e-9 * *range_ns && *launch.user_range_ns > *range_ns)
    return;
  launch.kernel_active_ns = kernel_ns;
  if (!range_ns) return;
  if (!launch.user_range_ns) launch.user_range_ns = *range_ns;
  if (!(kernel_ns > 0) || !(*range_ns > kernel_ns)) return;  // nothing of the host's to take out
  const double r = kernel_ns / *range_ns;
  for (auto& [metric, value] : launch.counters) {
    const std::string_view name = metric;
    if (ends_with(name, ".per_second")) {
      if (!contains(name, "cycles_elapsed")) value /= r;  // a count over time; cycles over time is a clock
    } else if (contains(name, ".pct_of_peak_sustained_elapsed")) {
      value = std::min(value / r, 100.0);
    } else if (contains(name, ".per_cycle_elapsed")) {
      value /= r;
    } else if (name.starts_with("gpu__time_duration") ||
               (contains(name, "cycles_elapsed") && name != kEngineElapsedCycles)) {  // kept: the range's
      if (!contains(name, ".peak_sustained")) value *= r;
    }
  }
}

}  // namespace limiter
