// `limiter run --sampling --per-kernel-count K`: each kernel's first launches profiled exactly,
// then PM sampling. On the host side: the exact launches join their kernel's aggregate (mean per
// launch), a kernel that ran only before sampling keeps its launches, the launch counts add up,
// and the analysis takes the exact verdict where the samples cannot decide and the LMEM shares
// sampling cannot measure.
#include <gtest/gtest.h>

#include "limiter/analysis.hpp"
#include "limiter/record_json.hpp"
#include "limiter/sampling.hpp"

namespace limiter {
namespace {

constexpr double kCycles = 1e6;
constexpr double kSlots = 4 * 132 * kCycles;  // issue slots of an H100 over kCycles

// One launch of SCALE times kCycles.
KernelLaunch launch(const std::string& name, std::uint32_t grid, double issued_share, double scale = 1) {
  KernelLaunch k;
  k.name = name;
  k.mangled_name = "_Z" + std::to_string(name.size()) + name + "v";
  k.grid = {grid, 1, 1};
  k.block = {256, 1, 1};
  k.registers_per_thread = 32;
  k.counters = {{"smsp__inst_issued.sum", scale * issued_share * kSlots},
                {"sm__cycles_elapsed.avg", scale * kCycles},
                {"gpu__time_duration.sum", scale * 5e5}};
  return k;
}

// A sampled aggregate of 100 launches: its counters are their sums, as the fit gives them.
KernelLaunch aggregate(const std::string& name, std::uint32_t grid, double issued_share, std::uint64_t samples,
                       double scale = 1) {
  KernelLaunch k = launch(name, grid, issued_share, 100 * scale);
  k.sampled = SampleSupport{100, 100 * scale * 5e5, samples, 0.9, 0.0, std::nullopt, {}, 0, {}};
  return k;
}

RunRecord sampled_run(std::vector<KernelLaunch> launches) {
  RunRecord run;
  run.device.name = "NVIDIA H100 80GB HBM3";
  run.device.arch = "sm_90";
  run.device.chip = "GH100";
  run.device.sm_count = 132;
  run.sampling = SamplingInfo{};
  run.sampling->interval_ns = 100000;
  run.launches = std::move(launches);
  return run;
}

TEST(BudgetsThenSampling, ExactLaunchesJoinTheirAggregateAsAMeanPerLaunch) {
  std::vector<KernelLaunch> exact = {launch("gemm", 132, 0.90), launch("gemm", 132, 0.70), launch("gemm", 264, 0.50),
                                     launch("setup", 1, 0.01)};
  exact[0].counters["smsp__inst_executed_op_local_ld.sum"] = 10;  // only the first has it
  const auto joined = join_exact_launches({aggregate("gemm", 132, 0.8, 400), aggregate("gemm", 264, 0.5, 300)}, exact);
  ASSERT_EQ(joined.size(), 3u);  // two aggregates, then the kernel that ran only before sampling
  const SampleSupport& first = *joined[0].sampled;
  EXPECT_EQ(first.exact_launches, 2u);
  EXPECT_NEAR(first.exact_counters.at("smsp__inst_issued.sum"), 0.80 * kSlots, 1e-3);  // a launch's, not the sum
  EXPECT_EQ(first.exact_counters.at("smsp__inst_executed_op_local_ld.sum"), 10);       // over the launches that have it
  EXPECT_EQ(first.launches, 100u);                   // the sampled launches stay the sampled ones
  EXPECT_EQ(joined[1].sampled->exact_launches, 1u);  // grid 264: its own configuration
  EXPECT_EQ(joined[2].name, "setup");
  EXPECT_FALSE(joined[2].sampled);
  EXPECT_EQ(joined[2].sequence, 2u);
}

TEST(BudgetsThenSampling, LaunchesSeenAddTheSampledOnesToTheExactPhase) {
  const std::vector<KernelSeen> exact_phase = {{"gemm", {132, 1, 1}, {256, 1, 1}, 67},
                                               {"setup", {1, 1, 1}, {256, 1, 1}, 1}};
  const auto seen =
      add_sampled_launches(exact_phase, {aggregate("gemm", 132, 0.8, 400), aggregate("late", 8, 0.1, 30)});
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].launches, 167u);
  EXPECT_EQ(seen[1].launches, 1u);
  EXPECT_EQ(seen[2].name, "late");  // first seen after the budgets were spent
  EXPECT_EQ(seen[2].launches, 100u);
}

// Five samples decide nothing: the exact launches give the verdict, and the reason says so.
TEST(BudgetsThenSampling, ExactLaunchesJudgeWhereTheSamplesCannot) {
  const auto joined = join_exact_launches({aggregate("gemm", 132, 0.9, 5)}, {launch("gemm", 132, 0.9)});
  const auto analysis = analyze_run(sampled_run(joined));
  const auto& k = analysis.kernels.at(0);
  ASSERT_TRUE(k.verdict) << k.verdict_reason;
  EXPECT_EQ(*k.verdict, Verdict::instruction);
  EXPECT_FALSE(k.too_few_samples);
  EXPECT_NE(k.verdict_reason.find("1 exactly profiled launch before sampling began"), std::string::npos)
      << k.verdict_reason;
  EXPECT_NE(k.verdict_reason.find("fewer than 20 samples"), std::string::npos) << k.verdict_reason;

  const auto alone = analyze_run(sampled_run({aggregate("gemm", 132, 0.9, 5)}));  // without: no verdict
  EXPECT_FALSE(alone.kernels.at(0).verdict);
  EXPECT_NE(alone.kernels.at(0).verdict_reason.find("--per-kernel-count"), std::string::npos);
}

// Where the samples decide, their verdict stands; the evidence says whether the exact launches agree.
TEST(BudgetsThenSampling, SampledVerdictStandsAndTheEvidenceComparesIt) {
  const auto same =
      analyze_run(sampled_run(join_exact_launches({aggregate("gemm", 132, 0.9, 400)}, {launch("gemm", 132, 0.9)})));
  ASSERT_TRUE(same.kernels.at(0).verdict);
  EXPECT_EQ(*same.kernels.at(0).verdict, Verdict::instruction);
  bool compared = false;
  for (const auto& e : same.kernels.at(0).evidence)
    compared |= e.quantity == "exact" && e.detail.find("as the samples do") != std::string::npos;
  EXPECT_TRUE(compared);

  // The kernel changed after its first launch (a warm-up at 10 % of the issue slots); a kernel ten
  // times its size keeps the run's sampled instructions close to what the exact launches give.
  const auto changed = analyze_run(
      sampled_run(join_exact_launches({aggregate("gemm", 132, 0.9, 400), aggregate("big", 264, 0.9, 4000, 10)},
                                      {launch("gemm", 132, 0.1), launch("big", 264, 0.9, 10)})));
  ASSERT_TRUE(changed.kernels.at(0).verdict);
  EXPECT_EQ(*changed.kernels.at(0).verdict, Verdict::instruction);
  bool differs = false;
  for (const auto& e : changed.kernels.at(0).evidence)
    differs |= e.quantity == "exact" && e.detail.find("the kernel changed") != std::string::npos;
  EXPECT_TRUE(differs);
}

// Sampling measures no local memory (a second pass); the exact launches do.
TEST(BudgetsThenSampling, LmemSharesComeFromTheExactLaunches) {
  KernelLaunch spilled = launch("spill", 132, 0.9);
  spilled.counters["smsp__inst_executed_op_local_ld.sum"] = 0.05 * 0.9 * kSlots;
  spilled.counters["smsp__inst_executed_op_local_st.sum"] = 0.05 * 0.9 * kSlots;
  const auto analysis = analyze_run(sampled_run(join_exact_launches({aggregate("spill", 132, 0.9, 400)}, {spilled})));
  const auto& lmem = analysis.kernels.at(0).lmem;
  ASSERT_TRUE(lmem.instruction_share);
  EXPECT_NEAR(*lmem.instruction_share, 0.10, 1e-9);
  const auto sampled_only = analyze_run(sampled_run({aggregate("spill", 132, 0.9, 400)}));
  EXPECT_FALSE(sampled_only.kernels.at(0).lmem.instruction_share);
}

// A fit that puts a unit far above its peak did not separate the kernel (H100, 2026-11-25: a GEMM
// at 135 % of the L1 data pipe, standard errors of 2 %): no sampled verdict, whatever the errors
// say; the exact launches judge instead.
TEST(BudgetsThenSampling, AnImpossibleFitGivesNoSampledVerdict) {
  KernelLaunch fitted = aggregate("gemm", 132, 1.35, 400);
  fitted.sampled->standard_errors = {{"smsp__inst_issued.sum", 0.01 * kSlots}};
  const auto alone = analyze_run(sampled_run({fitted}));
  EXPECT_FALSE(alone.kernels.at(0).verdict);
  EXPECT_NE(alone.kernels.at(0).verdict_reason.find("more than the hardware can do"), std::string::npos)
      << alone.kernels.at(0).verdict_reason;
  const auto joined = analyze_run(sampled_run(join_exact_launches({fitted}, {launch("gemm", 132, 0.3)})));
  ASSERT_TRUE(joined.kernels.at(0).verdict) << joined.kernels.at(0).verdict_reason;
  EXPECT_EQ(*joined.kernels.at(0).verdict, Verdict::latency);
  KernelLaunch plausible = fitted;  // 105 %: within the systematic share, judged
  plausible.counters["smsp__inst_issued.sum"] = 1.05 * kSlots;
  EXPECT_TRUE(analyze_run(sampled_run({plausible})).kernels.at(0).verdict);
}

// Samples that counted no instruction while kernels ran (the SM side dead, as after the range
// profiler on an H100): no sampled verdict for any kernel, the exact launches judge, and the
// record keeps the flag.
TEST(BudgetsThenSampling, SamplesWithoutSmWorkGiveNoSampledVerdict) {
  KernelLaunch fitted = aggregate("gemm", 132, 0.9, 400);
  fitted.sampled->standard_errors = {{"smsp__inst_issued.sum", 0.001 * kSlots}};
  RunRecord dead = sampled_run({fitted});
  dead.sampling->sm_side_counted = false;
  const auto alone = analyze_run(dead);
  EXPECT_FALSE(alone.kernels.at(0).verdict);
  EXPECT_NE(alone.kernels.at(0).verdict_reason.find("SM-side counters did not count"), std::string::npos)
      << alone.kernels.at(0).verdict_reason;
  RunRecord joined = sampled_run(join_exact_launches({fitted}, {launch("gemm", 132, 0.3)}));
  joined.sampling->sm_side_counted = false;
  const auto judged = analyze_run(joined);
  ASSERT_TRUE(judged.kernels.at(0).verdict);
  EXPECT_EQ(*judged.kernels.at(0).verdict, Verdict::latency);  // the exact launch's, not the samples' 90 %
  const auto json = to_json(dead);
  EXPECT_EQ(json["sampling"]["sm_side_counted"], false);
  EXPECT_FALSE(run_from_json(nlohmann::json::parse(json.dump())).sampling->sm_side_counted);
  EXPECT_FALSE(to_json(sampled_run({fitted}))["sampling"].contains("sm_side_counted"));  // written only when false
}

// The samples must account for the instructions the exact launches give the sampled ones
// (H100, 2026-11-25: 1-4 % and 75 % after the range profiler): else no sampled verdict.
TEST(BudgetsThenSampling, SamplesThatMissTheExactPhasesInstructionsGiveNoSampledVerdict) {
  KernelLaunch fitted = aggregate("gemm", 132, 0.9, 400);
  fitted.sampled->standard_errors = {{"smsp__inst_issued.sum", 0.001 * kSlots}};
  const auto missing = analyze_run(sampled_run(join_exact_launches({fitted}, {launch("gemm", 132, 0.9 / 0.75)})));
  EXPECT_NE(missing.kernels.at(0).verdict_reason.find("the samples account for 75.0% of the instructions"),
            std::string::npos)
      << missing.kernels.at(0).verdict_reason;
  EXPECT_NE(missing.kernels.at(0).verdict_reason.find("before sampling began"), std::string::npos);
  const auto close = analyze_run(sampled_run(join_exact_launches({fitted}, {launch("gemm", 132, 0.9 / 0.85)})));
  EXPECT_NE(close.kernels.at(0).verdict_reason.find("[sampled:"), std::string::npos)
      << close.kernels.at(0).verdict_reason;
}

// An exact phase whose --metrics lack the instructions cannot vouch for the samples' SM side
// (H100, 2026-11-25: after such a phase 0-2.4 % of the samples counted any): no sampled verdict.
TEST(BudgetsThenSampling, AnExactPhaseWithoutInstructionsGivesNoSampledVerdict) {
  KernelLaunch fitted = aggregate("gemm", 132, 0.9, 400);
  fitted.sampled->standard_errors = {{"smsp__inst_issued.sum", 0.001 * kSlots}};
  KernelLaunch exact = launch("gemm", 132, 0.9);
  exact.counters.erase("smsp__inst_issued.sum");
  const auto analysis = analyze_run(sampled_run(join_exact_launches({fitted}, {exact})));
  EXPECT_NE(analysis.kernels.at(0).verdict_reason.find("did not count instructions"), std::string::npos)
      << analysis.kernels.at(0).verdict_reason;
  EXPECT_EQ(analysis.kernels.at(0).verdict_reason.find("[sampled:"), std::string::npos);
  // Without an exact phase (--sampling alone) the samples are not held to one.
  const auto alone = analyze_run(sampled_run({fitted}));
  EXPECT_NE(alone.kernels.at(0).verdict_reason.find("[sampled:"), std::string::npos)
      << alone.kernels.at(0).verdict_reason;
}

// Sampling first (--exact-undecided): the exact launches came after the sampling phase; the
// record says so and the verdict's words follow it.
TEST(BudgetsThenSampling, ExactLaunchesAfterTheSamplingPhaseSaySo) {
  RunRecord run = sampled_run(join_exact_launches({aggregate("gemm", 132, 0.9, 5)}, {launch("gemm", 132, 0.9)}));
  run.sampling->exact_after_sampling = true;
  const auto json = to_json(run);
  EXPECT_EQ(json["sampling"]["exact_phase"], "after_sampling");
  EXPECT_TRUE(run_from_json(nlohmann::json::parse(json.dump())).sampling->exact_after_sampling);
  EXPECT_FALSE(to_json(sampled_run({}))["sampling"].contains("exact_phase"));
  const auto analysis = analyze_run(run);
  EXPECT_NE(analysis.kernels.at(0).verdict_reason.find("after the sampling phase"), std::string::npos)
      << analysis.kernels.at(0).verdict_reason;
  EXPECT_EQ(analysis.kernels.at(0).verdict_reason.find("before sampling began"), std::string::npos);
}

TEST(BudgetsThenSampling, ExactCountersRoundTripInTheRecord) {
  RunRecord run = sampled_run(join_exact_launches({aggregate("gemm", 132, 0.9, 5)}, {launch("gemm", 132, 0.9)}));
  const auto json = to_json(run);
  EXPECT_EQ(json["launches"][0]["sampled"]["exact_launches"], 1);
  EXPECT_TRUE(json["launches"][0]["sampled"].contains("exact:smsp__inst_issued.sum"));
  const RunRecord back = run_from_json(nlohmann::json::parse(json.dump()));
  EXPECT_EQ(back.launches.at(0).sampled, run.launches.at(0).sampled);
}

}  // namespace
}  // namespace limiter
