// The app's NVTX ranges on the activity timeline without a GPU: CUPTI's NVTX callbacks made by
// hand become plain events (NvtxTracker::on_call), the ranges nest per thread into paths, start/
// end ranges cross threads, the bounds count what they drop, ranges open at the end close at the
// window's end (collect/nvtx/nvtx_timeline.hpp), the trace mode asks for them, and a record holding
// them reads back with the program verdict per range (`limiter report`).
#include <gtest/gtest.h>

#include <generated_nvtx_meta.h>

#include <filesystem>
#include <sstream>
#include <unistd.h>

#include "collect/activity/activity_session.hpp"
#include "collect/nvtx/nvtx_timeline.hpp"
#include "collect/nvtx/nvtx_tracker.hpp"
#include "collect/modes.hpp"
#include "collect/phases.hpp"
#include "fake_backends.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"

namespace limiter {
namespace {

using detail::NvtxEvent;
using detail::NvtxTimeline;
using Kind = NvtxEvent::Kind;

NvtxEvent event(Kind kind, std::uint64_t time_ns, std::uint32_t thread, std::string name = "", std::uint64_t id = 0,
                std::string domain = "") {
  NvtxEvent e;
  e.kind = kind;
  e.time_ns = time_ns;
  e.thread_id = thread;
  e.name = std::move(name);
  e.id = id;
  e.domain = std::move(domain);
  return e;
}

struct Range {
  std::string name;
  std::uint64_t start_ns, end_ns;
  std::uint32_t thread;
  friend bool operator==(const Range&, const Range&) = default;
};

std::vector<Range> ranges_of(const std::vector<TimelineEvent>& events) {
  std::vector<Range> out;
  for (const auto& e : events) {
    EXPECT_EQ(e.kind, ActivityKind::nvtx_range);
    out.push_back({e.name, e.start_ns, e.end_ns, e.thread_id.value_or(0)});
  }
  return out;
}

std::ostream& operator<<(std::ostream& out, const Range& r) {
  return out << r.name << " [" << r.start_ns << ", " << r.end_ns << "] thread " << r.thread;
}

TEST(NvtxTimeline, NestedPushPopOnOneThreadArePaths) {
  NvtxTimeline nvtx;
  nvtx.open(1);
  nvtx.on_event(event(Kind::push, 10, 7, "train_step"));
  nvtx.on_event(event(Kind::push, 11, 7, "forward"));
  nvtx.on_event(event(Kind::pop, 20, 7));
  nvtx.on_event(event(Kind::push, 21, 7, "backward"));
  nvtx.on_event(event(Kind::pop, 30, 7));
  nvtx.on_event(event(Kind::pop, 31, 7));
  EXPECT_EQ(ranges_of(nvtx.take_closed()),
            (std::vector<Range>{
                {"train_step/forward/", 11, 20, 7}, {"train_step/backward/", 21, 30, 7}, {"train_step/", 10, 31, 7}}));
  EXPECT_TRUE(nvtx.take_closed().empty());  // taken once
  EXPECT_EQ(nvtx.kept(), 3u);
  EXPECT_EQ(nvtx.unmatched(), 0u);
}

TEST(NvtxTimeline, TwoThreadsInterleavedKeepTheirOwnStacks) {
  NvtxTimeline nvtx;
  nvtx.open(1);
  nvtx.on_event(event(Kind::push, 10, 1, "a"));
  nvtx.on_event(event(Kind::push, 11, 2, "x"));
  nvtx.on_event(event(Kind::push, 12, 1, "b"));
  nvtx.on_event(event(Kind::push, 13, 2, "y"));
  nvtx.on_event(event(Kind::pop, 14, 1));  // b, not y
  nvtx.on_event(event(Kind::pop, 15, 2));  // y
  nvtx.on_event(event(Kind::pop, 16, 2));
  nvtx.on_event(event(Kind::pop, 17, 1));
  EXPECT_EQ(ranges_of(nvtx.take_closed()),
            (std::vector<Range>{{"a/b/", 12, 14, 1}, {"x/y/", 13, 15, 2}, {"x/", 11, 16, 2}, {"a/", 10, 17, 1}}));
}

TEST(NvtxTimeline, ProcessScopeIsOneStackForAllThreads) {
  NvtxTimeline nvtx(/*process_scope=*/true);
  nvtx.open(1);
  nvtx.on_event(event(Kind::push, 10, 1, "step"));
  nvtx.on_event(event(Kind::push, 11, 1, "backward"));
  nvtx.on_event(event(Kind::pop, 20, 2));  // popped on another thread: still step's backward
  nvtx.on_event(event(Kind::pop, 21, 1));
  EXPECT_EQ(ranges_of(nvtx.take_closed()), (std::vector<Range>{{"step/backward/", 11, 20, 1}, {"step/", 10, 21, 1}}));
}

TEST(NvtxTimeline, DomainsHaveTheirOwnStacksAndNameThePath) {
  NvtxTimeline nvtx;
  nvtx.open(1);
  nvtx.on_event(event(Kind::push, 10, 1, "outer"));
  nvtx.on_event(event(Kind::push, 11, 1, "layer", 0, "D"));
  nvtx.on_event(event(Kind::push, 12, 1, "gemm", 0, "D"));
  nvtx.on_event(event(Kind::pop, 13, 1, "", 0, "D"));
  nvtx.on_event(event(Kind::pop, 14, 1, "", 0, "D"));
  nvtx.on_event(event(Kind::pop, 15, 1));
  EXPECT_EQ(ranges_of(nvtx.take_closed()),
            (std::vector<Range>{{"D@layer/gemm/", 12, 13, 1}, {"D@layer/", 11, 14, 1}, {"outer/", 10, 15, 1}}));
}

TEST(NvtxTimeline, StartEndRangesCrossThreadsAndOverlap) {
  NvtxTimeline nvtx;
  nvtx.open(1);
  nvtx.on_event(event(Kind::start, 10, 1, "epoch", 5));
  nvtx.on_event(event(Kind::start, 12, 2, "load", 6, "data"));
  nvtx.on_event(event(Kind::end, 20, 3, "", 5));  // ended on a third thread: the starter's
  nvtx.on_event(event(Kind::end, 25, 1, "", 6));
  nvtx.on_event(event(Kind::end, 26, 1, "", 99));  // no such range
  nvtx.on_event(event(Kind::pop, 27, 1));          // nothing pushed
  EXPECT_EQ(ranges_of(nvtx.take_closed()), (std::vector<Range>{{"epoch", 10, 20, 1}, {"data@load", 12, 25, 2}}));
  EXPECT_EQ(nvtx.unmatched(), 2u);
}

TEST(NvtxTimeline, RangesOpenAtTheEndCloseAtTheWindowsEndAndAreCounted) {
  NvtxTimeline nvtx;
  nvtx.open(1);
  nvtx.on_event(event(Kind::push, 10, 1, "outer"));
  nvtx.on_event(event(Kind::push, 11, 1, "inner"));
  nvtx.on_event(event(Kind::push, 12, 2, "done"));
  nvtx.on_event(event(Kind::pop, 13, 2));
  nvtx.on_event(event(Kind::start, 14, 1, "epoch", 3));
  nvtx.on_event(event(Kind::push, 150, 2, "late"));  // began after the window's end: zero length
  EXPECT_EQ(ranges_of(nvtx.close_open(100)), (std::vector<Range>{{"done/", 12, 13, 2},
                                                                 {"outer/inner/", 11, 100, 1},
                                                                 {"outer/", 10, 100, 1},
                                                                 {"late/", 150, 150, 2},
                                                                 {"epoch", 14, 100, 1}}));
  EXPECT_EQ(nvtx.unclosed(), 4u);
  nvtx.on_event(event(Kind::pop, 160, 2));  // after the end: ignored
  EXPECT_TRUE(nvtx.close_open(200).empty());
  EXPECT_EQ(nvtx.unclosed(), 4u);
}

TEST(NvtxTimeline, RangesBeforeTheWindowAreFollowedNotKept) {
  NvtxTimeline nvtx;
  nvtx.on_event(event(Kind::push, 10, 1, "setup"));
  nvtx.on_event(event(Kind::pop, 20, 1));  // closed before the window opened
  nvtx.on_event(event(Kind::push, 30, 1, "loop"));
  nvtx.open(50);
  nvtx.on_event(event(Kind::push, 60, 1, "step"));
  nvtx.on_event(event(Kind::pop, 70, 1));
  nvtx.on_event(event(Kind::pop, 80, 1));
  EXPECT_EQ(ranges_of(nvtx.take_closed()), (std::vector<Range>{{"loop/step/", 60, 70, 1}, {"loop/", 50, 80, 1}}));
}

TEST(NvtxTimeline, BoundedRangesAreCountedNeverSilent) {
  NvtxTimeline nvtx(false, /*max_ranges=*/3, /*max_open=*/2);
  nvtx.open(1);
  for (std::uint64_t i = 0; i < 5; ++i) {
    nvtx.on_event(event(Kind::push, 10 + 2 * i, 1, "r"));
    nvtx.on_event(event(Kind::pop, 11 + 2 * i, 1));
  }
  EXPECT_EQ(nvtx.take_closed().size(), 3u);
  EXPECT_EQ(nvtx.kept(), 3u);
  EXPECT_EQ(nvtx.dropped(), 2u);

  NvtxTimeline deep(false, 100, /*max_open=*/2);
  deep.open(1);
  for (std::uint64_t i = 0; i < 4; ++i) deep.on_event(event(Kind::push, 10 + i, 1, "d" + std::to_string(i)));
  for (std::uint64_t i = 0; i < 4; ++i) deep.on_event(event(Kind::pop, 20 + i, 1));
  // The two pushed past the depth bound are dropped; their pops do not close the ones kept.
  EXPECT_EQ(ranges_of(deep.take_closed()), (std::vector<Range>{{"d0/d1/", 11, 22, 1}, {"d0/", 10, 23, 1}}));
  EXPECT_EQ(deep.dropped(), 2u);
  for (std::uint64_t id = 1; id <= 3; ++id) deep.on_event(event(Kind::start, 30, 1, "s", id));
  EXPECT_EQ(deep.dropped(), 3u);  // two start/end ranges open at once at most
  EXPECT_EQ(deep.close_open(40).size(), 2u);
}

// CUPTI's NVTX callbacks by hand, as range_session_harness.hpp makes them.
CUpti_NvtxData nvtx_data(const void* params, const void* returned = nullptr) {
  CUpti_NvtxData data{};
  data.functionParams = params;
  data.functionReturnValue = const_cast<void*>(returned);
  return data;
}

TEST(NvtxTracker, EachRangeCallIsAPlainEventWithItsNameAndDomain) {
  detail::NvtxTracker tracker;
  nvtxRangePushA_params push{"step"};
  auto e = tracker.on_call(CUPTI_CBID_NVTX_nvtxRangePushA, nvtx_data(&push));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, Kind::push);
  EXPECT_EQ(e->name, "step");
  EXPECT_EQ(e->domain, "");

  // A domain and a registered string, then a domain push naming it.
  nvtxDomainHandle_t domain = reinterpret_cast<nvtxDomainHandle_t>(0x1234);
  nvtxDomainCreateA_params create{"mylib"};
  EXPECT_FALSE(tracker.on_call(CUPTI_CBID_NVTX_nvtxDomainCreateA, nvtx_data(&create, &domain)));
  nvtxStringHandle_t string = reinterpret_cast<nvtxStringHandle_t>(0x5678);
  nvtxDomainRegisterStringA_params reg{domain, "gemm"};
  EXPECT_FALSE(tracker.on_call(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, nvtx_data(&reg, &string)));
  nvtxEventAttributes_t attributes{};
  attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attributes.message.registered = string;
  nvtxDomainRangePushEx_params domain_push{};
  domain_push.domain = domain;
  domain_push.core.eventAttrib = &attributes;
  e = tracker.on_call(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, nvtx_data(&domain_push));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, Kind::push);
  EXPECT_EQ(e->name, "gemm");
  EXPECT_EQ(e->domain, "mylib");
  nvtxDomainRangePop_params domain_pop{domain};
  e = tracker.on_call(CUPTI_CBID_NVTX_nvtxDomainRangePop, nvtx_data(&domain_pop));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, Kind::pop);
  EXPECT_EQ(e->domain, "mylib");

  // Start/end: the id NVTX gives back names the range to end.
  const wchar_t* wide = L"epoch";
  nvtxRangeStartW_params start{wide};
  nvtxRangeId_t id = 42;
  e = tracker.on_call(CUPTI_CBID_NVTX_nvtxRangeStartW, nvtx_data(&start, &id));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, Kind::start);
  EXPECT_EQ(e->name, "epoch");
  EXPECT_EQ(e->id, 42u);
  nvtxRangeEnd_params end{42};
  e = tracker.on_call(CUPTI_CBID_NVTX_nvtxRangeEnd, nvtx_data(&end));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, Kind::end);
  EXPECT_EQ(e->id, 42u);
  EXPECT_FALSE(tracker.on_call(CUPTI_CBID_NVTX_nvtxRangeStartA, nvtx_data(&start)));  // no id back: not kept
  e = tracker.on_call(CUPTI_CBID_NVTX_nvtxRangePop, nvtx_data(nullptr));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, Kind::pop);
  EXPECT_TRUE(tracker.current().empty());  // the tracker's own stacks follow the same calls
}

TEST(NvtxActivity, TheTimelineAsksForNvtxWhereTheOptionsHaveIt) {
  CollectorOptions options;
  options.trace = true;
  options.nvtx = true;  // limiter run --trace (run_options.cpp: on unless --no-nvtx)
  detail::NvtxTracker tracker;
  test::FakeBackends backends;
  detail::Phases phases(detail::sessions_for(options, backends, tracker, nullptr));
  EXPECT_TRUE(phases.callbacks().nvtx);
  options.nvtx = false;  // --no-nvtx
  detail::Phases none(detail::sessions_for(options, backends, tracker, nullptr));
  EXPECT_FALSE(none.callbacks().nvtx);
}

// The collector's shape end to end offline: kernels and launch calls, and the ranges from
// NvtxTimeline, in a record written and read back as `limiter report` reads it.
TEST(NvtxActivity, ARecordWithTheCollectorsRangesHasAProgramVerdictPerRange) {
  NvtxTimeline nvtx;
  nvtx.open(1'000);
  RunRecord run;
  run.source = "cupti";
  run.timeline.emplace();
  auto& events = run.timeline->events;
  std::uint64_t t = 1'000;
  for (int step = 0; step < 3; ++step) {
    nvtx.on_event(event(Kind::push, t, 9, "train_step"));
    nvtx.on_event(event(Kind::push, t, 9, "forward"));  // busy: one long kernel
    TimelineEvent kernel;
    kernel.kind = ActivityKind::kernel;
    kernel.start_ns = t + 1'000;
    kernel.end_ns = t + 1'000'000;
    kernel.name = "gemm";
    events.push_back(kernel);
    t += 1'000'000;
    nvtx.on_event(event(Kind::pop, t, 9));
    nvtx.on_event(event(Kind::push, t, 9, "optimizer"));  // many tiny kernels, launch-bound
    for (int i = 0; i < 100; ++i) {
      TimelineEvent call;
      call.kind = ActivityKind::api_call;
      call.name = "cuLaunchKernel";
      call.thread_id = 9;
      call.start_ns = t;
      call.end_ns = t + 9'000;
      events.push_back(call);
      TimelineEvent tiny = kernel;
      tiny.name = "adam";
      tiny.start_ns = t + 8'000;
      tiny.end_ns = t + 9'000;
      events.push_back(tiny);
      t += 10'000;
    }
    nvtx.on_event(event(Kind::pop, t, 9));
    nvtx.on_event(event(Kind::pop, t, 9));
  }
  nvtx.on_event(event(Kind::push, t, 9, "unclosed"));
  for (auto& range : nvtx.close_open(t)) events.push_back(std::move(range));
  run.timeline->nvtx_ranges_unclosed = nvtx.unclosed();
  normalize_timeline(*run.timeline);

  const auto path = std::filesystem::temp_directory_path() / ("limiter_nvtx_" + std::to_string(getpid()) + ".json");
  write_run_file(run, path.string());
  const RunRecord back = read_run_file(path.string());
  ASSERT_TRUE(back.timeline);
  EXPECT_EQ(back.timeline->nvtx_ranges_unclosed, 1u);
  const RunSummary summary = summarize_run_file(path.string(), {}, {});
  std::filesystem::remove(path);
  ASSERT_TRUE(summary.program);
  std::map<std::string, std::pair<ProgramBound, std::size_t>> verdicts;
  for (const auto& r : summary.program->ranges) verdicts[r.range] = {r.verdict, r.instances};
  EXPECT_EQ(verdicts["train_step/forward/"], std::make_pair(ProgramBound::gpu, std::size_t{3}));
  EXPECT_EQ(verdicts["train_step/optimizer/"], std::make_pair(ProgramBound::launch, std::size_t{3}));
  EXPECT_EQ(verdicts["train_step/"].second, 3u);
  std::ostringstream text;
  write_text_report(summary, text);
  EXPECT_NE(text.str().find("by NVTX range"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("train_step/optimizer/"), std::string::npos);
}

}  // namespace
}  // namespace limiter
