// limiter calibrate: measures this GPU's achieved peaks with the suite's calibration kernels
// (DRAM streaming read, L2-resident read, FFMA issue, dependent-load latency, busy SM clock)
// and writes them, with the GPU's name, clocks and the date, as JSON.
#include <unistd.h>

#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "limiter/error.hpp"
#include "limiter/kernels/calibration.hpp"
#include "limiter/kernels/catalog.hpp"
#include "limiter/kernels/progress.hpp"
#include "options.hpp"
#ifdef LIMITER_HAVE_KERNEL_SUITE
#include "limiter/kernels/suite.hpp"
#endif

namespace limiter::cli {

int run_calibrate(const Args& args) {
  std::string output, sizes;
  int runs = 7;
  po::options_description visible("options");
  visible.add_options()("output,o", po::value(&output)->default_value("limiter_calibration.json"),
                        "write the peaks (JSON) to FILE")("sizes", po::value(&sizes)->default_value("full"),
                                                          "full, or small for a quick, less accurate look")(
      "runs", po::value(&runs)->default_value(7), "timed runs per kernel; the median is used");
  po::positional_options_description no_positional;
  po::variables_map vm;
  if (!parse_options(
          args,
          "limiter calibrate [-o FILE] [--sizes small|full]\n\n"
          "Measures the achieved peaks of GPU 0 (docs/design.md §7: calibrate rather than trust datasheets):\n"
          "a 1 GiB streaming read (DRAM), 64 passes of ld.global.cg over 8 MiB (L2), eight FFMA chains\n"
          "per thread (FP32 issue), a dependent-load chain over 128 MiB (latency), and the SM clock\n"
          "while busy. Prints a summary and writes the peaks with the GPU's name, clocks and the date.",
          visible, no_positional, vm))
    return kExitOk;
  const kernels::ProblemSize problem_size = kernels::problem_size_from_string(sizes);
  if (runs < 1) throw InputError("--runs must be at least 1, got " + std::to_string(runs));
#ifdef LIMITER_HAVE_KERNEL_SUITE
  if (auto reason = kernels::gpu_unavailable_reason())
    throw SystemError(*reason + "; limiter calibrate measures this machine's GPU");
  kernels::ProgressBar progress(std::cerr, 5, kernels::ProgressBar::style_for(isatty(STDERR_FILENO) != 0, false));
  kernels::CalibrationOptions options;
  options.sizes = problem_size;
  options.timed_runs = runs;
  options.on_start = [&](const std::string& name) { progress.start(name); };
  const kernels::CalibrationResult result = kernels::run_calibration(options);
  progress.finish();
  write_output(output, kernels::calibration_json(result).dump(2) + "\n");
  std::ostringstream summary;
  kernels::write_calibration_summary(result, summary);
  write_output("", summary.str());
  std::cerr << "limiter calibrate: peaks written to " << output << "\n";
  return result.all_correct() ? kExitOk : kExitFailure;
#else
  (void)problem_size;
  throw SystemError(
      "this build has no CUDA (configured with -DLIMITER_WITH_CUDA=OFF): limiter calibrate needs the "
      "kernel suite and a GPU");
#endif
}

}  // namespace limiter::cli
