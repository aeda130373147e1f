// A real training loop (bench/workloads/mlp_training.py, 205 steps, 10,071 launches) recorded on
// an H100 twice: every launch profiled, and with --per-kernel-count 3. The budget's record must
// give every kernel that holds >= 1 % of the full run's time the same verdict, resting on its
// 3 launches, and say how many launches the collector saw.
#include <gtest/gtest.h>

#include <map>

#include "limiter/analysis.hpp"
#include "limiter/run_summary.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

using GroupKey = std::string;  // RunSummary::group_key: name, grid and block

std::map<GroupKey, KernelSummary> groups_of(const RunSummary& summary) {
  std::map<GroupKey, KernelSummary> groups;
  for (const auto& group : summary.groups)
    groups[RunSummary::group_key(group.name, group.grid, group.block)] = group;
  return groups;
}

TEST(PerKernelBudget, ThreeLaunchesPerKernelGiveTheFullRunsVerdicts) {
  const RunSummary full = summarize_run_file(testing::kData + "/cupti/h100_mlp_training_limiter.json.gz", {}, {}, {});
  const RunSummary budget = summarize_run_file(testing::kData + "/cupti/h100_mlp_training_budget3_limiter.json.gz", {}, {}, {});
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

}  // namespace
}  // namespace limiter
