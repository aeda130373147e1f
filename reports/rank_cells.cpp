#include "rank_cells.hpp"

#include <algorithm>
#include <set>

#include "limiter/format.hpp"
#include "render_helpers.hpp"
#include "stall_render.hpp"

namespace limiter::render {
namespace {

std::string plural(std::size_t count, const char* one, const char* many) {
  return count_text(count) + " " + (count == 1 ? one : many);
}

// The verdict that holds most of a rank's time, with its share: "bandwidth 62%".
std::string main_verdict_text(const RunSummary& summary) {
  const VerdictTime* top = nullptr;
  for (const auto& entry : summary.time_by_verdict)
    if (entry.launches > 0 && (!top || entry.duration_ns > top->duration_ns)) top = &entry;
  if (!top) return "—";
  return verdict_label(top->verdict) + " " + format_percent(top->time_share, 0);
}

std::string rank_launches_text(const RankKernel& k) {
  if (k.min_rank_launches == k.max_rank_launches) return count_text(k.min_rank_launches);
  return count_text(k.min_rank_launches) + "-" + count_text(k.max_rank_launches);
}

}  // namespace

const char* const kRankKernelLegend =
    "per rank: the time each rank spent in the kernel; spread: how much longer the slowest rank took than the "
    "fastest; verdict and unit: the slowest rank's, with the ranks' own where they differ";

std::string short_gpu_uuid(const std::string& uuid) {
  if (uuid.empty()) return "—";
  const std::size_t end = uuid.find('-', uuid.starts_with("GPU-") ? 4 : 0);
  return uuid.substr(0, end);
}

std::string rank_job_text(const RankSummary& summary) {
  std::set<std::string> launchers, hosts;
  std::set<int> world_sizes;
  for (const auto& r : summary.ranks) {
    if (r.rank) {
      launchers.insert(r.rank->launcher);
      world_sizes.insert(r.rank->world_size);
    }
    if (!r.host.empty()) hosts.insert(r.host);
  }
  std::string text = summary.one_job ? plural(summary.ranks.size(), "rank", "ranks")
                                     : plural(summary.ranks.size(), "record", "records");
  if (summary.one_job && launchers.size() == 1 && world_sizes.size() == 1) {
    text += " of a " + *launchers.begin() + " job (world size " + std::to_string(*world_sizes.begin()) + ")";
  }
  if (!hosts.empty()) text += " on " + plural(hosts.size(), "host", "hosts");
  if (!summary.kernels.empty())
    text += ", " + format_duration_ns(summary.total_ns) + " of kernel time";  // PC samples alone: none
  return text + (summary.kernel_regex.empty() ? "" : " (-k '" + summary.kernel_regex + "')");
}

std::string slowest_rank_text(const RankSummary& summary) {
  if (summary.ranks.empty()) return "no ranks";
  if (summary.kernels.empty()) {  // PC samples alone (ranks of `limiter run --stalls`): what they hold
    std::uint64_t samples = 0;
    for (const auto& k : summary.stalled_kernels) samples += k.stalls->samples;
    if (summary.stalled_kernels.empty()) return "no kernel launches in the records";
    return "no kernel launches in the records; their PC samples: " + count_text(static_cast<std::size_t>(samples)) +
           " of " + plural(summary.stalled_kernels.size(), "kernel", "kernels");
  }
  const RankRun& slowest = summary.ranks[summary.slowest_rank];
  const auto fastest = std::min_element(summary.ranks.begin(), summary.ranks.end(),
                                        [](const RankRun& a, const RankRun& b) { return a.kernel_ns < b.kernel_ns; });
  std::string text = std::string(summary.one_job ? "slowest rank: " : "slowest record: ") + slowest.label + ", " +
                     format_duration_ns(slowest.kernel_ns) + " of kernel time";
  if (summary.ranks.size() > 1 && fastest->kernel_ns > 0) {
    text += ", +" + format_fixed((slowest.kernel_ns / fastest->kernel_ns - 1.0) * 100.0, 1) + "% over the fastest (" +
            summary.member(*fastest) + ")";
  }
  return text;
}

std::string straggler_text(const RankSummary& summary) {
  if (!summary.straggler) return {};
  const auto outside = [](const RankRun& r) { return r.kernel_ns - r.collective_ns; };
  const RankRun& straggler = summary.ranks[*summary.straggler];
  const auto fastest = std::min_element(summary.ranks.begin(), summary.ranks.end(),
                                        [&](const RankRun& a, const RankRun& b) { return outside(a) < outside(b); });
  double collective_ns = 0;
  for (const auto& r : summary.ranks) collective_ns += r.collective_ns;
  std::string text = "straggler: " + summary.member(straggler) + ", " + format_duration_ns(outside(straggler)) +
                     " of kernel time outside NCCL's kernels";
  if (outside(*fastest) > 0) {
    text += ", +" + format_fixed((outside(straggler) / outside(*fastest) - 1.0) * 100.0, 1) + "% over " +
            summary.member(*fastest);
  }
  text += ". NCCL's kernels (" + format_percent(summary.total_ns > 0 ? collective_ns / summary.total_ns : 0.0, 0) +
          " of the time) run until the last rank arrives: their time on a rank is mostly waiting for the "
          "straggler, and the rank that waited longest shows as slowest there";
  return text;
}

std::vector<std::string> rank_table_titles(const RankSummary& summary) {
  return {summary.one_job ? "rank" : "record",
          "host",
          "GPU",
          "launches",
          "kernel time",
          "vs slowest",
          "main verdict",
          "record"};
}

std::vector<Row> rank_table_rows(const RankSummary& summary) {
  std::vector<Row> rows;
  const double slowest_ns = summary.ranks.empty() ? 0 : summary.ranks[summary.slowest_rank].kernel_ns;
  for (const auto& r : summary.ranks) {
    const auto& device = r.summary.run.device;
    const std::string gpu =
        device.name.empty() ? short_gpu_uuid(device.uuid) : device.name + " " + short_gpu_uuid(device.uuid);
    const std::string against = slowest_ns > 0 ? format_percent(r.kernel_ns / slowest_ns - 1.0, 1) : "—";
    // Ranks of PC samples alone have no kernel time: no "slowest" among zeros.
    const bool timed = slowest_ns > 0;
    rows.push_back({{r.label},
                    {r.host.empty() ? "—" : r.host, true},
                    {gpu, true},
                    {count_text(r.launches)},
                    {timed ? precise_duration_text(r.kernel_ns) : "—"},
                    {timed && &r == &summary.ranks[summary.slowest_rank] ? "slowest" : against},
                    {main_verdict_text(r.summary), true},
                    {r.path, true}});
  }
  return rows;
}

std::vector<std::string> rank_kernel_titles() {
  return {"#",      "time%",   "total",   "ranks", "launches/rank", "per rank min", "max",
          "spread", "slowest", "verdict", "unit",  "grid x block",  "kernel"};
}

std::size_t shown_rank_kernel_count(const RankSummary& summary, std::size_t top) {
  return top == 0 ? summary.kernels.size() : std::min(top, summary.kernels.size());
}

std::vector<Row> rank_kernel_rows(const RankSummary& summary, std::size_t top) {
  std::vector<Row> rows;
  const std::size_t shown = shown_rank_kernel_count(summary, top);
  for (std::size_t i = 0; i < shown; ++i) {
    const RankKernel& k = summary.kernels[i];
    rows.push_back({{std::to_string(i + 1)},
                    {format_percent(k.time_share, 0)},
                    {precise_duration_text(k.total_ns)},
                    {std::to_string(k.ranks_with_kernel) + "/" + std::to_string(summary.ranks.size())},
                    {rank_launches_text(k)},
                    {precise_duration_text(k.min_rank_ns)},
                    {precise_duration_text(k.max_rank_ns)},
                    {k.spread ? "+" + format_fixed(*k.spread * 100.0, 1) + "%" : "—"},
                    {summary.member(summary.ranks[k.slowest]), true},
                    {rank_verdict_text(k), true},
                    {k.limiting_unit.empty() ? "—" : k.limiting_unit, true},
                    {configuration_text(k.grid, k.block, "x"), true},
                    {k.display_name, true}});
  }
  return rows;
}

std::string rank_kernels_left_out_text(const RankSummary& summary, std::size_t top) {
  const std::size_t shown = shown_rank_kernel_count(summary, top);
  if (shown == summary.kernels.size()) return "";
  double rest_ns = 0;
  for (std::size_t i = shown; i < summary.kernels.size(); ++i) rest_ns += summary.kernels[i].total_ns;
  return "... " + std::to_string(summary.kernels.size() - shown) +
         " more: " + format_percent(summary.share_of_all(rest_ns), 1) + " of the time over all ranks";
}

const char* const kRankRangeLegend =
    "per rank: the time each rank's launches spent inside the ranges (push/pop ranges end in '/'); spread: how "
    "much longer the slowest rank took than the fastest; verdict: of most of the slowest rank's time there";

std::vector<std::string> rank_range_titles() {
  return {"time%", "total", "ranks", "launches", "per rank min", "max", "spread", "slowest", "verdict", "NVTX ranges"};
}

std::vector<Row> rank_range_rows(const RankSummary& summary) {
  std::vector<Row> rows;
  for (const RankRange& r : summary.ranges) {
    rows.push_back({{format_percent(r.time_share, 0)},
                    {precise_duration_text(r.total_ns)},
                    {std::to_string(r.ranks_with_range) + "/" + std::to_string(summary.ranks.size())},
                    {count_text(r.launches)},
                    {precise_duration_text(r.min_rank_ns)},
                    {precise_duration_text(r.max_rank_ns)},
                    {r.spread ? "+" + format_fixed(*r.spread * 100.0, 1) + "%" : "—"},
                    {summary.member(summary.ranks[r.slowest]), true},
                    {verdict_label(r.slowest_verdict), true},
                    {r.ranges, true}});
  }
  return rows;
}

std::vector<RankStallLine> rank_stall_lines(const RankSummary& summary, std::size_t top) {
  std::vector<RankStallLine> lines;
  const auto& kernels = summary.stalled_kernels;
  for (std::size_t i = 0; i < kernels.size() && (top == 0 || i < top); ++i) {
    const auto& k = kernels[i];
    lines.push_back({k.display_name + " (" + std::to_string(k.ranks) + "/" + std::to_string(summary.ranks.size()) +
                         (summary.one_job ? " ranks" : " records") + "): " + why_it_waits_text(*k.stalls),
                     k.stalls.get()});
  }
  return lines;
}

std::string rank_no_timeline_hint(const RankSummary& summary) {
  const bool any = std::any_of(summary.ranks.begin(), summary.ranks.end(),
                               [](const RankRun& r) { return r.summary.program || r.summary.timeline_kernels; });
  if (any || summary.ranks.empty()) return "";
  std::string note = kNoTimelineNote;
  return "hint: " + note.replace(note.find("this record"), 11, "these records");
}

std::string rank_verdict_text(const RankKernel& k) {
  const std::string label = verdict_label(k.slowest_verdict);
  return k.verdicts_differ() ? label + " (ranks: " + verdict_mix_text(k.rank_verdicts) + ")" : label;
}

}  // namespace limiter::render
