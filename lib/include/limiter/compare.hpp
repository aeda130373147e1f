#pragma once
// Before/after comparison of two analysed runs. Launches are grouped by kernel name and
// launch configuration (grid, block), as `limiter report` groups them, and each group's mean
// time per launch is compared; whether its change is more than noise is decided from the spread
// of its launches' durations (change_is_noise). With launch rows (--launches), launches are
// matched by order among equals: the k-th launch of a kernel and configuration in BEFORE is
// compared with the k-th one in AFTER. Names spelled differently by ncu and CUPTI are matched
// first (kernel_name_key.hpp). When the two records
// selected their launches differently (every launch against per-kernel budgets, a subset, PM
// sampling), launch k of one is not launch k of the other and their totals cover different
// launches: each kernel and configuration is then compared by its mean time per launch, with a
// warning. Each launch is kept in a compact form (ComparedLaunch), so that runs of 100,000s of
// launches compare in little memory. Plain structs; the renderers in reports/ print them.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "limiter/analysis.hpp"
#include "limiter/program_verdict.hpp"
#include "limiter/rollup.hpp"
#include "limiter/stalls.hpp"

namespace limiter {

// A time change: ratio after / before, and change = ratio - 1 (-0.2 is 20 % faster).
struct TimeChange {
  std::optional<double> before_ns, after_ns;
  std::optional<double> ratio, change;
};
TimeChange time_change(std::optional<double> before_ns, std::optional<double> after_ns);

// Each distinct kernel name (and limiting unit) once, however many launches have it; launches
// hold views into it (the elements of an unordered_set never move).
class NameTable {
 public:
  std::string_view intern(std::string_view text);

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };
  std::unordered_set<std::string, Hash, std::equal_to<>> names_;
};

// An optional double in 8 bytes, not 16: a NaN of its own marks it empty (a real NaN keeps its
// bits). Reads like std::optional<double> (bool, *, value_or) and converts to one.
class OptionalNumber {
 public:
  OptionalNumber() = default;
  OptionalNumber(const std::optional<double>& value) : bits_(value ? std::bit_cast<std::uint64_t>(*value) : kEmpty) {}
  bool has_value() const { return bits_ != kEmpty; }
  explicit operator bool() const { return has_value(); }
  double operator*() const { return std::bit_cast<double>(bits_); }
  double value_or(double otherwise) const { return has_value() ? **this : otherwise; }
  operator std::optional<double>() const { return has_value() ? std::optional<double>(**this) : std::nullopt; }
  friend bool operator==(const OptionalNumber& a, const std::optional<double>& b) {
    return std::optional<double>(a) == b;
  }
  friend bool operator==(const OptionalNumber& a, const OptionalNumber& b) {
    return std::optional<double>(a) == std::optional<double>(b);
  }

 private:
  static constexpr std::uint64_t kEmpty = 0x7ff4'c0de'0000'0001u;  // a signalling NaN no arithmetic makes
  std::uint64_t bits_ = kEmpty;
};

// What a comparison keeps of a launch: 160 bytes (no words, evidence or sub-units; numbers as
// OptionalNumber), its names views into a NameTable.
struct ComparedLaunch {
  std::uint64_t sequence = 0;
  std::string_view name;
  std::string_view limiting_unit;
  Dim3 grid, block;
  OptionalNumber duration_ns;
  std::optional<Verdict> verdict;
  bool balanced = false;
  // PM sampling: the entry aggregates this many launches (0: it is one launch).
  std::uint64_t aggregated_launches = 0;
  std::uint64_t exact_launches = 0;  // of them, profiled exactly (per-kernel budgets first)
  struct Utilization {               // fractions of peak, as KernelAnalysis::utilization gives them
    OptionalNumber issue, l2, dram, compute, memory;
  } utilization;
  struct Lmem {
    OptionalNumber l2_share, instruction_share;
  } lmem;
};

// How a record chose the launches it holds, read from its fields (the record keeps the
// profiled program's command line, not limiter's flags).
struct LaunchSelection {
  enum class Kind {
    every,       // every launch seen (or the record does not say how many were seen: an import)
    subset,      // fewer than seen: -c, -s, --sample-every, --capture-range, NVTX, -k, or missed
    per_kernel,  // per-kernel budgets: at most `per_kernel` of each kernel and configuration
    sampled,     // PM sampling: entries aggregate many launches (after `per_kernel` exact ones)
  };
  Kind kind = Kind::every;
  std::uint64_t profiled = 0;         // launches behind the record's entries (aggregates count theirs)
  std::optional<std::uint64_t> seen;  // launches the collector saw, when the record says
  std::uint64_t missed = 0;           // seen but lost (the record's "missed")
  std::uint64_t per_kernel = 0;       // the budget, as the record shows it (its largest group)
  std::size_t aggregates = 0;         // sampled entries
  std::uint64_t sampled = 0;          // launches they aggregate
  std::string description;            // "profiled 3 per kernel and configuration (111 of 10,071 seen)"
};

// A run as a comparison needs it: the analysis's fields and its launches, compact.
struct ComparedRun {
  DeviceDescription device;
  std::string source;
  Thresholds thresholds;
  std::optional<std::uint64_t> launches_seen;
  std::vector<KernelSeen> kernels_seen;
  std::uint64_t missed_launches = 0;
  std::optional<std::string> cache_control;  // the record's: "none", "all" or unknown
  std::vector<std::string> command_line;     // the profiled program's, where the record keeps it
  std::optional<ProgramVerdict> program;     // the program verdict, for a record with a timeline
  std::optional<StallInfo> stalls;           // PC samples per kernel, where the record has them
  // The launches were read from the record's timeline (a --trace record holds no counters).
  bool from_timeline = false;
  std::shared_ptr<NameTable> names = std::make_shared<NameTable>();
  std::vector<ComparedLaunch> launches;  // launch order
  // How the record selected its launches, set when `launches` are only part of it (-k keeps
  // some); empty: launch_selection() of this run.
  std::optional<LaunchSelection> selection;
  void add(const KernelAnalysis& launch);
  // LAUNCH's name, configuration and time alone, unanalysed (no verdict, utilisations or LMEM
  // shares): a grouped comparison reads those of each group's first launch only.
  const ComparedLaunch& add_unanalysed(const KernelLaunch& launch);
};
// The analysis's fields and its launches (add() more one at a time: a run read as a stream).
ComparedRun compared_run(const RunAnalysis& analysis);
// The run record at PATH as a comparison keeps it (add_record_fields included), read as a stream,
// its launches parsed on every core. EVERY_LAUNCH analyses each launch (rows per launch);
// without it only each kernel and configuration's first launch is analysed, the others added
// unanalysed. MANGLED, when given, collects each kernel's mangled name (its first launch's that
// has one).
ComparedRun read_compared_run(const std::string& path, const AnalysisOptions& options, bool every_launch,
                              std::unordered_map<std::string, std::string>* mangled = nullptr);
// RUN's fields that the analysis does not carry (command line, program verdict, PC samples),
// and, when RUN holds no timed launch but a timeline with kernels, one launch per kernel event
// (its time on the timeline; no counters, so no verdict).
void add_record_fields(ComparedRun& run, const RunRecord& record);

// Whether the change between two groups of launches (a kernel and configuration on each side)
// is within what their own spread allows: with at least two timed launches on each side, the
// difference of the means is within kNoiseStandardErrors standard errors of it, sqrt(s_b^2/n_b
// + s_a^2/n_a); with a single launch on one side, that launch's time lies within the other
// side's min..max. A single launch on both sides has no spread: never noise.
inline constexpr double kNoiseStandardErrors = 2.0;
bool change_is_noise(const DurationStats& before, const DurationStats& after);
// That rule in one line, for the reports.
extern const char* const kNoiseRule;

// How RUN's record selected its launches, from its launches and fields.
LaunchSelection launch_selection(const ComparedRun& run);
// Whether the totals of two runs so selected cover the same launches (so compare by order).
bool same_selection(const LaunchSelection& before, const LaunchSelection& after);

struct KernelComparison {
  // 0-based, among launches of the same name and configuration. A group row (the default, and
  // always when the selections differ): 0, and before / after are the group's first launches.
  std::size_t occurrence = 0;
  ComparedLaunch before, after;
  TimeChange time;  // a group row: the kernel and configuration's mean time per launch
  // The kernel and configuration, an index into RunComparison's spreads (its launches' count and
  // min..max on each side: RunComparison::before_launches), kept once per group, not per launch.
  std::uint32_t group = 0;
  // The group's change is within its launches' spread (change_is_noise): it cannot be told
  // apart from launch-to-launch variation. A launch row carries its group's.
  bool within_noise = false;
  bool verdict_changed = false;
  bool slower_than_limit = false;  // the group, counted against --fail-if-slower (never when within_noise)
};

// A kernel and configuration found on one side only: its first launch, and all its launches'
// count and time (a launch row: the launch alone).
struct UnmatchedKernel {
  ComparedLaunch first;
  std::uint64_t launches = 1;
  OptionalNumber total_ns;
};

// The PC samples of a kernel on each side: its share of the run's samples and its main stall
// reason, for records with PC samples (records of samples alone have nothing else to compare).
struct SampledKernelComparison {
  std::string name;
  std::uint64_t before_samples = 0, after_samples = 0;
  std::optional<double> before_share, after_share;                // of the run's samples
  std::string before_reason, after_reason;                        // most samples (stalls.hpp key); "" when none
  std::optional<double> before_reason_share, after_reason_share;  // of the kernel's samples
};

struct ComparisonTotals {
  std::size_t before_launches = 0, after_launches = 0;
  // Per launch (RunComparison::per_launch): both are mean times per launch, each kernel and
  // configuration weighted by the launches seen of it (kernels_seen, or all of a run that holds
  // every launch; BEFORE's where both know), so that both sides average the same mix.
  TimeChange all;      // every timed launch of each run
  TimeChange matched;  // matched launches only (per launch: matched kernels and configurations)
  bool slower_than_limit = false;
};

struct CompareOptions {
  std::string before_label = "before";  // what the reports call each run (a file name)
  std::string after_label = "after";
  // --fail-if-slower PCT as a fraction (0.10): a matched kernel or the total slower by more
  // than this fails the comparison. Empty: nothing fails.
  std::optional<double> max_slowdown;
  // --launches: one row per matched launch (by order among equals) instead of one per kernel
  // and configuration. Records that selected their launches differently keep group rows.
  bool launch_rows = false;
};

struct RunComparison {
  std::string before_label, after_label;
  DeviceDescription before_device, after_device;
  std::string before_source, after_source;
  std::optional<std::string> before_cache_control, after_cache_control;  // each record's, where it says
  // Both records say which caches their counters saw, and they differ (one flushed L2 before each
  // launch, the other did not): what that means, in one line. Empty otherwise.
  std::string cache_warning;
  std::optional<double> max_slowdown;
  Thresholds thresholds;  // BEFORE's; both runs are analysed with the same options
  LaunchSelection before_selection, after_selection;
  // The selections differ: matched holds one entry per kernel and configuration, and times are
  // means per launch. selection_warning says so in one line (empty when they are the same).
  bool per_launch = false;
  std::string selection_warning;
  // Both records hold a program; their kernels share few names (or their commands differ and
  // share fewer): one line that says so. Empty otherwise.
  std::string program_warning;
  // Few launches found a partner (names spelled another way, another configuration): one line
  // with the counts. Empty otherwise.
  std::string match_warning;
  // Kernel names matched though spelled differently (ncu's and CUPTI's spellings).
  std::size_t names_matched_by_key = 0;
  bool launch_rows = false;                  // matched holds launch rows (--launches)
  std::vector<KernelComparison> matched;     // in BEFORE's launch order: group rows, or launch rows
  std::vector<KernelComparison> kernels;     // group rows, always: what the gate counts
  std::vector<UnmatchedKernel> only_before;  // launch order: groups, or launches with launch rows
  std::vector<UnmatchedKernel> only_after;
  std::optional<ProgramVerdict> before_program, after_program;
  std::vector<SampledKernelComparison> samples;  // most samples first; empty unless both have samples
  std::uint64_t before_samples = 0, after_samples = 0;
  ComparisonTotals totals;
  std::vector<std::shared_ptr<const NameTable>> names;  // what the launches' names view
  // Per kernel and configuration (KernelComparison::group): all its launches on each side.
  std::vector<DurationStats> before_spreads, after_spreads;
  const DurationStats& before_launches(const KernelComparison& k) const { return before_spreads[k.group]; }
  const DurationStats& after_launches(const KernelComparison& k) const { return after_spreads[k.group]; }
  // Launches of each group, timed or not (aggregates count theirs).
  std::vector<std::uint64_t> before_counts, after_counts;
  bool failed() const;  // some matched kernel or the total is slower than max_slowdown
  std::size_t slower_kernel_count() const;
  // The group rows slower than the limit, most slower first, at most LIMIT of them.
  std::vector<const KernelComparison*> slowest_kernels(std::size_t limit) const;
};
// How many of the slower kernels a failed gate names; the rest are counted.
inline constexpr std::size_t kGateKernelsNamed = 10;

// Linear in the launches: each is keyed by its kernel and configuration once.
RunComparison compare_runs(ComparedRun before, ComparedRun after, const CompareOptions& options = {});
RunComparison compare_runs(const RunAnalysis& before, const RunAnalysis& after, const CompareOptions& options = {});

}  // namespace limiter
