// `limiter run --sampling --sampling-interval 100` on bench/workloads/mlp_training.py (STEPS=1640,
// 80,386 launches) on an H100 (bench/results/2026-11-23-sampling-mode.md, call 2): the record
// `limiter run` recovered from the sampler's last snapshot when the process aborted in its exit
// handler. Re-analysed here: every kernel gets a verdict or says why not, and the verdicts agree
// with the exact mode's record of the same program (h100_mlp_training_limiter.json.gz).
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "limiter/record_json.hpp"
#include "limiter/run_summary.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

const std::string kSampled = testing::kData + "/cupti/h100_mlp_training_sampled_limiter.json.gz";
const std::string kExact = testing::kData + "/cupti/h100_mlp_training_limiter.json.gz";

using GroupKey = std::tuple<std::string, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>;
GroupKey key(const KernelSummary& g) { return {g.name, g.grid.x, g.grid.y, g.block.x, g.block.y}; }

TEST(SampledRecording, HoldsTheWholeLoopAndSaysHowItEnded) {
  const RunRecord run = read_run_file(kSampled);
  ASSERT_TRUE(run.sampling);
  EXPECT_EQ(run.schema_version, kRunSchemaVersion);
  EXPECT_EQ(run.sampling->interval_ns, 100000u);
  EXPECT_EQ(run.sampling->samples, 43224u);
  EXPECT_EQ(run.ended, "signal SIGABRT");  // the exit-handler abort this record survived
  std::uint64_t launches = 0;
  for (const auto& k : run.launches) {
    ASSERT_TRUE(k.sampled) << k.name;
    launches += k.sampled->launches;
  }
  EXPECT_EQ(run.launches.size(), 39u);
  EXPECT_EQ(launches, 80386u);
  EXPECT_EQ(run.launches_seen.value_or(0), 80386u);
}

TEST(SampledRecording, EveryKernelOfOnePercentHasAVerdictOrSaysWhyNot) {
  const RunSummary sampled = summarize_run_file(kSampled, {}, {});
  std::size_t big = 0, judged = 0;
  for (const auto& g : sampled.groups) {
    if (g.time_share.value_or(0) < 0.01) continue;
    ++big;
    if (g.main_verdict) {
      ++judged;
      continue;
    }
    EXPECT_NE(g.longest.verdict_reason.find("no verdict from sampling"), std::string::npos) << g.name;
  }
  EXPECT_EQ(big, 23u);  // of the sampled run's own kernel time
  EXPECT_EQ(judged, 11u);
}

// Weighted by the exact mode's kernel time: the share with a sampled verdict and, of it, the
// share where both modes agree (bench/summarise.py agreement computes the same).
TEST(SampledRecording, VerdictsAgreeWithTheExactModeWhereSamplingJudges) {
  const RunSummary sampled = summarize_run_file(kSampled, {}, {});
  const RunSummary exact = summarize_run_file(kExact, {}, {});
  std::map<GroupKey, const KernelSummary*> by_key;
  for (const auto& g : sampled.groups) by_key[key(g)] = &g;
  double total = 0, judged = 0, agree = 0;
  std::size_t matched = 0;
  for (const auto& e : exact.groups) {
    const double share = e.time_share.value_or(0);
    total += share;
    const auto found = by_key.find(key(e));
    if (found == by_key.end()) continue;
    ++matched;
    const auto& verdict = found->second->main_verdict;
    if (!verdict) continue;
    judged += share;
    if (verdict == e.main_verdict) agree += share;
  }
  EXPECT_EQ(matched, exact.groups.size());
  EXPECT_NEAR(judged / total, 0.541, 0.01);
  EXPECT_GE(agree / judged, 0.9) << "agreement " << agree / judged;
}

}  // namespace
}  // namespace limiter
