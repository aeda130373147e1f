#pragma once
// One key per kernel however a tool spells its name, so that a comparison matches an Nsight
// Compute export with limiter's own record of the same program. ncu prints demangled names with
// or without the `void` return type and the parameter list, template arguments its own way
// (`char *` for `char*`, `1` for `1ul`, `(int)4`), or the base name alone; CUPTI gives the
// demangled name in full, or the mangled one.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace limiter::detail {

// NAME demangled (when mangled), without a leading `void `, without its parameter list, without
// blanks, integer literal suffixes and casts of literals: `void f<4, std::array<char *, 3UL>
// >(int)` and `f<(int)4, std::array<char*, 3ul>>` both give `f<4,std::array<char*,3>>`.
std::string kernel_name_key(std::string_view name);
// The key without namespaces and classes, `true`/`false` as 1/0 and ncu's `[lambda(int)
// (instance 1)]` as `{lambda(int)#1}`: ncu prints `at::f<0>` for CUPTI's `at::native::f<false>`.
std::string kernel_unqualified_key(std::string_view name);
// The key without its template arguments: `at::native::f`.
std::string kernel_qualified_key(std::string_view name);
// The last component of that: `f`.
std::string kernel_base_key(std::string_view name);

// AFTER's names that are not among BEFORE's, matched to a BEFORE name (not among AFTER's) that
// has the same key: first by kernel_name_key, then kernel_unqualified_key, kernel_qualified_key
// and kernel_base_key, each time only where the key names one kernel on each side. Exact matches
// are left out of the result.
std::unordered_map<std::string_view, std::string_view> match_kernel_names(const std::vector<std::string_view>& before,
                                                                          const std::vector<std::string_view>& after);

}  // namespace limiter::detail
