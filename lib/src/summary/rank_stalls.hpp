#pragma once
// The ranks' PC samples lined up by kernel (rank_stalls.cpp).
#include <vector>

#include "limiter/rank_summary.hpp"

namespace limiter::detail {

// Each kernel with samples on any rank: its samples by reason and its hot PCs summed over the
// ranks and shared out again (dominant reasons and hot lines as for one record), most samples
// first. Display names are left empty.
std::vector<RankStalledKernel> line_up_stalls(const std::vector<RankRun>& ranks,
                                              const StallThresholds& thresholds = {});

}  // namespace limiter::detail
