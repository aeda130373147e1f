// A record read for a comparison (read_compared_run: streamed, its launches parsed on every
// core, only each kernel and configuration's first launch analysed unless rows per launch are
// asked for) compares exactly as the record read whole with every launch analysed, in every
// format, by kernel and with rows per launch.
#include <gtest/gtest.h>

#include <sstream>
#include <unordered_map>

#include "limiter/analysis.hpp"
#include "limiter/compare.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"

namespace limiter {
namespace {

const std::string kData = std::string(LIMITER_TEST_DATA_DIR) + "/";

AnalysisOptions wordless() {
  AnalysisOptions options;
  options.explain = false;
  return options;
}

// The record whole, every launch analysed: what a comparison read before it was streamed.
ComparedRun read_whole(const std::string& path) {
  const RunRecord record = read_run_file(path);
  ComparedRun run = compared_run(analyze_run(record, wordless()));
  add_record_fields(run, record);
  return run;
}

std::string every_format(const RunComparison& comparison) {
  std::string reports;
  for (const ReportFormat format :
       {ReportFormat::text, ReportFormat::md, ReportFormat::csv, ReportFormat::json, ReportFormat::html}) {
    ComparisonOptions options;
    options.top = 0;  // every row
    std::ostringstream out;
    write_comparison(comparison, format, out, options);
    reports += out.str();
  }
  return reports;
}

struct RecordPair {
  const char* before;
  const char* after;
};

// Records of every kind a comparison meets: every launch (10,071, 79 batches), per-kernel
// budgets, PM-sampled aggregates with exact launches, a default run (counters and a timeline), a
// timeline alone, PC samples, and a record against another program.
const RecordPair kPairs[] = {
    {"cupti/h100_mlp_training_limiter.json.gz", "cupti/h100_mlp_training_limiter.json.gz"},
    {"cupti/h100_mlp_training_limiter.json.gz", "cupti/h100_mlp_training_budget3_limiter.json.gz"},
    {"cupti/h100_mlp_training_sampled_limiter.json.gz",
     "cupti/h100_mlp_training_budgets_then_sampling_limiter.json.gz"},
    {"default_run/h200_mlp100_default.json.gz", "default_run/h200_mlp100_default.json.gz"},
    {"timeline/h100_gloo_rank0_timeline.json.gz", "timeline/h100_gloo_rank1_timeline.json.gz"},
    {"stalls/synthetic_stalls_run.json", "stalls/h100_stalls_probe.json.gz"},
    {"cupti/h100_mlp_training_limiter.json.gz", "synthetic/pytorch_jax_2k.json.gz"},
};

TEST(CompareRead, ComparesAsTheRecordReadWhole) {
  for (const auto& [before, after] : kPairs) {
    for (const bool launch_rows : {false, true}) {
      SCOPED_TRACE(std::string(before) + " -> " + after + (launch_rows ? ", --launches" : ""));
      CompareOptions options{"before", "after", 0.05, launch_rows};
      const RunComparison whole = compare_runs(read_whole(kData + before), read_whole(kData + after), options);
      const RunComparison streamed = compare_runs(read_compared_run(kData + before, wordless(), launch_rows),
                                                  read_compared_run(kData + after, wordless(), launch_rows), options);
      EXPECT_EQ(streamed.failed(), whole.failed());
      EXPECT_TRUE(every_format(streamed) == every_format(whole)) << "the reports differ";
    }
  }
}

// Grouped, each kernel and configuration's first launch carries its analysis and the others their
// name, configuration and time alone.
TEST(CompareRead, AnalysesEachGroupsFirstLaunchOnly) {
  const std::string path = kData + "cupti/h100_mlp_training_limiter.json.gz";
  const ComparedRun every = read_compared_run(path, wordless(), true);
  const ComparedRun firsts = read_compared_run(path, wordless(), false);
  ASSERT_EQ(firsts.launches.size(), 10071u);
  ASSERT_EQ(every.launches.size(), firsts.launches.size());
  std::unordered_map<std::string, std::size_t> groups;
  std::size_t analysed = 0;
  for (std::size_t i = 0; i < firsts.launches.size(); ++i) {
    const ComparedLaunch& a = every.launches[i];
    const ComparedLaunch& b = firsts.launches[i];
    ASSERT_EQ(a.sequence, b.sequence);
    ASSERT_EQ(a.name, b.name);
    ASSERT_TRUE(a.grid == b.grid && a.block == b.block);
    ASSERT_EQ(a.duration_ns, b.duration_ns);
    const std::string key = RunSummary::group_key(std::string(a.name), a.grid, a.block);
    if (!groups.emplace(key, i).second) {
      EXPECT_FALSE(b.verdict.has_value()) << "launch " << i << " is not its group's first";
      EXPECT_FALSE(b.utilization.memory.has_value());
      continue;
    }
    ++analysed;
    ASSERT_TRUE(a.verdict.has_value());
    EXPECT_EQ(b.verdict, a.verdict);
    EXPECT_EQ(b.balanced, a.balanced);
    EXPECT_EQ(b.limiting_unit, a.limiting_unit);
    EXPECT_EQ(b.utilization.compute, a.utilization.compute);
    EXPECT_EQ(b.utilization.memory, a.utilization.memory);
    EXPECT_EQ(b.lmem.l2_share, a.lmem.l2_share);
  }
  EXPECT_EQ(analysed, groups.size());
  EXPECT_GT(analysed, 10u);
}

// --names mangled: each kernel's mangled name, as the record read whole gives it.
TEST(CompareRead, CollectsEachKernelsMangledName) {
  const std::string path = kData + "cupti/h100_mlp_training_limiter.json.gz";
  std::unordered_map<std::string, std::string> streamed, whole;
  read_compared_run(path, wordless(), false, &streamed);
  for (const auto& launch : read_run_file(path).launches)
    if (!launch.mangled_name.empty()) whole.emplace(launch.name, launch.mangled_name);
  EXPECT_FALSE(whole.empty());
  EXPECT_EQ(streamed, whole);
}

}  // namespace
}  // namespace limiter
