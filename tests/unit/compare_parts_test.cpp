// The compact parts of a comparison: OptionalNumber, which ComparedLaunch keeps its
// numbers in, and LaunchGroups, which numbers launches by name and configuration by each name
// view's address first.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "analysis/compare_groups.hpp"
#include "limiter/compare.hpp"

namespace limiter {
namespace {

TEST(OptionalNumber, ReadsLikeAnOptionalDouble) {
  const OptionalNumber empty;
  EXPECT_FALSE(empty.has_value());
  EXPECT_FALSE(static_cast<bool>(empty));
  EXPECT_EQ(std::optional<double>(empty), std::nullopt);
  EXPECT_EQ(empty.value_or(-1), -1);

  const OptionalNumber zero = std::optional<double>(0.0);
  ASSERT_TRUE(zero.has_value());
  EXPECT_EQ(*zero, 0.0);
  EXPECT_EQ(zero, std::optional<double>(0.0));
  EXPECT_FALSE(zero == empty);

  const double third = 1.0 / 3.0;
  EXPECT_EQ(*OptionalNumber(third), third);  // every bit kept
  EXPECT_EQ(OptionalNumber(std::nullopt), empty);
  EXPECT_EQ(sizeof(OptionalNumber), sizeof(double));
}

TEST(OptionalNumber, ANaNIsAValueNotEmpty) {
  const OptionalNumber nan = std::optional<double>(std::numeric_limits<double>::quiet_NaN());
  ASSERT_TRUE(nan.has_value());
  EXPECT_TRUE(std::isnan(*nan));
  const OptionalNumber negative_nan = std::optional<double>(-std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE(negative_nan.has_value());
}

TEST(LaunchGroups, SameTextAtOtherAddressesIsOneGroup) {
  const std::string a = "void kernel<float>(float*)", b = a;  // two copies: two addresses
  detail::LaunchGroups groups;
  const Dim3 grid{8, 1, 1}, block{128, 1, 1};
  EXPECT_EQ(groups.of(a, grid, block), 0u);
  EXPECT_EQ(groups.of(b, grid, block), 0u);
  EXPECT_EQ(groups.of(a, grid, Dim3{256, 1, 1}), 1u);  // another configuration
  EXPECT_EQ(groups.of("other", grid, block), 2u);
  EXPECT_EQ(groups.size(), 3u);
  ASSERT_NE(groups.find(b, grid, Dim3{256, 1, 1}), nullptr);
  EXPECT_EQ(*groups.find(b, grid, Dim3{256, 1, 1}), 1u);
  EXPECT_EQ(groups.find("absent", grid, block), nullptr);
}

TEST(LaunchGroups, AViewOfAPrefixAtTheSameAddressIsAnotherName) {
  const std::string text = "kernel_long_name";
  const std::string_view whole = text, prefix = std::string_view(text).substr(0, 6);  // "kernel"
  detail::LaunchGroups groups;
  EXPECT_EQ(groups.of(whole, {}, {}), 0u);
  EXPECT_EQ(groups.of(prefix, {}, {}), 1u);
  EXPECT_EQ(groups.of(std::string("kernel"), {}, {}), 1u);
}

TEST(ComparedLaunch, IsCompact) {
  // A million matched launches a side must fit well under 1 GiB (bench/results/2026-11-26-compare-scale-1m.md).
  EXPECT_LE(sizeof(ComparedLaunch), 160u);
  EXPECT_LE(sizeof(KernelComparison), 400u);
}

}  // namespace
}  // namespace limiter
