#pragma once
// A launch configuration's grid or block, shared by the run record's launches and the activity
// timeline's kernel events.
#include <cstdint>

namespace limiter {

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  std::uint64_t count() const { return std::uint64_t{x} * y * z; }
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

}  // namespace limiter
