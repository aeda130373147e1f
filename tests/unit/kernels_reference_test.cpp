// The host references the kernel suite checks its GPU results against: if a reference were
// wrong, a correct kernel would be reported wrong (or a wrong one right), so each is checked
// here against a second, independent computation.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "limiter/kernels/reference.hpp"

namespace limiter::kernels::reference {
namespace {

TEST(KernelReference, ReductionValuesAreSmallAndTheirSumIsExact) {
  std::int64_t sum = 0;
  for (std::uint32_t i = 0; i < 1000; ++i) {
    const int value = reduction_value(i);
    EXPECT_GE(value, 0);
    EXPECT_LE(value, 3);
    sum += value;
  }
  EXPECT_EQ(reduction_sum(1000), sum);
  EXPECT_EQ(reduction_sum(0), 0);
  // Spread over 0..3 (a hash, not a constant): the mean of many values is near 1.5.
  EXPECT_NEAR(static_cast<double>(reduction_sum(1u << 16)) / (1u << 16), 1.5, 0.05);
}

TEST(KernelReference, StencilCoefficientsAreTheEighthOrderSecondDerivative) {
  double constant = stencil_coefficient(0), second_moment = 0;
  for (int r = 1; r <= kStencilRadius; ++r) {
    constant += 2.0 * stencil_coefficient(r);
    second_moment += 2.0 * r * r * stencil_coefficient(r);
  }
  EXPECT_NEAR(constant, 0.0, 1e-6);       // the second derivative of a constant is 0
  EXPECT_NEAR(second_moment, 2.0, 1e-6);  // ... and of x^2 is 2
}

TEST(KernelReference, StencilOfAQuadraticFieldIsExact) {
  const StencilGrid grid{12, 10, 9};
  // current = x^2 (x with the halo), previous = 0, velocity = 1: next = 2 x^2 + laplacian = 2 x^2 + 2.
  const auto field = [&](StencilField which, std::int64_t cell) {
    const double x = static_cast<double>(cell % grid.stride_y());
    switch (which) {
      case StencilField::current:
        return static_cast<float>(x * x);
      case StencilField::previous:
        return 0.0f;
      default:
        return 1.0f;
    }
  };
  for (int z = 0; z < grid.nz; z += 4)
    for (int y = 0; y < grid.ny; y += 3)
      for (int x = 0; x < grid.nx; ++x) {
        const double xh = x + kStencilRadius;
        EXPECT_NEAR(stencil8_point(grid, field, x, y, z), 2.0 * xh * xh + 2.0, 1e-3) << x << "," << y << "," << z;
      }
}

TEST(KernelReference, StencilGridIndexesWithTheHalo) {
  const StencilGrid grid{32, 8, 4};
  EXPECT_EQ(grid.stride_y(), 40);
  EXPECT_EQ(grid.stride_z(), 40 * 16);
  EXPECT_EQ(grid.cells(), 40 * 16 * 12);
  EXPECT_EQ(grid.index(1, 2, 3), 3 * 640 + 2 * 40 + 1);
  EXPECT_EQ(grid.interior_points(), 32 * 8 * 4);
  // The inputs are the smooth fields the device fills its buffers with.
  EXPECT_GE(stencil_input(StencilField::current, 12345), 0.75f);
  EXPECT_LE(stencil_input(StencilField::velocity, 12345), 0.03f);
}

TEST(KernelReference, TileScanMismatchFindsTheFirstWrongElement) {
  const std::vector<int> in = {1, 2, 3, 4, 5, 6, 7};
  std::vector<int> out = {1, 3, 6, 4, 9, 15, 7};  // tiles of 3: [1 2 3] [4 5 6] [7]
  EXPECT_EQ(first_tile_scan_mismatch(in, out, 3), out.size());
  out[4] = 10;
  EXPECT_EQ(first_tile_scan_mismatch(in, out, 3), 4u);
  std::vector<int> whole(in.size());
  std::partial_sum(in.begin(), in.end(), whole.begin());
  EXPECT_EQ(first_tile_scan_mismatch(in, whole, in.size()), whole.size());
  EXPECT_EQ(first_tile_scan_mismatch(in, std::vector<int>(3), 3), 0u);  // sizes differ
}

TEST(KernelReference, MatmulInputsMakeEveryProductExact) {
  for (int matrix = 0; matrix < 2; ++matrix)
    for (int row = 0; row < 40; ++row)
      for (int col = 0; col < 40; ++col) {
        const float value = matmul_input(matrix, row, col);
        EXPECT_LE(std::fabs(value), 1.0f);
        EXPECT_EQ(value * 8.0f, std::round(value * 8.0f));
      }
  const int n = 24;
  for (int row = 0; row < n; row += 5)
    for (int col = 0; col < n; col += 3) {
      double expected = 0;
      for (int k = 0; k < n; ++k) expected += double{matmul_input(0, row, k)} * matmul_input(1, k, col);
      EXPECT_EQ(matmul_reference(n, row, col), static_cast<float>(expected));
    }
}

TEST(KernelReference, ChaseVisitsEveryEntryOnceInOneCycle) {
  const std::uint32_t entries = 1u << 12, mask = entries - 1;
  std::vector<bool> seen(entries, false);
  std::uint32_t index = 0;
  for (std::uint32_t step = 0; step < entries; ++step) {
    EXPECT_FALSE(seen[index]) << "entry " << index << " visited twice";
    seen[index] = true;
    index = chase_next(index, mask);
  }
  EXPECT_EQ(index, 0u);  // back at the start after exactly `entries` steps
  EXPECT_EQ(chase(5, 3, mask), chase_next(chase_next(chase_next(5, mask), mask), mask));
  EXPECT_EQ(chase(7, 0, mask), 7u);
}

TEST(KernelReference, FmaChainsMatchAStepByStepComputation) {
  for (unsigned thread : {0u, 1u, 1023u, 5000u}) {
    float sum = 0.0f;
    for (int chain = 0; chain < kFmaChains; ++chain) {
      float value = fma_chain_start(thread, chain);
      for (int i = 0; i < 100; ++i) value = std::fmaf(value, 0.999f, 0.001f);
      sum += value;
    }
    EXPECT_EQ(fma_chains_reference(thread, 100), sum);
  }
}

TEST(KernelReference, IndexSumWrapsLikeTheDevicesUint32Adds) {
  for (std::uint64_t words : {0ull, 1ull, 2ull, 3ull, 1000ull, 65537ull, (1ull << 20) + 3}) {
    std::uint32_t sum = 0;
    for (std::uint64_t i = 0; i < words; ++i) sum += static_cast<std::uint32_t>(i);
    EXPECT_EQ(index_sum_mod_2_32(words), sum) << words;
  }
  // 2^28 words (1 GiB): n (n - 1) / 2 = 2^55 - 2^27, which is -2^27 modulo 2^32.
  EXPECT_EQ(index_sum_mod_2_32(1ull << 28), static_cast<std::uint32_t>(0u - (1u << 27)));
}

}  // namespace
}  // namespace limiter::kernels::reference
