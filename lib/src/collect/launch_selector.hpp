#pragma once
// Which launches to profile: ncu's filters (-k regex, -s skip, -c count) plus sampling every
// Nth launch of each kernel. Pure C++, so the rules are tested without a GPU.
#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>

#include "limiter/collector.hpp"

namespace limiter::detail {

class LaunchSelector {
 public:
  explicit LaunchSelector(const CollectorOptions& options);  // throws InputError on a bad regex

  // Decides for one launch, in launch order; counts it.
  bool select(const std::string& kernel_name);
  // True once --count launches were profiled: nothing later will be selected.
  bool exhausted() const { return profiled_ >= count_; }
  std::uint64_t profiled() const { return profiled_; }

 private:
  std::optional<std::regex> pattern_;
  std::uint64_t skip_, count_, sample_every_;
  std::uint64_t matched_ = 0, profiled_ = 0;
  std::map<std::string, std::uint64_t> seen_per_kernel_;
};

}  // namespace limiter::detail
