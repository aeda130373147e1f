// Exactly profiled launches joined to the sampled aggregates of their kernel (limiter/sampling.hpp).
#include <algorithm>
#include <map>

#include "limiter/sampling.hpp"

namespace limiter {

std::vector<KernelLaunch> join_exact_launches(std::vector<KernelLaunch> aggregates,
                                              const std::vector<KernelLaunch>& exact) {
  struct Sums {
    std::uint64_t launches = 0;
    std::map<std::string, std::pair<double, std::uint64_t>> counters;  // sum, launches that have it
  };
  std::map<std::string, std::size_t> aggregate_of;
  for (std::size_t i = 0; i < aggregates.size(); ++i) aggregate_of.emplace(sampling_group_key(aggregates[i]), i);
  std::map<std::size_t, Sums> sums;
  std::vector<const KernelLaunch*> unjoined;
  for (const auto& launch : exact) {
    const auto it = aggregate_of.find(sampling_group_key(launch));
    if (it == aggregate_of.end() || !aggregates[it->second].sampled) {
      unjoined.push_back(&launch);
      continue;
    }
    Sums& s = sums[it->second];
    ++s.launches;
    for (const auto& [metric, value] : launch.counters) {
      auto& [sum, count] = s.counters[metric];
      sum += value;
      ++count;
    }
  }
  for (const auto& [index, s] : sums) {
    SampleSupport& support = *aggregates[index].sampled;
    support.exact_launches = s.launches;
    support.exact_counters.clear();
    for (const auto& [metric, sum_count] : s.counters)
      support.exact_counters[metric] = sum_count.first / static_cast<double>(sum_count.second);
  }
  for (const KernelLaunch* launch : unjoined) {
    aggregates.push_back(*launch);
    aggregates.back().sequence = aggregates.size() - 1;
  }
  return aggregates;
}

std::vector<KernelSeen> add_sampled_launches(std::vector<KernelSeen> exact_phase,
                                             const std::vector<KernelLaunch>& aggregates) {
  for (const auto& k : aggregates) {
    if (!k.sampled) continue;
    const auto it = std::find_if(exact_phase.begin(), exact_phase.end(), [&](const KernelSeen& seen) {
      return seen.name == k.name && seen.grid == k.grid && seen.block == k.block;
    });
    if (it == exact_phase.end())
      exact_phase.push_back({k.name, k.grid, k.block, k.sampled->launches});
    else
      it->launches += k.sampled->launches;
  }
  return exact_phase;
}

}  // namespace limiter
