// The program verdict's parts that every report format shares (program_render.hpp).
#include "program_render.hpp"

#include <algorithm>

#include "limiter/format.hpp"

namespace limiter::render {

using ordered_json = nlohmann::ordered_json;

std::vector<FixLine> fix_first_lines(const RunSummary& summary) {
  std::vector<FixLine> lines;
  for (const auto& item : summary.fix_first)
    lines.push_back({nullptr, &item, std::max(0.0, summary.groups[item.group].ranked_ns())});
  if (!summary.program) return lines;
  for (const auto& fix : summary.program->fixes) lines.push_back({&fix, nullptr, fix.saveable_ns});
  // Stable: kernels keep their order among themselves; a program fix goes before a kernel of equal time.
  std::stable_sort(lines.begin(), lines.end(), [](const FixLine& a, const FixLine& b) {
    if (a.ns != b.ns) return a.ns > b.ns;
    return a.program && !b.program;
  });
  return lines;
}

std::vector<SplitPart> split_parts(const TimeSplit& s) {
  const std::vector<SplitPart> all = {{"kernels", s.kernel_ns},
                                      {"copies alone", s.copy_only_ns},
                                      {"idle: host outside CUDA", s.idle_host_ns},
                                      {"idle: inside launch calls", s.idle_launch_ns},
                                      {"idle: synchronising", s.idle_sync_ns},
                                      {"idle: inside copy calls", s.idle_copy_ns},
                                      {"idle: no host activity recorded", s.idle_unattributed_ns}};
  std::vector<SplitPart> parts;
  for (const auto& p : all)
    if (p.ns > 0) parts.push_back(p);
  return parts;
}

std::string fix_program_text(const ProgramFix& fix) {
  const char* what = "";
  switch (fix.bound) {
    case ProgramBound::launch:
      what = "idle inside launch calls";
      break;
    case ProgramBound::sync:
      what = "idle while the host synchronises";
      break;
    case ProgramBound::copy:
      what = "of copies on the critical path";
      break;
    case ProgramBound::host:
      what = "idle while the host works outside CUDA";
      break;
    case ProgramBound::unknown:
      what = "idle, no host activity recorded";
      break;
    case ProgramBound::gpu:
      what = "in kernels";
      break;
  }
  return std::string(to_string(fix.bound)) + " — " + format_duration_ns(fix.saveable_ns) + " (" +
         format_percent(fix.share, 0) + " of the window) " + what;
}

std::vector<std::string> rank_program_lines(const RankSummary& summary) {
  std::vector<std::string> lines;
  for (const auto& r : summary.ranks) {
    if (!r.summary.program) continue;
    const auto& p = *r.summary.program;
    lines.push_back(summary.member(r) + ": " + std::string(to_string(p.verdict)) + ", GPU busy " +
                    format_percent(p.split.busy_share()) + " of " + format_duration_ns(p.split.wall_ns) +
                    (p.pauses.empty() ? "" : " (" + format_duration_ns(p.paused_ns) + " of pauses set aside)"));
  }
  return lines;
}

ordered_json time_split_json(const TimeSplit& s) {
  return {{"wall_ns", s.wall_ns},
          {"gpu_busy_ns", s.gpu_busy_ns},
          {"gpu_busy_share", s.busy_share()},
          {"kernel_ns", s.kernel_ns},
          {"copy_only_ns", s.copy_only_ns},
          {"idle_ns", s.idle_ns},
          {"idle_launch_ns", s.idle_launch_ns},
          {"idle_sync_ns", s.idle_sync_ns},
          {"idle_copy_ns", s.idle_copy_ns},
          {"idle_host_ns", s.idle_host_ns},
          {"idle_unattributed_ns", s.idle_unattributed_ns}};
}

ordered_json program_json(const ProgramVerdict& p) {
  const auto& ev = p.evidence;
  ordered_json out;
  out["verdict"] = program_bound_key(p.verdict);
  out["window"] = {{"start_ns", p.window_start_ns}, {"end_ns", p.window_end_ns}};
  out["time"] = time_split_json(p.split);
  ordered_json pauses = ordered_json::array();
  for (const auto& pause : p.pauses) pauses.push_back({{"start_ns", pause.start_ns}, {"end_ns", pause.end_ns}});
  out["pauses"] = {{"count", p.pauses.size()}, {"paused_ns", p.paused_ns}, {"list", pauses}};
  out["reason"] = p.reason;
  if (!p.window_note.empty()) out["window_note"] = p.window_note;  // a run of several phases: where it was judged
  out["advice"] = p.advice;
  out["evidence"] = {{"kernels", ev.kernels},
                     {"copies", ev.copies},
                     {"memsets", ev.memsets},
                     {"synchronizations", ev.synchronizations},
                     {"api_calls", ev.api_calls},
                     {"launch_calls", ev.launch_calls},
                     {"nvtx_ranges", ev.nvtx_ranges},
                     {"pageable_copies", ev.pageable_copies},
                     {"copy_bytes", ev.copy_bytes},
                     {"pageable_copy_bytes", ev.pageable_copy_bytes},
                     {"mean_kernel_ns", ev.mean_kernel_ns},
                     {"median_kernel_gap_ns", ev.median_kernel_gap_ns},
                     {"mean_launch_call_ns", ev.mean_launch_call_ns},
                     {"launches_per_second", ev.launches_per_second},
                     {"sync_call_ns", ev.sync_call_ns},
                     {"host_activity", ev.host_activity},
                     {"dropped_records", ev.dropped_records}};
  const auto& t = p.thresholds;
  out["thresholds"] = {{"gpu_bound_share", t.gpu_bound_share}, {"gpu_majority_share", t.gpu_majority_share},
                       {"fix_min_share", t.fix_min_share},     {"short_kernel_ns", t.short_kernel_ns},
                       {"min_pause_ns", t.min_pause_ns},       {"max_pauses", t.max_pauses},
                       {"min_judged_ns", t.min_judged_ns}};
  ordered_json fixes = ordered_json::array();
  for (const auto& f : p.fixes)
    fixes.push_back({{"verdict", program_bound_key(f.bound)},
                     {"saveable_ns", f.saveable_ns},
                     {"time_share", f.share},
                     {"headline", f.headline},
                     {"advice", f.advice}});
  out["fixes"] = fixes;
  ordered_json ranges = ordered_json::array();
  for (const auto& r : p.ranges)
    ranges.push_back({{"range", r.range},
                      {"instances", r.instances},
                      {"verdict", program_bound_key(r.verdict)},
                      {"time", time_split_json(r.split)}});
  out["nvtx_ranges"] = ranges;
  return out;
}

}  // namespace limiter::render
