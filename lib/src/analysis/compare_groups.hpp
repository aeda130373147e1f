#pragma once
// Launches numbered by kernel name and configuration (grid, block), what
// same_kernel_and_configuration compares, for the comparison (compare.cpp, compare_selection.cpp).
// A name's text is hashed once per distinct view (its address and length), not once per launch:
// the launches' names view an interned table (NameTable), and hashing and comparing template
// names of hundreds of characters for each of a million launches is not free.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "limiter/record.hpp"

namespace limiter::detail {

class LaunchGroups {
 public:
  // The group of NAME, GRID, BLOCK: 0, 1, ... in the order groups are first asked for.
  std::uint32_t of(std::string_view name, const Dim3& grid, const Dim3& block) {
    const Key key{name_id(name), grid, block};
    return groups_.try_emplace(key, static_cast<std::uint32_t>(groups_.size())).first->second;
  }
  // The group, where it has been asked for before.
  const std::uint32_t* find(std::string_view name, const Dim3& grid, const Dim3& block) {
    const auto found = groups_.find({name_id(name), grid, block});
    return found == groups_.end() ? nullptr : &found->second;
  }
  std::size_t size() const { return groups_.size(); }

 private:
  using View = std::pair<const char*, std::size_t>;
  struct ViewHash {
    std::size_t operator()(const View& view) const { return std::hash<const void*>{}(view.first) * 31 + view.second; }
  };
  struct Key {
    std::uint32_t name;
    Dim3 grid, block;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const {
      std::size_t hash = key.name;
      for (std::uint32_t value : {key.grid.x, key.grid.y, key.grid.z, key.block.x, key.block.y, key.block.z})
        hash = hash * 1099511628211u ^ value;
      return hash;
    }
  };

  std::uint32_t name_id(std::string_view name) {
    const auto [by_view, added] = by_view_.try_emplace(View{name.data(), name.size()}, 0);
    if (added) by_view->second = by_text_.try_emplace(name, static_cast<std::uint32_t>(by_text_.size())).first->second;
    return by_view->second;
  }

  std::unordered_map<View, std::uint32_t, ViewHash> by_view_;
  std::unordered_map<std::string_view, std::uint32_t> by_text_;
  std::unordered_map<Key, std::uint32_t, KeyHash> groups_;
};

}  // namespace limiter::detail
