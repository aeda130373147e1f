// limiter compare BEFORE AFTER: what changed per kernel between two runs, and a CI gate.
#include <unistd.h>

#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "limiter/analysis.hpp"
#include "limiter/compare.hpp"
#include "limiter/error.hpp"
#include "limiter/format.hpp"
#include "limiter/reports.hpp"
#include "options.hpp"
#include "run_input.hpp"

namespace limiter::cli {
namespace {

const char* const kUsage =
    "limiter compare BEFORE AFTER [--format text|md|csv|json|html] [-o FILE] [--fail-if-slower PCT]\n\n"
    "BEFORE and AFTER are run records or Nsight Compute CSV exports. Launches are matched by kernel\n"
    "name and launch configuration (grid, block), and by order among equal ones. Exit code 4 when\n"
    "--fail-if-slower is given and a matched kernel or the total is slower by more than PCT percent\n"
    "(a kernel whose change lies within the spread of its repeated launches is noise and does not count).";

// "local_array_2k [5] +25.0%, the total +5.9%" for the message on standard error.
std::string slowdown_summary(const RunComparison& comparison) {
  std::string text;
  for (const auto& k : comparison.matched) {
    if (!k.slower_than_limit) continue;
    const auto name = k.before.name.substr(0, k.before.name.find('('));
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
  const RunAnalysis before = analyze_run(load_run(before_path), analysis_options);
  const RunAnalysis after = analyze_run(load_run(after_path), analysis_options);
  const RunComparison comparison = compare_runs(before, after, options);

  std::ostringstream text;
  write_comparison(comparison, report_format, text, output.empty() && isatty(STDOUT_FILENO));
  write_output(output, text.str());
  if (comparison.failed()) {
    std::cerr << "limiter: compare: slower than --fail-if-slower " << format_fixed(*options.max_slowdown * 100.0, 1)
              << "%: " << slowdown_summary(comparison) << "\n";
    return kExitSlower;
  }
  return kExitOk;
}

}  // namespace limiter::cli
