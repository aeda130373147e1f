// limiter compare BEFORE AFTER: what changed per kernel between two runs, and a CI gate.
#include <unistd.h>

#include <iostream>
#include <map>
#include <regex>
#include <unordered_set>

#include "commands.hpp"
#include "limiter/analysis.hpp"
#include "limiter/compare.hpp"
#include "limiter/error.hpp"
#include "limiter/format.hpp"
#include "limiter/kernel_names.hpp"
#include "limiter/reports.hpp"
#include "limiter/json_text.hpp"
#include "limiter/record_stream.hpp"
#include "limiter/run_summary.hpp"
#include "options.hpp"
#include "output_format.hpp"
#include "output_guard.hpp"
#include "record_sets.hpp"
#include "run_input.hpp"
#include "selection_options.hpp"

namespace limiter::cli {
namespace {

const char* const kUsage =
    "limiter compare BEFORE AFTER [--format text|md|csv|json|html] [-o FILE] [--fail-if-slower PCT] [-k REGEX] [--top "
    "N]\n"
    "                [--launches]\n\n"
    "BEFORE and AFTER are run records (.json, .json.gz) or Nsight Compute CSV exports (.csv, .csv.gz).\n"
    "Launches are grouped by kernel name and launch configuration (grid, block), as `limiter report`\n"
    "groups them, and each kernel's mean time per launch is compared; --launches gives a row per launch,\n"
    "matched by order among equal ones. Names that ncu and CUPTI spell differently are matched. Exit code 4\n"
    "when --fail-if-slower is given and a matched kernel or the total is slower by more than PCT percent\n"
    "(a kernel whose change is within 2 standard errors of its launches' spread is noise and does not count).\n"
    "Records that selected their launches differently (every launch, per-kernel budgets, a subset, PM\n"
    "sampling) are compared per launch: each kernel by its mean time per launch, with a warning.\n"
    "BEFORE and AFTER may each be several records (a glob or a directory: the ranks of a job): rank N\n"
    "before is compared with rank N after, each rank in turn (text, md, json), and the gate counts every\n"
    "rank; --rank N compares one rank alone, in any format.";

// The records of BEFORE or AFTER by rank (a directory or glob of a job's ranks).
std::map<int, std::string> records_by_rank(const std::vector<std::string>& paths, const std::string& side) {
  std::map<int, std::string> by_rank;
  for (const auto& path : paths) {
    if (!is_run_record(path))
      throw InputError("'" + path + "' is not a run record: several inputs must be run records");
    const RunRecord header = read_run_header(path, TimelineEvents::skipped);
    // A launcher's own process (torchrun's agent) leaves a record without a rank or a launch.
    if (!header.rank && header.launches_seen == std::uint64_t{0}) continue;
    if (!header.rank)
      throw InputError(side + ": '" + path + "' names no rank; several records are compared rank by rank");
    if (!by_rank.emplace(header.rank->rank, path).second)
      throw InputError(side + ": '" + by_rank[header.rank->rank] + "' and '" + path + "' are both rank " +
                       std::to_string(header.rank->rank));
  }
  return by_rank;
}

// "the total +5.9%, local_array_2k [5] +25.0%, ... and 4,091 more kernels" for the message on
// standard error: the totals, then the kGateKernelsNamed most slower kernels, then a count.
std::string slowdown_summary(const RunComparison& comparison) {
  std::string text;
  const auto add = [&](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
  if (comparison.totals.slower_than_limit)
    add(std::string(comparison.per_launch ? "the mean per launch +" : "the total +") +
        format_fixed(*comparison.totals.all.change * 100.0, 1) + "%");
  const auto named = comparison.slowest_kernels(kGateKernelsNamed);
  for (const KernelComparison* k : named)
    add(kernel_base_name(std::string(k->before.name)) + " [" + std::to_string(k->before.sequence) + "] +" +
        format_fixed(*k->time.change * 100.0, 1) + "%");
  if (const std::size_t more = comparison.slower_kernel_count() - named.size(); more > 0)
    text += " and " + std::to_string(more) + (more == 1 ? " more kernel" : " more kernels");
  return text;
}

// A run record is read as a stream, never whole, and its launches analysed without words (a
// comparison shows no reasons or advice: a fifth of the time), each kept in the compact form
// the comparison uses; only each kernel's first launch is analysed unless EVERY_LAUNCH (rows per
// launch). MANGLED, when given, collects each name's mangled form. The run keeps how its record
// selected its launches, before -k.
ComparedRun load_compared(const std::string& path, const AnalysisOptions& analysis_options,
                          const std::string& kernel_regex, bool every_launch,
                          std::unordered_map<std::string, std::string>* mangled) {
  AnalysisOptions wordless = analysis_options;
  wordless.explain = false;
  ComparedRun run;
  if (is_run_record(path)) {
    run = read_compared_run(path, wordless, every_launch, mangled);
  } else {
    const RunRecord record = load_run(path);
    for (const auto& launch : record.launches)
      if (mangled && !launch.mangled_name.empty()) mangled->emplace(launch.name, launch.mangled_name);
    run = compared_run(analyze_run(record, wordless));
    add_record_fields(run, record);
  }
  if (!run.selection) run.selection = launch_selection(run);
  if (!kernel_regex.empty()) {
    const std::regex selected = kernel_name_regex(kernel_regex);
    std::unordered_map<std::string_view, bool> matches;  // each name searched once, not each launch
    std::erase_if(run.launches, [&](const ComparedLaunch& launch) {
      auto [found, added] = matches.try_emplace(launch.name, false);
      if (added) found->second = std::regex_search(launch.name.begin(), launch.name.end(), selected);
      return !found->second;
    });
    if (run.stalls)
      std::erase_if(run.stalls->kernels, [&](const KernelStalls& k) { return !std::regex_search(k.name, selected); });
  }
  return run;
}

}  // namespace

int run_compare(const Args& args) {
  po::options_description visible("options");
  std::string before_path, after_path, format, output, peaks;
  visible.add_options()(
      "format,f", po::value(&format),
      "text, md, csv, json or html; without it, -o's extension picks (.html, .md, .csv, .json; text for any other)")(
      "output,o", po::value(&output), "write to FILE instead of standard output")(
      "fail-if-slower", po::value<double>(),
      "exit with code 4 when a matched kernel or the total is slower by more "
      "than PCT percent (e.g. 10)")("peaks", po::value(&peaks)->default_value("theoretical"),
                                    "theoretical or calibrated, for both runs")(
      "rank", po::value<int>(), "of several records a side (a job's ranks), compare only rank N");
  SelectionArgs selection;
  add_selection_options(visible, selection,
                        "matched kernels listed, most changed first; 0 for all (the totals and "
                        "the gate count every selected launch)");
  po::options_description hidden;
  hidden.add_options()("before", po::value(&before_path), "run before the change")("after", po::value(&after_path),
                                                                                   "run after the change");
  po::positional_options_description positional;
  positional.add("before", 1).add("after", 1);
  po::variables_map vm;
  if (!parse_options(args, kUsage, visible, positional, vm, &hidden)) return kExitOk;
  if (before_path.empty() || after_path.empty())
    throw InputError("name two runs, BEFORE and AFTER: limiter compare before.json after.json (see --help)");

  CompareOptions options;
  options.launch_rows = selection.launches;
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
    return load_compared(path, analysis_options, selection.kernel_regex, options.launch_rows,
                         names == NameStyle::mangled ? &mangled : nullptr);
  };
  const std::vector<std::string> before_paths = expand_record_arguments({before_path});
  const std::vector<std::string> after_paths = expand_record_arguments({after_path});
  std::vector<std::string> input_paths = before_paths;
  input_paths.insert(input_paths.end(), after_paths.begin(), after_paths.end());
  refuse_output_over_input(output, input_paths);
  const ReportFormat report_format = output_format(format, output, "limiter compare");  // warns: after the refusals
  std::vector<std::pair<int, RunComparison>> comparisons;  // rank (-1: not by rank), comparison
  const auto compare_pair = [&](const std::string& before_record, const std::string& after_record, int rank) {
    CompareOptions pair_options = options;
    pair_options.before_label = before_record;
    pair_options.after_label = after_record;
    ComparedRun before = load(before_record);
    comparisons.emplace_back(rank, compare_runs(std::move(before), load(after_record), pair_options));
  };
  std::vector<std::string> unmatched;
  if (vm.count("rank")) {
    const int rank = vm["rank"].as<int>();
    compare_pair(record_of_rank(before_paths, rank), record_of_rank(after_paths, rank), rank);
  } else if (before_paths.size() == 1 && after_paths.size() == 1) {
    compare_pair(before_paths.front(), after_paths.front(), -1);
  } else {
    if (report_format == ReportFormat::csv || report_format == ReportFormat::html)
      throw InputError("several ranks are compared in text, md or json; for csv or html add --rank N");
    const auto before_ranks = records_by_rank(before_paths, "BEFORE");
    const auto after_ranks = records_by_rank(after_paths, "AFTER");
    for (const auto& [rank, path] : before_ranks) {
      if (auto after = after_ranks.find(rank); after != after_ranks.end())
        compare_pair(path, after->second, rank);
      else
        unmatched.push_back("rank " + std::to_string(rank) + " is only in BEFORE");
    }
    for (const auto& [rank, path] : after_ranks)
      if (!before_ranks.count(rank)) unmatched.push_back("rank " + std::to_string(rank) + " is only in AFTER");
    if (comparisons.empty()) throw InputError("BEFORE and AFTER have no rank in common");
  }

  ComparisonOptions comparison_options;
  comparison_options.color = output.empty() && isatty(STDOUT_FILENO);
  comparison_options.top = top_for(selection, vm, report_format);
  // A Markdown comment fits a pull request unless --top asks for a number of rows.
  if (!vm["top"].defaulted()) comparison_options.markdown_limit = 0;
  bool failed = false;
  std::string failures;
  const bool by_rank = comparisons.size() > 1;
  for (const auto& [rank, comparison] : comparisons) {
    if (!comparison.failed()) continue;
    failed = true;
    failures += (failures.empty() ? "" : "; ") + (rank >= 0 && by_rank ? "rank " + std::to_string(rank) + ": " : "") +
                slowdown_summary(comparison);
  }
  // Written as it is rendered: the comparison of 100,000s of launches is never held as text.
  write_output(output, [&](std::ostream& out) {
    nlohmann::ordered_json ranks_json = nlohmann::ordered_json::array();
    bool first = true;
    for (const auto& [rank, comparison] : comparisons) {
      ComparisonOptions shown = comparison_options;
      if (names != NameStyle::short_form) {
        // Each name once: a view of an interned name is told by its address, not its text.
        std::unordered_set<const char*> seen;
        const auto show_whole = [&](std::string_view name) {
          if (seen.insert(name.data()).second) shown.names.emplace(name, name);
        };
        for (const auto* side : {&comparison.only_before, &comparison.only_after})
          for (const auto& k : *side) show_whole(k.first.name);
        for (const auto& k : comparison.matched) show_whole(k.before.name);
        for (const auto& k : comparison.samples) show_whole(k.name);
      }
      if (names == NameStyle::mangled)
        for (const auto& [name, mangled_name] : mangled) shown.names[name] = mangled_name;
      if (by_rank && report_format == ReportFormat::json) {
        ranks_json.push_back({{"rank", rank}, {"comparison", comparison_json(comparison, shown)}});
        continue;
      }
      if (by_rank && report_format == ReportFormat::text) out << (first ? "" : "\n") << "=== rank " << rank << " ===\n";
      if (by_rank && report_format == ReportFormat::md) out << "## Rank " << rank << "\n\n";
      first = false;
      write_comparison(comparison, report_format, out, shown);
    }
    if (by_rank && report_format == ReportFormat::json) {
      nlohmann::ordered_json document;
      document["schema_version"] = kComparisonSchemaVersion;
      document["kind"] = "limiter-rank-comparison";
      document["ranks"] = std::move(ranks_json);
      document["unmatched"] = unmatched;
      out << json_text(document, 2) << "\n";
    } else {
      for (const auto& note : unmatched)
        out << (report_format == ReportFormat::md ? "> **Warning:** " : "WARNING: ") << note << "\n";
    }
  });
  if (failed) {
    std::cerr << "limiter: compare: slower than --fail-if-slower " << format_fixed(*options.max_slowdown * 100.0, 1)
              << "%: " << failures << "\n";
    return kExitSlower;
  }
  return kExitOk;
}

}  // namespace limiter::cli
