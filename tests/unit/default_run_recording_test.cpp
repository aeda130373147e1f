// A real record of `limiter run`'s default run (H200, 2026-11-28, bench/results/2026-11-28-default-run.md):
// `STEPS=100 limiter run --stall-window 300 -- python3 bench/workloads/mlp_training.py`. One record
// holds all three answers: the PC samples of the first window, each kernel's counters from its first
// launches, and the timeline of the rest, judged at the app's own pace.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

const std::string kRecord = testing::kData + "/default_run/h200_mlp100_default.json.gz";

TEST(DefaultRunRecording, HoldsThePhasesInTheOrderTheyRan) {
  const RunRecord run = read_run_file(kRecord);
  ASSERT_EQ(run.phases.size(), 3u);
  EXPECT_EQ(run.phases[0].name, "samples");
  EXPECT_EQ(run.phases[0].ended_by, "window of 300 ms over");
  EXPECT_EQ(run.phases[1].name, "counters");
  EXPECT_EQ(run.phases[1].ended_by, "budgets spent");
  EXPECT_EQ(run.phases[2].name, "timeline");
  EXPECT_EQ(run.phases[2].ended_by, "the app ended");
  for (std::size_t i = 0; i + 1 < run.phases.size(); ++i) EXPECT_EQ(run.phases[i].end_ns, run.phases[i + 1].start_ns);
  ASSERT_TRUE(run.stalls);
  EXPECT_GT(run.stalls->samples, 10000u);
  EXPECT_GT(run.stalls->kernels.size(), 5u);
  ASSERT_TRUE(run.timeline);
  EXPECT_GE(run.timeline->start_ns, run.phases[2].start_ns);  // no kernel record beside the counters
  EXPECT_EQ(run.source, "cupti");
  EXPECT_TRUE(run.missed.empty());
}

TEST(DefaultRunRecording, ItsReportGivesEveryAnswer) {
  const RunSummary summary = summarize_run_file(kRecord, {}, {});
  ASSERT_TRUE(summary.program);
  EXPECT_NE(summary.program->window_note.find("judged on the timeline phase"), std::string::npos);
  EXPECT_NE(summary.program->window_note.find("the PC-sampling window"), std::string::npos);
  EXPECT_GT(summary.groups.size(), 30u);
  std::size_t judged = 0;
  for (const auto& group : summary.groups) judged += group.main_verdict.has_value();
  EXPECT_GT(judged, 30u);  // each kernel's verdict from its budget's counters
  EXPECT_FALSE(summary.stalled_kernels.empty());
  std::ostringstream text;
  write_report(summary, ReportFormat::text, text);
  const std::string report = text.str();
  EXPECT_NE(report.find("kernels by time on the timeline"), std::string::npos) << report.substr(0, 4000);
  EXPECT_NE(report.find("why they wait"), std::string::npos);
  EXPECT_EQ(report.find("0 launches of 0 kernels"), std::string::npos);
}

}  // namespace
}  // namespace limiter
