#include "collect/range/launch_selector.hpp"

#include <cstdio>

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

bool LaunchSelector::sample(const std::string& kernel_name, bool profiler_running) {
  if (sample_every_ == 1) return true;
  Sampled& kernel = sampled_[kernel_name];
  const bool counted = kernel.taken && kernel.since_last >= sample_every_;
  ++kernel.since_last;
  const bool due = !kernel.taken || kernel.since_last >= sample_every_;
  if (!due) return false;
  if (kernel.taken && !counted) ++due_kernels_;
  const bool round = 2 * due_kernels_ >= sampled_kernels_;
  if (!profiler_running && kernel.taken && !round) return false;  // waits for the round
  if (kernel.taken)
    --due_kernels_;
  else
    ++sampled_kernels_;
  kernel.taken = true;
  kernel.since_last = 0;
  return true;
}

bool LaunchSelector::select(const std::string& kernel_name, const std::string& configuration, bool profiler_running,
                            const NvtxRanges* ranges) {
  advanced_ = false;
  if (exhausted()) return false;
  if (nvtx_.active() && !nvtx_.selects(ranges ? *ranges : NvtxRanges{})) return false;
  if (pattern_ && !std::regex_search(kernel_name, *pattern_)) return false;
  if (per_configuration()) {
    // Per kernel and launch configuration: a steady-state loop pays only for its first steps.
    std::string key = kernel_name + '\n' + configuration;
    if (budget_by_range_ && ranges) key += '\n' + nvtx_label(nvtx_paths(*ranges));
    const std::uint64_t seen = seen_per_configuration_[key]++;
    const bool excluded = !excluded_.empty() && excluded_.count(kernel_name + '\n' + configuration);
    advanced_ = !excluded && (seen < per_kernel_skip_ || seen - per_kernel_skip_ < per_kernel_count_);
    if (seen < per_kernel_skip_ || seen - per_kernel_skip_ >= per_kernel_count_) return false;
    if (excluded) return false;
  }
  // Sampling is per kernel, so a rare kernel is still seen once every N of its own launches.
  if (!sample(kernel_name, profiler_running)) return false;
  if (matched_++ < skip_) return false;
  ++profiled_;
  return true;
}

std::string LaunchSelector::configuration_text(const Dim3& grid, const Dim3& block) {
  return std::to_string(grid.x) + "," + std::to_string(grid.y) + "," + std::to_string(grid.z) + "/" +
         std::to_string(block.x) + "," + std::to_string(block.y) + "," + std::to_string(block.z);
}

void LaunchSelector::exclude(std::vector<std::pair<std::string, std::string>> kernels) {
  for (auto& [name, configuration] : kernels) excluded_.insert(name + '\n' + configuration);
}

std::vector<KernelSeen> LaunchSelector::kernels_seen() const {
  // The budget's keys are "name\nconfiguration[\nranges]", the configuration "gx,gy,gz/bx,by,bz".
  std::map<std::pair<std::string, std::string>, std::uint64_t> by_kernel;
  for (const auto& [key, seen] : seen_per_configuration_) {
    const auto name_end = key.find('\n');
    const auto configuration_end = key.find('\n', name_end + 1);
    by_kernel[{key.substr(0, name_end), key.substr(name_end + 1, configuration_end - name_end - 1)}] += seen;
  }
  std::vector<KernelSeen> out;
  for (const auto& [kernel, seen] : by_kernel) {
    KernelSeen k;
    k.name = kernel.first;
    k.launches = seen;
    std::sscanf(kernel.second.c_str(), "%u,%u,%u/%u,%u,%u", &k.grid.x, &k.grid.y, &k.grid.z, &k.block.x, &k.block.y,
                &k.block.z);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace limiter::detail
