// limiter analyze: re-evaluate a raw data set (limiter run --save-raw) through the CUPTI host
// API, on any machine, and report it — or re-analyse a run record with other peaks.
#include <filesystem>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "limiter/analysis.hpp"
#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "options.hpp"
#include "output_guard.hpp"
#include "run_input.hpp"
#ifdef LIMITER_HAVE_CUPTI
#include "limiter/cupti_host.hpp"
#endif

namespace limiter::cli {

int run_analyze(const Args& args) {
  po::options_description visible("options");
  std::string input, output, peaks, record;
  visible.add_options()("peaks", po::value(&peaks)->default_value("theoretical"), "theoretical or calibrated")(
      "record", po::value(&record), "also write the re-evaluated run record (JSON) to FILE")(
      "output,o", po::value(&output), "write the report (JSON) to FILE instead of a table on stdout");
  po::options_description hidden;
  hidden.add_options()("input", po::value(&input)->required()->value_name("RAW_DIR|RUN"),
                       "a raw data folder (limiter run --save-raw DIR), a run record (.json or .json.gz) or an "
                       "Nsight Compute CSV");
  po::positional_options_description positional;
  positional.add("input", 1);
  po::variables_map vm;
  if (!parse_options(args, "limiter analyze RAW_DIR|RUN [--peaks theoretical|calibrated] [--record FILE] [-o FILE]",
                     visible, positional, vm, &hidden))
    return kExitOk;
  refuse_output_over_input(output, {input});
  refuse_output_over_input(record, {input}, "--record");
  RunRecord run;
  if (std::filesystem::is_directory(input)) {
#ifdef LIMITER_HAVE_CUPTI
    run = evaluate_raw_dir(input);
#else
    throw SystemError("this limiter was built without CUPTI, so it cannot evaluate raw counter images");
#endif
  } else {
    run = load_run(input);
  }
  if (!record.empty()) write_run_file(run, record);
  AnalysisOptions options;
  options.peaks = peak_kind_from_string(peaks);
  const auto analysis = analyze_run(run, options);
  std::ostringstream text;
  if (output.empty()) {
    write_text_report(analysis, text);
  } else {
    write_report(analysis, ReportFormat::json, text);
  }
  write_output(output, text.str());
  return kExitOk;
}

}  // namespace limiter::cli
