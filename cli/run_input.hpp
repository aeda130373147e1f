#pragma once
// Reading a run from the command line: a run record, or an Nsight Compute CSV imported on the fly.
#include <string>

#include "limiter/analysis.hpp"
#include "limiter/record.hpp"
#include "limiter/run_summary.hpp"

namespace limiter::cli {

// True for a run record (a JSON object, plain or gzip-compressed), false for what may be an ncu
// CSV export (text). Throws InputError for a file that can be neither (empty, binary, a .json
// that holds no JSON object), saying why, rather than letting the CSV importer call it a bad CSV.
bool is_run_record(const std::string& path);

RunRecord load_run(const std::string& path);
// An ncu CSV (plain or .csv.gz), its import warnings on standard error.
RunRecord import_ncu_file(const std::string& path);

// A run record (streamed: flat memory however many launches) or an ncu CSV, analysed and summarised.
RunSummary load_summary(const std::string& path, const AnalysisOptions& analysis_options,
                        const SummaryOptions& summary_options, const BatchSink& on_batch = {});

}  // namespace limiter::cli
