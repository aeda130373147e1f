#pragma once
// A long, purely arithmetic kernel: it fills the GPU's issue slots for milliseconds, so many PM
// samples hold nothing else (an instruction-bound verdict with full support). Shared by the
// sampling GPU tests and limiter_sampling_app (one translation unit each).
__global__ void spin_fma(float* out, int iterations) {
  float a = threadIdx.x * 1e-3f, b = 1.0001f, c = 0.9999f, d = blockIdx.x * 1e-3f;
  for (int i = 0; i < iterations; ++i) {
    a = fmaf(a, b, c);
    d = fmaf(d, c, b);
    b = fmaf(b, a, d) * 1e-6f + 1.0f;
    c = fmaf(c, d, a) * 1e-6f + 0.999f;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d;
}
