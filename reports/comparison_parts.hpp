#pragma once
// Pieces every comparison renderer shows alike (internal to limiter::reports): the launches
// cell of a row, the gate's failures, the trimming of lists, the program verdicts and the PC
// samples, as plain text each renderer marks up its own way.
#include <cstddef>
#include <string>
#include <vector>

#include "limiter/compare.hpp"

namespace limiter::render {

// The first cell of a matched row: a launch row's sequences "5>5"; a group row's launches,
// "29" when both sides have as many, else "29 -> 30" (with ARROW).
std::string row_launches_text(const RunComparison& comparison, const KernelComparison& k, const std::string& arrow);
// What the first column holds: "#" (launch rows) or "launches".
const char* row_launches_title(const RunComparison& comparison);
// One line on what a row is: "one row per kernel and configuration: mean time per launch
// (--launches: one per launch)", or the launch rows' line.
std::string rows_note(const RunComparison& comparison);

// An unmatched kernel's time: "1.52 us" (one launch) or "3 launches, 4.56 us".
std::string unmatched_time_text(const UnmatchedKernel& k);

// How many of SIZE rows a list shows under --top TOP (0: all).
std::size_t shown_rows(std::size_t size, std::size_t top);
// "15,098 more not shown (--top 0 shows all)".
std::string more_rows_text(std::size_t left_out);

// A failed gate: whether the total failed, the most slower kernels (kGateKernelsNamed) and how
// many more there are.
struct GateFailure {
  bool total = false;
  std::vector<const KernelComparison*> named;
  std::size_t more = 0;
};
GateFailure gate_failure(const RunComparison& comparison);
// "the total (+5.9%)" or "the mean per launch (+0.9%)".
std::string gate_total_text(const RunComparison& comparison);
// "and 4,091 more kernels".
std::string gate_more_text(std::size_t more);

// The program verdicts before -> after (with ARROW): "launch-bound -> gpu-bound; GPU busy 42% ->
// 85% of 1.23 s -> 982 ms". Empty when neither record has a timeline.
std::string program_change_text(const RunComparison& comparison, const std::string& arrow);

// What the records hold when no launch is timed on either side, in one line; "" otherwise.
std::string nothing_timed_text(const RunComparison& comparison);

// A row of the PC samples' table: "32% -> 18%", "Stall Long Scoreboard 79% -> Stall Barrier 65%".
std::string sample_share_text(const SampledKernelComparison& k, const std::string& arrow);
std::string sample_reason_text(const SampledKernelComparison& k, const std::string& arrow);

}  // namespace limiter::render
