// Short kernel names: the function's own name and the part that tells kernels apart, unique
// among a report's kernels. Names from real programs (PyTorch, cuBLAS, cuDNN, CUTLASS, JAX).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "limiter/error.hpp"
#include "limiter/kernel_names.hpp"
#include "limiter/record_json.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

using testing::kData;

const std::string kAdd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >"
    "(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)";
const std::string kFill =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >"
    "(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)";
std::string clamp(const std::string& number, const std::string& type) {
  const std::string lambda =
      "at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
      "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#" +
      number + "}::operator()() const::{lambda(" + type + ")#1}";
  return "void at::native::vectorized_elementwise_kernel<4, " + lambda + ", std::array<char*, 2ul> >(int, " + lambda +
         ", std::array<char*, 2ul>)";
}
std::string mul(const std::string& functor) {
  const std::string f =
      "at::native::" + functor + "<float, float, float, at::native::binary_internal::MulFunctor<float> >";
  const std::string lambda =
      "at::native::gpu_kernel_impl_nocast<" + f + " >(at::TensorIteratorBase&, " + f + " const&)::{lambda(int)#1}";
  return "void at::native::elementwise_kernel<128, 2, " + lambda + ">(int, " + lambda + ")";
}
std::string sum(const std::string& threads, const std::string& vt) {
  const std::string op =
      "at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
      "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4>";
  return "void at::native::reduce_kernel<" + threads + ", " + vt + ", " + op + " >(" + op + ")";
}
const std::string kMean =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
    "float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
    "unsigned int, float, 4, 4>)";
const std::string kRedzone =
    "void stream_executor::gpu::(anonymous namespace)::RedzoneCheckerKernel(unsigned char*, unsigned long long, "
    "unsigned long long, unsigned int*)";

TEST(KernelNames, BaseNameIsTheFunctionsOwnName) {
  EXPECT_EQ(kernel_base_name(kAdd), "vectorized_elementwise_kernel");
  EXPECT_EQ(kernel_base_name(kRedzone), "RedzoneCheckerKernel");
  EXPECT_EQ(kernel_base_name("void (anonymous namespace)::softmax_warp_forward<float, float, float, 4, true, false>"
                             "(float*, float const*, int, int, int, bool const*, int, bool)"),
            "softmax_warp_forward");
  EXPECT_EQ(kernel_base_name("ampere_sgemm_128x64_tn"), "ampere_sgemm_128x64_tn");
  EXPECT_EQ(kernel_base_name("copy(const float*, float*, int)"), "copy");
}

TEST(KernelNames, ShortFormKeepsTheFunctorOrTheLambdasFunction) {
  const auto names = short_kernel_names({kAdd, kFill, kRedzone, kMean, "loop_add_fusion"});
  EXPECT_EQ(names.at(kAdd), "vectorized_elementwise_kernel<CUDAFunctor_add<float>>");
  EXPECT_EQ(names.at(kFill), "vectorized_elementwise_kernel<FillFunctor<float>>");
  EXPECT_EQ(names.at(kRedzone), "RedzoneCheckerKernel");
  EXPECT_EQ(names.at(kMean), "reduce_kernel<MeanOps<float, float, float, float>>");
  EXPECT_EQ(names.at("loop_add_fusion"), "loop_add_fusion");
  EXPECT_EQ(short_kernel_names({clamp("7", "float")}).at(clamp("7", "float")),
            "vectorized_elementwise_kernel<launch_clamp_scalar>");
}

TEST(KernelNames, KernelsThatWouldReadTheSameGetTheirDifference) {
  const std::vector<std::string> all = {clamp("7", "float"),
                                        clamp("8", "c10::Half"),
                                        mul("BUnaryFunctor"),
                                        mul("BinaryFunctor"),
                                        sum("512", "1"),
                                        sum("256", "2"),
                                        kMean};
  const auto names = short_kernel_names(all);
  EXPECT_EQ(names.at(clamp("7", "float")), "vectorized_elementwise_kernel<launch_clamp_scalar::{lambda(float)#1}>");
  EXPECT_EQ(names.at(clamp("8", "c10::Half")), "vectorized_elementwise_kernel<launch_clamp_scalar::{lambda(Half)#1}>");
  EXPECT_EQ(names.at(mul("BUnaryFunctor")),
            "elementwise_kernel<gpu_kernel_impl_nocast<BUnaryFunctor<MulFunctor<float>>>>");
  EXPECT_EQ(names.at(sum("512", "1")), "reduce_kernel<512, 1, sum_functor<float, float, float>>");
  EXPECT_EQ(names.at(sum("256", "2")), "reduce_kernel<256, 2, sum_functor<float, float, float>>");
  EXPECT_EQ(names.at(kMean), "reduce_kernel<MeanOps<float, float, float, float>>");
}

TEST(KernelNames, EveryKernelOfARealRecordingIsDistinguishable) {
  const RunRecord run = read_run_file(kData + "/cupti/h200_pytorch_limiter.json");
  std::vector<std::string> names;
  for (const auto& launch : run.launches) names.push_back(launch.name);
  const auto shorts = short_kernel_names(names);
  std::set<std::string> distinct_names(names.begin(), names.end()), distinct_shorts;
  for (const auto& [name, short_name] : shorts) {
    distinct_shorts.insert(short_name);
    // Names without templates (cuDNN's xmma kernels) stay as they are, however long.
    if (name.find('<') != std::string::npos) {
      EXPECT_LE(short_name.size(), 90u) << short_name;
    }
    EXPECT_NE(short_name.find(kernel_base_name(name)), std::string::npos) << short_name;
  }
  EXPECT_EQ(distinct_shorts.size(), distinct_names.size());
}

const std::string kKernel2 =
    "void "
    "cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nt_align1>(cutlass_80_simt_sgemm_64x64_8x5_nt_align1::Params)";
const std::string kCutlass3 =
    "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
    "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<4, cute::tuple<"
    "cute::C<1>, cute::C<1>, cute::C<1> >, cutlass::gemm::KernelTmaWarpSpecialized>, cute::tuple<cute::C<128>, "
    "cute::C<128>, cute::C<64> >, cutlass::bfloat16_t>, void, void> >(cutlass::gemm::kernel::GemmUniversal<"
    "cute::tuple<int, int, int, int>, void, void, void>::Params)";

// A name that says nothing of what the kernel does carries its first argument's class, even alone.
TEST(KernelNames, AGenericKernelNameCarriesWhatItRuns) {
  const auto names = short_kernel_names({kKernel2, kCutlass3});
  EXPECT_EQ(names.at(kKernel2), "Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nt_align1>");
  EXPECT_EQ(names.at(kCutlass3), "device_kernel<GemmUniversal>");
  EXPECT_EQ(short_kernel_names({kKernel2}).at(kKernel2), "Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nt_align1>");
}

// Every kernel of every committed record (launches, timeline, PC samples): distinct names never
// print the same, and no generic name prints bare.
TEST(KernelNames, NoTwoKernelsOfACommittedRecordReadTheSame) {
  std::size_t records = 0;
  for (const auto& [path, run] : testing::committed_run_records(read_run_file)) {
    std::set<std::string> names;
    for (const auto& launch : run.launches) names.insert(launch.name);
    if (run.timeline)
      for (const auto& e : run.timeline->events)
        if (e.kind == ActivityKind::kernel) names.insert(e.name);
    if (run.stalls)
      for (const auto& k : run.stalls->kernels) names.insert(k.name);
    if (names.empty()) continue;
    ++records;
    const auto shorts = short_kernel_names({names.begin(), names.end()});
    std::map<std::string, std::string> named;  // short name -> the name it came from
    for (const auto& [name, short_name] : shorts) {
      const auto [other, added] = named.emplace(short_name, name);
      EXPECT_TRUE(added) << path << ": '" << name << "' and '" << other->second << "' both print as " << short_name;
      for (const char* bare : {"Kernel", "Kernel2", "device_kernel", "kernel"}) EXPECT_NE(short_name, bare) << path;
    }
  }
  EXPECT_GE(records, 20u);
}

TEST(KernelNames, SameTextOnlyForTheSameName) {
  const std::string a = "void ns1::k<int>(int)", b = "void ns2::k<int>(int)";
  const auto names = short_kernel_names({a, b, a});
  EXPECT_NE(names.at(a), names.at(b));
}

TEST(KernelNames, StyleNames) {
  EXPECT_EQ(name_style_from_string("short"), NameStyle::short_form);
  EXPECT_EQ(to_string(NameStyle::mangled), "mangled");
  EXPECT_THROW(name_style_from_string("long"), InputError);
}

}  // namespace
}  // namespace limiter
