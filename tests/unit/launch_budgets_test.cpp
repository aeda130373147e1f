// Budgets and selection, the exact session's part (collect/range/launch_budgets.hpp), with plain
// launches and a clock of the test's own: which kernels are kept, when a run of unselected
// launches pauses the profiler or ends the phase, and a host-timed kernel's shadow.
#include <gtest/gtest.h>

#include "collect/collector_internal.hpp"
#include "collect/range/launch_budgets.hpp"

namespace limiter {
namespace {

using detail::Clock;
using detail::LaunchBudgets;
using Next = LaunchBudgets::Next;

struct Budgets {
  explicit Budgets(CollectorOptions options, bool ends_when_spent = false)
      : budgets(options, ends_when_spent, [this] { return now; }) {}
  // One launch of KERNEL: the decision, with the kernel's `keep` in KEPT.
  LaunchBudgets::Decision launch(const std::string& kernel, LaunchBudgets::Context context, bool* kept = nullptr) {
    std::vector<detail::PendingLaunch> launches(1);
    launches[0].launch.name = kernel;
    launches[0].launch.grid = {1, 1, 1};
    launches[0].launch.block = {128, 1, 1};
    const auto decision = budgets.decide(launches, nullptr, context);
    if (kept) *kept = launches[0].keep;
    return decision;
  }
  Clock::time_point now{};
  LaunchBudgets budgets;
};

CollectorOptions per_kernel(std::uint64_t count) {
  CollectorOptions options;
  options.per_kernel_count = count;
  return options;
}

constexpr LaunchBudgets::Context kStopped{false, false};
constexpr LaunchBudgets::Context kAutoRange{true, false};
constexpr LaunchBudgets::Context kUserRange{true, true};

TEST(LaunchBudgets, EachKernelsFirstLaunchesAreKeptAndTheRestRunUnprofiled) {
  Budgets b(per_kernel(2));
  bool kept = false;
  EXPECT_EQ(b.launch("alpha", kStopped, &kept).next, Next::profile);
  EXPECT_TRUE(kept);
  EXPECT_EQ(b.launch("alpha", kStopped, &kept).selected, 1u);
  const auto third = b.launch("alpha", kStopped, &kept);
  EXPECT_FALSE(kept);
  EXPECT_EQ(third.selected, 0u);
  EXPECT_EQ(third.next, Next::run_unprofiled);                   // no profiler running: at full speed
  EXPECT_EQ(b.launch("alpha", kAutoRange).next, Next::profile);  // a running auto range ranges it anyway
  ASSERT_EQ(b.budgets.selector().kernels_seen().size(), 1u);
  EXPECT_EQ(b.budgets.selector().kernels_seen()[0].launches, 4u);
}

TEST(LaunchBudgets, ARunOfUnselectedLaunchesPausesAnAutoRangeProfiler) {
  Budgets b(per_kernel(1));
  b.launch("alpha", kAutoRange);
  for (std::uint64_t i = 1; i < detail::kPauseAfterUnselected; ++i)
    EXPECT_EQ(b.launch("alpha", kAutoRange).next, Next::profile);
  EXPECT_EQ(b.budgets.unselected_in_a_row(), detail::kPauseAfterUnselected - 1);
  EXPECT_EQ(b.launch("alpha", kAutoRange).next, Next::pause);
  EXPECT_EQ(b.budgets.unselected_in_a_row(), 0u);
  EXPECT_FALSE(b.budgets.spent());  // a pause, not the phase's end
}

TEST(LaunchBudgets, InUserRangeTheRunMustAlsoLastLongEnough) {
  Budgets b(per_kernel(1));
  b.launch("alpha", kUserRange);
  for (std::uint64_t i = 0; i < 2 * detail::kPauseAfterUnselected; ++i)
    EXPECT_EQ(b.launch("alpha", kUserRange).next, Next::profile);
  b.now += detail::kMinUnselectedRun;  // the run lasted
  EXPECT_EQ(b.launch("alpha", kUserRange).next, Next::pause);
}

TEST(LaunchBudgets, ASessionThatEndsWhenSpentEndsItsPhaseInstead) {
  Budgets b(per_kernel(1), /*ends_when_spent=*/true);
  b.launch("alpha", kUserRange);
  for (std::uint64_t i = 1; i < detail::kPauseAfterUnselected; ++i) b.launch("alpha", kUserRange);
  EXPECT_EQ(b.launch("alpha", kUserRange).next, Next::end_phase);  // no wait for the run to last
  EXPECT_FALSE(b.budgets.spent());                                 // the session retires its profilers first
  b.budgets.spend(/*profiler_was_running=*/true);
  EXPECT_TRUE(b.budgets.spent());
  EXPECT_EQ(b.budgets.spent_reason(), "budgets spent");
}

TEST(LaunchBudgets, WithNothingLeftToSelectAStoppedPhaseEndsAfterALongIdleRun) {
  CollectorOptions options = per_kernel(1);
  options.kernel_regex = "never";
  Budgets b(options, /*ends_when_spent=*/true);
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(b.launch("alpha", kStopped).next, Next::run_unprofiled);  // not long yet
  b.now += std::chrono::seconds(1);
  for (int i = 0; i < 4096 && b.launch("alpha", kStopped).next != Next::end_phase; ++i) {
  }
  EXPECT_EQ(b.budgets.unselected_in_a_row(), 0u);  // it ended: the run starts again
  b.budgets.spend(/*profiler_was_running=*/false);
  EXPECT_EQ(b.budgets.spent_reason(), "nothing left to select");
}

TEST(LaunchBudgets, NothingIsKeptBehindAHostTimedKernelUntilTheAppWaits) {
  Budgets b(CollectorOptions{});
  bool kept = true;
  const auto timer = b.launch("void stream_executor::gpu::DelayKernel(int*)", kAutoRange, &kept);
  EXPECT_FALSE(kept);
  EXPECT_EQ(timer.host_timed, 1u);
  EXPECT_EQ(b.launch("alpha", kAutoRange, &kept).host_timed, 1u);
  EXPECT_FALSE(kept);
  b.budgets.on_sync();
  EXPECT_EQ(b.launch("alpha", kAutoRange, &kept).host_timed, 0u);
  EXPECT_TRUE(kept);
}

TEST(LaunchBudgets, ExcludedKernelsAreCountedButNeverSelected) {
  Budgets b(per_kernel(2));
  b.budgets.exclude({{"alpha", detail::LaunchSelector::configuration_text({1, 1, 1}, {128, 1, 1})}});
  bool kept = true;
  EXPECT_EQ(b.launch("alpha", kStopped, &kept).next, Next::run_unprofiled);
  EXPECT_FALSE(kept);
  EXPECT_EQ(b.launch("beta", kStopped, &kept).next, Next::profile);
  EXPECT_TRUE(kept);
  EXPECT_EQ(b.budgets.selector().kernels_seen().size(), 2u);
}

}  // namespace
}  // namespace limiter
