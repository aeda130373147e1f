#pragma once
// The records of a job's ranks (torchrun, mpirun, srun: one record per rank) summarised
// together. Each record is streamed and summarised on its own (run_summary.hpp: flat memory
// however many launches), then the ranks' groups of the same kernel and launch configuration
// are lined up: the time each rank spent in the kernel, the spread between the fastest and
// the slowest rank, which rank is slowest and what the ranks' verdicts say. The ranks' own
// summaries stay available for per-rank views.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "limiter/analysis.hpp"
#include "limiter/rollup.hpp"
#include "limiter/run_summary.hpp"

namespace limiter {

// One rank's record and its summary.
struct RankRun {
  std::string path;   // the record
  std::string label;  // "0"; the file name where the records are not one job's ranks
  std::optional<RankInfo> rank;
  std::string host;
  RunSummary summary;        // this rank alone; no launch kept
  std::size_t launches = 0;  // its selected launches: on its timeline where it has one, else profiled
  double kernel_ns = 0;      // their time (-k), summed over its groups (rank_group_ns)
  double collective_ns = 0;  // of which in NCCL's kernels (is_collective_kernel)
};

// NCCL's kernels (ncclDevKernel_*, ncclKernel_*): a collective runs until the last rank has
// arrived, so its time on a rank is mostly waiting for the others.
bool is_collective_kernel(const std::string& name);

// A group's time and launches as the ranks are compared by them: on the record's timeline where
// it has one (every launch at the app's own pace), else its profiled launches'.
std::optional<double> rank_group_ns(const KernelSummary& group);
std::size_t rank_group_launches(const KernelSummary& group);

// One kernel and launch configuration over the ranks.
struct RankKernel {
  std::string name;  // demangled, in full
  std::string mangled_name;
  std::string display_name;  // as reports show it (--names), the same for every rank
  Dim3 grid, block;
  // Per rank (index into RankSummary::ranks): its group in that rank's summary, if it ran it.
  std::vector<std::optional<std::size_t>> groups;
  std::size_t ranks_with_kernel = 0;
  std::size_t launches = 0;  // over all ranks
  std::size_t min_rank_launches = 0, max_rank_launches = 0;
  double total_ns = 0;               // over all ranks
  std::optional<double> time_share;  // of all ranks' kernel time
  // The time each rank spent in the kernel, over the ranks that ran it (timed ones).
  std::optional<double> min_rank_ns, max_rank_ns, mean_rank_ns;
  // How much longer the slowest rank took than the fastest: max / min - 1 (0.25 = 25 %);
  // empty unless two ranks or more timed it.
  std::optional<double> spread;
  std::size_t slowest = 0, fastest = 0;    // indices into RankSummary::ranks
  VerdictCounts rank_verdicts;             // each rank's main verdict for the kernel
  std::optional<Verdict> slowest_verdict;  // the slowest rank's main verdict
  std::string limiting_unit;               // and its limiting unit
  bool verdicts_differ() const { return rank_verdicts.of(slowest_verdict) != ranks_with_kernel; }
};

// One set of enclosing NVTX ranges over the ranks (each rank's RunSummary::nvtx_ranges lined up
// by their label): the time each rank spent in, say, train_step/backward/, and the slowest rank.
struct RankRange {
  std::string ranges;  // NvtxRangeSummary::ranges, e.g. "train_step/forward/"
  // Per rank (index into RankSummary::ranks): its entry in that rank's nvtx_ranges, if any.
  std::vector<std::optional<std::size_t>> entries;
  std::size_t ranks_with_range = 0;
  std::size_t launches = 0;          // over all ranks
  double total_ns = 0;               // over all ranks
  std::optional<double> time_share;  // of all ranks' kernel time
  std::optional<double> min_rank_ns, max_rank_ns;
  std::optional<double> spread;            // max / min - 1, with two timed ranks or more
  std::size_t slowest = 0;                 // index into RankSummary::ranks
  std::optional<Verdict> slowest_verdict;  // the main verdict of the slowest rank's launches there
};

// A kernel's PC samples over the ranks: each reason's samples summed, then shared out again.
struct RankStalledKernel {
  std::string name;          // demangled
  std::string display_name;  // as the kernels above show it
  std::size_t ranks = 0;     // with samples of it
  // Its hot lines too: a PC's samples summed over the ranks, the most kept as for one record.
  std::shared_ptr<const KernelStallAnalysis> stalls;
};

struct RankSummary {
  // The records' rank fields say they are the ranks of one job: every one names a rank, all the
  // same launcher and world size, no rank twice. Else they are records side by side
  // (RankRun::label their file names) and the notes say why.
  bool one_job = false;
  std::vector<RankRun> ranks;                      // by rank; records that are not one job's by path
  std::vector<RankKernel> kernels;                 // most time over all ranks first
  std::vector<RankRange> ranges;                   // by NVTX ranges, most time first; empty when no rank recorded any
  std::vector<RankStalledKernel> stalled_kernels;  // most samples first; empty without PC samples
  double total_ns = 0;                             // kernel time over all ranks (selected launches)
  std::size_t slowest_rank = 0;                    // index of the rank with the most kernel time
  // Where the ranks ran NCCL's kernels: the rank with the most kernel time outside them. The
  // others wait for it inside the collectives, so it is the straggler even when the waiting
  // makes another rank's total larger.
  std::optional<std::size_t> straggler;
  std::string kernel_regex;
  NameStyle names = NameStyle::short_form;
  // What a reader must know about the set: ranks without a record, world sizes that differ,
  // GPUs of different models, ranks sharing one GPU, launches not profiled.
  std::vector<std::string> notes;
  std::optional<double> share_of_all(const std::optional<double>& duration_ns) const;
  // "rank 3" of one job, else the record's file name.
  std::string member(const RankRun& rank) const { return one_job ? "rank " + rank.label : rank.label; }
};

// Summarises each record at PATHS (run records, .json or .json.gz; several at once, each on a
// share of the cores) and lines the ranks up.
RankSummary summarize_ranks(const std::vector<std::string>& paths, const AnalysisOptions& analysis_options,
                            const SummaryOptions& options = {});

// Lines up ranks already summarised (RANKS in any order; sorted here); STALLS says how many hot
// lines the merged kernels keep.
RankSummary merge_ranks(std::vector<RankRun> ranks, const SummaryOptions& options = {},
                        const StallThresholds& stalls = {});

}  // namespace limiter
