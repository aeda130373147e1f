#pragma once
// RunSummary::stalled_kernels from a record's stalls (stalled_kernels.cpp).
#include "limiter/run_summary.hpp"

namespace limiter::detail {

// Fills SUMMARY.stalled_kernels from STALLS, after its groups are complete.
void add_stalled_kernels(RunSummary& summary, const StallInfo& stalls, const StallThresholds& thresholds);
// The same from the groups' own stalls, for a summary of an analysis in memory (no record at hand).
void add_stalled_kernels_of_groups(RunSummary& summary);

}  // namespace limiter::detail
