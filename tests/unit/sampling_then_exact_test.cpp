// --sampling --exact-undecided K as the orchestrator runs it (modes.hpp, phases.hpp), built by
// sessions_for on fake backends: the PM-sampling phase ends after N launches, its record goes to the exact phase,
// and the kernels its samples left undecided are profiled exactly, K launches each, and join
// their aggregates (handover.hpp); the exact phase's device is prepared while the sampler runs.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "collect/modes.hpp"
#include "collect/nvtx/nvtx_tracker.hpp"
#include "collect/range/range_session.hpp"
#include "fake_backends.hpp"
#include "wait_until.hpp"

namespace limiter {
namespace {

const CUcontext kContext = reinterpret_cast<CUcontext>(0x10);

struct SamplingThenExact {
  SamplingThenExact() {
    char pattern[] = "/tmp/limiter-sampling-then-exact-XXXXXX";
    lock_dir = mkdtemp(pattern);
    CollectorOptions options;
    options.sampling = true;
    options.always_active = true;
    options.metrics = {"smsp__inst_issued.sum", "sm__cycles_elapsed.avg"};
    options.sampling_interval_ns = 100;
    options.sampling_phase_launches = 2;
    options.exact_undecided_count = 2;
    options.lock_dir = lock_dir;
    phases = std::make_unique<detail::Phases>(detail::sessions_for(options, backends, nvtx, nullptr));
    exact_phase = dynamic_cast<detail::RangeSession*>(&phases->at(1));
  }
  ~SamplingThenExact() { std::filesystem::remove_all(lock_dir); }

  // A launch as the orchestrator hands it on: the phase switched first if it is over.
  void launch(const char* kernel) {
    if (!phases->last() && phases->current_over()) phases->advance();
    detail::LaunchCall call;
    call.context = kContext;
    call.function = reinterpret_cast<CUfunction>(std::hash<std::string>{}(kernel) | 1);
    call.symbol_name = kernel;
    call.grid = {132, 1, 1};
    call.block = {256, 1, 1};
    phases->on_launch(call);
    range.run_kernel(kContext);
    phases->on_launch_exit(call);
  }

  std::string lock_dir;
  test::FakeBackends backends;
  test::FakePmSamplingBackend& pm = backends.pm_backend;
  test::FakeRangeBackend& range = backends.range_backend;
  detail::NvtxTracker nvtx;
  detail::RangeSession* exact_phase = nullptr;
  std::unique_ptr<detail::Phases> phases;
};

TEST(SamplingThenExact, TheUndecidedKernelsOfTheSamplingPhaseAreProfiledExactlyNext) {
  SamplingThenExact run;
  run.launch("alpha");
  ASSERT_TRUE(test::wait_until([&] { return run.pm.starts > 0; }));  // started beside the app
  run.pm.run_kernel(test::kernel_span("alpha", 0, 100));
  run.pm.take_sample(0, 100, {1000, 100});
  run.launch("alpha");
  EXPECT_EQ(run.range.enables, 0);  // no range profiler beside the sampler
  for (int i = 0; i < 4; ++i) run.launch("alpha");
  EXPECT_EQ(run.phases->index(), 1u);
  EXPECT_EQ(run.pm.disables, 1);  // the sampler gone before the range profiler came
  run.phases->flush();
  const RunRecord record = run.phases->finish();
  EXPECT_EQ(run.range.enables, 1);
  EXPECT_EQ(record.source, "cupti-pm-sampling");
  EXPECT_EQ(record.launches_seen, 6u);  // 2 sampled, 4 in the exact phase
  ASSERT_TRUE(record.sampling);
  EXPECT_TRUE(record.sampling->exact_after_sampling);
  EXPECT_EQ(record.cache_control, "none");  // the exact phase's counters: the app's own caches
  ASSERT_EQ(record.launches.size(), 1u);    // one sample cannot judge alpha: 2 launches exactly
  ASSERT_TRUE(record.launches[0].sampled);
  EXPECT_EQ(record.launches[0].sampled->exact_launches, 2u);
  ASSERT_EQ(record.kernels_seen.size(), 1u);
  EXPECT_EQ(record.kernels_seen[0].launches, 5u);  // the 4 exact-phase launches and the sampled one
}

TEST(SamplingThenExact, TheExactPhasesDeviceIsPreparedWhileTheSamplerRuns) {
  SamplingThenExact run;
  run.launch("alpha");  // sampling starts in the context: the exact phase's device is prepared
  ASSERT_TRUE(test::wait_until([&] { return run.range.config_images.load() == 1; }));
  EXPECT_EQ(run.range.support_checks.load(), 1);
  EXPECT_EQ(run.range.descriptions.load(), 1);
  EXPECT_EQ(run.phases->index(), 0u);      // before the hand-over
  EXPECT_EQ(run.range.enables.load(), 0);  // prepared only: no profiler beside the sampler
  EXPECT_EQ(run.range.starts.load(), 0);
  for (int i = 0; i < 3; ++i) run.launch("alpha");
  ASSERT_EQ(run.phases->index(), 1u);
  EXPECT_EQ(run.range.enables.load(), 1);  // the exact phase's first launch started its profiler
  // Its set-up took what was prepared: nothing prepared again on the app's thread.
  EXPECT_EQ(run.range.support_checks.load(), 1);
  EXPECT_EQ(run.range.config_images.load(), 1);
  EXPECT_EQ(run.exact_phase->range_timings().devices_prepared, 1u);
  EXPECT_EQ(run.exact_phase->range_timings().set_up_config_s, 0.0);
  run.phases->flush();
  EXPECT_EQ(run.phases->finish().launches_seen, 4u);
}

}  // namespace
}  // namespace limiter
