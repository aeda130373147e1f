// The verdict rule (docs/design.md §7, ncu SOLBottleneck thresholds) on synthetic counters whose
// utilisations are known exactly: an H200-like device, 1 ms kernels.
#include <gtest/gtest.h>

#include <algorithm>

#include "limiter/analysis.hpp"

namespace limiter {
namespace {

constexpr double kCycles = 1.0e6;

// A launch with issue, L2 and DRAM utilisations set to the given fractions.
KernelLaunch launch_with(double issue, double l2, double dram) {
  KernelLaunch k;
  k.name = "synthetic";
  k.grid = {132 * 8, 1, 1};
  k.block = {256, 1, 1};
  k.registers_per_thread = 32;
  k.counters = {{"gpu__time_duration.sum", 1.0e6},  // 1 ms
                {"sm__cycles_elapsed.avg", kCycles},
                {"smsp__inst_issued.sum.peak_sustained", 528},
                {"smsp__inst_issued.sum", issue * 528 * kCycles},
                {"lts__t_sectors.sum.peak_sustained", 282},
                {"lts__cycles_elapsed.avg", kCycles},
                {"lts__t_sectors_op_read.sum", l2 * 282 * kCycles},
                {"lts__t_sectors_op_write.sum", 0},
                {"dram__bytes.sum.peak_sustained", 1504},
                {"dram__cycles_elapsed.avg.per_second", 3.2e9},
                {"dram__bytes_read.sum", dram * 1504 * 3.2e9 * 1e-3},
                {"dram__bytes_write.sum", 0}};
  return k;
}

KernelAnalysis analyze_one(const KernelLaunch& k, const AnalysisOptions& options = {}) {
  RunRecord run;
  run.device = {"NVIDIA H200", "sm_90", "GH100", 132, {}, {}, {}, {}, {}, ""};
  run.launches = {k};
  return analyze_run(run, options).kernels.at(0);
}

TEST(Verdict, UtilizationsFollowTheFormulas) {
  const auto k = analyze_one(launch_with(0.25, 0.5, 0.75));
  EXPECT_NEAR(*k.utilization.issue, 0.25, 1e-12);
  EXPECT_NEAR(*k.utilization.l2, 0.5, 1e-12);
  EXPECT_NEAR(*k.utilization.dram, 0.75, 1e-12);
  EXPECT_EQ(k.utilization.l2_source, "L2 tag lookups");
}

TEST(Verdict, HighThroughputPicksTheBusiestSide) {
  EXPECT_EQ(analyze_one(launch_with(0.10, 0.30, 0.85)).verdict, Verdict::bandwidth);
  EXPECT_EQ(analyze_one(launch_with(0.10, 0.30, 0.85)).limiting_unit, "DRAM");
  EXPECT_EQ(analyze_one(launch_with(0.90, 0.30, 0.20)).verdict, Verdict::instruction);
  EXPECT_EQ(analyze_one(launch_with(0.10, 0.80, 0.20)).verdict, Verdict::bandwidth);  // exactly 80 %
  EXPECT_EQ(analyze_one(launch_with(0.10, 0.80, 0.20)).limiting_unit, "L2 tag lookups");
}

TEST(Verdict, BothBelowSixtyIsLatency) {
  const auto k = analyze_one(launch_with(0.59, 0.20, 0.10));
  EXPECT_EQ(k.verdict, Verdict::latency);
  EXPECT_TRUE(k.latency_causes.empty());  // full grid, 100 % occupancy at 32 registers
  EXPECT_FALSE(k.advice.empty());
}

TEST(Verdict, BetweenSixtyAndEightyTheLeaderWinsByTenPoints) {
  const auto memory = analyze_one(launch_with(0.50, 0.70, 0.10));
  EXPECT_EQ(memory.verdict, Verdict::bandwidth);
  EXPECT_FALSE(memory.balanced);
  const auto compute = analyze_one(launch_with(0.70, 0.30, 0.30));
  EXPECT_EQ(compute.verdict, Verdict::instruction);
}

TEST(Verdict, WithinTenPointsIsBalanced) {
  const auto k = analyze_one(launch_with(0.65, 0.70, 0.10));
  EXPECT_TRUE(k.balanced);
  EXPECT_EQ(k.verdict, Verdict::bandwidth);  // the larger side, flagged as balanced
  EXPECT_NE(k.verdict_reason.find("balanced"), std::string::npos);
}

TEST(Verdict, ThresholdsAreConfigurable) {
  AnalysisOptions options;
  options.thresholds.latency = 0.75;
  options.thresholds.high_utilization = 0.90;
  EXPECT_EQ(analyze_one(launch_with(0.70, 0.30, 0.30), options).verdict, Verdict::latency);
  EXPECT_EQ(analyze_one(launch_with(0.10, 0.30, 0.85), options).verdict, Verdict::bandwidth);  // 85 vs 30: leads
}

TEST(Verdict, SmallGridIsNamed) {
  auto launch = launch_with(0.10, 0.05, 0.05);
  launch.grid = {16, 1, 1};
  const auto k = analyze_one(launch);
  EXPECT_EQ(k.verdict, Verdict::latency);
  ASSERT_EQ(k.latency_causes.size(), 1u);
  EXPECT_EQ(k.latency_causes[0], LatencyCause::small_grid);
}

TEST(Verdict, LowOccupancyIsNamedWithItsLimiter) {
  auto launch = launch_with(0.30, 0.20, 0.10);
  launch.registers_per_thread = 128;  // 256 threads x 128 registers: 2 blocks, 16 warps, 25 %
  const auto k = analyze_one(launch);
  ASSERT_TRUE(k.occupancy.theoretical);
  EXPECT_DOUBLE_EQ(k.occupancy.theoretical->occupancy, 0.25);
  EXPECT_EQ(k.latency_causes.at(0), LatencyCause::low_occupancy);
  EXPECT_NE(k.verdict_reason.find("registers"), std::string::npos);
}

TEST(Verdict, TailEffectIsNamed) {
  // Seed 003's shape on an H200: 8 blocks/SM x 132 SMs = 1056 per wave; 2 full waves and a
  // tail of 200 blocks leave (3 - 2.19) / 3 = 27 % of SM time idle.
  auto launch = launch_with(0.30, 0.20, 0.10);
  launch.grid = {2 * 1056 + 200, 1, 1};
  const auto k = analyze_one(launch);
  ASSERT_TRUE(k.occupancy.waves);
  EXPECT_EQ(k.occupancy.waves->full_waves, 2u);
  EXPECT_EQ(k.occupancy.waves->tail_blocks, 200u);
  EXPECT_EQ(k.latency_causes.at(0), LatencyCause::tail_effect);
}

TEST(Verdict, NoCountersNoVerdict) {
  KernelLaunch k;
  k.name = "bare";
  const auto result = analyze_one(k);
  EXPECT_FALSE(result.verdict);
  EXPECT_NE(result.verdict_reason.find("no verdict"), std::string::npos);
}

TEST(Verdict, PipesCountAgainstElapsedCycles) {
  auto launch = launch_with(0.10, 0.05, 0.05);
  launch.counters["sm__cycles_active.avg"] = 0.5 * kCycles;
  launch.counters["sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active"] = 90.0;  // 45 % of elapsed
  launch.counters["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"] = 85.0;
  const auto k = analyze_one(launch);
  EXPECT_NEAR(k.utilization.pipes.at("FP64 pipe"), 0.45, 1e-12);
  EXPECT_EQ(k.verdict, Verdict::instruction);
  EXPECT_EQ(k.limiting_unit, "FMA pipe");
}

// The kernels that dominate ML time: a sub-unit that issue slots and sector counts do not see.
TEST(Verdict, TensorPipeMakesAGemmInstructionLimited) {
  auto launch = launch_with(0.18, 0.57, 0.30);  // issue 18 %, L2 57 %: "bandwidth" without the pipe
  launch.counters["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"] = 88.0;
  const auto k = analyze_one(launch);
  EXPECT_EQ(k.verdict, Verdict::instruction);
  EXPECT_EQ(k.limiting_unit, "tensor pipe");
  EXPECT_EQ(k.limiting_group, "pipe");
  EXPECT_NE(k.verdict_reason.find("tensor pipe 88"), std::string::npos) << k.verdict_reason;
}

TEST(Verdict, L2AtomicsMakeAScatterBandwidthLimited) {
  auto launch = launch_with(0.10, 0.51, 0.20);
  launch.counters["lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed"] = 76.0;
  const auto k = analyze_one(launch);
  EXPECT_EQ(k.verdict, Verdict::bandwidth);
  EXPECT_EQ(k.limiting_unit, "L2 atomics and reductions");
  EXPECT_EQ(k.limiting_group, "l2");
}

TEST(Verdict, MissingSubUnitsAreNamedWithThePlanThatCollectsThem) {
  auto launch = launch_with(0.30, 0.40, 0.20);
  launch.counters["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"] = 10.0;
  const auto k = analyze_one(launch);
  EXPECT_EQ(k.verdict, Verdict::latency);
  const auto coverage =
      std::find_if(k.evidence.begin(), k.evidence.end(), [](const Evidence& e) { return e.quantity == "coverage"; });
  ASSERT_NE(coverage, k.evidence.end());
  EXPECT_NE(coverage->detail.find("FP64 pipe"), std::string::npos) << coverage->detail;
  EXPECT_NE(coverage->detail.find("--plan sol"), std::string::npos);
  EXPECT_NE(coverage->detail.find("could be the busier unit"), std::string::npos);
}

TEST(Verdict, L2IsTheBusiestSubUnit) {
  auto launch = launch_with(0.20, 0.50, 0.05);
  launch.counters["lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed"] = 79.0;
  const auto k = analyze_one(launch);
  EXPECT_NEAR(*k.utilization.l2, 0.79, 1e-12);
  EXPECT_EQ(k.utilization.l2_source, "L2-to-crossbar path");
  EXPECT_EQ(k.verdict, Verdict::bandwidth);
}

TEST(Verdict, CalibratedPeaksChangeTheLabel) {
  // docs/design.md §7: 2.77 TB/s is 58 % of the theoretical 4.81 TB/s but 62 % of the calibrated
  // 4.47 TB/s — the peak choice flips latency to bandwidth.
  auto launch = launch_with(0.147, 0.27, 0.0);
  launch.counters.erase("dram__bytes.sum.peak_sustained");
  launch.counters.erase("dram__cycles_elapsed.avg.per_second");
  launch.counters["dram__bytes_read.sum"] = 2.77e12 * 1e-3;
  launch.counters["lts__t_sectors_srcunit_tex_op_read.sum"] = 0.27 * 282 * kCycles;
  const auto theoretical = analyze_one(launch);
  EXPECT_NEAR(*theoretical.utilization.dram, 2.77 / 4.81, 1e-9);
  EXPECT_EQ(theoretical.verdict, Verdict::latency);
  AnalysisOptions calibrated;
  calibrated.peaks = PeakKind::calibrated;
  const auto measured = analyze_one(launch, calibrated);
  EXPECT_NEAR(*measured.utilization.dram, 2.77 / 4.47, 1e-9);
  EXPECT_EQ(measured.verdict, Verdict::bandwidth);
}

TEST(Verdict, NcuSolRuleMirrorsSpeedOfLightPy) {
  EXPECT_EQ(ncu_sol_verdict(97.8, 0.1, 1), Verdict::instruction);
  EXPECT_EQ(ncu_sol_verdict(6.1, 82.8, 1), Verdict::bandwidth);
  EXPECT_EQ(ncu_sol_verdict(27.6, 79.1, 1), Verdict::bandwidth);
  EXPECT_EQ(ncu_sol_verdict(11.6, 0.1, 0.02), Verdict::latency);
  EXPECT_EQ(ncu_sol_verdict(59.9, 59.9, 5), Verdict::latency);
}

TEST(Verdict, BandwidthLimitedSpillsGetTheSeedsRemedies) {
  auto launch = launch_with(0.10, 0.85, 0.20);
  launch.counters["l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum"] = 0.3 * 282 * kCycles;
  launch.counters["l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum"] = 0.1 * 282 * kCycles;
  launch.counters["l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum"] = 0.0;
  launch.counters["lts__t_sectors_srcunit_tex_op_read.sum"] = 0.6 * 282 * kCycles;
  launch.counters["lts__t_sectors_srcunit_tex_op_write.sum"] = 0.2 * 282 * kCycles;
  const auto k = analyze_one(launch);
  EXPECT_EQ(k.verdict, Verdict::bandwidth);
  EXPECT_NEAR(*k.lmem.l2_share, 0.5, 1e-12);
  EXPECT_TRUE(k.lmem.significant);
  EXPECT_FALSE(k.lmem.dominant);  // 85 % x 50 % = 42.5 % < 60 %
  EXPECT_NE(k.advice.at(0).find("-maxrregcount"), std::string::npos);
  EXPECT_NE(k.advice.at(0).find("-dlcm=cg"), std::string::npos);
  EXPECT_NE(k.advice.at(0).find("Carveout"), std::string::npos);
}

TEST(Verdict, InstructionLimitedWithFewLocalInstructionsIsNotWorthFixing) {
  auto launch = launch_with(0.90, 0.10, 0.10);
  launch.counters["smsp__inst_executed_op_local_ld.sum"] = 0.03 * 0.9 * 528 * kCycles;
  launch.counters["smsp__inst_executed_op_local_st.sum"] = 0.01 * 0.9 * 528 * kCycles;
  const auto k = analyze_one(launch);
  EXPECT_EQ(k.verdict, Verdict::instruction);
  EXPECT_NEAR(*k.lmem.instruction_share, 0.04, 1e-12);
  EXPECT_FALSE(k.lmem.significant);
  EXPECT_NE(k.advice.at(0).find("not worth fixing"), std::string::npos);
}

}  // namespace
}  // namespace limiter
