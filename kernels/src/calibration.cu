// Calibration kernels (docs/design.md §7, ERT-style): the achieved rates of DRAM, of L2, of FFMA
// issue, and the latency of a dependent load, measured rather than taken from datasheets.
// `limiter kernels` profiles them like the other families; `limiter calibrate` times them and
// writes the peaks.
#include <algorithm>
#include <cmath>
#include <memory>

#include "limiter/kernels/reference.hpp"
#include "suite_context.hpp"

namespace limiter::kernels::detail {
namespace {

constexpr int kThreads = 256;

__global__ void fill_word_index(std::uint32_t* words, std::size_t count) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    words[i] = static_cast<std::uint32_t>(i);
}

__device__ __forceinline__ std::uint32_t add_words(uint4 v) { return v.x + v.y + v.z + v.w; }

// A streaming read: every word once, 16 bytes per load; per-thread sums (modulo 2^32) keep the
// loads alive and let the host check that every word was read.
__global__ void hbm_stream_read(const uint4* __restrict__ in, std::size_t count, std::uint32_t* __restrict__ sums) {
  std::uint32_t sum = 0;
  const std::size_t thread = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  for (std::size_t i = thread; i < count; i += std::size_t{gridDim.x} * blockDim.x) sum += add_words(in[i]);
  sums[thread] = sum;
}

// ld.global.cg (cache in L2 only) over a buffer L2 holds, many passes.
__global__ void l2_resident_read_cg(const uint4* __restrict__ in, std::size_t count, int passes,
                                    std::uint32_t* __restrict__ sums) {
  std::uint32_t sum = 0;
  const std::size_t thread = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  for (int p = 0; p < passes; ++p)
    for (std::size_t i = thread; i < count; i += std::size_t{gridDim.x} * blockDim.x) sum += add_words(__ldcg(in + i));
  sums[thread] = sum;
}

// Eight independent FFMA chains per thread: enough instruction-level parallelism to issue every cycle.
__global__ void fma_ilp(float* __restrict__ out, int iterations) {
  const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
  float chain[reference::kFmaChains];
#pragma unroll
  for (int k = 0; k < reference::kFmaChains; ++k) chain[k] = reference::fma_chain_start(thread, k);
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < reference::kFmaChains; ++k)
      chain[k] = fmaf(chain[k], reference::kFmaFactor, reference::kFmaAddend);
  }
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < reference::kFmaChains; ++k) sum += chain[k];
  out[thread] = sum;
}

// One dependent load at a time per thread, over a random cycle larger than L2.
__global__ void pointer_chase(const std::uint32_t* __restrict__ next, std::uint32_t mask, int steps,
                              std::uint32_t* __restrict__ out) {
  const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
  std::uint32_t index = (thread * 977u) & mask;
  for (int s = 0; s < steps; ++s) index = next[index];
  out[thread] = index;
}

__global__ void fill_lcg_table(std::uint32_t* next, std::uint32_t entries) {
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < entries; i += gridDim.x * blockDim.x)
    next[i] = reference::chase_next(i, entries - 1);
}

__global__ void spin_cycles(long long cycles, long long* elapsed) {
  const long long start = clock64();
  long long now = start;
  while (now - start < cycles) now = clock64();
  *elapsed = now - start;
}

CheckResult check_word_sums(const DeviceBuffer<std::uint32_t>& sums, std::uint32_t expected, const char* what) {
  std::uint32_t total = 0;
  for (std::uint32_t sum : sums.download()) total += sum;
  return {total == expected, std::string(what) + ": sum of words modulo 2^32 " + std::to_string(total) +
                                 ", host reference " + std::to_string(expected)};
}

}  // namespace

std::vector<Experiment> calibration_experiments(const cudaDeviceProp& device, ProblemSize sizes) {
  const bool small = sizes == ProblemSize::small;
  const int blocks_per_sm = device.maxThreadsPerMultiProcessor / kThreads;
  const unsigned full_grid = one_wave(device, blocks_per_sm);  // 2048 threads per SM on Hopper
  std::vector<Experiment> experiments;

  {  // DRAM: far more bytes than L2
    struct Data {
      DeviceBuffer<std::uint32_t> words, sums;
    };
    const auto data = std::make_shared<Data>();
    const std::size_t words = (small ? std::size_t{256} << 20 : std::size_t{1} << 30) / 4;
    data->words = DeviceBuffer<std::uint32_t>(words);
    data->sums = DeviceBuffer<std::uint32_t>(std::size_t{full_grid} * kThreads);
    fill_word_index<<<1024, 256>>>(data->words.get(), words);
    LIMITER_CUDA_CHECK_LAUNCH();
    Experiment e;
    e.name = "calib_hbm_stream_read";
    e.kernel = reinterpret_cast<const void*>(&hbm_stream_read);
    e.grid = dim3(full_grid);
    e.block = dim3(kThreads);
    e.useful_bytes = 4.0 * static_cast<double>(words);
    e.launch = [data, full_grid] {
      hbm_stream_read<<<full_grid, kThreads>>>(reinterpret_cast<const uint4*>(data->words.get()),
                                               data->words.size() / 4, data->sums.get());
    };
    e.check = [data] {
      return check_word_sums(data->sums, reference::index_sum_mod_2_32(data->words.size()), "every word once");
    };
    experiments.push_back(std::move(e));
  }
  {  // L2: 8 MiB, many passes, left in L2 between runs
    struct Data {
      DeviceBuffer<std::uint32_t> words, sums;
      int passes = 0;
    };
    const auto data = std::make_shared<Data>();
    const std::size_t words = (std::size_t{8} << 20) / 4;
    data->passes = small ? 16 : 64;
    data->words = DeviceBuffer<std::uint32_t>(words);
    data->sums = DeviceBuffer<std::uint32_t>(std::size_t{full_grid} * kThreads);
    fill_word_index<<<1024, 256>>>(data->words.get(), words);
    LIMITER_CUDA_CHECK_LAUNCH();
    Experiment e;
    e.name = "calib_l2_resident_read_cg";
    e.kernel = reinterpret_cast<const void*>(&l2_resident_read_cg);
    e.grid = dim3(full_grid);
    e.block = dim3(kThreads);
    e.useful_bytes = 4.0 * static_cast<double>(words) * data->passes;
    e.flush_l2 = false;
    e.launch = [data, full_grid] {
      l2_resident_read_cg<<<full_grid, kThreads>>>(reinterpret_cast<const uint4*>(data->words.get()),
                                                   data->words.size() / 4, data->passes, data->sums.get());
    };
    e.check = [data] {
      const std::uint32_t expected =
          static_cast<std::uint32_t>(data->passes) * reference::index_sum_mod_2_32(data->words.size());
      return check_word_sums(data->sums, expected, "every word once per pass");
    };
    experiments.push_back(std::move(e));
  }
  {  // FFMA issue
    struct Data {
      DeviceBuffer<float> out;
      int iterations = 0;
    };
    const auto data = std::make_shared<Data>();
    data->iterations = small ? 1024 : 4096;
    const unsigned threads = full_grid * kThreads;
    data->out = DeviceBuffer<float>(threads);
    Experiment e;
    e.name = "calib_fma_ilp";
    e.kernel = reinterpret_cast<const void*>(&fma_ilp);
    e.grid = dim3(full_grid);
    e.block = dim3(kThreads);
    e.useful_flops = 2.0 * reference::kFmaChains * data->iterations * static_cast<double>(threads);
    e.launch = [data, full_grid] { fma_ilp<<<full_grid, kThreads>>>(data->out.get(), data->iterations); };
    e.check = [data, threads] {
      const auto out = data->out.download();
      for (unsigned t = 0; t < threads; t += 97) {
        const float expected = reference::fma_chains_reference(t, data->iterations);
        if (!(std::fabs(out[t] - expected) <= 1e-5f * std::fabs(expected) + 1e-5f))
          return CheckResult{false, "thread " + std::to_string(t) + " wrote " + std::to_string(out[t]) +
                                        ", host reference " + std::to_string(expected)};
      }
      return CheckResult{true, "every 97th thread within 1e-5 of the host reference"};
    };
    experiments.push_back(std::move(e));
  }
  {  // dependent loads over 128 MiB (small: 32 MiB, L2-sized on an H100)
    struct Data {
      DeviceBuffer<std::uint32_t> next, out;
      std::uint32_t entries = 0;
      int steps = 0;
    };
    const auto data = std::make_shared<Data>();
    data->entries = small ? 1u << 23 : 1u << 25;
    data->steps = small ? 512 : 2048;
    data->next = DeviceBuffer<std::uint32_t>(data->entries);
    const unsigned blocks = static_cast<unsigned>(device.multiProcessorCount), threads = 32;  // one warp per SM
    data->out = DeviceBuffer<std::uint32_t>(std::size_t{blocks} * threads);
    fill_lcg_table<<<1024, 256>>>(data->next.get(), data->entries);
    LIMITER_CUDA_CHECK_LAUNCH();
    Experiment e;
    e.name = "calib_pointer_chase";
    e.kernel = reinterpret_cast<const void*>(&pointer_chase);
    e.grid = dim3(blocks);
    e.block = dim3(threads);
    e.dependent_steps = data->steps;
    e.launch = [data, blocks, threads] {
      pointer_chase<<<blocks, threads>>>(data->next.get(), data->entries - 1, data->steps, data->out.get());
    };
    e.check = [data, blocks, threads] {
      const auto out = data->out.download();
      for (unsigned t = 0; t < blocks * threads; ++t) {
        const std::uint32_t expected = reference::chase((t * 977u) & (data->entries - 1),
                                                        static_cast<std::uint32_t>(data->steps), data->entries - 1);
        if (out[t] != expected)
          return CheckResult{false, "thread " + std::to_string(t) + " ended at " + std::to_string(out[t]) +
                                        ", host reference " + std::to_string(expected)};
      }
      return CheckResult{true, "all " + std::to_string(blocks * threads) + " chains end where the host's do"};
    };
    experiments.push_back(std::move(e));
  }
  return experiments;
}

void run_calibration_family(SuiteContext& context) {
  if (!context.any_selected(Family::calibration)) return;
  for (const auto& experiment : calibration_experiments(context.device(), context.sizes())) context.measure(experiment);
}

double measure_sm_clock_hz(SuiteContext& context) {
  DeviceBuffer<long long> elapsed(1);
  Experiment e;
  e.kernel = reinterpret_cast<const void*>(&spin_cycles);
  e.flush_l2 = false;
  constexpr long long kCycles = 20'000'000;  // ~10 ms: long enough for the event resolution
  e.launch = [&] { spin_cycles<<<1, 1>>>(kCycles, elapsed.get()); };
  const Timing timing = context.time(e);
  const long long cycles = elapsed.download()[0];
  return static_cast<double>(cycles) / (timing.median_ns * 1e-9);
}

}  // namespace limiter::kernels::detail
