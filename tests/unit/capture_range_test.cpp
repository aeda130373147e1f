// bench/workloads/capture_range.py under `limiter run --capture-range cudaProfilerApi` on an H100
// (bench/results/2026-11-23-capture-range.md): 40 warm-up steps, then twice 5 steps between
// cudaProfilerStart and Stop. Only those 10 steps are in the record: every kernel of a step
// appears a multiple of 10 times, and nothing before or after was seen.
#include <gtest/gtest.h>

#include <map>

#include "limiter/record_json.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

TEST(CaptureRange, OnlyTheStepsBetweenProfilerStartAndStopAreRecorded) {
  const RunRecord run = read_run_file(testing::kData + "/cupti/h100_capture_range_limiter.json.gz");
  EXPECT_EQ(run.launches.size(), 370u);            // 10 steps of 37 launches
  EXPECT_EQ(run.launches_seen.value_or(0), 370u);  // launches outside the ranges were not even followed
  EXPECT_TRUE(run.missed.empty());
  EXPECT_EQ(run.ended, "exit");
  std::map<std::string, int> per_kernel;
  for (const auto& launch : run.launches) {
    ++per_kernel[launch.name];
    EXPECT_TRUE(launch.counter("gpu__time_duration.sum").has_value()) << launch.sequence;
  }
  for (const auto& [name, count] : per_kernel) EXPECT_EQ(count % 10, 0) << name;
}

}  // namespace
}  // namespace limiter
