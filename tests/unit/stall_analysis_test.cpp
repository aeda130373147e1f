// Why a kernel waits (stall_analysis.hpp): the share arithmetic, the dominant reasons, the hot
// lines, the advice keyed to each dominant reason, and the join of stalls to launches by name.
#include <gtest/gtest.h>

#include <algorithm>

#include "limiter/analysis.hpp"
#include "limiter/record_json.hpp"
#include "limiter/rollup.hpp"
#include "limiter/run_summary.hpp"

namespace limiter {
namespace {

const std::string kFixture = std::string(LIMITER_TEST_DATA_DIR) + "/stalls/synthetic_stalls_run.json";

KernelStalls kernel_with(StallCounts reasons, std::string name = "k()") {
  KernelStalls k;
  k.name = std::move(name);
  k.reasons = std::move(reasons);
  for (const auto& [reason, samples] : k.reasons) k.samples += samples;
  return k;
}

const KernelAnalysis& launch_named(const RunAnalysis& analysis, const std::string& prefix) {
  const auto found = std::find_if(analysis.kernels.begin(), analysis.kernels.end(),
                                  [&](const KernelAnalysis& k) { return k.name.rfind(prefix, 0) == 0; });
  EXPECT_NE(found, analysis.kernels.end()) << prefix;
  return *found;
}

bool advice_mentions(const KernelAnalysis& k, const std::string& words) {
  return std::any_of(k.advice.begin(), k.advice.end(),
                     [&](const std::string& a) { return a.find(words) != std::string::npos; });
}

TEST(StallShares, SharesOfAllAndOfStalledSamples) {
  const auto a = analyze_kernel_stalls(kernel_with({{"long_scoreboard", 60}, {"barrier", 20}, {"selected", 20}}));
  EXPECT_EQ(a.samples, 100u);
  EXPECT_EQ(a.stalled_samples, 80u);
  EXPECT_DOUBLE_EQ(a.issued_share(), 0.2);
  ASSERT_EQ(a.reasons.size(), 3u);
  EXPECT_EQ(a.reasons[0].reason, "long_scoreboard");
  EXPECT_EQ(a.reasons[0].title, "Stall Long Scoreboard");
  EXPECT_DOUBLE_EQ(a.reasons[0].share, 0.6);
  EXPECT_DOUBLE_EQ(a.reasons[0].stall_share, 0.75);
  EXPECT_DOUBLE_EQ(a.reasons[1].stall_share, 0.25);  // barrier; "selected" ties it by samples, comes after
  const auto selected =
      std::find_if(a.reasons.begin(), a.reasons.end(), [](const StallShare& r) { return r.reason == "selected"; });
  ASSERT_NE(selected, a.reasons.end());
  EXPECT_DOUBLE_EQ(selected->share, 0.2);
  EXPECT_DOUBLE_EQ(selected->stall_share, 0.0);  // not a stall
}

TEST(StallShares, DominantReasonsAreAtLeastAFifthAndAtMostTwo) {
  const auto a = analyze_kernel_stalls(
      kernel_with({{"long_scoreboard", 40}, {"barrier", 30}, {"mio_throttle", 21}, {"wait", 9}, {"selected", 500}}));
  ASSERT_EQ(a.dominant.size(), 2u);  // mio_throttle (21 %) is a third reason above 20 %: left out
  EXPECT_EQ(a.dominant[0].reason, "long_scoreboard");
  EXPECT_EQ(a.dominant[1].reason, "barrier");
  EXPECT_EQ(dominant_stalls_text(a), "Stall Long Scoreboard 40%, Stall Barrier 30%");

  const auto spread = analyze_kernel_stalls(kernel_with({{"a", 19}, {"b", 19}, {"c", 19}, {"d", 19}, {"e", 24}}));
  ASSERT_EQ(spread.dominant.size(), 1u);
  EXPECT_EQ(spread.dominant[0].reason, "e");
  const auto flat =
      analyze_kernel_stalls(kernel_with({{"a", 10}, {"b", 10}, {"c", 10}, {"d", 10}, {"e", 10}, {"f", 11}}));
  EXPECT_TRUE(flat.dominant.empty());
  EXPECT_EQ(dominant_stalls_text(flat), "f 18%");  // none dominant: the top reason is still named
}

TEST(StallShares, OnlyIssuedSamplesHaveNoDominantStall) {
  const auto a = analyze_kernel_stalls(kernel_with({{"selected", 100}}));
  EXPECT_EQ(a.stalled_samples, 0u);
  EXPECT_TRUE(a.dominant.empty());
  EXPECT_EQ(dominant_stalls_text(a), "");
  const auto none = analyze_kernel_stalls(kernel_with({}));
  EXPECT_EQ(none.samples, 0u);
  EXPECT_TRUE(none.reasons.empty());
}

TEST(StallShares, CountsNearTheLimitSaturateInsteadOfWrapping) {
  const auto a = analyze_kernel_stalls(kernel_with({{"barrier", UINT64_MAX}, {"wait", UINT64_MAX}}));
  EXPECT_EQ(a.samples, UINT64_MAX);
  for (const auto& r : a.reasons) EXPECT_LE(r.share, 1.0);
}

TEST(StallShares, UnknownReasonsKeepTheirKeyAsTitle) {
  const auto a = analyze_kernel_stalls(kernel_with({{"stall_of_a_future_chip", 70}, {"selected", 30}}));
  ASSERT_EQ(a.dominant.size(), 1u);
  EXPECT_EQ(a.dominant[0].title, "stall_of_a_future_chip");
}

TEST(StallShares, HotLinesMostSamplesFirstWithTheirReason) {
  KernelStalls k = kernel_with({{"long_scoreboard", 90}, {"selected", 10}});
  k.hot_pcs.push_back({0x20, 10, {{"selected", 10}}, "EXIT", std::nullopt, std::nullopt});
  k.hot_pcs.push_back({0x10, 80, {{"long_scoreboard", 75}, {"selected", 5}}, "LDG.E R2, [R4.64]", "a.cu", 7});
  const auto a = analyze_kernel_stalls(k, StallThresholds{0.2, 2, 1});
  ASSERT_EQ(a.hot_lines.size(), 1u);  // the limit
  EXPECT_EQ(a.hot_lines[0].where(), "a.cu:7");
  EXPECT_EQ(a.hot_lines[0].reason, "long_scoreboard");
  EXPECT_DOUBLE_EQ(a.hot_lines[0].share, 0.8);
  EXPECT_EQ(analyze_kernel_stalls(k).hot_lines[1].where(), "+0x20");
}

TEST(StallShares, EntriesOfOneNameAreSummed) {
  StallInfo info;
  info.kernels = {kernel_with({{"barrier", 30}}, "dup()"), kernel_with({{"barrier", 10}, {"wait", 60}}, "dup()"),
                  kernel_with({{"wait", 5}}, "other()")};
  const StallIndex index(info, {});
  const auto dup = index.of("dup()");
  ASSERT_TRUE(dup);
  EXPECT_EQ(dup->samples, 100u);
  EXPECT_EQ(dup->reasons[0].reason, "wait");
  ASSERT_EQ(index.all().size(), 2u);
  EXPECT_EQ(index.all().front()->name, "dup()");  // most samples first
  EXPECT_FALSE(index.of("missing()"));
}

TEST(StallAnalysis, FixtureAdviceFollowsEachKernelsDominantReason) {
  const RunAnalysis analysis = analyze_run(read_run_file(kFixture));
  ASSERT_TRUE(analysis.stall_sampling);
  EXPECT_EQ(analysis.stall_sampling->dropped_samples, 120u);
  EXPECT_EQ(analysis.stall_sampling->kernels, 5u);

  const auto& chase = launch_named(analysis, "pointer_chase");
  ASSERT_TRUE(chase.stalls);
  EXPECT_EQ(chase.stalls->dominant.front().reason, "long_scoreboard");
  ASSERT_EQ(chase.verdict, Verdict::latency);
  EXPECT_EQ(chase.advice.front().rfind("Warps wait on global or local memory (Stall Long Scoreboard, 86%", 0), 0u)
      << chase.advice.front();  // first: a latency-limited kernel's samples name its cause

  const auto& reduce = launch_named(analysis, "block_reduce");
  EXPECT_EQ(reduce.stalls->dominant.front().reason, "barrier");
  EXPECT_NE(reduce.advice.front().find("__syncthreads"), std::string::npos);
  EXPECT_NE(reduce.advice.front().find("__shfl_down_sync"), std::string::npos);

  const auto& transpose = launch_named(analysis, "transpose_shared");
  ASSERT_EQ(transpose.stalls->dominant.size(), 2u);
  EXPECT_EQ(transpose.stalls->dominant[0].reason, "short_scoreboard");
  EXPECT_EQ(transpose.stalls->dominant[1].reason, "mio_throttle");
  EXPECT_NE(
      transpose.advice.front().find("(Stall Short Scoreboard, 55% of the stalled samples; Stall MIO Throttle, 34%"),
      std::string::npos)
      << transpose.advice.front();
  EXPECT_EQ(std::count_if(transpose.advice.begin(), transpose.advice.end(),
                          [](const std::string& a) { return a.find("pad shared arrays") != std::string::npos; }),
            1);  // one item for both shared-memory reasons

  const auto& spill = launch_named(analysis, "spill_pressure");  // bandwidth-limited: its stall advice comes last
  ASSERT_EQ(spill.verdict, Verdict::bandwidth);
  EXPECT_TRUE(advice_mentions(spill, "the spills are part of the wait"));
  EXPECT_NE(spill.advice.back().find("Stall LG Throttle"), std::string::npos) << spill.advice.back();

  EXPECT_FALSE(launch_named(analysis, "stream_copy").stalls);  // no samples: no stall advice
}

TEST(StallAnalysis, AdvicePerDominantReason) {
  const struct {
    const char* reason;
    const char* words;
  } cases[] = {{"long_scoreboard", "more independent loads in flight"},
               {"barrier", "fewer barriers"},
               {"short_scoreboard", "bank conflicts"},
               {"mio_throttle", "bank conflicts"},
               {"math_pipe_throttle", "math pipe is oversubscribed"},
               {"wait", "ILP"},
               {"lg_throttle", "vectorise"},
               {"not_selected", "execute fewer instructions"},
               {"tex_throttle", "texture"},
               {"membar", "__threadfence"},
               {"branch_resolving", "diverge"},
               {"no_instruction", "instruction cache"},
               {"imc_miss", "__constant__"},
               {"drain", "stores"},
               {"sleeping", "__nanosleep"},
               {"dispatch_stall", "dispatcher"},
               {"warpgroup_arrive", "Stall GMMA"},
               {"warpgroup_arrive", "more stages"},
               {"misc", "no advice for"},
               {"stall_of_a_future_chip", "no advice for"}};
  for (const auto& c : cases) {
    RunRecord run;
    run.device.arch = "sm_90";
    run.device.sm_count = 132;
    KernelLaunch launch;
    launch.name = "k()";
    run.launches.push_back(launch);
    run.stalls = StallInfo{};
    run.stalls->kernels.push_back(kernel_with({{c.reason, 80}, {"selected", 20}}));
    const auto kernel = analyze_run(run).kernels.front();
    EXPECT_TRUE(advice_mentions(kernel, c.words)) << c.reason << ": " << ::testing::PrintToString(kernel.advice);
  }
}

TEST(StallAnalysis, GroupsAndRollupCarryTheShares) {
  const RunAnalysis analysis = analyze_run(read_run_file(kFixture));
  const RunSummary summary = summarize(analysis);
  const auto group = std::find_if(summary.groups.begin(), summary.groups.end(),
                                  [](const KernelSummary& g) { return g.name.rfind("block_reduce", 0) == 0; });
  ASSERT_NE(group, summary.groups.end());
  ASSERT_TRUE(group->stalls);
  EXPECT_EQ(group->stalls->dominant.front().reason, "barrier");
  const RunRollup rollup = rollup_run(analysis);
  const auto rolled = std::count_if(rollup.groups.begin(), rollup.groups.end(),
                                    [](const KernelGroup& g) { return g.stalls != nullptr; });
  EXPECT_EQ(rolled, 4);  // stream_copy has no samples
  EXPECT_TRUE(summary.run.stall_sampling);
}

TEST(StallAnalysis, WordlessSummaryExplainsTheLongestWithItsStalls) {
  AnalysisOptions options;
  SummaryOptions summary_options;
  summary_options.keep_launches = false;  // the groups' longest launches are explained again at the end
  const RunSummary summary = summarize_run_file(kFixture, options, summary_options);
  const auto group = std::find_if(summary.groups.begin(), summary.groups.end(),
                                  [](const KernelSummary& g) { return g.name.rfind("pointer_chase", 0) == 0; });
  ASSERT_NE(group, summary.groups.end());
  ASSERT_TRUE(group->stalls);
  ASSERT_FALSE(group->longest.advice.empty());
  EXPECT_NE(group->longest.advice.front().find("Stall Long Scoreboard"), std::string::npos);
}

}  // namespace
}  // namespace limiter
