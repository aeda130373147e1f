// -k: a kernel is selected by any of its names (demangled, mangled, short), and a -k that selects
// nothing names the closest kernels. Names from the committed PyTorch recording.
#include <gtest/gtest.h>

#include "limiter/error.hpp"
#include "limiter/kernel_names.hpp"
#include "limiter/kernel_selection.hpp"
#include "limiter/record_json.hpp"

namespace limiter {
namespace {

const std::string kData = LIMITER_TEST_DATA_DIR;

const std::string kSum =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
    "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
    "unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
    "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
    "unsigned int, float, 4, 4>)";
const std::string kSumMangled =
    "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_functorIfffEclERNS_"
    "14TensorIteratorEEUlffE_EEjfLi4ELi4EEEEEvT1_";

TEST(KernelSelection, ThePrintedNameSelects) {
  // The demangled name reads "reduce_kernel<512, 1, at::native::ReduceOp<..."; the report prints
  // "reduce_kernel<sum_functor<float, float, float>>".
  KernelSelection selection("reduce_kernel<sum");
  EXPECT_TRUE(selection.selects(kSum));
  EXPECT_TRUE(KernelSelection("reduce_kernel<512, 1, sum_functor").selects(kSum));    // a more detailed form
  EXPECT_TRUE(KernelSelection("ReduceOp<float").selects(kSum));                       // the demangled name
  EXPECT_TRUE(KernelSelection("^_ZN2at6native13reduce").selects(kSum, kSumMangled));  // the mangled name
  EXPECT_FALSE(KernelSelection("^_ZN2at6native13reduce").selects(kSum));
  EXPECT_TRUE(KernelSelection().selects("anything"));
}

TEST(KernelSelection, TheUnselectedAreKeptForTheMessage) {
  KernelSelection selection("gemm");
  EXPECT_FALSE(selection.selects(kSum));
  EXPECT_FALSE(selection.selects(kSum));  // decided once
  EXPECT_TRUE(selection.selects("sgemm_largek_lds64"));
  EXPECT_EQ(selection.unselected(), std::vector<std::string>{kSum});
}

TEST(KernelSelection, ClosestNamesFirst) {
  const std::vector<std::string> shown = {"max_pool_forward_nchw",
                                          "reduce_kernel<MeanOps<float, float, float, float>>",
                                          "reduce_kernel<512, 1, sum_functor<float, float, float>>",
                                          "sgemm_largek_lds64",
                                          "softmax_warp_forward",
                                          "splitKreduce_kernel",
                                          "scal_kernel"};
  const auto closest = closest_kernel_names("reduce_kernel<summ", shown, 3);
  ASSERT_EQ(closest.size(), 3u);
  EXPECT_EQ(closest[0], "reduce_kernel<512, 1, sum_functor<float, float, float>>");      // "summ": one edit from "sum_"
  EXPECT_EQ(closest_kernel_names("SOFTMAX", shown, 1).front(), "softmax_warp_forward");  // case ignored
  EXPECT_EQ(closest_kernel_names("x", shown).size(), 5u);
}

TEST(KernelSelection, NothingSelectedNamesTheClosestOfTheRecord) {
  const RunRecord run = read_run_file(kData + "/cupti/h200_pytorch_limiter.json");
  std::vector<std::string> names;
  for (const auto& launch : run.launches) names.push_back(launch.name);
  try {
    throw_nothing_selected("max_pool_fwd", "'run.json'", names);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("-k 'max_pool_fwd' selects none of the 31 kernels of 'run.json'; closest: 'max_pool_", 0),
              0u)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace limiter
