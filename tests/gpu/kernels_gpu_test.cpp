// The kernel suite on a real GPU (label `gpu`): every family's results are correct, and the
// properties each experiment is built on hold (spills under the cap, one more block per SM with
// launch bounds, the ladder getting faster). Skips with the reason when there is no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "limiter/kernels/suite.hpp"
#include "limiter/record_json.hpp"

namespace limiter::kernels {
namespace {

class KernelSuiteOnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto reason = gpu_unavailable_reason()) GTEST_SKIP() << *reason;
  }

  // Small sizes, few runs, no profiler: these tests are about the kernels, not the collector.
  static SuiteResult run(const std::vector<std::string>& only, bool sweep = false) {
    SuiteOptions options;
    options.only = only;
    options.sizes = ProblemSize::small;
    options.profile = false;
    options.sweep = sweep;
    options.warmup_runs = 1;
    options.timed_runs = 3;
    return run_suite(options);
  }

  static std::map<std::string, Measurement> by_name(const SuiteResult& result) {
    std::map<std::string, Measurement> named;
    for (const auto& m : result.measurements) named[m.name] = m;
    return named;
  }

  static void expect_all_correct(const SuiteResult& result, std::size_t expected_count) {
    EXPECT_EQ(result.measurements.size(), expected_count);
    for (const auto& m : result.measurements) {
      if (!m.skipped_reason.empty()) continue;
      EXPECT_TRUE(m.correct.value_or(false)) << m.name << ": " << m.check_detail;
      EXPECT_GT(m.time_ns.value_or(0), 0) << m.name;
    }
  }
};

TEST_F(KernelSuiteOnGpu, ReductionLadderIsCorrectAndKernel7BeatsKernel1) {
  const SuiteResult result = run({"reduction"});
  expect_all_correct(result, 16);
  auto m = by_name(result);
  EXPECT_LT(*m["reduce7_multiple_elements_32M"].time_ns, *m["reduce1_interleaved_divergent_32M"].time_ns / 2)
      << "kernel 7 should be several times faster than kernel 1";
}

TEST_F(KernelSuiteOnGpu, StencilSpillsOnlyUnderTheRegisterCap) {
  const SuiteResult result = run({"lmem_stencil"});
  expect_all_correct(result, 4);
  auto m = by_name(result);
  EXPECT_EQ(m["stencil8_unspilled"].local_bytes_per_thread.value_or(1), 0u);
  EXPECT_GT(m["stencil8_unspilled"].registers_per_thread.value_or(0), 32);
  for (const char* capped : {"stencil8_spilling", "stencil8_spilling_l1_carveout", "stencil8_spilling_dlcm_cg"}) {
    EXPECT_GT(m[capped].local_bytes_per_thread.value_or(0), 0u) << capped;
    EXPECT_LE(m[capped].registers_per_thread.value_or(99), 32) << capped;
  }
}

TEST_F(KernelSuiteOnGpu, LaunchBoundsTradeRegistersForBlocksPerSm) {
  const SuiteResult result = run({"occupancy"});
  expect_all_correct(result, 7);
  auto m = by_name(result);
  const auto& plain = m["scan_nt256_vt23"];
  const auto& bounded = m["scan_nt256_vt23_launch_bounds"];
  EXPECT_LE(bounded.registers_per_thread.value_or(99), 32);
  EXPECT_GT(bounded.local_bytes_per_thread.value_or(0), 0u) << "the cap should make it spill";
  EXPECT_GT(bounded.blocks_per_sm.value_or(0), plain.blocks_per_sm.value_or(0));
  EXPECT_GT(m["scan_nt256_vt7_dynamic_index"].local_bytes_per_thread.value_or(0), 0u)
      << "a dynamically indexed register array lives in local memory";
  EXPECT_EQ(m["scan_nt256_vt7"].local_bytes_per_thread.value_or(1), 0u);
}

TEST_F(KernelSuiteOnGpu, TailEffectLaunchBoundsFitOneMoreBlockAndShortenTheRun) {
  const SuiteResult result = run({"tail_effect"});
  expect_all_correct(result, 2);
  auto m = by_name(result);
  const auto& tail = m["tail_2_5_waves"];
  const auto& bounded = m["tail_launch_bounds_2_waves"];
  EXPECT_EQ(bounded.blocks_per_sm.value_or(0), tail.blocks_per_sm.value_or(0) + 1);
  EXPECT_EQ(tail.grid.count(), bounded.grid.count());
  EXPECT_LT(*bounded.time_ns, *tail.time_ns) << "2 waves instead of 3 should be faster";
}

TEST_F(KernelSuiteOnGpu, MatmulVariantsAgreeAndRegisterBlockingIsFastest) {
  const SuiteResult result = run({"matmul"});
  expect_all_correct(result, 4);
  auto m = by_name(result);
  EXPECT_LT(*m["matmul_register_blocked_4x4"].time_ns, *m["matmul_naive"].time_ns);
  EXPECT_LT(*m["matmul_register_blocked_8x8"].time_ns, *m["matmul_tiled_16x16"].time_ns);
}

TEST_F(KernelSuiteOnGpu, WarpStallKernelsAreCorrectAndLatencyBound) {
  const SuiteResult result = run({"warp_stalls"});
  expect_all_correct(result, 2);
  auto m = by_name(result);
  EXPECT_EQ(m["fma_dependent_chain"].grid.count(), static_cast<std::uint64_t>(result.run.device.sm_count))
      << "one 4-warp block per SM: one warp per scheduler";
  EXPECT_EQ(m["barrier_heavy"].block.count(), 1024u);
}

// The five known-answer programs, each in a child process of the limiter CLI under
// the activity timeline: every program's verdict is the intended one and its output right.
TEST_F(KernelSuiteOnGpu, KnownAnswerProgramsGetTheirIntendedVerdicts) {
  ProgramOptions options;
  const char* cli = std::getenv("LIMITER_CLI");
  options.executable = cli ? cli : LIMITER_CLI;
  options.record_dir = (std::filesystem::temp_directory_path() / "limiter_programs_gpu_test").string();
  const auto results = run_programs(options);
  ASSERT_EQ(results.size(), 5u);
  for (const auto& r : results) {
    ASSERT_TRUE(r.judged.has_value()) << r.name << ": " << r.detail;
    EXPECT_TRUE(r.output_correct.value_or(false)) << r.name;
    EXPECT_EQ(r.judged->verdict, r.intended) << r.name << ": " << r.judged->reason;
    EXPECT_LT(static_cast<double>(r.judged->window_end_ns - r.judged->window_start_ns), 1e9)
        << r.name << " should take under a second";
    EXPECT_TRUE(r.judged->pauses.empty()) << r.name;
    EXPECT_EQ(r.judged->evidence.dropped_records, 0u) << r.name;
  }
  std::filesystem::remove_all(options.record_dir);
}

TEST_F(KernelSuiteOnGpu, MultiGpuRunsOrSaysWhyNot) {
  const SuiteResult result = run({"multi_gpu"});
  expect_all_correct(result, 2);
  for (const auto& m : result.measurements) {
    if (!m.skipped_reason.empty()) {
      EXPECT_NE(m.skipped_reason.find("GPU"), std::string::npos) << m.skipped_reason;
    }
  }
}

TEST_F(KernelSuiteOnGpu, RunRecordHasOneNamedLaunchPerKernelWithTheUnprofiledTime) {
  const SuiteResult result = run({"calibration"});
  expect_all_correct(result, 4);
  ASSERT_EQ(result.run.launches.size(), 4u);
  for (const auto& launch : result.run.launches) {
    EXPECT_NE(find_entry(launch.name), nullptr) << launch.name;
    EXPECT_GT(launch.counter(kTimeUnprofiledCounter).value_or(0), 0) << launch.name;
    EXPECT_EQ(launch.counter(kResultCorrectCounter).value_or(0), 1.0) << launch.name;
    EXPECT_GT(launch.registers_per_thread.value_or(0), 0) << launch.name;
  }
  const std::string path = (std::filesystem::temp_directory_path() / "limiter_kernels_gpu_test.json").string();
  write_run_file(result.run, path);
  EXPECT_EQ(read_run_file(path), result.run);
  std::filesystem::remove(path);
}

TEST_F(KernelSuiteOnGpu, SweepTimesEveryOddGrainSizeAndFindsTheBest) {
  const SuiteResult result = run({"scan_nt256_vt7"}, /*sweep=*/true);
  EXPECT_EQ(result.sweep.size(), sweep_size());
  for (const auto& point : result.sweep) EXPECT_TRUE(point.correct) << point.threads << " x " << point.grain;
  EXPECT_TRUE(best_sweep_point(result.sweep).has_value());
}

TEST_F(KernelSuiteOnGpu, CalibrationMeasuresPlausiblePeaks) {
  CalibrationOptions options;
  options.sizes = ProblemSize::small;
  options.timed_runs = 3;
  const CalibrationResult result = run_calibration(options);
  EXPECT_TRUE(result.all_correct());
  EXPECT_GT(result.dram_read_bytes_per_second.value_or(0), 1e11);
  EXPECT_LT(result.dram_read_bytes_per_second.value_or(1e99), 2e13);
  EXPECT_GT(result.l2_read_bytes_per_second.value_or(0), result.dram_read_bytes_per_second.value_or(0))
      << "an L2-resident read should outrun DRAM";
  EXPECT_GT(result.fp32_flops_per_second.value_or(0), 1e12);
  EXPECT_GT(result.dependent_load_latency_ns.value_or(0), 50);
  EXPECT_GT(result.sm_clock_measured_hz.value_or(0), 3e8);
  EXPECT_LT(result.sm_clock_measured_hz.value_or(1e99), 4e9);
}

// With the collector built and working, each kernel is profiled once and analysed; otherwise
// the suite says why and carries on with timing only.
TEST_F(KernelSuiteOnGpu, ProfilesThroughTheCollectorOrSaysWhyNot) {
  SuiteOptions options;
  options.only = {"calibration"};
  options.sizes = ProblemSize::small;
  options.timed_runs = 3;
  std::vector<std::string> notes;
  options.on_note = [&](const std::string& line) { notes.push_back(line); };
  const SuiteResult result = run_suite(options);
  ASSERT_EQ(result.measurements.size(), 4u);
  for (const auto& m : result.measurements) EXPECT_TRUE(m.correct.value_or(false)) << m.name;
  if (!result.profiled) {
    EXPECT_FALSE(result.profiling_note.empty());
    EXPECT_FALSE(notes.empty()) << "the user is told that profiling is unavailable";
    GTEST_SKIP() << "collector unavailable: " << result.profiling_note;
  }
  ASSERT_EQ(result.run.launches.size(), 4u);
  EXPECT_EQ(result.run.source, "cupti");
  for (const auto& launch : result.run.launches) {
    EXPECT_TRUE(launch.counter("smsp__inst_issued.sum").has_value()) << launch.name;
    // The timed runs come after a profiled region: the paused profiler must not slow them
    // (a running one added ~1 ms of range work to every timed launch on an H200).
    const double unprofiled = launch.counter(kTimeUnprofiledCounter).value_or(0);
    const double profiled = launch.counter("gpu__time_duration.sum").value_or(0);
    EXPECT_LT(unprofiled, 1.5 * profiled + 20e3) << launch.name;
  }
}

}  // namespace
}  // namespace limiter::kernels
