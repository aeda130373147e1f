#include "limiter/kernels/programs.hpp"

#include <algorithm>
#include <ostream>

#include "limiter/error.hpp"
#include "limiter/format.hpp"
#include "table.hpp"

namespace limiter::kernels {
namespace {

std::vector<ProgramEntry> build_program_catalog() {
  return {
      {"launch_bound", ProgramBound::launch, "20,000 launches of <<<1, 32>>>, one sync at the end",
       "thousands of tiny kernels back to back: each runs ~1-2 us on the GPU, each launch call takes longer on the "
       "host, so the queue runs dry between launches while the host is inside cudaLaunchKernel (remedy: CUDA graphs, "
       "fusion)"},
      {"gpu_bound", ProgramBound::gpu, "100 launches of y += a x over 2^26 floats",
       "large streaming kernels back to back: the host queues them far faster than the GPU runs them, so kernels "
       "cover the window but for the first launch and the last sync (the kernels' own verdicts say what to fix)"},
      {"sync_bound", ProgramBound::sync, "2,000 x (tiny kernel, blocking event sync, 1 us of host work)",
       "a synchronisation after every kernel, on an event made with cudaEventBlockingSync: the host sleeps in "
       "cudaEventSynchronize until the completion interrupt wakes it, tens of us in which the GPU has nothing queued; "
       "the host work after it is short and the launch is one call (remedy: fewer synchronisations)"},
      {"copy_bound", ProgramBound::copy, "24 x (16 MiB pageable cudaMemcpy HtoD, one add kernel)",
       "pageable host-to-device copies: the driver stages them through a pinned buffer, so the GPU waits on the "
       "host's memcpy between chunks and the add kernel is a small share (remedy: pinned memory, fewer copies)"},
      {"host_bound", ProgramBound::host, "500 x (200 us of host work, one 8-block kernel)",
       "CPU work between launches with no CUDA call in it: the GPU finishes each small kernel long before the host "
       "launches the next (remedy: overlap host work with the GPU, move it to the GPU, or batch)"},
  };
}

}  // namespace

const std::vector<ProgramEntry>& program_catalog() {
  static const std::vector<ProgramEntry> entries = build_program_catalog();
  return entries;
}

const ProgramEntry* find_program(std::string_view name) {
  for (const auto& entry : program_catalog())
    if (entry.name == name) return &entry;
  return nullptr;
}

std::vector<const ProgramEntry*> select_programs(const std::vector<std::string>& only) {
  for (const auto& word : only)
    if (!find_program(word))
      throw InputError("unknown program '" + word +
                       "' for --only (`limiter kernels --list --programs` shows the names)");
  std::vector<const ProgramEntry*> selected;
  for (const auto& entry : program_catalog())
    if (only.empty() || std::find(only.begin(), only.end(), entry.name) != only.end()) selected.push_back(&entry);
  return selected;
}

void write_program_catalog(const std::vector<const ProgramEntry*>& entries, std::ostream& out) {
  detail::Table table({"program", "intended", "problem"});
  for (const auto* entry : entries) table.add({entry->name, std::string(to_string(entry->intended)), entry->problem});
  table.write(out);
  for (const auto* entry : entries) out << entry->name << ": " << entry->claim << "\n";
  out << entries.size() << (entries.size() == 1 ? " program" : " programs")
      << "; each runs in a process of its own under the activity timeline (`--programs --only NAME ...` selects)\n";
}

Timeline program_span(Timeline timeline) {
  if (timeline.events.empty()) return timeline;
  std::uint64_t first = timeline.events.front().start_ns, last = 0;
  for (const auto& e : timeline.events) {
    first = std::min(first, e.start_ns);
    last = std::max(last, e.end_ns);
  }
  timeline.start_ns = first;
  timeline.end_ns = std::max(last, first);
  return timeline;
}

ProgramResult check_program(const ProgramEntry& entry, const RunRecord& record, bool output_correct) {
  ProgramResult result;
  result.name = entry.name;
  result.intended = entry.intended;
  result.output_correct = output_correct;
  if (!output_correct) result.detail = "the program's output differs from the host's";
  if (!record.timeline || record.timeline->events.empty()) {
    result.detail = "the record has no timeline to judge";
    return result;
  }
  result.judged = judge_program(program_span(*record.timeline));
  if (result.judged->verdict != entry.intended && output_correct) result.detail = result.judged->reason;
  return result;
}

void write_program_results(const std::vector<ProgramResult>& results, std::ostream& out) {
  if (results.empty()) return;
  out << "\nknown-answer programs: the program verdict of each against the intended one\n";
  detail::Table table({"program", "intended", "judged", "window", "GPU busy", "idle launch", "idle sync", "copy",
                       "idle host", "kernels", "= intended", "output"});
  auto share = [](const ProgramResult& r, double ns) { return format_percent(r.judged->split.share(ns)); };
  for (const auto& r : results) {
    if (!r.judged) {
      table.add({r.name, std::string(to_string(r.intended)), detail::kNone, detail::kNone, detail::kNone, detail::kNone,
                 detail::kNone, detail::kNone, detail::kNone, detail::kNone, "NO",
                 r.output_correct ? (*r.output_correct ? "yes" : "WRONG") : detail::kNone});
      continue;
    }
    const TimeSplit& s = r.judged->split;
    table.add({r.name, std::string(to_string(r.intended)), std::string(to_string(r.judged->verdict)),
               format_duration_ns(s.wall_ns), share(r, s.gpu_busy_ns), share(r, s.idle_launch_ns),
               share(r, s.idle_sync_ns), share(r, s.time_of(ProgramBound::copy)), share(r, s.idle_host_ns),
               std::to_string(r.judged->evidence.kernels), r.judged->verdict == r.intended ? "yes" : "NO",
               r.output_correct.value_or(false) ? "yes" : "WRONG"});
  }
  table.write(out);
  for (const auto& r : results)
    if (!r.passed()) out << r.name << ": " << (r.detail.empty() ? "failed" : r.detail) << "\n";
}

}  // namespace limiter::kernels
