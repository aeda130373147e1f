#pragma once
// Which launches to profile: ncu's filters (-k regex, -s skip, -c count), a budget per kernel
// (the first K launches of each kernel and launch configuration, after skipping S of them),
// sampling every Nth launch of each kernel in rounds, and NVTX ranges (--nvtx-include /
// --nvtx-exclude). Pure C++, so the rules are tested without a GPU.
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "limiter/collector.hpp"
#include "limiter/nvtx_ranges.hpp"

namespace limiter::detail {

class LaunchSelector {
 public:
  explicit LaunchSelector(const CollectorOptions& options);  // throws InputError on a bad regex

  // Decides for one launch, in launch order; counts it. CONFIGURATION tells launches of one
  // kernel apart for the per-kernel budget (grid and block; empty: the name alone).
  // PROFILER_RUNNING says whether this launch is ranged anyway: sampling then takes any kernel
  // that is due, while a paused profiler is resumed only for a round (see sample()). RANGES: the
  // NVTX ranges around it (none given: outside every range); with budget_by_range, each set of
  // ranges has its own budget.
  bool select(const std::string& kernel_name, const std::string& configuration = "", bool profiler_running = true,
              const NvtxRanges* ranges = nullptr);
  // True when launches are selected by NVTX ranges.
  bool filters_nvtx() const { return nvtx_.active(); }
  // True when selection filters launches out, so a profiler that ranges every launch wastes
  // its work on long runs of unselected ones (the collector pauses it then).
  bool filters() const { return filtering_; }
  // True when only a kernel or configuration not seen yet can still be selected (per-kernel
  // budgets, no sampling): a profiler paused after a long run of unselected launches is then
  // resumed only for new kernels, never for the ones it has seen.
  bool only_new_kernels_selectable() const {
    return per_kernel_count_ != std::numeric_limits<std::uint64_t>::max() && sample_every_ == 1;
  }
  // Per-kernel budgets: whether the last select() moved a kernel and configuration's skip or
  // count on (selected or skipped), as opposed to a launch the filters drop or whose budget is
  // spent. A counters phase with no profiler running ends after a long run of launches that move
  // none: a -k that matches nothing would otherwise keep the timeline from ever starting.
  bool advanced_a_budget() const { return advanced_; }
  // True when selection needs the launch configuration (per-kernel budgets).
  bool per_configuration() const {
    return per_kernel_skip_ > 0 || per_kernel_count_ != std::numeric_limits<std::uint64_t>::max();
  }
  // True once --count launches were profiled: nothing later will be selected.
  bool exhausted() const { return profiled_ >= count_; }
  std::uint64_t profiled() const { return profiled_; }
  // Per-kernel budgets: the launches seen of each kernel and configuration (over its NVTX ranges
  // with budget_by_range), profiled or not; empty without a budget.
  std::vector<KernelSeen> kernels_seen() const;
  // The configuration as select() takes it: "gx,gy,gz/bx,by,bz".
  static std::string configuration_text(const Dim3& grid, const Dim3& block);
  // From now on, launches of these kernels and configurations (name, configuration_text) are
  // never selected, only counted: the ones the samples judged, under sampling then exact.
  void exclude(std::vector<std::pair<std::string, std::string>> kernels);

 private:
  std::optional<std::regex> pattern_;
  NvtxFilter nvtx_;
  bool budget_by_range_ = false;
  std::uint64_t skip_, count_, sample_every_, per_kernel_skip_, per_kernel_count_;
  bool filtering_ = false;
  std::uint64_t matched_ = 0, profiled_ = 0;
  // --sample-every N: a kernel is due at the Nth launch after its last sample. Resuming a
  // paused profiler costs ~270 ms (SetConfig + Start, H100 with PyTorch), so kernels launched
  // at different rates must not each resume it when they fall due: a paused profiler resumes
  // for a kernel never sampled, or once at least half the sampled kernels are due (a round);
  // kernels that fall due while it runs are taken at once.
  struct Sampled {
    std::uint64_t since_last = 0;  // launches since the last sample, this one included
    bool taken = false;
  };
  bool sample(const std::string& kernel_name, bool profiler_running);
  std::map<std::string, Sampled> sampled_;
  std::uint64_t sampled_kernels_ = 0, due_kernels_ = 0;
  std::map<std::string, std::uint64_t> seen_per_configuration_;
  bool advanced_ = false;           // advanced_a_budget()
  std::set<std::string> excluded_;  // "name\nconfiguration"
};

}  // namespace limiter::detail
