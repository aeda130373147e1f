// How the default run's phases end and hand over (collect/phases.cpp), on the fakes: the sampling
// window ends once launches bring no new kernel; the counters phase starts its profiler off the
// app's thread, the launches meanwhile said in the record; a counters phase that can select
// nothing still ends, so the timeline follows.
#include <gtest/gtest.h>

#include "collect/range_session.hpp"
#include "default_run_harness.hpp"

namespace limiter {
namespace {

using test::DefaultRun;
using test::kContext;
using test::names;

CollectorOptions long_window() {
  CollectorOptions options;
  options.stall_window_ms = 60000;  // the quiet rule alone can end it
  return options;
}

bool wait_until(const std::function<bool()>& done) {
  for (int i = 0; i < 5000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return done();
}

TEST(DefaultPhaseEnds, TheWindowEndsOnceLaunchesBringNoNewKernel) {
  DefaultRun run(long_window());
  for (int i = 0; i < 300; ++i) run.launch(i % 2 ? "gemm" : "softmax");
  std::this_thread::sleep_for(std::chrono::milliseconds(110));  // past the shortest window
  run.launch("gemm");
  EXPECT_EQ(run.phases->index(), 1u);
  const RunRecord record = run.phases->finish();
  EXPECT_EQ(record.phases[0].ended_by, "no new kernel in 256 launches");
  EXPECT_EQ(record.phases[0].launches, 300u);
}

TEST(DefaultPhaseEnds, ANewKernelKeepsTheWindowOpen) {
  DefaultRun run(long_window());
  for (int i = 0; i < 200; ++i) run.launch("gemm");
  run.launch("new_kernel");
  for (int i = 0; i < 200; ++i) run.launch("gemm");
  std::this_thread::sleep_for(std::chrono::milliseconds(110));
  run.launch("gemm");
  EXPECT_EQ(run.phases->index(), 0u) << run.phases->windows()[0].ended_by;  // 201 quiet launches since new_kernel
  for (int i = 0; i < 60; ++i) run.launch("gemm");
  EXPECT_EQ(run.phases->index(), 1u);
}

// The app's launches go on while the preparer starts the profiler; each kernel's budget takes its
// launches after that, and the ones let through are in the record with the reason.
TEST(DefaultPhaseEnds, TheCountersPhaseStartsItsProfilerOffTheAppsThread) {
  DefaultRun run;
  run.range_backend.current = kContext;         // the app's thread has its context current
  run.range_backend.hold_support_check = true;  // the preparation takes its time
  run.through_samples("gemm");                  // its second launch is the hand-over
  auto* counters = dynamic_cast<detail::RangeSession*>(&run.phases->current());
  ASSERT_NE(counters, nullptr);
  EXPECT_TRUE(counters->warming_up());
  for (int i = 0; i < 5; ++i) run.launch("gemm");  // not waiting for it
  run.launch("one_off");                            // launched only now: no counters, said
  EXPECT_EQ(run.range_backend.starts, 0);
  run.range_backend.hold_support_check = false;
  ASSERT_TRUE(wait_until([&] { return !counters->warming_up(); }));
  EXPECT_EQ(run.range_backend.starts, 1);  // started ahead, on the preparer's thread
  run.through_counters("gemm");
  const RunRecord record = run.phases->finish();
  EXPECT_EQ(names(record), std::vector<std::string>(kDefaultBudgetCount, "gemm"));
  EXPECT_EQ(run.range_backend.enables, 1);  // the object started ahead is the one used
  ASSERT_EQ(record.missed.size(), 1u);  // gemm's budget took its later launches: no loss
  EXPECT_EQ(record.missed[0].launches, 1u);
  EXPECT_NE(record.missed[0].reason.find("off the app's thread"), std::string::npos);
  EXPECT_NE(record.missed[0].reason.find("1 kernels launched only then: one_off"), std::string::npos);
  EXPECT_NE(counters->timings().find("7 launches ran meanwhile"), std::string::npos);
}

TEST(DefaultPhaseEnds, AppEndingWhileTheProfilerStartsKeepsTheCount) {
  DefaultRun run;
  run.range_backend.current = kContext;
  run.range_backend.hold_support_check = true;
  run.through_samples("gemm");
  for (int i = 0; i < 3; ++i) run.launch("gemm");
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    run.range_backend.hold_support_check = false;
  });
  run.phases->current().flush_before_exit(std::chrono::milliseconds(100));
  const RunRecord record = run.phases->finish();
  release.join();
  EXPECT_TRUE(record.launches.empty());
  ASSERT_EQ(record.missed.size(), 1u);
  EXPECT_EQ(record.missed[0].launches, 4u);
  EXPECT_EQ(record.phases[1].ended_by, "the app ended");
}

// A -k that matches no kernel: the counters phase ends after a long idle run, and the timeline
// follows; launches before the first matching kernel do not end it (range_session_prepare_test).
TEST(DefaultPhaseEnds, ACountersPhaseThatSelectsNothingEnds) {
  CollectorOptions options;
  options.kernel_regex = "no_such_kernel";
  DefaultRun run(options);
  run.through_samples("gemm");
  for (int i = 0; i < 5000; ++i) run.launch("gemm");
  EXPECT_EQ(run.phases->index(), 1u);  // not before kIdleTime
  std::this_thread::sleep_for(std::chrono::milliseconds(1050));
  for (int i = 0; i < 5 && run.phases->index() == 1; ++i) run.launch("gemm");
  EXPECT_EQ(run.phases->index(), 2u);
  const RunRecord record = run.phases->finish();
  EXPECT_EQ(record.phases[1].ended_by, "nothing left to select");
  EXPECT_TRUE(record.launches.empty());
  EXPECT_TRUE(record.timeline.has_value());
}

}  // namespace
}  // namespace limiter
