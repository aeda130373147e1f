// An app for the PM-sampling mode (limiter run --sampling): two kernels whose limiters are
// known, each running long enough to own many samples at 100 us: an FMA chain (instruction)
// and a grid-stride copy of 256 MB (bandwidth). ~70 ms of GPU time in all; an argument sets the
// number of copies (100), for runs that sample only late (sampling after per-kernel budgets).
#include <cuda_runtime.h>

#include <cstdio>

#include "spin_fma.cuh"

namespace {

__global__ void stream_copy(const float4* in, float4* out, size_t count) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

bool check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return true;
  std::fprintf(stderr, "sampling_app: %s: %s\n", what, cudaGetErrorString(status));
  return false;
}

}  // namespace

#include <cstdlib>

int main(int argc, char** argv) {
  const int copies = argc > 1 ? std::atoi(argv[1]) : 100;
  int sms = 0;
  if (!check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "device")) return 1;
  const size_t copy_count = (256u << 20) / sizeof(float4);
  float* fma_out = nullptr;
  float4 *from = nullptr, *to = nullptr;
  if (!check(cudaMalloc(&fma_out, static_cast<size_t>(sms) * 8 * 1024 * sizeof(float)), "malloc") ||
      !check(cudaMalloc(&from, copy_count * sizeof(float4)), "malloc") ||
      !check(cudaMalloc(&to, copy_count * sizeof(float4)), "malloc") ||
      !check(cudaMemset(from, 0, copy_count * sizeof(float4)), "memset"))
    return 1;
  for (int i = 0; i < 20; ++i) spin_fma<<<sms * 8, 1024>>>(fma_out, 5000);
  for (int i = 0; i < copies; ++i) stream_copy<<<sms * 4, 1024>>>(from, to, copy_count);
  if (!check(cudaDeviceSynchronize(), "kernels")) return 1;
  cudaFree(fma_out);
  cudaFree(from);
  cudaFree(to);
  std::printf("sampling_app: 20 spin_fma and %d stream_copy launches done\n", copies);
  return 0;
}
