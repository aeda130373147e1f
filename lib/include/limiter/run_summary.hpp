#pragma once
// A run summarised by kernel, built one analysed launch at a time so that a record of millions
// of launches is reported in flat memory: launches of the same kernel (name) and launch
// configuration (grid, block) become one group with its launches, total / mean / min / max
// time, share of the run, verdict mix, limiting unit and LMEM shares — what
// `nsys stats -r cuda_gpu_kern_sum` gives, plus the verdict — and "what to fix first".
// Every launch's own analysis is kept only when a report needs it (one row per launch).
#include <cstddef>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "limiter/analysis.hpp"
#include "limiter/kernel_names.hpp"
#include "limiter/kernel_selection.hpp"
#include "limiter/nvtx_ranges.hpp"
#include "limiter/program_verdict.hpp"
#include "limiter/rollup.hpp"

namespace limiter {

struct SummaryOptions {
  std::string kernel_regex;   // -k: only kernels a name of which matches (kernel_selection.hpp)
  bool keep_launches = true;  // keep each selected launch's analysis (--launches, csv, json)
  // Beyond this many selected launches none is kept (RunSummary::launches_dropped): memory stays flat.
  std::size_t keep_launches_up_to = std::numeric_limits<std::size_t>::max();
  NameStyle names = NameStyle::short_form;
  std::size_t fix_first_limit = kFixFirstLimit;
  // The sequence numbers of this many selected launches with the most time are noted
  // (RunSummary::longest_sequences), for --top N on a second pass when none is kept.
  std::size_t longest_to_note = 0;
  // Threads that parse and analyse a record's launches; 0: one per core (at most 8). Records read
  // side by side (a job's ranks) take fewer each.
  std::size_t analysers = 0;
};

// A kernel's launches on the record's activity timeline, as `nsys stats -r cuda_gpu_kern_sum`
// counts them: a default run's timeline holds every launch after the counters phase, unprofiled.
struct TimelineKernelTime {
  std::size_t launches = 0;
  DurationStats durations;
  std::optional<double> time_share;  // of the timeline's kernel time (TimelineKernelTotals::kernel_ns)
};

// The record's timeline by kernel (timeline_kernels.cpp), when it holds kernels.
struct TimelineKernelTotals {
  std::size_t launches = 0;          // its kernel events, -k or not
  std::size_t kernels = 0;           // distinct names among them
  double kernel_ns = 0;              // their summed duration: the groups' timeline shares are of it
  std::uint64_t window_ns = 0;       // the timeline's window
  std::size_t without_counters = 0;  // groups of kernels it holds and the launches do not (KernelSummary::no_counters)
};

struct KernelSummary {
  std::string name;          // demangled, in full
  std::string mangled_name;  // empty when the source had none (ncu CSV)
  std::string display_name;  // as reports show it (--names)
  Dim3 grid, block;
  std::uint64_t first_sequence = 0;
  std::size_t launches = 0;
  DurationStats durations;
  std::optional<double> time_share;  // of the whole run's time (estimated_ns where known)
  // Per-kernel budgets: the launches the collector saw of this kernel and configuration, and its
  // time over all of them, estimated as the profiled launches' mean time that many times.
  std::optional<std::uint64_t> launches_seen;
  std::optional<double> estimated_ns;
  // With a timeline that holds kernels: this kernel and configuration's launches there (none where
  // it ran only while profiled). The groups are then ranked by it; the verdict is the counters'.
  std::optional<TimelineKernelTime> timeline;
  // A kernel of the timeline with no launch in the record (launches 0, no verdict): why it has no
  // counters, in a user's words. Empty for a kernel with counters.
  std::string no_counters;
  double ranked_ns() const {
    if (timeline) return timeline->durations.total_ns.value_or(0);
    return estimated_ns ? *estimated_ns : durations.total_ns.value_or(-1);
  }
  VerdictCounts verdicts;
  std::optional<Verdict> main_verdict;  // the verdict of most of the group's time
  std::string limiting_unit;            // the limiting unit of most of the group's time
  // Means over the launches that have the value, weighted by time (by count when untimed).
  std::optional<double> issue, l2, dram, memory, compute, lmem_l2_share, lmem_instruction_share, occupancy;
  bool lmem_l2_share_is_upper_bound = false;
  // Why the kernel waits (its PC samples by stall reason, stall_analysis.hpp), when the record has them.
  std::shared_ptr<const KernelStallAnalysis> stalls;
  KernelAnalysis longest;                     // the longest launch: its reason, evidence and advice
  std::optional<std::size_t> fix_first_rank;  // 1-based, when listed in "what to fix first"
  bool verdicts_differ() const { return verdicts.of(main_verdict) != launches; }
};

// The launches of one set of enclosing NVTX ranges (KernelLaunch::nvtx, joined by " + "; launches
// outside every range under kNoNvtxRange): where a training step's time goes, by phase.
struct NvtxRangeSummary {
  std::string ranges;  // e.g. "train_step/forward/"
  std::size_t launches = 0;
  DurationStats durations;
  std::optional<double> time_share;  // of the whole run's time
  VerdictCounts verdicts;
  std::optional<Verdict> main_verdict;   // the verdict of most of the range's time
  std::vector<std::string> top_kernels;  // display names, most time first (at most kNvtxTopKernels)
};
inline constexpr std::size_t kNvtxTopKernels = 3;

struct FixFirstEntry {
  std::size_t group = 0;  // index into RunSummary::groups
  std::string headline;   // the advice, cut to its first remedy
  std::string advice;     // in full
};

// A kernel with PC samples in the record (RunRecord::stalls), with or without launches: a record
// of `limiter run --stalls` has samples and no launches at all.
struct StalledKernel {
  std::string name;          // demangled
  std::string display_name;  // as reports show it
  std::shared_ptr<const KernelStallAnalysis> stalls;
  std::optional<std::size_t> group;  // its first group (index into RunSummary::groups), when it has launches
  std::vector<std::string> advice;   // its dominant reasons' advice (its launches carry it too)
};

struct RunSummary {
  RunAnalysis run;  // device, source, peaks, thresholds; kernels: the kept launches, in launch order
  std::string kernel_regex;
  NameStyle names = NameStyle::short_form;
  std::size_t launches = 0;           // in the run
  std::size_t selected_launches = 0;  // matching -k (all without it)
  std::size_t timed_launches = 0;     // in the run
  double total_ns = 0;                // of the profiled launches
  // With per-kernel budgets (the record's kernels_seen): the estimated time of all launches seen,
  // profiled or not. Kernel time shares are then of this.
  std::optional<double> estimated_total_ns;
  std::size_t distinct_kernels = 0;  // distinct names among the selected launches
  // With -k: the kernels (demangled) of the launches, timeline and samples it did not select.
  std::vector<std::string> unselected_kernels;
  bool launches_dropped = false;              // more selected launches than SummaryOptions::keep_launches_up_to
  std::set<std::uint64_t> longest_sequences;  // SummaryOptions::longest_to_note
  std::vector<KernelSummary> groups;          // selected launches, most total time first
  std::vector<VerdictTime> time_by_verdict;   // selected launches: bandwidth, instruction, latency, none
  std::vector<FixFirstEntry> fix_first;
  // Selected launches by NVTX ranges, most time first; empty when no launch has a range.
  std::vector<NvtxRangeSummary> nvtx_ranges;
  std::unordered_map<std::string, std::string> display_names;  // demangled name -> as shown
  // The program verdict (program_verdict.hpp) from the record's timeline; empty without one.
  std::optional<ProgramVerdict> program;
  // Every kernel with PC samples, most samples first (stalled_kernels.cpp); empty without them.
  std::vector<StalledKernel> stalled_kernels;
  // The record's timeline by kernel, when it holds kernels (the groups then carry their timeline time).
  std::optional<TimelineKernelTotals> timeline_kernels;

  bool has_repeated_launches() const;
  // The name as reports show it; the name itself when it is not in the run.
  const std::string& display_name(const std::string& name) const;
  // The group of a kept launch (index into groups).
  std::size_t group_of(const KernelAnalysis& launch) const;
  std::optional<double> share_of_run(const std::optional<double>& duration_ns) const;

  std::unordered_map<std::string, std::size_t> group_index;  // by group_key
  static std::string group_key(const std::string& name, const Dim3& grid, const Dim3& block);
};

// Builds a summary one launch at a time.
class SummaryBuilder {
 public:
  explicit SummaryBuilder(SummaryOptions options);
  ~SummaryBuilder();
  SummaryBuilder(const SummaryBuilder&) = delete;
  SummaryBuilder& operator=(const SummaryBuilder&) = delete;
  // The analysis fields of the run (device, peaks, thresholds); its kernels are ignored.
  void start(const RunAnalysis& run);
  // LAUNCH analysed; RAW, when given, is what it was analysed from: kept while it is its group's
  // longest launch, so that finish() can explain it (see explain_longest_with).
  void add(KernelAnalysis&& launch, const std::string& mangled_name = "", const KernelLaunch* raw = nullptr);
  // Launches analysed without words (AnalysisOptions::explain off) are explained again by
  // EXPLAIN at finish() where they are a group's longest: its reason, evidence and advice.
  void explain_longest_with(std::function<KernelAnalysis(const KernelLaunch&)> explain);
  // Whether added launches are still kept (they must then be explained as they come).
  bool keeps_launches() const { return options_.keep_launches && !summary_.launches_dropped; }
  RunSummary finish();

 private:
  void estimate_whole_run();
  void note_if_longest(const KernelAnalysis& launch);

  SummaryOptions options_;
  KernelSelection selection_;
  RunSummary summary_;
  struct Accumulator;
  std::vector<Accumulator> accumulators_;
  struct GroupIndex;  // accumulators_ by name and launch configuration, found without a key string per launch
  std::unique_ptr<GroupIndex> group_index_;
  struct RangeAccumulator;  // by NVTX ranges (RunSummary::nvtx_ranges)
  std::vector<RangeAccumulator> range_accumulators_;
  std::unordered_map<std::string, std::size_t> range_index_;
  bool any_nvtx_ = false;
  void add_to_range(const KernelAnalysis& launch, std::size_t name_id);
  void finish_ranges();
  std::function<KernelAnalysis(const KernelLaunch&)> explain_;
  using Noted = std::pair<double, std::uint64_t>;  // duration, sequence
  std::vector<Noted> longest_;
};

// Every selected launch of the record at PATH analysed again, in launch order, one at a time:
// the second pass of a report whose summary kept no launch (csv and json of millions).
void for_each_analysed_launch(const std::string& path, const AnalysisOptions& analysis_options,
                              const std::string& kernel_regex, const std::function<void(const KernelAnalysis&)>& row);

// -k REGEX compiled (ECMAScript); throws InputError naming the option when it is not valid.
std::regex kernel_name_regex(const std::string& pattern);

// A summary of an analysis in memory (every launch kept unless OPTIONS says otherwise).
RunSummary summarize(const RunAnalysis& analysis, const SummaryOptions& options = {});

// Each batch of launches with its analysis, as it goes by (limiter export writes them out): in
// launch order, one batch at a time, on one of the threads that analyse the record.
using BatchSink = std::function<void(const RunRecord& batch, const RunAnalysis& analysis)>;

// Reads a run record (streamed; .json or .json.gz, any layout), analyses it in batches on every
// core and summarises it as one thread would: memory stays flat however many launches it holds.
RunSummary summarize_run_file(const std::string& path, const AnalysisOptions& analysis_options,
                              const SummaryOptions& options, const BatchSink& on_batch = {});
// The same for a record in memory (an imported ncu CSV).
RunSummary summarize_record(const RunRecord& run, const AnalysisOptions& analysis_options,
                            const SummaryOptions& options, const BatchSink& on_batch = {});

}  // namespace limiter
