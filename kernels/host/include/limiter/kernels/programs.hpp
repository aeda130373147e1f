#pragma once
// Known-answer programs for the program verdict (docs/design.md §7, the program verdict): five short programs,
// each built so that one cause limits it (launch, GPU, sync, copy, host), run by `limiter
// kernels --programs` under the activity timeline, each in a process of its own, and checked:
// judge_program on the program's timeline must give the intended verdict. Host-only: the
// catalog, the check and the table; the programs themselves are kernels/src/programs.cu.
//
//   const ProgramResult result = check_program(*find_program("launch_bound"), record, true);
//   result.passed()   // judge_program said launch-bound and the program's output was right
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "limiter/program_verdict.hpp"
#include "limiter/record.hpp"

namespace limiter::kernels {

struct ProgramEntry {
  std::string name;  // unique; what `--only` and the record file use
  ProgramBound intended = ProgramBound::gpu;
  std::string problem;  // what it runs, e.g. "20,000 launches of <<<1, 32>>>"
  std::string claim;    // why that cause limits it
};

const std::vector<ProgramEntry>& program_catalog();
const ProgramEntry* find_program(std::string_view name);  // nullptr when unknown
// The programs `--only` selects (names; empty selects all), in catalog order. Throws InputError
// naming an unknown word.
std::vector<const ProgramEntry*> select_programs(const std::vector<std::string>& only);
// The `--list --programs` table: name, intended verdict, problem and claim.
void write_program_catalog(const std::vector<const ProgramEntry*>& entries, std::ostream& out);

// TIMELINE's window narrowed to the program's own activity, first event to last: the collector
// opens the window before the program's first call and closes it after its own final flush,
// and neither is the program's time.
Timeline program_span(Timeline timeline);

struct ProgramResult {
  std::string name;
  ProgramBound intended = ProgramBound::gpu;
  std::optional<ProgramVerdict> judged;  // empty: not run, or no timeline
  std::optional<bool> output_correct;    // the program's own result against the host's
  std::string detail;                    // what went wrong, when something did
  bool passed() const { return judged && judged->verdict == intended && output_correct.value_or(false); }
};

// The check: RECORD's timeline (program_span) judged against ENTRY's intended verdict.
ProgramResult check_program(const ProgramEntry& entry, const RunRecord& record, bool output_correct);

// One row per program: intended, judged, GPU busy and each idle share, = intended; then the
// reason judge_program gave for every program that failed.
void write_program_results(const std::vector<ProgramResult>& results, std::ostream& out);

}  // namespace limiter::kernels
