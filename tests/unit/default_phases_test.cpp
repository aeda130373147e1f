// The default run as a phase list (collect/phases.hpp), built by sessions_for (collect/modes.hpp)
// on the fake backends and driven as the subscriber drives it: the sampling
// window, then budgets, then the timeline; a kernel first seen in each phase; a run that ends in each
// phase; the record of a finished phase handed over (and to disk) before the next one runs.
#include <gtest/gtest.h>

#include <set>

#include "default_run_harness.hpp"

namespace limiter {
namespace {

using test::DefaultRun;
using test::kContext;
using test::kLong;
using test::names;

TEST(DefaultPhases, TheSamplingWindowThenBudgetsThenTheTimeline) {
  DefaultRun run;
  ASSERT_EQ(run.phases->size(), 3u);
  EXPECT_STREQ(run.phases->at(0).name(), "PC sampling");
  EXPECT_STREQ(run.phases->at(1).name(), "exact");
  EXPECT_STREQ(run.phases->at(2).name(), "timeline");
  run.through_samples("gemm", 40);
  EXPECT_EQ(run.pc_backend->starts, 1);
  EXPECT_EQ(run.pc_backend->disabled.size(), 1u);  // sampling off before the range profiler starts
  EXPECT_FALSE(run.timeline_records());            // no kernel records beside the counters
  run.through_counters("gemm");
  EXPECT_TRUE(run.timeline_records());
  run.launch("gemm");
  const RunRecord record = run.phases->finish();
  EXPECT_EQ(names(record), std::vector<std::string>(kDefaultBudgetSkip + kDefaultBudgetCount, "gemm"));
  ASSERT_TRUE(record.stalls.has_value());
  EXPECT_EQ(record.stalls->samples, 40u);
  EXPECT_EQ(record.source, "cupti");  // a record with counters, not a --stalls one
  ASSERT_EQ(record.phases.size(), 3u);
  EXPECT_EQ(record.phases[0].name, "samples");
  EXPECT_EQ(record.phases[0].ended_by, "window of 5 ms over");
  EXPECT_EQ(record.phases[1].ended_by, "budgets spent");
  EXPECT_EQ(record.phases[2].ended_by, "the app ended");
  EXPECT_EQ(record.phases[0].launches, 1u);
  EXPECT_EQ(record.phases[2].launches, 2u);
  for (std::size_t i = 0; i + 1 < 3; ++i) EXPECT_EQ(record.phases[i].end_ns, record.phases[i + 1].start_ns);
  // The finished phases' answers went out as each ended: a later crash keeps them.
  ASSERT_EQ(run.handovers.size(), 2u);
  ASSERT_TRUE(run.handovers[0].stalls.has_value());
  EXPECT_EQ(run.handovers[0].stalls->samples, 40u);
  EXPECT_EQ(run.handovers[1].phases[1].ended_by, "budgets spent");
  EXPECT_EQ(run.handovers[1].stalls->samples, 40u);
}

TEST(DefaultPhases, AKernelFirstSeenInEachPhase) {
  DefaultRun run;
  run.launch("in_samples");  // sampled; its first launches come later: counters too
  run.queue_samples("in_samples", 12);
  run.past_the_window();
  run.launch("in_counters");  // the counters phase's first launch
  for (int i = 0; i < 80 && run.phases->index() == 1; ++i) run.launch("in_samples");
  ASSERT_EQ(run.phases->index(), 2u);
  run.launch("in_timeline");  // no counters, no samples, timed
  const RunRecord record = run.phases->finish();
  std::set<std::string> profiled;
  for (const auto& name : names(record)) profiled.insert(name);
  EXPECT_EQ(profiled, (std::set<std::string>{"in_counters", "in_samples"}));
  ASSERT_TRUE(record.stalls.has_value());
  ASSERT_EQ(record.stalls->kernels.size(), 1u);
  EXPECT_EQ(record.stalls->kernels[0].name, "in_samples");
  ASSERT_TRUE(record.timeline.has_value());
  std::vector<std::string> timed;
  for (const auto& event : record.timeline->events)
    if (event.kind == ActivityKind::kernel) timed.push_back(event.name);
  // The timeline phase's kernels only: the launch whose ENTER began the phase, then its own.
  EXPECT_EQ(timed, (std::vector<std::string>{"in_samples", "in_timeline"}));
}

TEST(DefaultPhases, ARunThatEndsInTheSamplingWindowKeepsItsSamples) {
  DefaultRun run;
  run.launch("k");
  run.queue_samples("k", 9);
  const RunRecord record = run.phases->finish();
  ASSERT_TRUE(record.stalls.has_value());
  EXPECT_EQ(record.stalls->samples, 9u);
  EXPECT_TRUE(record.launches.empty());
  EXPECT_EQ(record.source, "cupti");
  EXPECT_EQ(record.phases[0].ended_by, "the app ended");
  EXPECT_EQ(record.phases[1].ended_by, "never began");
  EXPECT_EQ(record.phases[2].ended_by, "never began");
  EXPECT_EQ(record.phases[1].start_ns, 0u);
  EXPECT_EQ(run.range_backend.enables, 0);  // the range profiler never touched the GPU
}

TEST(DefaultPhases, ARunThatEndsInTheCountersPhase) {
  DefaultRun run;
  run.through_samples("short", 3);
  for (int i = 0; i < 4; ++i) run.launch("short");
  run.phases->flush_before_exit(std::chrono::milliseconds(100));  // as the exit handler does
  const RunRecord record = run.phases->finish();
  EXPECT_EQ(record.launches.size(), kDefaultBudgetCount);
  ASSERT_TRUE(record.stalls.has_value());
  EXPECT_FALSE(record.timeline.has_value());
  ASSERT_EQ(record.phases.size(), 3u);
  EXPECT_EQ(record.phases[1].ended_by, "the app ended");
  EXPECT_EQ(record.phases[1].launches, 5u);
  EXPECT_EQ(record.phases[2].ended_by, "never began");
}

TEST(DefaultPhases, ASampleBoundEndsTheWindowBeforeItsTime) {
  CollectorOptions options;
  options.stall_window_samples = 100;
  options.stall_window_ms = 60000;
  DefaultRun run(options);
  run.launch("k");  // starts sampling
  detail::PcBatch batch;
  batch.pcs.push_back(test::pc_record("k", 7, 0x40, {{kLong, 150}}));
  run.pc_backend->queue[kContext].push_back(batch);
  run.pc_backend->pending = detail::kPcsPerBuffer;
  run.launch("k");  // its EXIT drains 150 samples
  run.launch("k");  // the window is over at this ENTER
  EXPECT_EQ(run.phases->index(), 1u);
  const RunRecord record = run.phases->finish();
  EXPECT_EQ(record.phases[0].ended_by, "150 samples");
}

TEST(DefaultPhases, TheBudgetGivenReplacesTheDefault) {
  CollectorOptions options;
  options.per_kernel_count = 5;
  DefaultRun run(options);
  run.through_samples("k");
  run.through_counters("k");
  EXPECT_EQ(names(run.phases->finish()).size(), 5u);
}

// PC sampling that cannot start does not hold the run: the window ends at once, said, with no
// empty set of samples, and the counters phase follows.
TEST(DefaultPhases, PcSamplingThatCannotStartEndsItsWindowAtOnce) {
  CollectorOptions options;
  options.stall_window_ms = 60000;
  DefaultRun run(options);
  run.pc_backend->unsupported = true;
  run.launch("k");
  run.launch("k");
  EXPECT_EQ(run.phases->index(), 1u);
  run.through_counters("k");
  run.launch("k");
  const RunRecord record = run.phases->finish();
  EXPECT_EQ(record.phases[0].ended_by, "PC sampling could not start");
  EXPECT_EQ(record.phases[1].ended_by, "budgets spent");
  EXPECT_FALSE(record.stalls.has_value());
  EXPECT_EQ(record.launches.size(), kDefaultBudgetCount);
  ASSERT_FALSE(record.missed.empty());  // said, with the fix
  EXPECT_NE(record.missed[0].reason.find("PC sampling could not start"), std::string::npos);
  EXPECT_TRUE(record.timeline.has_value());
}

TEST(DefaultPhases, ASecondTakeReturnsTheWindowsAlone) {
  DefaultRun run;
  run.through_samples("k", 5);
  EXPECT_TRUE(run.phases->finish().stalls.has_value());
  const RunRecord again = run.phases->finish();
  EXPECT_FALSE(again.stalls.has_value());
  EXPECT_EQ(again.phases.size(), 3u);
  run.launch("k");  // after the end: no phase begins again
  EXPECT_EQ(run.phases->index(), 1u);
}

TEST(DefaultPhases, WindowsSoFarForARecordWrittenOnASignal) {
  DefaultRun run;
  run.through_samples("k");
  const auto windows = run.phases->windows();
  ASSERT_EQ(windows.size(), 3u);
  EXPECT_EQ(windows[0].ended_by, "window of 5 ms over");
  EXPECT_EQ(windows[1].ended_by, "running");  // the current one, open
  EXPECT_EQ(windows[2].ended_by, "never began");
  EXPECT_EQ(windows[1].launches, 1u);
  EXPECT_GT(windows[1].end_ns, windows[1].start_ns);
}

}  // namespace
}  // namespace limiter
