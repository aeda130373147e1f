// verdict_probe: a handful of kernels, each built to hit one limiter, used to record Nsight
// Compute exports that the host-side analysis is tested against (tests/data/ncu/).
// Every kernel's result is checked against a host reference; the program exits non-zero on
// a wrong result so a recording of a broken kernel is never committed.
//
//   stream_copy          HBM-bandwidth-limited (float4 copy of 2 x 512 MiB)
//   l2_resident_read     L2-bandwidth-limited (ld.global.cg over 8 MiB, many passes)
//   fma_ilp              instruction-limited (8 independent FFMA chains per thread)
//   fma_ilp_small_grid   latency-limited, small grid (the same kernel on 16 blocks)
//   pointer_chase        latency-limited (dependent loads over a random cycle)
//   local_array_2k       local memory: 2 KB dynamically indexed array per thread
//   spill_pressure       register spills forced by __launch_bounds__(256, 8) (<= 32 registers)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#define CHECK_CUDA(call)                                                                                      \
  do {                                                                                                        \
    cudaError_t status_ = (call);                                                                             \
    if (status_ != cudaSuccess) {                                                                             \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(status_)); \
      std::exit(2);                                                                                           \
    }                                                                                                         \
  } while (0)

static int failures = 0;
static void expect(bool ok, const char* what) {
  std::printf("%-22s %s\n", what, ok ? "ok" : "WRONG RESULT");
  if (!ok) ++failures;
}

__global__ void stream_copy(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    out[i] = in[i];
}

__global__ void l2_resident_read(const float4* __restrict__ in, size_t n, int passes, float* out) {
  float sum = 0.f;
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
      float4 v = __ldcg(in + i);
      sum += v.x + v.y + v.z + v.w;
    }
  if (sum == -1.f) *out = sum;  // never true for the data used; keeps the loads alive
}

__global__ void fma_ilp(float* out, int iterations) {
  float a[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) a[k] = threadIdx.x * 1e-3f + k;
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = fmaf(a[k], 0.999f, 0.001f);
  }
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < 8; ++k) sum += a[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

__global__ void pointer_chase(const unsigned* __restrict__ next, int steps, unsigned* out) {
  unsigned p = (blockIdx.x * blockDim.x + threadIdx.x) * 977u % 4194304u;
  for (int i = 0; i < steps; ++i) p = next[p];
  out[blockIdx.x * blockDim.x + threadIdx.x] = p;
}

// 2 KB per thread, indexed by data the compiler cannot see: lives in local memory.
__global__ void local_array_2k(const int* __restrict__ index, int* out, int rounds) {
  int scratch[512];
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < 512; ++i) scratch[i] = tid + i;
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
    int j = index[(tid + r) & 1023] & 511;
    acc += scratch[j];
    scratch[(j + 7) & 511] = acc;
  }
  out[tid] = acc;
}

// 48 live accumulators under a 32-register cap: ptxas spills to local memory.
constexpr int kSpillValues = 48;
__global__ void __launch_bounds__(256, 8) spill_pressure(const float* __restrict__ in, float* out, int n) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[kSpillValues];
#pragma unroll
  for (int k = 0; k < kSpillValues; ++k) acc[k] = in[(tid + k * 4099) % n];
  for (int i = 0; i < 64; ++i) {
#pragma unroll
    for (int k = 0; k < kSpillValues; ++k) acc[k] = fmaf(acc[k], 0.25f, 0.5f * acc[(k + 5) % kSpillValues]);
  }
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < kSpillValues; ++k) sum += acc[k];
  out[tid] = sum;
}

static float fma_reference(int tid, int iterations) {
  float sum = 0.f;
  for (int k = 0; k < 8; ++k) {
    float a = tid * 1e-3f + k;
    for (int i = 0; i < iterations; ++i) a = std::fmaf(a, 0.999f, 0.001f);
    sum += a;
  }
  return sum;
}

int main() {
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  {  // HBM copy
    const size_t n = (size_t{512} << 20) / sizeof(float4);
    std::vector<float4> host(n);
    for (size_t i = 0; i < n; ++i) host[i] = make_float4(float(i), 1.f, 2.f, 3.f);
    float4 *in, *out;
    CHECK_CUDA(cudaMalloc(&in, n * sizeof(float4)));
    CHECK_CUDA(cudaMalloc(&out, n * sizeof(float4)));
    CHECK_CUDA(cudaMemcpy(in, host.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
    stream_copy<<<sms * 8, 256>>>(in, out, n);
    CHECK_CUDA(cudaMemcpy(host.data(), out, n * sizeof(float4), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (size_t i = 0; i < n; i += 4099) ok &= host[i].x == float(i) && host[i].w == 3.f;
    expect(ok, "stream_copy");
    CHECK_CUDA(cudaFree(in));
    CHECK_CUDA(cudaFree(out));
  }
  {  // L2-resident read
    const size_t n = (size_t{8} << 20) / sizeof(float4);
    std::vector<float4> host(n, make_float4(1.f, 1.f, 1.f, 1.f));
    float4* in;
    float* out;
    CHECK_CUDA(cudaMalloc(&in, n * sizeof(float4)));
    CHECK_CUDA(cudaMalloc(&out, sizeof(float)));
    CHECK_CUDA(cudaMemcpy(in, host.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(out, 0, sizeof(float)));
    l2_resident_read<<<sms * 8, 256>>>(in, n, 64, out);
    float result = 1.f;
    CHECK_CUDA(cudaMemcpy(&result, out, sizeof(float), cudaMemcpyDeviceToHost));
    expect(result == 0.f, "l2_resident_read");
    CHECK_CUDA(cudaFree(in));
    CHECK_CUDA(cudaFree(out));
  }
  {  // FMA with ILP, full grid then small grid
    const int iterations = 4096, threads = 256;
    for (int blocks : {sms * 8, 16}) {
      float* out;
      CHECK_CUDA(cudaMalloc(&out, size_t(blocks) * threads * sizeof(float)));
      fma_ilp<<<blocks, threads>>>(out, iterations);
      std::vector<float> host(size_t(blocks) * threads);
      CHECK_CUDA(cudaMemcpy(host.data(), out, host.size() * sizeof(float), cudaMemcpyDeviceToHost));
      bool ok = true;
      for (int t = 0; t < threads; t += 37) ok &= std::fabs(host[t] - fma_reference(t, iterations)) < 1e-3f;
      expect(ok, blocks == 16 ? "fma_ilp_small_grid" : "fma_ilp");
      CHECK_CUDA(cudaFree(out));
    }
  }
  {  // pointer chase over one random cycle of 4 Mi entries (16 MiB)
    const unsigned n = 4194304u;
    std::vector<unsigned> order(n), next(n);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), std::mt19937(42));
    for (unsigned i = 0; i < n; ++i) next[order[i]] = order[(i + 1) % n];
    const int blocks = sms, threads = 32, steps = 2048;
    unsigned *next_d, *out;
    CHECK_CUDA(cudaMalloc(&next_d, n * sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc(&out, blocks * threads * sizeof(unsigned)));
    CHECK_CUDA(cudaMemcpy(next_d, next.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    pointer_chase<<<blocks, threads>>>(next_d, steps, out);
    std::vector<unsigned> host(blocks * threads);
    CHECK_CUDA(cudaMemcpy(host.data(), out, host.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int t = 0; t < blocks * threads; t += 101) {
      unsigned p = unsigned(t) * 977u % n;
      for (int i = 0; i < steps; ++i) p = next[p];
      ok &= host[t] == p;
    }
    expect(ok, "pointer_chase");
    CHECK_CUDA(cudaFree(next_d));
    CHECK_CUDA(cudaFree(out));
  }
  {  // local array
    const int threads = 256, blocks = sms * 4, rounds = 256;
    std::vector<int> index(1024);
    std::mt19937 rng(7);
    for (int& v : index) v = int(rng() & 0x7fffffff);
    int *index_d, *out;
    CHECK_CUDA(cudaMalloc(&index_d, index.size() * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&out, size_t(blocks) * threads * sizeof(int)));
    CHECK_CUDA(cudaMemcpy(index_d, index.data(), index.size() * sizeof(int), cudaMemcpyHostToDevice));
    local_array_2k<<<blocks, threads>>>(index_d, out, rounds);
    std::vector<int> host(size_t(blocks) * threads);
    CHECK_CUDA(cudaMemcpy(host.data(), out, host.size() * sizeof(int), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int tid = 0; tid < blocks * threads; tid += 997) {
      std::vector<int> scratch(512);
      for (int i = 0; i < 512; ++i) scratch[i] = tid + i;
      int acc = 0;
      for (int r = 0; r < rounds; ++r) {
        int j = index[(tid + r) & 1023] & 511;
        acc += scratch[j];
        scratch[(j + 7) & 511] = acc;
      }
      ok &= host[tid] == acc;
    }
    expect(ok, "local_array_2k");
    CHECK_CUDA(cudaFree(index_d));
    CHECK_CUDA(cudaFree(out));
  }
  {  // register spills
    const int threads = 256, blocks = sms * 16, n = blocks * threads;
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i) in[i] = 0.5f + float(i % 97) * 1e-3f;
    float *in_d, *out;
    CHECK_CUDA(cudaMalloc(&in_d, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&out, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(in_d, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    spill_pressure<<<blocks, threads>>>(in_d, out, n);
    std::vector<float> host(n);
    CHECK_CUDA(cudaMemcpy(host.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int tid = 0; tid < n; tid += 4001) {
      float acc[kSpillValues];
      for (int k = 0; k < kSpillValues; ++k) acc[k] = in[(tid + k * 4099) % n];
      for (int i = 0; i < 64; ++i)
        for (int k = 0; k < kSpillValues; ++k) acc[k] = std::fmaf(acc[k], 0.25f, 0.5f * acc[(k + 5) % kSpillValues]);
      float sum = 0.f;
      for (int k = 0; k < kSpillValues; ++k) sum += acc[k];
      ok &= std::fabs(host[tid] - sum) <= 1e-3f * std::fabs(sum) + 1e-3f;
    }
    expect(ok, "spill_pressure");
    CHECK_CUDA(cudaFree(in_d));
    CHECK_CUDA(cudaFree(out));
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  return failures == 0 ? 0 : 1;
}
