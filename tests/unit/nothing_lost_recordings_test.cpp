// The records of programs that ended badly, made on an H100 (tests/data/nothing_lost/
// PROVENANCE.md), re-read and re-analysed offline: every launch is there, and what is missing
// is said.
#include <gtest/gtest.h>

#include <sstream>

#include "limiter/analysis.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

RunRecord recording(const std::string& name) { return read_run_file(testing::kData + "/nothing_lost/" + name); }

std::size_t adds_of(const RunRecord& run) {
  std::size_t adds = 0;
  for (const auto& launch : run.launches) {
    EXPECT_TRUE(launch.counter("gpu__time_duration.sum").has_value()) << launch.sequence;
    adds += launch.name.find("AddFunctor") != std::string::npos || launch.name.find("add") != std::string::npos;
  }
  return adds;
}

TEST(NothingLostRecordings, KilledAfterASynchroniseEveryLaunchIsThere) {
  const RunRecord run = recording("h100_pytorch_sync_kill.json.gz");
  EXPECT_EQ(run.launches.size(), 203u);
  EXPECT_EQ(adds_of(run), 202u);
  EXPECT_EQ(run.ended, "signal SIGKILL");
  EXPECT_TRUE(run.missed.empty());
  std::ostringstream text;
  write_text_report(summarize(analyze_run(run)), text);
  EXPECT_NE(text.str().find("WARNING: the process ended by SIGKILL"), std::string::npos) << text.str();
}

TEST(NothingLostRecordings, ASegfaultInsideTheProcessKeepsEveryLaunch) {
  const RunRecord run = recording("h100_pytorch_segv.json.gz");
  EXPECT_EQ(run.launches.size(), 203u);
  EXPECT_EQ(adds_of(run), 202u);
  EXPECT_EQ(run.ended, "signal SIGSEGV");
}

TEST(NothingLostRecordings, FourProcessesOnOneGpuEachKeepEveryLaunch) {
  for (int process = 0; process < 4; ++process) {
    const RunRecord run = recording("h100_pytorch_mp4_process" + std::to_string(process) + ".json.gz");
    EXPECT_EQ(run.launches.size(), 33u) << process;
    EXPECT_EQ(adds_of(run), 32u) << process;
    EXPECT_TRUE(run.missed.empty()) << process;
    EXPECT_EQ(run.ended, "exit");
  }
}

TEST(NothingLostRecordings, AGpuHeldByAnotherToolIsCountedAndExplained) {
  const RunRecord run = recording("h100_busy_under_ncu.json");
  EXPECT_TRUE(run.launches.empty());
  EXPECT_EQ(run.missed_launches(), 300u);
  ASSERT_EQ(run.missed.size(), 1u);
  EXPECT_NE(run.missed[0].reason.find("CUPTI_ERROR_HARDWARE_BUSY"), std::string::npos);
  EXPECT_NE(run.missed[0].fix.find("Nsight Compute"), std::string::npos);
  std::ostringstream text;
  write_text_report(summarize(analyze_run(run)), text);
  EXPECT_NE(text.str().find("WARNING: not profiled: 300 launches"), std::string::npos) << text.str();
}

}  // namespace
}  // namespace limiter
