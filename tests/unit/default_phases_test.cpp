// The default run as a phase list (collect/phases.hpp), built by sessions_for on the fake Range
// Profiler and the fake PC Sampling API and driven as the subscriber drives it: the sampling
// window, then budgets, then the timeline; a kernel first seen in each phase; a run that ends in each
// phase; the record of a finished phase handed over (and to disk) before the next one runs.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <set>
#include <thread>

#include "collect/collector_internal.hpp"
#include "collect/nvtx_tracker.hpp"
#include "collect/pc_sampling_session.hpp"
#include "collect/phases.hpp"
#include "fake_pc_sampling_backend.hpp"
#include "fake_range_backend.hpp"

namespace limiter {
namespace {

using detail::LaunchCall;
using detail::Phases;
using detail::Session;

const CUcontext kContext = reinterpret_cast<CUcontext>(0x10);
constexpr std::uint32_t kLong = 3;

// Stands in for the activity session (real CUPTI): what it is told, and when.
class TimelineStandIn final : public Session {
 public:
  const char* name() const override { return "activity"; }
  detail::SessionCallbacks callbacks() const override { return {}; }
  void begin_region() override {}
  void end_region() override {}
  void on_launch(const LaunchCall& call) override {
    if (begun) kernels.push_back(call.symbol_name);
  }
  void on_context_destroy(CUcontext) override {}
  void on_phase_begun(std::size_t index) override { begun = index == 2; }
  void begin_after(RunRecord, bool) override {}
  RunRecord finish() noexcept override { return {}; }
  RunRecord finish_beside(RunRecord phases) noexcept override {
    if (!begun) return phases;  // never enabled
    Timeline timeline;
    for (const auto& kernel : kernels) {
      TimelineEvent event;
      event.start_ns = 1;
      event.end_ns = 2;
      event.name = kernel;
      timeline.events.push_back(event);
    }
    phases.timeline = timeline;
    return phases;
  }
  std::vector<MissedLaunches> missed() const override { return {}; }
  std::uint64_t launches_seen() const override { return kernels.size(); }
  std::string timings() const override { return ""; }

  bool begun = false;
  std::vector<std::string> kernels;  // timed: launched once it began
};

struct DefaultRun {
  explicit DefaultRun(CollectorOptions options = {}) {
    options.always_active = true;
    options.stall_window_ms = 5;
    options.lock_dir = lock_dir;
    auto pc = std::make_unique<test::FakePcSamplingBackend>();
    pc_backend = pc.get();
    detail::PhaseList list = detail::sessions_for(
        options, range_backend, nvtx, &sink, [&pc]() -> std::unique_ptr<detail::PcSamplingBackend> { return std::move(pc); });
    auto stand_in = std::make_unique<TimelineStandIn>();
    timeline = stand_in.get();
    list.background[0] = std::move(stand_in);  // the real one calls CUPTI
    phases = std::make_unique<Phases>(std::move(list), [this] { return ++clock_ns; });
    phases->on_handover = [this](const RunRecord& handed) { handovers.push_back(handed); };
  }
  ~DefaultRun() { std::filesystem::remove_all(lock_dir); }

  // One launch as the subscriber hands it on: the phase switch, ENTER, the kernel, EXIT.
  void launch(const char* kernel) {
    LaunchCall call;
    call.context = kContext;
    call.function = reinterpret_cast<CUfunction>(std::hash<std::string>{}(kernel) | 1);
    call.symbol_name = kernel;
    call.grid = {1, 1, 1};
    call.block = {128, 1, 1};
    if (!phases->last() && phases->current().phase_over()) phases->advance();
    phases->note_launch();
    phases->current().on_launch(call);
    for (std::size_t i = 0; i < phases->background_size(); ++i) phases->background(i).on_launch(call);
    range_backend.run_kernel(kContext);
    for (std::size_t i = 0; i < phases->size(); ++i) phases->at(i).on_launch_exit(call);
  }
  // The sampling window: its first launch starts sampling; after the window the next launch
  // begins the counters phase (and is its first).
  void through_samples(const char* kernel, std::uint64_t samples = 0) {
    launch(kernel);
    ASSERT_EQ(phases->index(), 0u);
    if (samples) queue_samples(kernel, samples);
    past_the_window();
    launch(kernel);
    ASSERT_EQ(phases->index(), 1u);
  }
  // Launches until the counters phase is over (the budgets spent: a run of launches with nothing
  // selected), the timeline phase's first launch included.
  void through_counters(const char* kernel) {
    for (int i = 0; i < 80 && phases->index() == 1; ++i) launch(kernel);
    ASSERT_EQ(phases->index(), 2u);
  }
  void queue_samples(const std::string& function, std::uint64_t samples) {
    detail::PcBatch batch;
    batch.pcs.push_back(test::pc_record(function, 7, 0x40, {{kLong, samples}}));
    pc_backend->at_disable[kContext] = batch;  // read as the window ends
  }
  void past_the_window() { std::this_thread::sleep_for(std::chrono::milliseconds(10)); }

  std::string lock_dir = [] {
    char pattern[] = "/tmp/limiter-default-phases-XXXXXX";
    return std::string(mkdtemp(pattern));
  }();
  test::FakeRangeBackend range_backend;
  test::FakePcSamplingBackend* pc_backend = nullptr;
  detail::NvtxTracker nvtx;
  detail::LaunchSink sink;
  TimelineStandIn* timeline = nullptr;
  std::unique_ptr<Phases> phases;
  std::uint64_t clock_ns = 1000;
  std::vector<RunRecord> handovers;
};

std::vector<std::string> names(const RunRecord& run) {
  std::vector<std::string> out;
  for (const auto& launch : run.launches) out.push_back(launch.name);
  return out;
}

TEST(DefaultPhases, TheSamplingWindowThenBudgetsThenTheTimeline) {
  DefaultRun run;
  ASSERT_EQ(run.phases->size(), 3u);
  EXPECT_STREQ(run.phases->at(0).name(), "PC sampling");
  EXPECT_STREQ(run.phases->at(1).name(), "exact");
  EXPECT_STREQ(run.phases->at(2).name(), "timeline");
  run.through_samples("gemm", 40);
  EXPECT_EQ(run.pc_backend->starts, 1);
  EXPECT_EQ(run.pc_backend->disabled.size(), 1u);  // sampling off before the range profiler starts
  EXPECT_FALSE(run.timeline->begun);              // no kernel records beside the counters
  run.through_counters("gemm");
  EXPECT_TRUE(run.timeline->begun);
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
  run.launch("in_samples");                    // sampled; its first launches come later: counters too
  run.queue_samples("in_samples", 12);
  run.past_the_window();
  run.launch("in_counters");                   // the counters phase's first launch
  for (int i = 0; i < 80 && run.phases->index() == 1; ++i) run.launch("in_samples");
  ASSERT_EQ(run.phases->index(), 2u);
  run.launch("in_timeline");                   // no counters, no samples, timed
  const RunRecord record = run.phases->finish();
  std::set<std::string> profiled;
  for (const auto& name : names(record)) profiled.insert(name);
  EXPECT_EQ(profiled, (std::set<std::string>{"in_counters", "in_samples"}));
  ASSERT_TRUE(record.stalls.has_value());
  ASSERT_EQ(record.stalls->kernels.size(), 1u);
  EXPECT_EQ(record.stalls->kernels[0].name, "in_samples");
  ASSERT_TRUE(record.timeline.has_value());
  std::vector<std::string> timed;
  for (const auto& event : record.timeline->events) timed.push_back(event.name);
  EXPECT_EQ(timed.back(), "in_timeline");  // the timeline phase's launches
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
  run.phases->current().flush_before_exit(std::chrono::milliseconds(100));  // as the exit handler does
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
