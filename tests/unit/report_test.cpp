// Golden tests for the renderers: the committed H200 probe recording rendered as text and
// JSON must match tests/data/golden/ byte for byte. After an intended change, regenerate with
//   LIMITER_UPDATE_GOLDEN=1 build/tests/limiter_unit_tests --gtest_filter='Report*'
// and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "limiter/analysis.hpp"
#include "test_data.hpp"
#include "limiter/import.hpp"
#include "limiter/reports.hpp"

namespace limiter {
namespace {

using testing::expect_golden;

const std::string kData = LIMITER_TEST_DATA_DIR;

RunAnalysis probe_analysis() {
  std::ifstream in(kData + "/ncu/h200_probe_raw.csv");
  return analyze_run(import_ncu_csv(in, "h200_probe_raw.csv"));
}

TEST(Report, TextGolden) {
  std::ostringstream out;
  write_text_report(probe_analysis(), out);
  expect_golden("h200_probe_report.txt", out.str());
}

TEST(Report, JsonGolden) {
  std::ostringstream out;
  write_json_report(summarize(probe_analysis()), out);
  expect_golden("h200_probe_report.json", out.str());
}

TEST(Report, TextIsSortedByTimeAndJsonByLaunchOrder) {
  const auto analysis = probe_analysis();
  std::ostringstream text;
  write_text_report(analysis, text, {false, false});
  // spill_pressure (1.55 ms) is the most expensive and comes first in the table.
  const auto table = text.str();
  EXPECT_LT(table.find("spill_pressure"), table.find("stream_copy"));
  const auto json = report_json(summarize(analysis));
  ASSERT_EQ(json["kernels"].size(), 7u);
  for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(json["kernels"][i]["sequence"], i);
}

TEST(Report, JsonHasTheDocumentedKeys) {
  const auto json = report_json(summarize(probe_analysis()));
  EXPECT_EQ(json["schema_version"], kReportSchemaVersion);
  const auto& kernel = json["kernels"][6];
  for (const char* key : {"name", "verdict", "verdict_reason", "utilization", "lmem", "occupancy", "advice"})
    EXPECT_TRUE(kernel.contains(key)) << key;
  for (const char* key : {"l2_share", "l2_share_seed", "instruction_share"})
    EXPECT_TRUE(kernel["lmem"].contains(key)) << key;
  for (const char* key : {"issue", "l2", "dram"}) EXPECT_TRUE(kernel["utilization"].contains(key)) << key;
  EXPECT_TRUE(kernel["occupancy"].contains("theoretical"));
  EXPECT_EQ(kernel["verdict"], "bandwidth");
  const double share = kernel["lmem"]["l2_share"];
  EXPECT_GT(share, 0.0);
  EXPECT_LE(share, 1.0);
}

TEST(Report, UnknownValuesAreNullNotZero) {
  RunRecord run;
  KernelLaunch bare;
  bare.name = "no_counters";
  run.launches = {bare};
  const auto json = report_json(summarize(analyze_run(run)));
  EXPECT_TRUE(json["kernels"][0]["verdict"].is_null());
  EXPECT_TRUE(json["kernels"][0]["lmem"]["l2_share"].is_null());
  EXPECT_TRUE(json["kernels"][0]["utilization"]["issue"].is_null());
  EXPECT_TRUE(json["kernels"][0]["occupancy"]["theoretical"].is_null());
}

}  // namespace
}  // namespace limiter
