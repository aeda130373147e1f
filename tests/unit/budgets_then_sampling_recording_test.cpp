// Records of `limiter run --sampling --per-kernel-count K` on an H100 (2026-11-25,
// bench/results/2026-11-25-budgets-then-sampling.md), re-analysed: bench/workloads/mlp_training.py
// (205 steps, K = 3) and the GPU test's sampling_app (6,000 copies, K = 1). In both the samples
// taken after the range profiler account for a few percent of the instructions the exact launches
// give the sampled ones (PM sampling misses SM-side work there), so every verdict comes from the
// exact launches, says so, and agrees with the exact mode's record of the same program.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "limiter/analysis.hpp"
#include "limiter/record_json.hpp"
#include "limiter/run_summary.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

const std::string kMlp = testing::kData + "/cupti/h100_mlp_training_budgets_then_sampling_limiter.json.gz";
const std::string kApp = testing::kData + "/cupti/h100_sampling_app_budgets_then_sampling_limiter.json";
const std::string kExact = testing::kData + "/cupti/h100_mlp_training_limiter.json.gz";

using GroupKey = std::tuple<std::string, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>;
GroupKey key(const KernelSummary& g) { return {g.name, g.grid.x, g.grid.y, g.block.x, g.block.y}; }

TEST(BudgetsThenSamplingRecording, CountsEveryLaunchOnce) {
  const RunRecord run = read_run_file(kMlp);
  ASSERT_TRUE(run.sampling);
  EXPECT_EQ(run.launches_seen.value_or(0), 10071u);
  std::uint64_t seen = 0, sampled = 0, exact = 0;
  for (const auto& k : run.kernels_seen) seen += k.launches;
  for (const auto& k : run.launches) {
    if (k.sampled) {
      sampled += k.sampled->launches;
      exact += k.sampled->exact_launches;
    } else {
      ++exact;  // a kernel that ran only before sampling began
    }
  }
  EXPECT_EQ(seen, 10071u);
  EXPECT_EQ(exact, 111u);     // 3 launches of each of 37 kernels and configurations
  EXPECT_EQ(sampled, 9834u);  // kernel records from the first sampled launch on
}

TEST(BudgetsThenSamplingRecording, EveryKernelIsJudgedByItsExactLaunches) {
  const RunAnalysis analysis = analyze_run(read_run_file(kMlp));
  std::size_t judged = 0;
  for (const auto& k : analysis.kernels) {
    ASSERT_TRUE(k.verdict) << k.name << ": " << k.verdict_reason;
    ++judged;
    if (!k.sampled) continue;
    EXPECT_NE(k.verdict_reason.find("before sampling began"), std::string::npos) << k.verdict_reason;
    EXPECT_NE(k.verdict_reason.find("the samples account for 4.2% of the instructions"), std::string::npos)
        << k.verdict_reason;
  }
  EXPECT_EQ(judged, analysis.kernels.size());
}

// Weighted by the exact mode's kernel time, of the kernels holding >= 1 % of it.
TEST(BudgetsThenSamplingRecording, VerdictsAgreeWithTheExactMode) {
  const RunSummary hybrid = summarize_run_file(kMlp, {}, {});
  const RunSummary exact = summarize_run_file(kExact, {}, {});
  std::map<GroupKey, const KernelSummary*> by_key;
  for (const auto& g : hybrid.groups) by_key[key(g)] = &g;
  std::size_t big = 0, agree = 0;
  for (const auto& e : exact.groups) {
    if (e.time_share.value_or(0) < 0.01) continue;
    ++big;
    const auto found = by_key.find(key(e));
    ASSERT_NE(found, by_key.end()) << e.name;
    ASSERT_TRUE(found->second->main_verdict) << e.name;
    agree += found->second->main_verdict == e.main_verdict ? 1 : 0;
  }
  EXPECT_EQ(big, 24u);
  EXPECT_EQ(agree, big);
}

TEST(BudgetsThenSamplingRecording, SmallAppKnownVerdicts) {
  const RunRecord run = read_run_file(kApp);
  EXPECT_EQ(run.launches_seen.value_or(0), 6020u);
  const RunAnalysis analysis = analyze_run(run);
  ASSERT_EQ(analysis.kernels.size(), 2u);
  for (const auto& k : analysis.kernels) {
    ASSERT_TRUE(k.verdict) << k.name;
    const bool copy = k.name.find("stream_copy") != std::string::npos;
    EXPECT_EQ(*k.verdict, copy ? Verdict::bandwidth : Verdict::instruction) << k.verdict_reason;
    if (copy) {
      EXPECT_NE(k.verdict_reason.find("account for 0.6%"), std::string::npos) << k.verdict_reason;
    }
  }
}

}  // namespace
}  // namespace limiter
