// The five known-answer programs of the program verdict (catalog and claims in
// kernels/host/programs.cpp). Each is set up first (context, module, buffers, inputs), then
// runs inside one region of a collector that records the activity timeline alone
// (CollectorOptions::trace), then checks its own output. One program per process: the suite's
// runner starts each as `limiter kernels --program-child NAME` (program_runner.cpp).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "limiter/collector.hpp"
#include "limiter/error.hpp"
#include "limiter/kernels/programs.hpp"
#include "limiter/record_json.hpp"
#include "suite_context.hpp"

namespace limiter::kernels {
namespace detail {
namespace {

__global__ void tiny_step(unsigned* counter) {
  if (threadIdx.x == 0) *counter += 1;
}

__global__ void stream_axpy(const float* __restrict__ x, float* __restrict__ y, float a, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    y[i] += a * x[i];
}

__global__ void add_into(const float* __restrict__ x, float* __restrict__ y, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    y[i] += x[i];
}

__global__ void host_step(unsigned* out, unsigned value) { out[blockIdx.x * blockDim.x + threadIdx.x] += value; }

// Host work with no CUDA call in it, for about DURATION: a hash chain, so it is real work that
// the compiler cannot drop; the clock decides when to stop.
unsigned host_work(std::chrono::nanoseconds duration) {
  const auto until = std::chrono::steady_clock::now() + duration;
  unsigned hash = 2166136261u;
  do {
    for (int i = 0; i < 64; ++i) hash = (hash ^ static_cast<unsigned>(i)) * 16777619u;
  } while (std::chrono::steady_clock::now() < until);
  return hash;
}

// A program: its setup happened in the constructor; run() is what the region records; check()
// compares its output with the host's.
struct Program {
  virtual ~Program() = default;
  virtual void run() = 0;
  virtual CheckResult check() = 0;
};

struct LaunchBound final : Program {
  static constexpr unsigned kLaunches = 20000;
  DeviceBuffer<unsigned> counter{1};
  LaunchBound() { LIMITER_CUDA_CHECK(cudaMemset(counter.get(), 0, counter.bytes())); }
  void run() override {
    for (unsigned i = 0; i < kLaunches; ++i) tiny_step<<<1, 32>>>(counter.get());
    LIMITER_CUDA_CHECK_LAUNCH();
    LIMITER_CUDA_CHECK(cudaDeviceSynchronize());
  }
  CheckResult check() override {
    const unsigned got = counter.download()[0];
    return {got == kLaunches, "counter " + std::to_string(got) + " after " + std::to_string(kLaunches) + " launches"};
  }
};

struct GpuBound final : Program {
  static constexpr long long kFloats = 1LL << 26;
  static constexpr int kLaunches = 100;
  DeviceBuffer<float> x{kFloats}, y{kFloats};
  unsigned grid = 0;
  GpuBound() {
    LIMITER_CUDA_CHECK(cudaMemset(y.get(), 0, y.bytes()));
    x.upload(std::vector<float>(kFloats, 1.0f));
    int device = 0, sms = 0;
    LIMITER_CUDA_CHECK(cudaGetDevice(&device));
    LIMITER_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    grid = static_cast<unsigned>(sms) * 8;
  }
  void run() override {
    for (int i = 0; i < kLaunches; ++i) stream_axpy<<<grid, 256>>>(x.get(), y.get(), 1.0f, kFloats);
    LIMITER_CUDA_CHECK_LAUNCH();
    LIMITER_CUDA_CHECK(cudaDeviceSynchronize());
  }
  CheckResult check() override {
    const auto values = y.download(0, 1 << 20);
    for (std::size_t i = 0; i < values.size(); i += 4093)
      if (values[i] != kLaunches) return {false, "y[" + std::to_string(i) + "] = " + std::to_string(values[i])};
    return {true, "y = 100 x 1.0 in sampled elements"};
  }
};

struct SyncBound final : Program {
  static constexpr unsigned kSteps = 2000;
  DeviceBuffer<unsigned> counter{1};
  cudaEvent_t done = nullptr;
  unsigned host_hash = 0;
  SyncBound() {
    LIMITER_CUDA_CHECK(cudaMemset(counter.get(), 0, counter.bytes()));
    LIMITER_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventBlockingSync | cudaEventDisableTiming));
  }
  ~SyncBound() override { LIMITER_CUDA_CHECK_NOTHROW(cudaEventDestroy(done)); }
  void run() override {
    for (unsigned i = 0; i < kSteps; ++i) {
      tiny_step<<<1, 32>>>(counter.get());
      LIMITER_CUDA_CHECK(cudaEventRecord(done));
      LIMITER_CUDA_CHECK(cudaEventSynchronize(done));
      host_hash ^= host_work(std::chrono::microseconds(1));
    }
  }
  CheckResult check() override {
    const unsigned got = counter.download()[0];
    return {got == kSteps,
            "counter " + std::to_string(got) + " after " + std::to_string(kSteps) + " synchronised steps"};
  }
};

struct CopyBound final : Program {
  static constexpr long long kFloats = 4LL << 20;  // 16 MiB
  static constexpr int kCopies = 24;
  std::vector<float> pageable = std::vector<float>(kFloats, 1.0f);
  DeviceBuffer<float> staged{kFloats}, sum{kFloats};
  CopyBound() { LIMITER_CUDA_CHECK(cudaMemset(sum.get(), 0, sum.bytes())); }
  void run() override {
    for (int i = 0; i < kCopies; ++i) {
      LIMITER_CUDA_CHECK(cudaMemcpy(staged.get(), pageable.data(), staged.bytes(), cudaMemcpyHostToDevice));
      add_into<<<264, 256>>>(staged.get(), sum.get(), kFloats);
    }
    LIMITER_CUDA_CHECK_LAUNCH();
    LIMITER_CUDA_CHECK(cudaDeviceSynchronize());
  }
  CheckResult check() override {
    const auto values = sum.download();
    for (std::size_t i = 0; i < values.size(); i += 997)
      if (values[i] != kCopies) return {false, "sum[" + std::to_string(i) + "] = " + std::to_string(values[i])};
    return {true, "every 997th element = 24 copies of 1.0"};
  }
};

struct HostBound final : Program {
  static constexpr unsigned kSteps = 500, kBlocks = 8, kThreads = 128;
  DeviceBuffer<unsigned> out{kBlocks * kThreads};
  unsigned expected = 0;
  HostBound() { LIMITER_CUDA_CHECK(cudaMemset(out.get(), 0, out.bytes())); }
  void run() override {
    for (unsigned i = 0; i < kSteps; ++i) {
      const unsigned value = host_work(std::chrono::microseconds(200)) & 0xff;
      expected += value;
      host_step<<<kBlocks, kThreads>>>(out.get(), value);
    }
    LIMITER_CUDA_CHECK_LAUNCH();
    LIMITER_CUDA_CHECK(cudaDeviceSynchronize());
  }
  CheckResult check() override {
    const auto values = out.download();
    for (std::size_t i = 0; i < values.size(); ++i)
      if (values[i] != expected) return {false, "out[" + std::to_string(i) + "] = " + std::to_string(values[i])};
    return {true, "every thread summed the 500 values the host computed"};
  }
};

std::unique_ptr<Program> make_program(const std::string& name) {
  if (name == "launch_bound") return std::make_unique<LaunchBound>();
  if (name == "gpu_bound") return std::make_unique<GpuBound>();
  if (name == "sync_bound") return std::make_unique<SyncBound>();
  if (name == "copy_bound") return std::make_unique<CopyBound>();
  if (name == "host_bound") return std::make_unique<HostBound>();
  throw InputError("unknown program '" + name + "'");
}

}  // namespace
}  // namespace detail

int run_program_child(const std::string& name, const std::string& record_path) {
  if (!find_program(name)) throw InputError("unknown program '" + name + "' (`limiter kernels --list --programs`)");
  CollectorOptions options;
  options.trace = true;
  options.command_line = {"limiter", "kernels", "--program-child", name};
  Collector collector(options);  // subscribed before the context exists, as `limiter run` is
  LIMITER_CUDA_CHECK(cudaSetDevice(0));
  auto program = detail::make_program(name);
  LIMITER_CUDA_CHECK(cudaDeviceSynchronize());  // the setup is done before the window opens
  {
    ProfiledRegion region(collector);
    program->run();
  }
  RunRecord record = collector.take_run();
  const detail::CheckResult check = program->check();
  write_run_file(record, record_path);
  if (!check.correct)
    std::fprintf(stderr, "limiter kernels: %s: WRONG RESULT: %s\n", name.c_str(), check.detail.c_str());
  return check.correct ? 0 : 1;
}

}  // namespace limiter::kernels
