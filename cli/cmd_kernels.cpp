// limiter kernels: the shipped kernel suite on the local GPU — each kernel timed, profiled once,
// checked against a host reference — then the limiter report and a results table per family.
// Without a GPU (or in a build without CUDA) it says so and shows the committed recording.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "limiter/analysis.hpp"
#include "limiter/error.hpp"
#include "limiter/kernels/catalog.hpp"
#include "limiter/kernels/programs.hpp"
#include "limiter/kernels/progress.hpp"
#include "limiter/kernels/stall_check.hpp"
#include "limiter/kernels/results.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "options.hpp"
#include "output_guard.hpp"
#ifdef LIMITER_HAVE_KERNEL_SUITE
#include "limiter/kernels/suite.hpp"
#endif

namespace limiter::cli {
namespace {

const char* const kUsage =
    "limiter kernels [--list] [--only NAME...] [-o FILE] [--sizes small|full] [options]\n\n"
    "Runs the shipped kernel suite on GPU 0: every kernel is warmed up, timed without a profiler (the\n"
    "median of --runs CUDA-event timings), profiled once by limiter's collector (timing only if that is\n"
    "unavailable) and checked against a host reference. Writes the run record to FILE (the median time\n"
    "is each launch's limiter__time_unprofiled_ns), prints the limiter report and one results table per\n"
    "family. Exit code 1 when a kernel gives a wrong result. Without a GPU it shows the committed\n"
    "recording instead, and writes it to FILE when -o is given. --list shows the catalog: each\n"
    "kernel's intended verdict and stall and the seed's claim. Kernels with an intended stall (ncu's\n"
    "Warp State names: long_scoreboard, barrier, wait, ...) are checked against the dominant reason\n"
    "PC sampling found when the record has stall data; otherwise the table says \"no stall data\".\n\n"
    "--programs runs the five known-answer programs of the program verdict instead (launch-, GPU-,\n"
    "sync-, copy- and host-bound), each in a process of its own under the activity timeline (as\n"
    "`limiter run --trace` records it), and checks that the program verdict is the intended one;\n"
    "-o then names the folder for their run records (default limiter_programs). Exit code 1 when a\n"
    "program's verdict or output is not the intended one.";

struct KernelsRequest {
  bool list = false;
  std::vector<std::string> only;
  std::string output;
  bool output_given = false;  // -o typed: without a GPU the recording shown is written there
  std::string sizes;
  bool timing_only = false;
  bool stalls = false;
  bool sweep = false;
  int runs = 7;
  int warmup = 2;
  std::string recording;
  bool quiet = false;
  bool programs = false;
  std::string program_child;  // the child's side of --programs (program_runner.cpp)
};

void write_report_and_tables(const RunRecord& run, const std::vector<kernels::Measurement>& measurements,
                             const std::vector<kernels::SweepPoint>* sweep, std::ostream& out, bool color) {
  const RunAnalysis analysis = analyze_run(run);
  ReportOptions text_options;
  text_options.color = color;
  // Without counters every kernel would only repeat "no verdict": the table says it once.
  const bool timing_only = run.source == kernels::kTimingOnlySource;
  text_options.details = !timing_only;
  write_text_report(analysis, out, text_options);
  if (timing_only) {
    out << "\ntiming only: no counters were collected (--timing-only, or the collector was unavailable), so "
           "there are no verdicts\n";
  }
  kernels::TableContext context;
  context.device = run.device;
  context.analysis = &analysis;
  context.sweep = sweep;
  kernels::write_family_tables(measurements, context, out);
  kernels::write_stall_checks(measurements, run.stalls ? &*run.stalls : nullptr, out);
}

// The committed recording, labelled as such, when this machine cannot run the suite.
int show_recording(const KernelsRequest& request, const std::string& why_not) {
  std::cerr << "limiter kernels: " << why_not << ".\n";
  if (!std::filesystem::exists(request.recording)) {
    std::cerr << "No recording of the suite has been committed yet (expected at " << request.recording
              << "); run `limiter kernels` on a machine with a GPU to make one.\n";
    return kExitSystem;
  }
  if (request.output_given)
    refuse_output_over_input(request.output, {request.recording});  // (a GPU run may replace it)
  RunRecord run = read_run_file(request.recording);
  std::cerr << "Showing the committed recording instead.\n";
  std::ostringstream text;
  text << "RECORDING — not measured on this machine: " << request.recording << "\n"
       << "recorded on " << run.device.name << " at " << run.created_at << " (" << run.source << ")\n\n";
  if (!request.only.empty()) {
    const auto selected = kernels::select_entries(request.only);
    std::erase_if(run.launches, [&](const KernelLaunch& launch) {
      return std::none_of(selected.begin(), selected.end(),
                          [&](const auto* entry) { return entry->name == launch.name; });
    });
  }
  write_report_and_tables(run, kernels::measurements_from_run(run), nullptr, text, false);
  write_output("", text.str());
  if (request.output_given) {
    write_run_file(run, request.output);
    std::cerr << "limiter kernels: the recording shown (from " << run.device.name << ", not measured here) written to "
              << request.output << "\n";
  }
  return kExitOk;
}

#ifdef LIMITER_HAVE_KERNEL_SUITE
int run_on_gpu(const KernelsRequest& request, const Args& args, std::size_t selected_count) {
  kernels::SuiteOptions options;
  options.only = request.only;
  options.sizes = kernels::problem_size_from_string(request.sizes);
  options.profile = !request.timing_only;
  options.stalls = request.stalls;
  options.sweep = request.sweep;
  options.timed_runs = request.runs;
  options.warmup_runs = request.warmup;
  options.command_line = {"limiter", "kernels"};
  options.command_line.insert(options.command_line.end(), args.begin(), args.end());
  kernels::ProgressBar progress(std::cerr, selected_count + (request.sweep ? kernels::sweep_size() : 0),
                                kernels::ProgressBar::style_for(isatty(STDERR_FILENO) != 0, request.quiet));
  options.on_start = [&](const std::string& name) { progress.start(name); };
  options.on_note = [&](const std::string& line) { progress.note("limiter kernels: " + line); };

  const kernels::SuiteResult result = kernels::run_suite(options);
  progress.finish();
  write_run_file(result.run, request.output);
  std::cerr << "limiter kernels: run record written to " << request.output
            << (result.profiled ? "" : " (timing only, no counters: " + result.profiling_note + ")") << "\n";

  std::ostringstream text;
  const bool color = isatty(STDOUT_FILENO) != 0;
  write_report_and_tables(result.run, result.measurements, &result.sweep, text, color);
  write_output("", text.str());

  std::vector<std::string> wrong;
  for (const auto& m : result.measurements)
    if (m.skipped_reason.empty() && !m.correct.value_or(false)) wrong.push_back(m.name);
  if (wrong.empty()) return kExitOk;
  std::cerr << "limiter kernels: " << wrong.size() << (wrong.size() == 1 ? " kernel" : " kernels")
            << " gave a wrong result:";
  for (const auto& name : wrong) std::cerr << " " << name;
  std::cerr << "\n";
  return kExitFailure;
}

int run_programs_on_gpu(const KernelsRequest& request, std::size_t selected_count) {
  kernels::ProgramOptions options;
  options.only = request.only;
  options.executable = std::filesystem::read_symlink("/proc/self/exe").string();
  options.record_dir = request.output;
  kernels::ProgressBar progress(std::cerr, selected_count,
                                kernels::ProgressBar::style_for(isatty(STDERR_FILENO) != 0, request.quiet));
  options.on_start = [&](const std::string& name) { progress.start(name); };
  const auto results = kernels::run_programs(options);
  progress.finish();
  std::ostringstream text;
  kernels::write_program_results(results, text);
  write_output("", text.str());
  std::cerr << "limiter kernels: the programs' run records are in " << request.output
            << "/ (`limiter report` shows each one's timeline verdict)\n";
  const auto failed = std::count_if(results.begin(), results.end(), [](const auto& r) { return !r.passed(); });
  if (failed == 0) return kExitOk;
  std::cerr << "limiter kernels: " << failed << (failed == 1 ? " program" : " programs")
            << " did not give the intended verdict or output\n";
  return kExitFailure;
}
#endif

}  // namespace

int run_kernels(const Args& args) {
  KernelsRequest request;
  po::options_description visible("options");
  visible.add_options()("list", po::bool_switch(&request.list),
                        "list the experiments: family, intended verdict, seed and claim (no GPU needed)")(
      "only", po::value(&request.only)->multitoken(), "run only these experiments or families (see --list)")(
      "output,o", po::value(&request.output)->default_value("limiter_kernels.json"), "write the run record to FILE")(
      "sizes", po::value(&request.sizes)->default_value("full"),
      "full (the seeds' problem sizes) or small (a few seconds, for tests)")(
      "timing-only", po::bool_switch(&request.timing_only), "do not profile: times and checks only")(
      "stalls", po::bool_switch(&request.stalls),
      "PC sampling instead of counters: each kernel's warp stall reasons, and the stall check of the kernels "
      "with an intended stall (no verdicts: the counters and PC sampling cannot share a run)")(
      "sweep", po::bool_switch(&request.sweep),
      "also run the occupancy family's tuning sweep over block size NT and odd grain size VT")(
      "runs", po::value(&request.runs)->default_value(7), "timed runs per kernel; the median is reported")(
      "warmup", po::value(&request.warmup)->default_value(2), "untimed runs before them")(
      "quiet,q", po::bool_switch(&request.quiet), "no live progress (it is shown only on a terminal anyway)")(
      "recording", po::value(&request.recording)->default_value(LIMITER_KERNELS_RECORDING),
      "the recorded run shown when there is no GPU")(
      "programs", po::bool_switch(&request.programs),
      "run the known-answer programs of the program verdict instead of the kernels (--list: list them)");
  po::options_description hidden("hidden");
  hidden.add_options()("program-child", po::value(&request.program_child), "run one program (--programs' child)");
  po::positional_options_description no_positional;
  po::variables_map vm;
  if (!parse_options(args, kUsage, visible, no_positional, vm, &hidden)) return kExitOk;
  request.output_given = !vm["output"].defaulted();
#ifdef LIMITER_HAVE_KERNEL_SUITE
  if (!request.program_child.empty()) return kernels::run_program_child(request.program_child, request.output);
#endif
  if (request.programs) {
    if (!request.output_given) request.output = "limiter_programs";
    const auto programs = kernels::select_programs(request.only);
    if (request.list) {
      kernels::write_program_catalog(programs, std::cout);
      return kExitOk;
    }
#ifdef LIMITER_HAVE_KERNEL_SUITE
    if (auto reason = kernels::gpu_unavailable_reason()) throw SystemError("--programs needs a GPU: " + *reason);
    return run_programs_on_gpu(request, programs.size());
#else
    throw SystemError("--programs needs a GPU, and this build has no CUDA (configured with -DLIMITER_WITH_CUDA=OFF)");
#endif
  }
  kernels::problem_size_from_string(request.sizes);  // reject a bad value before anything runs
  if (request.runs < 1) throw InputError("--runs must be at least 1, got " + std::to_string(request.runs));
  if (request.warmup < 0) throw InputError("--warmup must not be negative, got " + std::to_string(request.warmup));
  const auto selected = kernels::select_entries(request.only);

  if (request.list) {
    kernels::write_catalog(selected, std::cout);
    return kExitOk;
  }
#ifdef LIMITER_HAVE_KERNEL_SUITE
  if (auto reason = kernels::gpu_unavailable_reason()) return show_recording(request, *reason);
  return run_on_gpu(request, args, selected.size());
#else
  return show_recording(request,
                        "this build has no CUDA (configured with -DLIMITER_WITH_CUDA=OFF), so it cannot "
                        "run kernels");
#endif
}

}  // namespace limiter::cli
