// A sampled record (PM-sampling mode) keeps each kernel's sample support in every reader and
// layout (the stream reader on a launch per line, indented and one-line text), so `limiter report` applies the
// analysis's sample gate; and the report counts the launches behind each aggregate, not one per aggregate.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "limiter/record_json.hpp"
#include "limiter/record_stream.hpp"
#include "limiter/run_summary.hpp"
#include "record_layout.hpp"

namespace limiter {
namespace {

RunRecord sampled_record() {
  RunRecord run;
  run.tool_version = "test";
  run.source = "cupti-pm-sampling";
  run.device.name = "NVIDIA H100 80GB HBM3";
  run.device.chip = "GH100";
  run.device.arch = "sm_90";
  run.device.sm_count = 132;
  SamplingInfo info;
  info.interval_ns = 100000;
  info.samples = 5000;
  info.metrics = {"smsp__inst_issued.sum"};
  run.sampling = info;
  for (int i = 0; i < 2; ++i) {
    KernelLaunch k;
    k.sequence = static_cast<std::uint64_t>(i);
    k.name = i == 0 ? "gemm" : "tiny";
    k.grid = {132, 1, 1};
    k.block = {256, 1, 1};
    k.counters["gpu__time_duration.sum"] = 1e6;
    SampleSupport s;
    s.launches = i == 0 ? 200 : 300;
    s.kernel_time_ns = 1e6;
    s.samples = i == 0 ? 400 : 5;  // the second too few for a verdict
    s.purity = 0.8;
    s.overlap_share = 0.1;
    if (i == 0) s.separability = 0.75;
    if (i == 0) s.standard_errors = {{"smsp__inst_issued.sum", 12.5}, {"lts__t_sectors.sum", 0.25}};
    if (i == 0) {  // --sampling --per-kernel-count 3: its first launches profiled exactly
      s.exact_launches = 3;
      s.exact_counters = {{"smsp__inst_issued.sum", 1.5e6}, {"smsp__inst_executed_op_local_ld.sum", 20.0}};
    }
    k.sampled = s;
    run.launches.push_back(k);
  }
  return run;
}

// The record in the layout of `limiter run`'s merged records: the fields, then a launch per line.
std::string as_lines(const RunRecord& run) { return testing::as_written_lines(run); }

RunRecord by_stream(const std::string& text) { return testing::read_streamed(text); }

TEST(SampledRecordReaders, SupportSurvivesEveryReader) {
  const RunRecord written = sampled_record();
  const auto path = (std::filesystem::temp_directory_path() / "limiter_sampled_readers.json").string();
  write_run_file(written, path);
  // DOM reader.
  const RunRecord dom = read_run_file(path);
  ASSERT_EQ(dom.launches.size(), 2u);
  EXPECT_EQ(dom.launches[0].sampled, written.launches[0].sampled);
  EXPECT_EQ(dom.launches[1].sampled, written.launches[1].sampled);
  // A launch per line.
  const RunRecord lines = by_stream(as_lines(written));
  ASSERT_EQ(lines.launches.size(), 2u);
  EXPECT_EQ(lines.launches[0].sampled, written.launches[0].sampled);
  EXPECT_EQ(lines.launches[1].sampled, written.launches[1].sampled);
  ASSERT_TRUE(lines.sampling);
  // As written by write_run_file, and indented.
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  const RunRecord streamed = by_stream(text.str());
  ASSERT_EQ(streamed.launches.size(), 2u);
  EXPECT_EQ(streamed.launches[0].sampled, written.launches[0].sampled);
  const RunRecord indented = by_stream(to_json(written).dump(2));
  ASSERT_EQ(indented.launches.size(), 2u);
  EXPECT_EQ(indented.launches[0].sampled, written.launches[0].sampled);
  EXPECT_EQ(indented.launches[1].sampled, written.launches[1].sampled);
  ASSERT_TRUE(indented.sampling);
  EXPECT_EQ(indented.sampling->interval_ns, 100000u);
  std::filesystem::remove(path);
}

TEST(SampledRecordReaders, ReportCountsLaunchesAndGatesVerdicts) {
  const auto path = (std::filesystem::temp_directory_path() / "limiter_sampled_report.json").string();
  write_run_file(sampled_record(), path);
  const RunSummary summary = summarize_run_file(path, {}, {});
  EXPECT_EQ(summary.launches, 500u);  // the launches behind the two aggregates
  ASSERT_EQ(summary.groups.size(), 2u);
  for (const auto& group : summary.groups) {
    if (group.name == "tiny") {
      EXPECT_EQ(group.launches, 300u);
      EXPECT_FALSE(group.main_verdict.has_value());
      EXPECT_TRUE(group.longest.too_few_samples);
      EXPECT_NE(group.longest.verdict_reason.find("no verdict from sampling"), std::string::npos);
    } else {
      EXPECT_EQ(group.launches, 200u);
      EXPECT_FALSE(group.longest.too_few_samples);
      EXPECT_NE(group.longest.verdict_reason.find("separability 75"), std::string::npos)
          << group.longest.verdict_reason;
    }
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace limiter
