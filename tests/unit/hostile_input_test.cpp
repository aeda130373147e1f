// Inputs the fuzz targets (tests/fuzz) found crashing limiter, reduced by hand: each must now
// give a report or an InputError.
#include <gtest/gtest.h>

#include <sstream>

#include "limiter/analysis.hpp"
#include "limiter/error.hpp"
#include "limiter/import.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"

namespace limiter {
namespace {

RunRecord plain_csv(const std::string& text) {
  std::istringstream in(text);
  return import_plain_csv(in, "hostile.csv", "sm_90", 132);
}

std::string json_report_of(const RunRecord& run) {
  std::ostringstream out;
  write_report(summarize(analyze_run(run)), ReportFormat::json, out);
  return out.str();
}

// fuzz_plain_csv, fuzz_ncu_csv: a kernel name that is not UTF-8 threw nlohmann's type_error 316
// out of the JSON report (and of the run record written by limiter import).
TEST(HostileInput, KernelNameThatIsNotUtf8) {
  const RunRecord run = plain_csv("k\x9e\xff,smsp__inst_issued.sum,10\n");
  EXPECT_NE(json_report_of(run).find("k\xEF\xBF\xBD\xEF\xBF\xBD"), std::string::npos);  // U+FFFD each
  std::ostringstream record;
  write_run_json(run, record);
  EXPECT_NE(record.str().find("\"name\":\"k\xEF\xBF\xBD\xEF\xBF\xBD\""), std::string::npos);  // a launch per line
}

// Stalls that read (every count a whole number) but make no sense: counts at 2^64 - 1, a hot PC
// with more samples than its kernel, no reasons, names and SASS that are not UTF-8, a kernel twice.
// Every report must still be written: shares saturate, never wrap or divide by zero.
TEST(HostileInput, StallsAtTheLimits) {
  RunRecord run = plain_csv("k\x9e,smsp__inst_issued.sum,10\n");
  StallInfo stalls;
  stalls.dropped_samples = UINT64_MAX;
  KernelStalls k;
  k.name = run.launches.front().name;
  k.reasons = {{"long_scoreboard", UINT64_MAX}, {"selected", UINT64_MAX}, {"\xff\xfe", 1}};
  k.hot_pcs.push_back({0, UINT64_MAX, {}, "LDG \x9e", "a\xff.cu", UINT32_MAX});
  stalls.kernels = {k, k};
  KernelStalls empty;
  empty.name = k.name;
  stalls.kernels.push_back(empty);
  run.stalls = stalls;
  const RunSummary summary = summarize(analyze_run(run));
  ASSERT_TRUE(summary.groups.front().stalls);
  for (const auto& r : summary.groups.front().stalls->reasons) EXPECT_LE(r.share, 1.0);
  for (auto format :
       {ReportFormat::text, ReportFormat::md, ReportFormat::csv, ReportFormat::json, ReportFormat::html}) {
    std::ostringstream out;
    EXPECT_NO_THROW(write_report(summary, format, out)) << to_string(format);
  }
  std::ostringstream record;
  write_run_json(run, record);
  EXPECT_EQ(run_from_json(nlohmann::json::parse(record.str(), nullptr, true, false), "r.json").stalls->kernels.size(),
            3u);
}

}  // namespace
}  // namespace limiter
