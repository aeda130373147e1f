// Seed 003: the tail effect. Every block does the same latency-bound work (each warp follows a
// chain of dependent loads, one L2 sector per warp per step, so neither bandwidth nor issue
// limits it and a block takes as long alone as beside others). The kernel holds kKeptValues
// values in registers across the chain, enough for 4 blocks of 256 threads per SM; the grid is
// 2.5 waves of those. __launch_bounds__(256, 5) caps registers to fit a 5th block: the same grid
// becomes exactly 2 waves.
#include <algorithm>
#include <memory>

#include "limiter/kernels/reference.hpp"
#include "suite_context.hpp"

namespace limiter::kernels::detail {
namespace {

constexpr int kTailThreads = 256;
constexpr int kKeptValues = 44;
constexpr std::uint32_t kChaseEntries = 1u << 20;  // 4 MiB: L2-resident after the first wave
constexpr std::uint32_t kKeptSourceEntries = 1u << 16;

__device__ __forceinline__ void tail_chase_body(const std::uint32_t* __restrict__ next,
                                                const float* __restrict__ kept_source, float* __restrict__ out,
                                                int steps) {
  const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
  float kept[kKeptValues];
#pragma unroll
  for (int k = 0; k < kKeptValues; ++k) {
    kept[k] = kept_source[(thread * 7u + k * 131u) & (kKeptSourceEntries - 1)];
    asm volatile("" : "+f"(kept[k]));  // pins the load here: the values stay live across the chain
  }
  std::uint32_t index = thread / 32;  // the same chain for the whole warp
  for (int s = 0; s < steps; ++s) index = next[index];
  // Exact in float (multiples of 1/64 below 4096 + kKeptValues), so the host can compare with ==.
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kKeptValues; ++k) sum += kept[k] * static_cast<float>((index >> (k % 8)) & 1u);
  out[thread] = sum + static_cast<float>(index >> 8);
}

__global__ void tail_chase(const std::uint32_t* __restrict__ next, const float* __restrict__ kept_source,
                           float* __restrict__ out, int steps) {
  tail_chase_body(next, kept_source, out, steps);
}

__global__ void __launch_bounds__(kTailThreads, 5)
    tail_chase_launch_bounds(const std::uint32_t* __restrict__ next, const float* __restrict__ kept_source,
                             float* __restrict__ out, int steps) {
  tail_chase_body(next, kept_source, out, steps);
}

__global__ void fill_chase_table(std::uint32_t* next, std::uint32_t entries) {
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < entries; i += gridDim.x * blockDim.x)
    next[i] = reference::chase_next(i, entries - 1);
}

// Multiples of 1/64 below 1: every sum of them in the kernel is exact, in any order.
float kept_value(std::uint32_t i) { return static_cast<float>((i * 37u) % 64u) / 64.0f; }

struct TailData {
  int steps = 0;
  unsigned blocks = 0;
  DeviceBuffer<std::uint32_t> next;
  DeviceBuffer<float> kept_source, out;
  std::vector<float> host_kept_source;
};

CheckResult check_tail(const TailData& data) {
  const auto out = data.out.download();
  const unsigned threads = data.blocks * kTailThreads;
  for (unsigned thread = 0; thread < threads; thread += 32) {  // one chain per warp
    const std::uint32_t index =
        reference::chase(thread / 32, static_cast<std::uint32_t>(data.steps), kChaseEntries - 1);
    for (unsigned lane = thread; lane < thread + 32; ++lane) {
      float expected = 0.0f;
      for (int k = 0; k < kKeptValues; ++k) {
        const float kept =
            data.host_kept_source[(lane * 7u + static_cast<unsigned>(k) * 131u) & (kKeptSourceEntries - 1)];
        expected += kept * static_cast<float>((index >> (k % 8)) & 1u);
      }
      expected += static_cast<float>(index >> 8);
      if (out[lane] != expected) {
        return {false, "thread " + std::to_string(lane) + " wrote " + std::to_string(out[lane]) + ", host reference " +
                           std::to_string(expected)};
      }
    }
  }
  return {true, "all " + std::to_string(threads) + " threads equal the host reference"};
}

}  // namespace

void run_tail_effect_family(SuiteContext& context) {
  if (!context.any_selected(Family::tail_effect)) return;
  const auto data = std::make_shared<TailData>();
  data->steps = context.sizes() == ProblemSize::small ? 256 : 1024;
  const auto* unbounded = reinterpret_cast<const void*>(&tail_chase);
  const auto* bounded = reinterpret_cast<const void*>(&tail_chase_launch_bounds);
  const int blocks_per_sm = std::max(resident_blocks_per_sm(unbounded, kTailThreads, 0), 1);
  const int bounded_blocks_per_sm = resident_blocks_per_sm(bounded, kTailThreads, 0);
  if (bounded_blocks_per_sm != blocks_per_sm + 1) {
    context.note("tail effect: the launch bounds give " + std::to_string(bounded_blocks_per_sm) +
                 " blocks per SM against " + std::to_string(blocks_per_sm) +
                 " without; the experiment expects one more (register counts differ from what it was built for)");
  }
  // 2.5 waves at the unbounded kernel's occupancy.
  data->blocks = one_wave(context.device(), blocks_per_sm) * 5 / 2;
  data->next = DeviceBuffer<std::uint32_t>(kChaseEntries);
  data->kept_source = DeviceBuffer<float>(kKeptSourceEntries);
  data->out = DeviceBuffer<float>(static_cast<std::size_t>(data->blocks) * kTailThreads);
  fill_chase_table<<<256, 256>>>(data->next.get(), kChaseEntries);
  LIMITER_CUDA_CHECK_LAUNCH();
  data->host_kept_source.resize(kKeptSourceEntries);
  for (std::uint32_t i = 0; i < kKeptSourceEntries; ++i) data->host_kept_source[i] = kept_value(i);
  data->kept_source.upload(data->host_kept_source);

  using TailKernel = void (*)(const std::uint32_t*, const float*, float*, int);
  const std::pair<const char*, TailKernel> variants[] = {{"tail_2_5_waves", tail_chase},
                                                         {"tail_launch_bounds_2_waves", tail_chase_launch_bounds}};
  for (const auto& [name, kernel] : variants) {
    Experiment experiment;
    experiment.name = name;
    experiment.kernel = reinterpret_cast<const void*>(kernel);
    experiment.grid = dim3(data->blocks);
    experiment.block = dim3(kTailThreads);
    experiment.dependent_steps = data->steps;
    experiment.launch = [data, k = kernel] {
      k<<<data->blocks, kTailThreads>>>(data->next.get(), data->kept_source.get(), data->out.get(), data->steps);
    };
    experiment.check = [data] {
      CheckResult result = check_tail(*data);
      LIMITER_CUDA_CHECK(cudaMemset(data->out.get(), 0, data->out.bytes()));  // the next variant starts clean
      return result;
    };
    context.measure(experiment);
  }
}

}  // namespace limiter::kernels::detail
