#pragma once
// Host references for the kernel suite's result checks, and the input formulas the device
// fills its buffers with. The formulas are __host__ __device__ under nvcc so the device and
// the host reference compute the very same inputs; everything else is plain C++ that the unit
// tests exercise without a GPU.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#ifdef __CUDACC__
#define LIMITER_HOST_DEVICE __host__ __device__
#else
#define LIMITER_HOST_DEVICE
#endif

namespace limiter::kernels::reference {

// --- reduction (seed 002): small pseudo-random ints, so every partial sum fits in an int ---
LIMITER_HOST_DEVICE inline int reduction_value(std::uint32_t index) {
  return static_cast<int>((index * 2654435761u) >> 30);  // Knuth's multiplicative hash: 0..3
}
std::int64_t reduction_sum(std::uint32_t count);  // sum of reduction_value(i), i < count

// --- 8th-order 3D wave-equation stencil (seed 001) ---
inline constexpr int kStencilRadius = 4;
// Central-difference coefficients of d2/dx2 at 8th order (grid spacing 1): centre, then 1..4.
LIMITER_HOST_DEVICE constexpr float stencil_coefficient(int distance) {
  switch (distance) {
    case 0:
      return -205.0f / 72.0f;
    case 1:
      return 8.0f / 5.0f;
    case 2:
      return -1.0f / 5.0f;
    case 3:
      return 8.0f / 315.0f;
    default:
      return -1.0f / 560.0f;
  }
}

// A volume of nx x ny x nz interior points with a halo of kStencilRadius on every side, stored
// x fastest. Coordinates passed to index() include the halo (0 .. n + 2R - 1).
struct StencilGrid {
  int nx = 0, ny = 0, nz = 0;
  LIMITER_HOST_DEVICE std::int64_t stride_y() const { return nx + 2 * kStencilRadius; }
  LIMITER_HOST_DEVICE std::int64_t stride_z() const { return stride_y() * (ny + 2 * kStencilRadius); }
  LIMITER_HOST_DEVICE std::int64_t cells() const { return stride_z() * (nz + 2 * kStencilRadius); }
  LIMITER_HOST_DEVICE std::int64_t index(int x, int y, int z) const { return z * stride_z() + y * stride_y() + x; }
  std::int64_t interior_points() const { return std::int64_t{nx} * ny * nz; }
};

// The three input fields (previous and current wave field, velocity term), smooth enough that
// the float results of host and device differ only by rounding.
enum class StencilField { previous, current, velocity };
LIMITER_HOST_DEVICE inline float stencil_input(StencilField field, std::int64_t cell) {
  const float pattern = static_cast<float>((cell * 40503) & 1023);  // 0..1023, cheap and irregular
  switch (field) {
    case StencilField::previous:
      return 0.5f + pattern * (1.0f / 2048.0f);
    case StencilField::current:
      return 1.0f - pattern * (1.0f / 4096.0f);
    default:
      return 0.01f + pattern * (1.0f / 65536.0f);
  }
}

// next = 2 cur - prev + vel * laplacian(cur) at interior point (x, y, z) (0-based, no halo);
// field(StencilField, cell) gives the inputs, e.g. stencil_input, or a test's own field.
template <class Field>
float stencil8_point(const StencilGrid& grid, Field field, int x, int y, int z) {
  const int R = kStencilRadius;
  const std::int64_t at = grid.index(x + R, y + R, z + R);
  const std::int64_t sy = grid.stride_y(), sz = grid.stride_z();
  auto current = [&](std::int64_t cell) { return field(StencilField::current, cell); };
  float laplacian = 3.0f * stencil_coefficient(0) * current(at);
  for (int r = 1; r <= R; ++r) {  // the device's order: x-, x+, y-, y+, z-, z+
    const float ring = current(at - r) + current(at + r) + current(at - r * sy) + current(at + r * sy) +
                       current(at - r * sz) + current(at + r * sz);
    laplacian += stencil_coefficient(r) * ring;
  }
  return 2.0f * current(at) - field(StencilField::previous, at) + field(StencilField::velocity, at) * laplacian;
}

// --- tile scan (seed 000): each tile of tile_size elements is scanned on its own ---
// The index of the first element of `out` that is not the inclusive scan of `in` within its
// tile, or out.size() when all match.
std::size_t first_tile_scan_mismatch(std::span<const int> in, std::span<const int> out, std::size_t tile_size);

// --- matrix multiply (seed 002): entries k/8 with |k| <= 8, so every product is a multiple of
// 1/64 and every sum of up to 2^17 of them is exact in float, in any order ---
LIMITER_HOST_DEVICE inline float matmul_input(int matrix, int row, int col) {
  const int k = ((row * (matrix ? 5 : 3) + col * (matrix ? 11 : 7) + matrix) % 17) - 8;
  return static_cast<float>(k) * 0.125f;
}
float matmul_reference(int n, int row, int col);  // (A x B)[row][col] with the inputs above

// --- pointer chases: a full-period linear congruential map over 2^k entries is one cycle
// through every entry, in an order no cache line predicts ---
LIMITER_HOST_DEVICE constexpr std::uint32_t chase_next(std::uint32_t index, std::uint32_t mask) {
  return (index * 1664525u + 1013904223u) & mask;  // a = 1 (mod 4), c odd: full period (Hull-Dobell)
}
std::uint32_t chase(std::uint32_t start, std::uint32_t steps, std::uint32_t mask);

// --- FMA chains (calibration): the value each thread of calib_fma_ilp writes ---
inline constexpr int kFmaChains = 8;
LIMITER_HOST_DEVICE inline float fma_chain_start(unsigned thread, int chain) {
  return static_cast<float>(thread & 1023) * 1e-3f + static_cast<float>(chain);
}
// Each step is value = fma(value, kFmaFactor, kFmaAddend).
inline constexpr float kFmaFactor = 0.999f, kFmaAddend = 0.001f;
float fma_chain_reference(float start, int iterations);  // one chain (fma_dependent_chain)
float fma_chains_reference(unsigned thread, int iterations);

// --- streaming reads (calibration): word i holds i; the kernels add words modulo 2^32 ---
std::uint32_t index_sum_mod_2_32(std::uint64_t words);  // sum of 0 .. words-1, modulo 2^32

}  // namespace limiter::kernels::reference
