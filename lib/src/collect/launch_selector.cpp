#include "collect/launch_selector.hpp"

#include "limiter/error.hpp"

namespace limiter::detail {

LaunchSelector::LaunchSelector(const CollectorOptions& options)
    : skip_(options.skip),
      count_(options.count),
      sample_every_(options.sample_every == 0 ? 1 : options.sample_every),
      per_kernel_skip_(options.per_kernel_skip),
      per_kernel_count_(options.per_kernel_count) {
  filtering_ = !options.kernel_regex.empty() || sample_every_ > 1 || per_configuration();
  if (!options.kernel_regex.empty()) {
    try {
      pattern_.emplace(options.kernel_regex, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      throw InputError("bad kernel regex '" + options.kernel_regex + "': " + e.what());
    }
  }
}

bool LaunchSelector::select(const std::string& kernel_name, const std::string& configuration) {
  if (exhausted()) return false;
  if (pattern_ && !std::regex_search(kernel_name, *pattern_)) return false;
  if (per_configuration()) {
    // Per kernel and launch configuration: a steady-state loop pays only for its first steps.
    const std::uint64_t seen = seen_per_configuration_[kernel_name + '\n' + configuration]++;
    if (seen < per_kernel_skip_ || seen - per_kernel_skip_ >= per_kernel_count_) return false;
  }
  // Sampling is per kernel, so a rare kernel is still seen once every N of its own launches.
  const std::uint64_t seen = seen_per_kernel_[kernel_name]++;
  if (seen % sample_every_ != 0) return false;
  if (matched_++ < skip_) return false;
  ++profiled_;
  return true;
}

}  // namespace limiter::detail
