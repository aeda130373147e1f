// Launch-overhead benchmark: N launches of a ~4 us kernel, timed on the host (wall clock
// around the launch loop, one synchronisation at the end). Run it bare, under `limiter run`
// and under `ncu --metrics <the same list>` (bench/run-overhead.sh) and compare per launch.
// Arguments: launches (2000), elements (1 << 20; more makes the kernel longer).
// Prints one JSON line: launches, seconds, us_per_launch, max_rss_kib.
#include <cuda_runtime.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void small_work(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * 0.5f + 1.0f;
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int n = argc > 2 ? std::atoi(argv[2]) : 1 << 20;  // 1 << 20 floats, 4 MiB: about 4 us on an H100/H200
  float* data = nullptr;
  if (cudaMalloc(&data, n * sizeof(float)) != cudaSuccess) return 2;
  small_work<<<n / 256, 256>>>(data, n);  // warm-up (module load, first-launch costs)
  cudaDeviceSynchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i) small_work<<<n / 256, 256>>>(data, n);
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("{\"launches\": %d, \"seconds\": %.6f, \"us_per_launch\": %.3f, \"max_rss_kib\": %ld}\n", launches,
              seconds, seconds / launches * 1e6, usage.ru_maxrss);
  cudaFree(data);
  return 0;
}
