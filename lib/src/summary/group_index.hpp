#pragma once
// The summary builder's index of its groups (run_summary.cpp): by name and launch configuration,
// looked up with the launch's own name — a key string built for each of a million launches cost
// a tenth of the summary's time — and the distinct names, numbered, by which the NVTX ranges
// tally their kernels.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "limiter/record.hpp"

namespace limiter::detail {

struct GroupIndex {
  struct Key {
    std::string name;
    Dim3 grid, block;
  };
  struct KeyView {
    std::string_view name;
    Dim3 grid, block;
  };
  static KeyView view(const Key& key) { return {key.name, key.grid, key.block}; }
  static KeyView view(const KeyView& key) { return key; }
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(const auto& key) const {
      const KeyView k = view(key);
      std::size_t hash = std::hash<std::string_view>{}(k.name);
      for (std::uint32_t value : {k.grid.x, k.grid.y, k.grid.z, k.block.x, k.block.y, k.block.z})
        hash = hash * 1000003 ^ value;
      return hash;
    }
  };
  struct Equal {
    using is_transparent = void;
    bool operator()(const auto& a, const auto& b) const {
      const KeyView x = view(a), y = view(b);
      return x.name == y.name && x.grid == y.grid && x.block == y.block;
    }
  };
  std::unordered_map<Key, std::size_t, Hash, Equal> slots;  // index into accumulators_
  std::unordered_map<std::string, std::size_t> name_ids;    // distinct names, numbered as they come
  std::vector<std::string> names;                           // by number
};

}  // namespace limiter::detail
