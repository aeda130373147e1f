// The ranks of a job lined up: each record summarised on its own (streamed), then the groups
// of the same kernel and launch configuration matched across the ranks by RunSummary::group_key.
#include "limiter/rank_summary.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <thread>
#include <unordered_map>

#include "limiter/kernel_names.hpp"
#include "summary/rank_set.hpp"
#include "summary/rank_stalls.hpp"

namespace limiter {
namespace {

// Display names over every rank's kernels and those of their samples alone, so a kernel reads
// the same on every rank and no two kernels read the same.
void name_kernels(RankSummary& merged, NameStyle style) {
  std::vector<std::string> names;
  for (const auto& k : merged.kernels) names.push_back(k.name);
  for (const auto& k : merged.stalled_kernels) names.push_back(k.name);
  const auto short_names = short_kernel_names(names);
  const auto shown = [&](const std::string& name, const std::string& mangled) {
    switch (style) {
      case NameStyle::short_form:
        return short_names.at(name);
      case NameStyle::demangled:
        return name;
      case NameStyle::mangled:
        return mangled.empty() ? name : mangled;
    }
    return name;
  };
  for (auto& k : merged.kernels) k.display_name = shown(k.name, k.mangled_name);
  for (auto& k : merged.stalled_kernels) k.display_name = shown(k.name, "");
}

void finish_kernel(RankKernel& k, const std::vector<RankRun>& ranks) {
  std::size_t timed = 0;
  double timed_sum = 0;
  bool first = true;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (!k.groups[r]) continue;
    const KernelSummary& g = ranks[r].summary.groups[*k.groups[r]];
    const std::size_t launches = rank_group_launches(g);
    if (first || launches < k.min_rank_launches) k.min_rank_launches = launches;
    if (first || launches > k.max_rank_launches) k.max_rank_launches = launches;
    first = false;
    k.rank_verdicts.add(g.main_verdict);
    const auto group_ns = rank_group_ns(g);
    if (!group_ns) continue;
    const double ns = *group_ns;
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
    if (timed >= 2 && range.min_rank_ns && *range.min_rank_ns > 0)
      range.spread = *range.max_rank_ns / *range.min_rank_ns - 1.0;
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RankRange& a, const RankRange& b) { return a.total_ns > b.total_ns; });
  return out;
}

// A rank's summary as the merged report reads it: its groups' numbers, verdicts and names, its
// program, ranges and samples; not each group's longest launch (its words, evidence and
// sub-units: the merged report explains no launch), its "fix first" list or the indexes that
// built it. So each rank costs the merged report what it shows of that rank, however many ranks.
void keep_what_the_merge_reads(RunSummary& summary) {
  for (auto& group : summary.groups) {
    group.longest = KernelAnalysis{};
    group.fix_first_rank.reset();
  }
  summary.fix_first = {};
  summary.display_names = {};
  summary.group_index = {};
}

}  // namespace

std::optional<double> rank_group_ns(const KernelSummary& group) {
  return group.timeline ? group.timeline->durations.total_ns : group.durations.total_ns;
}

std::size_t rank_group_launches(const KernelSummary& group) {
  return group.timeline ? group.timeline->launches : group.launches;
}

bool is_collective_kernel(const std::string& name) {
  return name.starts_with("ncclDevKernel") || name.starts_with("ncclKernel");
}

std::optional<double> RankSummary::share_of_all(const std::optional<double>& duration_ns) const {
  if (!duration_ns || total_ns <= 0) return std::nullopt;
  return *duration_ns / total_ns;
}

RankSummary merge_ranks(std::vector<RankRun> ranks, const SummaryOptions& options, const StallThresholds& stalls) {
  for (auto& r : ranks) {
    r.kernel_ns = r.collective_ns = 0;
    r.launches = 0;
    for (const auto& g : r.summary.groups) {
      const double ns = rank_group_ns(g).value_or(0);
      r.kernel_ns += ns;
      r.launches += rank_group_launches(g);
      if (is_collective_kernel(g.name)) r.collective_ns += ns;
    }
  }
  // A launcher's own process (torchrun's agent initialises CUDA to count the GPUs) leaves a
  // record without a rank or a launch: beside the ranks' records it is no rank of the job.
  std::vector<std::string> left_out;
  if (std::any_of(ranks.begin(), ranks.end(), [](const RankRun& r) { return r.rank.has_value(); })) {
    std::erase_if(ranks, [&](const RankRun& r) {
      const bool launcher = !r.rank && r.summary.launches == 0 && r.summary.run.launches_seen.value_or(0) == 0 &&
                            !r.summary.timeline_kernels && r.summary.stalled_kernels.empty();
      if (launcher) left_out.push_back(r.path);
      return launcher;
    });
  }
  RankSummary merged;
  const std::string not_one_job = detail::why_not_one_job(ranks);
  merged.one_job = not_one_job.empty() && !ranks.empty();
  detail::order_and_label(ranks, merged.one_job);
  merged.kernel_regex = options.kernel_regex;
  merged.names = options.names;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    merged.total_ns += ranks[r].kernel_ns;
    if (ranks[r].kernel_ns > ranks[merged.slowest_rank].kernel_ns) merged.slowest_rank = r;
    const auto& groups = ranks[r].summary.groups;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const KernelSummary& group = groups[g];
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
      k.launches += rank_group_launches(group);
      k.total_ns += rank_group_ns(group).value_or(0);
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
  merged.stalled_kernels = detail::line_up_stalls(ranks, stalls);
  name_kernels(merged, options.names);
  merged.ranges = line_up_ranges(ranks);
  for (auto& range : merged.ranges) range.time_share = merged.share_of_all(range.total_ns);
  if (ranks.size() > 1 &&
      std::any_of(ranks.begin(), ranks.end(), [](const RankRun& r) { return r.collective_ns > 0; })) {
    const auto outside = [](const RankRun& r) { return r.kernel_ns - r.collective_ns; };
    merged.straggler = static_cast<std::size_t>(
        std::max_element(ranks.begin(), ranks.end(),
                         [&](const RankRun& a, const RankRun& b) { return outside(a) < outside(b); }) -
        ranks.begin());
  }
  merged.ranks = std::move(ranks);
  if (!merged.one_job && merged.ranks.size() > 1)
    merged.notes.push_back("not the ranks of one job (" + not_one_job +
                           "): the records are shown side by side, by file name");
  for (auto& note : detail::set_notes(merged.ranks, merged.one_job)) merged.notes.push_back(std::move(note));
  for (const auto& path : left_out)
    merged.notes.push_back("'" + path + "' names no rank and holds no launch (a launcher's own process): left out");
  return merged;
}

RankSummary summarize_ranks(const std::vector<std::string>& paths, const AnalysisOptions& analysis_options,
                            const SummaryOptions& options) {
  // Records side by side, each on its share of the cores: many small records (a job's ranks)
  // read one at a time leave most cores idle, since one record's reading is a single thread.
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers = std::min(cores, paths.size());
  SummaryOptions one_rank = options;
  one_rank.keep_launches = false;  // the merged view lists groups; memory stays flat per record
  one_rank.analysers = std::max<std::size_t>(1, cores / std::max<std::size_t>(workers, 1));
  // Each rank keeps every hot PC its record holds: a PC that is no rank's top five can be the
  // job's, once summed over the ranks; the merged kernels keep analysis_options' count.
  AnalysisOptions rank_analysis = analysis_options;
  rank_analysis.stalls.hot_lines = std::numeric_limits<std::size_t>::max();
  std::vector<RankRun> ranks(paths.size());
  std::vector<std::exception_ptr> errors(paths.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < paths.size(); i = next++) {
      try {
        ranks[i].path = paths[i];
        ranks[i].summary = summarize_run_file(paths[i], rank_analysis, one_rank);
        keep_what_the_merge_reads(ranks[i].summary);
        ranks[i].rank = ranks[i].summary.run.rank;
        ranks[i].host = ranks[i].summary.run.host;
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (auto& thread : threads) thread.join();
  for (const auto& error : errors)  // the first record's error in the order given, whatever thread met it
    if (error) std::rethrow_exception(error);
  return merge_ranks(std::move(ranks), options, analysis_options.stalls);
}

}  // namespace limiter
