#include "limiter/kernels/reference.hpp"

#include <cmath>

namespace limiter::kernels::reference {

std::int64_t reduction_sum(std::uint32_t count) {
  std::int64_t sum = 0;
  for (std::uint32_t i = 0; i < count; ++i) sum += reduction_value(i);
  return sum;
}

std::size_t first_tile_scan_mismatch(std::span<const int> in, std::span<const int> out, std::size_t tile_size) {
  if (out.size() != in.size() || tile_size == 0) return 0;
  int running = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    running = (i % tile_size == 0 ? 0 : running) + in[i];
    if (out[i] != running) return i;
  }
  return out.size();
}

float matmul_reference(int n, int row, int col) {
  float sum = 0.0f;  // exact: see matmul_input
  for (int k = 0; k < n; ++k) sum += matmul_input(0, row, k) * matmul_input(1, k, col);
  return sum;
}

std::uint32_t chase(std::uint32_t start, std::uint32_t steps, std::uint32_t mask) {
  std::uint32_t index = start & mask;
  for (std::uint32_t i = 0; i < steps; ++i) index = chase_next(index, mask);
  return index;
}

float fma_chain_reference(float start, int iterations) {
  float value = start;
  for (int i = 0; i < iterations; ++i) value = std::fmaf(value, kFmaFactor, kFmaAddend);
  return value;
}

float fma_chains_reference(unsigned thread, int iterations) {
  float sum = 0.0f;
  for (int chain = 0; chain < kFmaChains; ++chain)
    sum += fma_chain_reference(fma_chain_start(thread, chain), iterations);
  return sum;
}

std::uint32_t index_sum_mod_2_32(std::uint64_t words) {
  // n (n - 1) / 2 with one factor halved first, in 64-bit arithmetic that wraps like the device's.
  const std::uint64_t a = words % 2 == 0 ? words / 2 : words;
  const std::uint64_t b = words % 2 == 0 ? words - 1 : (words - 1) / 2;
  return static_cast<std::uint32_t>(a * b);
}

}  // namespace limiter::kernels::reference
