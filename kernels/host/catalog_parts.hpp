#pragma once
// Parts of the catalog kept in files of their own (catalog.cpp builds the whole). Internal to
// kernels/host.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "limiter/kernels/catalog.hpp"

namespace limiter::kernels::detail {

// One entry; its intended stalls come later, from set_intended_stalls.
inline void add_entry(std::vector<CatalogEntry>& entries, std::string name, Family family,
                      std::optional<Verdict> intended, std::string seed, std::string problem, std::string claim) {
  CatalogEntry entry;
  entry.name = std::move(name);
  entry.family = family;
  entry.intended = intended;
  entry.seed = std::move(seed);
  entry.problem = std::move(problem);
  entry.claim = std::move(claim);
  entries.push_back(std::move(entry));
}

// The warp_stalls family: kernels built for one dominant stall reason each.
void add_warp_stalls(std::vector<CatalogEntry>& entries);
// Every entry's intended stall reasons (CatalogEntry::intended_stalls), from one table.
void set_intended_stalls(std::vector<CatalogEntry>& entries);

}  // namespace limiter::kernels::detail
