// The program verdict (program_verdict.hpp) on hand-made timelines: every verdict, the split
// of the window, the evidence, NVTX ranges, and the reports that show it first.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <sstream>

#include "limiter/program_verdict.hpp"
#include "limiter/reports.hpp"
#include "limiter/html_program.hpp"
#include "synthetic_timelines.hpp"

namespace limiter {
namespace {

using testing::Shape;
using testing::synthetic_timeline;
using testing::timeline_event;

TEST(ProgramVerdict, LaunchBoundThousandsOfTinyKernels) {
  const auto p = judge_program(synthetic_timeline(Shape::launch_bound));
  EXPECT_EQ(p.verdict, ProgramBound::launch);
  EXPECT_NEAR(p.split.busy_share(), 2.0 / 8.5, 0.01);
  EXPECT_GT(p.split.idle_launch_ns, 0.7 * p.split.wall_ns);
  EXPECT_EQ(p.evidence.kernels, 2000u);
  EXPECT_EQ(p.evidence.launch_calls, 2000u);
  EXPECT_NEAR(p.evidence.mean_kernel_ns, 2000, 1);
  EXPECT_NEAR(p.evidence.median_kernel_gap_ns, 6500, 1);
  ASSERT_FALSE(p.fixes.empty());
  EXPECT_EQ(p.fixes.front().bound, ProgramBound::launch);
  EXPECT_NE(p.advice.front().find("CUDA graph"), std::string::npos);
  EXPECT_NE(p.advice.front().find("reduce-overhead"), std::string::npos);
  EXPECT_NE(p.reason.find("launch-bound"), std::string::npos);
}

TEST(ProgramVerdict, GpuBoundBackToBackKernels) {
  const auto p = judge_program(synthetic_timeline(Shape::gpu_bound, 200));
  EXPECT_EQ(p.verdict, ProgramBound::gpu);
  EXPECT_GT(p.split.busy_share(), 0.99);
  EXPECT_TRUE(p.fixes.empty());  // no idle cause reaches 5 % of the window
  EXPECT_NE(p.advice.front().find("kernels' own verdicts"), std::string::npos);
}

TEST(ProgramVerdict, SyncBoundASyncAfterEveryKernel) {
  const auto p = judge_program(synthetic_timeline(Shape::sync_bound, 500));
  EXPECT_EQ(p.verdict, ProgramBound::sync);
  EXPECT_NEAR(p.split.share(p.split.idle_sync_ns), 60.0 / 88.0, 0.01);
  EXPECT_EQ(p.evidence.synchronizations, 500u);
  EXPECT_NE(p.advice.front().find("synchronise less"), std::string::npos);
}

TEST(ProgramVerdict, CopyBoundPageableCopies) {
  const auto p = judge_program(synthetic_timeline(Shape::copy_bound, 300));
  EXPECT_EQ(p.verdict, ProgramBound::copy);
  EXPECT_EQ(p.evidence.pageable_copies, 300u);
  EXPECT_EQ(p.evidence.pageable_copy_bytes, 300ull * (8u << 20));
  EXPECT_GT(p.split.copy_only_ns, 0);                     // the copies themselves, with no kernel running
  EXPECT_GT(p.split.idle_copy_ns, p.split.copy_only_ns);  // the host staging them
  EXPECT_NE(p.advice.front().find("pinned"), std::string::npos);
}

TEST(ProgramVerdict, HostBoundPythonBetweenLaunches) {
  const auto p = judge_program(synthetic_timeline(Shape::host_bound, 1000));
  EXPECT_EQ(p.verdict, ProgramBound::host);
  EXPECT_NEAR(p.split.busy_share(), 30.0 / 85.0, 0.01);
  EXPECT_GT(p.split.idle_host_ns, p.split.idle_launch_ns);
  EXPECT_NE(p.advice.front().find("larger batches"), std::string::npos);
  EXPECT_EQ(p.advice.front().find("CUDA graph"), std::string::npos);  // 30 us kernels: not short
}

// Measured on an H100 (limiter kernels --programs, 2026-11-26): 20,000 launches of a 1-thread
// kernel under --trace, one every 6.3 us; each launch call's record covers ~2.5 us of it and the
// tracer's own work and the loop the rest. That is the host issuing work: launch-bound.
TEST(ProgramVerdict, ShortGapsBetweenLaunchCallsAreLaunching) {
  Timeline t;
  t.start_ns = 0;
  std::uint64_t now = 0;
  for (int i = 0; i < 1000; ++i, now += 6'300) {
    t.events.push_back(timeline_event(ActivityKind::api_call, now, now + 2'500, "cudaLaunchKernel_v7000"));
    t.events.push_back(timeline_event(ActivityKind::kernel, now + 4'000, now + 5'000, "tiny"));
  }
  t.end_ns = now;
  normalize_timeline(t);
  const auto p = judge_program(t);
  EXPECT_EQ(p.verdict, ProgramBound::launch);
  EXPECT_GT(p.split.idle_launch_ns, 0.8 * p.split.wall_ns);
  ProgramThresholds strict;
  strict.issue_gap_ns = 0;  // only time inside the calls: the same program reads host-bound
  EXPECT_EQ(judge_program(t, strict).verdict, ProgramBound::host);
}

// A PyTorch script under --trace (H100, 2026-11-27): the weights copied to the GPU, then 5.6 s of
// imports and optimizer set-up with no CUDA call, then a 0.5 s loop. The pause is set aside and
// said; the loop is judged on its own time.
Timeline loop_after_set_up(std::uint64_t set_up_ns) {
  Timeline t = synthetic_timeline(Shape::launch_bound, 20'000);  // 170 ms of launches from 0
  for (auto& e : t.events) {
    e.start_ns += set_up_ns + 1'000;
    e.end_ns += set_up_ns + 1'000;
  }
  t.events.push_back(timeline_event(ActivityKind::api_call, 0, 1'000, "cudaMemcpyAsync_v3020"));
  t.end_ns += set_up_ns + 1'000;
  normalize_timeline(t);
  return t;
}

TEST(ProgramVerdict, ALongHostStretchIsAPauseSetAsideAndSaid) {
  const auto loop = judge_program(synthetic_timeline(Shape::launch_bound, 20'000));
  const auto p = judge_program(loop_after_set_up(5'600'000'000));
  EXPECT_EQ(p.verdict, ProgramBound::launch);  // not host-bound: the set-up is not the loop's
  ASSERT_EQ(p.pauses.size(), 1u);
  EXPECT_EQ(p.pauses[0].start_ns, 1'000u);
  EXPECT_NEAR(p.paused_ns, 5'600'000'000.0, 2'000'000);  // to the loop's first launch call
  EXPECT_NEAR(p.split.wall_ns, loop.split.wall_ns + 1'000, 1);
  EXPECT_NEAR(p.split.busy_share(), loop.split.busy_share(), 0.001);
  EXPECT_NEAR(p.evidence.launches_per_second, loop.evidence.launches_per_second,
              loop.evidence.launches_per_second * 0.001);
  EXPECT_NE(p.reason.find("window without its pauses"), std::string::npos) << p.reason;
  EXPECT_NE(p.reason.find("Set aside: 1 pause of 5.6 s"), std::string::npos) << p.reason;
  EXPECT_NE(p.advice.back().find("--capture-range cudaProfilerApi"), std::string::npos) << p.advice.back();
  // The JSON report carries them.
  RunSummary summary;
  summary.program = p;
  const auto json = report_json(summary);
  EXPECT_EQ(json["program"]["pauses"]["count"], 1);
  EXPECT_EQ(json["program"]["pauses"]["list"][0]["end_ns"], p.pauses[0].end_ns);
  EXPECT_EQ(json["program"]["time"]["wall_ns"], p.split.wall_ns);
}

TEST(ProgramVerdict, AHostStretchShorterThanAPauseIsJudged) {
  const auto p = judge_program(loop_after_set_up(900'000'000));
  EXPECT_TRUE(p.pauses.empty());
  EXPECT_EQ(p.verdict, ProgramBound::host);
  EXPECT_EQ(p.reason.find("pause"), std::string::npos);
  ProgramThresholds shorter;
  shorter.min_pause_ns = 500'000'000;
  EXPECT_EQ(judge_program(loop_after_set_up(900'000'000), shorter).verdict, ProgramBound::launch);
}

// The reviewer's case: 10 steps of 1.2 s of CPU work (data loading on the main thread) and 100 ms
// of kernels. The stretches repeat: host-bound, judged whole, not "GPU-bound" on what is left.
TEST(ProgramVerdict, PausesThatRepeatAreJudged) {
  Timeline t;
  t.start_ns = 0;
  std::uint64_t now = 0;
  for (int step = 0; step < 10; ++step) {
    now += 1'200'000'000;  // the host's work, no CUDA call
    t.events.push_back(timeline_event(ActivityKind::api_call, now, now + 5'000, "cudaLaunchKernel_v7000"));
    t.events.push_back(timeline_event(ActivityKind::kernel, now + 10'000, now + 100'000'000, "step"));
    t.events.push_back(timeline_event(ActivityKind::api_call, now + 6'000, now + 100'001'000, "cudaDeviceSynchronize"));
    now += 100'001'000;
  }
  t.end_ns = now;
  normalize_timeline(t);
  const auto p = judge_program(t);
  EXPECT_TRUE(p.pauses.empty());
  EXPECT_EQ(p.verdict, ProgramBound::host);
  EXPECT_DOUBLE_EQ(p.split.wall_ns, static_cast<double>(now));
  ProgramThresholds allow_more;  // up to 10 one-off pauses: then they are set aside
  allow_more.max_pauses = 10;
  EXPECT_EQ(judge_program(t, allow_more).pauses.size(), 10u);
  allow_more.max_pauses = 9;  // the bound: one more than allowed, and all are judged
  EXPECT_TRUE(judge_program(t, allow_more).pauses.empty());
}

// Set-up and one compilation: two pauses, the default bound, are set aside.
TEST(ProgramVerdict, TwoPausesAreSetAside) {
  Timeline t = loop_after_set_up(2'000'000'000);
  const std::uint64_t middle = t.end_ns;  // the loop again, 3.5 s after the first (its events start 2 s in)
  const std::size_t events = t.events.size();
  for (std::size_t i = 0; i < events; ++i) {
    auto e = t.events[i];
    if (e.kind == ActivityKind::api_call && e.start_ns == 0) continue;  // the weights' copy, once
    e.start_ns += middle + 1'500'000'000;
    e.end_ns += middle + 1'500'000'000;
    t.events.push_back(e);
  }
  t.end_ns = 2 * middle + 1'500'000'000;
  normalize_timeline(t);
  const auto p = judge_program(t);
  ASSERT_EQ(p.pauses.size(), 2u);
  EXPECT_EQ(p.verdict, ProgramBound::launch);
  EXPECT_NE(p.reason.find("2 pauses of 5.5 s in all, the longest 3.5 s"), std::string::npos) << p.reason;
}

// Too little left to judge: one launch, then 3 s of host work. Judged whole (host-bound), not
// launch-bound on a 6 us window.
TEST(ProgramVerdict, APauseIsNotSetAsideWhenLittleIsLeft) {
  Timeline t;
  t.start_ns = 0;
  t.end_ns = 3'000'006'000;
  t.events = {timeline_event(ActivityKind::api_call, 0, 5'000, "cudaLaunchKernel_v7000"),
              timeline_event(ActivityKind::kernel, 5'000, 6'000, "k"),
              timeline_event(ActivityKind::api_call, 3'000'005'000, 3'000'006'000, "cudaDeviceSynchronize")};
  normalize_timeline(t);
  const auto p = judge_program(t);
  EXPECT_TRUE(p.pauses.empty());
  EXPECT_EQ(p.verdict, ProgramBound::host);
  EXPECT_GT(p.split.wall_ns, 3e9);
}

TEST(ProgramVerdict, NoPauseWithoutHostActivityOrInsideACall) {
  Timeline t;  // kernels only: what the host did is unknown, so nothing is called a pause
  t.start_ns = 0;
  t.end_ns = 3'000'000'000;
  t.events = {timeline_event(ActivityKind::kernel, 0, 100, "k"),
              timeline_event(ActivityKind::kernel, 2'999'999'900, 3'000'000'000, "k")};
  EXPECT_TRUE(judge_program(t).pauses.empty());
  // A 2 s synchronisation is the host waiting on CUDA, not a pause.
  t.events.push_back(timeline_event(ActivityKind::api_call, 100, 2'000'000'100, "cudaDeviceSynchronize"));
  normalize_timeline(t);
  const auto p = judge_program(t);
  ASSERT_EQ(p.pauses.size(), 0u);
  EXPECT_EQ(p.verdict, ProgramBound::sync);
}

TEST(ProgramVerdict, ADriverCallInsideARuntimeCallIsOneCall) {
  Timeline t;
  t.start_ns = 0;
  t.end_ns = 100'000;
  t.events = {timeline_event(ActivityKind::api_call, 1'000, 9'000, "cudaLaunchKernel_v7000"),
              timeline_event(ActivityKind::api_call, 2'000, 8'000, "cuLaunchKernel"),
              timeline_event(ActivityKind::api_call, 20'000, 24'000, "cuLaunchKernel"),  // the driver, called directly
              timeline_event(ActivityKind::kernel, 30'000, 90'000, "k")};
  normalize_timeline(t);
  const auto p = judge_program(t);
  EXPECT_EQ(p.evidence.launch_calls, 2u);
  EXPECT_EQ(p.evidence.api_calls, 2u);
  EXPECT_NEAR(p.evidence.mean_launch_call_ns, 6'000, 1);
}

TEST(ProgramVerdict, NoHostActivityLeavesIdleTimeUnattributed) {
  Timeline t;
  t.start_ns = 0;
  t.end_ns = 1000;
  t.events = {timeline_event(ActivityKind::kernel, 0, 100, "k"), timeline_event(ActivityKind::kernel, 900, 1000, "k")};
  const auto p = judge_program(t);
  EXPECT_EQ(p.verdict, ProgramBound::unknown);
  EXPECT_DOUBLE_EQ(p.split.idle_unattributed_ns, 800);
  EXPECT_DOUBLE_EQ(p.split.idle_host_ns, 0);
}

TEST(ProgramVerdict, BusyIsTheUnionOverStreamsAndClippedToTheWindow) {
  Timeline t;
  t.start_ns = 100;
  t.end_ns = 1100;
  auto a = timeline_event(ActivityKind::kernel, 0, 600, "a");  // starts before the window
  auto b = timeline_event(ActivityKind::kernel, 500, 800, "b");
  b.stream_id = 8;                                                     // overlaps a on another stream: counted once
  auto copy = timeline_event(ActivityKind::memcpy, 700, 900, "DtoH");  // 100 ns of it with no kernel
  auto call = timeline_event(ActivityKind::api_call, 950, 1000, "cuCtxSynchronize");
  t.events = {a, b, copy, call};
  const auto p = judge_program(t);
  EXPECT_DOUBLE_EQ(p.split.wall_ns, 1000);
  EXPECT_DOUBLE_EQ(p.split.kernel_ns, 700);  // 100..800
  EXPECT_DOUBLE_EQ(p.split.copy_only_ns, 100);
  EXPECT_DOUBLE_EQ(p.split.gpu_busy_ns, 800);
  EXPECT_DOUBLE_EQ(p.split.idle_sync_ns, 50);
  EXPECT_DOUBLE_EQ(p.split.idle_host_ns, 150);
  EXPECT_DOUBLE_EQ(p.split.idle_ns, 200);
  EXPECT_EQ(p.verdict, ProgramBound::gpu);  // kernels 70 %: the majority, more than any idle cause
}

TEST(ProgramVerdict, ASyncWinsOverALaunchCallOnAnotherThread) {
  Timeline t;
  t.start_ns = 0;
  t.end_ns = 100;
  auto launch = timeline_event(ActivityKind::api_call, 0, 100, "cuLaunchKernel");
  auto sync = timeline_event(ActivityKind::synchronization, 40, 60, "event");
  sync.thread_id = 101;
  t.events = {launch, sync};
  const auto p = judge_program(t);
  EXPECT_DOUBLE_EQ(p.split.idle_sync_ns, 20);
  EXPECT_DOUBLE_EQ(p.split.idle_launch_ns, 80);
}

TEST(ProgramVerdict, PerNvtxRangeEachRangeItsOwnVerdict) {
  Timeline t = synthetic_timeline(Shape::launch_bound, 100);  // 850 us of launch-bound work first
  const std::uint64_t first_end = t.end_ns;
  auto range = timeline_event(ActivityKind::nvtx_range, t.start_ns, first_end, "step/eager/");
  t.events.push_back(range);
  auto busy = timeline_event(ActivityKind::kernel, first_end, first_end + 5'000'000, "big");
  t.events.push_back(busy);
  t.events.push_back(timeline_event(ActivityKind::nvtx_range, first_end, first_end + 5'000'000, "step/graph/"));
  normalize_timeline(t);
  const auto p = judge_program(t);
  ASSERT_EQ(p.ranges.size(), 2u);
  EXPECT_EQ(p.ranges[0].range, "step/graph/");  // most wall time first
  EXPECT_EQ(p.ranges[0].verdict, ProgramBound::gpu);
  EXPECT_EQ(p.ranges[1].range, "step/eager/");
  EXPECT_EQ(p.ranges[1].verdict, ProgramBound::launch);
  EXPECT_EQ(p.ranges[1].instances, 1u);
}

TEST(ProgramVerdict, DroppedRecordsAreSaid) {
  Timeline t = synthetic_timeline(Shape::gpu_bound, 10);
  t.dropped_records = 12;
  EXPECT_NE(judge_program(t).reason.find("12 timeline records were dropped"), std::string::npos);
}

TEST(ProgramVerdict, ThresholdsAreTheDocumentedOnes) {
  const ProgramThresholds t;
  EXPECT_DOUBLE_EQ(t.gpu_bound_share, 0.80);
  EXPECT_DOUBLE_EQ(t.gpu_majority_share, 0.50);
  EXPECT_DOUBLE_EQ(t.fix_min_share, 0.05);
  EXPECT_DOUBLE_EQ(t.short_kernel_ns, 20'000);
  EXPECT_DOUBLE_EQ(t.issue_gap_ns, 20'000);
  TimeSplit s;
  s.wall_ns = 100;
  s.kernel_ns = 55;
  s.idle_host_ns = 45;
  EXPECT_EQ(program_bound_of(s, true), ProgramBound::gpu);  // majority and more than any cause
  s.kernel_ns = 45;
  s.idle_host_ns = 55;
  EXPECT_EQ(program_bound_of(s, true), ProgramBound::host);
  s.kernel_ns = 55;
  s.idle_host_ns = 20;
  s.idle_launch_ns = 25;
  EXPECT_EQ(program_bound_of(s, true), ProgramBound::gpu);
}

// The reports: the program verdict comes first, and "what to fix first" ranks it with the kernels.
RunSummary summary_with(const Timeline& timeline) {
  RunSummary summary;
  summary.program = judge_program(timeline);
  return summary;
}

TEST(ProgramVerdictReports, TextShowsTheVerdictBeforeTheKernels) {
  RunSummary summary = summary_with(synthetic_timeline(Shape::launch_bound));
  std::ostringstream text;
  write_text_report(summary, text);
  const auto at = text.str().find("program: launch-bound: the GPU is busy");
  ASSERT_NE(at, std::string::npos) << text.str();
  EXPECT_LT(at, text.str().find("time by verdict"));
}

TEST(ProgramVerdictReports, JsonHasTheProgramFirstAndItsFixes) {
  RunSummary summary = summary_with(synthetic_timeline(Shape::sync_bound, 100));
  const auto json = report_json(summary);
  ASSERT_TRUE(json.contains("program"));
  EXPECT_EQ(json["program"]["verdict"], "sync");
  EXPECT_GT(json["program"]["time"]["idle_sync_ns"].get<double>(), 0);
  std::vector<std::string> keys;
  for (const auto& [key, value] : json.items()) keys.push_back(key);
  EXPECT_EQ(keys[2], "program");  // after schema_version and kind
  const auto& fix_first = json["rollup"]["fix_first"];
  ASSERT_FALSE(fix_first.empty());
  EXPECT_EQ(fix_first[0]["kind"], "program");
  EXPECT_EQ(fix_first[0]["verdict"], "sync");
}

TEST(ProgramVerdictReports, WithoutATimelineNoProgramSection) {
  RunSummary summary;
  std::ostringstream text, md;
  write_text_report(summary, text);
  write_markdown_report(summary, md);
  EXPECT_EQ(text.str().find("program:"), std::string::npos);
  EXPECT_EQ(md.str().find("Program:"), std::string::npos);
  EXPECT_FALSE(report_json(summary).contains("program"));
}

TEST(ProgramVerdictReports, HtmlFragmentForTheReportsToPlaceFirst) {
  Timeline t = synthetic_timeline(Shape::host_bound, 50);
  t.events.push_back(timeline_event(ActivityKind::nvtx_range, t.start_ns, t.end_ns, "step<1>/"));
  normalize_timeline(t);
  const std::string html = render::program_html_section(summary_with(t));
  EXPECT_EQ(html.rfind("<section class=\"program\" id=\"program\">", 0), 0u);
  EXPECT_NE(html.find("<h2>Program: host-bound</h2>"), std::string::npos);
  EXPECT_NE(html.find("title=\"idle: host outside CUDA: "), std::string::npos);  // the bar's segments
  EXPECT_NE(html.find("<code>step&lt;1&gt;/</code>"), std::string::npos);        // names escaped
  EXPECT_NE(html.find("<strong>program</strong> — host-bound"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.substr(html.size() - 11), "</section>\n");
  EXPECT_EQ(render::program_html_section(RunSummary{}), "");
}

// 200,000 events judged, the time printed (speed is the benchmarks' to check, not a unit test's:
// under ASan on a loaded CI machine any bound is noise).
TEST(ProgramVerdict, TwoHundredThousandEventsJudged) {
  const Timeline t = synthetic_timeline(Shape::sync_bound, 50'000);  // 4 events a step
  const auto start = std::chrono::steady_clock::now();
  const auto p = judge_program(t);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(p.verdict, ProgramBound::sync);
  std::cout << t.events.size() << " events judged in " << seconds << " s\n";
}

}  // namespace
}  // namespace limiter
