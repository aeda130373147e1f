// A device's set-up prepared off the app's thread (device_preparer.hpp), on the fake Range
// Profiler: the first launch takes what was prepared instead of doing it again, waits for a
// preparation still running, says the error of one that failed as set_up always said it (done
// again on the launch's thread), and a process that never launches ends without waiting on it
// for long.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "collect/counter_lock.hpp"
#include "range_session_harness.hpp"
#include "wait_until.hpp"

namespace limiter {
namespace {

using test::exact;
using test::finish;
using test::Harness;
using test::kContext;
using test::wait_until;

double seconds_of(const std::function<void()>& work) {
  const auto started = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

TEST(RangeSessionPrepare, TheExactSessionAsksForContextsCreated) {
  Harness h(exact());
  EXPECT_TRUE(h.session->capabilities().contexts);
}

TEST(RangeSessionPrepare, APreparedDeviceIsNotPreparedAgainAtTheFirstLaunch) {
  Harness h(exact());
  h.session->on_context_created(kContext);
  ASSERT_TRUE(wait_until([&] { return h.backend.stops == 1; }));  // prepared, and started ahead
  h.launch("alpha");
  h.launch("alpha");
  const RunRecord run = finish(h);
  EXPECT_EQ(run.launches.size(), 2u);
  EXPECT_EQ(run.device.name, "Fake H100");
  EXPECT_EQ(h.backend.support_checks.load(), 1);
  EXPECT_EQ(h.backend.descriptions.load(), 1);
  EXPECT_EQ(h.backend.config_images.load(), 1);
  EXPECT_EQ(h.backend.set_ups, 1);
  const auto times = h.session->range_timings();
  EXPECT_EQ(times.devices_prepared, 1u);
  EXPECT_EQ(times.set_up_config_s, 0.0);
  EXPECT_NE(h.session->timings().find("set-up prepared off the app's thread (1 devices)"), std::string::npos);
}

TEST(RangeSessionPrepare, WithoutAContextSeenAheadTheFirstLaunchPreparesItself) {
  Harness h(exact());
  h.launch("alpha");
  const RunRecord run = finish(h);
  EXPECT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(h.backend.support_checks.load(), 1);
  EXPECT_EQ(h.session->range_timings().devices_prepared, 0u);
  EXPECT_NE(h.session->timings().find("set-up prepared off the app's thread: none"), std::string::npos);
}

TEST(RangeSessionPrepare, AProcessThatPreparesNothingAheadSetsUpAtItsFirstLaunch) {
  CollectorOptions options = exact();
  options.prepare_ahead = false;  // a worker the app started (inject.cpp)
  Harness h(options);
  h.session->on_context_created(kContext);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(h.backend.support_checks.load(), 0);  // nothing ran off the app's thread
  h.launch("alpha");
  const RunRecord run = finish(h);
  EXPECT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(h.backend.support_checks.load(), 1);
  EXPECT_EQ(h.session->range_timings().devices_prepared, 0u);
}

TEST(RangeSessionPrepare, TheFirstLaunchWaitsForAPreparationStillRunningAndUsesIt) {
  Harness h(exact());
  h.backend.hold_support_check = true;
  h.session->on_context_created(kContext);
  ASSERT_TRUE(wait_until([&] { return h.backend.support_checks.load() == 1; }));  // the preparer is inside
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    h.backend.hold_support_check = false;
  });
  h.launch("alpha");
  release.join();
  const RunRecord run = finish(h);
  EXPECT_EQ(run.launches.size(), 1u);
  // Checked once: a set-up of its own would have checked again (and been held as well).
  EXPECT_EQ(h.backend.support_checks.load(), 1);
  EXPECT_EQ(h.backend.set_ups, 1);
  const auto times = h.session->range_timings();
  EXPECT_EQ(times.devices_prepared, 1u);
  EXPECT_GE(times.prepare_wait_s, 0.05);
  EXPECT_GE(times.set_up_device_s, times.prepare_wait_s);
}

TEST(RangeSessionPrepare, AnUnsupportedDeviceFoundAheadIsSaidAsAtTheFirstLaunch) {
  Harness h(exact());
  h.backend.unsupported = "the range profiler does not support this MIG slice";
  h.session->on_context_created(kContext);
  ASSERT_TRUE(wait_until([&] { return h.backend.support_checks.load() == 1; }));
  h.launch("alpha");
  h.launch("beta");
  const RunRecord run = finish(h);
  EXPECT_TRUE(run.launches.empty());
  ASSERT_EQ(run.missed.size(), 1u);
  EXPECT_EQ(run.missed[0].reason,
            "profiling could not start in this context: the range profiler does not support this MIG slice");
  EXPECT_EQ(run.missed[0].launches, 2u);
  EXPECT_EQ(run.missed[0].fix, "the error in the reason names the fix");
  // Asked again on the launch's thread, whose answer is the one said (a failure off the app's
  // thread could be the thread's); once only: the context is not tried again.
  EXPECT_EQ(h.backend.support_checks.load(), 2);
  EXPECT_EQ(h.backend.descriptions.load(), 0);
  EXPECT_EQ(h.backend.enables, 0);
}

TEST(RangeSessionPrepare, AConfigRefusedAheadIsSaidAndTheDeviceStillDescribed) {
  Harness h(exact());
  h.backend.failing_config = "no metric 'sm__nothing.sum' on chip GH100";
  h.session->on_context_created(kContext);
  ASSERT_TRUE(wait_until([&] { return h.backend.config_images.load() == 1; }));
  h.launch("alpha");
  const RunRecord run = finish(h);
  EXPECT_TRUE(run.launches.empty());
  ASSERT_EQ(run.missed.size(), 1u);
  EXPECT_EQ(run.missed[0].reason,
            "profiling could not start in this context: no metric 'sm__nothing.sum' on chip GH100");
  EXPECT_EQ(run.missed[0].launches, 1u);
  EXPECT_EQ(run.device.name, "Fake H100");       // described before the config failed, as before
  EXPECT_EQ(h.backend.config_images.load(), 2);  // and built again on the launch's thread
}

TEST(RangeSessionPrepare, ARegionOnAThreadWithACurrentContextPreparesItsDevice) {
  Harness h(CollectorOptions{});  // regions: Collector::start() of the in-process API
  h.backend.current = kContext;
  h.session->begin_region();
  ASSERT_TRUE(wait_until([&] { return h.backend.config_images.load() == 1; }));
  h.launch("alpha");
  h.session->end_region();
  const RunRecord run = finish(h);
  EXPECT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(h.backend.support_checks.load(), 1);
  EXPECT_EQ(h.session->range_timings().devices_prepared, 1u);
}

TEST(RangeSessionPrepare, ARegionWithoutACurrentContextPreparesNothing) {
  Harness h(CollectorOptions{});
  h.session->begin_region();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(h.backend.support_checks.load(), 0);
  h.session->end_region();
}

TEST(RangeSessionPrepare, AProcessThatNeverLaunchesEndsCleanly) {
  Harness h(exact());
  h.session->on_context_created(kContext);
  ASSERT_TRUE(wait_until([&] { return h.backend.config_images.load() == 1; }));
  EXPECT_TRUE(h.session->flush_before_exit(std::chrono::milliseconds(500)));
  const RunRecord run = h.session->finish();
  EXPECT_TRUE(run.launches.empty());
  EXPECT_TRUE(run.missed.empty());
  h.session.reset();  // joins its preparer
}

TEST(RangeSessionPrepare, TheExitWaitsForARunningPreparationOnlyAsLongAsItMay) {
  Harness h(exact());
  h.backend.hold_support_check = true;  // a preparation that does not end before the process does
  h.session->on_context_created(kContext);
  ASSERT_TRUE(wait_until([&] { return h.backend.support_checks.load() == 1; }));
  const double exit_s = seconds_of([&] { EXPECT_TRUE(h.session->flush_before_exit(std::chrono::milliseconds(50))); });
  EXPECT_GE(exit_s, 0.04);  // it waited for the preparation...
  EXPECT_LT(exit_s, 2.0);   // ...no longer than it was given
  const RunRecord run = h.session->finish();
  EXPECT_TRUE(run.launches.empty());
  EXPECT_TRUE(run.missed.empty());
  h.backend.hold_support_check = false;
  h.session.reset();  // joins its preparer, now ended
  EXPECT_EQ(h.backend.support_checks.load(), 1);
}

TEST(RangeSessionPrepare, AContextDestroyedWhileItsDeviceIsPreparedWaitsForThePreparer) {
  Harness h(exact());
  h.backend.hold_support_check = true;
  h.session->on_context_created(kContext);
  ASSERT_TRUE(wait_until([&] { return h.backend.support_checks.load() == 1; }));
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    h.backend.hold_support_check = false;
  });
  // The preparer made the context current: it ends before the driver destroys the context.
  const double destroy_s = seconds_of([&] { h.session->on_context_destroy(kContext); });
  release.join();
  EXPECT_GE(destroy_s, 0.05);
  EXPECT_EQ(h.backend.config_images.load(), 1);
}

// The first Start of a profiler object costs 300-800 ms on a GPU: made on the preparer's
// thread, which stops it again; the first launch then starts it as a flush leaves it.
TEST(RangeSessionPrepare, APreparedContextIsStartedAheadAndItsFirstLaunchPaysALaterStart) {
  Harness h(exact());
  h.session->on_context_created(kContext);
  ASSERT_TRUE(wait_until([&] { return h.backend.stops == 1; }));
  EXPECT_EQ(h.backend.enables, 1);
  EXPECT_EQ(h.backend.starts, 1);
  h.launch("alpha");
  h.launch("beta");
  const RunRecord run = finish(h);
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_TRUE(run.missed.empty());
  EXPECT_EQ(h.backend.enables, 1);  // the object started ahead is the one used
  EXPECT_EQ(h.backend.starts, 2);
  const auto times = h.session->range_timings();
  EXPECT_GT(times.started_ahead_s, 0.0);
  EXPECT_NE(h.session->timings().find("the profiler started there (the first Start)"), std::string::npos);
}

// Another process's turn on the counters: nothing waits off the app's thread for it; the first
// launch waits for its turn, as before.
TEST(RangeSessionPrepare, WhileAnotherProcessHasTheCountersNothingIsStartedAhead) {
  Harness first(exact());
  first.launch("alpha");       // takes the GPU's turn and keeps it (its profiler runs)
  const pid_t child = fork();  // record locks belong to a process
  ASSERT_GE(child, 0);
  if (child == 0) {
    test::FakeRangeBackend backend;
    detail::NvtxTracker nvtx;
    CollectorOptions second = exact();
    second.lock_dir = first.lock_dir;
    detail::RangeSession session(second, {"fake__range_index"}, backend, nvtx, nullptr);
    session.on_context_created(kContext);
    // The start ahead looked the counters' lock up (by the device's UUID), and found it taken.
    const bool looked = wait_until([&] { return backend.uuid_queries.load() >= 1; });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    _exit(looked && backend.enables == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the second process started its profiler ahead without its turn";
}

// Whether another process gets DIR's GPU turn within WAIT (a child: record locks are a process's).
bool another_process_gets_the_turn(const std::string& dir, std::chrono::milliseconds wait) {
  const pid_t child = fork();
  if (child == 0) {
    detail::CounterLock lock(dir, "GPU-fake");
    _exit(lock.acquire(wait) ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A turn taken ahead is handed over like any other: the turn keeper runs from it on.
TEST(RangeSessionPrepare, ATurnTakenAheadIsHandedToAProcessThatWaits) {
  Harness h(exact());
  h.session->on_context_created(kContext);
  ASSERT_TRUE(wait_until([&] { return h.backend.stops == 1; }));
  EXPECT_FALSE(another_process_gets_the_turn(h.lock_dir, std::chrono::milliseconds(0)));
  EXPECT_TRUE(another_process_gets_the_turn(h.lock_dir, std::chrono::milliseconds(3000)));  // after kMinTurn
}

// Kernel replay (several passes): nothing started ahead, and the turn is not kept.
TEST(RangeSessionPrepare, UnderKernelReplayOnlyTheSetUpIsAheadAndTheTurnIsFree) {
  Harness h(exact());
  h.backend.passes = 2;
  h.session->on_context_created(kContext);
  ASSERT_TRUE(wait_until([&] { return h.backend.uuid_queries.load() >= 2; }));  // the lock, then set_up
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(h.backend.enables, 0);
  // Released by the preparer's thread (a paused context's turn is never handed over otherwise).
  EXPECT_TRUE(another_process_gets_the_turn(h.lock_dir, std::chrono::milliseconds(2000)));
  h.launch("alpha");
  const RunRecord run = finish(h);
  EXPECT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(h.backend.enables, 1);
}

// A profiler started ahead is not "running" to the launches before the first selected one: 64
// unselected launches neither pause it nor end a budgets-then-sampling phase.
TEST(RangeSessionPrepare, LaunchesBeforeTheFirstSelectedOneDoNotEndThePhase) {
  CollectorOptions options = exact();
  options.kernel_regex = "gemm";
  options.per_kernel_count = 3;
  Harness h(options, /*ends_when_budgets_spent=*/true);
  h.session->on_context_created(kContext);
  ASSERT_TRUE(wait_until([&] { return h.backend.stops == 1; }));
  for (int i = 0; i < 64; ++i) h.launch("elementwise");
  EXPECT_FALSE(h.session->phase_over());
  for (int i = 0; i < 3; ++i) h.launch("gemm");
  const RunRecord run = finish(h);
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"gemm", "gemm", "gemm"}));
  EXPECT_EQ(h.backend.enables, 1);  // the object started ahead is the one used
}

// Destroyed while (or before) its start ahead runs: no profiler is left enabled on it.
TEST(RangeSessionPrepare, AContextDestroyedAroundItsStartAheadKeepsNoProfiler) {
  for (int delay_ms : {0, 5, 30}) {
    Harness h(exact());
    h.backend.hold_support_check = true;
    h.session->on_context_created(kContext);
    ASSERT_TRUE(wait_until([&] { return h.backend.support_checks.load() == 1; }));
    std::thread release([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      h.backend.hold_support_check = false;
    });
    h.session->on_context_destroy(kContext);
    release.join();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a start ahead after it skips
    EXPECT_EQ(h.backend.enables, h.backend.disables) << delay_ms;
  }
}

}  // namespace
}  // namespace limiter
