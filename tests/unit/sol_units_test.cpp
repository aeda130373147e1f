// ncu's two Speed-of-Light percentages are the maxima over its breakdown sub-units; limiter's
// compute and memory utilisations are the same maxima over the sub-units a record holds
// (lib/src/analysis/sol_units.hpp). On ncu exports that carry the whole breakdown they must
// reproduce ncu's figures exactly, kernel by kernel.
#include <gtest/gtest.h>

#include <fstream>

#include "limiter/analysis.hpp"
#include "limiter/import.hpp"

namespace limiter {
namespace {

const std::string kData = LIMITER_TEST_DATA_DIR;

void expect_sol_maxima_match(const std::string& path) {
  std::ifstream in(kData + "/" + path);
  ASSERT_TRUE(in) << path;
  const auto analysis = analyze_run(import_ncu_csv(in, path));
  ASSERT_FALSE(analysis.kernels.empty());
  for (const auto& k : analysis.kernels) {
    SCOPED_TRACE(path + ": " + std::to_string(k.sequence) + " " + k.name.substr(0, 60));
    ASSERT_TRUE(k.ncu_sm_throughput && k.ncu_memory_throughput);
    EXPECT_NEAR(k.utilization.compute().value_or(0) * 100, *k.ncu_sm_throughput, 0.01);
    EXPECT_NEAR(k.utilization.memory().value_or(0) * 100, *k.ncu_memory_throughput, 0.01);
    EXPECT_TRUE(k.utilization.missing_units.empty());
  }
}

TEST(SolUnits, MaximaReproduceNsightComputeOnAPyTorchProgram) { expect_sol_maxima_match("cupti/h200_pytorch_ncu.csv"); }

TEST(SolUnits, MaximaReproduceNsightComputeOnTheProbe) { expect_sol_maxima_match("ncu/h200_probe_raw.csv"); }

}  // namespace
}  // namespace limiter
