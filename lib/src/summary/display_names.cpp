// One naming over all the kernels a summary shows: the groups of its launches, those of its
// timeline alone and those of its PC samples alone. Short forms depend on the set they are
// unique in, so each new kernel shown renames the set again.
#include "summary/display_names.hpp"

#include <set>
#include <unordered_map>

#include "limiter/kernel_names.hpp"

namespace limiter::detail {

void name_kernels(RunSummary& summary, const std::vector<std::string>& others) {
  if (summary.names == NameStyle::short_form) {
    std::vector<std::string> names = others;
    for (const auto& group : summary.groups) names.push_back(group.name);
    auto shown = short_kernel_names(names);
    std::unordered_map<std::string, std::string> renamed;  // as shown before -> as shown now
    for (const auto& [name, now] : shown) {
      const auto before = summary.display_names.find(name);
      if (before != summary.display_names.end() && before->second != now) renamed[before->second] = now;
    }
    for (auto& range : summary.nvtx_ranges)
      for (auto& kernel : range.top_kernels)
        if (const auto it = renamed.find(kernel); it != renamed.end()) kernel = it->second;
    for (auto& [name, now] : shown) summary.display_names[name] = std::move(now);
  } else {
    for (const auto& group : summary.groups)
      summary.display_names.try_emplace(group.name, summary.names == NameStyle::mangled && !group.mangled_name.empty()
                                                        ? group.mangled_name
                                                        : group.name);
    for (const auto& name : others) summary.display_names.try_emplace(name, name);
  }
  for (auto& group : summary.groups) group.display_name = summary.display_name(group.name);
}

void note_unselected(RunSummary& summary, const KernelSelection& selection) {
  std::set<std::string> unselected(summary.unselected_kernels.begin(), summary.unselected_kernels.end());
  for (auto& name : selection.unselected()) unselected.insert(std::move(name));
  for (const auto& group : summary.groups) unselected.erase(group.name);
  summary.unselected_kernels.assign(unselected.begin(), unselected.end());
}

}  // namespace limiter::detail
