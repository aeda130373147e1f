#pragma once
// The groups' time on the record's timeline (RunSummary::timeline_kernels) as every report shows
// it: a record whose timeline holds kernels (a default run's) ranks and times its kernels by their
// launches there, at the app's own pace, and keeps the counters' verdict beside; kernels with no
// launch in the record get rows of their own with the reason. Reports of other records stay as
// they were.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "limiter/run_summary.hpp"

namespace limiter::render {

// Whether the group tables show the timeline's time (and a "profiled" column beside it).
inline bool shows_timeline_time(const RunSummary& summary) { return summary.timeline_kernels.has_value(); }

// A group's time, share and launches as its table row shows them: on the timeline where the
// summary has one, else its profiled launches' ("3 of 1,000" under per-kernel budgets).
const DurationStats& shown_durations(const KernelSummary& group);
std::optional<double> shown_time_share(const KernelSummary& group);
std::size_t shown_launches(const KernelSummary& group);
std::string shown_launches_text(const KernelSummary& group);
// The "profiled" column: "3", "3 of 1,000", or "—" for a kernel without counters.
std::string profiled_launches_text(const KernelSummary& group);

// "timeline: 12,325 launches of 40 kernels over 4.1 s (1.2 s of kernel time), 3 of them without counters".
std::string timeline_scope_text(const TimelineKernelTotals& totals);
// Under the group table: where its figures come from.
std::string timeline_columns_note(const RunSummary& summary);

// The kernels without counters among the first SHOWN groups, one entry per reason, with the names
// (as shown) of the kernels it is for, in table order.
struct NoCountersNote {
  std::string reason;
  std::vector<std::string> kernels;
};
std::vector<NoCountersNote> no_counters_notes(const RunSummary& summary, std::size_t shown);
// "late_kernel, other — no counters: first seen after the counters phase (...)".
std::string no_counters_note_text(const NoCountersNote& note);

// Whether the "why they wait" list shows a stalled kernel's hot lines and advice itself: it has
// no launch in the record to show them under.
bool stalls_shown_alone(const RunSummary& summary, const StalledKernel& kernel);
// A stalled kernel's group as that list names it: "#2, latency", "#4, no counters" or "no launch
// in the record" (md: SEPARATOR " " and "no launch").
std::string stalled_group_text(const RunSummary& summary, const StalledKernel& kernel, const std::string& separator,
                               const std::string& no_group);

}  // namespace limiter::render
