#pragma once
// What the kernel suite measured, how it is stored in the run record, and the per-family
// result tables (time, GB/s, speed-ups, correctness, verdicts) printed after the limiter
// report. Host-only: a recorded run gives the same tables on a machine without a GPU.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "limiter/analysis.hpp"
#include "limiter/record.hpp"

namespace limiter::kernels {

// Counters the suite adds to every launch of its run record, beside the collector's.
// The median of the timed runs, taken with CUDA events and no profiler attached:
inline constexpr const char* kTimeUnprofiledCounter = "limiter__time_unprofiled_ns";
inline constexpr const char* kTimedRunsCounter = "limiter__timed_runs";
inline constexpr const char* kUsefulBytesCounter = "limiter__useful_bytes";        // bytes the GB/s figure counts
inline constexpr const char* kUsefulFlopsCounter = "limiter__useful_flops";        // FLOPs the FLOP/s figure counts
inline constexpr const char* kDependentStepsCounter = "limiter__dependent_steps";  // chained loads per thread
inline constexpr const char* kResultCorrectCounter = "limiter__result_correct";    // 1: matches the host reference

// RunRecord::source of a run without counters: the launches carry only the CUDA-event time, also
// as gpu__time_duration.sum, so the report can show times.
inline constexpr const char* kTimingOnlySource = "cuda-events";

struct Measurement {
  std::string name;               // the catalog entry
  std::optional<double> time_ns;  // median unprofiled time
  int timed_runs = 0;
  double useful_bytes = 0;  // what the algorithm must move (the seeds' GB/s)
  double useful_flops = 0;
  double dependent_steps = 0;   // pointer chases: dependent loads per thread
  std::optional<bool> correct;  // empty when it did not run
  std::string check_detail;     // what was compared, or what differed
  std::string skipped_reason;   // not empty: not run, and why
  bool is_kernel = true;        // false for copy-engine transfers (no launch in the record)
  Dim3 grid, block;
  std::optional<int> registers_per_thread;
  std::optional<std::uint64_t> local_bytes_per_thread;
  std::optional<std::uint64_t> shared_bytes_per_block;  // static + dynamic
  std::optional<int> blocks_per_sm;                     // resident blocks per SM, as the runtime computes them

  std::optional<double> bytes_per_second() const;
  std::optional<double> flops_per_second() const;
  std::optional<double> ns_per_dependent_step() const;
};

// Adds the limiter__ counters of a measurement to its launch.
void annotate_launch(const Measurement& measurement, KernelLaunch& launch);

// The measurements of a recorded run: one per launch whose name is a catalog entry. Without
// limiter__time_unprofiled_ns (a run recorded under Nsight Compute) the time is gpu__time_duration.sum.
std::vector<Measurement> measurements_from_run(const RunRecord& run);

// One point of the occupancy family's tuning sweep (seed 000's NT x VT search, seed 002's
// self-tuning): timing only, no profiler.
struct SweepPoint {
  int threads = 0;  // NT
  int grain = 0;    // VT
  std::optional<double> time_ns;
  double useful_bytes = 0;
  bool correct = false;
  int registers_per_thread = 0;
  int blocks_per_sm = 0;
  std::optional<double> bytes_per_second() const;
};
// The fastest correct point, if any.
std::optional<SweepPoint> best_sweep_point(const std::vector<SweepPoint>& sweep);

// A ladder of steps, each timed against the previous and the first (seed 002's table).
struct LadderRow {
  std::string name;
  std::optional<double> time_ns;
  std::optional<double> step_speedup;        // previous time / this time
  std::optional<double> cumulative_speedup;  // first time / this time
};
std::vector<LadderRow> speedup_ladder(const std::vector<const Measurement*>& steps);

struct TableContext {
  DeviceDescription device;               // SM count and architecture for waves and occupancy
  const RunAnalysis* analysis = nullptr;  // verdicts and LMEM shares, when the run was analysed
  const std::vector<SweepPoint>* sweep = nullptr;
};

// One table per family that has measurements, in the suite's order, each with the seed's
// figures beside ours.
void write_family_tables(const std::vector<Measurement>& measurements, const TableContext& context, std::ostream& out);

}  // namespace limiter::kernels
