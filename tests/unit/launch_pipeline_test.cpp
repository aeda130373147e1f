// A record analysed on every core (summary/launch_pipeline.cpp) reports exactly as the same
// record summarised in memory on one thread (summarize_record), in every format, whether its launches are kept or not;
// and a record that cannot be read fails with the error a single thread meets first.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"

namespace limiter {
namespace {

const std::string kRecord = std::string(LIMITER_TEST_DATA_DIR) + "/cupti/h100_mlp_training_limiter.json.gz";

using LaunchRows = std::function<void(const std::function<void(const KernelAnalysis&)>& row)>;

std::string report_of(const RunSummary& summary, ReportFormat format, const LaunchRows& rows = nullptr) {
  std::ostringstream out;
  ReportOptions options;
  options.launch_rows = rows;
  write_report(summary, format, out, options);
  return out.str();
}

// 10,071 launches: 79 batches, read, parsed and analysed on several threads.
TEST(LaunchPipeline, ReportsReadAsFromMemoryOnOneThread) {
  const RunRecord run = read_run_file(kRecord);
  const RunAnalysis in_memory = analyze_run(run);
  for (const std::size_t kept : {std::size_t{0}, std::size_t{1000}, std::size_t{100000}}) {
    SCOPED_TRACE(kept);
    SummaryOptions options;
    options.keep_launches = kept > 0;
    options.keep_launches_up_to = kept;
    options.longest_to_note = 20;
    const RunSummary streamed = summarize_run_file(kRecord, {}, options);
    const RunSummary expected = summarize_record(run, {}, options);
    EXPECT_EQ(streamed.launches, 10071u);
    for (const ReportFormat format : {ReportFormat::text, ReportFormat::md, ReportFormat::html})
      EXPECT_TRUE(report_of(streamed, format) == report_of(expected, format)) << to_string(format);
    // csv and json of a summary that kept no launch: a second pass over the record (the CLI's).
    const LaunchRows streamed_rows = [&](const std::function<void(const KernelAnalysis&)>& row) {
      for_each_analysed_launch(kRecord, {}, "", row);
    };
    const LaunchRows rows_in_memory = [&](const std::function<void(const KernelAnalysis&)>& row) {
      for (const auto& launch : in_memory.kernels) row(launch);
    };
    for (const ReportFormat format : {ReportFormat::csv, ReportFormat::json})
      EXPECT_TRUE(report_of(streamed, format, kept ? LaunchRows() : streamed_rows) ==
                  report_of(expected, format, kept ? LaunchRows() : rows_in_memory))
          << to_string(format);
  }
}

TEST(LaunchPipeline, FailsWithTheFirstErrorInTheRecord) {
  const RunRecord run = read_run_file(kRecord);
  std::ostringstream text;
  write_run_json(run, text);
  std::string record = text.str();
  // Launch 3000 without a name, and the record cut short after launch 9000: launch 3000's error.
  const std::string named = "{\"sequence\":3000,\"name\":", unnamed = "{\"sequence\":3000,\"nom\":";
  const auto broken = record.find(named);
  ASSERT_NE(broken, std::string::npos);
  record.replace(broken, named.size(), unnamed);
  record.resize(record.find("{\"sequence\":9000,"));
  const auto path = (std::filesystem::temp_directory_path() / "limiter_pipeline_errors.json").string();
  std::ofstream(path) << record;
  for (int round = 0; round < 3; ++round) {
    try {
      summarize_run_file(path, {}, {});
      FAIL() << "a broken record was read";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("launch 3000: no \"name\""), std::string::npos) << e.what();
    }
  }
  record.replace(broken, unnamed.size(), named);
  std::ofstream(path) << record;
  try {
    summarize_run_file(path, {}, {});
    FAIL() << "a truncated record was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON (truncated or corrupt?)"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace limiter
