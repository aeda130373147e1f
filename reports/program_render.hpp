#pragma once
// The program verdict (program_verdict.hpp) as every report shows it: the split of the window,
// "what to fix first" with the program-level fixes and the kernels ranked together, and its
// JSON. Reports show it first, and only for records with a timeline.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "limiter/program_verdict.hpp"
#include "limiter/rank_summary.hpp"
#include "limiter/run_summary.hpp"

namespace limiter::render {

// One line of "what to fix first": a program-level fix or a kernel group, with the time it can save.
struct FixLine {
  const ProgramFix* program = nullptr;    // set for a program-level fix
  const FixFirstEntry* kernel = nullptr;  // else a kernel group's entry
  double ns = 0;                          // the fix's idle time; the group's (estimated) total time
};

// SUMMARY's fix_first, with its program's fixes ranked among them by time (most first); the
// kernel entries alone, in their order, without a program verdict.
std::vector<FixLine> fix_first_lines(const RunSummary& summary);

// The window's time by part, those with any time, in a fixed order:
// {"kernels", ns}, {"copies alone", ns}, {"idle: launch calls", ns}, ...
struct SplitPart {
  std::string label;
  double ns = 0;
};
std::vector<SplitPart> split_parts(const TimeSplit& split);

// "launch-bound — 250.0 ms (58%) idle inside launch calls" (the fix's verdict and time).
std::string fix_program_text(const ProgramFix& fix);

// Per rank with a program verdict: "rank 0: launch-bound, GPU busy 14.2% of 431.0 ms"; empty
// when no rank's record has a timeline (such reports stay as they were).
std::vector<std::string> rank_program_lines(const RankSummary& summary);

// The "program" object of the JSON reports (docs/guide/reports.md: the program verdict).
nlohmann::ordered_json program_json(const ProgramVerdict& program);
nlohmann::ordered_json time_split_json(const TimeSplit& split);

}  // namespace limiter::render
