// limiter metrics: the metric plans, their metrics and pass counts, computed offline through
// the CUPTI Profiler Host API (no GPU needed; the chip name is enough).
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "limiter/error.hpp"
#include "limiter/metric_plans.hpp"
#include "options.hpp"
#ifdef LIMITER_HAVE_CUPTI
#include "collect/profiler_host.hpp"
#endif

namespace limiter::cli {
#ifdef LIMITER_HAVE_CUPTI
namespace {

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) items.push_back(item);
  return items;
}

}  // namespace
#endif

int run_metrics(const Args& args) {
  po::options_description visible("options");
  std::string chip, plan_name, metric_list;
  visible.add_options()
      ("chip", po::value(&chip)->default_value("GH100"), "chip name as CUPTI spells it (GH100 = H100/H200)")
      ("plan", po::value(&plan_name), "show one plan's metrics")
      ("metrics", po::value(&metric_list), "a comma-separated list of your own: check the names, count passes");
  po::positional_options_description positional;
  po::variables_map vm;
  if (!parse_options(args, "limiter metrics [--chip GH100] [--plan NAME | --metrics LIST]", visible, positional, vm))
    return kExitOk;
#ifndef LIMITER_HAVE_CUPTI
  throw SystemError("this limiter was built without the CUDA toolkit, so it has no CUPTI host API: "
                    "rebuild with CUDA 13 at /usr/local/cuda");
#else
  auto passes_of = [&](const std::vector<std::string>& metrics) {
    detail::ProfilerHost host(chip);
    auto image = host.config_image(metrics);
    return detail::ProfilerHost::pass_count(image);
  };
  if (!metric_list.empty()) {
    const auto metrics = split_list(metric_list);
    const auto passes = passes_of(metrics);
    std::cout << metrics.size() << " metrics on " << chip << ": " << passes << (passes == 1 ? " pass" : " passes")
              << (passes == 1 ? " (no replay needed)" : " (kernel replay: every kernel runs once per pass)") << "\n";
    return kExitOk;
  }
  if (!plan_name.empty()) {
    const auto& plan = metric_plan(plan_name);
    const auto passes = passes_of(plan.metrics);
    std::cout << "plan '" << plan.name << "' on " << chip << ": " << plan.metrics.size() << " metrics, " << passes
              << (passes == 1 ? " pass" : " passes") << "\n  " << plan.purpose << "\n\n";
    for (const auto& metric : plan.metrics) std::cout << "  " << metric << "\n";
    return kExitOk;
  }
  std::cout << "metric plans on " << chip << " (limiter run --plan NAME; --metrics LIST for your own):\n\n";
  for (const auto& plan : metric_plans()) {
    const auto passes = passes_of(plan.metrics);
    std::cout << "  " << plan.name << std::string(10 - std::min<std::size_t>(plan.name.size(), 9), ' ')
              << plan.metrics.size() << " metrics, " << passes << (passes == 1 ? " pass   " : " passes ") << plan.purpose
              << "\n";
  }
  return kExitOk;
#endif
}

}  // namespace limiter::cli
