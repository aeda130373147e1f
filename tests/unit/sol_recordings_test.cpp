// The Speed-of-Light recordings (tests/data/sol), re-analysed offline: limiter's verdicts on a real PyTorch program
// (bench/workloads/ml_ops.py: cuBLAS/cuDNN GEMMs and convolutions, attention, norms, indexing,
// atomics, sort, scan, elementwise) and on the suite's ML-pattern kernels, against Nsight
// Compute's Speed-of-Light verdicts recorded on the same GPU (tests/data/sol/PROVENANCE.md).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "limiter/analysis.hpp"
#include "limiter/import.hpp"
#include "limiter/kernels/catalog.hpp"
#include "limiter/record_json.hpp"

namespace limiter {
namespace {

const std::string kData = std::string(LIMITER_TEST_DATA_DIR) + "/sol/";

RunAnalysis ncu_export(const std::string& name) {
  std::ifstream in(kData + name);
  EXPECT_TRUE(in) << name;
  return analyze_run(import_ncu_csv(in, name));
}

// Within 3 points of a threshold (60, 80, or the 10-point gap between 60 and 80) is a tie.
bool near_threshold(double compute_pct, double memory_pct) {
  for (double v : {compute_pct, memory_pct})
    for (double t : {60.0, 80.0})
      if (std::fabs(v - t) < 3) return true;
  return std::max(compute_pct, memory_pct) >= 60 && std::max(compute_pct, memory_pct) < 80 &&
         std::fabs(std::fabs(compute_pct - memory_pct) - 10) < 3;
}

struct Agreement {
  std::size_t agree = 0, ties = 0;
  std::vector<std::string> disagreements;
};

Agreement compare(const RunAnalysis& ours, const RunAnalysis& theirs) {
  Agreement result;
  EXPECT_EQ(ours.kernels.size(), theirs.kernels.size());
  for (std::size_t i = 0; i < std::min(ours.kernels.size(), theirs.kernels.size()); ++i) {
    const auto& a = ours.kernels[i];
    const auto& b = theirs.kernels[i];
    EXPECT_EQ(a.grid, b.grid) << i;  // the same launch, in the same order
    EXPECT_EQ(a.block, b.block) << i;
    if (!a.verdict || !b.ncu_verdict) {
      ADD_FAILURE() << "launch " << i << " has no verdict";
      continue;
    }
    const double sm = *b.ncu_sm_throughput, memory = *b.ncu_memory_throughput;
    const bool ncu_balanced = std::max(sm, memory) >= 60 && std::max(sm, memory) < 80 && std::fabs(sm - memory) < 10;
    if (*a.verdict == *b.ncu_verdict || (ncu_balanced && a.balanced)) {
      ++result.agree;
    } else if (near_threshold(*b.ncu_sm_throughput, *b.ncu_memory_throughput) ||
               near_threshold(a.utilization.compute().value_or(0) * 100, a.utilization.memory().value_or(0) * 100)) {
      ++result.ties;
    } else {
      result.disagreements.push_back(std::to_string(i) + " " + a.name.substr(0, 80));
    }
  }
  return result;
}

// ml_ops.py's 97 launches under one of limiter's plans against ncu's export of the same program.
Agreement compare_ml_ops(const std::string& record, const std::string& ncu_csv, bool every_sub_unit) {
  const auto ours = analyze_run(read_run_file(kData + record));
  EXPECT_EQ(ours.kernels.size(), 97u);
  if (every_sub_unit) {
    for (const auto& k : ours.kernels) EXPECT_TRUE(k.utilization.missing_units.empty()) << k.name;
  }
  return compare(ours, ncu_export(ncu_csv));
}

TEST(SolRecordings, H200RealProgramAgreesWithNsightCompute) {
  const auto result = compare_ml_ops("h200_ml_ops_limiter.json", "h200_ml_ops_ncu.csv", false);
  // 2026-11-23: 94 agree, 1 tie; the two others are cub's radix-sort histogram, whose L1/shared
  // data pipe read 55-56 % under user replay and 63.5 % under ncu and under limiter's own
  // kernel-replayed `sol` plan (checked below, where it agrees).
  EXPECT_GE(result.agree, 94u);
  EXPECT_GE(static_cast<double>(result.agree + result.ties) / 97, 0.95);
  for (const auto& name : result.disagreements) EXPECT_NE(name.find("RadixSortHistogram"), std::string::npos) << name;
}

TEST(SolRecordings, H200SolPlanHasEverySubUnitAndReproducesNsightCompute) {
  const auto result = compare_ml_ops("h200_ml_ops_sol.json.gz", "h200_ml_ops_ncu.csv", true);
  // 2026-11-23: 96 of 97 agree or tie; the one other is a 1.3 us bf16 copy (launch 10) at the
  // edge of the latency threshold on one side, whose DRAM share moves with the replay.
  EXPECT_LE(result.disagreements.size(), 1u);
  EXPECT_GE(result.agree, 94u);
}

// The ML-pattern kernels of the suite: correct, as the catalog intends, and what ncu says.
void expect_ml_patterns(const std::string& run_file, const std::string& ncu_file) {
  const auto run = read_run_file(kData + run_file);
  const auto ours = analyze_run(run);
  const auto theirs = ncu_export(ncu_file);
  const std::vector<std::string> names = {"tensor_mma_loop", "shared_bank_conflicts", "atomics_many_addresses",
                                          "atomics_few_addresses", "random_gather"};
  ASSERT_EQ(theirs.kernels.size(), names.size());  // ncu recorded them in the suite's order
  for (std::size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(names[i]);
    std::size_t index = 0;
    while (index < run.launches.size() && run.launches[index].name != names[i]) ++index;
    ASSERT_LT(index, run.launches.size());
    EXPECT_EQ(run.launches[index].counter("limiter__result_correct"), 1.0);
    const auto* entry = kernels::find_entry(names[i]);
    ASSERT_TRUE(entry && entry->intended);
    ASSERT_TRUE(ours.kernels[index].verdict);
    EXPECT_EQ(*ours.kernels[index].verdict, *entry->intended);
    EXPECT_EQ(*ours.kernels[index].verdict, *theirs.kernels[i].ncu_verdict);
  }
  // The named sub-units: what a user reads in the verdict.
  auto unit_of = [&](const std::string& name) {
    for (std::size_t j = 0; j < run.launches.size(); ++j)
      if (run.launches[j].name == name) return ours.kernels[j].limiting_unit;
    return std::string();
  };
  EXPECT_EQ(unit_of("tensor_mma_loop"), "tensor pipe");
  EXPECT_EQ(unit_of("shared_bank_conflicts"), "L1/shared data pipe");
}

TEST(SolRecordings, H200MlPatternKernelsAreAsIntendedAndAsNsightComputeSays) {
  expect_ml_patterns("h200_kernels_run.json", "h200_ml_patterns_ncu.csv");
}

TEST(SolRecordings, H100MlPatternKernelsAreAsIntendedAndAsNsightComputeSays) {
  expect_ml_patterns("h100_kernels_run.json", "h100_ml_patterns_ncu.csv");
}

TEST(SolRecordings, H100RealProgramAgreesWithNsightCompute) {
  const auto result = compare_ml_ops("h100_ml_ops_limiter.json", "h100_ml_ops_ncu.csv", false);
  // 2026-11-23: 94 agree (6 of them balanced on both sides), 2 ties; the one other is a Philox
  // RNG kernel (launch 20) whose DRAM reads 67 % in the app's own order and 53 % under ncu's
  // (and limiter's `sol`) kernel replay: dirty L2 lines of the kernel before it are written back
  // during it when nothing flushes in between.
  EXPECT_GE(result.agree, 90u);
  EXPECT_GE(static_cast<double>(result.agree + result.ties) / 97, 0.95);
  EXPECT_LE(result.disagreements.size(), 1u);
}

TEST(SolRecordings, H100SolPlanReproducesNsightCompute) {
  const auto result = compare_ml_ops("h100_ml_ops_sol.json.gz", "h100_ml_ops_ncu.csv", true);
  EXPECT_TRUE(result.disagreements.empty());
  EXPECT_GE(result.agree, 93u);
}

}  // namespace
}  // namespace limiter
