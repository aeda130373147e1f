// Why the kernels wait over a job's ranks: the reasons' samples of every rank summed per kernel,
// and its hot PCs summed per offset, instruction and line, so a merged report of `limiter run
// --stalls` records says what one record's report says.
#include "summary/rank_stalls.hpp"

#include <algorithm>
#include <map>

namespace limiter::detail {
namespace {

// A rank's analysed kernel as counts again: its reasons and the hot lines it kept.
KernelStalls counts_of(const KernelStallAnalysis& analysis) {
  KernelStalls counts;
  counts.name = analysis.name;
  counts.samples = analysis.samples;
  for (const auto& reason : analysis.reasons) counts.reasons[reason.reason] += reason.samples;
  for (const auto& line : analysis.hot_lines) {
    HotPc pc{line.pc_offset, line.samples, line.reasons, line.sass, line.file, line.line};
    if (pc.reasons.empty() && !line.reason.empty()) pc.reasons[line.reason] = line.samples;  // a line made without them
    counts.hot_pcs.push_back(std::move(pc));
  }
  return counts;
}

}  // namespace

std::vector<RankStalledKernel> line_up_stalls(const std::vector<RankRun>& ranks, const StallThresholds& thresholds) {
  std::map<std::string, std::vector<KernelStalls>> by_name;  // one entry per rank that sampled it
  for (const auto& r : ranks)
    for (const auto& kernel : r.summary.stalled_kernels) by_name[kernel.name].push_back(counts_of(*kernel.stalls));
  std::vector<RankStalledKernel> kernels;
  for (const auto& [name, entries] : by_name) {
    std::vector<const KernelStalls*> parts;
    for (const auto& entry : entries) parts.push_back(&entry);
    RankStalledKernel kernel;
    kernel.name = name;
    kernel.ranks = entries.size();
    kernel.stalls =
        std::make_shared<const KernelStallAnalysis>(analyze_kernel_stalls(sum_kernel_stalls(parts), thresholds));
    kernels.push_back(std::move(kernel));
  }
  std::stable_sort(kernels.begin(), kernels.end(), [](const RankStalledKernel& a, const RankStalledKernel& b) {
    return a.stalls->samples > b.stalls->samples;
  });
  return kernels;
}

}  // namespace limiter::detail
