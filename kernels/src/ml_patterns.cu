// The access and math patterns real ML programs spend their time in, each as a known-answer
// kernel: a tensor-core MMA loop, shared memory with bank conflicts, global atomics to a few
// and to many addresses, a random gather. Each has a host check; the catalog gives the intended
// verdict and why.
#include <mma.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "suite_context.hpp"

namespace limiter::kernels::detail {
namespace {

// --- tensor pipe: warp-level mma.sync through WMMA, fp16 inputs, fp32 accumulators ---------
// Each warp multiplies one 16x16 A tile by one 16x16 B tile `repeats` times (1024) into four
// independent accumulators (enough MMAs in flight per warp to keep the tensor pipe busy), then
// writes their sum. Inputs are small integers, so the fp32 result is exact.
constexpr int kMmaTile = 16, kMmaThreads = 256, kMmaAccumulators = 4;

__global__ void __launch_bounds__(kMmaThreads)
    tensor_mma_loop(const __half* __restrict__ a, const __half* __restrict__ b, float* __restrict__ c, int repeats) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, kMmaTile, kMmaTile, kMmaTile, __half, wmma::row_major> a_fragment;
  wmma::fragment<wmma::matrix_b, kMmaTile, kMmaTile, kMmaTile, __half, wmma::row_major> b_fragment;
  wmma::fragment<wmma::accumulator, kMmaTile, kMmaTile, kMmaTile, float> acc[kMmaAccumulators];
  wmma::load_matrix_sync(a_fragment, a, kMmaTile);
  wmma::load_matrix_sync(b_fragment, b, kMmaTile);
#pragma unroll
  for (auto& fragment : acc) wmma::fill_fragment(fragment, 0.0f);
  for (int r = 0; r < repeats; ++r) {
#pragma unroll
    for (auto& fragment : acc) wmma::mma_sync(fragment, a_fragment, b_fragment, fragment);
  }
#pragma unroll
  for (int i = 0; i < acc[0].num_elements; ++i) acc[0].x[i] = acc[0].x[i] + acc[1].x[i] + acc[2].x[i] + acc[3].x[i];
  const long long warp = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  wmma::store_matrix_sync(c + warp * kMmaTile * kMmaTile, acc[0], kMmaTile, wmma::mem_row_major);
}

int mma_a(int row, int k) { return (row + 2 * k) % 3 - 1; }  // -1, 0, 1
int mma_b(int k, int col) { return (k * col + 1) % 3 - 1; }

// --- shared memory: 32-way bank conflicts ---------------------------------------------------
// Every lane of a warp reads word lane*32 + column: all 32 lanes hit the same bank, so each
// load is replayed as 32 wavefronts through the L1/shared data pipe.
constexpr int kSharedWords = 32 * 32, kSharedThreads = 256;

__device__ __host__ inline int shared_value(int word) { return word % 7; }

__global__ void __launch_bounds__(kSharedThreads) shared_bank_conflicts(int* __restrict__ out, int repeats) {
  __shared__ int words[kSharedWords];
  for (int i = threadIdx.x; i < kSharedWords; i += blockDim.x) words[i] = shared_value(i);
  __syncthreads();
  const int lane = threadIdx.x % 32;
  int sum = 0;
  for (int r = 0; r < repeats; ++r) {
#pragma unroll 8
    for (int column = 0; column < 32; ++column) sum += words[lane * 32 + ((column + r) & 31)];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// --- global atomics ---------------------------------------------------------------------------
// Element i adds 1 to bin hash(i) % bins: with 2^20 bins the adds spread over every L2 slice;
// with 8 bins every add of the whole grid queues on the same eight addresses.
__device__ __host__ inline std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

__global__ void atomic_histogram(unsigned* __restrict__ bins, std::uint32_t bin_mask, long long elements) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < elements;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    atomicAdd(&bins[mix(static_cast<std::uint32_t>(i)) & bin_mask], 1u);
}

// --- random gather ----------------------------------------------------------------------------
// out[i] = table[hash(i) % size] over a table far larger than L2: every 4-byte read pulls a
// whole sector from DRAM.
__global__ void fill_table(float* table, long long size) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < size;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    table[i] = static_cast<float>(i % 1000003);
}

// Four independent reads per thread per step: enough bytes in flight to keep DRAM busy.
__global__ void random_gather(const float* __restrict__ table, std::uint32_t table_mask, float* __restrict__ out,
                              long long elements) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < elements; i += 4 * stride) {
    float value[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const long long e = i + j * stride;
      value[j] = e < elements ? table[mix(static_cast<std::uint32_t>(e) * 2654435761U) & table_mask] : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (i + j * stride < elements) out[i + j * stride] = value[j];
  }
}

float gather_expected(long long i, std::uint32_t table_mask) {
  return static_cast<float>((mix(static_cast<std::uint32_t>(i) * 2654435761U) & table_mask) % 1000003);
}

unsigned grid_for(const SuiteContext& context, const void* kernel, int threads) {
  return one_wave(context.device(), resident_blocks_per_sm(kernel, threads, 0));
}

void add_tensor_mma(SuiteContext& context) {
  struct Buffers {
    DeviceBuffer<__half> a{kMmaTile * kMmaTile}, b{kMmaTile * kMmaTile};
    DeviceBuffer<float> c;
    int repeats = 0;
    unsigned grid = 0;
  };
  auto m = std::make_shared<Buffers>();
  std::vector<__half> a(kMmaTile * kMmaTile), b(kMmaTile * kMmaTile);
  for (int i = 0; i < kMmaTile; ++i)
    for (int j = 0; j < kMmaTile; ++j) {
      a[i * kMmaTile + j] = __float2half(static_cast<float>(mma_a(i, j)));
      b[i * kMmaTile + j] = __float2half(static_cast<float>(mma_b(i, j)));
    }
  m->a.upload(a);
  m->b.upload(b);
  m->repeats = context.sizes() == ProblemSize::small ? 64 : 1024;
  m->grid = 4 * grid_for(context, reinterpret_cast<const void*>(tensor_mma_loop), kMmaThreads);
  const std::size_t warps = static_cast<std::size_t>(m->grid) * kMmaThreads / 32;
  m->c = DeviceBuffer<float>(warps * kMmaTile * kMmaTile);

  Experiment experiment;
  experiment.name = "tensor_mma_loop";
  experiment.kernel = reinterpret_cast<const void*>(tensor_mma_loop);
  experiment.grid = dim3(m->grid);
  experiment.block = dim3(kMmaThreads);
  experiment.useful_flops = 2.0 * kMmaTile * kMmaTile * kMmaTile * kMmaAccumulators * m->repeats * warps;
  experiment.flush_l2 = false;
  experiment.launch = [m] {
    tensor_mma_loop<<<m->grid, kMmaThreads>>>(m->a.get(), m->b.get(), m->c.get(), m->repeats);
  };
  experiment.check = [m, warps]() -> CheckResult {
    const auto c = m->c.download();
    for (std::size_t w = 0; w < warps; w += warps / 64 + 1) {
      for (int row = 0; row < kMmaTile; ++row)
        for (int col = 0; col < kMmaTile; ++col) {
          int dot = 0;
          for (int k = 0; k < kMmaTile; ++k) dot += mma_a(row, k) * mma_b(k, col);
          const float expected = static_cast<float>(dot) * kMmaAccumulators * m->repeats;
          const float actual = c[w * kMmaTile * kMmaTile + row * kMmaTile + col];
          if (actual != expected)
            return {false, "warp " + std::to_string(w) + " C[" + std::to_string(row) + "][" + std::to_string(col) +
                               "] = " + std::to_string(actual) + ", host " + std::to_string(expected)};
        }
    }
    return {true, "sampled warps' 16x16 tiles equal 4 x repeats x (A x B) computed on the host"};
  };
  context.measure(experiment);
}

void add_shared_conflicts(SuiteContext& context) {
  struct Buffers {
    DeviceBuffer<int> out;
    int repeats = 0;
    unsigned grid = 0;
  };
  auto m = std::make_shared<Buffers>();
  m->repeats = context.sizes() == ProblemSize::small ? 4 : 64;
  m->grid = 2 * grid_for(context, reinterpret_cast<const void*>(shared_bank_conflicts), kSharedThreads);
  m->out = DeviceBuffer<int>(static_cast<std::size_t>(m->grid) * kSharedThreads);
  Experiment experiment;
  experiment.name = "shared_bank_conflicts";
  experiment.kernel = reinterpret_cast<const void*>(shared_bank_conflicts);
  experiment.grid = dim3(m->grid);
  experiment.block = dim3(kSharedThreads);
  experiment.useful_bytes = 4.0 * 32 * m->repeats * static_cast<double>(m->grid) * kSharedThreads;  // shared bytes
  experiment.flush_l2 = false;
  experiment.launch = [m] { shared_bank_conflicts<<<m->grid, kSharedThreads>>>(m->out.get(), m->repeats); };
  experiment.check = [m]() -> CheckResult {
    const auto out = m->out.download();
    for (std::size_t t = 0; t < out.size(); ++t) {
      const int lane = static_cast<int>(t % 32);
      long long expected = 0;
      for (int column = 0; column < 32; ++column) expected += shared_value(lane * 32 + column);
      expected *= m->repeats;  // every repeat visits all 32 columns once
      if (out[t] != expected)
        return {false, "thread " + std::to_string(t) + " summed " + std::to_string(out[t]) + ", host " +
                           std::to_string(expected)};
    }
    return {true, "every thread's sum equals the host's"};
  };
  context.measure(experiment);
}

void add_atomics(SuiteContext& context, const char* name, std::uint32_t bins, int log2_elements) {
  struct Buffers {
    DeviceBuffer<unsigned> bins;
    long long elements = 0;
    unsigned grid = 0;
    std::uint32_t mask = 0;
  };
  auto m = std::make_shared<Buffers>();
  m->elements = 1LL << (context.sizes() == ProblemSize::small ? log2_elements - 4 : log2_elements);
  m->mask = bins - 1;
  m->bins = DeviceBuffer<unsigned>(bins);
  m->grid = grid_for(context, reinterpret_cast<const void*>(atomic_histogram), 256);
  Experiment experiment;
  experiment.name = name;
  experiment.kernel = reinterpret_cast<const void*>(atomic_histogram);
  experiment.grid = dim3(m->grid);
  experiment.block = dim3(256);
  experiment.useful_bytes = 4.0 * static_cast<double>(m->elements);  // one 4-byte add each
  experiment.flush_l2 = false;
  // Each launch adds to the bins: clear them first, so the last launch's result is checkable.
  experiment.launch = [m] {
    cudaMemsetAsync(m->bins.get(), 0, m->bins.bytes());
    atomic_histogram<<<m->grid, 256>>>(m->bins.get(), m->mask, m->elements);
  };
  experiment.check = [m]() -> CheckResult {
    std::vector<unsigned> expected(m->mask + 1, 0);
    for (long long i = 0; i < m->elements; ++i) ++expected[mix(static_cast<std::uint32_t>(i)) & m->mask];
    const auto bins = m->bins.download();
    for (std::size_t i = 0; i < bins.size(); ++i)
      if (bins[i] != expected[i])
        return {false, "bin " + std::to_string(i) + " holds " + std::to_string(bins[i]) + ", host " +
                           std::to_string(expected[i])};
    return {true, "all " + std::to_string(bins.size()) + " bins equal the host histogram"};
  };
  context.measure(experiment);
}

void add_random_gather(SuiteContext& context) {
  struct Buffers {
    DeviceBuffer<float> table, out;
    long long elements = 0;
    unsigned grid = 0;
    std::uint32_t mask = 0;
  };
  auto m = std::make_shared<Buffers>();
  const long long table_size = context.sizes() == ProblemSize::small ? (1LL << 26) : (1LL << 28);  // 256 MiB, 1 GiB
  m->elements = context.sizes() == ProblemSize::small ? (1LL << 22) : (1LL << 25);
  m->mask = static_cast<std::uint32_t>(table_size - 1);
  m->table = DeviceBuffer<float>(static_cast<std::size_t>(table_size));
  m->out = DeviceBuffer<float>(static_cast<std::size_t>(m->elements));
  fill_table<<<1024, 256>>>(m->table.get(), table_size);
  LIMITER_CUDA_CHECK_LAUNCH();
  m->grid = 4 * grid_for(context, reinterpret_cast<const void*>(random_gather), 256);
  Experiment experiment;
  experiment.name = "random_gather";
  experiment.kernel = reinterpret_cast<const void*>(random_gather);
  experiment.grid = dim3(m->grid);
  experiment.block = dim3(256);
  experiment.useful_bytes = 8.0 * static_cast<double>(m->elements);  // 4 read + 4 written per element
  experiment.launch = [m] { random_gather<<<m->grid, 256>>>(m->table.get(), m->mask, m->out.get(), m->elements); };
  experiment.check = [m]() -> CheckResult {
    const auto out = m->out.download();
    for (long long i = 0; i < m->elements; i += 997) {
      const float expected = gather_expected(i, m->mask);
      if (out[static_cast<std::size_t>(i)] != expected)
        return {false, "out[" + std::to_string(i) + "] = " + std::to_string(out[static_cast<std::size_t>(i)]) +
                           ", host " + std::to_string(expected)};
    }
    return {true, "every 997th element equals table[hash(i)] computed on the host"};
  };
  context.measure(experiment);
}

}  // namespace

void run_ml_patterns_family(SuiteContext& context) {
  if (!context.any_selected(Family::ml_patterns)) return;
  if (context.selected("tensor_mma_loop")) add_tensor_mma(context);
  if (context.selected("shared_bank_conflicts")) add_shared_conflicts(context);
  if (context.selected("atomics_many_addresses")) add_atomics(context, "atomics_many_addresses", 1u << 20, 26);
  if (context.selected("atomics_few_addresses")) add_atomics(context, "atomics_few_addresses", 8u, 24);
  if (context.selected("random_gather")) add_random_gather(context);
}

}  // namespace limiter::kernels::detail
