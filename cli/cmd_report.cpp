// limiter report RUN...: the limiter of every kernel of a run, or of a job's ranks together.
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "limiter/analysis.hpp"
#include "limiter/error.hpp"
#include "limiter/import.hpp"
#include "limiter/kernel_selection.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "limiter/rank_summary.hpp"
#include "options.hpp"
#include "output_format.hpp"
#include "output_guard.hpp"
#include "record_sets.hpp"
#include "run_input.hpp"
#include "selection_options.hpp"

namespace limiter::cli {

constexpr std::size_t kKeptLaunchesForAutomaticView = 10000;

namespace {

// A -k that selects no kernel is a mistake, not an empty report (a CI gate would pass on it).
bool selects_nothing(const RunSummary& summary, const std::string& kernel_regex) {
  return !kernel_regex.empty() && summary.groups.empty() && summary.stalled_kernels.empty();
}

void refuse_empty_selection(const RankSummary& ranks, const std::string& kernel_regex) {
  std::vector<std::string> names;
  for (const auto& rank : ranks.ranks) {
    if (!selects_nothing(rank.summary, kernel_regex)) return;
    names.insert(names.end(), rank.summary.unselected_kernels.begin(), rank.summary.unselected_kernels.end());
  }
  if (!ranks.ranks.empty() && !kernel_regex.empty())
    throw_nothing_selected(kernel_regex, std::to_string(ranks.ranks.size()) + " records", names);
}

}  // namespace

int run_report(const Args& args) {
  po::options_description visible("options");
  std::vector<std::string> inputs;
  std::string run_path, format, output, peaks;
  double high = 80, latency = 60, gap = 10;
  int rank = -1;
  SelectionArgs selection;
  visible.add_options()(
      "format,f", po::value(&format),
      "text, md (Markdown), csv (one row per launch), json, or html (one file, SVG charts); "
      "`limiter export --format sqlite` for a database. Without it, -o's extension picks (.html, .md, .csv, "
      ".json; text for any other)")("output,o", po::value(&output), "write to FILE instead of standard output")(
      "peaks", po::value(&peaks)->default_value("theoretical"),
      "theoretical (datasheet / ncu peak_sustained) or calibrated (measured on this GPU model)")(
      "high", po::value(&high)->default_value(80), "percent of peak at which a unit limits the kernel")(
      "latency", po::value(&latency)->default_value(60), "below this percent on both sides: latency-limited")(
      "gap", po::value(&gap)->default_value(10), "points by which one side must lead between the two")(
      "rank", po::value(&rank), "of several records (a job's ranks), report only the one of rank N");
  add_selection_options(visible, selection,
                        "rows: kernels (grouped view) or launches (--launches), most time first; 0 for all. "
                        "csv and json: launches, all unless given");
  po::options_description hidden;
  hidden.add_options()("run", po::value(&inputs)->required()->value_name("RUN"),
                       "a run record (.json or .json.gz), an Nsight Compute CSV, or a folder of a job's ranks");
  po::positional_options_description positional;
  positional.add("run", -1);
  po::variables_map vm;
  if (!parse_options(args,
                     "limiter report RUN... [options]\n\n"
                     "RUN is a run record (.json from `limiter run`, `limiter kernels` or `limiter import`)\n"
                     "or an Nsight Compute CSV export (imported on the fly). When the run repeats kernels the\n"
                     "text, md and html reports are grouped by kernel and launch configuration, most time first.\n"
                     "Several records (files, globs or a directory: the ranks of a torchrun, mpirun or srun job)\n"
                     "give one report of the ranks together: per kernel the time of each rank, the spread\n"
                     "between them and the slowest rank; --rank N reports one of them alone.",
                     visible, positional, vm, &hidden))
    return kExitOk;
  const std::vector<std::string> paths = expand_record_arguments(inputs);
  refuse_output_over_input(output, paths);
  if (vm.count("rank"))
    run_path = record_of_rank(paths, rank);
  else if (paths.size() == 1)
    run_path = paths.front();
  const ReportFormat report_format = output_format(format, output, "limiter report");
  if (!(latency > 0 && latency <= high && high <= 100 && gap >= 0))
    throw InputError("thresholds must satisfy 0 < --latency <= --high <= 100 and --gap >= 0");

  AnalysisOptions analysis_options;
  analysis_options.peaks = peak_kind_from_string(peaks);
  analysis_options.thresholds.high_utilization = high / 100.0;
  analysis_options.thresholds.latency = latency / 100.0;
  analysis_options.thresholds.balance_gap = gap / 100.0;
  ReportOptions report_options;
  report_options.color = output.empty() && isatty(STDOUT_FILENO);
  report_options.view = selection.launches ? ReportView::launches : ReportView::automatic;
  report_options.top = top_for(selection, vm, report_format);
  SummaryOptions summary_options;
  summary_options.kernel_regex = selection.kernel_regex;
  summary_options.names = name_style_from_string(selection.names);
  if (run_path.empty()) {  // the ranks of a job, together
    if (selection.launches) throw InputError("--launches lists one rank's launches: add --rank N");
    for (const auto& path : paths)
      if (!is_run_record(path))
        throw InputError("'" + path + "' is not a run record: several inputs must be run records");
    const RankSummary ranks = summarize_ranks(paths, analysis_options, summary_options);
    refuse_empty_selection(ranks, selection.kernel_regex);
    write_output(output, [&](std::ostream& out) { write_report(ranks, report_format, out, report_options); });
    return kExitOk;
  }
  // Every launch is kept where rows per launch are asked for; else only for a small run, whose
  // automatic view may be one row per launch (a run of distinct kernels). csv and json of a
  // record keep none: their rows come from a second pass over it, so memory stays flat.
  const bool data_format = report_format == ReportFormat::csv || report_format == ReportFormat::json;
  if (!selection.launches && !data_format) summary_options.keep_launches_up_to = kKeptLaunchesForAutomaticView;
  if (data_format && is_run_record(run_path)) {
    summary_options.keep_launches = false;
    summary_options.longest_to_note = report_options.top;
    report_options.launch_rows = [&](const std::function<void(const KernelAnalysis&)>& row) {
      for_each_analysed_launch(run_path, analysis_options, selection.kernel_regex, row);
    };
  }
  const RunSummary summary = load_summary(run_path, analysis_options, summary_options);
  if (selects_nothing(summary, selection.kernel_regex))
    throw_nothing_selected(selection.kernel_regex, "'" + run_path + "'", summary.unselected_kernels);

  write_output(output, [&](std::ostream& out) { write_report(summary, report_format, out, report_options); });
  return kExitOk;
}

}  // namespace limiter::cli
