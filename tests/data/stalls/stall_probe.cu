// Two kernels whose warps wait for one reason each, for `limiter run --stalls` on a GPU
// (scripts/device-test.sh, bench/results/2026-11-26-stalls.md): a pointer chase (each load
// depends on the one before: long scoreboard) and a loop of __syncthreads between uneven work
// (barrier). Build: nvcc -lineinfo -arch=sm_90 -o stall_probe stall_probe.cu
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

__global__ void chase(const unsigned* next, unsigned* out, int steps, int stride) {
  unsigned p = (blockIdx.x * blockDim.x + threadIdx.x) * stride;
  for (int i = 0; i < steps; ++i) p = next[p];
  out[blockIdx.x * blockDim.x + threadIdx.x] = p;
}

__global__ void barrier(float* data, int rounds) {
  __shared__ float tile[256];
  float x = data[blockIdx.x * blockDim.x + threadIdx.x];
  for (int r = 0; r < rounds; ++r) {
    // One warp works longer each round; the other seven wait at the barrier.
    if (threadIdx.x / 32 == r % 8)
      for (int k = 0; k < 64; ++k) x = x * 0.999f + 0.001f;
    tile[threadIdx.x] = x;
    __syncthreads();
    x += tile[(threadIdx.x + 32) % blockDim.x];
    __syncthreads();
  }
  data[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 5;
  const unsigned n = 1u << 24;  // 64 MiB of indices: the chase misses L2
  std::vector<unsigned> next(n);
  unsigned long long state = 12345;
  for (unsigned i = 0; i < n; ++i) next[i] = i;
  for (unsigned i = n - 1; i > 0; --i) {  // a random permutation: no prefetcher helps
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const unsigned j = static_cast<unsigned>((state >> 33) % (i + 1));
    std::swap(next[i], next[j]);
  }
  unsigned *d_next = nullptr, *d_out = nullptr;
  float* d_data = nullptr;
  const int blocks = 264, threads = 256;
  cudaMalloc(&d_next, n * sizeof(unsigned));
  cudaMalloc(&d_out, blocks * threads * sizeof(unsigned));
  cudaMalloc(&d_data, blocks * threads * sizeof(float));
  cudaMemcpy(d_next, next.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
  cudaMemset(d_data, 0, blocks * threads * sizeof(float));
  for (int r = 0; r < repeats; ++r) {
    chase<<<blocks, threads>>>(d_next, d_out, 2000, 97);
    barrier<<<blocks, threads>>>(d_data, 4000);
    cudaDeviceSynchronize();
  }
  const cudaError_t status = cudaGetLastError();
  std::printf("stall_probe: %d rounds, %s\n", repeats, cudaGetErrorString(status));
  cudaFree(d_next);
  cudaFree(d_out);
  cudaFree(d_data);
  return status == cudaSuccess ? 0 : 1;
}
