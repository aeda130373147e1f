// Why kernels wait in every report format: the sampling condition and its dropped samples, the
// dominant stall reasons per kernel and its hot lines, on the synthetic stall record.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

#include "limiter/analysis.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"

namespace limiter {
namespace {

const std::string kFixture = std::string(LIMITER_TEST_DATA_DIR) + "/stalls/synthetic_stalls_run.json";

std::string report(ReportFormat format, ReportView view = ReportView::automatic) {
  const RunSummary summary = summarize_run_file(kFixture, {}, {});  // as limiter report reads it
  ReportOptions options;
  options.view = view;
  std::ostringstream out;
  write_report(summary, format, out, options);
  return out.str();
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "missing: " << part << "\n---\n" << text.substr(0, 6000);
}

TEST(StallReports, TextNamesWhyEachKernelWaits) {
  const std::string text = report(ReportFormat::text);
  expect_contains(text, "PC sampling: a sample every 4,096 cycles per SM (continuous), 24,000 samples of 5 kernels");
  expect_contains(text, "WARNING: PC sampling dropped 120 samples");
  expect_contains(text, "why it waits: Stall Long Scoreboard 86% of stalled samples; 9% issued; 8,000 samples");
  expect_contains(text, "probe.cu:41  LDG.E R2, [R2.64]  65% (Stall Long Scoreboard)");
  expect_contains(text, "Stall Short Scoreboard 55%, Stall MIO Throttle 34% of stalled samples");
  expect_contains(text, "Warps wait at __syncthreads (Stall Barrier, 74% of the stalled samples)");
  expect_contains(text,
                  "why they wait (PC samples by stall reason, most samples first):\n"
                  "  pointer_chase (#2, latency): Stall Long Scoreboard 86%");
  expect_contains(text, "  unlaunched_helper (no launch in the record): Stall Wait 100% of stalled samples");
  expect_contains(text, "    - Warps wait on fixed-latency dependencies (Stall Wait, 100% of the stalled samples)");
}

TEST(StallReports, MarkdownHasATableAndTheHotLines) {
  const std::string md = report(ReportFormat::md, ReportView::grouped);
  expect_contains(md, "### Why they wait (PC samples by stall reason)");
  expect_contains(md, "| `block_reduce` | #5 latency | Stall Barrier 74% of stalled samples");
  expect_contains(md, "| `unlaunched_helper` | no launch | Stall Wait 100%");
  expect_contains(md, "- `unlaunched_helper`: Warps wait on fixed-latency dependencies");
  expect_contains(md, "`probe.cu:77  BAR.SYNC.DEFER_BLOCKING 0x0  60% (Stall Barrier)`");
  expect_contains(md, "> **Warning:** PC sampling dropped 120 samples");
  expect_contains(md, "- why it waits: Stall Long Scoreboard 86%");
}

TEST(StallReports, CsvHasTheDominantReasonsAsColumns) {
  const std::string csv = report(ReportFormat::csv);
  expect_contains(csv,
                  ",stall_samples,stall_issued_share,stall_reason_1,stall_share_1,stall_reason_2,stall_share_2,"
                  "stall_hot_line\r\n");
  expect_contains(csv,
                  ",8000,0.0875,long_scoreboard,0.863013698630137,,,\"probe.cu:41  LDG.E R2, [R2.64]  65% (Stall "
                  "Long Scoreboard)\"\r\n");
  expect_contains(csv, ",short_scoreboard,0.5454545454545454,mio_throttle,0.3409090909090909,");
}

TEST(StallReports, JsonHasTheSamplingAndEachKernelsShares) {
  const std::string text = report(ReportFormat::json);
  const auto json = nlohmann::json::parse(text);
  ASSERT_TRUE(json.contains("stall_sampling")) << text.substr(0, 3000);
  EXPECT_EQ(json["stall_sampling"]["dropped_samples"], 120);
  EXPECT_EQ(json["stall_sampling"]["sample_period_cycles"], 4096);
  bool chase = false;
  for (const auto& kernel : json["kernels"]) {
    if (kernel["display_name"] == "stream_copy") {
      EXPECT_FALSE(kernel.contains("stalls"));
    }
    if (kernel["display_name"] != "pointer_chase") continue;
    chase = true;
    EXPECT_EQ(kernel["stalls"]["dominant"][0]["reason"], "long_scoreboard");
    EXPECT_EQ(kernel["stalls"]["dominant"][0]["title"], "Stall Long Scoreboard");
    EXPECT_EQ(kernel["stalls"]["hot_lines"][0]["line"], 41);
    EXPECT_EQ(kernel["stalls"]["samples"], 8000);
  }
  EXPECT_TRUE(chase);
  bool group_has_stalls = false;
  for (const auto& group : json["rollup"]["groups"]) group_has_stalls = group_has_stalls || group.contains("stalls");
  EXPECT_TRUE(group_has_stalls);
}

TEST(StallReports, HtmlHasBarsAndAHotLineTable) {
  const std::string html = report(ReportFormat::html);
  expect_contains(html, "<b>Why it waits</b> (PC samples)");
  expect_contains(html, "id=\"group-");
  expect_contains(html, "-stalls\"");
  expect_contains(html, "<table class=\"hot-lines\">");
  expect_contains(html, "<code>probe.cu:112</code></td><td class=\"text\"><code>LDS R7, [R9]</code>");
  expect_contains(html, "PC sampling: a sample every 4,096 cycles per SM");
}

// A `limiter run --stalls` record: samples, no launches. Every format still says why each kernel waits.
TEST(StallReports, ARecordOfSamplesAloneIsReportedInEveryFormat) {
  const std::string path = std::string(LIMITER_TEST_DATA_DIR) + "/stalls/synthetic_stalls_only_run.json";
  const RunSummary summary = summarize_run_file(path, {}, {});
  ASSERT_EQ(summary.launches, 0u);
  ASSERT_EQ(summary.stalled_kernels.size(), 5u);
  EXPECT_FALSE(summary.stalled_kernels.front().group);
  const auto written = [&](ReportFormat format) {
    std::ostringstream out;
    write_report(summary, format, out);
    return out.str();
  };
  const std::string text = written(ReportFormat::text);
  expect_contains(text, "  pointer_chase (no launch in the record): Stall Long Scoreboard 86% of stalled samples");
  expect_contains(text, "      probe.cu:41  LDG.E R2, [R2.64]  65% (Stall Long Scoreboard)");
  expect_contains(text, "    - Warps wait at __syncthreads (Stall Barrier, 74% of the stalled samples)");
  expect_contains(written(ReportFormat::md),
                  "| `transpose_shared` | no launch | Stall Short Scoreboard 55%, Stall MIO Throttle 34%");
  const auto json = nlohmann::json::parse(written(ReportFormat::json));
  ASSERT_EQ(json["stalled_kernels"].size(), 5u);
  EXPECT_TRUE(json["stalled_kernels"][0]["group"].is_null());
  EXPECT_EQ(json["stalled_kernels"][0]["stalls"]["dominant"][0]["reason"], "long_scoreboard");
  expect_contains(written(ReportFormat::html), "<h2>Why kernels without launches in the record wait</h2>");
}

// Kernels whose modules were loaded before profiling began (limiter.profile() after the warm-up):
// their hot lines have offsets alone, and every report says why, once, with the fix.
TEST(StallReports, KernelsWithoutTheirCubinAreSaidWithTheFix) {
  RunRecord run = read_run_file(kFixture);
  run.stalls->kernels[0].no_cubin = kNoCubinLoadedBefore;
  run.stalls->kernels[1].no_cubin = kNoCubinLoadedBefore;
  const std::string path = testing::TempDir() + "limiter_stalls_no_cubin.json";
  write_run_file(run, path);
  const RunSummary summary = summarize_run_file(path, {}, {});
  std::remove(path.c_str());
  const auto written = [&](ReportFormat format) {
    std::ostringstream out;
    write_report(summary, format, out);
    return out.str();
  };
  const std::string note =
      "2 kernels' hot instructions have no SASS or source line: module loaded before profiling began (fix: start "
      "profiling before the process first runs those kernels";
  expect_contains(written(ReportFormat::text), note);
  expect_contains(written(ReportFormat::md), note);
  expect_contains(written(ReportFormat::html), "2 kernels&#39; hot instructions have no SASS or source line");
  const auto json = nlohmann::json::parse(written(ReportFormat::json));
  EXPECT_EQ(json["stall_sampling"]["kernels_without_cubin"][kNoCubinLoadedBefore], 2);
}

// A kernel of a few samples (a short program at the default run's period): its shares are said untrustworthy.
TEST(StallReports, AKernelOfFewSamplesSaysSoWithTheFlag) {
  RunRecord run = read_run_file(kFixture);
  KernelStalls& few = run.stalls->kernels.back();
  few.samples = 2;
  few.reasons = {{"wait", 1}, {"drain", 1}};
  few.hot_pcs.resize(1);
  few.hot_pcs[0].samples = 1;
  few.hot_pcs[0].reasons = {{"wait", 1}};
  const std::string path = testing::TempDir() + "limiter_stalls_few.json";
  write_run_file(run, path);
  const RunSummary summary = summarize_run_file(path, {}, {});
  std::remove(path.c_str());
  std::ostringstream text;
  write_report(summary, ReportFormat::text, text);
  expect_contains(text.str(), "2 samples (too few to trust the shares: a smaller --stall-period takes more)");
  EXPECT_EQ(text.str().find("8,000 samples (too few"), std::string::npos);
}

TEST(StallReports, RecordsWithoutStallsShowNoneOfIt) {
  RunRecord run = read_run_file(kFixture);
  run.stalls.reset();
  std::ostringstream text, md;
  write_report(summarize(analyze_run(run)), ReportFormat::text, text);
  write_report(summarize(analyze_run(run)), ReportFormat::md, md);
  EXPECT_EQ(text.str().find("PC sampling"), std::string::npos);
  EXPECT_EQ(text.str().find("why it waits"), std::string::npos);
  EXPECT_EQ(md.str().find("Why they wait"), std::string::npos);
}

}  // namespace
}  // namespace limiter
