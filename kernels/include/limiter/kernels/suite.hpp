#pragma once
// Running the shipped kernel suite on the local GPU. No CUDA type appears here: the CLI and the
// GPU tests include it as plain C++; the implementation is kernels/src (CUDA).
//
//   limiter::kernels::SuiteOptions options;
//   options.only = {"reduction"};
//   limiter::kernels::SuiteResult result = limiter::kernels::run_suite(options);
//   limiter::write_run_file(result.run, "reduction.json");
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "limiter/kernels/calibration.hpp"
#include "limiter/kernels/catalog.hpp"
#include "limiter/kernels/programs.hpp"
#include "limiter/kernels/results.hpp"
#include "limiter/record.hpp"

namespace limiter::kernels {

struct SuiteOptions {
  std::vector<std::string> only;  // entry or family names; empty runs everything
  ProblemSize sizes = ProblemSize::full;
  bool profile = true;                    // profile each kernel once through limiter::Collector
  bool stalls = false;                    // ... with PC sampling instead of counters (warp stall reasons
                                          // per experiment in SuiteResult::run.stalls; no verdicts)
  bool sweep = false;                     // also run the occupancy family's NT x VT tuning sweep
  int warmup_runs = 2;                    // untimed launches first (module loading, clocks)
  int timed_runs = 7;                     // the reported time is their median
  std::vector<std::string> command_line;  // recorded in the run
  std::function<void(const std::string& name)> on_start;  // an experiment begins
  std::function<void(const std::string& line)> on_note;   // a message for the user
};

struct SuiteResult {
  // One launch per kernel experiment, named by its catalog entry, with the collector's counters
  // (when profiling worked) and the limiter__ counters of results.hpp.
  RunRecord run;
  std::vector<Measurement> measurements;  // every selected experiment, copies and skips included
  std::vector<SweepPoint> sweep;
  bool profiled = false;       // false: timing only (the collector was unavailable)
  std::string profiling_note;  // why not, when not
  bool all_correct() const;
};

// The number of NT x VT points SuiteOptions::sweep times (for progress bars).
std::size_t sweep_size();

// Why this machine cannot run kernels (no driver, no device), or nothing when it can.
std::optional<std::string> gpu_unavailable_reason();

// Runs the selected experiments on device 0. Throws SystemError when CUDA fails; a wrong result
// is not an error here (Measurement::correct says so).
SuiteResult run_suite(const SuiteOptions& options);

struct CalibrationOptions {
  ProblemSize sizes = ProblemSize::full;
  int timed_runs = 7;
  std::function<void(const std::string& name)> on_start;
};

// The calibration kernels, timing only, on device 0: achieved peaks of this GPU.
CalibrationResult run_calibration(const CalibrationOptions& options);

// The known-answer programs (programs.hpp), each in a process of its own: EXECUTABLE is started
// as `EXECUTABLE kernels --program-child NAME -o RECORD_DIR/NAME.json` (the limiter CLI), runs
// the program under the activity timeline and writes its record; the parent judges it. One
// process per program: CUPTI takes one subscriber per process, and each program gets a fresh
// context, so nothing of the suite's or another program's profiling is in its timeline.
struct ProgramOptions {
  std::vector<std::string> only;  // program names; empty runs all five
  std::string executable;         // the limiter CLI
  std::string record_dir;         // where each program's run record is kept (created)
  std::function<void(const std::string& name)> on_start;
};
std::vector<ProgramResult> run_programs(const ProgramOptions& options);

// The child's side: runs program NAME on GPU 0 inside a trace-only collector's region, writes the
// record to RECORD_PATH; 0 when the program's output is right, 1 when not. Throws on CUDA errors.
int run_program_child(const std::string& name, const std::string& record_path);

}  // namespace limiter::kernels
