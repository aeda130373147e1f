// Where a run's program verdict is judged (program_verdict.hpp, judge_run_program). A default
// run's counters phase serialises launches and its PC-sampling window slows the app: neither is
// the program's own pace, so the verdict is judged on the timeline phase after them, and says so.
#include <algorithm>
#include <string>

#include "limiter/format.hpp"
#include "limiter/program_verdict.hpp"
#include "limiter/record.hpp"

namespace limiter {
namespace {

const PhaseWindow* phase_named(const std::vector<PhaseWindow>& phases, const char* name) {
  for (const auto& phase : phases)
    if (phase.name == name) return &phase;
  return nullptr;
}

bool began(const PhaseWindow* phase) { return phase && phase->start_ns > 0; }

// "the PC-sampling window (1.0 s) and the counters phase (412 launches, 0.9 s: kernels profiled
// one by one)": the phases before the timeline phase, as far as they ran, in the order they ran.
std::string phases_before_text(const PhaseWindow* counters, const PhaseWindow* samples) {
  std::string counted, sampled;
  if (began(counters)) {
    counted = "the counters phase (" + std::to_string(counters->launches) +
              (counters->launches == 1 ? " launch, " : " launches, ") +
              format_duration_ns(static_cast<double>(counters->duration_ns())) + ": kernels profiled one by one)";
  }
  if (began(samples))
    sampled = "the PC-sampling window (" + format_duration_ns(static_cast<double>(samples->duration_ns())) + ")";
  const bool samples_first = began(counters) && began(samples) && samples->start_ns < counters->start_ns;
  const std::string& first = samples_first ? sampled : counted;
  const std::string& second = samples_first ? counted : sampled;
  if (first.empty() || second.empty()) return first + second;
  return first + " and " + second;
}

double judged_ns(const ProgramVerdict& program) {
  return static_cast<double>(program.window_end_ns - program.window_start_ns);
}

}  // namespace

std::optional<ProgramVerdict> judge_run_program(const RunRecord& run, const ProgramThresholds& thresholds) {
  if (!run.timeline) return std::nullopt;
  const Timeline& timeline = *run.timeline;
  if (run.phases.empty()) return judge_program(timeline, thresholds);  // a single-phase mode: as it was
  const PhaseWindow* counters = phase_named(run.phases, "counters");
  const PhaseWindow* samples = phase_named(run.phases, "samples");
  const PhaseWindow* own_pace = phase_named(run.phases, "timeline");
  if (!own_pace) return judge_program(timeline, thresholds);  // phases of another kind: the whole timeline
  if (began(own_pace)) {
    // Its end, or the timeline's where the record has none (a recovered record).
    // Within the timeline's own window too: the events' span, not the app's teardown after them.
    std::uint64_t end = own_pace->end_ns > own_pace->start_ns ? own_pace->end_ns : timeline.end_ns;
    if (timeline.end_ns > own_pace->start_ns) end = std::min(end, timeline.end_ns);
    const std::uint64_t start = std::max(own_pace->start_ns, std::min(timeline.start_ns, end));
    ProgramVerdict program = judge_program(timeline_between(timeline, start, end), thresholds);
    const std::string before = phases_before_text(counters, samples);
    program.window_note =
        "judged on the timeline phase: the " + format_duration_ns(judged_ns(program)) + " at the app's own pace" +
        (before.empty()
             ? ""
             : " after " + before + ", which " + (began(counters) && began(samples) ? "are" : "is") + " set aside");
    return program;
  }
  // The app ended before the timeline phase: nothing ran at its own pace.
  if (timeline.events.empty()) return std::nullopt;  // it ended in the counters phase: no timeline to judge
  ProgramVerdict program = judge_program(timeline, thresholds);
  const std::string span = format_duration_ns(judged_ns(program));
  program.window_note = began(samples) ? "the app ended before the timeline phase: judged on the whole timeline (" +
                                             span + "), sampling's cost included"
                                       : "the app ended before the timeline phase: judged on the whole timeline (" +
                                             span + "), profiling's cost included";
  return program;
}

}  // namespace limiter
