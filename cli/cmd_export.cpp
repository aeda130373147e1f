// limiter export RUN --format sqlite -o run.sqlite: the run and its analysis as a database a
// data user can query (Python's sqlite3, pandas, DuckDB). Streamed: any number of launches.
#include <iostream>

#include "commands.hpp"
#include "limiter/error.hpp"
#include "limiter/sqlite_export.hpp"
#include "options.hpp"
#include "output_guard.hpp"
#include "run_input.hpp"

namespace limiter::cli {

int run_export(const Args& args) {
  po::options_description visible("options");
  std::string run_path, format, output, peaks;
  visible.add_options()
      ("format,f", po::value(&format)->default_value("sqlite"), "sqlite (tables run, kernels, launches, counters, groups)")
      ("output,o", po::value(&output)->required(), "the database to write (replaced if it exists)")
      ("peaks", po::value(&peaks)->default_value("theoretical"), "theoretical or calibrated");
  po::options_description hidden;
  hidden.add_options()("run", po::value(&run_path)->required()->value_name("RUN"),
                       "a run record (.json or .json.gz) or an Nsight Compute CSV");
  po::positional_options_description positional;
  positional.add("run", 1);
  po::variables_map vm;
  if (!parse_options(args, "limiter export RUN --format sqlite -o run.sqlite\n\n"
                           "RUN is a run record (.json or .json.gz) or an Nsight Compute CSV export. The README\n"
                           "shows the tables and queries from Python, pandas and DuckDB.",
                     visible, positional, vm, &hidden))
    return kExitOk;
  if (format != "sqlite") throw InputError("unknown --format '" + format + "' for export (expected sqlite)");
  refuse_output_over_input(output, {run_path});
  AnalysisOptions analysis_options;
  analysis_options.peaks = peak_kind_from_string(peaks);
  SummaryOptions summary_options;
  summary_options.keep_launches = false;
  SqliteExport database(output);
  const RunSummary summary = load_summary(run_path, analysis_options, summary_options, database.batch_sink());
  database.finish(summary);
  std::cerr << "limiter export: " << summary.launches << " launches of " << summary.distinct_kernels << " kernels -> "
            << output << "\n";
  return kExitOk;
}

}  // namespace limiter::cli
