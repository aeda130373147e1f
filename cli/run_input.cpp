#include "run_input.hpp"

#include <fstream>

#include "limiter/error.hpp"
#include "limiter/import.hpp"
#include "limiter/record_json.hpp"

namespace limiter::cli {

bool is_run_record(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open '" + path + "': check the path");
  if (path.ends_with(".gz")) return true;  // a compressed record (run.json.gz)
  char first = 0;
  while (in.get(first) && (first == ' ' || first == '\n' || first == '\r' || first == '\t')) {
  }
  return first == '{';
}

RunRecord load_run(const std::string& path) {
  if (is_run_record(path)) return read_run_file(path);
  std::ifstream in(path, std::ios::binary);
  return import_ncu_csv(in, path);
}

RunSummary load_summary(const std::string& path, const AnalysisOptions& analysis_options,
                        const SummaryOptions& summary_options, const BatchSink& on_batch) {
  if (is_run_record(path)) return summarize_run_file(path, analysis_options, summary_options, on_batch);
  std::ifstream in(path, std::ios::binary);
  return summarize_record(import_ncu_csv(in, path), analysis_options, summary_options, on_batch);
}

}  // namespace limiter::cli
