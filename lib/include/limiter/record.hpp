#pragma once
// The run record: what a collector or an importer produced for one process. Plain structs;
// JSON (de)serialisation lives in record_json.hpp. Counters are kept by their own names
// (PerfWorks names on Volta and later, legacy event names on Fermi/Kepler) in base units:
// bytes, sectors, instructions, cycles, nanoseconds.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "limiter/dim3.hpp"
#include "limiter/stalls.hpp"
#include "limiter/timeline.hpp"

namespace limiter {

// 1: exact mode (one range per launch). 2: adds "sampling" (PM-sampling mode: each entry of
// "launches" is one kernel's aggregate over its launches); written only by sampled records,
// so exact-mode records stay version 1 and older readers refuse sampled ones.
inline constexpr int kRunSchemaVersion = 2;
inline constexpr int kExactRunSchemaVersion = 1;

// Which family of counter names a record carries.
enum class CounterModel {
  perfworks,  // Volta..Hopper: GPU-wide sums, 32-byte sectors (lts__*, l1tex__*, smsp__*)
  legacy,     // Fermi/Kepler events: l1_local_* per SM in 128-byte transactions, inst_issued
};

// The GPU the run was recorded on. Fields a source cannot provide stay empty.
struct DeviceDescription {
  std::string name;  // "NVIDIA H200"
  std::string arch;  // "sm_90"
  std::string chip;  // "GH100"
  int sm_count = 0;
  std::optional<double> sm_clock_hz;  // clock the counters were taken at, if known
  std::optional<double> memory_clock_hz;
  std::optional<int> memory_bus_width_bits;
  std::optional<std::uint64_t> l2_bytes;
  std::optional<std::uint64_t> global_memory_bytes;
  std::string uuid;  // "GPU-5a3c9f0e-...", as nvidia-smi -L spells it; tells ranks' GPUs apart
  friend bool operator==(const DeviceDescription&, const DeviceDescription&) = default;
};

// How a sampled entry's counters were obtained (PM-sampling mode): GPU-wide samples attributed
// to the kernel by time over all its launches.
// The prefix of a standard error's key in a sampled launch's "sampled" object ("se:METRIC").
inline constexpr const char* kStandardErrorPrefix = "se:";
// The prefix of an exactly profiled counter's key there ("exact:METRIC"), with "exact_launches".
inline constexpr const char* kExactCounterPrefix = "exact:";

struct SampleSupport {
  std::uint64_t launches = 0;  // launches of this kernel and configuration aggregated
  double kernel_time_ns = 0;   // their summed duration (Activity API)
  std::uint64_t samples = 0;   // samples that overlap at least one of them
  double purity = 0;           // share of the busy time in those samples that was this kernel's (0..1)
  double overlap_share = 0;    // share of its time another kernel ran concurrently (0..1)
  // Set where its activity counters come from the least-squares fit across samples: the share of
  // its sample signal no other kernel's can explain (0..1; sampling.hpp).
  std::optional<double> separability;
  // Per fitted counter, its standard error in the counter's own unit (JSON: "se:METRIC" keys of
  // "sampled"): the analysis gives a verdict only where it holds across two of them.
  std::map<std::string, double> standard_errors;
  // `--sampling --per-kernel-count K`: the kernel's first K launches (after the per-kernel skip)
  // were profiled exactly before sampling began; their counters' mean per launch, for the
  // verdict where the samples cannot decide, and for the LMEM shares sampling cannot measure.
  std::uint64_t exact_launches = 0;
  std::map<std::string, double> exact_counters;
  friend bool operator==(const SampleSupport&, const SampleSupport&) = default;
};

// A sampled run: how the samples were taken.
struct SamplingInfo {
  std::string mode = "pm-sampling";
  std::uint64_t interval_ns = 0;
  std::uint64_t samples = 0;                    // samples decoded
  std::uint64_t samples_lost = 0;               // hardware-buffer overflows: samples that never arrived (estimate)
  std::string attribution = "busy-time share";  // how a sample's counters are split among kernels
  std::vector<std::string> metrics;             // what each sample holds
  // False when kernels ran but no sample counted an instruction: the SM-side counters did not
  // count (on an H100, after the range profiler ran in the process), so no sampled verdict.
  bool sm_side_counted = true;
  // The exact launches joined to the aggregates were profiled after the sampling phase
  // (--exact-undecided), not before sampling began (--per-kernel-count).
  bool exact_after_sampling = false;
  friend bool operator==(const SamplingInfo&, const SamplingInfo&) = default;
};

// One kernel launch, in launch order, with its configuration, resources and counters.
struct KernelLaunch {
  std::uint64_t sequence = 0;  // 0-based launch order within the run
  std::string name;            // demangled, as a user reads it
  std::string mangled_name;
  Dim3 grid;  // 0 x 0 x 0 when the source does not give the launch configuration
  Dim3 block;
  std::optional<int> registers_per_thread;
  std::optional<std::uint64_t> static_shared_bytes;
  std::optional<std::uint64_t> dynamic_shared_bytes;
  std::optional<std::uint64_t> local_bytes_per_thread;
  std::optional<std::uint64_t> stream_id;
  std::optional<std::uint64_t> context_id;
  std::optional<int> device;
  // A kernel run by a CUDA graph launch: the graph (CUPTI's graph ID of the executable graph)
  // and, when it was profiled on its own, the node's index in the graph's topological order.
  // A graph launch profiled as one range (nodes that cannot run one at a time) has no node.
  std::optional<std::uint64_t> graph_id;
  std::optional<std::uint64_t> graph_node;
  // A launch profiled in a user range (graph nodes, and launches after them): the range's own duration on the GPU,
  // which spans the host's work between PushRange and PopRange as well as the kernel. With the
  // kernel's own duration (kernel_active_ns: the range's time the compute engine was active),
  // the counters that scale with elapsed time (gpu__time_duration, *cycles_elapsed, *_elapsed
  // percentages, rates) were rescaled to the kernel (user_range_time.hpp); without it they are
  // the range's.
  std::optional<double> user_range_ns;
  std::optional<double> kernel_active_ns;
  // The NVTX ranges around the launch, each as `--nvtx-include` writes it: a push/pop stack of
  // the launching thread "outer/inner/" (per domain, "domain@outer/inner/"), an open start/end
  // range "name" ("domain@name"). Empty: no range, or NVTX not recorded (records before it).
  std::vector<std::string> nvtx;
  // metric name -> value in base units; looked up by string_view (std::less<>): the analysis
  // asks for dozens of counters per launch, without building a string for each.
  std::map<std::string, double, std::less<>> counters;
  std::optional<SampleSupport> sampled;  // PM-sampling mode: an aggregate over launches, not one launch
  // When the kernel ran (the timeline's clock, ns) and where its duration comes from:
  // "activity" (its kernel activity record) or "range" (the counters of its range).
  std::optional<std::uint64_t> start_ns, end_ns;
  std::optional<std::string> duration_source;

  std::optional<double> counter(std::string_view metric) const {
    auto it = counters.find(metric);
    if (it == counters.end()) return std::nullopt;
    return it->second;
  }
  std::uint64_t total_shared_bytes() const {
    return static_shared_bytes.value_or(0) + dynamic_shared_bytes.value_or(0);
  }
  friend bool operator==(const KernelLaunch&, const KernelLaunch&) = default;
};

// Launches the collector saw but could not give counters, by reason: nothing is lost silently.
struct MissedLaunches {
  std::string reason;          // what happened, in a user's words
  std::uint64_t launches = 0;  // how many launches it cost
  std::string fix;             // what the user can do about it
  friend bool operator==(const MissedLaunches&, const MissedLaunches&) = default;
};

// Where a process stood in a distributed job (torchrun, mpirun, srun), from its launcher's
// environment (rank_detection.hpp). The rank names the record, and a merged report lines
// the ranks' records up by it.
struct RankInfo {
  int rank = 0;
  int world_size = 1;
  std::optional<int> local_rank;  // among the ranks of its host
  std::string launcher;           // which environment said so: "torchrun", "open-mpi", "pmi", "slurm"
  friend bool operator==(const RankInfo&, const RankInfo&) = default;
};

// How many launches of one kernel and launch configuration the collector saw, profiled or not:
// under per-kernel budgets the record holds only K of them, and this is how many there were.
struct KernelSeen {
  std::string name;  // demangled, as KernelLaunch::name
  Dim3 grid, block;
  std::uint64_t launches = 0;
  friend bool operator==(const KernelSeen&, const KernelSeen&) = default;
};

// One phase of a run of several (`limiter run`'s default: counters for each kernel's first
// launches, then PC samples for a bounded window, then the timeline to the end): what it
// collected and when, so that every report knows where each answer came from. Times are CUPTI
// timestamps, the timeline's clock; 0 where no clock was read (the phase never began).
struct PhaseWindow {
  std::string name;  // "counters", "samples", "timeline"
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint64_t launches = 0;  // the launches seen while it was the current phase
  std::string ended_by;        // "budgets spent", "window over", "the app ended", "never began"
  std::uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  friend bool operator==(const PhaseWindow&, const PhaseWindow&) = default;
};

struct RunRecord {
  int schema_version = kExactRunSchemaVersion;  // kRunSchemaVersion when `sampling` is set
  std::string tool_version;                     // limiter version that wrote it
  std::string source;                           // "cupti", "ncu-csv", "plain-csv"
  std::string created_at;                       // ISO 8601 UTC
  std::vector<std::string> command_line;        // the profiled (or importing) command
  std::string host;                             // host name of the profiled process; empty: unknown
  std::optional<RankInfo> rank;                 // set when the process was one rank of a job
  CounterModel counter_model = CounterModel::perfworks;
  DeviceDescription device;
  std::vector<MissedLaunches> missed;          // launches seen but not profiled (empty: none)
  std::optional<std::uint64_t> launches_seen;  // all launches the collector saw, selected or not
  std::vector<KernelSeen> kernels_seen;        // per kernel and configuration, with per-kernel budgets
  std::string ended;                           // how the profiled process ended: "exit", "signal SIGTERM",
                                               // "killed" (recovered from its partial file); empty: unknown
  // The cache condition the exact counters were measured under (`limiter run --cache-control`):
  // "none", the app's own cache state; "all", L2 flushed and invalidated before each profiled
  // launch (Nsight Compute's default). Unset in records with no exact counters (--trace, --stalls,
  // --sampling alone), in imports and in records before it.
  std::optional<std::string> cache_control;
  std::optional<SamplingInfo> sampling;  // set: a PM-sampling run (launches are per-kernel aggregates)
  // The activity timeline of the profiled window (timeline.hpp): the program verdict and the
  // Perfetto export read it. Unset in records before it and in imported ones.
  std::optional<Timeline> timeline;
  // PC sampling's stall reasons and hot PCs per kernel (stalls.hpp, `limiter run --stalls`): why
  // a latency-limited kernel waits. Unset in records without it.
  std::optional<StallInfo> stalls;
  // The phases of a run of several, in order ("phases"; empty for a single-phase mode).
  std::vector<PhaseWindow> phases;
  std::vector<KernelLaunch> launches;
  friend bool operator==(const RunRecord&, const RunRecord&) = default;
  std::uint64_t missed_launches() const {
    std::uint64_t total = 0;
    for (const auto& m : missed) total += m.launches;
    return total;
  }
};

std::string to_string(CounterModel model);
CounterModel counter_model_from_string(const std::string& text);  // throws InputError

// The version string of this build ("0.1.0").
std::string tool_version();

// RunRecord::ended for a process ended by SIGNAL: "signal SIGTERM".
std::string ended_by_signal(int signal);

// Now, as RunRecord::created_at spells it: "2026-11-22T01:00:00Z".
std::string utc_timestamp();

}  // namespace limiter
