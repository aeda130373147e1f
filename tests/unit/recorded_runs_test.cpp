// Recorded runs from the GPU machine, re-analysed offline: the verdicts must match the
// kernels' intended limiters and Nsight Compute's Speed-of-Light judgement on the same GPU.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "limiter/analysis.hpp"
#include "limiter/import.hpp"
#include "limiter/record_json.hpp"

namespace limiter {
namespace {

const std::string kData = LIMITER_TEST_DATA_DIR;

struct Expected {
  std::uint64_t sequence;
  std::string kernel, verdict, cause;
};

std::vector<Expected> read_expected(const std::string& path) {
  std::ifstream in(path);
  std::vector<Expected> rows;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::stringstream fields(line);
    Expected row;
    std::string sequence;
    std::getline(fields, sequence, ',');
    std::getline(fields, row.kernel, ',');
    std::getline(fields, row.verdict, ',');
    std::getline(fields, row.cause, ',');
    row.sequence = std::stoull(sequence);
    rows.push_back(row);
  }
  return rows;
}

RunRecord import_ncu_file_for_model(std::istream& in) { return import_ncu_csv(in, "h200_probe_raw.csv"); }

RunAnalysis analyze_ncu_file(const std::string& name) {
  std::ifstream in(kData + "/ncu/" + name);
  EXPECT_TRUE(in) << name;
  return analyze_run(import_ncu_csv(in, name));
}

class H200Probe : public ::testing::TestWithParam<const char*> {};

TEST_P(H200Probe, VerdictsMatchIntentAndNcu) {
  const auto analysis = analyze_ncu_file(GetParam());
  const auto expected = read_expected(kData + "/ncu/h200_probe_expected.csv");
  ASSERT_EQ(analysis.kernels.size(), expected.size());
  EXPECT_EQ(analysis.device.arch, "sm_90");
  EXPECT_EQ(analysis.device.sm_count, 132);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& kernel = analysis.kernels[i];
    SCOPED_TRACE(kernel.name);
    EXPECT_EQ(kernel.sequence, expected[i].sequence);
    EXPECT_EQ(kernel.name.rfind(expected[i].kernel, 0), 0u);
    ASSERT_TRUE(kernel.verdict);
    EXPECT_EQ(to_string(*kernel.verdict), expected[i].verdict);
    ASSERT_TRUE(kernel.ncu_verdict);
    EXPECT_EQ(*kernel.ncu_verdict, *kernel.verdict);
    if (!expected[i].cause.empty()) {
      ASSERT_FALSE(kernel.latency_causes.empty());
      EXPECT_EQ(to_string(kernel.latency_causes[0]), expected[i].cause);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BothExportForms, H200Probe, ::testing::Values("h200_probe_raw.csv", "h200_probe_details.csv"));

TEST(H200ProbeNumbers, UtilizationsAgreeWithNcuBreakdowns) {
  const auto analysis = analyze_ncu_file("h200_probe_raw.csv");
  // stream_copy: 1.05 GB in 264.5 us against 1504 B/cycle x 3.199 GHz; ncu DRAM 82.77 %.
  EXPECT_NEAR(*analysis.kernels[0].utilization.dram, 0.8277, 0.002);
  // fma_ilp: 303.1 M issued / (528 x 587,000.71 cycles); ncu SM 97.80 %.
  EXPECT_NEAR(*analysis.kernels[2].utilization.issue, 0.978, 0.001);
  // l2_resident_read: the L2-to-crossbar path is busiest (79.09 %), tag lookups only 53 %.
  EXPECT_NEAR(*analysis.kernels[1].utilization.l2, 0.7909, 1e-4);
  EXPECT_EQ(analysis.kernels[1].utilization.l2_source, "L2-to-crossbar path");
}

TEST(H200ProbeNumbers, ReturnPathModelReproducesNcu) {
  // The one-pass plan cannot hold lts__lts2xbar_cycles_active; L1-sourced read sectors over
  // 188 per L2 cycle stand in for it. Strip ncu's figure and compare with it.
  std::ifstream in(kData + "/ncu/h200_probe_raw.csv");
  RunRecord run = import_ncu_file_for_model(in);
  for (auto& launch : run.launches) {
    const double measured = launch.counters.at("lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed") / 100;
    for (const char* metric :
         {"lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed",
          "lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed",
          "lts__d_sectors.avg.pct_of_peak_sustained_elapsed", "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
          "lts__throughput.avg.pct_of_peak_sustained_elapsed"})
      launch.counters.erase(metric);
    RunRecord one = run;
    one.launches = {launch};
    const auto kernel = analyze_run(one).kernels.at(0);
    SCOPED_TRACE(launch.name);
    const double reads = launch.counters.at("lts__t_sectors_srcunit_tex_op_read.sum");
    const double derived = reads / (188.0 * launch.counters.at("lts__cycles_elapsed.avg"));
    EXPECT_NEAR(derived, measured, 0.01);
    EXPECT_GE(*kernel.utilization.l2 + 1e-12, derived);
  }
}

TEST(H200ProbeNumbers, LocalMemoryKernels) {
  const auto analysis = analyze_ncu_file("h200_probe_raw.csv");
  const auto& local_array = analysis.kernels[5];
  const auto& spill = analysis.kernels[6];
  // Nearly all L1<->L2 traffic of both is local memory, while the seed's estimate sees a
  // third of it: it misses the write-through of store hits (docs/design.md §7).
  EXPECT_GT(*local_array.lmem.l2_share, 0.99);
  EXPECT_LT(*local_array.lmem.l2_share_seed, 0.40);
  EXPECT_GT(*spill.lmem.l2_share, 0.95);
  EXPECT_NEAR(*spill.lmem.instruction_share, 0.436, 0.01);
  EXPECT_TRUE(spill.lmem.significant);
  EXPECT_TRUE(local_array.lmem.warnings.empty());  // write side 100.1 %: within tolerance
  for (std::size_t i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(analysis.kernels[i].lmem.l2_share.value_or(0), 0.0);
}

}  // namespace
}  // namespace limiter

namespace limiter {
namespace {

// limiter run on a real program (PyTorch training steps, cuDNN/cuBLAS kernels) and ncu's
// SOL section on the same program, both on the H200: verdict agreement, kernel by kernel.
TEST(H200PyTorch, VerdictsAgreeWithNcuOnAtLeast95Percent) {
  const auto ours = analyze_run(read_run_file(kData + "/cupti/h200_pytorch_limiter.json"));
  std::ifstream in(kData + "/cupti/h200_pytorch_ncu.csv");
  const auto theirs = analyze_run(import_ncu_csv(in, "h200_pytorch_ncu.csv"));
  ASSERT_EQ(ours.kernels.size(), 84u);
  ASSERT_EQ(theirs.kernels.size(), ours.kernels.size());
  std::size_t agree = 0;
  for (std::size_t i = 0; i < ours.kernels.size(); ++i) {
    // The same launch in the same order (names differ only in demangler style).
    EXPECT_EQ(ours.kernels[i].grid, theirs.kernels[i].grid);
    EXPECT_EQ(ours.kernels[i].block, theirs.kernels[i].block);
    ASSERT_TRUE(ours.kernels[i].verdict && theirs.kernels[i].ncu_verdict);
    agree += *ours.kernels[i].verdict == *theirs.kernels[i].ncu_verdict;
  }
  // 80 of 84 on 2026-11-22; the four others sit at 54-64 % on both sides (see docs/limitations.md).
  EXPECT_GE(agree, 80u);
}

// The collector's counters against ncu --cache-control none on the same app: counters that do
// not depend on cache state agree exactly.
TEST(H200CollectorVsNcu, DeterministicCountersAgreeExactly) {
  const auto ours = read_run_file(kData + "/cupti/h200_collector_app_limiter.json");
  std::ifstream in(kData + "/cupti/h200_collector_app_ncu_nocache.csv");
  const auto theirs = import_ncu_csv(in, "h200_collector_app_ncu_nocache.csv");
  ASSERT_EQ(ours.launches.size(), 17u);
  ASSERT_EQ(theirs.launches.size(), 17u);
  for (std::size_t i = 0; i < 17; ++i) {
    SCOPED_TRACE(ours.launches[i].name);
    for (const char* metric : {"lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum",
                               "smsp__inst_executed_op_local_st.sum", "smsp__inst_executed_op_local_ld.sum",
                               "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum"}) {
      // Kernels that read a few hundred sectors (parameters, code) vary with cache state.
      const double value = theirs.launches[i].counters.at(metric);
      if (value > 10000) {
        EXPECT_EQ(ours.launches[i].counters.at(metric), value) << metric;
      }
    }
    const double issued = ours.launches[i].counters.at("smsp__inst_issued.sum");
    EXPECT_NEAR(issued, theirs.launches[i].counters.at("smsp__inst_issued.sum"), 0.02 * issued);
  }
}

}  // namespace
}  // namespace limiter
