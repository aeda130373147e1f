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

}  // namespace
}  // namespace limiter
