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

// "default": everything the analysis needs (docs/design.md §7 pass A plus the L2 sub-unit paths
// that make an L2-resident stream look as busy as it is), one pass on GH100.
// "sol": default plus every other sub-unit of Nsight Compute's Speed-of-Light breakdown.
const std::vector<MetricPlan>& metric_plans();
const MetricPlan& metric_plan(const std::string& name);  // throws InputError listing the plans

// A plan as one chip can collect it: the metrics whose base name (before the first '.') is among
// CHIP_BASE_METRICS (the chip's counters, ratios and throughputs, from the CUPTI host API), and
// the others, left out (the `sol` plan names sub-units GH100 has and GA100 lacks).
struct ChipPlan {
  MetricPlan plan;
  std::vector<std::string> missing;
};
ChipPlan plan_for_chip(const MetricPlan& plan, const std::vector<std::string>& chip_base_metrics);

}  // namespace limiter
