// Pieces every comparison renderer shows alike (comparison_parts.hpp).
#include "comparison_parts.hpp"

#include <algorithm>

#include "limiter/format.hpp"
#include "limiter/program_verdict.hpp"
#include "limiter/stalls.hpp"
#include "render_helpers.hpp"

namespace limiter::render {

std::string row_launches_text(const RunComparison& comparison, const KernelComparison& k, const std::string& arrow) {
  if (comparison.launch_rows) return std::to_string(k.before.sequence) + ">" + std::to_string(k.after.sequence);
  const std::uint64_t before = comparison.before_counts[k.group], after = comparison.after_counts[k.group];
  return before == after ? count_text(before) : count_text(before) + arrow + count_text(after);
}

const char* row_launches_title(const RunComparison& comparison) { return comparison.launch_rows ? "#" : "launches"; }

std::string rows_note(const RunComparison& comparison) {
  if (comparison.launch_rows)
    return "one row per launch: the k-th launch of a kernel and configuration against the k-th (# their sequence "
           "numbers); noise and the gate are the kernel's";
  if (comparison.per_launch)
    return "one row per kernel and configuration: its mean time per launch on each side (--launches has no launch rows "
           "when the records selected their launches differently)";
  return "one row per kernel and configuration: its mean time per launch on each side (--launches: one row per launch)";
}

std::string unmatched_time_text(const UnmatchedKernel& k) {
  if (k.launches == 1) return precise_duration_text(k.total_ns);
  return count_text(k.launches) + " launches, " + precise_duration_text(k.total_ns);
}

std::size_t shown_rows(std::size_t size, std::size_t top) { return top > 0 ? std::min(top, size) : size; }

std::string more_rows_text(std::size_t left_out) {
  return count_text(left_out) + " more not shown (--top 0 shows all)";
}

GateFailure gate_failure(const RunComparison& comparison) {
  GateFailure failure;
  failure.total = comparison.totals.slower_than_limit;
  failure.named = comparison.slowest_kernels(kGateKernelsNamed);
  failure.more = comparison.slower_kernel_count() - failure.named.size();
  return failure;
}

std::string gate_total_text(const RunComparison& comparison) {
  return std::string(comparison.per_launch ? "the mean per launch (" : "the total (") +
         change_percent_text(comparison.totals.all.change) + ")";
}

std::string gate_more_text(std::size_t more) {
  return "and " + count_text(more) + (more == 1 ? " more kernel" : " more kernels");
}

std::string program_change_text(const RunComparison& comparison, const std::string& arrow) {
  const auto& before = comparison.before_program;
  const auto& after = comparison.after_program;
  if (!before && !after) return "";
  const auto verdict = [](const std::optional<ProgramVerdict>& p) {
    return p ? std::string(to_string(p->verdict)) : std::string("no timeline");
  };
  const auto busy = [](const std::optional<ProgramVerdict>& p) {
    return p ? format_percent(p->split.busy_share(), 0) : std::string("—");
  };
  const auto wall = [](const std::optional<ProgramVerdict>& p) {
    return p ? precise_duration_text(p->split.wall_ns) : std::string("—");
  };
  return before_after_text(verdict(before), verdict(after), arrow) + "; GPU busy " +
         before_after_text(busy(before), busy(after), arrow) + " of " +
         before_after_text(wall(before), wall(after), arrow);
}

std::string nothing_timed_text(const RunComparison& comparison) {
  if (comparison.totals.all.before_ns || comparison.totals.all.after_ns) return "";
  if (comparison.totals.before_launches > 0 || comparison.totals.after_launches > 0)
    return "no launch has a time on either side: nothing to compare but the kernels found";
  if (!comparison.samples.empty())
    return "neither record holds kernel times (records of PC samples): their samples per kernel are compared below";
  return "neither record holds kernel times or PC samples: `limiter run` records both";
}

std::string sample_share_text(const SampledKernelComparison& k, const std::string& arrow) {
  return before_after_text(format_percent(k.before_share, 0), format_percent(k.after_share, 0), arrow);
}

std::string sample_reason_text(const SampledKernelComparison& k, const std::string& arrow) {
  const auto reason = [](const std::string& key, const std::optional<double>& share) {
    return key.empty() ? std::string("—") : stall_reason_title(key) + " " + format_percent(share, 0);
  };
  return before_after_text(reason(k.before_reason, k.before_reason_share), reason(k.after_reason, k.after_reason_share),
                           arrow);
}

}  // namespace limiter::render
