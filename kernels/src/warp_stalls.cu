// Kernels built for one dominant warp stall reason each, the known answers of PC
// sampling beside the suite's others (catalog_stalls.cpp): a barrier after every few
// instructions with the work on one warp of the block, and one dependent FMA chain per thread
// at one warp per scheduler.
#include <cmath>
#include <memory>

#include "limiter/kernels/reference.hpp"
#include "suite_context.hpp"

namespace limiter::kernels::detail {
namespace {

// --- barrier: warp 0 of each block runs 8 dependent FMAs per round, the other 31 warps go
// straight to __syncthreads and wait for it --------------------------------------------------
constexpr int kBarrierThreads = 1024, kBarrierFmas = 8;

__global__ void __launch_bounds__(kBarrierThreads) barrier_heavy(float* __restrict__ out, int rounds) {
  float x = reference::fma_chain_start(threadIdx.x, 0);
  const bool working = threadIdx.x < 32;
  for (int r = 0; r < rounds; ++r) {
    if (working) {
#pragma unroll
      for (int k = 0; k < kBarrierFmas; ++k) x = fmaf(x, reference::kFmaFactor, reference::kFmaAddend);
    }
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// --- wait: one chain, each FFMA needs the previous one's result ----------------------------
constexpr int kChainThreads = 128;  // 4 warps: one per scheduler of the SM

__global__ void __launch_bounds__(kChainThreads) fma_dependent_chain(float* __restrict__ out, int iterations) {
  const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
  float x = reference::fma_chain_start(thread, 0);
#pragma unroll 16
  for (int i = 0; i < iterations; ++i) x = fmaf(x, reference::kFmaFactor, reference::kFmaAddend);
  out[thread] = x;
}

struct Outputs {
  DeviceBuffer<float> out;
  int steps = 0;  // rounds or iterations
  unsigned grid = 0;
};

void add_barrier_heavy(SuiteContext& context) {
  auto m = std::make_shared<Outputs>();
  m->steps = context.sizes() == ProblemSize::small ? 256 : 4096;
  m->grid = 2 * one_wave(context.device(),
                         resident_blocks_per_sm(reinterpret_cast<const void*>(barrier_heavy), kBarrierThreads, 0));
  m->out = DeviceBuffer<float>(static_cast<std::size_t>(m->grid) * kBarrierThreads);
  Experiment experiment;
  experiment.name = "barrier_heavy";
  experiment.kernel = reinterpret_cast<const void*>(barrier_heavy);
  experiment.grid = dim3(m->grid);
  experiment.block = dim3(kBarrierThreads);
  experiment.useful_flops = 2.0 * kBarrierFmas * 32 * m->steps * m->grid;
  experiment.flush_l2 = false;
  experiment.launch = [m] { barrier_heavy<<<m->grid, kBarrierThreads>>>(m->out.get(), m->steps); };
  experiment.check = [m]() -> CheckResult {
    const auto out = m->out.download();
    for (std::size_t t = 0; t < out.size(); t += 97) {
      const unsigned lane_in_block = static_cast<unsigned>(t % kBarrierThreads);
      const float start = reference::fma_chain_start(lane_in_block, 0);
      const float expected =
          lane_in_block < 32 ? reference::fma_chain_reference(start, kBarrierFmas * m->steps) : start;
      if (out[t] != expected)
        return {false,
                "thread " + std::to_string(t) + " = " + std::to_string(out[t]) + ", host " + std::to_string(expected)};
    }
    return {true, "every 97th thread: warp 0's chains equal the host's, the other warps kept their start value"};
  };
  context.measure(experiment);
}

void add_fma_dependent_chain(SuiteContext& context) {
  auto m = std::make_shared<Outputs>();
  m->steps = context.sizes() == ProblemSize::small ? (1 << 16) : (1 << 20);
  m->grid = static_cast<unsigned>(context.device().multiProcessorCount);  // one block per SM
  m->out = DeviceBuffer<float>(static_cast<std::size_t>(m->grid) * kChainThreads);
  Experiment experiment;
  experiment.name = "fma_dependent_chain";
  experiment.kernel = reinterpret_cast<const void*>(fma_dependent_chain);
  experiment.grid = dim3(m->grid);
  experiment.block = dim3(kChainThreads);
  experiment.useful_flops = 2.0 * m->steps * m->grid * kChainThreads;
  experiment.flush_l2 = false;
  experiment.launch = [m] { fma_dependent_chain<<<m->grid, kChainThreads>>>(m->out.get(), m->steps); };
  experiment.check = [m]() -> CheckResult {
    const auto out = m->out.download();
    for (std::size_t t = 0; t < out.size(); t += out.size() / 16 + 1) {
      const float expected =
          reference::fma_chain_reference(reference::fma_chain_start(static_cast<unsigned>(t), 0), m->steps);
      if (out[t] != expected)
        return {false,
                "thread " + std::to_string(t) + " = " + std::to_string(out[t]) + ", host " + std::to_string(expected)};
    }
    return {true, "16 threads' chains equal the host's fmaf chain"};
  };
  context.measure(experiment);
}

}  // namespace

void run_warp_stalls_family(SuiteContext& context) {
  if (!context.any_selected(Family::warp_stalls)) return;
  if (context.selected("barrier_heavy")) add_barrier_heavy(context);
  if (context.selected("fma_dependent_chain")) add_fma_dependent_chain(context);
}

}  // namespace limiter::kernels::detail
