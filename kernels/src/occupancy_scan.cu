// Seed 000: grain size VT, block size NT and __launch_bounds__, on an MGPU-style register-blocked
// kernel: each block scans a tile of NT x VT ints. The tile is loaded coalesced into shared
// memory; each thread then reads its VT consecutive values (word tid * VT + i: conflict-free for
// odd VT, conflicting for even VT), scans them in registers, takes part in one block-wide scan
// of the thread totals (the once-per-CTA work that larger tiles amortise), and writes back.
#include <algorithm>
#include <iterator>
#include <memory>

#include "limiter/kernels/reference.hpp"
#include "suite_context.hpp"

namespace limiter::kernels::detail {
namespace {

__device__ __forceinline__ int warp_inclusive_scan(int value) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const int other = __shfl_up_sync(0xffffffffu, value, offset);
    if (lane >= offset) value += other;
  }
  return value;
}

// The exclusive prefix of `value` over the block: warp scans, then a scan of the warp totals.
__device__ __forceinline__ int block_exclusive_scan(int value) {
  __shared__ int warp_totals[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const int inclusive = warp_inclusive_scan(value);
  if (lane == 31) warp_totals[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const int total = warp_inclusive_scan(lane < warps ? warp_totals[lane] : 0);
    if (lane < warps) warp_totals[lane] = total;
  }
  __syncthreads();
  return (warp > 0 ? warp_totals[warp - 1] : 0) + inclusive - value;
}

// One tile: in and out are the whole arrays; `tile` has blockDim.x * VT ints of shared memory.
// 32-bit indices, as MGPU uses: the arrays stay below 2^31 elements.
template <int VT, bool Unrolled>
__device__ __forceinline__ void scan_tile(const int* __restrict__ in, int* __restrict__ out, int count, int* tile) {
  const int nt = blockDim.x, tid = threadIdx.x;
  const int first = blockIdx.x * nt * VT;
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const int at = first + i * nt + tid;
    tile[i * nt + tid] = at < count ? in[at] : 0;
  }
  __syncthreads();

  int values[VT];
  if constexpr (Unrolled) {
#pragma unroll
    for (int i = 0; i < VT; ++i) values[i] = tile[tid * VT + i];
#pragma unroll
    for (int i = 1; i < VT; ++i) values[i] += values[i - 1];
  } else {
    // The same loops left rolled: `values` is indexed at run time, so it cannot live in
    // registers and goes to local memory (seed 000's inadvertent dynamic indexing).
#pragma unroll 1
    for (int i = 0; i < VT; ++i) values[i] = tile[tid * VT + i];
#pragma unroll 1
    for (int i = 1; i < VT; ++i) values[i] += values[i - 1];
  }
  const int prefix = block_exclusive_scan(values[VT - 1]);  // also orders the reads before the writes below
  if constexpr (Unrolled) {
#pragma unroll
    for (int i = 0; i < VT; ++i) tile[tid * VT + i] = values[i] + prefix;
  } else {
#pragma unroll 1
    for (int i = 0; i < VT; ++i) tile[tid * VT + i] = values[i] + prefix;
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    const int at = first + i * nt + tid;
    if (at < count) out[at] = tile[i * nt + tid];
  }
}

template <int VT>
__global__ void blocked_scan(const int* __restrict__ in, int* __restrict__ out, int count) {
  extern __shared__ int tile[];
  scan_tile<VT, true>(in, out, count, tile);
}

// __launch_bounds__(NT, OCC): the code generator caps registers so that OCC blocks of NT threads
// fit on an SM, and spills what does not fit.
template <int VT, int NT, int OCC>
__global__ void __launch_bounds__(NT, OCC)
    blocked_scan_bounded(const int* __restrict__ in, int* __restrict__ out, int count) {
  extern __shared__ int tile[];
  scan_tile<VT, true>(in, out, count, tile);
}

template <int VT>
__global__ void blocked_scan_dynamic_index(const int* __restrict__ in, int* __restrict__ out, int count) {
  extern __shared__ int tile[];
  scan_tile<VT, false>(in, out, count, tile);
}

__global__ void fill_scan_input(int* data, int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
    data[i] = reference::reduction_value(static_cast<std::uint32_t>(i));
}

using ScanKernel = void (*)(const int*, int*, int);

struct Configuration {
  const char* name;  // catalog entry, or nullptr for sweep-only points
  ScanKernel kernel;
  int threads;
  int grain;
};

// The odd grain sizes of the sweep (seed 000: omit even ones), plus VT=8 for the comparison.
struct GrainKernel {
  int grain;
  ScanKernel kernel;
};
constexpr GrainKernel kGrainKernels[] = {
    {1, blocked_scan<1>},   {3, blocked_scan<3>},   {5, blocked_scan<5>},   {7, blocked_scan<7>},
    {8, blocked_scan<8>},   {9, blocked_scan<9>},   {11, blocked_scan<11>}, {15, blocked_scan<15>},
    {19, blocked_scan<19>}, {23, blocked_scan<23>},
};
constexpr int kSweepThreads[] = {64, 128, 256, 512};

ScanKernel kernel_for_grain(int grain) {
  for (const auto& entry : kGrainKernels)
    if (entry.grain == grain) return entry.kernel;
  return nullptr;
}

struct ScanData {
  int count = 0;
  DeviceBuffer<int> in, out;
  std::vector<int> host_in;
};

Experiment scan_experiment(const std::shared_ptr<ScanData>& data, const Configuration& config) {
  const int tile = config.threads * config.grain;
  const unsigned blocks = static_cast<unsigned>((data->count + tile - 1) / tile);
  const std::size_t shared_bytes = static_cast<std::size_t>(tile) * sizeof(int);
  Experiment experiment;
  experiment.name = config.name ? config.name : "";
  experiment.kernel = reinterpret_cast<const void*>(config.kernel);
  experiment.grid = dim3(blocks);
  experiment.block = dim3(static_cast<unsigned>(config.threads));
  experiment.dynamic_shared_bytes = shared_bytes;
  experiment.useful_bytes = 8.0 * static_cast<double>(data->count);  // one int read, one written
  const ScanKernel kernel = config.kernel;
  const unsigned threads = static_cast<unsigned>(config.threads);
  experiment.launch = [data, kernel, blocks, threads, shared_bytes] {
    kernel<<<blocks, threads, shared_bytes>>>(data->in.get(), data->out.get(), data->count);
  };
  experiment.check = [data, tile] {
    const auto out = data->out.download();
    const std::size_t mismatch =
        reference::first_tile_scan_mismatch(data->host_in, out, static_cast<std::size_t>(tile));
    if (mismatch == out.size())
      return CheckResult{true, "all " + std::to_string(out.size()) + " outputs equal the host's tile scan"};
    return CheckResult{false, "output " + std::to_string(mismatch) + " is " + std::to_string(out[mismatch]) +
                                  ", not the host's tile scan"};
  };
  return experiment;
}

void run_sweep(SuiteContext& context, const std::shared_ptr<ScanData>& data) {
  for (int threads : kSweepThreads) {
    for (const auto& grain_kernel : kGrainKernels) {
      if (grain_kernel.grain % 2 == 0) continue;
      const Configuration config{nullptr, grain_kernel.kernel, threads, grain_kernel.grain};
      const Experiment experiment = scan_experiment(data, config);
      context.starting("sweep NT=" + std::to_string(threads) + " VT=" + std::to_string(grain_kernel.grain));
      SweepPoint point;
      point.threads = threads;
      point.grain = grain_kernel.grain;
      point.useful_bytes = experiment.useful_bytes;
      point.time_ns = context.time(experiment).median_ns;
      point.correct = experiment.check().correct;
      cudaFuncAttributes attributes{};
      LIMITER_CUDA_CHECK(cudaFuncGetAttributes(&attributes, experiment.kernel));
      point.registers_per_thread = attributes.numRegs;
      point.blocks_per_sm = resident_blocks_per_sm(experiment.kernel, threads, experiment.dynamic_shared_bytes);
      context.add_sweep_point(point);
    }
  }
}

}  // namespace

void run_occupancy_family(SuiteContext& context) {
  const bool sweep = context.sweep_requested();
  if (!context.any_selected(Family::occupancy) && !sweep) return;
  const auto data = std::make_shared<ScanData>();
  data->count = context.sizes() == ProblemSize::small ? 1 << 22 : 1 << 25;
  data->in = DeviceBuffer<int>(static_cast<std::size_t>(data->count));
  data->out = DeviceBuffer<int>(static_cast<std::size_t>(data->count));
  fill_scan_input<<<1024, 256>>>(data->in.get(), data->count);
  LIMITER_CUDA_CHECK_LAUNCH();
  data->host_in = data->in.download();

  const Configuration configurations[] = {
      {"scan_nt256_vt1", kernel_for_grain(1), 256, 1},
      {"scan_nt256_vt7", kernel_for_grain(7), 256, 7},
      {"scan_nt256_vt8_even", kernel_for_grain(8), 256, 8},
      {"scan_nt256_vt9", kernel_for_grain(9), 256, 9},
      {"scan_nt256_vt23", kernel_for_grain(23), 256, 23},
      {"scan_nt256_vt23_launch_bounds", blocked_scan_bounded<23, 256, 8>, 256, 23},
      {"scan_nt256_vt7_dynamic_index", blocked_scan_dynamic_index<7>, 256, 7},
  };
  for (const auto& config : configurations) context.measure(scan_experiment(data, config));
  if (sweep) run_sweep(context, data);
}

}  // namespace limiter::kernels::detail

namespace limiter::kernels {

std::size_t sweep_size() {
  const auto odd = std::count_if(std::begin(detail::kGrainKernels), std::end(detail::kGrainKernels),
                                 [](const auto& entry) { return entry.grain % 2 == 1; });
  return static_cast<std::size_t>(odd) * std::size(detail::kSweepThreads);
}

}  // namespace limiter::kernels
