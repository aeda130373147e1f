// The groups' time on the record's timeline as every report shows it (timeline_render.hpp).
#include "timeline_render.hpp"

#include <algorithm>

#include "limiter/format.hpp"
#include "render_helpers.hpp"

namespace limiter::render {

const DurationStats& shown_durations(const KernelSummary& group) {
  return group.timeline ? group.timeline->durations : group.durations;
}

std::optional<double> shown_time_share(const KernelSummary& group) {
  return group.timeline ? group.timeline->time_share : group.time_share;
}

std::size_t shown_launches(const KernelSummary& group) {
  return group.timeline ? group.timeline->launches : group.launches;
}

std::string shown_launches_text(const KernelSummary& group) {
  return group.timeline ? count_text(group.timeline->launches) : group_launches_text(group);
}

std::string profiled_launches_text(const KernelSummary& group) {
  return group.no_counters.empty() ? group_launches_text(group) : "—";
}

std::string timeline_scope_text(const TimelineKernelTotals& totals) {
  std::string text = "timeline: " + count_text(totals.launches) +
                     (totals.launches == 1 ? " launch of " : " launches of ") + count_text(totals.kernels) +
                     (totals.kernels == 1 ? " kernel" : " kernels") + " over " +
                     format_duration_ns(static_cast<double>(totals.window_ns)) + " (" +
                     format_duration_ns(totals.kernel_ns) + " of kernel time)";
  if (totals.without_counters > 0)
    text += ", " + count_text(totals.without_counters) +
            (totals.without_counters == 1 ? " kernel configuration without counters"
                                          : " kernel configurations without counters");
  return text;
}

std::string timeline_columns_note(const RunSummary& summary) {
  if (!summary.timeline_kernels) return "";
  return "time%, total, launches, mean, min, max: each kernel's launches on the timeline (" +
         count_text(summary.timeline_kernels->launches) +
         " in all, none profiled); profiled: its launches with counters, which give the verdict";
}

std::vector<NoCountersNote> no_counters_notes(const RunSummary& summary, std::size_t shown) {
  std::vector<NoCountersNote> notes;
  for (std::size_t i = 0; i < shown && i < summary.groups.size(); ++i) {
    const auto& group = summary.groups[i];
    if (group.no_counters.empty()) continue;
    auto note = std::find_if(notes.begin(), notes.end(),
                             [&](const NoCountersNote& n) { return n.reason == group.no_counters; });
    if (note == notes.end()) note = notes.insert(notes.end(), {group.no_counters, {}});
    if (std::find(note->kernels.begin(), note->kernels.end(), group.display_name) == note->kernels.end())
      note->kernels.push_back(group.display_name);
  }
  return notes;
}

std::string no_counters_note_text(const NoCountersNote& note) {
  std::string kernels;
  for (const auto& name : note.kernels) kernels += (kernels.empty() ? "" : ", ") + name;
  return kernels + " — " + note.reason;
}

bool stalls_shown_alone(const RunSummary& summary, const StalledKernel& kernel) {
  return !kernel.group || !summary.groups[*kernel.group].no_counters.empty();
}

std::string stalled_group_text(const RunSummary& summary, const StalledKernel& kernel, const std::string& separator,
                               const std::string& no_group) {
  if (!kernel.group) return no_group;
  const auto& group = summary.groups[*kernel.group];
  return "#" + std::to_string(*kernel.group + 1) + separator +
         (group.no_counters.empty() ? verdict_label(group.main_verdict) : "no counters");
}

}  // namespace limiter::render
