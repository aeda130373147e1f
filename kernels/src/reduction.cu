// Seed 002's reduction ladder (Harris, "Optimizing Parallel Reduction in CUDA"), kernels 1-7,
// plus a warp-shuffle version. Each kernel reduces its part of the input to one partial sum per
// block; the few thousand partial sums are added on the host for the check, so the time is the
// pass over the input that the seed's table measures.
//
// Kernels 5-7 unroll the last warp. The seed relies on the threads of a warp running in lock-step
// (a volatile shared array and no barrier); seed 004 calls that unsafe and unsupported, so here
// every step of the last warp is separated by __syncwarp().
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>

#include "limiter/kernels/reference.hpp"
#include "suite_context.hpp"

namespace limiter::kernels::detail {
namespace {

constexpr unsigned kThreads = 256;  // one block size for the whole ladder

__global__ void fill_reduction_input(int* data, unsigned count) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
    data[i] = reference::reduction_value(i);
}

// Kernel 1: interleaved addressing; `tid % (2 * s)` makes the warps diverge.
__global__ void reduce1_interleaved_divergent(const int* in, int* block_sums, unsigned count) {
  __shared__ int partial[kThreads];
  const unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[tid] = i < count ? in[i] : 0;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

// Kernel 2: a strided index keeps the active threads together, but strides of 2s words
// conflict on shared-memory banks.
__global__ void reduce2_interleaved_bank_conflicts(const int* in, int* block_sums, unsigned count) {
  __shared__ int partial[kThreads];
  const unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[tid] = i < count ? in[i] : 0;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x) partial[index] += partial[index + s];
    __syncthreads();
  }
  if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

// Kernel 3: sequential addressing, conflict-free.
__global__ void reduce3_sequential_addressing(const int* in, int* block_sums, unsigned count) {
  __shared__ int partial[kThreads];
  const unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[tid] = i < count ? in[i] : 0;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

// Two elements per thread: the first add happens during the load (kernels 4-6).
__device__ __forceinline__ int load_pair(const int* in, unsigned count) {
  const unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  int sum = i < count ? in[i] : 0;
  if (i + blockDim.x < count) sum += in[i + blockDim.x];
  return sum;
}

// Kernel 4: first add during the global load.
__global__ void reduce4_first_add_during_load(const int* in, int* block_sums, unsigned count) {
  __shared__ int partial[kThreads];
  const unsigned tid = threadIdx.x;
  partial[tid] = load_pair(in, count);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

// The last warp (tid < 32) of a 64-entry tail, barrier-free: each step reads, waits for the whole
// warp, then writes, then waits again, so no lane reads a word another lane is writing.
__device__ __forceinline__ void reduce_last_warp(int* partial, unsigned tid) {
  int sum = partial[tid];
#pragma unroll
  for (unsigned offset = 32; offset > 0; offset >>= 1) {
    sum += partial[tid + offset];
    __syncwarp();
    partial[tid] = sum;
    __syncwarp();
  }
}

// Kernel 5: unroll the last warp.
__global__ void reduce5_unroll_last_warp(const int* in, int* block_sums, unsigned count) {
  __shared__ int partial[kThreads];
  const unsigned tid = threadIdx.x;
  partial[tid] = load_pair(in, count);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid < 32) reduce_last_warp(partial, tid);
  if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

// The tree of kernels 6 and 7, completely unrolled for a block size known at compile time.
template <unsigned BlockSize>
__device__ __forceinline__ void reduce_block_unrolled(int* partial, unsigned tid) {
  static_assert(BlockSize >= 64 && BlockSize <= 1024 && (BlockSize & (BlockSize - 1)) == 0);
  if constexpr (BlockSize >= 1024) {
    if (tid < 512) partial[tid] += partial[tid + 512];
    __syncthreads();
  }
  if constexpr (BlockSize >= 512) {
    if (tid < 256) partial[tid] += partial[tid + 256];
    __syncthreads();
  }
  if constexpr (BlockSize >= 256) {
    if (tid < 128) partial[tid] += partial[tid + 128];
    __syncthreads();
  }
  if constexpr (BlockSize >= 128) {
    if (tid < 64) partial[tid] += partial[tid + 64];
    __syncthreads();
  }
  if (tid < 32) reduce_last_warp(partial, tid);
}

// Kernel 6: completely unrolled, the block size a template parameter.
template <unsigned BlockSize>
__global__ void reduce6_completely_unrolled(const int* in, int* block_sums, unsigned count) {
  __shared__ int partial[BlockSize];
  const unsigned tid = threadIdx.x;
  partial[tid] = load_pair(in, count);
  __syncthreads();
  reduce_block_unrolled<BlockSize>(partial, tid);
  if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

// Kernels 7 and 8 read many elements per thread: a grid-stride loop over a grid of one wave.
template <unsigned BlockSize>
__device__ __forceinline__ int load_many(const int* in, unsigned count) {
  const unsigned grid_size = BlockSize * 2 * gridDim.x;
  int sum = 0;
  for (unsigned i = blockIdx.x * (BlockSize * 2) + threadIdx.x; i < count; i += grid_size) {
    sum += in[i];
    if (i + BlockSize < count) sum += in[i + BlockSize];
  }
  return sum;
}

// Kernel 7: multiple elements per thread.
template <unsigned BlockSize>
__global__ void reduce7_multiple_elements(const int* in, int* block_sums, unsigned count) {
  __shared__ int partial[BlockSize];
  const unsigned tid = threadIdx.x;
  partial[tid] = load_many<BlockSize>(in, count);
  __syncthreads();
  reduce_block_unrolled<BlockSize>(partial, tid);
  if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

__device__ __forceinline__ int warp_sum(int value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_down_sync(0xffffffffu, value, offset);
  return value;
}

// Kernel 8: kernel 7 with shuffles inside each warp; shared memory only between warps.
template <unsigned BlockSize>
__global__ void reduce8_warp_shuffle(const int* in, int* block_sums, unsigned count) {
  __shared__ int warp_sums[BlockSize / 32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int sum = warp_sum(load_many<BlockSize>(in, count));
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    const int block_sum = warp_sum(lane < BlockSize / 32 ? warp_sums[lane] : 0);
    if (lane == 0) block_sums[blockIdx.x] = block_sum;
  }
}

using ReduceKernel = void (*)(const int*, int*, unsigned);

struct ReductionInput {
  unsigned count = 0;
  std::int64_t expected_sum = 0;
  DeviceBuffer<int> data;
  DeviceBuffer<int> block_sums;
};

void run_ladder(SuiteContext& context, unsigned count, const char* size_label) {
  // Kernels 7 and 8 use a grid of one full wave.
  const int resident =
      resident_blocks_per_sm(reinterpret_cast<const void*>(&reduce7_multiple_elements<kThreads>), kThreads, 0);
  const unsigned wave = one_wave(context.device(), std::max(resident, 1));
  const unsigned one_per_thread = (count + kThreads - 1) / kThreads;
  const unsigned two_per_thread = (count + 2 * kThreads - 1) / (2 * kThreads);
  struct Step {
    const char* name;
    ReduceKernel kernel;
    unsigned blocks;
  };
  const Step steps[] = {
      {"reduce1_interleaved_divergent", reduce1_interleaved_divergent, one_per_thread},
      {"reduce2_interleaved_bank_conflicts", reduce2_interleaved_bank_conflicts, one_per_thread},
      {"reduce3_sequential_addressing", reduce3_sequential_addressing, one_per_thread},
      {"reduce4_first_add_during_load", reduce4_first_add_during_load, two_per_thread},
      {"reduce5_unroll_last_warp", reduce5_unroll_last_warp, two_per_thread},
      {"reduce6_completely_unrolled", reduce6_completely_unrolled<kThreads>, two_per_thread},
      {"reduce7_multiple_elements", reduce7_multiple_elements<kThreads>, std::min(wave, two_per_thread)},
      {"reduce8_warp_shuffle", reduce8_warp_shuffle<kThreads>, std::min(wave, two_per_thread)},
  };
  auto entry_name = [&](const Step& step) { return std::string(step.name) + "_" + size_label; };
  if (std::none_of(std::begin(steps), std::end(steps),
                   [&](const Step& step) { return context.selected(entry_name(step)); }))
    return;

  const auto input = std::make_shared<ReductionInput>();
  input->count = count;
  input->data = DeviceBuffer<int>(count);
  input->block_sums = DeviceBuffer<int>(one_per_thread);
  fill_reduction_input<<<1024, 256>>>(input->data.get(), count);
  LIMITER_CUDA_CHECK_LAUNCH();
  input->expected_sum = reference::reduction_sum(count);

  for (const Step& step : steps) {
    Experiment experiment;
    experiment.name = entry_name(step);
    experiment.kernel = reinterpret_cast<const void*>(step.kernel);
    experiment.grid = dim3(step.blocks);
    experiment.block = dim3(kThreads);
    experiment.useful_bytes = 4.0 * count;  // the seed's bandwidth: input bytes over time
    experiment.launch = [input, step] {
      step.kernel<<<step.blocks, kThreads>>>(input->data.get(), input->block_sums.get(), input->count);
    };
    experiment.check = [input, step] {
      const auto sums = input->block_sums.download(0, step.blocks);
      std::int64_t total = 0;
      for (int partial : sums) total += partial;
      return CheckResult{total == input->expected_sum, "sum of " + std::to_string(step.blocks) + " block sums " +
                                                           std::to_string(total) + ", host reference " +
                                                           std::to_string(input->expected_sum)};
    };
    context.measure(experiment);
  }
}

}  // namespace

void run_reduction_family(SuiteContext& context) {
  if (!context.any_selected(Family::reduction)) return;
  const bool small = context.sizes() == ProblemSize::small;
  run_ladder(context, small ? 1u << 18 : 1u << 22, "4M");
  run_ladder(context, small ? 1u << 21 : 1u << 25, "32M");
}

}  // namespace limiter::kernels::detail
