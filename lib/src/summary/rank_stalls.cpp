// Why the kernels wait over a job's ranks: the reasons' samples of every rank summed per kernel,
// so a merged report of `limiter run --stalls` records says what one record's report says.
#include "summary/rank_stalls.hpp"

#include <algorithm>
#include <map>

namespace limiter::detail {

std::vector<RankStalledKernel> line_up_stalls(const std::vector<RankRun>& ranks, const StallThresholds& thresholds) {
  std::map<std::string, std::vector<KernelStalls>> by_name;  // one entry per rank that sampled it
  for (const auto& r : ranks) {
    for (const auto& kernel : r.summary.stalled_kernels) {
      KernelStalls counts;
      counts.name = kernel.name;
      counts.samples = kernel.stalls->samples;
      for (const auto& reason : kernel.stalls->reasons) counts.reasons[reason.reason] += reason.samples;
      by_name[kernel.name].push_back(std::move(counts));
    }
  }
  std::vector<RankStalledKernel> kernels;
  for (const auto& [name, entries] : by_name) {
    std::vector<const KernelStalls*> parts;
    for (const auto& entry : entries) parts.push_back(&entry);
    RankStalledKernel kernel;
    kernel.name = name;
    kernel.ranks = entries.size();
    kernel.stalls = std::make_shared<const KernelStallAnalysis>(analyze_kernel_stalls(parts, thresholds));
    kernels.push_back(std::move(kernel));
  }
  std::stable_sort(kernels.begin(), kernels.end(), [](const RankStalledKernel& a, const RankStalledKernel& b) {
    return a.stalls->samples > b.stalls->samples;
  });
  return kernels;
}

}  // namespace limiter::detail
