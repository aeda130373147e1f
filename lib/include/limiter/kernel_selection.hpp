#pragma once
// -k REGEX: which kernels a report shows. The regex (ECMAScript, searched) is tried on a
// kernel's demangled name, its mangled name and its short names (kernel_names.hpp), so a name
// copied from any report, or its start ("reduce_kernel<sum"), selects its kernel.
#include <optional>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

namespace limiter {

class KernelSelection {
 public:
  // An empty REGEX selects every kernel; an invalid one throws InputError naming -k.
  explicit KernelSelection(const std::string& regex = "");
  bool active() const { return regex_.has_value(); }
  // Decided once per demangled name (MANGLED, when known, is tried the first time).
  bool selects(const std::string& demangled, const std::string& mangled = "");
  // The demangled names asked about and not selected, for a -k that selects nothing.
  std::vector<std::string> unselected() const;

 private:
  std::optional<std::regex> regex_;
  std::unordered_map<std::string, bool> decided_;
};

// Of SHOWN (names as a report prints them), at most LIMIT closest to PATTERN, closest first: by
// the edits that make each word of PATTERN appear in the name (letters' case ignored), then those
// that make PATTERN appear whole, then the shorter name.
std::vector<std::string> closest_kernel_names(const std::string& pattern, const std::vector<std::string>& shown,
                                              std::size_t limit = 5);

// The one-line InputError for a -k PATTERN that selects none of the kernels of WHERE (demangled
// NAMES, its kernels): how many there are and the closest of their short names.
[[noreturn]] void throw_nothing_selected(const std::string& pattern, const std::string& where,
                                         const std::vector<std::string>& names);

}  // namespace limiter
