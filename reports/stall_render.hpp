#pragma once
// Why a kernel waits (stall_analysis.hpp) as every report shows it: the sampling condition, a
// "why it waits" line per kernel, its hot lines, and the JSON of both. Shown only for records
// with PC samples; reports of other records stay as they were.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "limiter/stall_analysis.hpp"

namespace limiter::render {

// Hot lines a report lists per kernel.
inline constexpr std::size_t kShownHotLines = 3;

// A kernel with fewer samples than this has its shares said to be untrustworthy (a share of 100
// samples has a standard error of up to 5 points).
inline constexpr std::uint64_t kFewStallSamples = 100;

// "PC sampling: a sample every 4,096 cycles per SM (continuous), 24,000 samples of 5 kernels".
std::string stall_sampling_text(const StallSampling& sampling);
// "PC sampling dropped 120 samples (...)"; empty when none was dropped.
std::optional<std::string> stall_dropped_warning(const StallSampling& sampling);
// One note per reason some kernels' hot PCs have no SASS or source line, with its fix.
std::vector<std::string> stall_cubin_notes(const StallSampling& sampling);

// "Stall Long Scoreboard 86%, Stall LG Throttle 7% of stalled samples; 9% issued; 8,000 samples".
std::string why_it_waits_text(const KernelStallAnalysis& stalls);

// "probe.cu:41", "LDG.E R2, [R2.64]", "65%", "Stall Long Scoreboard": a hot line's parts.
struct HotLineCells {
  std::string where, sass, share, reason;
};
HotLineCells hot_line_cells(const HotLine& line);
// The cells on one line: "probe.cu:41  LDG.E R2, [R2.64]  65% (Stall Long Scoreboard)".
std::string hot_line_text(const HotLine& line);

// The CSV's stall columns, stall_samples..stall_hot_line, and a kernel's cells in them: its PC
// samples, its two dominant reasons (keys, shares of the stalled samples) and its hottest line;
// empty cells without samples (STALLS null) or dominant reasons.
extern const std::vector<std::string> kCsvStallColumns;
std::vector<std::string> stall_csv_cells(const KernelStallAnalysis* stalls);

// The report JSON's "stalls" of a kernel or group, and its "stall_sampling".
nlohmann::ordered_json kernel_stalls_json(const KernelStallAnalysis& stalls);
nlohmann::ordered_json stall_sampling_json(const StallSampling& sampling);

}  // namespace limiter::render
