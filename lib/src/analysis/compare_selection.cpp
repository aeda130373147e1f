// How a record chose the launches it holds (every launch, a subset, per-kernel budgets, PM
// sampling), told from its launches and fields, and whether two records chose alike.
#include <algorithm>
#include <string>
#include <vector>

#include "analysis/compare_context.hpp"
#include "analysis/compare_groups.hpp"
#include "limiter/compare.hpp"

namespace limiter {
namespace detail {

std::string count_text(std::uint64_t count) {
  std::string digits = std::to_string(count);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(static_cast<std::size_t>(at), ",");
  return digits;
}

}  // namespace detail
namespace {

using detail::count_text;

std::string selection_text(const LaunchSelection& s) {
  const std::string seen = s.seen ? count_text(*s.seen) : "";
  const std::string missed = s.missed > 0 ? ", " + count_text(s.missed) + " missed" : "";
  switch (s.kind) {
    case LaunchSelection::Kind::every:
      return s.seen ? "profiled every launch (" + seen + missed + ")"
                    : "profiled " + count_text(s.profiled) + " launches";
    case LaunchSelection::Kind::subset:
      return "profiled " + count_text(s.profiled) + " of " + seen + " launches seen" +
             (missed.empty() ? "" : " (" + missed.substr(2) + ")");
    case LaunchSelection::Kind::per_kernel:
      return "profiled " + count_text(s.per_kernel) + " per kernel and configuration (" + count_text(s.profiled) +
             (s.seen ? " of " + seen + " seen" : "") + missed + ")";
    case LaunchSelection::Kind::sampled:
      return (s.per_kernel > 0 ? "profiled " + count_text(s.per_kernel) + " per kernel and configuration, then " : "") +
             "sampled " + count_text(s.sampled) +
             (s.seen && *s.seen > s.sampled ? " of " + seen + " launches seen" : " launches") +
             " (PM sampling: " + count_text(s.aggregates) +
             (s.aggregates == 1 ? " kernel aggregate" : " kernel aggregates") + missed + ")";
  }
  return {};
}

}  // namespace

LaunchSelection launch_selection(const ComparedRun& run) {
  LaunchSelection s;
  s.seen = run.launches_seen;
  s.missed = run.missed_launches;
  detail::LaunchGroups groups;
  std::vector<std::uint64_t> exact_per_group;
  bool budgets_before_sampling = false;
  for (const auto& k : run.launches) {
    if (k.aggregated_launches > 0) {
      ++s.aggregates;
      s.sampled += k.aggregated_launches;
      s.profiled += k.aggregated_launches;
      s.per_kernel = std::max(s.per_kernel, k.exact_launches);
      budgets_before_sampling = budgets_before_sampling || k.exact_launches > 0;
    } else {
      ++s.profiled;
      const std::uint32_t group = groups.of(k.name, k.grid, k.block);
      if (group == exact_per_group.size()) exact_per_group.push_back(0);
      s.per_kernel = std::max(s.per_kernel, ++exact_per_group[group]);
    }
  }
  if (s.aggregates > 0) {
    s.kind = LaunchSelection::Kind::sampled;
    // Without budgets, exact entries are launches the samples could not take (not a budget).
    if (run.kernels_seen.empty() && !budgets_before_sampling) s.per_kernel = 0;
  } else if (s.seen && *s.seen <= s.profiled) {
    s.kind = LaunchSelection::Kind::every;  // budgets that spared every launch included
  } else if (!run.kernels_seen.empty()) {
    s.kind = LaunchSelection::Kind::per_kernel;
  } else if (s.seen) {
    s.kind = LaunchSelection::Kind::subset;
  }
  s.description = selection_text(s);
  return s;
}

bool same_selection(const LaunchSelection& before, const LaunchSelection& after) {
  using Kind = LaunchSelection::Kind;
  if (before.kind != after.kind) return false;
  switch (before.kind) {
    case Kind::every:
      return true;
    case Kind::per_kernel:
    case Kind::sampled:
      return before.per_kernel == after.per_kernel;
    case Kind::subset: {
      // The record keeps no flags: a subset is told by its share of the launches seen. The
      // change under test moves that share a little; another -c, -s or --sample-every, a lot.
      const double before_share = static_cast<double>(before.profiled) / static_cast<double>(*before.seen);
      const double after_share = static_cast<double>(after.profiled) / static_cast<double>(*after.seen);
      return std::max(before_share, after_share) <= 1.25 * std::min(before_share, after_share);
    }
  }
  return true;
}

}  // namespace limiter
