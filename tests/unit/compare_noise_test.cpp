// The noise rule of a comparison: a kernel's change of mean time per launch against the standard
// error its launches' spread gives (change_is_noise), and DurationStats' variance behind it.
#include <gtest/gtest.h>

#include <vector>

#include "limiter/compare.hpp"

namespace limiter {
namespace {

DurationStats stats_of(const std::vector<double>& durations) {
  DurationStats stats;
  for (double d : durations) stats.add(d);
  return stats;
}

TEST(DurationStatsVariance, IsTheSampleVariance) {
  const auto stats = stats_of({2, 4, 4, 4, 5, 5, 7, 9});  // mean 5, squared deviations 32
  ASSERT_TRUE(stats.variance_ns2());
  EXPECT_NEAR(*stats.variance_ns2(), 32.0 / 7.0, 1e-12);
  EXPECT_FALSE(stats_of({3}).variance_ns2()) << "one launch has no spread";
}

TEST(DurationStatsVariance, AnAggregateCountsAsItsLaunchesAtTheirMean) {
  DurationStats stats = stats_of({10, 30});  // mean 20, squared deviations 200
  stats.add_aggregate(400, 4);               // four launches of 100
  // Six values 10, 30, 100 x4: mean 440 / 6, squared deviations 200 + 80^2 * (2 * 4) / 6.
  EXPECT_NEAR(*stats.mean_ns, 440.0 / 6.0, 1e-12);
  double squared = 0;
  for (double v : {10.0, 30.0, 100.0, 100.0, 100.0, 100.0}) squared += (v - 440.0 / 6.0) * (v - 440.0 / 6.0);
  EXPECT_NEAR(*stats.variance_ns2(), squared / 5.0, 1e-9);
}

TEST(ChangeIsNoise, ASteadyChangeOfManyVaryingLaunchesIsNotNoise) {
  // Each launch varies by +-30 %, far more than the 17 % change; 1,000 launches a side pin the
  // mean down to ~1 %: the old min..max rule called this noise.
  std::vector<double> before, after;
  for (int i = 0; i < 1000; ++i) {
    const double wobble = 0.7 + 0.6 * ((i * 37) % 101) / 100.0;
    before.push_back(100 * wobble);
    after.push_back(83 * wobble);
  }
  EXPECT_FALSE(change_is_noise(stats_of(before), stats_of(after)));
}

TEST(ChangeIsNoise, AChangeWithinTheStandardErrorIsNoise) {
  // Means 100 and 101, each side's standard deviation 10 over 4 launches: standard error ~7.
  EXPECT_TRUE(change_is_noise(stats_of({90, 110, 90, 110}), stats_of({91, 111, 91, 111})));
  // The same means over launches that never vary: any change is real.
  EXPECT_FALSE(change_is_noise(stats_of({100, 100, 100}), stats_of({101, 101, 101})));
}

TEST(ChangeIsNoise, ASingleLaunchIsJudgedByTheOtherSidesRange) {
  EXPECT_TRUE(change_is_noise(stats_of({105}), stats_of({100, 110, 104})));
  EXPECT_FALSE(change_is_noise(stats_of({120}), stats_of({100, 110, 104})));
  EXPECT_TRUE(change_is_noise(stats_of({100, 110}), stats_of({101})));
}

TEST(ChangeIsNoise, OneLaunchOnEachSideIsNeverNoise) {
  EXPECT_FALSE(change_is_noise(stats_of({100}), stats_of({100.5})));
}

TEST(ChangeIsNoise, UntimedLaunchesAreNeverNoise) { EXPECT_FALSE(change_is_noise(DurationStats{}, stats_of({1, 2}))); }

}  // namespace
}  // namespace limiter
