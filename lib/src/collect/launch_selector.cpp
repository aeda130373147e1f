#include "collect/launch_selector.hpp"

#include "limiter/error.hpp"

namespace limiter::detail {

LaunchSelector::LaunchSelector(const CollectorOptions& options)
    : skip_(options.skip),
      count_(options.count),
      sample_every_(options.sample_every == 0 ? 1 : options.sample_every),
      per_kernel_skip_(options.per_kernel_skip),
      per_kernel_count_(options.per_kernel_count) {
  nvtx_ = NvtxFilter(options.nvtx_include, options.nvtx_exclude);
  budget_by_range_ = options.budget_by_range;
  filtering_ = !options.kernel_regex.empty() || sample_every_ > 1 || per_configuration() || nvtx_.active();
  if (!options.kernel_regex.empty()) {
    try {
      pattern_.emplace(options.kernel_regex, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      throw InputError("bad kernel regex '" + options.kernel_regex + "': " + e.what());
    }
  }
}

bool LaunchSelector::select(const std::string& kernel_name, const std::string& configuration,
                            const NvtxRanges* ranges) {
  if (exhausted()) return false;
  if (nvtx_.active() && !nvtx_.selects(ranges ? *ranges : NvtxRanges{})) return false;
  if (pattern_ && !std::regex_search(kernel_name, *pattern_)) return false;
  if (per_configuration()) {
    // Per kernel and launch configuration: a steady-state loop pays only for its first steps.
    std::string key = kernel_name + '\n' + configuration;
    if (budget_by_range_ && ranges) key += '\n' + nvtx_label(nvtx_paths(*ranges));
    const std::uint64_t seen = seen_per_configuration_[key]++;
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
