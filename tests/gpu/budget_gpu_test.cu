// Per-kernel budgets on the GPU: through `limiter run` and through the in-process API,
// the first K launches of each kernel and launch configuration after S skipped are profiled, and
// every other launch is seen and counted but not ranged.
//   CollectorBudgetGpu.* needs a process of its own (one CUPTI subscriber per process):
//   limiter_gpu_tests --gtest_filter='CollectorBudgetGpu.*' (scripts/device-test.sh does so).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "limiter/collector.hpp"
#include "limiter/record_json.hpp"
#include "gpu_test_support.hpp"

namespace {

__global__ void add_one(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}

__global__ void scale_half(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 0.5f;
}

// The bench app launches one kernel 1 + N times (a warm-up, then the loop): with S = 2 and K = 3
// the record holds launches 2, 3 and 4, and it says the collector saw them all.
TEST(LimiterRunGpu, PerKernelBudgetProfilesTheFirstKOfEachKernel) {
  REQUIRE_GPU();
  const auto output = (std::filesystem::temp_directory_path() / "limiter_gpu_budget.json").string();
  std::filesystem::remove(output);
  const auto timing = (std::filesystem::temp_directory_path() / "limiter_gpu_budget.timing").string();
  const std::string command = limiter::gpu_test::from_env("LIMITER_CLI", LIMITER_CLI) +
                              " run -q --every-launch --timing --per-kernel-skip 2 --per-kernel-count 3 -o " + output +
                              " -- " + limiter::gpu_test::from_env("LIMITER_BENCH_APP", BENCH_APP) +
                              " 200 > /dev/null 2> " + timing;
  ASSERT_EQ(std::system(command.c_str()), 0);
  // Only the three selected launches were ranged; the 196 after them ran unranged beside the
  // running profiler (user-range mode), which did not pause: the run of unselected launches was
  // shorter than kMinUnselectedRun (a pause would cost a resume if a new kernel came).
  std::ifstream timing_file(timing);
  const std::string timings{std::istreambuf_iterator<char>(timing_file), std::istreambuf_iterator<char>()};
  EXPECT_NE(timings.find("(3 launches,"), std::string::npos) << timings;
  EXPECT_NE(timings.find("(user-range mode): 196"), std::string::npos) << timings;
  EXPECT_NE(timings.find("unselected launches: 0;"), std::string::npos) << timings;
  const auto run = limiter::read_run_file(output);
  ASSERT_EQ(run.launches.size(), 3u);
  for (std::size_t i = 0; i < run.launches.size(); ++i) {
    EXPECT_NE(run.launches[i].name.find("small_work"), std::string::npos);
    EXPECT_GT(run.launches[i].counter("gpu__time_duration.sum").value_or(0), 0.0);
  }
  EXPECT_EQ(run.launches_seen, std::uint64_t{201});
  EXPECT_TRUE(run.missed.empty());
  ASSERT_EQ(run.kernels_seen.size(), 1u);  // every launch of the one kernel, for the time estimate
  EXPECT_EQ(run.kernels_seen[0].launches, 201u);
  EXPECT_EQ(run.kernels_seen[0].name, run.launches[0].name);
  EXPECT_EQ(run.kernels_seen[0].grid, run.launches[0].grid);
}

// The same budget through the in-process API, over two kernels and two configurations of one:
// each (kernel, grid, block) has its own budget.
TEST(CollectorBudgetGpu, EachKernelAndConfigurationHasItsOwnBudget) {
  REQUIRE_GPU();
  limiter::CollectorOptions options;
  options.every_launch = true;  // the budget alone (the default run's counters phase has one too)
  options.per_kernel_skip = 1;
  options.per_kernel_count = 2;
  limiter::Collector collector(options);
  const int n = 1 << 16;
  float* data = nullptr;
  ASSERT_EQ(cudaMalloc(&data, n * sizeof(float)), cudaSuccess);
  {
    limiter::ProfiledRegion region(collector);
    for (int i = 0; i < 20; ++i) {
      add_one<<<n / 256, 256>>>(data, n);
      add_one<<<n / 128, 128>>>(data, n);
      scale_half<<<n / 256, 256>>>(data, n);
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  const auto run = collector.take_run();
  std::map<std::string, int> profiled;
  for (const auto& launch : run.launches) {  // "(anonymous namespace)::add_one(float*, int)"
    const std::string kernel = launch.name.find("add_one") != std::string::npos ? "add_one" : "scale_half";
    ++profiled[kernel + "/" + std::to_string(launch.block.x)];
  }
  EXPECT_EQ(profiled, (std::map<std::string, int>{{"add_one/128", 2}, {"add_one/256", 2}, {"scale_half/256", 2}}));
  EXPECT_EQ(collector.launches_seen(), 60u);  // all seen, 6 ranged
  ASSERT_EQ(run.kernels_seen.size(), 3u);
  for (const auto& k : run.kernels_seen) EXPECT_EQ(k.launches, 20u) << k.name << " " << k.block.x;
  cudaFree(data);
}

}  // namespace
