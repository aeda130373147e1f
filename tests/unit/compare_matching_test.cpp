// limiter compare: matching by kernel and configuration (or launch by launch), time changes,
// noise and the --fail-if-slower gate.
#include <gtest/gtest.h>

#include "compare_fixtures.hpp"

namespace limiter {
namespace {

using namespace compare_fixtures;

TEST(Compare, TimeChangeIsRatioMinusOne) {
  const auto slower = time_change(800, 1000);
  EXPECT_DOUBLE_EQ(*slower.ratio, 1.25);
  EXPECT_DOUBLE_EQ(*slower.change, 0.25);
  const auto faster = time_change(1000, 800);
  EXPECT_DOUBLE_EQ(*faster.change, -0.2);
  EXPECT_FALSE(time_change(std::nullopt, 800).change.has_value());
  EXPECT_FALSE(time_change(0, 800).ratio.has_value());
}

TEST(Compare, GroupsByKernelAndConfigurationByDefault) {
  const auto before = run_of({launch("a", 10, 100), launch("b", 10, 50), launch("a", 10, 110), launch("c", 10, 5)});
  const auto after =
      run_of({launch("a", 10, 90), launch("c", 20, 5), launch("a", 10, 100), launch("a", 10, 70), launch("d", 10, 1)});
  const auto comparison = compare_runs(before, after);
  EXPECT_FALSE(comparison.launch_rows);
  ASSERT_EQ(comparison.matched.size(), 1u);  // a, with its mean per launch on each side
  EXPECT_EQ(comparison.matched[0].before.name, "a");
  EXPECT_EQ(comparison.before_counts[comparison.matched[0].group], 2u);
  EXPECT_EQ(comparison.after_counts[comparison.matched[0].group], 3u);
  EXPECT_DOUBLE_EQ(*comparison.matched[0].time.before_ns, 105);
  EXPECT_DOUBLE_EQ(*comparison.matched[0].time.after_ns, 260.0 / 3);
  // b and c (another grid) before, c and d after: one entry per kernel and configuration.
  ASSERT_EQ(comparison.only_before.size(), 2u);
  EXPECT_EQ(comparison.only_before[0].first.name, "b");
  ASSERT_EQ(comparison.only_after.size(), 2u);
  EXPECT_EQ(comparison.only_after[1].first.name, "d");
  // The matched total: BEFORE's launches of a, and AFTER's mean at BEFORE's count.
  EXPECT_DOUBLE_EQ(*comparison.totals.matched.before_ns, 210);
  EXPECT_DOUBLE_EQ(*comparison.totals.matched.after_ns, 2 * 260.0 / 3);
}

TEST(Compare, LaunchRowsMatchByNameConfigurationAndOrderAmongEquals) {
  const auto before = run_of({launch("a", 10, 100), launch("b", 10, 50), launch("a", 10, 110), launch("c", 10, 5)});
  const auto after =
      run_of({launch("a", 10, 90), launch("c", 20, 5), launch("a", 10, 100), launch("a", 10, 70), launch("d", 10, 1)});
  const auto comparison = compare_runs(before, after, kLaunchRows);
  ASSERT_EQ(comparison.matched.size(), 2u);
  // The first "a" of BEFORE with the first of AFTER, the second with the second.
  EXPECT_EQ(comparison.matched[0].before.sequence, 0u);
  EXPECT_EQ(comparison.matched[0].after.sequence, 0u);
  EXPECT_EQ(comparison.matched[0].occurrence, 0u);
  EXPECT_EQ(comparison.matched[1].before.sequence, 2u);
  EXPECT_EQ(comparison.matched[1].after.sequence, 2u);
  EXPECT_EQ(comparison.matched[1].occurrence, 1u);
  // b is gone, c changed its grid (so it is a different launch), a's third launch and d are new.
  ASSERT_EQ(comparison.only_before.size(), 2u);
  EXPECT_EQ(comparison.only_before[0].first.name, "b");
  EXPECT_EQ(comparison.only_before[1].first.name, "c");
  ASSERT_EQ(comparison.only_after.size(), 3u);
  EXPECT_EQ(comparison.only_after[0].first.name, "c");
  EXPECT_EQ(comparison.only_after[1].first.sequence, 3u);
  EXPECT_EQ(comparison.only_after[2].first.name, "d");
  EXPECT_DOUBLE_EQ(*comparison.totals.all.before_ns, 265);
  EXPECT_DOUBLE_EQ(*comparison.totals.all.after_ns, 266);
  EXPECT_DOUBLE_EQ(*comparison.totals.matched.before_ns, 210);
  EXPECT_DOUBLE_EQ(*comparison.totals.matched.after_ns, 190);
  EXPECT_EQ(comparison.totals.before_launches, 4u);
  EXPECT_EQ(comparison.totals.after_launches, 5u);
}

TEST(Compare, ChangesWithinTheSpreadOfRepeatedLaunchesAreNoise) {
  // BEFORE's launches of k range 100..120, AFTER's 115 (+15 %) and 105: the same mean. Launch
  // rows carry their kernel's noise.
  const auto before = run_of({launch("k", 10, 100), launch("k", 10, 120)});
  const auto noisy = compare_runs(before, run_of({launch("k", 10, 115), launch("k", 10, 105)}), {"b", "a", 0.05, true});
  ASSERT_EQ(noisy.matched.size(), 2u);
  EXPECT_TRUE(noisy.matched[0].within_noise);
  EXPECT_TRUE(noisy.matched[1].within_noise);
  EXPECT_FALSE(noisy.matched[0].slower_than_limit) << "the launch is +15 %, its kernel is not slower";
  EXPECT_FALSE(noisy.matched[0].slower_than_limit) << "noise does not fail the gate";
  EXPECT_FALSE(noisy.failed());
  EXPECT_EQ(noisy.before_launches(noisy.matched[0]).timed_launches, 2u);
  EXPECT_DOUBLE_EQ(*noisy.after_launches(noisy.matched[0]).min_ns, 105);
  EXPECT_DOUBLE_EQ(*noisy.after_launches(noisy.matched[0]).max_ns, 115);

  // AFTER's launches (120..125) all lie above BEFORE's (100..102): a real slowdown.
  const auto tight = run_of({launch("k", 10, 100), launch("k", 10, 102)});
  const auto slower = compare_runs(tight, run_of({launch("k", 10, 120), launch("k", 10, 125)}), {"b", "a", 0.05});
  ASSERT_EQ(slower.matched.size(), 1u);
  EXPECT_FALSE(slower.matched[0].within_noise);
  EXPECT_EQ(slower.slower_kernel_count(), 1u) << "the gate counts kernels, not launches";
  EXPECT_TRUE(slower.failed());

  // The other side's spread counts too: means 110 and 115, AFTER's launches 100..130.
  const auto widened = compare_runs(run_of({launch("k", 10, 110), launch("k", 10, 110)}),
                                    run_of({launch("k", 10, 130), launch("k", 10, 100)}), {"b", "a", 0.05});
  EXPECT_TRUE(widened.matched[0].within_noise);
}

TEST(Compare, ASingleLaunchIsNeverNoise) {
  const auto comparison = compare_runs(run_of({launch("k", 10, 100)}), run_of({launch("k", 10, 101)}));
  ASSERT_EQ(comparison.matched.size(), 1u);
  EXPECT_FALSE(comparison.matched[0].within_noise);
}

TEST(Compare, GateFailsOnSlowKernelsOrTotalAndPassesOtherwise) {
  const auto before = run_of({launch("a", 10, 1000), launch("b", 10, 1000)});
  // a 25 % slower: fails at 10 %, passes at 30 %; without a limit nothing fails.
  const auto a_slower = run_of({launch("a", 10, 1250), launch("b", 10, 1000)});
  EXPECT_TRUE(compare_runs(before, a_slower, {"b", "a", 0.10}).failed());
  EXPECT_FALSE(compare_runs(before, a_slower, {"b", "a", 0.30}).failed());
  EXPECT_FALSE(compare_runs(before, a_slower, {}).failed());
  // A speed-up passes.
  EXPECT_FALSE(compare_runs(a_slower, before, {"b", "a", 0.10}).failed());
  // No matched kernel is slower, but a new kernel makes the total 20 % slower.
  const auto with_new_kernel = run_of({launch("a", 10, 1000), launch("b", 10, 1000), launch("c", 10, 400)});
  const auto comparison = compare_runs(before, with_new_kernel, {"b", "a", 0.10});
  EXPECT_EQ(comparison.slower_kernel_count(), 0u);
  EXPECT_TRUE(comparison.totals.slower_than_limit);
  EXPECT_TRUE(comparison.failed());
  // Exactly at the limit is not "more than" the limit.
  const auto exactly = run_of({launch("a", 10, 1100), launch("b", 10, 1000)});
  EXPECT_FALSE(compare_runs(before, exactly, {"b", "a", 0.10 + 1e-12}).failed());
}

TEST(Compare, UntimedLaunchesAreMatchedButNeverFail) {
  const auto comparison =
      compare_runs(run_of({launch("a", 10, std::nullopt)}), run_of({launch("a", 10, 100)}), {"b", "a", 0.0});
  ASSERT_EQ(comparison.matched.size(), 1u);
  EXPECT_FALSE(comparison.matched[0].time.change.has_value());
  EXPECT_FALSE(comparison.failed());
}

TEST(Compare, PlantedSlowdownOfTheProbeFailsAndItsReverseIsASpeedUp) {
  const auto slower = compare_files(kProbe, kProbeSlower, 0.10);
  ASSERT_EQ(slower.matched.size(), 7u);
  EXPECT_TRUE(slower.only_before.empty());
  EXPECT_TRUE(slower.only_after.empty());
  for (const auto& k : slower.matched) {
    const bool planted = k.before.name.rfind("local_array_2k", 0) == 0;
    EXPECT_NEAR(*k.time.change, planted ? 0.25 : 0.0, 1e-9) << k.before.name;
    EXPECT_EQ(k.slower_than_limit, planted) << k.before.name;
    EXPECT_EQ(k.verdict_changed, planted) << k.before.name;
    if (planted) {
      // Same work in 25 % more time: L2 at 68 % / 1.25 = 54 %, below the 60 % latency line.
      EXPECT_EQ(k.before.verdict, Verdict::bandwidth);
      EXPECT_EQ(k.after.verdict, Verdict::latency);
      EXPECT_NEAR(*k.after.utilization.l2, *k.before.utilization.l2 / 1.25, 0.005);
      EXPECT_DOUBLE_EQ(*k.after.lmem.l2_share, *k.before.lmem.l2_share);  // the same traffic
    }
  }
  EXPECT_TRUE(slower.failed());
  EXPECT_FALSE(slower.totals.slower_than_limit);  // +5.9 % in total

  const auto faster = compare_files(kProbeSlower, kProbe, 0.10);
  EXPECT_FALSE(faster.failed());
  const auto& speed_up = faster.matched[5];
  EXPECT_EQ(speed_up.before.name.substr(0, 14), "local_array_2k");
  EXPECT_NEAR(*speed_up.time.change, -0.2, 1e-9);
  EXPECT_EQ(speed_up.before.verdict, Verdict::latency);
  EXPECT_EQ(speed_up.after.verdict, Verdict::bandwidth);
}

TEST(Compare, RepeatedLaunchesInTheSyntheticPair) {
  // synthetic_after_raw.csv: copy_kernel at 1.51, 1.55 and 1.6 us (was 1.52, 1.5 us), and the
  // 3-D kernel relaunched with grid (32,8,3) instead of (16,8,3).
  // copy_kernel's mean 1.51 -> 1.553 us is within 2 standard errors of launches that vary by 0.1 us.
  const auto comparison = compare_files("ncu/synthetic_raw.csv", "compare/synthetic_after_raw.csv", 0.02);
  ASSERT_EQ(comparison.matched.size(), 1u);
  EXPECT_TRUE(comparison.matched[0].within_noise);
  EXPECT_NEAR(*comparison.matched[0].time.change, (4.66 / 3) / 1.51 - 1, 1e-9);
  EXPECT_FALSE(comparison.failed());
  ASSERT_EQ(comparison.only_before.size(), 1u);
  ASSERT_EQ(comparison.only_after.size(), 1u);
  EXPECT_EQ(comparison.only_after[0].first.grid, (Dim3{32, 8, 3}));
  EXPECT_LT(*comparison.totals.all.change, 0);  // the 3-D kernel got faster: the total did too
}

}  // namespace
}  // namespace limiter
