// Budgets and selection (launch_budgets.hpp).
#include "collect/range/launch_budgets.hpp"

#include "collect/collector_internal.hpp"

namespace limiter::detail {
namespace {

// A session that ends when its budgets are spent, with no profiler running and nothing left to
// select, ends after this many launches in a row, lasting this long (see decide).
constexpr std::uint64_t kIdleLaunches = 4096;
constexpr auto kIdleTime = std::chrono::seconds(1);

// XLA's GPU timer (stream_executor's DelayKernel) spins on a semaphore that the host releases only
// once the timed kernel's launch has returned. A ranged launch behind it waits for the GPU, so each
// waited out the delay kernel's timeout (~100 ms): JAX's autotuning took 4x as long (H200,
// 2026-11-28). From such a kernel to the next synchronisation nothing is ranged.
bool waits_for_the_host(const std::string& kernel) {
  return kernel.find("DelayKernel") != std::string::npos && kernel.find("stream_executor") != std::string::npos;
}

}  // namespace

LaunchBudgets::LaunchBudgets(const CollectorOptions& options, bool ends_when_spent, Now now)
    : selector_(options), ends_when_spent_(ends_when_spent), now_(std::move(now)) {}

LaunchBudgets::Decision LaunchBudgets::decide(std::vector<PendingLaunch>& launches, const NvtxRanges* ranges,
                                              Context context) {
  Decision decision;
  bool advanced = false;  // a budget's skip or count moved on
  const bool running = context.running;
  for (auto& pending : launches) {
    if (waits_for_the_host(pending.launch.name)) host_timed_ = true;
    if (host_timed_) {  // not ranged, no budget moved on: the kernel's later launches are profiled
      pending.keep = false;
      ++decision.host_timed;
      continue;
    }
    // The configuration string only for per-kernel budgets: this runs for every launch.
    std::string configuration;
    if (selector_.per_configuration())
      configuration = LaunchSelector::configuration_text(pending.launch.grid, pending.launch.block);
    pending.keep = selector_.select(pending.launch.name, configuration, running, ranges);
    decision.selected += pending.keep ? 1 : 0;
    advanced = advanced || selector_.advanced_a_budget();
  }
  // No profiler running in the context and nothing selected (skipped by -s, not matching -k):
  // the launch runs unranged, at full speed. In user-range mode an unselected launch is not
  // ranged either, though CUPTI still adds ~9 us to it (H100, PyTorch); in auto-range mode
  // (kernel replay) every launch is a range once a profiler runs. A long run of unselected
  // launches pauses the profiler: always in auto range; in user range only under per-kernel
  // budgets, where the kernels seen are done with (elsewhere a resume, ~270 ms, would follow),
  // and only once the run has lasted kMinUnselectedRun: a short program whose new kernels keep
  // coming would pay a resume (Enable, SetConfig, Start: ~100 ms and more) for each.
  // A session that ends when its budgets are spent is also over, with no profiler running, after
  // kIdleLaunches over kIdleTime that moved no budget on (LaunchSelector::advanced_a_budget): a
  // -k that matches nothing would otherwise keep the next phase from ever starting. Not sooner:
  // with -k, the launches before the first matching one are no sign that none will come. Never
  // under NVTX filters, whose ranges may come at any time.
  const bool may_pause = running
                             ? selector_.filters() && (!context.user_range || selector_.only_new_kernels_selectable())
                             : ends_when_spent_ && !selector_.filters_nvtx() && !advanced;
  if (decision.selected > 0 || (!running && advanced)) {
    unselected_in_a_row_ = 0;
  } else if (may_pause && ++unselected_in_a_row_ == 1) {
    unselected_since_ = now_();
  }
  const bool run_long_enough =
      may_pause &&
      (!running ? unselected_in_a_row_ >= kIdleLaunches && now_() - unselected_since_ >= kIdleTime
                : ends_when_spent_ || !context.user_range || now_() - unselected_since_ >= kMinUnselectedRun);
  if (decision.selected == 0 && may_pause && unselected_in_a_row_ >= kPauseAfterUnselected && run_long_enough) {
    unselected_in_a_row_ = 0;
    decision.next = ends_when_spent_ ? Next::end_phase : Next::pause;
    return decision;
  }
  decision.next = !running && decision.selected == 0 ? Next::run_unprofiled : Next::profile;
  return decision;
}

void LaunchBudgets::spend(bool profiler_was_running) {
  if (!profiler_was_running) spent_reason_ = "nothing left to select";
  spent_ = true;
}

}  // namespace limiter::detail
