#pragma once
// The summary's kernels by their time on the record's timeline (timeline_kernels.cpp), and the
// choice of what to fix first that a new order of the groups calls for again (run_summary.cpp).
#include <cstddef>

#include "limiter/record.hpp"
#include "limiter/run_summary.hpp"

namespace limiter::detail {

// With a timeline that holds kernels (HEADER.timeline): each group's launches and time there,
// the timeline's kernels without a launch in the record as groups of their own (launches 0, a
// KernelSummary::no_counters reason), the groups ranked by that time, and what to fix first
// chosen again (at most FIX_FIRST_LIMIT). Before the stalled kernels are joined to the groups.
void add_timeline_kernels(RunSummary& summary, const RunRecord& header, std::size_t fix_first_limit);

// SUMMARY.fix_first from its groups in their order: those whose longest launch has actionable advice.
void choose_fix_first(RunSummary& summary, std::size_t limit);

}  // namespace limiter::detail
