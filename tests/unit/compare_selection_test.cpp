// limiter compare at scale and across selections: hashed matching against the quadratic one,
// 100,000 launches, an every-launch record against a budget's, sampled aggregates, and the
// warning every format gives when the records selected launches differently.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>

#include "compare_fixtures.hpp"

namespace limiter {
namespace {

using namespace compare_fixtures;

// The matching as it was (quadratic): the occurrence-th launch of a kernel and configuration.
std::vector<std::pair<std::uint64_t, std::uint64_t>> matched_the_old_way(const RunAnalysis& before,
                                                                         const RunAnalysis& after) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs;
  for (std::size_t i = 0; i < before.kernels.size(); ++i) {
    std::size_t occurrence = 0, seen = 0;
    for (std::size_t j = 0; j < i; ++j)
      occurrence += same_kernel_and_configuration(before.kernels[j], before.kernels[i]);
    for (const auto& k : after.kernels)
      if (same_kernel_and_configuration(k, before.kernels[i]) && seen++ == occurrence)
        pairs.emplace_back(i, k.sequence);
  }
  return pairs;
}

TEST(Compare, HashedMatchingAgreesWithTheQuadraticOne) {
  std::mt19937 random(30);  // 32-bit draws
  for (int round = 0; round < 20; ++round) {
    const auto random_run = [&](std::size_t launches) {
      std::vector<KernelAnalysis> kernels;
      for (std::size_t i = 0; i < launches; ++i)
        kernels.push_back(
            launch(std::string(1, static_cast<char>('a' + random() % 4)), static_cast<std::uint32_t>(1 + random() % 3),
                   random() % 5 ? std::optional<double>(static_cast<double>(100 + random() % 50)) : std::nullopt));
      return run_of(std::move(kernels));
    };
    const auto before = random_run(200 + random() % 100), after = random_run(200 + random() % 100);
    const auto comparison = compare_runs(before, after, kLaunchRows);
    const auto expected = matched_the_old_way(before, after);
    ASSERT_EQ(comparison.matched.size(), expected.size());
    for (std::size_t m = 0; m < expected.size(); ++m) {
      const auto& k = comparison.matched[m];
      EXPECT_EQ(k.before.sequence, expected[m].first);
      EXPECT_EQ(k.after.sequence, expected[m].second);
      DurationStats spread;  // every launch like it in BEFORE, as the noise test sees them
      for (const auto& other : before.kernels)
        if (other.name == k.before.name && other.grid == k.before.grid) spread.add(other.duration_ns);
      EXPECT_EQ(comparison.before_launches(k).timed_launches, spread.timed_launches);
      EXPECT_EQ(comparison.before_launches(k).min_ns, spread.min_ns);
    }
    EXPECT_EQ(comparison.only_before.size() + expected.size(), before.kernels.size());
    EXPECT_EQ(comparison.only_after.size() + expected.size(), after.kernels.size());
    EXPECT_FALSE(comparison.per_launch);
  }
}

TEST(Compare, HundredThousandLaunchesMatchInOrder) {
  std::vector<KernelAnalysis> kernels;
  for (std::size_t i = 0; i < 100'000; ++i)
    kernels.push_back(launch("k" + std::to_string(i % 7), 10, static_cast<double>(100 + i % 13)));
  RunAnalysis before = run_of(kernels);
  kernels.push_back(launch("k0", 10, 1));
  const auto comparison = compare_runs(before, run_of(std::move(kernels)), kLaunchRows);
  ASSERT_EQ(comparison.matched.size(), 100'000u);
  EXPECT_EQ(comparison.matched[99'999].occurrence, 99'999u / 7);
  EXPECT_EQ(comparison.matched[99'999].after.sequence, 99'999u);
  ASSERT_EQ(comparison.only_after.size(), 1u);
  EXPECT_EQ(comparison.only_after[0].first.sequence, 100'000u);
  EXPECT_DOUBLE_EQ(*comparison.totals.matched.change, 0.0);
}

// A program of 6 launches of a (100 ns) and 2 of b (1000 ns), recorded whole and with a budget of
// 3 per kernel: the budget keeps a's first 3 and both b's.
RunAnalysis every_launch_run() {
  auto run = run_of({launch("a", 1, 100), launch("a", 1, 100), launch("b", 1, 1000), launch("a", 1, 100),
                     launch("a", 1, 100), launch("b", 1, 1000), launch("a", 1, 100), launch("a", 1, 100)});
  run.launches_seen = 8;
  return run;
}
RunAnalysis budget_run(double a_ns) {
  auto run = run_of(
      {launch("a", 1, a_ns), launch("a", 1, a_ns), launch("b", 1, 1000), launch("a", 1, a_ns), launch("b", 1, 1000)});
  run.launches_seen = 8;
  run.kernels_seen = {{"a", {1, 1, 1}, {256, 1, 1}, 6}, {"b", {1, 1, 1}, {256, 1, 1}, 2}};
  return run;
}

TEST(Compare, EveryLaunchAgainstABudgetIsComparedPerLaunch) {
  const auto comparison = compare_runs(every_launch_run(), budget_run(100), {"b", "a", 0.05});
  EXPECT_TRUE(comparison.per_launch);
  EXPECT_EQ(comparison.before_selection.description, "profiled every launch (8)");
  EXPECT_EQ(comparison.after_selection.description, "profiled 3 per kernel and configuration (5 of 8 seen)");
  EXPECT_EQ(comparison.selection_warning,
            "before profiled every launch (8); after profiled 3 per kernel and configuration "
            "(5 of 8 seen): totals are not comparable, compared per launch");
  // Totals would read 2.6 us -> 2.3 us; per launch, with the budget's kernels weighted by the
  // launches seen of them, nothing changed.
  EXPECT_DOUBLE_EQ(*comparison.totals.all.before_ns, 325);
  EXPECT_DOUBLE_EQ(*comparison.totals.all.after_ns, 325);
  EXPECT_FALSE(comparison.failed());
  ASSERT_EQ(comparison.matched.size(), 2u);  // a kernel and configuration each
  EXPECT_EQ(comparison.before_launches(comparison.matched[0]).timed_launches, 6u);
  EXPECT_EQ(comparison.after_launches(comparison.matched[0]).timed_launches, 3u);
  EXPECT_TRUE(comparison.only_before.empty());
  // a 20 % slower per launch fails the gate, and the mean per launch with it: (6 x 120 + 2 x 1000) / 8.
  const auto slower = compare_runs(every_launch_run(), budget_run(120), {"b", "a", 0.04});
  EXPECT_NEAR(*slower.matched[0].time.change, 0.2, 1e-12);
  EXPECT_TRUE(slower.matched[0].slower_than_limit);
  EXPECT_NEAR(*slower.totals.all.change, 340.0 / 325 - 1, 1e-12);
  EXPECT_TRUE(slower.totals.slower_than_limit);
}

TEST(Compare, SampledAggregatesCountAsTheirLaunches) {
  auto sampled = run_of({launch("a", 1, 660), launch("b", 1, 2200)});
  sampled.kernels[0].sampled.emplace().launches = 6;
  sampled.kernels[1].sampled.emplace().launches = 2;
  sampled.launches_seen = 8;
  const auto comparison = compare_runs(every_launch_run(), sampled);
  EXPECT_TRUE(comparison.per_launch);
  EXPECT_EQ(comparison.after_selection.description, "sampled 8 launches (PM sampling: 2 kernel aggregates)");
  ASSERT_EQ(comparison.matched.size(), 2u);
  EXPECT_NEAR(*comparison.matched[0].time.change, 0.1, 1e-12);  // 660 ns over 6 launches: 110 per launch
  EXPECT_NEAR(*comparison.totals.all.after_ns, (660.0 + 2200.0) / 8, 1e-9);
  // Two sampled runs select alike: their aggregates are matched in order.
  EXPECT_FALSE(compare_runs(sampled, sampled).per_launch);
}

TEST(Compare, SelectionsAlikeOrNot) {
  const auto selection_of = [](std::uint64_t profiled, std::optional<std::uint64_t> seen) {
    std::vector<KernelAnalysis> kernels(profiled, launch("k", 1, 100));
    auto run = run_of(std::move(kernels));
    run.launches_seen = seen;
    return launch_selection(compared_run(run));
  };
  EXPECT_EQ(selection_of(3, std::nullopt).description, "profiled 3 launches");  // an import: as if every launch
  EXPECT_EQ(selection_of(3, 3).kind, LaunchSelection::Kind::every);
  EXPECT_EQ(selection_of(100, 10'000).description, "profiled 100 of 10,000 launches seen");
  EXPECT_TRUE(same_selection(selection_of(3, std::nullopt), selection_of(5, 5)));
  // -c 100 and -c 1000: other selections; a capture range whose program changed a little: alike.
  EXPECT_FALSE(same_selection(selection_of(100, 10'000), selection_of(1000, 10'000)));
  EXPECT_TRUE(same_selection(selection_of(370, 5906), selection_of(360, 5800)));
  EXPECT_FALSE(same_selection(selection_of(100, 10'000), selection_of(5, 5)));
}

TEST(Compare, EveryFormatWarnsWhenTheSelectionsDiffer) {
  const auto comparison = compare_runs(every_launch_run(), budget_run(100));
  const std::string warning =
      "before profiled every launch (8); after profiled 3 per kernel and configuration (5 of 8 seen)";
  EXPECT_NE(rendered(comparison, ReportFormat::text).find("WARNING: " + warning), std::string::npos);
  EXPECT_NE(rendered(comparison, ReportFormat::text).find("\nmean per launch: 325 ns -> 325 ns"), std::string::npos);
  EXPECT_NE(rendered(comparison, ReportFormat::md).find("> **Warning:** " + warning), std::string::npos);
  EXPECT_NE(rendered(comparison, ReportFormat::html).find("<p class=\"warning\">Warning: " + warning),
            std::string::npos);
  EXPECT_NE(rendered(comparison, ReportFormat::csv).find("\ntotal_per_launch,\"" + warning), std::string::npos);
  const auto json = comparison_json(comparison);
  EXPECT_EQ(json["selection"]["compared"], "per launch");
  EXPECT_EQ(json["selection"]["after"], "profiled 3 per kernel and configuration (5 of 8 seen)");
  EXPECT_DOUBLE_EQ(json["total"]["after_ns"].get<double>(), 325);
  // The same selection: none of it.
  const auto alike = compare_runs(every_launch_run(), every_launch_run());
  EXPECT_EQ(rendered(alike, ReportFormat::text).find("WARNING"), std::string::npos);
  EXPECT_FALSE(comparison_json(alike).contains("selection"));
}

TEST(Compare, ComparedLaunchesKeepTheFiguresReportsShow) {
  const auto analysis = analysis_of(kProbe);
  const auto run = compared_run(analysis);
  ASSERT_EQ(run.launches.size(), analysis.kernels.size());
  for (std::size_t i = 0; i < run.launches.size(); ++i) {
    const auto& k = analysis.kernels[i];
    const auto& c = run.launches[i];
    EXPECT_EQ(c.name, k.name);
    EXPECT_EQ(c.utilization.compute, k.utilization.compute());
    EXPECT_EQ(c.utilization.memory, k.utilization.memory());
    EXPECT_EQ(c.limiting_unit, k.limiting_unit);
    EXPECT_EQ(c.lmem.l2_share, k.lmem.l2_share);
  }
  const auto repeated = compared_run(run_of({launch("a", 1, 1), launch("a", 1, 2)}));
  EXPECT_EQ(repeated.launches[0].name.data(), repeated.launches[1].name.data()) << "a name is kept once";
}

}  // namespace
}  // namespace limiter
