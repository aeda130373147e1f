// Kernel names as ncu and CUPTI spell them, matched by one key (analysis/kernel_name_key.hpp).
#include <gtest/gtest.h>

#include "analysis/kernel_name_key.hpp"

namespace limiter::detail {
namespace {

TEST(KernelNameKey, DropsTheReturnTypeTheParametersAndTheBlanks) {
  EXPECT_EQ(kernel_name_key("void copy_kernel(const float *, float *, int)"), "copy_kernel");
  EXPECT_EQ(kernel_name_key("copy_kernel(float const*, float*, int)"), "copy_kernel");
  EXPECT_EQ(kernel_name_key("copy_kernel"), "copy_kernel");
}

TEST(KernelNameKey, SpellsTemplateArgumentsOneWay) {
  const std::string cupti =
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >"
      "(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)";
  const std::string ncu =
      "at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>, "
      "std::array<char *, 1UL>>(int, T2, T3)";
  EXPECT_EQ(kernel_name_key(cupti), kernel_name_key(ncu));
  EXPECT_EQ(kernel_name_key(cupti),
            "at::native::vectorized_elementwise_kernel<4,at::native::FillFunctor<float>,std::array<char*,1>>");
}

TEST(KernelNameKey, KeepsLambdasAndSuffixLikeNames) {
  EXPECT_EQ(kernel_name_key("void f<{lambda(float)#1}>(int)"), "f<{lambda(float)#1}>");
  EXPECT_EQ(kernel_name_key("sm90_gemm_1l_kernel"), "sm90_gemm_1l_kernel") << "1l inside a name is not a literal";
}

TEST(KernelNameKey, DemanglesAMangledName) {
  EXPECT_EQ(kernel_name_key("_Z13pointer_chasePKjiPj"),
            kernel_name_key("pointer_chase(unsigned int const*, int, unsigned int*)"));
}

TEST(KernelNameKey, QualifiedAndBaseKeys) {
  const std::string name = "void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)";
  EXPECT_EQ(kernel_qualified_key(name), "at::native::reduce_kernel");
  EXPECT_EQ(kernel_base_key(name), "reduce_kernel");
}

TEST(MatchKernelNames, MatchesEachSpellingOnceAndLeavesExactNamesAlone) {
  const std::vector<std::string_view> cupti = {"copy_kernel(float const*, float*, int)", "void scale<2>(float*)",
                                               "same_name", "only_here(int)"};
  const std::vector<std::string_view> ncu = {"copy_kernel(const float *, float *, int)", "scale<(int)2>(float *)",
                                             "same_name", "elsewhere"};
  const auto matches = match_kernel_names(cupti, ncu);
  ASSERT_EQ(matches.size(), 2u);
  EXPECT_EQ(matches.at("copy_kernel(const float *, float *, int)"), "copy_kernel(float const*, float*, int)");
  EXPECT_EQ(matches.at("scale<(int)2>(float *)"), "void scale<2>(float*)");
}

TEST(MatchKernelNames, ABaseNameMatchesOnlyWhereItNamesOneKernelOnEachSide) {
  // ncu's base names: `reduce_kernel` stands for two instantiations in CUPTI's record: not matched.
  const std::vector<std::string_view> cupti = {"void reduce_kernel<1>(int)", "void reduce_kernel<2>(int)",
                                               "void ns::gemm<float>(float*)"};
  const std::vector<std::string_view> ncu = {"reduce_kernel", "gemm"};
  const auto matches = match_kernel_names(cupti, ncu);
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches.at("gemm"), "void ns::gemm<float>(float*)");
}

}  // namespace
}  // namespace limiter::detail
