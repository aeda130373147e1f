// The ranks of a job lined up: each record summarised on its own (streamed), then the groups
// of the same kernel and launch configuration matched across the ranks by RunSummary::group_key.
#include "limiter/rank_summary.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include "limiter/error.hpp"
#include "limiter/kernel_names.hpp"

namespace limiter {
namespace {

// Ranks first, by rank; records that name none after them, by path.
bool rank_order(const RankRun& a, const RankRun& b) {
  if (a.rank && b.rank) return a.rank->rank < b.rank->rank;
  if (a.rank || b.rank) return a.rank.has_value();
  return a.path < b.path;
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string text;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (i == 6) return text + ", ... (" + std::to_string(ranks.size()) + " in all)";
    text += (i ? ", " : "") + std::to_string(ranks[i]);
  }
  return text;
}

void check_distinct_ranks(const std::vector<RankRun>& ranks) {
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    const auto& a = ranks[i - 1];
    const auto& b = ranks[i];
    if (a.rank && b.rank && a.rank->rank == b.rank->rank) {
      throw InputError("'" + a.path + "' and '" + b.path + "' are both rank " + std::to_string(a.rank->rank) +
                       ": give the records of one job (each run of a job writes limiter_rank<N>.json anew)");
    }
  }
}

std::vector<std::string> set_notes(const std::vector<RankRun>& ranks) {
  std::vector<std::string> notes;
  std::set<int> world_sizes, present;
  std::size_t unranked = 0;
  for (const auto& r : ranks) {
    if (r.rank) {
      world_sizes.insert(r.rank->world_size);
      present.insert(r.rank->rank);
    } else {
      ++unranked;
    }
  }
  if (world_sizes.size() > 1) {
    notes.push_back("the records disagree on the world size (" + rank_list({world_sizes.begin(), world_sizes.end()}) +
                    "): they may come from different jobs");
  } else if (world_sizes.size() == 1) {
    std::vector<int> absent;
    for (int rank = 0; rank < *world_sizes.begin(); ++rank)
      if (!present.count(rank)) absent.push_back(rank);
    if (!absent.empty()) {
      notes.push_back(std::string(absent.size() == 1 ? "rank " : "ranks ") + rank_list(absent) + " of " +
                      std::to_string(*world_sizes.begin()) + " have no record here: figures over ranks leave them out");
    }
  }
  if (unranked > 0) {
    notes.push_back(std::to_string(unranked) + (unranked == 1 ? " record names" : " records name") +
                    " no rank (not run under torchrun, mpirun or srun): shown by file name");
  }
  std::map<std::string, std::vector<std::string>> ranks_by_gpu;
  std::set<std::string> models;
  for (const auto& r : ranks) {
    models.insert(r.summary.run.device.name);
    if (!r.summary.run.device.uuid.empty()) ranks_by_gpu[r.summary.run.device.uuid].push_back(r.label);
  }
  if (models.size() > 1) notes.push_back("the ranks ran on GPUs of different models: their times are not alike");
  for (const auto& [uuid, labels] : ranks_by_gpu) {
    if (labels.size() < 2) continue;
    std::string shared;
    for (const auto& label : labels) shared += (shared.empty() ? "" : ", ") + label;
    notes.push_back("ranks " + shared + " shared one GPU (" + uuid + "): their kernels ran side by side and their "
                    "profiled launches one process at a time");
  }
  for (const auto& r : ranks) {
    const std::uint64_t missed = [&] {
      std::uint64_t total = 0;
      for (const auto& m : r.summary.run.missed) total += m.launches;
      return total;
    }();
    if (missed > 0) {
      notes.push_back("rank " + r.label + ": " + std::to_string(missed) +
                      " launches NOT profiled (`limiter report " + r.path + "` says why)");
    }
    if (!r.summary.run.ended.empty() && r.summary.run.ended != "exit")
      notes.push_back("rank " + r.label + " ended by " + r.summary.run.ended + ": its record may lack its last launches");
  }
  return notes;
}

// Display names over every rank's kernels, so a kernel reads the same on every rank.
void name_kernels(std::vector<RankKernel>& kernels, NameStyle style) {
  std::vector<std::string> names;
  for (const auto& k : kernels) names.push_back(k.name);
  const auto short_names = short_kernel_names(names);
  for (auto& k : kernels) {
    switch (style) {
      case NameStyle::short_form: k.display_name = short_names.at(k.name); break;
      case NameStyle::demangled: k.display_name = k.name; break;
      case NameStyle::mangled: k.display_name = k.mangled_name.empty() ? k.name : k.mangled_name; break;
    }
  }
}

void finish_kernel(RankKernel& k, const std::vector<RankRun>& ranks) {
  std::size_t timed = 0;
  double timed_sum = 0;
  bool first = true;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (!k.groups[r]) continue;
    const KernelSummary& g = ranks[r].summary.groups[*k.groups[r]];
    if (first || g.launches < k.min_rank_launches) k.min_rank_launches = g.launches;
    if (first || g.launches > k.max_rank_launches) k.max_rank_launches = g.launches;
    first = false;
    k.rank_verdicts.add(g.main_verdict);
    if (!g.durations.total_ns) continue;
    const double ns = *g.durations.total_ns;
    ++timed;
    timed_sum += ns;
    if (!k.max_rank_ns || ns > *k.max_rank_ns) {
      k.max_rank_ns = ns;
      k.slowest = r;
    }
    if (!k.min_rank_ns || ns < *k.min_rank_ns) {
      k.min_rank_ns = ns;
      k.fastest = r;
    }
  }
  if (timed == 0) {  // nothing timed: the first rank that ran it stands for the kernel
    for (std::size_t r = 0; r < ranks.size(); ++r)
      if (k.groups[r]) {
        k.slowest = k.fastest = r;
        break;
      }
  } else {
    k.mean_rank_ns = timed_sum / static_cast<double>(timed);
    if (timed >= 2 && *k.min_rank_ns > 0) k.spread = *k.max_rank_ns / *k.min_rank_ns - 1.0;
  }
  const KernelSummary& slowest = ranks[k.slowest].summary.groups[*k.groups[k.slowest]];
  k.slowest_verdict = slowest.main_verdict;
  k.limiting_unit = slowest.limiting_unit;
}

// The ranks' NVTX roll-ups lined up by range label, most time over all ranks first.
std::vector<RankRange> line_up_ranges(const std::vector<RankRun>& ranks) {
  std::vector<RankRange> out;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const auto& entries = ranks[r].summary.nvtx_ranges;
    for (std::size_t e = 0; e < entries.size(); ++e) {
      auto [slot, added] = index.emplace(entries[e].ranges, out.size());
      if (added) {
        out.push_back({});
        out.back().ranges = entries[e].ranges;
        out.back().entries.resize(ranks.size());
      }
      RankRange& range = out[slot->second];
      range.entries[r] = e;
      ++range.ranks_with_range;
      range.launches += entries[e].launches;
      const auto ns = entries[e].durations.total_ns;
      range.total_ns += ns.value_or(0);
      if (!ns) continue;
      if (!range.max_rank_ns || *ns > *range.max_rank_ns) {
        range.max_rank_ns = ns;
        range.slowest = r;
        range.slowest_verdict = entries[e].main_verdict;
      }
      if (!range.min_rank_ns || *ns < *range.min_rank_ns) range.min_rank_ns = ns;
    }
  }
  for (auto& range : out) {
    std::size_t timed = 0;
    for (std::size_t r = 0; r < ranks.size(); ++r)
      if (range.entries[r] && ranks[r].summary.nvtx_ranges[*range.entries[r]].durations.total_ns) ++timed;
    if (timed >= 2 && range.min_rank_ns && *range.min_rank_ns > 0) range.spread = *range.max_rank_ns / *range.min_rank_ns - 1.0;
  }
  std::stable_sort(out.begin(), out.end(), [](const RankRange& a, const RankRange& b) { return a.total_ns > b.total_ns; });
  return out;
}

}  // namespace

bool is_collective_kernel(const std::string& name) {
  return name.starts_with("ncclDevKernel") || name.starts_with("ncclKernel");
}

std::optional<double> RankSummary::share_of_all(const std::optional<double>& duration_ns) const {
  if (!duration_ns || total_ns <= 0) return std::nullopt;
  return *duration_ns / total_ns;
}

RankSummary merge_ranks(std::vector<RankRun> ranks, const SummaryOptions& options) {
  for (auto& r : ranks) {
    if (r.rank) r.label = std::to_string(r.rank->rank);
    else if (r.label.empty()) r.label = std::filesystem::path(r.path).filename().string();
    r.kernel_ns = r.collective_ns = 0;
    for (const auto& g : r.summary.groups) {
      r.kernel_ns += g.durations.total_ns.value_or(0);
      if (is_collective_kernel(g.name)) r.collective_ns += g.durations.total_ns.value_or(0);
    }
  }
  // A launcher's own process (torchrun's agent initialises CUDA to count the GPUs) leaves a
  // record without a rank or a launch: beside the ranks' records it is no rank of the job.
  std::vector<std::string> left_out;
  if (std::any_of(ranks.begin(), ranks.end(), [](const RankRun& r) { return r.rank.has_value(); })) {
    std::erase_if(ranks, [&](const RankRun& r) {
      const bool launcher = !r.rank && r.summary.launches == 0 && r.summary.run.launches_seen.value_or(0) == 0;
      if (launcher) left_out.push_back(r.path);
      return launcher;
    });
  }
  std::stable_sort(ranks.begin(), ranks.end(), rank_order);
  check_distinct_ranks(ranks);

  RankSummary merged;
  merged.kernel_regex = options.kernel_regex;
  merged.names = options.names;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    merged.total_ns += ranks[r].kernel_ns;
    if (ranks[r].kernel_ns > ranks[merged.slowest_rank].kernel_ns) merged.slowest_rank = r;
    const auto& groups = ranks[r].summary.groups;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const KernelSummary& group = groups[g];
      if (!group.no_counters.empty()) continue;  // on the timeline alone: ranks are compared by their profiled launches
      const std::string key = RunSummary::group_key(group.name, group.grid, group.block);
      auto [slot, added] = index.emplace(key, merged.kernels.size());
      if (added) {
        RankKernel k;
        k.name = group.name;
        k.mangled_name = group.mangled_name;
        k.grid = group.grid;
        k.block = group.block;
        k.groups.resize(ranks.size());
        merged.kernels.push_back(std::move(k));
      }
      RankKernel& k = merged.kernels[slot->second];
      k.groups[r] = g;
      ++k.ranks_with_kernel;
      k.launches += group.launches;
      k.total_ns += group.durations.total_ns.value_or(0);
      if (k.mangled_name.empty()) k.mangled_name = group.mangled_name;
    }
  }
  for (auto& k : merged.kernels) {
    finish_kernel(k, ranks);
    k.time_share = merged.share_of_all(k.total_ns);
  }
  // Most time first; equal times (untimed sources) in the order the ranks first ran them.
  std::stable_sort(merged.kernels.begin(), merged.kernels.end(),
                   [](const RankKernel& a, const RankKernel& b) { return a.total_ns > b.total_ns; });
  name_kernels(merged.kernels, options.names);
  merged.ranges = line_up_ranges(ranks);
  for (auto& range : merged.ranges) range.time_share = merged.share_of_all(range.total_ns);
  if (ranks.size() > 1 && std::any_of(ranks.begin(), ranks.end(), [](const RankRun& r) { return r.collective_ns > 0; })) {
    const auto outside = [](const RankRun& r) { return r.kernel_ns - r.collective_ns; };
    merged.straggler = static_cast<std::size_t>(
        std::max_element(ranks.begin(), ranks.end(), [&](const RankRun& a, const RankRun& b) { return outside(a) < outside(b); }) -
        ranks.begin());
  }
  merged.ranks = std::move(ranks);
  merged.notes = set_notes(merged.ranks);
  for (const auto& path : left_out)
    merged.notes.push_back("'" + path + "' names no rank and holds no launch (a launcher's own process): left out");
  return merged;
}

RankSummary summarize_ranks(const std::vector<std::string>& paths, const AnalysisOptions& analysis_options,
                            const SummaryOptions& options) {
  SummaryOptions one_rank = options;
  one_rank.keep_launches = false;  // the merged view lists groups; memory stays flat per record
  std::vector<RankRun> ranks;
  for (const auto& path : paths) {
    RankRun run;
    run.path = path;
    run.summary = summarize_run_file(path, analysis_options, one_rank);
    run.rank = run.summary.run.rank;
    run.host = run.summary.run.host;
    ranks.push_back(std::move(run));
  }
  return merge_ranks(std::move(ranks), options);
}

}  // namespace limiter
