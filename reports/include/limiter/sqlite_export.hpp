#pragma once
// A run and its analysis as an SQLite database, for data users: readable from Python's sqlite3,
// pandas (read_sql) and DuckDB, like Nsight Systems' `--export sqlite`. One table per concern:
//
//   run       key/value: device, source, command line, peaks, thresholds, totals
//   kernels   kernel_id, name (demangled, in full), display_name (short form), mangled_name
//   launches  one row per launch: sequence, kernel_id, configuration, duration, verdict, limiting
//             unit, utilisations, LMEM shares, occupancy, advice headline
//   counters  long format: sequence, metric, value (every counter of the record)
//   groups    one row per kernel and launch configuration, most time first (the grouped report)
//   timeline  one row per activity event of the record's timeline (kernels, copies, memsets,
//             synchronisations, API calls, NVTX ranges), with the fields of TimelineEvent
//   program   the program verdict: the whole window ("window", without its pauses: paused_ns),
//             then each NVTX range by its path
//   program_pauses  the pauses set aside from the window's verdict: start_ns, end_ns
//   stalls    PC sampling per kernel (demangled name) and stall reason: samples, share of all the
//             kernel's samples, stall_share of its stalled ones (stall_analysis.hpp)
//   hot_pcs   the kernels' hottest PCs: cubin_crc, pc_offset, samples, share, dominant reason,
//             SASS, source file and line
//
// Written launch batch by launch batch as the record is read, in one transaction, to a
// temporary file renamed into place: flat memory, and no half database after a failure.
#include <functional>
#include <string>

#include "limiter/run_summary.hpp"

namespace limiter {

class SqliteExport {
 public:
  // Creates the tables; throws InputError / SystemError. Without COUNTERS the counters table stays
  // empty: most of a large run's rows, left out where only the analysis is read (Python's load).
  explicit SqliteExport(const std::string& path, bool counters = true);
  ~SqliteExport();
  SqliteExport(const SqliteExport&) = delete;
  SqliteExport& operator=(const SqliteExport&) = delete;

  // Feeds summarize_run_file / summarize_record (run_summary.hpp).
  BatchSink batch_sink();
  // The record's timeline, a row per event (empty tables without one).
  void add_timeline(const Timeline& timeline);
  // The record's PC samples: the stalls and hot_pcs tables (empty without them).
  void add_stalls(const StallInfo& stalls);
  // Writes kernels, groups, run and the program verdict (summary.program), commits and renames the file into place.
  void finish(const RunSummary& summary);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace limiter
