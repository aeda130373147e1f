// Seed 001, second half: a 1D decomposition along z over every visible GPU, each holding a slab
// with R halo planes below and above. The halo exchange is the seed's two phases of
// cudaMemcpyPeerAsync ("right", then "left"), issued on the source GPU's stream; a second case
// has a kernel on GPU 0 read GPU 1's boundary planes directly through peer access.
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "limiter/kernels/reference.hpp"
#include "suite_context.hpp"

namespace limiter::kernels::detail {
namespace {

constexpr int R = reference::kStencilRadius;

// Restores the current device when the family is done, whatever happens.
class CurrentDeviceGuard {
 public:
  CurrentDeviceGuard() { LIMITER_CUDA_CHECK(cudaGetDevice(&device_)); }
  ~CurrentDeviceGuard() { LIMITER_CUDA_CHECK_NOTHROW(cudaSetDevice(device_)); }
  CurrentDeviceGuard(const CurrentDeviceGuard&) = delete;
  CurrentDeviceGuard& operator=(const CurrentDeviceGuard&) = delete;

 private:
  int device_ = 0;
};

// Plane p of GPU d holds d * 4096 + p everywhere: exact in float, and says where it came from.
__device__ __host__ inline float slab_value(int device, int plane) { return static_cast<float>(device * 4096 + plane); }

__global__ void fill_slab(float* slab, int device, std::size_t plane_floats, int planes) {
  const std::size_t total = plane_floats * planes;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < total;
       i += std::size_t{gridDim.x} * blockDim.x)
    slab[i] = slab_value(device, static_cast<int>(i / plane_floats));
}

// Copies a neighbour's boundary planes, read through peer access, into this GPU's halo.
__global__ void halo_pull_peer(const float4* __restrict__ peer_planes, float4* __restrict__ halo, std::size_t count) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    halo[i] = peer_planes[i];
}

struct Slabs {
  int gpus = 0;
  int interior_planes = 0;
  std::size_t plane_floats = 0;
  std::vector<DeviceBuffer<float>> slab;  // slab[d] lives on GPU d
  std::vector<cudaStream_t> streams;
  ~Slabs() {
    for (std::size_t d = 0; d < streams.size(); ++d) {
      LIMITER_CUDA_CHECK_NOTHROW(cudaSetDevice(static_cast<int>(d)));
      LIMITER_CUDA_CHECK_NOTHROW(cudaStreamDestroy(streams[d]));
    }
  }
  std::size_t halo_bytes() const { return plane_floats * R * sizeof(float); }
  float* plane(int device, int p) const { return slab[static_cast<std::size_t>(device)].get() + plane_floats * p; }
  int planes() const { return interior_planes + 2 * R; }
};

// Both phases of the seed's Example 6; the device synchronisation between them keeps the
// "left" copies from contending with the "right" ones on a link.
void exchange_halos(const Slabs& s) {
  auto synchronize_all = [&] {
    for (int d = 0; d < s.gpus; ++d) LIMITER_CUDA_CHECK(cudaStreamSynchronize(s.streams[static_cast<std::size_t>(d)]));
  };
  for (int d = 0; d + 1 < s.gpus; ++d)  // right: top interior planes of d -> bottom halo of d+1
    LIMITER_CUDA_CHECK(cudaMemcpyPeerAsync(s.plane(d + 1, 0), d + 1, s.plane(d, s.interior_planes), d, s.halo_bytes(),
                                           s.streams[static_cast<std::size_t>(d)]));
  synchronize_all();
  for (int d = 1; d < s.gpus; ++d)  // left: bottom interior planes of d -> top halo of d-1
    LIMITER_CUDA_CHECK(cudaMemcpyPeerAsync(s.plane(d - 1, s.interior_planes + R), d - 1, s.plane(d, R), d,
                                           s.halo_bytes(), s.streams[static_cast<std::size_t>(d)]));
  synchronize_all();
}

// Every float of halo planes [first, first + R) of GPU `device` must be slab_value(source, source_first + j).
std::optional<std::string> check_planes(const Slabs& s, int device, int first, int source, int source_first) {
  std::vector<float> host(s.plane_floats * R);
  LIMITER_CUDA_CHECK(cudaMemcpy(host.data(), s.plane(device, first), s.halo_bytes(), cudaMemcpyDeviceToHost));
  for (int j = 0; j < R; ++j) {
    const float expected = slab_value(source, source_first + j);
    for (std::size_t i = 0; i < s.plane_floats; ++i) {
      const float actual = host[static_cast<std::size_t>(j) * s.plane_floats + i];
      if (actual != expected) {
        return "GPU " + std::to_string(device) + " halo plane " + std::to_string(first + j) + " holds " +
               std::to_string(actual) + ", expected GPU " + std::to_string(source) + "'s plane " +
               std::to_string(source_first + j);
      }
    }
  }
  return std::nullopt;
}

CheckResult check_exchange(const Slabs& s) {
  for (int d = 0; d + 1 < s.gpus; ++d) {
    if (auto error = check_planes(s, d + 1, 0, d, s.interior_planes)) return {false, *error};
    if (auto error = check_planes(s, d, s.interior_planes + R, d + 1, R)) return {false, *error};
  }
  return {true, std::to_string(s.gpus) + " GPUs: every halo plane holds its neighbour's boundary plane"};
}

std::optional<std::string> peer_access_missing(int gpus) {
  for (int d = 0; d + 1 < gpus; ++d) {
    int forward = 0, backward = 0;
    LIMITER_CUDA_CHECK(cudaDeviceCanAccessPeer(&forward, d, d + 1));
    LIMITER_CUDA_CHECK(cudaDeviceCanAccessPeer(&backward, d + 1, d));
    if (!forward || !backward)
      return "GPUs " + std::to_string(d) + " and " + std::to_string(d + 1) + " have no peer access to each other";
  }
  return std::nullopt;
}

void enable_peer_access(int device, int peer) {
  LIMITER_CUDA_CHECK(cudaSetDevice(device));
  const cudaError_t status = cudaDeviceEnablePeerAccess(peer, 0);
  if (status == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError();  // not an error here; clear it
    return;
  }
  LIMITER_CUDA_CHECK(status);
}

void skip_all(SuiteContext& context, const std::string& reason) {
  context.note("multi_gpu: skipped: " + reason);
  for (const char* name : {"halo_exchange_peer_copy", "halo_pull_peer_kernel"}) {
    Measurement m;
    m.name = name;
    m.is_kernel = std::string(name) != "halo_exchange_peer_copy";
    m.skipped_reason = reason;
    context.record(m);
  }
}

}  // namespace

void run_multi_gpu_family(SuiteContext& context) {
  if (!context.any_selected(Family::multi_gpu)) return;
  int gpus = 0;
  LIMITER_CUDA_CHECK(cudaGetDeviceCount(&gpus));
  if (gpus < 2) {
    skip_all(context, std::to_string(gpus) + " GPU visible; the halo exchange needs 2 or more with peer access");
    return;
  }
  if (auto missing = peer_access_missing(gpus)) {
    skip_all(context, *missing);
    return;
  }
  const CurrentDeviceGuard guard;
  const bool small = context.sizes() == ProblemSize::small;
  const auto s = std::make_shared<Slabs>();
  s->gpus = gpus;
  s->interior_planes = small ? 16 : 64;
  s->plane_floats = small ? std::size_t{256} * 128 : std::size_t{1024} * 512;
  for (int d = 0; d < gpus; ++d) {
    if (d > 0) enable_peer_access(d, d - 1);
    if (d + 1 < gpus) enable_peer_access(d, d + 1);
    LIMITER_CUDA_CHECK(cudaSetDevice(d));
    s->slab.emplace_back(s->plane_floats * static_cast<std::size_t>(s->planes()));
    cudaStream_t stream = nullptr;
    LIMITER_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    s->streams.push_back(stream);
    fill_slab<<<1024, 256, 0, stream>>>(s->slab.back().get(), d, s->plane_floats, s->planes());
    LIMITER_CUDA_CHECK_LAUNCH();
    LIMITER_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  if (context.selected("halo_exchange_peer_copy")) {
    context.starting("halo_exchange_peer_copy");
    Measurement m;
    m.name = "halo_exchange_peer_copy";
    m.is_kernel = false;
    m.useful_bytes = 2.0 * (gpus - 1) * static_cast<double>(s->halo_bytes());
    exchange_halos(*s);  // warm-up: first use of the peer mappings
    std::vector<double> times_ns;
    for (int run = 0; run < 7; ++run) {
      const auto start = std::chrono::steady_clock::now();
      exchange_halos(*s);
      times_ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(times_ns.begin(), times_ns.end());
    m.time_ns = times_ns[times_ns.size() / 2];
    m.timed_runs = static_cast<int>(times_ns.size());
    const CheckResult check = check_exchange(*s);
    m.correct = check.correct;
    m.check_detail = check.detail + " (host clock: both phases with their synchronisation)";
    if (!check.correct) context.note("WRONG RESULT: halo_exchange_peer_copy: " + check.detail);
    context.record(m);
  }

  // A kernel on GPU 0 pulls GPU 1's bottom interior planes into its own top halo.
  LIMITER_CUDA_CHECK(cudaSetDevice(0));
  float* halo = s->plane(0, s->interior_planes + R);
  LIMITER_CUDA_CHECK(cudaMemset(halo, 0, s->halo_bytes()));
  const std::size_t count = s->halo_bytes() / sizeof(float4);
  const unsigned blocks = one_wave(context.device(), 4);
  Experiment e;
  e.name = "halo_pull_peer_kernel";
  e.kernel = reinterpret_cast<const void*>(&halo_pull_peer);
  e.grid = dim3(blocks);
  e.block = dim3(256);
  e.useful_bytes = static_cast<double>(s->halo_bytes());
  e.launch = [s, halo, count, blocks] {
    halo_pull_peer<<<blocks, 256>>>(reinterpret_cast<const float4*>(s->plane(1, R)), reinterpret_cast<float4*>(halo),
                                    count);
  };
  e.check = [s] {
    if (auto error = check_planes(*s, 0, s->interior_planes + R, 1, R)) return CheckResult{false, *error};
    return CheckResult{true, "GPU 0's top halo holds GPU 1's boundary planes"};
  };
  context.measure(e);
}

}  // namespace limiter::kernels::detail
