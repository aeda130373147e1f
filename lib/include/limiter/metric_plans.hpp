#pragma once
// Named metric plans: what the collector asks CUPTI for. Data only (no CUPTI here); pass
// counts come from the CUPTI host API (`limiter metrics`, lib/src/collect/profiler_host.*).
#include <string>
#include <vector>

namespace limiter {

struct MetricPlan {
  std::string name;
  std::string purpose;
  std::vector<std::string> metrics;
};

// "default": everything the analysis needs (METHOD.md §4 pass A plus the L2 sub-unit paths
// that make an L2-resident stream look as busy as it is), one pass on GH100.
// "sol": default plus every other sub-unit of Nsight Compute's Speed-of-Light breakdown.
const std::vector<MetricPlan>& metric_plans();
const MetricPlan& metric_plan(const std::string& name);  // throws InputError listing the plans

}  // namespace limiter
