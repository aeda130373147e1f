// The example's own kernel, compiled by nvcc; profile_region.cpp launches it through run_scale.
#include <cuda_runtime.h>

__global__ void scale(float* x, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

void run_scale(int n, int steps) {
  float* x = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  for (int step = 0; step < steps; ++step) scale<<<(n + 255) / 256, 256>>>(x, 1.0001f, n);
  cudaDeviceSynchronize();
  cudaFree(x);
}
