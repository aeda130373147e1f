#pragma once
// The default run's phase list, built by sessions_for on fake backends (fake_backends.hpp) and
// driven as the subscriber drives it, through Phases' events (default_phases_test.cpp,
// default_phase_ends_test.cpp). The kernels run on the fake Range Profiler and write their records
// to the fake Activity API, which keeps them only where the timeline enabled kernel records.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <thread>

#include "collect/collector_internal.hpp"
#include "collect/modes.hpp"
#include "collect/nvtx/nvtx_tracker.hpp"
#include "collect/pc_sampling/pc_sampling_session.hpp"
#include "collect/phases.hpp"
#include "fake_backends.hpp"

namespace limiter::test {

using detail::LaunchCall;
using detail::Phases;
using detail::Session;

inline const CUcontext kContext = reinterpret_cast<CUcontext>(0x10);
inline constexpr std::uint32_t kLong = 3;

struct DefaultRun {
  explicit DefaultRun(CollectorOptions options = {}) {
    options.always_active = true;
    if (options.stall_window_ms == CollectorOptions{}.stall_window_ms) options.stall_window_ms = 5;  // a short window
    options.lock_dir = lock_dir;
    phases =
        std::make_unique<Phases>(detail::sessions_for(options, backends, nvtx, &sink), [this] { return ++clock_ns; });
    pc_backend = backends.pc_backends.at(0);
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
    call.correlation_id = ++correlation;
    if (!phases->last() && phases->current_over()) phases->advance();
    phases->note_launch();
    phases->on_launch(call);
    range_backend.run_kernel(kContext);
    activity_backend.record(kernel_record(kernel, clock_ns, clock_ns + 1, correlation));
    phases->on_launch_exit(call);
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
  // Kernel records enabled: the timeline records.
  bool timeline_records() {
    auto lock = activity_backend.lock();
    return activity_backend.enabled.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) > 0;
  }

  FakeBackends backends;
  FakeRangeBackend& range_backend = backends.range_backend;
  FakeActivityBackend& activity_backend = backends.activity_backend;
  FakePcSamplingBackend* pc_backend = nullptr;
  detail::NvtxTracker nvtx;
  detail::LaunchSink sink;
  std::unique_ptr<Phases> phases;
  std::uint32_t correlation = 0;
  std::uint64_t clock_ns = 1000;
  std::vector<RunRecord> handovers;
};

inline std::vector<std::string> names(const RunRecord& run) {
  std::vector<std::string> out;
  for (const auto& launch : run.launches) out.push_back(launch.name);
  return out;
}

}  // namespace limiter::test
