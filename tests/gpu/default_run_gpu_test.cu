// The default run through the in-process API (CollectorOptions{}): each kernel and configuration's
// first launches with counters, then PC sampling for a window, then the timeline, in one record.
//   CollectorDefaultGpu.* needs a process of its own (one CUPTI subscriber per process):
//   limiter_gpu_tests --gtest_filter='CollectorDefaultGpu.*' (scripts/device-test.sh does so).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>

#include "limiter/collector.hpp"
#include "gpu_test_support.hpp"

namespace {

__global__ void chase_add(float* data, int n, int rounds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float value = data[i];
  for (int r = 0; r < rounds; ++r) value = value * 1.0001f + 0.5f;
  data[i] = value;
}

__global__ void copy_half(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 0.5f;
}

TEST(CollectorDefaultGpu, OneRegionGivesCountersSamplesAndTimeline) {
  REQUIRE_GPU();
  limiter::CollectorOptions options;  // the default run
  options.stall_window_ms = 100;
  limiter::Collector collector(options);
  const int n = 1 << 20;
  float *a = nullptr, *b = nullptr;
  ASSERT_EQ(cudaMalloc(&a, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, n * sizeof(float)), cudaSuccess);
  {
    limiter::ProfiledRegion region(collector);
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(2000);  // the first Start alone can take 0.8 s
    while (std::chrono::steady_clock::now() < until) {
      for (int i = 0; i < 8; ++i) {
        chase_add<<<n / 256, 256>>>(a, n, 256);
        copy_half<<<n / 256, 256>>>(a, b, n);
      }
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    }
  }
  const limiter::RunRecord run = collector.take_run();
  SCOPED_TRACE(collector.timings().to_text());
  std::set<std::string> profiled;
  for (const auto& launch : run.launches) profiled.insert(launch.name);
  EXPECT_EQ(profiled.size(), 2u);  // each kernel's budget, with counters
  EXPECT_LE(run.launches.size(), 2 * (limiter::kDefaultBudgetSkip + limiter::kDefaultBudgetCount) + 2);
  ASSERT_EQ(run.phases.size(), 3u);
  EXPECT_EQ(run.phases[0].name, "samples");
  // 100 ms, or sooner once 256 launches in a row bring no new kernel (this loop has two)
  EXPECT_TRUE(run.phases[0].ended_by == "window of 100 ms over" ||
              run.phases[0].ended_by == "no new kernel in 256 launches")
      << run.phases[0].ended_by;
  EXPECT_EQ(run.phases[1].ended_by, "budgets spent");
  EXPECT_EQ(run.phases[2].name, "timeline");
  EXPECT_GT(run.phases[2].launches, 0u);
  ASSERT_TRUE(run.stalls.has_value());
  EXPECT_GT(run.stalls->samples, 0u);
  ASSERT_TRUE(run.timeline.has_value());
  std::size_t kernels = 0;
  for (const auto& event : run.timeline->events) kernels += event.kind == limiter::ActivityKind::kernel;
  EXPECT_GT(kernels, run.phases[2].launches / 2);           // every launch after the counters phase, timed
  EXPECT_GE(run.timeline->start_ns, run.phases[1].end_ns);  // no kernel record beside the counters or PC sampling
  cudaFree(a);
  cudaFree(b);
}

}  // namespace
