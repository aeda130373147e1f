// Seed 001's LMEM case study: the 8th-order wave-equation stencil without a register cap,
// capped at 32 registers so that it spills, capped with the largest L1 carve-out, and capped
// with global loads that bypass L1 (stencil_dlcm_cg.cu).
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "stencil_body.cuh"
#include "stencil_variants.hpp"
#include "suite_context.hpp"

namespace limiter::kernels::detail {
namespace {

__global__ void stencil8_unspilled(StencilArguments arguments) { stencil8_march(arguments); }

// __maxnreg__ is the per-kernel form of the seed's -maxrregcount=32.
__global__ void __maxnreg__(kStencilRegisterCap) stencil8_spilling(StencilArguments arguments) {
  stencil8_march(arguments);
}

// The same code as stencil8_spilling; a function of its own so that its carve-out preference
// (an attribute of the function) can differ.
__global__ void __maxnreg__(kStencilRegisterCap) stencil8_spilling_l1_carveout(StencilArguments arguments) {
  stencil8_march(arguments);
}

__global__ void fill_stencil_field(float* field, reference::StencilField which, std::int64_t cells) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < cells;
       i += std::int64_t{gridDim.x} * blockDim.x)
    field[i] = reference::stencil_input(which, i);
}

struct StencilVolume {
  reference::StencilGrid grid;
  DeviceBuffer<float> previous, current, velocity, next;
  StencilArguments arguments() const { return {previous.get(), current.get(), velocity.get(), next.get(), grid}; }
};

// Fermi's default was 48 KB shared / 16 KB L1; today's equivalent is the largest shared carve-out.
void prefer_shared(const void* kernel) {
  LIMITER_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                          static_cast<int>(cudaSharedmemCarveoutMaxShared)));
}

// The smallest shared carve-out that still holds as many blocks as the largest one: the rest of
// the unified L1/shared storage becomes L1 (cudaFuncCachePreferL1 in the seed's time).
void prefer_l1_keeping_occupancy(const void* kernel, int threads, const cudaDeviceProp& device) {
  prefer_shared(kernel);
  const int blocks = resident_blocks_per_sm(kernel, threads, 0);
  cudaFuncAttributes attributes{};
  LIMITER_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const double needed =
      static_cast<double>(blocks) * static_cast<double>(attributes.sharedSizeBytes + device.reservedSharedMemPerBlock);
  const int percent =
      std::clamp(static_cast<int>(std::ceil(100.0 * needed / device.sharedMemPerMultiprocessor)), 0, 100);
  LIMITER_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
}

CheckResult check_stencil(const StencilVolume& volume) {
  const auto& grid = volume.grid;
  const auto next = volume.next.download();
  const auto field = [](reference::StencilField which, std::int64_t cell) {
    return reference::stencil_input(which, cell);
  };
  auto check_point = [&](std::int64_t p) -> std::optional<std::string> {
    constexpr int R = reference::kStencilRadius;
    const int x = static_cast<int>(p % grid.nx);
    const int y = static_cast<int>((p / grid.nx) % grid.ny);
    const int z = static_cast<int>(p / (std::int64_t{grid.nx} * grid.ny));
    const float expected = reference::stencil8_point(grid, field, x, y, z);
    const float actual = next[static_cast<std::size_t>(grid.index(x + R, y + R, z + R))];
    if (std::fabs(actual - expected) <= 1e-4f * std::max(1.0f, std::fabs(expected))) return std::nullopt;
    return "point (" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) +
           "): " + std::to_string(actual) + ", host reference " + std::to_string(expected);
  };
  // Every 1031st interior point (a prime stride meets every x, y and z) and the last one.
  const std::int64_t points = grid.interior_points();
  std::int64_t checked = 0;
  for (std::int64_t p = 0; p < points; p += 1031, ++checked)
    if (auto difference = check_point(p)) return {false, *difference};
  if (auto difference = check_point(points - 1)) return {false, *difference};
  return {true, std::to_string(checked + 1) + " sampled points within 1e-4 of the host reference"};
}

}  // namespace

void run_stencil_family(SuiteContext& context) {
  if (!context.any_selected(Family::lmem_stencil)) return;
  const bool small = context.sizes() == ProblemSize::small;
  const auto volume = std::make_shared<StencilVolume>();
  volume->grid = small ? reference::StencilGrid{256, 128, 64} : reference::StencilGrid{1024, 512, 256};
  const auto cells = static_cast<std::size_t>(volume->grid.cells());
  volume->previous = DeviceBuffer<float>(cells);
  volume->current = DeviceBuffer<float>(cells);
  volume->velocity = DeviceBuffer<float>(cells);
  volume->next = DeviceBuffer<float>(cells);
  const std::pair<float*, reference::StencilField> fields[] = {
      {volume->previous.get(), reference::StencilField::previous},
      {volume->current.get(), reference::StencilField::current},
      {volume->velocity.get(), reference::StencilField::velocity}};
  for (const auto& [buffer, which] : fields) {
    fill_stencil_field<<<1024, 256>>>(buffer, which, volume->grid.cells());
    LIMITER_CUDA_CHECK_LAUNCH();
  }
  LIMITER_CUDA_CHECK(cudaMemset(volume->next.get(), 0, volume->next.bytes()));

  const dim3 block(kStencilBlockX, kStencilBlockY);
  const dim3 grid(volume->grid.nx / kStencilBlockX, volume->grid.ny / kStencilBlockY);
  const int threads = kStencilBlockX * kStencilBlockY;
  using Launcher = void (*)(dim3, dim3, const StencilArguments&);
  struct Variant {
    const char* name;
    const void* kernel;
    Launcher launch;
  };
  const Variant variants[] = {
      {"stencil8_unspilled", reinterpret_cast<const void*>(&stencil8_unspilled),
       [](dim3 g, dim3 b, const StencilArguments& a) { stencil8_unspilled<<<g, b>>>(a); }},
      {"stencil8_spilling", reinterpret_cast<const void*>(&stencil8_spilling),
       [](dim3 g, dim3 b, const StencilArguments& a) { stencil8_spilling<<<g, b>>>(a); }},
      {"stencil8_spilling_l1_carveout", reinterpret_cast<const void*>(&stencil8_spilling_l1_carveout),
       [](dim3 g, dim3 b, const StencilArguments& a) { stencil8_spilling_l1_carveout<<<g, b>>>(a); }},
      {"stencil8_spilling_dlcm_cg", stencil_dlcm_cg_kernel(), launch_stencil_dlcm_cg},
  };
  for (const Variant& variant : variants) {
    if (std::string(variant.name) == "stencil8_spilling_l1_carveout")
      prefer_l1_keeping_occupancy(variant.kernel, threads, context.device());
    else
      prefer_shared(variant.kernel);
    Experiment experiment;
    experiment.name = variant.name;
    experiment.kernel = variant.kernel;
    experiment.grid = grid;
    experiment.block = block;
    // Three fields read and one written per interior point (halo re-reads not counted).
    experiment.useful_bytes = 16.0 * static_cast<double>(volume->grid.interior_points());
    experiment.launch = [volume, variant, grid, block] { variant.launch(grid, block, volume->arguments()); };
    experiment.check = [volume] {
      CheckResult result = check_stencil(*volume);
      LIMITER_CUDA_CHECK(cudaMemset(volume->next.get(), 0, volume->next.bytes()));  // the next variant starts clean
      return result;
    };
    context.measure(experiment);
  }
}

}  // namespace limiter::kernels::detail
