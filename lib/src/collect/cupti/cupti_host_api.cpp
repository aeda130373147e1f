// The CLI's public view of the Profiler Host API (limiter/cupti_host.hpp): ProfilerHost and the raw
// store stay internal, so no CUPTI type reaches cli/.
#include "limiter/cupti_host.hpp"

#include "collect/cupti/profiler_host.hpp"
#include "collect/cupti/raw_store.hpp"

namespace limiter {

std::size_t metric_pass_count(const std::string& chip, const std::vector<std::string>& metrics) {
  if (metrics.empty()) return 0;
  detail::ProfilerHost host(chip);
  auto image = host.config_image(metrics);
  return detail::ProfilerHost::pass_count(image);
}

std::vector<std::string> chip_base_metrics(const std::string& chip) {
  return detail::ProfilerHost(chip).base_metrics();
}

RunRecord evaluate_raw_dir(const std::string& dir) { return detail::evaluate_raw_dir(dir); }

}  // namespace limiter
