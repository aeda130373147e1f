// What the exact session could not profile, counted by reason with its fix (missed_launches.cpp),
// on the fake Range Profiler: a device it does not support, ranges CUPTI dropped or never
// made, an error in the middle of a launch, and a process that ends before its batch is
// decoded. Busy counters and another process's turn are range_session_test.cpp's.
#include <gtest/gtest.h>

#include "range_session_harness.hpp"

namespace limiter {
namespace {

using test::exact;
using test::finish;
using test::Harness;
using test::kContext;

// The launches missed for the reason that holds TEXT; 0 when there is none.
std::uint64_t missed_for(const RunRecord& run, const std::string& text) {
  for (const auto& missed : run.missed)
    if (missed.reason.find(text) != std::string::npos) return missed.launches;
  return 0;
}

TEST(RangeSessionMissed, AnUnsupportedDeviceCountsEveryLaunchUnderOneReason) {
  Harness h(exact());
  h.backend.unsupported = "the range profiler does not support this MIG slice";
  h.launch("alpha");
  h.launch("beta");
  const RunRecord run = finish(h);
  EXPECT_TRUE(run.launches.empty());
  ASSERT_EQ(run.missed.size(), 1u);
  EXPECT_EQ(run.missed[0].reason,
            "profiling could not start in this context: the range profiler does not support this MIG slice");
  EXPECT_EQ(run.missed[0].launches, 2u);
  EXPECT_EQ(run.missed[0].fix, "the error in the reason names the fix");
  EXPECT_EQ(h.backend.enables, 0);  // never tried again
}

TEST(RangeSessionMissed, RangesDroppedFromAFullImageAreCounted) {
  Harness h(exact());
  for (int i = 0; i < 3; ++i) h.launch("alpha");
  h.backend.drop_at_decode = 1;
  const RunRecord run = finish(h);
  EXPECT_EQ(run.launches.size(), 2u);
  EXPECT_EQ(missed_for(run, "CUPTI dropped their ranges"), 1u);
  ASSERT_FALSE(run.missed.empty());
  EXPECT_NE(run.missed[0].fix.find("LIMITER_RANGES_PER_IMAGE"), std::string::npos);
  // The launch whose range was dropped is counted once, as dropped, not also as unranged.
  EXPECT_EQ(missed_for(run, "CUPTI gave these launches no range"), 0u);
}

TEST(RangeSessionMissed, ALaunchCuptiGaveNoRangeIsCountedNotRecorded) {
  Harness h(exact());
  h.backend.passes = 3;  // kernel replay: each launch decoded at its EXIT
  h.launch("alpha");
  detail::LaunchCall call;  // a launch whose kernel the profiler never saw run
  call.context = kContext;
  call.function = reinterpret_cast<CUfunction>(0x41);
  call.symbol_name = "unranged";
  h.session->on_launch(call);
  h.session->on_launch_exit(call);
  h.launch("alpha");
  const RunRecord run = finish(h);
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"alpha", "alpha"}));
  EXPECT_EQ(missed_for(run, "CUPTI gave these launches no range"), 1u);
}

TEST(RangeSessionMissed, AnErrorInTheMiddleOfALaunchCostsThatLaunchOnly) {
  CollectorOptions options = exact();
  options.kernel_regex = "^alpha$";  // user ranges: a push per selected launch
  Harness h(options);
  h.launch("alpha");
  h.backend.failing_pushes = 1;
  h.launch("alpha");
  h.launch("alpha");
  const RunRecord run = finish(h);
  EXPECT_EQ(run.launches.size(), 2u);
  EXPECT_EQ(missed_for(run, "a profiling error in the middle of a launch: cuptiRangeProfilerPushRange"), 1u);
}

TEST(RangeSessionMissed, AProcessEndingBeforeItsBatchIsDecodedCountsTheBatch) {
  Harness h(exact());
  for (int i = 0; i < 3; ++i) h.launch("alpha");
  h.backend.failing_decodes = true;
  EXPECT_FALSE(h.session->flush_before_exit(std::chrono::milliseconds(100)));
  const auto missed = h.session->missed();
  std::uint64_t lost = 0;
  for (const auto& entry : missed) lost += entry.launches;
  EXPECT_EQ(lost, 3u);  // every launch of the batch, under one reason or another, none silently
  EXPECT_TRUE(h.streamed.empty());
}

}  // namespace
}  // namespace limiter
