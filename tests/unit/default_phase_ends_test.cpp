// How the default run's phases end (collect/modes.cpp, collect/phases.cpp), on the fakes: the sampling window ends
// once launches bring no new kernel; a counters phase that can select nothing still ends, so the
// timeline follows.
#include <gtest/gtest.h>

#include <atomic>
#include <future>

#include "default_run_harness.hpp"

namespace limiter {
namespace {

using test::DefaultRun;
using test::kContext;

CollectorOptions long_window() {
  CollectorOptions options;
  options.stall_window_ms = 60000;  // the quiet rule alone can end it
  return options;
}

TEST(DefaultPhaseEnds, TheWindowEndsOnceLaunchesBringNoNewKernel) {
  DefaultRun run(long_window());
  for (int i = 0; i < 300; ++i) run.launch(i % 2 ? "gemm" : "softmax");
  std::this_thread::sleep_for(std::chrono::milliseconds(110));  // past the shortest window
  run.launch("gemm");
  EXPECT_EQ(run.phases->index(), 1u);
  const RunRecord record = run.phases->finish();
  EXPECT_EQ(record.phases[0].ended_by, "no new kernel in 256 launches");
  EXPECT_GE(record.phases[0].launches, 257u);  // 300 unless a slow machine took 100 ms before them
  EXPECT_LE(record.phases[0].launches, 300u);
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

// The cubins kept for the window's source lines go once its record is out: not held to the end.
TEST(DefaultPhaseEnds, TheWindowsCubinsAreFreedAtItsEnd) {
  DefaultRun run;
  std::vector<std::uint8_t> cubin(4096, 7);
  detail::ModuleLoad module;
  module.context = kContext;
  module.cubin = cubin.data();
  module.cubin_size = cubin.size();
  run.phases->on_module_loaded(module);
  EXPECT_NE(run.phases->at(0).timings().find("1 cubins kept (4 KiB), 0 not"), std::string::npos);
  run.through_samples("k");
  ASSERT_TRUE(run.phases->wait_handed_over(std::chrono::seconds(10)));
  EXPECT_NE(run.phases->at(0).timings().find("1 cubins kept (4 KiB, freed after the window)"), std::string::npos)
      << run.phases->at(0).timings();
}

// The window's source lines are read beside the counters phase, not on the app's thread; its
// record still reaches disk (the hand-over) and the run's record.
TEST(DefaultPhaseEnds, TheWindowsSourceLinesAreReadOffTheAppsThread) {
  DefaultRun run;
  std::vector<std::uint8_t> cubin(7, 0);  // the fake's CRC of it is 7: the sampled PCs' module
  detail::ModuleLoad module;
  module.context = kContext;
  module.cubin = cubin.data();
  module.cubin_size = cubin.size();
  run.phases->on_module_loaded(module);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> lookups{0};
  run.pc_backend->on_source_line = [&] {
    ++lookups;
    released.wait_for(std::chrono::seconds(5));  // on the app's thread, the launch below waits this long
  };
  run.through_samples("k", 40);  // the counters phase's first launch has run
  EXPECT_EQ(run.phases->index(), 1u);
  EXPECT_FALSE(run.phases->wait_handed_over(std::chrono::milliseconds(0)));  // the lines still being read
  release.set_value();
  ASSERT_TRUE(run.phases->wait_handed_over(std::chrono::seconds(10)));
  EXPECT_GT(lookups.load(), 0);
  ASSERT_EQ(run.handovers.size(), 1u);
  ASSERT_TRUE(run.handovers[0].stalls.has_value());
  EXPECT_EQ(run.handovers[0].stalls->samples, 40u);
  const RunRecord record = run.phases->finish();
  ASSERT_TRUE(record.stalls.has_value());
  EXPECT_EQ(record.stalls->samples, 40u);
}

// A -k that matches no kernel: the counters phase ends after a long idle run, and the timeline
// follows; launches before the first matching kernel do not end it (range_session_prepare_test).
TEST(DefaultPhaseEnds, ACountersPhaseThatSelectsNothingEnds) {
  CollectorOptions options;
  options.kernel_regex = "no_such_kernel";
  DefaultRun run(options);
  run.through_samples("gemm");
  for (int i = 0; i < 4000; ++i) run.launch("gemm");
  EXPECT_EQ(run.phases->index(), 1u);  // not before kIdleLaunches
  for (int i = 0; i < 100; ++i) run.launch("gemm");
  std::this_thread::sleep_for(std::chrono::milliseconds(1050));
  for (int i = 0; i < 5 && run.phases->index() == 1; ++i) run.launch("gemm");
  EXPECT_EQ(run.phases->index(), 2u);
  const RunRecord record = run.phases->finish();
  EXPECT_EQ(record.phases[1].ended_by, "nothing left to select");
  EXPECT_TRUE(record.launches.empty());
  EXPECT_TRUE(record.timeline.has_value());
}

// A kernel the budget skips moves its budget on: the phase waits for its counted launches.
TEST(DefaultPhaseEnds, SkippedLaunchesKeepTheCountersPhaseGoing) {
  CollectorOptions options;
  options.per_kernel_skip = 5000;
  options.per_kernel_count = 1;
  DefaultRun run(options);
  run.through_samples("gemm");
  for (int i = 0; i < 4200; ++i) run.launch("gemm");
  std::this_thread::sleep_for(std::chrono::milliseconds(1050));
  for (int i = 0; i < 10; ++i) run.launch("gemm");
  EXPECT_EQ(run.phases->index(), 1u);  // still skipping towards its one counted launch
}

}  // namespace
}  // namespace limiter
