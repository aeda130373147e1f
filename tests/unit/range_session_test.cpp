// The exact session's logic without a GPU, on a fake Range Profiler (fake_range_backend.hpp):
// batches and their flushes, budgets, filters, regions, kernel replay, user ranges, missed
// launches by reason, the counters' lock between processes, and the phase's end under budgets.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "range_session_harness.hpp"

namespace limiter {
namespace {

using detail::LaunchCall;
using detail::RangeSession;
using test::exact;
using test::finish;
using test::Harness;
using test::kContext;

TEST(RangeSession, ProfilesEveryLaunchInOrderWithItsOwnRange) {
  Harness h(exact());
  for (const char* kernel : {"alpha", "beta", "alpha", "gamma", "beta"}) h.launch(kernel);
  const RunRecord run = finish(h);
  ASSERT_EQ(run.launches.size(), 5u);
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"alpha", "beta", "alpha", "gamma", "beta"}));
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(run.launches[i].sequence, i);
    EXPECT_EQ(run.launches[i].counter("fake__range_index"), static_cast<double>(i));
    EXPECT_EQ(run.launches[i].registers_per_thread, 32);
  }
  EXPECT_EQ(run.launches_seen, 5u);
  EXPECT_EQ(run.device.name, "Fake H100");
  EXPECT_EQ(h.backend.set_ups, 1);  // one context, set up once
  EXPECT_EQ(h.backend.starts, 1);   // user replay: one Start per batch, none after the last flush
}

// A flush stops the profiler; Start (45-470 ms on a GPU) waits for the next launch it ranges.
TEST(RangeSession, AFlushStartsTheProfilerAgainOnlyForTheNextRangedLaunch) {
  Harness h(exact());  // auto range: every launch is ranged
  h.launch("alpha");
  h.session->on_sync(detail::SyncKind::wait);
  EXPECT_EQ(h.backend.starts, 1);
  EXPECT_EQ(h.backend.stops, 1);
  h.launch("beta");
  EXPECT_EQ(h.backend.starts, 2);
  h.session->on_sync(detail::SyncKind::wait);
  h.session->on_sync(detail::SyncKind::wait);  // nothing pending: nothing to stop or start
  const RunRecord run = finish(h);
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(h.backend.starts, 2);
  EXPECT_EQ(h.backend.stops, 2);  // the fake throws at a Stop of a stopped profiler
}

// A batch whose decode fails after its Stop is counted as missed, with the error, and never
// matched to the next batch's ranges.
TEST(RangeSession, ABatchWhoseDecodeFailsIsMissedAndTheNextKeepsItsOwnRanges) {
  Harness h(exact());
  h.launch("alpha");
  h.launch("beta");
  h.backend.failing_decodes = true;
  EXPECT_THROW(h.session->flush(), std::exception);
  h.backend.failing_decodes = false;
  h.launch("gamma");
  h.launch("delta");
  const RunRecord run = finish(h);
  ASSERT_EQ(h.names(run.launches), (std::vector<std::string>{"gamma", "delta"}));
  EXPECT_EQ(run.launches[0].counter("fake__range_index"), 2.0);  // gamma's own range, not alpha's
  ASSERT_EQ(run.missed.size(), 1u);
  EXPECT_EQ(run.missed[0].launches, 2u);
  EXPECT_NE(run.missed[0].reason.find("cuptiRangeProfilerDecodeData"), std::string::npos) << run.missed[0].reason;
}

// Under budgets (user range) the steps after every kernel is profiled start nothing; a kernel
// first seen later starts the profiler for its own range.
TEST(RangeSession, UnderBudgetsSpentKernelsStartNothingAfterAFlush) {
  CollectorOptions options = exact();
  options.per_kernel_count = 1;
  Harness h(options);
  h.launch("alpha");
  h.launch("beta");
  h.session->on_sync(detail::SyncKind::wait);
  for (int step = 0; step < 20; ++step) {
    h.launch("alpha");
    h.launch("beta");
    h.session->on_sync(detail::SyncKind::wait);
  }
  EXPECT_EQ(h.backend.starts, 1);
  h.launch("gamma");
  EXPECT_EQ(h.backend.starts, 2);
  const RunRecord run = finish(h);
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"alpha", "beta", "gamma"}));
  EXPECT_EQ(run.launches_seen, 43u);
  EXPECT_TRUE(run.missed.empty());
}

TEST(RangeSession, AFullBatchIsDecodedBeforeTheNextLaunch) {
  CollectorOptions options = exact();
  options.ranges_per_image = 4;
  Harness h(options);
  for (int i = 0; i < 10; ++i) h.launch("kern");
  EXPECT_EQ(h.streamed.size(), 8u);  // two full batches decoded, two launches pending
  h.session->flush();
  EXPECT_EQ(h.streamed.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(h.streamed[i].counter("fake__range_index"), static_cast<double>(i));
  EXPECT_GE(h.backend.context_syncs, 3);  // each batch waits for its kernels before Stop
}

TEST(RangeSession, AWaitDecodesTheBatchAQueryOnlyAnOldOne) {
  Harness h(exact());
  h.launch("kern");
  h.launch("kern");
  h.session->on_sync(detail::SyncKind::query);  // a poll right after the launch: not yet
  EXPECT_TRUE(h.streamed.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(1020));
  h.session->on_sync(detail::SyncKind::query);  // the batch is a second old
  EXPECT_EQ(h.streamed.size(), 2u);
  h.launch("kern");
  h.session->on_sync(detail::SyncKind::wait);  // the app waited: decoded at once
  EXPECT_EQ(h.streamed.size(), 3u);
}

// The default run's counters phase: a wait decodes only an old batch, as a query does, so a
// program that syncs every step does not pay a Start for each of its budget launches.
TEST(RangeSession, InACountersPhaseAWaitDecodesOnlyAnOldBatch) {
  CollectorOptions options = exact();
  options.per_kernel_count = 3;
  Harness h(options, /*ends_when_budgets_spent=*/true);
  h.session->decode_at_every_wait = false;  // as default_phases sets it
  h.launch("kern");
  h.session->on_sync(detail::SyncKind::wait);
  EXPECT_TRUE(h.streamed.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(1020));
  h.session->on_sync(detail::SyncKind::wait);  // the batch is a second old
  EXPECT_EQ(h.streamed.size(), 1u);
}

TEST(RangeSession, PerKernelBudgetsCountEachKernelAndConfiguration) {
  CollectorOptions options = exact();
  options.per_kernel_count = 2;
  Harness h(options);
  for (int i = 0; i < 5; ++i) {
    h.launch("alpha");
    h.launch("beta");
    h.launch("alpha", {2, 1, 1});  // another configuration of a: a budget of its own
  }
  const RunRecord run = finish(h);
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"alpha", "beta", "alpha", "alpha", "beta", "alpha"}));
  EXPECT_EQ(run.launches_seen, 15u);
  ASSERT_EQ(run.kernels_seen.size(), 3u);
  for (const auto& seen : run.kernels_seen) EXPECT_EQ(seen.launches, 5u);
}

// XLA's GPU timer: a delay kernel spins until the host, after the timed kernel's launch, releases
// it. Nothing is ranged from it to the next synchronisation (a range would wait for the GPU, and
// the GPU for the host); no budget moves on, so the kernel is profiled at a later launch.
TEST(RangeSession, NothingIsRangedBehindAHostTimedKernelUntilASync) {
  CollectorOptions options = exact();
  options.per_kernel_count = 1;
  Harness h(options);
  h.launch("stream_executor::gpu::DelayKernel");
  h.launch("gemm");
  h.launch("gemm");
  h.session->on_sync(detail::SyncKind::wait);  // the timer's stop event waited for
  h.launch("gemm");
  const RunRecord run = finish(h);
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"gemm"}));
  EXPECT_EQ(run.launches_seen, 4u);
  EXPECT_NE(h.session->timings().find("until the next synchronisation: 3"), std::string::npos) << h.session->timings();
}

TEST(RangeSession, PerKernelSkipThenCount) {
  CollectorOptions options = exact();
  options.per_kernel_skip = 2;
  options.per_kernel_count = 1;
  Harness h(options);
  for (int i = 0; i < 4; ++i) h.launch("alpha");
  const RunRecord run = finish(h);
  ASSERT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(run.launches_seen, 4u);
}

TEST(RangeSession, KernelRegexSkipCountAndEveryNth) {
  CollectorOptions options = exact();
  options.kernel_regex = "^gemm";
  options.skip = 1;
  options.count = 2;
  Harness h(options);
  for (int i = 0; i < 6; ++i) {
    h.launch("gemm_big");
    h.launch("relu");
  }
  RunRecord run = finish(h);
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"gemm_big", "gemm_big"}));
  EXPECT_EQ(run.launches_seen, 12u);
  EXPECT_GE(h.backend.disables, 1);  // --count reached: the profiler is retired, the app runs at speed

  CollectorOptions every = exact();
  every.sample_every = 3;
  Harness nth(every);
  for (int i = 0; i < 7; ++i) nth.launch("kern");
  EXPECT_EQ(finish(nth).launches.size(), 3u);  // launches 0, 3 and 6
}

TEST(RangeSession, RegionsProfileTheirLaunchesOnlyAndPauseBetween) {
  CollectorOptions options;
  options.always_active = false;
  Harness h(options);
  h.launch("before");
  h.session->begin_region();
  h.launch("inside");
  h.launch("inside");
  h.session->end_region();  // decoded, and the profiler paused (disabled)
  EXPECT_EQ(h.streamed.size(), 2u);
  EXPECT_EQ(h.backend.disables, 1);
  h.launch("after");
  h.session->begin_region();
  h.launch("again");
  h.session->end_region();
  const RunRecord run = finish(h);
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"inside", "inside", "again"}));
  EXPECT_EQ(run.launches_seen, 3u);  // launches outside a region are not seen
  EXPECT_EQ(h.backend.enables, 2);   // resumed with a new profiler object
}

TEST(RangeSession, LaunchesIntoACapturingStreamAreNotExecutions) {
  Harness h(exact());
  const CUstream capturing = reinterpret_cast<CUstream>(0x5);
  h.backend.capturing.insert(capturing);
  h.launch("captured", {1, 1, 1}, false, capturing);
  h.launch("eager");
  const RunRecord run = finish(h);
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"eager"}));
  EXPECT_EQ(run.launches_seen, 1u);
}

TEST(RangeSession, KernelReplayDecodesEachLaunchAtItsExit) {
  Harness h(exact());
  h.backend.passes = 3;  // a plan of several passes: kernel replay
  h.launch("alpha");
  EXPECT_EQ(h.streamed.size(), 1u);
  h.launch("beta");
  EXPECT_EQ(h.streamed.size(), 2u);
  EXPECT_EQ(h.backend.decodes, 2);
}

TEST(RangeSession, BusyCountersAreTriedAgainThenCountedAsMissed) {
  Harness h(exact());
  h.backend.busy_starts = 2;  // another tool releases the counters after two refusals
  h.launch("alpha");
  EXPECT_EQ(finish(h).launches.size(), 1u);
  EXPECT_EQ(h.session->range_timings().busy_retries, 2u);

  Harness busy(exact());
  busy.backend.busy_starts = 1000;  // held for good
  busy.launch("alpha");
  busy.launch("alpha");
  const RunRecord run = finish(busy);
  EXPECT_TRUE(run.launches.empty());
  ASSERT_EQ(run.missed.size(), 1u);
  EXPECT_EQ(run.missed[0].launches, 2u);
  EXPECT_NE(run.missed[0].reason.find("CUPTI_ERROR_HARDWARE_BUSY"), std::string::npos);
}

TEST(RangeSession, SetUpSkipsTheCounterAvailabilityUnlessTheDeviceLacksACounter) {
  Harness whole(exact());
  whole.launch("alpha");
  EXPECT_EQ(finish(whole).launches.size(), 1u);
  EXPECT_EQ(whole.backend.availability_queries, 0);  // ~120 ms saved at every process's start

  Harness partial(exact());
  partial.backend.lacks_a_counter = true;  // a MIG slice, say: SetConfig fails without it
  partial.launch("alpha");
  partial.launch("beta");
  const RunRecord run = finish(partial);
  EXPECT_EQ(run.launches.size(), 2u);
  EXPECT_TRUE(run.missed.empty());
  EXPECT_EQ(partial.backend.availability_queries, 1);  // once, then the config built with it
  EXPECT_EQ(partial.backend.set_ups, 2);
}

TEST(RangeSession, UnderFiltersALaunchHasAUserRangeAndAFailedOneIsDropped) {
  CollectorOptions options = exact();
  options.kernel_regex = "^alpha$";
  Harness h(options);
  h.launch("alpha");
  h.launch("beta");                    // not selected: no range
  h.launch("alpha", {1, 1, 1}, true);  // the driver refused it: its range is dropped
  const RunRecord run = finish(h);
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"alpha"}));
  EXPECT_EQ(h.backend.pushes, 3);  // the batch's empty range, and one per selected launch
}

TEST(RangeSession, TheProcessEndDecodesWhatIsPending) {
  Harness h(exact());
  for (int i = 0; i < 3; ++i) h.launch("kern");
  EXPECT_TRUE(h.streamed.empty());
  EXPECT_TRUE(h.session->flush_before_exit(std::chrono::milliseconds(100)));
  EXPECT_EQ(h.streamed.size(), 3u);
}

TEST(RangeSession, AnotherProcessHoldingTheCountersTimesOut) {
  CollectorOptions options = exact();
  options.lock_timeout_s = 0.2;
  Harness first(options);
  first.launch("alpha");  // takes the GPU's turn and keeps it (its profiler runs)
  // A second process on the same GPU (the same lock folder): its launches wait 0.2 s, then run
  // unprofiled, counted. Record locks belong to a process, so the second one is a child.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    test::FakeRangeBackend backend;
    detail::NvtxTracker nvtx;
    CollectorOptions second = options;
    second.lock_dir = first.lock_dir;
    RangeSession session(second, {"fake__range_index"}, backend, nvtx, nullptr);
    LaunchCall call;
    call.context = kContext;
    call.symbol_name = "beta";
    session.on_launch(call);
    session.on_launch_exit(call);
    const auto missed = session.missed();
    const bool timed_out = missed.size() == 1 && missed[0].launches == 1 &&
                           missed[0].reason.find("LIMITER_LOCK_TIMEOUT") != std::string::npos;
    _exit(timed_out ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the second process did not count its launch as missed by the lock's timeout";
}

TEST(RangeSession, SpentBudgetsPauseTheProfilerOnlyAfterALongEnoughRun) {
  CollectorOptions options = exact();
  options.per_kernel_count = 1;
  Harness h(options);
  h.launch("alpha");
  for (std::uint64_t i = 0; i < 2 * detail::kPauseAfterUnselected; ++i) h.launch("alpha");
  EXPECT_EQ(h.session->range_timings().filter_pauses, 0u);  // a short program: no pause, no resume
  std::this_thread::sleep_for(detail::kMinUnselectedRun);
  h.launch("alpha");
  EXPECT_EQ(h.session->range_timings().filter_pauses, 1u);  // the run lasted: paused
  EXPECT_EQ(h.backend.disables, 1);
  EXPECT_EQ(finish(h).launches.size(), 1u);
}

TEST(RangeSession, BudgetsSpentEndTheExactPhase) {
  CollectorOptions options = exact();
  options.per_kernel_count = 1;
  Harness h(options, /*ends_when_budgets_spent=*/true);
  h.launch("alpha");
  h.launch("beta");
  for (std::uint64_t i = 0; i < detail::kPauseAfterUnselected - 1; ++i) h.launch("alpha");
  EXPECT_FALSE(h.session->phase_over());
  h.launch("beta");  // the 64th unselected launch in a row
  EXPECT_TRUE(h.session->phase_over());
  h.launch("gamma");  // the next phase's: not this session's any more
  const RunRecord run = finish(h);
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(run.launches_seen, 66u);
}

}  // namespace
}  // namespace limiter
