// bench/workloads/nvtx_training.py under `limiter run --nvtx-include train_step/
// --per-kernel-count 1 --budget-by-range` on an H100 (bench/results/2026-11-23-nvtx.md): warm-up
// steps outside any range, then steps in "train_step" holding forward, backward and optimizer.
// Only launches inside train_step are recorded, each kernel and configuration once per range,
// and every report format rolls them up by range (goldens).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

const std::string kRecording = testing::kData + "/cupti/h100_nvtx_budget_limiter.json.gz";

TEST(NvtxRecording, OnlyLaunchesInsideTrainStepEachKernelOncePerRange) {
  const RunRecord run = read_run_file(kRecording);
  ASSERT_FALSE(run.launches.empty());
  EXPECT_GT(run.launches_seen.value_or(0), run.launches.size());  // the rest ran unprofiled
  EXPECT_TRUE(run.missed.empty());
  const std::set<std::string> phases = {"train_step/forward/", "train_step/backward/", "train_step/optimizer/"};
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  for (const auto& launch : run.launches) {
    ASSERT_EQ(launch.nvtx.size(), 1u) << launch.sequence;
    EXPECT_TRUE(phases.count(launch.nvtx[0])) << launch.nvtx[0];
    const std::string configuration = std::to_string(launch.grid.x) + "," + std::to_string(launch.grid.y) + "," +
                                      std::to_string(launch.grid.z) + "/" + std::to_string(launch.block.x) + "," +
                                      std::to_string(launch.block.y) + "," + std::to_string(launch.block.z);
    EXPECT_TRUE(seen.insert({launch.name, configuration, launch.nvtx[0]}).second)
        << launch.name << " twice in " << launch.nvtx[0];
    EXPECT_TRUE(launch.counter("gpu__time_duration.sum").has_value()) << launch.sequence;
  }
  // PyTorch runs backward on its autograd thread: its kernels are outside the main thread's
  // push/pop ranges (all but the gradient fill launched from the main thread).
  std::map<std::string, std::size_t> per_range;
  for (const auto& launch : run.launches) ++per_range[launch.nvtx[0]];
  EXPECT_EQ(per_range, (std::map<std::string, std::size_t>{
                           {"train_step/forward/", 9}, {"train_step/backward/", 1}, {"train_step/optimizer/", 7}}));
  EXPECT_EQ(run.launches_seen.value_or(0), 5906u);  // 100 warm-up and 20 annotated steps
}

TEST(NvtxRecording, RollsUpByRangeInEveryFormat) {
  const RunSummary summary = summarize(analyze_run(read_run_file(kRecording)));
  ASSERT_EQ(summary.nvtx_ranges.size(), 3u);
  double share = 0;
  for (const auto& range : summary.nvtx_ranges) share += range.time_share.value_or(0);
  EXPECT_NEAR(share, 1.0, 1e-9);
  const std::pair<ReportFormat, const char*> formats[] = {{ReportFormat::text, "txt"},
                                                          {ReportFormat::md, "md"},
                                                          {ReportFormat::csv, "csv"},
                                                          {ReportFormat::json, "json"},
                                                          {ReportFormat::html, "html"}};
  for (const auto& [format, extension] : formats) {
    std::ostringstream out;
    write_report(summary, format, out);
    testing::expect_golden(std::string("h100_nvtx_report.") + extension, out.str());
  }
}

}  // namespace
}  // namespace limiter
