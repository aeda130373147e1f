// A summary of a record streamed from its file analyses launches that are not kept without
// words (AnalysisOptions::explain off) and explains each group's longest launch at the end:
// the groups must read exactly as when every launch was explained.
#include <gtest/gtest.h>

#include "limiter/record_json.hpp"
#include "limiter/run_summary.hpp"

namespace limiter {
namespace {

const std::string kRecord = std::string(LIMITER_TEST_DATA_DIR) + "/cupti/h100_mlp_training_limiter.json.gz";

void expect_same_words(const KernelAnalysis& a, const KernelAnalysis& b) {
  EXPECT_EQ(a.sequence, b.sequence);
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.verdict_reason, b.verdict_reason);
  EXPECT_EQ(a.coverage_note, b.coverage_note);
  EXPECT_EQ(a.advice, b.advice);
  ASSERT_EQ(a.evidence.size(), b.evidence.size());
  for (std::size_t i = 0; i < a.evidence.size(); ++i) {
    EXPECT_EQ(a.evidence[i].quantity, b.evidence[i].quantity);
    EXPECT_EQ(a.evidence[i].detail, b.evidence[i].detail);
  }
  ASSERT_EQ(a.utilization.units.size(), b.utilization.units.size());
  for (std::size_t i = 0; i < a.utilization.units.size(); ++i)
    EXPECT_EQ(a.utilization.units[i].source, b.utilization.units[i].source);
}

TEST(SummaryWordless, GroupsReadAsWhenEveryLaunchWasExplained) {
  SummaryOptions streamed_options;
  streamed_options.keep_launches = false;  // every launch analysed without words
  const RunSummary streamed = summarize_run_file(kRecord, {}, streamed_options);
  const RunSummary explained = summarize(analyze_run(read_run_file(kRecord)));
  ASSERT_EQ(streamed.groups.size(), explained.groups.size());
  ASSERT_GE(streamed.groups.size(), 20u);
  for (std::size_t i = 0; i < streamed.groups.size(); ++i) {
    const auto& a = streamed.groups[i];
    const auto& b = explained.groups[i];
    SCOPED_TRACE(a.name);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.launches, b.launches);
    EXPECT_EQ(a.main_verdict, b.main_verdict);
    EXPECT_EQ(a.limiting_unit, b.limiting_unit);
    EXPECT_EQ(a.issue, b.issue);
    EXPECT_EQ(a.lmem_l2_share, b.lmem_l2_share);
    EXPECT_EQ(a.fix_first_rank, b.fix_first_rank);
    EXPECT_FALSE(a.longest.verdict_reason.empty());
    expect_same_words(a.longest, b.longest);
  }
  ASSERT_EQ(streamed.fix_first.size(), explained.fix_first.size());
  for (std::size_t i = 0; i < streamed.fix_first.size(); ++i)
    EXPECT_EQ(streamed.fix_first[i].advice, explained.fix_first[i].advice);
}

TEST(SummaryWordless, AWordlessAnalysisHasTheSameNumbersAndVerdicts) {
  const RunRecord run = read_run_file(kRecord);
  AnalysisOptions wordless;
  wordless.explain = false;
  const RunAnalysis a = analyze_run(run, wordless), b = analyze_run(run);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (std::size_t i = 0; i < a.kernels.size(); ++i) {
    const auto &x = a.kernels[i], &y = b.kernels[i];
    EXPECT_EQ(x.verdict, y.verdict);
    EXPECT_EQ(x.balanced, y.balanced);
    EXPECT_EQ(x.limiting_unit, y.limiting_unit);
    EXPECT_EQ(x.latency_causes, y.latency_causes);
    EXPECT_EQ(x.utilization.compute(), y.utilization.compute());
    EXPECT_EQ(x.utilization.memory(), y.utilization.memory());
    EXPECT_EQ(x.utilization.missing_units, y.utilization.missing_units);
    EXPECT_EQ(x.lmem.l2_share, y.lmem.l2_share);
    EXPECT_TRUE(x.verdict_reason.empty() && x.evidence.empty() && x.advice.empty());
  }
}

}  // namespace
}  // namespace limiter
