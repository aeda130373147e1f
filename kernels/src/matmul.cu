// Seed 002, thread granularity: C = A x B on n x n floats, from one output per thread reading
// global memory, to 16 x 16 shared-memory tiles, to 4 x 4 and then 8 x 8 outputs per thread.
#include <memory>
#include <random>

#include "limiter/kernels/reference.hpp"
#include "suite_context.hpp"

namespace limiter::kernels::detail {
namespace {

constexpr int kTile = 16;

__global__ void matmul_naive(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
}

__global__ void matmul_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    a_tile[ty][tx] = a[row * n + k0 + tx];
    b_tile[ty][tx] = b[(k0 + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) sum += a_tile[ty][k] * b_tile[k][tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

// 64 x 64 outputs per block of 256 threads, 4 x 4 per thread. A's tile is stored transposed
// (k-major) so that each thread reads its 4 rows of A and 4 columns of B as two float4 loads.
constexpr int kBlockTile = 64, kDepth = 16, kMicro = 4, kBlockedThreads = 256;

__global__ void __launch_bounds__(kBlockedThreads)
    matmul_register_blocked(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  __shared__ __align__(16) float a_tile[kDepth][kBlockTile];  // a_tile[k][row]
  __shared__ __align__(16) float b_tile[kDepth][kBlockTile];  // b_tile[k][col]
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  const int row0 = blockIdx.y * kBlockTile, col0 = blockIdx.x * kBlockTile;
  float acc[kMicro][kMicro] = {};
  for (int k0 = 0; k0 < n; k0 += kDepth) {
    {  // each thread loads one float4 of A (row t / 4, k 4 * (t % 4)) and one of B
      const int r = t / 4, k4 = (t % 4) * 4;
      const float4 a4 = *reinterpret_cast<const float4*>(&a[(row0 + r) * n + k0 + k4]);
      a_tile[k4 + 0][r] = a4.x;
      a_tile[k4 + 1][r] = a4.y;
      a_tile[k4 + 2][r] = a4.z;
      a_tile[k4 + 3][r] = a4.w;
      const int kb = t / 16, c4 = (t % 16) * 4;
      *reinterpret_cast<float4*>(&b_tile[kb][c4]) = *reinterpret_cast<const float4*>(&b[(k0 + kb) * n + col0 + c4]);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kDepth; ++k) {
      const float4 a4 = *reinterpret_cast<const float4*>(&a_tile[k][ty * kMicro]);
      const float4 b4 = *reinterpret_cast<const float4*>(&b_tile[k][tx * kMicro]);
      const float as[kMicro] = {a4.x, a4.y, a4.z, a4.w}, bs[kMicro] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
      for (int i = 0; i < kMicro; ++i)
#pragma unroll
        for (int j = 0; j < kMicro; ++j) acc[i][j] += as[i] * bs[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kMicro; ++i) {
    const float4 row = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4*>(&c[(row0 + ty * kMicro + i) * n + col0 + tx * kMicro]) = row;
  }
}

// 128 x 128 outputs per block of 256 threads, 8 x 8 per thread: four float4 shared loads feed
// 64 FMAs. Each thread's rows are ty*4..+3 and 64+ty*4..+3 (columns likewise), so the float4
// loads of a warp read contiguous, conflict-free words.
constexpr int kWideTile = 128, kWideDepth = 8, kWideMicro = 8, kWideThreads = 256;

__global__ void __launch_bounds__(kWideThreads)
    matmul_register_blocked_8x8(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                int n) {
  __shared__ __align__(16) float a_tile[kWideDepth][kWideTile];  // a_tile[k][row]
  __shared__ __align__(16) float b_tile[kWideDepth][kWideTile];  // b_tile[k][col]
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  const int row0 = blockIdx.y * kWideTile, col0 = blockIdx.x * kWideTile;
  constexpr int kHalf = kWideTile / 2;
  float acc[kWideMicro][kWideMicro] = {};
  for (int k0 = 0; k0 < n; k0 += kWideDepth) {
    {  // each thread loads one float4 of A (row t / 2, k 4 * (t % 2)) and one of B (k t / 32)
      const int r = t / 2, k4 = (t % 2) * 4;
      const float4 a4 = *reinterpret_cast<const float4*>(&a[(row0 + r) * n + k0 + k4]);
      a_tile[k4 + 0][r] = a4.x;
      a_tile[k4 + 1][r] = a4.y;
      a_tile[k4 + 2][r] = a4.z;
      a_tile[k4 + 3][r] = a4.w;
      const int kb = t / 32, c4 = (t % 32) * 4;
      *reinterpret_cast<float4*>(&b_tile[kb][c4]) = *reinterpret_cast<const float4*>(&b[(k0 + kb) * n + col0 + c4]);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kWideDepth; ++k) {
      const float4 a_low = *reinterpret_cast<const float4*>(&a_tile[k][ty * 4]);
      const float4 a_high = *reinterpret_cast<const float4*>(&a_tile[k][kHalf + ty * 4]);
      const float4 b_low = *reinterpret_cast<const float4*>(&b_tile[k][tx * 4]);
      const float4 b_high = *reinterpret_cast<const float4*>(&b_tile[k][kHalf + tx * 4]);
      const float as[kWideMicro] = {a_low.x, a_low.y, a_low.z, a_low.w, a_high.x, a_high.y, a_high.z, a_high.w};
      const float bs[kWideMicro] = {b_low.x, b_low.y, b_low.z, b_low.w, b_high.x, b_high.y, b_high.z, b_high.w};
#pragma unroll
      for (int i = 0; i < kWideMicro; ++i)
#pragma unroll
        for (int j = 0; j < kWideMicro; ++j) acc[i][j] += as[i] * bs[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kWideMicro; ++i) {
    const int row = row0 + (i < 4 ? ty * 4 + i : kHalf + ty * 4 + i - 4);
    *reinterpret_cast<float4*>(&c[row * n + col0 + tx * 4]) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4*>(&c[row * n + col0 + kHalf + tx * 4]) =
        make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}

__global__ void fill_matrix(float* matrix, int which, int n) {
  const long long total = static_cast<long long>(n) * n;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    matrix[i] = reference::matmul_input(which, static_cast<int>(i / n), static_cast<int>(i % n));
}

struct Matrices {
  int n = 0;
  DeviceBuffer<float> a, b, c;
};

CheckResult check_product(const Matrices& m) {
  const auto c = m.c.download();
  std::mt19937 random(2024);
  std::uniform_int_distribution<int> index(0, m.n - 1);
  constexpr int kSamples = 4096;  // exact arithmetic (reference.hpp), so any difference is a bug
  for (int s = 0; s < kSamples; ++s) {
    const int row = s == 0 ? m.n - 1 : index(random), col = s == 0 ? m.n - 1 : index(random);
    const float expected = reference::matmul_reference(m.n, row, col);
    const float actual = c[static_cast<std::size_t>(row) * m.n + col];
    if (actual != expected) {
      return {false, "C[" + std::to_string(row) + "][" + std::to_string(col) + "] = " + std::to_string(actual) +
                         ", host reference " + std::to_string(expected)};
    }
  }
  return {true, std::to_string(kSamples) + " sampled entries equal the host reference"};
}

}  // namespace

void run_matmul_family(SuiteContext& context) {
  if (!context.any_selected(Family::matmul)) return;
  const auto m = std::make_shared<Matrices>();
  m->n = context.sizes() == ProblemSize::small ? 1024 : 4096;
  const auto elements = static_cast<std::size_t>(m->n) * m->n;
  m->a = DeviceBuffer<float>(elements);
  m->b = DeviceBuffer<float>(elements);
  m->c = DeviceBuffer<float>(elements);
  fill_matrix<<<1024, 256>>>(m->a.get(), 0, m->n);
  LIMITER_CUDA_CHECK_LAUNCH();
  fill_matrix<<<1024, 256>>>(m->b.get(), 1, m->n);
  LIMITER_CUDA_CHECK_LAUNCH();

  using MatmulKernel = void (*)(const float*, const float*, float*, int);
  struct Variant {
    const char* name;
    MatmulKernel kernel;
    dim3 grid, block;
  };
  const unsigned n = static_cast<unsigned>(m->n);
  const Variant variants[] = {
      {"matmul_naive", matmul_naive, dim3(n / kTile, n / kTile), dim3(kTile, kTile)},
      {"matmul_tiled_16x16", matmul_tiled, dim3(n / kTile, n / kTile), dim3(kTile, kTile)},
      {"matmul_register_blocked_4x4", matmul_register_blocked, dim3(n / kBlockTile, n / kBlockTile),
       dim3(kBlockedThreads)},
      {"matmul_register_blocked_8x8", matmul_register_blocked_8x8, dim3(n / kWideTile, n / kWideTile),
       dim3(kWideThreads)},
  };
  for (const Variant& variant : variants) {
    Experiment experiment;
    experiment.name = variant.name;
    experiment.kernel = reinterpret_cast<const void*>(variant.kernel);
    experiment.grid = variant.grid;
    experiment.block = variant.block;
    experiment.useful_flops = 2.0 * m->n * static_cast<double>(m->n) * m->n;
    experiment.useful_bytes = 3.0 * 4.0 * static_cast<double>(elements);
    experiment.launch = [m, variant] {
      variant.kernel<<<variant.grid, variant.block>>>(m->a.get(), m->b.get(), m->c.get(), m->n);
    };
    experiment.check = [m] {
      CheckResult result = check_product(*m);
      LIMITER_CUDA_CHECK(cudaMemset(m->c.get(), 0, m->c.bytes()));  // the next variant starts clean
      return result;
    };
    context.measure(experiment);
  }
}

}  // namespace limiter::kernels::detail
