// RunSummary::stalled_kernels: every kernel of the record's PC samples, joined to its groups by
// demangled name, with the advice of its dominant reasons. A kernel without launches (a record of
// `limiter run --stalls` has none) gets the advice its samples alone allow.
#include <algorithm>

#include "analysis/analysis_steps.hpp"
#include "summary/display_names.hpp"
#include "summary/stalled_kernels.hpp"

namespace limiter::detail {

void add_stalled_kernels(RunSummary& summary, const StallInfo& stalls, const StallThresholds& thresholds) {
  summary.stalled_kernels.clear();
  KernelSelection selection(summary.kernel_regex);
  for (auto& analysis : StallIndex(stalls, thresholds).all()) {
    StalledKernel kernel;
    kernel.name = analysis->name;
    for (std::size_t i = 0; i < summary.groups.size() && !kernel.group; ++i)
      if (summary.groups[i].name == kernel.name) kernel.group = i;
    if (!kernel.group && !selection.selects(kernel.name)) continue;  // -k: a kernel of the samples alone
    KernelAnalysis alone;                                            // no counters: the advice of its samples alone
    alone.name = kernel.name;
    alone.stalls = analysis;
    kernel.advice = stall_advice(kernel.group ? summary.groups[*kernel.group].longest : alone);
    if (kernel.advice.empty()) kernel.advice = stall_advice(alone);  // a longest launch analysed without stalls
    // A kernel of the timeline without counters: its samples are all its group can show.
    if (kernel.group && !summary.groups[*kernel.group].no_counters.empty())
      summary.groups[*kernel.group].stalls = analysis;
    kernel.stalls = std::move(analysis);
    summary.stalled_kernels.push_back(std::move(kernel));
  }
  // The kernels of the samples alone are named with the groups: no two kernels read the same.
  std::vector<std::string> ungrouped;
  for (const auto& kernel : summary.stalled_kernels)
    if (!kernel.group) ungrouped.push_back(kernel.name);
  name_kernels(summary, ungrouped);
  note_unselected(summary, selection);
  for (auto& kernel : summary.stalled_kernels) kernel.display_name = summary.display_name(kernel.name);
}

void add_stalled_kernels_of_groups(RunSummary& summary) {
  summary.stalled_kernels.clear();
  for (std::size_t i = 0; i < summary.groups.size(); ++i) {
    const auto& group = summary.groups[i];
    if (!group.stalls) continue;
    bool seen = false;
    for (const auto& kernel : summary.stalled_kernels) seen = seen || kernel.name == group.name;
    if (!seen)
      summary.stalled_kernels.push_back({group.name, group.display_name, group.stalls, i, stall_advice(group.longest)});
  }
  std::stable_sort(
      summary.stalled_kernels.begin(), summary.stalled_kernels.end(),
      [](const StalledKernel& a, const StalledKernel& b) { return a.stalls->samples > b.stalls->samples; });
}

}  // namespace limiter::detail
