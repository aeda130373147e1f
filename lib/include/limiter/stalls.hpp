#pragma once
// Why a kernel waits (docs/design.md §7): warp samples from CUPTI's PC Sampling API, per kernel, by
// stall reason, and the hottest PCs with their SASS and, where the module has line info, their
// source line. Plain values: the collector fills them (PcSamplingSession), the analysis names
// a latency-limited kernel's dominant reasons, and everything that reads them builds and is
// tested without a GPU.
//
// JSON ("stalls" in a run record, after "timeline", before "launches"):
//   {"sample_period_cycles": N, "collection": "continuous", "samples": N,
//    "dropped_samples": N, "hardware_buffer_full": N,
//    "kernels": [{"name": ..., "mangled_name": ..., "cubin_crc": N, "samples": N, "no_cubin": "...",
//                 "reasons": {"long_scoreboard": N, ...},
//                 "hot_pcs": [{"pc_offset": N, "samples": N, "reasons": {...},
//                              "sass": "LDG.E R2, [R4.64]", "file": "a.cu", "line": 12}]}]}
// with the field names below; an unset optional is left out.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace limiter {

// Stall reasons are keyed as ncu's Warp State section and its metrics name them, without the
// counter prefix: CUPTI's "smsp__pcsamp_warps_issue_stalled_long_scoreboard" is
// "long_scoreboard"; "selected" is a warp that issued (not a stall). CUPTI's "_not_issued"
// variants count some of the same samples again (those whose scheduler issued nothing) and are
// not added: a sample is counted once, as ncu's smsp__pcsamp_sample_count counts it.
using StallCounts = std::map<std::string, std::uint64_t, std::less<>>;

// The user-facing name of REASON as ncu prints it ("long_scoreboard" -> "Stall Long
// Scoreboard", "selected" -> "Selected"); REASON itself for a name this version does not know.
std::string stall_reason_title(std::string_view reason);

// Every reason CUPTI's PC sampling reports on Volta to Hopper, keyed as above: each has a title.
std::vector<std::string_view> cupti_stall_reasons();

// One sampled PC of a kernel: where the samples fall.
struct HotPc {
  std::uint64_t pc_offset = 0;  // from the function's start, bytes
  std::uint64_t samples = 0;
  StallCounts reasons;
  std::string sass;                 // the instruction, disassembled; empty when the cubin was not kept
  std::optional<std::string> file;  // source file and line (module built with -lineinfo)
  std::optional<std::uint32_t> line;
  friend bool operator==(const HotPc&, const HotPc&) = default;
};

// One kernel (function), its samples summed over every launch sampled.
struct KernelStalls {
  std::string name;  // demangled, as KernelLaunch::name: joins the launches
  std::string mangled_name;
  std::uint64_t cubin_crc = 0;  // which module (two modules can hold functions of one name)
  std::uint64_t samples = 0;    // all samples of the kernel, "selected" included
  StallCounts reasons;          // per reason; sums to `samples`
  std::vector<HotPc> hot_pcs;   // the PCs with the most samples, most first (at most 20)
  // Why its module's cubin is not in the record, so its hot PCs have no SASS or source line
  // (kNoCubinLoadedBefore, kNoCubinNotKept, kNoCubinUnread); empty: the collector kept it.
  std::string no_cubin;
  friend bool operator==(const KernelStalls&, const KernelStalls&) = default;
};

inline constexpr const char* kNoCubinLoadedBefore = "module loaded before profiling began";
inline constexpr const char* kNoCubinNotKept = "module over the 512 MiB of cubins the collector keeps";
inline constexpr const char* kNoCubinUnread =
    "module loaded before profiling began, or one whose cubin the collector could not read";

// A run's PC sampling: how it was taken, what was lost, per kernel.
struct StallInfo {
  std::uint64_t sample_period_cycles = 0;  // one sample per SM every this many cycles (2^N)
  std::string collection = "continuous";   // CUPTI's collection mode
  std::uint64_t samples = 0;               // samples collected
  std::uint64_t dropped_samples = 0;       // lost to full buffers: reported, never silent
  std::uint64_t hardware_buffer_full = 0;  // times the hardware buffer filled
  std::vector<KernelStalls> kernels;       // by samples, most first
  friend bool operator==(const StallInfo&, const StallInfo&) = default;
};

// The stalls of the kernel NAME in INFO; null when it has none.
const KernelStalls* find_kernel_stalls(const StallInfo& info, std::string_view name);

}  // namespace limiter
