#include "collect/cupti/profiler_host.hpp"

#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>

#include <algorithm>
#include <set>

#include "collect/cupti/cupti_check.hpp"
#include "limiter/error.hpp"

namespace limiter::detail {
namespace {

std::string base_name(const std::string& metric) { return metric.substr(0, metric.find('.')); }

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> close_matches(const std::string& name, const std::vector<std::string>& candidates,
                                       std::size_t count) {
  const std::string wanted = base_name(name);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& candidate : candidates) scored.emplace_back(edit_distance(wanted, candidate), candidate);
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> best;
  for (std::size_t i = 0; i < scored.size() && best.size() < count; ++i) best.push_back(scored[i].second);
  return best;
}

ProfilerHost::ProfilerHost(const std::string& chip, const std::vector<std::uint8_t>& availability, bool pm_sampling)
    : chip_(chip), pm_sampling_(pm_sampling) {
  CUpti_Profiler_Host_Initialize_Params params{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  params.profilerType = pm_sampling ? CUPTI_PROFILER_TYPE_PM_SAMPLING : CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  params.pChipName = chip_.c_str();
  params.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  const CUptiResult status = cuptiProfilerHostInitialize(&params);
  if (status == CUPTI_ERROR_NOT_SUPPORTED)  // a chip CUPTI lists, whose profiler it does not offer (GV11B)
    throw InputError("CUPTI knows chip '" + chip + "' but offers no " +
                     (pm_sampling ? "PM sampling" : "range profiler") + " for it (" + cupti_error_text(status) + ")");
  if (status != CUPTI_SUCCESS) {
    std::string chips;
    for (const auto& known : supported_chips()) chips += (chips.empty() ? "" : ", ") + known;
    throw InputError("CUPTI does not know chip '" + chip + "' (" + cupti_error_text(status) +
                     "); chips this CUPTI supports: " + chips);
  }
  host_ = params.pHostObject;
}

ProfilerHost::~ProfilerHost() {
  CUpti_Profiler_Host_Deinitialize_Params params{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  params.pHostObject = host_;
  cuptiProfilerHostDeinitialize(&params);  // best effort: a destructor cannot throw
}

std::vector<std::string> ProfilerHost::base_metrics() const {
  std::vector<std::string> names;
  for (auto type : {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
    CUpti_Profiler_Host_GetBaseMetrics_Params params{CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE};
    params.pHostObject = host_;
    params.metricType = type;
    LIMITER_CUPTI_CHECK(cuptiProfilerHostGetBaseMetrics(&params));
    for (std::size_t i = 0; i < params.numMetrics; ++i) names.emplace_back(params.ppMetricNames[i]);
  }
  return names;
}

std::vector<std::uint8_t> ProfilerHost::config_image(const std::vector<std::string>& metrics) {
  std::vector<const char*> names;
  for (const auto& metric : metrics) names.push_back(metric.c_str());
  CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = host_;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  if (const CUptiResult status = cuptiProfilerHostConfigAddMetrics(&add); status != CUPTI_SUCCESS) {
    // Find the culprit: each metric alone, in a fresh host object.
    const auto known = base_metrics();
    for (const auto& metric : metrics) {
      ProfilerHost probe(chip_, {}, pm_sampling_);
      const char* one = metric.c_str();
      CUpti_Profiler_Host_ConfigAddMetrics_Params single{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
      single.pHostObject = probe.host_;
      single.ppMetricNames = &one;
      single.numMetrics = 1;
      if (cuptiProfilerHostConfigAddMetrics(&single) != CUPTI_SUCCESS) {
        std::string hint;
        for (const auto& match : close_matches(metric, known)) hint += (hint.empty() ? "" : ", ") + match;
        throw InputError("unknown metric '" + metric + "' for chip " + chip_ + " (did you mean " + hint +
                         "? a metric is a base name plus a roll-up such as .sum, .avg, .max or "
                         ".avg.pct_of_peak_sustained_elapsed)");
      }
    }
    throw_cupti_error(status, "cuptiProfilerHostConfigAddMetrics");
  }
  CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = host_;
  LIMITER_CUPTI_CHECK(cuptiProfilerHostGetConfigImageSize(&size));
  std::vector<std::uint8_t> image(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params get{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  get.pHostObject = host_;
  get.pConfigImage = image.data();
  get.configImageSize = image.size();
  LIMITER_CUPTI_CHECK(cuptiProfilerHostGetConfigImage(&get));
  return image;
}

std::size_t ProfilerHost::pass_count(std::vector<std::uint8_t>& config_image) {
  CUpti_Profiler_Host_GetNumOfPasses_Params params{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  params.pConfigImage = config_image.data();
  params.configImageSize = config_image.size();
  LIMITER_CUPTI_CHECK(cuptiProfilerHostGetNumOfPasses(&params));
  return params.numOfPasses;
}

std::size_t ProfilerHost::range_count(const std::vector<std::uint8_t>& counter_data) {
  CUpti_RangeProfiler_GetCounterDataInfo_Params params{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  params.pCounterDataImage = counter_data.data();
  params.counterDataImageSize = counter_data.size();
  LIMITER_CUPTI_CHECK(cuptiRangeProfilerGetCounterDataInfo(&params));
  return params.numTotalRanges;
}

std::vector<double> ProfilerHost::evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range,
                                           const std::vector<std::string>& metrics) const {
  std::vector<const char*> names;
  for (const auto& metric : metrics) names.push_back(metric.c_str());
  std::vector<double> values(metrics.size());
  CUpti_Profiler_Host_EvaluateToGpuValues_Params params{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
  params.pHostObject = host_;
  params.pCounterDataImage = counter_data.data();
  params.counterDataImageSize = counter_data.size();
  params.rangeIndex = range;
  params.ppMetricNames = names.data();
  params.numMetrics = names.size();
  params.pMetricValues = values.data();
  LIMITER_CUPTI_CHECK(cuptiProfilerHostEvaluateToGpuValues(&params));
  return values;
}

std::vector<std::string> ProfilerHost::supported_chips() {
  CUpti_Profiler_Host_GetSupportedChips_Params params{CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE};
  std::vector<std::string> chips;
  if (cuptiProfilerHostGetSupportedChips(&params) == CUPTI_SUCCESS)
    for (std::size_t i = 0; i < params.numChips; ++i) chips.emplace_back(params.ppChipNames[i]);
  return chips;
}

}  // namespace limiter::detail
