#include "run_input.hpp"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "limiter/error.hpp"
#include "limiter/import.hpp"
#include "limiter/record_json.hpp"

namespace limiter::cli {
namespace {

constexpr std::size_t kOpening = 4096;  // enough to tell JSON, text and binary apart

struct Opening {
  std::string text;  // decompressed where the file is gzip
  bool compressed = false;
};

// The first bytes of PATH as the readers see them: zlib reads a plain file through unchanged.
Opening opening_of(const std::string& path) {
  if (std::filesystem::is_directory(path))
    throw InputError("'" + path +
                     "' is a folder: name a run record in it (a folder of a job's ranks goes to "
                     "`limiter report` or `limiter compare`)");
  if (!std::ifstream(path, std::ios::binary)) throw InputError("cannot open '" + path + "': check the path");
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) throw InputError("cannot open '" + path + "': check the path");
  Opening opening;
  opening.text.resize(kOpening);
  const int read = gzread(file, opening.text.data(), static_cast<unsigned>(opening.text.size()));
  opening.compressed = gzdirect(file) == 0;
  gzclose(file);
  if (read < 0) throw InputError("'" + path + "' is not a valid gzip file (truncated or corrupt?)");
  opening.text.resize(static_cast<std::size_t>(read));
  return opening;
}

bool is_binary(unsigned char c) { return c == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f'); }

// Why a file that does not open with '{' is not a run record, when it cannot be an ncu CSV
// either; nothing when it may be one (text not named .json).
std::optional<std::string> why_neither(const std::string& path, const Opening& opening) {
  std::string_view text = opening.text;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte order mark
  const auto start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return opening.compressed ? "a compressed empty file" : "an empty file";
  if (std::any_of(text.begin(), text.end(), [](char c) { return is_binary(static_cast<unsigned char>(c)); }))
    return opening.compressed ? "compressed binary data, not JSON" : "binary data, not JSON";
  if (text[start] == '[') return "JSON, but an array: a run record is one JSON object";
  if (opening.compressed && path.ends_with(".json.gz")) return "compressed text that is not JSON";
  if (path.ends_with(".json")) return "not JSON: a run record starts with '{'";
  return std::nullopt;
}

}  // namespace

bool is_run_record(const std::string& path) {
  const Opening opening = opening_of(path);
  const auto start = opening.text.find_first_not_of(" \t\r\n", opening.text.starts_with("\xEF\xBB\xBF") ? 3 : 0);
  if (start != std::string::npos && opening.text[start] == '{') return true;
  if (const auto why = why_neither(path, opening))
    throw InputError("'" + path + "' is not a limiter run record (" + *why +
                     ") and not an Nsight Compute CSV; run records come from `limiter run`, `limiter kernels` or "
                     "`limiter import`, CSVs from `ncu --csv --page raw`");
  return false;
}

RunRecord import_ncu_file(const std::string& path) {
  std::vector<std::string> warnings;
  RunRecord run = import_ncu_csv_file(path, &warnings);
  for (const auto& warning : warnings) std::cerr << "limiter: warning: " << warning << "\n";
  return run;
}

RunRecord load_run(const std::string& path) {
  if (is_run_record(path)) return read_run_file(path);
  return import_ncu_file(path);
}

RunSummary load_summary(const std::string& path, const AnalysisOptions& analysis_options,
                        const SummaryOptions& summary_options, const BatchSink& on_batch) {
  if (is_run_record(path)) return summarize_run_file(path, analysis_options, summary_options, on_batch);
  return summarize_record(import_ncu_file(path), analysis_options, summary_options, on_batch);
}

}  // namespace limiter::cli
