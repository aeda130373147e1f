// GPU tests of PC sampling (label `gpu`): CUPTI's PC Sampling API through the real seam
// (collect/pc_sampling/pc_sampling_backend.hpp) on a pointer chase, the in-process API with --stalls, and
// whether the Range Profiler can run beside PC sampling in one process (docs/design.md §7). A
// process of its own (one CUPTI subscriber); they skip with a reason without a GPU.
#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "collect/cupti/cupti_check.hpp"
#include "collect/cupti/driver_api.hpp"
#include "collect/pc_sampling/pc_sampling_aggregate.hpp"
#include "collect/pc_sampling/pc_sampling_backend.hpp"
#include "collect/range/range_backend.hpp"
#include "limiter/collector.hpp"

namespace {

__global__ void chase_gpu(const unsigned* next, unsigned* out, int steps) {
  unsigned p = (blockIdx.x * blockDim.x + threadIdx.x) * 97;
  for (int i = 0; i < steps; ++i) p = next[p];
  out[blockIdx.x * blockDim.x + threadIdx.x] = p;
}

struct Chase {
  Chase() {
    std::vector<unsigned> host(n);
    for (unsigned i = 0; i < n; ++i) host[i] = (i * 2654435761u + 12345u) % n;
    cudaMalloc(&next, n * sizeof(unsigned));
    cudaMalloc(&out, 264 * 256 * sizeof(unsigned));
    cudaMemcpy(next, host.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
  }
  ~Chase() {
    cudaFree(next);
    cudaFree(out);
  }
  void run() {
    chase_gpu<<<264, 256>>>(next, out, 1000);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  static constexpr unsigned n = 1u << 24;
  unsigned *next = nullptr, *out = nullptr;
};

bool have_gpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

CUcontext current_context() {
  cudaFree(nullptr);
  CUcontext context = nullptr;  // the runtime's: popped and pushed back (the driver is dlopen'ed)
  const auto& cu = limiter::detail::driver_api();
  cu.ctx_pop_current(&context);
  cu.ctx_push_current(context);
  return context;
}

// Starts PC sampling on CONTEXT; its reasons' keys.
limiter::detail::StallKeys start_sampling(limiter::detail::PcSamplingBackend& backend, CUcontext context) {
  backend.enable(context);
  const auto reasons = backend.stall_reasons(context);
  std::string names;
  for (const auto& reason : reasons) names += " " + std::to_string(reason.index) + ":" + reason.name;
  std::printf("stall reasons (%zu):%s\n", reasons.size(), names.c_str());
  limiter::detail::PcSamplingRequest request;
  request.buffer_pcs = 4096;
  for (const auto& reason : reasons) request.reasons.push_back(reason.index);
  const auto settings = backend.configure(context, request);
  std::printf("default period 2^%u cycles, scratch %zu B, hardware buffer %zu B\n", settings.period_log2,
              settings.scratch_bytes, settings.hardware_bytes);
  backend.start(context);
  return limiter::detail::stall_keys(reasons);
}

limiter::StallInfo stop_sampling(limiter::detail::PcSamplingBackend& backend, CUcontext context,
                                 const limiter::detail::StallKeys& keys) {
  limiter::detail::StallAggregator samples;
  backend.stop(context);
  for (int i = 0; i < 100; ++i) {
    const auto batch = backend.get_data(context);
    samples.add(batch, keys);
    if (batch.remaining_pcs == 0) break;
  }
  samples.add(backend.disable(context), keys);
  return samples.info(
      [](const std::string& name) { return name; },
      [](const std::string&, std::uint64_t, std::uint64_t) { return std::optional<limiter::detail::SourceLine>(); });
}

TEST(PcSamplingGpu, APointerChaseWaitsOnLongScoreboard) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  Chase chase;
  const CUcontext context = current_context();
  auto backend = limiter::detail::cupti_pc_sampling_backend();
  const auto keys = start_sampling(*backend, context);
  chase.run();
  const limiter::StallInfo info = stop_sampling(*backend, context, keys);
  ASSERT_EQ(info.kernels.size(), 1u);
  const auto& kernel = info.kernels[0];
  EXPECT_NE(kernel.mangled_name.find("chase_gpu"), std::string::npos);
  ASSERT_GT(kernel.samples, 1000u);
  const auto longest = std::max_element(kernel.reasons.begin(), kernel.reasons.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
  EXPECT_EQ(longest->first, "long_scoreboard");
  std::printf("%llu samples, long_scoreboard %.1f %%, %llu dropped\n", static_cast<unsigned long long>(kernel.samples),
              100.0 * static_cast<double>(longest->second) / static_cast<double>(kernel.samples),
              static_cast<unsigned long long>(info.dropped_samples));
}

// The Range Profiler counting one chase on CONTEXT (enable, config, start, the kernel, stop,
// decode, disable): the instructions counted, or the CUPTI error that refused it.
struct RangeOutcome {
  double instructions = 0;
  std::string refused;
};
RangeOutcome count_with_range_profiler(CUcontext context, Chase& chase) {
  auto range = limiter::detail::cupti_range_backend();
  const std::vector<std::string> metrics = {"smsp__inst_executed.sum"};
  RangeOutcome outcome;
  limiter::detail::RangeObject* object = nullptr;
  try {
    const CUdevice device = range->device_of(context);
    range->check_supported(device);
    auto host = range->counter_host(range->describe(device).chip, {});
    const std::vector<std::uint8_t> config = host->config_image(metrics);
    object = range->enable(context);
    std::vector<std::uint8_t> image(range->counter_data_size(object, metrics, 4));
    range->initialize_image(object, image);
    limiter::detail::RangeConfig settings{&config, &image, false, true, 4};
    range->set_config(object, settings);
    range->start(object);
    chase.run();
    range->stop(object);
    range->decode(object);
    if (host->range_count(image) > 0) outcome.instructions = host->evaluate(image, 0, metrics)[0];
  } catch (const limiter::detail::CuptiError& e) {
    outcome.refused = e.what();
  }
  if (object) range->disable(object);
  return outcome;
}

// Measured, not assumed: whether the Range Profiler starts while PC sampling runs. Alone it
// counts the kernel (the control); beside PC sampling it either counts too or is refused with a
// CUPTI error (never a crash or silence), and PC sampling goes on either way.
TEST(PcSamplingGpu, TheRangeProfilerBesidePcSamplingCountsOrIsRefused) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  Chase chase;
  const CUcontext context = current_context();
  const RangeOutcome alone = count_with_range_profiler(context, chase);
  EXPECT_EQ(alone.refused, "");
  EXPECT_GT(alone.instructions, 0);
  auto sampling = limiter::detail::cupti_pc_sampling_backend();
  const auto keys = start_sampling(*sampling, context);
  const RangeOutcome beside = count_with_range_profiler(context, chase);
  if (!beside.refused.empty()) chase.run();  // PC sampling has a kernel either way
  const limiter::StallInfo info = stop_sampling(*sampling, context, keys);
  std::printf("range profiler alone: %.0f instructions; beside PC sampling: %s, %.0f instructions; %llu PC samples\n",
              alone.instructions, beside.refused.empty() ? "counted" : ("refused: " + beside.refused).c_str(),
              beside.instructions, static_cast<unsigned long long>(info.samples));
  if (beside.refused.empty()) EXPECT_EQ(beside.instructions, alone.instructions);
  EXPECT_GT(info.samples, 0u);
}

TEST(PcSamplingGpu, TheInProcessApiRecordsStalls) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  Chase chase;
  limiter::CollectorOptions options;
  options.stalls = true;
  limiter::Collector collector(options);
  {
    limiter::ProfiledRegion region(collector);
    chase.run();
  }
  const limiter::RunRecord run = collector.take_run();
  ASSERT_TRUE(run.stalls);
  ASSERT_FALSE(run.stalls->kernels.empty());
  EXPECT_EQ(run.stalls->kernels[0].name, "(anonymous namespace)::chase_gpu(unsigned int const*, unsigned int*, int)");
  EXPECT_GT(run.stalls->samples, 0u);
  EXPECT_GT(run.stalls->sample_period_cycles, 0u);
  EXPECT_TRUE(run.missed.empty());
}

}  // namespace
