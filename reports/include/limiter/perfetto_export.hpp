#pragma once
// The activity timeline in the Chrome trace-event format, which ui.perfetto.dev and
// chrome://tracing open: {"traceEvents": [...], "displayTimeUnit": "ns"}, "X" complete events
// (ts and dur in microseconds, as the format has them) and "M" metadata naming every process and
// track. A process (pid) per record (a rank of a job), a track (tid) per GPU stream, and per host
// thread a track for its CUDA calls, one for its synchronisations and one for its NVTX ranges.
// Kernels are coloured by verdict (cname) and carry their verdict, utilisations and LMEM shares
// in args. Each process's time starts at 0 at its window's start (each process has its own clock).
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "limiter/analysis.hpp"
#include "limiter/program_verdict.hpp"
#include "limiter/timeline.hpp"

namespace limiter {

// What a kernel's trace event carries from its analysis (joined by TimelineEvent::launch_sequence).
struct PerfettoKernelArgs {
  std::optional<Verdict> verdict;
  bool balanced = false;
  std::string display_name;  // as the reports show it (--names)
  std::string limiting_unit;
  std::optional<double> issue, l2, dram, compute, memory, lmem_l2_share, lmem_instruction_share;
};
PerfettoKernelArgs perfetto_kernel_args(const KernelAnalysis& kernel, const std::string& display_name);

struct PerfettoProcess {
  std::string name;  // "rank 0 (node1)", or the record's file
  const Timeline* timeline = nullptr;
  std::unordered_map<std::uint64_t, PerfettoKernelArgs> kernels;  // by launch sequence
  std::optional<ProgramVerdict> program;                          // its verdict, in the process's labels
};

// The trace of PROCESSES (pid 1, 2, ... in order). Returns the number of X events written.
std::size_t write_perfetto_trace(const std::vector<PerfettoProcess>& processes, std::ostream& out);

// The cname a verdict colours its kernels with (chrome://tracing's reserved colour names), the
// colour the HTML report gives the verdict (reports/verdict_colours.hpp).
const char* perfetto_verdict_color(const std::optional<Verdict>& verdict);

}  // namespace limiter
