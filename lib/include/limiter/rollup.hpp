#pragma once
// Roll-ups of a run's analysis, shown by every report format: launches of the same kernel
// (same name and launch configuration) grouped, the run's time split by verdict, and a
// "what to fix first" list. Plain structs computed here; the renderers only print them.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "limiter/analysis.hpp"

namespace limiter {

// How many launches got each verdict; `none` counts launches whose counters allowed none.
struct VerdictCounts {
  std::size_t bandwidth = 0;
  std::size_t instruction = 0;
  std::size_t latency = 0;
  std::size_t none = 0;
  void add(const std::optional<Verdict>& verdict);
  std::size_t of(const std::optional<Verdict>& verdict) const;
  std::size_t total() const { return bandwidth + instruction + latency + none; }
};

// Same name and same grid and block: the launches a user thinks of as "one kernel".
bool same_kernel_and_configuration(const KernelAnalysis& a, const KernelAnalysis& b);

// Durations over the launches that have one; all empty when none has.
struct DurationStats {
  std::size_t timed_launches = 0;
  std::optional<double> total_ns, mean_ns, min_ns, max_ns;
  void add(const std::optional<double>& duration_ns);
  // A sampled aggregate (PM-sampling mode): LAUNCHES launches of TOTAL_NS together; their
  // single durations are unknown, so each counts as their mean (min and max included).
  void add_aggregate(const std::optional<double>& total_ns, std::uint64_t launches);
  // The sample variance of the durations (ns^2), with at least two timed launches. An aggregate's
  // launches count as their mean, so its own spread is not in it.
  std::optional<double> variance_ns2() const;
  double squared_deviations = 0;  // from the mean, summed (Welford), for variance_ns2
};

struct KernelGroup {
  std::string name;
  Dim3 grid, block;
  std::vector<std::size_t> launch_indices;  // into RunAnalysis::kernels, in launch order
  DurationStats durations;
  std::optional<double> time_share;  // of the run's total time
  VerdictCounts verdicts;
  std::optional<Verdict> main_verdict;                // the verdict of most of the group's time
  std::shared_ptr<const KernelStallAnalysis> stalls;  // its PC samples by stall reason, when recorded
  std::size_t launches() const { return launch_indices.size(); }
};

struct VerdictTime {
  std::optional<Verdict> verdict;  // empty: launches without a verdict
  std::size_t launches = 0;
  double duration_ns = 0;
  std::optional<double> time_share;
};

struct FixFirstItem {
  std::size_t group = 0;           // index into RunRollup::groups
  std::size_t representative = 0;  // index into RunAnalysis::kernels: the group's longest launch
  std::optional<Verdict> verdict;  // of the representative launch
  std::string limiting_unit;
  std::string headline;  // the advice, cut to its first remedy
  std::string advice;    // the advice item the headline comes from, in full
};

struct RunRollup {
  std::size_t launches = 0;
  std::size_t timed_launches = 0;
  double total_ns = 0;                       // sum over timed launches
  std::vector<KernelGroup> groups;           // most total time first; ties in launch order
  std::vector<VerdictTime> time_by_verdict;  // bandwidth, instruction, latency, none (always four)
  std::vector<FixFirstItem> fix_first;       // most time first
  bool has_repeated_launches() const;
};

inline constexpr std::size_t kFixFirstLimit = 5;

RunRollup rollup_run(const RunAnalysis& analysis, std::size_t fix_first_limit = kFixFirstLimit);

// False for advice that says there is nothing to fix ("... not worth fixing").
bool is_actionable_advice(const std::string& advice);

// An advice item cut to its diagnosis and first remedy:
// "DRAM is the busiest unit: move fewer bytes (reuse ...)." -> "DRAM is the busiest unit: move fewer bytes".
std::string advice_headline(const std::string& advice);

}  // namespace limiter
