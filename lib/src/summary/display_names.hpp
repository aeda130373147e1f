#pragma once
// The kernels a summary shows (display_names.cpp): one naming over all of them, so two different
// kernels never read the same wherever they appear; and those -k left out.
#include <string>
#include <vector>

#include "limiter/run_summary.hpp"

namespace limiter::detail {

// Names every group of SUMMARY and each of OTHERS (kernels it shows without a group: those of
// the PC samples alone) in SUMMARY.names' style, the short forms unique over all of them; the NVTX
// ranges' top kernels follow any renaming.
void name_kernels(RunSummary& summary, const std::vector<std::string>& others = {});

// Adds the kernels SELECTION did not select (those of the timeline, the samples) to
// SUMMARY.unselected_kernels, those shown by another name excepted.
void note_unselected(RunSummary& summary, const KernelSelection& selection);

}  // namespace limiter::detail
