// The real `limiter run --stalls` record of tests/data/stalls/stall_probe.cu on an H100
// (2026-11-26, bench/results/2026-11-26-stalls-vs-ncu.md): read back, each kernel waits for the reason
// it was written for, and its hot PCs carry SASS and source lines (built with -lineinfo).
#include <gtest/gtest.h>

#include "limiter/record_json.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

double share(const KernelStalls& kernel, const std::string& reason) {
  const auto it = kernel.reasons.find(reason);
  return it == kernel.reasons.end() ? 0 : static_cast<double>(it->second) / static_cast<double>(kernel.samples);
}

TEST(StallsRecording, TheH100ProbeWaitsWhereItWasWrittenTo) {
  const RunRecord run = read_run_file(testing::kData + "/stalls/h100_stalls_probe.json.gz");
  ASSERT_TRUE(run.stalls);
  EXPECT_EQ(run.source, "cupti-pc-sampling");
  EXPECT_EQ(run.stalls->sample_period_cycles, 2048u);
  EXPECT_EQ(run.stalls->dropped_samples, 0u);
  const KernelStalls* chase = find_kernel_stalls(*run.stalls, "chase(unsigned int const*, unsigned int*, int, int)");
  const KernelStalls* barrier = find_kernel_stalls(*run.stalls, "barrier(float*, int)");
  ASSERT_TRUE(chase && barrier);
  EXPECT_GT(share(*chase, "long_scoreboard"), 0.99);  // ncu: 99.4 % of the stall cycles
  EXPECT_GT(share(*barrier, "barrier"), 0.6);         // ncu: 65.9 % (Warp State), 65.7 % (PC sampling)
  EXPECT_EQ(run.stalls->samples, chase->samples + barrier->samples);
  for (const KernelStalls* kernel : {chase, barrier}) {
    ASSERT_EQ(kernel->hot_pcs.size(), 20u);
    for (const HotPc& pc : kernel->hot_pcs) {
      EXPECT_FALSE(pc.sass.empty()) << pc.pc_offset;
      ASSERT_TRUE(pc.line) << pc.pc_offset;
      EXPECT_NE(pc.file->find("stall_probe.cu"), std::string::npos);
    }
  }
  EXPECT_EQ(*chase->hot_pcs[0].line, 13u);              // p = next[p]
  EXPECT_EQ(barrier->hot_pcs[0].sass, "LDS R6, [R4]");  // the load after the barrier waits for it
}

}  // namespace
}  // namespace limiter
