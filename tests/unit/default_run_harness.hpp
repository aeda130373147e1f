#pragma once
// The default run's phase list on the fake Range Profiler and the fake PC Sampling API, driven
// as the subscriber drives it (default_phases_test.cpp, default_phase_ends_test.cpp).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <thread>

#include "collect/collector_internal.hpp"
#include "collect/nvtx/nvtx_tracker.hpp"
#include "collect/pc_sampling/pc_sampling_session.hpp"
#include "collect/phases.hpp"
#include "fake_pc_sampling_backend.hpp"
#include "fake_range_backend.hpp"

namespace limiter::test {

using detail::LaunchCall;
using detail::Phases;
using detail::Session;

inline const CUcontext kContext = reinterpret_cast<CUcontext>(0x10);
inline constexpr std::uint32_t kLong = 3;

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
    if (options.stall_window_ms == CollectorOptions{}.stall_window_ms) options.stall_window_ms = 5;  // a short window
    options.lock_dir = lock_dir;
    auto pc = std::make_unique<FakePcSamplingBackend>();
    pc_backend = pc.get();
    detail::PhaseList list = detail::sessions_for(
        options, range_backend, nvtx, &sink, [&pc]() -> std::unique_ptr<detail::PcSamplingBackend> { return std::move(pc); });
    auto stand_in = std::make_unique<TimelineStandIn>();
    timeline = stand_in.get();
    list.background[0] = std::move(stand_in);  // the real one calls CUPTI
    phases = std::make_unique<Phases>(std::move(list), [this] { return ++clock_ns; });
    phases->on_handover = [this](const RunRecord& handed) { handovers.push_back(handed); };
  }
  ~DefaultRun() {
    phases.reset();  // its hand-over thread first: it writes handovers
    std::filesystem::remove_all(lock_dir);
  }

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
    batch.pcs.push_back(pc_record(function, 7, 0x40, {{kLong, samples}}));
    pc_backend->at_disable[kContext] = batch;  // read as the window ends
  }
  void past_the_window() { std::this_thread::sleep_for(std::chrono::milliseconds(10)); }

  std::string lock_dir = [] {
    char pattern[] = "/tmp/limiter-default-phases-XXXXXX";
    return std::string(mkdtemp(pattern));
  }();
  FakeRangeBackend range_backend;
  FakePcSamplingBackend* pc_backend = nullptr;
  detail::NvtxTracker nvtx;
  detail::LaunchSink sink;
  TimelineStandIn* timeline = nullptr;
  std::unique_ptr<Phases> phases;
  std::uint64_t clock_ns = 1000;
  std::vector<RunRecord> handovers;
};

inline std::vector<std::string> names(const RunRecord& run) {
  std::vector<std::string> out;
  for (const auto& launch : run.launches) out.push_back(launch.name);
  return out;
}

}  // namespace limiter::test
