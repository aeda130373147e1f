// A real training loop (bench/workloads/mlp_training.py, 205 steps, 10,071 launches) recorded on
// an H100 twice: every launch profiled, and with --per-kernel-count 3. The budget's record must
// give every kernel that holds >= 1 % of the full run's time the same verdict, resting on its
// 3 launches, and say how many launches the collector saw.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "limiter/record_json.hpp"

#include "limiter/analysis.hpp"
#include "limiter/run_summary.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

using GroupKey = std::string;  // RunSummary::group_key: name, grid and block

std::map<GroupKey, KernelSummary> groups_of(const RunSummary& summary) {
  std::map<GroupKey, KernelSummary> groups;
  for (const auto& group : summary.groups) groups[RunSummary::group_key(group.name, group.grid, group.block)] = group;
  return groups;
}

TEST(PerKernelBudget, ThreeLaunchesPerKernelGiveTheFullRunsVerdicts) {
  const RunSummary full = summarize_run_file(testing::kData + "/cupti/h100_mlp_training_limiter.json.gz", {}, {}, {});
  const RunSummary budget =
      summarize_run_file(testing::kData + "/cupti/h100_mlp_training_budget3_limiter.json.gz", {}, {}, {});
  EXPECT_EQ(full.launches, 10071u);
  EXPECT_EQ(budget.run.launches_seen.value_or(0), 10071u);
  EXPECT_EQ(budget.launches, 111u);
  EXPECT_EQ(budget.groups.size(), full.groups.size());  // every kernel and configuration got its budget

  const auto full_groups = groups_of(full), budget_groups = groups_of(budget);
  int large = 0;
  double large_share = 0;
  for (const auto& [key, group] : full_groups) {
    if (group.time_share.value_or(0) < 0.01) continue;
    ++large;
    large_share += *group.time_share;
    const auto found = budget_groups.find(key);
    ASSERT_NE(found, budget_groups.end()) << group.display_name;
    EXPECT_LE(found->second.launches, 3u) << group.display_name;
    EXPECT_EQ(found->second.main_verdict, group.main_verdict) << group.display_name;
  }
  EXPECT_EQ(large, 24);
  EXPECT_GT(large_share, 0.9);
}

// The collector also counts each kernel's launches under a budget (the record's kernels_seen).
// Given the counts of the full run, the budget's 3 launches per kernel must estimate each
// kernel's share of the whole run's time, and find the same kernels at >= 1 %.
TEST(PerKernelBudget, LaunchesSeenEstimateTheWholeRunsTimeShares) {
  const std::string full_path = testing::kData + "/cupti/h100_mlp_training_limiter.json.gz";
  RunRecord budget = read_run_file(testing::kData + "/cupti/h100_mlp_training_budget3_limiter.json.gz");
  std::map<GroupKey, KernelSeen> seen;
  for (const auto& launch : read_run_file(full_path).launches) {
    KernelSeen& k = seen[RunSummary::group_key(launch.name, launch.grid, launch.block)];
    k = {launch.name, launch.grid, launch.block, k.launches + 1};
  }
  for (const auto& [key, k] : seen) budget.kernels_seen.push_back(k);
  const RunSummary full = summarize_run_file(full_path, {}, {}, {});
  const RunSummary estimated = summarize_record(budget, {}, {});
  ASSERT_TRUE(estimated.estimated_total_ns);
  EXPECT_NEAR(*estimated.estimated_total_ns / full.total_ns, 1.0, 0.03);  // 1.009 when written

  const auto full_groups = groups_of(full), estimated_groups = groups_of(estimated);
  int large = 0, both_large = 0;
  double worst = 0, shares = 0;
  for (const auto& [key, group] : estimated_groups) {
    ASSERT_TRUE(group.launches_seen) << group.display_name;
    EXPECT_EQ(*group.launches_seen, full_groups.at(key).launches) << group.display_name;
    shares += group.time_share.value_or(0);
    const double truth = full_groups.at(key).time_share.value_or(0);
    worst = std::max(worst, std::abs(group.time_share.value_or(0) - truth));
    if (truth >= 0.01) ++large;
    if (truth >= 0.01 && group.time_share.value_or(0) >= 0.01) ++both_large;
  }
  EXPECT_NEAR(shares, 1.0, 1e-9);
  EXPECT_LT(worst, 0.015);  // 0.7 points when written (shares of the profiled launches alone: 8.7)
  EXPECT_EQ(large, 24);
  EXPECT_EQ(both_large, 24);
}

}  // namespace
}  // namespace limiter
