#include "fuzz_support.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <streambuf>

#include "limiter/analysis.hpp"
#include "limiter/compare.hpp"
#include "limiter/error.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"

namespace limiter::fuzz {
namespace {

// Reports are rendered in full but not kept: the point is that rendering survives.
class NullBuffer : public std::streambuf {
 protected:
  int_type overflow(int_type c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize count) override { return count; }
};

void render_every_format(const RunSummary& summary) {
  NullBuffer buffer;
  std::ostream out(&buffer);
  for (auto format : {ReportFormat::text, ReportFormat::md, ReportFormat::csv, ReportFormat::json, ReportFormat::html})
    write_report(summary, format, out);
}

}  // namespace

void analyse_and_report(const RunRecord& run) {
  for (auto peaks : {PeakKind::theoretical, PeakKind::calibrated}) {
    AnalysisOptions options;
    options.peaks = peaks;
    const RunAnalysis analysis = analyze_run(run, options);
    render_every_format(summarize(analysis));
    SummaryOptions streamed;
    streamed.keep_launches = false;  // the path of csv/json reports of large records
    render_every_format(summarize_record(run, options, streamed));
    NullBuffer buffer;
    std::ostream out(&buffer);
    for (auto format :
         {ReportFormat::text, ReportFormat::md, ReportFormat::csv, ReportFormat::json, ReportFormat::html})
      write_comparison(compare_runs(analysis, analysis), format, out);
  }
}

void expect_only_limiter_errors(const std::function<void()>& read) {
  try {
    read();
  } catch (const InputError&) {
  } catch (const SystemError&) {
  }
}

std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

const std::string& scratch_dir() {
  // Never destroyed: the exit handler that removes it runs after static destructors may have.
  static const std::string& dir = *new std::string([] {
    const auto path = std::filesystem::temp_directory_path() / ("limiter-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(path);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(scratch_dir(), ignored);
    });
    return path.string();
  }());
  return dir;
}

void write_file(const std::string& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
}

}  // namespace limiter::fuzz
