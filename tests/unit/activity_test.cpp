// The activity session without a GPU: CUPTI records made by hand become timeline events
// (collect/activity/activity_records.hpp), the recorder streams and joins them to the record's launches
// by correlation id and counts dropped records (collect/activity/activity_timeline.hpp), and the modes
// put the session where it belongs (collect/phases.hpp).
#include <gtest/gtest.h>

#include <future>
#include <map>
#include <thread>

#include "collect/activity/activity_records.hpp"
#include "collect/activity/activity_timeline.hpp"
#include "collect/nvtx/nvtx_tracker.hpp"
#include "collect/activity/pending_calls.hpp"
#include "collect/modes.hpp"
#include "collect/phases.hpp"
#include "fake_backends.hpp"

namespace limiter {
namespace {

using detail::timeline_event_of;

std::string api_name(bool runtime, std::uint32_t cbid) {
  if (runtime) return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ? "cudaLaunchKernel_v7000" : "";
  return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ? "cuLaunchKernel" : "";
}

std::optional<TimelineEvent> event_of(const void* record) {
  return timeline_event_of(*static_cast<const CUpti_Activity*>(record), api_name);
}

TEST(ActivityRecords, AKernelRecordIsAKernelEvent) {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 1000;
  k.end = 1500;
  k.deviceId = 1;
  k.contextId = 2;
  k.streamId = 7;
  k.correlationId = 42;
  k.name = "_Z4gemmPfi";
  const auto e = event_of(&k);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ActivityKind::kernel);
  EXPECT_EQ(e->start_ns, 1000u);
  EXPECT_EQ(e->end_ns, 1500u);
  EXPECT_EQ(e->device, 1);
  EXPECT_EQ(e->context_id, 2u);
  EXPECT_EQ(e->stream_id, 7u);
  EXPECT_EQ(e->correlation_id, 42u);
  EXPECT_EQ(e->name, "gemm(float*, int)");
  EXPECT_FALSE(e->thread_id);
  k.end = k.start;  // never ran: no timestamps
  EXPECT_FALSE(event_of(&k));
}

TEST(ActivityRecords, KernelNamesAreDemangledOnceEach) {
  detail::KernelNames names;
  const std::string& first = names("_Z4gemmPfi");
  EXPECT_EQ(first, "gemm(float*, int)");
  const std::string copy = "_Z4gemmPfi";  // the same name at another address: the same entry
  EXPECT_EQ(&names(copy.c_str()), &first);
  EXPECT_EQ(names("not_mangled"), "not_mangled");
  EXPECT_EQ(names(nullptr), "");
  EXPECT_EQ(names.size(), 3u);
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 1;
  k.end = 2;
  k.name = "_Z4gemmPfi";
  const auto e = timeline_event_of(*reinterpret_cast<const CUpti_Activity*>(&k), api_name, &names);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->name, "gemm(float*, int)");
  EXPECT_EQ(names.size(), 3u);
}

TEST(ActivityRecords, CopiesSayWhetherTheHostSideIsPageable) {
  CUpti_ActivityMemcpy6 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.start = 10;
  m.end = 20;
  m.bytes = 4096;
  m.correlationId = 5;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  auto e = event_of(&m);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ActivityKind::memcpy);
  EXPECT_EQ(e->name, "HtoD");
  EXPECT_EQ(e->bytes, 4096u);
  EXPECT_EQ(e->pageable, true);
  EXPECT_EQ(e->correlation_id, 5u);
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  e = event_of(&m);
  EXPECT_EQ(e->name, "DtoH");
  EXPECT_EQ(e->pageable, false);
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  e = event_of(&m);
  EXPECT_EQ(e->name, "DtoD");
  EXPECT_FALSE(e->pageable);  // no host side
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  EXPECT_EQ(event_of(&m)->name, "PtoP");
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOA;
  EXPECT_EQ(event_of(&m)->name, "HtoD");
}

TEST(ActivityRecords, MemsetsSynchronisationsAndDriverCalls) {
  CUpti_ActivityMemset4 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.start = 1;
  m.end = 3;
  m.bytes = 64;
  m.streamId = 9;
  auto e = event_of(&m);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ActivityKind::memset);
  EXPECT_EQ(e->name, "memset");
  EXPECT_EQ(e->bytes, 64u);
  EXPECT_EQ(e->stream_id, 9u);

  CUpti_ActivitySynchronization2 s{};
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  s.start = 100;
  s.end = 900;
  s.streamId = 3;
  s.correlationId = 77;
  e = event_of(&s);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ActivityKind::synchronization);
  EXPECT_EQ(e->name, "stream");
  EXPECT_EQ(e->stream_id, 3u);
  EXPECT_EQ(e->correlation_id, 77u);
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  s.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  e = event_of(&s);
  EXPECT_EQ(e->name, "context");
  EXPECT_FALSE(e->stream_id);
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
  EXPECT_EQ(event_of(&s)->name, "stream wait event");
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
  EXPECT_EQ(event_of(&s)->name, "event");

  CUpti_ActivityAPI a{};
  a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  a.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
  a.start = 50;
  a.end = 60;
  a.threadId = 1234;
  a.correlationId = 42;
  e = event_of(&a);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ActivityKind::api_call);
  EXPECT_EQ(e->name, "cuLaunchKernel");
  EXPECT_EQ(e->thread_id, 1234u);
  EXPECT_EQ(e->correlation_id, 42u);
  a.cbid = 99999;  // a name the table does not know still names the call
  EXPECT_EQ(event_of(&a)->name, "driver call 99999");
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;  // the runtime's launch, named from its own domain
  a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  EXPECT_EQ(event_of(&a)->name, "cudaLaunchKernel_v7000");
  EXPECT_EQ(event_of(&a)->kind, ActivityKind::api_call);

  CUpti_Activity other{};
  other.kind = CUPTI_ACTIVITY_KIND_MARKER;
  EXPECT_FALSE(event_of(&other));
}

TEST(ActivityRecords, OnlyTheCallsTheVerdictReadsAreTraced) {
  for (const char* name :
       {"cuLaunchKernel", "cuLaunchKernelEx_ptsz", "cuGraphLaunch", "cuMemcpyHtoD_v2", "cuMemcpyAsync",
        "cuMemsetD32Async", "cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize", "cuStreamQuery",
        "cuEventQuery", "cuStreamWaitEvent", "cudaLaunchKernel_v7000", "cudaMemcpyAsync_v3020",
        "cudaStreamSynchronize_v3020", "cudaDeviceSynchronize_v3020", "cudaGraphLaunch_v10000", "cudaEventQuery_v3020"})
    EXPECT_TRUE(detail::traced_driver_call(name)) << name;
  for (const char* name : {"cuCtxGetDevice", "cuMemAlloc_v2", "cuModuleLoadData", "cuFuncGetAttribute", "cuEventRecord",
                           "cudaMalloc_v3020", "cudaGetDevice_v3020", "cudaFuncGetAttributes_v3020"})
    EXPECT_FALSE(detail::traced_driver_call(name)) << name;
}

TimelineEvent kernel(std::uint32_t correlation, std::uint64_t start) {
  TimelineEvent e;
  e.kind = ActivityKind::kernel;
  e.correlation_id = correlation;
  e.start_ns = start;
  e.end_ns = start + 10;
  return e;
}

TEST(TimelineRecorder, ChunksStreamAsTheyComeAndDroppedRecordsAreCounted) {
  std::vector<std::vector<TimelineEvent>> chunks;
  detail::TimelineRecorder recorder([&](const std::vector<TimelineEvent>& chunk) { chunks.push_back(chunk); });
  recorder.note_launch(7, 0);
  recorder.add({kernel(7, 100), kernel(8, 200)});
  recorder.add({});  // an empty buffer is no chunk
  recorder.count_dropped(3);
  recorder.count_dropped(2);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0][0].launch_sequence, 0u);  // its launch was known: streamed joined
  EXPECT_FALSE(chunks[0][1].launch_sequence);
  EXPECT_EQ(recorder.dropped(), 5u);
  const Timeline window = recorder.window();
  EXPECT_EQ(window.dropped_records, 5u);
  EXPECT_EQ(window.start_ns, 100u);
  EXPECT_EQ(window.end_ns, 210u);
  EXPECT_TRUE(window.events.empty());
  recorder.widen(80, 0);  // the start known, the end not yet: the end is the events'
  EXPECT_EQ(recorder.window().start_ns, 80u);
  EXPECT_EQ(recorder.window().end_ns, 210u);
  recorder.add({kernel(9, 60)});
  EXPECT_EQ(recorder.window().start_ns, 60u);
  recorder.widen(50, 400);
  const Timeline timeline = recorder.timeline();
  EXPECT_EQ(timeline.start_ns, 50u);
  EXPECT_EQ(timeline.end_ns, 400u);
  EXPECT_EQ(timeline.events.size(), 3u);
  EXPECT_EQ(timeline.dropped_records, 5u);
}

TEST(PendingCalls, ABatchWakesTheFlusherAndCallsPastTheBoundAreCountedDropped) {
  using detail::PendingCalls;
  PendingCalls calls;
  std::size_t wakes = 0;
  const std::size_t bound = PendingCalls::kBatch * PendingCalls::kBatches;
  for (std::size_t i = 0; i < bound + 10; ++i) wakes += calls.add(kernel(static_cast<std::uint32_t>(i), i)) ? 1 : 0;
  EXPECT_EQ(wakes, PendingCalls::kBatches);  // one a full batch; none for the dropped
  std::uint64_t dropped = 0;
  const auto kept = *calls.take(dropped);
  EXPECT_EQ(kept.size(), bound);
  EXPECT_EQ(dropped, 10u);
  EXPECT_EQ(kept.back().correlation_id, bound - 1);  // the oldest are kept, in order
  // Taken: room again, and the count starts over.
  EXPECT_FALSE(calls.add(kernel(1, 1)));
  EXPECT_EQ(calls.take(dropped)->size(), 1u);
  EXPECT_EQ(dropped, 0u);
}

// A fatal signal handled on the app's thread while it was inside add(): take() gives up at once
// instead of locking again (a hang until the handler's alarm, and undefined); held by another
// thread, it gives up after its wait. The calls stay, and waiting() says how many.
TEST(PendingCalls, ATakeWhileAddHoldsTheLockGivesUp) {
  using detail::PendingCalls;
  PendingCalls calls(std::chrono::seconds(30));  // at once means without this wait
  calls.add(kernel(1, 1));
  calls.add(kernel(2, 2));
  std::uint64_t dropped = 7;
  {
    const PendingCalls::Hold inside_add(calls);  // this thread, stopped inside add()
    const auto before = std::chrono::steady_clock::now();
    EXPECT_FALSE(calls.take(dropped));
    EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(10));
    EXPECT_EQ(dropped, 0u);
    EXPECT_EQ(calls.waiting(), 2u);
  }
  PendingCalls shared(std::chrono::milliseconds(100));
  shared.add(kernel(3, 3));
  std::promise<void> held, release;
  std::thread other([&] {
    const PendingCalls::Hold inside_add(shared);
    held.set_value();
    release.get_future().wait();
  });
  held.get_future().wait();
  const auto before = std::chrono::steady_clock::now();
  EXPECT_FALSE(shared.take(dropped));
  EXPECT_GE(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(100));
  release.set_value();
  other.join();
  for (PendingCalls* released : {&calls, &shared}) {  // released: nothing was lost meanwhile
    const auto kept = released->take(dropped);
    ASSERT_TRUE(kept);
    EXPECT_EQ(kept->size(), released == &calls ? 2u : 1u);
    EXPECT_EQ(released->waiting(), 0u);
  }
}

TEST(TimelineRecorder, KernelsJoinTheirLaunchesByCorrelationId) {
  detail::TimelineRecorder recorder;
  recorder.add({kernel(9, 300), kernel(11, 520), kernel(11, 500), kernel(12, 600), kernel(12, 610), kernel(13, 700)});
  recorder.note_launch(9, 1);   // decoded after its kernel's buffer: joined at the end
  recorder.note_launch(11, 3);  // a graph launch: two kernels, two launches, in order
  recorder.note_launch(11, 2);
  recorder.note_launch(12, 4);  // two kernels for one launch: not guessed
  const Timeline timeline = recorder.timeline();
  std::map<std::uint64_t, std::optional<std::uint64_t>> by_start;
  for (const auto& e : timeline.events) by_start[e.start_ns] = e.launch_sequence;
  EXPECT_EQ(by_start[300], 1u);
  EXPECT_EQ(by_start[500], 2u);
  EXPECT_EQ(by_start[520], 3u);
  EXPECT_FALSE(by_start[600]);
  EXPECT_FALSE(by_start[610]);
  EXPECT_FALSE(by_start[700]);  // no launch of the record (unselected)

  std::vector<KernelLaunch> launches(4);
  launches[0].sequence = 1;
  launches[1].sequence = 2;
  launches[2].sequence = 4;
  launches[2].counters["gpu__time_duration.sum"] = 10;
  launches[3].sequence = 5;
  detail::apply_kernel_times(timeline, launches);
  EXPECT_EQ(launches[0].start_ns, 300u);
  EXPECT_EQ(launches[0].end_ns, 310u);
  EXPECT_EQ(launches[0].duration_source, "activity");
  EXPECT_EQ(launches[1].start_ns, 500u);
  EXPECT_EQ(launches[2].duration_source, "range");  // no kernel joined: its range's duration
  EXPECT_FALSE(launches[2].start_ns);
  EXPECT_FALSE(launches[3].duration_source);
}

std::pair<std::vector<std::string>, std::vector<std::string>> mode(const CollectorOptions& options) {
  test::FakeBackends backends;
  detail::NvtxTracker nvtx;
  detail::Phases phases(detail::sessions_for(options, backends, nvtx, nullptr));
  std::pair<std::vector<std::string>, std::vector<std::string>> names;
  for (std::size_t i = 0; i < phases.size(); ++i) names.first.push_back(phases.at(i).name());
  for (std::size_t i = 0; i < phases.background_size(); ++i) names.second.push_back(phases.background(i).name());
  return names;
}

using Names = std::vector<std::string>;

TEST(ActivityPhases, TheTimelineIsAloneUnderTraceAndBesideTheCountersOnlyWhenAsked) {
  CollectorOptions options;  // the default run: the timeline beside, from the sampling phase on
  EXPECT_EQ(mode(options), std::make_pair(Names{"PC sampling", "exact", "timeline"}, Names{"activity"}));
  options.every_launch = true;
  EXPECT_EQ(mode(options), std::make_pair(Names{"exact"}, Names{}));  // kernel records would change the counters
  options.timeline = true;                                            // LIMITER_TIMELINE=1: beside them all the same
  EXPECT_EQ(mode(options), std::make_pair(Names{"exact"}, Names{"activity"}));
  options.per_kernel_count = 3;  // budgets
  EXPECT_EQ(mode(options), std::make_pair(Names{"exact"}, Names{"activity"}));
  options.every_launch = false;
  options.timeline = false;
  options.sampling = true;  // budgets, then sampling: the sampler's kernel timestamps use the Activity API
  EXPECT_EQ(mode(options), std::make_pair(Names{"exact", "PM sampling"}, Names{}));
  options = {};
  options.trace = true;  // the timeline alone: no range profiler
  EXPECT_EQ(mode(options), std::make_pair(Names{"activity"}, Names{}));
}

// A background session sees the record the phases made and adds its part.
class Beside final : public detail::Session, public detail::Background {
 public:
  const char* name() const override { return "beside"; }
  detail::SessionCapabilities capabilities() override {
    detail::SessionCapabilities takes;
    takes.background = this;
    return takes;
  }
  void on_phase_begun(std::size_t) override {}
  void begin_region() override {}
  void end_region() override {}
  void on_launch(const detail::LaunchCall&) override {}
  void on_context_destroy(CUcontext) override {}
  void begin_after(RunRecord, bool) override {}
  RunRecord finish() noexcept override { return {}; }
  RunRecord finish_beside(RunRecord run) noexcept override {
    run.timeline.emplace();
    run.timeline->dropped_records = run.launches.size();
    return run;
  }
  std::vector<MissedLaunches> missed() const override { return {}; }
  std::uint64_t launches_seen() const override { return 0; }
  std::string timings() const override { return ""; }
};

class Phase final : public detail::Session {
 public:
  const char* name() const override { return "phase"; }
  void begin_region() override {}
  void end_region() override {}
  void on_launch(const detail::LaunchCall&) override {}
  void on_context_destroy(CUcontext) override {}
  void begin_after(RunRecord, bool) override {}
  RunRecord finish() noexcept override {
    RunRecord run;
    run.launches.resize(2);
    return run;
  }
  std::vector<MissedLaunches> missed() const override { return {}; }
  std::uint64_t launches_seen() const override { return 0; }
  std::string timings() const override { return ""; }
};

TEST(ActivityPhases, TheBackgroundAddsToTheLastPhasesRecord) {
  detail::PhaseList list;
  list.phases.push_back(std::make_unique<Phase>());
  list.background.push_back(std::make_unique<Beside>());
  detail::Phases phases(std::move(list));
  const RunRecord run = phases.finish();
  ASSERT_TRUE(run.timeline);
  EXPECT_EQ(run.timeline->dropped_records, 2u);
  EXPECT_EQ(run.launches.size(), 2u);
}

}  // namespace
}  // namespace limiter
