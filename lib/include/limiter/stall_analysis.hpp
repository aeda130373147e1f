#pragma once
// Why a kernel waits (docs/design.md §7): a kernel's PC samples (stalls.hpp) turned into shares per
// stall reason, its dominant reasons, and its hottest lines. The advice keyed to the dominant
// reasons is the analysis's (KernelAnalysis::advice); the shares are here so that every report
// shows them alike.
//
// Shares: a reason's `share` is of all the kernel's samples; its `stall_share` is of the
// samples whose warp did not issue (all but "selected"), the denominator ncu's Warp State
// section uses for "this stall type represents X % of the time between two instructions".
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "limiter/stalls.hpp"

namespace limiter {

// The reason of a warp that issued: in the samples, but not a stall.
inline constexpr const char* kIssuedReason = "selected";

struct StallThresholds {
  double dominant_share = 0.20;    // of the stalled samples: a reason worth naming and advising on
  std::size_t dominant_limit = 2;  // at most this many dominant reasons
  std::size_t hot_lines = 5;       // the hottest PCs kept for the reports
};

struct StallShare {
  std::string reason;  // key, as stalls.hpp: "long_scoreboard"
  std::string title;   // as ncu prints it: "Stall Long Scoreboard"
  std::uint64_t samples = 0;
  double share = 0;        // of all the kernel's samples (0..1)
  double stall_share = 0;  // of its stalled samples (0..1); 0 for "selected"
};

// One of the kernel's hottest PCs.
struct HotLine {
  std::uint64_t pc_offset = 0;
  std::uint64_t samples = 0;
  double share = 0;     // of all the kernel's samples
  std::string reason;   // the reason with most of its samples (key); empty when none
  StallCounts reasons;  // all of its samples by reason: what merging ranks' lines sums
  std::string sass;
  std::optional<std::string> file;
  std::optional<std::uint32_t> line;
  // "stencil.cu:42", or "+0x1a0" (the PC offset) without line info.
  std::string where() const;
};

struct KernelStallAnalysis {
  std::string name;                   // demangled, as KernelLaunch::name
  std::uint64_t samples = 0;          // all, "selected" included (the reasons' sum)
  std::uint64_t stalled_samples = 0;  // all but "selected"
  std::vector<StallShare> reasons;    // every reason with samples, most first
  std::vector<StallShare> dominant;   // stall reasons >= dominant_share of the stalled samples, most first
  std::vector<HotLine> hot_lines;     // most samples first, at most StallThresholds::hot_lines
  double issued_share() const {
    return samples ? static_cast<double>(samples - stalled_samples) / static_cast<double>(samples) : 0.0;
  }
};

// How the run's samples were taken, as every report states it.
struct StallSampling {
  std::uint64_t sample_period_cycles = 0;
  std::string collection;
  std::uint64_t samples = 0;
  std::uint64_t dropped_samples = 0;
  std::uint64_t hardware_buffer_full = 0;
  std::size_t kernels = 0;  // kernels with samples
  // Kernels whose hot PCs have no SASS or source line, by why (KernelStalls::no_cubin).
  std::map<std::string, std::size_t> kernels_without_cubin;
};

// KERNELS' samples analysed together: every entry of one name (two modules can hold functions of
// one name, and KernelLaunch joins by name) summed, its hot PCs merged.
KernelStallAnalysis analyze_kernel_stalls(const std::vector<const KernelStalls*>& kernels,
                                          const StallThresholds& thresholds = {});
KernelStallAnalysis analyze_kernel_stalls(const KernelStalls& kernel, const StallThresholds& thresholds = {});

// KERNELS' samples as one kernel's (one kernel in each of a job's ranks): the reasons summed, and
// the hot PCs of one offset, instruction and line summed into one.
KernelStalls sum_kernel_stalls(const std::vector<const KernelStalls*>& kernels);

StallSampling stall_sampling_of(const StallInfo& info);

// A record's stalls found by kernel name, each kernel analysed when first asked for and then
// shared by all its launches: a batch of launches analyses only the kernels it has. INFO must
// outlive the index; one thread at a time.
class StallIndex {
 public:
  StallIndex() = default;
  StallIndex(const StallInfo& info, const StallThresholds& thresholds) : info_(&info), thresholds_(thresholds) {}
  // The analysis of the kernel NAME; null when it has no samples.
  std::shared_ptr<const KernelStallAnalysis> of(const std::string& name) const;
  // Every kernel's with samples, most samples first.
  std::vector<std::shared_ptr<const KernelStallAnalysis>> all() const;

 private:
  const StallInfo* info_ = nullptr;
  StallThresholds thresholds_;
  mutable std::unordered_map<std::string, std::shared_ptr<const KernelStallAnalysis>> analysed_;
};

// "Stall Long Scoreboard 62%, Stall Barrier 21%": the dominant reasons with their stall shares;
// the top reason when none is dominant.
std::string dominant_stalls_text(const KernelStallAnalysis& stalls);

}  // namespace limiter
