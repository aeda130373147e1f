// Chart labels of the HTML reports (reports/html_labels.cpp): short, and no two alike for the
// kernels of the real programs whose labels read alike when cut at the end.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "../../reports/html_parts.hpp"  // internal to limiter::reports

namespace limiter::html {
namespace {

std::size_t characters(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// The cuBLAS GEMMs of the 10,071-launch MLP training: alike for their first 33 characters, and
// the two "nt" ones alike for 96.
const std::vector<std::string> kGemms = {
    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_kernel__"
    "5x_cublas",
    "sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_kernel__"
    "5x_cublas",
    "sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_split_k_"
    "kernel__5x_cublas",
    "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__"
    "5x_cublas",
    "multi_tensor_apply_kernel<BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>>",
    "multi_tensor_apply_kernel<BinaryOpScalarFunctor<float, 1, 1, 0>, std::plus<float>>",
    "multi_tensor_apply_kernel<BinaryOpScalarListFunctor<float, 1, 1, 0>>",
    "sgemm_largek_lds64"};

TEST(HtmlLabels, TellTheGemmsApartWithinTheBudget) {
  for (std::size_t budget : {28u, 34u, 40u}) {
    std::set<std::string> labels;
    for (const auto& name : kGemms) {
      const std::string label = distinct_label(name, kGemms, budget);
      EXPECT_LE(characters(label), budget) << label;
      labels.insert(label);
    }
    EXPECT_EQ(labels.size(), kGemms.size()) << "budget " << budget;
  }
  // The words that differ are kept, not the common middle.
  EXPECT_NE(distinct_label(kGemms[0], kGemms, 34).find("tn_n"), std::string::npos);
  EXPECT_NE(distinct_label(kGemms[1], kGemms, 34).find("nt_n"), std::string::npos);
  EXPECT_NE(distinct_label(kGemms[2], kGemms, 34).find("split"), std::string::npos);
  EXPECT_NE(distinct_label(kGemms[4], kGemms, 40).find("multipli"), std::string::npos);
  EXPECT_NE(distinct_label(kGemms[5], kGemms, 40).find("plus"), std::string::npos);
  EXPECT_EQ(distinct_label(kGemms[0], kGemms, 34).rfind("sm80_xmma_", 0), 0u) << "the head stays";
}

TEST(HtmlLabels, ShortNamesStayWhole) {
  EXPECT_EQ(distinct_label("sgemm_largek_lds64", kGemms, 28), "sgemm_largek_lds64");
  EXPECT_EQ(distinct_label(kGemms[4], {kGemms[4]}, 30), ellipsize(kGemms[4], 30)) << "alone: cut at the end";
}

TEST(HtmlLabels, LabelsStillAlikeAreNumbered) {
  std::vector<std::string> labels = {"reduce_kernel…", "softmax", "reduce_kernel…", "reduce_kernel…"};
  number_alike(labels);
  EXPECT_EQ(labels,
            (std::vector<std::string>{"reduce_kernel… #1", "softmax", "reduce_kernel… #2", "reduce_kernel… #3"}));
}

TEST(HtmlLabels, WidthsAndCutsFitTheirRoom) {
  EXPECT_GT(text_width("mmmmmmmm"), text_width("iiiiiiii"));
  EXPECT_GT(text_width("sm80_xmma_gemm_f32f32"), 21 * 12 * 0.5);  // not narrower than a condensed font
  const std::string cut = fit_width(kGemms[0], 200);
  EXPECT_LE(text_width(cut), 200);
  EXPECT_EQ(cut.substr(cut.size() - 3), "…");
  EXPECT_EQ(fit_width("short", 200), "short");
}

}  // namespace
}  // namespace limiter::html
