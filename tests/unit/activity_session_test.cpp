// The activity session on a fake Activity API (fake_activity_backend.hpp): what it promises in
// activity_session.hpp, built as a run builds it, with CUPTI's own record structs and no GPU.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <future>

#include "collect/activity/activity_session.hpp"
#include "collect/pm_sampling/activity_timestamps.hpp"
#include "collect/forked_child.hpp"
#include "fake_activity_backend.hpp"

namespace limiter {
namespace {

using test::FakeActivityBackend;

std::vector<const TimelineEvent*> of_kind(const Timeline& timeline, ActivityKind kind) {
  std::vector<const TimelineEvent*> out;
  for (const auto& e : timeline.events)
    if (e.kind == kind) out.push_back(&e);
  return out;
}

detail::LaunchCall launch(std::uint32_t correlation) {
  detail::LaunchCall call;
  call.correlation_id = correlation;
  return call;
}

CollectorOptions tracing() {
  CollectorOptions options;
  options.trace = true;
  options.always_active = true;  // limiter run: from the start of the process
  return options;
}

TEST(ActivitySession, RecordsOfEveryKindBecomeTheTimelineWithTheirNamesAndDurations) {
  FakeActivityBackend cupti;
  detail::ActivitySession session(tracing(), nullptr, /*alone=*/true, 0, cupti);
  session.on_collector_started();
  cupti.record(test::kernel_record("_Z4axpyfPfS_", 100, 250, 7));
  cupti.record(test::copy_record(300, 340, 4096));
  cupti.record(test::memset_record(350, 360, 512));
  cupti.record(test::sync_record(370, 400));
  cupti.record(test::api_record(/*runtime=*/true, 2, 90, 110, 7));    // cudaLaunchKernel
  cupti.record(test::api_record(/*runtime=*/true, 1, 80, 85, 6));     // cudaMalloc: not traced
  cupti.record(test::api_record(/*runtime=*/false, 7, 365, 405, 8));  // cuCtxSynchronize
  session.flush();
  const RunRecord run = session.finish();
  ASSERT_TRUE(run.timeline);
  const auto kernels = of_kind(*run.timeline, ActivityKind::kernel);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0]->name, "axpy(float, float*, float*)");  // demangled
  EXPECT_EQ(kernels[0]->end_ns - kernels[0]->start_ns, 150u);
  const auto copies = of_kind(*run.timeline, ActivityKind::memcpy);
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0]->bytes, 4096u);
  EXPECT_EQ(copies[0]->pageable, true);
  EXPECT_EQ(of_kind(*run.timeline, ActivityKind::memset).size(), 1u);
  EXPECT_EQ(of_kind(*run.timeline, ActivityKind::synchronization).size(), 1u);
  std::vector<std::string> calls;
  for (const auto* e : of_kind(*run.timeline, ActivityKind::api_call)) calls.push_back(e->name);
  EXPECT_EQ(calls, (std::vector<std::string>{"cudaLaunchKernel", "cuCtxSynchronize"}));
  EXPECT_EQ(run.source, "cupti");
}

TEST(ActivitySession, OnlyTheCallsTheVerdictReadsAreTracedAndAllAreUndoneAtTheEnd) {
  FakeActivityBackend cupti;
  {
    detail::ActivitySession session(tracing(), nullptr, true, 0, cupti);
    session.on_collector_started();
    EXPECT_EQ(cupti.driver_calls, (std::set<std::uint32_t>{3, 5, 7}));
    EXPECT_EQ(cupti.runtime_calls, (std::set<std::uint32_t>{2}));
    EXPECT_EQ(cupti.enabled.count(CUPTI_ACTIVITY_KIND_DRIVER), 0u);
    session.finish();
  }
  EXPECT_TRUE(cupti.enabled.empty());
  EXPECT_TRUE(cupti.driver_calls.empty());
  EXPECT_TRUE(cupti.runtime_calls.empty());
  EXPECT_EQ(cupti.client, nullptr);  // the buffers are free for the next user
  cupti.refuse_per_call = true;      // then every driver call, as CUPTI can give them
  detail::ActivitySession session(tracing(), nullptr, true, 0, cupti);
  session.on_collector_started();
  EXPECT_EQ(cupti.enabled.count(CUPTI_ACTIVITY_KIND_DRIVER), 1u);
  EXPECT_NE(session.timings().find("every driver call traced"), std::string::npos);
}

TEST(ActivitySession, KernelsGiveTheRecordsLaunchesTheirTimes) {
  FakeActivityBackend cupti;
  CollectorOptions options;
  options.timeline = true;
  detail::ActivitySession session(options, nullptr, /*alone=*/false, 0, cupti);
  session.begin_region();
  session.on_launch(launch(11));
  session.note_launch(11, 1);  // the exact session's launch 1 is correlation 11
  cupti.record(test::kernel_record("_Z1kv", 1000, 1800, 11));
  session.end_region();
  RunRecord phases;
  phases.launches.resize(1);
  phases.launches[0].sequence = 1;
  const RunRecord run = session.finish_beside(phases);
  ASSERT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(run.launches[0].start_ns, 1000u);
  EXPECT_EQ(run.launches[0].end_ns, 1800u);
  EXPECT_EQ(run.launches[0].duration_source, "activity");
}

TEST(ActivitySession, DroppedRecordsAreCountedAndSaid) {
  FakeActivityBackend cupti;
  detail::ActivitySession session(tracing(), nullptr, true, 0, cupti);
  session.on_collector_started();
  cupti.record(test::kernel_record("_Z1kv", 10, 20, 1));
  cupti.drop(/*stream=*/0, 5);
  session.flush();
  const RunRecord run = session.finish();
  ASSERT_TRUE(run.timeline);
  EXPECT_EQ(run.timeline->dropped_records, 5u);
  EXPECT_NE(session.timings().find("5 dropped"), std::string::npos) << session.timings();
}

TEST(ActivitySession, TheDefaultRunsTimelineStartsInItsPhaseAndRecordsNothingBefore) {
  FakeActivityBackend cupti;
  CollectorOptions options;
  options.always_active = true;
  detail::ActivitySession session(options, nullptr, /*alone=*/false, /*from_phase=*/2, cupti);
  session.on_collector_started();
  session.begin_region();
  session.on_phase_begun(1);
  session.on_launch(launch(1));
  cupti.record(test::kernel_record("_Z6beforev", 10, 20, 1));  // the phases' kernels: not recorded
  EXPECT_EQ(cupti.attaches, 0);                                // no CUPTI call at all yet
  EXPECT_TRUE(cupti.enabled.empty());
  EXPECT_EQ(session.launches_seen(), 0u);
  session.on_phase_begun(2);
  EXPECT_EQ(cupti.attaches, 1);
  session.on_launch(launch(2));
  cupti.record(test::kernel_record("_Z5afterv", 30, 40, 2));
  const RunRecord run = session.finish_beside({});
  ASSERT_TRUE(run.timeline);
  const auto kernels = of_kind(*run.timeline, ActivityKind::kernel);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0]->name, "after()");
  EXPECT_EQ(session.launches_seen(), 1u);
}

TEST(ActivitySession, TheFlushAtTheEndDecodesWhatIsPending) {
  FakeActivityBackend cupti;
  detail::ActivitySession session(tracing(), nullptr, true, 0, cupti);
  session.on_collector_started();
  cupti.record(test::kernel_record("_Z4lastv", 50, 90, 3));  // in CUPTI's buffer, not yet completed
  const RunRecord run = session.finish();
  EXPECT_GE(cupti.forced_flushes, 1);
  ASSERT_TRUE(run.timeline);
  ASSERT_EQ(of_kind(*run.timeline, ActivityKind::kernel).size(), 1u);
}

TEST(ActivitySession, AnEnableThatFailsIsOneLineAndTheRecordHasNoTimeline) {
  FakeActivityBackend cupti;
  cupti.refuse = CUPTI_ACTIVITY_KIND_MEMCPY;
  CollectorOptions options;
  options.timeline = true;
  detail::ActivitySession session(options, nullptr, /*alone=*/false, 0, cupti);
  testing::internal::CaptureStderr();
  session.begin_region();
  session.on_launch(launch(1));
  session.end_region();
  session.begin_region();  // tried again, not said again
  session.on_launch(launch(2));
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(said, "limiter: no activity timeline: cuptiActivityEnable: CUPTI_ERROR_NOT_SUPPORTED\n");
  EXPECT_EQ(cupti.client, nullptr);    // the buffers are not kept by a session that has none
  EXPECT_TRUE(cupti.enabled.empty());  // nor the kinds enabled before the refusal
  const RunRecord run = session.finish_beside({});
  EXPECT_FALSE(run.timeline);  // what is missing: the record has no timeline, not an empty one
}

TEST(ActivitySession, LaunchCallsOverTheBoundAreCountedAndSaid) {
  FakeActivityBackend cupti;
  std::promise<void> entered, release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> held{false};
  detail::LaunchSink sink;
  // The writer is held in its first chunk, so the launch calls only pile up.
  sink.on_timeline_events = [&](const std::vector<TimelineEvent>&) {
    if (held.exchange(true)) return;
    entered.set_value();
    released.wait();
  };
  detail::ActivitySession session(tracing(), &sink, true, 0, cupti);
  session.on_collector_started();
  cupti.record(test::kernel_record("_Z1kv", 10, 20, 1));
  cupti.complete();
  entered.get_future().wait();
  constexpr std::uint64_t kOver = 100;
  const std::uint64_t calls = detail::PendingCalls::kBatch * detail::PendingCalls::kBatches + kOver;
  for (std::uint64_t i = 0; i < calls; ++i) {
    session.on_launch(launch(static_cast<std::uint32_t>(i + 2)));
    session.on_launch_exit(launch(static_cast<std::uint32_t>(i + 2)));
  }
  release.set_value();
  testing::internal::CaptureStderr();
  const RunRecord run = session.finish();
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("limiter: 100 launch calls not on the timeline (over the bound of 262144"), std::string::npos)
      << said;
  ASSERT_TRUE(run.timeline);
  EXPECT_EQ(run.timeline->dropped_records, kOver);
  EXPECT_EQ(of_kind(*run.timeline, ActivityKind::api_call).size(), calls - kOver);
}

TEST(ActivitySession, AForkedChildLeavesTheParentsBuffersAlone) {
  detail::watch_for_fork();
  FakeActivityBackend cupti;
  detail::ActivitySession session(tracing(), nullptr, true, 0, cupti);
  session.on_collector_started();
  session.flush();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A lock held at the fork (the parent's flusher thread, the fake's) would hang the child:
    // fail, do not wait. Only the session's entry points run here, as CUPTI's and the app's would.
    alarm(20);
    auto* buffer = static_cast<std::uint8_t*>(std::malloc(64));
    session.buffer_completed(nullptr, 0, buffer, 0);  // CUPTI's thread in the child: left alone
    session.flush();
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child hung or crashed";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  cupti.record(test::kernel_record("_Z1kv", 10, 20, 1));  // the parent still does
  session.flush();
  EXPECT_TRUE(session.timings().starts_with("1 activity records")) << session.timings();
}

TEST(ActivityTimestamps, KernelsReachTheSamplerAndTheBuffersHaveOneUserAtATime) {
  FakeActivityBackend cupti;
  std::vector<KernelSpan> spans;
  {
    detail::ActivityTimestamps timestamps(cupti, [&](KernelSpan&& span) { spans.push_back(std::move(span)); });
    EXPECT_THROW(detail::ActivityTimestamps(cupti, {}), SystemError);  // CUPTI's callbacks are process-wide
    detail::ActivitySession session(tracing(), nullptr, true, 0, cupti);
    testing::internal::CaptureStderr();
    session.on_collector_started();
    EXPECT_NE(testing::internal::GetCapturedStderr().find("one activity session per process"), std::string::npos);
    cupti.record(test::kernel_record("_Z4axpyfPfS_", 100, 250, 7));
    cupti.record(test::copy_record(300, 340, 4096));  // not enabled: no record
    cupti.drop(0, 2);
    timestamps.flush(false);
    EXPECT_EQ(timestamps.kernels(), 1u);
    EXPECT_EQ(timestamps.dropped(), 2u);
    EXPECT_EQ(cupti.enabled, (std::set<CUpti_ActivityKind>{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL}));
  }
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].launch.name, "axpy(float, float*, float*)");
  EXPECT_EQ(spans[0].end_ns - spans[0].start_ns, 150u);
  EXPECT_TRUE(cupti.enabled.empty());  // disabled at the end
  EXPECT_EQ(cupti.client, nullptr);
}

}  // namespace
}  // namespace limiter
