// limiter compare BEFORE AFTER: what changed per kernel between two runs, and a CI gate.
#include <unistd.h>

#include <iostream>
#include <regex>
#include <sstream>

#include "commands.hpp"
#include "limiter/analysis.hpp"
#include "limiter/compare.hpp"
#include "limiter/error.hpp"
#include "limiter/format.hpp"
#include "limiter/kernel_names.hpp"
#include "limiter/reports.hpp"
#include "options.hpp"
#include "run_input.hpp"
#include "selection_options.hpp"

namespace limiter::cli {
namespace {

const char* const kUsage =
    "limiter compare BEFORE AFTER [--format text|md|csv|json|html] [-o FILE] [--fail-if-slower PCT] [-k REGEX] [--top N]\n\n"
    "BEFORE and AFTER are run records or Nsight Compute CSV exports. Launches are matched by kernel\n"
    "name and launch configuration (grid, block), and by order among equal ones. Exit code 4 when\n"
    "--fail-if-slower is given and a matched kernel or the total is slower by more than PCT percent\n"
    "(a kernel whose change lies within the spread of its repeated launches is noise and does not count).";

// "local_array_2k [5] +25.0%, the total +5.9%" for the message on standard error.
std::string slowdown_summary(const RunComparison& comparison) {
  std::string text;
  for (const auto& k : comparison.matched) {
    if (!k.slower_than_limit) continue;
    const auto name = kernel_base_name(k.before.name);
    text += (text.empty() ? "" : ", ") + name + " [" + std::to_string(k.before.sequence) + "] +" +
            format_fixed(*k.time.change * 100.0, 1) + "%";
  }
  if (comparison.totals.slower_than_limit)
    text += (text.empty() ? "" : ", ") + std::string("the total +") + format_fixed(*comparison.totals.all.change * 100.0, 1) + "%";
  return text;
}

}  // namespace

int run_compare(const Args& args) {
  po::options_description visible("options");
  std::string before_path, after_path, format, output, peaks;
  visible.add_options()
      ("format,f", po::value(&format)->default_value("text"), "text, md, csv, json or html")
      ("output,o", po::value(&output), "write to FILE instead of standard output")
      ("fail-if-slower", po::value<double>(), "exit with code 4 when a matched kernel or the total is slower by more "
                                              "than PCT percent (e.g. 10)")
      ("peaks", po::value(&peaks)->default_value("theoretical"), "theoretical or calibrated, for both runs");
  SelectionArgs selection;
  add_selection_options(visible, selection, "matched kernels listed, most changed first; 0 for all (the totals and "
                                            "the gate count every selected launch)");
  po::options_description hidden;
  hidden.add_options()("before", po::value(&before_path), "run before the change")(
      "after", po::value(&after_path), "run after the change");
  po::positional_options_description positional;
  positional.add("before", 1).add("after", 1);
  po::variables_map vm;
  if (!parse_options(args, kUsage, visible, positional, vm, &hidden)) return kExitOk;
  if (before_path.empty() || after_path.empty())
    throw InputError("name two runs, BEFORE and AFTER: limiter compare before.json after.json (see --help)");
  const ReportFormat report_format = report_format_from_string(format);

  CompareOptions options;
  options.before_label = before_path;
  options.after_label = after_path;
  if (vm.count("fail-if-slower")) {
    const double percent = vm["fail-if-slower"].as<double>();
    if (!(percent >= 0)) throw InputError("--fail-if-slower must be a percentage of at least 0, e.g. 10");
    options.max_slowdown = percent / 100.0;
  }
  AnalysisOptions analysis_options;
  analysis_options.peaks = peak_kind_from_string(peaks);
  const NameStyle names = name_style_from_string(selection.names);
  std::unordered_map<std::string, std::string> mangled;
  const auto load = [&](const std::string& path) {
    RunRecord run = load_run(path);
    if (!selection.kernel_regex.empty()) {
      const std::regex selected = kernel_name_regex(selection.kernel_regex);
      std::erase_if(run.launches, [&](const KernelLaunch& launch) { return !std::regex_search(launch.name, selected); });
    }
    for (const auto& launch : run.launches)
      if (!launch.mangled_name.empty()) mangled.emplace(launch.name, launch.mangled_name);
    return analyze_run(run, analysis_options);
  };
  const RunAnalysis before = load(before_path);
  const RunAnalysis after = load(after_path);
  const RunComparison comparison = compare_runs(before, after, options);

  ComparisonOptions comparison_options;
  comparison_options.color = output.empty() && isatty(STDOUT_FILENO);
  comparison_options.top = top_for(selection, vm, report_format);
  if (names == NameStyle::demangled)
    for (const auto& k : comparison.matched) comparison_options.names[k.before.name] = k.before.name;
  if (names != NameStyle::short_form) {
    for (const auto* side : {&comparison.only_before, &comparison.only_after})
      for (const auto& k : *side) comparison_options.names[k.name] = k.name;
    for (const auto& k : comparison.matched) comparison_options.names[k.before.name] = k.before.name;
  }
  if (names == NameStyle::mangled)
    for (const auto& [name, mangled_name] : mangled) comparison_options.names[name] = mangled_name;
  std::ostringstream text;
  write_comparison(comparison, report_format, text, comparison_options);
  write_output(output, text.str());
  if (comparison.failed()) {
    std::cerr << "limiter: compare: slower than --fail-if-slower " << format_fixed(*options.max_slowdown * 100.0, 1)
              << "%: " << slowdown_summary(comparison) << "\n";
    return kExitSlower;
  }
  return kExitOk;
}

}  // namespace limiter::cli
