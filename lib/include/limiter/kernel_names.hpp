#pragma once
// Kernel names a person recognises. Demangled names of templated kernels run to thousands of
// characters ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add
// <float>, std::array<char*, 3ul> >(int, ...)"); reports show a short form that keeps the
// function's own name and the part that tells kernels apart:
//
//   vectorized_elementwise_kernel<CUDAFunctor_add<float>>       the functor
//   vectorized_elementwise_kernel<launch_clamp_scalar::...>     a lambda's enclosing function
//   reduce_kernel<512, 1, sum_functor<float, float, float>>     the arguments that differ
//   RedzoneCheckerKernel, ampere_sgemm_128x64_tn                namespaces and parameters dropped
//   Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nt_align1>          a generic name (CUTLASS's Kernel2,
//   device_kernel<GemmUniversal>                                device_kernel): its first argument's class
//
// like `ncu --print-kernel-base function` and Nsight Systems' shortened names, but made unique
// among the kernels of one report by adding detail only where two kernels would read the same.
#include <string>
#include <unordered_map>
#include <vector>

namespace limiter {

// --names: which name the reports show. The full demangled name is always in json, csv,
// sqlite and the html tooltips.
enum class NameStyle { short_form, demangled, mangled };
NameStyle name_style_from_string(const std::string& text);  // "short", "demangled", "mangled"; throws InputError
std::string to_string(NameStyle style);

// The function's own name: namespaces, return type, template and function arguments dropped.
// "void at::native::(anonymous namespace)::elementwise_kernel<128, 4, ...>(int, ...)" -> "elementwise_kernel".
std::string kernel_base_name(const std::string& demangled);

// Every short form NAME may be shown in, whatever the other kernels of a report (the level-1
// form, then each level's with all its template arguments): what -k is tried on.
std::vector<std::string> kernel_short_forms(const std::string& demangled);

// The short form of every name in NAMES (demangled; duplicates allowed), unique among them:
// distinct names never share a short form.
std::unordered_map<std::string, std::string> short_kernel_names(const std::vector<std::string>& names);

}  // namespace limiter
