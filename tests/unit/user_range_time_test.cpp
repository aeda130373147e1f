// Counters of a user range rescaled to its kernel's own duration (limiter/user_range_time.hpp),
// and the two fields that say so read alike by every record reader.
#include <gtest/gtest.h>

#include "limiter/record_json.hpp"
#include "limiter/user_range_time.hpp"
#include "record_layout.hpp"

namespace limiter {
namespace {

// A 4 us kernel measured in a 20 us user range: everything over elapsed time is 5x too long.
KernelLaunch ranged_launch() {
  KernelLaunch launch;
  launch.name = "increment";
  launch.grid = {4096, 1, 1};
  launch.block = {256, 1, 1};
  launch.counters = {
      {"gpu__time_duration.sum", 20000.0},
      {"sm__cycles_elapsed.avg", 39600.0},
      {"lts__cycles_elapsed.avg", 34000.0},
      {"sm__cycles_active.avg", 7000.0},
      {"smsp__inst_issued.sum", 1.0e6},
      {"smsp__inst_issued.sum.peak_sustained", 4.0},
      {"sm__issue_active.avg.pct_of_peak_sustained_elapsed", 12.0},
      {"dram__cycles_active.avg.pct_of_peak_sustained_elapsed", 16.0},
      {"lts__t_sectors.avg.pct_of_peak_sustained_elapsed", 30.0},
      {"dram__cycles_elapsed.avg.per_second", 2.6e9},
      {"dram__bytes.sum.per_second", 1.0e11},
      {"dram__bytes.sum.peak_sustained", 1280.0},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", 70.0},
      {"dram__bytes_read.sum", 4.0e6},
      {"gr__cycles_active.max", 7200.0},  // the compute engine active 4 us of the range's 20 us
      {"gr__cycles_elapsed.max", 36000.0},
  };
  return launch;
}

TEST(UserRangeTime, ElapsedCountersTakeTheKernelsOwnDuration) {
  KernelLaunch launch = ranged_launch();
  time_user_range_by_kernel(launch, 4000.0);
  EXPECT_EQ(launch.user_range_ns, 20000.0);
  EXPECT_EQ(launch.kernel_active_ns, 4000.0);
  EXPECT_DOUBLE_EQ(*launch.counter("gpu__time_duration.sum"), 4000.0);
  EXPECT_DOUBLE_EQ(*launch.counter("sm__cycles_elapsed.avg"), 7920.0);
  EXPECT_DOUBLE_EQ(*launch.counter("lts__cycles_elapsed.avg"), 6800.0);
  EXPECT_DOUBLE_EQ(*launch.counter("sm__issue_active.avg.pct_of_peak_sustained_elapsed"), 60.0);
  EXPECT_DOUBLE_EQ(*launch.counter("dram__cycles_active.avg.pct_of_peak_sustained_elapsed"), 80.0);
  EXPECT_DOUBLE_EQ(*launch.counter("lts__t_sectors.avg.pct_of_peak_sustained_elapsed"), 100.0);  // 150, capped
  EXPECT_DOUBLE_EQ(*launch.counter("dram__bytes.sum.per_second"), 5.0e11);
}

TEST(UserRangeTime, CountsPeaksClocksAndActiveShareStay) {
  const KernelLaunch before = ranged_launch();
  KernelLaunch launch = before;
  time_user_range_by_kernel(launch, 4000.0);
  for (const char* metric : {"sm__cycles_active.avg", "smsp__inst_issued.sum", "smsp__inst_issued.sum.peak_sustained",
                             "dram__cycles_elapsed.avg.per_second", "dram__bytes.sum.peak_sustained",
                             "sm__warps_active.avg.pct_of_peak_sustained_active", "dram__bytes_read.sum",
                             "gr__cycles_active.max", "gr__cycles_elapsed.max"}) {
    EXPECT_EQ(launch.counter(metric), before.counter(metric)) << metric;
  }
}

TEST(UserRangeTime, AKernelNoShorterThanItsRangeChangesNothing) {
  KernelLaunch launch = ranged_launch();
  time_user_range_by_kernel(launch, 21000.0);  // clocks of two units disagree by a little
  EXPECT_EQ(launch.counters, ranged_launch().counters);
  EXPECT_EQ(launch.user_range_ns, 20000.0);
  EXPECT_EQ(launch.kernel_active_ns, 21000.0);
}

TEST(UserRangeTime, WithoutADurationCounterOnlyTheKernelTimeIsKept) {
  KernelLaunch launch = ranged_launch();
  launch.counters.erase("gpu__time_duration.sum");
  const auto counters = launch.counters;
  time_user_range_by_kernel(launch, 4000.0);
  EXPECT_EQ(launch.counters, counters);
  EXPECT_FALSE(launch.user_range_ns.has_value());
  EXPECT_EQ(launch.kernel_active_ns, 4000.0);
}

TEST(UserRangeTime, TheEnginesActiveShareGivesTheKernelsTime) {
  KernelLaunch launch = ranged_launch();
  EXPECT_DOUBLE_EQ(*engine_active_ns(launch), 4000.0);
  EXPECT_TRUE(time_user_range(launch));
  EXPECT_DOUBLE_EQ(*launch.kernel_active_ns, 4000.0);
  EXPECT_DOUBLE_EQ(*launch.counter("gpu__time_duration.sum"), 4000.0);
  // Once more, as `limiter analyze` does on counters evaluated again from the raw image.
  KernelLaunch again = ranged_launch();
  again.user_range_ns = launch.user_range_ns;
  time_user_range(again);
  EXPECT_EQ(again, launch);
}

TEST(UserRangeTime, RescalingTwiceChangesNothing) {
  KernelLaunch launch = ranged_launch();
  time_user_range(launch);
  const KernelLaunch once = launch;
  EXPECT_TRUE(time_user_range(launch));
  EXPECT_EQ(launch, once);
}

TEST(UserRangeTime, WithoutTheEngineCountersTheRangesTimesStay) {
  KernelLaunch launch = ranged_launch();
  launch.counters.erase("gr__cycles_active.max");  // --metrics without it
  const auto counters = launch.counters;
  EXPECT_FALSE(engine_active_ns(launch).has_value());
  EXPECT_FALSE(time_user_range(launch));
  EXPECT_EQ(launch.counters, counters);
  EXPECT_EQ(launch.user_range_ns, 20000.0);
  EXPECT_FALSE(launch.kernel_active_ns.has_value());
}

TEST(UserRangeTime, AnEngineActiveLongerThanItsRangeIsCapped) {
  KernelLaunch launch = ranged_launch();
  launch.counters["gr__cycles_active.max"] = 36100.0;  // two counters read a cycle apart
  EXPECT_DOUBLE_EQ(*engine_active_ns(launch), 20000.0);
}

// The profiler's own work in the range, measured in an empty range of the same kind: taken out.
TEST(UserRangeTime, TheRangeWorkOfAnEmptyRangeIsTakenOut) {
  KernelLaunch launch = ranged_launch();  // engine active 4 us
  launch.counters[kRangeWorkCounter] = 2400.0;
  EXPECT_DOUBLE_EQ(*engine_active_ns(launch), 4000.0);
  EXPECT_DOUBLE_EQ(*user_range_kernel_ns(launch), 1600.0);
  EXPECT_TRUE(time_user_range(launch));
  EXPECT_DOUBLE_EQ(*launch.kernel_active_ns, 1600.0);
  EXPECT_DOUBLE_EQ(*launch.counter("gpu__time_duration.sum"), 1600.0);
  EXPECT_DOUBLE_EQ(*launch.counter("lts__cycles_elapsed.avg"), 34000.0 * 1600.0 / 20000.0);
  EXPECT_DOUBLE_EQ(*launch.counter(kRangeWorkCounter), 2400.0);  // kept: the record says what was taken out
  const KernelLaunch once = launch;
  EXPECT_TRUE(time_user_range(launch));  // again (limiter analyze): the same
  EXPECT_EQ(launch, once);
}

// A calibration that does not fit the range (as long as the engine's whole active time, or
// nearly): nothing is taken out, rather than a kernel of almost no time.
TEST(UserRangeTime, ARangeWorkAsLongAsTheRangeIsNotTakenOut) {
  KernelLaunch launch = ranged_launch();
  launch.counters[kRangeWorkCounter] = 3700.0;  // would leave 300 ns of 4,000: under a tenth
  EXPECT_DOUBLE_EQ(*user_range_kernel_ns(launch), 4000.0);
  launch.counters[kRangeWorkCounter] = 3500.0;  // leaves more than a tenth
  EXPECT_DOUBLE_EQ(*user_range_kernel_ns(launch), 500.0);
  launch.counters.erase("gr__cycles_active.max");
  EXPECT_FALSE(user_range_kernel_ns(launch).has_value());
}

TEST(UserRangeTime, EveryReaderKeepsBothTimes) {
  RunRecord run;
  run.tool_version = "0.1.0";
  run.source = "cupti";
  run.device.name = "NVIDIA H100 80GB HBM3";
  KernelLaunch timed = ranged_launch();
  time_user_range_by_kernel(timed, 4000.0);
  KernelLaunch untimed = ranged_launch();
  untimed.sequence = 1;
  untimed.user_range_ns = 20000.0;  // no engine counters: the range's own times kept
  run.launches = {timed, untimed};
  const std::string text = testing::as_written_lines(run);
  const RunRecord dom = run_from_json(nlohmann::json::parse(text));
  EXPECT_EQ(dom, run);
  EXPECT_EQ(testing::read_streamed(text), dom);
  const auto lines = testing::read_by_lines(text);
  ASSERT_TRUE(lines.has_value());
  EXPECT_EQ(*lines, dom);
}

}  // namespace
}  // namespace limiter
