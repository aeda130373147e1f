#pragma once
// The analysis: from a run record to one verdict per kernel launch — bandwidth-,
// instruction- or latency-limited — with its evidence, the local-memory (LMEM) shares and
// the seeds' advice. Formulas and thresholds: docs/design.md §7 §3, §4, §6.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "limiter/device_spec.hpp"
#include "limiter/occupancy.hpp"
#include "limiter/record.hpp"
#include "limiter/stall_analysis.hpp"

namespace limiter {

enum class Verdict { bandwidth, instruction, latency };
std::string to_string(Verdict verdict);

enum class LatencyCause { small_grid, low_occupancy, tail_effect };
std::string to_string(LatencyCause cause);

// Defaults are Nsight Compute's SOLBottleneck thresholds (80 / 60 / 10) and waves < 1.
struct Thresholds {
  double high_utilization = 0.80;  // at or above: throughput-limited by the busiest unit
  double latency = 0.60;           // below on both sides: latency-limited
  double balance_gap = 0.10;       // in between: the side that leads by this much wins
  double small_grid_waves = 1.0;   // fewer waves than this: "small grid"
  double low_occupancy = 0.50;     // theoretical occupancy below this: "low occupancy"
  double tail_idle = 0.10;         // share of SM time idle in the last wave: "tail effect"
  double lmem_significant = 0.10;  // LMEM share worth fixing (ncu LocalMemoryUsage: 10 %)
  double lmem_negligible = 0.05;   // LMEM instruction share not worth fixing (seed 001)
  // PM-sampling mode: a kernel's aggregate gets a verdict only with this much support.
  std::uint64_t min_samples = 20;  // samples that overlap its launches
  double min_purity = 0.5;         // its share of the busy time in those samples
  double max_overlap = 0.5;        // share of its time another kernel ran concurrently
  double min_separability = 0.3;   // or, when less pure: how well the least-squares fit separates it
  // With the fit's standard errors: the verdict must hold with every fitted counter moved by two
  // of them plus this share of its value, the systematic part (on an H100 PyTorch loop the
  // sampled SM-side percentages of pure GEMMs read 8-9 % above the exact mode's).
  double sampling_systematic_error = 0.10;
};

struct AnalysisOptions {
  Thresholds thresholds;
  PeakKind peaks = PeakKind::theoretical;
  // Word the verdict: reason, evidence, advice, coverage note and sub-unit sources. Off, only
  // the numbers and the verdict are computed (a fifth of the time): a summary of millions of
  // launches explains each group's longest launch again, with it on (SummaryBuilder).
  bool explain = true;
  StallThresholds stalls;  // which stall reasons are dominant (stall_analysis.hpp)
};

// One number the verdict used, with how it was obtained.
struct Evidence {
  std::string quantity;  // "utilization.dram"
  double value = 0.0;
  std::string detail;  // "1.05 GB in 264.5 us = 3.98 TB/s of 4.81 TB/s (theoretical: ...)"
};

// One sub-unit's busy share (0..1), as ncu's Speed-of-Light breakdown defines it, or derived
// from raw counters where the record lacks ncu's own figure.
struct SubUnitUse {
  std::string label;  // "tensor pipe", "L2 atomics and reductions", "DRAM"
  bool compute_side = false;
  std::string group;  // issue, pipe, l1, l2, dram
  double value = 0.0;
  std::string source;  // the metric, or how it was derived
  bool direct = true;  // false: derived from raw counters and peaks
};

// Utilisations as fractions of peak (0..1); empty where the counters do not allow a value.
struct Utilization {
  std::optional<double> issue;             // warp instructions issued / scheduler slots
  std::optional<double> l2;                // busiest L2 sub-unit (tag lookups, L2<->crossbar paths)
  std::optional<double> dram;              // DRAM bytes / (time x peak)
  std::optional<double> l1;                // L1TEX data pipe, when the record has it
  std::map<std::string, double> pipes;     // per SM pipe, against elapsed cycles
  std::string l2_source;                   // which L2 sub-unit gave the value
  std::vector<SubUnitUse> units;           // every sub-unit the record allows, busiest first
  std::vector<std::string> missing_units;  // SOL sub-units the record lacks (labels)
  std::optional<double> compute() const;   // max over the SM side: issue, pipes
  std::optional<double> memory() const;    // max over the memory side: L1, L2, DRAM
  const SubUnitUse* busiest(bool compute_side) const;
};

struct LmemAnalysis {
  // L1<->L2 sectors due to local memory / all L1-sourced L2 sectors. Volta and later: L1
  // writes through, so ld misses + all st sectors (docs/design.md §7). Legacy (Fermi/Kepler,
  // write-back L1): the same formula is an upper bound, and l2_share_lower_bound holds the
  // load misses alone.
  std::optional<double> l2_share;
  std::optional<double> l2_share_lower_bound;
  bool l2_share_is_upper_bound = false;
  std::optional<double> l2_share_seed;      // the seed's estimate: 2 x load misses / all L2 queries
  std::optional<double> l2_read_share;      // local load misses / L2 reads from L1
  std::optional<double> l2_write_share;     // local store sectors / L2 writes from L1
  std::optional<double> instruction_share;  // local ld+st instructions / issued
  std::optional<double> l1_load_hit_rate;
  std::optional<double> l1_store_hit_rate;
  std::optional<double> l2_sectors;   // LMEM sectors reaching L2 (32-byte units)
  bool significant = false;           // a share relevant to the verdict >= lmem_significant
  bool dominant = false;              // LMEM alone would keep the busiest memory unit >= latency
  std::vector<std::string> warnings;  // e.g. a read or write side above 1
};

struct OccupancyFigures {
  std::optional<OccupancyResult> theoretical;
  std::optional<WaveResult> waves;
  std::optional<double> achieved;  // sm__warps_active / peak, when recorded
};

struct KernelAnalysis {
  std::uint64_t sequence = 0;
  std::string name;
  Dim3 grid, block;
  std::optional<int> registers_per_thread;
  std::optional<double> duration_ns;
  std::vector<std::string> nvtx;  // the launch's NVTX ranges (KernelLaunch::nvtx)
  Utilization utilization;
  LmemAnalysis lmem;
  OccupancyFigures occupancy;
  std::optional<Verdict> verdict;  // empty when the counters allow no utilisation at all
  bool balanced = false;           // 60..80 % with both sides within balance_gap
  std::string limiting_unit;       // the busiest sub-unit in words: "tensor pipe", "L2 atomics and reductions"
  std::string limiting_group;      // its kind: "dram", "l2", "l1", "issue", "pipe"
  std::vector<LatencyCause> latency_causes;
  std::string verdict_reason;
  std::string coverage_note;             // SOL sub-units the record lacks, and whether they could matter
  std::optional<SampleSupport> sampled;  // PM-sampling mode: the samples behind this aggregate
  bool too_few_samples = false;          // sampled, and the support is below the thresholds: no verdict
  std::vector<Evidence> evidence;
  std::vector<std::string> advice;
  // Why it waits, when the record has PC samples of the kernel (by name; shared by its launches).
  // Its dominant reasons' advice is in `advice`: first for a latency-limited kernel, else last.
  std::shared_ptr<const KernelStallAnalysis> stalls;
  // Nsight Compute's own SOL percentages and the verdict its SOLBottleneck rule implies,
  // when the record came from ncu: a cross-check, never an input to our verdict.
  std::optional<double> ncu_sm_throughput;
  std::optional<double> ncu_memory_throughput;
  std::optional<Verdict> ncu_verdict;
};

struct RunAnalysis {
  DeviceDescription device;
  std::string source;
  CounterModel counter_model = CounterModel::perfworks;
  PeakKind peaks = PeakKind::theoretical;
  std::string peaks_origin;
  Thresholds thresholds;
  std::vector<MissedLaunches> missed;           // from the record: launches seen but not profiled
  std::string ended;                            // from the record: how the profiled process ended
  std::optional<std::string> cache_control;     // from the record: "none", "all" or unknown (RunRecord's)
  std::optional<std::uint64_t> launches_seen;   // from the record: launches seen, profiled or not
  std::vector<KernelSeen> kernels_seen;         // from the record: per kernel and configuration (budgets)
  std::string host;                             // from the record: where the process ran
  std::optional<RankInfo> rank;                 // from the record: its rank in a job
  std::optional<StallSampling> stall_sampling;  // from the record: how its PC samples were taken
  std::vector<PhaseWindow> phases;      // from the record: the default run's phases, where each answer came from
  std::vector<KernelAnalysis> kernels;  // launch order
};

RunAnalysis analyze_run(const RunRecord& run, const AnalysisOptions& options = {});

// The launches of RUN analysed one at a time, each exactly as analyze_run analyses it: what is
// decided once for the run (its peaks, its PC samples, whether its PM samples saw the SM side)
// is decided here once. For a reader that needs only some launches analysed (a grouped
// comparison reads each group's first). RUN must outlive it.
class LaunchAnalyzer {
 public:
  LaunchAnalyzer(const RunRecord& run, const AnalysisOptions& options);
  KernelAnalysis analyze(const KernelLaunch& launch) const;
  const PeakSet& peaks() const { return peaks_; }

 private:
  const RunRecord& run_;
  AnalysisOptions options_;
  std::string sm_side_problem_;  // empty: PM samples, if any, saw the SMs' work
  PeakSet peaks_;
  StallIndex stalls_;
};

// Nsight Compute's SOLBottleneck decision (SpeedOfLight.py) on its two SOL percentages
// (0..100) and waves per SM; exposed so tests can compare it with ours.
Verdict ncu_sol_verdict(double sm_throughput_pct, double memory_throughput_pct, double waves_per_sm);

}  // namespace limiter
