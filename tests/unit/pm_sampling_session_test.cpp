// The PM-sampling session without a GPU, on a fake PM Sampling and Activity API
// (fake_pm_sampling_backend.hpp): its three roles (alone; after the exact phase, which hands
// over its launches; before it, ending after N launches), samples joined to the kernels that
// ran in them across several decodes, samples lost, the sampled context's end, and phases that
// never began. The attribution's arithmetic is sample_attribution_test.cpp's, and the
// recordings' budgets_then_sampling*_test.cpp's: here, what reaches the attributor and the record.
#include <gtest/gtest.h>

#include "collect/collector_internal.hpp"
#include "collect/pm_sampling/pm_sampling_session.hpp"
#include "fake_pm_sampling_backend.hpp"
#include "wait_until.hpp"

namespace limiter {
namespace {

using detail::PmSamplingSession;
using detail::SamplingRole;
using test::kernel_span;

const CUcontext kContext = reinterpret_cast<CUcontext>(0x10);
const std::vector<std::string> kMetrics = {"smsp__inst_issued.sum", "sm__cycles_elapsed.avg"};

CollectorOptions sampling() {
  CollectorOptions options;
  options.sampling = true;
  options.always_active = true;
  options.metrics = kMetrics;
  options.sampling_interval_ns = 100;
  return options;
}

struct Harness {
  explicit Harness(SamplingRole role, CollectorOptions options = sampling()) {
    session = std::make_unique<PmSamplingSession>(options, nullptr, role, backend);
  }
  // After the exact phase and before it, the sampler starts on a thread of its own while the
  // app runs on: the app's next launches find it started.
  bool sampler_started() {
    return test::wait_until([this] { return backend.starts > 0; });
  }
  void launch(CUcontext context = kContext) {
    detail::LaunchCall call;
    call.context = context;
    call.symbol_name = "kern";
    session->on_launch(call);
  }
  // Kernel K runs from START to END and a sample of INSTRUCTIONS covers it.
  void run(const std::string& kernel, std::uint64_t start, std::uint64_t end, double instructions) {
    backend.run_kernel(kernel_span(kernel, start, end));
    backend.take_sample(start, end, {instructions, 100});
  }
  const KernelLaunch* aggregate(const RunRecord& run, const std::string& name) const {
    for (const auto& launch : run.launches)
      if (launch.name == name) return &launch;
    return nullptr;
  }
  static bool says(const RunRecord& run, const std::string& text) {
    for (const auto& missed : run.missed)
      if (missed.reason.find(text) != std::string::npos) return true;
    return false;
  }

  test::FakePmSamplingBackend backend;
  std::unique_ptr<PmSamplingSession> session;
};

TEST(PmSamplingSession, AloneSamplesFromTheFirstLaunchAndJoinsSamplesToKernels) {
  Harness h(SamplingRole::alone);
  EXPECT_EQ(h.backend.preloads, 1);         // the evaluator loaded before any exit handler
  EXPECT_EQ(h.backend.timestamps_made, 1);  // kernel records from the start
  EXPECT_EQ(h.backend.enables, 0);          // the sampler waits for a launch's GPU
  h.launch();
  EXPECT_EQ(h.backend.enables, 1);
  EXPECT_EQ(h.backend.starts, 1);
  h.run("A", 0, 100, 1000);
  h.run("B", 100, 200, 500);
  h.run("A", 200, 300, 1000);
  h.launch();
  const RunRecord run = h.session->finish();
  EXPECT_EQ(run.source, "cupti-pm-sampling");
  EXPECT_EQ(run.device.name, "Fake H100 0");
  EXPECT_EQ(run.launches_seen, 2u);
  ASSERT_TRUE(run.sampling);
  EXPECT_EQ(run.sampling->samples, 3u);
  EXPECT_EQ(run.sampling->samples_lost, 0u);
  EXPECT_TRUE(run.sampling->sm_side_counted);
  ASSERT_EQ(run.launches.size(), 2u);  // one aggregate per kernel and configuration
  const KernelLaunch* a = h.aggregate(run, "A");
  ASSERT_TRUE(a && a->sampled);
  EXPECT_EQ(a->sampled->launches, 2u);
  EXPECT_EQ(a->sampled->samples, 2u);
  EXPECT_NEAR(*a->counter("smsp__inst_issued.sum"), 2000, 1e-3);
  EXPECT_TRUE(run.missed.empty()) << run.missed.front().reason;
  EXPECT_EQ(h.backend.stops, 1);
}

TEST(PmSamplingSession, SamplesDecodedOverSeveralImagesAllCountAndHolesAreLost) {
  Harness h(SamplingRole::alone);
  h.backend.image_capacity = 3;  // 10 samples: four decodes of full images and a last one
  h.launch();
  h.backend.run_kernel(kernel_span("A", 0, 1300));
  for (std::uint64_t i = 0; i < 10; ++i) {
    const std::uint64_t start = i < 5 ? i * 100 : (i + 3) * 100;  // 500..800: three never arrived
    h.backend.take_sample(start, start + 100, {10, 100});
  }
  const RunRecord run = h.session->finish();
  ASSERT_TRUE(run.sampling);
  EXPECT_EQ(run.sampling->samples, 10u);
  EXPECT_EQ(run.sampling->samples_lost, 3u);
  ASSERT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(run.launches[0].sampled->samples, 10u);
  EXPECT_GE(h.backend.decodes, 4);
}

TEST(PmSamplingSession, KernelsOnAnotherGpuAreCountedNotAttributed) {
  Harness h(SamplingRole::alone);
  h.launch();
  h.run("A", 0, 100, 1000);
  h.backend.run_kernel(kernel_span("elsewhere", 0, 100, /*device=*/1));
  const RunRecord run = h.session->finish();
  ASSERT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(run.launches[0].name, "A");
  EXPECT_TRUE(h.says(run, "kernels on another GPU"));
}

TEST(PmSamplingSession, ASamplerThatCannotStartSaysWhyAndCountsTheLaunches) {
  Harness h(SamplingRole::alone);
  h.backend.passes = 2;
  h.launch();
  h.launch();
  const RunRecord run = h.session->finish();
  ASSERT_FALSE(run.missed.empty());
  EXPECT_NE(run.missed[0].reason.find("PM sampling could not start"), std::string::npos);
  EXPECT_EQ(run.missed[0].launches, 2u);
  EXPECT_EQ(h.session->timings(), "PM sampling never started\n");
}

TEST(PmSamplingSession, TheSampledContextsEndStopsTheSamplerWhileItExists) {
  Harness h(SamplingRole::alone);
  h.launch();
  h.run("A", 0, 100, 1000);
  h.session->on_context_destroy(reinterpret_cast<CUcontext>(0x99));  // another context: nothing
  EXPECT_EQ(h.backend.stops, 0);
  h.session->on_context_destroy(kContext);
  EXPECT_EQ(h.backend.stops, 1);
  EXPECT_GE(h.backend.forced_flushes, 1);  // its kernels' records taken while it exists
  EXPECT_EQ(h.backend.samples_waiting(), 0u);
  const RunRecord run = h.session->finish();  // the app's exit, later
  EXPECT_EQ(h.backend.stops, 1);
  ASSERT_TRUE(run.sampling);
  EXPECT_EQ(run.sampling->samples, 1u);
  ASSERT_EQ(run.launches.size(), 1u);
}

// The exact phase's record, as a RangeSession under budgets hands it over.
RunRecord exact_phase() {
  RunRecord exact;
  exact.source = "cupti-range-profiler";
  for (int i = 0; i < 2; ++i) {
    KernelLaunch launch = kernel_span("A", 0, 1).launch;
    launch.sequence = static_cast<std::uint64_t>(i);
    launch.counters["smsp__inst_issued.sum"] = 900;
    exact.launches.push_back(launch);
  }
  exact.launches_seen = 70;
  exact.kernels_seen = {{"A", {132, 1, 1}, {256, 1, 1}, 70}};
  exact.missed = {{"a launch the exact phase missed", 1, "its fix"}};
  exact.cache_control = "all";
  return exact;
}

TEST(PmSamplingSession, AfterTheExactPhaseItsLaunchesJoinTheirKernelsAggregates) {
  Harness h(SamplingRole::after_exact);
  EXPECT_EQ(h.backend.timestamps_made, 0);  // the exact phase's kernels are not timed twice
  h.session->prepare_ahead(0, "GH100");     // while the exact phase runs
  h.launch();                               // the exact phase's last launch: not this phase's
  EXPECT_EQ(h.backend.enables, 0);
  h.session->begin_after(exact_phase(), /*follows=*/true);
  h.launch();
  EXPECT_EQ(h.backend.timestamps_made, 1);
  ASSERT_TRUE(h.sampler_started());
  h.run("A", 0, 100, 1000);
  h.run("C", 100, 200, 400);  // a kernel first seen now
  const RunRecord run = h.session->finish();
  EXPECT_EQ(h.backend.host_sides, 1);  // prepared ahead, not again
  EXPECT_NE(h.session->timings().find("ahead, during the exact phase"), std::string::npos);
  EXPECT_EQ(run.launches_seen, 72u);  // the exact phase's 70 and this phase's 2
  ASSERT_EQ(run.launches.size(), 2u);
  const KernelLaunch* a = h.aggregate(run, "A");
  const KernelLaunch* c = h.aggregate(run, "C");
  ASSERT_TRUE(a && a->sampled && c && c->sampled);
  EXPECT_EQ(a->sampled->exact_launches, 2u);
  EXPECT_EQ(c->sampled->exact_launches, 0u);
  ASSERT_EQ(run.kernels_seen.size(), 2u);
  EXPECT_EQ(run.kernels_seen[0].launches, 71u);  // A: 70 in the exact phase, 1 sampled
  EXPECT_EQ(run.kernels_seen[1].name, "C");
  EXPECT_TRUE(h.says(run, "a launch the exact phase missed"));
  EXPECT_EQ(run.cache_control, "all");  // the exact launches' caches, kept in the joined record
}

TEST(PmSamplingSession, AfterAnExactPhaseThatTheAppOutlivedNotSamplingSaysSo) {
  Harness h(SamplingRole::after_exact);
  h.session->begin_after(exact_phase(), /*follows=*/false);
  h.launch();  // the app's exit races the hand-over: nothing starts
  const RunRecord run = h.session->finish();
  EXPECT_EQ(h.backend.enables, 0);
  EXPECT_EQ(h.backend.timestamps_made, 0);
  EXPECT_EQ(run.launches.size(), 2u);  // the exact launches, kept
  EXPECT_TRUE(h.says(run, "PM sampling never began: the app ended before 64 launches in a row"));
}

CollectorOptions sampling_first(std::uint64_t launches) {
  CollectorOptions options = sampling();
  options.sampling_phase_launches = launches;
  options.exact_undecided_count = 2;
  return options;
}

TEST(PmSamplingSession, BeforeTheExactPhaseItEndsAfterNLaunchesAndLetsTheRangeProfilerIn) {
  Harness h(SamplingRole::before_exact, sampling_first(3));
  h.launch();
  ASSERT_TRUE(h.sampler_started());
  h.run("A", 0, 100, 1000);
  h.launch();
  EXPECT_FALSE(h.session->phase_over());
  h.launch();
  EXPECT_TRUE(h.session->phase_over());
  const RunRecord run = h.session->finish();
  // The sampler and kernel records are gone before the exact phase enables the range profiler.
  EXPECT_EQ(h.backend.disables, 1);
  EXPECT_EQ(h.backend.timestamps_live, 0);
  EXPECT_EQ(run.launches_seen, 3u);
  ASSERT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(run.launches[0].name, "A");
  const RunRecord again = h.session->finish();  // the phases' end asks again: the same record
  EXPECT_EQ(again.launches.size(), 1u);
  EXPECT_EQ(again.launches_seen, 3u);
  EXPECT_NE(h.session->timings().find("PM sampling: set-up"), std::string::npos);
}

TEST(PmSamplingSession, ASamplingPhaseWithoutALaunchSaysSamplingNeverBegan) {
  Harness h(SamplingRole::before_exact, sampling_first(3));
  const RunRecord run = h.session->finish();
  EXPECT_TRUE(h.says(run, "PM sampling never began: the app launched no kernel"));
  EXPECT_EQ(h.backend.enables, 0);
}

}  // namespace
}  // namespace limiter
