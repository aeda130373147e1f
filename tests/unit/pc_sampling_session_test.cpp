// The PC-sampling session's logic without a GPU, on a fake PC Sampling API
// (fake_pc_sampling_backend.hpp): configuration per context, stall names as ncu's, samples summed
// over GetData calls and contexts, the hottest PCs, what was lost, cubins and source lines,
// the end of a context and of the process, regions, and `--stalls` as a phase list.
#include <gtest/gtest.h>
#include <cstdlib>
#include <unistd.h>
#include <sys/wait.h>
#include <stdlib.h>

#include <filesystem>
#include <thread>

#include "collect/nvtx/nvtx_tracker.hpp"
#include "limiter/stall_sass.hpp"
#include "collect/pc_sampling/pc_sampling_session.hpp"
#include "collect/modes.hpp"
#include "collect/phases.hpp"
#include "fake_backends.hpp"

namespace limiter {
namespace {

using detail::LaunchCall;
using detail::PcBatch;
using detail::PcSamplingSession;
using test::pc_record;

const CUcontext kContext = reinterpret_cast<CUcontext>(0x10);
const CUcontext kOther = reinterpret_cast<CUcontext>(0x20);
constexpr std::uint32_t kLong = 3, kLongNotIssued = 4, kBarrier = 7, kSelected = 9, kSampleCount = 12;

struct Harness {
  explicit Harness(CollectorOptions options = active()) {
    if (options.lock_dir == CollectorOptions{}.lock_dir) {  // the GPU's sampling turn: this test's own
      char pattern[] = "/tmp/limiter-pc-sampling-test-XXXXXX";
      options.lock_dir = own_lock_dir = mkdtemp(pattern);
    }
    auto fake = std::make_unique<test::FakePcSamplingBackend>();
    backend = fake.get();
    session = std::make_unique<PcSamplingSession>(options, std::move(fake));
  }
  static CollectorOptions active() {
    CollectorOptions options;
    options.stalls = true;
    options.always_active = true;
    return options;
  }
  void launch(CUcontext context = kContext) {
    LaunchCall call;
    call.context = context;
    call.symbol_name = "_Z5chasePKjPji";
    session->on_launch(call);
    session->on_launch_exit(call);
  }
  void load_module(CUcontext context, const std::vector<std::uint8_t>& cubin) {
    session->on_module_loaded({context, 1, cubin.data(), cubin.size()});
  }
  void queue(CUcontext context, PcBatch batch) { backend->queue[context].push_back(std::move(batch)); }

  ~Harness() {
    session.reset();
    if (!own_lock_dir.empty()) std::filesystem::remove_all(own_lock_dir);
  }

  std::string own_lock_dir;
  test::FakePcSamplingBackend* backend;
  std::unique_ptr<PcSamplingSession> session;
};

PcBatch batch(std::vector<detail::PcRecord> pcs) {
  PcBatch out;
  out.pcs = std::move(pcs);
  return out;
}

TEST(PcSampling, StallNamesAreNcusWithTheNotIssuedVariantsFolded) {
  EXPECT_EQ(detail::stall_key("smsp__pcsamp_warps_issue_stalled_long_scoreboard"), "long_scoreboard");
  // The twin counts some of the same samples again: not a key of its own, not added.
  EXPECT_EQ(detail::stall_key("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued"), std::nullopt);
  EXPECT_TRUE(detail::is_not_issued("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued"));
  EXPECT_FALSE(detail::is_not_issued("smsp__pcsamp_warps_issue_stalled_long_scoreboard"));
  EXPECT_EQ(detail::stall_key("smsp__pcsamp_warps_issue_stalled_selected"), "selected");
  EXPECT_EQ(detail::stall_key("smsp__pcsamp_warps_issue_stalled_not_selected"), "not_selected");
  EXPECT_EQ(detail::stall_key("smsp__pcsamp_sample_count"), std::nullopt);
  EXPECT_EQ(detail::stall_key("smsp__pcsamp_warps_issue_stalled_"), std::nullopt);
}

TEST(PcSampling, EachContextIsEnabledAndConfiguredOnceAtItsFirstLaunch) {
  CollectorOptions options = Harness::active();
  options.stall_period_log2 = 9;
  Harness h(options);
  h.launch();
  h.launch();
  ASSERT_EQ(h.backend->enabled, (std::vector<CUcontext>{kContext}));
  ASSERT_EQ(h.backend->requests.size(), 1u);
  EXPECT_EQ(h.backend->requests[0].period_log2, 9u);
  EXPECT_EQ(h.backend->requests[0].reasons, (std::vector<std::uint32_t>{3, 4, 7, 9, 12}));  // every reason
  EXPECT_EQ(h.backend->requests[0].buffer_pcs, detail::kPcsPerBuffer);
  EXPECT_EQ(h.backend->starts, 1);
  EXPECT_EQ(h.session->stalls().sample_period_cycles, 512u);
  h.launch(kOther);
  EXPECT_EQ(h.backend->enabled, (std::vector<CUcontext>{kContext, kOther}));
}

TEST(PcSampling, TheDefaultPeriodIsTheOneCuptiReports) {
  Harness h;
  h.launch();
  EXPECT_EQ(h.backend->requests.at(0).period_log2, 0u);  // CUPTI's default asked for
  EXPECT_EQ(h.session->stalls().sample_period_cycles, 4096u);
}

// The default run's window samples a 132-SM GPU every 2^13 cycles (~32M samples a second at 2 GHz),
// not at CUPTI's default: its samples are all decoded at the window's end, on the app's thread.
TEST(PcSampling, TheDefaultRunsWindowSamplesAtMost40MillionTimesASecond) {
  EXPECT_EQ(detail::window_period_log2(132), 13u);  // H100, H200
  EXPECT_EQ(detail::window_period_log2(108), 13u);  // A100
  EXPECT_EQ(detail::window_period_log2(20), 10u);
  EXPECT_EQ(detail::window_period_log2(1), 6u);
  EXPECT_EQ(detail::window_period_log2(0), 0u);  // unknown: CUPTI's default
  const auto requested = [](CollectorOptions options, detail::PcSamplingPhase window) {
    char pattern[] = "/tmp/limiter-pc-sampling-test-XXXXXX";
    options.lock_dir = mkdtemp(pattern);
    auto fake = std::make_unique<test::FakePcSamplingBackend>();
    const test::FakePcSamplingBackend& backend = *fake;
    PcSamplingSession session(options, std::move(fake), window);
    LaunchCall call;
    call.context = kContext;
    call.symbol_name = "_Z4gemmv";
    session.on_launch(call);
    const std::uint32_t period = backend.requests.at(0).period_log2;
    session.finish();
    std::filesystem::remove_all(options.lock_dir);
    return period;
  };
  detail::PcSamplingPhase window;
  window.window = std::chrono::milliseconds(1000);
  CollectorOptions options = Harness::active();
  options.stalls = false;
  EXPECT_EQ(requested(options, window), 13u);
  options.stall_period_log2 = 11;  // --stall-period wins
  EXPECT_EQ(requested(options, window), 11u);
  EXPECT_EQ(requested(Harness::active(), {}), 0u);  // --stalls: CUPTI's default, as ncu is compared with
}

TEST(PcSampling, SamplesAddUpPerKernelAcrossGetDataCallsAndContexts) {
  Harness h;
  h.launch();
  h.launch(kOther);
  h.queue(kContext, batch({pc_record("_Z5chasePKjPji", 5, 0x40, {{kLong, 10}, {kLongNotIssued, 2}, {kSelected, 1}})}));
  h.session->on_sync(detail::SyncKind::wait);
  h.queue(kContext, batch({pc_record("_Z5chasePKjPji", 5, 0x40, {{kLong, 5}}),
                           pc_record("_Z5chasePKjPji", 5, 0x50, {{kBarrier, 4}, {kSampleCount, 99}})}));
  h.queue(kOther, batch({pc_record("_Z5chasePKjPji", 5, 0x40, {{kLong, 3}}),
                         pc_record("_Z4syncv", 6, 0x10, {{kBarrier, 30}})}));
  h.backend->at_disable[kContext] = batch({pc_record("_Z5chasePKjPji", 5, 0x50, {{kBarrier, 1}})});
  h.session->finish();
  const StallInfo info = h.session->stalls();
  ASSERT_EQ(info.kernels.size(), 2u);
  EXPECT_EQ(info.kernels[0].name, "sync()");  // most samples first
  EXPECT_EQ(info.kernels[0].samples, 30u);
  const KernelStalls& chase = info.kernels[1];
  EXPECT_EQ(chase.mangled_name, "_Z5chasePKjPji");
  EXPECT_EQ(chase.name, "chase(unsigned int const*, unsigned int*, int)");
  EXPECT_EQ(chase.cubin_crc, 5u);
  EXPECT_EQ(chase.samples, 24u);  // 11 + 5 + 4 + 3 + 1 (the not-issued twin and the sample count are no more samples)
  EXPECT_EQ(chase.reasons, (StallCounts{{"barrier", 5}, {"long_scoreboard", 18}, {"selected", 1}}));
  EXPECT_EQ(info.samples, 54u);
  ASSERT_EQ(chase.hot_pcs.size(), 2u);
  EXPECT_EQ(chase.hot_pcs[0].pc_offset, 0x40u);
  EXPECT_EQ(chase.hot_pcs[0].samples, 19u);
  EXPECT_EQ(chase.hot_pcs[1].reasons, (StallCounts{{"barrier", 5}}));
}

TEST(PcSampling, TheHottestTwentyPcsAreKeptMostSamplesFirst) {
  Harness h;
  h.launch();
  std::vector<detail::PcRecord> pcs;
  for (std::uint64_t i = 0; i < 25; ++i) pcs.push_back(pc_record("k", 1, i * 16, {{kLong, 100 - i % 5}}));
  h.queue(kContext, batch(pcs));
  h.session->finish();
  const StallInfo info = h.session->stalls();  // by value: a reference into the temporary dangled
  const auto& hot = info.kernels.at(0).hot_pcs;
  ASSERT_EQ(hot.size(), detail::kHotPcsPerKernel);
  EXPECT_EQ(hot[0].pc_offset, 0u);  // 100 samples, lowest offset first among equals
  EXPECT_EQ(hot[1].pc_offset, 80u);
  EXPECT_EQ(hot[5].samples, 99u);
  EXPECT_EQ(hot.back().samples, 97u);            // the 96s are the ones left out
  EXPECT_EQ(info.kernels[0].samples, 25 * 98u);  // all PCs count in the kernel's total
}

TEST(PcSampling, DroppedSamplesAndAFullHardwareBufferAreCounted) {
  Harness h;
  h.launch();
  PcBatch lost = batch({pc_record("k", 1, 0, {{kLong, 1}})});
  lost.dropped_samples = 40;
  h.queue(kContext, lost);
  PcBatch full;
  full.hardware_buffer_full = true;
  h.queue(kContext, full);
  h.queue(kContext, batch({pc_record("k", 1, 0, {{kLong, 1}})}));  // after a full buffer: the next drain's
  h.session->flush();
  EXPECT_EQ(h.backend->get_data_calls, 2);  // stopped at the full buffer
  h.session->finish();
  const StallInfo info = h.session->stalls();
  EXPECT_EQ(info.dropped_samples, 40u);
  EXPECT_EQ(info.hardware_buffer_full, 1u);
  EXPECT_EQ(info.samples, 2u);
  EXPECT_NE(h.session->timings().find("40 dropped, hardware buffer full 1 times"), std::string::npos);
}

TEST(PcSampling, ABufferOfPendingPcsIsDrainedAtTheLaunchsExit) {
  Harness h;
  h.launch();
  h.queue(kContext, batch({pc_record("k", 1, 0, {{kLong, 1}})}));
  h.backend->pending = detail::kPcsPerBuffer - 1;
  h.launch();
  EXPECT_EQ(h.backend->get_data_calls, 0);
  h.backend->pending = detail::kPcsPerBuffer;
  h.launch();
  EXPECT_EQ(h.backend->get_data_calls, 1);
}

TEST(PcSampling, LaunchesAndSyncsDrainOncePerPeriod) {
  Harness h;
  h.launch();
  h.launch();
  h.session->on_sync(detail::SyncKind::wait);
  EXPECT_EQ(h.backend->get_data_calls, 0);  // within the period of the start
  std::this_thread::sleep_for(detail::kDrainPeriod + std::chrono::milliseconds(10));
  h.launch();  // an app that never syncs still has its samples drained
  EXPECT_EQ(h.backend->get_data_calls, 1);
  h.session->on_sync(detail::SyncKind::wait);
  EXPECT_EQ(h.backend->get_data_calls, 1);
  std::this_thread::sleep_for(detail::kDrainPeriod + std::chrono::milliseconds(10));
  h.session->on_sync(detail::SyncKind::query);  // a poll is no wait
  EXPECT_EQ(h.backend->get_data_calls, 1);
  h.session->on_sync(detail::SyncKind::wait);
  EXPECT_EQ(h.backend->get_data_calls, 2);
}

TEST(PcSampling, HotPcsGetTheirSourceLineFromTheKeptCubin) {
  char pattern[] = "/tmp/limiter-pc-sampling-XXXXXX";
  CollectorOptions options = Harness::active();
  options.raw_dir = mkdtemp(pattern);
  Harness h(options);
  const std::vector<std::uint8_t> cubin = {7, 1, 2, 3};
  const std::uint64_t crc = test::FakePcSamplingBackend::crc_of(cubin.data(), cubin.size());
  h.load_module(kContext, cubin);  // the first module starts sampling in its context
  EXPECT_EQ(h.backend->enabled, (std::vector<CUcontext>{kContext}));
  h.load_module(kContext, cubin);  // loaded again: the same cubin is kept once; pending PCs flushed
  EXPECT_EQ(h.backend->get_data_calls, 1);
  h.backend->lines[{crc, "k", 0x20}] = {"/src/probe.cu", 12};
  h.queue(kContext, batch({pc_record("k", crc, 0x20, {{kLong, 3}}), pc_record("k", crc, 0x30, {{kLong, 1}}),
                           pc_record("other", 99, 0x0, {{kLong, 1}})}));
  h.session->finish();
  const StallInfo info = h.session->stalls();
  const KernelStalls* kernel = &info.kernels[0];
  EXPECT_EQ(kernel->hot_pcs[0].file, "/src/probe.cu");
  EXPECT_EQ(kernel->hot_pcs[0].line, 12u);
  EXPECT_FALSE(kernel->hot_pcs[1].line);          // no line info there
  EXPECT_FALSE(info.kernels[1].hot_pcs[0].file);  // its module's cubin was never seen
  EXPECT_EQ(kernel->no_cubin, "");
  EXPECT_EQ(info.kernels[1].no_cubin, kNoCubinLoadedBefore);  // said, for the report's note and its fix
  // The sampled kernels' cubins are kept for their SASS, by CRC; a module without a cubin is not.
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(options.raw_dir) / "cubins" / cubin_file_name(crc)));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(std::filesystem::path(options.raw_dir) / "cubins"),
                          std::filesystem::directory_iterator()),
            1);
  std::filesystem::remove_all(options.raw_dir);
}

// A module loaded without a cubin the collector could read: a kernel of no known module may be its,
// so "loaded before profiling began" is not said alone.
TEST(PcSampling, AModuleWithoutACubinMakesTheUnseenKernelsReasonLessSure) {
  Harness h;
  h.launch();
  h.session->on_module_loaded({kContext, 2, nullptr, 0});
  h.queue(kContext, batch({pc_record("k", 77, 0x20, {{kLong, 3}})}));
  h.session->finish();
  EXPECT_EQ(h.session->stalls().kernels.at(0).no_cubin, kNoCubinUnread);
}

TEST(PcSampling, AContextIsFinishedWhileItExistsAndTheRestAtTheEnd) {
  Harness h;
  h.launch();
  h.launch(kOther);
  h.queue(kContext, batch({pc_record("k", 1, 0, {{kLong, 2}})}));
  h.backend->at_disable[kContext] = batch({pc_record("k", 1, 0, {{kLong, 1}})});
  h.session->on_context_destroy(kContext);
  EXPECT_EQ(h.backend->disabled, (std::vector<CUcontext>{kContext}));
  EXPECT_EQ(h.backend->running, (std::set<CUcontext>{kOther}));  // stopped before its last GetData
  EXPECT_EQ(h.session->stalls().samples, 3u);                    // what Disable left counts too
  h.backend->at_disable[kOther] = batch({pc_record("k", 1, 0, {{kBarrier, 5}})});
  h.session->flush_before_exit(std::chrono::seconds(1));  // the process ends
  EXPECT_EQ(h.backend->disabled, (std::vector<CUcontext>{kContext, kOther}));
  RunRecord run = h.session->finish();  // once only
  EXPECT_EQ(h.backend->disabled.size(), 2u);
  EXPECT_EQ(h.session->stalls().samples, 8u);
  EXPECT_EQ(run.source, "cupti-pc-sampling");
  EXPECT_EQ(run.device.name, "Fake H100");
  EXPECT_EQ(run.launches_seen, 2u);
}

TEST(PcSampling, OutsideRegionsNothingIsSampledAndARegionsEndDrains) {
  CollectorOptions options;
  options.stalls = true;  // the in-process API: start()/stop()
  Harness h(options);
  h.launch();
  EXPECT_TRUE(h.backend->enabled.empty());
  h.session->begin_region();
  h.launch();
  EXPECT_EQ(h.backend->starts, 1);
  h.queue(kContext, batch({pc_record("k", 1, 0, {{kLong, 2}})}));
  h.session->end_region();
  EXPECT_EQ(h.backend->stops, 1);
  EXPECT_EQ(h.session->stalls().samples, 2u);
  h.session->begin_region();
  EXPECT_EQ(h.backend->starts, 2);
}

TEST(PcSampling, AGpuWithoutPcSamplingCountsItsLaunchesAsMissed) {
  Harness h;
  h.backend->unsupported = true;
  h.launch();
  h.launch();
  const RunRecord run = h.session->finish();
  ASSERT_EQ(run.missed.size(), 1u);
  EXPECT_EQ(run.missed[0].launches, 2u);
  EXPECT_NE(run.missed[0].reason.find("PC sampling could not start: cuptiPCSamplingEnable: not supported"),
            std::string::npos);
}

// Another process samples the GPU: Start fails after Enable, and the context is disabled at
// once, not left enabled for the app's launches and the Range Profiler after it.
TEST(PcSampling, AStartThatFailsDisablesTheContextAndCountsItsLaunches) {
  Harness h;
  h.backend->busy = true;
  h.launch();
  EXPECT_EQ(h.backend->enabled, (std::vector<CUcontext>{kContext}));
  EXPECT_EQ(h.backend->disabled, (std::vector<CUcontext>{kContext}));
  h.launch();
  const RunRecord run = h.session->finish();
  EXPECT_EQ(h.backend->disabled.size(), 1u);  // not again at the end
  ASSERT_EQ(run.missed.size(), 1u);
  EXPECT_EQ(run.missed[0].launches, 2u);
  EXPECT_NE(run.missed[0].reason.find("cuptiPCSamplingStart: busy"), std::string::npos);
}

// One process samples a GPU at a time: while this process samples, another limiter process on
// the GPU never enables PC sampling (a Start refused as busy cost that process its launches'
// callbacks on an H200) and says why; once this one finished, the GPU is free again.
TEST(PcSampling, AnotherProcessDoesNotSampleTheGpuThisOneSamples) {
  char pattern[] = "/tmp/limiter-pc-turn-XXXXXX";
  CollectorOptions options = Harness::active();
  options.lock_dir = mkdtemp(pattern);
  Harness h(options);
  h.launch();  // samples: holds the GPU's sampling turn
  ASSERT_EQ(h.backend->starts, 1);
  const auto child_samples = [&options] {
    const pid_t child = fork();  // record locks belong to a process
    if (child == 0) {
      Harness other(options);
      other.launch();
      const RunRecord run = other.session->finish();
      const bool refused = other.backend->enabled.empty() && run.missed.size() == 1 &&
                           run.missed[0].reason.find("another limiter process samples this GPU") != std::string::npos &&
                           run.missed[0].fix.find("CUDA_VISIBLE_DEVICES") != std::string::npos;  // its own fix
      _exit(refused ? 1 : other.backend->starts == 1 ? 0 : 2);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
  };
  EXPECT_EQ(child_samples(), 1) << "refused, with the reason, and nothing enabled";
  h.session->finish();
  EXPECT_EQ(child_samples(), 0) << "sampled once this process finished";
  std::filesystem::remove_all(options.lock_dir);
}

TEST(PcSampling, StallsAloneIsOnePhaseOfPcSampling) {
  CollectorOptions options;
  options.stalls = true;
  test::FakeBackends backends;
  detail::NvtxTracker nvtx;
  detail::Phases phases(detail::sessions_for(options, backends, nvtx, nullptr));
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_STREQ(phases.at(0).name(), "PC sampling");
  EXPECT_EQ(phases.background_size(), 0u);
  EXPECT_TRUE(phases.callbacks().modules);
  EXPECT_TRUE(phases.callbacks().sync_points);
}

}  // namespace
}  // namespace limiter
