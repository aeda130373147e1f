// limiter export RUN --format sqlite -o run.sqlite: the run and its analysis as a database a
// data user can query (Python's sqlite3, pandas, DuckDB). Streamed: any number of launches.
// limiter export RUN... --format perfetto -o trace.json: the records' timelines as a Chrome
// trace (ui.perfetto.dev, chrome://tracing), a process per record (a rank of a job).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "limiter/error.hpp"
#include "limiter/file_io.hpp"
#include "limiter/perfetto_export.hpp"
#include "limiter/record_stream.hpp"
#include "limiter/sqlite_export.hpp"
#include "options.hpp"
#include "output_guard.hpp"
#include "record_sets.hpp"
#include "run_input.hpp"

namespace limiter::cli {
namespace {

// What the database holds, as the record does: its launches with counters, its timeline, its PC
// samples; never "0 launches of 0 kernels" for a record of a timeline or of samples alone.
std::string exported_text(const RunSummary& summary, const std::optional<RunRecord>& header) {
  std::vector<std::string> parts;
  if (summary.launches > 0)
    parts.push_back(std::to_string(summary.launches) + " launches of " + std::to_string(summary.distinct_kernels) +
                    " kernels");
  if (header && header->timeline)
    parts.push_back("a timeline of " + std::to_string(header->timeline->events.size()) + " events");
  if (header && header->stalls)
    parts.push_back(std::to_string(header->stalls->samples) + " PC samples of " +
                    std::to_string(header->stalls->kernels.size()) + " kernels");
  if (parts.empty()) return "the run's fields (no launch, timeline or PC samples in the record)";
  std::string text;
  for (const auto& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

int export_sqlite(const std::string& run_path, const std::string& output, const AnalysisOptions& analysis_options,
                  bool counters) {
  SummaryOptions summary_options;
  summary_options.keep_launches = false;
  SqliteExport database(output, counters);
  const RunSummary summary = load_summary(run_path, analysis_options, summary_options, database.batch_sink());
  std::optional<RunRecord> header;
  if (is_run_record(run_path)) {
    header = read_run_header(run_path);
    if (header->timeline) database.add_timeline(*header->timeline);
    if (header->stalls) database.add_stalls(*header->stalls);
  }
  database.finish(summary);
  std::cerr << "limiter export: " << exported_text(summary, header) << " -> " << output << "\n";
  return kExitOk;
}

// One record's process: its timeline, each kernel's analysis by launch sequence, its verdict.
struct TraceProcess {
  PerfettoProcess process;
  Timeline timeline;
  std::optional<int> rank;
  std::string path;
};

TraceProcess trace_process(const std::string& path, const AnalysisOptions& analysis_options) {
  if (!is_run_record(path))
    throw InputError("'" + path + "' is not a run record: only `limiter run` records hold a timeline");
  TraceProcess trace;
  trace.path = path;
  RunRecord header = read_run_header(path);
  if (!header.timeline) throw InputError("'" + path + "': " + kNoTimelineNote);
  trace.timeline = std::move(*header.timeline);
  SummaryOptions summary_options;
  summary_options.keep_launches = false;
  std::unordered_map<std::uint64_t, std::string> names;  // display names are known only at the end
  const RunSummary summary =
      load_summary(path, analysis_options, summary_options, [&](const RunRecord&, const RunAnalysis& a) {
        for (const auto& k : a.kernels) {
          trace.process.kernels[k.sequence] = perfetto_kernel_args(k, "");
          names[k.sequence] = k.name;
        }
      });
  for (auto& [sequence, args] : trace.process.kernels) args.display_name = summary.display_name(names[sequence]);
  trace.process.program = summary.program;
  trace.rank = header.rank ? std::optional<int>(header.rank->rank) : std::nullopt;
  const std::string file = std::filesystem::path(path).filename().string();
  trace.process.name =
      header.rank ? "rank " + std::to_string(header.rank->rank) + (header.host.empty() ? "" : " (" + header.host + ")")
                  : file;
  return trace;
}

int export_perfetto(const std::vector<std::string>& paths, const std::string& output,
                    const AnalysisOptions& analysis_options) {
  std::vector<TraceProcess> traces;
  for (const auto& path : paths) traces.push_back(trace_process(path, analysis_options));
  std::stable_sort(traces.begin(), traces.end(), [](const TraceProcess& a, const TraceProcess& b) {
    return a.rank.value_or(INT32_MAX) < b.rank.value_or(INT32_MAX);
  });
  std::vector<PerfettoProcess> processes;
  for (auto& t : traces) {
    t.process.timeline = &t.timeline;
    processes.push_back(std::move(t.process));
  }
  std::size_t events = 0;
  write_file_atomically(output, [&](std::ostream& out) { events = write_perfetto_trace(processes, out); });
  std::cerr << "limiter export: " << events << " events of " << processes.size()
            << (processes.size() == 1 ? " record" : " records") << " -> " << output
            << " (open it in ui.perfetto.dev or chrome://tracing)\n";
  return kExitOk;
}

// A database named x.json (or a trace named x.sqlite) misleads whoever opens it next: said, and written.
void warn_if_extension_differs(const std::string& format, const std::string& output) {
  std::string extension = std::filesystem::path(output).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const bool sqlite = format == "sqlite";
  const bool matches =
      sqlite ? (extension == ".sqlite" || extension == ".sqlite3" || extension == ".db" || extension == ".db3")
             : extension == ".json";
  if (matches) return;
  std::cerr << "limiter export: warning: writing " << (sqlite ? "SQLite" : "a JSON trace") << " to '" << output
            << "', whose extension does not match: name it " << (sqlite ? ".sqlite" : ".json") << "\n";
}

}  // namespace

int run_export(const Args& args) {
  po::options_description visible("options");
  std::vector<std::string> run_arguments;
  std::string format, output, peaks;
  bool no_counters = false;
  visible.add_options()(
      "format,f", po::value(&format)->default_value("sqlite"),
      "sqlite (tables run, kernels, launches, counters, groups, timeline, program, program_pauses, stalls, "
      "hot_pcs) or perfetto (a Chrome trace "
      "of the timeline; the default for -o *.json)")("output,o", po::value(&output)->required(),
                                                     "the file to write (replaced if it exists)")(
      "peaks", po::value(&peaks)->default_value("theoretical"), "theoretical or calibrated")(
      "no-counters", po::bool_switch(&no_counters),
      "sqlite: leave the counters table empty (every counter of every launch: most of a large run's rows)");
  po::options_description hidden;
  hidden.add_options()("run", po::value(&run_arguments)->required()->value_name("RUN"),
                       "a run record (.json or .json.gz) or an Nsight Compute CSV");
  po::positional_options_description positional;
  positional.add("run", -1);
  po::variables_map vm;
  if (!parse_options(args,
                     "limiter export RUN --format sqlite -o run.sqlite\n"
                     "limiter export RUN... --format perfetto -o trace.json\n\n"
                     "RUN is a run record (.json or .json.gz) or an Nsight Compute CSV export. docs/guide/exports.md\n"
                     "shows the tables and queries from Python, pandas and DuckDB. perfetto writes the\n"
                     "records' timelines (several records, files, globs or a folder: a process per rank).",
                     visible, positional, vm, &hidden))
    return kExitOk;
  if (vm["format"].defaulted() && output.ends_with(".json")) format = "perfetto";
  if (format != "sqlite" && format != "perfetto")
    throw InputError("unknown --format '" + format + "' for export (expected sqlite or perfetto)");
  AnalysisOptions analysis_options;
  analysis_options.peaks = peak_kind_from_string(peaks);
  if (format == "perfetto") {
    const auto paths = expand_record_arguments(run_arguments);
    refuse_output_over_input(output, paths);
    warn_if_extension_differs(format, output);
    return export_perfetto(paths, output, analysis_options);
  }
  if (run_arguments.size() != 1)
    throw InputError(
        "an argument too many: limiter export RUN --format sqlite -o run.sqlite (one record; several only "
        "with --format perfetto)");
  refuse_output_over_input(output, run_arguments);
  warn_if_extension_differs(format, output);
  return export_sqlite(run_arguments.front(), output, analysis_options, !no_counters);
}

}  // namespace limiter::cli
