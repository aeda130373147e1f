// limiter compare's output: the JSON's shape, the CSV's rows, and golden files of every format
// for the H200 probe against its planted 25 % slowdown. Regenerate the goldens with
//   LIMITER_UPDATE_GOLDEN=1 build/tests/limiter_unit_tests --gtest_filter='Compare*'
#include <gtest/gtest.h>

#include <sstream>

#include "test_data.hpp"

#include "compare_fixtures.hpp"

namespace limiter {
namespace {

using namespace compare_fixtures;

using testing::expect_golden;

TEST(Compare, JsonHasTheDocumentedShape) {
  const auto json = comparison_json(compare_files(kProbe, kProbeSlower, 0.10));
  EXPECT_EQ(json["schema_version"], kComparisonSchemaVersion);
  EXPECT_EQ(json["kind"], "limiter-compare");
  EXPECT_EQ(json["gate"]["failed"], true);
  EXPECT_EQ(json["gate"]["slower_before_sequences"], nlohmann::ordered_json({5}));
  ASSERT_EQ(json["matched"].size(), 7u);
  const auto& planted = json["matched"][5];
  EXPECT_EQ(planted["verdict"]["before"], "bandwidth");
  EXPECT_EQ(planted["verdict"]["after"], "latency");
  EXPECT_EQ(planted["verdict"]["changed"], true);
  EXPECT_NEAR(planted["time"]["change"].get<double>(), 0.25, 1e-9);
  for (const char* key : {"issue", "l2", "dram", "compute", "memory"})
    EXPECT_TRUE(planted["utilization"].contains(key));
  EXPECT_TRUE(planted["lmem"]["l2_share"].contains("before"));
  EXPECT_TRUE(json["only_before"].empty());
  EXPECT_TRUE(comparison_json(compare_files(kProbe, kProbe))["gate"].is_null());
}

TEST(Compare, CsvHasOneRowPerKernelAndATotal) {
  const std::string csv =
      rendered(compare_files("ncu/synthetic_raw.csv", "compare/synthetic_after_raw.csv"), ReportFormat::csv);
  std::istringstream lines(csv);
  std::string line;
  std::vector<std::string> statuses;
  while (std::getline(lines, line)) {
    ASSERT_FALSE(line.empty());
    EXPECT_EQ(line.back(), '\r') << "CRLF rows";
    statuses.push_back(line.substr(0, line.find(',')));
  }
  EXPECT_EQ(statuses, (std::vector<std::string>{"status", "matched", "only_before", "only_after", "total"}));
}

// The planted slowdown's comparison, gated at 10 %, in FORMAT against the golden FILE.
void expect_probe_golden(const std::string& file, ReportFormat format) {
  expect_golden(file, rendered(compare_files(kProbe, kProbeSlower, 0.10), format));
}

TEST(Compare, GoldenText) { expect_probe_golden("h200_probe_compare.txt", ReportFormat::text); }
TEST(Compare, GoldenMarkdown) { expect_probe_golden("h200_probe_compare.md", ReportFormat::md); }
TEST(Compare, GoldenCsv) { expect_probe_golden("h200_probe_compare.csv", ReportFormat::csv); }
TEST(Compare, GoldenJson) { expect_probe_golden("h200_probe_compare.json", ReportFormat::json); }
TEST(Compare, GoldenHtml) { expect_probe_golden("h200_probe_compare.html", ReportFormat::html); }
TEST(Compare, GoldenSpeedUpMarkdown) {
  expect_golden("h200_probe_compare_speedup.md", rendered(compare_files(kProbeSlower, kProbe, 0.10), ReportFormat::md));
}
TEST(Compare, GoldenRepeatedLaunchesText) {
  expect_golden(
      "synthetic_compare.txt",
      rendered(compare_files("ncu/synthetic_raw.csv", "compare/synthetic_after_raw.csv", 0.02), ReportFormat::text));
}

}  // namespace
}  // namespace limiter
