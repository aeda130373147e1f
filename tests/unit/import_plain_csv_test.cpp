// Plain kernel,metric,value CSV import: the seed 001 case study (legacy counters), counter
// model detection, launch pseudo-metrics, and errors that name the line.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "limiter/error.hpp"
#include "limiter/import.hpp"

namespace limiter {
namespace {

const std::string kSeedFile = std::string(LIMITER_TEST_DATA_DIR) + "/seed001_fermi_case_study.csv";

RunRecord import_text(const std::string& text, const std::string& arch = "sm_90", int sm_count = 132) {
  std::istringstream in(text);
  return import_plain_csv(in, "inline.csv", arch, sm_count);
}

std::string import_error(const std::string& text, const std::string& arch = "sm_90", int sm_count = 132) {
  try {
    import_text(text, arch, sm_count);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

RunRecord import_seed() {
  std::ifstream in(kSeedFile);
  if (!in) throw std::runtime_error("test data missing: " + kSeedFile);
  return import_plain_csv(in, kSeedFile, "sm_20", 16);
}

TEST(ImportPlainCsv, SeedCaseStudyAsWritten) {
  const RunRecord run = import_seed();
  EXPECT_EQ(run.source, "plain-csv");
  EXPECT_EQ(run.counter_model, CounterModel::legacy);
  EXPECT_EQ(run.device.arch, "sm_20");
  EXPECT_EQ(run.device.sm_count, 16);
  ASSERT_EQ(run.launches.size(), 1u);
  const KernelLaunch& kernel = run.launches[0];
  EXPECT_EQ(kernel.sequence, 0u);
  EXPECT_EQ(kernel.name, "fwd_3D_orderX2b<4,9>");
  EXPECT_EQ(kernel.counter("l1_local_load_miss"), 564332.0);
  EXPECT_EQ(kernel.counter("l1_local_load_hit"), 91520.0);
  EXPECT_EQ(kernel.counter("l1_local_store_miss"), 269215.0);
  EXPECT_EQ(kernel.counter("l1_local_store_hit"), 13477.0);
  EXPECT_EQ(kernel.counter("inst_issued"), 20412251.0);
  // Only the totals are the seed's; the sub-partition split must add up to them exactly.
  EXPECT_EQ(*kernel.counter("l2_subp0_read_sector_queries") + *kernel.counter("l2_subp1_read_sector_queries"),
            99435608.0);
  EXPECT_EQ(*kernel.counter("l2_subp0_write_sector_queries") + *kernel.counter("l2_subp1_write_sector_queries"),
            33385908.0);
  // ptxas -v in the seed: 32 registers, 44 bytes lmem, 6912 bytes smem.
  EXPECT_EQ(kernel.registers_per_thread, 32);
  EXPECT_EQ(kernel.local_bytes_per_thread, 44u);
  EXPECT_EQ(kernel.total_shared_bytes(), 6912u);
  EXPECT_EQ(kernel.counters.size(), 12u);  // the pseudo-metrics stay in the counters too
}

TEST(ImportPlainCsv, KernelsInOrderOfFirstAppearanceWithoutHeader) {
  const RunRecord run = import_text(
      "# comment\n"
      "\n"
      "b,smsp__inst_issued.sum,10\n"
      "\"a<1,2>(int, float)\",smsp__inst_issued.sum,20\n"
      "b,gpu__time_duration.sum,\"1,500\"\n"
      "  c , lts__t_sectors_op_read.sum , 1.5e3 \r\n");
  EXPECT_EQ(run.counter_model, CounterModel::perfworks);
  ASSERT_EQ(run.launches.size(), 3u);
  EXPECT_EQ(run.launches[0].name, "b");
  EXPECT_EQ(run.launches[1].name, "a<1,2>(int, float)");
  EXPECT_EQ(run.launches[2].name, "c");
  EXPECT_EQ(run.launches[2].sequence, 2u);
  EXPECT_EQ(run.launches[0].counter("gpu__time_duration.sum"), 1500.0);
  EXPECT_EQ(run.launches[2].counter("lts__t_sectors_op_read.sum"), 1500.0);
}

TEST(ImportPlainCsv, HeaderIsOptionalAndCaseInsensitive) {
  const RunRecord run = import_text("Kernel,Metric,Value\nk,inst_issued,7\n", "sm_35", 15);
  EXPECT_EQ(run.counter_model, CounterModel::legacy);
  EXPECT_EQ(run.device.arch, "sm_35");
  EXPECT_EQ(run.device.sm_count, 15);
  ASSERT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(run.launches[0].counter("inst_issued"), 7.0);
}

TEST(ImportPlainCsv, LaunchPseudoMetricsFillTheLaunch) {
  const RunRecord run = import_text(
      "k,inst_issued,1\n"
      "k,launch__grid_size,1000\n"
      "k,launch__block_size,256\n"
      "k,launch__registers_per_thread,63\n"
      "k,launch__shared_mem_per_block_static,4096\n"
      "k,launch__shared_mem_per_block_dynamic,1024\n",
      "sm_20", 16);
  // launch__* names have "__" but do not make a legacy run look like PerfWorks.
  EXPECT_EQ(run.counter_model, CounterModel::legacy);
  const KernelLaunch& kernel = run.launches[0];
  EXPECT_EQ(kernel.grid, (Dim3{1000, 1, 1}));
  EXPECT_EQ(kernel.block, (Dim3{256, 1, 1}));
  EXPECT_EQ(kernel.registers_per_thread, 63);
  EXPECT_EQ(kernel.static_shared_bytes, 4096u);
  EXPECT_EQ(kernel.dynamic_shared_bytes, 1024u);
}

TEST(ImportPlainCsv, MixedCounterModelsAreRejected) {
  const std::string message = import_error("k,l1_local_load_miss,1\nk,smsp__inst_issued.sum,2\n");
  EXPECT_NE(message.find("mixes counter models"), std::string::npos) << message;
  EXPECT_NE(message.find("l1_local_load_miss (line 1)"), std::string::npos) << message;
  EXPECT_NE(message.find("smsp__inst_issued.sum (line 2)"), std::string::npos) << message;
}

TEST(ImportPlainCsv, UnknownCounterModelIsRejected) {
  const std::string message = import_error("k,duration,1\n");
  EXPECT_NE(message.find("cannot tell the counter model"), std::string::npos) << message;
}

TEST(ImportPlainCsv, NonNumericValueNamesTheLine) {
  const std::string message = import_error("kernel,metric,value\nk,inst_issued,12\nk,inst_executed,lots\n");
  EXPECT_NE(message.find("inline.csv:3:"), std::string::npos) << message;
  EXPECT_NE(message.find("'lots', not a number"), std::string::npos) << message;
}

TEST(ImportPlainCsv, TruncatedRowNamesTheLine) {
  const std::string message = import_error("k,inst_issued,12\nk,inst_executed\n");
  EXPECT_NE(message.find("inline.csv:2: expected 3 fields"), std::string::npos) << message;
}

TEST(ImportPlainCsv, UnquotedCommaInKernelNameIsExplained) {
  const std::string message = import_error("fwd<4,9>,inst_issued,12\n");
  EXPECT_NE(message.find("inline.csv:1: expected 3 fields (kernel,metric,value), found 4"), std::string::npos)
      << message;
  EXPECT_NE(message.find("quote kernel names"), std::string::npos) << message;
}

TEST(ImportPlainCsv, RepeatedMetricNamesBothLines) {
  const std::string message = import_error("k,inst_issued,12\nk,inst_issued,13\n");
  EXPECT_NE(message.find("inline.csv:2:"), std::string::npos) << message;
  EXPECT_NE(message.find("already given on line 1"), std::string::npos) << message;
}

TEST(ImportPlainCsv, BadLaunchValueNamesItsLine) {
  const std::string message = import_error("k,inst_issued,1\nk,launch__block_size,12.5\n", "sm_20", 16);
  EXPECT_NE(message.find("inline.csv:2: launch__block_size must be a whole number"), std::string::npos) << message;
}

TEST(ImportPlainCsv, SmCountMustBePositive) {
  const std::string message = import_error("k,inst_issued,1\n", "sm_20", 0);
  EXPECT_NE(message.find("SM count must be positive, not 0"), std::string::npos) << message;
}

TEST(ImportPlainCsv, ArchMustLookLikeSmNN) {
  for (const char* arch : {"fermi", "sm_", "sm_9", "sm_9000", "90", ""}) {
    const std::string message = import_error("k,inst_issued,1\n", arch, 16);
    EXPECT_NE(message.find("is not of the form sm_NN"), std::string::npos) << arch << ": " << message;
  }
  EXPECT_EQ(import_error("k,smsp__inst_issued.sum,1\n", "sm_100a", 148), "");
}

TEST(ImportPlainCsv, EmptyInputIsRejected) {
  const std::string message = import_error("# nothing\nkernel,metric,value\n");
  EXPECT_NE(message.find("has no kernel,metric,value rows"), std::string::npos) << message;
}

}  // namespace
}  // namespace limiter
