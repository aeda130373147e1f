// limiter metrics: the metric plans, their metrics and pass counts, computed offline through
// the CUPTI Profiler Host API (no GPU needed; the chip name is enough).
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "limiter/error.hpp"
#include "limiter/metric_plans.hpp"
#include "options.hpp"
#ifdef LIMITER_HAVE_CUPTI
#include "limiter/cupti_host.hpp"
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
  visible.add_options()(
      "chip", po::value(&chip)->default_value("GH100"),
      "chip name as CUPTI spells it (GH100 = H100/H200, GA100 = A100, GB100 = B200; a name CUPTI does not "
      "know lists those it knows); a plan leaves out what the chip lacks")("plan", po::value(&plan_name),
                                                                           "show one plan's metrics")(
      "metrics", po::value(&metric_list), "a comma-separated list of your own: check the names, count passes");
  po::positional_options_description positional;
  po::variables_map vm;
  if (!parse_options(args, "limiter metrics [--chip GH100] [--plan NAME | --metrics LIST]", visible, positional, vm))
    return kExitOk;
  if (vm.count("plan") && vm.count("metrics"))
    throw InputError("--plan and --metrics cannot go together: --metrics replaces the plan");
#ifndef LIMITER_HAVE_CUPTI
  throw SystemError(
      "this limiter was built without the CUDA toolkit, so it has no CUPTI host API: "
      "rebuild with CUDA 13 at /usr/local/cuda");
#else
  auto passes_of = [&](const std::vector<std::string>& metrics) -> std::size_t {
    return metric_pass_count(chip, metrics);
  };
  const auto passes_words = [](std::size_t passes) {
    return std::to_string(passes) + (passes == 1 ? " pass" : " passes");
  };
  if (!metric_list.empty()) {
    const auto metrics = split_list(metric_list);
    const auto passes = passes_of(metrics);
    std::cout << metrics.size() << " metrics on " << chip << ": " << passes_words(passes)
              << (passes == 1 ? " (no replay needed)" : " (kernel replay: every kernel runs once per pass)") << "\n";
    return kExitOk;
  }
  // Each plan as this chip can collect it: the metrics it lacks are left out, and said so.
  const std::vector<std::string> chip_metrics = chip_base_metrics(chip);
  const auto left_out = [&](const ChipPlan& on_chip) {
    std::string names;
    for (const auto& metric : on_chip.missing) names += (names.empty() ? "" : ", ") + metric;
    return on_chip.plan.name + ": " + std::to_string(on_chip.missing.size()) +
           (on_chip.missing.size() == 1 ? " metric" : " metrics") + " not on " + chip + ", left out: " + names;
  };
  if (!plan_name.empty()) {
    const ChipPlan on_chip = plan_for_chip(metric_plan(plan_name), chip_metrics);
    std::cout << "plan '" << on_chip.plan.name << "' on " << chip << ": " << on_chip.plan.metrics.size() << " metrics, "
              << passes_words(passes_of(on_chip.plan.metrics)) << "\n  " << on_chip.plan.purpose << "\n\n";
    for (const auto& metric : on_chip.plan.metrics) std::cout << "  " << metric << "\n";
    if (!on_chip.missing.empty()) std::cout << "\n" << left_out(on_chip) << "\n";
    return kExitOk;
  }
  std::cout << "metric plans on " << chip << " (limiter run --plan NAME; --metrics LIST for your own):\n\n";
  std::vector<std::string> notes;
  for (const auto& plan : metric_plans()) {
    const ChipPlan on_chip = plan_for_chip(plan, chip_metrics);
    const auto passes = passes_of(on_chip.plan.metrics);
    std::cout << "  " << plan.name << std::string(10 - std::min<std::size_t>(plan.name.size(), 9), ' ')
              << on_chip.plan.metrics.size() << " metrics, " << passes_words(passes) << (passes == 1 ? "   " : " ")
              << plan.purpose << "\n";
    if (!on_chip.missing.empty()) notes.push_back(left_out(on_chip));
  }
  if (!notes.empty()) std::cout << "\n";
  for (const auto& note : notes) std::cout << note << "\n";
  return kExitOk;
#endif
}

}  // namespace limiter::cli
